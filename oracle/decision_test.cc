// The decision oracle's agreement check (Agrees) one compared thing at a
// time: for each verdict, a runtime decision that is the expected one, and
// twins of it that differ in exactly one thing the check compares (the
// verdict, the refusal's rule, accept's resume PC, a restart's resume
// against the operation's start, the PC, the port's longest sequence and
// a single sequence's start, restart-at-entry's entry), each of which it
// must refuse. On every port's model, whatever the host.
#include "oracle/decision.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>

namespace safepoint::oracle {
namespace {

constexpr uintptr_t kEntry = 0x4000;
constexpr uintptr_t kPc = 0x4100;

// The runtime's reason whose name is the rule's (they are two enums, and
// the check compares them by name).
Reason ReasonFor(Rule r) {
  for (int i = 0; i < static_cast<int>(Reason::kCount); i++)
    if (strcmp(ReasonName(static_cast<Reason>(i)), RuleName(r)) == 0) return static_cast<Reason>(i);
  return Reason::kCount;
}

constexpr Rule kRules[] = {Rule::kNotCurg,     Rule::kMLocks,      Rule::kMMallocing, Rule::kMPreemptoff,
                           Rule::kPNotRunning, Rule::kSecret,      Rule::kStack,      Rule::kNotGo,
                           Rule::kAsm,         Rule::kUnsafePoint, Rule::kNosplit,    Rule::kRuntimePkg};

// The rule alone: a refusal for every reason but the expected rule's is a
// wrong decision.
TEST(DecisionAgrees, ARefusalAgreesOnlyUnderItsOwnRule) {
  for (const PortInfo* p : AllPorts()) {
    SCOPED_TRACE(p->name);
    for (Rule r : kRules) {
      SCOPED_TRACE(RuleName(r));
      const Reason own = ReasonFor(r);
      ASSERT_NE(own, Reason::kCount) << "no runtime reason is named " << RuleName(r);
      const Expect x{Verdict::kRefuse, r};
      EXPECT_TRUE(Agrees(p->model, x, false, kPc, 0, own, kPc, kEntry));
      for (int i = 0; i < static_cast<int>(Reason::kCount); i++) {
        const Reason other = static_cast<Reason>(i);
        if (other == own) continue;
        EXPECT_FALSE(Agrees(p->model, x, false, kPc, 0, other, kPc, kEntry)) << "refused for " << ReasonName(other);
      }
    }
  }
}

// The verdict alone: an expected refusal the runtime accepted (in place),
// and every other expectation met by a refusal.
TEST(DecisionAgrees, TheVerdictIsCompared) {
  for (const PortInfo* p : AllPorts()) {
    SCOPED_TRACE(p->name);
    for (Rule r : kRules)
      EXPECT_FALSE(Agrees(p->model, {Verdict::kRefuse, r}, true, kPc, kPc, Reason::kNone, kPc, kEntry)) << RuleName(r);
    for (Verdict v : {Verdict::kAccept, Verdict::kRestart, Verdict::kRestartAtEntry, Verdict::kNotWanted}) {
      SCOPED_TRACE(VerdictName(v));
      for (Rule r : kRules) EXPECT_FALSE(Agrees(p->model, {v, Rule::kNone}, false, kPc, 0, ReasonFor(r), kPc, kEntry));
      EXPECT_FALSE(Agrees(p->model, {v, Rule::kNone}, false, kPc, 0, Reason::kNone, kPc, kEntry));
    }
    // No decision is expected: an acceptance, wherever it resumes, is wrong.
    for (uintptr_t resume : {kPc, kEntry})
      EXPECT_FALSE(
          Agrees(p->model, {Verdict::kNotWanted, Rule::kNone}, true, kPc, resume, Reason::kNone, kEntry, kEntry));
  }
}

TEST(DecisionAgrees, AnAcceptanceResumesAtThePcItself) {
  const uintptr_t op_start = kPc - 8;
  for (const PortInfo* p : AllPorts()) {
    SCOPED_TRACE(p->name);
    const Expect x{Verdict::kAccept, Rule::kNone};
    EXPECT_TRUE(Agrees(p->model, x, true, kPc, kPc, Reason::kNone, op_start, kEntry));
    for (uintptr_t resume : {kPc + 4, kPc - 4, kPc + 1, op_start, kEntry, uintptr_t{0}})
      EXPECT_FALSE(Agrees(p->model, x, true, kPc, resume, Reason::kNone, op_start, kEntry)) << std::hex << resume;
  }
}

// A restart resumes at a sequence start within the operation: not after
// the PC, not before the operation's first instruction, not farther back
// than the port's longest sequence, and at the operation's start when the
// operation is one sequence. Each twin breaks one bound and keeps the
// others.
TEST(DecisionAgrees, ARestartResumesWithinItsBounds) {
  int rewinding = 0;
  for (const PortInfo* p : AllPorts()) {
    SCOPED_TRACE(p->name);
    const PortModel& m = p->model;
    const uintptr_t max = m.max_sequence_bytes;
    const Expect several{Verdict::kRestart, Rule::kNone, false};
    const Expect single{Verdict::kRestart, Rule::kNone, true};
    // Every port: the PC is itself a sequence's start.
    EXPECT_TRUE(Agrees(m, single, true, kPc, kPc, Reason::kNone, kPc, kEntry));
    EXPECT_TRUE(Agrees(m, several, true, kPc, kPc, Reason::kNone, kPc, kEntry));
    // After the PC (the operation starting there).
    EXPECT_FALSE(Agrees(m, several, true, kPc, kPc + 4, Reason::kNone, kPc, kEntry));
    EXPECT_FALSE(Agrees(m, single, true, kPc, kPc + 4, Reason::kNone, kPc, kEntry));
    if (max < 8) continue;  // no rewind at all, or too short to show each bound apart
    rewinding++;
    // As far back as the longest sequence, from the operation's start.
    EXPECT_TRUE(Agrees(m, single, true, kPc, kPc - max, Reason::kNone, kPc - max, kEntry));
    EXPECT_TRUE(Agrees(m, several, true, kPc, kPc - max, Reason::kNone, kPc - max, kEntry));
    // One instruction before the operation's start, within the longest
    // sequence's reach.
    EXPECT_FALSE(Agrees(m, several, true, kPc, kPc - max, Reason::kNone, kPc - max + 4, kEntry));
    // Inside the operation, one instruction farther back than the longest
    // sequence reaches.
    EXPECT_TRUE(Agrees(m, several, true, kPc, kPc - max, Reason::kNone, kPc - 2 * max, kEntry));
    EXPECT_FALSE(Agrees(m, several, true, kPc, kPc - max - 4, Reason::kNone, kPc - 2 * max, kEntry));
    // After the PC by wrapping around the address space: the rewind, taken
    // modulo 2^64, is exactly the longest sequence, and the operation
    // starts at 0; the order of resume and PC alone refuses it.
    const uintptr_t low_pc = max - 4;
    EXPECT_FALSE(Agrees(m, several, true, low_pc, low_pc - max, Reason::kNone, 0, kEntry));
    // A later sequence start of the operation: fine for an operation of
    // several sequences, not for one that is a single sequence.
    EXPECT_TRUE(Agrees(m, several, true, kPc, kPc - max + 4, Reason::kNone, kPc - max, kEntry));
    EXPECT_FALSE(Agrees(m, single, true, kPc, kPc - max + 4, Reason::kNone, kPc - max, kEntry));
  }
  EXPECT_GE(rewinding, 2) << "arm64 and loong64 have restartable sequences";
}

TEST(DecisionAgrees, ARestartAtEntryResumesAtTheEntry) {
  const uintptr_t op_start = kPc - 8;
  for (const PortInfo* p : AllPorts()) {
    SCOPED_TRACE(p->name);
    const Expect x{Verdict::kRestartAtEntry, Rule::kNone};
    EXPECT_TRUE(Agrees(p->model, x, true, kPc, kEntry, Reason::kNone, op_start, kEntry));
    for (uintptr_t resume : {kEntry + 4, kEntry - 4, op_start, kPc})
      EXPECT_FALSE(Agrees(p->model, x, true, kPc, resume, Reason::kNone, op_start, kEntry)) << std::hex << resume;
  }
}

}  // namespace
}  // namespace safepoint::oracle
