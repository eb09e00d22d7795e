#include "oracle/go_decision.h"

#include <cstdio>

namespace safepoint::oracle {
namespace {

bool StartsWith(const std::string& s, const char* p) { return s.rfind(p, 0) == 0; }

GoExpect Refuse(Rule r) {
  GoExpect x;
  x.verdict = Verdict::kRefuse;
  x.rule = r;
  return x;
}

}  // namespace

bool GoRuntimeName(const std::string& name, int go_minor) {
  if (StartsWith(name, "runtime.") || StartsWith(name, "reflect.")) return true;
  // runtime/internal/ moved to internal/runtime/ over 1.21-1.23; both
  // prefixes are the runtime's in the versions that check each.
  if (StartsWith(name, "runtime/internal/")) return true;
  if (go_minor >= 21 && StartsWith(name, "internal/runtime/")) return true;
  return false;
}

GoExpect DecideGo(const GoTableFacts& t, const GoStopState& s) {
  if (!s.curg) return Refuse(Rule::kNotCurg);
  if (!s.has_p || !s.p_running) return Refuse(Rule::kPNotRunning);
  if (s.m_locks != 0) return Refuse(Rule::kMLocks);
  if (s.m_mallocing != 0) return Refuse(Rule::kMMallocing);
  if (s.m_preemptoff) return Refuse(Rule::kMPreemptoff);
  if (!s.stack_ok) return Refuse(Rule::kStack);
  if (!t.found) return Refuse(Rule::kNotGo);
  if (t.unsafe_point == kGoUnsafe) return Refuse(Rule::kUnsafePoint);
  if (!t.has_locals_map || t.asm_) return Refuse(Rule::kAsm);
  if (GoRuntimeName(t.innermost, t.go_minor)) return Refuse(Rule::kRuntimePkg);
  GoExpect x;
  switch (t.unsafe_point) {
    case kGoRestart1:
    case kGoRestart2:
      x.verdict = Verdict::kRestart;
      x.resume = t.run_start;
      x.bad_restart = t.run_start == 0 || t.run_start > t.pc || t.pc - t.run_start > 20;
      return x;
    case kGoRestartAtEntry:
      x.verdict = Verdict::kRestartAtEntry;
      x.resume = t.entry;
      return x;
    default:
      x.verdict = Verdict::kAccept;
      x.resume = t.pc;
      return x;
  }
}

std::string DescribeGo(const GoExpect& x) {
  char b[64];
  switch (x.verdict) {
    case Verdict::kRefuse:
      return std::string("refused (") + RuleName(x.rule) + ")";
    case Verdict::kAccept:
      snprintf(b, sizeof b, "accepted at 0x%llx", static_cast<unsigned long long>(x.resume));
      return b;
    case Verdict::kRestart:
    case Verdict::kRestartAtEntry:
      snprintf(b, sizeof b, "restarted at 0x%llx", static_cast<unsigned long long>(x.resume));
      return std::string(b) + (x.verdict == Verdict::kRestartAtEntry ? " (the entry)" : "");
    case Verdict::kNotWanted:
      return "not wanted";
  }
  return "?";
}

}  // namespace safepoint::oracle
