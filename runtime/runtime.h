// The reference runtime: a small M:N goroutine runtime that implements the
// preemption machinery of the chapter (9.7), on real OS threads, with
// goroutines running generated machine code on stacks the runtime owns.
//
// Invariants a change must keep:
//  1. Goroutine stacks hold only emitted frames. Every runtime service is an
//     emitted stub that switches to g0 (mcall or systemstack) before any C++
//     runs, so a stack can be copied by moving bytes and adjusting sched.sp.
//  2. C++ never trusts the g register: it finds its M through thread-local
//     storage (tls_m) and its G through the argument mcall/systemstack pass.
//  3. No C++ object with a destructor may be live across gogo: gogo abandons
//     the g0 frames below g0.sched.sp. Locks are taken and released by hand
//     around it.
//  4. Every preemption decision is recorded in the EventLog; tests assert on
//     events, never on timing.
#ifndef SAFEPOINT_RUNTIME_RUNTIME_H_
#define SAFEPOINT_RUNTIME_RUNTIME_H_

#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <sys/types.h>

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/events.h"
#include "core/functab.h"
#include "core/ir.h"
#include "core/offsets.h"
#include "runtime/options.h"
#include "runtime/osthread.h"

namespace safepoint {

struct Emitted;  // platforms/emitter.h
struct EmitEnv;  // platforms/emitter.h

class CodePage;
struct PortInfo;
class Runtime;
struct M;
struct P;

// stackPreempt = uintptrMask & -1314: larger than any valid stack pointer,
// so the next prologue check is bound to fail.
constexpr uintptr_t kStackPreempt = ~uintptr_t(0) & static_cast<uintptr_t>(-1314);
static_assert(kStackPreempt == 0xfffffffffffffadeull);
constexpr uintptr_t kStackGuard = STACK_GUARD;  // 928: StackNosplit 800 + StackSmall 128
constexpr size_t kStackMin = 2048;
constexpr size_t kStackMax = 1 << 20;
constexpr int64_t kForcePreemptNS = 10 * 1000 * 1000;  // sysmon: 10 ms on one time slice
constexpr int64_t kStwRetryNS = 100 * 1000;            // stopTheWorldWithSema: preemptall again every 100 us
constexpr int64_t kSuspendPreemptMNS = 5 * 1000;       // suspendG: preemptM at most once every 5 us
constexpr int64_t kSuspendYieldDelayNS = 10 * 1000;    // suspendG: spins this long before it yields (Go's yieldDelay)

enum GStatus : uint32_t {
  _Gidle = 0,
  _Grunnable = 1,
  _Grunning = 2,
  _Gsyscall = 3,
  _Gwaiting = 4,
  _Gdead = 6,
  _Gpreempted = 9,
  _Gscan = 0x1000,
};

enum PStatus : uint32_t { _Pidle = 0, _Prunning = 1, _Psyscall = 2, _Pgcstop = 3, _Pdead = 4 };

struct Gobuf {
  uintptr_t sp;
  uintptr_t pc;
  uintptr_t lr;
  uintptr_t g;
};

struct Stack {
  uintptr_t lo;
  uintptr_t hi;
};

struct G {
  Stack stack;                          // offset 0: the assembly reads these
  std::atomic<uintptr_t> stackguard0;   // 16: compared with SP in every prologue
  uintptr_t stackguard1;                // 24
  Gobuf sched;                          // 32
  M* m;                                 // 64
  uint64_t param;                       // 72: a service stub's operand
  uint64_t argspill;                    // 80: r0 across morestack
  // Not read by assembly.
  std::atomic<uint32_t> atomicstatus{_Gidle};
  std::atomic<bool> preempt{false};     // a preemption request is pending
  // Held while a request is raised and recorded (requestPreemption) and
  // while execute uses it up and records kResume: each pair one step
  // against the other (RequestOrder, which holds the P's as well).
  std::atomic<bool> request_order{false};
  // Park for a stack scan instead of gopreempt_m. Set and withdrawn by
  // suspendG (holding the scan bit of a running G), read by the G itself.
  std::atomic<bool> preemptStop{false};
  bool preemptShrink = false;           // shrink at the next synchronous safe point
  bool asyncSafePoint = false;          // stopped at an asynchronous safe point
  bool syncSafePoint = false;           // stopped at a synchronous safe point
  int64_t goid = 0;
  uintptr_t entry = 0;
  int64_t wake_at = 0;                  // Sleep's deadline (CLOCK_MONOTONIC ns)
  int64_t wait_key = -1;
  bool is_main = false;
  void* stack_mapping = nullptr;        // the mmap'd region behind `stack`
  size_t stack_mapped = 0;
  int secret = 0;                       // runtime/secret nesting depth
  // Extended register state (vectors, FP control), allocated on demand by
  // xRegSave when the G is first preempted asynchronously, then reused.
  std::unique_ptr<uint8_t[]> xstate;
  bool xstate_live = false;             // holds registers execute() must put back
  // Where the last accepted asynchronous preemption interrupted it
  // (doSigPreempt, from the signal context): the collector's way into the
  // two frames it scans conservatively while asyncSafePoint holds.
  uintptr_t async_pc = 0, async_sp = 0, async_lr = 0;
  bool gc_park = false;  // parked for the collection at this preemption (hooks.collect_at_async_preempt)
};

static_assert(offsetof(G, stack) == G_STACK_LO && offsetof(G, stackguard0) == G_STACKGUARD0 &&
              offsetof(G, stackguard1) == G_STACKGUARD1 && offsetof(G, sched) == G_SCHED &&
              offsetof(G, m) == G_M && offsetof(G, param) == G_PARAM && offsetof(G, argspill) == G_ARGSPILL);
static_assert(offsetof(Gobuf, sp) == GOBUF_SP && offsetof(Gobuf, pc) == GOBUF_PC &&
              offsetof(Gobuf, lr) == GOBUF_LR && offsetof(Gobuf, g) == GOBUF_G);
static_assert(sizeof(std::atomic<uintptr_t>) == sizeof(uintptr_t));

struct M {
  G* g0;                    // offset 0
  std::atomic<G*> curg{nullptr};  // 8: the user goroutine this M runs
  uintptr_t morebuf_pc = 0; // 16: the caller of the function that called morestack
  uintptr_t morebuf_sp = 0; // 24
  uintptr_t morebuf_lr = 0; // 32
  // Not read by assembly.
  P* p = nullptr;
  int id = 0;
  int32_t locks = 0;         // acquirem/releasem; also disables preemption
  int32_t mallocing = 0;
  const char* preemptoff = "";  // non-empty: preemption off, and why
  std::atomic<uint32_t> preemptGen{0};
  std::atomic<uint32_t> signalPending{0};
  // SIGURGs aimed at this M's thread, and taken by its handler while it
  // was this M: the M's end asks for a drain only when they differ
  // (OSThread::SignalsOutstanding).
  std::atomic<uint32_t> urg_sent{0}, urg_taken{0};
  // A harness's trap handler on this M that waits for a request to reach
  // its goroutine (harness/armed.cc) sleeps on trap_kick while
  // trap_waiting holds; whoever raises a request for the M's goroutine or
  // marks its signal pending wakes it (Runtime::KickTrapWaiter).
  std::atomic<bool> trap_waiting{false};
  std::atomic<uint32_t> trap_kick{0};
  pid_t tid = 0;
  OSThread thread;
  bool is_m0 = false;
  sigjmp_buf exit_jmp;        // schedule() leaves the M through it; so does a fault
  Runtime* rt = nullptr;
  void* g0_mapping = nullptr;
  size_t g0_mapped = 0;
  G g0_storage;
};
static_assert(offsetof(M, g0) == M_G0 && offsetof(M, curg) == M_CURG && offsetof(M, morebuf_pc) == M_MOREBUF_PC &&
              offsetof(M, morebuf_sp) == M_MOREBUF_SP && offsetof(M, morebuf_lr) == M_MOREBUF_LR &&
              offsetof(M, p) == M_P);

struct P {
  // asyncPreempt writes the vector and other extended registers here;
  // asyncPreempt2 moves them, on g0, into the G's extended state.
  alignas(64) uint8_t xscratch[P_XSCRATCH_BYTES] = {};
  int id = 0;
  std::atomic<uint32_t> status{_Pidle};
  std::atomic<M*> m{nullptr};
  std::deque<G*> runq;                  // guarded by Runtime::mu_
  std::atomic<uint32_t> schedtick{0};   // incremented on every execute
  std::atomic<uint32_t> syscalltick{0};
  std::atomic<bool> preempt{false};     // asynchronous request for this P
  std::atomic<bool> request_order{false};  // its raise against execute's clear (RequestOrder)
  // sysmon's last view of this P.
  uint32_t sysmon_tick = 0;
  int64_t sysmon_when = 0;
};

static_assert(offsetof(P, xscratch) == P_XSCRATCH);

// A raised request and its kRequest event, against execute's use of it and
// its kResume, as one step each: the log then says what the goroutine saw.
// Both the goroutine's order and, where the request raises the P's flag
// too, the P's: that flag asks for whatever goroutine the P runs until its
// next execute clears it, which may be another goroutine than the one the
// request names (preemptone looked at a curg that has since left the P).
// The goroutine's is taken first, the P's second, everywhere. A spin (the
// trap handler raises requests; no thread holds one for more than a few
// stores and an event).
class RequestOrder {
 public:
  RequestOrder(G* gp, P* pp) : g_(&gp->request_order), p_(pp ? &pp->request_order : nullptr) {
    Take(g_);
    if (p_) Take(p_);
  }
  ~RequestOrder() {
    if (p_) p_->store(false, std::memory_order_release);
    g_->store(false, std::memory_order_release);
  }
  RequestOrder(const RequestOrder&) = delete;
  RequestOrder& operator=(const RequestOrder&) = delete;

 private:
  static void Take(std::atomic<bool>* order) {
    while (order->exchange(true, std::memory_order_acquire)) sched_yield();
  }
  std::atomic<bool>* g_;
  std::atomic<bool>* p_;
};

// A fatal error (Throw, a fault in the harness itself) normally ends the
// process with exit status 2, as Go's do. An in-process fuzzer sets this so
// that it ends in abort() instead, which libFuzzer catches and turns into a
// crash with its input saved.
// The lines of such a fatal error then begin "==safepoint== ERROR: ":
// libFuzzer's -fork echoes a job's lines that hold "ERROR:" to the
// campaign's log, and deletes the job's own (signal-safe).
void SetFatalErrorsAbort(bool on);
const char* FatalPrefix();
[[noreturn]] void FatalExit();

// "SIGSEGV: segmentation violation", as Go names a fault signal.
const char* SignalName(int sig);
// Whether an M takes sig (the runtime's signals: SIGURG, the faults, SIGTRAP,
// SIGABRT); an M blocks every other one (MSignalMask).
bool IsMSignal(int sig);
// An M's signal mask: every signal blocked but the runtime's (signal.cc
// says why), the mask its thread is started with.
const sigset_t& MSignalMask();
// This process's id, asked of the kernel once (and again in a forked
// child): what a tgkill to an M names.
pid_t ProcessId();
// Whether a fault signal's si_code says it was an access at si_addr, and
// what it was when not ("forced by the kernel or the emulator ...", "sent
// by a process ..."; empty for an access).
bool FaultWasAccess(int code);
std::string DescribeFaultCode(int code);

// casgstatus: gp's status from `from` to `to`, waiting while another
// thread holds the scan bit on `from` (suspendG's), as Go's does.
void casgstatus(G* gp, uint32_t from, uint32_t to);

// canPreemptM: the first condition that forbids preempting the goroutine on
// mp now (Reason::kNone when preemption is possible).
Reason canPreemptM(const M* mp);

class Runtime {
 public:
  explicit Runtime(RuntimeOptions opts);
  ~Runtime();
  Runtime(const Runtime&) = delete;
  Runtime& operator=(const Runtime&) = delete;

  // Emits the program for the native port and maps it. Errors: a program
  // the port cannot lower, or a system call failure.
  bool Load(const ir::Program& prog, std::string* err);
  // Load for a runtime kept across many programs (a fuzzing process's,
  // harness/reference.cc), the program known by `key` (its text): the
  // code of the programs loaded before (up to kShelved, the least recently
  // loaded given up first) stays mapped under their keys, and loading one
  // of them again switches back to its code without emitting it again and
  // without a write to it (under QEMU its translations survive: a program
  // loaded afresh is translated afresh, whole). Only after Reset (or
  // before any Run), as Load.
  bool LoadKept(const ir::Program& prog, const std::string& key, std::string* err);
  // LoadKept of a program emitted elsewhere (a native fuzzing driver
  // emitting for the emulated port this runtime runs on: the emitter is
  // host-neutral, platforms/emitter.h) against `env`, which must be this
  // runtime's EmitEnvironment (else false with *err, nothing changed): the
  // code and table are installed as LoadKept installs its own emission,
  // the table edited as the options say (EditTable). A program it has
  // (HasKept) is switched back to instead, the emission unused.
  bool LoadKeptEmitted(const EmitEnv& env, Emitted emitted, const std::string& key, std::string* err);
  // The environment this runtime emits a program against (its data's
  // addresses, the runtime's entry points, the extended-state tier it
  // saves), after the checks of the settings an emission makes first
  // (GODEBUG, GOMAXPROCS); false with *err when they fail. env->port is
  // the native port.
  bool EmitEnvironment(EmitEnv* env, std::string* err);
  // The edits the options make to an emitted program's table (a test's
  // hook, the pcsp_late mutation), for whoever emits for such a runtime.
  static void EditTable(const RuntimeOptions& opts, FuncTable* t);
  // True when LoadKept has `key`'s code (loaded, or shelved).
  bool HasKept(const std::string& key) const;
  // True when `key`'s program is the one LoadKept loaded last.
  bool IsLoaded(const std::string& key) const { return code_ && key_ == key; }
  static constexpr size_t kShelved = 16;
  // Runs `main_fn` as the main goroutine on the calling thread (M0) with
  // GOMAXPROCS Ps, until it returns; then stops every M. False with *err if
  // the runtime could not run it or could not stop its Ms.
  bool Run(const std::string& main_fn, std::string* err);
  // Bounds every later Run: one whose main has not returned (nor
  // deadlocked, nor faulted) after `seconds` is aborted as Abort does, with
  // "main did not return within the bound (N s)". 0: unbounded. Run's own
  // thread keeps the time while it waits, so a bound costs no thread.
  void SetRunBound(double seconds) { run_bound_ns_ = static_cast<int64_t>(seconds * 1e9); }
  // After Run: back to the state Load left, the program still loaded, so
  // that Run can run it again as a fresh runtime would (a fuzzing process
  // keeps its runtimes: harness/reference.cc). Everything a run changes is
  // put back: the goroutines (their stacks kept for reuse, zeroed), the
  // Ps and their scratch areas, the Ms (their threads parked), the heap
  // (every page inaccessible again, zeroed as handed out), the globals and
  // vector dump areas, the queues, timers and handshakes, the collector's
  // and stop-the-world's state, the event log. False, with *why, when the
  // run left something a reset cannot prove clean: an M that never stopped,
  // a fault, an aborted or fatal run, a suspendG not resumed, the code not
  // as emitted (a patch left in it); the caller then needs a fresh runtime.
  bool Reset(std::string* why);

  EventLog& events() { return events_; }
  const FuncTable& table() const { return *table_; }
  // The same table, shared (never changed once installed): a fuzzer's
  // reference keeps it instead of a copy.
  std::shared_ptr<const FuncTable> shared_table() const { return table_; }
  uintptr_t code_base() const;
  // goexit's PC: where a goroutine's first frame returns (gostartcall's
  // fake caller); 0 before Load.
  uintptr_t goexit_pc() const { return code_base() != 0 ? code_base() + goexit_off_ : 0; }
  // A goroutine's frame base: the SP its first function's caller would
  // have, kStartFrameGap below its stack's top (newproc). An unwinder's walk
  // of its stack ends there, returning to goexit.
  static constexpr uintptr_t kStartFrameGap = 16;
  static uintptr_t FrameBase(const G* gp) { return gp->stack.hi - kStartFrameGap; }
  // The pcsp_late mutation's edit of a loaded table (RuntimeMutations).
  static void OpenFramesLate(FuncTable* t);
  uint64_t global(int i) const { return data_->globals[i].load(); }
  void set_global(int i, uint64_t v) { data_->globals[i].store(v); }
  // Vector dump area n (what `vdump n` stored), kVDumpBytes long.
  const uint8_t* vdump(int n) const { return data_->vdump + static_cast<size_t>(n) * ir::kVDumpBytes; }
  // The write-barrier-enabled flag `wb_store` tests.
  void set_wbflag(bool on) { data_->wbflag.store(on ? 1 : 0); }
  const Debug& debug() const { return debug_; }
  int gomaxprocs() const { return static_cast<int>(ps_.size()); }
  P* p(int i) { return ps_[i].get(); }
  int64_t now() { return clock_->Now(); }
  // The function containing an absolute PC, or nullptr.
  const FuncInfo* FuncAt(uintptr_t pc) const;

  // Preemption entry points (runtime/preempt.cc).
  // preemptone: request preemption of the goroutine running on pp, unless
  // a skip case applies (the calling M is found through TLS).
  bool preemptone(P* pp, Source src);
  void preemptall(Source src);
  // sysmon's retake at time `now` (sysmon's clock).
  // Returns how many Ps it retook.
  int retake(int64_t now);

  // Asynchronous preemption (runtime/signal.cc). preemptM sends SIGURG to
  // mp's thread unless one is already pending there. True when this call
  // sent it; false when it coalesced into a signal another thread marked
  // (and may not have sent yet), or there was no thread to send to.
  bool preemptM(M* mp);
  // Wakes a trap handler waiting on mp (M::trap_waiting), if one is: a
  // request was raised for its goroutine, its signal marked, or the
  // harness's requester settled. Async-signal-safe (a futex wake).
  static void KickTrapWaiter(M* mp);
  // The decision of isAsyncSafePoint for goroutine gp interrupted at pc/sp.
  struct AsyncDecision {
    bool ok;
    uintptr_t resume;  // where the goroutine continues (pc, a restart start, the entry)
    Reason reason;     // the first failing rule when !ok
  };
  AsyncDecision isAsyncSafePoint(G* gp, uintptr_t pc, uintptr_t sp, uintptr_t gval);
  bool async_supported() const { return async_supported_; }
  size_t asyncPreemptStack() const { return async_preempt_stack_; }
  // asyncPreemptStack as the runtime computes it for `port` (asyncPreempt's
  // frame, what its call into mcall puts on the goroutine stack, and 8
  // words of slack, as Go computes it).
  static size_t AsyncPreemptStackOf(const PortInfo& port);
  // The tier of extended state asyncPreempt saves (an index into the
  // port's PortInfo::tiers; SavedReg::tier).
  int xstate_tier() const { return xstate_tier_; }
  // Called by the SIGURG handler.
  void doSigPreempt(M* m, void* ucontext);
  // Called on g0 by asyncPreempt through mcall.
  [[noreturn]] void asyncPreempt2(G* gp);

  // Stop-the-world (9.7.6): preemptall, again every 100 us, until every P
  // has stopped. Returns the number of preemptall rounds, or -1 when
  // `max_rounds` (> 0) rounds passed without every P stopping (a harness
  // bound: Go would go on; the progress oracle reports it). Call from a
  // thread that is not an M. startTheWorld lets the Ps run again, in either
  // case.
  int stopTheWorldWithSema(int max_rounds = 0);
  void startTheWorld();
  // forEachP: run fn on every P at its next safe point (preempting the
  // running ones); returns true when each P has run it. False (the
  // request withdrawn, a kSafePointGiveUp event) once the program has
  // ended or `bound_ns` has passed: the harness's bound, Go would wait on.
  bool forEachP(const std::function<void(P*)>& fn, int64_t bound_ns = 60'000'000'000);

  // suspendG (9.7.6): stops gp at a safe point for a stack scan and holds
  // its scan bit. A running G gets preemptStop, preempt and stackPreempt and
  // (asynchronous preemption on) a preemptM at most every 5 us while
  // suspendG waits; it parks itself in preemptPark (_Gpreempted) at its
  // next safe point, synchronous or asynchronous, and suspendG moves it to
  // _Gwaiting. A G already at a blocking safe point (_Grunnable, _Gwaiting,
  // _Gsyscall) only has its scan bit taken. Call from a thread that is not
  // an M (the collector's). Gives up, recording it, after `bound_ns` of
  // real time with the G still running (a harness bound, not Go's).
  struct SuspendState {
    G* g = nullptr;
    bool dead = false;     // the G had exited
    bool stopped = false;  // suspendG stopped it: resumeG readies it
    bool held = false;     // the scan bit is held (false only when it gave up)
  };
  SuspendState suspendG(G* gp, int64_t bound_ns = 60'000'000'000);
  void resumeG(const SuspendState& s);
  // suspendG's withdrawal, when it gives up: takes preemptStop back from gp
  // while holding the scan bit of a running G, so that a G already on its
  // way to preemptPark sees it gone there and is preempted as by any other
  // request instead of parking with nobody to claim it. False when it is
  // too late: gp parked (or is parking) for it, and the caller claims it.
  // Public for the test that withdraws at that moment.
  bool withdrawStop(G* gp);
  // The collector's step on one suspended goroutine's stack (14.5): shrink
  // it now if isShrinkStackSafe, else set preemptShrink so that newstack
  // shrinks it at the next synchronous safe point. Call with the scan bit
  // held (between suspendG and resumeG).
  void scanstack(G* gp);
  // Whether gp's stack may be copied now: not in a system call, not stopped
  // at an asynchronous safe point (its top two frames have no precise
  // pointer maps).
  bool isShrinkStackSafe(const G* gp) const;
  // The goroutine with id goid, or nullptr (tests; the collector's roots).
  G* FindG(int64_t goid);
  // A preemption request raised on the target M itself, from a signal
  // handler running on it (the harness's armed delivery): as preemptone
  // would, then preemptM. Records the request with `pc` and `src`. True
  // when this call sent the M its SIGURG (false: none is sent, because
  // asynchronous preemption is off, or it coalesced into another's).
  bool preemptCurrent(M* m, uintptr_t pc, Source src);
  // The loaded code, for the harness to patch (breakpoints) and read back.
  // False when no program is loaded or the page cannot be written.
  bool PatchCode(uint32_t off, const uint8_t* bytes, size_t n);
  bool ReadCode(uint32_t off, uint8_t* out, size_t n) const;

  // Called on g0 (from assembly and the service stubs). Public for the
  // extern "C" trampolines only.
  [[noreturn]] void newstack(G* gp);
  [[noreturn]] void schedule(M* m);
  [[noreturn]] void gopreempt_m(G* gp);
  // Parks gp, stopped for suspendG, in _Gpreempted (off every queue).
  [[noreturn]] void preemptPark(G* gp, bool async);
  [[noreturn]] void goschedImpl(G* gp);
  void Service(ir::Service s, G* gp);  // systemstack services (return)
  [[noreturn]] void ParkingService(ir::Service s, G* gp);  // mcall services

  // The G running on this thread's M, if any (tests, callbacks).
  static M* CurrentM();
  // This thread is no M any more (OSThread, parking a thread for reuse).
  static void UnbindThread();
  // The fault handler's part (signal.cc): a goroutine on m faulted with
  // signal sig at pc (address addr; greg: the g register there; code: its
  // si_code). Records it and leaves the M; the run ends with a fatal error,
  // as a Go program's does.
  [[noreturn]] void goroutineFault(M* m, int sig, uintptr_t pc, uintptr_t addr, uintptr_t greg, int code);
  // A PC for a fault report: a generated function and offset, the
  // harness's assembly entry it is in (asyncPreempt, mcall, ...), a stub on
  // the code page, or the address.
  std::string DescribePC(uintptr_t pc) const;
  // Whether a fault at pc with stack pointer sp on m is the goroutine's
  // (generated code, or its stack) rather than the harness's own.
  bool InGoroutine(const M* m, uintptr_t pc, uintptr_t sp) const;

  // The goroutines on the global run queue, in order (tests).
  std::vector<int64_t> GlobalRunq();

  // After Run: Ms abandoned because their goroutine never reached a safe
  // point after main returned (Go's process would just have exited).
  int abandoned_ms() const { return abandoned_ms_; }
  // After a failed Run: a fatal error as Go reports one (exit status 2).
  bool fatal() const { return fatal_; }
  // Ends a Run from outside, as if main had returned (goroutines are asked
  // to stop, those that never reach a safe point are abandoned), and makes
  // it return false with "run aborted: why". For a harness whose test has
  // already failed, or that has waited past its bound: a broken runtime
  // must fail a test in seconds, not hang it. Any thread, any time; the
  // first reason wins.
  void Abort(const std::string& why);
  // sysmon's thread looks again now, not at the end of its sleep (20 us to
  // 10 ms): SysmonLook's handshake, and Run's end. Each pass is the pass it
  // would be (its clock, its retake); only its moment is the caller's.
  void NudgeSysmon();
  // NudgeSysmon, then waits for a pass of sysmon's begun after the nudge
  // to end (it has read its clock and retaken what it would), up to
  // timeout_ns; false when none ended in time or sysmon does not run. The
  // harness's look is then a handshake, not a wait on sysmon's clock reads
  // spent yielding the CPU to whoever else was runnable.
  // A driven sysmon (hooks.sysmon_clock: no thread of its own) makes the
  // pass here, on the caller's thread, recorded as sysmon's M, while the
  // run lasts: the same pass at the same moment, without the two context
  // switches a handshake costs on each side.
  bool SysmonLook(int64_t timeout_ns);

  // The heap and the collector (runtime/mheap.cc, runtime/mgc.cc).
  // mallocgc: a new zeroed object of `size` bytes, one page of the heap
  // with its header; black while marking is on.
  uintptr_t mallocgc(size_t size, G* gp);
  // One whole collection, from a thread that is not an M (a test's
  // collector, or the runtime's worker): mark the globals; pause each
  // goroutine with suspendG and scan its stack (precise at call sites,
  // conservative in the two top frames of one stopped asynchronously, its
  // extended state by the scan policy) and shrink it (scanstack); then mark
  // termination with the world stopped (every stack again: the reference
  // runtime has no write barrier on stm); then sweep, poisoning what is
  // freed. Returns the number of objects freed.
  int64_t GC();
  // Whether heap object `addr` (a pointer alloc returned) is still
  // allocated (false once a collection freed it).
  bool HeapObjectLive(uintptr_t addr);
  // After a run that ended in a fault: the fault was a read or write of a
  // freed heap object (the liveness oracle's evidence), which one, and
  // which collection freed it.
  struct FreedAccess {
    bool hit = false;
    int64_t object = -1;     // the object's index in allocation order
    int64_t freed_by = 0;    // the collection cycle that freed it
    uintptr_t addr = 0, pc = 0;
  };
  FreedAccess freed_access() const { return freed_access_; }

  // Statistics the benchmarks read.
  size_t goroutines_created() const { return next_goid_.load() - 1; }

 private:
  // The two triggers of a request (preempt and stackPreempt), its event,
  // and the signal where asynchronous preemption is on: preemptone's and
  // preemptCurrent's common part. True when it sent the signal itself.
  bool requestPreemption(M* mp, P* pp, G* gp, uintptr_t pc, Source src);
  G* newproc(uintptr_t entry, bool is_main);
  void FreeStack(G* gp);
  void RetireStack(void* mapping, size_t mapped, uintptr_t sp, int64_t goid);
  // False with *err when a retired stack's poison changed (every M stopped).
  bool CheckRetiredStacks(std::string* err);
  void ReleaseRetiredStacks();  // every M stopped
  bool AllocStack(G* gp, size_t size, std::string* err);
  void copystack(G* gp, size_t newsize);
  // Halves gp's stack when less than a quarter of it is in use (and not
  // below the minimum), as Go's shrinkstack; records kShrink.
  void shrinkstack(G* gp);
  [[noreturn]] void execute(M* m, G* gp);
  void dropg(M* m);
  void ready(G* gp);             // mu_ held
  void enqueueReady(G* gp);      // mu_ held: ready() after its _Gwaiting to _Grunnable
  G* findRunnable(M* m);         // mu_ held on entry and exit; may wait
  G* globrunqget(P* pp);         // mu_ held: the global queue's front, with its kGlobalRunqGet event
  void runqput(P* pp, G* gp);    // mu_ held
  void StartM(int i);
  void mstart1(M* m);
  static void MThreadMain(void* arg);
  static void MStartTrampoline(void* arg);
  void SysmonLoop();
  void CheckTimers();            // mu_ held
  // Go's throw: "fatal error: msg" and exit status 2; `detail`, when given,
  // is printed first as Go's "runtime: ..." line.
  [[noreturn]] void Throw(const char* msg, const std::string& detail = "");

  // The heap: one object per page of a PROT_NONE reservation, a header in
  // the page's first 16 bytes. A freed page is poisoned and made
  // inaccessible, and never reused, so any later use of a freed object
  // faults and is named (FreedAccess).
  struct HeapObj {
    uint32_t size = 0;
    uint8_t state = 0;  // 0 unused, 1 allocated, 2 freed
    bool marked = false;
    bool open = false;  // its page is accessible before it is handed out (Reset)
    int64_t freed_by = 0;
  };
  void HeapInit();
  void HeapRelease();  // ~Runtime: the reservation kept for the next runtime
  void ReleaseGsAndMs();  // ~Runtime and Reset: stacks and g0 stacks kept for reuse
  // The object whose payload holds w, or -1.
  int64_t HeapFind(uintptr_t w) const;
  uintptr_t HeapObjAddr(int64_t idx) const { return heap_base_ + static_cast<uintptr_t>(idx) * heap_page_ + 16; }
  // The collector's parts (mgc.cc), with heap_mu_ held.
  void gcMarkWord(uintptr_t w);
  void gcScanRange(uintptr_t lo, uintptr_t hi);  // conservatively, every aligned word
  void gcScanStack(G* gp);                        // its frames, xstate by the policy
  // One frame of a stopped goroutine's stack, innermost first: SP, and the
  // frame's size at its PC (pcsp); the top frame of one stopped at an
  // asynchronous safe point has no map.
  struct StackFrame {
    const FuncInfo* f;
    uintptr_t sp;
    int delta;
    bool top_async;
  };
  void walkFrames(G* gp, std::vector<StackFrame>* out);
  // copystack's second half: pointers into the old stack, in declared
  // pointer slots (and the spilled argument), moved by delta.
  void adjustpointers(G* gp, const Stack& old, uintptr_t delta);
  void gcMarkRoots(bool with_stacks);
  std::vector<G*> AllGs();  // a snapshot of every G, taken under mu_
  void gcDrain();
  int64_t gcSweep();
  // The collection at every accepted asynchronous preemption
  // (hooks.collect_at_async_preempt): the runtime's collector worker.
  void gcWorkerLoop();
  void StartGCWorker();
  void StopGCWorker();
  void gcRequestAtAsyncPreempt(G* gp);
  // A collection that holds `held` (parked for it) suspended throughout.
  int64_t GC(G* held);
  bool FreedAccessAt(uintptr_t addr, uintptr_t pc);  // the fault handler's question

  RuntimeOptions opts_;
  Debug debug_;
  std::unique_ptr<Clock> own_clock_;
  Clock* clock_;
  Clock* sysmon_clock_;  // clock_ unless hooks.sysmon_clock
  EventLog events_;
  // The memory generated code addresses: globals, vector dump areas and the
  // write-barrier flag, in pages of their own in the middle of a 2 MiB
  // PROT_NONE reservation, away from the C++ heap. A broken runtime (a
  // mutation that resumes in the middle of a REGTMP sequence) may store
  // through a half-built address near them: that faults, and is reported
  // as the goroutine's fault, instead of corrupting the harness's heap.
  struct ProgramData {
    std::atomic<uint64_t> globals[ir::kGlobals];
    std::atomic<uint64_t> wbflag;
    alignas(64) uint8_t vdump[ir::kVDumpAreas * ir::kVDumpBytes];
  };
  void* data_mapping_ = nullptr;
  ProgramData* data_ = nullptr;
  std::unique_ptr<CodePage> code_;
  std::vector<uint8_t> emitted_;  // the code as Load wrote it (Reset's check)
  std::shared_ptr<const FuncTable> table_ = EmptyTable();  // never null
  static std::shared_ptr<const FuncTable> EmptyTable();
  uint32_t goexit_off_ = 0;
  // A program LoadKept loaded, its code mapped: the current one's parts
  // are the four above (key_ its key), the others' are shelved here.
  struct Shelved {
    std::string key;
    std::unique_ptr<CodePage> code;
    std::vector<uint8_t> emitted;
    std::shared_ptr<const FuncTable> table;
    uint32_t goexit_off = 0;
  };
  std::string key_;                // the current program's LoadKept key ("": none, or Load's)
  std::vector<Shelved> shelf_;     // least recently loaded first
  // The current program onto the shelf; the code page it no longer holds
  // (the least recently loaded program's when the shelf is full, or a
  // program Load loaded, which has no key), for reuse, or nullptr.
  std::unique_ptr<CodePage> ShelveCurrent();
  // LoadKept of a program it has: loaded already, or switched back to from
  // the shelf; false when it has not.
  bool Unshelve(const std::string& key);
  // Emits the program for the native port, its table edited as the hooks
  // and mutations say (Load's and LoadKept's first half).
  bool EmitProgram(const ir::Program& prog, Emitted* out, std::string* err);
  // An emitted program written over `spare`'s pages where it fits (else
  // into new ones) and made the current one, under `key` (Load's second
  // half, and LoadKept's for a program it does not have).
  bool WriteCode(std::unique_ptr<CodePage> spare, const std::string& key, Emitted* out, std::string* err);
  // The code (as written to code_), table and goexit entry of a program,
  // made the current one.
  void Install(std::vector<uint8_t> code, std::shared_ptr<const FuncTable> table, uint32_t goexit);
  // Old stacks copystack left, their used part poisoned, kept until every
  // M has stopped (RetireStack); copystack runs on any M, and on the
  // collector's worker.
  static constexpr uint8_t kStackPoison = 0xfd;
  struct RetiredStack {
    void* mapping;
    size_t mapped;
    uintptr_t poisoned;  // [poisoned, mapping + mapped) holds kStackPoison
    int64_t goid;
  };
  std::mutex retired_mu_;
  std::vector<RetiredStack> retired_stacks_;

  std::mutex mu_;  // the scheduler lock: run queues, timers, handshakes, all Gs
  // kNotifyUnlocked: where a hot path can, it changes what a waiter waits
  // for under mu_ and notifies after giving mu_ back. Notified under the
  // lock, the woken thread (on one CPU, it runs at once) found mu_ held,
  // slept on it again and was woken a second time by the unlock: three
  // context switches for one hand-off, a third of a fuzzing process's.
  // Nothing is lost: the waiter checks under mu_ before it sleeps.
  std::condition_variable idle_cv_;
  std::deque<G*> globrunq_;
  std::vector<G*> sleepers_;
  std::vector<bool> handshakes_;
  std::vector<std::vector<G*>> waiters_;
  std::vector<std::unique_ptr<G>> allgs_;
  std::vector<std::unique_ptr<P>> ps_;
  std::vector<std::unique_ptr<M>> ms_;
  std::atomic<int64_t> next_goid_{1};
  std::atomic<bool> main_done_{false};
  std::atomic<bool> stopping_{false};
  std::atomic<int> running_ms_{0};
  std::condition_variable done_cv_;  // main returned, a deadlock, or a fault (mu_)
  bool deadlock_ = false;            // mu_
  bool aborted_ = false;             // mu_
  std::atomic<int> suspending_{0};   // suspendG calls not yet resumed: no deadlock while any
  std::string abort_why_;            // mu_
  int64_t run_bound_ns_ = 0;         // SetRunBound's; 0: none
  void AbortLocked(const std::string& why);  // Abort's body, under mu_
  // The first goroutine fault (written by the handler before it leaves the
  // M; read after the Ms stopped).
  std::atomic<bool> faulted_{false};
  int fault_sig_ = 0;
  uintptr_t fault_pc_ = 0, fault_addr_ = 0;
  int64_t fault_goid_ = 0;
  uintptr_t fault_g_ = 0;       // the g register at the fault
  bool fault_g_curg_ = false;   // it held the M's curg
  bool fault_curg_m_ = false;   // whose m was set
  int fault_code_ = 0;          // its si_code (DescribeFaultCode)
  int idle_ms_ = 0;                  // Ms waiting with no timer in findRunnable (mu_)
  int abandoned_ms_ = 0;
  bool fatal_ = false;
  bool sysmon_started_ = false;
  OSThread sysmon_thread_;
  std::atomic<bool> sysmon_stop_{false};
  // sysmon sleeps on this, so that the run's end (and NudgeSysmon) need not
  // wait out its sleep: up to 10 ms once it has been idle, which the run's
  // end, joining it, waited for.
  std::mutex sysmon_mu_;
  std::condition_variable sysmon_cv_;
  uint64_t sysmon_nudges_ = 0;       // sysmon_mu_
  uint64_t sysmon_nudges_seen_ = 0;  // sysmon_mu_: when sysmon last woke
  // sysmon_mu_: sysmon's thread's passes begun and ended (SysmonLook's
  // handshake), and whether sysmon runs (from Run's start of it to the end
  // of its loop, or for a driven one to Run's end).
  uint64_t sysmon_passes_begun_ = 0, sysmon_passes_ended_ = 0;
  bool sysmon_running_ = false;
  // hooks.sysmon on hooks.sysmon_clock: no sysmon thread; SysmonLook passes.
  bool sysmon_driven() const { return opts_.hooks.sysmon && opts_.hooks.sysmon_clock != nullptr; }
  std::condition_variable sysmon_looked_cv_;  // a pass ended, or sysmon's loop
  void SysmonSleep(int64_t us);

  // The heap and the collector.
  std::mutex heap_mu_;
  uintptr_t heap_base_ = 0;
  size_t heap_page_ = 0, heap_pages_ = 0, heap_next_ = 0;
  bool heap_reused_ = false;  // a kept reservation: pages zeroed as handed out
  size_t heap_high_ = 0;      // pages ever handed out from this reservation (across Resets)
  // Zeroed memory (a mapping, fresh or kept: runtime/mempool.h): an
  // all-zero HeapObj is an unused one, and only the entries a run reaches
  // are ever touched (constructed, the 8192 entries were 128 KB written,
  // 32 page faults, in every fresh runtime).
  struct FreeHeapObjs {
    void operator()(HeapObj* p) const;  // unmaps it
  };
  std::unique_ptr<HeapObj[], FreeHeapObjs> heap_objs_;
  bool gc_marking_ = false;          // heap_mu_: allocate black
  std::vector<int64_t> gc_work_;     // heap_mu_: marked, not yet scanned
  int64_t gc_cycles_ = 0;            // heap_mu_: collections begun (what freed_by names)
  std::mutex gc_mu_;                 // one collection at a time
  struct GCRequest {
    G* g;
    bool held;  // parked for it in _Gpreempted (a preemption's), else waiting in `gc`
  };
  std::deque<GCRequest> gc_requests_;  // mu_: goroutines parked for the worker's collection
  std::condition_variable gc_cv_;    // mu_: the worker waits for requests
  bool gc_worker_stop_ = false;      // mu_
  std::atomic<bool> gc_active_{false};  // a collection runs: preemptions request none
  std::unique_ptr<std::once_flag> gc_worker_once_ = std::make_unique<std::once_flag>();  // anew at Reset
  std::atomic<bool> gc_worker_started_{false};
  OSThread gc_worker_;
  FreedAccess freed_access_;

  // Asynchronous preemption state.
  bool async_supported_ = false;
  size_t async_preempt_stack_ = 0;
  uintptr_t async_preempt_entry_ = 0;
  size_t xstate_bytes_ = 0;
  int xstate_tier_ = 0;  // index into PortInfo::tiers
  // What sp_clobber writes into the flag and control registers: every bit
  // setflags controls.
  uint64_t clobber_flags_[ir::kFlagsWords] = {};
  // The tier's vector registers in a P's scratch area (offset, bytes): what
  // asyncPreempt2 poisons once xRegSave has moved them into the G.
  std::vector<std::pair<uint32_t, uint32_t>> scratch_vectors_;
  // Stop-the-world and forEachP.
  std::atomic<bool> gcwaiting_{false};
  std::atomic<int> stopped_ps_{0};
  std::condition_variable stw_cv_;
  std::function<void(P*)> safe_point_fn_;
  std::vector<bool> safe_point_pending_;
  std::atomic<int> safe_point_left_{0};
  void InitAsync();
  // The tier of extended state this runtime saves (PortInfo::tiers), by the
  // simd setting and the CPU: the highest whose conditions, and every lower
  // tier's, hold.
  int ChooseXTier();
  void SchedSafePoints(M* m);  // in schedule(), mu_ held: STW and forEachP
};

}  // namespace safepoint

#endif
