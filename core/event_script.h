// A log written by hand, for the tests of what reads one (the protocol
// oracle, the judge, the sweep's observation of a point): events in order,
// each one's seq its place, and only the fields a test names, by name:
//
//   EventScript s;
//   s.Add(Ev::kTrap, {.goid = 5, .pc = kPc}).Add(Ev::kRequest, {.source = Source::kArmed});
#ifndef SAFEPOINT_CORE_EVENT_SCRIPT_H_
#define SAFEPOINT_CORE_EVENT_SCRIPT_H_

#include <utility>
#include <vector>

#include "core/events.h"

namespace safepoint {

// An event's fields but its kind; in Event's order, which designated
// initializers follow. A script's goroutine is 1 (main) unless named.
struct EventFields {
  Source source = Source::kNone;
  Reason reason = Reason::kNone;
  int64_t goid = 1;
  uintptr_t pc = 0;
  int64_t arg = 0;
};

struct EventScript {
  std::vector<Event> evs;
  EventScript() = default;
  explicit EventScript(std::vector<Event> from) : evs(std::move(from)) {}  // goes on after a log
  EventScript& Add(Ev kind, EventFields f = {}) {
    Event e{};
    e.seq = evs.size();
    e.kind = kind;
    e.source = f.source;
    e.reason = f.reason;
    e.goid = f.goid;
    e.pc = f.pc;
    e.arg = f.arg;
    e.m = e.p = -1;
    evs.push_back(e);
    return *this;
  }
};

}  // namespace safepoint

#endif
