// How the arm64 assembler spells asyncPreempt's steps; the walk is
// platforms/mkpreempt.cc. Entered through pushCall: LR = the resume PC, the
// interrupted LR at 0(SP). The frame (platforms/arm64/port.cc) is allocated
// with SUB (immediate), which leaves NZCV alone; the table's "lr" entry is
// the resume PC, stored from X30 and reloaded into X27 (REGTMP, never
// preserved, as in Go) for the final BR. Neighbouring slots pair into
// STP/LDP.
#include <cstdio>
#include <string>
#include <vector>

#include "platforms/arm64/port.h"
#include "platforms/mkpreempt.h"

namespace safepoint {
namespace {

// Stores (or loads) regs at [base, #offset], pairing neighbours (in either
// order) with STP/LDP.
void Transfer(const Regs& in, const char* base, bool load) {
  Regs regs;
  for (const SavedReg* r : in)
    if (r->name != "lr") regs.push_back(r);  // the resume PC: Enter and Leave
  for (size_t i = 0; i < regs.size(); i++) {
    const SavedReg* a = regs[i];
    const SavedReg* b = i + 1 < regs.size() ? regs[i + 1] : nullptr;
    if (b && b->size == a->size && (b->offset == a->offset + a->size || a->offset == b->offset + b->size)) {
      const SavedReg* lo = a->offset < b->offset ? a : b;
      const SavedReg* hi = lo == a ? b : a;
      printf("\t%s %s, %s, [%s, #%u]\n", load ? "ldp" : "stp", std::string(lo->name).c_str(),
             std::string(hi->name).c_str(), base, lo->offset);
      i++;
    } else {
      printf("\t%s %s, [%s, #%u]\n", load ? "ldr" : "str", std::string(a->name).c_str(), base, a->offset);
    }
  }
}

// The half-vector mutation: Dn, the low 64 bits of Qn, at Qn's offset (a
// load of Dn clears the upper half: it is lost either way).
void LowHalves(const Regs& regs, bool load) {
  for (const SavedReg* r : regs)
    printf("\t%s d%s, [x0, #%u]\n", load ? "ldr" : "str", std::string(r->name.substr(1)).c_str(), r->offset);
}

uint32_t ResumeOffset() {
  for (const SavedReg& r : kArm64Port.saved_regs)
    if (r.name == "lr") return r.offset;
  return 0;
}

class Arm64Spelling : public PreemptSpelling {
 public:
  const PortInfo& port() const override { return kArm64Port; }
  uint32_t alloc() const { return kArm64Port.async_frame - kArm64Port.pushcall_bytes; }
  void Enter(const std::string& n) override {
    printf("\t.globl %s\n\t.type %s, @function\n\t.p2align 2\n%s:\n", n.c_str(), n.c_str(), n.c_str());
    printf("\tsub sp, sp, #%u\n", alloc());
    printf("\tstr x30, [sp, #%u]\n", ResumeOffset());
  }
  void SaveGenerals(const Regs& regs) override { Transfer(regs, "sp", false); }
  void SaveFlags(const SavedReg& f) override {
    printf("\tmrs x0, %s\n\tstr x0, [sp, #%u]\n", std::string(f.name).c_str(), f.offset);
  }
  void LoadScratchBase() override { printf("\tldr x0, [x28, #G_M]\n\tldr x0, [x0, #M_P]\n\tadd x0, x0, #P_XSCRATCH\n"); }
  void SaveVectors(const Regs& regs, bool low_half) override {
    low_half ? LowHalves(regs, false) : Transfer(regs, "x0", false);
  }
  // sp_mcall records sched.sp = SP (the frame base) and sched.pc = LR.
  void CallAsyncPreempt2() override {
    printf("\tadrp x0, sp_asyncpreempt2_g0\n\tadd x0, x0, :lo12:sp_asyncpreempt2_g0\n\tbl sp_mcall\n");
  }
  void RestoreVectors(const Regs& regs, bool low_half) override {
    low_half ? LowHalves(regs, true) : Transfer(regs, "x0", true);
  }
  void RestoreFlags(const SavedReg& f) override {
    printf("\tldr x0, [sp, #%u]\n\tmsr %s, x0\n", f.offset, std::string(f.name).c_str());
  }
  void RestoreGenerals(const Regs& regs) override { Transfer(regs, "sp", true); }
  void Leave(const std::string& n) override {
    printf("\tldr x27, [sp, #%u]\n", ResumeOffset());
    printf("\tldr x30, [sp, #%u]\n", alloc());  // the interrupted LR, from pushCall's slot
    printf("\tadd sp, sp, #%u\n", kArm64Port.async_frame);
    printf("\tbr x27\n\t.size %s, .-%s\n\n", n.c_str(), n.c_str());
  }
};

std::unique_ptr<PreemptSpelling> NewArm64Spelling() { return std::make_unique<Arm64Spelling>(); }
SAFEPOINT_REGISTER_PREEMPT_SPELLING("arm64", NewArm64Spelling);

}  // namespace
}  // namespace safepoint
