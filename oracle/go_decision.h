// The decision oracle for a real Go binary: what Go's isAsyncSafePoint must
// decide at one PC, from the binary's own tables (pclntab: the function at
// the PC, its flags, its locals pointer map, the unsafe-point table and the
// start of the run that holds the PC, the inline tree's innermost name) and
// the state the tracer read at the stop (the M's curg, its P, canPreemptM's
// counters, the stack room). It never looks at what the runtime answered;
// the sweep (oracle/go_sweep.h) compares the two.
#ifndef SAFEPOINT_ORACLE_GO_DECISION_H_
#define SAFEPOINT_ORACLE_GO_DECISION_H_

#include <cstdint>
#include <string>

#include "oracle/decision.h"

namespace safepoint::oracle {

// Go's unsafe-point table values (PCDATA_UnsafePoint).
enum GoUnsafePoint : int32_t {
  kGoSafe = -1,
  kGoUnsafe = -2,
  kGoRestart1 = -3,
  kGoRestart2 = -4,
  kGoRestartAtEntry = -5,
};

// What the binary's tables say at the PC.
struct GoTableFacts {
  bool found = false;          // a function of the table holds the PC (Go code)
  uint64_t pc = 0, entry = 0;  // the PC and its function's entry
  bool asm_ = false;           // the function is flagged assembly
  bool has_locals_map = false; // FUNCDATA_LocalsPointerMaps present
  int32_t unsafe_point = kGoSafe;  // the table's value at the PC (-1 when the table is absent)
  uint64_t run_start = 0;      // where the table's run holding the PC starts (the restart PC)
  std::string innermost;       // the innermost function's name, inlining included
  int go_minor = 0;            // 19, 24, 26: which package prefixes are the runtime's
};

// The state at the stop that isAsyncSafePoint reads before the tables.
struct GoStopState {
  bool curg = true;        // g is the M's curg
  bool has_p = true;       // the M has a P
  bool p_running = true;   // that P is _Prunning
  int32_t m_locks = 0, m_mallocing = 0;
  bool m_preemptoff = false;  // m.preemptoff != ""
  bool stack_ok = true;    // SP - stack.lo >= asyncPreemptStack
};

struct GoExpect {
  Verdict verdict = Verdict::kRefuse;
  Rule rule = Rule::kNone;
  uint64_t resume = 0;       // accepted: the PC asyncPreempt returns to
  bool bad_restart = false;  // a restart whose start Go throws on ("bad restart PC")
};

// Go's order: curg, canPreemptM, stack room, Go code, unsafe point, locals
// map / asm, the innermost name's package, then restart or accept.
GoExpect DecideGo(const GoTableFacts& t, const GoStopState& s);

// Whether a name is the runtime's for isAsyncSafePoint in that Go version
// (runtime., runtime/internal/ before 1.21, internal/runtime/ after, reflect.).
bool GoRuntimeName(const std::string& name, int go_minor);

// "refused (unsafe-point)", "accepted at 0x4a1f20", "restarted at 0x...".
std::string DescribeGo(const GoExpect& x);

}  // namespace safepoint::oracle

#endif
