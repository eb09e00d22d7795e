// One armed preemption judged by every oracle that applies to it: the
// decision oracle (the runtime's verdict against the model's), invisibility
// (the end state against the unpreempted run's), liveness (no object a
// collection freed was touched) and the protocol (oracle/protocol.h). The judged sweep and the preemption fuzzer
// both judge their runs here, so a verdict means one thing in both.
#ifndef SAFEPOINT_ORACLE_JUDGE_H_
#define SAFEPOINT_ORACLE_JUDGE_H_

#include <string>

#include "harness/sweep.h"
#include "oracle/decision.h"
#include "oracle/protocol.h"
#include "platforms/port.h"

namespace safepoint::oracle {

struct Judgement {
  bool reached = false;    // the armed instruction ran (else nothing is judged)
  Expect expect{Verdict::kRefuse, Rule::kNone};
  std::string got;         // "accepted", "refused (unsafe-point)", "resumed at +N", "not wanted", "no decision"
  bool agree = true;       // decision: the runtime's verdict is the model's
  std::string state_diff;  // invisibility: "" or the differences
  std::string lost;        // liveness: "" or what was lost
  std::string run_error;   // the run failed for another reason
  ProtocolProblem protocol;  // protocol: a preemption without a request, a stack moved at an async safe point
  // progress: the armed instruction's request never came from its source
  // (sysmon did not retake a goroutine that ran forcePreemptNS on one slice)
  std::string progress;
  // save area: the registers asyncPreempt saved wrongly against the trap's
  // ("NAME: saved .., trap had .."), and how many were compared
  std::vector<std::string> save_wrong;
  size_t save_compared = 0;
  size_t point = 0;  // which point's decision disagreed: 0 the armed one, n a chain's nth further point
  bool ok() const {
    return agree && state_diff.empty() && lost.empty() && run_error.empty() && protocol.ok() && progress.empty() &&
           save_wrong.empty();
  }
  // The first failing oracle ("liveness", "run", "progress", "decision",
  // "save-area", "invisibility", "protocol"; a wrong save before the end
  // state it spoils; progress before decision: a request that
  // never came leaves no decision to judge) and a constant one-line summary for it that names the rule: what
  // a fuzzer crash says first, so that equal findings deduplicate.
  std::string Oracle() const;
  std::string Headline() const;
};

// `port` is the port the observation was made on (its model decides; its
// saved_regs lay out the save area).
Judgement Judge(const PortInfo& port, const State& state, const harness::EndState& baseline,
                const harness::Observation& o);

}  // namespace safepoint::oracle

#endif
