// A bounds-checked reader of 64-bit little-endian ELF files: sections
// (decompressed when SHF_COMPRESSED or .zdebug_), symbols, and the bytes at
// a virtual address.
#ifndef SAFEPOINT_REALGO_ELF_H_
#define SAFEPOINT_REALGO_ELF_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace safepoint::realgo {

// Little-endian loads from a byte span; callers check bounds first.
inline uint16_t Le16(const uint8_t* p) { return static_cast<uint16_t>(p[0] | (p[1] << 8)); }
inline uint32_t Le32(const uint8_t* p) {
  return uint32_t{p[0]} | (uint32_t{p[1]} << 8) | (uint32_t{p[2]} << 16) | (uint32_t{p[3]} << 24);
}
inline uint64_t Le64(const uint8_t* p) { return uint64_t{Le32(p)} | (uint64_t{Le32(p + 4)} << 32); }

struct ElfSection {
  std::string name;
  uint32_t type = 0;
  uint64_t flags = 0, addr = 0, offset = 0, size = 0;
};

struct ElfSymbol {
  std::string name;
  uint64_t value = 0, size = 0;
  uint8_t info = 0;
  uint16_t shndx = 0;
};

class ElfFile {
 public:
  // Refuses (null, one line in *err) anything that is not a well-formed
  // 64-bit little-endian ELF whose headers lie inside the file.
  static std::unique_ptr<ElfFile> Parse(std::vector<uint8_t> bytes, std::string* err);

  uint16_t machine() const { return machine_; }
  const std::vector<uint8_t>& bytes() const { return bytes_; }
  const std::vector<ElfSection>& sections() const { return sections_; }
  const ElfSection* Section(const std::string& name) const;
  // The section's bytes as stored in the file (false if NOBITS or out of bounds).
  bool RawSection(const ElfSection& s, const uint8_t** p, size_t* n) const;
  // A debug section's contents: `.debug_X`, decompressed if SHF_COMPRESSED
  // (Elf64_Chdr, zlib), or `.zdebug_X` ("ZLIB" + 8-byte big-endian size).
  // Absent: true with an empty *out and *present false. Corrupt: false, *err.
  bool DebugSection(const std::string& name, std::vector<uint8_t>* out, bool* present,
                    std::string* err) const;

  const std::vector<ElfSymbol>& symbols() const { return symbols_; }
  const ElfSymbol* FindSymbol(const std::string& name) const;

  // Bytes at a virtual address from the file-backed part of a PT_LOAD
  // segment (or an allocated section when there are no program headers).
  bool ReadVirtual(uint64_t addr, void* out, size_t n) const;
  // Pointer into the file for [addr, addr+n), or null.
  const uint8_t* VirtualSpan(uint64_t addr, size_t n) const;

 private:
  struct Load { uint64_t vaddr, offset, filesz; };
  std::vector<uint8_t> bytes_;
  uint16_t machine_ = 0;
  std::vector<ElfSection> sections_;
  std::vector<ElfSymbol> symbols_;
  std::map<std::string, size_t> symbol_index_;
  std::vector<Load> loads_;
};

}  // namespace safepoint::realgo

#endif  // SAFEPOINT_REALGO_ELF_H_
