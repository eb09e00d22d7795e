// go-sweep's judges on real Go, each shown to see what it must: the Go 1.19
// `loops` program of goprogs/ for this config's CPU swept clean, then with
// the pcsp rows one instruction late (the frame-table oracle must find
// differences), with the unsafe-point table read as all safe (the decision
// oracle must disagree exactly where Go refused), and with a register
// changed at every stop (the invisibility oracle must see the output or
// the exit change, the save-area oracle the register come back changed).
#include "oracle/go_sweep.h"

#include <cstdlib>
#include <memory>

#include <gtest/gtest.h>

#include "platforms/native.h"
#include "realgo/binary.h"
#include "realgo/probe.h"
#include "realgo/tracer.h"

namespace safepoint::oracle {
namespace {

struct Loops {
  std::string path;
  std::unique_ptr<realgo::GoBinary> bin;
};

const Loops& Program() {
  static Loops* l = [] {
    auto* l = new Loops;
    const char* d = getenv("TEST_SRCDIR");
    l->path = std::string(d ? d : ".") + "/safepoint/goprogs/1.19/" + std::string(NativePort().go.goarch) + "/loops";
    std::string err;
    l->bin = realgo::GoBinary::Open(l->path, &err);
    EXPECT_TRUE(l->bin) << err;
    return l;
  }();
  return *l;
}

GoSweepResult Sweep(GoSweepMutation m, int clobber = -1, realgo::GoRequest req = realgo::GoRequest::kSched) {
  GoSweepOptions opt;
  opt.binary = Program().path;
  // Two functions: a loop with calls and the goroutine's body.
  opt.func_regex = "^main\\.(nonLeaf|onGoroutine)$";
  opt.mutation = m;
  opt.probe.emulator = realgo::EmulatorFromEnv();
  opt.probe.clobber_reg = clobber;
  opt.probe.request = req;
  if (const char* t = getenv("TEST_TMPDIR")) opt.probe.work_dir = t;
  return RunGoSweep(*Program().bin, NativePort(), opt);
}

TEST(GoSweepJudges, CleanAsGoBuiltIt) {
  ASSERT_TRUE(Program().bin);
  GoSweepResult r = Sweep(GoSweepMutation::kNone);
  ASSERT_TRUE(r.fatal.empty()) << r.fatal;
  EXPECT_TRUE(r.clean()) << GoSweepText(r);
  EXPECT_GT(r.total.accepted, 0u);
  EXPECT_GT(r.total.refused_by["unsafe-point"], 0u);
  EXPECT_EQ(r.total.frame_judged, r.total.accepted + r.total.restarted);
  // Every accepted goroutine followed back to its resume PC, its
  // registers as they were (or the program ended first).
  EXPECT_GT(r.total.saved_judged, 0u);
  EXPECT_EQ(r.total.saved_differences, 0u);
}

TEST(GoSweepJudges, TheFrameTableOracleSeesPcspOneInstructionLate) {
  ASSERT_TRUE(Program().bin);
  GoSweepResult r = Sweep(GoSweepMutation::kPcspLate);
  ASSERT_TRUE(r.fatal.empty()) << r.fatal;
  EXPECT_GT(r.total.frame_differences, 0u) << GoSweepText(r);
  size_t seen = 0;
  for (const GoFinding& f : r.findings) seen += f.kind == GoFinding::kFrameTable;
  EXPECT_EQ(seen, r.total.frame_differences);
  EXPECT_EQ(r.total.disagreements, 0u);
}

TEST(GoSweepJudges, TheDecisionOracleSeesAnUnsafePointTakenForSafe) {
  ASSERT_TRUE(Program().bin);
  const realgo::GoBinary& bin = *Program().bin;
  GoSweepResult r = Sweep(GoSweepMutation::kUnsafeIgnored);
  ASSERT_TRUE(r.fatal.empty()) << r.fatal;
  // Every PC Go refused by its unsafe-point table is now a disagreement,
  // and no other PC is.
  EXPECT_GT(r.total.disagreements, 0u) << GoSweepText(r);
  EXPECT_EQ(r.total.refused_by["unsafe-point"], 0u) << GoSweepText(r);
  size_t unsafe_refused = 0;
  for (const GoFinding& f : r.findings) {
    ASSERT_EQ(f.kind, GoFinding::kDecision) << f.message;
    EXPECT_EQ(f.message.rfind("Go refused; its tables say accepted", 0), 0u) << f.message;
    const realgo::GoFunc* fn = bin.FuncAt(f.pc);
    ASSERT_NE(fn, nullptr);
    unsafe_refused += realgo::GoBinary::ValueAt(fn->unsafe_point, fn->entry, f.pc, -1) == realgo::kUnsafePointUnsafe;
  }
  EXPECT_EQ(unsafe_refused, r.total.disagreements);
}

TEST(GoSweepJudges, TheInvisibilityOracleSeesARegisterChangedAtEveryStop) {
  ASSERT_TRUE(Program().bin);
  // The first integer argument and result register: live at many PCs.
  realgo::RegLayout layout;
  ASSERT_TRUE(realgo::LayoutFor(NativePort().elf_machine, &layout));
  GoSweepResult r = Sweep(GoSweepMutation::kNone, layout.ret);
  EXPECT_GT(r.output_differences + r.crashes, 0u) << GoSweepText(r);
  // The register read at the stop, changed before the signal: the
  // goroutine comes back with the changed value, not the stop's, and the
  // save-area oracle names it at every probe it followed.
  EXPECT_GT(r.total.saved_judged, 0u) << GoSweepText(r);
  EXPECT_EQ(r.total.saved_differences, r.total.saved_judged) << GoSweepText(r);
  for (const GoFinding& f : r.findings)
    if (f.kind == GoFinding::kSaveArea)
      EXPECT_NE(f.message.find("register " + std::to_string(layout.ret) + " "), std::string::npos) << f.message;
}

}  // namespace
}  // namespace safepoint::oracle
