// The protocol oracle on event sequences written by hand: what each
// invariant accepts (the runtime's normal paths) and what it refuses (the
// paths the live-request, shrink-at-async and suspend-no-preempt-stop
// mutations take).
#include "oracle/protocol.h"

#include <gtest/gtest.h>

namespace safepoint::oracle {
namespace {

constexpr int64_t kG = 1;

struct Log {
  std::vector<Event> evs;
  Log& Add(Ev kind, int64_t arg = 0, Source src = Source::kNone) {
    Event e{};
    e.seq = evs.size();
    e.kind = kind;
    e.source = src;
    e.goid = kG;
    e.arg = arg;
    evs.push_back(e);
    return *this;
  }
};

TEST(Protocol, ARequestAnsweredOnceIsFine) {
  Log l;
  l.Add(Ev::kResume).Add(Ev::kRequest, 0, Source::kArmed).Add(Ev::kPreemptAsync).Add(Ev::kResume);
  l.Add(Ev::kRequest, 0, Source::kPreemptAll).Add(Ev::kRearm).Add(Ev::kPreemptSync).Add(Ev::kResume);
  EXPECT_TRUE(CheckProtocol(l.evs).ok()) << CheckProtocol(l.evs).detail;
}

TEST(Protocol, APreemptionNobodyAskedForIsRefused) {
  // live-request: execute left the request set; releasem re-armed it.
  Log l;
  l.Add(Ev::kResume).Add(Ev::kRequest, 0, Source::kArmed).Add(Ev::kPreemptAsync).Add(Ev::kResume);
  l.Add(Ev::kRearm).Add(Ev::kPreemptSync);
  ProtocolProblem p = CheckProtocol(l.evs);
  EXPECT_EQ(p.rule, "a preemption without a request");
  EXPECT_NE(p.detail.find("event #5"), std::string::npos) << p.detail;
}

TEST(Protocol, ExecuteUsesARequestUpEvenWithoutAPreemption) {
  // Raised while the goroutine was runnable: execute drops it.
  Log l;
  l.Add(Ev::kRequest, 0, Source::kPreemptAll).Add(Ev::kResume).Add(Ev::kPreemptSync);
  EXPECT_EQ(CheckProtocol(l.evs).rule, "a preemption without a request");
}

TEST(Protocol, AShrinkWaitsForTheResume) {
  Log ok;
  ok.Add(Ev::kResume).Add(Ev::kRequest).Add(Ev::kPreemptAsync).Add(Ev::kShrinkDeferred, 1).Add(Ev::kResume);
  ok.Add(Ev::kShrink, 1024);
  EXPECT_TRUE(CheckProtocol(ok.evs).ok()) << CheckProtocol(ok.evs).detail;
  Log sync;  // at a synchronous safe point the stack may move at once
  sync.Add(Ev::kResume).Add(Ev::kRequest).Add(Ev::kPreemptSync).Add(Ev::kShrink, 1024);
  EXPECT_TRUE(CheckProtocol(sync.evs).ok()) << CheckProtocol(sync.evs).detail;
  Log bad;  // shrink-at-async
  bad.Add(Ev::kResume).Add(Ev::kRequest).Add(Ev::kPreemptAsync).Add(Ev::kShrink, 1024);
  EXPECT_EQ(CheckProtocol(bad.evs).rule, "a stack shrunk at an asynchronous safe point");
}

TEST(Protocol, SuspendGsRequestEndsInAPark) {
  Log ok;
  ok.Add(Ev::kResume).Add(Ev::kRequest, 0, Source::kSuspendG).Add(Ev::kPreemptAsync).Add(Ev::kPreemptPark, 1);
  ok.Add(Ev::kSuspend, 0, Source::kSuspendG).Add(Ev::kResumeG, 1, Source::kSuspendG).Add(Ev::kResume);
  EXPECT_TRUE(CheckProtocol(ok.evs).ok()) << CheckProtocol(ok.evs).detail;
  Log withdrawn;  // it blocked first; suspendG claimed it waiting and withdrew the request
  withdrawn.Add(Ev::kResume).Add(Ev::kRequest, 0, Source::kSuspendG).Add(Ev::kPark);
  withdrawn.Add(Ev::kSuspend, 0, Source::kSuspendG).Add(Ev::kResume).Add(Ev::kRequest, 0, Source::kPreemptAll);
  withdrawn.Add(Ev::kPreemptSync).Add(Ev::kResume);
  EXPECT_TRUE(CheckProtocol(withdrawn.evs).ok()) << CheckProtocol(withdrawn.evs).detail;
  Log bad;  // suspend-no-preempt-stop: rescheduled, then claimed runnable
  bad.Add(Ev::kResume).Add(Ev::kRequest, 0, Source::kSuspendG).Add(Ev::kPreemptAsync);
  bad.Add(Ev::kSuspend, 0, Source::kSuspendG);
  EXPECT_EQ(CheckProtocol(bad.evs).rule, "suspendG's request ended without a park");
}

}  // namespace
}  // namespace safepoint::oracle
