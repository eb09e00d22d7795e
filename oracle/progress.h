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
// preempted. The harness starts a round only once the last one has
// settled (its signals answered, its preempted goroutines' Ps stopped), so
// a round is a try, not a span of time: one to ask, one more each time the
// signal lands on an unsafe instruction. Natively and on most ports 1 or 2;
// on riscv64 under QEMU, which delivers signals at translation-block
// starts and where a load of a global is an unsafe point (REGTMP), the
// leaf loop took up to 98 rounds in about 50 runs. The bound fails a runtime that
// cannot stop the world, not an unlucky port.
constexpr int kProgressRounds = 1000;
// The bound for the runs that must not complete (rounds with nothing in
// flight pass quickly).
constexpr int kNoProgressRounds = 200;

// Whether the world must stop for `k` with asynchronous preemption on or off.
bool MustStop(harness::LoopKind k, bool async);

// "" when the observation is what the chapter says, else what is wrong.
std::string JudgeProgress(harness::LoopKind k, bool async, const harness::ProgressObservation& ob);

}  // namespace safepoint::oracle

#endif
