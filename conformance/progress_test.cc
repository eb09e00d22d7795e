// Conformance: progress (chapter 9.7.1, 9.7.5, 9.7.6). Stop-the-world over
// spinning goroutines of each loop kind of the chapter's experiment, at
// GOMAXPROCS 1 and 2, judged by the progress oracle in preemptall rounds:
// bounded with asynchronous preemption for every kind; under
// asyncpreemptoff=1 bounded for the loop calling a non-leaf, and never
// completing (a bounded wait of oracle::kNoProgressRounds rounds, reported) for the others.
#include <string>

#include <gtest/gtest.h>

#include "conformance/bounded.h"
#include "conformance/checks.h"
#include "harness/progress.h"
#include "oracle/progress.h"
#include "platforms/native.h"

namespace safepoint::conformance {
namespace {

using harness::LoopKind;

void Expect(LoopKind k, bool async) {
  for (int n : {1, 2}) {
    RuntimeOptions opts;
    if (!async) opts.settings.godebug = "asyncpreemptoff=1";
    // One bound for every run: the oracle judges how many rounds it took.
    harness::ProgressObservation ob = harness::ObserveStopTheWorld(k, n, opts, oracle::kNoProgressRounds);
    EXPECT_EQ(oracle::JudgeProgress(k, async, ob), "") << "GOMAXPROCS=" << n;
    printf("%s%s, GOMAXPROCS=%d: %s in %d rounds (%zu sync, %zu async preemptions)\n", harness::LoopKindName(k),
           async ? "" : ", asyncpreemptoff=1", n, ob.stopped ? "stopped" : "not stopped", ob.rounds,
           ob.preempted_sync, ob.preempted_async);
  }
}


TEST(Progress_9_7, StopTheWorldStopsALoopCallingANonLeaf) {
  SKIP_WITHOUT_ASYNC();
  Expect(LoopKind::kCallsNonleaf, true);
}
TEST(Progress_9_7, StopTheWorldStopsALoopCallingALeaf) {
  SKIP_WITHOUT_ASYNC();
  Expect(LoopKind::kCallsLeaf, true);
}
TEST(Progress_9_7, StopTheWorldStopsALoopWithoutCalls) {
  SKIP_WITHOUT_ASYNC();
  Expect(LoopKind::kNoCalls, true);
}
TEST(Progress_9_7, WithoutAsyncPreemptionTheNonLeafLoopStillStops) { Expect(LoopKind::kCallsNonleaf, false); }
TEST(Progress_9_7, WithoutAsyncPreemptionTheLeafLoopNeverStops) { Expect(LoopKind::kCallsLeaf, false); }
TEST(Progress_9_7, WithoutAsyncPreemptionTheCallFreeLoopNeverStops) { Expect(LoopKind::kNoCalls, false); }

}  // namespace
}  // namespace safepoint::conformance
