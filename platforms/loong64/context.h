// loong64 signal context: glibc's mcontext_t mirrors the kernel's struct
// sigcontext (arch/loongarch/include/uapi/asm/sigcontext.h): sc_pc,
// sc_regs[32], sc_flags, then the extended-context records.
// Compiled only into loongarch64 binaries.
#ifndef SAFEPOINT_PLATFORMS_LOONG64_CONTEXT_H_
#define SAFEPOINT_PLATFORMS_LOONG64_CONTEXT_H_

#include <ucontext.h>

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "platforms/loong64/port.h"

namespace safepoint {

struct Loong64Context {
  static const PortInfo& kPort;
  // No tier of this port needs a CPU feature (LASX is in the base tier).
  static bool cpu_has(std::string_view) { return false; }
  static uintptr_t pc(const ucontext_t* uc) { return uc->uc_mcontext.__pc; }
  static uintptr_t sp(const ucontext_t* uc) { return uc->uc_mcontext.__gregs[3]; }
  static uintptr_t lr(const ucontext_t* uc) { return uc->uc_mcontext.__gregs[1]; }
  static uintptr_t greg(const ucontext_t* uc) { return uc->uc_mcontext.__gregs[22]; }
  static void set_pc(ucontext_t* uc, uintptr_t v) { uc->uc_mcontext.__pc = v; }
  static void set_sp(ucontext_t* uc, uintptr_t v) { uc->uc_mcontext.__gregs[3] = v; }
  static void set_lr(ucontext_t* uc, uintptr_t v) { uc->uc_mcontext.__gregs[1] = v; }
  static void push_call(ucontext_t* uc, uintptr_t target, uintptr_t resume) {
    // As Go's loong64 pushCall: 8 bytes down, the old RA saved there.
    uintptr_t sp = Loong64Context::sp(uc) - 8;
    *reinterpret_cast<uintptr_t*>(sp) = lr(uc);
    set_sp(uc, sp);
    set_lr(uc, resume);
    set_pc(uc, target);
  }
};
inline const PortInfo& Loong64Context::kPort = kLoong64Port;
static_assert(CheckSignalContext<Loong64Context>::ok);
// This header is the native port's when //platforms:native selects loong64.
using NativeContext = Loong64Context;
static_assert(offsetof(mcontext_t, __pc) == 0 && offsetof(mcontext_t, __gregs) == 8,
              "mcontext_t must mirror the kernel's struct sigcontext");

}  // namespace safepoint

#endif
