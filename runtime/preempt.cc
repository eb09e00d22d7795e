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
  M* self = CurrentM();
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
  gp->preempt.store(true);
  gp->stackguard0.store(kStackPreempt);  // synchronous: the next prologue check fails
  events_.Record(Ev::kRequest, gp->goid, Reason::kNone, 0, pp->id, src);
  // asynchronous: a signal to the M, where the port supports it.
  if (async_supported_ && debug_.asyncpreemptoff == 0) {
    pp->preempt.store(true);
    preemptM(mp);
  }
  return true;
}

void Runtime::preemptall(Source src) {
  for (auto& p : ps_)
    if (p->status.load() == _Prunning) preemptone(p.get(), src);
}

void Runtime::retake(int64_t now) {
  for (auto& p : ps_) {
    if (p->status.load() != _Prunning) continue;
    uint32_t t = p->schedtick.load();
    if (p->sysmon_tick != t) {
      p->sysmon_tick = t;
      p->sysmon_when = now;
    } else if (p->sysmon_when + kForcePreemptNS <= now) {
      events_.Record(Ev::kRetake, 0, Reason::kNone, 0, p->id, Source::kSysmon);
      preemptone(p.get(), Source::kSysmon);
    }
  }
}

void Runtime::SysmonLoop() {
  // Go's sysmon sleeps 20 us, doubling after 1 ms of idleness up to 10 ms.
  int64_t delay = 20;
  int idle = 0;
  while (!sysmon_stop_.load() && !main_done_.load()) {
    usleep(static_cast<useconds_t>(delay));
    idle++;
    if (idle > 50 && delay < 10000) delay *= 2;
    if (delay > 10000) delay = 10000;
    size_t before = events_.Count(Ev::kRetake);
    retake(clock_->Now());
    if (events_.Count(Ev::kRetake) != before) {
      idle = 0;
      delay = 20;
    }
  }
}

void Runtime::gopreempt_m(G* gp) {
  events_.Record(Ev::kPreemptSync, gp->goid, Reason::kNone, gp->sched.pc);
  goschedImpl(gp);
}

void Runtime::newstack(G* gp) {
  M* thism = gp->m;
  if (thism == nullptr || thism->curg.load() != gp) Throw("newstack: not on the M's curg");
  bool preempt = gp->stackguard0.load() == kStackPreempt;
  if (preempt) {
    Reason why = canPreemptM(thism);
    if (why != Reason::kNone) {
      // Not a good time: restore the normal bound and let the goroutine go
      // on. gp.preempt stays set; releasem re-arms stackPreempt.
      gp->stackguard0.store(gp->stack.lo + kStackGuard);
      events_.Record(Ev::kDeferred, gp->goid, why, gp->sched.pc);
      sp_gogo(&gp->sched);
    }
  }
  if (gp->sched.sp < gp->stack.lo || gp->sched.sp > gp->stack.hi) Throw("newstack: sp out of the goroutine stack");
  if (preempt) {
    gp->syncSafePoint = true;
    // preemptShrink and preemptStop are acted on here once stack scanning
    // exists; neither is set by any source yet.
    gopreempt_m(gp);
  }
  // Real growth: twice the size, copied.
  size_t oldsize = gp->stack.hi - gp->stack.lo;
  size_t newsize = oldsize * 2;
  if (newsize > kStackMax) Throw("stack overflow: goroutine stack exceeds the limit");
  copystack(gp, newsize);
  events_.Record(Ev::kGrow, gp->goid, Reason::kNone, gp->sched.pc, static_cast<int64_t>(newsize));
  gp->stackguard0.store(gp->preempt.load() ? kStackPreempt : gp->stack.lo + kStackGuard);
  sp_gogo(&gp->sched);
}

}  // namespace safepoint

namespace safepoint {

// --- stop-the-world and forEachP (9.7.6) -----------------------------------

void Runtime::SchedSafePoints(M* m) {
  P* pp = m->p;
  if (safe_point_fn_ && safe_point_pending_[pp->id]) {
    safe_point_pending_[pp->id] = false;
    safe_point_fn_(pp);
    events_.Record(Ev::kSafePointFn, 0, Reason::kNone, 0, pp->id);
    safe_point_left_.fetch_sub(1);
    stw_cv_.notify_all();
  }
  if (!gcwaiting_.load()) return;
  pp->status.store(_Pgcstop);
  stw_cv_.notify_all();
  std::unique_lock<std::mutex> lk(mu_, std::adopt_lock);
  while (gcwaiting_.load() && !stopping_.load()) idle_cv_.wait(lk);
  lk.release();
  pp->status.store(_Prunning);
}

int Runtime::stopTheWorldWithSema() {
  gcwaiting_.store(true);
  int rounds = 0;
  std::unique_lock<std::mutex> lk(mu_);
  for (;;) {
    int stopped = 0;
    for (auto& p : ps_) {
      uint32_t st = p->status.load();
      // An idle P has no M: its M takes it back only under mu_, and stops
      // at SchedSafePoints before running anything.
      stopped += st == _Pgcstop || (st == _Pidle && p->m.load() == nullptr);
    }
    if (stopped == static_cast<int>(ps_.size())) break;
    lk.unlock();
    preemptall(Source::kPreemptAll);
    rounds++;
    events_.Record(Ev::kSTWRound, 0, Reason::kNone, 0, rounds);
    lk.lock();
    stw_cv_.wait_for(lk, std::chrono::microseconds(100));  // retry every 100 us
  }
  events_.Record(Ev::kSTWDone, 0, Reason::kNone, 0, rounds);
  return rounds;
}

void Runtime::startTheWorld() {
  std::lock_guard<std::mutex> lk(mu_);
  gcwaiting_.store(false);
  idle_cv_.notify_all();
}

void Runtime::forEachP(const std::function<void(P*)>& fn) {
  std::unique_lock<std::mutex> lk(mu_);
  safe_point_fn_ = fn;
  safe_point_pending_.assign(ps_.size(), true);
  safe_point_left_.store(static_cast<int>(ps_.size()));
  // Idle Ps run it now, on their behalf.
  for (auto& p : ps_) {
    if (p->m.load() == nullptr && p->status.load() == _Pidle) {
      safe_point_pending_[p->id] = false;
      fn(p.get());
      events_.Record(Ev::kSafePointFn, 0, Reason::kNone, 0, p->id);
      safe_point_left_.fetch_sub(1);
    }
  }
  while (safe_point_left_.load() > 0) {
    lk.unlock();
    preemptall(Source::kPreemptAll);
    lk.lock();
    stw_cv_.wait_for(lk, std::chrono::microseconds(100));
  }
  safe_point_fn_ = nullptr;
}

}  // namespace safepoint
