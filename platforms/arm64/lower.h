// The arm64 Lowerer (host-neutral: emits arm64 code on any host).
#ifndef SAFEPOINT_PLATFORMS_ARM64_LOWER_H_
#define SAFEPOINT_PLATFORMS_ARM64_LOWER_H_
#include <memory>
#include "platforms/emitter.h"
namespace safepoint {
std::unique_ptr<Lowerer> NewArm64Lowerer();
}
#endif
