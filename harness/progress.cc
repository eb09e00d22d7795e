#include "harness/progress.h"

#include <string>

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

namespace {

// main starts n spinners and waits for each to finish; spinner i marks
// g[10+i] when it runs and loops (its head a safe point) until g[9].
std::string Spinners(LoopKind k, int n) {
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

}  // namespace

ProgressObservation ObserveStopTheWorld(LoopKind k, int n, RuntimeOptions base, int max_rounds) {
  ProgressObservation ob;
  base.hooks.sysmon = false;
  base.settings.gomaxprocs = n;
  Outcome o = RunScenario(Spinners(k, n), std::move(base), [&](Runtime& rt) {
    bool all = WaitFor([&] {
      for (int i = 0; i < n; i++)
        if (rt.global(10 + i) == 0) return false;
      return true;
    });
    if (!all) {
      ob.error = "waited 60 s for every spinner to start";
    } else {
      ob.rounds = rt.stopTheWorldWithSema(max_rounds);
      ob.stopped = ob.rounds >= 0;
      if (!ob.stopped) ob.rounds = max_rounds;
      rt.startTheWorld();
    }
    rt.set_global(9, 1);
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
