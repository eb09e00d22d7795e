// arm64 signal context: glibc's mcontext_t mirrors the kernel's struct
// sigcontext (arch/arm64/include/uapi/asm/sigcontext.h): fault_address,
// regs[31], sp, pc, pstate, then the __reserved record area.
// Compiled only into aarch64 binaries.
#ifndef SAFEPOINT_PLATFORMS_ARM64_CONTEXT_H_
#define SAFEPOINT_PLATFORMS_ARM64_CONTEXT_H_

#include <ucontext.h>

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "platforms/arm64/port.h"

namespace safepoint {

struct Arm64Context {
  static const PortInfo& kPort;
  // No tier of this port needs a CPU feature (the pinned cortex-a72 has no SVE).
  static bool cpu_has(std::string_view) { return false; }
  static uintptr_t pc(const ucontext_t* uc) { return uc->uc_mcontext.pc; }
  static uintptr_t sp(const ucontext_t* uc) { return uc->uc_mcontext.sp; }
  static uintptr_t lr(const ucontext_t* uc) { return uc->uc_mcontext.regs[30]; }
  static uintptr_t greg(const ucontext_t* uc) { return uc->uc_mcontext.regs[28]; }
  static void set_pc(ucontext_t* uc, uintptr_t v) { uc->uc_mcontext.pc = v; }
  static void set_sp(ucontext_t* uc, uintptr_t v) { uc->uc_mcontext.sp = v; }
  static void set_lr(ucontext_t* uc, uintptr_t v) { uc->uc_mcontext.regs[30] = v; }
  static void push_call(ucontext_t* uc, uintptr_t target, uintptr_t resume) {
    // 16 bytes keeps SP 16-byte aligned, as AAPCS64 and Go's arm64 port need.
    uintptr_t sp = Arm64Context::sp(uc) - 16;
    *reinterpret_cast<uintptr_t*>(sp) = lr(uc);
    set_sp(uc, sp);
    set_lr(uc, resume);
    set_pc(uc, target);
  }
};
inline const PortInfo& Arm64Context::kPort = kArm64Port;
static_assert(CheckSignalContext<Arm64Context>::ok);
// This header is the native port's when //platforms:native selects arm64.
using NativeContext = Arm64Context;
static_assert(offsetof(mcontext_t, regs) == 8 && offsetof(mcontext_t, sp) == 256 &&
                  offsetof(mcontext_t, pc) == 264 && offsetof(mcontext_t, pstate) == 272,
              "mcontext_t must mirror the kernel's struct sigcontext");

}  // namespace safepoint

#endif
