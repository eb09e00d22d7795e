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

const char* VecMove(const SavedReg& r) {
  return r.name[0] == 'k' ? "kmovq" : r.name[0] == 'z' ? "vmovdqu64" : r.name[0] == 'y' ? "vmovdqu" : "movdqu";
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
  void SaveVectors(const Regs& regs) override {
    for (const SavedReg* r : regs) printf("\t%s %%%s, P_XSCRATCH+%u(%%rax)\n", VecMove(*r), S(r->name).c_str(), r->offset);
  }
  void CallAsyncPreempt2() override { printf("\tleaq sp_asyncpreempt2_g0(%%rip), %%rdi\n\tcall sp_mcall\n"); }
  void RestoreVectors(const Regs& regs) override {
    for (const SavedReg* r : regs) printf("\t%s P_XSCRATCH+%u(%%rax), %%%s\n", VecMove(*r), r->offset, S(r->name).c_str());
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
