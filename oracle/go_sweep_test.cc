// go-sweep's judges on real Go, each shown to see what it must: the Go 1.19
// `loops` program of goprogs/ for this config's CPU swept clean, then with
// the pcsp rows one instruction late (the frame-table oracle must find
// differences), with the unsafe-point table read as all safe (the decision
// oracle must disagree exactly where Go refused), and with a register
// changed at every stop (the invisibility oracle must see the output or
// the exit change, the save-area oracle the register come back changed).
#include "oracle/go_sweep.h"

#include <cstdio>
#include <cstdlib>
#include <functional>
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

GoSweepResult Sweep(GoSweepMutation m, int clobber = -1, realgo::GoRequest req = realgo::GoRequest::kSched,
                    const std::string& clobber_vec = "") {
  GoSweepOptions opt;
  opt.binary = Program().path;
  // Two functions: a loop with calls and the goroutine's body.
  opt.func_regex = "^main\\.(nonLeaf|onGoroutine)$";
  opt.mutation = m;
  opt.probe.emulator = realgo::EmulatorFromEnv();
  opt.probe.clobber_reg = clobber;
  opt.probe.clobber_vec = clobber_vec;
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

// A floating-point or vector register asyncPreempt must give back, changed
// at every stop: the save-area oracle names it at every probe it followed
// (the goroutine comes back with the changed value, not the stop's).
TEST(GoSweepJudges, TheSaveAreaOracleSeesAVectorRegisterChangedAtEveryStop) {
  ASSERT_TRUE(Program().bin);
  const auto& vec = NativePort().go.preserved_vec;
  ASSERT_FALSE(vec.empty()) << NativePort().name << " declares no floating-point register asyncPreempt keeps";
  const std::string name(vec.front().name);
  GoSweepResult r = Sweep(GoSweepMutation::kNone, -1, realgo::GoRequest::kSched, name);
  ASSERT_TRUE(r.fatal.empty()) << r.fatal;
  EXPECT_GT(r.total.saved_judged, 0u) << GoSweepText(r);
  EXPECT_EQ(r.total.saved_differences, r.total.saved_judged) << GoSweepText(r);
  for (const GoFinding& f : r.findings)
    if (f.kind == GoFinding::kSaveArea) EXPECT_NE(f.message.find(name + " 0x"), std::string::npos) << f.message;
}

// The traceback stress over main.nonLeaf.
GoSweepOptions TracebackOptions() {
  GoSweepOptions opt;
  opt.binary = Program().path;
  opt.func_regex = "^main\\.nonLeaf$";
  opt.probe.emulator = realgo::EmulatorFromEnv();
  opt.probe.traceback = true;
  if (const char* t = getenv("TEST_TMPDIR")) opt.probe.work_dir = t;
  return opt;
}

// The traceback stress over one function: every accepted goroutine's
// traceback printed by the runtime agrees with the frame table's walk.
TEST(GoSweepJudges, TheRuntimesTracebackAgreesWithTheFrameTableAtEveryAcceptedStop) {
  ASSERT_TRUE(Program().bin);
  GoSweepOptions opt = TracebackOptions();
  GoSweepResult r = RunGoSweep(*Program().bin, NativePort(), opt);
  ASSERT_TRUE(r.fatal.empty()) << r.fatal;
  EXPECT_TRUE(r.clean()) << GoSweepText(r);
  EXPECT_GT(r.total.accepted, 0u);
  EXPECT_EQ(r.total.tracebacks, r.total.accepted + r.total.restarted) << GoSweepText(r);
  EXPECT_EQ(r.output_differences + r.crashes, 0u) << "a traceback's run is not judged for its exit status";
}

// Replaces the first occurrence of `from` after `after` in `s` (false: none).
bool ReplaceAfter(std::string& s, const std::string& after, const std::string& from, const std::string& to) {
  size_t a = s.find(after);
  if (a == std::string::npos) return false;
  size_t at = s.find(from, a + after.size());
  if (at == std::string::npos) return false;
  s.replace(at, from.size(), to);
  return true;
}

// The traceback judge field by field: a real traceback at one accepted
// stop, then each thing it compares changed alone.
TEST(GoSweepJudges, TheTracebackJudgeSeesEachFieldItCompares) {
  ASSERT_TRUE(Program().bin);
  const realgo::GoBinary& bin = *Program().bin;
  GoSweepOptions opt = TracebackOptions();
  GoJudge judge;
  std::string err;
  ASSERT_TRUE(judge.Init(bin, NativePort(), opt, &err)) << err;
  // The function's first instruction (its entry: Go accepts there).
  const realgo::GoFunc* f = bin.FuncNamed("main.nonLeaf");
  ASSERT_NE(f, nullptr);
  realgo::ProbeReport rep = realgo::ProbeAll(opt.binary, bin, NativePort(), {f->entry}, opt.probe);
  ASSERT_EQ(rep.probes.size(), 1u) << rep.fatal;
  const realgo::ProbeResult& pr = rep.probes[0];
  ASSERT_EQ(pr.outcome, realgo::ProbeResult::kAccepted) << pr.error;
  ASSERT_TRUE(pr.traceback);
  ASSERT_LT(pr.run, rep.runs.size());
  const realgo::GuestRun& run = rep.runs[pr.run];
  GoFinding g;
  ASSERT_FALSE(judge.Traceback(pr, run, &g)) << g.message << "\n" << run.err;
  char pc_text[32], sp_text[32];
  snprintf(pc_text, sizeof pc_text, " pc=0x%llx", static_cast<unsigned long long>(pr.resume));
  snprintf(sp_text, sizeof sp_text, " sp=0x%llx", static_cast<unsigned long long>(pr.at.sp));
  ASSERT_NE(run.err.find(pc_text), std::string::npos) << run.err;
  struct Edit {
    const char* what;
    std::function<bool(std::string&)> apply;
    const char* expect;  // in the finding's message
  };
  const std::vector<Edit> edits = {
      {"no SIGQUIT header", [](std::string& e) { return ReplaceAfter(e, "", "SIGQUIT: quit", "SIGQUIT: (gone)"); }, "none printed"},
      {"an unwinder complaint",
       [](std::string& e) {
         e += "runtime: unexpected return pc for main.nonLeaf called from 0x1234\n";
         return true;
       },
       "unexpected return pc"},
      {"no asyncPreempt frame",
       [](std::string& e) { return ReplaceAfter(e, "", "runtime.asyncPreempt(", "runtime.somethingElse("); },
       "starts in runtime.asyncPreempt"},
      {"the interrupted frame's PC",
       [&](std::string& e) { return ReplaceAfter(e, "runtime.asyncPreempt(", pc_text, " pc=0x1"); }, "not the resume PC"},
      {"the interrupted frame's SP",
       [&](std::string& e) { return ReplaceAfter(e, "runtime.asyncPreempt(", sp_text, " sp=0x8"); }, "SP is 0x8"},
      {"the caller's PC",
       [&](std::string& e) { return ReplaceAfter(e, std::string("runtime.asyncPreempt(") , "main.nonLeafLoop", "main.nonLeafLoop") &&
                                    ReplaceAfter(e, "main.nonLeafLoop(", " pc=0x", " pc=0x1"); },
       "frame 1"},
  };
  for (const Edit& ed : edits) {
    realgo::GuestRun bad = run;
    ASSERT_TRUE(ed.apply(bad.err)) << ed.what << ": the edit did not apply to\n" << run.err;
    GoFinding found;
    EXPECT_TRUE(judge.Traceback(pr, bad, &found)) << ed.what << ": not seen";
    EXPECT_NE(found.message.find(ed.expect), std::string::npos) << ed.what << ": " << found.message;
    EXPECT_EQ(found.kind, GoFinding::kTraceback) << ed.what;
    EXPECT_EQ(found.pc, pr.pc) << ed.what;
  }
}

}  // namespace
}  // namespace safepoint::oracle
