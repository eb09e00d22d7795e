// How the loong64 assembler spells asyncPreempt's steps; the walk is
// platforms/mkpreempt.cc.
//
// Entered through pushCall: RA = the resume PC, the interrupted RA at 0(SP).
// The frame (platforms/loong64/port.cc) holds the resume PC at 0, then the
// table's general registers and flags, and REGTMP at frame-8; the LASX
// registers go to the P's scratch area.
//
// The return jump: Go's loong64 asyncPreempt returns through REGTMP ($r30),
// which it never preserves, so code resumed inside a REGTMP sequence that
// was not rewound computes a wrong address and usually faults. Here the
// jump goes through $r21 instead (reserved by the psABI: neither generated
// code nor C ever allocates it; it is saved but not restored) and REGTMP is
// restored, so a broken restart rule (the sweep's no-restart and
// skip-unsafe-point mutations) shows as disagreements with the oracle
// instead of a SIGSEGV that kills the in-process sweep. kJumpThroughR21 =
// false gives Go's exact behaviour.
//
// clang 16's integrated assembler has no LSX/LASX mnemonics, so xvst/xvld
// are emitted as .word with their encodings (2RI12: op|si12<<10|rj<<5|xd).
#include <cstdio>
#include <cstdlib>
#include <string>

#include "platforms/loong64/port.h"
#include "platforms/mkpreempt.h"

namespace safepoint {
namespace {

constexpr bool kJumpThroughR21 = true;

constexpr unsigned kXvld = 0x2c800000u, kXvst = 0x2cc00000u;
// LSX: the low 128 bits of an LASX register (the half-vector mutation).
constexpr unsigned kVld = 0x2c000000u, kVst = 0x2c400000u;

int XrNum(std::string_view name) {  // "$xrN" -> N
  return std::atoi(std::string(name.substr(3)).c_str());
}

void Vector(bool store, bool low_half, const SavedReg& r) {
  // $r4 holds g->m->p. A low-half VLD leaves the upper 128 bits as they are
  // (LSX writes only its 128).
  unsigned op = low_half ? (store ? kVst : kVld) : (store ? kXvst : kXvld);
  const char* mnemonic = low_half ? (store ? "vst" : "vld") : (store ? "xvst" : "xvld");
  std::string reg = low_half ? "$vr" + std::to_string(XrNum(r.name)) : std::string(r.name);
  printf("\t.word 0x%08x | (((P_XSCRATCH+%u) & 0xfff) << 10) | (4 << 5) | %d\t/* %s %s, $r4, P_XSCRATCH+%u */\n",
         op, r.offset, XrNum(r.name), mnemonic, reg.c_str(), r.offset);
}

uint32_t Alloc() { return kLoong64Port.async_frame - 8; }  // pushCall's 8 bytes are already below SP
uint32_t RegtmpOff() { return Alloc() - 8; }                 // the padding slot above fcsr0
std::string S(std::string_view v) { return std::string(v); }

class Loong64Spelling : public PreemptSpelling {
 public:
  const PortInfo& port() const override { return kLoong64Port; }
  void Enter(const std::string& n) override {
    printf("\t.globl %s\n\t.type %s, @function\n%s:\n", n.c_str(), n.c_str(), n.c_str());
    printf("\taddi.d $r3, $r3, -%u\n", Alloc());
    printf("\tst.d $r1, $r3, 0\n");  // the resume PC
    if (kJumpThroughR21) printf("\tst.d $r30, $r3, %u\n", RegtmpOff());
  }
  void SaveGenerals(const Regs& regs) override {
    for (const SavedReg* r : regs) printf("\tst.d %s, $r3, %u\n", S(r->name).c_str(), r->offset);
  }
  // $r4 and $r5 are saved by now: free as temporaries.
  void SaveFlags(const SavedReg& r) override {
    if (r.name == "fcc") {
      printf("\tmovcf2gr $r4, $fcc0\n");
      for (int i = 1; i < 8; i++) printf("\tmovcf2gr $r5, $fcc%d\n\tbstrins.d $r4, $r5, %d, %d\n", i, i, i);
    } else {
      printf("\tmovfcsr2gr $r4, $%s\n", S(r.name).c_str());
    }
    printf("\tst.d $r4, $r3, %u\n", r.offset);
  }
  void LoadScratchBase() override {
    printf("\tld.d $r4, $r22, G_M\n\tld.d $r4, $r4, M_P\n");
    // xvst/xvld reach 12 signed bits from the P.
    printf("\t.if P_XSCRATCH + %u > 2048\n\t.error \"P_XSCRATCH beyond xvst's reach\"\n\t.endif\n",
           kLoong64Port.tiers.back().scratch_bytes);
  }
  void SaveVectors(const Regs& regs, bool low_half) override {
    for (const SavedReg* r : regs) Vector(true, low_half, *r);
  }
  // sp_mcall records sched.pc = RA (the next instruction), sched.sp = SP.
  void CallAsyncPreempt2() override { printf("\tla.pcrel $r4, sp_asyncpreempt2_g0\n\tbl sp_mcall\n"); }
  void RestoreVectors(const Regs& regs, bool low_half) override {
    for (const SavedReg* r : regs) Vector(false, low_half, *r);
  }
  void RestoreFlags(const SavedReg& r) override {
    printf("\tld.d $r4, $r3, %u\n", r.offset);
    if (r.name == "fcc") {
      for (int i = 7; i >= 0; i--) printf("\tbstrpick.d $r5, $r4, %d, %d\n\tmovgr2cf $fcc%d, $r5\n", i, i, i);
    } else {
      printf("\tmovgr2fcsr $%s, $r4\n", S(r.name).c_str());
    }
  }
  void RestoreGenerals(const Regs& regs) override {
    for (const SavedReg* r : regs) printf("\tld.d %s, $r3, %u\n", S(r->name).c_str(), r->offset);
  }
  void Leave(const std::string& n) override {
    if (kJumpThroughR21) {
      printf("\tld.d $r30, $r3, %u\n\tld.d $r21, $r3, 0\n", RegtmpOff());  // REGTMP; the resume PC
    } else {
      printf("\tld.d $r30, $r3, 0\n");  // the resume PC, in REGTMP (as Go)
    }
    printf("\tld.d $r1, $r3, %u\n", Alloc());  // the interrupted RA, from pushCall's slot
    printf("\taddi.d $r3, $r3, %u\n", Alloc() + 8);
    printf("\tjirl $r0, %s, 0\n", kJumpThroughR21 ? "$r21" : "$r30");
    printf("\t.size %s, .-%s\n\n", n.c_str(), n.c_str());
  }
};

std::unique_ptr<PreemptSpelling> NewLoong64Spelling() { return std::make_unique<Loong64Spelling>(); }
SAFEPOINT_REGISTER_PREEMPT_SPELLING("loong64", NewLoong64Spelling);

}  // namespace
}  // namespace safepoint
