// What the conformance suites written as checks share. A check is a
// function `Problems CheckX(RuntimeOptions)` that returns what it found
// wrong: its test asserts none, and its `Catches...` twin asserts some under
// the mutation the check exists to catch (harness/mutations.h), so the
// suite shows it can fail.
#ifndef SAFEPOINT_CONFORMANCE_CHECKS_H_
#define SAFEPOINT_CONFORMANCE_CHECKS_H_

#include <cstdio>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/chapter.h"
#include "harness/mutations.h"
#include "harness/scenario.h"
#include "platforms/native.h"

namespace safepoint::conformance {

using Problems = std::vector<std::string>;

inline std::string Join(const Problems& v) {
  std::string s;
  for (const std::string& x : v) s += (s.empty() ? "" : "; ") + x;
  return s;
}

// What a check found under a mutation, in the log and the test XML.
inline void Caught(const Problems& p) {
  printf("caught: %s\n", Join(p).c_str());
  ::testing::Test::RecordProperty("caught", Join(p));
}

// `o` with the catalogue's mutation `name` applied.
inline RuntimeOptions WithMutation(RuntimeOptions o, const char* name) {
  const harness::MutationDef* m = harness::FindMutation(name);
  if (m == nullptr) {
    ADD_FAILURE() << "no mutation " << name << " in harness/mutations.cc";
    return o;
  }
  m->apply(o.mutations);
  return o;
}

inline bool AsyncMissing() { return !NativePort().async_preemption(); }
#define SKIP_WITHOUT_ASYNC()                                                                                \
  if (::safepoint::conformance::AsyncMissing())                                                          \
  GTEST_SKIP() << "port " << NativePort().name << " declares asynchronous preemption missing (preemptMSupported)"

// The globals of SpinProgram.
constexpr int kSpinStarted = 10;  // spin has started its loop
constexpr int kSpinStop = 11;     // set it to leave the loop
constexpr int kSpinCount = 12;    // iterations so far

// main starts main.spin and waits for it (handshake 2). spin runs `prelude`,
// marks g[kSpinStarted], then loops until g[kSpinStop], counting in
// g[kSpinCount], through `body`. The loop's head is `addi r5, 1`, a safe
// point on every port: under QEMU a signal arrives between translation
// blocks, at the loop's head, and on riscv64 a load of a global is an unsafe
// point (REGTMP). The chapter's main.nonleaf and main.leaf and `extra`
// follow.
inline std::string SpinProgram(const std::string& body, const std::string& prelude = "",
                               const std::string& extra = "") {
  return "func main.main\n  go main.spin\n  wait 2\n  ret\nend\nfunc main.spin frame=16\n" + prelude +
         "  movi r1, 1\n  st g[10], r1\nloop:\n  addi r5, 1\n" + body +
         "\n  ld r2, g[12]\n  addi r2, 1\n  st g[12], r2\n  ld r3, g[11]\n  jz r3, loop\n  handshake 2\n  ret\nend\n" +
         kChapterLeafAndNonleaf + extra;
}

// Whether spin's count advances by n within 30 s (it runs).
inline bool SpinAdvances(Runtime& rt, uint64_t n = 50) {
  uint64_t from = rt.global(kSpinCount);
  return harness::WaitFor([&] { return rt.global(kSpinCount) >= from + n; }, 30);
}

}  // namespace safepoint::conformance

#endif
