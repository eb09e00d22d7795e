// The rule catalogue: every refusal rule of isAsyncSafePoint (chapter
// 9.7.5) and canPreemptM (9.7.3), with the section that states it and the
// tests that cover it. conformance/RULES.md is the same table for readers.
// The async suite records every refusal it observes; its last test fails if
// some rule of the catalogue was never observed as a refusal in that run.
#ifndef SAFEPOINT_CONFORMANCE_RULES_H_
#define SAFEPOINT_CONFORMANCE_RULES_H_

#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/events.h"

namespace safepoint::conformance {

struct RuleEntry {
  Reason reason;
  const char* section;
  const char* statement;
  const char* tests;
  bool async_reachable;  // observable as an asynchronous refusal
};

inline const std::vector<RuleEntry>& Catalogue() {
  static const std::vector<RuleEntry> rules = {
      {Reason::kNotCurg, "9.7.5", "the interrupted code is not the M's current user goroutine",
       "Async_9_7_5.RefusedWhenTheMIsOnG0", true},
      {Reason::kMLocks, "9.7.3, 9.7.5", "canPreemptM: m.locks != 0",
       "Coop_9_7_3.NewstackDefersWhileMLocksHeldAndReleasemRearms, Async_9_7_5.RefusedWhileMLocksHeld", true},
      {Reason::kMMallocing, "9.7.3, 9.7.5", "canPreemptM: m.mallocing != 0",
       "Coop_9_7_3.NewstackDefersWhileMallocing, Async_9_7_5.RefusedWhileMallocing", true},
      {Reason::kMPreemptoff, "9.7.3, 9.7.5", "canPreemptM: m.preemptoff != \"\"",
       "Coop_9_7_3.NewstackDefersUnderPreemptoff, Async_9_7_5.RefusedUnderPreemptoff", true},
      {Reason::kPNotRunning, "9.7.3, 9.7.5", "canPreemptM: no P, or the P is not _Prunning",
       "Coop_9_7_3.NewstackDefersInSyscallAndExitsyscallRearms, Async_9_7_5.RefusedWhenPNotRunning", true},
      {Reason::kNoCurg, "9.7.3", "canPreemptM: m.curg == nil (unreachable from a signal: wantAsyncPreempt needs a G)",
       "Coop_9_7_3.CanPreemptMConditions", false},
      {Reason::kGSyscall, "9.7.3", "canPreemptM: curg in _Gsyscall (a signal is not wanted then: wantAsyncPreempt needs _Grunning)",
       "Coop_9_7_3.CanPreemptMConditions, Coop_9_7_6.PreemptoneSkipsAGoroutineInASyscall", false},
      {Reason::kSecret, "9.7.5", "runtimesecret: the goroutine is in a secret computation",
       "Async_9_7_5.RefusedInASecretRegionUnderRuntimesecret", true},
      {Reason::kStack, "9.7.5", "not enough stack for the injected call (asyncPreemptStack)",
       "Async_9_7_5.RefusedWithoutRoomForTheInjectedCall", true},
      {Reason::kNotGo, "9.7.5", "the code is not Go code", "Async_9_7_5.RefusedInForeignCode", true},
      {Reason::kAsm, "9.7.5", "the code is an assembly function", "Async_9_7_5.RefusedInAnAssemblyFunction", true},
      {Reason::kUnsafePoint, "9.7.5",
       "a compiler-marked unsafe point: atomics, write barriers, the prologue check, explicit REGTMP",
       "Async_9_7_5.RefusedAtAnAtomicSequence, ...InAWriteBarrierSequence, ...InTheStackCheckPrologue, "
       "...AtAnExplicitRegtmpUse",
       true},
      {Reason::kNosplit, "9.7.5", "anywhere in a nosplit function other than a call site",
       "Async_9_7_5.RefusedInANosplitFunctionAwayFromCalls", true},
      {Reason::kRuntimePkg, "9.7.5", "the innermost function (inlining included) is in runtime, internal/runtime, reflect",
       "Async_9_7_5.RefusedInAnInlinedRuntimeBody, ...InInternalRuntimeAndReflect, ...InANonInlinedRuntimeFunction",
       true},
  };
  return rules;
}

inline std::mutex& ObservedMu() {
  static std::mutex mu;
  return mu;
}
inline std::set<std::pair<std::string, Reason>>& Observed() {
  static std::set<std::pair<std::string, Reason>> s;
  return s;
}
inline void ObserveRefusal(std::string_view port, Reason r) {
  std::lock_guard<std::mutex> lk(ObservedMu());
  Observed().insert({std::string(port), r});
}
inline std::vector<std::string> UnobservedRules(std::string_view port) {
  std::lock_guard<std::mutex> lk(ObservedMu());
  std::vector<std::string> out;
  for (const RuleEntry& e : Catalogue())
    if (e.async_reachable && !Observed().count({std::string(port), e.reason})) out.push_back(ReasonName(e.reason));
  return out;
}

}  // namespace safepoint::conformance

#endif
