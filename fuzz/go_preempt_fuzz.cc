// The real Go runtime under the fuzzer: an input picks one of goprogs/'s
// programs as a Go version built it for this config's CPU, a function of
// package main, an instruction of it, the kind of request (the scheduler's
// g.preempt or the collector's g.preemptStop) and a stress (none, forced
// collections, the runtime's traceback), and that instruction is probed in
// a guest kept running across inputs (realgo::GoGuest, one per program;
// the request and the stress are set per probe): the decision, the
// frame table, the save area, the collector's stack scan, the traceback and
// every ended guest run's output, each judged as go-sweep judges them
// (oracle::GoJudge). A finding prints ERROR lines with the go-sweep command
// that replays it and aborts with the input kept.
//
// Input (shorter inputs are zero-padded; every input is a case):
//   [0] program  [1] Go version  [2] request (bit 0: the collector's)
//   [3] stress (mod 3: none, collection, traceback)
//   then one to kMaxPoints points of 4 bytes each:
//   [+0..1] function (LE, modulo the program's main functions)
//   [+2..3] instruction (LE, modulo the function's instructions)
// The points are probed in the order the guest reaches them, as one run of
// a sweep probes its pending instructions. A point already chosen by the
// input, or one no fresh guest reached, is taken as the next instruction
// that is neither (of its function, then of the functions after it).
//
// A PC that a fresh guest never reaches (none of the input's, or, under
// the scheduler's kind, the ones left when it ran the program to its end)
// is remembered as unreached (no probe); one that a running guest did not
// reach in time gets a fresh guest, at most one an input that runs to the
// end. Extra counters carry the outcome by request and stress, the
// refusing rule and whether a new guest was needed. At exit: probes, probes
// per second, guests started.
//
// The suite runs it for a fixed number of runs from a fixed seed and its
// corpus on every config; longer: ./safepoint fuzz --targets=go_preempt_fuzz.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "core/files.h"
#include "core/hex.h"
#include "fuzz/artifacts.h"
#include "oracle/go_sweep.h"
#include "platforms/native.h"
#include "realgo/binary.h"
#include "realgo/probe.h"

namespace {

using safepoint::Hex;
using safepoint::oracle::GoCounts;
using safepoint::oracle::GoFinding;
using safepoint::oracle::GoJudge;
using safepoint::realgo::GoBinary;
using safepoint::realgo::GoGuest;
using safepoint::realgo::GuestRun;
using safepoint::realgo::ProbeResult;

constexpr const char* kVersions[] = {"1.19", "1.24", "1.26"};
constexpr int kStresses = 3;  // none, collection, traceback
constexpr size_t kLiveGuests = 6;  // guests kept running at once (one per program)
constexpr size_t kMaxPoints = 1024;  // instructions one input probes (more than most programs have in package main)
const char* const kStressName[] = {"none", "collection", "traceback"};
constexpr double kBudgetS = 60, kBudgetEmulatedS = 150;  // one input's probing, at most

// Outcome (6) x request (2) x stress (3), and a few more.
constexpr size_t kFeatures = 64;
__attribute__((used, section("__libfuzzer_extra_counters"))) uint8_t g_features[kFeatures];

// One program as one Go version built it: its binary, judge and the
// unpreempted run, made when an input first picks it.
struct Program {
  std::string path, name, version;
  std::unique_ptr<GoBinary> bin;
  GoJudge judge;
  GuestRun base;
  std::vector<std::vector<uint64_t>> insns;  // per chosen function
  size_t total_insns = 0;
  size_t unreached = 0;  // of them, how many State::unreached holds
  bool ready = false, broken = false, has_base = false;
};

// The guests' options (the request and the stress are set per probe:
// GoGuest::SetKind).
safepoint::realgo::ProbeOptions Options() {
  safepoint::realgo::ProbeOptions o;
  o.emulator = safepoint::realgo::EmulatorFromEnv();
  o.follow_resume = true;
  o.stop_timeout_s = o.emulator.empty() ? 10 : 30;
  if (const char* t = getenv("TEST_TMPDIR")) o.work_dir = t;
  return o;
}

// The unpreempted run, made the first time a guest run ends by itself.
const GuestRun& Base(Program& p) {
  if (!p.has_base) {
    p.base = safepoint::realgo::RunPlain(p.path, safepoint::NativePort(), Options());
    p.has_base = true;
    if (!p.base.error.empty()) {
      fprintf(stderr, "==safepoint-fuzz== ERROR: go_preempt_fuzz: %s: the unpreempted run: %s\n", p.path.c_str(),
              p.base.error.c_str());
      abort();
    }
  }
  return p.base;
}

struct State {
  std::vector<Program> progs;  // index: program * versions + version
  size_t programs = 0, versions = 0;
  std::map<size_t, std::unique_ptr<GoGuest>> guests;  // per program; request and stress are per probe
  std::set<std::pair<size_t, uint64_t>> unreached;  // (prog, pc) a fresh guest never reached
  size_t probes = 0, inputs = 0, guests_started = 0;
  size_t out_of_time = 0;  // points left unprobed by inputs that ran out of time
  double probing_s = 0, preparing_s = 0, starting_s = 0;
  // SAFEPOINT_GO_FUZZ_PIN="PROGRAM VERSION REQUEST STRESS" (e.g. "loops
  // 1.26 sched none"): every input probes that program with that request
  // and stress, only the instruction varies (to compare probes per second
  // with go-sweep's on the same program: ci/bench.sh).
  bool pinned = false;
  size_t pin_prog = 0;
  int pin_request = 0, pin_stress = 0;
};
State* g = nullptr;

std::string Runfile(const std::string& rel) {
  std::vector<std::string> places;
  if (const char* d = getenv("TEST_SRCDIR")) places.push_back(std::string(d) + "/safepoint/" + rel);
  char exe[4096];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n > 0) {
    exe[n] = 0;
    places.push_back(std::string(exe) + ".runfiles/safepoint/" + rel);
  }
  places.push_back(rel);
  for (const std::string& p : places)
    if (access(p.c_str(), R_OK) == 0) return p;
  return "";
}

std::vector<std::string> ProgramNames(const std::string& dir) { return safepoint::NamesIn(dir); }

bool Prepare(Program& p) {
  if (p.ready || p.broken) return p.ready;
  std::string err;
  p.bin = GoBinary::Open(p.path, &err);
  safepoint::oracle::GoSweepOptions opt;
  opt.binary = p.path;
  opt.probe = Options();
  if (!p.bin || !p.judge.Init(*p.bin, safepoint::NativePort(), opt, &err)) {
    fprintf(stderr, "==safepoint-fuzz== ERROR: go_preempt_fuzz: %s: %s\n", p.path.c_str(), err.c_str());
    p.broken = true;
    return false;
  }
  for (const safepoint::realgo::GoFunc* f : p.judge.chosen()) {
    std::vector<uint64_t> v;
    for (auto it = p.judge.instructions().lower_bound(f->entry); it != p.judge.instructions().end() && it->first < f->end; ++it)
      v.push_back(it->first);
    p.total_insns += v.size();
    if (!v.empty()) p.insns.push_back(std::move(v));
  }
  if (p.insns.empty()) {
    fprintf(stderr, "==safepoint-fuzz== ERROR: go_preempt_fuzz: %s: no instructions in package main\n", p.path.c_str());
    p.broken = true;
    return false;
  }
  p.ready = true;
  return true;
}

[[noreturn]] void Report(const Program& p, int request, int stress, const std::vector<GoFinding>& fs, const uint8_t* data,
                         size_t size) {
  const std::string arch(safepoint::NativePort().name);
  for (const GoFinding& f : fs) {
    std::string pcs;
    for (uint64_t pc : f.replay) pcs += (pcs.empty() ? "" : ",") + Hex(pc);
    fprintf(stderr, "==safepoint-fuzz== ERROR: go_preempt_fuzz: Go %s %s %s, request %s, stress %s: %s at %s [%s]: %s\n",
            p.version.c_str(), arch.c_str(), p.name.c_str(), request ? "gc" : "sched", kStressName[stress],
            safepoint::oracle::GoFindingKindName(f.kind), f.func.c_str(), f.insn.c_str(), f.message.c_str());
    fprintf(stderr, "==safepoint-fuzz== ERROR: |replay: ./safepoint go-sweep --arch=%s --go=%s --request=%s --stress=%s --pc=%s %s\n",
            arch.c_str(), p.version.c_str(), request ? "gc" : "sched", kStressName[stress], pcs.c_str(), p.name.c_str());
  }
  safepoint::fuzz::SaveArtifact("crash", data, size);
  abort();
}

void PrintStats() {
  if (g == nullptr || g->inputs == 0) return;
  fprintf(stderr,
          "go_preempt_fuzz: %zu inputs, %zu probes in %.2f s (%.1f probes/s, guest starts and the unpreempted runs "
          "included), %zu guests started (%.2f s), %zu PCs unreached, %zu points left by inputs out of time; %.2f s "
          "reading and disassembling the binaries\n",
          g->inputs, g->probes, g->probing_s, g->probing_s > 0 ? g->probes / g->probing_s : 0.0, g->guests_started,
          g->starting_s, g->unreached.size(), g->out_of_time, g->preparing_s);
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  g = new State;
  const std::string goarch(safepoint::NativePort().go.goarch);
  std::vector<std::string> names;
  for (const char* v : kVersions) {
    std::string dir = Runfile("goprogs/" + std::string(v) + "/" + goarch);
    if (dir.empty()) continue;
    if (names.empty()) names = ProgramNames(dir);
    g->versions++;
  }
  if (names.empty() || g->versions != std::size(kVersions)) {
    fprintf(stderr, "go_preempt_fuzz: the Go programs for %s are not in the runfiles (goprogs/V/%s/): build through Bazel\n",
            goarch.c_str(), goarch.c_str());
    exit(2);
  }
  // SAFEPOINT_GO_FUZZ_PROGRAMS=a,b: only these programs (the suite's short
  // run: each program's tables cost a disassembly of its whole text).
  if (const char* only = getenv("SAFEPOINT_GO_FUZZ_PROGRAMS"); only && *only) {
    std::vector<std::string> keep;
    std::string list = std::string(",") + only + ",";
    for (const std::string& n : names)
      if (list.find("," + n + ",") != std::string::npos) keep.push_back(n);
    if (keep.empty()) {
      fprintf(stderr, "go_preempt_fuzz: SAFEPOINT_GO_FUZZ_PROGRAMS=%s names no program of goprogs/\n", only);
      exit(2);
    }
    names = keep;
  }
  g->programs = names.size();
  for (const std::string& n : names)
    for (const char* v : kVersions) {
      Program p;
      p.name = n;
      p.version = v;
      p.path = Runfile("goprogs/" + std::string(v) + "/" + goarch + "/" + n);
      g->progs.push_back(std::move(p));
    }
  if (const char* pin = getenv("SAFEPOINT_GO_FUZZ_PIN"); pin && *pin) {
    char prog[64] = {}, ver[16] = {}, req[16] = {}, st[16] = {};
    bool ok = sscanf(pin, "%63s %15s %15s %15s", prog, ver, req, st) == 4;
    size_t pi = g->progs.size();
    for (size_t i = 0; ok && i < g->progs.size(); i++)
      if (g->progs[i].name == prog && g->progs[i].version == ver) pi = i;
    int stress = -1;
    for (int i = 0; i < kStresses; i++)
      if (std::string(st) == kStressName[i]) stress = i;
    if (!ok || pi == g->progs.size() || stress < 0 || (std::string(req) != "sched" && std::string(req) != "gc")) {
      fprintf(stderr, "go_preempt_fuzz: SAFEPOINT_GO_FUZZ_PIN=%s: want \"PROGRAM VERSION sched|gc none|collection|traceback\" "
              "with a program of goprogs/ and a version of 1.19, 1.24, 1.26\n", pin);
      exit(2);
    }
    g->pinned = true;
    g->pin_prog = pi;
    g->pin_request = std::string(req) == "gc";
    g->pin_stress = stress;
  }
  safepoint::fuzz::StartStallWatchdog("go_preempt_fuzz", *argc, *argv,
                                      "bazel run --config=" + std::string(safepoint::NativePort().name) +
                                          " //fuzz:go_preempt_fuzz -- INPUT");
  atexit(PrintStats);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  uint8_t head[4] = {};
  for (size_t i = 0; i < size && i < sizeof head; i++) head[i] = data[i];
  size_t pi = (head[0] % g->programs) * g->versions + head[1] % g->versions;
  int request = head[2] & 1, stress = head[3] % kStresses;
  if (g->pinned) {
    pi = g->pin_prog;
    request = g->pin_request;
    stress = g->pin_stress;
  }
  Program& p = g->progs[pi];
  auto p0 = std::chrono::steady_clock::now();
  bool prepared = Prepare(p);
  g->preparing_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - p0).count();
  if (!prepared) {
    safepoint::fuzz::SaveArtifact("crash", data, size);
    abort();
  }
  // The points: at least one (an input of four bytes or fewer probes the
  // first instruction of the first function).
  std::vector<uint64_t> pcs;
  std::set<uint64_t> chosen;
  // Every instruction no fresh guest missed, at most: then the input is done.
  const size_t available = std::min(kMaxPoints, p.total_insns - p.unreached);
  for (size_t at = 4; available > 0 && (pcs.empty() || (at + 4 <= size && pcs.size() < available)); at += 4) {
    uint8_t b[4] = {};
    for (size_t i = 0; i < 4 && at + i < size; i++) b[i] = data[at + i];
    size_t fi = (b[0] | b[1] << 8) % p.insns.size(), ii = (b[2] | b[3] << 8) % p.insns[fi].size();
    // A point already chosen, or one no fresh guest reaches, moves on to
    // the next instruction (of the function, then of the next ones): every
    // point of an input is probed once and none is spent on what a guest
    // never reaches, so an input's guest run probes as many instructions
    // as the sweep's run does (a duplicate dropped made a 256-point input
    // probe ~170, and the fuzzer 0.71 of the sweep per probe).
    for (size_t step = 0; step < p.total_insns; step++) {
      const uint64_t pc = p.insns[fi][ii];
      if (!chosen.count(pc) && !g->unreached.count({pi, pc})) {
        chosen.insert(pc);
        pcs.push_back(pc);
        break;
      }
      if (++ii == p.insns[fi].size()) ii = 0, fi = (fi + 1) % p.insns.size();
    }
    if (at + 4 > size) break;
  }
  g->inputs++;
  if (pcs.empty()) {
    g_features[48]++;
    return 0;
  }
  safepoint::fuzz::WatchedExecution watch(data, size);
  if (g->guests.count(pi) == 0 && g->guests.size() >= kLiveGuests) g->guests.erase(g->guests.begin());
  auto& guest = g->guests[pi];
  if (!guest) guest = std::make_unique<GoGuest>(p.path, *p.bin, safepoint::NativePort(), Options());
  guest->SetKind(request ? safepoint::realgo::GoRequest::kGC : safepoint::realgo::GoRequest::kSched, stress == 1, stress == 2);
  const bool emulated = !safepoint::realgo::EmulatorFromEnv().empty();
  const double reach_s = emulated ? 5 : 2;
  // An input's time: no probe starts after this, whatever is left (a long
  // input under a slow kind, the traceback's one guest run per accepted
  // probe, must end well inside the BUILD file's -timeout=300).
  const double until_s = safepoint::realgo::internal::NowSeconds() + (emulated ? kBudgetEmulatedS : kBudgetS);
  std::vector<GoFinding> findings;
  // The points still left, remembered as unreached in this program.
  auto remember_unreached = [&] {
    for (uint64_t pc : pcs)
      if (g->unreached.insert({pi, pc}).second) p.unreached++;
  };
  auto t0 = std::chrono::steady_clock::now();
  // The guest running, then fresh ones while each probes something (the
  // traceback stress ends a guest at each accepted probe); a point a fresh
  // guest does not reach is unreached.
  for (int attempt = 0; !pcs.empty() && attempt < static_cast<int>(kMaxPoints) + 2; attempt++) {
    std::vector<ProbeResult> probes;
    GuestRun ended;
    size_t started = guest->runs();
    double start_s = guest->start_seconds();
    GoGuest::Outcome o = guest->ProbeSet(pcs, reach_s, &probes, &ended, until_s);
    g->guests_started += guest->runs() - started;
    g->starting_s += guest->start_seconds() - start_s;
    const bool fresh = guest->fresh();
    GoFinding f;
    for (const ProbeResult& r : probes) {
      g->probes++;
      pcs.erase(std::find(pcs.begin(), pcs.end(), r.pc));
      GoCounts c;
      p.judge.Probe(r, c, findings);
      if (r.traceback && guest->ended() && p.judge.Traceback(r, ended, &f)) findings.push_back(f);
      size_t outcome = static_cast<size_t>(r.outcome) % 6;
      g_features[(outcome * 2 + request) * kStresses + stress]++;
      g_features[40 + (c.refused_by.empty() ? 0 : c.refused_by.begin()->first.size() % 6)]++;
      if (r.gc_scanned) g_features[46]++;
      if (fresh) g_features[47]++;
    }
    const bool judged_run = ended.error.empty() && !ended.probed.empty() && ended.traceback_pc == 0;
    if (guest->ended() && judged_run && p.judge.Run(ended, 0, Base(p), &f)) findings.push_back(f);
    if (o == GoGuest::kError) {
      f = GoFinding();
      f.kind = GoFinding::kLost;
      f.pc = pcs.empty() ? 0 : pcs[0];
      f.func = Hex(f.pc);
      f.insn = p.judge.Insn(f.pc);
      f.replay = pcs;
      f.message = "the guest could not run: " + ended.error;
      findings.push_back(f);
      break;
    }
    if (o == GoGuest::kOutOfTime || safepoint::realgo::internal::NowSeconds() >= until_s) {
      g->out_of_time += pcs.size();  // (no feature: it is the clock's)
      break;
    }
    if (probes.empty() && fresh) {
      // Nothing reached by a fresh guest: none of these ever is.
      remember_unreached();
      g_features[49]++;
      break;
    }
    if (fresh && o == GoGuest::kEnded && ended.traceback_pc == 0) {
      // A fresh guest ran the program to its end: what one run probes is
      // probed, as a sweep's run does. Under the scheduler's kind, which
      // asks at every execution, the rest was never executed: unreached.
      // Under the collector's kind (asked only while a collection marks)
      // the rest waits for a later input: fresh guests started again for
      // it, ~2.4 guests an input, made the fuzzer 0.89-0.92 of the sweep
      // per probe natively.
      if (!request) remember_unreached();
      break;
    }
  }
  g->probing_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!findings.empty()) Report(p, request, stress, findings, data, size);
  return 0;
}
