// The decision oracle (DESIGN.md section 5.1): an independent model of
// isAsyncSafePoint. From the program IR, a small model of the port (the
// shape of its stack check, whether it has REGTMP) and the runtime state at
// the interruption, it says whether a preemption there must be refused (and
// by which rule), accepted in place, or accepted with a restart.
//
// It depends on the IR and the port's model facts alone: Bazel visibility
// keeps //platforms:emitter, //platforms:emitters and //core:functab out of
// its reach, and the layering test keeps their headers out of its includes.
// Where an instruction is, it learns from an IrPosition (which IR operation
// of which function, and which machine instruction of that operation's
// lowering), which the harness takes from the emitter's line table; the
// unsafe-point, restart, inline and flag tables it never sees, and rebuilds
// from the program instead.
#ifndef SAFEPOINT_ORACLE_DECISION_H_
#define SAFEPOINT_ORACLE_DECISION_H_

#include <cstdint>
#include <string>

#include "core/events.h"
#include "core/ir.h"
#include "core/position.h"
#include "platforms/port.h"

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

// The port's model facts (PortModel, platforms/port.h): the stack check's
// length, REGTMP, the add-immediate width.

using Position = IrPosition;

// Runtime state the program does not show (set up by the test).
struct State {
  bool curg = true;          // the M runs this goroutine's code
  bool p_running = true;     // the M has a running P
  bool runtimesecret = false;
  bool stack_ok = true;      // room for the injected call
  // GODEBUG=asyncpreemptoff=1: no asynchronous preemption at all, so no
  // decision at an armed instruction (a signal, if one arrives, finds
  // nothing to do). Judge (oracle/judge.h) reads it; Decide does not.
  bool asyncpreemptoff = false;
  // The bytes the injected call needs (asyncPreemptStack, from the port:
  // AsyncPreemptStack); when not 0, Judge sets stack_ok from the room the
  // observation saw at the instruction.
  size_t async_preempt_stack = 0;
};

// Go's asyncPreemptStack for a port: asyncPreempt's frame, what its call
// into mcall puts on the stack, and 8 words of slack.
size_t AsyncPreemptStack(const PortInfo& port);

struct Expect {
  Verdict verdict;
  Rule rule;  // for kRefuse
  // For kRestart: the operation is one restartable sequence, so the resume
  // PC is the operation's first instruction (else it is some sequence start
  // within the operation).
  bool single_sequence = false;
};

Expect Decide(const PortModel& port, const State& state, const Position& pos);

// Whether a runtime decision at an instruction (accepted with `resume`, or
// refused with `reason`) is the expected one; op_start is the first PC of
// the instruction's IR operation, entry its function's.
bool Agrees(const PortModel& port, const Expect& x, bool accepted, uintptr_t pc, uintptr_t resume, Reason reason, uintptr_t op_start,
            uintptr_t entry);
// "refused (m.locks)", "accepted" ...: the expectation as text.
std::string Describe(const Expect& x);

}  // namespace safepoint::oracle

#endif  // SAFEPOINT_ORACLE_DECISION_H_
