// The protocol oracle: the preemption protocol's own invariants, read from
// a run's events alone (as the liveness oracle reads them), whatever the
// program computed:
//   - a preemption answers a request. A preemption (newstack's
//     gopreempt_m, or asyncPreempt2) finds a request raised for its
//     goroutine (preemptone, suspendG, armed delivery) since the goroutine
//     last started running: execute uses the request up, as Go's clears
//     gp.preempt. A request that outlives its preemption preempts again
//     with nobody asking (releasem re-arms it at the next unlock).
//   - a stack does not move at an asynchronous safe point. Between
//     asyncPreempt2 taking a goroutine off its M and execute resuming it,
//     its top two frames have no stack map, so shrinkstack must not copy
//     its stack (isShrinkStackSafe); the shrink waits for the next
//     synchronous safe point.
#ifndef SAFEPOINT_ORACLE_PROTOCOL_H_
#define SAFEPOINT_ORACLE_PROTOCOL_H_

#include <string>
#include <vector>

#include "core/events.h"

namespace safepoint::oracle {

struct ProtocolProblem {
  std::string rule;    // constant: "a preemption without a request", ...
  std::string detail;  // which goroutine, at which event
  bool ok() const { return rule.empty(); }
};

ProtocolProblem CheckProtocol(const std::vector<Event>& events);

}  // namespace safepoint::oracle

#endif
