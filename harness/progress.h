// The progress scenario (DESIGN.md: the progress oracle): N goroutines spin
// in one of the chapter's three loop kinds (9.7.1), one per P, and a
// stop-the-world is attempted with a bound on its preemptall rounds. The
// harness observes the rounds and the outcome in events; oracle/progress
// judges them.
#ifndef SAFEPOINT_HARNESS_PROGRESS_H_
#define SAFEPOINT_HARNESS_PROGRESS_H_

#include <string>

#include "runtime/runtime.h"

namespace safepoint::harness {

enum class LoopKind { kCallsNonleaf, kCallsLeaf, kNoCalls };
const char* LoopKindName(LoopKind k);  // the chapter's words

struct ProgressObservation {
  bool ran = false;          // the scenario itself worked
  std::string error;         // when it did not
  bool stopped = false;      // the world stopped within the bound
  int rounds = 0;            // preemptall rounds (kSTWRound events)
  size_t preempted_sync = 0, preempted_async = 0;  // the spinners' preemptions
};

// The program: main starts n spinners of kind `k` and waits for each;
// spinner i marks g[10+i] when it runs and loops (its head a safe point)
// until g[kSpinnersStop]. SpinnersStarted: every one has marked.
constexpr int kSpinnersStop = 9;
std::string SpinnersProgram(LoopKind k, int n);
bool SpinnersStarted(Runtime& rt, int n);

// Runs `n` spinners of kind `k` at GOMAXPROCS=n with `base` options (sysmon
// off), and stopTheWorldWithSema bounded to `max_rounds` rounds. The
// runtime's clock is the harness's: it moves on 100 us, starting the next
// round, only once the last round has settled (a handshake, not a sleep).
ProgressObservation ObserveStopTheWorld(LoopKind k, int n, RuntimeOptions base, int max_rounds);

}  // namespace safepoint::harness

#endif
