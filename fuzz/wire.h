// The executors' wire format, shared by their protocols (the verdict
// executor's, fuzz/verdict_protocol.h, and the case executor's,
// fuzz/case_protocol.h): little-endian integers of explicit sizes, a string
// or a byte run as u32 length + bytes, and a reader that says where a short
// payload ended.
#ifndef SAFEPOINT_FUZZ_WIRE_H_
#define SAFEPOINT_FUZZ_WIRE_H_

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace safepoint::wire {

class Writer {
 public:
  void U8(uint8_t v) { s_.push_back(static_cast<char>(v)); }
  void U16(uint16_t v) { U8(v & 0xff), U8(v >> 8); }
  void U32(uint32_t v) {
    char b[4] = {static_cast<char>(v), static_cast<char>(v >> 8), static_cast<char>(v >> 16),
                 static_cast<char>(v >> 24)};
    s_.append(b, 4);
  }
  void U64(uint64_t v) { U32(static_cast<uint32_t>(v)), U32(static_cast<uint32_t>(v >> 32)); }
  void I64(int64_t v) { U64(static_cast<uint64_t>(v)); }
  void Str(std::string_view v) { U32(static_cast<uint32_t>(v.size())), s_.append(v); }
  // A byte run: u32 length + the bytes, as a string.
  void Bytes(const void* p, size_t n) { Str(std::string_view(static_cast<const char*>(p), n)); }
  // Bytes as they are, no length.
  void Raw(const void* p, size_t n) { s_.append(static_cast<const char*>(p), n); }
  void Reserve(size_t n) { s_.reserve(n); }
  // What was written (no frame).
  const std::string& bytes() const { return s_; }
  // The whole frame: header (magic, version, kind, payload length), payload.
  std::string Frame(uint32_t magic, uint16_t version, uint16_t kind) const {
    Writer h;
    h.Reserve(12 + s_.size());
    h.U32(magic), h.U16(version), h.U16(kind), h.U32(static_cast<uint32_t>(s_.size()));
    h.s_ += s_;
    return std::move(h.s_);
  }

 private:
  std::string s_;
};

class Reader {
 public:
  explicit Reader(std::string_view s) : s_(s) {}
  bool U8(uint8_t* v) {
    if (at_ + 1 > s_.size()) return Short("a byte");
    *v = static_cast<uint8_t>(s_[at_++]);
    return true;
  }
  bool U16(uint16_t* v) {
    uint8_t a, b;
    if (!U8(&a) || !U8(&b)) return false;
    *v = static_cast<uint16_t>(a | b << 8);
    return true;
  }
  bool U32(uint32_t* v) {
    uint16_t a, b;
    if (!U16(&a) || !U16(&b)) return false;
    *v = a | static_cast<uint32_t>(b) << 16;
    return true;
  }
  bool U64(uint64_t* v) {
    uint32_t a, b;
    if (!U32(&a) || !U32(&b)) return false;
    *v = a | static_cast<uint64_t>(b) << 32;
    return true;
  }
  bool I64(int64_t* v) {
    uint64_t u;
    if (!U64(&u)) return false;
    *v = static_cast<int64_t>(u);
    return true;
  }
  bool I32(int* v) {
    uint32_t u;
    if (!U32(&u)) return false;
    *v = static_cast<int32_t>(u);
    return true;
  }
  bool Bool(bool* v) {
    uint8_t b;
    if (!U8(&b)) return false;
    if (b > 1) return Bad("a flag of " + std::to_string(b));
    *v = b != 0;
    return true;
  }
  // A string or byte run: a view into the payload.
  bool View(std::string_view* v) {
    uint32_t n;
    if (!U32(&n)) return false;
    if (n > s_.size() - at_) return Short("a string of " + std::to_string(n) + " bytes");
    *v = s_.substr(at_, n);
    at_ += n;
    return true;
  }
  // n bytes as they are (no length before them).
  bool Raw(size_t n, std::string_view* v) {
    if (n > s_.size() - at_) return Short(std::to_string(n) + " bytes");
    *v = s_.substr(at_, n);
    at_ += n;
    return true;
  }
  bool Str(std::string* v) {
    std::string_view s;
    if (!View(&s)) return false;
    v->assign(s);
    return true;
  }
  // True when every byte was read.
  bool Done() {
    if (at_ == s_.size()) return true;
    err = std::to_string(s_.size() - at_) + " bytes after the payload's end";
    return false;
  }
  // A value read that the payload may not hold: the reader stops there.
  bool Bad(const std::string& what) {
    err = what + " at byte " + std::to_string(at_);
    return false;
  }
  std::string err;

 private:
  bool Short(const std::string& what) {
    err = "the payload ends at byte " + std::to_string(at_) + " where " + what + " was due";
    return false;
  }
  std::string_view s_;
  size_t at_ = 0;
};

}  // namespace safepoint::wire

#endif
