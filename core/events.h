// Events: every decision the runtime takes about preemption is recorded, so
// that tests assert on what happened, not on timing. Recording is lock-free
// and async-signal-safe (a fixed array and an atomic index), so the signal
// path can record too.
#ifndef SAFEPOINT_RUNTIME_EVENTS_H_
#define SAFEPOINT_RUNTIME_EVENTS_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace safepoint {

enum class Ev : uint8_t {
  kRequest,        // preemptone set preempt and stackPreempt (source says who; arg = the P whose preempt flag it set too, -1 none)
  kSkip,           // preemptone skipped its target (reason says why)
  kDeferred,       // newstack saw stackPreempt but canPreemptM failed (reason)
  kPreemptSync,    // newstack accepted: gopreempt_m (pc = the function's PC)
  kRearm,          // releasem set stackPreempt again for a pending request
  kGrow,           // newstack grew the stack (arg = new size)
  kGoStart,        // a goroutine was created (arg = its entry offset)
  kGoExit,
  kResume,         // execute put a goroutine on an M (arg = P id; every execute is one schedtick of that P)
  kGosched,        // an explicit Gosched
  kPark,           // a goroutine blocked (sleep, wait)
  kReady,          // a blocked goroutine became runnable (arg 1: on the global run queue, readied by a thread without a P)
  kRetake,         // sysmon saw a P whose tick stayed for forcePreemptNS
  kSignalSent,     // preemptM sent SIGURG (arg = target M id)
  kSignalCoalesced,  // preemptM found a signal already pending on that M
  kAsyncAccept,    // doSigPreempt injected asyncPreempt (pc = interrupted, arg = resume PC)
  kAsyncRefuse,    // isAsyncSafePoint refused (reason = the first failing rule, pc)
  kSigNoRequest,   // a SIGURG with nothing to do (reason: none wanted, or asyncpreemptoff)
  kPreemptAsync,   // asyncPreempt2 on g0 took the goroutine off the CPU (pc = resume PC)
  kXRegAlloc,      // the G's extended register state was allocated
  kSTWRound,       // stopTheWorld called preemptall (arg = round)
  kSTWDone,        // every P stopped (arg = rounds)
  kSafePointFn,    // forEachP's function ran on a P (arg = P id)
  kTrap,           // armed delivery: the breakpoint was hit (pc; arg = SP - stack.lo there, -1 unknown; reason: why no source that looks at Ps would see the goroutine running, kGSyscall, kPNotRunning, kNoCurg)
  kDeadlock,       // every goroutine waits and no timer is pending (checkdead)
  kFault,          // a goroutine faulted (reason none; pc = the faulting PC, arg = the signal)
  kPreemptPark,    // preemptPark: stopped for suspendG, now _Gpreempted (pc = resume PC, arg 1: asynchronously)
  kSuspend,        // suspendG holds the G's scan bit (arg = the status it found; source suspendG)
  kResumeG,        // resumeG released the scan bit (arg 1: it readied a G suspendG stopped)
  kSuspendGiveUp,  // suspendG's bound passed with the G still running (arg = preemptM calls)
  kShrink,         // shrinkstack copied the stack to half its size (arg = the new size)
  kShrinkDeferred, // the collector could not shrink now (isShrinkStackSafe): preemptShrink set (arg 1: async safe point, 2: syscall)
  kSTWGiveUp,      // stopTheWorldWithSema gave up with a P still running: its round bound passed, or the run ended (arg = rounds)
  kAlloc,          // mallocgc made an object (pc = its address, arg = its index, negative when allocated black)
  kGCStart,        // a collection began marking (arg = cycle)
  kGCScanStack,    // the collector scanned a goroutine's stack (arg = frames scanned conservatively: 0 or 2)
  kGCMarkTermination,  // the world is stopped; marking ends (arg = cycle)
  kFree,           // the sweep freed and poisoned an object (pc = its address, arg = its index)
  kGCDone,         // the sweep finished (arg = objects freed)
  kFreedAccess,    // a goroutine touched a freed object (pc = the faulting PC, arg = the object's index)
  kSafePointGiveUp,  // forEachP withdrew: the program ended or its bound passed (arg = Ps that had not run it)
  kGlobalRunq,     // a goroutine was put on the global run queue (recorded under the scheduler lock, with the push)
  kGlobalRunqGet,  // findRunnable took a goroutine off the global run queue (under the lock, with the pop; arg = the P)
  kCount,
};

enum class Source : uint8_t { kNone, kSysmon, kTest, kPreemptAll, kSuspendG, kArmed };

enum class Reason : uint8_t {
  kNone,
  // canPreemptM, in its order.
  kMLocks,
  kMMallocing,
  kMPreemptoff,
  kPNotRunning,
  kNoCurg,
  kGSyscall,
  // preemptone's skip cases.
  kNoM,
  kSelf,
  kG0,
  kSyscall,
  // isAsyncSafePoint's rules, in its order (after canPreemptM's).
  kNotCurg,      // the interrupted code is not the M's current user goroutine
  kSecret,       // runtimesecret: the goroutine is in a secret region
  kStack,        // not enough stack for the injected call
  kNotGo,        // the PC is not in generated Go code (foreign code, no function)
  kAsm,          // the function is flagged as assembly
  kUnsafePoint,  // a compiler-marked unsafe point (prologue, morestack path, atomic, write barrier, REGTMP)
  kNosplit,      // in a nosplit function, not at a call instruction
  kRuntimePkg,   // the innermost function is in runtime, internal/runtime or reflect
  // doSigPreempt without a decision.
  kNoRequest,    // no preemption wanted
  kAsyncOff,     // GODEBUG=asyncpreemptoff=1
  kCount,
};

const char* EvName(Ev e);
const char* ReasonName(Reason r);
const char* SourceName(Source s);

struct Event {
  uint64_t seq;
  Ev kind;
  Source source;
  Reason reason;
  int64_t goid;
  uintptr_t pc;  // absolute PC, where one applies
  int64_t arg;
  int64_t when;  // CLOCK_MONOTONIC ns: for benchmarks only, never for ordering (0: a log without times)
  int32_t m;     // the M whose thread recorded it (-1: a thread that is no M)
  int32_t p;     // the P that M held (-1: none, as for sysmon)
};

class EventLog {
 public:
  // times: each event records CLOCK_MONOTONIC in `when`. Under QEMU user
  // mode that is an emulated system call per event (several per
  // preemption); logs judged only by order (the fuzzer, the sweep) go
  // without.
  explicit EventLog(size_t capacity = 1 << 18, bool times = true);
  void Record(Ev kind, int64_t goid, Reason reason = Reason::kNone, uintptr_t pc = 0, int64_t arg = 0,
              Source source = Source::kNone);
  // A consistent copy of what was recorded so far.
  std::vector<Event> Snapshot() const;
  size_t Count(Ev kind) const;
  size_t Count(Ev kind, Reason reason) const;
  size_t dropped() const { return dropped_.load(); }
  // Names the calling thread's M and P for the events it records from now on
  // (a thread-local, so the signal handler's events carry them too).
  static void BindThread(int m, int p);
  // What BindThread last named on the calling thread.
  static void ThreadBinding(int* m, int* p);
  void Clear();
  std::string Dump(size_t max = 200) const;

 private:
  std::unique_ptr<Event[]> buf_;
  size_t cap_;
  bool times_;
  std::atomic<uint64_t> next_{0};
  std::atomic<size_t> dropped_{0};
  std::unique_ptr<std::atomic<bool>[]> ready_;
};

}  // namespace safepoint

#endif
