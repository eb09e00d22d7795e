#include "realgo/binary.h"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <iterator>
#include <unordered_map>
#include <utility>

#include "core/hex.h"
#include "realgo/dwarf.h"
#include "realgo/elf.h"

namespace safepoint::realgo {
namespace {

constexpr uint32_t kMagic119 = 0xfffffff0, kMagic120 = 0xfffffff1;
constexpr uint32_t kNoFuncdata = 0xffffffff;
constexpr int kPcdataUnsafePoint = 0, kPcdataStackMapIndex = 1, kPcdataInlTreeIndex = 2;
constexpr int kFuncdataLocalsPointerMaps = 1, kFuncdataInlTree = 3;
// Bounds on what a well-formed table can hold, so a corrupt count cannot
// make the reader allocate without limit.
constexpr uint32_t kMaxInlineEntries = 1 << 16;
constexpr size_t kMaxName = 1 << 16;

struct Port {
  uint16_t machine;
  const char* goarch;
  uint32_t quantum;
};
constexpr Port kPorts[] = {{62, "amd64", 1}, {183, "arm64", 4}, {258, "loong64", 4}, {243, "riscv64", 4}};

// A view of the pclntab with checked reads.
struct Tab {
  const uint8_t* p;
  size_t n;
  bool Has(uint64_t off, uint64_t len) const { return off <= n && len <= n - off; }
  bool U32(uint64_t off, uint32_t* v) const {
    if (!Has(off, 4)) return false;
    *v = Le32(p + off);
    return true;
  }
  bool CStr(uint64_t off, std::string* out) const {
    if (off >= n) return false;
    size_t lim = std::min<size_t>(n - off, kMaxName);
    const void* z = std::memchr(p + off, 0, lim);
    if (!z) return false;
    out->assign(reinterpret_cast<const char*>(p + off), static_cast<const uint8_t*>(z) - (p + off));
    return true;
  }
};

// Go's readvarint: at most 5 bytes for a uint32.
bool Varint(const Tab& t, uint64_t* pos, uint32_t* v) {
  uint32_t x = 0;
  for (int shift = 0; shift < 35; shift += 7) {
    if (*pos >= t.n) return false;
    uint8_t b = t.p[(*pos)++];
    if (shift == 28 && (b & 0x70)) return false;  // does not fit 32 bits
    x |= uint32_t{b & 0x7fu} << shift;
    if (!(b & 0x80)) {
      *v = x;
      return true;
    }
  }
  return false;  // too long
}

// Decodes the pc-value table at pctab offset `off` for a function at
// [entry, limit). Runs of zero length are dropped. False with *err.
bool DecodePcValue(const Tab& t, uint64_t pctab, uint32_t off, uint64_t entry, uint64_t limit,
                   uint32_t quantum, std::vector<PcRun>* out, std::string* err) {
  out->clear();
  if (off == 0) return true;
  uint64_t pos = pctab + off;
  if (pos < pctab || pos >= t.n) {
    *err = "pc-value table offset out of bounds";
    return false;
  }
  uint64_t pc = entry;
  int64_t val = -1;
  for (bool first = true;; first = false) {
    uint32_t uv, pcd;
    if (!Varint(t, &pos, &uv)) {
      *err = "pc-value table truncated or varint too long";
      return false;
    }
    if (uv == 0 && !first) break;
    int32_t vd = (uv & 1) ? static_cast<int32_t>(~(uv >> 1)) : static_cast<int32_t>(uv >> 1);
    if (!Varint(t, &pos, &pcd)) {
      *err = "pc-value table truncated or varint too long";
      return false;
    }
    val += vd;
    if (val < INT32_MIN || val > INT32_MAX) {
      *err = "pc-value table value out of range";
      return false;
    }
    uint64_t step = uint64_t{pcd} * quantum;
    if (step > limit - pc) {
      *err = "pc-value table runs past the function";
      return false;
    }
    if (step == 0) {
      if (!first) {
        *err = "pc-value table does not advance";
        return false;
      }
      continue;
    }
    pc += step;
    out->push_back({pc, static_cast<int32_t>(val)});
  }
  return true;
}

bool ParseVersion(const std::string& v, int* minor) {
  size_t at = v.find("go1.");
  if (at == std::string::npos) return false;
  size_t i = at + 4;
  int m = 0, digits = 0;
  while (i < v.size() && v[i] >= '0' && v[i] <= '9' && digits < 4) m = m * 10 + (v[i++] - '0'), ++digits;
  if (digits == 0) return false;
  *minor = m;
  return true;
}

}  // namespace

int32_t GoFunc::MaxFrame() const {
  int32_t m = 0;
  for (const PcRun& r : pcsp) m = std::max(m, r.value);
  return m;
}

GoBinary::GoBinary() = default;
GoBinary::~GoBinary() = default;

std::unique_ptr<GoBinary> GoBinary::Open(const std::string& path, std::string* err) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    *err = path + ": cannot open";
    return nullptr;
  }
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::string e;
  auto b = Parse(std::move(bytes), &e);
  if (!b) *err = path + ": " + e;
  return b;
}

std::unique_ptr<GoBinary> GoBinary::Parse(std::vector<uint8_t> bytes, std::string* err) {
  std::unique_ptr<GoBinary> b(new GoBinary);
  std::string e;
  b->elf_ = ElfFile::Parse(std::move(bytes), &e);
  if (!b->elf_) {
    *err = e;
    return nullptr;
  }
  b->machine_ = b->elf_->machine();
  for (const Port& p : kPorts)
    if (p.machine == b->machine_) b->goarch_ = p.goarch, b->quantum_ = p.quantum;
  if (b->goarch_.empty()) {
    *err = "ELF machine " + std::to_string(b->machine_) + " is not an architecture with a port (amd64, arm64, loong64, riscv64)";
    return nullptr;
  }
  if (!b->elf_->Section(".gopclntab")) {
    *err = "not a Go binary (no .gopclntab section)";
    return nullptr;
  }
  if (!b->ReadVersion(&e) || !b->ReadPclntab(&e) || !b->ReadDwarf(&e)) {
    *err = e;
    return nullptr;
  }
  return b;
}

bool GoBinary::ReadVersion(std::string* err) {
  // runtime.buildVersion is a Go string: {pointer, length}.
  if (const ElfSymbol* s = elf_->FindSymbol("runtime.buildVersion")) {
    uint8_t hdr[16];
    if (elf_->ReadVirtual(s->value, hdr, 16)) {
      uint64_t ptr = Le64(hdr), len = Le64(hdr + 8);
      if (len > 0 && len < 256) {
        std::string v(len, '\0');
        if (elf_->ReadVirtual(ptr, v.data(), len)) version_ = v;
      }
    }
  }
  // Otherwise .go.buildinfo (1.18+: magic, pointer size, flags bit 2 =
  // inline strings, then the version as a varint-length string at 32).
  if (version_.empty()) {
    if (const ElfSection* s = elf_->Section(".go.buildinfo")) {
      const uint8_t* p;
      size_t n;
      if (elf_->RawSection(*s, &p, &n) && n > 33 && std::memcmp(p, "\xff Go buildinf:", 14) == 0 && (p[15] & 2)) {
        size_t len = p[32];
        if (len < 128 && 33 + len <= n) version_.assign(reinterpret_cast<const char*>(p + 33), len);
      }
    }
  }
  if (version_.empty()) {
    *err = "no Go version (neither runtime.buildVersion nor .go.buildinfo readable)";
    return false;
  }
  for (char& c : version_)
    if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f) c = '?';
  if (!ParseVersion(version_, &minor_)) {
    *err = "unrecognised Go version \"" + version_ + "\"";
    return false;
  }
  if (minor_ < 14) {
    *err = version_ + " has no asynchronous preemption (Go 1.14 and later have)";
    return false;
  }
  return true;
}

bool GoBinary::ReadPclntab(std::string* err) {
  const ElfSection* sec = elf_->Section(".gopclntab");
  Tab t;
  if (!elf_->RawSection(*sec, &t.p, &t.n)) {
    *err = ".gopclntab: no data in the file";
    return false;
  }
  if (t.n < 72) {
    *err = ".gopclntab: shorter than its header";
    return false;
  }
  magic_ = Le32(t.p);
  if (magic_ != kMagic119 && magic_ != kMagic120) {
    if (magic_ == 0xfffffffa || magic_ == 0xfffffffb)
      *err = ".gopclntab: magic " + Hex(magic_) + " (Go 1.2-1.17 layout) is not read; Go 1.19 to 1.26 are";
    else
      *err = ".gopclntab: bad magic " + Hex(magic_);
    return false;
  }
  if ((magic_ == kMagic119) != (minor_ < 20) || minor_ < 18) {
    *err = ".gopclntab: magic " + Hex(magic_) + " does not match " + version_;
    return false;
  }
  // riscv64 has a quantum of 2 once Go emits compressed instructions (1.26).
  if (goarch_ == "riscv64" && t.p[6] == 2) quantum_ = 2;
  if (t.p[4] != 0 || t.p[5] != 0 || t.p[6] != quantum_ || t.p[7] != 8) {
    *err = ".gopclntab: header has pc quantum " + std::to_string(t.p[6]) + " and pointer size " +
           std::to_string(t.p[7]) + " (want " + std::to_string(quantum_) + " and 8 for " + goarch_ + ")";
    return false;
  }
  uint64_t nfunc = Le64(t.p + 8);
  text_start_ = Le64(t.p + 24);
  uint64_t funcname = Le64(t.p + 32), cutab = Le64(t.p + 40), filetab = Le64(t.p + 48);
  uint64_t pctab = Le64(t.p + 56), pcln = Le64(t.p + 64);
  (void)cutab;
  (void)filetab;
  for (uint64_t o : {funcname, cutab, filetab, pctab, pcln}) {
    if (o >= t.n) {
      *err = ".gopclntab: table offset " + Hex(o) + " out of bounds";
      return false;
    }
  }
  if (text_start_ == 0) text_start_ = Symbol("runtime.text");
  if (nfunc == 0 || nfunc > (t.n - pcln) / 8 - 1 || !t.Has(pcln, (nfunc + 1) * 8)) {
    *err = ".gopclntab: function count " + std::to_string(nfunc) + " out of bounds";
    return false;
  }
  const size_t func_size = minor_ >= 20 ? 44 : 40;
  uint64_t gofunc = Symbol(minor_ >= 20 ? "go:func.*" : "go.func.*");
  funcs_.clear();
  funcs_.resize(nfunc);
  const uint8_t* ftab = t.p + pcln;
  uint64_t text_end = text_start_ + Le32(ftab + nfunc * 8);
  for (uint64_t i = 0; i < nfunc; ++i) {
    GoFunc& f = funcs_[i];
    uint32_t entryoff = Le32(ftab + i * 8), funcoff = Le32(ftab + i * 8 + 4);
    uint32_t nextoff = Le32(ftab + (i + 1) * 8);
    if (nextoff <= entryoff) {
      *err = ".gopclntab: function table not sorted at entry " + std::to_string(i);
      return false;
    }
    f.entry = text_start_ + entryoff;
    f.next = text_start_ + nextoff;
    uint64_t fo = pcln + funcoff;
    if (!t.Has(fo, func_size)) {
      *err = ".gopclntab: function " + std::to_string(i) + " record out of bounds";
      return false;
    }
    const uint8_t* r = t.p + fo;
    if (Le32(r) != entryoff) {
      *err = ".gopclntab: function " + std::to_string(i) + " entry does not match the function table";
      return false;
    }
    int32_t nameoff = static_cast<int32_t>(Le32(r + 4));
    if (nameoff < 0 || !t.CStr(funcname + static_cast<uint32_t>(nameoff), &f.name)) {
      *err = ".gopclntab: function " + std::to_string(i) + " name out of bounds";
      return false;
    }
    for (char& c : f.name)
      if (static_cast<unsigned char>(c) < 0x20) c = '?';
    f.args = static_cast<int32_t>(Le32(r + 8));
    f.deferreturn = static_cast<int32_t>(Le32(r + 12));
    uint32_t pcsp = Le32(r + 16), pcfile = Le32(r + 20), pclnoff = Le32(r + 24), npcdata = Le32(r + 28);
    size_t at = 36;
    if (minor_ >= 20) f.start_line = static_cast<int32_t>(Le32(r + at)), at += 4;
    f.func_id = r[at];
    f.flag = r[at + 1];
    f.asm_ = (f.flag & kFuncFlagAsm) != 0;
    uint8_t nfuncdata = r[at + 3];
    if (npcdata > 64 || !t.Has(fo + func_size, (uint64_t{npcdata} + nfuncdata) * 4)) {
      *err = ".gopclntab: " + f.name + ": pcdata/funcdata out of bounds";
      return false;
    }
    const uint8_t* pcdata = r + func_size;
    const uint8_t* funcdata = pcdata + npcdata * 4;
    auto dec = [&](uint32_t off, std::vector<PcRun>* out, const char* what) {
      std::string e;
      if (DecodePcValue(t, pctab, off, f.entry, f.next, quantum_, out, &e)) return true;
      *err = ".gopclntab: " + f.name + ": " + what + ": " + e;
      return false;
    };
    if (!dec(pcsp, &f.pcsp, "pcsp") || !dec(pcfile, &f.file, "pcfile") || !dec(pclnoff, &f.line, "pcln"))
      return false;
    if (npcdata > kPcdataUnsafePoint && !dec(Le32(pcdata + 4 * kPcdataUnsafePoint), &f.unsafe_point, "unsafe points"))
      return false;
    if (npcdata > kPcdataStackMapIndex &&
        !dec(Le32(pcdata + 4 * kPcdataStackMapIndex), &f.stackmap_index, "stack map index"))
      return false;
    if (npcdata > kPcdataInlTreeIndex && !dec(Le32(pcdata + 4 * kPcdataInlTreeIndex), &f.inl_index, "inline index"))
      return false;
    f.end = f.entry;
    for (const auto* tab : {&f.pcsp, &f.file, &f.line, &f.unsafe_point, &f.stackmap_index, &f.inl_index})
      if (!tab->empty()) f.end = std::max(f.end, tab->back().end);
    if (f.end == f.entry) {
      // No tables (a linker trampoline): its ELF symbol's size if it has
      // one at this address, else up to the next function.
      f.end = f.next;
      for (const std::string& n : {f.name, f.name + ".abi0"}) {
        const ElfSymbol* s = elf_->FindSymbol(n);
        if (s && s->value == f.entry && s->size > 0 && s->size <= f.next - f.entry) {
          f.end = f.entry + s->size;
          break;
        }
      }
    }
    f.has_locals_map = nfuncdata > kFuncdataLocalsPointerMaps &&
                       Le32(funcdata + 4 * kFuncdataLocalsPointerMaps) != kNoFuncdata;
    // The inline tree: the entries the inline index names, and their parents.
    int32_t max_ix = -1;
    for (const PcRun& run : f.inl_index) max_ix = std::max(max_ix, run.value);
    if (max_ix < 0) continue;
    uint32_t inl = nfuncdata > kFuncdataInlTree ? Le32(funcdata + 4 * kFuncdataInlTree) : kNoFuncdata;
    if (inl == kNoFuncdata || gofunc == 0) {
      *err = ".gopclntab: " + f.name + ": inline index without an inline tree";
      return false;
    }
    if (static_cast<uint32_t>(max_ix) >= kMaxInlineEntries) {
      *err = ".gopclntab: " + f.name + ": inline index " + std::to_string(max_ix) + " too large";
      return false;
    }
    const size_t esz = minor_ >= 20 ? 16 : 20;
    uint32_t count = static_cast<uint32_t>(max_ix) + 1;
    const uint8_t* tree = elf_->VirtualSpan(gofunc + inl, count * esz);
    if (!tree) {
      *err = ".gopclntab: " + f.name + ": inline tree out of bounds";
      return false;
    }
    f.inline_tree.resize(count);
    for (uint32_t k = 0; k < count; ++k) {
      const uint8_t* e = tree + k * esz;
      GoFunc::Inlined& c = f.inline_tree[k];
      int32_t name;
      if (minor_ >= 20) {
        c.func_id = e[0];
        name = static_cast<int32_t>(Le32(e + 4));
        c.parent_pc = static_cast<int32_t>(Le32(e + 8));
      } else {
        c.parent = static_cast<int16_t>(Le16(e));
        c.func_id = e[2];
        name = static_cast<int32_t>(Le32(e + 12));
        c.parent_pc = static_cast<int32_t>(Le32(e + 16));
      }
      if (name < 0 || !t.CStr(funcname + static_cast<uint32_t>(name), &c.name)) {
        *err = ".gopclntab: " + f.name + ": inlined call " + std::to_string(k) + " name out of bounds";
        return false;
      }
      if (c.parent_pc < 0 || static_cast<uint64_t>(c.parent_pc) >= f.end - f.entry) {
        *err = ".gopclntab: " + f.name + ": inlined call " + std::to_string(k) + " parent pc out of the function";
        return false;
      }
    }
    for (uint32_t k = 0; k < count; ++k) {
      GoFunc::Inlined& c = f.inline_tree[k];
      // 1.20+ has no parent field: the caller is what the index says at
      // the call site (the runtime's inlineUnwinder.next).
      if (minor_ >= 20) c.parent = ValueAt(f.inl_index, f.entry, f.entry + c.parent_pc, -1);
      if (c.parent < -1 || c.parent >= static_cast<int32_t>(count)) {
        *err = ".gopclntab: " + f.name + ": inlined call " + std::to_string(k) + " parent out of range";
        return false;
      }
    }
  }
  if (text_end < funcs_.back().entry) {
    *err = ".gopclntab: text end before the last function";
    return false;
  }
  return true;
}

bool GoBinary::ReadDwarf(std::string* err) {
  DwarfSections s;
  bool present = false, any = false;
  struct {
    const char* name;
    std::vector<uint8_t>* out;
  } want[] = {{".debug_info", &s.info},         {".debug_abbrev", &s.abbrev},     {".debug_str", &s.str},
              {".debug_str_offsets", &s.str_offsets}, {".debug_line_str", &s.line_str}, {".debug_addr", &s.addr}};
  for (auto& w : want) {
    std::string e;
    if (!elf_->DebugSection(w.name, w.out, &present, &e)) {
      *err = e;
      return false;
    }
    if (w.out == &s.info) any = present;
  }
  if (!any || s.info.empty()) {
    *err = "no DWARF (.debug_info): stripped, so the runtime's structure offsets are unknown";
    return false;
  }
  Dwarf d;
  if (!d.Parse(std::move(s), err)) return false;
  RuntimeOffsets& o = offsets_;
  o.dwarf_version = d.version();
  std::string missing;
  auto field = [&](const char* type, const char* path, int* off, int* size) {
    Dwarf::Member m;
    uint64_t t = d.Struct(type);
    if (t == 0 || !d.FindPath(t, path, &m) || m.offset > (1 << 20)) {
      if (off) missing += std::string(missing.empty() ? "" : ", ") + type + "." + path;
      return;
    }
    if (off) *off = static_cast<int>(m.offset);
    if (size) *size = static_cast<int>(m.size);
  };
  field("runtime.g", "stack.lo", &o.g_stack_lo, nullptr);
  field("runtime.g", "stack.hi", &o.g_stack_hi, nullptr);
  field("runtime.g", "stackguard0", &o.g_stackguard0, nullptr);
  field("runtime.g", "m", &o.g_m, nullptr);
  field("runtime.g", "atomicstatus", &o.g_atomicstatus, &o.g_atomicstatus_size);
  field("runtime.g", "goid", &o.g_goid, &o.g_goid_size);
  field("runtime.g", "preempt", &o.g_preempt, &o.g_preempt_size);
  field("runtime.g", "preemptStop", &o.g_preemptStop, &o.g_preemptStop_size);
  field("runtime.g", "preemptShrink", &o.g_preemptShrink, &o.g_preemptShrink_size);
  field("runtime.g", "stktopsp", &o.g_stktopsp, nullptr);
  field("runtime.m", "g0", &o.m_g0, nullptr);
  field("runtime.m", "locks", &o.m_locks, &o.m_locks_size);
  field("runtime.m", "mallocing", &o.m_mallocing, &o.m_mallocing_size);
  field("runtime.m", "preemptoff", &o.m_preemptoff, nullptr);
  field("runtime.p", "status", &o.p_status, &o.p_status_size);
  field("runtime.m", "curg", &o.m_curg, nullptr);
  field("runtime.m", "p", &o.m_p, nullptr);
  field("runtime.m", "preemptGen", &o.m_preemptGen, &o.m_preemptGen_size);
  field("runtime.m", "signalPending", &o.m_signalPending, &o.m_signalPending_size);
  field("runtime.m", "procid", &o.m_procid, &o.m_procid_size);
  field("runtime.p", "preempt", &o.p_preempt, &o.p_preempt_size);
  field("runtime.p", "schedtick", &o.p_schedtick, nullptr);
  field("runtime.p", "sysmontick", &o.p_sysmontick, nullptr);
  field("runtime.sysmontick", "schedwhen", &o.sysmontick_schedwhen, &o.sysmontick_schedwhen_size);
  field("runtime.sysmontick", "schedtick", &o.sysmontick_schedtick, &o.sysmontick_schedtick_size);
  {
    // Optional.
    std::string keep = missing;
    field("runtime.g", "sched.sp", &o.g_sched_sp, nullptr);
    field("runtime.g", "sched.pc", &o.g_sched_pc, nullptr);
    field("runtime.mstats", "last_gc_nanotime", &o.mstats_last_gc_nanotime, nullptr);
    field("runtime.g", "gcscandone", &o.g_gcscandone, nullptr);
    missing = keep;
    o.forcegcperiod_addr = Symbol("runtime.forcegcperiod");
    o.memstats_addr = Symbol("runtime.memstats");
  }
  uint64_t type = 0, addr = 0;
  bool has_addr = false;
  if (!d.Variable("runtime.debug", &type, &addr, &has_addr)) {
    missing += std::string(missing.empty() ? "" : ", ") + "runtime.debug";
  } else {
    if (!has_addr) addr = Symbol("runtime.debug");
    Dwarf::Member m;
    if (addr == 0 || !d.FindMember(type, "asyncpreemptoff", &m) || m.offset > (1 << 16)) {
      missing += std::string(missing.empty() ? "" : ", ") + "runtime.debug.asyncpreemptoff";
    } else {
      o.debug_addr = addr;
      o.debug_asyncpreemptoff = static_cast<int>(m.offset);
      o.debug_asyncpreemptoff_size = static_cast<int>(m.size);
    }
  }
  if (!missing.empty()) {
    *err = "DWARF lacks " + missing;
    return false;
  }
  return true;
}

const GoFunc* GoBinary::FuncAt(uint64_t pc) const {
  auto it = std::upper_bound(funcs_.begin(), funcs_.end(), pc,
                             [](uint64_t v, const GoFunc& f) { return v < f.entry; });
  if (it == funcs_.begin()) return nullptr;
  --it;
  return pc < it->end ? &*it : nullptr;
}

const GoFunc* GoBinary::FuncNamed(const std::string& name) const {
  for (const GoFunc& f : funcs_)
    if (f.name == name) return &f;
  return nullptr;
}

int32_t GoBinary::ValueAt(const std::vector<PcRun>& runs, uint64_t entry, uint64_t pc, int32_t dflt) {
  if (runs.empty() || pc < entry) return dflt;
  auto it = std::upper_bound(runs.begin(), runs.end(), pc, [](uint64_t v, const PcRun& r) { return v < r.end; });
  return it == runs.end() ? dflt : it->value;
}

std::string GoBinary::InnermostName(uint64_t pc) const {
  const GoFunc* f = FuncAt(pc);
  if (!f) return "";
  int32_t ix = ValueAt(f->inl_index, f->entry, pc, -1);
  if (ix >= 0 && static_cast<size_t>(ix) < f->inline_tree.size()) return f->inline_tree[ix].name;
  return f->name;
}

uint64_t GoBinary::Symbol(const std::string& name) const {
  const ElfSymbol* s = elf_->FindSymbol(name);
  return s ? s->value : 0;
}

uint64_t GoBinary::SymbolSize(const std::string& name) const {
  const ElfSymbol* s = elf_->FindSymbol(name);
  return s ? s->size : 0;
}

bool GoBinary::ReadVirtual(uint64_t addr, void* out, size_t n) const { return elf_->ReadVirtual(addr, out, n); }

}  // namespace safepoint::realgo
