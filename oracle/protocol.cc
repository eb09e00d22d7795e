#include "oracle/protocol.h"

#include <algorithm>
#include <map>
#include <vector>

namespace safepoint::oracle {

namespace {
// State per goroutine or per P, by its id: a vector for the ids a run
// gives (dense, from 0), a map for any other (an event script's). The
// ordered maps and sets this oracle had were a third of a fuzzing
// process's allocations (15 an execution), each event a tree walk.
template <typename T>
class ById {
 public:
  T& operator[](int64_t id) {
    if (id < 0 || id >= kDense) return sparse_[id];
    if (static_cast<size_t>(id) >= dense_.size())
      dense_.resize(std::max<size_t>({static_cast<size_t>(id) + 1, 2 * dense_.size(), 64}));
    return dense_[static_cast<size_t>(id)];
  }
  // Every entry back to T{}.
  void Reset() {
    std::fill(dense_.begin(), dense_.end(), T{});
    sparse_.clear();
  }
  // The least id whose entry is not T{}, or -1.
  int64_t Least() const {
    auto high = sparse_.lower_bound(0);  // the sparse ids below the dense ones, then those above
    for (auto it = sparse_.begin(); it != high; ++it)
      if (!(it->second == T{})) return it->first;
    for (size_t i = 0; i < dense_.size(); i++)
      if (!(dense_[i] == T{})) return static_cast<int64_t>(i);
    for (auto it = high; it != sparse_.end(); ++it)
      if (!(it->second == T{})) return it->first;
    return -1;
  }

 private:
  static constexpr int64_t kDense = 1 << 16;
  std::vector<T> dense_;
  std::map<int64_t, T> sparse_;
};

// A set of ids (ById of flags, with its size).
class IdSet {
 public:
  bool contains(int64_t id) { return flags_[id]; }
  void insert(int64_t id) {
    char& f = flags_[id];
    if (!f) f = 1, n_++;
  }
  bool erase(int64_t id) {
    char& f = flags_[id];
    if (!f) return false;
    f = 0, n_--;
    return true;
  }
  bool empty() const { return n_ == 0; }
  int64_t Least() const { return flags_.Least(); }

 private:
  ById<char> flags_;
  size_t n_ = 0;
};
}  // namespace

ProtocolProblem CheckProtocol(const std::vector<Event>& events) {
  struct PerG {
    bool requested = false;    // a request raised since it last started running
    bool async_stopped = false;  // off its M at an asynchronous safe point
    bool stop_requested = false;  // suspendG asked it to stop while it ran
    bool must_park = false;       // preempted with that request: preemptPark comes next
    bool withdrawn = false;       // suspendG withdrew after that preemption: no park now
    int64_t p = -1;               // the P it last started running on (kResume)
  };
  ById<PerG> gs;
  IdSet global;                 // goroutines on the global run queue, as the events tell
  IdSet taken;                  // taken off it, their execute not yet recorded
  ById<int> others_run;         // per P: executes of others while the global queue waited
  IdSet p_flag;                 // Ps whose preempt flag a request raised since their last execute
  auto at = [](const Event& e) {
    return "goroutine " + std::to_string(e.goid) + ", event #" + std::to_string(e.seq) + " (" + EvName(e.kind) + ")";
  };
  for (const Event& e : events) {
    PerG& g = gs[e.goid];
    // Fairness: the global queue's membership and each P's executes.
    // Both recorded under the scheduler lock with the queue operation, so
    // the events order them as the queue saw them.
    switch (e.kind) {
      case Ev::kGlobalRunq:
        global.insert(e.goid);
        break;
      case Ev::kGlobalRunqGet:
        // The pop, not the execute, ends the wait: execute may wait for a
        // scan bit (a collection's suspendG) before it records kResume, and
        // the other P meanwhile sees an empty queue.
        global.erase(e.goid);
        taken.insert(e.goid);
        others_run[e.arg] = 0;
        if (global.empty()) others_run.Reset();
        break;
      case Ev::kResume:
        if (taken.erase(e.goid)) {
          // The taken goroutine's own schedtick.
        } else if (!global.empty() && ++others_run[e.arg] > kGlobalQueueWaitExecutes) {
          return {"the global run queue starved",
                  at(e) + ": P " + std::to_string(e.arg) + " executed " + std::to_string(others_run[e.arg]) +
                      " goroutines from elsewhere while goroutine " + std::to_string(global.Least()) +
                      " waited on the global run queue (it goes first once in 61)",
                  e.seq};
        }
        if (global.empty()) others_run.Reset();
        break;
      default:
        break;
    }
    switch (e.kind) {
      case Ev::kRequest:
        g.requested = true;
        if (e.source == Source::kSuspendG) g.stop_requested = true;
        if (e.arg >= 0) p_flag.insert(e.arg);
        break;
      case Ev::kPreemptSync:
      case Ev::kPreemptAsync:
        // The P's flag asks the signal handler for whatever goroutine the
        // P runs: an asynchronous preemption may answer a request raised
        // for the goroutine before it there.
        if (!g.requested && !(e.kind == Ev::kPreemptAsync && g.p >= 0 && p_flag.contains(g.p)))
          return {"a preemption without a request",
                  at(e) + ": no request since it last ran, for it or on its P", e.seq};
        g.requested = false;
        if (e.kind == Ev::kPreemptAsync) g.async_stopped = true;
        if (g.stop_requested) g.must_park = true;
        break;
      case Ev::kPreemptPark:
        if (g.withdrawn)
          return {"a park nobody claims",
                  at(e) + ": parked in preemptPark after suspendG withdrew its request", e.seq};
        g.must_park = g.stop_requested = false;
        break;
      case Ev::kSuspendGiveUp:
        // suspendG withdrew (withdrawStop) while the goroutine, preempted,
        // was on its way to preemptPark, which looks again and reschedules
        // it as any preemption: it must not park now.
        if (g.must_park) g.withdrawn = true;
        g.must_park = g.stop_requested = false;
        break;
      case Ev::kSuspend:
      case Ev::kResume:
        if (g.must_park)
          return {"suspendG's request ended without a park",
                  at(e) + ": preempted while suspendG asked it to stop, and not parked in preemptPark", e.seq};
        g.stop_requested = false;  // claimed, withdrawn, or running again
        if (e.kind == Ev::kResume) {
          g.requested = false;  // execute uses the request up, and its P's flag
          g.async_stopped = g.withdrawn = false;
          g.p = e.arg;
          p_flag.erase(e.arg);
        }
        break;
      case Ev::kShrink:
        if (g.async_stopped)
          return {"a stack shrunk at an asynchronous safe point", at(e) + ": stopped by asyncPreempt2, not yet resumed", e.seq};
        break;
      default:
        break;
    }
  }
  return {};
}

}  // namespace safepoint::oracle
