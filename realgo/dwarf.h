// The subset of DWARF 4 and 5 the reader needs: structure types by name,
// their members' offsets and sizes, and a global variable's address. Every
// other DIE is skipped by its abbreviation's forms; nothing is read out of
// bounds and malformed input is an error, never a crash.
#ifndef SAFEPOINT_REALGO_DWARF_H_
#define SAFEPOINT_REALGO_DWARF_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace safepoint::realgo {

struct DwarfSections {
  std::vector<uint8_t> info, abbrev, str, str_offsets, line_str, addr;
};

class Dwarf {
 public:
  // Takes the sections (kept: names point into them). False, *err on
  // malformed data.
  bool Parse(DwarfSections sections, std::string* err);

  struct Member {
    int64_t offset = -1;  // DW_AT_data_member_location
    int64_t size = -1;    // the member type's DW_AT_byte_size, -1 unknown
    uint64_t type = 0;    // the member's type DIE (absolute .debug_info offset)
  };
  // The DIE offset of a structure type with this name (0 if none).
  uint64_t Struct(std::string_view name) const;
  // A member of the structure DIE at `type` (after typedefs); false if absent.
  bool FindMember(uint64_t type, std::string_view member, Member* out) const;
  // Dotted path through nested structures: "stack.lo", "sched.pc".
  bool FindPath(uint64_t type, std::string_view path, Member* out) const;
  // A global variable's type DIE and address (DW_OP_addr / DW_OP_addrx).
  bool Variable(std::string_view name, uint64_t* type, uint64_t* addr, bool* has_addr) const;
  int64_t TypeSize(uint64_t type) const;
  size_t die_count() const { return dies_.size(); }
  int version() const { return max_version_; }

 private:
  struct Die {
    uint64_t off = 0;
    uint16_t tag = 0;
    uint16_t depth = 0;
    std::string_view name;
    uint64_t type = 0;
    int64_t byte_size = -1;
    int64_t member_loc = -1;
    uint64_t addr = 0;
    bool has_addr = false;
  };
  const Die* At(uint64_t off) const;
  DwarfSections s_;
  std::vector<Die> dies_;
  std::unordered_map<uint64_t, uint32_t> by_off_;
  std::unordered_map<std::string_view, uint32_t> structs_, vars_;
  int max_version_ = 0;
};

}  // namespace safepoint::realgo

#endif  // SAFEPOINT_REALGO_DWARF_H_
