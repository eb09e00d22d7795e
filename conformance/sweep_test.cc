// Conformance: the exhaustive sweep on this port. Every instruction of every
// function of the built-in program is preempted once by armed delivery; the
// runtime's verdict must be the decision oracle's and the end state must be
// the unpreempted run's. Then each mechanism is broken on purpose and the
// sweep must notice: it is the suite's own proof that it can fail.
#include <unistd.h>

#include <cctype>
#include <cstdio>

#include <gtest/gtest.h>

#include "core/ir.h"
#include "harness/runtime_under_test.h"
#include "harness/sweep.h"
#include "oracle/sweep.h"
#include "platforms/native.h"

namespace safepoint {
using namespace ::safepoint::oracle;
namespace {

bool AsyncMissing() { return !NativePort().async_preemption(); }

// until_caught: a mutation's row stops at the first instruction that
// fails (under QEMU a whole sweep takes a minute or more).
SweepResult RunSweep(RuntimeOptions ro, bool until_caught = false) {
  SweepOptions opts;
  opts.runtime = std::move(ro);
  SweepResult r;
  if (until_caught) opts.proceed = [&r](size_t, size_t) { return r.ok(); };
  std::string err;
  EXPECT_TRUE(Sweep(opts, &r, &err)) << err;
  return r;
}

std::string Failures(const SweepResult& r) {
  std::string s;
  for (const std::string& f : r.failures) s += "\n  " + f;
  return s;
}

TEST(Sweep, EveryInstructionAgreesWithTheOracleAndIsInvisible) {
  if (AsyncMissing()) GTEST_SKIP() << "port " << NativePort().name << " declares asynchronous preemption missing";
  SweepResult r = RunSweep({});
  EXPECT_TRUE(r.ok()) << r.Summary() << Failures(r);
  EXPECT_GT(r.accepted, 50u) << r.Summary();
  // The frame-table oracle judged every instruction reached, and the table
  // agreed with the machine wherever a preemption was accepted.
  EXPECT_EQ(r.frame_wrong, 0u) << r.Summary() << Failures(r);
  EXPECT_EQ(r.frame_judged, r.instructions - r.not_reached) << r.Summary();
  EXPECT_GT(r.instructions, r.not_reached * 4) << "most instructions are reached: " << r.Summary();
  for (const char* rule : {"asm", "m.locks", "m.mallocing", "m.preemptoff", "nosplit", "not-go", "runtime-package",
                           "unsafe-point"})
    EXPECT_GT(r.refused[rule], 0u) << rule << " never refused: " << r.Summary();
  EXPECT_GT(r.restarted_at_entry, 0u);
  if (NativePort().model.regtmp_restartable)
    EXPECT_GT(r.restarted, 0u) << "REGTMP sequences restart: " << r.Summary();
  // The save-area oracle judged every asynchronous preemption against the
  // trap's signal context: each general register but at most one (arm64's
  // LR row holds the resume PC), each flag register, each vector of the
  // base tier, which every port's context holds (at least in part), and the
  // interrupted link register where there is one (in pushCall's slot).
  size_t general = 0, per_preemption = NativePort().link_reg.empty() ? 0 : 1;
  for (const SavedReg& reg : NativePort().saved_regs) {
    general += reg.kind == SavedReg::kGeneral;
    per_preemption += reg.kind != SavedReg::kVector || reg.tier == 0;
  }
  size_t preempted = r.accepted + r.restarted + r.restarted_at_entry;
  EXPECT_GE(r.save_area_compared, preempted * (per_preemption - 1)) << r.Summary();
  EXPECT_LE(r.save_area_compared, preempted * per_preemption) << r.Summary();
  EXPECT_GT(general, 10u);
}

// The collection sweep (9.7.5): the heap program, with a whole collection
// (suspendG, stacks, mark termination, sweep) and the collector's stack
// step (a shrink, deferred to the next prologue, where the stack moves)
// while every accepted preemption holds its goroutine. Nothing reachable
// may be lost, and the program must not see it.
SweepResult RunHeapSweep(RuntimeOptions ro, bool until_caught = false) {
  SweepOptions opts;
  opts.program = harness::BuiltinHeapSweepProgram();
  harness::CollectAtEveryPreemption(&ro);
  opts.runtime = std::move(ro);
  SweepResult r;
  if (until_caught) opts.proceed = [&r](size_t, size_t) { return r.ok(); };
  std::string err;
  EXPECT_TRUE(Sweep(opts, &r, &err)) << err;
  return r;
}

TEST(Sweep, ACollectionAtEveryAcceptedPreemptionLosesNothing) {
  if (AsyncMissing()) GTEST_SKIP() << "port " << NativePort().name << " declares asynchronous preemption missing";
  SweepResult r = RunHeapSweep({});
  EXPECT_TRUE(r.ok()) << r.Summary() << Failures(r);
  EXPECT_GT(r.accepted, 20u) << r.Summary();
  EXPECT_EQ(r.collections, r.accepted + r.restarted + r.restarted_at_entry) << "one collection per accepted preemption: " << r.Summary();
  EXPECT_GT(r.objects_freed, r.collections) << "the garbage was collected: " << r.Summary();
  printf("%s\n", r.Summary().c_str());
  ::testing::Test::RecordProperty("summary", r.Summary());
}

// Go 1.26's policy does not scan the extended register state: the pointer
// main.vcopy holds only in a vector register is lost, exactly where it is.
TEST(Sweep, CollectionUnderGo126LosesTheVectorOnlyPointer) {
  if (AsyncMissing()) GTEST_SKIP() << "port " << NativePort().name << " declares asynchronous preemption missing";
  RuntimeOptions ro;
  ro.settings.xstate_scan = XStateScan::kGo126;
  SweepResult r = RunHeapSweep(ro);
  EXPECT_GT(r.lost_objects, 0u) << r.Summary();
  for (const std::string& f : r.failures)
    EXPECT_NE(f.find("main.vcopy"), std::string::npos) << "lost outside the vector copy: " << f;
  printf("%s\n", r.Summary().c_str());
}

TEST(Sweep, CollectionCatchesAScanSkippingTheOutgoingArgs) {
  if (AsyncMissing()) GTEST_SKIP() << "port " << NativePort().name << " declares asynchronous preemption missing";
  RuntimeOptions ro;
  ro.mutations.scan_skips_outgoing_args = true;
  SweepResult r = RunHeapSweep(ro);
  EXPECT_GT(r.lost_objects, 0u) << r.Summary();
  for (const std::string& f : r.failures)
    EXPECT_NE(f.find("main.args"), std::string::npos) << "lost outside main.args: " << f;
  printf("caught: %s\n", r.Summary().c_str());
}

// The protocol oracle (oracle/protocol.h) in the judged sweep: a request
// that execute leaves set preempts again at the next re-armed prologue with
// nobody asking; a stack shrunk while its goroutine is stopped at an
// asynchronous safe point.
TEST(Sweep, CatchesALiveRequest) {
  RuntimeOptions ro;
  ro.mutations.live_request = true;
  SweepResult r = RunSweep(ro, true);
  EXPECT_GT(r.protocol_violations, 0u) << r.Summary();
  for (const std::string& f : r.failures)
    EXPECT_NE(f.find("a preemption without a request"), std::string::npos) << f;
  printf("caught: %s\n", r.Summary().c_str());
}

TEST(Sweep, CollectionCatchesAShrinkAtAnAsynchronousSafePoint) {
  if (AsyncMissing()) GTEST_SKIP() << "port " << NativePort().name << " declares asynchronous preemption missing";
  RuntimeOptions ro;
  ro.mutations.shrink_at_async = true;
  SweepResult r = RunHeapSweep(ro, true);
  EXPECT_GT(r.protocol_violations, 0u) << r.Summary();
  bool shrink = false;
  for (const std::string& f : r.failures) shrink = shrink || f.find("a stack shrunk at an asynchronous safe point") != std::string::npos;
  EXPECT_TRUE(shrink) << r.Summary();
  printf("caught: %s\n", r.Summary().c_str());
}

TEST(Sweep, UnderRuntimesecretSecretRegionsAreRefused) {
  if (AsyncMissing()) GTEST_SKIP() << "port " << NativePort().name << " declares asynchronous preemption missing";
  RuntimeOptions ro;
  ro.experiments.runtimesecret = true;
  SweepResult r = RunSweep(ro);
  EXPECT_TRUE(r.ok()) << r.Summary() << Failures(r);
  EXPECT_GT(r.refused["secret"], 0u) << r.Summary();
}

// Under the simd setting, on a CPU with a wider tier (amd64: YMM, or ZMM
// and K), vfill and vdump reach the wide registers, and a preemption at any
// instruction, the middle of a vfill included, leaves them as they were.
TEST(Sweep, UnderSimdTheWideStateIsInvisible) {
  if (AsyncMissing()) GTEST_SKIP() << "port " << NativePort().name << " declares asynchronous preemption missing";
  std::string why = NoSimdTier();
  if (!why.empty()) GTEST_SKIP() << why;
  RuntimeOptions ro;
  ro.experiments.simd = true;
  SweepResult r = RunSweep(ro);
  EXPECT_TRUE(r.ok()) << r.Summary() << Failures(r);
  EXPECT_GT(r.accepted, 50u) << r.Summary();
}

// Mutations: a rule skipped, a register not saved, restarts not rewound.
TEST(Sweep, CatchesASkippedUnsafePointRule) {
  if (AsyncMissing()) GTEST_SKIP() << "port " << NativePort().name << " declares asynchronous preemption missing";
  RuntimeOptions ro;
  ro.mutations.skip_rule = Reason::kUnsafePoint;
  EXPECT_GT(RunSweep(ro).disagreements, 0u);
}
TEST(Sweep, CatchesASkippedNosplitRule) {
  if (AsyncMissing()) GTEST_SKIP() << "port " << NativePort().name << " declares asynchronous preemption missing";
  RuntimeOptions ro;
  ro.mutations.skip_rule = Reason::kNosplit;
  EXPECT_GT(RunSweep(ro).disagreements, 0u);
}
TEST(Sweep, CatchesARegisterNotSaved) {
  if (AsyncMissing()) GTEST_SKIP() << "port " << NativePort().name << " declares asynchronous preemption missing";
  RuntimeOptions ro;
  ro.mutations.drop_register = true;
  SweepResult r = RunSweep(ro);
  EXPECT_GT(r.state_diffs, 0u) << r.Summary();
  // The save-area oracle names it, at the preemption itself.
  EXPECT_GT(r.save_area_wrong, 0u) << r.Summary();
  const std::string r3 = std::string(NativePort().ir_regs[3]) + ": saved";
  bool named = false;
  for (const std::string& f : r.failures) named = named || f.find(r3) != std::string::npos;
  EXPECT_TRUE(named) << "no failure names " << r3 << Failures(r);
}
// A table that opens each frame one instruction late is named at an
// accepted preemption, with the function, the PC and both SP offsets.
TEST(Sweep, CatchesAFrameTableOpeningLate) {
  if (AsyncMissing()) GTEST_SKIP() << "port " << NativePort().name << " declares asynchronous preemption missing";
  RuntimeOptions ro;
  ro.mutations.pcsp_late = true;
  SweepResult r = RunSweep(ro, true);
  EXPECT_GT(r.frame_wrong, 0u) << r.Summary();
  bool named = false;
  for (const std::string& f : r.failures)
    named = named || (f.find("frame table: ") != std::string::npos && f.find("the table has SP 0 below") != std::string::npos &&
                      f.find(", the machine SP ") != std::string::npos);
  EXPECT_TRUE(named) << "no failure names both SP offsets" << Failures(r);
}
TEST(Sweep, CatchesTheOutermostInlinedBody) {
  if (AsyncMissing()) GTEST_SKIP() << "port " << NativePort().name << " declares asynchronous preemption missing";
  RuntimeOptions ro;
  ro.mutations.outermost_inline = true;
  EXPECT_GT(RunSweep(ro).disagreements, 0u) << "the built-in program's inline trees are three deep both ways";
}
// asyncPreempt saving and restoring only the low half of each vector
// register: the program's vdump after a preemption between vfill and vdump
// differs from the unpreempted run's.
TEST(Sweep, CatchesVectorsSavedAtHalfWidth) {
  if (AsyncMissing()) GTEST_SKIP() << "port " << NativePort().name << " declares asynchronous preemption missing";
  RuntimeOptions ro;
  ro.mutations.half_vector_save = true;
  SweepResult r = RunSweep(ro);
  EXPECT_GT(r.state_diffs, 0u) << r.Summary();
  EXPECT_EQ(r.disagreements, 0u) << "only the state is wrong, never a verdict: " << r.Summary();
  // Every port's signal context holds more than half of each base-tier vector.
  EXPECT_GT(r.save_area_wrong, 0u) << r.Summary();
}
// The same under simd, where the tier is wider than the base one (amd64:
// YMM, or ZMM and K): the save-area oracle judges each wide register whole,
// so a failure names one of the tier's registers with all its bytes (the
// signal context's XSAVE components read, not only its FXSAVE part).
TEST(Sweep, UnderSimdTheSaveAreaOracleJudgesWideRegistersWhole) {
  if (AsyncMissing()) GTEST_SKIP() << "port " << NativePort().name << " declares asynchronous preemption missing";
  std::string why = NoSimdTier();
  if (!why.empty()) GTEST_SKIP() << why;
  RuntimeOptions ro;
  ro.experiments.simd = true;
  ro.mutations.half_vector_save = true;
  SweepResult r = RunSweep(ro, true);
  ASSERT_GT(r.save_area_wrong, 0u) << r.Summary() << Failures(r);
  size_t whole = 0;
  for (const std::string& f : r.failures)
    for (const SavedReg& reg : NativePort().saved_regs) {
      if (reg.kind != SavedReg::kVector || reg.tier == 0 || reg.size <= 16) continue;
      size_t at = f.find(std::string(reg.name) + ": saved 0x");
      if (at == std::string::npos || (at > 0 && f[at - 1] != ' ')) continue;
      size_t had = f.find("trap had 0x", at);
      if (had == std::string::npos) continue;
      size_t digits = 0;
      for (size_t i = had + 11; i < f.size() && isxdigit(static_cast<unsigned char>(f[i])); i++) digits++;
      EXPECT_EQ(digits, 2u * reg.size) << reg.name << " judged on " << digits / 2 << " of its " << reg.size
                                       << " bytes:\n  " << f;
      whole += digits == 2u * reg.size;
    }
  EXPECT_GT(whole, 0u) << "no failure names a register of the simd tier" << Failures(r);
}
TEST(Sweep, CatchesARestartNotRewound) {
  if (AsyncMissing()) GTEST_SKIP() << "port " << NativePort().name << " declares asynchronous preemption missing";
  if (!NativePort().model.regtmp_restartable)
    GTEST_SKIP() << "port " << NativePort().name << " declares no restartable sequences (PortModel::regtmp_restartable)";
  // asyncPreempt leaves the resume PC in REGTMP, as Go's does, so resuming
  // in place inside a sequence may load or store through a code address and
  // fault. A fault in a goroutine ends that run as Go's fatal signal does;
  // the sweep goes on, and counts it against the armed instruction.
  RuntimeOptions ro;
  ro.mutations.no_restart = true;
  SweepOptions opts;
  opts.runtime = ro;
  opts.max_failures = 100000;
  SweepResult r;
  std::string err;
  ASSERT_TRUE(Sweep(opts, &r, &err)) << err;
  EXPECT_GT(r.disagreements, 0u) << "the sweep did not notice restarts not rewound: " << r.Summary();
  size_t faults = 0;
  for (const std::string& f : r.failures) faults += f.find("run failed: unexpected signal SIG") != std::string::npos;
  EXPECT_EQ(faults, r.run_errors) << "every failed run is a fault named by its signal";
  EXPECT_GT(r.instructions, 0u);
  EXPECT_FALSE(r.interrupted);
}

// Frames whose stack check needs a constant (beyond the 12-bit immediate
// on the REGTMP ports), just above StackSmall, and a leaf with a large
// frame: every instruction of every prologue agrees with the oracle.
TEST(Sweep, LargeFramesCheckAsTheModelSays) {
  if (AsyncMissing()) GTEST_SKIP() << "port " << NativePort().name << " declares asynchronous preemption missing";
  SweepOptions opts;
  opts.program = R"(
func main.main frame=3000
  stslot 2992, r1
  call main.mid
  call main.edge
  call main.leafbig
  ret
end
func main.mid frame=2168
  call main.edge
  ret
end
func main.edge frame=128
  call main.leafbig
  ret
end
func main.leafbig frame=2400
  stslot 2392, r0
  ret
end
)";
  SweepResult r;
  std::string err;
  ASSERT_TRUE(Sweep(opts, &r, &err)) << err;
  EXPECT_TRUE(r.ok()) << r.Summary() << "\n" << [&] {
    std::string s;
    for (const std::string& f : r.failures) s += "  " + f + "\n";
    return s;
  }();
  EXPECT_GT(r.refused["unsafe-point"], 0u) << "the prologues' checks are refused: " << r.Summary();
}

// The port's sp_align is what its generated code keeps: at every
// instruction of frames of odd and even word counts, a nosplit leaf and a
// frameless one, the stack room above stack.lo (from the trap) is a multiple
// of it; and where it is 8, an odd multiple of 8 does occur (the value is not
// merely a divisor). The stack-room rule's boundary is met only by such an
// SP, which is what a fuzz campaign can show of the rule.
TEST(Sweep, StackRoomIsAMultipleOfSpAlign) {
  const uint32_t align = NativePort().sp_align;
  ASSERT_TRUE(align == 8 || align == 16) << "port " << NativePort().name << " declares sp_align " << align;
  ir::Program prog;
  std::string err;
  ASSERT_TRUE(ir::ParseProgram(R"(
func main.main frame=24
  movi r0, 1
  call main.mid
  call main.bare
  ret
end
func main.mid frame=40
  addi r0, 2
  call main.leaf
  ret
end
func main.leaf nosplit frame=8
  addi r0, 3
  ret
end
func main.bare frame=0
  addi r0, 4
  ret
end
)",
                               &prog, &err))
      << err;
  RuntimeOptions ro;
  ro.hooks.sysmon = false;
  ro.hooks.event_times = false;
  harness::Baseline base;
  size_t trapped = 0;
  bool odd_word = false;
  std::string bad;
  ASSERT_TRUE(harness::SweepEngine(
      prog, "main.main", harness::ReferenceRuntimeFactory(ro), &base,
      [&](const harness::Observation& o) {
        if (!o.trapped) return;
        trapped++;
        odd_word = odd_word || o.stack_room % 16 == 8;
        if (o.stack_room % align != 0)
          bad += "\n  " + o.func + "+" + std::to_string(o.off - o.func_entry) + ": stack room " +
                 std::to_string(o.stack_room);
      },
      &err))
      << err;
  EXPECT_GE(trapped, 12u) << "the armed instructions were reached";
  EXPECT_TRUE(bad.empty()) << "SP not a multiple of sp_align " << align << " above stack.lo:" << bad;
  if (align == 8) EXPECT_TRUE(odd_word) << "sp_align is 8 but no SP was an odd multiple of 8 above stack.lo";
}

TEST(Sweep, AMalformedProgramIsReported) {
  SweepOptions opts;
  opts.program = "func main.main\n  frobnicate r1\nend\n";
  SweepResult r;
  std::string err;
  EXPECT_FALSE(Sweep(opts, &r, &err));
  EXPECT_NE(err.find("unknown operation 'frobnicate'"), std::string::npos) << err;
}

}  // namespace
}  // namespace safepoint
