// Asynchronous preemption (chapter 9.7.5): the preemption signal, the
// safe-point rules and the injected call. (Armed delivery, which raises a
// request at an exact instruction, is the harness's: harness/armed.cc.)
//
// The path, as in Go:
//   1. preemptM sends SIGURG to the target M's thread with tgkill, and only
//      after changing signalPending from 0 to 1, so at most one is pending.
//   2. The SIGURG handler (on the M's sigaltstack) calls doSigPreempt: if
//      the goroutine still wants preemption and isAsyncSafePoint accepts the
//      interrupted PC, the context is rewritten with pushCall so the thread
//      appears to have called asyncPreempt from the resume PC. preemptGen
//      is incremented and signalPending cleared in every case.
//   3. asyncPreempt (generated per port from its register table by
//      platforms/mkpreempt.cc) saves the general registers and flags on the
//      goroutine stack and the vector registers in the P's scratch area,
//      then calls mcall(asyncPreempt2).
//   4. asyncPreempt2, on g0, marks the asynchronous safe point, moves the
//      scratch area into the G's extended state (xRegSave, allocated on
//      demand) and calls gopreempt_m. execute() puts the state back in the
//      new P's scratch area (xRegRestore) before resuming, and asyncPreempt
//      restores everything and returns to the resume PC.
//
// Why not preempt inside the handler: every preempted goroutine would pin
// an M, and the scheduler cannot run in a signal handler.
//
// Invariants: the handler is async-signal-safe (no locks, no allocation;
// events are lock-free); C++ never trusts the g register, only compares it
// with m->curg; every decision is recorded with its rule.
#include <errno.h>
#include <pthread.h>
#include <execinfo.h>
#include <signal.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <mutex>

#include "platforms/asm.h"
#include "platforms/native.h"
#include "core/code_page.h"
#include "runtime/runtime.h"

extern "C" {
// The generated preempt.S of the native port: one asyncPreempt per tier of
// extended state (PortInfo::tiers), in order, and the mutations: drop1, and
// one half-vector variant per tier.
extern const uintptr_t sp_asyncPreempt_tiers[];
extern const uintptr_t sp_asyncPreempt_halfvec_tiers[];
extern const uintptr_t sp_asyncPreempt_ntiers;
void sp_asyncPreempt_drop1();
[[noreturn]] void sp_asyncpreempt2_g0(safepoint::G* gp);
}

namespace safepoint {

using Ctx = NativeContext;

namespace {

void OnSigurg(int, siginfo_t*, void* uc) {
  int saved = errno;
  M* m = Runtime::CurrentM();
  if (m != nullptr) {
    m->urg_taken.fetch_add(1, std::memory_order_relaxed);
    m->rt->doSigPreempt(m, uc);
  }
  errno = saved;
}

constexpr int kFaultSignals[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE};

// A synchronous fault. In a goroutine (generated code, or on its stack, as
// after a preemption resumed at a bad PC), it ends the run as a Go program's
// fault does, and the harness goes on (a sweep counts it against the armed
// instruction). Anywhere else it is the harness's own bug: a message and
// exit status 2, never a raw signal.
void OnFault(int sig, siginfo_t* info, void* uc) {
  M* m = Runtime::CurrentM();
  auto* ctx = static_cast<ucontext_t*>(uc);
  uintptr_t pc = Ctx::pc(ctx), sp = Ctx::sp(ctx);
  uintptr_t addr = reinterpret_cast<uintptr_t>(info->si_addr);
  if (m != nullptr && m->rt->InGoroutine(m, pc, sp))
    m->rt->goroutineFault(m, sig, pc, addr, Ctx::greg(ctx), info->si_code);
  char msg[160];
  int n = snprintf(msg, sizeof msg, "%sfatal error: unexpected signal %s in the harness itself: pc=0x%lx addr=0x%lx\n",
                   FatalPrefix(), SignalName(sig), static_cast<unsigned long>(pc), static_cast<unsigned long>(addr));
  ssize_t w = write(2, msg, n > 0 ? static_cast<size_t>(n) : 0);
  (void)w;
  // Where, for the harness's own bug report (binary+offset per frame; the
  // process is dying, so what backtrace() may allocate no longer matters).
  void* frames[32];
  int depth = backtrace(frames, 32);
  if (*FatalPrefix() == '\0') {
    backtrace_symbols_fd(frames, depth, 2);
  } else if (char** names = backtrace_symbols(frames, depth)) {
    for (int i = 0; i < depth; i++) fprintf(stderr, "%s  %s\n", FatalPrefix(), names[i]);
  }
  FatalExit();
}

void InstallHandlers() {
  static std::once_flag once;
  std::call_once(once, [] {
    struct sigaction sa = {};
    sa.sa_sigaction = OnSigurg;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGURG, &sa, nullptr);
    struct sigaction fa = {};
    fa.sa_sigaction = OnFault;
    fa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&fa.sa_mask);
    sigaddset(&fa.sa_mask, SIGURG);
    for (int sig : kFaultSignals) sigaction(sig, &fa, nullptr);
  });
}

bool IsRuntimePackage(const std::string& pkg) {
  auto under = [&](const char* root) {
    size_t n = strlen(root);
    return pkg == root || (pkg.size() > n && pkg.compare(0, n, root) == 0 && pkg[n] == '/');
  };
  return under("runtime") || under("internal/runtime") || pkg == "reflect";
}

// This process's id, for a tgkill to an M: asked of the kernel once, and
// again in a forked child (pthread_atfork), instead of a getpid system call
// per signal (1.3 us under qemu-aarch64 on the bench machine, 0.9 natively;
// an armed preemption makes seven others).
std::atomic<pid_t> g_pid{0};

}  // namespace

pid_t ProcessId() {
  static std::once_flag once;
  std::call_once(once, [] { pthread_atfork(nullptr, nullptr, [] { g_pid.store(0, std::memory_order_relaxed); }); });
  pid_t p = g_pid.load(std::memory_order_relaxed);
  if (p == 0) g_pid.store(p = getpid(), std::memory_order_relaxed);
  return p;
}

extern "C" void sp_asyncpreempt2_g0(G* gp) { gp->m->rt->asyncPreempt2(gp); }

const char* SignalName(int sig) {
  switch (sig) {
    case SIGSEGV: return "SIGSEGV: segmentation violation";
    case SIGBUS: return "SIGBUS: bus error";
    case SIGILL: return "SIGILL: illegal instruction";
    case SIGFPE: return "SIGFPE: floating-point exception";
    default: return "(unknown signal)";
  }
}

bool FaultWasAccess(int code) { return code > 0 && code != SI_KERNEL; }

std::string DescribeFaultCode(int code) {
  // A fault signal whose si_code is SI_KERNEL was forced on the thread:
  // Linux and QEMU's user mode do so when they cannot set up a signal's
  // frame on the stack it goes to, or find a frame they cannot restore at
  // rt_sigreturn (si_addr 0 under QEMU). One with si_code <= 0 was sent
  // (kill, tgkill, sigqueue). Neither is an access at si_addr.
  if (code == SI_KERNEL)
    return "forced by the kernel or the emulator (si_code SI_KERNEL), not an access: a signal frame it could not set "
           "up, or could not restore at rt_sigreturn";
  if (code <= 0) return "sent by a process (si_code " + std::to_string(code) + "), not an access";
  return "";
}

std::string Runtime::DescribePC(uintptr_t pc) const {
  char b[160];
  if (const FuncInfo* f = FuncAt(pc)) {
    snprintf(b, sizeof b, "%s+0x%lx", f->name.c_str(), static_cast<unsigned long>(pc - code_base() - f->entry));
    return b;
  }
  // The nearest assembly entry below it, within what any of them spans.
  struct Entry {
    uintptr_t at;
    std::string name;
  };
  std::vector<Entry> asm_entries = {{reinterpret_cast<uintptr_t>(&sp_mcall), "sp_mcall"},
                                    {reinterpret_cast<uintptr_t>(&sp_systemstack), "sp_systemstack"},
                                    {reinterpret_cast<uintptr_t>(&sp_morestack), "sp_morestack"},
                                    {reinterpret_cast<uintptr_t>(&sp_gogo), "sp_gogo"},
                                    {reinterpret_cast<uintptr_t>(&sp_asyncPreempt_drop1), "asyncPreempt (drop1)"}};
  for (uintptr_t t = 0; t < sp_asyncPreempt_ntiers; t++) {
    asm_entries.push_back({sp_asyncPreempt_tiers[t], "asyncPreempt (tier " + std::to_string(t) + ")"});
    asm_entries.push_back({sp_asyncPreempt_halfvec_tiers[t], "asyncPreempt (half-vector, tier " + std::to_string(t) + ")"});
  }
  const Entry* best = nullptr;
  for (const Entry& e : asm_entries)
    if (e.at <= pc && pc - e.at < 0x1000 && (best == nullptr || e.at > best->at)) best = &e;
  if (best != nullptr) {
    snprintf(b, sizeof b, "%s+0x%lx", best->name.c_str(), static_cast<unsigned long>(pc - best->at));
    return b;
  }
  if (code_ && code_->contains(pc)) {
    snprintf(b, sizeof b, "0x%lx (a stub: code+0x%lx)", static_cast<unsigned long>(pc),
             static_cast<unsigned long>(pc - code_base()));
    return b;
  }
  snprintf(b, sizeof b, "0x%lx", static_cast<unsigned long>(pc));
  return b;
}

bool Runtime::InGoroutine(const M* m, uintptr_t pc, uintptr_t sp) const {
  const G* gp = m->curg.load();
  if (gp == nullptr) return false;
  return (code_ && code_->contains(pc)) || (sp >= gp->stack.lo && sp < gp->stack.hi);
}

void Runtime::goroutineFault(M* m, int sig, uintptr_t pc, uintptr_t addr, uintptr_t greg, int code) {
  G* gp = m->curg.load();
  int64_t goid = gp ? gp->goid : 0;
  // Only an access has an address to judge (a forced or a sent signal's
  // si_addr is 0 or a sender's pid).
  if (FaultWasAccess(code)) FreedAccessAt(addr, pc);
  events_.Record(Ev::kFault, goid, Reason::kNone, pc, sig);
  if (!faulted_.exchange(true)) {
    fault_sig_ = sig, fault_pc_ = pc, fault_addr_ = addr, fault_goid_ = goid, fault_code_ = code;
    fault_g_ = greg, fault_g_curg_ = gp != nullptr && greg == reinterpret_cast<uintptr_t>(gp);
    fault_curg_m_ = gp != nullptr && gp->m != nullptr;
  }
  // The goroutine is dead; its M leaves (mstart1 wakes the run's caller).
  m->curg.store(nullptr);
  m->signalPending.store(0);
  siglongjmp(m->exit_jmp, 2);
}

int Runtime::ChooseXTier() {
  const PortInfo& port = NativePort();
  if (port.tiers.empty() || sp_asyncPreempt_ntiers != port.tiers.size())
    Throw("the port's preempt.S and its tier table disagree (regenerate it with mkpreempt)");
  // The highest tier whose conditions, and every lower tier's, hold.
  size_t tier = 0;
  while (tier + 1 < port.tiers.size()) {
    const XTier& t = port.tiers[tier + 1];
    if (t.needs_simd && !opts_.experiments.simd) break;
    if (!t.cpu_feature.empty() && !NativeContext::cpu_has(t.cpu_feature)) break;
    tier++;
  }
  return static_cast<int>(tier);
}

void Runtime::InitAsync() {
  const PortInfo& port = NativePort();
  async_supported_ = port.async_preemption() && opts_.hooks.preempt_m_supported;
  size_t tier = static_cast<size_t>(xstate_tier_);  // chosen by Load, before emitting vfill and vdump
  async_preempt_entry_ = sp_asyncPreempt_tiers[tier];
  if (opts_.mutations.drop_register) async_preempt_entry_ = reinterpret_cast<uintptr_t>(&sp_asyncPreempt_drop1);
  if (opts_.mutations.half_vector_save) async_preempt_entry_ = sp_asyncPreempt_halfvec_tiers[tier];
  xstate_bytes_ = port.tiers[tier].scratch_bytes;
  std::vector<const SavedReg*> flags = FlagRegs(port);
  for (size_t i = 0; i < flags.size() && i < ir::kFlagsWords; i++) clobber_flags_[i] = flags[i]->setflags_mask;
  // The tier's vectors in the P's scratch area, which asyncPreempt2
  // poisons, as runs of adjacent registers: one memset a run (one for all
  // 32 of arm64's), not one a register, each a libc call and return, which
  // QEMU looks up as an indirect branch. Built afresh by every Load (a kept
  // runtime loads again: appended to, the list grew by a tier's vectors
  // per program loaded).
  scratch_vectors_.clear();
  for (const SavedReg& r : port.saved_regs)
    if (r.kind == SavedReg::kVector && r.tier == tier && r.offset + r.size <= xstate_bytes_)
      scratch_vectors_.emplace_back(r.offset, r.size);
  std::sort(scratch_vectors_.begin(), scratch_vectors_.end());
  size_t runs = 0;
  for (const auto& [off, n] : scratch_vectors_) {
    auto& last = scratch_vectors_[runs - (runs > 0)];
    if (runs > 0 && off <= last.first + last.second) {
      last.second = std::max(last.second, off + n - last.first);
    } else {
      scratch_vectors_[runs++] = {off, n};
    }
  }
  scratch_vectors_.resize(runs);
  async_preempt_stack_ = AsyncPreemptStackOf(port);
  constexpr size_t kStackNosplit = 800;
  if (async_preempt_stack_ > kStackNosplit) Throw("asyncPreemptStack exceeds the nosplit limit");
  InstallHandlers();
}

bool IsMSignal(int sig) {
  if (sig == SIGURG || sig == SIGTRAP || sig == SIGABRT) return true;
  for (int f : kFaultSignals)
    if (sig == f) return true;
  return false;
}

const sigset_t& MSignalMask() {
  // An M takes only the runtime's signals: SIGURG, the faults a goroutine's
  // code raises (and SIGTRAP, the armed breakpoint's; SIGABRT, abort on
  // this thread). Every other signal is blocked on it, so a process-directed
  // one goes to a thread of the harness. Delivered to an M it would run a
  // handler that need not ask for SA_ONSTACK (libFuzzer's SIGALRM timer does
  // not) with its frame on the goroutine's stack, which has room for
  // asyncPreempt's frame, not for a signal frame: 4704 bytes on arm64. On
  // arm64 under QEMU (which blocks every host signal on a thread from the
  // moment it takes one until the guest's handler runs, so a
  // process-directed signal then goes to another thread), the alarm landed
  // on an M and QEMU, finding no room for the frame, forced a SIGSEGV
  // (si_code SI_KERNEL) at the goroutine's PC: three arm64 findings of the
  // one-hour campaigns and one of a replay (fuzz/findings/README.md).
  // (Go's Ms run every handler on the gsignal stack, and Go adds
  // SA_ONSTACK to a non-Go handler that lacks it.) The M's thread has an
  // alternate signal stack of its own (OSThread::StartTakingSignals).
  static const sigset_t mask = [] {
    sigset_t m;
    sigfillset(&m);
    for (int sig = 1; sig < NSIG; sig++)
      if (IsMSignal(sig)) sigdelset(&m, sig);
    return m;
  }();
  return mask;
}

size_t Runtime::AsyncPreemptStackOf(const PortInfo& port) { return port.async_frame + port.mcall_frame + 8 * 8; }

bool Runtime::preemptM(M* mp) {
  if (!async_supported_) return false;
  uint32_t expect = 0;
  if (!mp->signalPending.compare_exchange_strong(expect, 1)) {
    events_.Record(Ev::kSignalCoalesced, 0, Reason::kNone, 0, mp->id);
    return false;
  }
  if (mp->tid == 0) {  // not started yet
    mp->signalPending.store(0);
    return false;
  }
  events_.Record(Ev::kSignalSent, 0, Reason::kNone, 0, mp->id);
  mp->urg_sent.fetch_add(1, std::memory_order_relaxed);
  syscall(SYS_tgkill, ProcessId(), mp->tid, SIGURG);
  KickTrapWaiter(mp);
  return true;
}

void Runtime::KickTrapWaiter(M* mp) {
  // (Sequentially consistent, against the waiter's store of trap_waiting
  // and its look at the request: one of the two sees the other.)
  if (mp == nullptr || !mp->trap_waiting.load()) return;
  mp->trap_kick.fetch_add(1);
  syscall(SYS_futex, &mp->trap_kick, FUTEX_WAKE_PRIVATE, 1, nullptr, nullptr, 0);
}

Runtime::AsyncDecision Runtime::isAsyncSafePoint(G* gp, uintptr_t pc, uintptr_t sp, uintptr_t gval) {
  auto refuse = [&](Reason r) { return AsyncDecision{false, 0, r}; };
  auto applies = [&](Reason r) { return opts_.mutations.skip_rule != r; };
  M* m = gp->m;
  // 1. Not the M's current user goroutine: the M is in the scheduler, on
  // g0 or in the signal path (the PC is outside generated code), or the g
  // register is not curg.
  if (applies(Reason::kNotCurg) &&
      (m == nullptr || m->curg.load() != gp || !code_->contains(pc) || gval != reinterpret_cast<uintptr_t>(gp) ||
       sp > gp->stack.hi))
    return refuse(Reason::kNotCurg);
  // 2. No P, or canPreemptM fails.
  if (m != nullptr) {
    Reason why = canPreemptM(m);
    if (why != Reason::kNone && applies(why)) return refuse(why);
  }
  // 3. runtimesecret: a secret computation must not be saved or scanned.
  if (opts_.experiments.runtimesecret && gp->secret > 0 && applies(Reason::kSecret)) return refuse(Reason::kSecret);
  // 4. Room for the injected call.
  size_t room = async_preempt_stack_ - (opts_.mutations.stack_room_off_by_one ? 8 : 0);
  if (applies(Reason::kStack) && (sp < gp->stack.lo || sp - gp->stack.lo < room))
    return refuse(Reason::kStack);
  // 5. Generated Go code, not assembly.
  const FuncInfo* f = FuncAt(pc);
  if ((f == nullptr || f->has(kFuncNonGo)) && applies(Reason::kNotGo)) return refuse(Reason::kNotGo);
  if (f == nullptr) return refuse(Reason::kNotGo);
  uint32_t off = static_cast<uint32_t>(pc - code_->base());
  if (f->has(kFuncAsm) && applies(Reason::kAsm)) return refuse(Reason::kAsm);
  // 6. Compiler-marked unsafe points; nosplit functions except at calls.
  if (applies(Reason::kUnsafePoint)) {
    bool unsafe = f->prologue.contains(off) || f->tail.contains(off);
    for (const CodeRange& r : f->unsafe) unsafe = unsafe || r.contains(off);
    if (unsafe) return refuse(Reason::kUnsafePoint);
  }
  if (f->has(kFuncNosplit) && applies(Reason::kNosplit)) {
    bool at_call = false;
    for (uint32_t c : f->call_sites) at_call = at_call || c == off;
    if (!at_call) return refuse(Reason::kNosplit);
  }
  // 7. The innermost function, through the inline tree.
  const std::string& pkg = opts_.mutations.outermost_inline ? f->OutermostPackage(off) : f->InnermostPackage(off);
  if (IsRuntimePackage(pkg) && applies(Reason::kRuntimePkg)) return refuse(Reason::kRuntimePkg);
  // 8. Accepted: at the entry, at a restart start, or in place.
  if (f->has(kFuncRestartAtEntry)) return AsyncDecision{true, code_->base() + f->entry, Reason::kNone};
  for (const FuncInfo::Restart& r : f->restarts) {
    if (off < r.lo || off >= r.hi) continue;
    uintptr_t start = code_->base() + r.lo;
    if (start == 0 || start > pc || pc - start > NativePort().model.max_sequence_bytes) Throw("bad restart PC");
    return AsyncDecision{true, opts_.mutations.no_restart ? pc : start, Reason::kNone};
  }
  return AsyncDecision{true, pc, Reason::kNone};
}

void Runtime::doSigPreempt(M* m, void* ucontext) {
  auto* uc = static_cast<ucontext_t*>(ucontext);
  G* gp = m->curg.load();
  uintptr_t pc = Ctx::pc(uc);
  bool want = gp != nullptr && !debug_.asyncpreemptoff &&
              (gp->preempt.load() || (m->p != nullptr && m->p->preempt.load())) &&
              (gp->atomicstatus.load() & ~static_cast<uint32_t>(_Gscan)) == _Grunning;
  if (want) {
    AsyncDecision d = isAsyncSafePoint(gp, pc, Ctx::sp(uc), Ctx::greg(uc));
    if (d.ok) {
      gp->async_pc = pc, gp->async_sp = Ctx::sp(uc), gp->async_lr = Ctx::lr(uc);
      Ctx::push_call(uc, async_preempt_entry_, d.resume);
      events_.Record(Ev::kAsyncAccept, gp->goid, Reason::kNone, pc, static_cast<int64_t>(d.resume));
    } else {
      events_.Record(Ev::kAsyncRefuse, gp->goid, d.reason, pc);
    }
  } else {
    // Nothing to do; with asyncpreemptoff=1 not even a signal from outside
    // while a cooperative request is pending may preempt (Go issue 38531).
    events_.Record(Ev::kSigNoRequest, gp ? gp->goid : 0, debug_.asyncpreemptoff ? Reason::kAsyncOff : Reason::kNoRequest,
                   pc);
  }
  m->preemptGen.fetch_add(1);
  m->signalPending.store(0);
}

void Runtime::asyncPreempt2(G* gp) {
  // The top two frames (asyncPreempt's and the interrupted function's) have
  // no precise pointer information.
  gp->asyncSafePoint = true;
  // xRegSave: the P's scratch area into the G's extended state (the
  // shared-scratch mutation leaves it in the P's scratch area).
  if (!opts_.mutations.shared_scratch) {
    if (!gp->xstate) {
      gp->xstate.reset(new uint8_t[xstate_bytes_]);
      events_.Record(Ev::kXRegAlloc, gp->goid, Reason::kNone, 0, static_cast<int64_t>(xstate_bytes_));
    }
    memcpy(gp->xstate.get(), gp->m->p->xscratch, xstate_bytes_);
    gp->xstate_live = true;
  }
  // Whatever runs before the goroutine resumes may change its vector,
  // flag and control registers; here they change for sure (every bit
  // setflags controls set), so only what asyncPreempt restores survives
  // (the save-area tests and the sweep rely on it).
  sp_clobber(xstate_tier_, clobber_flags_);
  // The record of the preemption and the look at preemptStop are one step
  // against suspendG's record and raise of its request (as newstack's).
  if (opts_.hooks.before_preempt_decision) opts_.hooks.before_preempt_decision(*this, gp);
  bool park;
  {
    RequestOrder order(gp, nullptr);
    events_.Record(Ev::kPreemptAsync, gp->goid, Reason::kNone, gp->sched.pc);
    park = gp->preemptStop.load();
  }
  if (opts_.hooks.on_async_preempt) opts_.hooks.on_async_preempt(*this, gp);
  // What xRegSave left in the P's scratch area is dead until the P's next
  // asynchronous preemption: its vectors are poisoned (after the harness's
  // hook has read the save area), so that a goroutine whose registers were
  // left there (the shared-scratch mutation) loses them at once, and does
  // not wait for another preemption on this P, or a resume on another P,
  // to come first: a timing the one-hour machine did not always give
  // (amd64 under QEMU, busy: not found in 60 s; quiet: 4 s).
  for (const auto& [off, n] : scratch_vectors_) memset(gp->m->p->xscratch + off, 0xdb, n);
  // A collection while this preemption holds the goroutine (the sweep's).
  // It parks (preemptPark), and the collector's worker takes it from there.
  if (opts_.hooks.collect_at_async_preempt && !gc_active_.load() && !stopping_.load())
    gp->gc_park = true, gp->preemptStop.store(true), park = true;
  // suspendG's request, as it stood at the preemption: park for the scan
  // instead of rescheduling.
  if (park) preemptPark(gp, true);
  goschedImpl(gp);
}

// --- a request raised on the target M itself -----------------------------

bool Runtime::preemptCurrent(M* m, uintptr_t pc, Source src) {
  G* gp = m->curg.load();
  if (gp == nullptr) return false;
  // As preemptone would (it skips its own M; this is the target M itself).
  return requestPreemption(m, m->p, gp, pc, src);
}

bool Runtime::PatchCode(uint32_t off, const uint8_t* bytes, size_t n) { return code_ && code_->Patch(off, bytes, n); }

bool Runtime::ReadCode(uint32_t off, uint8_t* out, size_t n) const {
  if (!code_) return false;
  code_->Read(off, out, n);
  return true;
}

}  // namespace safepoint
