// The cross-port differential fuzzer (issue 9): the same input on every
// port must give the same verdict at the first machine instruction of each
// probed IR operation (accepted, refused by the same rule, restarted at the
// entry, ...), except where the ports' own data says it differs.
//
// A native x86-64 libFuzzer target. The native port is probed in-process;
// every other port by a persistent verdict executor (fuzz/verdict_executor.cc
// built for its config) started once per campaign through the runner, so
// it runs under its port's QEMU, and spoken to over fuzz/verdict_protocol.h:
//
//   SAFEPOINT_EXECUTORS="arm64=/path/to/verdict_executor,loong64=...,..."
//   SAFEPOINT_RUNNER=/checkout/platforms/toolchains/run
//   SAFEPOINT_DIFF_TIMEOUT=120   (seconds an executor may take per request)
//   SAFEPOINT_DIFF_VERBOSE=1     (one line per probed operation: each port's
//                                 expectation and verdict)
//
// The input, byte by byte (a short input reads zeros past its end):
//   0      settings: bit 0 GOEXPERIMENT=runtimesecret; bits 1-7 must be 0
//          (GOMAXPROCS=1, asynchronous preemption on, sysmon off)
//   1      probes: 1 + (byte mod 8)
//   2-17   eight little-endian u16 choices: the i-th probed operation is
//          choice i modulo the number of the program's operations that
//          lower to code (labels and inline markers do not)
//   18..   the program generator's choices (harness/generator.h)
//
// The rule, per probed operation: each port's own expectation there
// (oracle::Decide with its PortModel, computed by the port itself) gives a
// verdict class; ports whose classes agree must have runtimes whose actual
// verdicts agree too. Where the expectations differ the difference is
// declared (REGTMP sequences exist only where there is a REGTMP, a call is
// one instruction on one port and two on another, ...) and allowed: it is
// counted as a feature. Verdict classes, never PCs, are compared: at an
// operation's first instruction a restart to the operation's start resumes
// at that very instruction, so it is "accepted" like an in-place
// acceptance; a restart at the entry of a function whose probed
// instruction is its entry is "accepted" too. An operation with no
// instruction on some port is compared among the others.
//
// A disagreement is a crash whose first line is constant:
//   ==safepoint-diff== <op kind> at <function>+op<N>: <port A> <verdict> vs <port B> <verdict>
// Extra counters carry (operation kind x the vector of verdicts across
// ports) and the declared differences.
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "fuzz/artifacts.h"
#include "fuzz/executor_process.h"
#include "core/ir.h"
#include "fuzz/extra_counters.h"
#include "fuzz/verdict_probe.h"
#include "fuzz/verdict_protocol.h"
#include "harness/generator.h"
#include "oracle/decision.h"
#include "platforms/native.h"
#include "runtime/runtime.h"


namespace {

using namespace safepoint::verdict;
namespace ir = safepoint::ir;
using safepoint::oracle::Verdict;

constexpr size_t kInputHeader = 18;
constexpr int kMaxProbesPerInput = 8;

using safepoint::fuzz::Feature;

// --- the executors ---------------------------------------------------------
using Executor = safepoint::fuzz::ExecutorProcess;
std::vector<Executor> g_execs;
std::string g_runner;
int g_request_ms = 120000;
int g_hello_ms = 120000;
bool g_verbose = false;

[[noreturn]] void Die(const std::string& why) {
  fprintf(stderr, "differential_fuzz: %s\n", why.c_str());
  exit(2);
}

void Stop(Executor& e, bool force) { safepoint::fuzz::StopExecutor(e, force); }
bool Start(Executor& e, std::string* err) { return safepoint::fuzz::StartExecutor(e, g_runner, g_hello_ms, err); }

bool Send(Executor& e, const std::string& frame, std::string* err) {
  if (e.pid <= 0 && !Start(e, err)) return false;
  if (!WriteFull(e.to, frame.data(), frame.size())) return *err = "the executor's input is closed", false;
  return true;
}

bool Receive(Executor& e, ProbeResponse* r, std::string* err) {
  Header h;
  std::string payload;
  if (!ReadFrame(e.from, kResponseMagic, &h, &payload, err, g_request_ms)) return false;
  if (h.kind != kResult) return *err = "a response of kind " + std::to_string(h.kind), false;
  return DecodeResponse(payload, r, err);
}

// A request whose first attempt (already sent, or failed to send) must be
// completed: a transient failure (end of file, the deadline) restarts the
// executor and sends once more.
bool Complete(Executor& e, const std::string& frame, bool sent, ProbeResponse* r, std::string* why) {
  std::string err;
  if (sent && Receive(e, r, &err)) return true;
  std::string first = sent ? err : "not sent";
  Stop(e, true);
  err.clear();
  if (Send(e, frame, &err) && Receive(e, r, &err)) return true;
  Stop(e, true);
  *why = "first: " + first + "; retried after a restart: " + err;
  return false;
}

void StopAll() {
  for (Executor& e : g_execs) Stop(e, false);
}

// --- verdict classes -------------------------------------------------------
const char* OpKindName(const ir::Insn& in) {
  static const char* const names[] = {
      "movi",     "addi",     "muli",       "add",        "mov",      "label",    "jmp",      "jnz",     "jz",
      "call",     "ret",      "ld",         "st",         "ldslot",   "stslot",   "fillregs", "sumregs", "service",
      "atomic_add", "wb_store", "usetmp",   "inline",     "endinline", "dumpregs", "vfill",   "vdump",   "setflags",
      "flagsdump", "ldm",     "stm",        "vload",      "vstore",   "addrslot"};
  static_assert(sizeof names / sizeof names[0] == static_cast<size_t>(ir::Op::kAddrSlot) + 1, "one name per ir::Op");
  if (in.op == ir::Op::kService) return ir::ServiceName(in.service);
  return names[static_cast<size_t>(in.op)];
}

std::string ActualClass(const ProbeResult& r) {
  if (r.actual == Outcome::kRefused) return "refused(" + r.detail + ")";
  return OutcomeName(r.actual);
}

// The expectation's class at an operation's first instruction: a restart to
// the operation's start resumes there, so it is an acceptance in place.
std::string ExpectedClass(const ProbeResult& r) {
  switch (static_cast<Verdict>(r.expect)) {
    case Verdict::kRefuse: return "refused(" + r.expect_rule + ")";
    case Verdict::kAccept:
    case Verdict::kRestart: return "accepted";
    case Verdict::kRestartAtEntry: return (r.flags & kAtEntry) ? "accepted" : "restarted-at-entry";
    case Verdict::kNotWanted: return "not-wanted";
  }
  return "unknown";
}

uint64_t Hash(const std::string& s) { return std::hash<std::string>()(s); }

struct Answer {
  std::string label;  // the port, or the executor's config
  ProbeResponse resp;
};

struct Op {
  size_t fn = 0;
  int index = 0;  // in the function's body
  const ir::Insn* insn = nullptr;
};

}  // namespace

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  // An input whose probes never end is a finding with its input kept
  // (fuzz/artifacts.h), not the test runner's timeout.
  safepoint::fuzz::StartStallWatchdog("differential_fuzz", *argc, *argv, "differential_fuzz -runs=1");
  safepoint::SetFatalErrorsAbort(true);  // a fatal error in the native runs is a crash with its input saved
  signal(SIGPIPE, SIG_IGN);              // a dead executor is an error to handle, not a signal
  if (const char* t = getenv("SAFEPOINT_DIFF_TIMEOUT"); t && *t) {
    int s = atoi(t);
    if (s <= 0 || s > 3600) Die("SAFEPOINT_DIFF_TIMEOUT=" + std::string(t) + ": seconds in 1..3600");
    g_request_ms = g_hello_ms = s * 1000;
  }
  if (const char* v = getenv("SAFEPOINT_DIFF_VERBOSE")) g_verbose = *v && strcmp(v, "0") != 0;
  const char* spec = getenv("SAFEPOINT_EXECUTORS");
  if (spec == nullptr || !*spec) {
    fprintf(stderr,
            "differential_fuzz: SAFEPOINT_EXECUTORS is empty: only the native port is probed, nothing is compared "
            "(ci/differential.sh sets it)\n");
    return 0;
  }
  const char* runner = getenv("SAFEPOINT_RUNNER");
  if (runner == nullptr || !*runner) Die("SAFEPOINT_EXECUTORS is set but SAFEPOINT_RUNNER (platforms/toolchains/run) is not");
  g_runner = runner;
  std::string err;
  if (!safepoint::fuzz::ParseExecutors(spec, &g_execs, &err)) Die("SAFEPOINT_EXECUTORS: " + err);
  for (Executor& e : g_execs) {
    if (!Start(e, &err)) Die(err);
    fprintf(stderr, "differential_fuzz: executor %s (port %s) up: %s\n", e.config.c_str(), e.port.c_str(), e.path.c_str());
  }
  atexit(StopAll);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  safepoint::fuzz::WatchedExecution watched(data, size);
  auto at = [&](size_t i) -> uint8_t { return i < size ? data[i] : 0; };
  uint8_t settings = at(0);
  if (settings & 0xfe) return -1;  // reserved bits: not an input
  ProbeRequest q;
  q.settings = (settings & 1) ? kSetRuntimeSecret : 0;
  q.program = safepoint::harness::GenerateProgramFromBytes(size > kInputHeader ? data + kInputHeader : nullptr,
                                                           size > kInputHeader ? size - kInputHeader : 0);
  ir::Program prog;
  std::string err;
  if (!ir::ParseProgram(q.program, &prog, &err)) {
    fprintf(stderr, "==safepoint-diff== generated program does not parse\n  %s\n", err.c_str());
    abort();
  }
  std::vector<Op> ops, candidates;
  for (size_t f = 0; f < prog.funcs.size(); f++)
    for (size_t i = 0; i < prog.funcs[f].body.size(); i++) {
      Op o{f, static_cast<int>(i), &prog.funcs[f].body[i]};
      ops.push_back(o);
      ir::Op k = o.insn->op;
      if (k != ir::Op::kLabel && k != ir::Op::kInlineBegin && k != ir::Op::kInlineEnd) candidates.push_back(o);
    }
  if (candidates.empty()) return 0;
  std::vector<size_t> global;  // the global index of each probed operation
  int n = 1 + at(1) % kMaxProbesPerInput;
  for (int i = 0; i < n; i++) {
    const Op& c = candidates[(at(2 + 2 * i) | at(3 + 2 * i) << 8) % candidates.size()];
    size_t g = 0;
    for (size_t f = 0; f < c.fn; f++) g += prog.funcs[f].body.size();
    g += static_cast<size_t>(c.index);
    bool dup = false;
    for (size_t x : global) dup = dup || x == g;
    if (!dup) global.push_back(g), q.ops.push_back(static_cast<uint32_t>(g));
  }
  std::string frame = EncodeRequest(q);

  // Every executor works while the native port is probed here.
  std::vector<bool> sent(g_execs.size());
  for (size_t i = 0; i < g_execs.size(); i++) sent[i] = Send(g_execs[i], frame, &err);
  std::vector<Answer> answers;
  answers.push_back({std::string(safepoint::NativePort().name), ProbeOnNativePort(q)});
  for (size_t i = 0; i < g_execs.size(); i++) {
    Executor& e = g_execs[i];
    Answer a{e.config, {}};
    std::string why;
    if (!Complete(e, frame, sent[i], &a.resp, &why)) {
      fprintf(stderr, "==safepoint-diff== executor %s failed twice on one input\n  %s\n", e.config.c_str(), why.c_str());
      abort();
    }
    if (a.resp.status == Status::kBaselineFailed) {  // once more: a run may fail transiently
      std::string why2;
      if (!Complete(e, frame, false, &a.resp, &why2)) {
        fprintf(stderr, "==safepoint-diff== executor %s failed twice on one input\n  %s\n", e.config.c_str(), why2.c_str());
        abort();
      }
    }
    answers.push_back(std::move(a));
  }
  std::vector<const Answer*> ok;
  for (const Answer& a : answers) {
    switch (a.resp.status) {
      case Status::kOk:
        if (a.resp.probes.size() != q.ops.size()) {
          fprintf(stderr, "==safepoint-diff== protocol: %s answered %zu probes of %zu\n", a.label.c_str(),
                  a.resp.probes.size(), q.ops.size());
          abort();
        }
        ok.push_back(&a);
        break;
      case Status::kPortRefused:  // the port's declared data (its branch reach, ...)
        Feature(10, Hash(a.label));
        break;
      case Status::kBaselineFailed:
        fprintf(stderr, "==safepoint-diff== unpreempted run failed on %s\n  %s\n", a.label.c_str(), a.resp.message.c_str());
        abort();
      default:  // a logic failure: the driver sent something malformed
        fprintf(stderr, "==safepoint-diff== protocol: %s answered %s\n  %s\n", a.label.c_str(), StatusName(a.resp.status),
                a.resp.message.c_str());
        abort();
    }
  }

  // The frame-table oracle's finding on one port needs no other port.
  for (const Answer* a : ok)
    for (size_t i = 0; i < q.ops.size(); i++) {
      const ProbeResult& r = a->resp.probes[i];
      if (r.actual != Outcome::kRunError || r.detail.rfind(safepoint::verdict::kFrameTableFinding, 0) != 0) continue;
      fprintf(stderr, "==safepoint-diff== ERROR: frame-table oracle on %s at instruction %u (settings 0x%02x): %s\n",
              a->label.c_str(), r.insn, settings, r.detail.c_str());
      fprintf(stderr, "  the program:\n%s", q.program.c_str());
      abort();
    }
  for (size_t i = 0; i < q.ops.size(); i++) {
    const Op& op = ops[q.ops[i]];
    uint64_t kind = static_cast<uint64_t>(op.insn->op) * 64 + static_cast<uint64_t>(op.insn->service);
    std::string actual_vec, expect_vec;
    std::map<std::string, std::vector<const Answer*>> groups;  // expected class -> ports
    for (const Answer* a : ok) {
      const ProbeResult& r = a->resp.probes[i];
      actual_vec += a->label + "=" + ActualClass(r) + " ";
      expect_vec += a->label + "=" + ExpectedClass(r) + " ";
      if (r.actual == Outcome::kNotEmitted) continue;
      groups[ExpectedClass(r)].push_back(a);
    }
    if (g_verbose)
      fprintf(stderr, "differential_fuzz: %s at %s+op%d: expected %s got %s\n", OpKindName(*op.insn),
              prog.funcs[op.fn].name.c_str(), op.index, expect_vec.c_str(), actual_vec.c_str());
    Feature(1, kind, Hash(actual_vec));                 // operation kind x verdicts across ports
    if (groups.size() > 1) Feature(2, kind, Hash(expect_vec));  // a declared difference
    Feature(3, q.settings, groups.size());
    for (const auto& [expect, ports] : groups) {
      const ProbeResult& first = ports[0]->resp.probes[i];
      for (size_t j = 1; j < ports.size(); j++) {
        const ProbeResult& r = ports[j]->resp.probes[i];
        if (ActualClass(r) == ActualClass(first)) continue;
        const ir::Function& f = prog.funcs[op.fn];
        fprintf(stderr, "==safepoint-diff== %s at %s+op%d: %s %s vs %s %s\n", OpKindName(*op.insn), f.name.c_str(),
                op.index, ports[0]->label.c_str(), ActualClass(first).c_str(), ports[j]->label.c_str(),
                ActualClass(r).c_str());
        fprintf(stderr, "  both ports' own data expect %s there (IR line %d); settings 0x%02x\n", expect.c_str(),
                op.insn->line, settings);
        for (const Answer* a : ok) {
          const ProbeResult& x = a->resp.probes[i];
          fprintf(stderr, "  %-10s expected %-28s got %-28s instruction %u%s%s\n", a->label.c_str(),
                  ExpectedClass(x).c_str(), ActualClass(x).c_str(), x.insn, x.actual == Outcome::kRunError ? ": " : "",
                  x.actual == Outcome::kRunError ? x.detail.c_str() : "");
        }
        fprintf(stderr, "  the program:\n%s", q.program.c_str());
        abort();
      }
    }
  }
  return 0;
}
