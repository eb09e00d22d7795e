// Conformance: state that must belong to one goroutine (chapter 9.7.5, the
// register save areas) and a request that is used up (9.7.3, 9.7.5).
//
// Go 1.26 moves the extended register state out of asyncPreempt's frame:
// asyncPreempt writes it to the P's scratch area and asyncPreempt2 moves it,
// on g0, into state allocated for the G. A single goroutine preempted alone
// on its P cannot tell the difference, since the P's scratch still holds its
// state when it resumes. These tests preempt several goroutines with
// different vector and flag state on the same P and on different Ps, resume
// them in another order or on another P, and judge each one's registers
// after it resumes, and the events (which G, which P).
//
// A preemption request is used up when the goroutine is preempted and
// rescheduled: execute() clears gp.preempt and pp.preempt, so a later SIGURG
// without a new request is refused as "no request" and releasem re-arms
// nothing.
//
// Each check returns the problems it found, so that the suite can show it
// fails under the mutation it exists to catch (harness/mutations.h).
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstring>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "conformance/bounded.h"
#include "conformance/checks.h"
#include "harness/armed.h"
#include "harness/mutations.h"
#include "harness/scenario.h"
#include "oracle/save_area.h"
#include "platforms/native.h"

namespace safepoint::conformance {
using namespace ::safepoint::harness;
namespace {



// The vector registers of the active tier, at full width, that dump area
// `area` holds wrongly for `vfill seed` (oracle/save_area.h), by name.
Problems WrongVectors(const Runtime& rt, int area, int64_t seed, const std::string& who) {
  oracle::TrapState want{0, seed, 0};
  std::string wrong;
  for (const std::string& r : oracle::CheckExtendedState(NativePort(), rt.xstate_tier(), rt.vdump(area), want))
    wrong += " " + r;
  if (wrong.empty()) return {};
  return {who + ":" + wrong + " do not hold its own vfill pattern"};
}

// The flag and control registers `flagsdump g[n]` stored wrongly for
// `setflags flags`, by name.
Problems WrongFlags(const Runtime& rt, int n, uint64_t flags, const std::string& who) {
  uint64_t words[ir::kFlagsWords];
  for (int i = 0; i < ir::kFlagsWords; i++) words[i] = rt.global(n + i);
  std::string wrong;
  for (const std::string& r : oracle::CheckFlagsDump(NativePort(), words, oracle::TrapState{0, 0, flags}))
    wrong += " " + r;
  if (wrong.empty()) return {};
  return {who + ":" + wrong + " not its own"};
}

// --- extended state belongs to its goroutine: one P -----------------------

constexpr int64_t kSeedA = 0x1111, kSeedB = 0x2222;
// A flag pattern and its complement: every bit of every flag register's
// setflags_mask differs between a and b.
constexpr uint64_t kFlagsA = 0xAD0A08C5, kFlagsB = ~kFlagsA;

// Goroutines a and b on one P, each with its own vectors and flags live at
// an armed instruction. a is preempted at ta1, then b at tb; a resumes
// (from the global queue, first in) and is preempted again at ta2, so b
// resumes before a: preempted a, b; resumed a, then b before a.
std::string TwoOnOneP() {
  auto fill = [](int64_t seed, uint64_t flags) {
    return "  vfill " + std::to_string(seed) + "\n  setflags " + std::to_string(static_cast<int64_t>(flags)) + "\n";
  };
  return "func main.main\n  go main.a\n  go main.b\n  wait 3\n  wait 4\n  ret\nend\n"
         "func main.a frame=16\n  callback 0\n" + fill(kSeedA, kFlagsA) +
         "ta1:\n  mov r0, r0\n  callback 1\n" + fill(kSeedA, kFlagsA) +
         "ta2:\n  mov r0, r0\n  flagsdump g[20]\n  vdump 0\n  handshake 3\n  ret\nend\n"
         "func main.b frame=16\n  callback 2\n" + fill(kSeedB, kFlagsB) +
         "tb:\n  mov r0, r0\n  flagsdump g[24]\n  vdump 1\n  handshake 4\n  ret\nend\n";
}

Problems CheckTwoGoroutinesOnOneP(RuntimeOptions opts) {
  Problems bad;
  ir::Program prog;
  std::string err;
  if (!ir::ParseProgram(TwoOnOneP(), &prog, &err)) return {err};
  opts.settings.gomaxprocs = 1;
  uint32_t ta1 = 0, ta2 = 0, tb = 0;
  auto arm = [&](uint32_t* off) {
    return [&bad, off](Runtime& rt, G*) {
      std::string e;
      if (!Arm(rt, *off, &e)) bad.push_back("arming: " + e);
    };
  };
  opts.hooks.callbacks = {arm(&ta1), arm(&ta2), arm(&tb)};
  auto rt = std::make_unique<Runtime>(std::move(opts));
  if (!rt->Load(prog, &err)) return {err};
  ta1 = LabelOffset(rt->table(), prog, "main.a", "ta1");
  ta2 = LabelOffset(rt->table(), prog, "main.a", "ta2");
  tb = LabelOffset(rt->table(), prog, "main.b", "tb");
  if (!RunBounded(*rt, "main.main", &err)) return {"run: " + err};
  constexpr int64_t kA = kFirstG, kB = kFirstG + 1;
  // The order of events for a and b: every start or resumption, and every
  // asynchronous preemption.
  std::string order;
  for (const Event& e : rt->events().Snapshot()) {
    if (e.goid != kA && e.goid != kB) continue;
    char who = e.goid == kA ? 'a' : 'b';
    if (e.kind == Ev::kResume) order += std::string("R") + who + " ";
    if (e.kind == Ev::kPreemptAsync) order += std::string("P") + who + " ";
  }
  const std::string want = "Ra Pa Rb Pb Ra Pa Rb Ra ";
  if (order != want) bad.push_back("events for a and b: " + order + "(want " + want + ")");
  for (const std::string& p : WrongVectors(*rt, 0, kSeedA, "a")) bad.push_back(p);
  for (const std::string& p : WrongVectors(*rt, 1, kSeedB, "b")) bad.push_back(p);
  for (const std::string& p : WrongFlags(*rt, 20, kFlagsA, "a")) bad.push_back(p);
  for (const std::string& p : WrongFlags(*rt, 24, kFlagsB, "b")) bad.push_back(p);
  return bad;
}

TEST(PerG_9_7_5, ExtendedStateBelongsToItsGoroutineOnOneP) {
  SKIP_WITHOUT_ASYNC();
  Problems p = CheckTwoGoroutinesOnOneP(TestOptions());
  EXPECT_TRUE(p.empty()) << Join(p);
}

// The same with the port's wider tier (amd64: YMM, or ZMM and K under
// AVX-512), where the P's scratch area is larger than the base tier's.
TEST(PerG_9_7_5, ExtendedStateBelongsToItsGoroutineOnOnePUnderSimd) {
  SKIP_WITHOUT_ASYNC();
  if (std::string why = NoSimdTier(); !why.empty()) GTEST_SKIP() << why;
  RuntimeOptions opts = TestOptions();
  opts.experiments.simd = true;
  Problems p = CheckTwoGoroutinesOnOneP(opts);
  EXPECT_TRUE(p.empty()) << Join(p);
  opts.mutations.shared_scratch = true;
  EXPECT_FALSE(CheckTwoGoroutinesOnOneP(opts).empty()) << "shared-scratch passed under simd";
}

TEST(PerG_9_7_5, CatchesSharedScratch) {
  SKIP_WITHOUT_ASYNC();
  Problems p = CheckTwoGoroutinesOnOneP(WithMutation(TestOptions(), "shared-scratch"));
  EXPECT_FALSE(p.empty()) << "a runtime that keeps extended state in the P's scratch area passed";
  Caught(p);
}

// --- extended state follows its goroutine to another P ----------------------

// Three spinners on two Ps, each with its own vectors (each loop starts
// with a safe point, as spin's below); the driver preempts
// every running one again and again until some goroutine has been resumed
// on a P other than the one it was preempted on (bounded), then lets them
// finish; each must still hold its own vectors. (Flags are not judged here:
// amd64's loop branch sets them.)
constexpr int kSpinners = 3;

std::string Spinners() {
  std::string main = "func main.main\n";
  std::string fns;
  for (int i = 0; i < kSpinners; i++) {
    std::string n = std::to_string(i);
    main += "  go main.s" + n + "\n";
    fns += "func main.s" + n + "\n  vfill " + std::to_string(0x3000 + i) + "\n  movi r1, 1\n  st g[" +
           std::to_string(10 + i) + "], r1\nloop:\n  addi r4, 1\n  ld r3, g[9]\n  jz r3, loop\n  vdump " + n + "\n  handshake " +
           std::to_string(30 + i) + "\n  ret\nend\n";
  }
  for (int i = 0; i < kSpinners; i++) main += "  wait " + std::to_string(30 + i) + "\n";
  return main + "  ret\nend\n" + fns;
}

// Whether some goroutine was resumed on another P than the one its last
// asynchronous preemption happened on.
bool Migrated(const std::vector<Event>& events, std::string* how) {
  std::map<int64_t, int> preempted_on;
  for (const Event& e : events) {
    if (e.kind == Ev::kPreemptAsync) preempted_on[e.goid] = e.p;
    if (e.kind == Ev::kResume && preempted_on.count(e.goid) && preempted_on[e.goid] != e.arg) {
      *how = "goroutine " + std::to_string(e.goid) + " preempted on P" + std::to_string(preempted_on[e.goid]) +
             ", resumed on P" + std::to_string(e.arg);
      return true;
    }
  }
  return false;
}

Problems CheckMigration(RuntimeOptions opts) {
  Problems bad;
  opts.settings.gomaxprocs = 2;
  std::string how;
  Outcome o = RunScenario(Spinners(), std::move(opts), [&](Runtime& rt) {
    int polls = 0;
    // The Ps exist once a spinner has run.
    if (!WaitFor([&] { return rt.global(10) + rt.global(11) + rt.global(12) > 0; })) {
      bad.push_back("waited 60 s for a spinner to start");
    } else if (!WaitFor([&] {
          for (int i = 0; i < kSpinners; i++)
            if (rt.global(10 + i) == 0) {
              // Two Ps, three spinners: move them along until each started.
              if (polls++ % 20 == 0) {
                rt.preemptone(rt.p(0), Source::kTest);
                rt.preemptone(rt.p(1), Source::kTest);
              }
              return false;
            }
          return true;
        })) {
      bad.push_back("waited 60 s for every spinner to start");
    } else {
      int rounds = 0;
      while (!Migrated(rt.events().Snapshot(), &how) && rounds++ < 500) {
        size_t before = rt.events().Count(Ev::kPreemptAsync);
        rt.preemptone(rt.p(0), Source::kTest);
        rt.preemptone(rt.p(1), Source::kTest);
        WaitFor([&] { return rt.events().Count(Ev::kPreemptAsync) > before; }, 10);
      }
      if (how.empty()) bad.push_back("no goroutine resumed on another P in 500 rounds of requests");
    }
    rt.set_global(9, 1);
  });
  if (!o.ok) bad.push_back("run: " + o.error);
  if (!o.ok || how.empty()) return bad;
  for (int i = 0; i < kSpinners; i++)
    for (const std::string& p : WrongVectors(*o.rt, i, 0x3000 + i, "s" + std::to_string(i))) bad.push_back(p);
  if (!bad.empty()) bad.push_back("(" + how + ")");
  return bad;
}

TEST(PerG_9_7_5, ExtendedStateFollowsItsGoroutineToAnotherP) {
  SKIP_WITHOUT_ASYNC();
  Problems p = CheckMigration(TestOptions());
  EXPECT_TRUE(p.empty()) << Join(p);
}

// --- a request is used up ---------------------------------------------------

// Each loop starts with an operation that is a safe point on every port:
// under QEMU a signal arrives between translation blocks, at the loop's
// head, and on riscv64 a load of a global is an unsafe point (REGTMP).
//
// spin loops without calls until g[11]; from g[14] on, each iteration also
// takes and drops a runtime lock and calls a non-leaf (a prologue check).
const std::string kUsedUp =
    SpinProgram("  ld r3, g[14]\n  jz r3, skip\n  acquirem\n  releasem\n  call main.nonleaf\nskip:");

constexpr int kBareSignals = 5;

size_t Preemptions(const std::vector<Event>& ev, int64_t goid) {
  size_t n = 0;
  for (const Event& e : ev) n += e.goid == goid && (e.kind == Ev::kPreemptAsync || e.kind == Ev::kPreemptSync);
  return n;
}

// Requests preemption of spin, again only after a request was refused (an
// unsafe point) or lost without a signal, never while one may still be
// taking effect: so no request can reach spin after its preemption.
bool RequestOnce(Runtime& rt) {
  for (int attempt = 0; attempt < 200; attempt++) {
    size_t refused = rt.events().Count(Ev::kAsyncRefuse) + rt.events().Count(Ev::kDeferred);
    rt.preemptone(rt.p(0), Source::kTest);
    if (WaitFor([&] { return Preemptions(rt.events().Snapshot(), kFirstG) >= 1; }, 0.2)) return true;
    // Not yet: ask again only if it was refused; else give it longer.
    if (rt.events().Count(Ev::kAsyncRefuse) + rt.events().Count(Ev::kDeferred) == refused &&
        WaitFor([&] { return Preemptions(rt.events().Snapshot(), kFirstG) >= 1; }, 10))
      return true;
  }
  return false;
}

// One request preempts spin; once it runs again, bare SIGURGs (no request)
// must each be refused as "no request", and releasem must re-arm nothing.
Problems CheckRequestUsedUp(RuntimeOptions opts) {
  Problems bad;
  opts.settings.gomaxprocs = 1;
  bool async = NativePort().async_preemption();
  Outcome o = RunScenario(kUsedUp, std::move(opts), [&](Runtime& rt) {
    auto advanced = [&](uint64_t n) {
      uint64_t from = rt.global(12);
      return WaitFor([&] { return rt.global(12) >= from + n; }, 30);
    };
    // Without asynchronous preemption only the loop with calls can stop.
    if (!async) rt.set_global(14, 1);
    if (!WaitFor([&] { return rt.global(10) == 1; })) {
      bad.push_back("waited 60 s for spin to start");
    } else if (!RequestOnce(rt)) {
      bad.push_back("spin was not preempted (200 requests, each refused or lost)");
    } else if (!advanced(100)) {
      bad.push_back("spin did not run again after its preemption (30 s)");
    } else {
      M* m = rt.p(0)->m.load();
      for (int i = 0; async && m != nullptr && i < kBareSignals; i++) {
        size_t before = rt.events().Count(Ev::kSigNoRequest) + rt.events().Count(Ev::kAsyncAccept) +
                        rt.events().Count(Ev::kAsyncRefuse);
        syscall(SYS_tgkill, getpid(), m->tid, SIGURG);
        if (!WaitFor([&] {
              return rt.events().Count(Ev::kSigNoRequest) + rt.events().Count(Ev::kAsyncAccept) +
                         rt.events().Count(Ev::kAsyncRefuse) > before;
            }, 30))
          bad.push_back("the bare SIGURG was never handled (30 s)");
        if (!advanced(10)) bad.push_back("spin did not run on after a bare SIGURG (30 s)");
      }
      rt.set_global(14, 1);  // acquirem, releasem and a prologue check every iteration
      if (!advanced(100)) bad.push_back("spin did not run on with releasem and calls (30 s)");
    }
    rt.set_global(11, 1);
  });
  if (!o.ok) bad.push_back("run: " + o.error);
  if (!bad.empty()) return bad;
  size_t n = Preemptions(o.events, kFirstG);
  if (n != 1) bad.push_back("spin preempted " + std::to_string(n) + " times for one request");
  if (async && o.Count(Ev::kSigNoRequest, kFirstG, Reason::kNoRequest) < static_cast<size_t>(kBareSignals))
    bad.push_back("only " + std::to_string(o.Count(Ev::kSigNoRequest, kFirstG, Reason::kNoRequest)) + " of " +
                  std::to_string(kBareSignals) + " bare SIGURGs after the preemption were refused as no request");
  size_t accepted_late = 0;
  bool seen_preempt = false;
  for (const Event& e : o.events) {
    if (e.goid == kFirstG && (e.kind == Ev::kPreemptAsync || e.kind == Ev::kPreemptSync)) seen_preempt = true;
    accepted_late += seen_preempt && e.kind == Ev::kAsyncAccept;
  }
  if (accepted_late) bad.push_back(std::to_string(accepted_late) + " SIGURGs accepted after the request was used");
  if (o.Count(Ev::kRearm) != 0) bad.push_back("releasem re-armed " + std::to_string(o.Count(Ev::kRearm)) + " times");
  return bad;
}

TEST(PerG_9_7_5, ARequestIsUsedUpByItsPreemption) {
  Problems p = CheckRequestUsedUp(TestOptions());
  EXPECT_TRUE(p.empty()) << Join(p);
}

TEST(PerG_9_7_5, CatchesALiveRequest) {
  Problems p = CheckRequestUsedUp(WithMutation(TestOptions(), "live-request"));
  EXPECT_FALSE(p.empty()) << "a runtime whose requests outlive their preemption passed";
  Caught(p);
}

}  // namespace
}  // namespace safepoint::conformance
