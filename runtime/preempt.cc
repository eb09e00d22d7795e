// Cooperative preemption (chapter 9.7.3) and the sysmon source of requests
// (9.7.6).
//
// A request is two triggers set at once by preemptone: gp.preempt, and
// gp.stackguard0 = stackPreempt, a value above every valid stack pointer so
// that the next stack-check prologue is bound to fail. The goroutine then
// enters morestack, switches to g0 and reaches newstack, which tells a
// request from real growth by the sentinel, and:
//
//   1. if canPreemptM fails (runtime locks held, allocating, preemptoff,
//      P not running, no curg, G in a system call), restores the normal
//      bound and resumes the goroutine where it was; gp.preempt stays set
//      and releasem sets stackPreempt again when the last lock goes;
//   2. otherwise marks a synchronous safe point and calls gopreempt_m,
//      which shares goschedImpl with Gosched and puts the G on the global
//      run queue.
//
// The blind spot this leaves is the point of the chapter's first
// experiment: a loop that calls only small-frame leaves (which have no
// check) or nothing at all never reaches newstack. Asynchronous preemption
// (runtime/signal.cc) covers it: preemptone also sends the M a signal.
//
// newstack, where a request is told from growth, is in runtime/stack.cc.
//
// Invariants: every request, skip, deferral, re-arm and acceptance is
// recorded as an event; newstack never holds the scheduler lock across
// gogo.
#include <unistd.h>

#include <chrono>

#include "runtime/runtime.h"
#include "platforms/asm.h"

namespace safepoint {

Reason canPreemptM(const M* mp) {
  if (mp->locks != 0) return Reason::kMLocks;
  if (mp->mallocing != 0) return Reason::kMMallocing;
  if (mp->preemptoff != nullptr && mp->preemptoff[0] != '\0') return Reason::kMPreemptoff;
  if (mp->p == nullptr || mp->p->status.load() != _Prunning) return Reason::kPNotRunning;
  G* gp = mp->curg.load();
  if (gp == nullptr) return Reason::kNoCurg;
  if ((gp->atomicstatus.load() & ~static_cast<uint32_t>(_Gscan)) == _Gsyscall) return Reason::kGSyscall;
  return Reason::kNone;
}

bool Runtime::preemptone(P* pp, Source src) {
  M* mp = pp->m.load();
  // (sysmon's M holds no P: a driven sysmon's pass may run on an M's
  // thread, a test's callback, and is still not that M.)
  M* self = src == Source::kSysmon ? nullptr : CurrentM();
  if (mp == nullptr) {
    events_.Record(Ev::kSkip, 0, Reason::kNoM, 0, pp->id, src);
    return false;
  }
  if (mp == self) {
    events_.Record(Ev::kSkip, 0, Reason::kSelf, 0, pp->id, src);
    return false;
  }
  G* gp = mp->curg.load();
  if (gp == nullptr || gp == mp->g0) {
    events_.Record(Ev::kSkip, 0, Reason::kG0, 0, pp->id, src);
    return false;
  }
  if ((gp->atomicstatus.load() & ~static_cast<uint32_t>(_Gscan)) == _Gsyscall) {
    events_.Record(Ev::kSkip, gp->goid, Reason::kSyscall, 0, pp->id, src);
    return false;
  }
  requestPreemption(mp, pp, gp, 0, src);
  return true;
}

bool Runtime::requestPreemption(M* mp, P* pp, G* gp, uintptr_t pc, Source src) {
  // asynchronous: the P's flag too, and a signal to the M, where the port
  // supports it.
  const bool async = async_supported_ && debug_.asyncpreemptoff == 0;
  {
    // Recorded before it is raised, so that nothing it causes comes first
    // in the log; and with execute kept out between the two, so that a
    // request raised on a stale look at curg (sysmon's, retaking a P
    // whose goroutine was meanwhile preempted and run again) is recorded
    // on the side of kResume it was raised on. Both orders were seen by
    // the one-hour campaign as "a preemption without a request". The P's
    // flag is raised in the same step, against the P's execute: raised
    // after it, it was seen by the fifth hour's campaign (loong64, sysmon)
    // preempting the goroutine that execute had just run there, with the
    // request recorded before that goroutine's kResume. The event's arg
    // names the P whose flag it raised (-1: none).
    RequestOrder order(gp, async ? pp : nullptr);
    events_.Record(Ev::kRequest, gp->goid, Reason::kNone, pc, async && pp ? pp->id : -1, src);
    gp->preempt.store(true);
    gp->stackguard0.store(kStackPreempt);  // synchronous: the next prologue check fails
    if (async && pp) pp->preempt.store(true);
  }
  const bool sent = async ? preemptM(mp) : false;
  if (!sent) KickTrapWaiter(mp);  // (a signal sent has woken it: preemptM)
  return sent;
}

void Runtime::preemptall(Source src) {
  for (auto& p : ps_)
    if (p->status.load() == _Prunning) preemptone(p.get(), src);
}

int Runtime::retake(int64_t now) {
  int retook = 0;
  for (auto& p : ps_) {
    if (p->status.load() != _Prunning) continue;
    uint32_t t = p->schedtick.load();
    if (p->sysmon_tick != t) {
      p->sysmon_tick = t;
      p->sysmon_when = now;
    } else if (p->sysmon_when + kForcePreemptNS * opts_.mutations.force_preempt_scale <= now) {
      events_.Record(Ev::kRetake, 0, Reason::kNone, 0, p->id, Source::kSysmon);
      retook++;
      preemptone(p.get(), Source::kSysmon);
    }
  }
  return retook;
}

void Runtime::SysmonLoop() {
  // Go's sysmon sleeps 20 us, doubling after 1 ms of idleness up to 10 ms.
  int64_t delay = 20;
  int idle = 0;
  while (!sysmon_stop_.load() && !main_done_.load()) {
    SysmonSleep(delay);
    idle++;
    if (idle > 50 && delay < 10000) delay *= 2;
    if (delay > 10000) delay = 10000;
    // (Counted by retake itself: the event log keeps only a run's first
    // events, and reading it back is a copy.)
    if (retake(sysmon_clock_->Now()) > 0) {
      idle = 0;
      delay = 20;
    }
    {
      std::lock_guard<std::mutex> lk(sysmon_mu_);
      sysmon_passes_ended_++;
    }
    sysmon_looked_cv_.notify_all();  // after the lock (kNotifyUnlocked)
  }
  {
    std::lock_guard<std::mutex> lk(sysmon_mu_);
    sysmon_running_ = false;
  }
  sysmon_looked_cv_.notify_all();
}

// Go's usleep(delay), ended early by the run's end or a NudgeSysmon (one
// since sysmon last woke: a nudge that came during its pass is not lost).
// (Only on real time: sysmon on a harness's clock has no loop to sleep in,
// see SysmonLook.)
void Runtime::SysmonSleep(int64_t us) {
  std::unique_lock<std::mutex> lk(sysmon_mu_);
  auto woken = [&] { return sysmon_nudges_ != sysmon_nudges_seen_ || sysmon_stop_.load() || main_done_.load(); };
  sysmon_cv_.wait_for(lk, std::chrono::microseconds(us), woken);
  sysmon_nudges_seen_ = sysmon_nudges_;
  sysmon_passes_begun_++;
}

bool Runtime::SysmonLook(int64_t timeout_ns) {
  if (sysmon_driven()) {
    // One pass, here, as sysmon's M; passes one at a time, and none once
    // the run has ended (Run's end clears sysmon_running_ under the lock).
    // (A harness's clock once made sysmon's thread sleep until asked: its
    // real 20 us sleeps were two context switches each, and an armed
    // sysmon request's run of the built-in program took 176 us natively
    // where preemptone's took 38; the handshake that replaced them still
    // cost 133 us against 49.)
    std::lock_guard<std::mutex> lk(sysmon_mu_);
    if (!sysmon_running_) return false;
    int m, p;
    EventLog::ThreadBinding(&m, &p);
    EventLog::BindThread(opts_.settings.gomaxprocs, -1);
    retake(sysmon_clock_->Now());
    EventLog::BindThread(m, p);
    return true;
  }
  // A pass under way now may have read the clock before this call: the
  // one after it is the look asked for.
  std::unique_lock<std::mutex> lk(sysmon_mu_);
  const uint64_t want = sysmon_passes_begun_ + 1;
  lk.unlock();
  NudgeSysmon();
  lk.lock();
  return sysmon_looked_cv_.wait_for(lk, std::chrono::nanoseconds(timeout_ns),
                                    [&] { return sysmon_passes_ended_ >= want || !sysmon_running_; }) &&
         sysmon_passes_ended_ >= want;
}

void Runtime::NudgeSysmon() {
  {
    std::lock_guard<std::mutex> lk(sysmon_mu_);
    sysmon_nudges_++;
  }
  sysmon_cv_.notify_all();  // after the lock (kNotifyUnlocked)
}

void Runtime::gopreempt_m(G* gp) {
  events_.Record(Ev::kPreemptSync, gp->goid, Reason::kNone, gp->sched.pc);
  goschedImpl(gp);
}

}  // namespace safepoint
