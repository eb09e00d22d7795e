// One armed preemption judged by every oracle that applies to it: the
// frame table (the function table's frames against the goroutine's stack at
// the trap, oracle/frame_table.h), the decision oracle (the runtime's
// verdict against the model's), the save area (what asyncPreempt saved
// against the trap's registers), invisibility (the end state against the
// unpreempted run's), liveness (no object a collection freed was touched),
// progress (the request's source did its part) and the protocol
// (oracle/protocol.h). The judged sweep and the fuzzers judge their runs
// here, so a verdict means one thing in all of them.
#ifndef SAFEPOINT_ORACLE_JUDGE_H_
#define SAFEPOINT_ORACLE_JUDGE_H_

#include <string>

#include "harness/sweep.h"
#include "oracle/decision.h"
#include "oracle/frame_table.h"
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
  // frame table: where a point's preemption was accepted, the function
  // table's frames against the machine's at the trap (oracle/frame_table.h):
  // "" or the first disagreement. Where the runtime refused (or nothing was
  // decided) the table may be wrong, as Go's is at unsafe points: such a
  // disagreement is kept in frame_allowed, not a finding.
  std::string frame;
  size_t frame_point = 0;        // the point it was found at (as `point`)
  size_t frame_judged = 0;       // points whose walk was judged
  std::vector<std::string> frame_allowed;
  std::string frame_unjudged;    // why a point's image was seen but not judged
  // semantics: an unpreempted run's end state against the one the
  // program's meaning gives (oracle/semantics.h), where the caller
  // predicted it (oracle/preempt_case.h): "" or the differences. Judge
  // leaves it empty.
  std::string semantics;
  bool ok() const {
    return frame.empty() && agree && state_diff.empty() && lost.empty() && run_error.empty() && protocol.ok() &&
           progress.empty() && save_wrong.empty() && semantics.empty();
  }
  // The first failing oracle ("frame-table", "liveness", "run", "semantics", "progress", "decision",
  // "save-area", "invisibility", "protocol"; a wrong table first, as the
  // cause of the walk's crash or the lost object that may follow it; a wrong
  // save before the end state it spoils; progress before decision: a request that
  // never came leaves no decision to judge) and a constant one-line summary for it that names the rule: what
  // a fuzzer crash says first, so that equal findings deduplicate.
  std::string Oracle() const;
  std::string Headline() const;
};

// `port` is the port the observation was made on (its model decides; its
// saved_regs lay out the save area). `table`: the function table of the
// program as the runtime loaded it, judged at each point by the frame-table
// oracle (not judged when null).
Judgement Judge(const PortInfo& port, const State& state, const harness::EndState& baseline,
                const harness::Observation& o, const FuncTable* table = nullptr);

}  // namespace safepoint::oracle

#endif
