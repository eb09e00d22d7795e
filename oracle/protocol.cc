#include "oracle/protocol.h"

#include <map>

namespace safepoint::oracle {

ProtocolProblem CheckProtocol(const std::vector<Event>& events) {
  struct PerG {
    bool requested = false;    // a request raised since it last started running
    bool async_stopped = false;  // off its M at an asynchronous safe point
  };
  std::map<int64_t, PerG> gs;
  auto at = [](const Event& e) {
    return "goroutine " + std::to_string(e.goid) + ", event #" + std::to_string(e.seq) + " (" + EvName(e.kind) + ")";
  };
  for (const Event& e : events) {
    PerG& g = gs[e.goid];
    switch (e.kind) {
      case Ev::kRequest:
        g.requested = true;
        break;
      case Ev::kPreemptSync:
      case Ev::kPreemptAsync:
        if (!g.requested) return {"a preemption without a request", at(e) + ": no request since it last ran"};
        g.requested = false;
        if (e.kind == Ev::kPreemptAsync) g.async_stopped = true;
        break;
      case Ev::kResume:
        g.requested = false;  // execute uses the request up
        g.async_stopped = false;
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
