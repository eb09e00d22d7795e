// The protocol oracle: the preemption protocol's own invariants, read from
// a run's events alone (as the liveness oracle reads them), whatever the
// program computed:
//   - a preemption answers a request. A preemption (newstack's
//     gopreempt_m, or asyncPreempt2) finds a request raised for its
//     goroutine (preemptone, suspendG, armed delivery) since the goroutine
//     last started running: execute uses the request up, as Go's clears
//     gp.preempt. A request that outlives its preemption preempts again
//     with nobody asking (releasem re-arms it at the next unlock). An
//     asynchronous one may also answer a request that raised its P's flag
//     (pp.preempt, the kRequest's arg) since the P's last execute: the
//     signal handler preempts whatever goroutine that P runs, so sysmon's
//     request for the goroutine it saw there may stop the one that
//     followed it.
//   - a stack does not move at an asynchronous safe point. Between
//     asyncPreempt2 taking a goroutine off its M and execute resuming it,
//     its top two frames have no stack map, so shrinkstack must not copy
//     its stack (isShrinkStackSafe); the shrink waits for the next
//     synchronous safe point.
//   - suspendG's request ends in a park. A goroutine that suspendG asked
//     to stop while it ran (preemptStop) and that is then preempted parks
//     in _Gpreempted (preemptPark) for suspendG to claim; it is not put
//     back on a run queue. A request suspendG withdrew (it found the
//     goroutine stopped some other way, or gave up) asks nothing more; one
//     it gave up after the preemption, before the park (withdrawStop, the
//     run having ended), turns the park into an ordinary preemption
//     (preemptPark looks again), and a park then is one nobody claims.
//   - the global run queue goes first once in 61 schedticks. While a
//     goroutine waits on the global run queue (put there by Gosched,
//     gopreempt_m, asyncPreempt2, or a ready from a thread without a P: a
//     kGlobalRunq event), a P executes at most 61 goroutines from elsewhere
//     (kResume, one schedtick each) before it takes one from the global
//     queue (kGlobalRunqGet: findRunnable's schedtick % 61 check, chapter
//     9.7); one more is allowed for slack. The wait ends at the take, not
//     at the taken goroutine's kResume, which may come much later (execute
//     waits without the lock for a scan bit suspendG holds).
#ifndef SAFEPOINT_ORACLE_PROTOCOL_H_
#define SAFEPOINT_ORACLE_PROTOCOL_H_

#include <string>
#include <vector>

#include "core/events.h"

namespace safepoint::oracle {

struct ProtocolProblem {
  std::string rule;    // constant: "a preemption without a request", ...
  std::string detail;  // which goroutine, at which event
  uint64_t seq = 0;    // that event's
  bool ok() const { return rule.empty(); }
};

// Executes of a P while the global run queue waits, beyond which the queue
// was starved: 61 and one for the event's moment.
constexpr int kGlobalQueueWaitExecutes = 62;

ProtocolProblem CheckProtocol(const std::vector<Event>& events);

}  // namespace safepoint::oracle

#endif
