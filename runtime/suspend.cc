// suspendG, preemptPark and resumeG (chapter 9.7.6): the third source of
// preemption requests. The collector (and the execution tracer) pause
// goroutines one at a time to scan their stacks, without stopping the
// world.
//
// For a running goroutine suspendG sets preemptStop, preempt and
// stackPreempt, sends preemptM at most once every 5 us (on the injectable
// clock, so a test can pin the interval) and only when the last signal has
// been handled, and spins. The goroutine reaches its next safe point,
// synchronous (newstack) or asynchronous (asyncPreempt2), sees preemptStop
// and parks in preemptPark: _Gpreempted, on no run queue. suspendG moves it
// to _Gwaiting and holds the scan bit; resumeG drops the bit and readies
// it. A goroutine already at a blocking safe point (_Grunnable, _Gwaiting,
// _Gsyscall) is never preempted: suspendG only takes its scan bit, and the
// goroutine's own next status change (execute, ready, exitsyscall) waits
// in casgstatus until resumeG drops it.
//
// stopTheWorldWithSema and forEachP never set preemptStop: the goroutines
// they stop go back on a run queue through gopreempt_m (runtime/stw.cc).
#include <sched.h>

#include "runtime/runtime.h"

namespace safepoint {

G* Runtime::FindG(int64_t goid) {
  std::lock_guard<std::mutex> lk(mu_);
  for (auto& g : allgs_)
    if (g->goid == goid) return g.get();
  return nullptr;
}

Runtime::SuspendState Runtime::suspendG(G* gp, int64_t bound_ns) {
  SuspendState st;
  st.g = gp;
  suspending_.fetch_add(1);
  bool stopped = false;
  M* asyncM = nullptr;
  uint32_t asyncGen = 0;
  int64_t nextPreemptM = 0;
  bool requested = false;
  int64_t sent = 0;
  const int64_t start = MonotonicNanos();
  const int64_t deadline = start + bound_ns;
  int64_t next_yield = start + kSuspendYieldDelayNS;
  for (;;) {
    uint32_t s = gp->atomicstatus.load();
    switch (s) {
      case _Gdead:
        // Nothing to scan; nothing held.
        events_.Record(Ev::kSuspend, gp->goid, Reason::kNone, 0, s, Source::kSuspendG);
        st.dead = true;
        suspending_.fetch_sub(1);
        return st;
      case _Gpreempted: {
        // It parked for us (or for an earlier suspendG): claim it.
        uint32_t e = _Gpreempted;
        if (!gp->atomicstatus.compare_exchange_strong(e, _Gwaiting)) break;
        stopped = true;
        s = _Gwaiting;
        [[fallthrough]];
      }
      case _Grunnable:
      case _Gsyscall:
      case _Gwaiting: {
        uint32_t e = s;
        if (!gp->atomicstatus.compare_exchange_strong(e, s | _Gscan)) break;
        // The scan bit makes the stack ours: the request can go.
        gp->preemptStop.store(false);
        gp->preempt.store(false);
        gp->stackguard0.store(gp->stack.lo + kStackGuard);
        events_.Record(Ev::kSuspend, gp->goid, Reason::kNone, 0, stopped ? _Gpreempted : s, Source::kSuspendG);
        st.stopped = stopped;
        st.held = true;
        return st;
      }
      case _Grunning: {
        // Already asked, and the last signal not handled yet: wait.
        if (gp->preemptStop && gp->preempt.load() && gp->stackguard0.load() == kStackPreempt && asyncM != nullptr &&
            asyncM == gp->m && asyncM->preemptGen.load() == asyncGen)
          break;
        uint32_t e = _Grunning;
        if (!gp->atomicstatus.compare_exchange_strong(e, _Grunning | _Gscan)) break;
        M* m2 = gp->m;
        // Recorded before it is raised: nothing it causes comes first in
        // the log (runtime/preempt.cc's requestPreemption); and, as there,
        // in one step against execute's use of it: execute makes the G
        // _Grunning before it clears the request and records kResume, and
        // a request raised in between was recorded before that kResume and
        // outlived it (the sixth one-hour campaign's loong64 "a preemption
        // without a request", suspendG with a collection at the preemption).
        {
          RequestOrder order(gp, nullptr);
          // A request the goroutine used up (it ran again: execute clears
          // preempt) is raised anew, and recorded anew.
          const bool standing = gp->preempt.load() && gp->stackguard0.load() == kStackPreempt;
          if (!requested || !standing) {
            events_.Record(Ev::kRequest, gp->goid, Reason::kNone, 0, -1, Source::kSuspendG);  // no P's flag
            requested = true;
          }
          if (opts_.hooks.suspend_before_raise) opts_.hooks.suspend_before_raise(*this, gp);
          if (!opts_.mutations.suspend_no_preempt_stop) gp->preemptStop.store(true);
          gp->preempt.store(true);
          gp->stackguard0.store(kStackPreempt);
        }
        uint32_t gen2 = m2 ? m2->preemptGen.load() : 0;
        bool needAsync = asyncM != m2 || asyncGen != gen2;
        asyncM = m2;
        asyncGen = gen2;
        gp->atomicstatus.store(_Grunning);
        bool signalled = false;  // (a signal sent has woken a trap handler waiting on m2)
        if (async_supported_ && debug_.asyncpreemptoff == 0 && needAsync && m2 != nullptr) {
          int64_t now = clock_->Now();
          if (now >= nextPreemptM) {
            nextPreemptM = now + kSuspendPreemptMNS;
            signalled = preemptM(m2);
            sent++;
          }
        }
        if (!signalled) KickTrapWaiter(m2);
        break;
      }
      default:
        break;  // someone else holds the scan bit, or a status in transition
    }
    const int64_t now = MonotonicNanos();
    if (now > deadline || faulted_.load() || stopping_.load()) {
      // The harness's bound (Go would spin on): withdraw, so that the G does
      // not park with nobody to resume it, and say so. Likewise once the
      // run has ended: a goroutine whose M faulted never stops, and Go's
      // process would be gone (the requester's suspendG waited out its
      // 30 s bound after a Go 1.26 liveness fault: the one-hour campaign's
      // riscv64 slow unit, with a collection at the preemption). Too late
      // if it parked for us meanwhile: then it is claimed as ever.
      if (!withdrawStop(gp)) continue;
      events_.Record(Ev::kSuspendGiveUp, gp->goid, Reason::kNone, 0, sent, Source::kSuspendG);
      suspending_.fetch_sub(1);
      std::lock_guard<std::mutex> lk(mu_);
      idle_cv_.notify_all();
      return st;
    }
    // Go's pacing: spin for yieldDelay (10 us), then yield the thread, then
    // spin half as long between yields. (Yielding only after 64 turns of
    // the loop spun for 64 of its clock reads first: under QEMU each an
    // emulated system call, 100 us or more a wait on one CPU, where the
    // goroutine's M cannot run until the spinner yields.)
    if (now >= next_yield) {
      sched_yield();
      next_yield = MonotonicNanos() + kSuspendYieldDelayNS / 2;
    }
  }
}

bool Runtime::withdrawStop(G* gp) {
  for (;;) {
    uint32_t s = gp->atomicstatus.load();
    if (s == _Gpreempted || s == (_Gpreempted | _Gscan)) return false;
    if (s == (_Grunning | _Gscan)) {  // another's request or preemptPark's own step: a moment
      sched_yield();
      continue;
    }
    if (s == _Grunning) {
      // preemptPark's step from _Grunning waits while we hold the bit, and
      // looks at preemptStop again after it.
      uint32_t e = _Grunning;
      if (!gp->atomicstatus.compare_exchange_strong(e, _Grunning | _Gscan)) continue;
      gp->preemptStop.store(false);
      gp->atomicstatus.store(_Grunning);
      return true;
    }
    // Not running: not on its way to preemptPark.
    gp->preemptStop.store(false);
    return true;
  }
}

void Runtime::resumeG(const SuspendState& s) {
  if (s.dead || !s.held) return;
  G* gp = s.g;
  uint32_t st = gp->atomicstatus.load();
  gp->atomicstatus.store(st & ~static_cast<uint32_t>(_Gscan));
  events_.Record(Ev::kResumeG, gp->goid, Reason::kNone, 0, s.stopped ? 1 : 0, Source::kSuspendG);
  // _Gwaiting to _Grunnable before taking the scheduler's lock: another
  // suspendG may take the scan bit the moment it drops, and casgstatus
  // waits for it to go; that suspendG's caller (a collection stopping the
  // world) may need the lock first. (Found by //fuzz:preempt_fuzz, suspendG
  // as the armed request's source with a collection at the preemption:
  // resumeG spun in ready() holding the lock the collector waited for.)
  if (s.stopped) casgstatus(gp, _Gwaiting, _Grunnable);
  std::lock_guard<std::mutex> lk(mu_);
  if (s.stopped) enqueueReady(gp);
  suspending_.fetch_sub(1);
  idle_cv_.notify_all();  // an idle M looks again (work, or now a deadlock)
}

void Runtime::preemptPark(G* gp, bool async) {
  if (opts_.hooks.before_preempt_park) opts_.hooks.before_preempt_park(*this, gp);
  M* m = gp->m;
  casgstatus(gp, _Grunning, _Gpreempted | _Gscan);
  if (!gp->preemptStop.load()) {
    // suspendG withdrew (withdrawStop) after our caller looked: nobody
    // would claim a parked G. An ordinary preemption, then.
    gp->atomicstatus.store(_Grunning);
    if (async) goschedImpl(gp);
    gopreempt_m(gp);
  }
  events_.Record(Ev::kPreemptPark, gp->goid, Reason::kNone, gp->sched.pc, async ? 1 : 0);
  mu_.lock();
  dropg(m);
  mu_.unlock();
  gp->atomicstatus.store(_Gpreempted);
  if (gp->gc_park) {
    gp->gc_park = false;
    // The collector's worker starts with the run's first collection, as
    // Go's mark workers do (gcBgMarkStartWorkers): started with every run
    // of a collecting runtime, it was a thread's start and end, four
    // context switches on one CPU, in the runs that never collected (two
    // in five of a fuzzing process's runs that may).
    StartGCWorker();
    gcRequestAtAsyncPreempt(gp);
  }
  schedule(m);
}

}  // namespace safepoint
