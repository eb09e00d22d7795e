// How the amd64 assembler (GNU syntax) spells asyncPreempt's steps; the
// walk is platforms/mkpreempt.cc. Entered through pushCall: the resume PC
// is on the stack. LEAQ moves SP without touching the flags; RAX, saved
// first, is the scratch register after that.
#include <cstdio>
#include <string>

#include "platforms/amd64/port.h"
#include "platforms/mkpreempt.h"

namespace safepoint {
namespace {

std::string S(std::string_view v) { return std::string(v); }

// The move of a whole register, or of its low half (the half-vector
// mutation): Z's low half is its Y, Y's its X, X's and K's the low 64 and
// 32 bits.
struct VecMove {
  const char* op;
  std::string reg;
};
VecMove Move(const SavedReg& r, bool low_half) {
  std::string n(r.name), num = n.substr(n[0] == 'k' ? 1 : 3);
  switch (n[0]) {
    case 'k': return {low_half ? "kmovd" : "kmovq", n};
    case 'z': return low_half ? VecMove{"vmovdqu", "ymm" + num} : VecMove{"vmovdqu64", n};
    case 'y': return low_half ? VecMove{"movdqu", "xmm" + num} : VecMove{"vmovdqu", n};
    default: return {low_half ? "movq" : "movdqu", n};
  }
}

class Amd64Spelling : public PreemptSpelling {
 public:
  const PortInfo& port() const override { return kAmd64Port; }
  uint32_t alloc() const { return kAmd64Port.async_frame - 8; }  // the resume PC is already pushed
  void Enter(const std::string& n) override {
    printf("\t.globl %s\n\t.type %s, @function\n%s:\n", n.c_str(), n.c_str(), n.c_str());
    printf("\tleaq -%u(%%rsp), %%rsp\n", alloc());
  }
  void SaveGenerals(const Regs& regs) override {
    for (const SavedReg* r : regs) printf("\tmovq %%%s, %u(%%rsp)\n", S(r->name).c_str(), r->offset);
  }
  void SaveFlags(const SavedReg& r) override { printf("\tpushfq\n\tpopq %%rax\n\tmovq %%rax, %u(%%rsp)\n", r.offset); }
  void LoadScratchBase() override { printf("\tmovq G_M(%%r14), %%rax\n\tmovq M_P(%%rax), %%rax\n"); }
  void SaveVectors(const Regs& regs, bool low_half) override {
    for (const SavedReg* r : regs) {
      VecMove m = Move(*r, low_half);
      printf("\t%s %%%s, P_XSCRATCH+%u(%%rax)\n", m.op, m.reg.c_str(), r->offset);
    }
  }
  void CallAsyncPreempt2() override { printf("\tleaq sp_asyncpreempt2_g0(%%rip), %%rdi\n\tcall sp_mcall\n"); }
  // A low-half load loses the upper half one way or another: MOVQ clears
  // bits 127:64, legacy MOVDQU leaves 255:128 as they are, VEX VMOVDQU ymm
  // clears 511:256, KMOVD clears 63:32.
  void RestoreVectors(const Regs& regs, bool low_half) override {
    for (const SavedReg* r : regs) {
      VecMove m = Move(*r, low_half);
      printf("\t%s P_XSCRATCH+%u(%%rax), %%%s\n", m.op, r->offset, m.reg.c_str());
    }
  }
  void RestoreFlags(const SavedReg& r) override { printf("\tmovq %u(%%rsp), %%rax\n\tpushq %%rax\n\tpopfq\n", r.offset); }
  void RestoreGenerals(const Regs& regs) override {
    for (const SavedReg* r : regs) printf("\tmovq %u(%%rsp), %%%s\n", r->offset, S(r->name).c_str());
  }
  void Leave(const std::string& n) override {
    printf("\tleaq %u(%%rsp), %%rsp\n\tret\n\t.size %s, .-%s\n\n", alloc(), n.c_str(), n.c_str());
  }
};

std::unique_ptr<PreemptSpelling> NewAmd64Spelling() { return std::make_unique<Amd64Spelling>(); }
SAFEPOINT_REGISTER_PREEMPT_SPELLING("amd64", NewAmd64Spelling);

}  // namespace
}  // namespace safepoint
