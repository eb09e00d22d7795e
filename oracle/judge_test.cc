// The judge on observations written by hand: the progress oracle's claim
// that sysmon did not retake rests on an absence, which a log that filled
// (a run that went on past its first events) cannot show.
#include "oracle/judge.h"

#include <gtest/gtest.h>

#include "core/event_script.h"
#include "platforms/native.h"

namespace safepoint::oracle {
namespace {

constexpr uintptr_t kPc = 0x1000;
constexpr int64_t kG = 1;

// Armed at kPc for sysmon, asyncpreemptoff=1 (nothing to decide there): the
// goroutine ran, trapped, and the other P ran goroutines until the end.
harness::Observation TrappedThenOthersRan() {
  harness::Observation o;
  o.ran = true;
  o.trapped = true;
  o.pc = kPc;
  o.source = harness::RequestSource::kSysmon;
  EventScript s;
  s.Add(Ev::kResume, {.goid = kG}).Add(Ev::kTrap, {.goid = kG, .pc = kPc});
  for (int64_t g = 2; g < 6; g++) s.Add(Ev::kResume, {.goid = g}).Add(Ev::kGoExit, {.goid = g});
  o.events = s.evs;
  return o;
}

State AsyncPreemptOff() {
  State s;
  s.asyncpreemptoff = true;
  return s;
}

TEST(Judge, SysmonThatNeverRetookIsAProgressFinding) {
  harness::Observation o = TrappedThenOthersRan();
  Judgement j = Judge(NativePort(), AsyncPreemptOff(), o.end, o);
  EXPECT_FALSE(j.progress.empty());
  EXPECT_FALSE(j.ok());
}

TEST(Judge, ARetakeOrAnotherSourcesRequestAfterTheTrapIsProgress) {
  harness::Observation o = TrappedThenOthersRan();
  o.events = EventScript(o.events).Add(Ev::kRetake, {.source = Source::kSysmon, .goid = 0}).evs;
  EXPECT_EQ(Judge(NativePort(), AsyncPreemptOff(), o.end, o).progress, "");
  o = TrappedThenOthersRan();
  o.events = EventScript(o.events).Add(Ev::kRequest, {.source = Source::kPreemptAll, .goid = kG}).evs;
  EXPECT_EQ(Judge(NativePort(), AsyncPreemptOff(), o.end, o).progress, "");
}

TEST(Judge, NoRetakeInALogThatFilledIsNotAFinding) {
  // The loong64 finding: the log kept its first 4096 events; the retake
  // came after them.
  harness::Observation o = TrappedThenOthersRan();
  o.events_dropped = 1;
  Judgement j = Judge(NativePort(), AsyncPreemptOff(), o.end, o);
  EXPECT_EQ(j.progress, "");
  EXPECT_TRUE(j.ok()) << j.Headline();
}

TEST(Judge, APreemptoneWithNoDecisionIsJudgedOnlyOnTheWholeLog) {
  // preemptone's signal arrives at the armed instruction by construction:
  // no decision there is a finding, unless the log filled before it.
  harness::Observation o = TrappedThenOthersRan();
  o.source = harness::RequestSource::kPreemptOne;
  State s;
  Judgement j = Judge(NativePort(), s, o.end, o);
  EXPECT_FALSE(j.agree);
  EXPECT_EQ(j.got, "no decision");
  o.events_dropped = 7;
  j = Judge(NativePort(), s, o.end, o);
  EXPECT_TRUE(j.agree);
  EXPECT_EQ(j.got, "no decision in the events kept");
}

TEST(Judge, NotWantedIsWrongOnlyWhereARequestStood) {
  // Armed at an instruction the model refuses; the signal found no
  // request. With a request standing (or preemptone, which always asks)
  // that is a wrong decision; a sysmon point that settled without asking,
  // then a late signal, is Go's behaviour.
  harness::Observation o = TrappedThenOthersRan();
  o.decided = o.not_wanted = true;
  State s;
  o.asked = true;
  EXPECT_FALSE(Judge(NativePort(), s, o.end, o).agree);
  o.asked = false;
  EXPECT_TRUE(Judge(NativePort(), s, o.end, o).agree);
  o.source = harness::RequestSource::kPreemptOne;
  EXPECT_FALSE(Judge(NativePort(), s, o.end, o).agree);
}

}  // namespace
}  // namespace safepoint::oracle
