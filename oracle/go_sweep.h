// The judged sweep of a real Go binary (`safepoint go-sweep`): every
// instruction of the chosen functions probed once by realgo/probe.h, each
// verdict judged by the decision oracle fed from the binary's own tables
// (oracle/go_decision.h), each accepted stop by the frame-table oracle fed
// from the binary's pcsp (oracle/frame_table.h through realgo/table.h), and
// each guest run's output and exit status against an unpreempted run's
// (invisibility), and each goroutine seen back at its resume PC with the
// registers it had at the stop (the save area: PortInfo::GoFacts::preserved).
// Counted per function and in total.
#ifndef SAFEPOINT_ORACLE_GO_SWEEP_H_
#define SAFEPOINT_ORACLE_GO_SWEEP_H_

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "oracle/frame_table.h"
#include "platforms/port.h"
#include "realgo/binary.h"
#include "realgo/probe.h"

namespace safepoint::oracle {

// Deliberate mistakes in the judges' inputs, so a test shows each judge
// sees what it must on real Go: the pcsp rows each one instruction late
// (the frame-table oracle must find differences), the unsafe-point table
// read as all safe (the decision oracle must disagree where Go refuses).
enum class GoSweepMutation { kNone, kPcspLate, kUnsafeIgnored };

struct GoSweepOptions {
  GoSweepMutation mutation = GoSweepMutation::kNone;
  std::string binary;                 // the path of the Go binary
  std::string func_regex = "^main\\.";  // the functions probed (ECMAScript regex, searched in the name)
  std::vector<uint64_t> only_pcs;     // non-empty: probe these PCs alone (a finding's replay)
  bool frame_table = true;
  realgo::ProbeOptions probe;
};

struct GoFinding {
  enum Kind { kDecision, kFrameTable, kSaveArea, kOutput, kCrash, kNoHandler, kLost, kTraceback } kind = kDecision;
  uint64_t pc = 0;
  std::string func;     // function+offset
  std::string insn;     // the instruction's text
  std::string message;  // one line
  std::vector<uint64_t> replay;  // the PCs to probe to see it again
};
const char* GoFindingKindName(GoFinding::Kind k);

struct GoCounts {
  size_t insns = 0, probed = 0, accepted = 0, restarted = 0, refused = 0, unreached = 0;
  std::map<std::string, size_t> refused_by;  // rule -> count (as the tables predict, where they agree)
  size_t disagreements = 0, frame_judged = 0, frame_differences = 0, lost = 0;
  // Accepted preemptions whose goroutine was seen back at its resume PC,
  // and those of them with a register asyncPreempt did not give back.
  size_t saved_judged = 0, saved_differences = 0, not_followed = 0;
  // The collector's kind: accepted preemptions whose goroutine came back
  // with its stack scanned by the collector while it was parked there.
  size_t gc_scanned = 0;
  // The traceback stress: accepted preemptions whose guest printed the
  // runtime's traceback there, judged.
  size_t tracebacks = 0;
  void Add(const GoCounts& o);
};

struct GoSweepResult {
  std::string binary, go_version, goarch;
  bool gc_request = false;  // asked as the collector asks (GoRequest::kGC)
  std::vector<std::pair<std::string, GoCounts>> funcs;  // in address order
  GoCounts total;
  size_t runs = 0, output_differences = 0, crashes = 0;
  std::vector<GoFinding> findings;
  std::string fatal;   // could not sweep at all (exit 2)
  double seconds = 0;  // probing and judging time (the unpreempted run not included)
  bool clean() const { return fatal.empty() && findings.empty(); }
};

// The judges of one binary, built once (its frame table, the chosen
// functions' instructions): each probe, each guest run. Used by the sweep
// and by the real-Go fuzzer (one probe per input).
class GoJudge {
 public:
  // False with *err: a binary of another CPU, a bad regex, no function
  // chosen, tables that cannot be read or disassembled.
  bool Init(const realgo::GoBinary& bin, const PortInfo& port, const GoSweepOptions& opt, std::string* err);
  // The decision, the frame table and the save area of one probe (and, for
  // the collector's kind, whether the stack scan met it): counted into c,
  // each finding appended.
  void Probe(const realgo::ProbeResult& r, GoCounts& c, std::vector<GoFinding>& findings) const;
  // A guest run that ended by itself against the unpreempted one (output,
  // exit status, the runtime's crash message); one ended by the traceback
  // stress by its traceback. True with *out: a finding.
  bool Run(const realgo::GuestRun& run, size_t index, const realgo::GuestRun& base, GoFinding* out) const;
  // The traceback stress's guest run (ended by SIGQUIT at probe r): every
  // goroutine's traceback printed, none complaining; the preempted one's
  // frames under runtime.asyncPreempt, PC and SP each, those of the frame
  // table's walk of the same stack.
  bool Traceback(const realgo::ProbeResult& r, const realgo::GuestRun& run, GoFinding* out) const;
  const std::map<uint64_t, std::string>& instructions() const { return insn_text_; }
  const std::vector<const realgo::GoFunc*>& chosen() const { return chosen_; }
  std::string Insn(uint64_t pc) const;

 private:
  const realgo::GoBinary* bin_ = nullptr;
  const PortInfo* port_ = nullptr;
  GoSweepOptions opt_;
  FuncTable table_;
  std::map<uint64_t, std::string> insn_text_;
  std::vector<const realgo::GoFunc*> chosen_;
  uint64_t async_stack_ = 0;
};

using GoSweepProgress = std::function<void(size_t done, size_t total)>;
GoSweepResult RunGoSweep(const realgo::GoBinary& bin, const PortInfo& port, const GoSweepOptions& opt,
                         const GoSweepProgress& progress = nullptr);

std::string GoSweepText(const GoSweepResult& r);
std::string GoSweepJson(const GoSweepResult& r);
// Each finding with the command that replays it alone.
std::string GoFindingsFile(const GoSweepResult& r, const std::string& replay_prefix);

}  // namespace safepoint::oracle

#endif
