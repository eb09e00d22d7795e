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
// preempted: one to ask, a few more for a request that lands on an unsafe
// instruction or is lost (and, under QEMU, for a signal that waits for a
// translation block's end).
constexpr int kProgressRounds = 20;
// The bound for the runs that must not complete: far past kProgressRounds.
constexpr int kNoProgressRounds = 200;

// Whether the world must stop for `k` with asynchronous preemption on or off.
bool MustStop(harness::LoopKind k, bool async);

// "" when the observation is what the chapter says, else what is wrong.
std::string JudgeProgress(harness::LoopKind k, bool async, const harness::ProgressObservation& ob);

}  // namespace safepoint::oracle

#endif
