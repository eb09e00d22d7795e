// The rule catalogue: every refusal rule of isAsyncSafePoint (chapter
// 9.7.5) and canPreemptM (9.7.3), with the section that states it. The
// tests that cover a rule register themselves (RULE_TEST), so the catalogue's
// test column is built from the tests; conformance/RULES.md is checked
// against it (Catalogue.RulesMdNamesEveryRegisteredTest).
//
// A RULE_TEST of an asynchronously reachable rule is a fixture test whose
// TearDown fails unless that rule was observed as a refusal during the test
// itself: the check holds whatever the order, under --test_filter and under
// sharding.
#ifndef SAFEPOINT_CONFORMANCE_RULES_H_
#define SAFEPOINT_CONFORMANCE_RULES_H_

#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <map>

#include "core/events.h"

namespace safepoint::conformance {

struct RuleEntry {
  Reason reason;
  const char* section;
  const char* statement;
  const char* tests;  // for rules checked outside this registry (cooperative deferrals)
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

inline const RuleEntry* FindRule(Reason r) {
  for (const RuleEntry& e : Catalogue())
    if (e.reason == r) return &e;
  return nullptr;
}

// The registry: test "Suite.Name" -> the rules it checks.
inline std::map<std::string, std::vector<Reason>>& RegisteredTests() {
  static auto* m = new std::map<std::string, std::vector<Reason>>;
  return *m;
}
struct RuleTestRegistration {
  RuleTestRegistration(const char* test, std::initializer_list<Reason> rules) {
    for (Reason r : rules) RegisteredTests()[test].push_back(r);
  }
};
// The tests registered for rule r, "Suite.Name", in name order.
inline std::vector<std::string> TestsOf(Reason r) {
  std::vector<std::string> out;
  for (const auto& [test, rules] : RegisteredTests())
    for (Reason x : rules)
      if (x == r) out.push_back(test);
  return out;
}

// Refusals observed during the current test.
inline std::mutex& ObservedMu() {
  static std::mutex mu;
  return mu;
}
inline std::set<Reason>& Observed() {
  static std::set<Reason> s;
  return s;
}
inline void ObserveRefusal(Reason r) {
  std::lock_guard<std::mutex> lk(ObservedMu());
  Observed().insert(r);
}

inline bool& NotObservable() {
  static bool b = false;
  return b;
}
// Called by a RULE_TEST whose rule cannot arise on this port (it asserts
// the acceptance it expects instead): no refusal is required of it.
inline void NotObservableHere() { NotObservable() = true; }

// Every registered test is named in conformance/RULES.md, on the row of
// each rule it registered for (the row holds the rule's event name in
// backticks), as "Suite.Name" or "Name".
inline void ExpectRulesMdNamesRegisteredTests() {
  const char* src = getenv("TEST_SRCDIR");
  std::string path = std::string(src ? src : ".") + "/safepoint/conformance/RULES.md";
  FILE* f = fopen(path.c_str(), "r");
  ASSERT_NE(f, nullptr) << "cannot read " << path;
  std::vector<std::string> lines;
  char buf[4096];
  while (fgets(buf, sizeof buf, f)) lines.push_back(buf);
  fclose(f);
  for (const auto& [test, rules] : RegisteredTests())
    for (Reason r : rules) {
      std::string key = std::string("`") + ReasonName(r) + "`";
      std::string name = test.substr(test.find('.') + 1);
      bool found = false;
      for (const std::string& l : lines)
        if (l.find(key) != std::string::npos && l.find(name) != std::string::npos) found = true;
      EXPECT_TRUE(found) << "conformance/RULES.md has no row for " << key << " naming " << test;
    }
}

// The fixture of every suite with RULE_TESTs.
class RuleTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::lock_guard<std::mutex> lk(ObservedMu());
    Observed().clear();
    NotObservable() = false;
  }
  void TearDown() override {
    if (IsSkipped() || HasFatalFailure() || NotObservable()) return;
    const ::testing::TestInfo* t = ::testing::UnitTest::GetInstance()->current_test_info();
    auto it = RegisteredTests().find(std::string(t->test_suite_name()) + "." + t->name());
    if (it == RegisteredTests().end()) return;
    std::lock_guard<std::mutex> lk(ObservedMu());
    for (Reason r : it->second) {
      const RuleEntry* e = FindRule(r);
      if (e && e->async_reachable && !Observed().count(r))
        ADD_FAILURE() << "registered for rule " << ReasonName(r) << " but never observed it as a refusal";
    }
  }
};

}  // namespace safepoint::conformance

// A test of one or more rules of the catalogue: registers itself for them
// and is checked to observe each as a refusal. The suite's fixture must be
// (or derive from) RuleTest: `using Suite = RuleTest;` next to the tests.
#define RULE_TEST(suite, name, ...)                                                                \
  static const ::safepoint::conformance::RuleTestRegistration kRuleTest_##suite##_##name(         \
      #suite "." #name, {__VA_ARGS__});                                                             \
  TEST_F(suite, name)

namespace safepoint::conformance {
}  // namespace safepoint::conformance

#endif
