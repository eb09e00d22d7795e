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
  // $r1-$r31 from __gregs; FCC, FCSR0 and the vector registers from the
  // extended-context records after the GPRs (each a 16-byte header: magic,
  // size, padding; a zero magic ends them): LASX gives all 32 bytes of
  // $xrN, LSX the low 16, FPU the low 8. FCC there has one byte per
  // condition flag; the save area packs them one bit each.
  static uint32_t saved_reg(const ucontext_t* uc, const SavedReg& r, uint8_t* out) {
    return read_slot(uc, locate(uc), slot(r), r.size, out);
  }
  // saved_reg in three steps, for the armed trap, which reads every register
  // of one context: where a register lives (`slot`, from its name, asked
  // once per register outside the handler), the context's FP record
  // (found once per context), and the copy. -1: no context holds it.
  static int slot(const SavedReg& r) {
    if (r.kind == SavedReg::kGeneral) {
      int n = RegNumber(r.name, "$r");
      return n >= 1 && n < 32 ? n : -1;
    }
    if (r.name == "fcc") return kSlotFcc;
    if (r.name == "fcsr0") return kSlotFcsr;
    int x = RegNumber(r.name, "$xr");
    return x >= 0 && x < 32 ? kSlotXr + x : -1;
  }
  static constexpr int kSlotFcc = 100, kSlotFcsr = 101, kSlotXr = 200;
  // The first LASX, LSX or FPU record: its body (regs[32 * width / 8],
  // then fcc (64 bits), fcsr (32)) and register width; width 0: none.
  struct Located {
    const uint8_t* body = nullptr;
    uint32_t width = 0;
  };
  static Located locate(const ucontext_t* uc) {
    constexpr uint32_t kFpu = 0x46505501, kLsx = 0x53580001, kLasx = 0x41535801;
    const uint8_t* ext = reinterpret_cast<const uint8_t*>(uc->uc_mcontext.__extcontext);
    for (size_t at = 0; at < 64 * 1024;) {
      uint32_t magic, size;
      __builtin_memcpy(&magic, ext + at, 4);
      __builtin_memcpy(&size, ext + at + 4, 4);
      if (magic == 0 || size < 16) break;
      uint32_t width = magic == kLasx ? 32 : magic == kLsx ? 16 : magic == kFpu ? 8 : 0;
      if (width != 0) return {ext + at + 16, width};
      at += size;
    }
    return {};
  }
  [[gnu::always_inline]] static uint32_t read_slot(const ucontext_t* uc, const Located& at, int slot, uint32_t size, uint8_t* out) {
    if (slot >= 1 && slot < 32) return Copy<8>(out, &uc->uc_mcontext.__gregs[slot], size);
    if (at.width == 0) return 0;
    const uint8_t* after = at.body + 32 * at.width;
    if (slot == kSlotFcc) {
      uint64_t bytes, packed = 0;
      __builtin_memcpy(&bytes, after, 8);
      for (int i = 0; i < 8; i++) packed |= ((bytes >> (8 * i)) & 1) << i;
      return Copy<8>(out, &packed, size);
    }
    if (slot == kSlotFcsr) {
      uint64_t v = 0;
      __builtin_memcpy(&v, after + 8, 4);
      return Copy<8>(out, &v, size);
    }
    if (slot < kSlotXr || slot >= kSlotXr + 32) return 0;
    const uint8_t* reg = at.body + at.width * (slot - kSlotXr);
    return at.width == 32 ? Copy<32>(out, reg, size) : at.width == 16 ? Copy<16>(out, reg, size) : Copy<8>(out, reg, size);
  }
  // CopyReg(out, src, N, cap), one fixed-size copy when all N bytes fit.
  template <uint32_t N>
  [[gnu::always_inline]] static uint32_t Copy(uint8_t* out, const void* src, uint32_t cap) {
    if (cap >= N) return __builtin_memcpy(out, src, N), N;
    return CopyReg(out, src, N, cap);
  }
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
