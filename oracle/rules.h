// The rule catalogue: every refusal rule of isAsyncSafePoint (chapter
// 9.7.5) and canPreemptM (9.7.3), in the runtime's order, with the section
// that states it. The decision oracle decides by these rules; the suites
// register their tests against them (conformance/rules.h); `safepoint rules`
// prints them.
#ifndef SAFEPOINT_ORACLE_RULES_H_
#define SAFEPOINT_ORACLE_RULES_H_

#include <vector>

#include "core/events.h"

namespace safepoint::oracle {

struct RuleEntry {
  Reason reason;
  const char* section;
  const char* statement;
  bool async_reachable;  // observable as an asynchronous refusal
};

inline const std::vector<RuleEntry>& Catalogue() {
  static const std::vector<RuleEntry> rules = {
      {Reason::kNotCurg, "9.7.5", "the interrupted code is not the M's current user goroutine", true},
      {Reason::kMLocks, "9.7.3, 9.7.5", "canPreemptM: m.locks != 0", true},
      {Reason::kMMallocing, "9.7.3, 9.7.5", "canPreemptM: m.mallocing != 0", true},
      {Reason::kMPreemptoff, "9.7.3, 9.7.5", "canPreemptM: m.preemptoff != \"\"", true},
      {Reason::kPNotRunning, "9.7.3, 9.7.5", "canPreemptM: no P, or the P is not _Prunning", true},
      {Reason::kNoCurg, "9.7.3", "canPreemptM: m.curg == nil (unreachable from a signal: wantAsyncPreempt needs a G)", false},
      {Reason::kGSyscall, "9.7.3", "canPreemptM: curg in _Gsyscall (a signal is not wanted then: wantAsyncPreempt needs _Grunning)", false},
      {Reason::kSecret, "9.7.5", "runtimesecret: the goroutine is in a secret computation", true},
      {Reason::kStack, "9.7.5", "not enough stack for the injected call (asyncPreemptStack)", true},
      {Reason::kNotGo, "9.7.5", "the code is not Go code", true},
      {Reason::kAsm, "9.7.5", "the code is an assembly function", true},
      {Reason::kUnsafePoint, "9.7.5",
       "a compiler-marked unsafe point: atomics, write barriers, the prologue check, explicit REGTMP", true},
      {Reason::kNosplit, "9.7.5", "anywhere in a nosplit function other than a call site", true},
      {Reason::kRuntimePkg, "9.7.5", "the innermost function (inlining included) is in runtime, internal/runtime, reflect", true},
  };
  return rules;
}

}  // namespace safepoint::oracle

#endif
