// Input fuzzer for the reader of Go binaries (realgo/binary.h): an input is
// a list of edits applied to a real Go binary from the runfiles (Go 1.19's
// realgo/testdata hello, amd64 or arm64), so that the mutations reach the
// function table and the DWARF, not just the ELF header. Whatever the
// edits, GoBinary::Parse either refuses with one line, or returns a binary
// whose every function's tables lie inside the function and whose lookups
// (FuncAt, ValueAt, InnermostName) at every PC of a few functions return.
//
// Input: byte 0 picks the binary (even amd64, odd arm64); then edits of
//   [op] [region] [offset: 3 bytes LE] [len] [len bytes]
// op & 3: 0 overwrite, 1 xor, 2 truncate the file at the offset, 3 fill
// with byte; region (mod 4): the whole file, .gopclntab, the ELF headers
// (first 4 KB and the section headers), the end of the pclntab's function
// records; the offset is taken modulo the region's size.
//
// Run by the suite for a fixed number of runs from a fixed seed on every
// port; longer by hand:
//   bazel run --config=CONFIG //fuzz:gobinary_fuzz -- -max_total_time=600
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <unistd.h>

#include "realgo/binary.h"

namespace {

using safepoint::realgo::GoBinary;
using safepoint::realgo::GoFunc;
using safepoint::realgo::PcRun;

[[noreturn]] void Broken(const char* what, const std::string& detail) {
  fprintf(stderr, "gobinary_fuzz: %s: %s\n", what, detail.c_str());
  abort();
}

struct Base {
  std::vector<uint8_t> bytes;
  uint64_t pcln_off = 0, pcln_size = 0, shoff = 0, shsize = 0;
};

uint64_t Le(const std::vector<uint8_t>& f, uint64_t at, int n) {
  uint64_t v = 0;
  for (int i = 0; i < n && at + i < f.size(); ++i) v |= uint64_t{f[at + i]} << (8 * i);
  return v;
}

// The base binary is a build output (a runfile): found from the working
// directory as Bazel's test runs start it, else in this executable's own
// runfiles tree, as a campaign started outside Bazel (ci/fuzz-nightly.sh)
// runs it.
std::vector<uint8_t> ReadRunfile(const char* path, std::string* tried) {
  std::vector<std::string> places = {path};
  char exe[4096];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n > 0) {
    exe[n] = 0;
    places.push_back(std::string(exe) + ".runfiles/safepoint/" + path);
  }
  if (const char* d = getenv("TEST_SRCDIR")) places.push_back(std::string(d) + "/safepoint/" + path);
  for (const std::string& p : places) {
    std::ifstream in(p, std::ios::binary);
    std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (bytes.size() >= 4096) return bytes;
    *tried += (tried->empty() ? "" : ", ") + p;
  }
  return {};
}

Base Load(const char* path) {
  Base b;
  std::string tried;
  b.bytes = ReadRunfile(path, &tried);
  if (b.bytes.size() < 4096) Broken("cannot read the base binary", tried);
  std::string err;
  if (!GoBinary::Parse(b.bytes, &err)) Broken("the unedited base binary is refused", err);
  const auto& f = b.bytes;
  b.shoff = Le(f, 40, 8);
  uint64_t shnum = Le(f, 60, 2), shstr = Le(f, 62, 2);
  b.shsize = shnum * 64;
  uint64_t stroff = Le(f, b.shoff + shstr * 64 + 24, 8);
  for (uint64_t i = 0; i < shnum; ++i) {
    uint64_t sh = b.shoff + i * 64;
    uint64_t name = stroff + Le(f, sh, 4);
    if (name + 11 <= f.size() && std::memcmp(&f[name], ".gopclntab", 11) == 0) {
      b.pcln_off = Le(f, sh + 24, 8);
      b.pcln_size = Le(f, sh + 32, 8);
    }
  }
  if (b.pcln_size == 0) Broken("no .gopclntab in the base binary", path);
  return b;
}

const Base& Binary(int which) {
  static const Base amd64 = Load("realgo/testdata/go1.19/amd64/hello");
  static const Base arm64 = Load("realgo/testdata/go1.19/arm64/hello");
  return which ? arm64 : amd64;
}

void CheckRuns(const GoFunc& f, const std::vector<PcRun>& runs, const char* what) {
  uint64_t last = f.entry;
  for (const PcRun& r : runs) {
    if (r.end <= last) Broken("a table run that does not advance", f.name + " " + what);
    last = r.end;
  }
  if (last > f.end) Broken("a table past its function", f.name + " " + what);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const Base& base = Binary(data[0] & 1);
  std::vector<uint8_t> bytes = base.bytes;
  size_t i = 1;
  for (int edits = 0; edits < 16 && i + 6 <= size; ++edits) {
    uint8_t op = data[i] & 3, region = data[i + 1] & 3;
    uint64_t off = data[i + 2] | (data[i + 3] << 8) | (uint64_t{data[i + 4]} << 16);
    size_t len = data[i + 5];
    i += 6;
    uint64_t lo = 0, span = bytes.size();
    switch (region) {
      case 1: lo = base.pcln_off, span = base.pcln_size; break;
      case 2: lo = (off & 1) ? base.shoff : 0, span = (off & 1) ? base.shsize : 4096; break;
      case 3: lo = base.pcln_off + base.pcln_size * 3 / 4, span = base.pcln_size / 4; break;
    }
    if (span == 0 || lo >= bytes.size()) continue;
    uint64_t at = lo + off % span;
    if (op == 2) {
      if (at < bytes.size()) bytes.resize(at);
      continue;
    }
    for (size_t k = 0; k < len && at + k < bytes.size(); ++k) {
      uint8_t v = op == 3 ? (i < size ? data[i] : 0) : (i + k < size ? data[i + k] : 0);
      if (op == 1) bytes[at + k] ^= v;
      else bytes[at + k] = v;
    }
    i += op == 3 ? 1 : len;
  }
  std::string err;
  auto b = GoBinary::Parse(std::move(bytes), &err);
  if (!b) {
    if (err.empty()) Broken("a refusal without a message", "");
    if (err.find('\n') != std::string::npos) Broken("a refusal of more than one line", err);
    return 0;
  }
  const auto& funcs = b->funcs();
  for (size_t k = 0; k < funcs.size(); ++k) {
    const GoFunc& f = funcs[k];
    if (f.end <= f.entry) Broken("a function that ends before it starts", f.name);
    if (k > 0 && funcs[k - 1].end > f.entry) Broken("functions that overlap", f.name);
    CheckRuns(f, f.pcsp, "pcsp");
    CheckRuns(f, f.unsafe_point, "unsafe points");
    CheckRuns(f, f.inl_index, "inline index");
    CheckRuns(f, f.stackmap_index, "stack map index");
    CheckRuns(f, f.file, "pcfile");
    CheckRuns(f, f.line, "pcln");
    for (const auto& c : f.inline_tree)
      if (c.parent < -1 || c.parent >= static_cast<int32_t>(f.inline_tree.size()))
        Broken("an inline parent out of the tree", f.name);
  }
  for (const char* n : {"main.main", "main.link", "runtime.asyncPreempt"}) {
    const GoFunc* f = b->FuncNamed(n);
    if (!f) continue;
    for (uint64_t pc = f->entry - 1; pc <= f->end; ++pc) {
      const GoFunc* at = b->FuncAt(pc);
      if (at && (pc < at->entry || pc >= at->end)) Broken("FuncAt outside the function", at->name);
      b->InnermostName(pc);
      GoBinary::ValueAt(f->unsafe_point, f->entry, pc, -1);
      GoBinary::ValueAt(f->pcsp, f->entry, pc, 0);
    }
  }
  return 0;
}
