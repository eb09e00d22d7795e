// The exhaustive sweep (DESIGN.md sections 5 and 6, in the manner of .NET's
// GCStress): preempt at every instruction of every function of a program,
// one at a time, each in a fresh runtime, by armed delivery. Each run is
// judged by the decision oracle (the runtime's verdict must be the
// oracle's) and by invisibility (the program's final registers, as dumped
// into globals, and memory must equal an unpreempted run's).
#ifndef SAFEPOINT_CMD_SWEEP_H_
#define SAFEPOINT_CMD_SWEEP_H_

#include <map>
#include <string>
#include <vector>

#include "runtime/runtime.h"

namespace safepoint {

struct SweepOptions {
  std::string program;            // IR text; empty: the built-in program
  std::string main = "main.main";
  RuntimeOptions runtime;         // base options for every run (sysmon is turned off)
  size_t max_failures = 20;       // details kept (all are counted)
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
  size_t run_errors = 0;          // a run that failed to complete
  std::vector<std::string> failures;  // details, up to max_failures
  bool ok() const { return disagreements == 0 && state_diffs == 0 && run_errors == 0; }
  std::string Summary() const;
};

// The oracle's expectation for instruction k of a loaded program, from the
// line table only (also used by the benchmark).
namespace oracle { struct Expect; }
bool ExpectAt(const ir::Program& prog, const FuncTable& table, size_t k, bool runtimesecret, oracle::Expect* out);
// Whether a runtime decision (accepted with resume, or refused with reason)
// at instruction k is the expected one; op_start is the op's first PC.
bool Agrees(const oracle::Expect& x, bool accepted, uintptr_t pc, uintptr_t resume, Reason reason, uintptr_t op_start,
            uintptr_t entry);
uint32_t OpStart(const FuncTable& t, size_t k);

// The built-in program: every IR operation kind, all registers live.
const std::string& BuiltinSweepProgram();

// False with *err for a program that cannot be swept (malformed, no main,
// the port unknown to the oracle); otherwise fills *out.
bool Sweep(const SweepOptions& opts, SweepResult* out, std::string* err);

}  // namespace safepoint

#endif
