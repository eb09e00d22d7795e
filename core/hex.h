// Hexadecimal numbers as findings and reports print them: "0x" and the
// digits, lower case.
#ifndef SAFEPOINT_CORE_HEX_H_
#define SAFEPOINT_CORE_HEX_H_

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>

namespace safepoint {

inline std::string Hex(uint64_t v) {
  char b[24];
  snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(v));
  return b;
}

// `n` little-endian bytes (a register's, a save slot's) as one number,
// every byte's two digits kept.
inline std::string HexLe(const uint8_t* b, size_t n) {
  static const char digits[] = "0123456789abcdef";
  std::string s = "0x";
  for (size_t i = n; i-- > 0;) s += digits[b[i] >> 4], s += digits[b[i] & 15];
  return s;
}

}  // namespace safepoint

#endif
