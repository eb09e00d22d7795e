// The preemption fuzzer: each input is a program (built in, or generated
// from the input's bytes), the runtime's settings, and an instruction to
// preempt by armed delivery (fuzz/preempt_case.h says how the bytes read).
// Every run is judged by the decision, invisibility and liveness oracles; a
// failing judgement is a crash whose first line names the oracle and the
// rule, so equal findings deduplicate, and whose input replays with
// `safepoint repro FILE --arch=PORT`.
//
// Coverage that rewards new decisions: besides libFuzzer's edges in this
// file, every run sets extra counters (__libfuzzer_extra_counters) for its
// semantic features: the expected verdict and rule against what the runtime
// did, the IR operation kind against the outcome, the settings against the
// verdict, the kind of function preempted, and the port. The runtime under
// test is not instrumented: its lines are not the point, its decisions are.
//
// SAFEPOINT_FUZZ_MUTATE=NAME runs every input under that mutation
// (harness/mutations.h): the campaign must find it.
//
// The runtimes are kept across inputs (harness/reference.cc: reset after
// each run, its program still loaded); SAFEPOINT_FUZZ_FRESH=1 makes every
// run's runtime afresh instead. The unpreempted end state is predicted
// from the program's meaning where it can be (oracle/preempt_case.h);
// SAFEPOINT_FUZZ_PREDICT=0 runs it every time instead. At exit: what the kept runtimes did, and
// where a case's time went, and an execution's.
//
// Another port's runtime, driven from here: SAFEPOINT_FUZZ_EXECUTOR=CONFIG=PATH
// (a fuzz:case_executor built for CONFIG) and SAFEPOINT_RUNNER
// (platforms/toolchains/run) make this native fuzzer run every case's runs
// in that executor, started once under the config's QEMU
// (fuzz/case_protocol.h), and judge them for its port: only the runs are
// emulated. ci/bench.sh and ci/fuzz.sh fuzz the emulated configs so.
#include <malloc.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "fuzz/artifacts.h"
#include "fuzz/case_protocol.h"
#include "oracle/preempt_case.h"
#include "harness/mutations.h"
#include "harness/runtime_under_test.h"
#include "platforms/native.h"
#include "runtime/runtime.h"

namespace {

constexpr size_t kFeatures = 1 << 12;
__attribute__((used, section("__libfuzzer_extra_counters"))) uint8_t g_features[kFeatures];

void Feature(uint64_t a, uint64_t b = 0, uint64_t c = 0) {
  uint64_t h = (a * 0x9E3779B97F4A7C15ull) ^ (b * 0xC2B2AE3D27D4EB4Full) ^ (c * 0x165667B19E3779F9ull);
  h ^= h >> 29;
  uint8_t& slot = g_features[h % kFeatures];
  if (slot < 255) slot++;
}

// Where an execution's time goes, besides RunCase's own phases
// (oracle::CaseTimeSummary): decoding the input (the generator writes the
// program's text), the case, the features, and libFuzzer between one
// execution's end and the next one's start (mutation, coverage, corpus).
struct ExecClock {
  int64_t ns[4] = {};  // decode, case, features, between
  int64_t execs = 0, last_end = 0;
};
ExecClock g_exec;
std::string ExecTimeSummary() {
  if (g_exec.execs == 0) return "no executions";
  char b[256];
  double n = static_cast<double>(g_exec.execs);
  snprintf(b, sizeof b,
           "%lld executions: per execution decode (generator) %.0f us, case %.0f us, features %.0f us, "
           "libFuzzer between executions %.0f us",
           static_cast<long long>(g_exec.execs), g_exec.ns[0] / 1e3 / n, g_exec.ns[1] / 1e3 / n,
           g_exec.ns[2] / 1e3 / n, g_exec.ns[3] / 1e3 / (n > 1 ? n - 1 : 1));
  return b;
}

const safepoint::harness::MutationDef* g_mutation = nullptr;
// SAFEPOINT_FUZZ_EXECUTOR: the executor whose port the runs are on (null:
// this process's runtime, the native port).
safepoint::fuzz::cases::Driver* g_driver = nullptr;
const safepoint::PortInfo& Port() { return g_driver ? g_driver->port() : safepoint::NativePort(); }
// SAFEPOINT_FUZZ_FRESH=1: a fresh runtime for every run (the kept ones'
// counterpart, to compare their speed and findings).
bool g_keep = true;
// SAFEPOINT_FUZZ_PREDICT=0: every reference an unpreempted run, none
// predicted from the program's meaning (to compare speed and findings).
bool g_predict = true;
void RecordFeatures(const safepoint::oracle::Case& c, const safepoint::oracle::CaseResult& r) {
  using safepoint::oracle::Judgement;
  const Judgement& j = r.judgement;
  const safepoint::harness::Observation& o = r.obs;
  uint64_t outcome = !o.trapped ? 1 : !o.decided ? 2 : o.not_wanted ? 3 : !o.accepted ? 4 + static_cast<int>(o.reason)
                                 : o.resume == o.pc ? 100 : 101;
  uint64_t verdict = static_cast<uint64_t>(j.expect.verdict) * 64 + static_cast<uint64_t>(j.expect.rule);
  Feature(1, verdict, outcome);                       // rule x verdict x what happened
  int op = o.pos.fn && o.pos.op >= 0 ? static_cast<int>(o.pos.fn->body[o.pos.op].op) : -1 - (o.pos.stub ? 1 : 0);
  uint64_t svc = o.pos.fn && o.pos.op >= 0 ? static_cast<uint64_t>(o.pos.fn->body[o.pos.op].service) : 0;
  Feature(2, static_cast<uint64_t>(op + 2) * 64 + svc, outcome);  // instruction kind x outcome
  Feature(3, c.settings, verdict);                    // settings x verdict
  if (o.pos.fn) {
    const auto* f = o.pos.fn;
    uint64_t kind = f->nosplit | f->is_asm << 1 | f->nongo << 2 | f->restart_at_entry << 3 |
                    (f->CallsAnything() ? 16 : 0) | (f->frame >= 128 ? 32 : 0);
    Feature(4, kind, outcome);                        // function kind x outcome
    Feature(5, static_cast<uint64_t>(o.pos.insn_in_op), outcome);  // where in the operation's lowering
  }
  Feature(6, o.collections > 0, o.objects_freed > 0);  // the collector ran, freed
  Feature(8, !r.known_hazard.empty());                  // Go 1.26's vector-register hazard shown
  Feature(7, std::hash<std::string_view>()(Port().name));
  // How far the stack room at the armed instruction is from what the
  // injected call needs (8-byte steps within 256 bytes of it, 16-byte steps
  // up to 2 KB): a gradient toward the stack rule's boundary, which no
  // generated program reaches by chance.
  if (o.stack_room >= 0) {
    int64_t d = o.stack_room - static_cast<int64_t>(safepoint::oracle::AsyncPreemptStack(Port()));
    int64_t bucket = d < -256 ? -64 : d < 256 ? d / 8 : d < 2048 ? 32 + d / 16 : 200;
    Feature(9, static_cast<uint64_t>(bucket + 64), outcome);
  }
  // The protocol's paths taken: re-armed requests, shrinks done and deferred.
  uint64_t seen = 0;
  for (const safepoint::Event& e : o.events) {
    if (e.kind == safepoint::Ev::kRearm) seen |= 1;
    if (e.kind == safepoint::Ev::kShrink) seen |= 2;
    if (e.kind == safepoint::Ev::kShrinkDeferred) seen |= 4;
    if (e.kind == safepoint::Ev::kPreemptSync) seen |= 8;
    if (e.kind == safepoint::Ev::kPreemptPark) seen |= 16;
  }
  Feature(10, seen, outcome);
  Feature(11, static_cast<uint64_t>(c.source), outcome);  // request source x what happened
  // A chain's further points: each point's source x what happened there,
  // by its place in the chain.
  for (size_t i = 0; i < o.then.size(); i++) {
    const safepoint::harness::Observation& p = o.then[i];
    uint64_t got = !p.trapped ? 1 : !p.decided ? 2 : p.not_wanted ? 3 : !p.accepted ? 4 + static_cast<int>(p.reason)
                                 : p.resume == p.pc ? 100 : 101;
    Feature(12, (i + 1) * 4 + static_cast<uint64_t>(p.source), got);
  }
  // The save area compared with the trap's registers, and how much of it.
  if (j.save_compared > 0) Feature(13, j.save_compared, j.save_wrong.empty());
}

}  // namespace

// libFuzzer's own mutations, for the custom mutator to hand over to.
extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t max_size);

// Three mutations in four move the case's points (oracle::MutateCasePoints:
// the armed instruction, the chain's points and their sources) and keep its
// program and settings: each instruction of a program is a case of its own,
// and an execution whose program is already generated, parsed, loaded in a
// kept runtime and predicted costs its armed run and judgement only. The
// fourth, and any input that is no case, are libFuzzer's (the
// dictionary's, the comparisons', cross-over), which mostly change the
// program or the settings. (Half and half before: natively 30,000 runs
// from the seeds went 7,869-10,139 -> 10,503-11,940 executions a second,
// and every catalogue mutation was found from an empty corpus as fast:
// ARCHITECTURE.md, "Each program's points, mutated on their own".)
extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size, unsigned int seed) {
  if (seed % 4 != 0) {
    size_t n = safepoint::oracle::MutateCasePoints(data, size, max_size, seed);
    if (n > 0) return n;
  }
  return LLVMFuzzerMutate(data, size, max_size);
}

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  // Large blocks (an event log's snapshot, a program's tables, a fresh
  // runtime's log) from the heap, reused, not each a fresh mmap whose
  // pages fault in and whose munmap is a TLB flush; and the heap's top
  // kept, not trimmed back to the system between executions.
  mallopt(M_MMAP_THRESHOLD, 64 << 20);
  mallopt(M_TRIM_THRESHOLD, 256 << 20);
  safepoint::SetFatalErrorsAbort(true);  // a fatal error is a crash with its input saved
  if (const char* e = getenv("SAFEPOINT_FUZZ_EXECUTOR"); e && *e) {
    std::vector<safepoint::fuzz::ExecutorProcess> one;
    std::string err;
    const char* runner = getenv("SAFEPOINT_RUNNER");
    if (!safepoint::fuzz::ParseExecutors(e, &one, &err) || one.size() != 1) {
      fprintf(stderr, "preempt_fuzz: SAFEPOINT_FUZZ_EXECUTOR=%s: %s\n", e,
              err.empty() ? "one CONFIG=PATH, not several" : err.c_str());
      exit(2);
    }
    if (runner == nullptr || !*runner) {
      fprintf(stderr, "preempt_fuzz: SAFEPOINT_FUZZ_EXECUTOR is set but SAFEPOINT_RUNNER (platforms/toolchains/run) is not\n");
      exit(2);
    }
    g_driver = new safepoint::fuzz::cases::Driver(one[0].config, one[0].path, runner);  // ends with the process
    fprintf(stderr, "preempt_fuzz: runs on the case executor for %s (port %s): %s\n", one[0].config.c_str(),
            std::string(Port().name).c_str(), one[0].path.c_str());
  }
  // An input whose run never ends is a finding with its input kept, not a
  // test runner's timeout (fuzz/artifacts.h says why libFuzzer's own
  // -timeout cannot see it here).
  safepoint::fuzz::StartStallWatchdog("preempt_fuzz", *argc, *argv,
                                      "safepoint repro --arch=" + std::string(Port().name));
  // What the kept runtimes did, at the end: a reset that could not be
  // proven clean made a fresh runtime instead, and says why here.
  atexit([] {
    if (g_driver) {
      // The executor says what its kept runtimes did when its input ends.
      delete g_driver;
      g_driver = nullptr;
    } else {
      fprintf(stderr, "preempt_fuzz: %s\n", safepoint::harness::KeptRuntimeSummary().c_str());
    }
    fprintf(stderr, "preempt_fuzz: %s\n", safepoint::oracle::CaseTimeSummary().c_str());
    fprintf(stderr, "preempt_fuzz: %s\n", ExecTimeSummary().c_str());
  });
  if (const char* f = getenv("SAFEPOINT_FUZZ_FRESH"); f && *f == '1') g_keep = false;
  if (const char* f = getenv("SAFEPOINT_FUZZ_PREDICT"); f && *f == '0') g_predict = false;
  if (const char* m = getenv("SAFEPOINT_FUZZ_MUTATE"); m && *m) {
    g_mutation = safepoint::harness::FindMutation(m);
    if (!g_mutation) {
      fprintf(stderr, "preempt_fuzz: SAFEPOINT_FUZZ_MUTATE=%s: no such mutation (safepoint sweep --mutate=list)\n", m);
      exit(2);
    }
    std::string why = safepoint::harness::MutationInapplicable(*g_mutation, Port());
    if (!why.empty()) {
      fprintf(stderr, "preempt_fuzz: SAFEPOINT_FUZZ_MUTATE=%s does not apply here: %s\n", m, why.c_str());
      exit(2);
    }
    why = safepoint::harness::MutationUnseenInRuns(*g_mutation, Port());
    if (!why.empty())
      fprintf(stderr, "preempt_fuzz: SAFEPOINT_FUZZ_MUTATE=%s: no run shows it here, this campaign cannot find it: %s\n",
              m, why.c_str());
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  int64_t t0 = safepoint::MonotonicNanos();
  if (g_exec.last_end != 0) g_exec.ns[3] += t0 - g_exec.last_end;
  safepoint::oracle::Case c;
  std::string err;
  if (!safepoint::oracle::DecodeCase(data, size, &c, &err)) return -1;  // not a case: kept out of the corpus
  int64_t t1 = safepoint::MonotonicNanos();
  if (g_mutation) {
    g_mutation->apply(c.opts.mutations);
    c.mutation = g_mutation->name;
  }
  c.keep_runtime = g_keep;  // a runtime kept per settings and program (harness/reference.cc)
  c.predict = g_predict;
  if (g_driver) c.target = g_driver->target();
  safepoint::fuzz::ExecutionBegins(data, size);
  safepoint::oracle::CaseResult r = safepoint::oracle::RunCase(c, &err);
  safepoint::fuzz::ExecutionEnds();
  int64_t t2 = safepoint::MonotonicNanos();
  if (!r.ok) {
    // The unpreempted run itself failed: a generated program the runtime
    // could not run is a finding too (the generator promises valid ones).
    fprintf(stderr, "==safepoint-fuzz== ERROR: run failed before any preemption [%s]: %s\n",
            std::string(Port().name).c_str(), err.c_str());
    safepoint::fuzz::SaveArtifact("crash", data, size);
    abort();
  }
  RecordFeatures(c, r);
  int64_t t3 = safepoint::MonotonicNanos();
  g_exec.ns[0] += t1 - t0, g_exec.ns[1] += t2 - t1, g_exec.ns[2] += t3 - t2;
  g_exec.execs++;
  g_exec.last_end = t3;
  if (!r.judgement.ok()) {
    // The headline, then each line of the description marked as well:
    // -fork keeps of a job's output only the lines that hold "ERROR:", and
    // a campaign's finding is legible only by what it kept (a "run failed"
    // of the third hour said no more than that).
    std::string d = safepoint::oracle::Describe(c, r);
    size_t at = 0;
    while (at < d.size()) {
      size_t n = d.find('\n', at);
      if (n == std::string::npos) n = d.size();
      std::string line = d.substr(at, n - at);
      fprintf(stderr, at == 0 ? "%s\n" : "==safepoint-fuzz== ERROR: |%s\n", line.c_str());
      at = n + 1;
    }
    fprintf(stderr, "  replay: safepoint repro --arch=%s CRASH_FILE\n", std::string(Port().name).c_str());
    safepoint::fuzz::SaveArtifact("crash", data, size);
    abort();
  }
  return 0;
}
