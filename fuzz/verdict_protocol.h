// The verdict executor's protocol: how the cross-port differential fuzzer
// (fuzz/differential_fuzz.cc, native x86-64) asks a persistent executor
// (fuzz/verdict_executor.cc, built for a port and running under that port's
// QEMU) what the runtime decides at the first machine instruction of some
// IR operations of a program. One executor serves a whole campaign, so QEMU
// starts once per campaign, not once per input.
//
// The executor reads requests on its standard input and writes responses on
// its standard output, one response per request, in order. Everything is
// little-endian with explicit sizes; nothing depends on the host's layout.
//
// Frame (every request and response):
//   u32 magic    kRequestMagic ("SVPQ") or kResponseMagic ("SVPR")
//   u16 version  kVersion
//   u16 kind     a request: kProbe; a response: kHello or kResult
//   u32 length   bytes of payload that follow (at most kMaxPayload)
// A string is u32 length + bytes (no terminator).
//
// The executor first writes a kHello response (payload: string port name,
// string config) before it reads anything: the driver waits for it, bounded,
// to know QEMU and the executor are up.
//
// kProbe request payload:
//   u32 settings  kSetAsyncPreemptOff | kSetRuntimeSecret | kSetGomaxprocs2;
//                 any other bit makes the request malformed
//   string        the program (IR text, core/ir.h); its `main.main` runs
//   u32 count     probes that follow (at most kMaxProbes)
//   count x u32   IR operation indices: the operations of every function of
//                 the program numbered in program order (function 0's body
//                 first), from 0
// and nothing after them.
//
// kResult response payload:
//   u16 status    Status below; u16 0
//   string        a message (why, for any status but kOk)
//   u32 insns     instructions in the port's function table (0 unless kOk)
//   u32 count     probe results that follow (the request's count when kOk,
//                 else 0), in the request's order; each:
//     u32 op       the probe's operation index
//     u8  actual   Outcome: what the runtime did at the operation's first
//                  machine instruction
//     u8  flags    kResumeAtEntry: the resume PC is the function's entry
//                  (also set when that entry is the instruction itself);
//                  kSingleSequence: the expectation's single_sequence;
//                  kAtEntry: the instruction is its function's entry
//     u8  expect   oracle::Verdict: the port's own expectation there,
//                  Decide(port model, state, position), as its data says
//     u8  0
//     u32 insn     the instruction's index in the function table
//                  (0xffffffff when the operation has no instruction)
//     string       the refusal rule the runtime gave (kRefused) or the
//                  run's error (kRunError), else empty
//     string       the expectation's rule (when it refuses), else empty
//
// Failures. A malformed request (bad lengths, reserved bits, an operation
// index out of range, a program that does not parse) is a logic failure:
// the executor answers kMalformed or kBadProgram and goes on with the next
// request; the driver treats it as its own bug. A header that is not a
// frame (wrong magic or version, too long) leaves no boundary to resume at:
// the executor answers kMalformed and exits with status 3. A run that
// crashes or hangs the executor is a transient failure the driver sees as
// end of file or its deadline passing: it restarts the executor and retries
// the request once.
#ifndef SAFEPOINT_FUZZ_VERDICT_PROTOCOL_H_
#define SAFEPOINT_FUZZ_VERDICT_PROTOCOL_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace safepoint::verdict {

constexpr uint32_t kRequestMagic = 0x51505653;   // "SVPQ"
constexpr uint32_t kResponseMagic = 0x52505653;  // "SVPR"
constexpr uint16_t kVersion = 1;
constexpr size_t kHeaderBytes = 12;
constexpr uint32_t kMaxPayload = 1u << 20;
constexpr uint32_t kMaxProbes = 64;

enum Kind : uint16_t { kProbe = 1, kHello = 1, kResult = 2 };

enum Settings : uint32_t {
  kSetAsyncPreemptOff = 1,  // GODEBUG=asyncpreemptoff=1
  kSetRuntimeSecret = 2,    // GOEXPERIMENT=runtimesecret
  kSetGomaxprocs2 = 4,      // GOMAXPROCS=2 (else 1)
  kSettingsMask = 7,
};

enum class Status : uint16_t {
  kOk = 0,
  kMalformed = 1,       // logic: the request cannot be read
  kBadProgram = 2,      // logic: the program does not parse or has no main.main
  kPortRefused = 3,     // the port's emitter refuses the program (its declared data: branch reach, ...)
  kBaselineFailed = 4,  // the unpreempted run failed
};
const char* StatusName(Status s);

// What the runtime did at an operation's first instruction, armed there
// (a fresh runtime per probe).
enum class Outcome : uint8_t {
  kNotEmitted,        // the operation has no machine instruction on this port
  kNotReached,        // the run never executed it
  kAccepted,          // accepted, resuming at the instruction itself
  kRestartedAtEntry,  // accepted, resuming at the function's entry
  kResumedElsewhere,  // accepted, resuming anywhere else
  kRefused,           // refused, with a rule
  kNotWanted,         // the signal found no request (the goroutine was in a system call)
  kNoDecision,        // reached, and no decision was taken
  kRunError,          // the armed run failed
};
const char* OutcomeName(Outcome o);

enum ProbeFlags : uint8_t { kResumeAtEntry = 1, kSingleSequence = 2, kAtEntry = 4 };

struct ProbeRequest {
  uint32_t settings = 0;
  std::string program;
  std::vector<uint32_t> ops;
};

struct ProbeResult {
  uint32_t op = 0;
  Outcome actual = Outcome::kNotEmitted;
  uint8_t flags = 0;
  uint8_t expect = 0;  // oracle::Verdict
  uint32_t insn = 0xffffffff;
  std::string detail;       // the runtime's rule, or the run's error
  std::string expect_rule;  // the expectation's rule
};

struct ProbeResponse {
  Status status = Status::kOk;
  std::string message;
  uint32_t insns = 0;
  std::vector<ProbeResult> probes;
};

struct Header {
  uint32_t magic = 0;
  uint16_t version = 0;
  uint16_t kind = 0;
  uint32_t length = 0;
};

// Whole frames.
std::string EncodeRequest(const ProbeRequest& r);
std::string EncodeResponse(const ProbeResponse& r);
std::string EncodeHello(std::string_view port, std::string_view config);

// The header of a frame from `magic`'s side; false with *err when it is no
// frame of this protocol's version or its payload is longer than
// max_payload (another protocol on the same frames, fuzz/case_protocol.h,
// carries more).
bool DecodeHeader(const uint8_t* p, uint32_t magic, Header* h, std::string* err, uint32_t max_payload = kMaxPayload);
// Payloads (the bytes after the header); false with *err when malformed.
bool DecodeRequest(std::string_view payload, ProbeRequest* r, std::string* err);
bool DecodeResponse(std::string_view payload, ProbeResponse* r, std::string* err);
bool DecodeHello(std::string_view payload, std::string* port, std::string* config, std::string* err);

// Byte I/O on a file descriptor. ReadFull returns the bytes read (short
// only at end of file or an error); with deadline_ms >= 0 it also stops
// when that many milliseconds have passed (*timed_out set).
size_t ReadFull(int fd, void* buf, size_t n, int deadline_ms = -1, bool* timed_out = nullptr);
bool WriteFull(int fd, const void* buf, size_t n);

// One frame from fd: its header (checked against `magic`) and payload.
// False with *err at end of file, a deadline, or a bad header
// (*bad_header set for the last: the stream has no boundary left).
bool ReadFrame(int fd, uint32_t magic, Header* h, std::string* payload, std::string* err, int deadline_ms = -1,
               bool* bad_header = nullptr, uint32_t max_payload = kMaxPayload);

// The executor's loop: reads requests from `in` until end of file, answers
// each on `out` through `handle`. Returns 0 at end of file, 3 after a bad
// header, 1 when `out` cannot be written.
using Handler = std::function<ProbeResponse(const ProbeRequest&)>;
int Serve(int in, int out, const Handler& handle);

}  // namespace safepoint::verdict

#endif
