#include "realgo/elf.h"

#include <cstring>

#include "realgo/inflate.h"

namespace safepoint::realgo {
namespace {

constexpr uint32_t kShtNull = 0, kShtSymtab = 2, kShtNobits = 8;
// A section whose header gives it no bytes in the file: SHT_NOBITS, or an
// inactive SHT_NULL (its offset and size are cleared when read).
bool HoldsNoFileData(uint32_t type) { return type == kShtNobits || type == kShtNull; }
constexpr uint64_t kShfCompressed = 0x800;
constexpr uint32_t kPtLoad = 1;
// Decompressed debug sections larger than this are refused (a corrupt
// header must not make the reader allocate gigabytes).
constexpr uint64_t kMaxDebugSection = uint64_t{512} << 20;

bool InBounds(uint64_t off, uint64_t len, uint64_t size) { return off <= size && len <= size - off; }

// A NUL-terminated string at off inside [0, size), or false.
bool CString(const uint8_t* p, size_t size, uint64_t off, std::string* out) {
  if (off >= size) return false;
  const void* z = std::memchr(p + off, 0, size - off);
  if (!z) return false;
  out->assign(reinterpret_cast<const char*>(p + off), static_cast<const uint8_t*>(z) - (p + off));
  return true;
}

}  // namespace

std::unique_ptr<ElfFile> ElfFile::Parse(std::vector<uint8_t> bytes, std::string* err) {
  auto f = std::unique_ptr<ElfFile>(new ElfFile);
  f->bytes_ = std::move(bytes);
  const uint8_t* b = f->bytes_.data();
  const uint64_t size = f->bytes_.size();
  if (size < 64 || std::memcmp(b, "\x7f" "ELF", 4) != 0) {
    *err = "not an ELF file";
    return nullptr;
  }
  if (b[4] != 2) {
    *err = "not a 64-bit ELF file (class " + std::to_string(b[4]) + ")";
    return nullptr;
  }
  if (b[5] != 1) {
    *err = "not a little-endian ELF file";
    return nullptr;
  }
  f->machine_ = Le16(b + 18);
  uint64_t phoff = Le64(b + 32), shoff = Le64(b + 40);
  uint16_t phentsize = Le16(b + 54), phnum = Le16(b + 56);
  uint16_t shentsize = Le16(b + 58), shnum = Le16(b + 60), shstrndx = Le16(b + 62);
  if (phnum > 0) {
    if (phentsize < 56 || !InBounds(phoff, uint64_t{phentsize} * phnum, size)) {
      *err = "ELF program headers out of bounds";
      return nullptr;
    }
    for (uint16_t i = 0; i < phnum; ++i) {
      const uint8_t* ph = b + phoff + uint64_t{i} * phentsize;
      if (Le32(ph) != kPtLoad) continue;
      Load l{Le64(ph + 16), Le64(ph + 8), Le64(ph + 32)};
      if (!InBounds(l.offset, l.filesz, size)) {
        *err = "ELF PT_LOAD segment out of bounds";
        return nullptr;
      }
      f->loads_.push_back(l);
    }
  }
  if (shnum == 0) {
    *err = "ELF file has no section headers";
    return nullptr;
  }
  if (shentsize < 64 || !InBounds(shoff, uint64_t{shentsize} * shnum, size)) {
    *err = "ELF section headers out of bounds";
    return nullptr;
  }
  std::vector<ElfSection> secs(shnum);
  std::vector<uint32_t> name_off(shnum), link(shnum);
  for (uint16_t i = 0; i < shnum; ++i) {
    const uint8_t* sh = b + shoff + uint64_t{i} * shentsize;
    name_off[i] = Le32(sh);
    secs[i].type = Le32(sh + 4);
    secs[i].flags = Le64(sh + 8);
    secs[i].addr = Le64(sh + 16);
    secs[i].offset = Le64(sh + 24);
    secs[i].size = Le64(sh + 32);
    link[i] = Le32(sh + 40);
    // An SHT_NULL header is inactive, its other members undefined: it holds
    // nothing (read as it was, a string table of that type with an offset
    // past the file's end was read there: found by //fuzz:gobinary_fuzz).
    if (secs[i].type == kShtNull) secs[i].offset = secs[i].size = 0;
    if (secs[i].type != kShtNobits && !InBounds(secs[i].offset, secs[i].size, size)) {
      *err = "ELF section " + std::to_string(i) + " out of bounds";
      return nullptr;
    }
  }
  if (shstrndx >= shnum || HoldsNoFileData(secs[shstrndx].type)) {
    *err = "ELF section name table missing";
    return nullptr;
  }
  const ElfSection& strs = secs[shstrndx];
  for (uint16_t i = 0; i < shnum; ++i) {
    if (!CString(b + strs.offset, strs.size, name_off[i], &secs[i].name)) {
      *err = "ELF section name out of bounds";
      return nullptr;
    }
  }
  // Symbols: the first SHT_SYMTAB and its linked string table.
  for (uint16_t i = 0; i < shnum; ++i) {
    if (secs[i].type != kShtSymtab) continue;
    if (link[i] >= shnum || HoldsNoFileData(secs[link[i]].type)) {
      *err = "ELF symbol table has no string table";
      return nullptr;
    }
    const ElfSection& st = secs[i];
    const ElfSection& ss = secs[link[i]];
    size_t n = st.size / 24;
    f->symbols_.reserve(n);
    for (size_t k = 1; k < n; ++k) {
      const uint8_t* s = b + st.offset + k * 24;
      ElfSymbol sym;
      if (!CString(b + ss.offset, ss.size, Le32(s), &sym.name)) {
        *err = "ELF symbol name out of bounds";
        return nullptr;
      }
      sym.info = s[4];
      sym.shndx = Le16(s + 6);
      sym.value = Le64(s + 8);
      sym.size = Le64(s + 16);
      f->symbols_.push_back(std::move(sym));
    }
    break;
  }
  for (size_t k = 0; k < f->symbols_.size(); ++k) f->symbol_index_.emplace(f->symbols_[k].name, k);
  if (f->loads_.empty()) {
    for (const ElfSection& s : secs)
      if ((s.flags & 2) && s.type != kShtNobits && s.addr != 0) f->loads_.push_back({s.addr, s.offset, s.size});
  }
  f->sections_ = std::move(secs);
  return f;
}

const ElfSection* ElfFile::Section(const std::string& name) const {
  for (const ElfSection& s : sections_)
    if (s.name == name) return &s;
  return nullptr;
}

bool ElfFile::RawSection(const ElfSection& s, const uint8_t** p, size_t* n) const {
  if (s.type == kShtNobits || !InBounds(s.offset, s.size, bytes_.size())) return false;
  *p = bytes_.data() + s.offset;
  *n = static_cast<size_t>(s.size);
  return true;
}

bool ElfFile::DebugSection(const std::string& name, std::vector<uint8_t>* out, bool* present,
                           std::string* err) const {
  out->clear();
  *present = false;
  const ElfSection* s = Section(name);
  bool z = false;
  if (!s && name.rfind(".debug_", 0) == 0) {
    s = Section(".zdebug_" + name.substr(7));
    z = s != nullptr;
  }
  if (!s) return true;
  *present = true;
  const uint8_t* p;
  size_t n;
  if (!RawSection(*s, &p, &n)) {
    *err = name + ": section data out of bounds";
    return false;
  }
  if (z) {
    if (n < 12 || std::memcmp(p, "ZLIB", 4) != 0) {
      *err = name + ": bad .zdebug header";
      return false;
    }
    uint64_t want = 0;
    for (int i = 4; i < 12; ++i) want = (want << 8) | p[i];
    if (want > kMaxDebugSection) {
      *err = name + ": declared size too large";
      return false;
    }
    std::string e;
    if (!ZlibDecompress(p + 12, n - 12, want, out, &e) || out->size() != want) {
      *err = name + ": " + (e.empty() ? "size mismatch" : e);
      return false;
    }
    return true;
  }
  if (s->flags & kShfCompressed) {
    if (n < 24) {
      *err = name + ": truncated compression header";
      return false;
    }
    uint32_t type = Le32(p);
    uint64_t want = Le64(p + 8);
    if (type != 1) {
      *err = name + ": compression type " + std::to_string(type) + " not supported (zlib only)";
      return false;
    }
    if (want > kMaxDebugSection) {
      *err = name + ": declared size too large";
      return false;
    }
    std::string e;
    if (!ZlibDecompress(p + 24, n - 24, want, out, &e) || out->size() != want) {
      *err = name + ": " + (e.empty() ? "size mismatch" : e);
      return false;
    }
    return true;
  }
  out->assign(p, p + n);
  return true;
}

const ElfSymbol* ElfFile::FindSymbol(const std::string& name) const {
  auto it = symbol_index_.find(name);
  return it == symbol_index_.end() ? nullptr : &symbols_[it->second];
}

const uint8_t* ElfFile::VirtualSpan(uint64_t addr, size_t n) const {
  for (const Load& l : loads_) {
    if (addr < l.vaddr) continue;
    uint64_t rel = addr - l.vaddr;
    if (rel > l.filesz || n > l.filesz - rel) continue;
    return bytes_.data() + l.offset + rel;
  }
  return nullptr;
}

bool ElfFile::ReadVirtual(uint64_t addr, void* out, size_t n) const {
  const uint8_t* p = VirtualSpan(addr, n);
  if (!p) return false;
  if (n) std::memcpy(out, p, n);
  return true;
}

}  // namespace safepoint::realgo
