// The amd64 Lowerer (host-neutral: emits amd64 code on any host).
#ifndef SAFEPOINT_PLATFORMS_AMD64_LOWER_H_
#define SAFEPOINT_PLATFORMS_AMD64_LOWER_H_
#include <memory>
#include "platforms/emitter.h"
namespace safepoint {
std::unique_ptr<Lowerer> NewAmd64Lowerer();
}
#endif
