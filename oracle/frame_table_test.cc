// The frame-table oracle on tables and stacks written by hand, one field at
// a time: each row the table could get wrong (the SP offset, where the
// return address is, a caller's row at its call, the call sites, the
// frame base) is changed alone, and the oracle must name it; the judge must
// make it a finding where the preemption was accepted and not where it was
// refused. Both kinds of machine, with a link register and without, are
// built here whatever the host is: the oracle reads no register of its own.
#include "oracle/frame_table.h"

#include <gtest/gtest.h>

#include <cstring>

#include "oracle/judge.h"
#include "platforms/native.h"

namespace safepoint::oracle {
namespace {

constexpr uintptr_t kCode = 0x10000;
constexpr uint32_t kCall = 0x10;      // main.main's call of main.f
constexpr uint32_t kRet = 0x14;       // its return site
constexpr uint32_t kF = 0x40;         // main.f's entry
constexpr uint32_t kGoexit = 0x80;
constexpr int kMainFrame = 32, kFFrame = 16;

// main.main (0x0-0x40): its frame opens at 0x4 (and, with a link register,
// its return address is saved from 0x8), it calls main.f at 0x10 and closes
// its frame at 0x30. main.f (0x40-0x80): a leaf opening a 16-byte frame at
// 0x44 (saving the link register at 0x48) and closing it at 0x70. Then
// goexit.
FuncTable Table(bool lr) {
  FuncTable t;
  for (uint32_t off = 0; off < 0x88; off += 4) t.insns.push_back(off);
  t.insn_op.assign(t.insns.size(), -1);
  FuncInfo m;
  m.name = "main.main";
  m.package = "main";
  m.entry = 0;
  m.end = kF;
  m.call_sites = {kCall};
  m.pcsp = {{0, 0, false}, {0x4, kMainFrame, false}, {0x8, kMainFrame, lr}, {0x30, 0, false}};
  FuncInfo f;
  f.name = "main.f";
  f.package = "main";
  f.entry = kF;
  f.end = kGoexit;
  f.pcsp = {{kF, 0, false}, {kF + 4, kFFrame, false}, {kF + 8, kFFrame, lr}, {0x70, 0, false}};
  FuncInfo g;
  g.name = "runtime.goexit";
  g.package = "runtime";
  g.entry = kGoexit;
  g.end = 0x88;
  g.flags = kFuncAsm;
  t.funcs = {m, f, g};
  return t;
}

// The machine stopped in main.f at `f_off`, called from main.main, whose
// frame is open and return address saved: the stack as the code built it.
// `f_sp` and `f_saved`: how far main.f's SP has moved and whether it has
// stored the link register yet (the machine's truth, whatever the table says).
harness::FrameImage Machine(bool lr, uint32_t f_off, int f_sp, bool f_saved) {
  harness::FrameImage img;
  img.seen = true;
  img.code_base = kCode;
  img.has_lr = lr;
  img.stack_lo = 0x7000;
  img.stack_hi = 0x8000;
  img.base = img.stack_hi - 16;
  img.goexit = kCode + kGoexit;
  img.pc = kCode + f_off;
  uintptr_t main_entry = lr ? img.base : img.base - 8;  // amd64's call pushed goexit
  uintptr_t main_sp = main_entry - kMainFrame;
  uintptr_t f_entry = lr ? main_sp : main_sp - 8;       // the call's return address
  img.sp = f_entry - static_cast<uintptr_t>(f_sp);
  img.lr = lr ? kCode + kRet : 0;
  img.stack.assign(img.stack_hi - img.sp, 0xEE);  // stale bytes: no return site
  auto put = [&](uintptr_t at, uintptr_t v) { memcpy(img.stack.data() + (at - img.sp), &v, sizeof v); };
  if (lr) {
    put(main_sp, img.goexit);
    if (f_saved) put(img.sp, kCode + kRet);
  } else {
    put(main_entry, img.goexit);
    put(f_entry, kCode + kRet);
  }
  return img;
}

class FrameTable : public testing::TestWithParam<bool> {};

TEST_P(FrameTable, AgreesWithTheMachineAtEveryRowOfAFrame) {
  const bool lr = GetParam();
  FuncTable t = Table(lr);
  struct {
    uint32_t off;
    int sp;
    bool saved;
  } rows[] = {{kF, 0, false}, {kF + 4, kFFrame, false}, {kF + 8, kFFrame, true}, {0x70, 0, false}};
  for (const auto& r : rows) {
    FrameCheck c = CheckFrameTable(t, Machine(lr, r.off, r.sp, r.saved), kCode + r.off);
    EXPECT_TRUE(c.judged) << c.unjudged;
    EXPECT_TRUE(c.ok()) << "at main.f+0x" << std::hex << (r.off - kF) << ": " << c.problem;
    EXPECT_EQ(c.frames, 2u);
  }
  // The walk's frames: main.f at the trap's SP, main.main at its return
  // site with the SP the call left.
  harness::FrameImage img = Machine(lr, kF + 8, kFFrame, true);
  FrameCheck c = CheckFrameTable(t, img, kCode + kF + 8);
  ASSERT_EQ(c.walk.size(), 2u);
  EXPECT_EQ(c.walk[0].func, "main.f");
  EXPECT_EQ(c.walk[0].sp, img.sp);
  EXPECT_EQ(c.walk[1].func, "main.main");
  EXPECT_EQ(c.walk[1].pc, kCode + kRet);
  EXPECT_EQ(c.walk[1].sp, img.sp + kFFrame + (lr ? 0 : 8));
}

TEST_P(FrameTable, AnSpMoveLeftOutOfTheTableIsNamedWithBothOffsets) {
  const bool lr = GetParam();
  FuncTable t = Table(lr);
  t.funcs[1].pcsp[1].from = kF + 8;  // the SP move at +0x4 not in the table
  t.funcs[1].pcsp[2].from = kF + 8;
  FrameCheck c = CheckFrameTable(t, Machine(lr, kF + 4, kFFrame, false), kCode + kF + 4);
  ASSERT_TRUE(c.judged) << c.unjudged;
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.func, "main.f");
  EXPECT_EQ(c.func_off, 4u);
  EXPECT_EQ(c.table_delta, 0);
  EXPECT_EQ(c.machine_delta, kFFrame);
  EXPECT_NE(c.problem.find("main.f+0x4"), std::string::npos) << c.problem;
}

TEST_P(FrameTable, AWrongSpOffsetIsNamedWithBothOffsets) {
  const bool lr = GetParam();
  FuncTable t = Table(lr);
  t.funcs[1].pcsp[2].delta = kFFrame + 8;
  FrameCheck c = CheckFrameTable(t, Machine(lr, kF + 8, kFFrame, true), kCode + kF + 8);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.table_delta, kFFrame + 8);
  EXPECT_EQ(c.machine_delta, kFFrame);
  EXPECT_EQ(c.table_lr_saved, lr);
  EXPECT_EQ(c.machine_lr_saved, lr);
}

TEST(FrameTableLinkRegister, AReturnAddressClaimedSavedOneInstructionEarlyIsNamed) {
  FuncTable t = Table(true);
  t.funcs[1].pcsp[1].lr_saved = true;  // at +0x4, before the store at +0x4 ran
  FrameCheck c = CheckFrameTable(t, Machine(true, kF + 4, kFFrame, false), kCode + kF + 4);
  ASSERT_FALSE(c.ok());
  EXPECT_TRUE(c.table_lr_saved);
  EXPECT_FALSE(c.machine_lr_saved);
  EXPECT_EQ(c.machine_delta, kFFrame);
}

TEST(FrameTableLinkRegister, AReturnAddressClaimedInTheRegisterAfterACallOverwroteItIsNamed) {
  FuncTable t = Table(true);
  // main.main at its call, by a table that never saves its link register:
  // the walk from main.f reaches it as a caller.
  for (FuncInfo::SpState& s : t.funcs[0].pcsp) s.lr_saved = false;
  FrameCheck c = CheckFrameTable(t, Machine(true, kF + 8, kFFrame, true), kCode + kF + 8);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.frame, 1u);
  EXPECT_EQ(c.func, "main.main");
  EXPECT_NE(c.problem.find("link register"), std::string::npos) << c.problem;
}

TEST_P(FrameTable, ACallersWrongRowAtItsCallIsNamedAtThatFrame) {
  const bool lr = GetParam();
  FuncTable t = Table(lr);
  t.funcs[0].pcsp[2].delta = kMainFrame + 16;
  FrameCheck c = CheckFrameTable(t, Machine(lr, kF + 8, kFFrame, true), kCode + kF + 8);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.machine_delta, -1);  // no other row of main.f repairs the walk
  EXPECT_NE(c.problem.find("main.main"), std::string::npos) << c.problem;
}

TEST_P(FrameTable, AReturnAddressAfterNoListedCallIsNoReturnSite) {
  const bool lr = GetParam();
  FuncTable t = Table(lr);
  t.funcs[0].call_sites.clear();
  FrameCheck c = CheckFrameTable(t, Machine(lr, kF + 8, kFFrame, true), kCode + kF + 8);
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.problem.find("no return site"), std::string::npos) << c.problem;
}

TEST_P(FrameTable, AWalkThatReachesGoexitAwayFromTheFrameBaseIsWrong) {
  const bool lr = GetParam();
  FuncTable t = Table(lr);
  harness::FrameImage img = Machine(lr, kF + 8, kFFrame, true);
  img.base -= 16;  // the machine's frames, a base 16 bytes lower
  FrameCheck c = CheckFrameTable(t, img, kCode + kF + 8);
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.problem.find("frame base"), std::string::npos) << c.problem;
}

TEST_P(FrameTable, APcInNoFunctionIsWrong) {
  const bool lr = GetParam();
  FrameCheck c = CheckFrameTable(Table(lr), Machine(lr, kF + 8, kFFrame, true), kCode + 0x1000);
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.problem.find("no function"), std::string::npos) << c.problem;
}

TEST_P(FrameTable, AStackImageThatEndsBeforeTheWalkDoesIsNotJudged) {
  const bool lr = GetParam();
  harness::FrameImage img = Machine(lr, kF + 8, kFFrame, true);
  img.stack.resize(8);
  FrameCheck c = CheckFrameTable(Table(lr), img, kCode + kF + 8);
  EXPECT_FALSE(c.judged);
  EXPECT_NE(c.unjudged, "");
  img.seen = false;
  EXPECT_FALSE(CheckFrameTable(Table(lr), img, kCode + kF + 8).judged);
}

TEST_P(FrameTable, AnSpOffTheGoroutinesStackIsNotJudged) {
  const bool lr = GetParam();
  harness::FrameImage img = Machine(lr, kF + 8, kFFrame, true);
  img.stack_lo = img.sp + 8;
  FrameCheck c = CheckFrameTable(Table(lr), img, kCode + kF + 8);
  EXPECT_FALSE(c.judged);
}

INSTANTIATE_TEST_SUITE_P(Machines, FrameTable, testing::Values(false, true),
                         [](const testing::TestParamInfo<bool>& p) { return p.param ? "LinkRegister" : "StackReturn"; });

// The judge: a disagreement is a finding where the runtime accepted, and
// allowed where it refused; an accepted restart is judged at its resume PC.
harness::Observation Observed(bool accepted, uint32_t off, uintptr_t resume_off) {
  harness::Observation o;
  o.ran = true;
  o.trapped = true;
  o.decided = true;
  o.accepted = accepted;
  o.asked = true;
  o.reason = accepted ? Reason::kNone : Reason::kUnsafePoint;
  o.pc = kCode + off;
  o.resume = accepted ? kCode + resume_off : 0;
  o.frame = Machine(NativePort().has(kCapLinkRegister), off, kFFrame, true);
  return o;
}

State AsyncOn() { return State{}; }

TEST(FrameTableJudged, ADisagreementWhereAcceptedIsAFindingNamingTheFunction) {
  const bool lr = NativePort().has(kCapLinkRegister);
  FuncTable t = Table(lr);
  t.funcs[1].pcsp[2].delta = kFFrame + 8;
  harness::Observation o = Observed(true, kF + 8, kF + 8);
  Judgement j = Judge(NativePort(), AsyncOn(), o.end, o, &t);
  EXPECT_EQ(j.Oracle(), "frame-table");
  EXPECT_NE(j.frame.find("main.f+0x8"), std::string::npos) << j.frame;
  EXPECT_EQ(j.frame_judged, 1u);
  EXPECT_FALSE(j.ok());
  // Without a table, nothing is judged.
  EXPECT_EQ(Judge(NativePort(), AsyncOn(), o.end, o).frame, "");
}

TEST(FrameTableJudged, ADisagreementWhereRefusedIsAllowedAndKept) {
  const bool lr = NativePort().has(kCapLinkRegister);
  FuncTable t = Table(lr);
  t.funcs[1].pcsp[2].delta = kFFrame + 8;
  harness::Observation o = Observed(false, kF + 8, 0);
  Judgement j = Judge(NativePort(), AsyncOn(), o.end, o, &t);
  EXPECT_EQ(j.frame, "");
  ASSERT_EQ(j.frame_allowed.size(), 1u);
  EXPECT_NE(j.frame_allowed[0].find("main.f+0x8"), std::string::npos);
}

TEST(FrameTableJudged, AnAcceptedRestartIsJudgedWhereItResumes) {
  const bool lr = NativePort().has(kCapLinkRegister);
  FuncTable t = Table(lr);
  // Trapped at +0x8 (right by the table) and resumed at +0x4, whose row the
  // table gets wrong (it says the frame is not open yet).
  t.funcs[1].pcsp[1].delta = 0;
  harness::Observation o = Observed(true, kF + 8, kF + 4);
  Judgement j = Judge(NativePort(), AsyncOn(), o.end, o, &t);
  EXPECT_NE(j.frame.find("main.f+0x4"), std::string::npos) << j.frame;
  // The same trap, resumed where it stopped: the table is right there.
  o.resume = o.pc;
  EXPECT_EQ(Judge(NativePort(), AsyncOn(), o.end, o, &t).frame, "");
}

TEST(FrameTableJudged, AnImageThatCannotBeWalkedIsNotJudgedAndSaysWhy) {
  const bool lr = NativePort().has(kCapLinkRegister);
  FuncTable t = Table(lr);
  t.funcs[1].pcsp[2].delta = kFFrame + 8;  // wrong, but the walk cannot get that far
  harness::Observation o = Observed(true, kF + 8, kF + 8);
  o.frame.stack.resize(4);
  Judgement j = Judge(NativePort(), AsyncOn(), o.end, o, &t);
  EXPECT_EQ(j.frame_judged, 0u);
  EXPECT_NE(j.frame_unjudged.find("stack image ends"), std::string::npos) << j.frame_unjudged;
  EXPECT_EQ(j.frame, "");
  // Not seen at all: nothing to say.
  o.frame.seen = false;
  EXPECT_EQ(Judge(NativePort(), AsyncOn(), o.end, o, &t).frame_unjudged, "");
}

TEST(FrameTableJudged, AChainedPointIsJudgedAsTheFirst) {
  const bool lr = NativePort().has(kCapLinkRegister);
  FuncTable t = Table(lr);
  t.funcs[1].pcsp[2].delta = kFFrame + 8;
  harness::Observation o = Observed(false, kF + 8, 0);
  o.then.push_back(Observed(true, kF + 8, kF + 8));
  Judgement j = Judge(NativePort(), AsyncOn(), o.end, o, &t);
  EXPECT_EQ(j.frame_point, 1u);
  EXPECT_NE(j.frame, "");
  EXPECT_EQ(j.frame_judged, 2u);
}

}  // namespace
}  // namespace safepoint::oracle
