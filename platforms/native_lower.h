// The Lowerer of the port this binary runs on (see platforms/native.h).
#ifndef SAFEPOINT_PLATFORMS_NATIVE_LOWER_H_
#define SAFEPOINT_PLATFORMS_NATIVE_LOWER_H_

#if defined(__x86_64__)
#include "platforms/amd64/lower.h"
namespace safepoint { inline std::unique_ptr<Lowerer> NewNativeLowerer() { return NewAmd64Lowerer(); } }
#elif defined(__aarch64__)
#include "platforms/arm64/lower.h"
namespace safepoint { inline std::unique_ptr<Lowerer> NewNativeLowerer() { return NewArm64Lowerer(); } }
#elif defined(__loongarch64)
#include "platforms/loong64/lower.h"
namespace safepoint { inline std::unique_ptr<Lowerer> NewNativeLowerer() { return NewLoong64Lowerer(); } }
#else
#error "safepoint has no port for this architecture: see conformance/PORTING.md"
#endif

#endif
