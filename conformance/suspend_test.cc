// Conformance: suspendG, preemptPark and resumeG (chapter 9.7.6), the
// requests the collector makes to scan one goroutine's stack, by events,
// never by timing. Every port; the asynchronous path only where the port
// has asynchronous preemption.
//
//   - a running goroutine is asked with preemptStop, preempt and
//     stackPreempt, parks in preemptPark (_Gpreempted) at its next safe
//     point, asynchronous or synchronous, and is held in _Gwaiting with the
//     scan bit until resumeG readies it;
//   - a goroutine at a blocking safe point (_Grunnable, _Gwaiting,
//     _Gsyscall) is not preempted: suspendG only takes its scan bit;
//   - stop-the-world does not set preemptStop: the goroutine it stops goes
//     back on a run queue, never to preemptPark;
//   - while a signal goes unanswered, preemptM is sent again at most once
//     every 5 us (the chapter's number) on suspendG's clock.
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "conformance/bounded.h"
#include "conformance/checks.h"
#include "harness/mutations.h"
#include "harness/scenario.h"
#include "platforms/native.h"

namespace safepoint::conformance {
using namespace ::safepoint::harness;
namespace {

constexpr int64_t kChapterSuspendPreemptMNS = 5'000;



std::string StatusName(uint32_t s) {
  std::string scan = (s & _Gscan) ? "_Gscan|" : "";
  switch (s & ~static_cast<uint32_t>(_Gscan)) {
    case _Grunnable: return scan + "_Grunnable";
    case _Grunning: return scan + "_Grunning";
    case _Gsyscall: return scan + "_Gsyscall";
    case _Gwaiting: return scan + "_Gwaiting";
    case _Gpreempted: return scan + "_Gpreempted";
    case _Gdead: return scan + "_Gdead";
  }
  return std::to_string(s);
}

// suspendG on spin while it runs `body`: it must be stopped (parked by
// preemptPark, asynchronously or not as `want_async` says) and held in
// _Gwaiting with the scan bit, must not run until resumeG, and must run on
// after it.
Problems CheckSuspendRunning(RuntimeOptions opts, const std::string& body, bool want_async) {
  Problems bad;
  uint32_t held_status = 0;
  Runtime::SuspendState s;
  Outcome o = RunScenario(SpinProgram(body), std::move(opts), [&](Runtime& rt) {
    if (!WaitFor([&] { return rt.global(10) == 1; })) {
      bad.push_back("waited 60 s for spin to start");
    } else {
      G* gp = rt.FindG(kFirstG);
      s = rt.suspendG(gp);
      held_status = gp->atomicstatus.load();
      if (!s.held) bad.push_back("suspendG gave up (60 s) with spin still running");
      rt.resumeG(s);
      if (!SpinAdvances(rt)) bad.push_back("spin did not run on after resumeG (30 s)");
    }
    rt.set_global(11, 1);
  });
  if (!o.ok) bad.push_back("run: " + o.error);
  if (!bad.empty()) return bad;
  if (!s.stopped) bad.push_back("suspendG did not stop spin (it found it at a blocking safe point)");
  if (held_status != (_Gwaiting | _Gscan)) bad.push_back("held as " + StatusName(held_status) + ", not _Gscan|_Gwaiting");
  // The events of spin, in order, from suspendG's request to resumeG.
  std::string seq;
  bool on = false;
  for (const Event& e : o.events) {
    if (e.goid != kFirstG) continue;
    if (e.kind == Ev::kRequest && e.source == Source::kSuspendG) on = true;
    if (!on) continue;
    const char* tag = nullptr;
    switch (e.kind) {
      case Ev::kRequest: tag = "request"; break;
      case Ev::kPreemptAsync: tag = "asyncPreempt2"; break;
      case Ev::kPreemptSync: tag = "newstack"; break;
      case Ev::kPreemptPark: tag = e.arg ? "preemptPark(async)" : "preemptPark(sync)"; break;
      case Ev::kSuspend: tag = e.arg == _Gpreempted ? "suspend(_Gpreempted)" : "suspend(blocking)"; break;
      case Ev::kResume: tag = "execute"; break;
      case Ev::kResumeG: tag = "resumeG"; break;
      case Ev::kReady: tag = "ready"; break;
      default: break;
    }
    if (tag) seq += std::string(seq.empty() ? "" : " ") + tag;
    if (e.kind == Ev::kResume) break;
  }
  std::string want = want_async ? "request asyncPreempt2 preemptPark(async) suspend(_Gpreempted) resumeG ready execute"
                                : "request newstack preemptPark(sync) suspend(_Gpreempted) resumeG ready execute";
  // Without asynchronous preemption newstack records no event of its own
  // before preemptPark; the synchronous path is told by preemptPark's arg.
  if (!want_async) want = "request preemptPark(sync) suspend(_Gpreempted) resumeG ready execute";
  if (seq != want) bad.push_back("events: " + seq + " (want " + want + ")");
  return bad;
}

TEST(Suspend_9_7_6, ARunningGoroutineParksAtAnAsynchronousSafePoint) {
  if (!!AsyncMissing()) GTEST_SKIP() << "port " << NativePort().name << " declares asynchronous preemption missing";
  Problems p = CheckSuspendRunning(TestOptions(), "", true);
  EXPECT_TRUE(p.empty()) << Join(p);
}

TEST(Suspend_9_7_6, ARunningGoroutineParksAtASynchronousSafePoint) {
  RuntimeOptions opts = TestOptions();
  opts.settings.godebug = "asyncpreemptoff=1";
  Problems p = CheckSuspendRunning(std::move(opts), "  call main.nonleaf", false);
  EXPECT_TRUE(p.empty()) << Join(p);
}

TEST(Suspend_9_7_6, CatchesSuspendGWithoutPreemptStop) {
  RuntimeOptions opts = TestOptions();
  if (!!AsyncMissing()) opts.settings.godebug = "asyncpreemptoff=1";
  FindMutation("suspend-no-preempt-stop")->apply(opts.mutations);
  Problems p = CheckSuspendRunning(std::move(opts), !AsyncMissing() ? "" : "  call main.nonleaf", !AsyncMissing());
  EXPECT_FALSE(p.empty()) << "a suspendG that does not set preemptStop passed";
  printf("caught: %s\n", Join(p).c_str());
}

// --- blocking safe points: the scan bit only ---------------------------------

// suspendG on a goroutine that is runnable (never run: GOMAXPROCS 1, main
// spins), waiting (in `wait`), or in a system call: no request, no signal,
// not stopped; held with the scan bit on its own status; it goes on after
// resumeG.
struct Blocking {
  const char* name;
  int gomaxprocs;
  const char* program;
  uint32_t status;
};

const Blocking kBlocking[] = {
    {"runnable", 1, R"(
func main.main
  go main.g2
  movi r1, 1
  st g[10], r1
loop:
  addi r5, 1
  ld r3, g[11]
  jz r3, loop
  wait 2
  ret
end
func main.g2
  handshake 2
  ret
end
)", _Grunnable},
    {"waiting", 2, R"(
func main.main
  go main.g2
  movi r1, 1
  st g[10], r1
loop:
  addi r5, 1
  ld r3, g[11]
  jz r3, loop
  handshake 2
  ret
end
func main.g2
  wait 2
  ret
end
)", _Gwaiting},
    {"syscall", 1, R"(
func main.main
  go main.g2
  wait 2
  ret
end
func main.g2
  entersyscall
  movi r1, 1
  st g[10], r1
loop:
  addi r5, 1
  ld r3, g[11]
  jz r3, loop
  exitsyscall
  handshake 2
  ret
end
)", _Gsyscall},
};

TEST(Suspend_9_7_6, AGoroutineAtABlockingSafePointIsNotPreempted) {
  for (const Blocking& b : kBlocking) {
    RuntimeOptions opts = TestOptions();
    opts.settings.gomaxprocs = b.gomaxprocs;
    uint32_t held = 0;
    Runtime::SuspendState s;
    Outcome o = RunScenario(b.program, std::move(opts), [&](Runtime& rt) {
      ASSERT_TRUE(WaitFor([&] { return rt.global(10) == 1; })) << b.name << ": waited 60 s for the start";
      G* gp = rt.FindG(kFirstG);
      // The waiting case: g2 parks in `wait 2` on the other P.
      if (b.status == _Gwaiting)
        ASSERT_TRUE(WaitFor([&] { return (gp->atomicstatus.load() & ~static_cast<uint32_t>(_Gscan)) == _Gwaiting; }))
            << b.name << ": g2 never waited (60 s)";
      s = rt.suspendG(gp);
      held = gp->atomicstatus.load();
      rt.resumeG(s);
      rt.set_global(11, 1);
    });
    ASSERT_TRUE(o.ok) << b.name << ": " << o.error;
    EXPECT_TRUE(s.held && !s.stopped && !s.dead) << b.name;
    EXPECT_EQ(held, b.status | _Gscan) << b.name << ": held as " << StatusName(held);
    EXPECT_EQ(o.Requests(Source::kSuspendG), 0u) << b.name << ": a goroutine at a blocking safe point was asked to stop";
    EXPECT_EQ(o.Count(Ev::kPreemptPark), 0u) << b.name;
    EXPECT_EQ(o.Count(Ev::kSuspend, kFirstG), 1u) << b.name;
    EXPECT_EQ(o.Count(Ev::kResumeG, kFirstG), 1u) << b.name;
  }
}

// --- stop-the-world does not set preemptStop -----------------------------------

// The same spinner stopped by stopTheWorldWithSema goes back on a run queue
// (gopreempt_m) and never to preemptPark; suspendG parks it.
TEST(Suspend_9_7_6, StopTheWorldDoesNotParkWhatSuspendGParks) {
  RuntimeOptions opts = TestOptions();
  if (!!AsyncMissing()) opts.settings.godebug = "asyncpreemptoff=1";
  std::string body = !AsyncMissing() ? "" : "  call main.nonleaf";
  uint32_t during_stw = 0;
  Outcome o = RunScenario(SpinProgram(body), std::move(opts), [&](Runtime& rt) {
    ASSERT_TRUE(WaitFor([&] { return rt.global(10) == 1; })) << "waited 60 s for spin to start";
    G* gp = rt.FindG(kFirstG);
    rt.stopTheWorldWithSema();
    during_stw = gp->atomicstatus.load();
    rt.startTheWorld();
    ASSERT_TRUE(SpinAdvances(rt)) << "spin did not run on after the world started (30 s)";
    Runtime::SuspendState s = rt.suspendG(gp);
    EXPECT_TRUE(s.stopped);
    rt.resumeG(s);
    rt.set_global(11, 1);
  });
  ASSERT_TRUE(o.ok) << o.error;
  EXPECT_EQ(during_stw, static_cast<uint32_t>(_Grunnable)) << "stopped by STW: " << StatusName(during_stw);
  size_t parks_before_suspend = 0, parks = 0;
  bool suspend_asked = false;
  for (const Event& e : o.events) {
    if (e.kind == Ev::kRequest && e.source == Source::kSuspendG) suspend_asked = true;
    if (e.kind == Ev::kPreemptPark) (suspend_asked ? parks : parks_before_suspend)++;
  }
  EXPECT_EQ(parks_before_suspend, 0u) << "stop-the-world parked a goroutine (it set preemptStop)";
  EXPECT_EQ(parks, 1u) << "suspendG's request parked it once";
  EXPECT_GE(o.Requests(Source::kPreemptAll), 1u);
}

// --- preemptM at most every 5 us ---------------------------------------------------

// spin holds a runtime lock in its loop, so every signal is refused. As in
// Go, suspendG calls preemptM again only when the last signal has been
// handled (the M's preemptGen moved) and 5 us have passed on its clock
// since the last call (and not at all when the handling came back sooner:
// it then waits for a synchronous safe point, as Go does). The test moves preemptGen itself with bare SIGURGs
// (handled, refused for m.locks) and the clock by hand: at 4999 ns since
// the last signal no new one, at 5000 one. Once the lock goes, releasem
// re-arms the request and spin parks at its next prologue check.
TEST(Suspend_9_7_6, PreemptMIsSentAtMostEvery5us) {
  if (!!AsyncMissing()) GTEST_SKIP() << "port " << NativePort().name << " declares asynchronous preemption missing";
  ManualClock clock;
  RuntimeOptions opts = TestOptions();
  opts.hooks.clock = &clock;
  const std::string prog = R"(
func main.main
  go main.spin
  wait 2
  ret
end
func main.spin frame=16
  acquirem
  movi r1, 1
  st g[10], r1
locked:
  addi r5, 1
  ld r3, g[13]
  jz r3, locked
  releasem
loop:
  addi r5, 1
  call main.nonleaf
  ld r3, g[11]
  jz r3, loop
  handshake 2
  ret
end
func main.nonleaf frame=16
  call main.leaf
  ret
end
func main.leaf
  addi r0, 1
  ret
end
)";
  Runtime::SuspendState s;
  Problems bad;
  Outcome o = RunScenario(prog, std::move(opts), [&](Runtime& rt) {
    ASSERT_TRUE(WaitFor([&] { return rt.global(10) == 1; })) << "waited 60 s for spin to start";
    G* gp = rt.FindG(kFirstG);
    std::thread collector([&] { s = rt.suspendG(gp); });
    // suspendG's preemptM calls (a call while a signal is still pending on
    // the M is coalesced: it counts as the call it is).
    auto calls = [&] { return rt.events().Count(Ev::kSignalSent) + rt.events().Count(Ev::kSignalCoalesced); };
    auto handled = [&] { return rt.events().Count(Ev::kAsyncRefuse); };
    // A bare SIGURG to spin's M, handled; then suspendG has looked at its
    // clock again.
    auto nudge = [&] {
      size_t h = handled();
      uint64_t r = clock.reads();
      syscall(SYS_tgkill, getpid(), gp->m->tid, SIGURG);
      return WaitFor([&] { return handled() > h; }, 30) && WaitFor([&] { return clock.reads() > r; }, 30);
    };
    if (!WaitFor([&] { return calls() == 1 && handled() >= 1 && clock.reads() >= 2; }, 30))
      bad.push_back("no first signal sent and handled (30 s)");
    for (size_t k = 1; k <= 3 && bad.empty(); k++) {
      clock.Advance(kChapterSuspendPreemptMNS - 1);
      if (!nudge()) bad.push_back("a bare SIGURG was not handled, or suspendG stopped looking (30 s)");
      if (calls() != k) bad.push_back("preemptM " + std::to_string(k + 1) + " called before 5 us");
      clock.Advance(1);
      if (!nudge()) bad.push_back("a bare SIGURG was not handled, or suspendG stopped looking (30 s)");
      if (!WaitFor([&] { return calls() == k + 1; }, 30))
        bad.push_back("no preemptM " + std::to_string(k + 1) + " at 5 us (30 s): " + std::to_string(calls()) +
                      " calls, " + std::to_string(handled()) + " signals refused");
    }
    rt.set_global(13, 1);  // spin leaves its locked loop: releasem, a prologue check
    collector.join();
    rt.resumeG(s);
    rt.set_global(11, 1);
  });
  ASSERT_TRUE(o.ok) << o.error;
  EXPECT_TRUE(bad.empty()) << Join(bad);
  EXPECT_TRUE(s.stopped) << "parked once the lock went";
  EXPECT_EQ(o.Count(Ev::kRearm, kFirstG), 1u) << "releasem re-armed suspendG's request";
  EXPECT_EQ(o.Count(Ev::kAsyncAccept), 0u);
  for (const Event& e : o.events)
    if (e.kind == Ev::kPreemptPark) EXPECT_EQ(e.arg, 0) << "parked at the synchronous safe point";
}

// --- suspendG gives up while the goroutine goes to park ------------------
// suspendG's give-up (the harness's bound on it, or the run's end) takes
// preemptStop back. A goroutine that already saw preemptStop and is on its
// way into preemptPark must not park then: nobody would claim it, and a
// program waiting for it would end in a false deadlock. It is preempted as
// by any other request and runs on. The hook holds it at that moment until
// suspendG has given up; suspendG's bound is doubled until the goroutine
// got there within it (spin calls nonleaf, a prologue check, every turn).
TEST(Suspend_9_7_6, AGoroutineOnItsWayToParkWhenSuspendGGivesUpRunsOn) {
  RuntimeOptions opts = TestOptions();
  opts.settings.godebug = "asyncpreemptoff=1";  // every port: the synchronous path
  std::atomic<bool> at_park{false}, gave_up{false}, hook_waited_out{false};
  opts.hooks.before_preempt_park = [&](Runtime&, G* gp) {
    if (gp->goid != kFirstG || at_park.exchange(true)) return;
    if (!WaitFor([&] { return gave_up.load(); }, 60)) hook_waited_out = true;
  };
  Problems bad;
  Outcome o = RunScenario(SpinProgram("  call main.nonleaf"), std::move(opts), [&](Runtime& rt) {
    if (!WaitFor([&] { return rt.global(kSpinStarted) == 1; })) {
      bad.push_back("waited 60 s for spin to start");
    } else {
      G* gp = rt.FindG(kFirstG);
      for (int64_t bound = 1'000'000; !at_park.load() && bound <= 16'000'000'000; bound *= 2) {
        // (Held only where an earlier give-up left spin rescheduled: a
        // blocking safe point.)
        rt.resumeG(rt.suspendG(gp, bound));
      }
      gave_up = true;
      if (!at_park.load()) bad.push_back("spin never reached preemptPark within suspendG's bound (up to 16 s)");
      else if (!SpinAdvances(rt)) bad.push_back("spin did not run on after suspendG gave up (30 s): it parked");
    }
    rt.set_global(kSpinStop, 1);
  });
  ASSERT_TRUE(bad.empty()) << Join(bad);
  ASSERT_TRUE(o.ok) << o.error;
  EXPECT_FALSE(hook_waited_out.load()) << "preemptPark's hook waited 60 s for suspendG to give up";
  EXPECT_GE(o.Count(Ev::kSuspendGiveUp, kFirstG), 1u);
  EXPECT_EQ(o.Count(Ev::kPreemptPark, kFirstG), 0u) << "spin parked for a suspendG that had given up";
}

// --- a preemption under way and suspendG's request -----------------------
// A goroutine preempted for an earlier request (preemptone's) looks at
// preemptStop while suspendG may be raising its own. The look (with the
// preemption's record) and suspendG's record and raise of its request are
// one step against each other, so the events put first what came first: a
// request recorded before the preemption was raised before the look, and
// the goroutine parks. The hooks hold each side at the moment: spin, in
// newstack for preemptone's request, until suspendG has recorded its own;
// suspendG, between that record and its raise, until spin has recorded an
// ordinary preemption (which, the step being suspendG's, it cannot) or 2 s
// have passed. (Found by //fuzz:preempt_fuzz: spin looked before the raise
// and recorded after the request, "suspendG's request ended without a
// park"; this test fails so without the step.)
TEST(Suspend_9_7_6, APreemptionUnderWayAndSuspendGsRequestAreOneStepApart) {
  RuntimeOptions opts = TestOptions();
  opts.settings.godebug = "asyncpreemptoff=1";  // every port: the synchronous path
  std::atomic<bool> deciding{false}, recorded{false}, spin_waited_out{false};
  opts.hooks.before_preempt_decision = [&](Runtime&, G* gp) {
    if (gp->goid != kFirstG || deciding.exchange(true)) return;
    if (!WaitFor([&] { return recorded.load(); }, 60)) spin_waited_out = true;
  };
  opts.hooks.suspend_before_raise = [&](Runtime& rt, G* gp) {
    if (gp->goid != kFirstG || recorded.exchange(true)) return;
    WaitFor([&] { return rt.events().Count(Ev::kPreemptSync) > 0; }, 2);
  };
  Runtime::SuspendState s;
  Problems bad;
  Outcome o = RunScenario(SpinProgram("  call main.nonleaf"), std::move(opts), [&](Runtime& rt) {
    if (!WaitFor([&] { return rt.global(kSpinStarted) == 1; })) {
      bad.push_back("waited 60 s for spin to start");
    } else {
      G* gp = rt.FindG(kFirstG);
      P* on = nullptr;
      for (int i = 0; i < rt.gomaxprocs() && on == nullptr; i++) {
        M* m = rt.p(i)->m.load();
        if (m != nullptr && m->curg.load() == gp) on = rt.p(i);
      }
      if (on == nullptr || !rt.preemptone(on, Source::kTest)) {
        bad.push_back("no request raised on spin's P");
      } else if (!WaitFor([&] { return deciding.load(); })) {
        bad.push_back("spin never reached newstack for preemptone's request (60 s)");
      } else {
        s = rt.suspendG(gp);
        rt.resumeG(s);
      }
    }
    rt.set_global(kSpinStop, 1);
  });
  ASSERT_TRUE(bad.empty()) << Join(bad);
  ASSERT_TRUE(o.ok) << o.error;
  EXPECT_FALSE(spin_waited_out.load()) << "spin's hook waited 60 s for suspendG's request";
  EXPECT_TRUE(s.stopped) << "spin was not parked for suspendG";
  // After suspendG's request, spin's next preemption is its park.
  bool after_request = false;
  std::string seen;
  for (const Event& e : o.events) {
    if (e.goid != kFirstG) continue;
    if (e.kind == Ev::kRequest && e.source == Source::kSuspendG) after_request = true;
    if (!after_request) continue;
    if (e.kind == Ev::kPreemptSync || e.kind == Ev::kPreemptPark) {
      seen = EvName(e.kind);
      break;
    }
  }
  EXPECT_EQ(seen, EvName(Ev::kPreemptPark)) << "after suspendG's request spin was preempted without parking";
}

}  // namespace
}  // namespace safepoint::conformance
