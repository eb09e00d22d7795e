// The decision oracle (DESIGN.md section 5.1): an independent model of
// isAsyncSafePoint. From the program IR, a small model of the port (the
// shape of its stack check, whether it has REGTMP) and the runtime state at
// the interruption, it says whether a preemption there must be refused (and
// by which rule), accepted in place, or accepted with a restart.
//
// It depends on the IR alone: Bazel keeps it away from the emitter, the
// function table and the runtime. Where an instruction is, it learns from a
// Position (which IR operation of which function, and which machine
// instruction of that operation's lowering), which the sweep takes from the
// emitter's line table; the unsafe-point, restart, inline and flag tables it
// never sees, and rebuilds from the program instead.
#ifndef SAFEPOINT_CONFORMANCE_ORACLE_H_
#define SAFEPOINT_CONFORMANCE_ORACLE_H_

#include <string>

#include "runtime/ir.h"

namespace safepoint::oracle {

// The refusal rules, in isAsyncSafePoint's order (names as the runtime's
// event reasons print them).
enum class Rule {
  kNone,
  kNotCurg,
  kMLocks,
  kMMallocing,
  kMPreemptoff,
  kPNotRunning,
  kSecret,
  kStack,
  kNotGo,
  kAsm,
  kUnsafePoint,
  kNosplit,
  kRuntimePkg,
};
const char* RuleName(Rule r);  // "m.locks", "unsafe-point", ...

// kNotWanted: no decision is taken at all, because wantAsyncPreempt is
// false (the goroutine is in a system call, not _Grunning).
enum class Verdict { kRefuse, kAccept, kRestart, kRestartAtEntry, kNotWanted };
const char* VerdictName(Verdict v);

struct PortModel {
  std::string name;
  bool has_regtmp;        // arm64, loong64: expansions through REGTMP are restartable
  int check_insns_small;  // instructions of the stack check for frames <= StackSmall
  int check_insns_big;    // ... for larger frames
};
// The model of a port by name; false for an unknown one.
bool ModelFor(const std::string& port, PortModel* out);

// Where the interrupted instruction is.
struct Position {
  const ir::Function* fn = nullptr;  // nullptr: not in any function of the program
  bool stub = false;     // in a runtime service stub (assembly)
  // For a stub: the program and the service it implements; the state in
  // the stub is the state at the operations that call it.
  const ir::Program* prog = nullptr;
  ir::Service service = ir::Service::kCount;
  int op = -1;           // index in fn->body; -1: before the body or after it
  bool after_body = false;   // op == -1 and past the body: the morestack path
  int insn_in_fn = 0;    // machine instruction index from the function's entry
  int insn_in_op = 0;    // machine instruction index within the op's lowering
  bool last_in_op = false;   // the last machine instruction of the op (a call's call)
};

// Runtime state the program does not show (set up by the test).
struct State {
  bool curg = true;          // the M runs this goroutine's code
  bool p_running = true;     // the M has a running P
  bool runtimesecret = false;
  bool stack_ok = true;      // room for the injected call
};

struct Expect {
  Verdict verdict;
  Rule rule;  // for kRefuse
  // For kRestart: the operation is one restartable sequence, so the resume
  // PC is the operation's first instruction (else it is some sequence start
  // within the operation).
  bool single_sequence = false;
};

Expect Decide(const PortModel& port, const State& state, const Position& pos);

}  // namespace safepoint::oracle

#endif
