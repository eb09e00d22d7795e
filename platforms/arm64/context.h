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
  // x0-x30 from regs, NZCV from pstate, and FPSR, FPCR and V0-V31 from the
  // fpsimd record of __reserved. Not "lr": the frame's LR slot holds the
  // resume PC pushCall put there, not the trap's LR (which pushCall saved
  // below the frame).
  static uint32_t saved_reg(const ucontext_t* uc, const SavedReg& r, uint8_t* out) {
    return read_slot(uc, locate(uc), slot(r), r.size, out);
  }
  // saved_reg in three steps, for the armed trap, which reads every register
  // of one context: where a register lives (`slot`, from its name, asked
  // once per register outside the handler), the context's fpsimd record
  // (found once per context), and the copy. Under QEMU the handler did each
  // register's name parsing, record walk and byte loop per trap: 5,200 of
  // the 10,000 guest instructions of an armed preemption (cmd/async_bench).
  // -1: no context holds it.
  static int slot(const SavedReg& r) {
    if (r.kind == SavedReg::kGeneral) {
      int n = RegNumber(r.name, "x");
      return n >= 0 && n < 31 ? n : -1;
    }
    if (r.name == "nzcv") return kSlotNzcv;
    if (r.name == "fpsr") return kSlotFpsr;
    if (r.name == "fpcr") return kSlotFpcr;
    int q = RegNumber(r.name, "q");
    return q >= 0 && q < 32 ? kSlotQ + q : -1;
  }
  static constexpr int kSlotNzcv = 100, kSlotFpsr = 101, kSlotFpcr = 102, kSlotQ = 200;
  // The fpsimd record's body (fpsr, fpcr: 32 bits each, then the 32 vregs),
  // nullptr when the context has none. The records: a magic, a size, the
  // body; a zero magic ends them.
  struct Located {
    const uint8_t* fpsimd = nullptr;
  };
  static Located locate(const ucontext_t* uc) {
    const mcontext_t& mc = uc->uc_mcontext;
    constexpr uint32_t kFpsimdMagic = 0x46508001;
    for (size_t at = 0; at + 8 <= sizeof mc.__reserved;) {
      uint32_t magic, size;
      __builtin_memcpy(&magic, mc.__reserved + at, 4);
      __builtin_memcpy(&size, mc.__reserved + at + 4, 4);
      if (magic == 0 || size < 8 || at + size > sizeof mc.__reserved) break;
      if (magic == kFpsimdMagic && size >= 16 + 32 * 16) return {mc.__reserved + at + 8};
      at += size;
    }
    return {};
  }
  [[gnu::always_inline]] static uint32_t read_slot(const ucontext_t* uc, const Located& at, int slot, uint32_t size, uint8_t* out) {
    const mcontext_t& mc = uc->uc_mcontext;
    if (slot >= 0 && slot < 31) return Copy<8>(out, &mc.regs[slot], size);
    if (slot == kSlotNzcv) {
      uint64_t v = mc.pstate & 0xF0000000u;
      return Copy<8>(out, &v, size);
    }
    if (at.fpsimd == nullptr) return 0;
    uint64_t v = 0;
    if (slot == kSlotFpsr) return __builtin_memcpy(&v, at.fpsimd, 4), Copy<8>(out, &v, size);
    if (slot == kSlotFpcr) return __builtin_memcpy(&v, at.fpsimd + 4, 4), Copy<8>(out, &v, size);
    if (slot >= kSlotQ && slot < kSlotQ + 32) return Copy<16>(out, at.fpsimd + 8 + 16 * (slot - kSlotQ), size);
    return 0;
  }
  // CopyReg(out, src, N, cap), one fixed-size copy when all N bytes fit.
  template <uint32_t N>
  [[gnu::always_inline]] static uint32_t Copy(uint8_t* out, const void* src, uint32_t cap) {
    if (cap >= N) return __builtin_memcpy(out, src, N), N;
    return CopyReg(out, src, N, cap);
  }
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
