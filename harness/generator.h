// A generator of valid programs, for property tests and fuzzing: from a
// seed, deterministically, a program of the portable IR operations (so the
// port-independent interpreter, oracle/semantics.h, defines its result),
// with helper functions of every kind (leaf, non-leaf, large frames,
// nosplit), bounded loops, calls, runtime regions, inlined bodies (nested
// too), heap objects, and goroutines started in a loop while main yields. Every
// program it makes passes the validator and ends.
#ifndef SAFEPOINT_HARNESS_GENERATOR_H_
#define SAFEPOINT_HARNESS_GENERATOR_H_

#include <cstddef>
#include <cstdint>
#include <string>

namespace safepoint::harness {

std::string GenerateProgram(uint64_t seed);
// The same generator, every choice read from `data` (zeros past its end):
// a fuzzer's structure-aware input. Deterministic for given bytes.
std::string GenerateProgramFromBytes(const uint8_t* data, size_t n);

}  // namespace safepoint::harness

#endif
