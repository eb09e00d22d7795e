// Tests of the runtime core: programs run on real Ms and goroutine stacks.
#include "runtime/runtime.h"

#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <thread>
#include <vector>

#include "runtime/osthread.h"

namespace safepoint {
namespace {

bool RunProgram(const std::string& text, RuntimeOptions opts, std::unique_ptr<Runtime>* out, std::string* err) {
  ir::Program prog;
  if (!ir::ParseProgram(text, &prog, err)) return false;
  *out = std::make_unique<Runtime>(std::move(opts));
  if (!(*out)->Load(prog, err)) return false;
  return (*out)->Run("main.main", err);
}

// A run's events as a fresh and a reset runtime must both record them:
// every field (but the rounds of stop-the-world and of the run's end), PCs in the program as offsets into it (the code page of
// another runtime lies elsewhere), other addresses (heap objects, named
// by their index in `arg`) left out.
std::vector<std::string> Normalized(Runtime& rt) {
  std::vector<std::string> out;
  uintptr_t base = rt.code_base();
  for (const Event& e : rt.events().Snapshot()) {
    // How many rounds the collector's stop-the-world takes, and how many
    // times the end of the run asks Ms to stop, depend on when an idle M
    // gives its P up: timing, not state, so not compared (both are skips
    // recorded by a thread that is no M).
    if (e.kind == Ev::kSTWRound || e.kind == Ev::kSTWDone || (e.kind == Ev::kSkip && e.m == -1)) continue;
    std::string pc = e.pc >= base && rt.FuncAt(e.pc) ? "+" + std::to_string(e.pc - base) : (e.pc ? "addr" : "0");
    out.push_back(std::string(EvName(e.kind)) + " " + SourceName(e.source) + " " + ReasonName(e.reason) + " g" +
                  std::to_string(e.goid) + " pc" + pc + " arg" + std::to_string(e.arg) + " m" + std::to_string(e.m) +
                  " p" + std::to_string(e.p));
  }
  return out;
}

// Goroutines, handshakes, the heap and a collection, a stack grown: what
// a reset must put back, in one program whose run is the same every time
// on one P.
const char* kResetProgram = R"(
func main.main frame=16 ptrs=0
  go main.worker
  wait 1
  movi r0, 0
  movi r5, 3
build:
  stslot 8, r5
  stslot 0, r0
  alloc 16
  ldslot r1, 0
  stm r0, 0, r1
  ldslot r5, 8
  stm r0, 8, r5
  addi r5, -1
  jnz r5, build
  stslot 0, r0
  call main.churn
  ld r2, g[1]
  addi r2, 7
  st g[1], r2
  ld r3, g[0]
  st g[2], r3
  ret
end
func main.churn
  alloc 64
  alloc 32
  drop r0
  gc
  ret
end
func main.worker frame=64
  movi r0, 40
  call main.deep
  st g[1], r0
  handshake 1
  ret
end
func main.deep frame=512
  addi r0, -1
  jz r0, out
  call main.deep
out:
  ret
end
)";

// Where two event lists first differ, for a failure's message.
std::string FirstDifference(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  size_t i = 0;
  while (i < a.size() && i < b.size() && a[i] == b[i]) i++;
  if (i == a.size() && i == b.size()) return "the same";
  return "event " + std::to_string(i) + ": " + (i < a.size() ? a[i] : "(end)") + " | " + (i < b.size() ? b[i] : "(end)");
}

TEST(Runtime, AResetRuntimeRunsItsProgramAgainAsAFreshOneDoes) {
  ir::Program prog;
  std::string err;
  ASSERT_TRUE(ir::ParseProgram(kResetProgram, &prog, &err)) << err;
  RuntimeOptions opts;
  opts.hooks.sysmon = false;  // its retakes come when its sleeps end: timing
  auto run_fresh = [&](std::vector<std::string>* ev, std::vector<uint64_t>* globals) {
    Runtime rt(opts);
    ASSERT_TRUE(rt.Load(prog, &err)) << err;
    ASSERT_TRUE(rt.Run("main.main", &err)) << err;
    *ev = Normalized(rt);
    for (int i = 0; i < ir::kGlobals; i++) globals->push_back(rt.global(i));
  };
  std::vector<std::string> fresh, fresh2;
  std::vector<uint64_t> fresh_globals, fresh2_globals;
  run_fresh(&fresh, &fresh_globals);
  run_fresh(&fresh2, &fresh2_globals);
  ASSERT_EQ(fresh, fresh2) << "two fresh runtimes disagree (the program is not deterministic on one P): "
                           << FirstDifference(fresh, fresh2);
  ASSERT_EQ(fresh_globals, fresh2_globals);
  auto count = [&](const char* kind) {
    return std::count_if(fresh.begin(), fresh.end(), [&](const std::string& e) { return e.rfind(kind, 0) == 0; });
  };
  ASSERT_GT(count("free "), 0)
      << "the program freed no object: nothing for a reset to put back in the heap";
  ASSERT_GT(count("grow "), 0)
      << "no stack grew: nothing for a reset to put back in the stacks";

  Runtime rt(opts);
  ASSERT_TRUE(rt.Load(prog, &err)) << err;
  for (int round = 0; round < 5; round++) {
    ASSERT_TRUE(rt.Run("main.main", &err)) << "round " << round << ": " << err;
    std::vector<std::string> again = Normalized(rt);
    EXPECT_EQ(again, fresh) << "round " << round << ": " << FirstDifference(again, fresh);
    for (int i = 0; i < ir::kGlobals; i++) EXPECT_EQ(rt.global(i), fresh_globals[i]) << "g[" << i << "], round " << round;
    ASSERT_TRUE(rt.Reset(&err)) << "round " << round << ": " << err;
    // Back to what Load left: nothing recorded, every global zero.
    EXPECT_EQ(rt.events().Snapshot().size(), 0u);
    for (int i = 0; i < ir::kGlobals; i++) EXPECT_EQ(rt.global(i), 0u) << "g[" << i << "] after the reset";
  }
}

// A runtime kept across programs (Runtime::LoadKept): switching back to a
// program loaded before takes its code as it was, at the same address with
// the same table, and runs it as a fresh runtime does; past kShelved other
// programs it is given up, and loaded again afresh.
TEST(Runtime, AKeptRuntimeSwitchesBackToAShelvedProgramAsLoaded) {
  ir::Program reset_prog;
  std::string err;
  ASSERT_TRUE(ir::ParseProgram(kResetProgram, &reset_prog, &err)) << err;
  RuntimeOptions opts;
  opts.hooks.sysmon = false;
  std::vector<std::string> fresh;
  std::vector<uint64_t> fresh_globals;
  {
    Runtime rt(opts);
    ASSERT_TRUE(rt.Load(reset_prog, &err)) << err;
    ASSERT_TRUE(rt.Run("main.main", &err)) << err;
    fresh = Normalized(rt);
    for (int i = 0; i < ir::kGlobals; i++) fresh_globals.push_back(rt.global(i));
  }
  // Other programs: each stores its number in g[3].
  auto other = [](int n) {
    return "func main.main\n  movi r1, " + std::to_string(n) + "\n  st g[3], r1\n  ret\nend\n";
  };
  Runtime rt(opts);
  auto load_run = [&](const std::string& text, std::vector<std::string>* ev, std::vector<uint64_t>* globals) {
    ir::Program p;
    ASSERT_TRUE(ir::ParseProgram(text, &p, &err)) << err;
    ASSERT_TRUE(rt.LoadKept(p, text, &err)) << err;
    ASSERT_TRUE(rt.Run("main.main", &err)) << err;
    if (ev) *ev = Normalized(rt);
    if (globals)
      for (int i = 0; i < ir::kGlobals; i++) globals->push_back(rt.global(i));
    ASSERT_TRUE(rt.Reset(&err)) << err;
  };
  std::vector<std::string> ev;
  std::vector<uint64_t> globals;
  load_run(kResetProgram, &ev, &globals);
  const uintptr_t base = rt.code_base();
  const FuncTable table = rt.table();
  EXPECT_EQ(ev, fresh) << FirstDifference(ev, fresh);
  std::vector<uint64_t> g3;
  load_run(other(1), nullptr, &g3);
  EXPECT_EQ(g3[3], 1u);
  EXPECT_NE(rt.code_base(), base) << "the second program was written over the first one's code";
  EXPECT_TRUE(rt.HasKept(kResetProgram)) << "the first program's code was not kept";
  // Back to the first: its code where it was, its table, its run.
  ev.clear(), globals.clear();
  load_run(kResetProgram, &ev, &globals);
  EXPECT_EQ(rt.code_base(), base);
  EXPECT_EQ(rt.table().insns, table.insns);
  ASSERT_EQ(rt.table().funcs.size(), table.funcs.size());
  for (size_t i = 0; i < table.funcs.size(); i++) {
    EXPECT_EQ(rt.table().funcs[i].name, table.funcs[i].name);
    EXPECT_EQ(rt.table().funcs[i].entry, table.funcs[i].entry);
    EXPECT_EQ(rt.table().funcs[i].end, table.funcs[i].end);
  }
  EXPECT_EQ(ev, fresh) << "after switching back: " << FirstDifference(ev, fresh);
  EXPECT_EQ(globals, fresh_globals);
  // kShelved other programs later it is given up; loaded again, afresh.
  for (size_t n = 2; n < Runtime::kShelved + 3; n++) {
    g3.clear();
    load_run(other(static_cast<int>(n)), nullptr, &g3);
    EXPECT_EQ(g3[3], n) << "program " << n << " ran another's code";
  }
  EXPECT_FALSE(rt.HasKept(kResetProgram)) << "more programs kept than kShelved";
  EXPECT_TRUE(rt.HasKept(other(static_cast<int>(Runtime::kShelved + 2))));
  ev.clear(), globals.clear();
  load_run(kResetProgram, &ev, &globals);
  EXPECT_EQ(ev, fresh) << "loaded again: " << FirstDifference(ev, fresh);
  EXPECT_EQ(globals, fresh_globals);
}

TEST(Runtime, AResetRefusesWhatItCannotProveClean) {
  ir::Program prog;
  std::string err;
  // A patch left in the code.
  ASSERT_TRUE(ir::ParseProgram("func main.main\n  movi r0, 1\n  st g[0], r0\n  ret\nend\n", &prog, &err)) << err;
  {
    Runtime rt({});
    ASSERT_TRUE(rt.Load(prog, &err)) << err;
    ASSERT_TRUE(rt.Run("main.main", &err)) << err;
    uint32_t entry = rt.table().Find("main.main")->entry;
    uint8_t b = 0;
    ASSERT_TRUE(rt.ReadCode(entry, &b, 1));
    b ^= 0xff;
    ASSERT_TRUE(rt.PatchCode(entry, &b, 1));
    EXPECT_FALSE(rt.Reset(&err));
    EXPECT_NE(err.find("not as emitted"), std::string::npos) << err;
    b ^= 0xff;
    ASSERT_TRUE(rt.PatchCode(entry, &b, 1));
    EXPECT_TRUE(rt.Reset(&err)) << "with the byte put back: " << err;
    // Only the pages written since the last clean reset are compared: a
    // patch left after one is found as well, at the last service stub (on
    // a page past main.main's where functions start pages of their own,
    // under an emulator; on the same page natively) and at main.main.
    for (uint32_t at : {rt.table().funcs.back().entry, entry}) {
      ASSERT_TRUE(rt.Run("main.main", &err)) << err;
      ASSERT_TRUE(rt.ReadCode(at, &b, 1));
      b ^= 0xff;
      ASSERT_TRUE(rt.PatchCode(at, &b, 1));
      EXPECT_FALSE(rt.Reset(&err)) << "a patch left at " << at;
      EXPECT_NE(err.find("not as emitted"), std::string::npos) << err;
      b ^= 0xff;
      ASSERT_TRUE(rt.PatchCode(at, &b, 1));
      EXPECT_TRUE(rt.Reset(&err)) << "with the byte at " << at << " put back: " << err;
    }
  }
  // A fatal error (a deadlock).
  ASSERT_TRUE(ir::ParseProgram("func main.main\n  wait 1\n  ret\nend\n", &prog, &err)) << err;
  {
    Runtime rt({});
    ASSERT_TRUE(rt.Load(prog, &err)) << err;
    EXPECT_FALSE(rt.Run("main.main", &err));
    EXPECT_FALSE(rt.Reset(&err));
    EXPECT_NE(err.find("fatal"), std::string::npos) << err;
  }
}

TEST(Runtime, MainStoresAGlobal) {
  std::unique_ptr<Runtime> rt;
  std::string err;
  ASSERT_TRUE(RunProgram(R"(
func main.main
  movi r0, 5
  muli r0, 3
  addi r0, 1
  st g[0], r0
  ret
end
)", {}, &rt, &err)) << err;
  EXPECT_EQ(rt->global(0), 16u);
}

TEST(Runtime, CallsAndGoroutinesAndHandshakes) {
  std::unique_ptr<Runtime> rt;
  std::string err;
  ASSERT_TRUE(RunProgram(R"(
func main.main frame=16
  go main.worker
  wait 1
  ld r1, g[1]
  stslot 8, r1
  gosched
  ldslot r0, 8
  call main.nonleaf
  st g[0], r0
  sleep 1000000
  ret
end
func main.worker
  movi r0, 40
  st g[1], r0
  handshake 1
  ret
end
func main.nonleaf frame=16
  call main.leaf
  addi r0, 1
  ret
end
func main.leaf
  muli r0, 3
  addi r0, 1
  ret
end
)", {}, &rt, &err)) << err;
  EXPECT_EQ(rt->global(0), 40u * 3 + 1 + 1);
}

// main.rec(n): n + (n-1) + ... + 1, one 64-byte frame a level.
constexpr const char* kRecursion = R"(
func main.rec frame=64
  jz r0, base
  stslot 0, r0
  addi r0, -1
  call main.rec
  ldslot r1, 0
  add r0, r1
base:
  ret
end
)";

// Recursion outgrows the initial 2 KiB stack: every port's morestack path,
// newstack and copystack, with the saved return addresses (and, on
// link-register ports, the LR morestack hands back) surviving each move.
TEST(Runtime, RecursionGrowsTheStack) {
  std::unique_ptr<Runtime> rt;
  std::string err;
  ASSERT_TRUE(RunProgram(std::string(R"(
func main.main
  movi r0, 200
  call main.rec
  st g[0], r0
  ret
end
)") + kRecursion, {}, &rt, &err)) << err;
  EXPECT_EQ(rt->global(0), 200u * 201 / 2);
  EXPECT_GE(rt->events().Count(Ev::kGrow), 3u);
}

// A stack copystack moved from is poisoned (kStackPoison, 0xfd) and kept
// for the rest of the run: a pointer left into it (here one kept in a
// global, which copystack does not adjust) reads poison, and a store
// through it is a fatal error at the run's end.
constexpr const char* kStaleStackPointer = R"(
func main.main frame=32
  movi r2, 99
  stslot 0, r2
  addrslot r1, 0
  st g[5], r1
  movi r0, 200
  call main.rec
  st g[0], r0
  ld r1, g[5]
  ldm r3, r1, 0
  st g[1], r3
STORE
  ret
end
)";

std::string StaleStackProgram(const std::string& store) {
  std::string p = kStaleStackPointer;
  return p.replace(p.find("STORE\n"), 6, store) + kRecursion;
}

TEST(Runtime, APointerLeftIntoAMovedStackReadsPoison) {
  std::unique_ptr<Runtime> rt;
  std::string err;
  ASSERT_TRUE(RunProgram(StaleStackProgram(""), {}, &rt, &err)) << err;
  ASSERT_GE(rt->events().Count(Ev::kGrow), 1u) << "main's frame never moved";
  EXPECT_EQ(rt->global(0), 200u * 201 / 2);
  EXPECT_EQ(rt->global(1), 0xfdfdfdfdfdfdfdfdull) << "the old stack's slot, read after the move, is not poison";
}

TEST(Runtime, AStoreIntoAMovedStackIsAFatalErrorAtTheRunsEnd) {
  std::unique_ptr<Runtime> rt;
  std::string err;
  EXPECT_FALSE(RunProgram(StaleStackProgram("  movi r2, 7\n  stm r1, 0, r2\n"), {}, &rt, &err))
      << "a store into a stack copystack had moved went unnoticed";
  EXPECT_NE(err.find("a store into a stack copystack had moved: goroutine 1's old stack changed at 0x"), std::string::npos)
      << err;
  EXPECT_NE(err.find("(8 of its "), std::string::npos) << err;
}

// OSThread: a finished thread is parked and the next Start takes it; the
// work runs with its starter's signal mask; a signal still pending on the
// thread from one work never reaches the next.
TEST(OSThread, ReusesParkedThreadsWithTheStartersMaskAndNothingPending) {
  struct Seen {
    pid_t tid = 0;
    bool usr1_blocked = false, urg_pending = false;
    bool send_urg = false;
  };
  auto work = [](void* p) {
    auto* s = static_cast<Seen*>(p);
    s->tid = static_cast<pid_t>(syscall(SYS_gettid));
    sigset_t cur, pending;
    pthread_sigmask(SIG_SETMASK, nullptr, &cur);
    s->usr1_blocked = sigismember(&cur, SIGUSR1);
    sigpending(&pending);
    s->urg_pending = sigismember(&pending, SIGURG);
    if (s->send_urg) {
      OSThread::SignalsOutstanding();  // as an M does when a SIGURG aimed at it was not taken
      syscall(SYS_tgkill, getpid(), s->tid, SIGURG);  // left pending: blocked below
    }
  };
  sigset_t block, old;
  sigemptyset(&block);
  sigaddset(&block, SIGUSR1);
  sigaddset(&block, SIGURG);
  pthread_sigmask(SIG_BLOCK, &block, &old);
  Seen first, second;
  first.send_urg = true;
  {
    OSThread t;
    ASSERT_TRUE(t.Start(work, &first));
    t.Join();
  }
  EXPECT_TRUE(first.usr1_blocked) << "the work runs with its starter's mask";
  EXPECT_GE(OSThread::Parked(), 1) << "a finished thread is parked";
  const int created = OSThread::Created();
  pthread_sigmask(SIG_SETMASK, &old, nullptr);  // the second starter blocks neither
  sigprocmask(SIG_BLOCK, nullptr, &old);
  bool starter_blocks_usr1 = sigismember(&old, SIGUSR1);
  {
    OSThread t;
    ASSERT_TRUE(t.Start(work, &second));
    t.Join();
  }
  EXPECT_EQ(OSThread::Created(), created) << "the second Start took the parked thread";
  EXPECT_EQ(second.tid, first.tid) << "one thread, parked in between";
  EXPECT_EQ(second.usr1_blocked, starter_blocks_usr1) << "the mask is the second starter's, not the first's";
  EXPECT_FALSE(second.urg_pending) << "the SIGURG left pending by the first work was taken off before parking";
  // Two at once are two threads: the first one's work holds it until the
  // second one's has run (a handshake, bounded: a sleep of 1 ms here let
  // the first finish and park before the second started under amd64_qemu
  // on a loaded machine, and the second took it).
  struct Pair {
    pid_t a = 0, b = 0;
    std::atomic<bool> b_ran{false};
    bool a_waited = false;
  } pair;
  OSThread ta, tb;
  ASSERT_TRUE(ta.Start([](void* p) {
    auto* s = static_cast<Pair*>(p);
    s->a = static_cast<pid_t>(syscall(SYS_gettid));
    for (int i = 0; i < 20000 && !s->b_ran.load(); i++) usleep(500);
    s->a_waited = s->b_ran.load();
  }, &pair));
  ASSERT_TRUE(tb.Start([](void* p) {
    auto* s = static_cast<Pair*>(p);
    s->b = static_cast<pid_t>(syscall(SYS_gettid));
    s->b_ran.store(true);
  }, &pair));
  ta.Join();
  tb.Join();
  ASSERT_TRUE(pair.a_waited) << "the second work did not run within 10 s while the first waited for it";
  EXPECT_NE(pair.a, pair.b);
}

// A work that takes signals (an M's) runs with the mask it was started
// with, on an alternate signal stack of its thread's own; the next such
// work takes that thread again, with its stack as it was. OSThread::Tid is
// the thread's id.
TEST(OSThread, AWorkTakingSignalsKeepsItsThreadsSignalStack) {
  struct Seen {
    pid_t tid = 0, tid_said = 0;
    stack_t alt = {};
    bool usr2_blocked = false, urg_blocked = false;
  };
  auto work = [](void* p) {
    auto* s = static_cast<Seen*>(p);
    s->tid = static_cast<pid_t>(syscall(SYS_gettid));
    s->tid_said = OSThread::Tid();
    sigaltstack(nullptr, &s->alt);
    sigset_t cur;
    pthread_sigmask(SIG_SETMASK, nullptr, &cur);
    s->usr2_blocked = sigismember(&cur, SIGUSR2);
    s->urg_blocked = sigismember(&cur, SIGURG);
  };
  sigset_t mask;  // an M's kind: everything blocked but SIGURG and a fault
  sigfillset(&mask);
  sigdelset(&mask, SIGURG);
  sigdelset(&mask, SIGSEGV);
  Seen first, second;
  {
    OSThread t;
    ASSERT_TRUE(t.StartTakingSignals(work, &first, mask));
    t.Join();
  }
  EXPECT_EQ(first.tid_said, first.tid) << "OSThread::Tid is the thread's id";
  EXPECT_TRUE(first.usr2_blocked) << "the work runs with the mask it was started with";
  EXPECT_FALSE(first.urg_blocked);
  ASSERT_EQ(first.alt.ss_flags & SS_DISABLE, 0) << "a work taking signals has an alternate signal stack";
  EXPECT_EQ(first.alt.ss_size, OSThread::kSignalStackBytes);
  {
    OSThread t;
    ASSERT_TRUE(t.StartTakingSignals(work, &second, mask));
    t.Join();
  }
  EXPECT_EQ(second.tid, first.tid) << "the parked thread set up for it is taken again";
  EXPECT_EQ(second.alt.ss_sp, first.alt.ss_sp) << "its alternate stack stays with the thread";
  EXPECT_TRUE(second.usr2_blocked);
  // A plain work on that thread afterwards runs with its starter's mask.
  Seen third;
  {
    OSThread t;
    ASSERT_TRUE(t.Start(work, &third));
    t.Join();
  }
  sigset_t mine;
  pthread_sigmask(SIG_SETMASK, nullptr, &mine);
  EXPECT_EQ(third.tid, first.tid) << "the most recently parked thread";
  EXPECT_EQ(third.usr2_blocked, static_cast<bool>(sigismember(&mine, SIGUSR2))) << "the starter's mask, not the last work's";
}

// After a fork the child has none of the parked threads; its Start makes a
// thread of its own (a death test forks with threads parked).
TEST(OSThread, AForkedChildStartsThreadsOfItsOwn) {
  {
    OSThread t;  // at least one parked before the fork
    ASSERT_TRUE(t.Start([](void*) {}, nullptr));
    t.Join();
  }
  ASSERT_GE(OSThread::Parked(), 1);
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    alarm(20);  // a child that waits on a thread that is not there dies here
    int ran = 0;
    OSThread t;
    if (!t.Start([](void* p) { *static_cast<int*>(p) = 1; }, &ran)) _exit(3);
    t.Join();
    _exit(ran == 1 && OSThread::Parked() >= 1 ? 0 : 4);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
      << "the child's work " << (WIFSIGNALED(status) ? "never ran (SIGALRM after 20 s)" : "failed")
      << ", status " << status;
}

TEST(Godebug, ParsesAsGoDoes) {
  Debug d;
  std::string err;
  ASSERT_TRUE(ParseGodebug("", &d, &err));
  EXPECT_EQ(d.asyncpreemptoff, 0);
  ASSERT_TRUE(ParseGodebug("asyncpreemptoff=1", &d, &err));
  EXPECT_EQ(d.asyncpreemptoff, 1);
  ASSERT_TRUE(ParseGodebug("gctrace=1,asyncpreemptoff=1,madvdontneed=0", &d, &err)) << "unknown keys are ignored";
  EXPECT_EQ(d.asyncpreemptoff, 1);
  EXPECT_FALSE(ParseGodebug("asyncpreemptoff=yes", &d, &err));
  EXPECT_EQ(err, "GODEBUG: asyncpreemptoff=yes: want 0 or 1");
  EXPECT_FALSE(ParseGodebug("asyncpreemptoff", &d, &err));
  EXPECT_EQ(err, "GODEBUG: malformed entry 'asyncpreemptoff' (want key=value)");
  // A runtime refuses to load with a bad GODEBUG.
  RuntimeOptions o;
  o.settings.godebug = "=1";
  Runtime rt(std::move(o));
  ir::Program p;
  ASSERT_TRUE(ir::ParseProgram("func main.main\n  ret\nend\n", &p, &err));
  EXPECT_FALSE(rt.Load(p, &err));
  EXPECT_EQ(err, "GODEBUG: malformed entry '=1' (want key=value)");
}

// A run whose main never returns is aborted at its bound (SetRunBound),
// kept by Run's own thread: no thread of the harness's watches it. Main
// spins in a leaf with no stack check under asyncpreemptoff=1, so nothing
// stops it; once Run has returned the test lets it finish.
TEST(Runtime, ARunPastItsBoundIsAbortedAndSaysSo) {
  ir::Program prog;
  std::string err;
  ASSERT_TRUE(ir::ParseProgram("func main.main\nspin:\n  ld r0, g[1]\n  jz r0, spin\n  movi r1, 7\n  st g[2], r1\n"
                               "  ret\nend\n",
                               &prog, &err))
      << err;
  RuntimeOptions o;
  o.settings.godebug = "asyncpreemptoff=1";
  o.hooks.sysmon = false;
  auto rt = std::make_unique<Runtime>(std::move(o));
  ASSERT_TRUE(rt->Load(prog, &err)) << err;
  rt->SetRunBound(0.25);
  int64_t t0 = MonotonicNanos();
  EXPECT_FALSE(rt->Run("main.main", &err));
  int64_t took = MonotonicNanos() - t0;
  EXPECT_EQ(err, "run aborted: main did not return within the bound (0.25 s)");
  EXPECT_GE(took, 250'000'000) << "aborted before its bound";
  EXPECT_EQ(rt->abandoned_ms(), 1) << "main's M never reached a safe point";
  std::string why;
  EXPECT_FALSE(rt->Reset(&why)) << "a run with an abandoned M cannot be reset";
  // Let the abandoned M finish (it still reaches the Runtime: leaked, as
  // ReferenceRuntime leaks one), and see that it does, bounded.
  rt->set_global(1, 1);
  for (int i = 0; i < 20000 && rt->global(2) != 7; i++) usleep(500);
  EXPECT_EQ(rt->global(2), 7u) << "main did not finish within 10 s of being let go";
  rt.release();
}

// Every goroutine waiting and no timer pending: reported as Go reports it,
// instead of hanging, 100 times of 100 over GOMAXPROCS 1 to 4, with sysmon
// running (as from the command line) and without; recorded once each time.
TEST(Runtime, ADeadlockIsReportedAsGoReportsIt) {
  int reported = 0;
  for (int run = 0; run < 100; run++) {
    int procs = 1 + run % 4;
    RuntimeOptions o;
    o.settings.gomaxprocs = procs;
    o.hooks.sysmon = run % 8 < 4;
    std::unique_ptr<Runtime> rt;
    std::string err;
    EXPECT_FALSE(RunProgram("func main.main\n  go main.w\n  wait 1\n  ret\nend\n"
                            "func main.w\n  wait 2\n  ret\nend\n",
                            std::move(o), &rt, &err));
    EXPECT_EQ(err, "all goroutines are asleep - deadlock!") << "run " << run << ", GOMAXPROCS=" << procs;
    ASSERT_NE(rt, nullptr);
    EXPECT_TRUE(rt->fatal());
    EXPECT_EQ(rt->events().Count(Ev::kDeadlock), 1u) << "run " << run;
    reported += rt->fatal() && err == "all goroutines are asleep - deadlock!";
  }
  EXPECT_EQ(reported, 100);
}

// A fault signal that was no access says what it was: a SIGSEGV another
// thread sends (tgkill; si_code SI_TKILL) to an M while its goroutine spins
// is a goroutine's fault, reported as Go reports one, and the report says
// it was sent, not taken at its address. (Linux and QEMU force a SIGSEGV,
// si_code SI_KERNEL, when they cannot set up or restore a signal frame: the
// sixth one-hour campaign's arm64 "pc=0x...704 addr=0x0" was asyncPreempt's
// first instruction, which reads no memory; see the next test.)
TEST(Runtime, AFaultSignalThatWasNoAccessSaysWhatItWas) {
  std::atomic<pid_t> tid{0};
  RuntimeOptions o;
  o.settings.godebug = "asyncpreemptoff=1";  // the loop is not preempted: only the SIGSEGV ends it
  o.hooks.callbacks.push_back([&tid](Runtime&, G* gp) { tid.store(gp->m->tid); });
  ir::Program prog;
  std::string err;
  ASSERT_TRUE(ir::ParseProgram("func main.main\n  callback 0\n  movi r1, 1\nloop:\n  st g[0], r1\n  ld r2, g[1]\n"
                               "  jz r2, loop\n  ret\nend\n",
                               &prog, &err))
      << err;
  Runtime rt(std::move(o));
  ASSERT_TRUE(rt.Load(prog, &err)) << err;
  bool sent = false;
  std::thread sender([&] {
    // main is in its loop once g[0] is 1; bounded (emulated runs are slow):
    // past the bound, main is let go (g[1]) and the test fails below.
    for (int i = 0; i < 60000 && (rt.global(0) != 1 || tid.load() == 0); i++) usleep(1000);
    if (rt.global(0) == 1 && tid.load() != 0) {
      sent = syscall(SYS_tgkill, getpid(), tid.load(), SIGSEGV) == 0;
    } else {
      rt.set_global(1, 1);
    }
  });
  bool ok = rt.Run("main.main", &err);
  sender.join();
  ASSERT_TRUE(sent) << "main never reached its loop (g[0] = " << rt.global(0) << ") within 60 s";
  EXPECT_FALSE(ok);
  EXPECT_TRUE(rt.fatal());
  EXPECT_EQ(err.rfind("unexpected signal SIGSEGV: segmentation violation in goroutine 1: pc=main.main+0x", 0), 0u) << err;
  EXPECT_NE(err.find(" sent by a process (si_code " + std::to_string(SI_TKILL) + "), not an access"), std::string::npos)
      << err;
  EXPECT_NE(err.find("(g register = curg 0x"), std::string::npos) << err;
  EXPECT_EQ(DescribeFaultCode(SEGV_MAPERR), "");
  EXPECT_TRUE(FaultWasAccess(SEGV_ACCERR));
  EXPECT_FALSE(FaultWasAccess(SI_KERNEL));
  EXPECT_EQ(DescribeFaultCode(SI_KERNEL).rfind("forced by the kernel or the emulator (si_code SI_KERNEL), not an access", 0),
            0u);
}

// An M takes only the runtime's signals (IsMSignal) and blocks every other:
// a process-directed signal (libFuzzer's SIGALRM timer, SIGINT) must not run
// its handler on an M, where a handler without SA_ONSTACK puts its frame on
// the goroutine's small stack. Found by the arm64 one-hour campaigns: under
// QEMU, libFuzzer's alarm landed on an M right after a preemption, its
// 4704-byte frame did not fit below the goroutine's SP, and QEMU forced a
// SIGSEGV there ("pc=asyncPreempt (tier 0)+0x0 addr=0x0"). On the M itself:
// its mask, and a SIGALRM sent to its thread stays pending, its handler not
// run, on every port.
std::atomic<int> g_alarms{0};
void CountAlarm(int) { g_alarms.fetch_add(1); }

TEST(Runtime, AnMTakesOnlyTheRuntimesSignals) {
  struct sigaction sa = {}, old = {};
  sa.sa_handler = CountAlarm;  // no SA_ONSTACK, as libFuzzer's
  sigemptyset(&sa.sa_mask);
  ASSERT_EQ(sigaction(SIGALRM, &sa, &old), 0);
  struct Seen {
    bool ran = false;
    std::vector<int> blocked, taken;
    bool pending = false;
    int alarms_before = 0, alarms_after = 0;
  } seen;
  RuntimeOptions o;
  o.hooks.callbacks.push_back([&seen](Runtime&, G*) {
    sigset_t cur;
    pthread_sigmask(SIG_SETMASK, nullptr, &cur);
    // The standard signals. (Of the real-time ones, the top four, 61 to 64,
    // read back unblocked under QEMU's user mode on every emulated config,
    // whatever the mask asked: the emulator's, not the runtime's.)
    for (int sig = 1; sig < 32; sig++) {
      if (sig == SIGKILL || sig == SIGSTOP) continue;  // not blockable
      (sigismember(&cur, sig) == 1 ? seen.blocked : seen.taken).push_back(sig);
    }
    seen.alarms_before = g_alarms.load();
    syscall(SYS_tgkill, getpid(), syscall(SYS_gettid), SIGALRM);  // delivered before tgkill returns, unless blocked
    seen.alarms_after = g_alarms.load();
    sigset_t pending;
    seen.pending = sigpending(&pending) == 0 && sigismember(&pending, SIGALRM) == 1;
    // Taken off again: this thread goes back to the pool with it otherwise.
    sigset_t alrm;
    sigemptyset(&alrm);
    sigaddset(&alrm, SIGALRM);
    const struct timespec zero = {0, 0};
    while (sigtimedwait(&alrm, nullptr, &zero) == SIGALRM) {
    }
    seen.ran = true;
  });
  std::unique_ptr<Runtime> rt;
  std::string err;
  bool ok = RunProgram("func main.main\n  callback 0\n  ret\nend\n", std::move(o), &rt, &err);
  sigaction(SIGALRM, &old, nullptr);
  ASSERT_TRUE(ok) << err;
  ASSERT_TRUE(seen.ran);
  std::vector<int> want_taken = {SIGILL, SIGTRAP, SIGABRT, SIGBUS, SIGFPE, SIGSEGV, SIGURG};
  std::sort(want_taken.begin(), want_taken.end());
  EXPECT_EQ(seen.taken, want_taken) << "the signals an M leaves unblocked";
  for (int sig : {SIGALRM, SIGINT, SIGTERM, SIGCHLD, SIGUSR1, SIGPROF})
    EXPECT_NE(std::find(seen.blocked.begin(), seen.blocked.end(), sig), seen.blocked.end()) << strsignal(sig);
  EXPECT_EQ(seen.alarms_after, seen.alarms_before) << "SIGALRM's handler ran on the M";
  EXPECT_TRUE(seen.pending) << "the SIGALRM sent to the M's thread is pending there";
  for (int sig = 1; sig < 32; sig++)
    EXPECT_EQ(IsMSignal(sig), std::find(want_taken.begin(), want_taken.end(), sig) != want_taken.end()) << sig;
}

// A goroutine sleeping on a timer is not a deadlock.
TEST(Runtime, ASleeperIsNotADeadlock) {
  RuntimeOptions o;
  o.settings.gomaxprocs = 2;
  std::unique_ptr<Runtime> rt;
  std::string err;
  ASSERT_TRUE(RunProgram("func main.main\n  go main.w\n  wait 1\n  ret\nend\n"
                         "func main.w\n  sleep 2000000\n  handshake 1\n  ret\nend\n",
                         std::move(o), &rt, &err))
      << err;
  EXPECT_EQ(rt->events().Count(Ev::kDeadlock), 0u);
}

// sysmon on a harness's clock (hooks.sysmon_clock) is driven: each
// SysmonLook during the run is one pass (one read of that clock), made on
// the asking thread and ended when it returns, and none is made otherwise
// (a run whose main then sleeps 5 ms, 50 passes on real time in its first
// millisecond, reads it no more). A pass is sysmon's: its retake, once the
// clock has moved past forcePreemptNS, is recorded as sysmon's M (no P),
// and requests the preemption of the goroutine running on the asking M
// itself (sysmon's M is never the one it preempts); the asking thread's
// own events are its M's again after the look.
TEST(Runtime, SysmonOnAHarnessClockLooksWhenAsked) {
  ManualClock clock;
  RuntimeOptions o;
  o.hooks.sysmon = true;
  o.hooks.sysmon_clock = &clock;
  std::vector<bool> looked;
  std::vector<uint64_t> reads;  // the clock's reads during each look
  int before_m = -2, before_p = -2, after_m = -2, after_p = -2;
  o.hooks.callbacks.push_back([&](Runtime& rt, G*) {
    for (int i = 0; i < 3; i++) {
      const uint64_t before = clock.reads();
      looked.push_back(rt.SysmonLook(10'000'000'000));
      reads.push_back(clock.reads() - before);
    }
    EventLog::ThreadBinding(&before_m, &before_p);
    clock.Advance(kForcePreemptNS);
    looked.push_back(rt.SysmonLook(10'000'000'000));
    EventLog::ThreadBinding(&after_m, &after_p);
  });
  std::unique_ptr<Runtime> rt;
  std::string err;
  ASSERT_TRUE(RunProgram("func main.main\n  callback 0\n  sleep 5000000\n  ret\nend\n", std::move(o), &rt, &err))
      << err;
  ASSERT_EQ(looked.size(), 4u);
  for (int i = 0; i < 3; i++) {
    EXPECT_TRUE(looked[i]) << "look " << i << " did not end within 10 s";
    EXPECT_EQ(reads[i], 1u) << "look " << i << ": sysmon's reads of its clock";
  }
  EXPECT_TRUE(looked[3]) << "the look after the clock moved";
  EXPECT_EQ(clock.reads(), 4u) << "sysmon looked at its clock other than when asked";
  EXPECT_EQ(before_m, 0);
  EXPECT_EQ(before_p, 0);
  EXPECT_EQ(after_m, before_m) << "the asking M's events are recorded as its own again after a look";
  EXPECT_EQ(after_p, before_p);
  size_t retakes = 0, requests = 0;
  for (const Event& e : rt->events().Snapshot()) {
    if (e.kind == Ev::kRetake) {
      retakes++;
      EXPECT_EQ(e.m, 1) << "a retake recorded as an M other than sysmon's (GOMAXPROCS = 1: sysmon is M 1)";
      EXPECT_EQ(e.p, -1) << "sysmon holds no P";
    }
    if (e.kind == Ev::kRequest && e.source == Source::kSysmon) {
      requests++;
      EXPECT_EQ(e.m, 1);
      EXPECT_EQ(e.goid, 1) << "sysmon preempts main, running on the M that asked";
    }
  }
  EXPECT_EQ(retakes, 1u) << rt->events().Dump();
  EXPECT_EQ(requests, 1u) << rt->events().Dump();
  EXPECT_EQ(rt->events().Count(Ev::kSkip, Reason::kSelf), 0u) << "sysmon's pass took the asking M for its own";
}

// ManualClock stands still unless moved, and counts its reads.
TEST(ManualClock, StandsStillUntilMoved) {
  ManualClock c;
  c.Set(1000);
  EXPECT_EQ(c.Now(), 1000);
  EXPECT_EQ(c.Now(), 1000);
  c.Advance(5);
  for (int i = 0; i < 1000; i++) ASSERT_EQ(c.Now(), 1005) << "the clock moved by itself";
  EXPECT_EQ(c.reads(), 1002u);
}

}  // namespace
}  // namespace safepoint
