// Benchmark of armed, fully checked asynchronous preemptions per second on
// the port this binary runs on, next to the machine's own ceiling measured
// in the same run: a bare trap-plus-SIGURG round trip on a code page, at
// each instruction of a probe as long as the armed body (and, beside it, of
// the 16-instruction probe the ceiling used before: CeilingPerSecond says
// why the length matters under an emulator).
//
// Fully checked: an instruction of the body is armed; it traps; the trap
// handler raises the request and sends a real SIGURG through preemptM;
// isAsyncSafePoint decides and the decision is compared with the oracle's;
// if accepted, asyncPreempt, asyncPreempt2 on g0, the goroutine goes through
// the scheduler and resumes; then the body's end state is compared with the
// unpreempted run's, and the next instruction is armed. One long-running
// program does all of it (a fresh runtime per preemption would measure
// runtime start-up instead).
//
// A benchmark, not a test: it prints figures and asserts nothing.
#include <sched.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdio>
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "harness/armed.h"
#include "harness/sweep.h"
#include "oracle/decision.h"
#include "platforms/native.h"
#include "core/code_page.h"

namespace safepoint {
namespace {

using Ctx = NativeContext;

// --- the ceiling -----------------------------------------------------------

struct Bare {
  CodePage* page;
  uint32_t off;
  uint8_t saved[16];
  size_t len;
  long urgs;
} g_bare;

void BareTrap(int, siginfo_t*, void* p) {
  auto* uc = static_cast<ucontext_t*>(p);
  uintptr_t at = Ctx::pc(uc) - NativePort().pc_after_trap;
  g_bare.page->Patch(g_bare.off, g_bare.saved, g_bare.len);
  Ctx::set_pc(uc, at);
  syscall(SYS_tgkill, getpid(), syscall(SYS_gettid), SIGURG);
}
void BareUrg(int, siginfo_t*, void*) { g_bare.urgs++; }

// `len` instructions of straight-line code, armed at each in turn. Under an
// emulator the length matters: a patch of a code page throws away the
// emulator's translations of that page (QEMU user mode), so every round
// trip translates the whole probe again, as every armed preemption
// translates the whole function it armed. The ceiling's probe is as long as
// the armed body (BodyInstructions); a 16-instruction probe, the ceiling
// before, left most of that out (arm64 under QEMU: 16 instructions 18.0k/s,
// 86 instructions 14.6k/s at load 1), and is printed beside it.
double CeilingPerSecond(int n, int len) {
  const PortInfo& port = NativePort();
  ProbeCode code = port.counting(len);
  std::string err;
  auto page = CodePage::Create(code.bytes, &err);
  if (!page) return -1;
  struct sigaction sa = {}, old_trap, old_urg;
  sa.sa_sigaction = BareTrap;
  sa.sa_flags = SA_SIGINFO;
  sigemptyset(&sa.sa_mask);
  sigaddset(&sa.sa_mask, SIGURG);
  sigaction(SIGTRAP, &sa, &old_trap);
  sa.sa_sigaction = BareUrg;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGURG, &sa, &old_urg);
  auto f = page->as<int (*)()>(code.entry);
  g_bare = {page.get(), 0, {}, port.breakpoint.size(), 0};
  int64_t t0 = MonotonicNanos();
  for (int i = 0; i < n; i++) {
    g_bare.off = code.insns[1 + i % len];
    page->Read(g_bare.off, g_bare.saved, g_bare.len);
    page->Patch(g_bare.off, port.breakpoint.data(), port.breakpoint.size());
    f();
  }
  double secs = static_cast<double>(MonotonicNanos() - t0) / 1e9;
  sigaction(SIGTRAP, &old_trap, nullptr);
  sigaction(SIGURG, &old_urg, nullptr);
  return g_bare.urgs / secs;
}

// --- fully checked preemptions ----------------------------------------------

const char* kProgram = R"(
func main.main frame=16
  callback 0
loop:
  call main.body
  callback 1
  ld r1, g[0]
  jz r1, loop
  ret
end
func main.body frame=16
  fillregs 300
  addi r1, 5
  muli r2, 7
  add r3, r2
  mov r4, r3
  ld r5, g[3]
  st g[4], r5
  atomic_add g[5], r6
  inline runtime.add
  addi r7, 1
  endinline
  addi r8, 100000
  dumpregs 20
  ret
end
)";

struct Checked {
  long preemptions = 0, accepted = 0, disagreements = 0, state_diffs = 0;
  double secs = 0;
};

Checked FullyChecked(int n) {
  Checked c;
  ir::Program prog;
  std::string err;
  if (!ir::ParseProgram(kProgram, &prog, &err)) return c;
  // The unpreempted end state of one body run.
  uint64_t want[ir::kPortableRegs];
  {
    RuntimeOptions o;
    o.hooks.sysmon = false;
    o.hooks.callbacks = {[](Runtime&, G*) {}, [](Runtime& rt, G*) { rt.set_global(0, 1); }};
    Runtime rt(std::move(o));
    if (!rt.Load(prog, &err) || !rt.Run("main.main", &err)) return c;
    for (int i = 0; i < ir::kPortableRegs; i++) want[i] = rt.global(20 + i);
  }
  RuntimeOptions o;
  o.hooks.sysmon = false;
  o.hooks.event_capacity = 1 << 12;
  o.hooks.event_times = false;  // checked by order only, as the fuzzer's runs are
  // Per armed instruction, what the check compares with: the oracle's
  // expectation and where its operation and function start (static facts
  // of the program, computed once, as the fuzzer's baseline is).
  struct Armable {
    size_t k;
    uintptr_t pc, op_start, entry;
    oracle::Expect expect;
  };
  std::vector<Armable> body;
  size_t next = 0;
  const Armable* armed = nullptr;
  int64_t t0 = 0;
  auto arm_next = [&](Runtime& rt) {
    armed = &body[next++ % body.size()];
    std::string e;
    harness::Arm(rt, rt.table().insns[armed->k], &e);
  };
  o.hooks.callbacks = {
      [&](Runtime& rt, G*) {
        const FuncInfo* f = rt.table().Find("main.body");
        for (size_t k = 0; k < rt.table().insns.size(); k++) {
          uint32_t off = rt.table().insns[k];
          if (off < f->entry || off >= f->end || f->tail.contains(off)) continue;
          body.push_back({k, rt.code_base() + off, rt.code_base() + harness::OpStart(rt.table(), k),
                          rt.code_base() + f->entry,
                          oracle::Decide(NativePort().model, oracle::State{}, harness::PositionOf(prog, rt.table(), k))});
        }
        t0 = MonotonicNanos();
        arm_next(rt);
      },
      [&](Runtime& rt, G*) {
        // The decision for the armed instruction, then the end state.
        bool found = false;
        for (const Event& e : rt.events().Snapshot()) {
          if (e.pc != armed->pc || (e.kind != Ev::kAsyncAccept && e.kind != Ev::kAsyncRefuse)) continue;
          bool acc = e.kind == Ev::kAsyncAccept;
          if (!oracle::Agrees(NativePort().model, armed->expect, acc, armed->pc, static_cast<uintptr_t>(e.arg), e.reason,
                              armed->op_start, armed->entry))
            c.disagreements++;
          c.accepted += acc;
          found = true;
        }
        if (found) c.preemptions++;
        rt.events().Clear();
        for (int i = 0; i < ir::kPortableRegs; i++) c.state_diffs += rt.global(20 + i) != want[i];
        rt.set_global(5, 0);  // atomic_add's target: every body run starts from the same memory
        if (c.preemptions >= n) {
          c.secs = static_cast<double>(MonotonicNanos() - t0) / 1e9;
          rt.set_global(0, 1);
          return;
        }
        arm_next(rt);
      },
  };
  Runtime rt(std::move(o));
  if (!rt.Load(prog, &err) || !rt.Run("main.main", &err)) fprintf(stderr, "async_bench: %s\n", err.c_str());
  return c;
}

// How many instructions main.body has as this port emits it.
int BodyInstructions() {
  ir::Program prog;
  std::string err;
  if (!ir::ParseProgram(kProgram, &prog, &err)) return 16;
  RuntimeOptions o;
  o.hooks.sysmon = false;
  Runtime rt(std::move(o));
  if (!rt.Load(prog, &err)) return 16;
  const FuncInfo* f = rt.table().Find("main.body");
  int n = 0;
  for (uint32_t off : rt.table().insns) n += f && off >= f->entry && off < f->end;
  return n > 0 ? n : 16;
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n == 0 ? 0 : n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

}  // namespace
}  // namespace safepoint

// async_bench [N [ROUNDS]]: ROUNDS rounds (default 5), each N bare round
// trips then N fully checked preemptions; every round's ratio is taken
// within the round (the machine's load moves both), and the medians printed.
int main(int argc, char** argv) {
  using namespace safepoint;
  int n = argc > 1 ? atoi(argv[1]) : 20000;
  if (n < 100) n = 100;
  int rounds = argc > 2 ? atoi(argv[2]) : 5;
  if (rounds < 1) rounds = 1;
  const char* emu = getenv("SAFEPOINT_EMULATOR");
  cpu_set_t cpus;
  int ncpu = sched_getaffinity(0, sizeof cpus, &cpus) == 0 ? CPU_COUNT(&cpus) : 0;
  printf("async_bench: port %s, %s; %d rounds of %d; on %d CPU%s\n", std::string(NativePort().name).c_str(),
         emu && *emu ? emu : "native", rounds, n, ncpu, ncpu == 1 ? "" : "s");
  if (!NativePort().async_preemption()) {
    printf("  port declares asynchronous preemption missing: nothing to measure\n");
    return 0;
  }
  const int body = BodyInstructions();
  std::vector<double> ceilings, small_ceilings, rates, ratios, small_ratios;
  long checked = 0, accepted = 0, disagreements = 0, state_diffs = 0;
  for (int r = 0; r < rounds; r++) {
    double ceiling = CeilingPerSecond(n, body);
    double small = CeilingPerSecond(n, 16);
    Checked c = FullyChecked(n);
    double rate = c.secs > 0 ? c.preemptions / c.secs : 0;
    ceilings.push_back(ceiling);
    small_ceilings.push_back(small);
    rates.push_back(rate);
    ratios.push_back(ceiling > 0 ? rate / ceiling : 0);
    small_ratios.push_back(small > 0 ? rate / small : 0);
    checked += c.preemptions, accepted += c.accepted, disagreements += c.disagreements, state_diffs += c.state_diffs;
  }
  auto range = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    char b[64];
    snprintf(b, sizeof b, "%.0f..%.0f", v.front(), v.back());
    return std::string(b);
  };
  printf("  bare trap + SIGURG round trips (ceiling)   %10.0f /s median (%s); on a probe of %d instructions, as long as the armed body\n",
         Median(ceilings), range(ceilings).c_str(), body);
  printf("  the same on a 16-instruction probe         %10.0f /s median (%s)\n", Median(small_ceilings),
         range(small_ceilings).c_str());
  printf("  armed preemptions, fully checked           %10.0f /s median (%s); %ld checked, %ld accepted\n",
         Median(rates), range(rates).c_str(), checked, accepted);
  std::sort(ratios.begin(), ratios.end());
  printf("  ratio to the ceiling, per round            %10.2f median (%.2f..%.2f)\n", Median(ratios), ratios.front(),
         ratios.back());
  std::sort(small_ratios.begin(), small_ratios.end());
  printf("  ratio to the 16-instruction probe's         %10.2f median (%.2f..%.2f)\n", Median(small_ratios),
         small_ratios.front(), small_ratios.back());
  printf("  disagreements with the oracle %ld, end-state differences %ld\n", disagreements, state_diffs);
  return disagreements || state_diffs ? 1 : 0;
}
