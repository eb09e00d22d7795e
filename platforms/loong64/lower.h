// The loong64 Lowerer (host-neutral: emits loong64 code on any host).
#ifndef SAFEPOINT_PLATFORMS_LOONG64_LOWER_H_
#define SAFEPOINT_PLATFORMS_LOONG64_LOWER_H_
#include <memory>
#include "platforms/emitter.h"
namespace safepoint {
std::unique_ptr<Lowerer> NewLoong64Lowerer();
}
#endif
