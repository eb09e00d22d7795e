#include "oracle/protocol.h"

#include <map>
#include <set>

namespace safepoint::oracle {

ProtocolProblem CheckProtocol(const std::vector<Event>& events) {
  struct PerG {
    bool requested = false;    // a request raised since it last started running
    bool async_stopped = false;  // off its M at an asynchronous safe point
    bool stop_requested = false;  // suspendG asked it to stop while it ran
    bool must_park = false;       // preempted with that request: preemptPark comes next
  };
  std::map<int64_t, PerG> gs;
  std::set<int64_t> global;             // goroutines on the global run queue, as the events tell
  std::set<int64_t> taken;              // taken off it, their execute not yet recorded
  std::map<int64_t, int> others_run;    // per P: executes of others while the global queue waited
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
        if (global.empty()) others_run.clear();
        break;
      case Ev::kResume:
        if (taken.erase(e.goid)) {
          // The taken goroutine's own schedtick.
        } else if (!global.empty() && ++others_run[e.arg] > kGlobalQueueWaitExecutes) {
          return {"the global run queue starved",
                  at(e) + ": P " + std::to_string(e.arg) + " executed " + std::to_string(others_run[e.arg]) +
                      " goroutines from elsewhere while goroutine " + std::to_string(*global.begin()) +
                      " waited on the global run queue (it goes first once in 61)"};
        }
        if (global.empty()) others_run.clear();
        break;
      default:
        break;
    }
    switch (e.kind) {
      case Ev::kRequest:
        g.requested = true;
        if (e.source == Source::kSuspendG) g.stop_requested = true;
        break;
      case Ev::kPreemptSync:
      case Ev::kPreemptAsync:
        if (!g.requested) return {"a preemption without a request", at(e) + ": no request since it last ran"};
        g.requested = false;
        if (e.kind == Ev::kPreemptAsync) g.async_stopped = true;
        if (g.stop_requested) g.must_park = true;
        break;
      case Ev::kPreemptPark:
        g.must_park = g.stop_requested = false;
        break;
      case Ev::kSuspend:
      case Ev::kSuspendGiveUp:
      case Ev::kResume:
        if (g.must_park)
          return {"suspendG's request ended without a park",
                  at(e) + ": preempted while suspendG asked it to stop, and not parked in preemptPark"};
        g.stop_requested = false;  // claimed, withdrawn, or running again
        if (e.kind == Ev::kResume) {
          g.requested = false;  // execute uses the request up
          g.async_stopped = false;
        }
        break;
      case Ev::kShrink:
        if (g.async_stopped)
          return {"a stack shrunk at an asynchronous safe point", at(e) + ": stopped by asyncPreempt2, not yet resumed"};
        break;
      default:
        break;
    }
  }
  return {};
}

}  // namespace safepoint::oracle
