// amd64 signal context: glibc's ucontext_t, whose mcontext gregs mirror the
// kernel's struct sigcontext (arch/x86/include/uapi/asm/sigcontext.h).
// Compiled only into x86_64 binaries.
#ifndef SAFEPOINT_PLATFORMS_AMD64_CONTEXT_H_
#define SAFEPOINT_PLATFORMS_AMD64_CONTEXT_H_

#include <cpuid.h>
#include <ucontext.h>

#include <atomic>
#include <cstdint>
#include <string_view>

#include "platforms/amd64/port.h"

namespace safepoint {

struct Amd64Context {
  static const PortInfo& kPort;
  // The CPU features XTier::cpu_feature names: "avx" (YMM), "avx512f" (ZMM, K).
  static bool cpu_has(std::string_view f) {
    if (f == "avx") return __builtin_cpu_supports("avx");
    if (f == "avx512f") return __builtin_cpu_supports("avx512f");
    // KMOVQ (the mask registers at 64 bits) is AVX512BW's.
    if (f == "avx512bw") return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw");
    return false;
  }
  static uintptr_t pc(const ucontext_t* uc) { return uc->uc_mcontext.gregs[REG_RIP]; }
  static uintptr_t sp(const ucontext_t* uc) { return uc->uc_mcontext.gregs[REG_RSP]; }
  // No link register: the return address is on the stack.
  static uintptr_t lr(const ucontext_t*) { return 0; }
  static uintptr_t greg(const ucontext_t* uc) { return uc->uc_mcontext.gregs[REG_R14]; }
  static void set_pc(ucontext_t* uc, uintptr_t v) { uc->uc_mcontext.gregs[REG_RIP] = v; }
  static void set_sp(ucontext_t* uc, uintptr_t v) { uc->uc_mcontext.gregs[REG_RSP] = v; }
  static void set_lr(ucontext_t*, uintptr_t) { __builtin_trap(); }
  // The general registers and RFLAGS from gregs; XMM0-15 (the low 16 bytes
  // of YMM and ZMM too) from the FXSAVE image fpregs points to; the rest of
  // YMM and ZMM, and K0-K7, from the XSAVE components the kernel writes
  // after it (CopyPart), as far as the frame has them.
  static uint32_t saved_reg(const ucontext_t* uc, const SavedReg& r, uint8_t* out) {
    return read_slot(uc, locate(uc), slot(r), r.size, out);
  }
  // saved_reg in three steps, for the armed trap, which reads every register
  // of one context: where a register lives (`slot`, from its name, asked
  // once per register outside the handler), the FXSAVE image (found once
  // per context), and the copy. -1: no context holds it.
  static int slot(const SavedReg& r) {
    static constexpr struct {
      const char* name;
      int greg;
    } kGregs[] = {{"rax", REG_RAX}, {"rcx", REG_RCX}, {"rdx", REG_RDX}, {"rbx", REG_RBX}, {"rsi", REG_RSI},
                  {"rdi", REG_RDI}, {"rbp", REG_RBP}, {"r8", REG_R8},   {"r9", REG_R9},   {"r10", REG_R10},
                  {"r11", REG_R11}, {"r12", REG_R12}, {"r13", REG_R13}, {"r14", REG_R14}, {"r15", REG_R15},
                  {"rflags", REG_EFL}};
    if (r.kind != SavedReg::kVector) {
      for (const auto& g : kGregs)
        if (r.name == g.name) return g.greg;
      return -1;
    }
    int k = RegNumber(r.name, "k");
    if (k >= 0) return k < 8 ? kSlotK + k : -1;
    int n = RegNumber(r.name, "xmm");
    if (n < 0) n = RegNumber(r.name, "ymm");
    if (n < 0) n = RegNumber(r.name, "zmm");
    return n >= 0 && n < 16 ? kSlotVec + n : -1;
  }
  static constexpr int kSlotVec = 100, kSlotK = 200;
  struct Located {
    const uint8_t* fx = nullptr;  // the FXSAVE image fpregs points to (nullptr: none)
  };
  static Located locate(const ucontext_t* uc) { return {reinterpret_cast<const uint8_t*>(uc->uc_mcontext.fpregs)}; }
  [[gnu::always_inline]] static uint32_t read_slot(const ucontext_t* uc, const Located& at, int slot, uint32_t size, uint8_t* out) {
    if (slot >= 0 && slot < NGREG) return Copy<8>(out, &uc->uc_mcontext.gregs[slot], size);
    if (at.fx == nullptr) return 0;
    if (slot >= kSlotK && slot < kSlotK + 8) return CopyPart(out, at.fx, kOpmask, 8u * (slot - kSlotK), size);
    if (slot < kSlotVec || slot >= kSlotVec + 16) return 0;
    int n = slot - kSlotVec;
    uint32_t got = Copy<16>(out, &uc->uc_mcontext.fpregs->_xmm[n], size);
    if (got < size && got == 16) got += CopyPart(out + 16, at.fx, kYmmHi128, 16u * n, size - 16 < 16 ? size - 16 : 16);
    if (got < size && got == 32) got += CopyPart(out + 32, at.fx, kZmmHi256, 32u * n, size - 32);
    return got;
  }
  // CopyReg(out, src, N, cap), one fixed-size copy when all N bytes fit.
  template <uint32_t N>
  [[gnu::always_inline]] static uint32_t Copy(uint8_t* out, const void* src, uint32_t cap) {
    if (cap >= N) return __builtin_memcpy(out, src, N), N;
    return CopyReg(out, src, N, cap);
  }

  // The XSAVE components saved_reg reads (Intel SDM vol. 1, 13.1).
  static constexpr int kYmmHi128 = 2, kOpmask = 5, kZmmHi256 = 6;
  // Component `comp` of the XSAVE image after the FXSAVE part at fx, `n`
  // bytes from `at`: copied to out (a component in its initial state, its
  // XSTATE_BV bit clear, is zeros), 0 when the frame holds no such
  // component. The kernel says it wrote an XSAVE image in the FXSAVE part's
  // software bytes (FP_XSTATE_MAGIC1 at byte 464, the features saved at 472
  // and the image's size at 480, arch/x86/include/uapi/asm/sigcontext.h);
  // the components are at their standard offsets (CPUID leaf 0xD).
  // Async-signal-safe: no libc, CPUID asked once per component.
  static uint32_t CopyPart(uint8_t* out, const uint8_t* fx, int comp, uint32_t at, uint32_t n) {
    uint32_t magic1, xstate_size;
    uint64_t xfeatures, xstate_bv;
    __builtin_memcpy(&magic1, fx + 464, 4);
    __builtin_memcpy(&xfeatures, fx + 472, 8);
    __builtin_memcpy(&xstate_size, fx + 480, 4);
    if (magic1 != 0x46505853u || (xfeatures >> comp & 1) == 0) return 0;
    uint32_t off = 0, size = 0;
    ComponentPlace(comp, &off, &size);
    if (off == 0 || at + n > size || off + size > xstate_size) return 0;
    __builtin_memcpy(&xstate_bv, fx + 512, 8);
    for (uint32_t i = 0; i < n; i++) out[i] = (xstate_bv >> comp & 1) ? fx[off + at + i] : 0;
    return n;
  }
  static void ComponentPlace(int comp, uint32_t* off, uint32_t* size) {
    static std::atomic<uint64_t> place[8];  // (size << 32 | offset) + 1, 0: not asked yet
    uint64_t v = place[comp].load(std::memory_order_relaxed);
    if (v == 0) {
      uint32_t eax = 0, ebx = 0, ecx = 0, edx = 0;
      __cpuid_count(0xD, comp, eax, ebx, ecx, edx);
      v = ((static_cast<uint64_t>(eax) << 32) | ebx) + 1;
      place[comp].store(v, std::memory_order_relaxed);
    }
    v -= 1;
    *off = static_cast<uint32_t>(v);
    *size = static_cast<uint32_t>(v >> 32);
  }
  static void push_call(ucontext_t* uc, uintptr_t target, uintptr_t resume) {
    uintptr_t sp = Amd64Context::sp(uc) - 8;
    *reinterpret_cast<uintptr_t*>(sp) = resume;
    set_sp(uc, sp);
    set_pc(uc, target);
  }
};
inline const PortInfo& Amd64Context::kPort = kAmd64Port;
static_assert(CheckSignalContext<Amd64Context>::ok);
// This header is the native port's when //platforms:native selects amd64.
using NativeContext = Amd64Context;
static_assert(sizeof(greg_t) == 8 && NGREG == 23, "mcontext gregs layout");

}  // namespace safepoint

#endif
