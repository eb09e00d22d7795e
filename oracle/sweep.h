// The judged sweep: the harness's sweep engine (harness/sweep.h) preempts
// every instruction once; each run is judged by the decision oracle (the
// runtime's verdict must be the oracle's) and by invisibility (the end
// state must equal the unpreempted run's).
#ifndef SAFEPOINT_ORACLE_SWEEP_H_
#define SAFEPOINT_ORACLE_SWEEP_H_

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "harness/runtime_under_test.h"
#include "oracle/decision.h"
#include "runtime/runtime.h"

namespace safepoint::oracle {

struct SweepOptions {
  std::string program;            // IR text; empty: the built-in program
  std::string main = "main.main";
  RuntimeOptions runtime;         // base options for every run (sysmon is turned off)
  size_t max_failures = 20;       // details kept (all are counted)
  bool frame_table = true;        // judge the function table at each trap (oracle/frame_table.h)
  // Called before each instruction with (done, total); false stops the
  // sweep there (an interrupt), leaving a partial result.
  std::function<bool(size_t, size_t)> proceed;
};

struct SweepResult {
  size_t instructions = 0;        // instructions armed
  size_t not_reached = 0;         // armed but never executed
  size_t accepted = 0;            // preempted in place
  size_t restarted = 0;           // preempted, resumed at a restart start
  size_t restarted_at_entry = 0;
  std::map<std::string, size_t> refused;  // by rule
  size_t disagreements = 0;       // runtime verdict != oracle verdict
  size_t state_diffs = 0;         // end state != the unpreempted run's
  size_t run_errors = 0;          // a run that failed to complete (other than a lost object)
  // The liveness oracle's columns (a collection at every accepted
  // preemption: RuntimeHooks::collect_at_async_preempt).
  size_t collections = 0;         // completed in all runs
  size_t objects_freed = 0;
  size_t lost_objects = 0;        // runs that touched an object freed while reachable
  size_t protocol_violations = 0; // runs breaking the protocol oracle (oracle/protocol.h)
  size_t save_area_wrong = 0;     // accepted preemptions whose save area differs from the trap's registers
  size_t save_area_compared = 0;  // registers the save-area oracle compared, over all runs
  // The frame-table oracle's columns: points whose walk was judged, accepted
  // preemptions where the table's frame differs from the machine's (a
  // finding), and refused ones where it does (allowed: Go's table may be
  // wrong where no preemption stops).
  size_t frame_judged = 0;
  size_t frame_wrong = 0;
  size_t frame_allowed = 0;
  std::vector<std::string> frame_allowed_at;  // where, up to max_failures
  std::vector<std::string> failures;  // details, up to max_failures
  size_t total = 0;               // instructions the sweep would arm
  bool interrupted = false;       // stopped by proceed before the end
  bool ok() const {
    return frame_wrong == 0 && disagreements == 0 && state_diffs == 0 && run_errors == 0 && lost_objects == 0 && protocol_violations == 0 &&
           save_area_wrong == 0;
  }
  std::string Summary() const;
};

// False with *err for a program that cannot be swept (malformed, no main);
// otherwise fills *out.
bool Sweep(const SweepOptions& opts, SweepResult* out, std::string* err);

}  // namespace safepoint::oracle

#endif
