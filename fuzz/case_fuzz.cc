// The input fuzzer of preemption cases (the preemption fuzzer's inputs and
// `safepoint repro`'s files): any bytes either decode to a case or are
// refused with a reason, never a crash; a decoded case's program, generated
// from the bytes, must parse and validate (the generator promises valid
// programs) and come out the same from the same bytes. Nothing is run: this
// target is fast, so it reaches far more generator paths per second than
// the preemption fuzzer does.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "core/ir.h"
#include "oracle/preempt_case.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  safepoint::oracle::Case c, again;
  std::string err;
  if (!safepoint::oracle::DecodeCase(data, size, &c, &err)) {
    if (err.empty()) {
      fprintf(stderr, "==case-fuzz== refused without a reason\n");
      abort();
    }
    return 0;
  }
  safepoint::ir::Program prog;
  if (!safepoint::ir::ParseProgram(c.program, &prog, &err)) {
    fprintf(stderr, "==case-fuzz== %s does not parse: %s\n%s", c.program_name.c_str(), err.c_str(), c.program.c_str());
    abort();
  }
  if (!safepoint::oracle::DecodeCase(data, size, &again, &err) || again.program != c.program ||
      again.settings != c.settings || again.armed != c.armed) {
    fprintf(stderr, "==case-fuzz== the same bytes decoded twice differ\n");
    abort();
  }
  return 0;
}
