// The real Go runtime under test (issue 28): every program of goprogs/, as
// built with one Go version for this config's CPU, swept by go-sweep's
// engine (oracle/go_sweep.h): each chosen instruction stopped at, a
// preemption asked for as the scheduler asks, SIGURG delivered; each
// verdict judged by the binary's own tables, each accepted stop's frames by
// its pcsp, each guest run's output against an unpreempted run's.
//
// A finding fails the test unless conformance/go_findings.txt records it as
// a bug in Go (version, CPU, program, kind, function); a record that no run
// reproduces fails too: a Go that no longer has the bug says so.
//
// The Go version comes from the build (SAFEPOINT_GO_VERSION); the programs
// from the test's data (//goprogs:goV_ARCH for this config's CPU).
#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/files.h"
#include "oracle/go_sweep.h"
#include "platforms/native.h"
#include "realgo/binary.h"
#include "realgo/probe.h"

#ifndef SAFEPOINT_GO_VERSION
#error "SAFEPOINT_GO_VERSION must be set by the build (conformance/BUILD.bazel)"
#endif

namespace safepoint {
namespace {

std::string Runfiles() {
  const char* d = getenv("TEST_SRCDIR");
  return std::string(d ? d : ".") + "/safepoint";
}

std::vector<std::string> Programs(const std::string& dir) { return NamesIn(dir); }

// The suite's fixed selection: natively every function of package main;
// under emulation every one but main.main (the largest of each program, a
// third to a half of its instructions: the emulated configs' sweeps would
// take most of CI's time). The whole of package main runs everywhere
// behind ./safepoint go-sweep and ci/go-sweep.sh (the nightly workflow),
// where every accepted goroutine is also followed back (the save area).
std::string Selection(bool emulated) { return emulated ? "^main\\.(?!main$)" : "^main\\."; }

// One line of conformance/go_findings.txt:
//   VERSION ARCH PROGRAM KIND FUNCTION-PREFIX | why, upstream issue, smallest program
struct Record {
  std::string version, arch, program, kind, func, why;
  int line = 0;
  bool seen = false;
};

std::vector<Record> Records() {
  std::vector<Record> v;
  std::ifstream f(Runfiles() + "/conformance/go_findings.txt");
  std::string line;
  int n = 0;
  while (std::getline(f, line)) {
    n++;
    if (line.empty() || line[0] == '#') continue;
    Record r;
    r.line = n;
    size_t bar = line.find('|');
    std::istringstream in(line.substr(0, bar));
    in >> r.version >> r.arch >> r.program >> r.kind >> r.func;
    r.why = bar == std::string::npos ? "" : line.substr(bar + 1);
    v.push_back(r);
  }
  return v;
}

// Each finding must be a recorded bug in Go; the records it matches are
// marked seen.
void ExpectOnlyRecorded(const oracle::GoSweepResult& r, const std::string& version, const std::string& goarch,
                        const std::string& p, std::vector<Record>& records) {
  for (const oracle::GoFinding& f : r.findings) {
    bool known = false;
    for (Record& rec : records) {
      if (rec.version == version && rec.arch == goarch && rec.program == p &&
          rec.kind == oracle::GoFindingKindName(f.kind) && f.func.rfind(rec.func, 0) == 0) {
        rec.seen = known = true;
        printf("  expected (a bug in Go, go_findings.txt:%d): %s %s: %s\n", rec.line, p.c_str(), f.func.c_str(),
               f.message.c_str());
      }
    }
    EXPECT_TRUE(known) << p << ": " << oracle::GoFindingKindName(f.kind) << " at " << f.func << " [" << f.insn
                       << "]: " << f.message;
  }
}

TEST(GoSweep, EveryProgramIsJudgedCleanOrItsFindingsAreGosRecordedBugs) {
  const std::string version = SAFEPOINT_GO_VERSION;
  const PortInfo& port = NativePort();
  const std::string goarch(port.go.goarch);
  const std::string dir = Runfiles() + "/goprogs/" + version + "/" + goarch;
  std::vector<std::string> programs = Programs(dir);
  ASSERT_FALSE(programs.empty()) << "no Go programs in " << dir;
  std::vector<Record> records = Records();
  oracle::GoCounts all;
  size_t runs = 0;
  double seconds = 0;
  printf("go-sweep, Go %s on %s (%s):\n", version.c_str(), goarch.c_str(),
         realgo::EmulatorFromEnv().empty() ? "natively, ptrace" : "under QEMU, gdbstub");
  for (const std::string& p : programs) {
    std::string err;
    std::unique_ptr<realgo::GoBinary> bin = realgo::GoBinary::Open(dir + "/" + p, &err);
    ASSERT_TRUE(bin) << p << ": " << err;
    EXPECT_EQ(bin->go_version().rfind("go" + version, 0), 0u) << p << " was built by " << bin->go_version();
    oracle::GoSweepOptions opt;
    opt.binary = dir + "/" + p;
    opt.probe.emulator = realgo::EmulatorFromEnv();
    opt.func_regex = Selection(!opt.probe.emulator.empty());
    // Following each accepted goroutine back to its resume PC (the save
    // area) halves the emulated probing rate: natively here; on every
    // port in oracle:go_sweep_test and behind ci/go-sweep.sh.
    opt.probe.follow_resume = opt.probe.emulator.empty();
    if (const char* t = getenv("TEST_TMPDIR")) opt.probe.work_dir = t;
    oracle::GoSweepResult r = oracle::RunGoSweep(*bin, port, opt);
    ASSERT_TRUE(r.fatal.empty()) << p << ": " << r.fatal;
    printf("  %-11s %5zu insns %5zu probed %5zu accepted %4zu restarted %5zu refused %4zu unreached, %zu frames judged, "
           "%zu runs, %.0f probes/s\n",
           p.c_str(), r.total.insns, r.total.probed, r.total.accepted, r.total.restarted, r.total.refused,
           r.total.unreached, r.total.frame_judged, r.runs, r.seconds > 0 ? r.total.probed / r.seconds : 0.0);
    all.Add(r.total);
    runs += r.runs;
    seconds += r.seconds;
    // Every chosen instruction is accounted for: probed, or never executed.
    EXPECT_EQ(r.total.probed + r.total.unreached + r.total.lost, r.total.insns) << p;
    EXPECT_GT(r.total.probed, r.total.insns / 2) << p << ": most of the chosen instructions must run";
    ExpectOnlyRecorded(r, version, goarch, p, records);
  }
  printf("  %-11s %5zu insns %5zu probed %5zu accepted %4zu restarted %5zu refused %4zu unreached, %zu frames judged, "
         "%zu runs, %.0f probes/s\n",
         "total", all.insns, all.probed, all.accepted, all.restarted, all.refused, all.unreached, all.frame_judged, runs,
         seconds > 0 ? all.probed / seconds : 0.0);
  for (const auto& [rule, n] : all.refused_by) printf("  refused by %s: %zu\n", rule.c_str(), n);
  // The verdicts are not all of one kind: the tables and the runtime were
  // both asked something.
  EXPECT_GT(all.accepted, 0u);
  EXPECT_GT(all.refused_by["unsafe-point"], 0u);
  EXPECT_GT(all.frame_judged, 0u);
  for (const Record& rec : records)
    if (rec.version == version && rec.arch == goarch)
      EXPECT_TRUE(rec.seen) << "go_findings.txt:" << rec.line << " records a bug in Go " << version << " on " << goarch
                            << " (" << rec.program << " " << rec.kind << " " << rec.func
                            << ") that no run shows now: remove the record if Go fixed it";
}


// The collector's kind of request (g.preemptStop, as suspendG asks) over
// the program whose collections mark while it runs: each accepted
// goroutine parks in preemptPark at the stop, the mark phase's stack scan
// meets it there (conservatively for the interrupted frame, by stack maps
// above it) and readies it. A crash of the runtime, a changed output, a
// frame the tables do not explain or a register not given back is a
// finding. Natively with every Go version; under emulation with Go 1.26
// only, and without main.main (the whole of both kinds on every port and
// version: ci/go-sweep.sh).
TEST(GoSweep, TheCollectorsKindOfRequestMeetsEachParkedGoroutineInAStackScan) {
  const std::string version = SAFEPOINT_GO_VERSION;
  const PortInfo& port = NativePort();
  const std::string goarch(port.go.goarch);
  const bool emulated = !realgo::EmulatorFromEnv().empty();
  if (emulated && version != "1.26") GTEST_SKIP() << "emulated: the collector's kind runs with Go 1.26 in the suite";
  const std::string p = "gc", path = Runfiles() + "/goprogs/" + version + "/" + goarch + "/" + p;
  std::string err;
  std::unique_ptr<realgo::GoBinary> bin = realgo::GoBinary::Open(path, &err);
  ASSERT_TRUE(bin) << path << ": " << err;
  std::vector<Record> records = Records();
  oracle::GoSweepOptions opt;
  opt.binary = path;
  opt.probe.emulator = realgo::EmulatorFromEnv();
  opt.probe.request = realgo::GoRequest::kGC;
  opt.func_regex = Selection(emulated);
  if (const char* t = getenv("TEST_TMPDIR")) opt.probe.work_dir = t;
  oracle::GoSweepResult r = oracle::RunGoSweep(*bin, port, opt);
  ASSERT_TRUE(r.fatal.empty()) << r.fatal;
  printf("go-sweep --request=gc, Go %s on %s: %zu insns %zu probed %zu accepted %zu refused %zu unreached, "
         "%zu back scanned while parked, %zu save areas judged, %zu runs, %.1f probes/s\n",
         version.c_str(), goarch.c_str(), r.total.insns, r.total.probed, r.total.accepted, r.total.refused,
         r.total.unreached, r.total.gc_scanned, r.total.saved_judged, r.runs,
         r.seconds > 0 ? r.total.probed / r.seconds : 0.0);
  EXPECT_EQ(r.total.probed + r.total.unreached + r.total.lost, r.total.insns);
  EXPECT_GT(r.total.probed, r.total.insns / 2) << "most chosen instructions must be met while a collection marks";
  EXPECT_GT(r.total.accepted, 0u);
  // The stack scan met the goroutine where it parked, nearly every time
  // (one whose next cycle began before it ran again shows as unscanned).
  EXPECT_GE(r.total.gc_scanned * 10, r.total.accepted * 8)
      << r.total.gc_scanned << " of " << r.total.accepted << " came back scanned";
  EXPECT_EQ(r.total.lost, 0u);
  ExpectOnlyRecorded(r, version, goarch, p, records);
}

}  // namespace
}  // namespace safepoint
