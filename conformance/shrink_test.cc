// Conformance: stack shrinking and preemption (chapter 9.7.5, citing 14.5),
// by events.
//
// A goroutine paused at an asynchronous safe point has two frames without
// precise pointer information, so its stack cannot be moved:
// isShrinkStackSafe refuses while gp.asyncSafePoint is true (and in a
// system call), the collector only sets preemptShrink, and newstack does
// the shrink at the next synchronous safe point. A goroutine stopped at a
// synchronous safe point is shrunk at once.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "conformance/bounded.h"
#include "conformance/checks.h"
#include "harness/mutations.h"
#include "harness/scenario.h"
#include "platforms/native.h"

namespace safepoint::conformance {
using namespace ::safepoint::harness;
namespace {


// (The label `nocall:` starts a translation block under QEMU, so it is
// followed by a safe point too: Go's suspendG sends preemptM again only
// when the last signal was handled more than 5 us after it was sent, so a
// quick refusal would leave it waiting for a synchronous safe point.)
//
// spin first recurses deep enough to grow its stack to 16 KiB, returns,
// then loops (its head a safe point) until g[11]: without calls, or from
// g[14] on through a non-leaf call (a prologue check).
const std::string kGrownSpin =
    SpinProgram("  ld r3, g[14]\n  jz r3, nocall\n  call main.nonleaf\nnocall:\n  addi r5, 1", "  movi r0, 20\n  call main.rec\n",
                "func main.rec frame=512\n  jz r0, done\n  addi r0, -1\n  call main.rec\ndone:\n  ret\nend\n");


// The shrink events of spin, in order, with the stack sizes around them.
struct ShrinkRun {
  Problems bad;
  Outcome o;
  size_t grown = 0, at_scan = 0, after = 0;
  std::string seq;  // spin's shrink-related events in order
};

// Suspends spin (stopped asynchronously when `calls_first` is false, at a
// prologue check when it is true and asynchronous preemption is off), runs
// the collector's stack step, resumes it; then, if the shrink was
// deferred, asks it to stop cooperatively once more (preempt and
// stackPreempt, no signal) with the loop calling a non-leaf.
ShrinkRun RunShrink(RuntimeOptions opts, bool calls_first) {
  ShrinkRun r;
  r.o = RunScenario(kGrownSpin, std::move(opts), [&](Runtime& rt) {
    if (calls_first) rt.set_global(14, 1);
    if (!WaitFor([&] { return rt.global(10) == 1; })) {
      r.bad.push_back("waited 60 s for spin to start");
    } else {
      G* gp = rt.FindG(kFirstG);
      r.grown = gp->stack.hi - gp->stack.lo;
      Runtime::SuspendState s = rt.suspendG(gp);
      if (!s.held || !s.stopped) r.bad.push_back("suspendG did not stop spin");
      rt.scanstack(gp);
      r.at_scan = gp->stack.hi - gp->stack.lo;
      rt.resumeG(s);
      if (!SpinAdvances(rt)) r.bad.push_back("spin did not run on after resumeG (30 s)");
      if (rt.events().Count(Ev::kShrinkDeferred) > 0) {
        rt.set_global(14, 1);
        if (!SpinAdvances(rt)) r.bad.push_back("spin did not run on with calls (30 s)");
        // A cooperative request only: the next prologue check is newstack's.
        gp->preempt.store(true);
        gp->stackguard0.store(kStackPreempt);
        if (!WaitFor([&] { return rt.events().Count(Ev::kShrink) > 0; }, 30))
          r.bad.push_back("the deferred shrink never happened (30 s)");
      }
      r.after = gp->stack.hi - gp->stack.lo;
    }
    rt.set_global(11, 1);
  });
  if (!r.o.ok) r.bad.push_back("run: " + r.o.error);
  for (const Event& e : r.o.events) {
    if (e.goid != kFirstG) continue;
    const char* tag = nullptr;
    if (e.kind == Ev::kPreemptPark) tag = e.arg ? "park(async)" : "park(sync)";
    if (e.kind == Ev::kShrinkDeferred) tag = "shrink-deferred";
    if (e.kind == Ev::kShrink) tag = "shrink";
    if (e.kind == Ev::kPreemptSync) tag = "newstack";
    if (tag) r.seq += std::string(r.seq.empty() ? "" : " ") + tag;
  }
  return r;
}

Problems CheckDeferredAtAsync(RuntimeOptions opts) {
  ShrinkRun r = RunShrink(std::move(opts), false);
  if (!r.bad.empty()) return r.bad;
  Problems bad;
  const std::string want = "park(async) shrink-deferred shrink newstack";
  if (r.seq != want) bad.push_back("events: " + r.seq + " (want " + want + ")");
  if (r.at_scan != r.grown) bad.push_back("the stack moved at the asynchronous safe point");
  if (r.after != r.grown / 2)
    bad.push_back("stack " + std::to_string(r.grown) + " -> " + std::to_string(r.after) + " bytes (want half)");
  return bad;
}

TEST(Shrink_9_7_5, AShrinkAtAnAsynchronousSafePointIsDeferredToTheNextPrologue) {
  if (AsyncMissing()) GTEST_SKIP() << "port " << NativePort().name << " declares asynchronous preemption missing";
  Problems p = CheckDeferredAtAsync(TestOptions());
  EXPECT_TRUE(p.empty()) << Join(p);
}

TEST(Shrink_9_7_5, CatchesAShrinkAtAnAsynchronousSafePoint) {
  if (AsyncMissing()) GTEST_SKIP() << "port " << NativePort().name << " declares asynchronous preemption missing";
  RuntimeOptions opts = TestOptions();
  opts = WithMutation(opts, "shrink-at-async");
  Problems p = CheckDeferredAtAsync(std::move(opts));
  EXPECT_FALSE(p.empty()) << "a collector that shrinks at an asynchronous safe point passed";
  printf("caught: %s\n", Join(p).c_str());
}

TEST(Shrink_9_7_5, AtASynchronousSafePointTheStackShrinksAtOnce) {
  RuntimeOptions opts = TestOptions();
  opts.settings.godebug = "asyncpreemptoff=1";
  ShrinkRun r = RunShrink(std::move(opts), true);
  ASSERT_TRUE(r.bad.empty()) << Join(r.bad);
  EXPECT_EQ(r.seq, "park(sync) shrink");
  EXPECT_EQ(r.at_scan, r.grown / 2) << "shrunk by the collector's step itself";
}

// In a system call the stack is not copied either: deferred.
TEST(Shrink_9_7_5, InASystemCallTheShrinkIsDeferred) {
  std::string prog = std::string(kGrownSpin);
  prog.replace(prog.find("  movi r1, 1\n  st g[10], r1\nloop:"), 0, "  entersyscall\n");
  prog.replace(prog.find("  handshake 2\n"), 0, "  exitsyscall\n");
  Outcome o = RunScenario(prog, TestOptions(), [&](Runtime& rt) {
    ASSERT_TRUE(WaitFor([&] { return rt.global(10) == 1; })) << "waited 60 s for spin to start";
    G* gp = rt.FindG(kFirstG);
    size_t grown = gp->stack.hi - gp->stack.lo;
    Runtime::SuspendState s = rt.suspendG(gp);
    EXPECT_TRUE(s.held && !s.stopped) << "a goroutine in a system call is at a blocking safe point";
    EXPECT_FALSE(rt.isShrinkStackSafe(gp));
    rt.scanstack(gp);
    EXPECT_EQ(gp->stack.hi - gp->stack.lo, grown) << "copied during a system call";
    EXPECT_TRUE(gp->preemptShrink);
    rt.resumeG(s);
    rt.set_global(11, 1);
  });
  ASSERT_TRUE(o.ok) << o.error;
  bool found = false;
  for (const Event& e : o.events)
    if (e.kind == Ev::kShrinkDeferred) {
      found = true;
      EXPECT_EQ(e.arg, 2) << "deferred for the system call";
    }
  EXPECT_TRUE(found);
}

}  // namespace
}  // namespace safepoint::conformance
