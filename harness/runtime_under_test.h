// A runtime under test: what the harness needs of a goroutine runtime to
// drive it (load a program, arm an instruction, run, read back what
// happened). The reference runtime implements it (NewReferenceRuntime); a
// runtime from outside this tree (the real Go runtime, say) implements the
// same interface, and the sweep, the oracles and the fuzzers judge it
// unchanged.
#ifndef SAFEPOINT_HARNESS_RUNTIME_UNDER_TEST_H_
#define SAFEPOINT_HARNESS_RUNTIME_UNDER_TEST_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/events.h"
#include "core/functab.h"
#include "core/ir.h"
#include "harness/armed.h"
#include "runtime/runtime.h"

namespace safepoint::harness {

// What a program leaves that a user can observe: its globals and its vector
// dump areas. The invisibility oracle compares two of them.
struct EndState {
  std::vector<uint64_t> globals;
  std::vector<uint8_t> vdump;
  bool operator==(const EndState& o) const { return globals == o.globals && vdump == o.vdump; }
};

// What asyncPreempt saved at the armed instruction, next to what the trap's
// signal context held there: the save-area oracle's evidence. Taken at the
// first asynchronous preemption exactly at the armed instruction after it
// trapped (TakeTrapRegisters), before anything else runs on the goroutine.
struct SaveAreaImage {
  bool seen = false;
  std::vector<uint8_t> frame;   // asyncPreempt's frame: PortInfo::async_frame bytes from its SP
  int tier = 0;                 // the extended-state tier asyncPreempt saved (PortInfo::tiers)
  std::vector<uint8_t> xstate;  // that tier's area, as xRegSave moved it into the G
  RegisterImage trap;           // the registers at the trap
};

class RuntimeUnderTest {
 public:
  virtual ~RuntimeUnderTest() = default;
  // Emits and maps the program for the native port.
  virtual bool Load(const ir::Program& prog, std::string* err) = 0;
  // Where the runtime can take a program emitted elsewhere (the reference
  // runtime, kept: Runtime::LoadKeptEmitted): the environment it emits
  // against, and Load with the program emitted against it. A runtime that
  // cannot says false, and is loaded with Load.
  virtual bool EmitEnvironment(EmitEnv* env, std::string* err) {
    (void)env;
    *err = "this runtime under test emits its programs itself";
    return false;
  }
  virtual bool LoadEmitted(const EmitEnv& env, Emitted emitted, std::string* err);
  // True when Load will not emit: the runtime has the program's code (a
  // kept runtime that loaded it before), and Load reads nothing of the
  // program it is given.
  virtual bool HasProgram() const { return false; }
  // Arms the instruction at code offset `off` (armed delivery) before Run;
  // its request comes from request_source() (harness/armed.h).
  virtual bool ArmAt(uint32_t off, std::string* err) = 0;
  virtual RequestSource request_source() const { return RequestSource::kPreemptOne; }
  // After ArmAt, before Run: further points, armed one after another
  // (harness/armed.h's ArmThen). A runtime that cannot chain says so.
  virtual bool ArmThen(const std::vector<ArmPoint>& then, std::string* err) {
    *err = then.empty() ? "" : "this runtime under test arms one point per run";
    return then.empty();
  }
  // Runs `main` until it returns.
  virtual bool Run(const std::string& main, std::string* err) = 0;
  virtual const FuncTable& table() const = 0;
  // The table, shared where the runtime can share it (the reference
  // runtime's is never changed once loaded), else a copy.
  virtual std::shared_ptr<const FuncTable> shared_table() const { return std::make_shared<const FuncTable>(table()); }
  virtual uintptr_t code_base() const = 0;
  // After Load: the tier of extended state (PortInfo::tiers) whose vector
  // registers the loaded program's vfill and vdump reach; -1 when the
  // runtime cannot say.
  virtual int xstate_tier() const { return -1; }
  virtual std::vector<Event> events() const = 0;
  // Events the runtime did not record because its log was full (a log
  // keeps the first events of a run): an oracle that judges an absence
  // cannot judge it past them.
  virtual size_t events_dropped() const { return 0; }
  virtual EndState end_state() const = 0;
  // The save area at the armed instruction (seen false when the run did not
  // preempt there asynchronously, or the runtime cannot show it).
  virtual SaveAreaImage save_area() const { return {}; }
  // The goroutine's stack and registers at point `point`'s trap (0: the
  // armed instruction, n: the chain's nth further point), for the
  // frame-table oracle; seen false when it did not trap or the runtime
  // cannot show it.
  virtual FrameImage trap_frame(size_t point) const {
    (void)point;
    return {};
  }
};

using RuntimeFactory = std::function<std::unique_ptr<RuntimeUnderTest>()>;

// The reference runtime (runtime/) behind the interface, its armed
// instruction's request raised by `src`. `sysmon_clock`: sysmon runs on a
// ManualClock even when `src` is another source (a chain's later point
// asks sysmon).
//
// `keep`: the runtimes this makes are kept across lifetimes in the process
// (a fuzzing process's: harness/reference.cc) instead of ending with the
// object: when one is destroyed after a run, the runtime is Reset
// (Runtime::Reset) and kept; the next one made with the same options key
// takes it, its program still loaded when the program key is the same
// (Load is then nothing), else loads the new program into it. The caller
// promises that one options key means the same opts, src and sysmon_clock,
// and one program key the same program. A runtime whose reset fails is
// destroyed instead, and the counters say why. Empty keys: a fresh runtime
// every time.
struct KeepAs {
  std::string options;
  std::string program;
  bool on() const { return !options.empty(); }
};
std::unique_ptr<RuntimeUnderTest> NewReferenceRuntime(const RuntimeOptions& opts,
                                                      RequestSource src = RequestSource::kPreemptOne,
                                                      bool sysmon_clock = false, KeepAs keep = {});
RuntimeFactory ReferenceRuntimeFactory(RuntimeOptions opts, RequestSource src = RequestSource::kPreemptOne,
                                       bool sysmon_clock = false, KeepAs keep = {});
// What the kept runtimes did in this process: made fresh (none kept for
// the options), reused with their program loaded, reused with the
// program's code shelved in them (Runtime::LoadKept switches back to it),
// reused with another program emitted into them, and reset failures by
// reason (each a runtime destroyed instead of kept).
struct KeptRuntimeCounts {
  long fresh = 0;
  long reused_loaded = 0;
  long reused_shelved = 0;
  long reused_reloaded = 0;
  std::map<std::string, long> reset_failed;
  long failed() const {
    long n = 0;
    for (const auto& [why, k] : reset_failed) n += k;
    return n;
  }
};
KeptRuntimeCounts KeptRuntimeCountsNow();
// The options (KeepAs::options) of the kept runtimes given up since the
// last call (a reset that failed, or more kept than the process keeps):
// the next runtime under those options is made fresh, its data elsewhere,
// so what was emitted against the one given up holds no longer.
std::vector<std::string> TakeGivenUpOptions();
// "runtimes: N made fresh, N reset and reused (N switched back to the
// program's shelved code, N with another program emitted), N
// not reset (why: n, ...)": one line for a fuzzer's report.
std::string KeptRuntimeSummary();

}  // namespace safepoint::harness

#endif
