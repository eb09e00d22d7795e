// Conformance: cooperative preemption through the stack-check prologue,
// one test per statement of chapter 9.7.3, and the sysmon source of 9.7.6.
// Applies to every port (amd64, arm64, loong64), natively and under QEMU.
//
// Each scenario runs a real program on real Ms. A driver thread issues the
// requests and orders itself on the program's globals and on recorded
// events; assertions are on events and state.
#include <atomic>
#include <string>

#include <gtest/gtest.h>

#include "conformance/bounded.h"
#include "conformance/rules.h"
#include "harness/scenario.h"
#include "core/chapter.h"

namespace safepoint::conformance {
using namespace ::safepoint::harness;
namespace {

using Coop_9_7_3 = RuleTest;
using Coop_9_7_6 = RuleTest;


// Globals the spin programs use.
constexpr int kStarted = 10;   // spin has started
constexpr int kStop1 = 11;     // leave loop 1 (and its region)
constexpr int kCount1 = 12;    // loop 1 iterations
constexpr int kStop2 = 13;     // leave loop 2
constexpr int kGo1 = 14;       // leave loop 0, enter the region
constexpr int kCount2 = 15;    // loop 2 iterations
constexpr int kCount0 = 16;    // loop 0 iterations

const char* kCallees = kChapterLeafAndNonleaf;

// A loop that runs until g[stop] is set, counting in g[count]; its body is
// `body` (a call, or inlined arithmetic).
std::string Loop(const std::string& label, const std::string& body, int stop, int count) {
  return label + ":\n" + body + "\n  ld r2, g[" + std::to_string(count) + "]\n  addi r2, 1\n  st g[" +
         std::to_string(count) + "], r2\n  ld r3, g[" + std::to_string(stop) + "]\n  jz r3, " + label + "\n";
}

constexpr const char* kCallNonleaf = "  movi r0, 7\n  call main.nonleaf";
constexpr const char* kCallLeaf = "  movi r0, 7\n  call main.leaf";
constexpr const char* kInlined = "  movi r0, 7\n  muli r0, 3\n  addi r0, 1";

// main starts spin and waits for it to finish (handshake 2).
std::string SpinProgram(const std::string& spin_body) {
  return std::string(R"(
func main.main
  go main.spin
  wait 2
  ret
end
func main.spin frame=16
  movi r1, 1
  st g[10], r1
)") + spin_body + "  handshake 2\n  ret\nend\n" + kCallees;
}

// The program's only running P and its goroutine, once spin has started.
P* SpinP(Runtime& rt) {
  for (int i = 0; i < rt.gomaxprocs(); i++)
    if (rt.p(i)->status.load() == _Prunning || rt.p(i)->status.load() == _Psyscall) return rt.p(i);
  return rt.p(0);
}

size_t CountNow(Runtime& rt, Ev kind, Reason reason = Reason::kCount, int64_t goid = kFirstG) {
  size_t n = 0;
  for (const Event& e : rt.events().Snapshot())
    n += e.kind == kind && e.goid == goid && (reason == Reason::kCount || e.reason == reason);
  return n;
}

bool Started(Runtime& rt) { return rt.global(kStarted) == 1; }

// These rules are about the cooperative path alone: the asynchronous one is
// turned off as GODEBUG=asyncpreemptoff=1 does (it has a suite of its own).
RuntimeOptions CoopOptions() {
  RuntimeOptions o = TestOptions();
  o.settings.godebug = "asyncpreemptoff=1";
  return o;
}

// Waits until loop counter g[count] has advanced by n from now.
bool Advances(Runtime& rt, int count, uint64_t n = 100) {
  uint64_t from = rt.global(count);
  return WaitFor([&] { return rt.global(count) >= from + n; });
}

// --- the sentinel -----------------------------------------------------------

// 9.7.3: stackPreempt = uintptrMask & -1314, larger than any valid stack pointer.
TEST_F(Coop_9_7_3, StackPreemptSentinel) {
  EXPECT_EQ(kStackPreempt, 0xfffffffffffffadeull);
  int local;
  EXPECT_GT(kStackPreempt, reinterpret_cast<uintptr_t>(&local));
  std::atomic<uintptr_t> hi{0};
  RuntimeOptions opts = CoopOptions();
  opts.hooks.callbacks.push_back([&](Runtime&, G* gp) { hi = gp->stack.hi; });
  Outcome o = RunScenario("func main.main\n  callback 0\n  ret\nend\n", std::move(opts));
  ASSERT_TRUE(o.ok) << o.error;
  EXPECT_GT(kStackPreempt, hi.load()) << "above every goroutine stack";
}

// --- the prologue check fails on request ----------------------------------

// 9.7.3: setting stackguard0 to stackPreempt makes the next prologue check
// fail; morestack reaches newstack, which sees a request and calls
// gopreempt_m. The preemption happens in the callee's morestack path.
TEST_F(Coop_9_7_3, PrologueCheckFailsOnRequest) {
  Outcome o = RunScenario(SpinProgram(Loop("loop", kCallNonleaf, kStop1, kCount1)), CoopOptions(), [](Runtime& rt) {
    ASSERT_TRUE(WaitFor([&] { return Started(rt); }));
    EXPECT_TRUE(RequestUntil(rt, SpinP(rt), [&] { return CountNow(rt, Ev::kPreemptSync) >= 1; }));
    rt.set_global(kStop1, 1);
  });
  ASSERT_TRUE(o.ok) << o.error;
  ASSERT_GE(o.Count(Ev::kPreemptSync, kFirstG), 1u);
  for (const Event& e : o.events) {
    if (e.kind != Ev::kPreemptSync) continue;
    const FuncInfo* f = o.FuncAt(e.pc);
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(f->name, "main.nonleaf") << "the check that failed is the callee's prologue";
    EXPECT_TRUE(f->tail.contains(static_cast<uint32_t>(e.pc - o.rt->code_base())))
        << "preempted from the morestack path";
  }
  EXPECT_EQ(o.Count(Ev::kGrow), 0u) << "a request is not mistaken for stack growth";
}

// --- no synchronous safe point in loops over leaves or inlined bodies ------

// 9.7.3: a small-frame leaf has no check, and an inlined body no prologue:
// a loop over either never reaches newstack, however many requests arrive.
void ExpectNoSafePoint(const char* body) {
  constexpr int kRequests = 50;
  Outcome o = RunScenario(SpinProgram(Loop("loop", body, kStop1, kCount1)), CoopOptions(), [](Runtime& rt) {
    ASSERT_TRUE(WaitFor([&] { return Started(rt); }));
    for (int i = 0; i < kRequests; i++) {
      rt.preemptone(SpinP(rt), Source::kTest);
      // The loop runs on past the pending request.
      ASSERT_TRUE(Advances(rt, kCount1));
    }
    rt.set_global(kStop1, 1);
  });
  ASSERT_TRUE(o.ok) << o.error;
  EXPECT_GE(o.Count(Ev::kRequest, kFirstG), static_cast<size_t>(kRequests));
  EXPECT_EQ(o.Count(Ev::kPreemptSync, kFirstG), 0u);
}

TEST_F(Coop_9_7_3, LoopCallingSmallLeafHasNoSafePoint) { ExpectNoSafePoint(kCallLeaf); }
TEST_F(Coop_9_7_3, LoopWithInlinedBodyHasNoSafePoint) { ExpectNoSafePoint(kInlined); }

// The negative twin: the same loop calling a non-leaf is preempted.
TEST_F(Coop_9_7_3, LoopCallingNonLeafIsPreempted) {
  Outcome o = RunScenario(SpinProgram(Loop("loop", kCallNonleaf, kStop1, kCount1)), CoopOptions(), [](Runtime& rt) {
    ASSERT_TRUE(WaitFor([&] { return Started(rt); }));
    for (int i = 0; i < 5; i++) {
      size_t before = CountNow(rt, Ev::kPreemptSync);
      ASSERT_TRUE(RequestUntil(rt, SpinP(rt), [&] { return CountNow(rt, Ev::kPreemptSync) > before; }));
    }
    rt.set_global(kStop1, 1);
  });
  ASSERT_TRUE(o.ok) << o.error;
  EXPECT_GE(o.Count(Ev::kPreemptSync, kFirstG), 5u);
}

// --- newstack defers when canPreemptM fails; releasem re-arms ------------

struct Region {
  const char* enter;
  const char* leave;
  Reason reason;
  bool rearms;  // leaving re-arms a pending request (releasem, exitsyscall)
};

// loop 0 calls only a leaf, so a request stays pending; then the region is
// entered and loop 1 calls a non-leaf: newstack must defer, repeatedly, and
// the goroutine must go on running. Leaving the region, the same code is
// preempted (re-armed by releasem/exitsyscall, or by a new request).
void ExpectDeferral(const Region& r) {
  constexpr int kRequests = 20;
  std::string body = Loop("loop0", kCallLeaf, kGo1, kCount0) + "  " + r.enter + "\n" +
                     Loop("loop1", kCallNonleaf, kStop1, kCount1) + "  " + r.leave + "\n" +
                     Loop("loop2", kCallNonleaf, kStop2, kCount2);
  size_t sync_in_region = 99;
  Outcome o = RunScenario(SpinProgram(body), CoopOptions(), [&](Runtime& rt) {
    ASSERT_TRUE(WaitFor([&] { return Started(rt); }));
    ASSERT_TRUE(rt.preemptone(SpinP(rt), Source::kTest));
    rt.set_global(kGo1, 1);
    ASSERT_TRUE(WaitFor([&] { return CountNow(rt, Ev::kDeferred, r.reason) >= 1; }));
    for (int i = 0; i < kRequests; i++) {
      size_t before = CountNow(rt, Ev::kDeferred, r.reason);
      if (rt.preemptone(SpinP(rt), Source::kTest)) {
        ASSERT_TRUE(RequestUntil(rt, SpinP(rt), [&] { return CountNow(rt, Ev::kDeferred, r.reason) > before; }));
      }
      ASSERT_TRUE(Advances(rt, kCount1)) << "a deferred goroutine keeps running";
    }
    sync_in_region = CountNow(rt, Ev::kPreemptSync);
    rt.set_global(kStop1, 1);  // leave the region
    if (r.rearms) {
      ASSERT_TRUE(WaitFor([&] { return CountNow(rt, Ev::kPreemptSync) >= 1; })) << "re-armed on leaving";
    } else {
      ASSERT_TRUE(Advances(rt, kCount2));
      ASSERT_TRUE(RequestUntil(rt, SpinP(rt), [&] { return CountNow(rt, Ev::kPreemptSync) >= 1; }));
    }
    rt.set_global(kStop2, 1);
  });
  ASSERT_TRUE(o.ok) << o.error;
  EXPECT_EQ(sync_in_region, 0u) << "no preemption inside the region";
  EXPECT_GE(o.Count(Ev::kDeferred, kFirstG, r.reason), 1u) << ReasonName(r.reason);
  EXPECT_GE(o.Count(Ev::kPreemptSync, kFirstG), 1u) << "preempted once the condition is lifted";
  if (r.rearms) EXPECT_GE(o.Count(Ev::kRearm, kFirstG), 1u);
  for (const Event& e : o.events)
    if (e.kind == Ev::kDeferred) EXPECT_EQ(e.reason, r.reason) << "the first failing condition is recorded";
}

TEST_F(Coop_9_7_3, NewstackDefersWhileMLocksHeldAndReleasemRearms) {
  ExpectDeferral({"acquirem", "releasem", Reason::kMLocks, true});
}
TEST_F(Coop_9_7_3, NewstackDefersWhileMallocing) {
  ExpectDeferral({"mallocing_begin", "mallocing_end", Reason::kMMallocing, false});
}
TEST_F(Coop_9_7_3, NewstackDefersUnderPreemptoff) {
  ExpectDeferral({"preemptoff_begin", "preemptoff_end", Reason::kMPreemptoff, false});
}
// In a system call the P is _Psyscall: the P-not-running condition comes
// first in canPreemptM's order. Requests made meanwhile are skipped by
// preemptone; exitsyscall re-arms the one that was pending.
TEST_F(Coop_9_7_3, NewstackDefersInSyscallAndExitsyscallRearms) {
  ExpectDeferral({"entersyscall", "exitsyscall", Reason::kPNotRunning, true});
}

// canPreemptM's conditions one at a time, in its order, on constructed state.
RULE_TEST(Coop_9_7_3, CanPreemptMConditions, Reason::kNoCurg, Reason::kGSyscall) {
  P p;
  p.status = _Prunning;
  G g;
  g.atomicstatus = _Grunning;
  M m;
  m.p = &p;
  m.curg = &g;
  EXPECT_EQ(canPreemptM(&m), Reason::kNone);
  m.locks = 1;
  EXPECT_EQ(canPreemptM(&m), Reason::kMLocks);
  m.locks = 0, m.mallocing = 1;
  EXPECT_EQ(canPreemptM(&m), Reason::kMMallocing);
  m.mallocing = 0, m.preemptoff = "gcing";
  EXPECT_EQ(canPreemptM(&m), Reason::kMPreemptoff);
  m.preemptoff = "", p.status = _Psyscall;
  EXPECT_EQ(canPreemptM(&m), Reason::kPNotRunning);
  m.p = nullptr;
  EXPECT_EQ(canPreemptM(&m), Reason::kPNotRunning);
  m.p = &p, p.status = _Prunning, m.curg = nullptr;
  EXPECT_EQ(canPreemptM(&m), Reason::kNoCurg);
  m.curg = &g, g.atomicstatus = _Gsyscall | _Gscan;
  EXPECT_EQ(canPreemptM(&m), Reason::kGSyscall) << "the scan bit is ignored";
  m.locks = 2;
  EXPECT_EQ(canPreemptM(&m), Reason::kMLocks) << "the first failing condition wins";
}

// --- gopreempt_m puts the goroutine on the global run queue ----------------

// 9.7.3: gopreempt_m shares goschedImpl with Gosched: the preempted G goes
// to the global run queue, so a G on the P's local queue runs before it.
TEST_F(Coop_9_7_3, GopreemptPutsGOnGlobalRunQueue) {
  std::atomic<bool> seen_in_global{false};
  std::atomic<int> callbacks{0};
  RuntimeOptions opts = CoopOptions();
  opts.hooks.callbacks.push_back([&](Runtime& rt, G*) {
    for (int64_t id : rt.GlobalRunq()) seen_in_global = seen_in_global || id == kFirstG;
    callbacks++;
  });
  std::string prog = std::string(R"(
func main.main
  go main.spin
  go main.other
  wait 2
  ret
end
func main.other
  callback 0
  movi r1, 1
  st g[11], r1
  ret
end
func main.spin frame=16
  movi r1, 1
  st g[10], r1
)") + Loop("loop", kCallNonleaf, kStop1, kCount1) + "  handshake 2\n  ret\nend\n" + kCallees;
  Outcome o = RunScenario(prog, std::move(opts), [](Runtime& rt) {
    ASSERT_TRUE(WaitFor([&] { return Started(rt); }));
    ASSERT_TRUE(RequestUntil(rt, SpinP(rt), [&] { return CountNow(rt, Ev::kPreemptSync) >= 1; }));
  });
  ASSERT_TRUE(o.ok) << o.error;
  EXPECT_EQ(callbacks.load(), 1);
  EXPECT_TRUE(seen_in_global.load()) << "the preempted goroutine waits on the global run queue";
  // The next goroutine to run after the preemption is `other` (local queue).
  bool after = false;
  int64_t next = -1;
  for (const Event& e : o.events) {
    if (e.kind == Ev::kPreemptSync && e.goid == kFirstG) after = true;
    else if (after && e.kind == Ev::kResume && next < 0) next = e.goid;
  }
  EXPECT_EQ(next, kFirstG + 1);
}

// --- preemptone's skip cases ---------------------------------------------

TEST_F(Coop_9_7_6, PreemptoneSkipsAPWithoutM) {
  RuntimeOptions opts = CoopOptions();
  opts.settings.gomaxprocs = 2;
  Outcome o = RunScenario(SpinProgram(Loop("loop", kCallNonleaf, kStop1, kCount1)), std::move(opts), [](Runtime& rt) {
    ASSERT_TRUE(WaitFor([&] { return Started(rt); }));
    // The idle P's M may wake for a moment (and hold the P with no G:
    // that is the g0 skip); ask until the no-M case has been seen.
    ASSERT_TRUE(WaitFor([&] {
      for (int i = 0; i < 2; i++)
        if (rt.p(i)->m.load() == nullptr && rt.p(i)->status.load() == _Pidle) {
          EXPECT_FALSE(rt.preemptone(rt.p(i), Source::kTest));
          return rt.events().Count(Ev::kSkip, Reason::kNoM) >= 1;
        }
      return false;
    }));
    rt.set_global(kStop1, 1);
  });
  ASSERT_TRUE(o.ok) << o.error;
  EXPECT_GE(o.Count(Ev::kSkip, -1, Reason::kNoM), 1u);
  EXPECT_EQ(o.Requests(Source::kTest), 0u);
}

TEST_F(Coop_9_7_6, PreemptoneSkipsItsOwnM) {
  std::atomic<int> result{-1};
  RuntimeOptions opts = CoopOptions();
  opts.hooks.callbacks.push_back([&](Runtime& rt, G* gp) { result = rt.preemptone(gp->m->p, Source::kTest); });
  Outcome o = RunScenario("func main.main\n  callback 0\n  ret\nend\n", std::move(opts));
  ASSERT_TRUE(o.ok) << o.error;
  EXPECT_EQ(result.load(), 0);
  EXPECT_EQ(o.Count(Ev::kSkip, -1, Reason::kSelf), 1u);
  EXPECT_EQ(o.Requests(Source::kTest), 0u);
}

TEST_F(Coop_9_7_6, PreemptoneSkipsAnMOnG0) {
  RuntimeOptions opts = CoopOptions();
  opts.hooks.sysmon = false;
  Runtime rt(std::move(opts));
  P p;
  M m;
  G g0;
  m.g0 = &g0;
  p.m = &m;
  p.status = _Prunning;
  m.curg = nullptr;  // in the scheduler
  EXPECT_FALSE(rt.preemptone(&p, Source::kTest));
  m.curg = &g0;
  EXPECT_FALSE(rt.preemptone(&p, Source::kTest));
  EXPECT_EQ(rt.events().Count(Ev::kSkip, Reason::kG0), 2u);
  G g;
  g.atomicstatus = _Grunning;
  g.stack = {0x10000, 0x20000};
  m.curg = &g;
  EXPECT_TRUE(rt.preemptone(&p, Source::kTest)) << "the twin: a user goroutine is requested";
  EXPECT_TRUE(g.preempt.load());
  EXPECT_EQ(g.stackguard0.load(), kStackPreempt);
}

TEST_F(Coop_9_7_6, PreemptoneSkipsAGoroutineInASyscall) {
  std::string body = "  entersyscall\n" + Loop("loop", kCallNonleaf, kStop1, kCount1) + "  exitsyscall\n";
  Outcome o = RunScenario(SpinProgram(body), CoopOptions(), [](Runtime& rt) {
    ASSERT_TRUE(WaitFor([&] { return Started(rt); }));
    ASSERT_TRUE(Advances(rt, kCount1));
    for (int i = 0; i < 10; i++) EXPECT_FALSE(rt.preemptone(SpinP(rt), Source::kTest));
    rt.set_global(kStop1, 1);
  });
  ASSERT_TRUE(o.ok) << o.error;
  EXPECT_EQ(o.Count(Ev::kSkip, kFirstG, Reason::kSyscall), 10u);
  EXPECT_EQ(o.Requests(Source::kTest), 0u);
  EXPECT_EQ(o.Count(Ev::kPreemptSync), 0u);
}

// --- sysmon: retake after 10 ms on one time slice ---------------------------

// 9.7.6: retake preempts the goroutine on a P whose scheduling tick has not
// moved for forcePreemptNS (10 ms), measured on sysmon's (injected) clock.
TEST_F(Coop_9_7_6, SysmonRetakesAfter10ms) {
  ManualClock clock;
  RuntimeOptions opts = CoopOptions();
  opts.hooks.sysmon = false;  // the test is sysmon, on its own clock
  opts.hooks.clock = &clock;
  Outcome o = RunScenario(SpinProgram(Loop("loop", kCallNonleaf, kStop1, kCount1)), std::move(opts), [&](Runtime& rt) {
    ASSERT_TRUE(WaitFor([&] { return Started(rt); }));
    rt.retake(0);  // sysmon first sees the tick
    rt.retake(kForcePreemptNS - 1);
    EXPECT_EQ(rt.events().Count(Ev::kRetake), 0u) << "9.999999 ms is not too long";
    EXPECT_EQ(CountNow(rt, Ev::kRequest), 0u);
    rt.retake(kForcePreemptNS);
    EXPECT_EQ(rt.events().Count(Ev::kRetake), 1u) << "10 ms is";
    ASSERT_TRUE(WaitFor([&] { return CountNow(rt, Ev::kPreemptSync) >= 1; }));
    // Rescheduled: a new tick, so a new 10 ms slice.
    ASSERT_TRUE(WaitFor([&] { return rt.p(0)->schedtick.load() != rt.p(0)->sysmon_tick; }));
    rt.retake(kForcePreemptNS + 1);
    rt.retake(2 * kForcePreemptNS);
    EXPECT_EQ(rt.events().Count(Ev::kRetake), 1u) << "the slice restarted at the new tick";
    rt.retake(2 * kForcePreemptNS + 1);
    EXPECT_EQ(rt.events().Count(Ev::kRetake), 2u);
    rt.set_global(kStop1, 1);
  });
  ASSERT_TRUE(o.ok) << o.error;
  for (const Event& e : o.events)
    if (e.kind == Ev::kRequest) EXPECT_EQ(e.source, Source::kSysmon);
}

// The real sysmon thread, on the real clock, preempts a loop calling a non-leaf.
TEST_F(Coop_9_7_6, SysmonThreadPreemptsALongSlice) {
  RuntimeOptions opts;  // sysmon on, real clock
  opts.settings.godebug = "asyncpreemptoff=1";
  Outcome o = RunScenario(SpinProgram(Loop("loop", kCallNonleaf, kStop1, kCount1)), std::move(opts), [](Runtime& rt) {
    ASSERT_TRUE(WaitFor([&] { return Started(rt); }));
    ASSERT_TRUE(WaitFor([&] { return CountNow(rt, Ev::kPreemptSync) >= 2; }));
    rt.set_global(kStop1, 1);
  });
  ASSERT_TRUE(o.ok) << o.error;
  size_t sysmon_requests = 0;
  for (const Event& e : o.events) sysmon_requests += e.kind == Ev::kRequest && e.source == Source::kSysmon;
  EXPECT_GE(sysmon_requests, 2u);
}

// --- real stack growth next to preemption ------------------------------

// newstack tells growth from a request: a deep recursion grows the stack
// (copying it) while requests keep arriving, and computes the right sum.
TEST_F(Coop_9_7_3, StackGrowthStillWorksNextToPreemption) {
  constexpr int kDepth = 200;
  std::string prog = std::string(R"(
func main.main
  go main.spin
  wait 2
  ret
end
func main.rec frame=256
  jz r0, done
  stslot 0, r0
  stslot 248, r0
  addi r0, -1
  call main.rec
  ldslot r1, 0
  add r0, r1
  ldslot r1, 248
  add r0, r1
done:
  ret
end
func main.spin frame=16
  movi r1, 1
  st g[10], r1
again:
  movi r0, )") + std::to_string(kDepth) + R"(
  call main.rec
  ld r1, g[20]
  add r1, r0
  st g[20], r1
  ld r1, g[21]
  addi r1, 1
  st g[21], r1
  ld r3, g[11]
  jz r3, again
  handshake 2
  ret
end
)";
  Outcome o = RunScenario(prog, CoopOptions(), [&](Runtime& rt) {
    ASSERT_TRUE(WaitFor([&] { return Started(rt); }));
    // Requests until three were taken, each waiting for the recursion to
    // make progress first.
    ASSERT_TRUE(WaitFor([&] {
      rt.preemptone(SpinP(rt), Source::kTest);
      return CountNow(rt, Ev::kPreemptSync) >= 3;
    }));
    rt.set_global(kStop1, 1);
  });
  ASSERT_TRUE(o.ok) << o.error;
  uint64_t rounds = o.rt->global(21);
  EXPECT_GE(rounds, 1u);
  EXPECT_EQ(o.rt->global(20), rounds * kDepth * (kDepth + 1)) << "2 * sum(1..depth) per round";
  EXPECT_GE(o.Count(Ev::kGrow, kFirstG), 5u) << "2 KiB grew past 64 KiB";
  EXPECT_GE(o.Count(Ev::kPreemptSync, kFirstG), 3u);
}

// The rules only the cooperative path can show have a registered test here.
TEST(Catalogue, EveryCooperativeRuleHasARegisteredTest) {
  for (const RuleEntry& e : Catalogue())
    if (!e.async_reachable) EXPECT_FALSE(TestsOf(e.reason).empty()) << "no RULE_TEST for " << ReasonName(e.reason);
}

TEST(Catalogue, RulesMdNamesEveryRegisteredTest) { ExpectRulesMdNamesRegisteredTests(); }

}  // namespace
}  // namespace safepoint::conformance
