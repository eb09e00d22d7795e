// amd64 signal context: glibc's ucontext_t, whose mcontext gregs mirror the
// kernel's struct sigcontext (arch/x86/include/uapi/asm/sigcontext.h).
// Compiled only into x86_64 binaries.
#ifndef SAFEPOINT_PLATFORMS_AMD64_CONTEXT_H_
#define SAFEPOINT_PLATFORMS_AMD64_CONTEXT_H_

#include <ucontext.h>

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
  // The general registers and RFLAGS from gregs; XMM0-15 from the FXSAVE
  // image fpregs points to, which also gives the low 16 bytes of YMM and
  // ZMM (their upper parts are in the XSAVE area's components, not read
  // here); K0-K7 not at all.
  static uint32_t saved_reg(const ucontext_t* uc, const SavedReg& r, uint8_t* out) {
    static constexpr struct {
      const char* name;
      int greg;
    } kGregs[] = {{"rax", REG_RAX}, {"rcx", REG_RCX}, {"rdx", REG_RDX}, {"rbx", REG_RBX}, {"rsi", REG_RSI},
                  {"rdi", REG_RDI}, {"rbp", REG_RBP}, {"r8", REG_R8},   {"r9", REG_R9},   {"r10", REG_R10},
                  {"r11", REG_R11}, {"r12", REG_R12}, {"r13", REG_R13}, {"r14", REG_R14}, {"r15", REG_R15},
                  {"rflags", REG_EFL}};
    if (r.kind != SavedReg::kVector) {
      for (const auto& g : kGregs)
        if (r.name == g.name) return CopyReg(out, &uc->uc_mcontext.gregs[g.greg], 8, r.size);
      return 0;
    }
    int n = RegNumber(r.name, "xmm");
    if (n < 0) n = RegNumber(r.name, "ymm");
    if (n < 0) n = RegNumber(r.name, "zmm");
    if (n < 0 || n >= 16 || uc->uc_mcontext.fpregs == nullptr) return 0;
    return CopyReg(out, &uc->uc_mcontext.fpregs->_xmm[n], 16, r.size);
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
