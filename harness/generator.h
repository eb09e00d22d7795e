// A generator of valid programs, for property tests and fuzzing: from a
// seed, deterministically, a program of the portable IR operations (so the
// port-independent interpreter, oracle/semantics.h, defines its result),
// with helper functions of every kind (leaf, non-leaf, large frames,
// nosplit), bounded loops, calls, runtime regions, inlined bodies (nested
// too), heap objects, and goroutines started in a loop while main yields;
// then, each by one bit of a later choice, the shapes listed in
// GeneratorCoverage below (early returns, branches around calls, pointers
// into the stack across calls that grow it and collections that shrink it,
// frames at each port's encoding limits, inlining three deep, every
// function attribute, the remaining portable operations). Every program it
// makes passes the validator, ends, and is defined by oracle/semantics.h.
#ifndef SAFEPOINT_HARNESS_GENERATOR_H_
#define SAFEPOINT_HARNESS_GENERATOR_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace safepoint::harness {

// Frame sizes (locals, bytes) where some port's code for a frame changes
// shape: each is the largest size of the shorter form, and the generator
// writes frames from 16 below to 16 above each (within [0, ir::kMaxFrame]), leaf
// and not. Kept port-independent (the programs are portable); the coverage test
// (conformance/generator_coverage_test) finds every port's limits from its
// Lowerer and fails if one is missing here.
//   0         no frame at all (nothing allocated, nothing released)
//   120, 128  StackSmall: a compare of SP itself, or of SP - (frame-128)
//             (128 where the frame is the locals, 120 where the port adds
//             a return-address word and rounds to 16)
//   232       a non-leaf frame opened and its LR saved by one pre-indexed
//             store (<= 240 bytes with the LR word), beyond it two
//   256       the stack check's SP - (frame-128) with an 8-bit displacement
//   2024      the epilogue's add-immediate of the frame (<= 2047)
//   2040      the prologue's add-immediate of -frame (>= -2048)
//   2168      the stack check's add-immediate of -(frame-128) (>= -2048)
//   4072      a frame of 4096 bytes (with the return-address word, rounded
//             to 16: the largest, 4080 bytes of locals) is one load-upper-
//             immediate, any other beyond 2048 two
inline constexpr int kGeneratorFrameLimits[] = {0, 120, 128, 232, 256, 2024, 2040, 2168, 4072};

std::string GenerateProgram(uint64_t seed);
// The same generator, every choice read from `data` (zeros past its end):
// a fuzzer's structure-aware input. Deterministic for given bytes.
std::string GenerateProgramFromBytes(const uint8_t* data, size_t n);

// What shapes a set of programs has, read back from their text (parsed by
// ir::ParseProgram, and the first word of each line for the spelling):
// per row, how many programs have it. Rows: every operation of the IR (its
// spellings, core/ir.h), every function attribute, the control and data
// shapes, and the frame bands around kGeneratorFrameLimits. A row the
// generator never writes by design says why (`never`); every other row at
// zero is a gap.
class GeneratorCoverage {
 public:
  struct Row {
    std::string group, name;
    int64_t count = 0;
    std::string never;  // why the generator writes no program with it
  };
  GeneratorCoverage();
  // Counts one program; false (with *err) if it does not parse.
  bool Add(const std::string& text, std::string* err);
  // Adds n to a row, making it (at the end of its group) if new.
  void Count(const std::string& group, const std::string& name, int64_t n = 1);
  const std::vector<Row>& rows() const { return rows_; }
  int64_t programs() const { return programs_; }
  int64_t Get(const std::string& group, const std::string& name) const;
  // Programs with a function of `locals` bytes of locals, leaf (no call or
  // service) or not.
  int64_t Frames(int locals, bool leaf) const;
  // The rows at zero that should not be, "group: name" each.
  std::vector<std::string> Gaps() const;

 private:
  size_t RowIndex(const std::string& group, const std::string& name);
  std::vector<Row> rows_;
  std::map<std::pair<std::string, std::string>, size_t> index_;
  std::map<std::pair<int, bool>, int64_t> frames_;
  int64_t programs_ = 0;
};

// The rows of one or more coverages side by side, one column each.
std::string CoverageTable(const std::vector<std::pair<std::string, const GeneratorCoverage*>>& columns);

}  // namespace safepoint::harness

#endif
