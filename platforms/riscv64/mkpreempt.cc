// How the riscv64 assembler spells asyncPreempt's steps; the walk is
// platforms/mkpreempt.cc.
//
// Entered through pushCall: RA = the resume PC, the interrupted RA at 0(SP).
// The frame (platforms/riscv64/port.cc) holds the resume PC at 0, then the
// table's general registers and fcsr, and REGTMP at 216; the FP registers
// go to the P's scratch area, f_i at 8*i. No vector (RVV) state: the pinned CPU
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

void Vector(bool store, bool low_half, const SavedReg& r) {
  // x5 holds g->m->p. The half-vector mutation moves the low 32 bits
  // (FSW/FLW; FLW NaN-boxes: the upper 32 bits become ones).
  const char* op = low_half ? (store ? "fsw" : "flw") : (store ? "fsd" : "fld");
  printf("\t%s %s, P_XSCRATCH+%u(x5)\n", op, std::string(r.name).c_str(), r.offset);
}

std::string S(std::string_view v) { return std::string(v); }

class Riscv64Spelling : public PreemptSpelling {
 public:
  const PortInfo& port() const override { return kRiscv64Port; }
  uint32_t alloc() const { return kRiscv64Port.async_frame - kRiscv64Port.pushcall_bytes; }
  void Enter(const std::string& n) override {
    printf("\t.option norvc\n\t.globl %s\n\t.type %s, @function\n\t.p2align 2\n%s:\n", n.c_str(), n.c_str(), n.c_str());
    printf("\taddi sp, sp, -%u\n", alloc());  // pushCall's 8 bytes are already below SP
    printf("\tsd ra, 0(sp)\n");                // the resume PC
    if (kJumpThroughT0) printf("\tsd x31, %u(sp)\n", kRegtmpOff);
  }
  void SaveGenerals(const Regs& regs) override {
    for (const SavedReg* r : regs) printf("\tsd %s, %u(sp)\n", S(r->name).c_str(), r->offset);
  }
  // x5 is saved by now: free as a temporary.
  void SaveFlags(const SavedReg& r) override { printf("\tcsrr x5, %s\n\tsd x5, %u(sp)\n", S(r.name).c_str(), r.offset); }
  void LoadScratchBase() override {
    printf("\tld x5, G_M(x27)\n\tld x5, M_P(x5)\n");
    // fsd/fld reach 12 signed bits from the P.
    printf("\t.if P_XSCRATCH + %u > 2048\n\t.error \"P_XSCRATCH beyond fsd's reach\"\n\t.endif\n",
           kRiscv64Port.tiers.back().scratch_bytes);
  }
  void SaveVectors(const Regs& regs, bool low_half) override {
    for (const SavedReg* r : regs) Vector(true, low_half, *r);
  }
  // sp_mcall records sched.pc = RA (the next instruction), sched.sp = SP.
  void CallAsyncPreempt2() override { printf("\tlla a0, sp_asyncpreempt2_g0\n\tcall sp_mcall\n"); }
  void RestoreVectors(const Regs& regs, bool low_half) override {
    for (const SavedReg* r : regs) Vector(false, low_half, *r);
  }
  void RestoreFlags(const SavedReg& r) override { printf("\tld x5, %u(sp)\n\tcsrw %s, x5\n", r.offset, S(r.name).c_str()); }
  void RestoreGenerals(const Regs& regs) override {
    for (const SavedReg* r : regs)
      if (!(kJumpThroughT0 && r->name == "x5")) printf("\tld %s, %u(sp)\n", S(r->name).c_str(), r->offset);
  }
  void Leave(const std::string& n) override {
    if (kJumpThroughT0) {
      printf("\tld x31, %u(sp)\n\tld x5, 0(sp)\n", kRegtmpOff);  // REGTMP; the resume PC
    } else {
      printf("\tld x31, 0(sp)\n");  // the resume PC, in REGTMP (as Go)
    }
    printf("\tld ra, %u(sp)\n", alloc());  // the interrupted RA, from pushCall's slot
    printf("\taddi sp, sp, %u\n", kRiscv64Port.async_frame);
    printf("\tjr %s\n", kJumpThroughT0 ? "x5" : "x31");
    printf("\t.size %s, .-%s\n\n", n.c_str(), n.c_str());
  }
};

std::unique_ptr<PreemptSpelling> NewRiscv64Spelling() { return std::make_unique<Riscv64Spelling>(); }
SAFEPOINT_REGISTER_PREEMPT_SPELLING("riscv64", NewRiscv64Spelling);

}  // namespace
}  // namespace safepoint
