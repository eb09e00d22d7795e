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
#include "oracle/rules.h"

namespace safepoint::conformance {

using oracle::Catalogue;
using oracle::RuleEntry;

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
