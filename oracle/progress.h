// The progress oracle: time-to-safepoint measured in events, not in time.
// Stop-the-world over spinning goroutines must complete within a bounded
// number of preemptall rounds for every loop kind of 9.7.1 when
// asynchronous preemption is on; with asyncpreemptoff=1 it completes for
// the loop calling a non-leaf function (a prologue check in every call)
// and must not complete for the loop calling only a small-frame leaf or
// nothing: the chapter's blind spot, shown by a bounded wait, not a hang.
#ifndef SAFEPOINT_ORACLE_PROGRESS_H_
#define SAFEPOINT_ORACLE_PROGRESS_H_

#include <string>

#include "harness/progress.h"

namespace safepoint::oracle {

// preemptall rounds a stop-the-world may take when every spinner can be
// preempted. Rounds are 100 us of the runtime's clock apart, so their count
// is not free of time: natively it is 1 to 4, under QEMU (a signal waits
// for a translation block's end; the machine may be busy) up to ~15 seen.
// The bound is set far above both, so that it fails a runtime that cannot
// stop the world, never a slow machine.
constexpr int kProgressRounds = 1000;
// The bound for the runs that must not complete (500 ms of retries).
constexpr int kNoProgressRounds = 5000;

// Whether the world must stop for `k` with asynchronous preemption on or off.
bool MustStop(harness::LoopKind k, bool async);

// "" when the observation is what the chapter says, else what is wrong.
std::string JudgeProgress(harness::LoopKind k, bool async, const harness::ProgressObservation& ob);

}  // namespace safepoint::oracle

#endif
