// The riscv64 Lowerer (host-neutral: emits riscv64 code on any host).
#ifndef SAFEPOINT_PLATFORMS_RISCV64_LOWER_H_
#define SAFEPOINT_PLATFORMS_RISCV64_LOWER_H_
#include <memory>
#include "platforms/emitter.h"
namespace safepoint {
std::unique_ptr<Lowerer> NewRiscv64Lowerer();
}
#endif
