#include "harness/armed.h"

#include <sched.h>
#include <signal.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <thread>

#include <semaphore.h>

#include "harness/scenario.h"
#include "platforms/native.h"
#include "runtime/osthread.h"

namespace safepoint::harness {
namespace {

// The armed instruction. Written by Arm while no M runs the code; read and
// cleared by the trap handler on the M that hits it. `rt` is set while the
// breakpoint is in place; `owner` stays set after it fired, so that a
// second M that trapped on the same breakpoint at the same time (a service
// stub both goroutines call, GOMAXPROCS > 1) is recognised: it waits for
// the first to restore the instruction and runs it. (Found by
// //fuzz:preempt_fuzz: two Ms restoring at once raced on the page's
// protection and one wrote to it read-only.)
struct ArmedState {
  std::atomic<Runtime*> rt{nullptr};
  std::atomic<Runtime*> owner{nullptr};
  uint32_t off = 0;
  uint8_t saved[16] = {};
  size_t len = 0;
  RequestSource src = RequestSource::kPreemptOne;  // who raises the armed point's request
  // A chain (ArmThen): the points still to arm, in order, and every offset
  // armed so far (an M that hit an earlier point's breakpoint together with
  // the M that took it is told apart from a stray trap by it).
  ArmPoint then[kMaxArmThen];
  size_t nthen = 0, next = 0;
  uint32_t past[kMaxArmThen + 1] = {};
  size_t npast = 0;
};
ArmedState g_armed;

// The registers of each M's last trap (TakeTrapRegisters), one record per
// M: written by the trapping M's handler and read by the same M's
// asyncPreempt2, on one thread. (One record for all: a chained point's
// trap on another M rewrote it while the first point's preemption read
// it, and the save-area oracle compared a goroutine's registers with
// main's; found by the preemption fuzzer on loong64, 4 of 40 processes.)
// Taken once, by the trapped goroutine's preemption that answers the
// first SIGURG its M handles after the trap (`gen`: the M's preemptGen at
// the trap), in the same arm (`arm`: an earlier run's trap answers no
// later preemption).
struct TrapRecord {
  RegisterImage regs;
  uintptr_t pc = 0;
  int64_t goid = 0;  // not the G: a G is reused by the goroutines after it
  uint32_t gen = 0;
  uint64_t arm = 0;
  const M* m = nullptr;  // nullptr: none, or taken
};
constexpr int kTrapRecords = 64;  // GOMAXPROCS' bound: one M per P, ids from 0
TrapRecord g_traps[kTrapRecords];
std::atomic<uint64_t> g_arms{0};  // Arm's count

// The frame image of each point of the current arm (FrameImage), by the
// point's place in its chain (0: the armed one): written by the trap
// handler that owns the point, read after the run (TakeTrapFrame). Static:
// the handler allocates nothing. A stack used deeper than kFrameStackBytes
// is kept to that depth; the oracle judges no word beyond it.
constexpr size_t kFrameStackBytes = 256 * 1024;
struct FrameRecord {
  uint64_t arm = 0;
  FrameImage img;  // every field but `stack`, which the handler never touches (no allocation)
  size_t n = 0;
  uint8_t bytes[kFrameStackBytes];
};
FrameRecord g_frames[kMaxArmThen + 1];

void RecordTrapFrame(size_t point, const ucontext_t* uc, const Runtime& rt, const G* gp, uintptr_t pc) {
  if (point > kMaxArmThen || gp == nullptr) return;
  FrameRecord& f = g_frames[point];
  FrameImage& i = f.img;
  i.seen = false;
  f.arm = g_arms.load();
  i.code_base = rt.code_base();
  i.pc = pc;
  i.sp = NativeContext::sp(uc);
  i.has_lr = !NativePort().link_reg.empty();
  i.lr = i.has_lr ? NativeContext::lr(uc) : 0;
  i.stack_lo = gp->stack.lo;
  i.stack_hi = gp->stack.hi;
  i.base = Runtime::FrameBase(gp);
  i.goexit = rt.goexit_pc();
  f.n = 0;
  if (i.sp >= i.stack_lo && i.sp < i.stack_hi) {
    f.n = i.stack_hi - i.sp < kFrameStackBytes ? i.stack_hi - i.sp : kFrameStackBytes;
    memcpy(f.bytes, reinterpret_cast<const void*>(i.sp), f.n);
  }
  i.seen = true;
}

TrapRecord* TrapRecordOf(const M* m) { return m != nullptr && m->id >= 0 && m->id < kTrapRecords ? &g_traps[m->id] : nullptr; }

// What the trap handler reads for a runtime of each tier of extended state:
// the registers the oracle judges (every general and flag register, only
// the vectors of the tier: amd64's wider ones are read from the XSAVE
// image), each where it lives in a signal context (SignalContext::slot,
// from its name). Found once, outside the handler, which then copies each
// register without parsing a name, walking the context's records
// (SignalContext::locate, once per trap) or looking at the others.
struct RegisterPlan {
  struct Read {
    uint8_t index;  // in saved_regs and RegisterImage
    uint8_t size;
    int16_t slot;
  };
  size_t count = 0;  // saved_regs entries recorded (RegisterImage::count)
  size_t n = 0;
  Read reads[RegisterImage::kMaxRegs];
};
constexpr int kPlannedTiers = 8;
RegisterPlan g_plans[kPlannedTiers];

void PlanRegisterReads() {
  const std::vector<SavedReg>& regs = NativePort().saved_regs;
  static_assert(RegisterImage::kMaxRegs <= 256 && RegisterImage::kMaxBytes <= 255, "RegisterPlan::Read's widths");
  if (NativePort().tiers.size() > kPlannedTiers) {
    fprintf(stderr, "%sarm: the port has %zu tiers of extended state, the trap plans for %d\n", FatalPrefix(),
            NativePort().tiers.size(), kPlannedTiers);
    FatalExit();
  }
  for (int tier = 0; tier < kPlannedTiers; tier++) {
    RegisterPlan& p = g_plans[tier];
    p.count = regs.size() < RegisterImage::kMaxRegs ? regs.size() : RegisterImage::kMaxRegs;
    p.n = 0;
    for (size_t i = 0; i < p.count; i++) {
      const SavedReg& r = regs[i];
      if (r.size > RegisterImage::kMaxBytes || (r.kind == SavedReg::kVector && r.tier != tier)) continue;
      p.reads[p.n++] = {static_cast<uint8_t>(i), static_cast<uint8_t>(r.size),
                        static_cast<int16_t>(NativeContext::slot(r))};
    }
  }
}

void RecordTrapRegisters(const ucontext_t* uc, const M* m, const G* gp, uintptr_t pc, int tier) {
  TrapRecord* t = TrapRecordOf(m);
  if (t == nullptr || tier < 0 || tier >= kPlannedTiers) return;
  const PortInfo& port = NativePort();
  const RegisterPlan& plan = g_plans[tier];
  RegisterImage& img = t->regs;
  const NativeContext::Located at = NativeContext::locate(uc);
  __builtin_memset(img.known, 0, sizeof img.known);  // a constant size: stores, no libc call
  for (size_t i = 0; i < plan.n; i++) {
    const RegisterPlan::Read& r = plan.reads[i];
    img.known[r.index] = static_cast<uint8_t>(NativeContext::read_slot(uc, at, r.slot, r.size, img.bytes[r.index]));
  }
  img.count = plan.count;
  img.link_known = !port.link_reg.empty();
  img.link = img.link_known ? NativeContext::lr(uc) : 0;
  t->pc = pc;
  t->goid = gp ? gp->goid : 0;
  t->gen = m->preemptGen.load();
  t->arm = g_arms.load();
  t->m = m;
}

// The requester of the armed instruction's request when it is not the trap
// handler itself (RequestSource): a thread that sleeps on `wake` until the
// handler posts it (sem_post is async-signal-safe), from one arm to the
// next (Disarm quiesces it: QuiesceRequester).
// Each post has its own slot, filled before the post and read once by the
// requester: a chain's next point may be posted while the requester still
// serves the one before (a sysmon or forEachP point the handler does not
// wait for), and neither request is lost nor served twice.
struct Requester {
  struct Post {
    RequestSource src = RequestSource::kPreemptOne;
    std::atomic<G*> gp{nullptr};
    std::atomic<M*> m{nullptr};
    // The requester has done what it does for this post (sysmon looked at
    // the moved clock, suspendG or forEachP returned): its handler stops
    // waiting.
    std::atomic<bool> settled{false};
  };
  ManualClock* clock = nullptr;
  Runtime* rt = nullptr;
  // Started by the first arm that needs it and kept for the process,
  // waiting on `wake` between arms (started and joined at every arm, its
  // start and its end were four context switches an armed run, on a
  // fuzzing process's one CPU: the most of what a sysmon, suspendG or
  // forEachP request cost over preemptone's). `pid`: the process that
  // started it (a fork's child has no thread behind the copy).
  OSThread thread;
  pid_t pid = 0;
  sem_t wake;
  // The arm is over (or not begun): serve nothing, and end a serve under
  // way. Set by Quiesce, which then waits for `busy` to drop; the
  // requester publishes `busy` before it reads `stop` (both sequentially
  // consistent), so one of the two always sees the other.
  std::atomic<bool> stop{true};
  std::atomic<bool> busy{false};
  Post posts[kMaxArmThen + 1];  // one per point of a chain, in order
  std::atomic<size_t> posted{0};
  size_t served = 0;  // the requester's own
};
Requester g_req;

// A request has been raised on gp: preempt and stackPreempt set.
bool RequestRaised(const G* gp) { return gp->preempt.load() && gp->stackguard0.load() == kStackPreempt; }
// The runtime answers requests with a signal too.
bool PreemptsAsync(Runtime& rt) { return rt.async_supported() && rt.debug().asyncpreemptoff == 0; }

// The request has reached gp and, when the runtime preempts asynchronously,
// its signal is marked pending on m (the requester's view; the trap handler
// waits for the signal itself).
bool RequestReached(Runtime& rt, G* gp, M* m) {
  return RequestRaised(gp) && (!PreemptsAsync(rt) || m->signalPending.load() != 0);
}

void RequestOnce(Requester& q, Requester::Post& post);

// Every post of `wake`, each from its slot, while an arm lasts (a chain
// posts once per point whose source is not the trap handler); then waits
// for the next arm's.
void Request(Requester& q) {
  for (;;) {
    if (sem_wait(&q.wake) != 0) {
      if (errno == EINTR) continue;
      return;
    }
    q.busy.store(true);
    while (!q.stop.load() && q.served < q.posted.load(std::memory_order_acquire)) {
      RequestOnce(q, q.posts[q.served++]);
      // Settled: a handler waiting for it, or behind it, looks again.
      for (size_t i = 0, n = q.posted.load(); i < n && i <= kMaxArmThen; i++)
        Runtime::KickTrapWaiter(q.posts[i].m.load());
    }
    q.busy.store(false);
  }
}

// Asks sysmon for a look at its clock, again and again, until `done` holds
// or Disarm stops the requester (bounded: 10 s). Each look asked for is
// waited for, up to a millisecond, until it has ended (Runtime::SysmonLook:
// a handshake; waiting for the clock's reads to change, yielding the CPU
// meanwhile, was most of the context switches of an armed sysmon request).
void SysmonLooks(Requester& q, const std::function<bool()>& done) {
  const int64_t deadline = MonotonicNanos() + 10'000'000'000;
  while (!done() && !q.stop.load() && MonotonicNanos() < deadline) {
    if (!q.rt->SysmonLook(1'000'000)) sched_yield();  // (sysmon not running yet, or ended: asked again)
  }
}

void RequestOnce(Requester& q, Requester::Post& post) {
  Runtime& rt = *q.rt;
  G* gp = post.gp.load();
  M* m = post.m.load();
  switch (post.src) {
    case RequestSource::kSysmon: {
      // sysmon notes a time slice's start (the P's schedtick) on a pass;
      // two more looks at its clock and it has seen this one. Then the
      // slice has lasted forcePreemptNS, and its next pass must retake.
      // Each look is asked for (NudgeSysmon), not waited for: on its
      // ManualClock sysmon's time is ours, and its real sleeps, up to 10 ms
      // once idle, were half of a fuzzing process's time.
      uint64_t r = q.clock->reads();
      SysmonLooks(q, [&] { return q.clock->reads() >= r + 2; });
      q.clock->Advance(kForcePreemptNS);
      r = q.clock->reads();
      SysmonLooks(q, [&] { return RequestReached(rt, gp, m) || q.clock->reads() >= r + 3; });
      post.settled.store(true);
      break;
    }
    case RequestSource::kSuspendG: {
      // suspendG sends preemptM again only once 5 us have passed on the
      // runtime's clock since the last (Go's nanotime): real time, even
      // when sysmon's stands still (hooks.sysmon_clock). (On sysmon's
      // standing clock a refused signal was never sent again, and suspendG
      // waited out its bound: a suspendG point refused at an unsafe point,
      // chained with a sysmon point, 30 s per run.)
      Runtime::SuspendState st = rt.suspendG(gp, 30'000'000'000);
      post.settled.store(true);
      rt.resumeG(st);
      break;
    }
    case RequestSource::kForEachP:
      rt.forEachP([](P*) {}, 30'000'000'000);
      post.settled.store(true);
      break;
    case RequestSource::kPreemptOne:
      break;
  }
}

// The requester's thread, started once a process (false: it cannot start).
bool StartRequester() {
  if (g_req.thread.joinable() && g_req.pid == ProcessId()) return true;
  if (g_req.thread.joinable()) new (&g_req.thread) OSThread;  // a fork's child: the parent's thread is not here
  if (!g_req.thread.Start([](void* q) { Request(*static_cast<Requester*>(q)); }, &g_req)) return false;
  g_req.pid = ProcessId();
  return true;
}

// The arm's requests are over: none served from now on, and none under
// way when this returns (a serve ends within its own bounds once `stop`
// is seen).
void QuiesceRequester() {
  g_req.stop.store(true);
  while (g_req.busy.load()) sched_yield();
}

// The chain's next point, armed by the trap handler of the one before
// (signal-safe: CodePage's reads and patches make no system call).
void ArmNextPoint(Runtime& rt) {
  if (g_armed.next >= g_armed.nthen) return;
  const ArmPoint& p = g_armed.then[g_armed.next++];
  const std::vector<uint8_t>& bp = NativePort().breakpoint;
  if (!rt.ReadCode(p.off, g_armed.saved, g_armed.len)) return;
  g_armed.off = p.off;
  g_armed.src = p.src;
  if (g_armed.npast < kMaxArmThen + 1) g_armed.past[g_armed.npast++] = p.off;
  // Published before the breakpoint is written: an M that traps on it then
  // always finds it unowned and takes it. Published after, an M that
  // trapped in between took it for another M's and waited for a restore
  // nobody would do (the fifth one-hour campaign's loong64 timeout: main,
  // the point's only caller, waited on itself; its collection's suspendG
  // waited on main).
  g_armed.rt.store(&rt);
  if (!rt.PatchCode(p.off, bp.data(), bp.size())) {
    Runtime* want = &rt;
    g_armed.rt.compare_exchange_strong(want, nullptr);
  }
}

void OnSigtrap(int sig, siginfo_t*, void* ucontext) {
  int saved_errno = errno;
  auto* uc = static_cast<ucontext_t*>(ucontext);
  Runtime* rt = g_armed.owner.load();
  M* m = Runtime::CurrentM();
  uintptr_t at = NativeContext::pc(uc) - NativePort().pc_after_trap;
  bool ours = rt != nullptr && m != nullptr && m->rt == rt && at >= rt->code_base();
  uint32_t hit = ours ? static_cast<uint32_t>(at - rt->code_base()) : 0;
  bool armed_before = false;
  for (size_t i = 0; ours && i < g_armed.npast; i++) armed_before = armed_before || g_armed.past[i] == hit;
  if (!ours || (hit != g_armed.off && !armed_before)) {
    // Not an armed instruction: let the trap kill the process as it would,
    // saying where first.
    char msg[160];
    int n = snprintf(msg, sizeof msg, "%sSIGTRAP at pc=0x%lx, not an armed instruction (%s)\n", FatalPrefix(),
                     static_cast<unsigned long>(at),
                     rt == nullptr ? "nothing armed" : m == nullptr ? "on a thread that is no M"
                     : m->rt != rt ? "on an M of another runtime" : "elsewhere in the armed runtime");
    ssize_t w = write(2, msg, n > 0 ? static_cast<size_t>(n) : 0);
    (void)w;
    signal(sig, SIG_DFL);
    errno = saved_errno;
    return;
  }
  Runtime* expect = rt;
  if (hit != g_armed.off || !g_armed.rt.compare_exchange_strong(expect, nullptr)) {
    // Another M hit it first (and may have armed the chain's next point
    // since): once its restore is visible, run the original instruction
    // (bounded: the restore is a few system calls). If the point at `hit`
    // is armed again and nobody owns it (a chain that arms one instruction
    // twice), or the bound passes, go back to it: a breakpoint still there
    // traps again, and this M may take it then.
    const std::vector<uint8_t>& bp = NativePort().breakpoint;
    const int64_t until = MonotonicNanos() + 1'000'000'000;
    while (MonotonicNanos() < until) {
      uint8_t cur[16] = {};
      rt->ReadCode(hit, cur, g_armed.len);
      if (memcmp(cur, bp.data(), bp.size()) != 0) break;
      if (g_armed.rt.load() == rt && g_armed.off == hit) break;
      sched_yield();
    }
    NativeContext::set_pc(uc, at);
    errno = saved_errno;
    return;
  }
  const RequestSource src = g_armed.src;
  rt->PatchCode(g_armed.off, g_armed.saved, g_armed.len);
  NativeContext::set_pc(uc, at);
  G* gp = m->curg.load();
  RecordTrapRegisters(uc, m, gp, at, rt->xstate_tier());
  RecordTrapFrame(g_armed.next, uc, *rt, gp, at);  // next: the chain's points armed so far
  // The stack room at the instruction (SP above the stack's low end), for
  // the decision oracle's stack rule: the signal will find the same SP.
  uintptr_t sp = NativeContext::sp(uc);
  int64_t room = gp && sp >= gp->stack.lo ? static_cast<int64_t>(sp - gp->stack.lo) : -1;
  // Whether a source that looks at Ps (sysmon, preemptall) can see this
  // goroutine running: not in a system call (its P in _Psyscall), its P
  // running, and it the M's goroutine (a stub on g0 is the scheduler's).
  // The trap says so for the oracles.
  Reason seen = Reason::kNone;
  if (gp == nullptr) seen = Reason::kNoCurg;
  else if ((gp->atomicstatus.load() & ~static_cast<uint32_t>(_Gscan)) == _Gsyscall) seen = Reason::kGSyscall;
  else if (m->p == nullptr || m->p->status.load() != _Prunning) seen = Reason::kPNotRunning;
  rt->events().Record(Ev::kTrap, gp ? gp->goid : 0, seen, at, room);
  bool looks_at_ps = src == RequestSource::kSysmon || src == RequestSource::kForEachP;
  bool async = PreemptsAsync(*rt);
  // The M's signal, marked pending by whoever asked, must arrive at the
  // armed instruction: SIGURG is blocked while this handler runs, so one
  // sent to this thread now arrives right after sigreturn, there. Another
  // sender's signal cannot be counted on to be pending yet: it may be
  // marked and not sent, or (under QEMU) already taken by the emulator,
  // which holds it where sigpending does not show it (a chained point
  // right after a sysmon point waited out the 60 s bound that way). So
  // this thread sends its own; the other, when it comes, finds the request
  // answered and is handled as any late SIGURG is.
  bool answered = false;  // a SIGURG is sure to arrive at the armed instruction
  auto signal_here = [&answered, m] {
    answered = true;
    sigset_t pending;
    if (sigpending(&pending) == 0 && sigismember(&pending, SIGURG)) return;
    m->urg_sent.fetch_add(1, std::memory_order_relaxed);
    syscall(SYS_tgkill, ProcessId(), m->tid, SIGURG);
  };
  if (src == RequestSource::kPreemptOne || gp == nullptr || !g_req.thread.joinable()) {
    // Sent here (tgkill to oneself), or coalesced into a signal another
    // thread marked: then send one here too.
    if (rt->preemptCurrent(m, at, Source::kArmed)) answered = true;
    else if (async && m->signalPending.load() != 0) signal_here();
  } else {
    // Points are posted one at a time (the next is armed below), so the
    // slot is this handler's alone until the count publishes it.
    size_t slot = g_req.posted.load(std::memory_order_relaxed);
    if (slot > kMaxArmThen) slot = kMaxArmThen;  // not reached: a chain has at most kMaxArmThen + 1 points
    Requester::Post& post = g_req.posts[slot];
    post.src = src;
    post.settled.store(false);
    post.m.store(m);
    post.gp.store(gp);
    g_req.posted.store(slot + 1, std::memory_order_release);
    sem_post(&g_req.wake);
    // sysmon and forEachP will not see it running: nothing to wait for
    // (the requester goes on; forEachP completes at a later safe point).
    // Otherwise wait until the request is raised and, when the runtime
    // preempts asynchronously, the M's signal marked (preemptM marks
    // before it sends); then make sure it arrives here (signal_here). Or
    // until the requester settled without asking. Bounded: the requester
    // settles within its own bounds.
    // Nor while the requester still serves an earlier point's request that
    // needs this M to go on: forEachP's (every P at a safe point) or a
    // suspendG of this goroutine. It serves this point's only after that
    // one, and both would wait out the requester's bound.
    auto behind_one_that_needs_us = [&] {
      for (size_t i = 0; i < slot; i++) {
        const Requester::Post& e = g_req.posts[i];
        if (e.settled.load()) continue;
        if (e.src == RequestSource::kForEachP || (e.src == RequestSource::kSuspendG && e.gp.load() == gp)) return true;
      }
      return false;
    };
    // The wait sleeps on the M's trap_kick, which whoever raises the
    // request, marks the signal or settles a post bumps and wakes
    // (Runtime::KickTrapWaiter; a kick between a look and the sleep finds
    // the count moved); each sleep is bounded at a millisecond all the
    // same. (It yielded the CPU at every turn: on a fuzzing process's one
    // CPU a context switch to whichever thread was runnable, nine an armed
    // sysmon request.)
    const int64_t deadline = MonotonicNanos() + 60'000'000'000;
    m->trap_waiting.store(true);
    int turns = 0;
    while (!(looks_at_ps && seen != Reason::kNone) && MonotonicNanos() < deadline) {
      const uint32_t kicks = m->trap_kick.load();
      if (behind_one_that_needs_us()) break;
      bool requested = RequestRaised(gp);
      if (requested && !async) break;
      if (requested && m->signalPending.load() != 0) {
        signal_here();
        break;
      }
      // Settled with no signal of this source's marked: it sends none now.
      // A request that stands from before (an earlier point's, its signal
      // already taken) is answered at the goroutine's next safe point, as
      // any is. (Waiting for it here waited out the 60 s bound: a
      // preemptone point, then a sysmon point whose sysmon, under the
      // slow-sysmon mutation, never retook.)
      if (post.settled.load()) break;
      if (turns++ == 0 && src != RequestSource::kSysmon) {
        // suspendG's and forEachP's requester, just woken, raises it at
        // once: a yield lets it (sysmon's comes after several looks).
        sched_yield();
        continue;
      }
      struct timespec ms = {0, 1'000'000};
      syscall(SYS_futex, &m->trap_kick, FUTEX_WAIT_PRIVATE, kicks, &ms, nullptr, 0);
    }
    m->trap_waiting.store(false);
  }
  // No signal is sure to come here: the trap's registers answer no later
  // preemption (one at this PC in a loop, or where QEMU delivers signals,
  // the start of a translation block, is another moment's registers).
  if (!answered && TrapRecordOf(m) != nullptr) TrapRecordOf(m)->m = nullptr;
  ArmNextPoint(*rt);
  errno = saved_errno;
}

// An instruction boundary of a generated function of rt's program.
bool ArmableAt(const Runtime& rt, uint32_t off, std::string* err) {
  if (rt.table().Find(off) != nullptr && rt.table().IsBoundary(off)) return true;
  char buf[160];
  snprintf(buf, sizeof buf, "arm: offset 0x%x is not an instruction boundary of a generated function", off);
  *err = buf;
  return false;
}

void InstallTrapHandler() {
  static std::once_flag once;
  std::call_once(once, [] {
    PlanRegisterReads();
    struct sigaction sa = {};
    sa.sa_sigaction = OnSigtrap;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    // SIGURG stays pending while the trap handler runs, and arrives after
    // sigreturn with the PC at the restored instruction.
    sigaddset(&sa.sa_mask, SIGURG);
    sigaction(SIGTRAP, &sa, nullptr);
  });
}

}  // namespace

const char* RequestSourceName(RequestSource s) {
  switch (s) {
    case RequestSource::kPreemptOne: return "preemptone";
    case RequestSource::kSysmon: return "sysmon";
    case RequestSource::kSuspendG: return "suspendG";
    case RequestSource::kForEachP: return "forEachP";
  }
  return "?";
}

bool Arm(Runtime& rt, uint32_t off, std::string* err, RequestSource src, ManualClock* clock) {
  if (rt.code_base() == 0) {
    *err = "arm: no program loaded";
    return false;
  }
  if (src == RequestSource::kSysmon && clock == nullptr) {
    *err = "arm: sysmon as the request's source needs the runtime's ManualClock";
    return false;
  }
  // One armed instruction per runtime; an arm left in an earlier runtime
  // that never reached it (a sweep's "not reached") is simply replaced.
  // (A destroyed runtime's successor at the same address is told apart by
  // its code: the armed instruction still holds the breakpoint only in the
  // runtime that armed it.)
  const std::vector<uint8_t>& trap = NativePort().breakpoint;
  if (g_armed.rt.load() == &rt) {
    uint8_t cur[16] = {};
    if (rt.ReadCode(g_armed.off, cur, g_armed.len) && memcmp(cur, trap.data(), trap.size()) == 0) {
      *err = "arm: an instruction is armed already";
      return false;
    }
  }
  if (!ArmableAt(rt, off, err)) return false;
  InstallTrapHandler();
  g_arms.fetch_add(1);  // an earlier run's trap answers no later preemption
  const std::vector<uint8_t>& bp = NativePort().breakpoint;
  g_armed.len = bp.size();
  g_armed.off = off;
  if (!rt.ReadCode(off, g_armed.saved, g_armed.len) || !rt.PatchCode(off, bp.data(), bp.size())) {
    *err = "arm: cannot patch the code page";
    return false;
  }
  QuiesceRequester();
  static std::once_flag sem_once;
  std::call_once(sem_once, [] { sem_init(&g_req.wake, 0, 0); });
  g_armed.src = src;
  g_armed.nthen = g_armed.next = 0;
  g_armed.past[0] = off;
  g_armed.npast = 1;
  g_req.clock = clock;
  g_req.rt = &rt;
  for (Requester::Post& p : g_req.posts) p.settled.store(false), p.gp.store(nullptr), p.m.store(nullptr);
  g_req.posted.store(0);
  g_req.served = 0;
  if (src != RequestSource::kPreemptOne && !StartRequester()) {
    rt.PatchCode(off, g_armed.saved, g_armed.len);
    *err = "arm: cannot start the requester's thread";
    return false;
  }
  g_req.stop.store(false);  // (after the slots: a stale post of `wake` finds none)
  g_armed.owner.store(&rt);
  g_armed.rt.store(&rt);
  return true;
}

bool ArmThen(Runtime& rt, const std::vector<ArmPoint>& then, std::string* err) {
  if (g_armed.rt.load() != &rt) {
    *err = "arm: no instruction of this runtime is armed to chain from";
    return false;
  }
  if (then.size() > kMaxArmThen) {
    *err = "arm: at most " + std::to_string(kMaxArmThen) + " further points";
    return false;
  }
  bool needs_requester = false;
  for (const ArmPoint& p : then) {
    if (!ArmableAt(rt, p.off, err)) return false;
    if (p.src == RequestSource::kSysmon && g_req.clock == nullptr) {
      *err = "arm: sysmon as a point's source needs the runtime's ManualClock";
      return false;
    }
    needs_requester = needs_requester || p.src != RequestSource::kPreemptOne;
  }
  if (needs_requester && !StartRequester()) {
    *err = "arm: cannot start the requester's thread";
    return false;
  }
  for (size_t i = 0; i < then.size(); i++) g_armed.then[i] = then[i];
  g_armed.next = 0;
  g_armed.nthen = then.size();
  return true;
}

bool Armed() { return g_armed.rt.load() != nullptr; }

bool TakeTrapFrame(size_t point, FrameImage* out) {
  if (point > kMaxArmThen) return false;
  const FrameRecord& f = g_frames[point];
  if (!f.img.seen || f.arm != g_arms.load()) return false;
  *out = f.img;
  out->stack.assign(f.bytes, f.bytes + f.n);
  return true;
}

bool TakeTrapRegisters(const M* m, const G* gp, uintptr_t pc, RegisterImage* out) {
  TrapRecord* t = TrapRecordOf(m);
  if (t == nullptr || t->m != m || t->arm != g_arms.load()) return false;
  t->m = nullptr;
  if (pc != t->pc || gp == nullptr || gp->goid != t->goid || m->preemptGen.load() != t->gen + 1) return false;
  *out = t->regs;
  return true;
}

void Disarm(Runtime& rt) {
  if (g_req.rt == &rt) QuiesceRequester();
  Runtime* want = &rt;
  if (g_armed.rt.compare_exchange_strong(want, nullptr)) rt.PatchCode(g_armed.off, g_armed.saved, g_armed.len);
  want = &rt;
  g_armed.owner.compare_exchange_strong(want, nullptr);
}

uint32_t LabelOffset(const FuncTable& table, const ir::Program& prog, const std::string& fn, const std::string& label) {
  const ir::Function* f = prog.Find(fn);
  const FuncInfo* info = table.Find(fn);
  if (!f || !info) return 0;
  int op = -1;
  for (size_t i = 0; i < f->body.size(); i++)
    if (f->body[i].op == ir::Op::kLabel && f->body[i].target == label) op = static_cast<int>(i) + 1;
  if (op < 0) return 0;
  for (size_t i = 0; i < table.insns.size(); i++) {
    uint32_t off = table.insns[i];
    if (off >= info->entry && off < info->end && table.insn_op[i] >= op) return off;
  }
  return 0;
}

}  // namespace safepoint::harness
