// Conformance: stack scanning during preemption (chapter 9.7.5 and 9.7.6),
// judged by the liveness oracle and by events.
//
// "Once the goroutine is stopped, the garbage collector must be able to
// interpret its stack correctly." A goroutine stopped at an asynchronous
// safe point has two frames without pointer maps, scanned conservatively:
// the asyncPreempt frame (every saved register) and the interrupted frame,
// its outgoing-argument area included. The frames above it are at calls
// and are scanned precisely. Under Go 1.27's policy the extended register
// state is scanned too; Go 1.26 assumes it holds no pointer, and loses one
// that a block copy left only in a vector register.
//
// Each test parks an object where only one kind of root reaches it, runs a
// whole collection (concurrent marking through suspendG, mark termination
// with the world stopped, a sweep that poisons what it frees) while the
// goroutine spins, then lets the goroutine read the object: a lost object
// is a read of poisoned memory, which the runtime names.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "conformance/bounded.h"
#include "conformance/checks.h"
#include "harness/scenario.h"
#include "platforms/native.h"

namespace safepoint::conformance {
using namespace ::safepoint::harness;
namespace {

constexpr uint64_t kValue = 4242;  // the object's word at offset 8
constexpr int kRead = 20;          // where spin leaves what it read back

// `movi rK, 0` for every IR register but `keep` (-1: all): no stale copy
// of the object's pointer stays in a register the test does not mean.
std::string ClearRegs(int keep) {
  std::string s;
  for (int k = 0; k < ir::kPortableRegs; k++)
    if (k != keep) s += "  movi r" + std::to_string(k) + ", 0\n";
  return s;
}

// Where the object lives while spin loops: `place` runs with the new object
// in r0 (its word 8 set), `fetch` puts it back in r6 after the loop.
struct Place {
  const char* name;
  std::string attrs;  // spin's function attributes
  std::string place;
  std::string fetch;
  int keep;           // the register `place` leaves holding a root, or -1
  bool in_callee;     // spin loops inside main.inner (spin's frame is a caller's)
};

const Place kRegister{"a register", "", "  mov r7, r0\n", "  mov r6, r7\n", 7, false};
const Place kFrameSlot{"a slot of the interrupted frame", "", "  stslot 16, r0\n", "  ldslot r6, 16\n", -1, false};
const Place kArgs{"the interrupted frame's outgoing-argument area", "args=16", "  starg 8, r0\n", "  ldslot r6, 8\n",
                  -1, false};
// B (the object) reached only through A, which only r7 holds.
const Place kObject{"another object",
                    "",
                    "  stslot 24, r0\n  alloc 16\n  ldslot r1, 24\n  stm r0, 0, r1\n  mov r7, r0\n  movi r1, 0\n"
                    "  stslot 24, r1\n",
                    "  ldm r6, r7, 0\n",
                    7,
                    false};
// B reached only through vector register 0: loaded from A, then A's copy
// cleared, as a block copy through vector registers leaves it half way.
const Place kVector{"a vector register in the middle of a block copy",
                    "",
                    "  stslot 24, r0\n  alloc 16\n  ldslot r1, 24\n  stm r0, 0, r1\n  mov r8, r0\n  movi r1, 0\n"
                    "  stslot 24, r1\n  vload r8, 0\n  stm r8, 0, r1\n",
                    "  vstore r8, 0\n  ldm r6, r8, 0\n",
                    8,
                    false};
// Caller frames: spin keeps the object in slot 16 and loops in main.inner.
const Place kDeclaredSlot{"a declared pointer slot of a caller frame", "ptrs=16", "  stslot 16, r0\n",
                          "  ldslot r6, 16\n", -1, true};
// A stack object: the object sits in an undeclared slot of spin's frame,
// whose address (addrslot) is in a declared pointer slot of the same frame.
const Place kStackObject{"a stack object named by a pointer into the stack", "ptrs=8",
                         "  stslot 16, r0\n  addrslot r1, 16\n  stslot 8, r1\n", "  ldslot r6, 16\n", -1, true};
const Place kUndeclaredSlot{"an undeclared slot of a caller frame", "", "  stslot 16, r0\n", "  ldslot r6, 16\n", -1,
                            true};

// main starts spin and waits (handshake 2). spin allocates the object,
// places it, clears the other registers, marks g[10] and loops (itself, or
// in main.inner) until g[11]; then fetches the object and stores its word 8
// in g[20].
std::string HeapSpin(const Place& p) {
  std::string loop =
      "loop:\n  addi r5, 1\n  ld r2, g[12]\n  addi r2, 1\n  st g[12], r2\n  ld r3, g[11]\n  jz r3, loop\n";
  // (With the loop in main.inner, inner marks g[10]: under QEMU a signal
  // arrives at a translation block's end, and spin's call ends one.)
  const std::string started = "  movi r1, 1\n  st g[10], r1\n";
  std::string s = "func main.main\n  go main.spin\n  wait 2\n  ret\nend\n";
  s += "func main.spin frame=32 " + p.attrs + "\n  alloc 16\n  movi r1, " + std::to_string(kValue) +
       "\n  stm r0, 8, r1\n" + p.place + ClearRegs(p.keep);
  s += p.in_callee ? "  call main.inner\n" : started + loop;
  s += p.fetch + "  ldm r4, r6, 8\n  st g[20], r4\n  handshake 2\n  ret\nend\n";
  if (p.in_callee) s += "func main.inner\n" + started + loop + "  ret\nend\n";
  return s;
}

struct ScanRun {
  Problems bad;
  Outcome o;
  int64_t freed = -1;
  bool live_after = false;  // the object survived the collection
  uintptr_t object = 0;
};

// Runs HeapSpin(p): once spin loops, one whole collection from the
// driver, then spin stops and reads the object back.
ScanRun RunScan(const Place& p, RuntimeOptions opts) {
  ScanRun r;
  r.o = RunScenario(HeapSpin(p), std::move(opts), [&](Runtime& rt) {
    if (!WaitFor([&] { return rt.global(kSpinStarted) == 1; })) {
      r.bad.push_back("waited 60 s for spin to start");
    } else {
      for (const Event& e : rt.events().Snapshot())
        if (e.kind == Ev::kAlloc && e.goid == kFirstG && r.object == 0) r.object = e.pc;
      r.freed = rt.GC();
      r.live_after = rt.HeapObjectLive(r.object);
    }
    rt.set_global(kSpinStop, 1);
  });
  return r;
}

// The goroutine's stack scans during the collection: `conservative` for
// those that found it stopped asynchronously (arg 2).
int Scans(const Outcome& o, bool conservative) {
  int n = 0;
  for (const Event& e : o.events)
    if (e.kind == Ev::kGCScanStack && e.goid == kFirstG && (e.arg == 2) == conservative) n++;
  return n;
}

bool FreedAccess(const Outcome& o) {
  for (const Event& e : o.events)
    if (e.kind == Ev::kFreedAccess) return true;
  return false;
}

// The object must survive a collection that runs while spin is stopped
// asynchronously, and spin must read it back.
Problems CheckSurvives(const Place& p, RuntimeOptions opts) {
  ScanRun r = RunScan(p, std::move(opts));
  Problems bad = r.bad;
  if (!r.o.ok) bad.push_back(std::string("reached only from ") + p.name + ": run: " + r.o.error);
  if (FreedAccess(r.o)) bad.push_back(std::string("the object reached only from ") + p.name + " was freed and read");
  if (r.o.ok && r.o.rt->global(kRead) != kValue)
    bad.push_back("read back " + std::to_string(r.o.rt->global(kRead)) + ", want " + std::to_string(kValue));
  if (!r.live_after) bad.push_back(std::string("the object reached only from ") + p.name + " did not survive");
  if (Scans(r.o, true) == 0) bad.push_back("spin's stack was never scanned at an asynchronous safe point");
  return bad;
}

TEST(Scan_9_7_5, AnObjectInARegisterSurvives) {
  SKIP_WITHOUT_ASYNC();
  Problems p = CheckSurvives(kRegister, TestOptions());
  EXPECT_TRUE(p.empty()) << Join(p);
}

TEST(Scan_9_7_5, AnObjectInTheInterruptedFrameSurvives) {
  SKIP_WITHOUT_ASYNC();
  Problems p = CheckSurvives(kFrameSlot, TestOptions());
  EXPECT_TRUE(p.empty()) << Join(p);
}

TEST(Scan_9_7_5, AnObjectInTheOutgoingArgumentAreaSurvives) {
  SKIP_WITHOUT_ASYNC();
  Problems p = CheckSurvives(kArgs, TestOptions());
  EXPECT_TRUE(p.empty()) << Join(p);
}

TEST(Scan_9_7_5, CatchesAScanSkippingTheOutgoingArgumentArea) {
  SKIP_WITHOUT_ASYNC();
  Problems p = CheckSurvives(kArgs, WithMutation(TestOptions(), "scan-skips-outgoing-args"));
  EXPECT_FALSE(p.empty()) << "a conservative scan that skips the outgoing-argument area passed";
  Caught(p);
}

TEST(Scan_9_7_5, AnObjectReachedThroughAnotherObjectSurvives) {
  SKIP_WITHOUT_ASYNC();
  Problems p = CheckSurvives(kObject, TestOptions());
  EXPECT_TRUE(p.empty()) << Join(p);
}

// Go 1.27: the extended register state is scanned conservatively.
TEST(Scan_9_7_5, UnderGo127AnObjectOnlyInAVectorRegisterSurvives) {
  SKIP_WITHOUT_ASYNC();
  RuntimeOptions opts = TestOptions();
  opts.settings.xstate_scan = XStateScan::kGo127;
  Problems p = CheckSurvives(kVector, std::move(opts));
  EXPECT_TRUE(p.empty()) << Join(p);
}

// Go 1.26's hazard, as the chapter describes it: the pointer that exists
// only in a vector register in the middle of a block copy is lost; the
// program reads poisoned memory.
TEST(Scan_9_7_5, UnderGo126AnObjectOnlyInAVectorRegisterIsLost) {
  SKIP_WITHOUT_ASYNC();
  RuntimeOptions opts = TestOptions();
  opts.settings.xstate_scan = XStateScan::kGo126;
  ScanRun r = RunScan(kVector, std::move(opts));
  ASSERT_TRUE(r.bad.empty()) << Join(r.bad);
  EXPECT_FALSE(r.live_after) << "Go 1.26 scans no vector register, yet the object survived";
  EXPECT_FALSE(r.o.ok);
  EXPECT_TRUE(FreedAccess(r.o)) << "the read of the lost object was not reported";
  EXPECT_NE(r.o.error.find("found pointer to free object"), std::string::npos) << r.o.error;
}

// Frames above the interrupted one are at calls: only their declared
// pointer slots are roots.
TEST(Scan_9_7_5, ADeclaredPointerSlotOfACallerFrameIsARoot) {
  SKIP_WITHOUT_ASYNC();
  ScanRun r = RunScan(kDeclaredSlot, TestOptions());
  ASSERT_TRUE(r.bad.empty()) << Join(r.bad);
  ASSERT_TRUE(r.o.ok) << r.o.error;
  EXPECT_TRUE(r.live_after);
  EXPECT_EQ(r.o.rt->global(kRead), kValue);
}

TEST(Scan_9_7_5, AStackObjectIsScannedConservatively) {
  SKIP_WITHOUT_ASYNC();
  ScanRun r = RunScan(kStackObject, TestOptions());
  ASSERT_TRUE(r.bad.empty()) << Join(r.bad);
  ASSERT_TRUE(r.o.ok) << r.o.error;
  EXPECT_TRUE(r.live_after) << "the object in a frame that a pointer into the stack names was freed";
  EXPECT_EQ(r.o.rt->global(kRead), kValue);
}

TEST(Scan_9_7_5, AnUndeclaredSlotOfACallerFrameIsNotARoot) {
  SKIP_WITHOUT_ASYNC();
  ScanRun r = RunScan(kUndeclaredSlot, TestOptions());
  ASSERT_TRUE(r.bad.empty()) << Join(r.bad);
  EXPECT_FALSE(r.live_after) << "a caller's slot without a pointer map entry kept the object (scanned conservatively)";
  EXPECT_TRUE(FreedAccess(r.o)) << "spin read the freed object without the runtime noticing";
  EXPECT_NE(r.o.error.find("found pointer to free object"), std::string::npos) << r.o.error;
}

// The collection's shape, by events: marking pauses goroutines one at a
// time through suspendG (each scanned between its kSuspend and kResumeG),
// mark termination runs with the world stopped and looks at every stack
// again, the sweep frees after it.
TEST(Scan_9_7_6, MarkingPausesOneGoroutineAtATimeThenTerminatesWithTheWorldStopped) {
  SKIP_WITHOUT_ASYNC();
  ScanRun r = RunScan(kRegister, TestOptions());
  ASSERT_TRUE(r.bad.empty()) << Join(r.bad);
  ASSERT_TRUE(r.o.ok) << r.o.error;
  std::string seq;
  bool in_gc = false;
  for (const Event& e : r.o.events) {
    const char* tag = nullptr;
    if (e.kind == Ev::kGCStart) in_gc = true, tag = "start";
    if (!in_gc) continue;
    if (e.kind == Ev::kSuspend && e.goid == kFirstG) tag = "suspend";
    if (e.kind == Ev::kPreemptPark && e.goid == kFirstG) tag = e.arg ? "park(async)" : "park(sync)";
    if (e.kind == Ev::kGCScanStack && e.goid == kFirstG) tag = e.arg == 2 ? "scan(conservative)" : "scan(precise)";
    if (e.kind == Ev::kResumeG && e.goid == kFirstG) tag = "resume";
    if (e.kind == Ev::kSTWDone) tag = "world-stopped";
    if (e.kind == Ev::kGCMarkTermination) tag = "mark-termination";
    if (e.kind == Ev::kGCDone) tag = "done", in_gc = false;
    if (tag) seq += std::string(seq.empty() ? "" : " ") + tag;
  }
  // spin parks asynchronously for suspendG, is scanned and resumed; the
  // world stops (spin is preempted again, synchronously or not), and
  // termination scans it once more.
  EXPECT_EQ(seq.find("start park(async) suspend scan(conservative) resume "), 0u) << seq;
  size_t term = seq.find("world-stopped mark-termination scan(");
  EXPECT_NE(term, std::string::npos) << seq;
  EXPECT_EQ(seq.substr(seq.size() - 4), "done") << seq;
}

// Stacks move (14.5): growth doubles a stack by copying, the collector's
// shrink halves it; either way a pointer into the stack kept in a declared
// pointer slot is adjusted, and the program reads through it what it
// stored.
TEST(Scan_9_7_5, PointersIntoTheStackFollowItWhenItMoves) {
  // main keeps &slot 16 in slot 8 (declared) and 777 in slot 16, then
  // work grows the stack by recursion, marks g[10] and loops (calling a
  // non-leaf, so prologue checks happen) until g[11]; main reads through
  // the pointer into g[1], and g[2] = the pointer minus slot 16's address.
  const std::string prog =
      "func main.main frame=32 ptrs=8\n  movi r1, 777\n  stslot 16, r1\n  addrslot r1, 16\n  stslot 8, r1\n"
      "  go main.work\n  wait 2\n  ldslot r2, 8\n  ldm r3, r2, 0\n  st g[1], r3\n  addrslot r4, 16\n  movi r5, -1\n"
      "  muli r4, -1\n  add r4, r2\n  st g[2], r4\n  ret\nend\n"
      "func main.work frame=32 ptrs=8\n  movi r1, 555\n  stslot 16, r1\n  addrslot r1, 16\n  stslot 8, r1\n"
      "  movi r0, 20\n  call main.rec\n  movi r1, 1\n  st g[10], r1\nloop:\n  addi r5, 1\n  call main.nonleaf\n"
      "  ld r3, g[11]\n  jz r3, loop\n  ldslot r2, 8\n  ldm r3, r2, 0\n  st g[3], r3\n  handshake 2\n  ret\nend\n"
      "func main.rec frame=512\n  jz r0, done\n  addi r0, -1\n  call main.rec\ndone:\n  ret\nend\n" +
      std::string(kChapterLeafAndNonleaf);
  RuntimeOptions opts = TestOptions();
  opts.settings.godebug = "asyncpreemptoff=1";  // work stops at a prologue: its stack may move at once
  Outcome o = RunScenario(prog, opts, [&](Runtime& rt) {
    ASSERT_TRUE(WaitFor([&] { return rt.global(kSpinStarted) == 1; })) << "waited 60 s for work to start";
    rt.GC();
    rt.set_global(kSpinStop, 1);
  });
  ASSERT_TRUE(o.ok) << o.error;
  EXPECT_GT(o.Count(Ev::kGrow, kFirstG), 0u) << "work's stack never grew";
  EXPECT_GT(o.Count(Ev::kShrink, kFirstG), 0u) << "the collector never shrank work's stack";
  EXPECT_EQ(o.rt->global(3), 555u) << "work read through its pointer into its moved stack";
  EXPECT_EQ(o.rt->global(1), 777u) << "main read through its pointer into its stack";
  EXPECT_EQ(o.rt->global(2), 0u) << "main's pointer does not point at its slot";
}

// Objects allocated during marking are black: a collection frees none of
// them, even one dropped at once; the next collection does.
TEST(Scan_9_7_5, ObjectsAllocatedDuringMarkingAreBlack) {
  // spin allocates one object and drops it when g[15] asks, then says so in g[16].
  const std::string prog = SpinProgram(
      "  ld r3, g[15]\n  jz r3, skip\n  movi r3, 0\n  st g[15], r3\n  alloc 32\n  drop r0\n  movi r3, 1\n"
      "  st g[16], r3\nskip:\n  addi r5, 1");
  RuntimeOptions opts = TestOptions();
  bool asked = false, allocated = false;
  opts.hooks.gc_after_stack_scan = [&](Runtime& rt, G* gp) {
    if (gp->goid != kFirstG) return;
    asked = true;
    rt.set_global(15, 1);  // spin runs again: it allocates while marking goes on
    allocated = WaitFor([&] { return rt.global(16) == 1; }, 30);
  };
  uintptr_t black = 0;
  bool live_after_first = false, live_after_second = true;
  Outcome o = RunScenario(prog, opts, [&](Runtime& rt) {
    ASSERT_TRUE(WaitFor([&] { return rt.global(kSpinStarted) == 1; })) << "waited 60 s for spin to start";
    rt.GC();
    ASSERT_TRUE(asked && allocated) << "spin did not allocate during marking (30 s)";
    for (const Event& e : rt.events().Snapshot())
      if (e.kind == Ev::kAlloc && e.goid == kFirstG) {
        EXPECT_LT(e.arg, 0) << "allocated during marking, but not black";
        black = e.pc;
      }
    live_after_first = rt.HeapObjectLive(black);
    rt.GC();
    live_after_second = rt.HeapObjectLive(black);
    rt.set_global(kSpinStop, 1);
  });
  ASSERT_TRUE(o.ok) << o.error;
  ASSERT_NE(black, 0u) << "no allocation recorded";
  EXPECT_TRUE(live_after_first) << "an object allocated during marking was freed by that collection";
  EXPECT_FALSE(live_after_second) << "the unreachable object outlived the next collection";
}

}  // namespace
}  // namespace safepoint::conformance
