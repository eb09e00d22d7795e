#include "oracle/progress.h"

namespace safepoint::oracle {

bool MustStop(harness::LoopKind k, bool async) { return async || k == harness::LoopKind::kCallsNonleaf; }

std::string JudgeProgress(harness::LoopKind k, bool async, const harness::ProgressObservation& ob) {
  std::string what = std::string(harness::LoopKindName(k)) + (async ? "" : ", asyncpreemptoff=1") + ": ";
  if (!ob.ran) return what + "the scenario failed: " + ob.error;
  if (MustStop(k, async)) {
    if (!ob.stopped) return what + "the world did not stop within " + std::to_string(ob.rounds) + " preemptall rounds";
    if (ob.rounds > kProgressRounds)
      return what + "the world stopped after " + std::to_string(ob.rounds) + " preemptall rounds (at most " +
             std::to_string(kProgressRounds) + ")";
    if (ob.preempted_sync + ob.preempted_async == 0) return what + "stopped without preempting a spinner";
    if (!async && ob.preempted_async != 0) return what + "preempted asynchronously under asyncpreemptoff=1";
    return "";
  }
  if (ob.stopped) return what + "the world stopped (in " + std::to_string(ob.rounds) + " rounds) though no spinner has a safe point";
  return "";
}

}  // namespace safepoint::oracle
