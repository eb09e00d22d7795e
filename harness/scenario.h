// Scenarios: run a program on the reference runtime while a driver thread
// acts on it (requests preemption, advances sysmon's clock,
// flips the program's flags), and hands the tests the recorded events.
//
// Ordering is always a handshake on state (a global the program writes, an
// event the runtime records), never a sleep. WaitFor's bound only turns a
// hang into a failure; it is generous and never decides a result.
#ifndef SAFEPOINT_HARNESS_SCENARIO_H_
#define SAFEPOINT_HARNESS_SCENARIO_H_

#include <sched.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "runtime/osthread.h"
#include "runtime/runtime.h"

namespace safepoint::harness {

// Polls pred until it holds; false after `seconds` (a hang, not a timing).
inline bool WaitFor(const std::function<bool()>& pred, double seconds = 60) {
  int64_t deadline = MonotonicNanos() + static_cast<int64_t>(seconds * 1e9);
  while (!pred()) {
    if (MonotonicNanos() > deadline) return false;
    usleep(50);
  }
  return true;
}

// Options for deterministic scenarios: no sysmon thread, so every request
// comes from the test itself. Tests of sysmon turn it back on.
inline RuntimeOptions TestOptions() {
  RuntimeOptions o;
  o.hooks.sysmon = false;
  return o;
}

// Requests preemption of the goroutine on pp until pred holds. A request can
// be lost, as in Go: newstack's deferral and execute() write stackguard0
// back after reading it, so one that lands in between is dropped and the
// requester asks again.
inline bool RequestUntil(Runtime& rt, P* pp, const std::function<bool()>& pred, Source src = Source::kTest) {
  int polls = 0;
  return WaitFor([&] {
    if (pred()) return true;
    if (polls++ % 20 == 0) rt.preemptone(pp, src);
    return false;
  });
}

struct Outcome {
  bool ok = false;
  std::string error;
  std::unique_ptr<Runtime> rt;
  std::vector<Event> events;
  size_t Count(Ev kind, int64_t goid = -1, Reason reason = Reason::kCount) const {
    size_t n = 0;
    for (const Event& e : events)
      n += e.kind == kind && (goid < 0 || e.goid == goid) && (reason == Reason::kCount || e.reason == reason);
    return n;
  }
  const FuncInfo* FuncAt(uintptr_t pc) const { return rt->FuncAt(pc); }
  // Requests from one source (Run's own shutdown asks with Source::kNone).
  size_t Requests(Source src) const {
    size_t n = 0;
    for (const Event& e : events) n += e.kind == Ev::kRequest && e.source == src;
    return n;
  }
};

// Whether the test running a scenario has already failed. A test framework
// sets it (conformance/rules.h: GoogleTest's HasFailure), so that a check
// failing inside a driver ends the run at once instead of leaving the
// program waiting for a driver that has given up.
inline std::function<bool()>& TestFailed() {
  static std::function<bool()> f;
  return f;
}

// How long a run may go on once its driver has returned (or, without a
// driver, at all) before it is aborted as a hang. Generous: it only turns a
// hang into a failure that names what it waited for.
constexpr double kRunBoundSeconds = 120;

// The thread that drives a run, and bounds it. It runs `fn` (if any); then,
// if the test has failed, aborts the run at once; otherwise waits for the
// run to return and aborts it after kRunBoundSeconds. Construct it just
// before Runtime::Run and call Returned() just after.
class DriverThread {
 public:
  // On an OSThread (parked for the next run, not ended: under QEMU an
  // ended thread leaks; a fuzz campaign bounds every execution with one).
  DriverThread(Runtime& rt, std::function<void(Runtime&)> fn) : rt_(rt), fn_(std::move(fn)) {
    if (!t_.Start([](void* self) { static_cast<DriverThread*>(self)->Drive(); }, this))
      rt_.Abort("cannot start the thread that bounds the run");
  }
  void Returned() {
    {
      std::lock_guard<std::mutex> lk(mu_);
      returned_.store(true);
    }
    cv_.notify_all();
    t_.Join();
  }
  ~DriverThread() { Returned(); }
  DriverThread(const DriverThread&) = delete;
  DriverThread& operator=(const DriverThread&) = delete;

 private:
  void Drive() {
    if (fn_) fn_(rt_);
    if (TestFailed() && TestFailed()()) {
      rt_.Abort("a check in the test's driver failed (see above); main was still running");
      return;
    }
    // Asleep until the run returns (a condition variable, not a poll: the
    // run's own threads get the CPUs), or the bound.
    bool returned;
    {
      std::unique_lock<std::mutex> lk(mu_);
      returned = cv_.wait_for(lk, std::chrono::duration<double>(kRunBoundSeconds), [&] { return returned_.load(); });
    }
    if (!returned)
      rt_.Abort(std::string(fn_ ? "main did not return within the bound after the driver finished"
                                : "main did not return within the bound") +
                " (" + std::to_string(static_cast<int>(kRunBoundSeconds)) + " s)");
  }
  Runtime& rt_;
  std::function<void(Runtime&)> fn_;
  std::atomic<bool> returned_{false};
  std::mutex mu_;
  std::condition_variable cv_;
  OSThread t_;
};

// Runtime::Run, bounded as a scenario is: a run still going after
// kRunBoundSeconds is aborted ("run aborted: ...") instead of hanging.
// The bound is kept by Run's own thread (Runtime::SetRunBound): no thread
// of its own per run (a DriverThread per run was a thread's start and end,
// two context switches and ten system calls, in every fuzz execution).
inline bool RunBounded(Runtime& rt, const std::string& main, std::string* err) {
  rt.SetRunBound(kRunBoundSeconds);
  bool ok = rt.Run(main, err);
  rt.SetRunBound(0);
  return ok;
}

// Runs `text`'s main.main with `opts`; `driver`, if given, runs on its own
// thread from the start until it returns (Run returns only after both).
// Every run is bounded (DriverThread): a hang fails with "run aborted: ...".
inline Outcome RunScenario(const std::string& text, RuntimeOptions opts,
                           std::function<void(Runtime&)> driver = nullptr) {
  Outcome o;
  ir::Program prog;
  if (!ir::ParseProgram(text, &prog, &o.error)) return o;
  o.rt = std::make_unique<Runtime>(std::move(opts));
  if (!o.rt->Load(prog, &o.error)) return o;
  if (!driver) {
    o.ok = RunBounded(*o.rt, "main.main", &o.error);
  } else {
    DriverThread t(*o.rt, std::move(driver));
    o.ok = o.rt->Run("main.main", &o.error);
    t.Returned();
  }
  o.events = o.rt->events().Snapshot();
  return o;
}

// The goroutine id of the n-th goroutine created (1 is main).
constexpr int64_t kMainG = 1;
constexpr int64_t kFirstG = 2;

}  // namespace safepoint::harness

#endif
