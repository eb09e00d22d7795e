// The case executor's protocol: how the preemption fuzzer, a native x86-64
// libFuzzer target, runs its cases on another port's reference runtime, in a
// persistent case executor (fuzz/case_executor.cc, built for that port's
// config and started once through the runner, under the port's QEMU). Only
// the runtime's runs are emulated: libFuzzer, the generator, the parse the
// judges read, the prediction of the end state, the judges and the
// features run natively (ARCHITECTURE.md, "The preemption fuzzer drives
// an emulated port's runtime through an executor").
//
// The driver's side is a harness::RuntimeUnderTest (RemoteRuntimeFactory
// below) that oracle::RunCase drives as it drives the reference runtime in
// its own process: Load, ArmAt, ArmThen and Run are recorded and sent as
// one request at Run; a Load whose function table the driver does not
// have yet asks for it first. The executor makes the same runtime RunCase
// would (oracle::CaseOptions of the settings byte, the mutation by name,
// the request's source, sysmon's clock, kept by the same key), runs it,
// and sends back everything the observation reads.
//
// Frames, the hello and the byte I/O are the verdict executor's
// (fuzz/verdict_protocol.h: its magic and version), with kinds of their
// own and payloads of up to kMaxCasePayload. Integers little-endian; an
// event is sent as the record all ports lay it out as (little-endian LP64:
// checked at compile time), the rest field by field.
//
// Requests, kLoad and kRun, one payload:
//   u8 settings   a case's byte 0 (oracle/preempt_case.h)
//   u8 flags      kSysmonClock, kArmed (ArmAt was called), kArmThen
//   string keep   the kept-runtime key (harness::KeepAs::options; empty: a
//                 fresh runtime); the program's text is its program key
//   string mutation  a harness/mutations.h name, or empty
//   string program   the program's text (core/ir.h)
//   string ir        the same program as its fields (EncodeProgram, below),
//                    or empty: the executor reads it instead of parsing the
//                    text (a generated program's parse took ~215 us under
//                    qemu-aarch64; the driver has it parsed and validated)
//   string main      the function Run runs (kRun; empty for kLoad)
//   u32 armed     the armed code offset (0 unless kArmed)
//   u32 n, n x (u32 offset, u8 source): the chain (ArmThen's points)
//   with kEmitted (kRun only): the program as the driver emitted it for
//                 the executor's port: the environment it emitted against
//                 (an EmitEnv but its port), bytes code, u32 goexit
//                 offset, the function table as emitted (before the
//                 options' edits, Runtime::EditTable)
// Responses:
//   kLoaded (to kLoad): u8 ok, string error, u64 code base, i32 extended
//     state tier, u8 has env + the environment the runtime that answered
//     emits against (when it can say: a kept runtime), u32 n + n strings:
//     the options of the kept runtimes given up since the last response
//     (harness::TakeGivenUpOptions), then the function table (when ok)
//   kRan (to kRun): u8 ok (Load, ArmAt, ArmThen and Run all succeeded),
//     string error, u8 request source, u64 code base, i32 tier, u8 where
//     the program's code came from (CodeFrom), u8 has env + the runtime's
//     environment (when the program was new to it, and it can say), the
//     kept runtimes given up (as kLoaded's), u64 events dropped, u32 n + n event records, the end state (when ok), the
//     save area, u32 n + n frame images (point 0, then the chain's)
//   kRefused: string why: a request the executor could not read or make a
//     runtime for (the driver's bug, never the runtime's)
//
// Emission. A program new to the executor is emitted by the driver, natively
// (the emitter is host-neutral: platforms/emitter.h), against the
// environment the executor last reported for its kept runtime of the same
// options, and travels with the program's first run: its Load asks
// nothing. Under QEMU a load request cost about a run (a round trip, the
// emission, a table sent back). The first program under some options is
// asked for with kLoad, and the executor emits it, as in-process; so does
// a program whose runtime's environment the driver does not know. Each
// response names the kept runtimes the executor gave up (a reset that
// failed, or more than 64 kept): the driver forgets their environments
// and the tables it had for them, so that an emission always goes to the
// runtime it was made for (the executor checks, and the driver stops
// with a message if not).
//
// Failures. A fatal error in a run ends the executor (as it ends the
// fuzzing process when in-process): the driver reads end of file, says so
// with how the executor ended, and aborts, so that libFuzzer keeps the
// input. The executor's standard error is the driver's: its fatal error's
// message is in the campaign's log above the driver's line.
#ifndef SAFEPOINT_FUZZ_CASE_PROTOCOL_H_
#define SAFEPOINT_FUZZ_CASE_PROTOCOL_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/events.h"
#include "core/functab.h"
#include "fuzz/executor_process.h"
#include "harness/armed.h"
#include "harness/runtime_under_test.h"
#include "oracle/preempt_case.h"
#include "platforms/emitter.h"

namespace safepoint::fuzz::cases {

enum Kind : uint16_t { kLoad = 16, kRun = 17, kLoaded = 16, kRan = 17, kRefused = 18 };
enum Flags : uint8_t { kSysmonClock = 1, kArmed = 2, kArmThen = 4, kEmitted = 8, kFlagsMask = 15 };
constexpr uint32_t kMaxCasePayload = 64u << 20;

struct Request {
  uint8_t settings = 0;
  uint8_t flags = 0;
  std::string keep;
  std::string mutation;
  std::string program;
  std::string ir;
  std::string main;
  uint32_t armed = 0;
  std::vector<harness::ArmPoint> then;
  EmitEnv env;      // with kEmitted
  Emitted emitted;  // with kEmitted
};

struct Loaded {
  bool ok = false;
  std::string error;
  uint64_t code_base = 0;
  int tier = -1;
  bool has_env = false;
  EmitEnv env;
  std::vector<std::string> given_up;  // harness::TakeGivenUpOptions after the request
  FuncTable table;  // (when ok)
};

// Where a run's program code came from.
enum CodeFrom : uint8_t {
  kHad = 0,           // the runtime had it (loaded before, or shelved)
  kInstalled = 1,     // the request's emission
  kEmittedThere = 2,  // the executor emitted it (no emission came, or its environment was not the runtime's)
  kNotLoaded = 3,     // the load failed
};

struct Ran {
  bool ok = false;
  std::string error;
  harness::RequestSource source = harness::RequestSource::kPreemptOne;
  uint64_t code_base = 0;
  int tier = -1;
  CodeFrom code = kHad;
  bool has_env = false;
  EmitEnv env;
  std::vector<std::string> given_up;  // harness::TakeGivenUpOptions after the request
  uint64_t dropped = 0;
  std::vector<Event> events;
  harness::EndState end;
  harness::SaveAreaImage save;
  std::vector<harness::FrameImage> frames;
};

// A parsed program as its fields, every one (a request's `ir`), and back:
// false with *err when the bytes are no program. The program read back is
// the one written, not validated again.
std::string EncodeProgram(const ir::Program& p);
bool DecodeProgram(std::string_view bytes, ir::Program* p, std::string* err);

// Whole frames.
std::string EncodeRequest(Kind kind, const Request& q);
// (With `table`, that table instead of l.table: the executor's, not copied.)
std::string EncodeLoaded(const Loaded& l, const FuncTable* table = nullptr);
std::string EncodeRan(const Ran& r);
std::string EncodeRefused(std::string_view why);
// Payloads: false with *err when malformed.
bool DecodeRequest(std::string_view payload, Request* q, std::string* err);
bool DecodeLoaded(std::string_view payload, Loaded* l, std::string* err);
bool DecodeRan(std::string_view payload, Ran* r, std::string* err);

// The executor's side: the response frame to one request (kLoad or kRun),
// answered on this process's reference runtime.
std::string Answer(uint16_t kind, std::string_view payload);
// Reads requests from `in` and answers each on `out` until end of file:
// 0 then, 3 after a header that is no frame of this protocol, 1 when `out`
// cannot be written.
int Serve(int in, int out);

// The driver's side. A channel to an executor: one request frame, its
// response's kind and payload. A response that does not come is the
// channel's to say; Ask then ends the process.
class Channel {
 public:
  virtual ~Channel() = default;
  virtual void Ask(const std::string& frame, uint16_t* kind, std::string* payload) = 0;
  // For messages: the config the executor runs.
  virtual const std::string& config() const = 0;
};

// The oracle::CaseTarget whose runtimes are `ch`'s executor's, judged for
// `port` (the executor's). `ch` must outlive it.
oracle::CaseTarget RemoteTarget(Channel* ch, const PortInfo& port);

// Where the driver's programs new to the executor's runtimes were emitted,
// so far: here, natively (and how many of those went with a run and were
// installed: the others' cases never ran); in the executor when asked with
// kLoad; in the executor at a run. And the kept runtimes the executor gave
// up (Loaded::given_up, Ran::given_up).
struct LoadCounts {
  int64_t emitted_here = 0, installed = 0, asked = 0, emitted_there = 0;
  int64_t given_up = 0;  // kept runtimes the executor said it gave up
};
LoadCounts LoadCountsNow();
// The same, as one line for the fuzzer's report.
std::string LoadSummary();

// A case executor started through `runner` (SAFEPOINT_RUNNER) for
// `config`. Dies (exit 2) with a message when the executor does not start,
// or names a port this build does not know. A response that does not come
// (the executor ended, or took longer than the stall watchdog's limit and
// a minute) is said on stderr with how the executor ended, and the
// process aborts: libFuzzer keeps the input.
class Driver : public Channel {
 public:
  Driver(const std::string& config, const std::string& path, const std::string& runner);
  ~Driver() override;
  const PortInfo& port() const { return *port_; }
  const std::string& config() const override { return proc_.config; }
  const oracle::CaseTarget* target() const { return &target_; }
  void Ask(const std::string& frame, uint16_t* kind, std::string* payload) override;

 private:
  ExecutorProcess proc_;
  const PortInfo* port_ = nullptr;
  oracle::CaseTarget target_;
};

}  // namespace safepoint::fuzz::cases

#endif
