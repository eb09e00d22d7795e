// riscv64 signal context: glibc's mcontext_t mirrors the kernel's struct
// sigcontext (arch/riscv/include/uapi/asm/sigcontext.h): struct
// user_regs_struct (pc, then x1..x31: __gregs[32] with the PC at index 0),
// then the F/D/Q state union (__fpregs; the V state, if any, would follow in
// the kernel's extension area, which the pinned CPU never produces).
// Compiled only into riscv64 binaries.
#ifndef SAFEPOINT_PLATFORMS_RISCV64_CONTEXT_H_
#define SAFEPOINT_PLATFORMS_RISCV64_CONTEXT_H_

#include <ucontext.h>

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "platforms/riscv64/port.h"

namespace safepoint {

struct Riscv64Context {
  static const PortInfo& kPort;
  // __gregs indices: REG_PC 0, RA 1, SP 2, and x27 (g) at 27.
  // No tier of this port needs a CPU feature (README.md, "Vector state";
  // hwcap_native_test.cc checks the pinned CPU has no V).
  static bool cpu_has(std::string_view) { return false; }
  static constexpr int kPc = 0, kRa = 1, kSp = 2, kG = 27;
  static uintptr_t pc(const ucontext_t* uc) { return uc->uc_mcontext.__gregs[kPc]; }
  static uintptr_t sp(const ucontext_t* uc) { return uc->uc_mcontext.__gregs[kSp]; }
  static uintptr_t lr(const ucontext_t* uc) { return uc->uc_mcontext.__gregs[kRa]; }
  static uintptr_t greg(const ucontext_t* uc) { return uc->uc_mcontext.__gregs[kG]; }
  static void set_pc(ucontext_t* uc, uintptr_t v) { uc->uc_mcontext.__gregs[kPc] = v; }
  static void set_sp(ucontext_t* uc, uintptr_t v) { uc->uc_mcontext.__gregs[kSp] = v; }
  static void set_lr(ucontext_t* uc, uintptr_t v) { uc->uc_mcontext.__gregs[kRa] = v; }
  // x1-x31 from __gregs, F0-F31 and FCSR from the D-extension state.
  static uint32_t saved_reg(const ucontext_t* uc, const SavedReg& r, uint8_t* out) {
    return read_slot(uc, locate(uc), slot(r), r.size, out);
  }
  // saved_reg in three steps, for the armed trap, which reads every register
  // of one context: where a register lives (`slot`, from its name, asked
  // once per register outside the handler), the context's records (none
  // here: the F/D state is in the sigcontext itself), and the copy. -1: no
  // context holds it.
  static int slot(const SavedReg& r) {
    if (r.kind == SavedReg::kGeneral) {
      int n = RegNumber(r.name, "x");
      return n >= 1 && n < 32 ? n : -1;
    }
    if (r.name == "fcsr") return kSlotFcsr;
    int f = RegNumber(r.name, "f");
    return f >= 0 && f < 32 ? kSlotF + f : -1;
  }
  static constexpr int kSlotFcsr = 100, kSlotF = 200;
  struct Located {};
  static Located locate(const ucontext_t*) { return {}; }
  [[gnu::always_inline]] static uint32_t read_slot(const ucontext_t* uc, const Located&, int slot, uint32_t size, uint8_t* out) {
    const mcontext_t& mc = uc->uc_mcontext;
    if (slot >= 1 && slot < 32) return Copy<8>(out, &mc.__gregs[slot], size);
    if (slot == kSlotFcsr) {
      uint64_t v = mc.__fpregs.__d.__fcsr;
      return Copy<8>(out, &v, size);
    }
    if (slot >= kSlotF && slot < kSlotF + 32) return Copy<8>(out, &mc.__fpregs.__d.__f[slot - kSlotF], size);
    return 0;
  }
  // CopyReg(out, src, N, cap), one fixed-size copy when all N bytes fit.
  template <uint32_t N>
  [[gnu::always_inline]] static uint32_t Copy(uint8_t* out, const void* src, uint32_t cap) {
    if (cap >= N) return __builtin_memcpy(out, src, N), N;
    return CopyReg(out, src, N, cap);
  }
  static void push_call(ucontext_t* uc, uintptr_t target, uintptr_t resume) {
    // As Go's riscv64 pushCall: 8 bytes down, the old RA saved there, RA =
    // the resume PC, PC = the target.
    uintptr_t sp = Riscv64Context::sp(uc) - 8;
    *reinterpret_cast<uintptr_t*>(sp) = lr(uc);
    set_sp(uc, sp);
    set_lr(uc, resume);
    set_pc(uc, target);
  }
};
inline const PortInfo& Riscv64Context::kPort = kRiscv64Port;
static_assert(CheckSignalContext<Riscv64Context>::ok);
// This header is the native port's when //platforms:native selects riscv64.
using NativeContext = Riscv64Context;
static_assert(offsetof(mcontext_t, __gregs) == 0 && sizeof(mcontext_t::__gregs) == 32 * 8 &&
                  offsetof(mcontext_t, __fpregs) == 32 * 8,
              "mcontext_t must mirror the kernel's struct sigcontext: pc and x1..x31, then the FP state");
static_assert(REG_PC == Riscv64Context::kPc && REG_RA == Riscv64Context::kRa && REG_SP == Riscv64Context::kSp,
              "glibc's register indices");
static_assert(offsetof(ucontext_t, uc_mcontext) % 16 == 0, "the kernel aligns the sigcontext to 16 bytes");

}  // namespace safepoint

#endif
