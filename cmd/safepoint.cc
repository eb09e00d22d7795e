// safepoint: the harness's command line.
//
//   safepoint experiment [--arch=A] [--deadline=SECONDS] [--omit-stack-check]
//       the chapter's experiment of 9.7.1, six lines in its wording
//   safepoint sweep [--arch=A] [--program=FILE] [--runtimesecret] [--mutate=M]
//                   [--collect] [--xstate-scan=go1.26|go1.27]
//       preempts at every instruction of every function, one at a time;
//       prints counts per outcome; fails on any disagreement with the
//       decision oracle or any change of the program's end state; with
//       --collect runs a whole collection at every accepted preemption
//       (the built-in heap program by default) and fails on a lost object
//   safepoint run [--arch=A] [--gomaxprocs=N] [--godebug=S] [--events] [--json] FILE
//       runs a program description's main.main, prints its globals and what
//       the runtime did (preemptions, refusals by rule, deferrals, restarts,
//       stack growths), per goroutine and in total
//   safepoint repro [--arch=A] [--times=N] [--mutate=M] [--no-triage] FILE
//       replays a preemption fuzzer's input (fuzz/preempt_fuzz, a crash
//       artifact) N times and says whether every replay gives the same
//       verdict; a failure is triaged: replayed natively (amd64 under QEMU)
//       or under a second emulator configuration (one instruction per
//       translation block) to tell a runtime bug from an emulator artifact
//   safepoint go-sweep [--arch=A] [--go=V] [--request=sched|gc] [--stress=none|collection|traceback] [--func=RE] [--pc=PCS]
//                      [--json] [--findings=FILE] BINARY|PROGRAM
//       the real Go runtime under test: every instruction of the chosen
//       functions of an unmodified Go binary (or a goprogs/ program built
//       with that Go for this config's CPU) probed once, judged by the
//       binary's own tables, its pcsp, and an unpreempted run's output
//   safepoint rules
//       the refusal rules with their chapter sections
//   safepoint help
//
// A binary runs the port it was built for; --arch names that port (the
// ./safepoint wrapper at the top of the checkout picks the build config and
// the emulator from it). Exit status: 0 on success, 1 when a run failed,
// 2 for bad input (an unknown subcommand, flag, architecture, a malformed
// program or GODEBUG).
#include <signal.h>
#include <sys/wait.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <thread>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "cmd/report.h"
#include "harness/experiment.h"
#include "harness/flags.h"
#include "harness/generator.h"
#include "oracle/go_sweep.h"
#include "oracle/preempt_case.h"
#include "oracle/rules.h"
#include "harness/mutations.h"
#include "harness/sweep.h"
#include "oracle/sweep.h"
#include "platforms/native.h"
#include "realgo/binary.h"
#include "runtime/runtime.h"

namespace safepoint {
namespace {

using harness::CommandLine;
using harness::FlagDef;
using harness::SubcommandDef;
using harness::kFlags;

int SubcommandUsage(const SubcommandDef& c) {
  printf("usage: %s [--arch=A]\n\n%s\n\nflags:\n", c.usage, c.help);
  std::string prefix = std::string(c.name) + ":";
  for (const FlagDef& d : kFlags)
    if (std::string(d.help).rfind(prefix, 0) == 0 || std::string(d.name) == "arch")
      printf("  --%-18s %s (default \"%s\")\n", d.name, d.help, d.def);
  return 0;
}

int Usage(FILE* f) {
  fprintf(f,
          "usage: safepoint [--arch=A] experiment|sweep|run|rules|help [flags] [FILE]\n"
          "  experiment   the chapter's 9.7.1 experiment on this port\n"
          "  sweep        preempt at every instruction; check the oracle and the end state\n"
          "  run FILE     run a program description's main.main; say what the runtime did\n"
          "  rules        the refusal rules, in the runtime's order, with their chapter sections\n"
          "Exit status: 0 ok, 1 a failed run or sweep, 2 bad input or a fatal runtime error (as Go),\n"
          "3 --timeout passed, 130 interrupted.\n"
          "flags:\n");
  for (const FlagDef& d : kFlags) fprintf(f, "  --%-18s %s (default \"%s\")\n", d.name, d.help, d.def);
  return f == stderr ? 2 : 0;
}

int Bad(const std::string& msg) {
  fprintf(stderr, "safepoint: %s\n", msg.c_str());
  return 2;
}

// --- ending: --timeout and SIGINT -----------------------------------------

std::atomic<bool> g_stop{false};  // SIGINT: stop after the current step
std::string g_cmd;

void StartWatchdog(double seconds, const std::string& cmd) {
  std::thread([seconds, cmd] {
    std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
    fprintf(stderr, "safepoint: %s timed out after %g s (--timeout)\n", cmd.c_str(), seconds);
    fflush(nullptr);
    _exit(3);
  }).detach();
}

void OnInterrupt(int) {
  if (g_stop.exchange(true)) _exit(130);  // a second ^C: now
  if (g_cmd != "sweep") {
    const char msg[] = "safepoint: interrupted\n";
    ssize_t n = write(2, msg, sizeof msg - 1);
    (void)n;
    _exit(130);
  }
}

void InstallInterrupt(const std::string& cmd) {
  g_cmd = cmd;
  struct sigaction sa = {};
  sa.sa_handler = OnInterrupt;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
}

// Reads at most `limit` bytes; false with *err for a missing file, a
// directory, an empty file or one larger than the limit.
bool ReadBounded(const std::string& path, size_t limit, std::string* out, std::string* err) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) {
    *err = "cannot read " + path + ": " + strerror(errno);
    return false;
  }
  if (S_ISDIR(st.st_mode)) {
    *err = path + " is a directory, not a program description";
    return false;
  }
  FILE* f = fopen(path.c_str(), "rb");
  if (!f) {
    *err = "cannot read " + path + ": " + strerror(errno);
    return false;
  }
  out->clear();
  char buf[65536];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, f)) > 0) {
    out->append(buf, n);
    if (out->size() > limit) {
      fclose(f);
      *err = path + " is larger than " + std::to_string(limit) + " bytes: not a program description";
      return false;
    }
  }
  fclose(f);
  if (out->empty()) {
    *err = path + " is empty";
    return false;
  }
  return true;
}
constexpr size_t kMaxProgramBytes = 1 << 20;

int Rules() {
  printf("%-16s %-13s %-6s %s\n", "rule", "chapter", "async", "refuses when");
  for (const oracle::RuleEntry& e : oracle::Catalogue())
    printf("%-16s %-13s %-6s %s\n", ReasonName(e.reason), e.section, e.async_reachable ? "yes" : "no", e.statement);
  printf("\nThe tests that check each rule register themselves (RULE_TEST); conformance/RULES.md lists them.\n");
  return 0;
}

// A generated program, or the generator's coverage: over --seeds seeds and
// the preemption fuzzer's decoder reading fixed pseudo-random inputs (the
// suite's //conformance:generator_coverage_test reads the seed corpus too).
int Gen(const CommandLine& cl) {
  if (!cl.coverage) {
    printf("%s", harness::GenerateProgram(static_cast<uint64_t>(cl.seed)).c_str());
    return 0;
  }
  harness::GeneratorCoverage seeds, fuzz;
  std::string err;
  for (int s = 1; s <= cl.seeds; s++)
    if (!seeds.Add(harness::GenerateProgram(static_cast<uint64_t>(s)), &err))
      return fprintf(stderr, "safepoint: gen: seed %d's program does not parse: %s\n", s, err.c_str()), 1;
  constexpr int kInputs = 1000;
  if (!oracle::AddDecoderCoverage(oracle::CoverageRandomInputs(kInputs), &fuzz, &err))
    return fprintf(stderr, "safepoint: gen: %s\n", err.c_str()), 1;
  printf("generator coverage: programs with each row, over seeds 1..%d and %d pseudo-random fuzzer inputs\n%s",
         cl.seeds, kInputs, harness::CoverageTable({{"seeds", &seeds}, {"fuzz", &fuzz}}).c_str());
  std::vector<std::string> gaps = seeds.Gaps();
  for (const std::string& g : fuzz.Gaps()) gaps.push_back(g + " (fuzz)");
  for (const std::string& g : gaps) printf("  AT ZERO %s\n", g.c_str());
  return gaps.empty() ? 0 : 1;
}

int Experiment(const CommandLine& cl) {
  ExperimentOptions opts;
  opts.deadline_s = cl.deadline_s;
  opts.omit_stack_check = cl.omit_stack_check;
  std::vector<ExperimentRow> rows;
  std::string err;
  if (!RunExperiment(opts, &rows, &err)) {
    fprintf(stderr, "safepoint: %s\n", err.c_str());
    return 1;
  }
  for (const ExperimentRow& r : rows) printf("%s\n", FormatRow(r).c_str());
  return 0;
}

// The flags were checked first (harness/flags.h), then the program, as Go's
// tools do.
int Run(const CommandLine& cl) {
  const std::vector<std::string>& args = cl.args;
  RuntimeOptions opts;
  opts.settings.gomaxprocs = cl.gomaxprocs;
  opts.settings.godebug = cl.godebug;
  opts.settings.xstate_scan = cl.xstate_scan;
  std::string text, err;
  if (!ReadBounded(args[0], kMaxProgramBytes, &text, &err)) return Bad(err);
  ir::Program prog;
  if (!ir::ParseProgram(text, &prog, &err)) return Bad(args[0] + ":" + err);
  for (const ir::Function& f : prog.funcs)
    for (const ir::Insn& in : f.body)
      if (in.op == ir::Op::kService && in.service == ir::Service::kCallback)
        return Bad(args[0] + ":" + std::to_string(in.line) +
                   ": callback is a test hook: a program run from the command line has none");
  Runtime rt(std::move(opts));
  if (!rt.Load(prog, &err)) return Bad(args[0] + ": " + err);
  bool ok = rt.Run("main.main", &err);
  cmd::RunReport report = cmd::BuildReport(rt, prog, ok, err);
  report.program = args[0];
  report.gomaxprocs = cl.gomaxprocs;
  report.with_events = cl.events;
  if (cl.json) {
    cmd::PrintJson(report, stdout);
  } else {
    cmd::PrintText(report, stdout);
  }
  if (!ok) {
    fflush(stdout);
    // A fatal error as Go reports one: on stderr, exit status 2.
    fprintf(stderr, rt.fatal() ? "fatal error: %s\n" : "safepoint: %s\n", err.c_str());
    return rt.fatal() ? 2 : 1;
  }
  fflush(nullptr);
  // A goroutine may still spin on an abandoned M: end as Go's process does.
  if (rt.abandoned_ms() > 0) _exit(0);
  return 0;
}

// `late`: a refusal the parse made that is reported after --program is read
// (nullptr: none).
int SweepCmd(const CommandLine& cl, const harness::FlagError* late) {
  oracle::SweepOptions opts;
  std::string err;
  if (!cl.program.empty() && !ReadBounded(cl.program, kMaxProgramBytes, &opts.program, &err)) return Bad(err);
  if (late) return Bad(late->message);
  opts.runtime.experiments.runtimesecret = cl.runtimesecret;
  opts.runtime.settings.xstate_scan = cl.xstate_scan;
  if (cl.collect) {
    if (opts.program.empty()) opts.program = harness::BuiltinHeapSweepProgram();
    harness::CollectAtEveryPreemption(&opts.runtime);
  }
  opts.max_failures = cl.max_failures;
  opts.frame_table = !cl.no_frame_table;
  if (cl.mutate == "list") {
    printf("mutations on port %s (each caught by the named test on every port it applies to):\n",
           std::string(NativePort().name).c_str());
    for (const harness::MutationDef& d : harness::Mutations()) {
      std::string why = harness::MutationInapplicable(d, NativePort());
      std::string unseen = why.empty() ? harness::MutationUnseenInRuns(d, NativePort()) : "";
      printf("  %-22s %s (caught by %s%s)%s%s\n", d.name, d.what, d.caught_by, d.sweep_catches ? " and the sweep" : "",
             why.empty() ? "" : ("  [not here: " + why + "]").c_str(),
             unseen.empty() ? "" : ("  [no run shows it here: " + unseen + "]").c_str());
    }
    return 0;
  }
  const harness::MutationDef* mutation = cl.mutation;
  if (mutation) mutation->apply(opts.runtime.mutations);
  // Progress on long runs, on stderr when it is a terminal or every 10 s.
  int64_t start = MonotonicNanos(), last = start;
  opts.proceed = [&](size_t done, size_t total) {
    int64_t now = MonotonicNanos();
    if (now - last > 10'000'000'000LL && done > 0) {
      double secs = (now - start) / 1e9, rate = done / secs;
      fprintf(stderr, "sweep: %zu of %zu instructions, %.1f/s, about %.0f s left\n", done, total, rate,
              (total - done) / rate);
      last = now;
    }
    return !g_stop.load();
  };
  oracle::SweepResult r;
  if (!oracle::Sweep(opts, &r, &err)) return Bad("sweep: " + err);
  printf("sweep (%s): %s\n", std::string(NativePort().name).c_str(), r.Summary().c_str());
  for (const std::string& f : r.failures) printf("  FAIL %s\n", f.c_str());
  for (const std::string& a : r.frame_allowed_at) printf("  frame table differs where no preemption stopped: %s\n", a.c_str());
  size_t failed = r.frame_wrong + r.disagreements + r.state_diffs + r.run_errors + r.lost_objects +
                  r.protocol_violations + r.save_area_wrong;
  if (failed > r.failures.size()) printf("  and %zu more (--max-failures)\n", failed - r.failures.size());
  if (r.interrupted) {
    printf("sweep: interrupted after %zu of %zu instructions: the counts above are partial\n", r.instructions,
           r.total);
    return 130;
  }
  if (mutation && !mutation->sweep_catches && r.ok())
    printf("sweep: --mutate=%s breaks what the sweep does not judge; the suite catches it (%s)\n", mutation->name,
           mutation->caught_by);
  return r.ok() ? 0 : 1;
}

// go-sweep's binary: a file, or a program of goprogs/ by name, built for
// this config's CPU with Go --go (./safepoint builds it and says where, in
// SAFEPOINT_GOPROGS; a test finds it in its runfiles).
std::string GoProgramPath(const CommandLine& cl, std::string* tried) {
  const std::string& a = cl.args[0];
  struct stat st;
  if (stat(a.c_str(), &st) == 0) return a;
  if (a.find('/') != std::string::npos) return "";
  std::string rel = cl.go + "/" + std::string(NativePort().go.goarch) + "/" + a;
  std::vector<std::string> dirs;
  if (const char* d = getenv("SAFEPOINT_GOPROGS")) dirs.push_back(d);
  if (const char* d = getenv("TEST_SRCDIR")) dirs.push_back(std::string(d) + "/safepoint/goprogs");
  std::string exe = SelfExe();
  if (!exe.empty()) dirs.push_back(exe + ".runfiles/safepoint/goprogs");
  for (const std::string& d : dirs) {
    std::string p = d + "/" + rel;
    if (stat(p.c_str(), &st) == 0) return p;
    *tried += (tried->empty() ? "" : ", ") + p;
  }
  return "";
}

int GoSweepCmd(const CommandLine& cl) {
  std::string tried;
  std::string path = GoProgramPath(cl, &tried);
  if (path.empty())
    return Bad("go-sweep: " + cl.args[0] + " is neither a file nor a goprogs/ program built with Go " + cl.go +
               (tried.empty() ? "" : " (looked in " + tried + ")"));
  std::string err;
  std::unique_ptr<realgo::GoBinary> bin = realgo::GoBinary::Open(path, &err);
  if (!bin) return Bad("go-sweep: " + err);
  const PortInfo& port = NativePort();
  if (bin->elf_machine() != port.elf_machine)
    return Bad("go-sweep: " + path + " is a " + bin->goarch() + " binary; this command runs as " +
               std::string(port.name) + " (give --arch=" + bin->goarch() + ")");
  oracle::GoSweepOptions opt;
  opt.binary = path;
  opt.func_regex = cl.func;
  opt.only_pcs = cl.pcs;
  opt.frame_table = !cl.no_frame_table;
  opt.probe.emulator = realgo::EmulatorFromEnv();
  opt.probe.request = cl.request == "gc" ? realgo::GoRequest::kGC : realgo::GoRequest::kSched;
  opt.probe.force_collections = cl.stress == "collection";
  opt.probe.traceback = cl.stress == "traceback";
  int64_t start = MonotonicNanos(), last = start;
  auto progress = [&](size_t done, size_t total) {
    int64_t now = MonotonicNanos();
    if (now - last > 10'000'000'000LL && done > 0) {
      double secs = (now - start) / 1e9, rate = done / secs;
      fprintf(stderr, "go-sweep: %zu of %zu instructions, %.1f/s, about %.0f s left\n", done, total, rate,
              (total - done) / rate);
      last = now;
    }
  };
  oracle::GoSweepResult r = oracle::RunGoSweep(*bin, port, opt, progress);
  if (cl.json) {
    fputs(oracle::GoSweepJson(r).c_str(), stdout);
  } else {
    fputs(oracle::GoSweepText(r).c_str(), stdout);
  }
  if (!cl.findings.empty()) {
    std::string prefix = "./safepoint go-sweep --arch=" + std::string(getenv("SAFEPOINT_CONFIG") ? getenv("SAFEPOINT_CONFIG") : port.name.data()) +
                         (cl.request == "gc" ? " --request=gc" : "") + (cl.stress != "none" ? " --stress=" + cl.stress : "");
    FILE* f = fopen(cl.findings.c_str(), "w");
    if (f == nullptr) return Bad("go-sweep: cannot write " + cl.findings + ": " + strerror(errno));
    fputs(oracle::GoFindingsFile(r, prefix).c_str(), f);
    fclose(f);
  }
  if (!r.fatal.empty() && r.total.probed == 0) {
    fprintf(stderr, "safepoint: go-sweep: %s\n", r.fatal.c_str());
    return 2;
  }
  return r.clean() ? 0 : 1;
}

// The verdict of one replay: "ok", or the finding's first line. *seen:
// what the armed run showed (oracle::Observed).
std::string ReplayVerdict(const oracle::Case& c, std::string* detail, std::string* seen) {
  std::string err;
  oracle::CaseResult r = oracle::RunCase(c, &err);
  if (!r.ok) return *detail = err, "run failed before any preemption";
  *seen = oracle::Observed(c, r);
  if (r.judgement.ok()) return r.known_hazard.empty() ? "ok" : "ok (" + r.known_hazard.substr(0, r.known_hazard.find(':')) + ")";
  *detail = oracle::Describe(c, r);
  return r.judgement.Headline();
}

// Runs this binary again as `prefix... exe repro [--mutate=M] --times=N
// --no-triage FILE` (repro's file and mutation) and returns its exit status
// (-1: could not run it, or it took too long).
int ReplayElsewhere(const std::vector<std::string>& prefix, const CommandLine& repro, int times) {
  std::string exe = SelfExe();
  if (exe.empty()) return -1;
  std::vector<std::string> argv = prefix;
  argv.push_back(exe);
  CommandLine again;
  again.action = harness::Action::kRun;
  again.cmd = "repro";
  again.args = repro.args;
  again.mutate = repro.mutate;
  again.mutation = repro.mutation;
  again.times = times;
  again.no_triage = true;
  for (const std::string& a : harness::RenderCommandLine(again)) argv.push_back(a);
  ChildExit c = RunChild(argv, {}, {"SAFEPOINT_EMULATOR"}, true, 600'000'000'000LL);
  if (!c.started || c.timed_out) return -1;
  return WIFEXITED(c.status) ? WEXITSTATUS(c.status) : -1;
}

// `late`: a refusal the parse made that is reported after the case is read
// and decoded (nullptr: none).
int Repro(const CommandLine& cl, const harness::FlagError* late) {
  const std::vector<std::string>& args = cl.args;
  std::string bytes, err;
  if (!ReadBounded(args[0], 1 << 20, &bytes, &err)) return Bad(err);
  oracle::Case c;
  if (!oracle::DecodeCase(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), &c, &err))
    return Bad(args[0] + ": not a preemption case: " + err);
  if (late) return Bad(late->message);
  if (cl.mutation) cl.mutation->apply(c.opts.mutations);
  if (cl.show) {
    printf("# settings 0x%02x (asyncpreemptoff=%d runtimesecret=%d simd=%d xstate-scan=%s collect=%d gomaxprocs=%d), "
           "armed instruction %u modulo the table's\n%s",
           c.settings, c.settings & 1, (c.settings >> 1) & 1, (c.settings >> 2) & 1, (c.settings & 8) ? "go1.26" : "go1.27",
           (c.settings >> 4) & 1, (c.settings & 32) ? 2 : 1, c.armed, c.program.c_str());
    fflush(stdout);  // a fatal error in a replay exits at once
  }
  std::map<std::string, int> verdicts;
  std::string first_detail, first_seen;
  int n = cl.times;
  for (int i = 0; i < n; i++) {
    std::string detail, seen;
    std::string v = ReplayVerdict(c, &detail, &seen);
    if (v != "ok" && first_detail.empty()) first_detail = detail;
    if (first_seen.empty()) first_seen = seen;
    verdicts[v]++;
  }
  std::string port(NativePort().name);
  bool fails = verdicts.size() > 1 || verdicts.begin()->first.rfind("ok", 0) != 0;
  printf("repro (%s): %s, settings 0x%02x, %d replays\n", port.c_str(), c.program_name.c_str(), c.settings, n);
  for (const auto& [v, k] : verdicts) printf("  %d/%d  %s\n", k, n, v.c_str());
  if (cl.show && !first_seen.empty()) printf("  first replay: %s\n", first_seen.c_str());
  if (!first_detail.empty()) printf("%s", first_detail.c_str());
  if (verdicts.size() > 1) printf("repro: the verdict is not the same every time (flaky)\n");
  if (fails && !cl.no_triage) {
    // Before blaming the runtime, ask a second opinion of the emulator.
    std::vector<std::string> emu = EmulatorCommand();
    // The host's machine, as the runner saw it outside any emulator: a port
    // emulated on its own kind of host (amd64_qemu) replays natively.
    const char* host_env = getenv("SAFEPOINT_HOST_MACHINE");
    std::string host = host_env ? host_env : "";
    std::string how;
    int status = -1;
    if (emu.empty()) {
      how = "natively (no emulator involved)";
    } else if (host == NativePort().uname_machine) {
      how = "natively, without QEMU";
      status = ReplayElsewhere({}, cl, 10);
    } else {
      how = "under " + emu[0] + " -one-insn-per-tb";
      std::vector<std::string> alt = emu;
      alt.insert(alt.begin() + 1, "-one-insn-per-tb");
      status = ReplayElsewhere(alt, cl, 10);
    }
    if (emu.empty())
      printf("triage: ran %s: a runtime (or harness) bug\n", how.c_str());
    else if (status == 1)
      printf("triage: fails %s too: a runtime bug, not the emulator's\n", how.c_str());
    else if (status == 0)
      printf("triage: passes %s: suspect the emulator (translation blocks, signal delivery) before the runtime\n",
             how.c_str());
    else
      printf("triage: could not replay %s (status %d)\n", how.c_str(), status);
  }
  return fails ? 1 : 0;
}

}  // namespace

int Main(int argc, char** argv) {
  if (argc >= 2 && std::string(argv[1]) == "child") {  // internal: one experiment child
    if (argc < 3) return Bad("child needs a loop name");
    bool omit = argc > 3 && std::string(argv[3]) == "--omit-stack-check";
    return ExperimentChild(argv[2], omit);
  }
  harness::FlagContext ctx;
  ctx.native = &NativePort();
  const char* config = getenv("SAFEPOINT_CONFIG");
  const char* config_port = getenv("SAFEPOINT_ARCH");
  if (config && config_port) ctx.config = config, ctx.config_port = config_port;
  CommandLine cl;
  harness::FlagError bad;
  bool ok = harness::ParseCommandLine(std::vector<std::string>(argv + 1, argv + argc), ctx, &cl, &bad);
  if (!ok && bad.usage) return Usage(stderr);
  // A refusal the command reports after reading its input waits for it.
  if (!ok && !bad.after_input) return Bad(bad.message);
  if (cl.action == harness::Action::kUsage) return Usage(stdout);
  if (cl.action == harness::Action::kSubcommandUsage) return SubcommandUsage(*harness::FindSubcommand(cl.cmd));
  if (cl.timeout_s > 0) StartWatchdog(cl.timeout_s, cl.cmd);
  InstallInterrupt(cl.cmd);
  const harness::FlagError* late = ok ? nullptr : &bad;
  if (cl.cmd == "experiment") return Experiment(cl);
  if (cl.cmd == "sweep") return SweepCmd(cl, late);
  if (cl.cmd == "rules") return Rules();
  if (cl.cmd == "gen") return Gen(cl);
  if (cl.cmd == "go-sweep") return GoSweepCmd(cl);
  if (cl.cmd == "repro") return Repro(cl, late);
  return Run(cl);
}

}  // namespace safepoint

int main(int argc, char** argv) { return safepoint::Main(argc, argv); }
