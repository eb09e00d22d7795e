// The decision oracle for real Go binaries, rule by rule and field by field:
// each input of GoTableFacts and GoStopState changes the verdict exactly as
// Go's isAsyncSafePoint orders its checks.
#include "oracle/go_decision.h"

#include <gtest/gtest.h>

namespace safepoint::oracle {
namespace {

GoTableFacts SafeMainPc() {
  GoTableFacts t;
  t.found = true;
  t.pc = 0x401234;
  t.entry = 0x401200;
  t.has_locals_map = true;
  t.unsafe_point = kGoSafe;
  t.run_start = 0x401230;
  t.innermost = "main.work";
  t.go_minor = 19;
  return t;
}

TEST(GoDecision, AcceptsASafePcOfMainAtThePcItself) {
  GoExpect x = DecideGo(SafeMainPc(), GoStopState{});
  EXPECT_EQ(x.verdict, Verdict::kAccept);
  EXPECT_EQ(x.resume, 0x401234u);
  EXPECT_EQ(DescribeGo(x), "accepted at 0x401234");
}

TEST(GoDecision, EachStopStateRuleRefusesInGosOrder) {
  const GoTableFacts t = SafeMainPc();
  struct Row {
    void (*set)(GoStopState*);
    Rule rule;
  } rows[] = {
      {[](GoStopState* s) { s->curg = false; }, Rule::kNotCurg},
      {[](GoStopState* s) { s->has_p = false; }, Rule::kPNotRunning},
      {[](GoStopState* s) { s->p_running = false; }, Rule::kPNotRunning},
      {[](GoStopState* s) { s->m_locks = 1; }, Rule::kMLocks},
      {[](GoStopState* s) { s->m_mallocing = 1; }, Rule::kMMallocing},
      {[](GoStopState* s) { s->m_preemptoff = true; }, Rule::kMPreemptoff},
      {[](GoStopState* s) { s->stack_ok = false; }, Rule::kStack},
  };
  for (const Row& r : rows) {
    GoStopState s;
    r.set(&s);
    GoExpect x = DecideGo(t, s);
    EXPECT_EQ(x.verdict, Verdict::kRefuse);
    EXPECT_EQ(x.rule, r.rule) << RuleName(r.rule);
  }
  // curg comes first: every other state wrong too still names it.
  GoStopState all;
  all.curg = false;
  all.has_p = false;
  all.m_locks = 3;
  all.stack_ok = false;
  EXPECT_EQ(DecideGo(t, all).rule, Rule::kNotCurg);
  // The stack rule comes after canPreemptM, before the tables.
  GoStopState st;
  st.stack_ok = false;
  GoTableFacts unsafe = t;
  unsafe.unsafe_point = kGoUnsafe;
  EXPECT_EQ(DecideGo(unsafe, st).rule, Rule::kStack);
}

TEST(GoDecision, EachTableFieldRefusesInGosOrder) {
  GoTableFacts t = SafeMainPc();
  t.found = false;
  EXPECT_EQ(DecideGo(t, {}).rule, Rule::kNotGo);
  t = SafeMainPc();
  t.unsafe_point = kGoUnsafe;
  EXPECT_EQ(DecideGo(t, {}).rule, Rule::kUnsafePoint);
  t = SafeMainPc();
  t.has_locals_map = false;
  EXPECT_EQ(DecideGo(t, {}).rule, Rule::kAsm);
  t = SafeMainPc();
  t.asm_ = true;
  EXPECT_EQ(DecideGo(t, {}).rule, Rule::kAsm);
  t = SafeMainPc();
  t.innermost = "runtime.memmove";
  EXPECT_EQ(DecideGo(t, {}).rule, Rule::kRuntimePkg);
  // Unsafe comes before the locals map and the name.
  t.unsafe_point = kGoUnsafe;
  t.has_locals_map = false;
  EXPECT_EQ(DecideGo(t, {}).rule, Rule::kUnsafePoint);
  // The locals map comes before the name.
  t.unsafe_point = kGoSafe;
  EXPECT_EQ(DecideGo(t, {}).rule, Rule::kAsm);
}

TEST(GoDecision, RestartsAtTheRunStartOrTheEntry) {
  for (int32_t v : {kGoRestart1, kGoRestart2}) {
    GoTableFacts t = SafeMainPc();
    t.unsafe_point = v;
    GoExpect x = DecideGo(t, {});
    EXPECT_EQ(x.verdict, Verdict::kRestart);
    EXPECT_EQ(x.resume, 0x401230u);
    EXPECT_FALSE(x.bad_restart);
    // More than 20 bytes back, after the PC, or 0: Go throws.
    t.run_start = t.pc - 21;
    EXPECT_TRUE(DecideGo(t, {}).bad_restart);
    t.run_start = t.pc - 20;
    EXPECT_FALSE(DecideGo(t, {}).bad_restart);
    t.run_start = t.pc + 4;
    EXPECT_TRUE(DecideGo(t, {}).bad_restart);
    t.run_start = 0;
    EXPECT_TRUE(DecideGo(t, {}).bad_restart);
  }
  GoTableFacts t = SafeMainPc();
  t.unsafe_point = kGoRestartAtEntry;
  GoExpect x = DecideGo(t, {});
  EXPECT_EQ(x.verdict, Verdict::kRestartAtEntry);
  EXPECT_EQ(x.resume, 0x401200u);
  // A runtime body inlined into a restartable run is still refused by name.
  t.innermost = "internal/runtime/atomic.Load";
  t.go_minor = 24;
  EXPECT_EQ(DecideGo(t, {}).rule, Rule::kRuntimePkg);
}

TEST(GoDecision, RuntimeNamesByVersion) {
  EXPECT_TRUE(GoRuntimeName("runtime.mallocgc", 19));
  EXPECT_TRUE(GoRuntimeName("reflect.Value.Int", 26));
  EXPECT_TRUE(GoRuntimeName("runtime/internal/atomic.Xadd", 19));
  EXPECT_FALSE(GoRuntimeName("internal/runtime/atomic.Xadd", 19));
  EXPECT_TRUE(GoRuntimeName("internal/runtime/atomic.Xadd", 24));
  EXPECT_FALSE(GoRuntimeName("main.runtimeish", 26));
  EXPECT_FALSE(GoRuntimeName("sync/atomic.AddInt64", 26));
  EXPECT_FALSE(GoRuntimeName("main.reflect", 26));
}

}  // namespace
}  // namespace safepoint::oracle
