// The sweep engine (in the manner of .NET's GCStress): preempt at every
// instruction of every function of a program, one at a time, each in a fresh
// runtime under test, by armed delivery, and report what was observed at
// each. It judges nothing: the oracles (oracle/sweep.h) do.
#ifndef SAFEPOINT_HARNESS_SWEEP_H_
#define SAFEPOINT_HARNESS_SWEEP_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/events.h"
#include "core/functab.h"
#include "core/ir.h"
#include "core/position.h"
#include "harness/runtime_under_test.h"
#include "harness/scenario.h"

namespace safepoint::harness {

// The IR position of instruction index k of a loaded program, from the
// emitter's line table only (the decision oracle's input).
IrPosition PositionOf(const ir::Program& prog, const FuncTable& t, size_t k);
// The first instruction of the IR operation instruction k belongs to.
uint32_t OpStart(const FuncTable& t, size_t k);

// What one armed run showed at its instruction.
struct Observation {
  size_t k = 0;             // instruction index in the function table
  uint32_t off = 0;         // its code offset
  std::string func;         // the function holding it
  uint32_t func_entry = 0;  // that function's entry offset
  IrPosition pos;
  bool ran = false;         // the run completed
  std::string run_error;
  bool trapped = false;     // the armed instruction was reached
  bool decided = false;     // the runtime took a decision there
  bool accepted = false;
  bool not_wanted = false;  // the signal found no request to act on
  bool asked = false;       // a request for the trapped goroutine stood when it decided
  uintptr_t pc = 0;         // absolute PC of the instruction
  uintptr_t resume = 0;     // where an accepted preemption resumes
  uintptr_t op_start = 0;   // absolute PC of the operation's first instruction
  uintptr_t entry = 0;      // absolute PC of the function's entry
  Reason reason = Reason::kNone;
  EndState end;
  // The collector's record of the run (events): collections completed,
  // objects freed, and accesses to freed objects (the liveness oracle's
  // evidence; a run with one ends in a fault, so `ran` is false).
  size_t collections = 0, objects_freed = 0, freed_accesses = 0;
  // SP above the goroutine's stack.lo at the armed instruction (-1: not
  // trapped), and every event of the run (the protocol oracle's evidence).
  int64_t stack_room = -1;
  std::vector<Event> events;
  size_t events_dropped = 0;  // not recorded, the log being full: the run went on past `events`
  RequestSource source = RequestSource::kPreemptOne;  // who raised the armed instruction's request
  // Why no source that looks at Ps would have seen the goroutine running at
  // the trap (in a system call, its P not running, no goroutine): kNone if
  // it would.
  Reason unseen = Reason::kNone;
  // What asyncPreempt saved there and what the trap saw (the save-area
  // oracle's evidence; seen only when it was preempted asynchronously there).
  SaveAreaImage save;
  // The goroutine's stack and registers at the trap (the frame-table
  // oracle's evidence), whatever was decided there.
  FrameImage frame;
  // A chain's further points (ChainPoint), each as it showed: its own
  // position, trap and decision (the run's end state, events and save area
  // are the first point's observation's).
  std::vector<Observation> then;
};

// A chain's further point: an instruction index of the baseline's table and
// who raises its request.
struct ChainPoint {
  size_t k = 0;
  RequestSource src = RequestSource::kPreemptOne;
};

struct Baseline {
  EndState end;   // the unpreempted run's
  FuncTable table;
};

// The unpreempted run: its end state and function table. False with *err
// when the program has no `main` or the run fails.
bool RunBaseline(const ir::Program& prog, const std::string& main, const RuntimeFactory& make, Baseline* base,
                 std::string* err);
// One run of `main` armed at instruction k of the baseline's table (a fresh
// runtime from `make`): what happened there. False when instruction k
// belongs to no function (nothing is run).
// `then`: further points armed one after another once k has trapped
// (harness/armed.h's ArmThen); each point's trap is the next kTrap at its PC
// after the one before's, its decision the first at that PC after it.
bool ObserveAt(const ir::Program& prog, const std::string& main, const RuntimeFactory& make, const FuncTable& table,
               size_t k, Observation* o, const std::vector<ChainPoint>& then = {});
// The observation ObserveAt would make at instruction k (and its chain)
// where the program never reaches k: `run`, a completed run of the same
// program under the same runtime settings whose armed instruction was not
// reached either (an unpreempted run, then, as this one would be), with k's
// own place (and its chain's) instead of run's. False when k belongs to no
// function, or `run` is not such a run.
bool ObserveUnreachedAt(const ir::Program& prog, const FuncTable& table, size_t k, const Observation& run,
                        Observation* o, const std::vector<ChainPoint>& then = {});
// Runs `main` once unpreempted, then once armed at each instruction of a
// generated function; calls observe for each. False with *err when the
// program has no `main` or the unpreempted run fails. `proceed`, if given,
// is asked before each instruction (done, total) and stops the sweep when
// it returns false.
// The sweep never hangs: each run is bounded (kRunBoundSeconds, a run that
// does not end is a failed run at its instruction), and a watchdog ends the
// process when no instruction has finished for `stall_seconds` (the harness
// itself, or a runtime under test that does not honour its bound, stuck):
// one line on stderr naming the program's instruction it was at, then exit
// status 1. 0: no watchdog.
constexpr double kSweepStallSeconds = kRunBoundSeconds + 60;
bool SweepEngine(const ir::Program& prog, const std::string& main, const RuntimeFactory& make, Baseline* base,
                 const std::function<void(const Observation&)>& observe, std::string* err,
                 const std::function<bool(size_t, size_t)>& proceed = nullptr,
                 double stall_seconds = kSweepStallSeconds);

// The built-in program: every IR operation kind, all registers live.
const std::string& BuiltinSweepProgram();
// The built-in program of the collection sweep: objects reachable only from
// a register, the interrupted frame, its outgoing-argument area, a declared
// pointer slot of a caller, another object and a vector register in the
// middle of a block copy, each read back at the end into the globals.
const std::string& BuiltinHeapSweepProgram();
// The collection sweep's runtime: a whole collection while each accepted
// asynchronous preemption holds its goroutine, and a first stack large
// enough that the collector's shrink has room to halve it (so the stack
// moves at the next prologue).
void CollectAtEveryPreemption(RuntimeOptions* o);

}  // namespace safepoint::harness

#endif
