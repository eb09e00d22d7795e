#include "realgo/dwarf.h"

#include <cstring>
#include <utility>

namespace safepoint::realgo {
namespace {

// DWARF constants (DWARF 5, section 7).
enum : uint16_t {
  kTagMember = 0x0d,
  kTagStruct = 0x13,
  kTagTypedef = 0x16,
  kTagCompileUnit = 0x11,
  kTagConst = 0x26,
  kTagSubprogram = 0x2e,
  kTagVariable = 0x34,
  kTagVolatile = 0x35,
  kAtLocation = 0x02,
  kAtName = 0x03,
  kAtByteSize = 0x0b,
  kAtMemberLocation = 0x38,
  kAtType = 0x49,
  kAtStrOffsetsBase = 0x72,
  kAtAddrBase = 0x73,
};

struct Cur {
  const uint8_t* p;
  size_t n;
  size_t pos = 0;
  bool bad = false;

  bool Has(uint64_t k) const { return !bad && pos <= n && k <= n - pos; }
  uint64_t U(int k) {
    if (!Has(static_cast<uint64_t>(k))) {
      bad = true;
      pos = n;
      return 0;
    }
    uint64_t v = 0;
    for (int i = 0; i < k; ++i) v |= uint64_t{p[pos + i]} << (8 * i);
    pos += k;
    return v;
  }
  uint64_t Uleb() {
    uint64_t v = 0;
    for (int shift = 0;; shift += 7) {
      if (bad || pos >= n || shift > 63) {
        bad = true;
        pos = n;
        return 0;
      }
      uint8_t b = p[pos++];
      v |= uint64_t{b & 0x7fu} << shift;
      if (!(b & 0x80)) return v;
    }
  }
  int64_t Sleb() {
    uint64_t v = 0;
    int shift = 0;
    uint8_t b;
    for (;; shift += 7) {
      if (bad || pos >= n || shift > 63) {
        bad = true;
        pos = n;
        return 0;
      }
      b = p[pos++];
      v |= uint64_t{b & 0x7fu} << shift;
      if (!(b & 0x80)) break;
    }
    shift += 7;
    if (shift < 64 && (b & 0x40)) v |= ~uint64_t{0} << shift;
    return static_cast<int64_t>(v);
  }
  void Skip(uint64_t k) {
    if (!Has(k)) {
      bad = true;
      pos = n;
      return;
    }
    pos += static_cast<size_t>(k);
  }
  std::string_view CStr() {
    if (bad || pos >= n) {
      bad = true;
      return {};
    }
    const void* z = std::memchr(p + pos, 0, n - pos);
    if (!z) {
      bad = true;
      pos = n;
      return {};
    }
    size_t len = static_cast<const uint8_t*>(z) - (p + pos);
    std::string_view s(reinterpret_cast<const char*>(p + pos), len);
    pos += len + 1;
    return s;
  }
};

struct AttrSpec {
  uint16_t at, form;
  int64_t implicit;
};
struct Abbrev {
  uint16_t tag = 0;
  bool children = false;
  std::vector<AttrSpec> attrs;
};
using AbbrevTable = std::unordered_map<uint64_t, Abbrev>;

bool ParseAbbrevs(const std::vector<uint8_t>& sec, uint64_t off, AbbrevTable* t, std::string* err) {
  if (off >= sec.size()) {
    *err = "DWARF: abbreviation offset out of bounds";
    return false;
  }
  Cur c{sec.data(), sec.size(), static_cast<size_t>(off)};
  for (;;) {
    uint64_t code = c.Uleb();
    if (c.bad) break;
    if (code == 0) return true;
    Abbrev a;
    uint64_t tag = c.Uleb();
    a.tag = tag > 0xffff ? 0xffff : static_cast<uint16_t>(tag);
    a.children = c.U(1) != 0;
    for (;;) {
      uint64_t at = c.Uleb(), form = c.Uleb();
      if (c.bad) break;
      if (at == 0 && form == 0) break;
      int64_t implicit = 0;
      if (form == 0x21) implicit = c.Sleb();
      a.attrs.push_back({static_cast<uint16_t>(at > 0xffff ? 0xffff : at),
                         static_cast<uint16_t>(form > 0xffff ? 0xffff : form), implicit});
    }
    if (c.bad) break;
    (*t)[code] = std::move(a);
  }
  *err = "DWARF: truncated abbreviation table";
  return false;
}

struct Unit {
  int version = 0;
  int addr_size = 8;
  int offset_size = 4;
  uint64_t off = 0;  // the unit header's offset in .debug_info
  uint64_t str_offsets_base = 0, addr_base = 0;
  bool has_str_base = false, has_addr_base = false;
};

struct Val {
  enum Kind { kNone, kUint, kSint, kStr, kBlock, kRef, kStrx, kAddrx } kind = kNone;
  uint64_t u = 0;
  int64_t s = 0;
  std::string_view str;
  const uint8_t* blk = nullptr;
  size_t blen = 0;
};

bool StrAt(const std::vector<uint8_t>& sec, uint64_t off, std::string_view* out) {
  if (off >= sec.size()) return false;
  const void* z = std::memchr(sec.data() + off, 0, sec.size() - off);
  if (!z) return false;
  *out = std::string_view(reinterpret_cast<const char*>(sec.data() + off),
                          static_cast<const uint8_t*>(z) - (sec.data() + off));
  return true;
}

bool ReadForm(Cur* c, uint64_t form, int64_t implicit, const Unit& u, const DwarfSections& s, Val* v,
              std::string* err, int depth = 0) {
  auto block = [&](uint64_t len) {
    if (!c->Has(len)) {
      c->bad = true;
      return;
    }
    v->kind = Val::kBlock;
    v->blk = c->p + c->pos;
    v->blen = static_cast<size_t>(len);
    c->pos += static_cast<size_t>(len);
  };
  auto uval = [&](uint64_t x) {
    v->kind = Val::kUint;
    v->u = x;
  };
  auto ref = [&](uint64_t x, bool rel) {
    v->kind = Val::kRef;
    v->u = rel ? u.off + x : x;
  };
  auto strp = [&](const std::vector<uint8_t>& sec) {
    uint64_t off = c->U(u.offset_size);
    if (c->bad) return;
    if (!StrAt(sec, off, &v->str)) {
      c->bad = true;
      *err = "DWARF: string offset out of bounds";
      return;
    }
    v->kind = Val::kStr;
  };
  switch (form) {
    case 0x01: uval(c->U(u.addr_size)); break;
    case 0x03: block(c->U(2)); break;
    case 0x04: block(c->U(4)); break;
    case 0x05: uval(c->U(2)); break;
    case 0x06: uval(c->U(4)); break;
    case 0x07: uval(c->U(8)); break;
    case 0x08: v->kind = Val::kStr; v->str = c->CStr(); break;
    case 0x09: block(c->Uleb()); break;
    case 0x0a: block(c->U(1)); break;
    case 0x0b: uval(c->U(1)); break;
    case 0x0c: uval(c->U(1)); break;
    case 0x0d: v->kind = Val::kSint; v->s = c->Sleb(); break;
    case 0x0e: strp(s.str); break;
    case 0x0f: uval(c->Uleb()); break;
    case 0x10: ref(c->U(u.version <= 2 ? u.addr_size : u.offset_size), false); break;
    case 0x11: ref(c->U(1), true); break;
    case 0x12: ref(c->U(2), true); break;
    case 0x13: ref(c->U(4), true); break;
    case 0x14: ref(c->U(8), true); break;
    case 0x15: ref(c->Uleb(), true); break;
    case 0x16: {
      uint64_t f = c->Uleb();
      if (c->bad) break;
      if (depth > 2 || f == 0x16 || f == 0x21) {
        *err = "DWARF: bad DW_FORM_indirect";
        c->bad = true;
        break;
      }
      return ReadForm(c, f, 0, u, s, v, err, depth + 1);
    }
    case 0x17: uval(c->U(u.offset_size)); break;
    case 0x18: block(c->Uleb()); break;
    case 0x19: uval(1); break;
    case 0x1a: v->kind = Val::kStrx; v->u = c->Uleb(); break;
    case 0x1b: v->kind = Val::kAddrx; v->u = c->Uleb(); break;
    case 0x1c: c->Skip(4); break;
    case 0x1d: c->Skip(u.offset_size); break;
    case 0x1e: c->Skip(16); break;
    case 0x1f: strp(s.line_str); break;
    case 0x20: c->Skip(8); break;
    case 0x21: v->kind = Val::kSint; v->s = implicit; break;
    case 0x22: case 0x23: c->Uleb(); break;
    case 0x24: c->Skip(8); break;
    case 0x25: v->kind = Val::kStrx; v->u = c->U(1); break;
    case 0x26: v->kind = Val::kStrx; v->u = c->U(2); break;
    case 0x27: v->kind = Val::kStrx; v->u = c->U(3); break;
    case 0x28: v->kind = Val::kStrx; v->u = c->U(4); break;
    case 0x29: v->kind = Val::kAddrx; v->u = c->U(1); break;
    case 0x2a: v->kind = Val::kAddrx; v->u = c->U(2); break;
    case 0x2b: v->kind = Val::kAddrx; v->u = c->U(3); break;
    case 0x2c: v->kind = Val::kAddrx; v->u = c->U(4); break;
    case 0x1f01: case 0x1f02: c->Uleb(); break;          // GNU_addr_index, GNU_str_index
    case 0x1f20: case 0x1f21: c->Skip(u.offset_size); break;  // GNU_ref_alt, GNU_strp_alt
    default:
      *err = "DWARF: unknown attribute form 0x" + [&] {
        char b[16];
        snprintf(b, sizeof b, "%llx", static_cast<unsigned long long>(form));
        return std::string(b);
      }();
      c->bad = true;
      return false;
  }
  if (c->bad) {
    if (err->empty()) *err = "DWARF: attribute runs past its unit";
    return false;
  }
  return true;
}

bool ResolveStrx(const Unit& u, const DwarfSections& s, uint64_t idx, std::string_view* out) {
  uint64_t base = u.has_str_base ? u.str_offsets_base : 8;
  if (idx > (uint64_t{1} << 32)) return false;
  uint64_t at = base + idx * u.offset_size;
  if (at < base || at > s.str_offsets.size() || s.str_offsets.size() - at < static_cast<uint64_t>(u.offset_size))
    return false;
  uint64_t off = 0;
  for (int i = 0; i < u.offset_size; ++i) off |= uint64_t{s.str_offsets[at + i]} << (8 * i);
  return StrAt(s.str, off, out);
}

bool ResolveAddrx(const Unit& u, const DwarfSections& s, uint64_t idx, uint64_t* out) {
  uint64_t base = u.has_addr_base ? u.addr_base : 8;
  if (idx > (uint64_t{1} << 32)) return false;
  uint64_t at = base + idx * u.addr_size;
  if (at < base || at > s.addr.size() || s.addr.size() - at < static_cast<uint64_t>(u.addr_size)) return false;
  uint64_t v = 0;
  for (int i = 0; i < u.addr_size; ++i) v |= uint64_t{s.addr[at + i]} << (8 * i);
  *out = v;
  return true;
}

}  // namespace

bool Dwarf::Parse(DwarfSections sections, std::string* err) {
  s_ = std::move(sections);
  dies_.clear();
  by_off_.clear();
  structs_.clear();
  vars_.clear();
  std::unordered_map<uint64_t, AbbrevTable> tables;
  const std::vector<uint8_t>& info = s_.info;
  size_t pos = 0;
  std::vector<std::pair<uint16_t, Val>> attrs;
  while (pos < info.size()) {
    Unit u;
    u.off = pos;
    Cur h{info.data(), info.size(), pos};
    uint64_t len = h.U(4);
    if (len == 0xffffffff) {
      u.offset_size = 8;
      len = h.U(8);
    } else if (len >= 0xfffffff0) {
      *err = "DWARF: reserved unit length";
      return false;
    }
    if (h.bad || !h.Has(len) || len < 2) {
      *err = "DWARF: unit length out of bounds";
      return false;
    }
    size_t end = h.pos + static_cast<size_t>(len);
    Cur c{info.data(), end, h.pos};
    u.version = static_cast<int>(c.U(2));
    if (u.version < 2 || u.version > 5) {
      *err = "DWARF: unsupported version " + std::to_string(u.version);
      return false;
    }
    if (u.version > max_version_) max_version_ = u.version;
    uint64_t abbrev_off;
    uint8_t unit_type = 1;
    if (u.version >= 5) {
      unit_type = static_cast<uint8_t>(c.U(1));
      u.addr_size = static_cast<int>(c.U(1));
      abbrev_off = c.U(u.offset_size);
      if (unit_type == 4 || unit_type == 5) c.Skip(8);
      else if (unit_type == 2 || unit_type == 6) c.Skip(8 + u.offset_size);
    } else {
      abbrev_off = c.U(u.offset_size);
      u.addr_size = static_cast<int>(c.U(1));
    }
    if (c.bad || (u.addr_size != 4 && u.addr_size != 8)) {
      *err = "DWARF: bad unit header";
      return false;
    }
    auto it = tables.find(abbrev_off);
    if (it == tables.end()) {
      AbbrevTable t;
      if (!ParseAbbrevs(s_.abbrev, abbrev_off, &t, err)) return false;
      it = tables.emplace(abbrev_off, std::move(t)).first;
    }
    const AbbrevTable& table = it->second;
    int depth = 0;
    int skip_below = -1;  // inside a subprogram at this depth: do not keep DIEs
    bool first = true;
    while (c.pos < end) {
      uint64_t die_off = c.pos;
      uint64_t code = c.Uleb();
      if (c.bad) break;
      if (code == 0) {
        if (depth > 0) --depth;
        if (skip_below >= 0 && depth <= skip_below) skip_below = -1;
        continue;
      }
      auto ab = table.find(code);
      if (ab == table.end()) {
        *err = "DWARF: unknown abbreviation code " + std::to_string(code);
        return false;
      }
      const Abbrev& a = ab->second;
      attrs.clear();
      for (const AttrSpec& sp : a.attrs) {
        Val v;
        if (!ReadForm(&c, sp.form, sp.implicit, u, s_, &v, err)) return false;
        if (v.kind != Val::kNone) attrs.emplace_back(sp.at, v);
      }
      if (first) {
        first = false;
        for (auto& [at, v] : attrs) {
          if (at == kAtStrOffsetsBase && v.kind == Val::kUint) u.str_offsets_base = v.u, u.has_str_base = true;
          if (at == kAtAddrBase && v.kind == Val::kUint) u.addr_base = v.u, u.has_addr_base = true;
        }
      }
      bool keep = skip_below < 0 && a.tag != kTagCompileUnit;
      if (keep) {
        Die d;
        d.off = die_off;
        d.tag = a.tag;
        d.depth = static_cast<uint16_t>(depth > 0xffff ? 0xffff : depth);
        for (auto& [at, v] : attrs) {
          switch (at) {
            case kAtName:
              if (v.kind == Val::kStr) d.name = v.str;
              else if (v.kind == Val::kStrx && !ResolveStrx(u, s_, v.u, &d.name)) {
                *err = "DWARF: string index out of bounds";
                return false;
              }
              break;
            case kAtType:
              if (v.kind == Val::kRef) d.type = v.u;
              break;
            case kAtByteSize:
              if (v.kind == Val::kUint) d.byte_size = static_cast<int64_t>(v.u & 0x7fffffffffffffff);
              else if (v.kind == Val::kSint) d.byte_size = v.s;
              break;
            case kAtMemberLocation:
              if (v.kind == Val::kUint) d.member_loc = static_cast<int64_t>(v.u & 0x7fffffffffffffff);
              else if (v.kind == Val::kSint) d.member_loc = v.s;
              else if (v.kind == Val::kBlock && v.blen >= 2 && v.blk[0] == 0x23) {  // DW_OP_plus_uconst
                Cur b{v.blk, v.blen, 1};
                uint64_t x = b.Uleb();
                if (!b.bad) d.member_loc = static_cast<int64_t>(x & 0x7fffffffffffffff);
              }
              break;
            case kAtLocation:
              if (v.kind == Val::kBlock && v.blen >= 1 + static_cast<size_t>(u.addr_size) && v.blk[0] == 0x03) {
                Cur b{v.blk, v.blen, 1};  // DW_OP_addr
                d.addr = b.U(u.addr_size);
                d.has_addr = true;
              } else if (v.kind == Val::kBlock && v.blen >= 2 && v.blk[0] == 0xa1) {  // DW_OP_addrx
                Cur b{v.blk, v.blen, 1};
                uint64_t idx = b.Uleb();
                if (!b.bad && ResolveAddrx(u, s_, idx, &d.addr)) d.has_addr = true;
              }
              break;
          }
        }
        uint32_t index = static_cast<uint32_t>(dies_.size());
        by_off_.emplace(die_off, index);
        if (!d.name.empty()) {
          if (d.tag == kTagStruct) structs_.emplace(d.name, index);
          if (d.tag == kTagVariable) vars_.emplace(d.name, index);
        }
        dies_.push_back(d);
      }
      if (a.children) {
        if (a.tag == kTagSubprogram && skip_below < 0) skip_below = depth;
        ++depth;
        if (depth > 4096) {
          *err = "DWARF: DIE nesting too deep";
          return false;
        }
      }
    }
    if (c.bad) {
      if (err->empty()) *err = "DWARF: truncated unit";
      return false;
    }
    pos = end;
  }
  return true;
}

const Dwarf::Die* Dwarf::At(uint64_t off) const {
  auto it = by_off_.find(off);
  return it == by_off_.end() ? nullptr : &dies_[it->second];
}

uint64_t Dwarf::Struct(std::string_view name) const {
  auto it = structs_.find(name);
  return it == structs_.end() ? 0 : dies_[it->second].off;
}

int64_t Dwarf::TypeSize(uint64_t type) const {
  for (int hop = 0; hop < 16; ++hop) {
    const Die* d = At(type);
    if (!d) return -1;
    if (d->byte_size >= 0) return d->byte_size;
    if (d->tag != kTagTypedef && d->tag != kTagConst && d->tag != kTagVolatile) return -1;
    type = d->type;
  }
  return -1;
}

bool Dwarf::FindMember(uint64_t type, std::string_view member, Member* out) const {
  const Die* d = nullptr;
  for (int hop = 0; hop < 16; ++hop) {
    d = At(type);
    if (!d || d->tag == kTagStruct) break;
    if (d->tag != kTagTypedef && d->tag != kTagConst && d->tag != kTagVolatile) return false;
    type = d->type;
  }
  if (!d || d->tag != kTagStruct) return false;
  size_t i = static_cast<size_t>(d - dies_.data());
  for (size_t j = i + 1; j < dies_.size() && dies_[j].depth > d->depth; ++j) {
    const Die& m = dies_[j];
    if (m.depth != d->depth + 1 || m.tag != kTagMember || m.name != member) continue;
    if (m.member_loc < 0) return false;
    out->offset = m.member_loc;
    out->type = m.type;
    out->size = TypeSize(m.type);
    return true;
  }
  return false;
}

bool Dwarf::FindPath(uint64_t type, std::string_view path, Member* out) const {
  int64_t total = 0;
  Member m;
  for (int guard = 0; guard < 8; ++guard) {
    size_t dot = path.find('.');
    std::string_view head = path.substr(0, dot);
    if (!FindMember(type, head, &m)) return false;
    total += m.offset;
    if (dot == std::string_view::npos) {
      *out = m;
      out->offset = total;
      return true;
    }
    path.remove_prefix(dot + 1);
    type = m.type;
  }
  return false;
}

bool Dwarf::Variable(std::string_view name, uint64_t* type, uint64_t* addr, bool* has_addr) const {
  auto it = vars_.find(name);
  if (it == vars_.end()) return false;
  const Die& d = dies_[it->second];
  *type = d.type;
  *addr = d.addr;
  *has_addr = d.has_addr;
  return true;
}

}  // namespace safepoint::realgo
