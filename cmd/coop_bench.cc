// Benchmark of cooperative preemption on the port this binary runs on:
//   1. latency from preemptone to the goroutine taken off the CPU by
//      gopreempt_m (on its way to the global run queue), next to the bare
//      mcall + gogo round trip measured in the same run;
//   2. the cost of the stack-check prologue per call, next to the same call
//      without the check (the omit_stack_check mutation), round by round:
//      "no difference" when the rounds' differences span zero;
//   3. stop-the-world latency over 1 and 2 spinning Ps, and suspendG
//      latency on a spinning goroutine (asynchronous preemption on; the
//      median of 5 consecutive rounds of samples with their spread, and
//      p99), next to the same round trip.
// A benchmark, not a test: it prints figures and asserts nothing about them.
#include <algorithm>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "platforms/native.h"
#include "core/chapter.h"
#include "harness/progress.h"
#include "runtime/runtime.h"

namespace safepoint {
namespace {

bool RunProg(const std::string& text, RuntimeOptions opts, const std::function<void(Runtime&)>& driver,
             std::unique_ptr<Runtime>* out) {
  ir::Program prog;
  std::string err;
  if (!ir::ParseProgram(text, &prog, &err)) {
    fprintf(stderr, "%s\n", err.c_str());
    return false;
  }
  *out = std::make_unique<Runtime>(std::move(opts));
  if (!(*out)->Load(prog, &err)) {
    fprintf(stderr, "%s\n", err.c_str());
    return false;
  }
  std::thread t;
  if (driver) t = std::thread([&] { driver(**out); });
  bool ok = (*out)->Run("main.main", &err);
  if (t.joinable()) t.join();
  if (!ok) fprintf(stderr, "%s\n", err.c_str());
  return ok;
}

const char* kCallees = kChapterLeafAndNonleaf;

// ns for a run of n mcall+gogo round trips: `wait 5` on a handshake
// already given goes to g0 through mcall and straight back through gogo.
double MeasureRoundTrip(int n) {
  std::string prog = "func main.main frame=16\n  handshake 5\n  movi r4, " + std::to_string(n) +
                     "\n  stslot 0, r4\n  ld r1, g[0]\nagain:\n  wait 5\n  ldslot r4, 0\n  addi r4, -1\n"
                     "  stslot 0, r4\n  jnz r4, again\n  ret\nend\n";
  RuntimeOptions opts;
  opts.hooks.sysmon = false;
  std::unique_ptr<Runtime> rt;
  int64_t t0 = MonotonicNanos();
  if (!RunProg(prog, std::move(opts), nullptr, &rt)) return -1;
  return static_cast<double>(MonotonicNanos() - t0);
}

// A loop's ns per iteration, without the run around it (loading the
// program, starting and stopping the Ms): `whole(n)` times a run of n
// iterations; a run of one is taken away.
template <typename F>
double PerIteration(int n, F whole) {
  double one = whole(1), all = whole(n);
  return one < 0 || all < 0 ? -1 : (all - one) / (n - 1);
}

// ns for a run of n calls of main.nonleaf, with or without its prologue
// check.
double MeasureCalls(int n, bool omit_check) {
  std::string prog = "func main.main frame=16\n  movi r4, " + std::to_string(n) +
                     "\n  stslot 0, r4\nagain:\n  movi r0, 1\n  call main.nonleaf\n  ldslot r4, 0\n  addi r4, -1\n"
                     "  stslot 0, r4\n  jnz r4, again\n  ret\nend\n" + kCallees;
  RuntimeOptions opts;
  opts.hooks.sysmon = false;
  opts.mutations.omit_stack_check = omit_check;
  std::unique_ptr<Runtime> rt;
  int64_t t0 = MonotonicNanos();
  if (!RunProg(prog, std::move(opts), nullptr, &rt)) return -1;
  return static_cast<double>(MonotonicNanos() - t0);
}

// Latencies (ns) from each Request to the PreemptSync that answered it.
std::vector<double> MeasurePreemptLatency(int n) {
  std::string prog = std::string(R"(
func main.main
  go main.spin
  wait 2
  ret
end
func main.spin frame=16
  movi r1, 1
  st g[10], r1
loop:
  movi r0, 7
  call main.nonleaf
  ld r3, g[11]
  jz r3, loop
  handshake 2
  ret
end
)") + kCallees;
  RuntimeOptions opts;
  opts.hooks.sysmon = false;
  opts.settings.godebug = "asyncpreemptoff=1";  // the cooperative path alone
  std::unique_ptr<Runtime> rt;
  std::vector<double> lat;
  RunProg(prog, std::move(opts), [&](Runtime& r) {
    while (r.global(10) != 1) usleep(50);
    for (int i = 0; i < n; i++) {
      size_t before = r.events().Count(Ev::kPreemptSync);
      // Preempt only while spin runs; a request that lands while newstack
      // or execute() rewrites stackguard0 is lost, as in Go: ask again.
      // The latency runs from the first request of the round.
      int64_t first = 0;
      int polls = 0;
      while (r.events().Count(Ev::kPreemptSync) == before) {
        if (polls++ % 64 == 0 && r.p(0)->m.load() != nullptr && r.p(0)->m.load()->curg.load() != nullptr) {
          if (first == 0) first = MonotonicNanos();
          r.preemptone(r.p(0), Source::kTest);
        }
        sched_yield();
      }
      std::vector<Event> evs = r.events().Snapshot();
      for (size_t k = evs.size(); k-- > 0;)
        if (evs[k].kind == Ev::kPreemptSync) {
          if (first) lat.push_back(static_cast<double>(evs[k].when - first));
          break;
        }
    }
    r.set_global(11, 1);
  }, &rt);
  return lat;
}

// Latencies (ns) of stopTheWorldWithSema over `procs` spinning Ps
// (asynchronous preemption on), each followed by startTheWorld and a wait
// until every spinner runs again.
std::vector<double> MeasureStw(int n, int procs) {
  RuntimeOptions opts;
  opts.hooks.sysmon = false;
  opts.settings.gomaxprocs = procs;
  std::unique_ptr<Runtime> rt;
  std::vector<double> lat;
  RunProg(harness::SpinnersProgram(harness::LoopKind::kNoCalls, procs), std::move(opts), [&](Runtime& r) {
    while (!harness::SpinnersStarted(r, procs)) usleep(50);
    for (int i = 0; i < n; i++) {
      size_t resumed = r.events().Count(Ev::kResume);
      int64_t t0 = MonotonicNanos();
      r.stopTheWorldWithSema();
      lat.push_back(static_cast<double>(MonotonicNanos() - t0));
      r.startTheWorld();
      // Every spinner was preempted to stop its P: running again once each
      // is resumed.
      while (r.events().Count(Ev::kResume) < resumed + static_cast<size_t>(procs)) sched_yield();
    }
    r.set_global(harness::kSpinnersStop, 1);
  }, &rt);
  return lat;
}

// Latencies (ns) of suspendG on a spinning goroutine, until its scan bit is
// held (it parked at an asynchronous safe point); each followed by resumeG.
std::vector<double> MeasureSuspendG(int n) {
  RuntimeOptions opts;
  opts.hooks.sysmon = false;
  std::unique_ptr<Runtime> rt;
  std::vector<double> lat;
  RunProg(harness::SpinnersProgram(harness::LoopKind::kNoCalls, 1), std::move(opts), [&](Runtime& r) {
    while (!harness::SpinnersStarted(r, 1)) usleep(50);
    G* gp = r.FindG(2);
    for (int i = 0; i < n; i++) {
      size_t resumed = r.events().Count(Ev::kResume);
      int64_t t0 = MonotonicNanos();
      Runtime::SuspendState s = r.suspendG(gp);
      lat.push_back(static_cast<double>(MonotonicNanos() - t0));
      r.resumeG(s);
      while (r.events().Count(Ev::kResume) == resumed) sched_yield();  // running again
    }
    r.set_global(harness::kSpinnersStop, 1);
  }, &rt);
  return lat;
}

double Percentile(std::vector<double> v, double p) {
  if (v.empty()) return -1;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(p * v.size()))];
}

// "MIN..MAX" of v, each with `fmt`.
std::string Spread(std::vector<double> v, const char* fmt) {
  if (v.empty()) return "no rounds";
  std::sort(v.begin(), v.end());
  char a[32], b[32];
  snprintf(a, sizeof a, fmt, v.front());
  snprintf(b, sizeof b, fmt, v.back());
  return std::string(a) + ".." + b;
}

// The latencies below are taken in one run each, sample after sample: cut
// into `rounds` consecutive rounds, the median of each round, so that a
// latency is printed as the median of its rounds with their spread, as the
// other figures are (a drift of the machine during the run shows as spread).
std::vector<double> RoundMedians(const std::vector<double>& v, int rounds) {
  std::vector<double> m;
  size_t per = v.size() / rounds;
  if (per == 0) return m;
  for (int r = 0; r < rounds; r++)
    m.push_back(Percentile(std::vector<double>(v.begin() + r * per, v.begin() + (r + 1) * per), 0.5));
  return m;
}

// "MEDIAN ns  (median of R rounds of K, MIN..MAX; Xx the round trip; pNN P ns, N samples)".
void PrintLatency(const char* label, const std::vector<double>& lat, int rounds, double rt, double p,
                  const char* pname) {
  std::vector<double> m = RoundMedians(lat, rounds);
  if (m.empty()) {
    printf("  %-40s no samples\n", label);
    return;
  }
  const double med = Percentile(m, 0.5);
  printf("  %-40s %10.0f ns  (median of %d rounds of %zu, %s; %.1fx the round trip; %s %.0f ns, %zu samples)\n",
         label, med, rounds, lat.size() / rounds, Spread(m, "%.0f").c_str(), med / rt, pname, Percentile(lat, p),
         lat.size());
}

}  // namespace
}  // namespace safepoint

int main(int argc, char** argv) {
  using namespace safepoint;
  int scale = argc > 1 ? atoi(argv[1]) : 1;
  if (scale < 1) scale = 1;
  const char* emu = getenv("SAFEPOINT_EMULATOR");
  printf("coop_bench: port %s, %s\n", std::string(NativePort().name).c_str(),
         emu && *emu ? emu : "native");
  // The round trip and the two calls, each a median over kRounds rounds
  // with its spread; the calls with and without the check alternate, so a
  // drift of the machine moves both alike, and the check's cost is judged
  // round by round.
  constexpr int kRounds = 5;
  std::vector<double> rts, with, without, diffs;
  const int calls = 10000000 * scale;
  for (int r = 0; r < kRounds; r++) {
    rts.push_back(PerIteration(1000000 * scale, MeasureRoundTrip));
    with.push_back(PerIteration(calls, [](int n) { return MeasureCalls(n, false); }));
    without.push_back(PerIteration(calls, [](int n) { return MeasureCalls(n, true); }));
    diffs.push_back(with.back() - without.back());
  }
  const double rt = Percentile(rts, 0.5);
  std::vector<double> lat = MeasurePreemptLatency(2000 * scale);
  printf("  mcall+gogo round trip (bare ceiling)     %10.0f ns  (median of %d rounds, %s)\n", rt, kRounds,
         Spread(rts, "%.0f").c_str());
  PrintLatency("preemptone -> off the CPU, median", lat, kRounds, rt, 0.9, "p90");
  for (int procs : {1, 2}) {
    std::vector<double> stw = MeasureStw(500 * scale, procs);
    PrintLatency(procs == 1 ? "stop-the-world, 1 spinning P, median" : "stop-the-world, 2 spinning Ps, median", stw,
                 kRounds, rt, 0.99, "p99");
  }
  std::vector<double> sus = MeasureSuspendG(1000 * scale);
  PrintLatency("suspendG of a spinner, median", sus, kRounds, rt, 0.99, "p99");
  printf("  call of a non-leaf, with prologue check  %10.2f ns  (median of %d rounds, %s)\n", Percentile(with, 0.5),
         kRounds, Spread(with, "%.2f").c_str());
  printf("  the same call without the check          %10.2f ns  (%s)\n", Percentile(without, 0.5),
         Spread(without, "%.2f").c_str());
  // A cost only when every round shows one: a difference whose rounds
  // span zero is within the machine's noise, never a negative cost.
  const double lo = *std::min_element(diffs.begin(), diffs.end()), med = Percentile(diffs, 0.5);
  if (lo > 0)
    printf("  the check costs                          %10.2f ns per call  (median of the rounds' differences, %s)\n", med,
           Spread(diffs, "%.2f").c_str());
  else
    printf("  the check costs                          no difference  (the rounds' differences span zero: %s ns)\n",
           Spread(diffs, "%.2f").c_str());
  return 0;
}
