// The reader against real Go binaries (realgo/testdata/hello.go built by
// each Go version of REALGO_GO_VERSIONS for every GOARCH): every function
// against the ELF symbol table as binutils prints it and against `go tool
// nm`, frames against the disassembly, the unsafe-point and inline tables,
// the runtime's offsets; and refusals of broken copies, never a crash.
#include "realgo/binary.h"

#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <random>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace safepoint::realgo {
namespace {

std::vector<std::string> g_versions, g_archs;

std::vector<std::string> Split(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  std::string w;
  while (std::getline(in, w, ','))
    if (!w.empty()) out.push_back(w);
  return out;
}

std::string Dir(const std::string& v, const std::string& a) { return "realgo/testdata/go" + v + "/" + a + "/"; }

std::vector<uint8_t> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<uint8_t>((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

std::string ReadText(const std::string& path) {
  std::vector<uint8_t> b = ReadFile(path);
  return std::string(b.begin(), b.end());
}

struct Sym {
  std::string name;
  uint64_t size;
};
using SymsByAddr = std::multimap<uint64_t, Sym>;

// objdump -t: "ADDR FLAGS(7) SECTION\tSIZE NAME".
SymsByAddr ObjdumpSymbols(const std::string& path) {
  SymsByAddr m;
  std::ifstream in(path);
  std::string l;
  std::regex re("^([0-9a-f]+) .{7} (\\S+)\\t([0-9a-f]+) (.*)$");
  std::smatch s;
  while (std::getline(in, l))
    if (std::regex_match(l, s, re) && s[2] == ".text")
      m.emplace(std::stoull(s[1], nullptr, 16), Sym{s[4], std::stoull(s[3], nullptr, 16)});
  return m;
}

// go tool nm -size: "ADDR SIZE TYPE NAME".
SymsByAddr GoNm(const std::string& path) {
  SymsByAddr m;
  std::ifstream in(path);
  std::string l;
  std::regex re("^\\s*([0-9a-f]+)\\s+(\\d+) ([tT]) (.*)$");
  std::smatch s;
  while (std::getline(in, l))
    if (std::regex_match(l, s, re)) m.emplace(std::stoull(s[1], nullptr, 16), Sym{s[4], std::stoull(s[2])});
  return m;
}

// The pclntab's name of an ELF symbol: no ABI suffix; an array length in
// a generated equality function's type is "[...]".
std::string PclnName(const std::string& n) {
  std::string s = n;
  if (s.size() > 5 && s.compare(s.size() - 5, 5, ".abi0") == 0) s.resize(s.size() - 5);
  return std::regex_replace(s, std::regex("\\[[0-9]+\\]"), "[...]");
}

// Checks every function against a symbol listing: a symbol at its entry
// with its name and its size.
void MatchSymbols(const GoBinary& b, const SymsByAddr& syms, const std::string& what) {
  ASSERT_GT(syms.size(), 100u) << what;
  int bad = 0;
  for (const GoFunc& f : b.funcs()) {
    auto [lo, hi] = syms.equal_range(f.entry);
    bool found = false;
    for (auto it = lo; it != hi; ++it) {
      if (it->second.name != f.name && PclnName(it->second.name) != f.name) continue;
      found = true;
      EXPECT_EQ(it->second.size, f.end - f.entry) << what << ": " << f.name << " size";
    }
    if (!found && ++bad < 10) ADD_FAILURE() << what << ": no symbol " << f.name << " at 0x" << std::hex << f.entry;
  }
  EXPECT_EQ(bad, 0) << what;
}

// The first SP decrement of main.grow's prologue, as each port's
// disassembler spells it.
int DisassembledFrame(const std::string& arch, const std::string& text) {
  std::map<std::string, std::string> re = {
      {"amd64", "sub\\s+\\$0x([0-9a-f]+),%rsp"},
      {"arm64", "\\[sp, #-([0-9]+)\\]!"},
      {"loong64", "addi\\.d\\s+\\$sp, \\$sp, -([0-9]+)"},
      {"riscv64", "addi?\\s+sp,\\s*sp,\\s*-([0-9]+)"},
  };
  std::smatch m;
  if (!std::regex_search(text, m, std::regex(re[arch]))) return -1;
  return static_cast<int>(std::stoul(m[1], nullptr, arch == "amd64" ? 16 : 10));
}

class Each : public ::testing::Test {
 protected:
  template <typename F>
  void ForEach(F f) {
    for (const std::string& v : g_versions)
      for (const std::string& a : g_archs) {
        SCOPED_TRACE("go" + v + " " + a);
        std::string err;
        auto b = GoBinary::Open(Dir(v, a) + "hello", &err);
        ASSERT_TRUE(b) << err;
        f(v, a, *b);
      }
  }
};

TEST_F(Each, Identity) {
  ForEach([](const std::string& v, const std::string& a, const GoBinary& b) {
    EXPECT_EQ(b.goarch(), a);
    EXPECT_EQ(b.go_version().rfind("go" + v, 0), 0u) << b.go_version();
    EXPECT_EQ(std::to_string(b.go_minor()), v.substr(2));
    EXPECT_EQ(b.pc_quantum(), a == "amd64" ? 1u : (a == "riscv64" && b.go_minor() >= 26) ? 2u : 4u);
    EXPECT_GT(b.funcs().size(), 1000u);
  });
}

TEST_F(Each, FunctionsMatchObjdumpAndGoNm) {
  ForEach([](const std::string& v, const std::string& a, const GoBinary& b) {
    MatchSymbols(b, ObjdumpSymbols(Dir(v, a) + "hello.symbols"), "objdump -t");
    MatchSymbols(b, GoNm(Dir(v, a) + "hello.gonm"), "go tool nm -size");
    for (size_t i = 1; i < b.funcs().size(); ++i) EXPECT_LE(b.funcs()[i - 1].end, b.funcs()[i].entry);
    for (const GoFunc& f : b.funcs()) {
      EXPECT_EQ(b.FuncAt(f.entry), &f);
      EXPECT_EQ(b.FuncAt(f.end - 1), &f);
      EXPECT_EQ(b.Symbol("main.main"), b.FuncNamed("main.main")->entry);
    }
  });
}

TEST_F(Each, FrameSizeAgainstDisassembly) {
  ForEach([](const std::string& v, const std::string& a, const GoBinary& b) {
    const GoFunc* f = b.FuncNamed("main.grow");
    ASSERT_TRUE(f);
    int frame = DisassembledFrame(a, ReadText(Dir(v, a) + "hello.grow.s"));
    ASSERT_GT(frame, 0) << "no SP decrement found in the disassembly";
    EXPECT_EQ(f->MaxFrame(), frame);
    EXPECT_EQ(GoBinary::ValueAt(f->pcsp, f->entry, f->entry, -1), 0) << "SP delta at entry";
    // The body (the first PC of the stack-map-carrying part) runs at the frame.
    ASSERT_FALSE(f->stackmap_index.empty());
    uint64_t body = 0;
    uint64_t from = f->entry;
    for (const PcRun& r : f->stackmap_index) {
      if (r.value >= 0) {
        body = from;
        break;
      }
      from = r.end;
    }
    ASSERT_NE(body, 0u);
    EXPECT_EQ(GoBinary::ValueAt(f->pcsp, f->entry, body, -1), frame);
    // Leaves: main.work has no frame.
    EXPECT_EQ(b.FuncNamed("main.work")->MaxFrame(), 0);
  });
}

// Whether some PC of [lo, hi) has this unsafe-point value.
bool Has(const GoFunc& f, uint64_t lo, uint64_t hi, int32_t value) {
  for (uint64_t pc = lo; pc < hi; ++pc)
    if (GoBinary::ValueAt(f.unsafe_point, f.entry, pc, -1) == value) return true;
  return false;
}

TEST_F(Each, UnsafePoints) {
  ForEach([](const std::string&, const std::string&, const GoBinary& b) {
    for (const char* name : {"main.main", "main.link", "main.grow"}) {
      const GoFunc* f = b.FuncNamed(name);
      ASSERT_TRUE(f) << name;
      ASSERT_FALSE(f->unsafe_point.empty()) << name;
      EXPECT_TRUE(f->has_locals_map) << name;
      EXPECT_FALSE(f->asm_) << name;
      // The prologue: before the frame is set up, the stack check is unsafe.
      uint64_t framed = f->pcsp.empty() ? f->end : f->pcsp.front().end;
      EXPECT_TRUE(Has(*f, f->entry, framed, kUnsafePointUnsafe)) << name << ": prologue check not unsafe";
      EXPECT_EQ(GoBinary::ValueAt(f->unsafe_point, f->entry, f->entry, 0), kUnsafePointSafe) << name;
    }
    // main.link stores a pointer into a global: a write-barrier sequence,
    // unsafe inside the frame.
    const GoFunc* link = b.FuncNamed("main.link");
    bool wb = false;
    for (uint64_t pc = link->entry; pc < link->end; ++pc)
      if (GoBinary::ValueAt(link->pcsp, link->entry, pc, 0) == link->MaxFrame() &&
          GoBinary::ValueAt(link->unsafe_point, link->entry, pc, -1) == kUnsafePointUnsafe)
        wb = true;
    EXPECT_TRUE(wb) << "no unsafe write-barrier sequence in main.link";
    const GoFunc* ap = b.FuncNamed("runtime.asyncPreempt");
    ASSERT_TRUE(ap);
    EXPECT_TRUE(ap->asm_);
    EXPECT_FALSE(b.FuncNamed("runtime.asyncPreempt2")->asm_);
  });
}

TEST_F(Each, InlineTree) {
  ForEach([](const std::string&, const std::string&, const GoBinary& b) {
    const GoFunc* f = b.FuncNamed("main.main");
    ASSERT_TRUE(f);
    EXPECT_EQ(b.InnermostName(f->entry), "main.main");
    ASSERT_FALSE(f->inline_tree.empty());
    bool runtime_inlined = false, gosched = false;
    for (uint64_t pc = f->entry; pc < f->end; ++pc) {
      int32_t ix = GoBinary::ValueAt(f->inl_index, f->entry, pc, -1);
      std::string n = b.InnermostName(pc);
      if (ix < 0) {
        EXPECT_EQ(n, "main.main");
        continue;
      }
      ASSERT_LT(static_cast<size_t>(ix), f->inline_tree.size());
      EXPECT_EQ(n, f->inline_tree[ix].name);
      if (n.rfind("runtime.", 0) == 0) runtime_inlined = true;
      if (n == "runtime.Gosched") gosched = true;
    }
    EXPECT_TRUE(runtime_inlined);
    EXPECT_TRUE(gosched);
    // runtime.gcount is inlined into runtime.NumGoroutine, inlined into main.
    for (const auto& c : f->inline_tree) {
      if (c.name == "runtime.gcount") {
        ASSERT_GE(c.parent, 0);
        EXPECT_EQ(f->inline_tree[c.parent].name, "runtime.NumGoroutine");
      }
      if (c.name == "runtime.NumGoroutine" || c.name == "runtime.Gosched") EXPECT_EQ(c.parent, -1);
      EXPECT_LT(static_cast<uint64_t>(c.parent_pc), f->end - f->entry);
    }
  });
}

TEST_F(Each, RuntimeOffsets) {
  ForEach([](const std::string&, const std::string&, const GoBinary& b) {
    const RuntimeOffsets& o = b.offsets();
    EXPECT_EQ(o.g_stack_lo, 0);
    EXPECT_EQ(o.g_stack_hi, 8);
    EXPECT_EQ(o.g_stackguard0, 16);
    if (b.go_minor() == 19) EXPECT_EQ(o.g_m, 48);
    EXPECT_EQ(o.g_sched_sp, 56);
    EXPECT_EQ(o.g_sched_pc, 64);
    std::vector<int> g = {o.g_stack_lo, o.g_stack_hi, o.g_stackguard0, o.g_m, o.g_atomicstatus, o.g_goid,
                          o.g_preempt, o.g_preemptStop, o.g_preemptShrink, o.g_stktopsp};
    std::vector<int> m = {o.m_g0, o.m_curg, o.m_p, o.m_preemptGen, o.m_signalPending, o.m_procid,
                          o.m_locks, o.m_mallocing, o.m_preemptoff};
    std::vector<int> p = {o.p_status, o.p_preempt, o.p_sysmontick};
    for (auto* v : {&g, &m, &p}) {
      std::vector<int> s = *v;
      std::sort(s.begin(), s.end());
      EXPECT_EQ(std::unique(s.begin(), s.end()), s.end()) << "offsets not distinct";
      for (int x : s) EXPECT_GE(x, 0);
    }
    for (int x : {o.g_atomicstatus, o.g_goid, o.g_preempt, o.m_curg, o.m_p, o.m_preemptGen, o.m_signalPending,
                  o.p_preempt, o.p_sysmontick})
      EXPECT_GT(x, 0);
    EXPECT_EQ(o.g_preempt_size, 1);
    EXPECT_EQ(o.g_preemptStop_size, 1);
    EXPECT_EQ(o.g_preemptShrink_size, 1);
    EXPECT_EQ(o.p_preempt_size, 1);
    EXPECT_EQ(o.m_preemptGen_size, 4);
    EXPECT_EQ(o.m_signalPending_size, 4);
    EXPECT_EQ(o.g_atomicstatus_size, 4);
    EXPECT_EQ(o.g_goid_size, 8);
    EXPECT_EQ(o.sysmontick_schedwhen_size, 8);
    EXPECT_EQ(o.sysmontick_schedtick_size, 4);
    EXPECT_NE(o.sysmontick_schedwhen, o.sysmontick_schedtick);
    EXPECT_EQ(o.debug_asyncpreemptoff_size, 4);
    EXPECT_GT(o.debug_addr, 0u);
    EXPECT_EQ(o.debug_addr, b.Symbol("runtime.debug"));
    // runtime.debug is in .noptrbss: no bytes in the file. Text is.
    uint32_t word = 0;
    EXPECT_FALSE(b.ReadVirtual(o.debug_addr, &word, 4));
    EXPECT_TRUE(b.ReadVirtual(b.FuncNamed("main.main")->entry, &word, 4));
    EXPECT_EQ(o.dwarf_version, b.go_minor() >= 25 ? 5 : 4);
  });
}

// --- refusals ---------------------------------------------------------

void ExpectRefused(std::vector<uint8_t> bytes, const std::string& want, const std::string& what) {
  std::string err;
  auto b = GoBinary::Parse(std::move(bytes), &err);
  EXPECT_FALSE(b) << what;
  EXPECT_FALSE(err.empty()) << what;
  EXPECT_EQ(err.find('\n'), std::string::npos) << what << ": " << err;
  if (!want.empty()) EXPECT_NE(err.find(want), std::string::npos) << what << ": " << err;
}

// A parsed binary's every table is within its function, and lookups at
// every PC of a few functions return.
void ExpectSane(const GoBinary& b) {
  for (const GoFunc& f : b.funcs()) {
    ASSERT_LT(f.entry, f.end);
    for (const auto* t : {&f.pcsp, &f.unsafe_point, &f.inl_index, &f.stackmap_index, &f.file, &f.line}) {
      uint64_t last = f.entry;
      for (const PcRun& r : *t) {
        ASSERT_GT(r.end, last);
        last = r.end;
      }
      ASSERT_LE(last, f.end);
    }
  }
  for (const char* n : {"main.main", "main.link", "runtime.asyncPreempt"})
    if (const GoFunc* f = b.FuncNamed(n))
      for (uint64_t pc = f->entry - 1; pc <= f->end; ++pc) {
        b.FuncAt(pc);
        b.InnermostName(pc);
        GoBinary::ValueAt(f->unsafe_point, f->entry, pc, -1);
      }
}

std::vector<uint8_t> Hello(const std::string& arch) { return ReadFile(Dir(g_versions[0], arch) + "hello"); }

// n little-endian bytes of f at `at`, read here independently of the reader.
uint64_t LeAt(const std::vector<uint8_t>& f, uint64_t at, int n) {
  uint64_t v = 0;
  for (int i = 0; i < n; ++i) v |= uint64_t{f.at(at + i)} << (8 * i);
  return v;
}

// The file offset of .gopclntab (from the section headers, read here
// independently of the reader).
void PclntabRange(const std::vector<uint8_t>& f, uint64_t* off, uint64_t* size) {
  auto le = [&](uint64_t at, int n) { return LeAt(f, at, n); };
  uint64_t shoff = le(40, 8), shnum = le(60, 2), shstr = le(62, 2);
  uint64_t stroff = le(shoff + shstr * 64 + 24, 8);
  for (uint64_t i = 0; i < shnum; ++i) {
    uint64_t sh = shoff + i * 64;
    const char* name = reinterpret_cast<const char*>(&f.at(stroff + le(sh, 4)));
    if (std::strcmp(name, ".gopclntab") == 0) {
      *off = le(sh + 24, 8);
      *size = le(sh + 32, 8);
      return;
    }
  }
  *off = *size = 0;
}

TEST(Refuse, NotElfAnd32BitAndOtherMachines) {
  const std::string text = "#!/bin/sh\necho not a binary\n";
  ExpectRefused(std::vector<uint8_t>(text.begin(), text.end()), "not an ELF", "a shell script");
  ExpectRefused({}, "not an ELF", "an empty file");
  std::vector<uint8_t> b = Hello("amd64");
  ASSERT_GT(b.size(), 1000u);
  auto c = b;
  c[4] = 1;  // ELFCLASS32
  ExpectRefused(c, "64-bit", "a 32-bit ELF");
  c = b;
  c[5] = 2;  // big-endian
  ExpectRefused(c, "little-endian", "a big-endian ELF");
  c = b;
  c[18] = 40;  // EM_ARM
  c[19] = 0;
  ExpectRefused(c, "ELF machine 40", "an ARM ELF");
  c = b;
  c[18] = 8;  // EM_MIPS
  ExpectRefused(c, "not an architecture with a port", "a MIPS ELF");
}

// A string table whose header says SHT_NULL (inactive: its offset and
// size undefined), past the end of the file: the section names' and the
// symbols' alike. (Found by //fuzz:gobinary_fuzz: both were read there.)
TEST(Refuse, StringTableOfTypeNull) {
  std::vector<uint8_t> b = Hello("amd64");
  auto le = [&](uint64_t at, int n) { return LeAt(b, at, n); };
  auto put = [](std::vector<uint8_t>& f, uint64_t at, uint64_t v, int n) {
    for (int i = 0; i < n; ++i) f.at(at + i) = static_cast<uint8_t>(v >> (8 * i));
  };
  const uint64_t shoff = le(40, 8), shnum = le(60, 2), shstr = le(62, 2);
  // SHT_NULL, its offset far past the end and a size to match.
  auto nulled = [&](uint64_t index) {
    auto c = b;
    const uint64_t sh = shoff + index * 64;
    put(c, sh + 4, 0, 4);
    put(c, sh + 24, uint64_t{1} << 40, 8);
    put(c, sh + 32, 4096, 8);
    return c;
  };
  ExpectRefused(nulled(shstr), "section name table", "the section name table of type SHT_NULL");
  uint64_t strtab = shnum;
  for (uint64_t i = 0; i < shnum; ++i)
    if (le(shoff + i * 64 + 4, 4) == 2) strtab = le(shoff + i * 64 + 40, 4);  // SHT_SYMTAB's sh_link
  ASSERT_LT(strtab, shnum) << "hello has a symbol table";
  ExpectRefused(nulled(strtab), "no string table", "the symbols' string table of type SHT_NULL");
}

TEST(Refuse, Truncated) {
  for (const std::string& a : {std::string("amd64"), std::string("arm64")}) {
    std::vector<uint8_t> b = Hello(a);
    uint64_t off, size;
    PclntabRange(b, &off, &size);
    ASSERT_GT(size, 0u);
    std::vector<size_t> lengths;
    for (size_t n = 0; n < 128; ++n) lengths.push_back(n);
    for (size_t k = 1; k < 64; ++k) lengths.push_back(b.size() * k / 64);
    for (size_t k = 0; k < 32; ++k) lengths.push_back(off + size * k / 32);
    lengths.push_back(b.size() - 1);
    for (size_t n : lengths) ExpectRefused(std::vector<uint8_t>(b.begin(), b.begin() + n), "", a + " truncated");
  }
}

TEST(Refuse, PclntabMagicAndHeader) {
  std::vector<uint8_t> b = Hello("amd64");
  uint64_t off, size;
  PclntabRange(b, &off, &size);
  auto c = b;
  c[off] ^= 0x0f;
  ExpectRefused(c, "magic", "a changed magic");
  c = b;
  c[off] = 0xfb;  // the Go 1.2-1.15 magic
  ExpectRefused(c, "magic 0xfffffffb", "an old magic");
  c = b;
  c[off] = 0xf1;  // 1.20's magic in a 1.19 binary
  if (g_versions[0] == "1.19") ExpectRefused(c, "does not match", "a magic from another version");
  c = b;
  c[off + 6] = 4;  // pc quantum
  ExpectRefused(c, "pc quantum", "a wrong pc quantum");
  c = b;
  for (int i = 0; i < 8; ++i) c[off + 8 + i] = 0xff;  // nfunc
  ExpectRefused(c, "function count", "a huge function count");
  c = b;
  for (int i = 0; i < 8; ++i) c[off + 56 + i] = 0xee;  // pctab offset
  ExpectRefused(c, "out of bounds", "a pctab offset out of bounds");
}

TEST(Refuse, Stripped) {
  std::string err;
  auto b = GoBinary::Open(Dir(g_versions[0], "amd64") + "hello.nodebug", &err);
  EXPECT_FALSE(b);
  EXPECT_NE(err.find("no DWARF"), std::string::npos) << err;
  EXPECT_EQ(err.find('\n'), std::string::npos);
}

TEST(Refuse, FlippedPclntabBytes) {
  // Random bytes of the function table flipped: each copy refused with one
  // line, or read with every table inside its function.
  std::mt19937_64 rng(28);
  for (const std::string& a : {std::string("amd64"), std::string("arm64")}) {
    std::vector<uint8_t> b = Hello(a);
    uint64_t off, size;
    PclntabRange(b, &off, &size);
    int refused = 0, read = 0;
    for (int trial = 0; trial < 12; ++trial) {
      auto c = b;
      int n = 1 + static_cast<int>(rng() % 16);
      for (int k = 0; k < n; ++k) c[off + rng() % size] ^= static_cast<uint8_t>(1 + rng() % 255);
      std::string err;
      auto g = GoBinary::Parse(std::move(c), &err);
      if (g) {
        ++read;
        ExpectSane(*g);
      } else {
        ++refused;
        EXPECT_EQ(err.find('\n'), std::string::npos) << err;
        EXPECT_FALSE(err.empty());
      }
    }
    std::printf("%s: %d flipped copies refused, %d read\n", a.c_str(), refused, read);
  }
}

}  // namespace
}  // namespace safepoint::realgo

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a.rfind("--versions=", 0) == 0) safepoint::realgo::g_versions = safepoint::realgo::Split(a.substr(11));
    if (a.rfind("--archs=", 0) == 0) safepoint::realgo::g_archs = safepoint::realgo::Split(a.substr(8));
  }
  if (safepoint::realgo::g_versions.empty() || safepoint::realgo::g_archs.empty()) {
    std::fprintf(stderr, "binary_test: --versions=V,... --archs=A,... are required\n");
    return 2;
  }
  return RUN_ALL_TESTS();
}
