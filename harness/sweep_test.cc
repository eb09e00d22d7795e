// ObserveAt on a scripted runtime under test: which events are the armed
// point's trap and decision. A runtime from outside the tree is observed
// the same way, so the rules are pinned here on events written by hand.
#include "harness/sweep.h"

#include <unistd.h>

#include <gtest/gtest.h>

#include <memory>
#include <utility>

#include "core/event_script.h"

namespace safepoint::harness {
namespace {

constexpr uintptr_t kBase = 0x10000;
constexpr uint32_t kOff = 0x20;  // the armed instruction: runtime.goexit+0

// Loads nothing and runs nothing: its events are the script.
class Scripted : public RuntimeUnderTest {
 public:
  Scripted(FuncTable t, std::vector<Event> evs) : table_(std::move(t)), evs_(std::move(evs)) {}
  bool Load(const ir::Program&, std::string*) override { return true; }
  bool ArmAt(uint32_t, std::string*) override { return true; }
  RequestSource request_source() const override { return RequestSource::kSysmon; }
  bool Run(const std::string&, std::string*) override { return true; }
  const FuncTable& table() const override { return table_; }
  uintptr_t code_base() const override { return kBase; }
  std::vector<Event> events() const override { return evs_; }
  EndState end_state() const override { return {}; }

 private:
  FuncTable table_;
  std::vector<Event> evs_;
};

FuncTable OneStub() {
  FuncTable t;
  FuncInfo f;
  f.name = "runtime.goexit";
  f.package = "runtime";
  f.entry = 0x20;
  f.end = 0x28;
  t.funcs.push_back(f);
  t.insns = {0x20, 0x24};
  t.insn_op = {-1, -1};
  return t;
}

Observation Observe(const std::vector<Event>& evs) {
  FuncTable t = OneStub();
  ir::Program prog;
  Observation o;
  RuntimeFactory make = [&] { return std::make_unique<Scripted>(t, evs); };
  EXPECT_TRUE(ObserveAt(prog, "main.main", make, t, 0, &o));
  return o;
}

TEST(Observe, TheDecisionIsTheTrappedGoroutines) {
  // Goroutine 5 trapped at the instruction; its signal came later than the
  // run. Goroutine 7, on the other P, took a late signal at the same
  // instruction (its exit path) and had no request: not the point's
  // decision.
  EventScript s;
  s.Add(Ev::kResume, {.goid = 5}).Add(Ev::kTrap, {.goid = 5, .pc = kBase + kOff}).Add(Ev::kResume, {.goid = 7});
  s.Add(Ev::kSigNoRequest, {.reason = Reason::kNoRequest, .goid = 7, .pc = kBase + kOff}).Add(Ev::kGoExit, {.goid = 7});
  Observation o = Observe(s.evs);
  EXPECT_TRUE(o.trapped);
  EXPECT_FALSE(o.decided);
  EXPECT_FALSE(o.not_wanted);
}

TEST(Observe, TheTrappedGoroutinesOwnDecisionIsTaken) {
  EventScript s;
  s.Add(Ev::kResume, {.goid = 5}).Add(Ev::kTrap, {.goid = 5, .pc = kBase + kOff}).Add(Ev::kRequest, {.goid = 5});
  s.Add(Ev::kAsyncRefuse, {.reason = Reason::kAsm, .goid = 7, .pc = kBase + kOff})
      .Add(Ev::kAsyncRefuse, {.reason = Reason::kAsm, .goid = 5, .pc = kBase + kOff});
  Observation o = Observe(s.evs);
  EXPECT_TRUE(o.decided);
  EXPECT_FALSE(o.accepted);
  EXPECT_EQ(o.reason, Reason::kAsm);
}

TEST(Observe, TheDecisionWindowClosesWhenTheGoroutineRunsAgain) {
  // No decision at the trap; scheduled again later, the same goroutine
  // passes the instruction once more and a stray signal finds it there.
  EventScript s;
  s.Add(Ev::kResume, {.goid = 5}).Add(Ev::kTrap, {.goid = 5, .pc = kBase + kOff}).Add(Ev::kGosched, {.goid = 5})
      .Add(Ev::kResume, {.goid = 5});
  s.Add(Ev::kSigNoRequest, {.reason = Reason::kNoRequest, .goid = 5, .pc = kBase + kOff});
  Observation o = Observe(s.evs);
  EXPECT_TRUE(o.trapped);
  EXPECT_FALSE(o.decided);
}

TEST(Observe, AskedSaysWhetherARequestStoodAtTheDecision) {
  // Raised before the trap (since the goroutine last ran): asked.
  EventScript s;
  s.Add(Ev::kResume, {.goid = 5}).Add(Ev::kRequest, {.goid = 5}).Add(Ev::kTrap, {.goid = 5, .pc = kBase + kOff});
  s.Add(Ev::kSigNoRequest, {.reason = Reason::kNoRequest, .goid = 5, .pc = kBase + kOff});
  EXPECT_TRUE(Observe(s.evs).asked);
  // Raised before it last ran (used up by execute): not asked.
  EventScript t;
  t.Add(Ev::kRequest, {.goid = 5}).Add(Ev::kResume, {.goid = 5}).Add(Ev::kTrap, {.goid = 5, .pc = kBase + kOff});
  t.Add(Ev::kSigNoRequest, {.reason = Reason::kNoRequest, .goid = 5, .pc = kBase + kOff});
  Observation o = Observe(t.evs);
  EXPECT_TRUE(o.not_wanted);
  EXPECT_FALSE(o.asked);
  // Raised after the trap, for it: asked; for another goroutine: not.
  EventScript u;
  u.Add(Ev::kResume, {.goid = 5}).Add(Ev::kTrap, {.goid = 5, .pc = kBase + kOff}).Add(Ev::kRequest, {.goid = 6})
      .Add(Ev::kRequest, {.goid = 5});
  u.Add(Ev::kSigNoRequest, {.reason = Reason::kNoRequest, .goid = 5, .pc = kBase + kOff});
  EXPECT_TRUE(Observe(u.evs).asked);
  EventScript v;
  v.Add(Ev::kResume, {.goid = 5}).Add(Ev::kTrap, {.goid = 5, .pc = kBase + kOff}).Add(Ev::kRequest, {.goid = 6});
  v.Add(Ev::kSigNoRequest, {.reason = Reason::kNoRequest, .goid = 5, .pc = kBase + kOff});
  EXPECT_FALSE(Observe(v.evs).asked);
}

// A runtime under test that never returns from an armed run (ignoring any
// bound of its own, as a runtime from outside the tree may): the sweep's
// watchdog must end the process naming the instruction, not hang.
class NeverEnds : public Scripted {
 public:
  NeverEnds() : Scripted(OneStub(), {}) {}
  bool ArmAt(uint32_t, std::string*) override {
    armed_ = true;
    return true;
  }
  bool Run(const std::string&, std::string*) override {
    while (armed_) pause();
    return true;
  }

 private:
  bool armed_ = false;
};

// gtest's default death-test style (a plain fork: nothing else runs yet in
// this process); its "threadsafe" style clones onto a stack of its own,
// which qemu-aarch64 user mode answers with a SIGSEGV.
TEST(SweepEngineDeathTest, ARunThatNeverEndsEndsTheSweepNamingItsInstruction) {
  ir::Program prog;
  std::string err;
  ASSERT_TRUE(ir::ParseProgram("func main.main\n  ret\nend\n", &prog, &err)) << err;
  Baseline base;
  RuntimeFactory make = [] { return std::make_unique<NeverEnds>(); };
  EXPECT_EXIT(SweepEngine(prog, "main.main", make, &base, [](const Observation&) {}, &err, nullptr, 1.0),
              testing::ExitedWithCode(1), "sweep: stall: the run armed at runtime.goexit\\+0x0 \\(instruction 0\\) has not finished in 1 s");
}

}  // namespace
}  // namespace safepoint::harness
