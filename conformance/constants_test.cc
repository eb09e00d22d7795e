// Conformance: the chapter's constants and the scheduler's fairness, pinned.
//
// Each number is written here as the chapter (or Go) states it, never
// taken from the runtime's own constant, and each test observes it through
// behaviour: the injectable clock and recorded events, never wall-clock
// luck. A change of the runtime's value fails the test.
//
//   forcePreemptNS    10 ms   sysmon retakes a P whose time slice is that old (9.7.6)
//   STW retry         100 us  stopTheWorldWithSema calls preemptall again (9.7.6)
//   StackSmall        128     a leaf with a smaller frame gets no stack check (9.7.3)
//   stackPreempt      0xfffffffffffffade (uintptrMask & -1314) (9.7.3)
//   global run queue  1 in 61 schedule ticks it goes first (Go's schedule)
//
// (suspendG's 5 us re-signal interval is pinned with suspendG itself.)
#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "conformance/bounded.h"
#include "conformance/checks.h"
#include "harness/mutations.h"
#include "harness/scenario.h"

namespace safepoint::conformance {
using namespace ::safepoint::harness;
namespace {

// The chapter's numbers.
constexpr int64_t kChapterForcePreemptNS = 10'000'000;
constexpr int64_t kChapterStwRetryNS = 100'000;
constexpr int kChapterStackSmall = 128;
constexpr uintptr_t kChapterStackPreempt = 0xfffffffffffffadeull;
constexpr int kGoGlobalQueueEvery = 61;


// spin: a call-free loop (checks.h: SpinProgram) until g[11].
const std::string kSpin = SpinProgram("");

// --- forcePreemptNS ---------------------------------------------------------

// sysmon's retake, on its injected clock: a slice of 10 ms less 1 ns is
// left alone, one of exactly 10 ms is retaken.
Problems CheckForcePreempt(RuntimeOptions opts) {
  Problems bad;
  ManualClock clock;
  opts.hooks.sysmon = false;  // the test is sysmon, on its own clock
  opts.hooks.clock = &clock;
  opts.settings.godebug = "asyncpreemptoff=1";  // the request may stay pending: only retake is judged
  Outcome o = RunScenario(kSpin, std::move(opts), [&](Runtime& rt) {
    if (!WaitFor([&] { return rt.global(10) == 1; })) {
      bad.push_back("waited 60 s for spin to start");
    } else {
      rt.retake(0);  // sysmon first sees the slice
      rt.retake(kChapterForcePreemptNS - 1);
      if (rt.events().Count(Ev::kRetake) != 0) bad.push_back("retaken after 10 ms less 1 ns");
      rt.retake(kChapterForcePreemptNS);
      if (rt.events().Count(Ev::kRetake) != 1) bad.push_back("not retaken after the chapter's 10 ms");
    }
    rt.set_global(11, 1);
  });
  if (!o.ok) bad.push_back("run: " + o.error);
  return bad;
}

TEST(Constants_9_7, SysmonRetakesAfterTheChaptersTenMilliseconds) {
  Problems p = CheckForcePreempt(TestOptions());
  EXPECT_TRUE(p.empty()) << Join(p);
}

TEST(Constants_9_7, CatchesASlowSysmon) {
  Problems p = CheckForcePreempt(WithMutation(TestOptions(), "slow-sysmon"));
  EXPECT_FALSE(p.empty()) << "a sysmon ten times too patient passed";
  Caught(p);
}

// --- the stop-the-world retry -------------------------------------------------

// A goroutine that cannot be stopped (a call-free loop, asyncpreemptoff=1)
// keeps stopTheWorldWithSema retrying: on its clock, no new preemptall round
// before 100 us have passed (however often it looks at the clock), a new
// one at 100 us.
TEST(Constants_9_7, StopTheWorldRetriesEvery100us) {
  ManualClock clock;
  RuntimeOptions opts = TestOptions();
  opts.hooks.clock = &clock;
  opts.settings.godebug = "asyncpreemptoff=1";
  Problems bad;
  Outcome o = RunScenario(kSpin, std::move(opts), [&](Runtime& rt) {
    if (!WaitFor([&] { return rt.global(10) == 1; })) {
      bad.push_back("waited 60 s for spin to start");
      rt.set_global(11, 1);
      return;
    }
    std::thread stw([&] { rt.stopTheWorldWithSema(); });
    auto rounds = [&] { return rt.events().Count(Ev::kSTWRound); };
    auto looked = [&](uint64_t n) {
      uint64_t from = clock.reads();
      return WaitFor([&] { return clock.reads() >= from + n; }, 30);
    };
    if (!WaitFor([&] { return rounds() == 1; }, 30)) bad.push_back("no first preemptall round (30 s)");
    for (int r = 1; r <= 3 && bad.empty(); r++) {
      clock.Advance(kChapterStwRetryNS - 1);
      if (!looked(20)) bad.push_back("stopTheWorldWithSema stopped reading its clock");
      if (rounds() != static_cast<size_t>(r))
        bad.push_back("round " + std::to_string(r + 1) + " came before 100 us (" + std::to_string(rounds()) + " rounds)");
      clock.Advance(1);
      if (!WaitFor([&] { return rounds() == static_cast<size_t>(r + 1); }, 30))
        bad.push_back("no round " + std::to_string(r + 1) + " at 100 us (30 s)");
    }
    rt.set_global(11, 1);  // spin leaves its loop and stops at schedule()
    if (!WaitFor([&] { return rt.events().Count(Ev::kSTWDone) == 1; }, 60)) {
      bad.push_back("the world never stopped after spin left its loop (60 s)");
      for (int i = 0; i < 1000000 && rt.events().Count(Ev::kSTWDone) == 0; i++) clock.Advance(kChapterStwRetryNS);
    }
    stw.join();
    rt.startTheWorld();
  });
  EXPECT_TRUE(o.ok) << o.error;
  EXPECT_TRUE(bad.empty()) << Join(bad);
}

// --- StackSmall -----------------------------------------------------------------

// A leaf whose frame is below 128 bytes gets no stack check; one of 128
// gets one. Observed in the function table and in behaviour: a request
// (asyncpreemptoff=1) preempts a loop calling the 128-byte leaf at the
// leaf's check, and the 120-byte leaf has no check to fail.
TEST(Constants_9_7, StackSmallIs128) {
  std::string leaves;
  for (int frame : {kChapterStackSmall - 8, kChapterStackSmall})
    leaves += "func main.leaf" + std::to_string(frame) + " frame=" + std::to_string(frame) +
              "\n  addi r0, 1\n  ret\nend\n";
  ir::Program p;
  std::string err;
  std::string prog = std::string(R"(
func main.main
  go main.spin
  wait 2
  ret
end
func main.spin frame=16
  movi r1, 1
  st g[10], r1
loop:
  call main.leaf120
  call main.leaf128
  ld r3, g[11]
  jz r3, loop
  handshake 2
  ret
end
)") + leaves;
  RuntimeOptions opts = TestOptions();
  opts.settings.godebug = "asyncpreemptoff=1";
  Outcome o = RunScenario(prog, std::move(opts), [&](Runtime& rt) {
    ASSERT_TRUE(WaitFor([&] { return rt.global(10) == 1; })) << "waited 60 s for spin to start";
    EXPECT_TRUE(RequestUntil(rt, rt.p(0), [&] { return rt.events().Count(Ev::kPreemptSync) >= 1; }))
        << "a cooperative request was never honoured (60 s)";
    rt.set_global(11, 1);
  });
  ASSERT_TRUE(o.ok) << o.error;
  const FuncInfo* below = o.rt->table().Find("main.leaf120");
  const FuncInfo* at = o.rt->table().Find("main.leaf128");
  ASSERT_TRUE(below && at);
  EXPECT_TRUE(below->has(kFuncNoCheck)) << "a leaf with a 120-byte frame has a stack check";
  EXPECT_EQ(below->prologue.hi, below->prologue.lo);
  EXPECT_FALSE(at->has(kFuncNoCheck)) << "a leaf with a 128-byte frame has no stack check";
  EXPECT_GT(at->prologue.hi, at->prologue.lo);
  // Where the request was honoured: in main.leaf128 (its check) or in
  // spin's own check if the request landed before a call; never in leaf120.
  for (const Event& e : o.events)
    if (e.kind == Ev::kPreemptSync) {
      const FuncInfo* f = o.FuncAt(e.pc);
      ASSERT_NE(f, nullptr);
      EXPECT_NE(f->name, "main.leaf120") << "preempted in a leaf that has no check";
    }
}

// --- stackPreempt ---------------------------------------------------------------

// A request writes exactly the chapter's sentinel into stackguard0.
TEST(Constants_9_7, ARequestWritesTheChaptersStackPreempt) {
  std::atomic<G*> spin{nullptr};
  std::atomic<uintptr_t> seen{0};
  RuntimeOptions opts = TestOptions();
  opts.settings.godebug = "asyncpreemptoff=1";
  opts.hooks.callbacks = {[&](Runtime&, G* gp) { spin = gp; }};
  std::string prog = SpinProgram("", "  callback 0\n");
  Outcome o = RunScenario(prog, std::move(opts), [&](Runtime& rt) {
    ASSERT_TRUE(WaitFor([&] { return rt.global(10) == 1; })) << "waited 60 s for spin to start";
    rt.preemptone(rt.p(0), Source::kTest);
    seen = spin.load()->stackguard0.load();  // the loop has no check to consume it
    rt.set_global(11, 1);
  });
  ASSERT_TRUE(o.ok) << o.error;
  EXPECT_EQ(seen.load(), kChapterStackPreempt);
  int local;
  EXPECT_GT(kChapterStackPreempt, reinterpret_cast<uintptr_t>(&local)) << "above every stack pointer";
}

// --- the global run queue goes first once in 61 ticks ---------------------------

// x yields (Gosched puts it on the global run queue) while a chain of
// goroutines keeps the P's local run queue busy: each link spawns the next
// (runqput: local) and returns. Go's schedule() takes from the global queue
// first whenever schedtick is a multiple of 61, so x runs again at the
// first such tick; without that check it waits for the whole chain.
constexpr int kChain = 1000;
const std::string kFairness = std::string(R"(
func main.main
  movi r1, )") + std::to_string(kChain) + R"(
  st g[4], r1
  go main.x
  go main.chain
  wait 9
  ret
end
func main.x
  gosched
  ld r1, g[1]
  st g[2], r1
  handshake 9
  ret
end
func main.chain
  ld r1, g[1]
  addi r1, 1
  st g[1], r1
  ld r2, g[4]
  addi r2, -1
  st g[4], r2
  jz r2, done
  go main.chain
done:
  ret
end
)";

Problems CheckFairness(RuntimeOptions opts) {
  Problems bad;
  opts.settings.gomaxprocs = 1;
  Outcome o = RunScenario(kFairness, std::move(opts));
  if (!o.ok) return {"run: " + o.error};
  constexpr int64_t kX = kFirstG;
  // Executes (schedticks) on the only P: which one resumed x after it yielded.
  int ticks = 0, yielded_at = -1, resumed_at = -1;
  for (const Event& e : o.events) {
    if (e.kind == Ev::kGosched && e.goid == kX && yielded_at < 0) yielded_at = ticks;
    if (e.kind == Ev::kResume) {
      ticks++;
      if (e.goid == kX && yielded_at >= 0 && resumed_at < 0) resumed_at = ticks;
    }
  }
  if (yielded_at < 0 || resumed_at < 0) return {"x never yielded or never ran again"};
  // schedule() looked at schedtick = resumed_at - 1 executes so far.
  if ((resumed_at - 1) % kGoGlobalQueueEvery != 0)
    bad.push_back("x came off the global queue at schedtick " + std::to_string(resumed_at - 1) +
                  ", not at a multiple of 61");
  if (resumed_at - yielded_at > kGoGlobalQueueEvery)
    bad.push_back("x waited " + std::to_string(resumed_at - yielded_at) + " executes on the global queue (at most 61)");
  if (o.rt->global(2) >= static_cast<uint64_t>(kChain)) bad.push_back("x ran only after the whole chain");
  return bad;
}

TEST(Constants_9_7, TheGlobalRunQueueGoesFirstOnceIn61Ticks) {
  Problems p = CheckFairness(TestOptions());
  EXPECT_TRUE(p.empty()) << Join(p);
}

TEST(Constants_9_7, CatchesAStarvedGlobalQueue) {
  Problems p = CheckFairness(WithMutation(TestOptions(), "no-fairness"));
  EXPECT_FALSE(p.empty()) << "a scheduler whose local queue starves the global one passed";
  Caught(p);
}

}  // namespace
}  // namespace safepoint::conformance
