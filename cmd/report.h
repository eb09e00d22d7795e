// What `safepoint run` says happened: the program's globals, what the
// runtime did per goroutine and in total (preemptions, restarts, deferrals,
// refusals by rule, stack growths), and the event stream with each event's
// M, P, G and the function and IR source line of its PC. One report, two
// spellings: text for people, JSON for programs (--json).
#ifndef SAFEPOINT_CMD_REPORT_H_
#define SAFEPOINT_CMD_REPORT_H_

#include <cstdint>
#include <cstdio>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "core/events.h"
#include "core/ir.h"
#include "runtime/runtime.h"

namespace safepoint::cmd {

struct RunCounts {
  size_t sync = 0, async = 0, restarts = 0, deferred = 0, grows = 0;
  std::map<std::string, size_t> refused;  // rule name -> count
  bool empty() const { return sync + async + restarts + deferred + grows + refused.size() == 0; }
};

// Where a PC is: "" for no PC; the function, the offset from its entry and
// the IR line of the operation it lowers (0: not in an operation, such as a
// prologue, or in a runtime stub with no source line).
struct PcPlace {
  std::string func;
  uint32_t offset = 0;
  int line = 0;
};

struct EventRow {
  Event e;
  int64_t t_ns = 0;  // since the first event
  PcPlace where;
  PcPlace resume;  // async-accept: where the goroutine resumes (its arg)
};

struct RunReport {
  std::string program;  // the file as given
  std::string port;
  int gomaxprocs = 1;
  std::string outcome = "ok";  // ok | failed | fatal
  std::string error;
  std::vector<std::pair<int, uint64_t>> globals;  // the non-zero ones
  std::map<int64_t, RunCounts> per_goroutine;     // goroutines that had something happen
  RunCounts total;
  int abandoned_ms = 0;
  size_t dropped_events = 0;
  bool with_events = false;
  std::vector<EventRow> events;
};

// Builds the report of a finished Run (ok says how it ended; err its error).
RunReport BuildReport(Runtime& rt, const ir::Program& prog, bool ok, const std::string& err);
PcPlace PlaceOf(const Runtime& rt, const ir::Program& prog, uintptr_t pc);

void PrintText(const RunReport& r, FILE* out);
void PrintJson(const RunReport& r, FILE* out);

}  // namespace safepoint::cmd

#endif
