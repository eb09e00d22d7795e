// Selects the port this binary was compiled for. This is the one place where
// the compiler's architecture macros choose code; tests never use them to
// decide what architecture they expect (the build tells them).
#ifndef SAFEPOINT_PLATFORMS_NATIVE_H_
#define SAFEPOINT_PLATFORMS_NATIVE_H_

#if defined(__x86_64__)
#include "platforms/amd64/context.h"
namespace safepoint { using NativeContext = Amd64Context; }
#elif defined(__aarch64__)
#include "platforms/arm64/context.h"
namespace safepoint { using NativeContext = Arm64Context; }
#elif defined(__loongarch64)
#include "platforms/loong64/context.h"
namespace safepoint { using NativeContext = Loong64Context; }
#else
#error "safepoint has no port for this architecture: see conformance/PORTING.md"
#endif

namespace safepoint {
inline const PortInfo& NativePort() { return NativeContext::kPort; }
}  // namespace safepoint

#endif
