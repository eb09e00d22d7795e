// Stop-the-world and forEachP (chapter 9.7.6): the two requests that need
// every P, not one goroutine. stopTheWorldWithSema sets gcwaiting and asks
// every running goroutine to stop with preemptall, again every 100 us until
// each P has stopped in schedule(); forEachP runs a function on every P at
// its next safe point, or on its behalf for a P idle or in a system call.
// Neither sets preemptStop: a goroutine stopped for either goes back on a
// run queue, unlike one suspendG parks for a scan.
#include <chrono>

#include "runtime/runtime.h"

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

int Runtime::stopTheWorldWithSema(int max_rounds) {
  gcwaiting_.store(true);
  int rounds = 0;
  std::unique_lock<std::mutex> lk(mu_);
  auto all_stopped = [&] {
    int stopped = 0;
    for (auto& p : ps_) {
      uint32_t st = p->status.load();
      // An idle P has no M: its M takes it back only under mu_, and stops
      // at SchedSafePoints before running anything.
      stopped += st == _Pgcstop || (st == _Pidle && p->m.load() == nullptr);
    }
    return stopped == static_cast<int>(ps_.size());
  };
  // Given up at its round bound, or when the run ends (Run's stop, a
  // fault): what it waited for will not come, and the collector that
  // asked must finish for the run to end.
  auto ending = [&] { return stopping_.load() || faulted_.load(); };
  while (!all_stopped()) {
    if ((max_rounds > 0 && rounds >= max_rounds) || ending()) {
      events_.Record(Ev::kSTWGiveUp, 0, Reason::kNone, 0, rounds);
      return -1;
    }
    lk.unlock();
    preemptall(Source::kPreemptAll);
    rounds++;
    int64_t at = clock_->Now();
    events_.Record(Ev::kSTWRound, 0, Reason::kNone, 0, rounds);
    lk.lock();
    // Again every 100 us on sysmon's clock (injectable, so a test drives
    // it), or as soon as the last P stops.
    while (!all_stopped() && clock_->Now() - at < kStwRetryNS && !ending())
      stw_cv_.wait_for(lk, std::chrono::microseconds(100));
  }
  events_.Record(Ev::kSTWDone, 0, Reason::kNone, 0, rounds);
  return rounds;
}

void Runtime::startTheWorld() {
  {
    std::lock_guard<std::mutex> lk(mu_);
    gcwaiting_.store(false);
  }
  idle_cv_.notify_all();  // after the lock (runtime.h: kNotifyUnlocked)
}

bool Runtime::forEachP(const std::function<void(P*)>& fn, int64_t bound_ns) {
  const int64_t deadline = MonotonicNanos() + bound_ns;
  std::unique_lock<std::mutex> lk(mu_);
  safe_point_fn_ = fn;
  safe_point_pending_.assign(ps_.size(), true);
  safe_point_left_.store(static_cast<int>(ps_.size()));
  // The function run on a P's behalf (under mu_), not at its safe point.
  auto on_behalf = [&](P* p) {
    safe_point_pending_[p->id] = false;
    fn(p);
    events_.Record(Ev::kSafePointFn, 0, Reason::kNone, 0, p->id);
    safe_point_left_.fetch_sub(1);
  };
  // Idle Ps run it now, on their behalf.
  for (auto& p : ps_)
    if (p->m.load() == nullptr && p->status.load() == _Pidle) on_behalf(p.get());
  while (safe_point_left_.load() > 0) {
    // Ps in a system call are taken (_Psyscall to _Pidle) and have the
    // function run on their behalf, as Go's forEachP does through handoffp,
    // instead of waiting for the call to return: the goroutine's M takes
    // its P back in exitsyscall. Every round, for a P that entered one
    // since. (Waiting, a goroutine held in a system call held forEachP to
    // its bound: a fuzz campaign's 30 s input, whose call was held by a
    // chained point's trap.)
    for (auto& p : ps_) {
      uint32_t st = _Psyscall;
      if (!safe_point_pending_[p->id] || !p->status.compare_exchange_strong(st, _Pidle)) continue;
      p->syscalltick.fetch_add(1);
      on_behalf(p.get());
    }
    if (safe_point_left_.load() == 0) break;
    if (main_done_.load() || stopping_.load() || faulted_.load() || MonotonicNanos() > deadline) {
      events_.Record(Ev::kSafePointGiveUp, 0, Reason::kNone, 0, safe_point_left_.load());
      safe_point_fn_ = nullptr;
      return false;
    }
    lk.unlock();
    preemptall(Source::kPreemptAll);
    lk.lock();
    stw_cv_.wait_for(lk, std::chrono::microseconds(100));
  }
  safe_point_fn_ = nullptr;
  return true;
}

}  // namespace safepoint
