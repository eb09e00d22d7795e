// The riscv64 asyncPreempt printer (see platforms/mkpreempt.cc).
//
// Entered through pushCall: RA = the resume PC, the interrupted RA at 0(SP).
// The frame (platforms/riscv64/port.cc) holds the resume PC at 0, then the
// table's general registers and fcsr, and REGTMP at 216; the FP registers
// go to the P's scratch area, a 16-byte entry "fA/fB" being the pair fA at
// its offset and fB 8 bytes above. No vector (RVV) state: the pinned CPU
// has no V extension (platforms/riscv64/hwcap_test.cc checks it).
//
// The return jump: Go's riscv64 asyncPreempt returns through REGTMP (x31),
// which it never preserves, so code resumed inside a REGTMP sequence that
// was not rewound computes a wrong address and usually faults. Here the
// jump goes through x5 (t0) instead, and REGTMP is restored. Generated code
// uses x5 only as morestack's link register inside the prologue's tail (an
// unsafe point, never interrupted), so x5 is saved but not restored. A
// broken restart rule (the sweep's no-restart and skip-unsafe-point
// mutations) then shows as disagreements with the oracle instead of a
// SIGSEGV that kills the in-process sweep. kJumpThroughT0 = false gives
// Go's exact behaviour.
//
// Assembled with .option norvc, as generated code: no compressed
// instructions.
#include <cstdio>
#include <string>

#include "platforms/mkpreempt.h"
#include "platforms/riscv64/port.h"

namespace safepoint {
namespace {

constexpr bool kJumpThroughT0 = true;
constexpr uint32_t kRegtmpOff = 216;

void Vector(bool store, const SavedReg& r) {
  // x5 holds g->m->p. "fA/fB": fA at the offset, fB 8 bytes above.
  std::string name(r.name);
  size_t slash = name.find('/');
  std::string lo = name.substr(0, slash), hi = slash == std::string::npos ? "" : name.substr(slash + 1);
  const char* op = store ? "fsd" : "fld";
  printf("\t%s %s, P_XSCRATCH+%u(x5)\n", op, lo.c_str(), r.offset);
  if (!hi.empty()) printf("\t%s %s, P_XSCRATCH+%u(x5)\n", op, hi.c_str(), r.offset + 8);
}

void Riscv64Function(const PortInfo& p, const char* name, std::string_view drop = {}) {
  uint32_t alloc = p.async_frame - p.pushcall_bytes;  // pushCall's 8 bytes are already below SP
  printf("\t.globl %s\n\t.type %s, @function\n\t.p2align 2\n%s:\n", name, name, name);
  printf("\taddi sp, sp, -%u\n", alloc);
  printf("\tsd ra, 0(sp)\n");  // the resume PC
  if (kJumpThroughT0) printf("\tsd x31, %u(sp)\n", kRegtmpOff);
  for (const SavedReg& r : p.saved_regs)
    if (r.kind == SavedReg::kGeneral && r.name != drop)
      printf("\tsd %s, %u(sp)\n", std::string(r.name).c_str(), r.offset);
  // x5 is saved now: free as a temporary.
  for (const SavedReg& r : p.saved_regs)
    if (r.kind == SavedReg::kFlags) printf("\tcsrr x5, %s\n\tsd x5, %u(sp)\n", std::string(r.name).c_str(), r.offset);
  printf("\tld x5, G_M(x27)\n\tld x5, M_P(x5)\n");
  // fsd/fld reach 12 signed bits from the P.
  printf("\t.if P_XSCRATCH + %u > 2048\n\t.error \"P_XSCRATCH beyond fsd's reach\"\n\t.endif\n", p.xscratch_bytes);
  for (const SavedReg& r : p.saved_regs)
    if (r.kind == SavedReg::kVector) Vector(true, r);
  // sp_mcall records sched.pc = RA (the next instruction), sched.sp = SP.
  printf("\tlla a0, sp_asyncpreempt2_g0\n\tcall sp_mcall\n");
  // Resumed here, perhaps on another M and P.
  printf("\tld x5, G_M(x27)\n\tld x5, M_P(x5)\n");
  for (auto it = p.saved_regs.rbegin(); it != p.saved_regs.rend(); ++it)
    if (it->kind == SavedReg::kVector) Vector(false, *it);
  for (auto it = p.saved_regs.rbegin(); it != p.saved_regs.rend(); ++it)
    if (it->kind == SavedReg::kFlags) printf("\tld x5, %u(sp)\n\tcsrw %s, x5\n", it->offset, std::string(it->name).c_str());
  for (auto it = p.saved_regs.rbegin(); it != p.saved_regs.rend(); ++it)
    if (it->kind == SavedReg::kGeneral && it->name != drop && !(kJumpThroughT0 && it->name == "x5"))
      printf("\tld %s, %u(sp)\n", std::string(it->name).c_str(), it->offset);
  if (kJumpThroughT0) {
    printf("\tld x31, %u(sp)\n\tld x5, 0(sp)\n", kRegtmpOff);  // REGTMP; the resume PC
  } else {
    printf("\tld x31, 0(sp)\n");  // the resume PC, in REGTMP (as Go)
  }
  printf("\tld ra, %u(sp)\n", alloc);  // the interrupted RA, from pushCall's slot
  printf("\taddi sp, sp, %u\n", p.async_frame);
  printf("\tjr %s\n", kJumpThroughT0 ? "x5" : "x31");
  printf("\t.size %s, .-%s\n\n", name, name);
}

}  // namespace

void PrintPreemptRiscv64() {
  PrintPreemptBanner("riscv64");
  printf("\t.option norvc\n\t.text\n");
  // The pinned rv64 CPU has no V extension: the simd variant saves the same state.
  Riscv64Function(kRiscv64Port, "sp_asyncPreempt");
  Riscv64Function(kRiscv64Port, "sp_asyncPreempt_simd");
  Riscv64Function(kRiscv64Port, "sp_asyncPreempt_drop1", kRiscv64Port.ir_regs[3]);
}

}  // namespace safepoint
