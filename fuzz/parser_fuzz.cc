// Input fuzzer for the program text (issue 9's input fuzzers): whatever
// the bytes, ir::ParseProgram either refuses them with "LINE: message",
// LINE a line of the input, or accepts a program that ir::Validate accepts
// again and whose text round trip is stable in its function names. Never a
// crash, a hang or an unbounded allocation: libFuzzer's -rss_limit_mb and
// -timeout stand guard, and a trap names what broke.
//
// Run by the suite for a fixed number of runs from a fixed seed on every
// port (natively and under QEMU); longer by hand:
//   bazel run --config=CONFIG //fuzz:parser_fuzz -- -max_total_time=600 fuzz/corpus/parser
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "core/ir.h"

namespace {

[[noreturn]] void Broken(const char* what, const std::string& detail) {
  fprintf(stderr, "parser_fuzz: %s: %s\n", what, detail.c_str());
  abort();
}

size_t Lines(const std::string& text) {
  size_t n = 1;
  for (char c : text) n += c == '\n';
  return n;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace safepoint;
  std::string text(reinterpret_cast<const char*>(data), size);
  ir::Program prog;
  std::string err;
  if (!ir::ParseProgram(text, &prog, &err)) {
    // A refusal names a line of the input: "N: message".
    size_t i = 0;
    while (i < err.size() && isdigit(static_cast<unsigned char>(err[i]))) i++;
    if (i == 0 || i + 2 > err.size() || err[i] != ':' || err[i + 1] != ' ') Broken("a refusal without a line", err);
    unsigned long line = strtoul(err.c_str(), nullptr, 10);
    if (line > Lines(text)) Broken("a refusal naming a line past the input", err);
    return 0;
  }
  std::string again;
  if (!ir::Validate(prog, &again)) Broken("the parser accepted what the validator refuses", again);
  for (const ir::Function& f : prog.funcs) {
    if (prog.Find(f.name) != &f) Broken("two functions of one name", f.name);
    if (f.frame < 0 || f.frame > ir::kMaxFrame || f.frame % 8 != 0) Broken("a frame out of range", f.name);
  }
  return 0;
}
