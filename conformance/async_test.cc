// Conformance: asynchronous preemption (chapter 9.7.5) and the stop-the-world
// and forEachP sources (9.7.6). Every port; a port that declares
// asynchronous preemption missing skips, saying so.
//
// Each refusal rule has a negative test (the rule holds: every one of N
// real requests, each a SIGURG sent with tgkill to a real M running a real
// G, is refused with that rule and none accepted) and a twin (the same code
// with the condition lifted is accepted). Requests are delivered at one
// exact instruction by armed delivery: a breakpoint there, and the trap
// handler sends the signal, so the handler sees exactly that PC.
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstring>
#include <map>
#include <mutex>
#include <thread>
#include <set>
#include <string>

#include <gtest/gtest.h>

#include "harness/armed.h"
#include "harness/mutations.h"
#include "harness/scenario.h"
#include "oracle/save_area.h"
#include "conformance/bounded.h"
#include "conformance/checks.h"
#include "conformance/rules.h"
#include "platforms/emitter.h"
#include "platforms/native.h"

namespace safepoint::conformance {
using namespace ::safepoint::harness;
namespace {

using Async_9_7_5 = RuleTest;
using Async_9_7_6 = RuleTest;

constexpr int kRounds = 20;


struct Armed {
  Outcome o;
  uintptr_t target = 0;  // absolute PC armed each round
  size_t accepted = 0, refused = 0, traps = 0;
  std::map<Reason, size_t> reasons;
};

// Where to arm, once the program is loaded: a code offset (0: none).
using Locator = std::function<uint32_t(const Runtime&, const ir::Program&)>;

// Runs `text`: main.main runs `rounds` times through the instruction at
// `where`; before each round the instruction is armed (callback 0), so
// every round delivers one SIGURG exactly there.
Armed RunArmedAt(const std::string& text, const Locator& where, RuntimeOptions opts = TestOptions(),
                 std::function<void(Runtime&)> driver = nullptr) {
  Armed a;
  ir::Program prog;
  std::string err;
  if (!ir::ParseProgram(text, &prog, &err)) {
    ADD_FAILURE() << err;
    return a;
  }
  uint32_t target = 0;
  opts.hooks.callbacks.resize(std::max<size_t>(opts.hooks.callbacks.size(), 1));
  opts.hooks.callbacks[0] = [&](Runtime& rt, G*) {
    std::string e;
    if (!harness::Armed() && !harness::Arm(rt, target, &e)) ADD_FAILURE() << e;
  };
  a.o.rt = std::make_unique<Runtime>(std::move(opts));
  if (!a.o.rt->Load(prog, &err)) {
    ADD_FAILURE() << err;
    return a;
  }
  target = where(*a.o.rt, prog);
  EXPECT_NE(target, 0u) << "nowhere to arm";
  {
    DriverThread t(*a.o.rt, std::move(driver));
    a.o.ok = a.o.rt->Run("main.main", &a.o.error);
    t.Returned();
  }
  EXPECT_TRUE(a.o.ok) << a.o.error;
  a.o.events = a.o.rt->events().Snapshot();
  a.target = a.o.rt->code_base() + target;
  for (const Event& e : a.o.events) {
    if (e.pc != a.target) continue;
    if (e.kind == Ev::kTrap) a.traps++;
    if (e.kind == Ev::kAsyncAccept) a.accepted++;
    if (e.kind == Ev::kAsyncRefuse) a.refused++, a.reasons[e.reason]++;
  }
  for (const Event& e : a.o.events)
    if (e.kind == Ev::kAsyncRefuse) ObserveRefusal(e.reason);
  return a;
}

// The same, armed at the instruction labelled `target:` in function `fn`.
Armed RunArmed(const std::string& text, const std::string& fn, RuntimeOptions opts = TestOptions(),
               std::function<void(Runtime&)> driver = nullptr) {
  return RunArmedAt(
      text, [fn](const Runtime& rt, const ir::Program& p) { return LabelOffset(rt.table(), p, fn, "target"); },
      std::move(opts), std::move(driver));
}

// main.main with `pre` before the loop and `post` after it; the loop body
// is `body`, whose first operation carries the `target:` label.
std::string Looping(const std::string& pre, const std::string& body, const std::string& post,
                    const std::string& extra = "", const std::string& attrs = "") {
  return "func main.main frame=16 " + attrs + "\n" + pre + "\n  movi r5, " + std::to_string(kRounds) +
         "\n  stslot 0, r5\nloop:\n  callback 0\ntarget:\n" + body +
         "\n  ldslot r5, 0\n  addi r5, -1\n  stslot 0, r5\n  jnz r5, loop\n" + post + "\n  ret\nend\n" + extra;
}

constexpr const char* kBody = "  addi r1, 3\n  add r2, r1";

void ExpectRefused(const Armed& a, Reason r) {
  EXPECT_EQ(a.traps, static_cast<size_t>(kRounds)) << "every round delivered a request at the target";
  EXPECT_EQ(a.refused, static_cast<size_t>(kRounds)) << ReasonName(r);
  EXPECT_EQ(a.accepted, 0u) << ReasonName(r);
  EXPECT_EQ(a.reasons.count(r) ? a.reasons.at(r) : 0u, static_cast<size_t>(kRounds))
      << "refused for " << ReasonName(r) << ", the first failing rule";
  EXPECT_GE(a.o.Count(Ev::kSignalSent), static_cast<size_t>(kRounds)) << "real tgkill-delivered signals";
}

void ExpectAccepted(const Armed& a) {
  EXPECT_EQ(a.traps, static_cast<size_t>(kRounds));
  EXPECT_EQ(a.accepted, static_cast<size_t>(kRounds));
  EXPECT_EQ(a.refused, 0u);
  EXPECT_GE(a.o.Count(Ev::kPreemptAsync, kMainG), static_cast<size_t>(kRounds)) << "asyncPreempt2 ran each time";
}

// --- canPreemptM, asynchronously ------------------------------------------

RULE_TEST(Async_9_7_5, RefusedWhileMLocksHeld, Reason::kMLocks) {
  SKIP_WITHOUT_ASYNC();
  ExpectRefused(RunArmed(Looping("  acquirem", kBody, "  releasem"), "main.main"), Reason::kMLocks);
}
RULE_TEST(Async_9_7_5, RefusedWhileMallocing, Reason::kMMallocing) {
  SKIP_WITHOUT_ASYNC();
  ExpectRefused(RunArmed(Looping("  mallocing_begin", kBody, "  mallocing_end"), "main.main"), Reason::kMMallocing);
}
RULE_TEST(Async_9_7_5, RefusedUnderPreemptoff, Reason::kMPreemptoff) {
  SKIP_WITHOUT_ASYNC();
  ExpectRefused(RunArmed(Looping("  preemptoff_begin", kBody, "  preemptoff_end"), "main.main"),
                Reason::kMPreemptoff);
}
// The P stops running under the goroutine (callback 1 marks it _Pgcstop, as
// when the world is being stopped; callback 2 gives it back).
RULE_TEST(Async_9_7_5, RefusedWhenPNotRunning, Reason::kPNotRunning) {
  SKIP_WITHOUT_ASYNC();
  RuntimeOptions opts = TestOptions();
  opts.hooks.callbacks.resize(3);
  opts.hooks.callbacks[1] = [](Runtime&, G* gp) { gp->m->p->status.store(_Pgcstop); };
  opts.hooks.callbacks[2] = [](Runtime&, G* gp) { gp->m->p->status.store(_Prunning); };
  ExpectRefused(RunArmed(Looping("  callback 1", kBody, "  callback 2"), "main.main", opts), Reason::kPNotRunning);
}
TEST_F(Async_9_7_5, AcceptedOnceTheConditionIsLifted) {
  SKIP_WITHOUT_ASYNC();
  // The twin of the four above: the same loop outside any region.
  ExpectAccepted(RunArmed(Looping("  acquirem\n  releasem", kBody, ""), "main.main"));
}

// --- not the M's current user goroutine -----------------------------------

// A request whose signal lands while the M runs the runtime on g0 (here:
// inside a systemstack callback) is refused; the same request landing in
// the goroutine's own code is accepted.
RULE_TEST(Async_9_7_5, RefusedWhenTheMIsOnG0, Reason::kNotCurg) {
  SKIP_WITHOUT_ASYNC();
  RuntimeOptions opts = TestOptions();
  opts.hooks.callbacks.resize(2);
  opts.hooks.callbacks[0] = [](Runtime&, G*) {};
  opts.hooks.callbacks[1] = [](Runtime& rt, G* gp) {
    gp->preempt.store(true);
    rt.preemptM(gp->m);  // arrives before tgkill returns: the PC is in the runtime
  };
  Outcome o = RunScenario(Looping("", "  callback 1", ""), std::move(opts));
  ASSERT_TRUE(o.ok) << o.error;
  size_t refused = o.Count(Ev::kAsyncRefuse, kMainG, Reason::kNotCurg);
  for (const Event& e : o.events)
    if (e.kind == Ev::kAsyncRefuse) ObserveRefusal(e.reason);
  EXPECT_EQ(refused, static_cast<size_t>(kRounds));
  EXPECT_EQ(o.Count(Ev::kAsyncAccept), 0u);
  EXPECT_GE(o.Count(Ev::kSignalSent), static_cast<size_t>(kRounds));
}

// --- runtimesecret ----------------------------------------------------------

RULE_TEST(Async_9_7_5, RefusedInASecretRegionUnderRuntimesecret, Reason::kSecret) {
  SKIP_WITHOUT_ASYNC();
  RuntimeOptions opts = TestOptions();
  opts.experiments.runtimesecret = true;
  ExpectRefused(RunArmed(Looping("  secret_begin", kBody, "  secret_end"), "main.main", opts), Reason::kSecret);
}
TEST_F(Async_9_7_5, SecretRegionAcceptedWithoutTheExperiment) {
  SKIP_WITHOUT_ASYNC();
  ExpectAccepted(RunArmed(Looping("  secret_begin", kBody, "  secret_end"), "main.main"));
}

// --- room for the injected call ------------------------------------------

// A nosplit function with as large a frame as the nosplit limit allows
// (792 bytes and its return address: 800), on a small stack, leaves less
// than asyncPreemptStack below SP: refused for the stack before anything
// else.
// The twin: the same call instruction with the default stack is accepted.
std::string StackProgram() {
  return Looping("", "  call main.deep", "", R"(
func main.deep nosplit frame=792
  movi r1, 1
  call main.leaf
  ret
end
func main.leaf
  addi r0, 1
  ret
end
)");
}
RULE_TEST(Async_9_7_5, RefusedWithoutRoomForTheInjectedCall, Reason::kStack) {
  SKIP_WITHOUT_ASYNC();
  std::string prog = StackProgram();
  // Arm the call in main.deep, where SP - stack.lo < asyncPreemptStack.
  size_t pos = prog.find("  call main.leaf");
  prog.insert(pos, "target:\n");
  prog.replace(prog.find("target:\n  call main.deep"), 8, "");
  RuntimeOptions opts = TestOptions();
  opts.hooks.initial_stack = 1024;
  ExpectRefused(RunArmed(prog, "main.deep", opts), Reason::kStack);
}
TEST_F(Async_9_7_5, NosplitCallAcceptedWithRoom) {
  SKIP_WITHOUT_ASYNC();
  std::string prog = StackProgram();
  size_t pos = prog.find("  call main.leaf");
  prog.insert(pos, "target:\n");
  prog.replace(prog.find("target:\n  call main.deep"), 8, "");
  ExpectAccepted(RunArmed(prog, "main.deep"));
}

// --- not Go code, assembly -------------------------------------------------

// main.main's loop calls main.f (with `attrs`), whose second operation is the target.
std::string CalleeProgram(const std::string& attrs) {
  std::string p =
      Looping("", "  call main.f", "", "func main.f " + attrs + "\n  movi r1, 5\ntarget:\n  addi r1, 1\n  ret\nend\n");
  p.replace(p.find("target:\n  call main.f"), 8, "");
  return p;
}
RULE_TEST(Async_9_7_5, RefusedInForeignCode, Reason::kNotGo) {
  SKIP_WITHOUT_ASYNC();
  ExpectRefused(RunArmed(CalleeProgram("nongo"), "main.f"), Reason::kNotGo);
}
RULE_TEST(Async_9_7_5, RefusedInAnAssemblyFunction, Reason::kAsm) {
  SKIP_WITHOUT_ASYNC();
  ExpectRefused(RunArmed(CalleeProgram("asm"), "main.f"), Reason::kAsm);
}
TEST_F(Async_9_7_5, AcceptedInTheSameFunctionAsGo) {
  SKIP_WITHOUT_ASYNC();
  ExpectAccepted(RunArmed(CalleeProgram(""), "main.f"));
}

// --- compiler-marked unsafe points ---------------------------------------------

RULE_TEST(Async_9_7_5, RefusedAtAnAtomicSequence, Reason::kUnsafePoint) {
  SKIP_WITHOUT_ASYNC();
  ExpectRefused(RunArmed(Looping("", "  atomic_add g[5], r1", ""), "main.main"), Reason::kUnsafePoint);
}
RULE_TEST(Async_9_7_5, RefusedInAWriteBarrierSequence, Reason::kUnsafePoint) {
  SKIP_WITHOUT_ASYNC();
  ExpectRefused(RunArmed(Looping("", "  wb_store g[6], r1", ""), "main.main"), Reason::kUnsafePoint);
}
RULE_TEST(Async_9_7_5, RefusedInTheStackCheckPrologue, Reason::kUnsafePoint) {
  SKIP_WITHOUT_ASYNC();
  // The target is main.g's entry: its stack check.
  std::string prog = Looping("", "  call main.g", "", "func main.g frame=16\ntarget:\n  call main.h\n  ret\nend\n"
                                                      "func main.h\n  addi r0, 1\n  ret\nend\n");
  prog.replace(prog.find("target:\n  call main.g"), 8, "");
  ir::Program p;
  std::string err;
  ASSERT_TRUE(ir::ParseProgram(prog, &p, &err)) << err;
  // LabelOffset gives main.g's first body instruction; the check precedes it:
  // arm the entry instead.
  RuntimeOptions opts = TestOptions();
  Armed a;
  uint32_t entry = 0;
  opts.hooks.callbacks.resize(1);
  opts.hooks.callbacks[0] = [&](Runtime& rt, G*) {
    std::string e;
    if (!harness::Armed() && !harness::Arm(rt, entry, &e)) ADD_FAILURE() << e;
  };
  a.o.rt = std::make_unique<Runtime>(std::move(opts));
  ASSERT_TRUE(a.o.rt->Load(p, &err)) << err;
  entry = a.o.rt->table().Find("main.g")->entry;
  ASSERT_TRUE(RunBounded(*a.o.rt, "main.main", &err)) << err;
  size_t refused = 0, accepted = 0;
  for (const Event& e : a.o.rt->events().Snapshot()) {
    if (e.pc != a.o.rt->code_base() + entry) continue;
    if (e.kind == Ev::kAsyncRefuse) {
      EXPECT_EQ(e.reason, Reason::kUnsafePoint);
      ObserveRefusal(e.reason);
      refused++;
    }
    accepted += e.kind == Ev::kAsyncAccept;
  }
  EXPECT_EQ(refused, static_cast<size_t>(kRounds));
  EXPECT_EQ(accepted, 0u);
}
TEST_F(Async_9_7_5, AcceptedNextToAnUnsafeSequence) {
  SKIP_WITHOUT_ASYNC();
  ExpectAccepted(RunArmed(Looping("", "  addi r1, 1\n  atomic_add g[5], r1", ""), "main.main"));
}

RULE_TEST(Async_9_7_5, RefusedInANosplitFunctionAwayFromCalls, Reason::kNosplit) {
  SKIP_WITHOUT_ASYNC();
  ExpectRefused(RunArmed(CalleeProgram("nosplit"), "main.f"), Reason::kNosplit);
}

// REGTMP used explicitly outside a restartable sequence (ports with REGTMP).
RULE_TEST(Async_9_7_5, RefusedAtAnExplicitRegtmpUse, Reason::kUnsafePoint) {
  SKIP_WITHOUT_ASYNC();
  if (NativePort().regtmp_reg.empty()) {
    // Without REGTMP the same operation is an ordinary safe point.
    ExpectAccepted(RunArmed(Looping("", "  usetmp r1", ""), "main.main"));
    NotObservableHere();
    return;
  }
  ExpectRefused(RunArmed(Looping("", "  usetmp r1", ""), "main.main"), Reason::kUnsafePoint);
}

// --- runtime, internal/runtime, reflect -------------------------------------

RULE_TEST(Async_9_7_5, RefusedInAnInlinedRuntimeBody, Reason::kRuntimePkg) {
  SKIP_WITHOUT_ASYNC();
  ExpectRefused(RunArmed(Looping("", "  inline runtime.add\n  addi r1, 2\n  endinline", ""), "main.main"),
                Reason::kRuntimePkg);
}
RULE_TEST(Async_9_7_5, RefusedInInternalRuntimeAndReflect, Reason::kRuntimePkg) {
  SKIP_WITHOUT_ASYNC();
  ExpectRefused(RunArmed(Looping("", "  inline internal/runtime/atomic.Xadd\n  addi r1, 2\n  endinline", ""), "main.main"),
                Reason::kRuntimePkg);
  ExpectRefused(RunArmed(Looping("", "  inline reflect.Value.call\n  addi r1, 2\n  endinline", ""), "main.main"),
                Reason::kRuntimePkg);
}
RULE_TEST(Async_9_7_5, RefusedInANonInlinedRuntimeFunction, Reason::kRuntimePkg) {
  SKIP_WITHOUT_ASYNC();
  std::string p = Looping("", "  call runtime.helper", "",
                          "func runtime.helper\n  movi r1, 5\ntarget:\n  addi r1, 1\n  ret\nend\n");
  p.replace(p.find("target:\n  call runtime.helper"), 8, "");
  ExpectRefused(RunArmed(p, "runtime.helper"), Reason::kRuntimePkg);
}
TEST_F(Async_9_7_5, AcceptedInAnInlinedUserBody) {
  SKIP_WITHOUT_ASYNC();
  ExpectAccepted(RunArmed(Looping("", "  inline main.add\n  addi r1, 2\n  endinline", ""), "main.main"));
  // Inlined runtime code inside user code ends where the inlined body ends.
  ExpectAccepted(RunArmed(Looping("  inline runtime.add\n  addi r1, 2\n  endinline", kBody, ""), "main.main"));
}

// --- the inline tree, three deep ---------------------------------------------


// main.main's loop holds `outer` > `mid` > `inner`, inlined into each other,
// with an instruction at every level before and after its child. Each is
// armed in turn: refused exactly where the innermost body at that PC is in
// the runtime package.
Problems CheckInlineTree(const std::string& outer, const std::string& mid, const std::string& inner,
                         const RuntimeOptions& opts) {
  std::string body = "  inline " + outer + "\n  addi r1, 1\n  inline " + mid + "\n  addi r1, 2\n  inline " + inner +
                     "\n  addi r1, 3\n  endinline\n  addi r1, 4\n  endinline\n  addi r1, 5\n  endinline";
  struct Point {
    const char* where;
    const std::string* body;  // the innermost body there
    bool after;               // the first instruction after body's child ends, or body's first
    const std::string* child;
  };
  const Point points[] = {
      {"first of", &outer, false, nullptr}, {"first of", &mid, false, nullptr}, {"first of", &inner, false, nullptr},
      {"after the child of", &mid, true, &inner}, {"after the child of", &outer, true, &mid},
  };
  Problems bad;
  for (const Point& pt : points) {
    Locator at = [&](const Runtime& rt, const ir::Program&) -> uint32_t {
      const FuncInfo* f = rt.table().Find("main.main");
      const std::string& name = pt.after ? *pt.child : *pt.body;
      for (const FuncInfo::Inline& in : f->inlines)
        if (in.name == name) return pt.after ? in.hi : in.lo;
      return 0;
    };
    Armed a = RunArmedAt(Looping("", body, ""), at, opts);
    bool runtime = pt.body->rfind("runtime.", 0) == 0;  // the bodies named above
    std::string where = std::string(pt.where) + " " + *pt.body + " (" + outer + " > " + mid + " > " + inner + ")";
    if (a.traps != static_cast<size_t>(kRounds)) bad.push_back(where + ": armed instruction not reached each round");
    if (runtime && (a.accepted != 0 || a.reasons[Reason::kRuntimePkg] != static_cast<size_t>(kRounds)))
      bad.push_back(where + ": accepted " + std::to_string(a.accepted) + " of " + std::to_string(kRounds) +
                    " (the innermost body is the runtime's)");
    if (!runtime && a.accepted != static_cast<size_t>(kRounds))
      bad.push_back(where + ": refused " + std::to_string(a.refused) + " of " + std::to_string(kRounds) +
                    " (the innermost body is user code)");
  }
  return bad;
}

Problems CheckInlineTrees(const RuntimeOptions& opts) {
  Problems bad = CheckInlineTree("runtime.outer", "main.mid", "main.inner", opts);
  for (const std::string& p : CheckInlineTree("main.outer", "main.mid", "runtime.inner", opts)) bad.push_back(p);
  for (const std::string& p : CheckInlineTree("main.outer", "runtime.mid", "main.inner", opts)) bad.push_back(p);
  return bad;
}

TEST_F(Async_9_7_5, TheInnermostBodyOfAThreeDeepInlineTreeDecides) {
  SKIP_WITHOUT_ASYNC();
  Problems p = CheckInlineTrees(TestOptions());
  EXPECT_TRUE(p.empty()) << Join(p);
}

TEST_F(Async_9_7_5, CatchesTheOutermostInlinedBody) {
  SKIP_WITHOUT_ASYNC();
  RuntimeOptions opts = TestOptions();
  opts = WithMutation(opts, "outermost-inline");
  Problems p = CheckInlineTrees(opts);
  EXPECT_FALSE(p.empty()) << "a runtime that reads the inline tree's outermost body passed";
  Caught(p);
}

// --- the stack-room rule at its boundary -------------------------------------

// isAsyncSafePoint, asked on the goroutine's own M (a callback on g0, with
// the goroutine as curg) about a PC in its code, with SP exactly
// asyncPreemptStack above stack.lo and a byte or a word either side:
// refused for the stack below, accepted from exactly asyncPreemptStack.
Problems CheckStackRoomBoundary(RuntimeOptions opts) {
  Problems bad;
  ir::Program prog;
  std::string err;
  const std::string text = "func main.main frame=16\n  callback 0\ntarget:\n  addi r1, 1\n  ret\nend\n";
  if (!ir::ParseProgram(text, &prog, &err)) return {err};
  uint32_t target = 0;
  opts.hooks.callbacks = {[&](Runtime& rt, G* gp) {
    uintptr_t pc = rt.code_base() + target;
    for (int delta : {-8, -1, 0, 1, 8}) {
      uintptr_t sp = gp->stack.lo + rt.asyncPreemptStack() + delta;
      Runtime::AsyncDecision d = rt.isAsyncSafePoint(gp, pc, sp, reinterpret_cast<uintptr_t>(gp));
      std::string at = "SP = stack.lo + asyncPreemptStack " + std::string(delta < 0 ? "- " : "+ ") +
                       std::to_string(delta < 0 ? -delta : delta);
      if (delta < 0 && (d.ok || d.reason != Reason::kStack))
        bad.push_back(at + ": " + (d.ok ? "accepted" : std::string("refused for ") + ReasonName(d.reason)) +
                      " (want refused for the stack)");
      if (delta >= 0 && !d.ok)
        bad.push_back(at + ": refused for " + std::string(ReasonName(d.reason)) + " (want accepted)");
    }
  }};
  Runtime rt(std::move(opts));
  if (!rt.Load(prog, &err)) return {err};
  target = LabelOffset(rt.table(), prog, "main.main", "target");
  if (!RunBounded(rt, "main.main", &err)) bad.push_back("run: " + err);
  return bad;
}

TEST_F(Async_9_7_5, StackRoomFlipsExactlyAtAsyncPreemptStack) {
  SKIP_WITHOUT_ASYNC();
  Problems p = CheckStackRoomBoundary(TestOptions());
  EXPECT_TRUE(p.empty()) << Join(p);
}

TEST_F(Async_9_7_5, CatchesStackRoomOffByOneWord) {
  SKIP_WITHOUT_ASYNC();
  RuntimeOptions opts = TestOptions();
  opts = WithMutation(opts, "stack-room-off-by-one");
  Problems p = CheckStackRoomBoundary(opts);
  EXPECT_FALSE(p.empty()) << "a stack-room rule one word short passed";
  Caught(p);
}

// --- the restart window at its boundary ----------------------------------------

// Go's rule: a restart start more than 20 bytes before the interrupted PC
// is a "bad restart PC" (a throw).
constexpr uintptr_t kChapterRestartWindow = 20;

// A 40-byte restartable sequence laid over main.main's body (a table no
// emitter makes: the ports' sequences are shorter), and isAsyncSafePoint
// asked, on the goroutine's own M, about the PC `back` bytes into it.
Runtime::AsyncDecision AskInLongSequence(uint32_t back, uintptr_t* start) {
  std::string text = "func main.main frame=16\n  callback 0\ntarget:\n";
  for (int i = 0; i < 16; i++) text += "  addi r1, 1\n";
  text += "  ret\nend\n";
  ir::Program prog;
  std::string err;
  EXPECT_TRUE(ir::ParseProgram(text, &prog, &err)) << err;
  uint32_t lo = 0;
  Runtime::AsyncDecision d{false, 0, Reason::kNone};
  RuntimeOptions opts = TestOptions();
  opts.hooks.edit_table = [&](FuncTable& t) {
    lo = LabelOffset(t, prog, "main.main", "target");
    for (FuncInfo& f : t.funcs)
      if (f.name == "main.main") f.restarts.push_back({lo, lo + 40, -3});
  };
  opts.hooks.callbacks = {[&](Runtime& rt, G* gp) {
    *start = rt.code_base() + lo;
    d = rt.isAsyncSafePoint(gp, *start + back, gp->stack.hi - 64, reinterpret_cast<uintptr_t>(gp));
  }};
  Runtime rt(std::move(opts));
  EXPECT_TRUE(rt.Load(prog, &err)) << err;
  EXPECT_TRUE(RunBounded(rt, "main.main", &err)) << err;
  return d;
}

TEST_F(Async_9_7_5, TheRestartWindowIs20Bytes) {
  SKIP_WITHOUT_ASYNC();
  if (!NativePort().model.regtmp_restartable)
    GTEST_SKIP() << "port " << NativePort().name << " declares no restartable sequences (PortModel::regtmp_restartable)";
  uintptr_t start = 0;
  Runtime::AsyncDecision d = AskInLongSequence(kChapterRestartWindow, &start);
  EXPECT_TRUE(d.ok) << "refused for " << ReasonName(d.reason);
  EXPECT_EQ(d.resume, start) << "20 bytes in: resumed at the sequence's start";
  uint32_t beyond = kChapterRestartWindow + NativePort().insn_align;
  EXPECT_EXIT(AskInLongSequence(beyond, &start), ::testing::ExitedWithCode(2), "fatal error: bad restart PC")
      << beyond << " bytes in";
}

// --- restarts ------------------------------------------------------------------

TEST_F(Async_9_7_5, RestartAtEntry) {
  SKIP_WITHOUT_ASYNC();
  std::string p = CalleeProgram("restartatentry");
  Armed a = RunArmed(p, "main.f");
  EXPECT_EQ(a.accepted, static_cast<size_t>(kRounds));
  const FuncInfo* f = a.o.rt->table().Find("main.f");
  for (const Event& e : a.o.events)
    if (e.kind == Ev::kAsyncAccept && e.pc == a.target)
      EXPECT_EQ(static_cast<uintptr_t>(e.arg), a.o.rt->code_base() + f->entry) << "resumed at the function entry";
}

TEST_F(Async_9_7_5, NoRestartableSequencesWhereThePortDeclaresNone) {
  if (NativePort().model.regtmp_restartable)
    GTEST_SKIP() << "port " << NativePort().name << " declares its REGTMP expansions restartable sequences";
  ir::Program p;
  std::string err;
  ASSERT_TRUE(ir::ParseProgram(Looping("  ld r1, g[3]\n  muli r1, 100000\n  dumpregs 20", kBody, "  vdump 0"), &p, &err));
  Runtime rt(TestOptions());
  ASSERT_TRUE(rt.Load(p, &err)) << err;
  for (const FuncInfo& f : rt.table().funcs) EXPECT_TRUE(f.restarts.empty()) << f.name;
}

// --- the signal itself --------------------------------------------------------

// Go issue 38531: with asyncpreemptoff=1 no SIGURG preempts, not even one
// sent from outside while a cooperative request is pending.
TEST_F(Async_9_7_5, AsyncpreemptoffRefusesEvenAnExternalSignal) {
  RuntimeOptions opts = TestOptions();
  opts.settings.godebug = "asyncpreemptoff=1";
  opts.hooks.callbacks.resize(2);
  opts.hooks.callbacks[0] = [](Runtime&, G*) {};
  opts.hooks.callbacks[1] = [](Runtime&, G* gp) {
    gp->preempt.store(true);
    gp->stackguard0.store(kStackPreempt);
    syscall(SYS_tgkill, getpid(), gp->m->tid, SIGURG);
  };
  Outcome o = RunScenario(Looping("", "  callback 1", ""), std::move(opts));
  ASSERT_TRUE(o.ok) << o.error;
  EXPECT_EQ(o.Count(Ev::kSigNoRequest, -1, Reason::kAsyncOff), static_cast<size_t>(kRounds));
  EXPECT_EQ(o.Count(Ev::kAsyncAccept), 0u);
  EXPECT_EQ(o.Count(Ev::kPreemptAsync), 0u);
}

// A SIGURG with no request pending changes nothing.
TEST_F(Async_9_7_5, ASignalWithoutARequestChangesNothing) {
  RuntimeOptions opts = TestOptions();
  opts.hooks.callbacks.resize(2);
  opts.hooks.callbacks[0] = [](Runtime&, G*) {};
  opts.hooks.callbacks[1] = [](Runtime&, G* gp) { syscall(SYS_tgkill, getpid(), gp->m->tid, SIGURG); };
  // r1 lives in a slot across the callback: a call clobbers every register
  // (on amd64 r1 is RBX, which C++ happens to preserve; on arm64 X1 is not).
  std::string prog = Looping("  fillregs 100\n  stslot 8, r1", "  callback 1\n  ldslot r1, 8\n  addi r1, 1\n  stslot 8, r1",
                             "  dumpregs 20");
  Outcome o = RunScenario(prog, std::move(opts));
  ASSERT_TRUE(o.ok) << o.error;
  EXPECT_EQ(o.Count(Ev::kSigNoRequest, -1, Reason::kNoRequest), static_cast<size_t>(kRounds));
  EXPECT_EQ(o.Count(Ev::kAsyncAccept), 0u);
  EXPECT_EQ(o.rt->global(21), 101u + kRounds);
}

// preemptM: at most one signal pending per M.
TEST_F(Async_9_7_5, PreemptMSendsOneSignalAtATime) {
  SKIP_WITHOUT_ASYNC();
  RuntimeOptions opts = TestOptions();
  opts.hooks.callbacks.resize(2);
  opts.hooks.callbacks[1] = [](Runtime& rt, G* gp) {
    sigset_t set, old;
    sigemptyset(&set);
    sigaddset(&set, SIGURG);
    pthread_sigmask(SIG_BLOCK, &set, &old);  // keep the first one pending
    rt.preemptM(gp->m);
    rt.preemptM(gp->m);
    rt.preemptM(gp->m);
    pthread_sigmask(SIG_SETMASK, &old, nullptr);
  };
  Outcome o = RunScenario("func main.main\n  callback 1\n  ret\nend\n", std::move(opts));
  ASSERT_TRUE(o.ok) << o.error;
  EXPECT_EQ(o.Count(Ev::kSignalSent), 1u);
  EXPECT_EQ(o.Count(Ev::kSignalCoalesced), 2u);
  EXPECT_EQ(o.Count(Ev::kSigNoRequest), 1u) << "the one signal was handled, preemptGen and signalPending reset";
}

// A port without asynchronous preemption (preemptMSupported false) still
// preempts cooperatively and never signals.
TEST_F(Async_9_7_5, WithoutPreemptMOnlyCooperativePreemption) {
  RuntimeOptions opts = TestOptions();
  opts.hooks.preempt_m_supported = false;
  std::string prog = std::string(R"(
func main.main
  go main.spin
  wait 2
  ret
end
func main.spin frame=16
  movi r1, 1
  st g[10], r1
loop0:
  addi r1, 1
  ld r3, g[14]
  jz r3, loop0
loop1:
  call main.nonleaf
  ld r3, g[11]
  jz r3, loop1
  handshake 2
  ret
end
func main.nonleaf frame=16
  call main.leaf
  ret
end
func main.leaf
  addi r0, 1
  ret
end
)");
  Outcome o = RunScenario(prog, std::move(opts), [](Runtime& rt) {
    ASSERT_TRUE(WaitFor([&] { return rt.global(10) == 1; }));
    for (int i = 0; i < 10; i++) rt.preemptone(rt.p(0), Source::kTest);
    rt.set_global(14, 1);  // now the loop calls a non-leaf
    ASSERT_TRUE(WaitFor([&] { return rt.events().Count(Ev::kPreemptSync) >= 1; }));
    rt.set_global(11, 1);
  });
  ASSERT_TRUE(o.ok) << o.error;
  EXPECT_EQ(o.Count(Ev::kSignalSent), 0u);
  EXPECT_EQ(o.Count(Ev::kAsyncAccept), 0u);
  EXPECT_GE(o.Count(Ev::kPreemptSync), 1u);
}

// --- the save area ------------------------------------------------------------

// Every general register, every flag and control register the port saves
// and every bit of every vector register of the active tier hold distinct
// patterns at the preemption (core/ir.h: vfill, setflags); the asyncPreempt
// frame and the G's extended state must hold exactly those, in the port's
// documented layout, and after resumption the code reads them back
// unchanged (dumpregs, flagsdump, vdump), although asyncPreempt2 leaves the
// vector, flag and control registers clobbered (sp_clobber). Mismatches are reported all at
// once, by register name.
struct SaveAreaSeen {
  std::vector<std::string> frame_bad, x_bad, after_bad, vectors;  // vectors: the tier's, by name
  int inspections = 0, tier = -1;
  Armed a;
};
// One flag pattern for every port: both ones and zeros on every register's
// setflags_mask (oracle/save_area_test.cc's kWant says which bits); its
// complement sets every one of those bits the other way.
constexpr int64_t kSaveSeed = 0x5100, kSaveVSeed = 77, kSaveFlags = 0xAD0A08C5;
struct SavePattern {
  int64_t vseed, flags;
};
constexpr SavePattern kSavePatterns[] = {{kSaveVSeed, kSaveFlags}, {kSaveVSeed + 1, ~kSaveFlags}};

SaveAreaSeen ObserveSaveArea(bool simd, RuntimeMutations mutations = {}, SavePattern pat = kSavePatterns[0]) {
  const PortInfo& port = NativePort();
  SaveAreaSeen s;
  RuntimeOptions opts = TestOptions();
  opts.experiments.simd = simd;
  opts.mutations = mutations;
  const oracle::TrapState want{kSaveSeed, pat.vseed, static_cast<uint64_t>(pat.flags)};
  opts.hooks.on_async_preempt = [&](Runtime& rt, G* gp) {
    s.inspections++;
    s.tier = rt.xstate_tier();
    const uint8_t* frame = reinterpret_cast<const uint8_t*>(gp->sched.sp);
    for (const std::string& r : oracle::CheckFrame(port, frame, want)) s.frame_bad.push_back(r);
    for (const std::string& r : oracle::CheckExtendedState(port, s.tier, gp->xstate.get(), want)) s.x_bad.push_back(r);
  };
  std::string body = "  fillregs " + std::to_string(kSaveSeed) + "\n  vfill " + std::to_string(pat.vseed) +
                     "\n  setflags " + std::to_string(pat.flags) + "\ntarget:\n  mov r0, r0\n  dumpregs 20\n"
                     "  flagsdump g[40]\n  vdump 0\n  ret\nend\n";
  s.a = RunArmed("func main.main frame=16\n  callback 0\n" + body, "main.main", std::move(opts));
  if (!s.a.o.rt) return s;
  // Read back after resumption.
  Runtime& rt = *s.a.o.rt;
  for (int i = 0; i < ir::kPortableRegs; i++)
    if (rt.global(20 + i) != static_cast<uint64_t>(kSaveSeed + i)) s.after_bad.push_back(std::string(port.ir_regs[i]));
  uint64_t flags[ir::kFlagsWords];
  for (int i = 0; i < ir::kFlagsWords; i++) flags[i] = rt.global(40 + i);
  for (const std::string& r : oracle::CheckFlagsDump(port, flags, want)) s.after_bad.push_back(r);
  for (const std::string& r : oracle::CheckExtendedState(port, rt.xstate_tier(), rt.vdump(0), want))
    s.after_bad.push_back(r);
  for (const SavedReg& r : port.saved_regs)
    if (r.kind == SavedReg::kVector && r.tier == rt.xstate_tier()) s.vectors.push_back(std::string(r.name));
  return s;
}

std::string Join(const std::vector<std::string>& v) {
  std::string s;
  for (const std::string& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

void ExpectSaveArea(bool simd, SavePattern pat) {
  const PortInfo& port = NativePort();
  SCOPED_TRACE("vfill " + std::to_string(pat.vseed) + ", setflags " + std::to_string(pat.flags));
  SaveAreaSeen s = ObserveSaveArea(simd, {}, pat);
  ASSERT_EQ(s.a.accepted, 1u);
  EXPECT_EQ(s.inspections, 1);
  EXPECT_TRUE(s.frame_bad.empty()) << "asyncPreempt frame wrong for: " << Join(s.frame_bad);
  EXPECT_TRUE(s.x_bad.empty()) << "extended state wrong for: " << Join(s.x_bad);
  EXPECT_TRUE(s.after_bad.empty()) << "changed across the preemption: " << Join(s.after_bad);
  EXPECT_FALSE(s.vectors.empty()) << "tier " << s.tier << " has vector registers";
  EXPECT_EQ(s.a.o.Count(Ev::kXRegAlloc, kMainG), 1u);
  if (simd) EXPECT_GE(s.tier, 1) << "the simd setting saves the wide state";
  // The highest tier the CPU and the setting allow, by the port's data.
  size_t want_tier = 0;
  while (want_tier + 1 < port.tiers.size()) {
    const XTier& t = port.tiers[want_tier + 1];
    if ((t.needs_simd && !simd) || (!t.cpu_feature.empty() && !NativeContext::cpu_has(t.cpu_feature))) break;
    want_tier++;
  }
  EXPECT_EQ(s.tier, static_cast<int>(want_tier)) << "tier " << port.tiers[want_tier].name << " on this CPU";
  for (const Event& e : s.a.o.events)
    if (e.kind == Ev::kXRegAlloc) EXPECT_EQ(e.arg, static_cast<int64_t>(port.tiers[s.tier].scratch_bytes));
}

TEST_F(Async_9_7_5, SaveAreaHoldsTheTrapTimeRegisters) {
  SKIP_WITHOUT_ASYNC();
  for (SavePattern pat : kSavePatterns) ExpectSaveArea(false, pat);
}

// Under the simd setting the wide vector state is saved (amd64: Y0-Y15 on a
// CPU with AVX, Z0-Z15 and K0-K7 on one with AVX-512BW; QEMU's Haswell model
// has AVX but not AVX-512, so under emulation the YMM set is checked).
TEST_F(Async_9_7_5, SaveAreaUnderSimd) {
  SKIP_WITHOUT_ASYNC();
  std::string why = NoSimdTier();
  if (!why.empty()) GTEST_SKIP() << why;
  for (SavePattern pat : kSavePatterns) ExpectSaveArea(true, pat);
}

// The half-vector mutation (asyncPreempt saves and restores only the low
// half of each vector register of the tier): the extended state is wrong
// for every vector register, and so is what the program reads back; the
// general and flag registers are still right. With and without simd, so a
// wider tier is caught too.
void ExpectHalfVectorCaught(bool simd) {
  RuntimeMutations m;
  m.half_vector_save = true;
  SaveAreaSeen s = ObserveSaveArea(simd, m);
  ASSERT_EQ(s.a.accepted, 1u);
  EXPECT_TRUE(s.frame_bad.empty()) << "asyncPreempt frame wrong for: " << Join(s.frame_bad);
  EXPECT_EQ(s.x_bad, s.vectors) << "tier " << s.tier << ": every vector register is saved at half width";
  EXPECT_EQ(s.after_bad, s.vectors) << "tier " << s.tier << ": every vector register is restored at half width";
}

TEST_F(Async_9_7_5, SaveAreaCatchesVectorsSavedAtHalfWidth) {
  SKIP_WITHOUT_ASYNC();
  ExpectHalfVectorCaught(false);
}

TEST_F(Async_9_7_5, SaveAreaUnderSimdCatchesVectorsSavedAtHalfWidth) {
  SKIP_WITHOUT_ASYNC();
  std::string why = NoSimdTier();
  if (!why.empty()) GTEST_SKIP() << why;
  ExpectHalfVectorCaught(true);
}

// The extended state is allocated the first time a G is preempted
// asynchronously, then reused; a G never preempted so has none.
TEST_F(Async_9_7_5, ExtendedStateAllocatedOnDemandAndReused) {
  SKIP_WITHOUT_ASYNC();
  Armed a = RunArmed(Looping("  go main.idle", kBody, "", "func main.idle\n  addi r1, 1\n  ret\nend\n"), "main.main",
                     TestOptions());
  EXPECT_EQ(a.accepted, static_cast<size_t>(kRounds));
  EXPECT_EQ(a.o.Count(Ev::kXRegAlloc, kMainG), 1u) << "allocated once for " << kRounds << " preemptions";
  EXPECT_EQ(a.o.Count(Ev::kXRegAlloc, kFirstG), 0u) << "never for a goroutine not preempted asynchronously";
}

// asyncPreemptStack is computed at start-up from the layout table.
TEST_F(Async_9_7_5, AsyncPreemptStackFromTheLayout) {
  SKIP_WITHOUT_ASYNC();
  ir::Program p;
  std::string err;
  ASSERT_TRUE(ir::ParseProgram("func main.main\n  ret\nend\n", &p, &err));
  Runtime rt(TestOptions());
  ASSERT_TRUE(rt.Load(p, &err)) << err;
  const PortInfo& port = NativePort();
  EXPECT_EQ(rt.asyncPreemptStack(), port.async_frame + port.mcall_frame + 64u);
  EXPECT_LE(rt.asyncPreemptStack(), 800u) << "within the nosplit limit";
  uint32_t top = 0;
  for (const SavedReg& r : port.saved_regs)
    if (r.kind != SavedReg::kVector) top = std::max(top, r.offset + r.size);
  EXPECT_LE(top + port.pushcall_bytes, port.async_frame) << "every saved register inside the frame";
}

// --- stop-the-world and forEachP ----------------------------------------------

std::string Spinners(int n) {
  std::string p = "func main.main\n";
  for (int i = 0; i < n; i++) p += "  go main.spin\n";
  p += "  wait 2\n  ret\nend\n"
       "func main.spin\n  movi r1, 1\n  atomic_add g[10], r1\nloop:\n  addi r2, 1\n  ld r3, g[11]\n"
       "  jz r3, loop\n  movi r1, 1\n  atomic_add g[12], r1\n  ld r1, g[12]\n  addi r1, -" +
       std::to_string(n) + "\n  jnz r1, out\n  handshake 2\nout:\n  ret\nend\n";
  return p;
}

TEST_F(Async_9_7_6, StopTheWorldStopsCallFreeLoops) {
  SKIP_WITHOUT_ASYNC();
  constexpr int kSpinners = 4;
  RuntimeOptions opts = TestOptions();
  opts.settings.gomaxprocs = 2;
  int rounds = -1;
  bool all_stopped = false;
  Outcome o = RunScenario(Spinners(kSpinners), std::move(opts), [&](Runtime& rt) {
    ASSERT_TRUE(WaitFor([&] { return rt.global(10) >= 2; }));  // both Ps spin
    rounds = rt.stopTheWorldWithSema();
    all_stopped = true;
    for (int i = 0; i < 2; i++) {
      uint32_t st = rt.p(i)->status.load();
      all_stopped = all_stopped && (st == _Pgcstop || (st == _Pidle && rt.p(i)->m.load() == nullptr));
    }
    rt.set_global(11, 1);
    rt.startTheWorld();
  });
  ASSERT_TRUE(o.ok) << o.error;
  EXPECT_TRUE(all_stopped);
  EXPECT_GE(rounds, 1) << "at least one preemptall round";
  EXPECT_EQ(o.Count(Ev::kSTWDone), 1u);
  EXPECT_GE(o.Count(Ev::kPreemptAsync), 1u) << "call-free loops stop only asynchronously";
  EXPECT_EQ(o.rt->global(12), static_cast<uint64_t>(kSpinners));
  // Every request until the world was stopped is preemptall's (after main
  // returns, Run's own shutdown asks the remaining spinners too, with
  // Source::kNone; those come after kSTWDone and are not the STW's).
  size_t stw_requests = 0;
  for (const Event& e : o.events) {
    if (e.kind == Ev::kSTWDone) break;
    if (e.kind != Ev::kRequest) continue;
    EXPECT_EQ(e.source, Source::kPreemptAll);
    stw_requests++;
  }
  EXPECT_GE(stw_requests, 1u) << "preemptall requested at least one preemption before the world stopped";
}

TEST_F(Async_9_7_6, ForEachPRunsOnEveryP) {
  SKIP_WITHOUT_ASYNC();
  RuntimeOptions opts = TestOptions();
  opts.settings.gomaxprocs = 2;
  std::set<int> ran;
  std::mutex mu;
  Outcome o = RunScenario(Spinners(2), std::move(opts), [&](Runtime& rt) {
    ASSERT_TRUE(WaitFor([&] { return rt.global(10) >= 2; }));
    rt.forEachP([&](P* p) {
      std::lock_guard<std::mutex> lk(mu);
      ran.insert(p->id);
    });
    rt.set_global(11, 1);
  });
  ASSERT_TRUE(o.ok) << o.error;
  EXPECT_EQ(ran, (std::set<int>{0, 1}));
  EXPECT_EQ(o.Count(Ev::kSafePointFn), 2u);
}

// A goroutine in a system call is at a blocking safe point (9.3): forEachP
// takes its P (_Psyscall to _Pidle, Go's handoffp) and runs the function on
// the P's behalf without waiting for the call to return. The goroutine
// spins inside entersyscall..exitsyscall until the driver lets it go, after
// forEachP has returned; its M then takes the P back and the program ends.
TEST_F(Async_9_7_6, ForEachPRunsOnBehalfOfAPInASystemCall) {
  const std::string prog =
      "func main.main\n  go main.sys\n  wait 2\n  ret\nend\n"
      "func main.sys\n  movi r1, 1\n  atomic_add g[10], r1\n  entersyscall\nloop:\n  ld r3, g[11]\n"
      "  jz r3, loop\n  exitsyscall\n  movi r1, 1\n  atomic_add g[12], r1\n  handshake 2\n  ret\nend\n";
  bool returned = false;
  int ran = -1;
  uint64_t released_before = 1;
  Outcome o = RunScenario(prog, TestOptions(), [&](Runtime& rt) {
    ASSERT_TRUE(WaitFor([&] { return rt.global(10) >= 1 && rt.p(0)->status.load() == _Psyscall; }))
        << "the goroutine never entered its system call";
    returned = rt.forEachP([&](P* p) { ran = p->id; }, 10'000'000'000);
    released_before = rt.global(12);  // still in its call: nothing let it go yet
    rt.set_global(11, 1);
  });
  ASSERT_TRUE(o.ok) << o.error;
  EXPECT_TRUE(returned) << "forEachP waited for the system call to return (its 10 s bound)";
  EXPECT_EQ(ran, 0) << "the function did not run for P 0";
  EXPECT_EQ(released_before, 0u);
  EXPECT_EQ(o.Count(Ev::kSafePointFn), 1u);
  EXPECT_EQ(o.Count(Ev::kSafePointGiveUp), 0u);
  EXPECT_EQ(o.rt->global(12), 1u) << "the goroutine did not finish after its call";
}

// Bad input: arming an address that is not an instruction boundary of a
// generated function is refused with a clear error.
TEST_F(Async_9_7_5, ArmingANonBoundaryIsRefused) {
  ir::Program p;
  std::string err;
  ASSERT_TRUE(ir::ParseProgram("func main.main\n  movi r1, 5\n  ret\nend\n", &p, &err));
  Runtime rt(TestOptions());
  ASSERT_TRUE(rt.Load(p, &err)) << err;
  const FuncInfo* f = rt.table().Find("main.main");
  EXPECT_FALSE(harness::Arm(rt, f->entry + 1, &err));
  EXPECT_NE(err.find("is not an instruction boundary of a generated function"), std::string::npos) << err;
  EXPECT_FALSE(harness::Arm(rt, static_cast<uint32_t>(1 << 30), &err));
  EXPECT_TRUE(harness::Arm(rt, f->entry, &err)) << err;
  EXPECT_FALSE(harness::Arm(rt, f->entry, &err));
  EXPECT_NE(err.find("armed already"), std::string::npos) << err;
}

// Every rule a signal can reach has a test registered for it here (the
// registry is built at start-up: this holds under any filter or shard).
TEST(Catalogue, EveryAsyncRuleHasARegisteredTest) {
  for (const RuleEntry& e : Catalogue())
    if (e.async_reachable) EXPECT_FALSE(TestsOf(e.reason).empty()) << "no RULE_TEST for " << ReasonName(e.reason);
}

TEST(Catalogue, RulesMdNamesEveryRegisteredTest) { ExpectRulesMdNamesRegisteredTests(); }

}  // namespace
}  // namespace safepoint::conformance
