// A preemption case: what one input of the preemption fuzzer means, and
// how it is run and judged. The fuzz target (fuzz/preempt_fuzz.cc) and
// `safepoint repro` (cmd/) decode and run the same bytes the same way.
//
// The input, byte by byte (a short input reads zeros past its end):
//   0     settings: bit 0 GODEBUG=asyncpreemptoff=1, bit 1
//         GOEXPERIMENT=runtimesecret, bit 2 GOEXPERIMENT=simd, bit 3 Go
//         1.26's scan policy (else 1.27), bit 4 a whole collection at the
//         preemption, bit 5 GOMAXPROCS=2; bits 6-7 who raises the request
//         (harness::RequestSource): 0 preemptone on the trapping M, 1
//         sysmon's retake, 2 suspendG, 3 forEachP
//   1     the program: 0 the built-in sweep program, 1 the collection
//         sweep's heap program, 2-255 a program generated from bytes 4..
//   2-3   the armed instruction, little-endian, modulo the program's
//         instruction count
//   4..   the generator's choices (harness/generator.h)
// An input may end in a chain of further points, armed one after another
// once the one before has trapped (harness/armed.h's ArmThen):
//   ... [instruction lo, instruction hi, source] x n, n, 0x5A, 0xA5
// with n in 1..3 and each source in the low two bits as in byte 0; the
// generator does not see the chain. Inputs without the two-byte mark (every
// seed before chains existed) mean what they meant.
// An empty input is no case: it is refused, never run.
#ifndef SAFEPOINT_ORACLE_PREEMPT_CASE_H_
#define SAFEPOINT_ORACLE_PREEMPT_CASE_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <functional>
#include <string>
#include <vector>

#include "core/ir.h"
#include "harness/armed.h"
#include "harness/generator.h"

#include "harness/runtime_under_test.h"
#include "oracle/judge.h"
#include "oracle/semantics.h"
#include "platforms/port.h"
#include "runtime/options.h"

namespace safepoint::oracle {

struct Case;

// Where a case's runs are made, and the port it is judged for. Without one
// (Case::target null) the reference runtime in this process, on the native
// port; a native fuzzer driving another port's runtime in an executor
// (fuzz/case_protocol.h) gives its own.
struct CaseTarget {
  const PortInfo* port = nullptr;
  // The runtimes of case `c` (its options, source and mutation), sysmon on
  // a ManualClock or not, kept by `keep` (harness::NewReferenceRuntime's
  // meaning): what RunCase would make in this process.
  std::function<harness::RuntimeFactory(const Case& c, bool sysmon_clock, harness::KeepAs keep)> runtimes;
};

struct Case {
  RuntimeOptions opts;
  std::string program;  // IR text
  std::string program_name;
  uint16_t armed = 0;   // the instruction index before the modulo
  uint8_t settings = 0;
  harness::RequestSource source = harness::RequestSource::kPreemptOne;
  struct Point {
    uint16_t armed = 0;  // before the modulo
    harness::RequestSource source = harness::RequestSource::kPreemptOne;
  };
  std::vector<Point> then;  // the chain's further points
  // Not from the bytes. The mutation applied to opts (harness/mutations.h;
  // empty: none), and whether the runtime is kept for later cases (a
  // fuzzing process's: harness/reference.cc's kept runtimes, keyed by the
  // settings, the sources, the mutation and the program). A kept runtime
  // must behave exactly as a fresh one (oracle:preempt_case_test checks it
  // over mixed inputs); `repro` runs fresh.
  std::string mutation;
  bool keep_runtime = false;
  // The unpreempted run's end state predicted from the program's meaning
  // (oracle/semantics.h) where the interpreter can, instead of a run made
  // for it: an armed run whose end state differs from the prediction is
  // judged against a real unpreempted run, and a real unpreempted run that
  // differs from the prediction is a finding of the semantics oracle.
  bool predict = true;
  // An armed instruction a predicted program never reaches (an operation
  // the interpreter never ran, a function it never called, a service's
  // stub no operation it ran called) is answered from the first such run
  // of the program under the same settings, judged sound, instead of run
  // again: the run would be the same unpreempted run (the fuzzer's third
  // of its cases). False: every case is run.
  bool answer_unreached = true;
  // Tests: changes a prediction before it is used (a wrong one, to see the
  // semantics oracle catch it).
  std::function<void(harness::EndState*)> edit_prediction;
  // Null: this process's reference runtime, judged for the native port.
  const CaseTarget* target = nullptr;
};

// The runtime's options a settings byte means (byte 0 of a case, above),
// without a mutation: DecodeCase's, and a case executor's, which is sent
// the byte (fuzz/case_protocol.h).
RuntimeOptions CaseOptions(uint8_t settings);

// A case's program parsed (nullptr with *err when the text does not
// parse): the last 256 texts are remembered.
std::shared_ptr<const ir::Program> CaseProgram(const std::string& text, std::string* err);

// The chain's bytes for `then` (what an input ends in), for seeds and tests.
std::string EncodeChain(const std::vector<Case::Point>& then);

// False (with *err) for bytes that are no case. A generated program's
// text is remembered by the generator's bytes (the last 256 programs): a
// fuzzer's mutation of a case's points brings the same bytes again.
bool DecodeCase(const uint8_t* data, size_t size, Case* out, std::string* err);

// A mutation of a case's points that leaves its program and settings as
// they are: the armed instruction moved (anywhere, or a few instructions
// on), or a chain's points (one moved, its source changed, one added or
// dropped, a chain begun or ended); the generator's bytes untouched (a
// chain is cut off before the generator reads the rest, and a short input
// reads zeros past its end). The new size, at most max_size; 0 where the
// bytes are no case (they are left as they were). The preemption fuzzer's
// custom mutator makes half its mutations so: every instruction of a
// program is a case of its own, and one whose program is already
// generated, parsed, loaded and predicted costs its armed run only.
size_t MutateCasePoints(uint8_t* data, size_t size, size_t max_size, uint32_t seed);

struct CaseResult {
  bool ok = false;          // ran and judged (false: *err says why it could not run)
  // Under Go 1.26's scan policy, an object lost only because its pointer
  // was in a vector register is the hazard the chapter describes, not a
  // finding: the case is run again under Go 1.27's, and when that keeps
  // everything the loss is recorded here and the judgement cleared.
  std::string known_hazard;
  Judgement judgement;
  // The program the observation's positions point into (kept alive with it).
  std::shared_ptr<const ir::Program> program;
  harness::Observation obs;
  // obs answered from an earlier run that never reached its armed
  // instruction, the program never reaching this one (Case::answer_unreached).
  bool answered = false;
  size_t instructions = 0;  // in the program's function table
  uint32_t code_bytes = 0;  // the loaded program's code, from its entry offset 0
  const PortInfo* port = nullptr;  // the port it ran on and was judged for (set by RunCase)
};

// Runs the program armed at the chosen instruction and judges the run
// against its unpreempted end state: predicted (Case::predict), or that
// of an unpreempted run, cached per program and settings either way.
CaseResult RunCase(const Case& c, std::string* err);

// The end state an unpreempted run of `prog`'s main.main leaves, from the
// program's meaning (oracle/semantics.h), its vector registers those of
// tier `tier` of `port` (RuntimeUnderTest::xstate_tier after the
// program's load); false where that cannot be predicted (outside the
// interpreter's subset, a vdump of values only a run shows, a tier of -1,
// more than 200,000 operations).
// With `may_run`, also where the program's code may run (oracle/semantics.h).
bool PredictEndState(const PortInfo& port, const ir::Program& prog, int tier, harness::EndState* end,
                     MayRun* may_run = nullptr);

// Where RunCase's time went in this process, per case: parsing the
// program, its unpreempted run (when not cached), the armed run, the
// judgement (one line for a fuzzer's report).
std::string CaseTimeSummary();

// The preemption fuzzer's decoder as the generator's coverage report sees
// it (harness::GeneratorCoverage): for each input that decodes, the request
// source of each point, with or without a collection at the preemption
// ("request" rows), and a generated program's shapes. False with *err when
// a decoded program does not parse (the generator promises valid ones).
bool AddDecoderCoverage(const std::vector<std::string>& inputs, harness::GeneratorCoverage* cov, std::string* err);
// n pseudo-random inputs from a fixed seed, each choosing a generated
// program (what the coverage test and `safepoint gen --coverage` decode).
std::vector<std::string> CoverageRandomInputs(int n, uint64_t seed = 27);

// What a finding prints first: the oracle and the rule, the same for every
// input that finds the same thing.
std::string Describe(const Case& c, const CaseResult& r);

// What the armed run showed, one line, finding or not: where the armed
// instruction is, who asked, whether it was reached, the stack room there
// next to asyncPreemptStack, and the runtime's decision.
std::string Observed(const Case& c, const CaseResult& r);

}  // namespace safepoint::oracle

#endif
