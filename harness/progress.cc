#include "harness/progress.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <string>
#include <thread>

#include "core/chapter.h"
#include "harness/scenario.h"

namespace safepoint::harness {

const char* LoopKindName(LoopKind k) {
  switch (k) {
    case LoopKind::kCallsNonleaf: return "loop calling a non-leaf function";
    case LoopKind::kCallsLeaf: return "loop calling a leaf function";
    case LoopKind::kNoCalls: return "loop without calls";
  }
  return "?";
}

std::string SpinnersProgram(LoopKind k, int n) {
  const char* body = k == LoopKind::kCallsNonleaf ? "  call main.nonleaf"
                     : k == LoopKind::kCallsLeaf  ? "  call main.leaf"
                                                  : "  addi r0, 1";
  std::string main = "func main.main\n";
  std::string fns;
  for (int i = 0; i < n; i++) {
    std::string s = std::to_string(i);
    main += "  go main.s" + s + "\n";
    fns += "func main.s" + s + " frame=16\n  movi r1, 1\n  st g[" + std::to_string(10 + i) +
           "], r1\nloop:\n  addi r5, 1\n" + body + "\n  ld r3, g[9]\n  jz r3, loop\n  handshake " +
           std::to_string(30 + i) + "\n  ret\nend\n";
  }
  for (int i = 0; i < n; i++) main += "  wait " + std::to_string(30 + i) + "\n";
  return main + "  ret\nend\n" + fns + kChapterLeafAndNonleaf;
}

bool SpinnersStarted(Runtime& rt, int n) {
  for (int i = 0; i < n; i++)
    if (rt.global(10 + i) == 0) return false;
  return true;
}

namespace {

// Whether the preemptall round in progress is over: every signal it caused
// has been answered (accepted or refused), every spinner it preempted has
// stopped its P, and (for the loop with a prologue check in it) no
// cooperative request is still waiting for that check. Only then does the
// driver move the runtime's clock on to the next round, so that the number
// of rounds counts what the runtime did, not how fast the machine is.
bool RoundSettled(Runtime& rt, LoopKind k, int n) {
  EventLog& ev = rt.events();
  size_t answered = ev.Count(Ev::kAsyncAccept) + ev.Count(Ev::kAsyncRefuse) + ev.Count(Ev::kSigNoRequest);
  if (answered < ev.Count(Ev::kSignalSent)) return false;
  size_t preempted = ev.Count(Ev::kPreemptAsync) + ev.Count(Ev::kPreemptSync);
  size_t stopped = 0;
  for (int i = 0; i < n; i++) stopped += rt.p(i)->status.load() == _Pgcstop;
  if (stopped < std::min(preempted, static_cast<size_t>(n))) return false;
  if (k == LoopKind::kCallsNonleaf)
    for (int i = 0; i < n; i++) {
      G* gp = rt.FindG(kFirstG + i);
      if (gp && gp->atomicstatus.load() == _Grunning && gp->stackguard0.load() == kStackPreempt) return false;
    }
  return true;
}

}  // namespace

ProgressObservation ObserveStopTheWorld(LoopKind k, int n, RuntimeOptions base, int max_rounds) {
  ProgressObservation ob;
  ManualClock clock;  // stopTheWorldWithSema's 100 us, moved on by the driver
  base.hooks.sysmon = false;
  base.hooks.clock = &clock;
  base.settings.gomaxprocs = n;
  Outcome o = RunScenario(SpinnersProgram(k, n), std::move(base), [&](Runtime& rt) {
    if (!WaitFor([&] { return SpinnersStarted(rt, n); })) {
      ob.error = "waited 60 s for every spinner to start";
    } else {
      constexpr int kPending = -2;
      std::atomic<int> result{kPending};
      std::thread stw([&] { result = rt.stopTheWorldWithSema(max_rounds); });
      auto rounds = [&] { return rt.events().Count(Ev::kSTWRound); };
      while (result == kPending) {
        if (!WaitFor([&] { return result != kPending || RoundSettled(rt, k, n); }, 30)) {
          ob.error = "a preemptall round never settled (30 s): a signal unanswered or a preempted P not stopped";
          break;
        }
        if (result != kPending) break;
        size_t r = rounds();
        clock.Advance(kStwRetryNS);
        if (!WaitFor([&] { return result != kPending || rounds() > r; }, 30)) {
          ob.error = "stopTheWorldWithSema did not start its next round (30 s)";
          break;
        }
      }
      // On an error, let the bound end it: the clock runs on.
      while (result == kPending) {
        clock.Advance(kStwRetryNS);
        usleep(100);
      }
      stw.join();
      ob.rounds = result;
      ob.stopped = ob.rounds >= 0;
      if (!ob.stopped) ob.rounds = max_rounds;
      rt.startTheWorld();
    }
    rt.set_global(kSpinnersStop, 1);
  });
  ob.ran = o.ok && ob.error.empty();
  if (!o.ok) ob.error = o.error;
  for (const Event& e : o.events) {
    if (e.goid < kFirstG) continue;
    ob.preempted_sync += e.kind == Ev::kPreemptSync;
    ob.preempted_async += e.kind == Ev::kPreemptAsync;
  }
  return ob;
}

}  // namespace safepoint::harness
