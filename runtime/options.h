// How a reference runtime is configured, in four kinds that never mix:
//   settings     what a Go user sets: GOMAXPROCS and GODEBUG;
//   experiments  GOEXPERIMENTs the chapter names (runtimesecret, simd);
//   hooks        what tests and the harness need to drive a run (sysmon on
//                or off, an injectable clock, callbacks on g0, ...);
//   mutations    deliberate breakage, to show a suite or a sweep can fail.
#ifndef SAFEPOINT_RUNTIME_OPTIONS_H_
#define SAFEPOINT_RUNTIME_OPTIONS_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/events.h"
#include "core/functab.h"

namespace safepoint {

class Runtime;
struct G;

// GODEBUG settings the runtime understands.
struct Debug {
  int asyncpreemptoff = 0;
};
// Parses a GODEBUG value ("k=v,k=v"). Unknown keys are ignored, as Go does;
// a malformed entry or a bad value of a known key is an error.
bool ParseGodebug(const std::string& s, Debug* out, std::string* err);

int64_t MonotonicNanos();

// The clock sysmon reads. Injectable so tests drive the 10 ms rule by hand.
class Clock {
 public:
  virtual ~Clock() = default;
  virtual int64_t Now() = 0;  // nanoseconds
};
// A clock that stands still until moved by hand (Advance, Set).
class ManualClock : public Clock {
 public:
  int64_t Now() override {
    reads_.fetch_add(1);
    return now_.load();
  }
  void Advance(int64_t ns) { now_.fetch_add(ns); }
  void Set(int64_t ns) { now_.store(ns); }
  // How often the clock was read: a test waits for the runtime to have
  // looked at the time again (a handshake, not a sleep).
  uint64_t reads() const { return reads_.load(); }

 private:
  std::atomic<int64_t> now_{0};
  std::atomic<uint64_t> reads_{0};
};

// Whether the collector scans a goroutine's extended register state (the
// vectors asyncPreempt saved): Go 1.26 assumes it holds no pointers and
// does not; Go 1.27 scans it conservatively (chapter 9.7.5).
enum class XStateScan { kGo126, kGo127 };

struct RuntimeSettings {
  int gomaxprocs = 1;
  std::string godebug;
  XStateScan xstate_scan = XStateScan::kGo127;
};

struct RuntimeExperiments {
  bool runtimesecret = false;  // GOEXPERIMENT=runtimesecret: refuse inside secret regions
  bool simd = false;           // GOEXPERIMENT=simd: save the port's wider tiers of extended state
};

struct RuntimeHooks {
  bool sysmon = true;                // run the sysmon thread
  // The runtime's clock: sysmon's forcePreemptNS, suspendG's 5 us between
  // signals, stopTheWorldWithSema's 100 us between rounds. nullptr:
  // CLOCK_MONOTONIC.
  Clock* clock = nullptr;
  // sysmon's alone, where it is not `clock`: a harness that moves sysmon's
  // time by hand while the rest paces itself on real time, as Go's does.
  // sysmon is then driven: it passes when the harness asks
  // (Runtime::SysmonLook), each pass run on the asking thread, not every
  // 20 us of real time on a thread of its own.
  Clock* sysmon_clock = nullptr;
  bool exit_on_main_return = false;  // _exit(0) as soon as main returns (child processes)
  size_t event_capacity = 1 << 17;   // events kept; more are counted as dropped
  bool event_times = true;           // events carry CLOCK_MONOTONIC (Event::when); see EventLog
  size_t initial_stack = 2048;       // bytes (kStackMin)
  // The port's preemptMSupported, overridable to run a port as if it had
  // no asynchronous preemption (js/wasm, Plan 9).
  bool preempt_m_supported = true;
  // `callback N` in a program runs callbacks[N] on g0 (systemstack).
  std::vector<std::function<void(Runtime&, G*)>> callbacks;
  // Runs on g0 in asyncPreempt2, after xRegSave, with the goroutine's
  // registers saved (its asyncPreempt frame is at sched.sp).
  std::function<void(Runtime&, G*)> on_async_preempt;
  // Runs in Load on the function table the emitter made, before anything
  // reads it: a test shapes a table the emitter never makes (a restartable
  // sequence longer than any the ports emit, to reach "bad restart PC").
  std::function<void(FuncTable&)> edit_table;
  // A whole collection (Runtime::GC, on the runtime's collector worker)
  // while each accepted asynchronous preemption holds its goroutine: the
  // goroutine parks for it (preemptPark) and is resumed after the sweep.
  bool collect_at_async_preempt = false;
  // Runs on the collector's thread after each goroutine's stack was scanned
  // during concurrent marking (that goroutine already resumed): a test
  // makes goroutines allocate while marking is on.
  std::function<void(Runtime&, G*)> gc_after_stack_scan;
  // Runs on g0 in preemptPark, after its caller saw preemptStop and before
  // the goroutine's status changes: a test withdraws suspendG's request at
  // that moment.
  std::function<void(Runtime&, G*)> before_preempt_park;
  // Runs on g0 in newstack and asyncPreempt2 when a goroutine has been
  // preempted, before it looks at preemptStop (one step against suspendG's
  // request: RequestOrder); and in suspendG between its request's record
  // and its raise, inside that step. A test holds each side at that moment.
  std::function<void(Runtime&, G*)> before_preempt_decision;
  std::function<void(Runtime&, G*)> suspend_before_raise;
};

struct RuntimeMutations {
  bool omit_stack_check = false;  // emit no prologue checks (see EmitEnv)
  Reason skip_rule = Reason::kNone;  // isAsyncSafePoint skips this refusal rule
  bool no_restart = false;        // restartable sequences are not rewound
  bool drop_register = false;     // asyncPreempt that does not save IR register r3
  // asyncPreempt2 leaves the extended state in the P's scratch area instead
  // of moving it into the G's own (no xRegSave/xRegRestore): a goroutine
  // resumed after another was preempted on the same P gets the other's.
  bool shared_scratch = false;
  // execute() leaves gp.preempt and pp.preempt set: a request outlives the
  // preemption it asked for.
  bool live_request = false;
  // sysmon's forcePreemptNS multiplied by this (1: the chapter's 10 ms).
  int force_preempt_scale = 1;
  // findRunnable never lets the global run queue go first (Go's 1-in-61
  // schedtick check), so a busy local run queue starves it.
  bool no_global_fairness = false;
  // The runtime-package rule asks the outermost function of the inline
  // tree instead of the innermost.
  bool outermost_inline = false;
  // The stack-room rule admits one word less than asyncPreemptStack.
  bool stack_room_off_by_one = false;
  // suspendG does not set preemptStop: the G it stops is rescheduled by
  // gopreempt_m instead of parking, and runs on while it is "suspended".
  bool suspend_no_preempt_stop = false;
  // isShrinkStackSafe ignores gp.asyncSafePoint: the collector shrinks a
  // stack whose top two frames it cannot read precisely.
  bool shrink_at_async = false;
  // asyncPreempt that saves and restores only the low half of each vector
  // register of the active tier (riscv64's F registers: the low 32 bits).
  bool half_vector_save = false;
  // The conservative scan of the interrupted frame starts above its
  // outgoing-argument area: a pointer only there is lost.
  bool scan_skips_outgoing_args = false;
  // The function table (pcsp) has each frame open one instruction late:
  // the row of the first SP move of every generated function starts at the
  // instruction after the one it should, so at that instruction the table
  // says SP is where it was at entry (a table/machine disagreement at an
  // accepted PC, the class of Go's epilogue unwinder crashes).
  bool pcsp_late = false;
};

struct RuntimeOptions {
  RuntimeSettings settings;
  RuntimeExperiments experiments;
  RuntimeHooks hooks;
  RuntimeMutations mutations;
};

}  // namespace safepoint

#endif
