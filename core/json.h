// A string as a JSON string literal: quotes and backslashes escaped,
// control characters as \u00XX. What every JSON report of the command
// (cmd/report, oracle/go_sweep) writes its strings with.
#ifndef SAFEPOINT_CORE_JSON_H_
#define SAFEPOINT_CORE_JSON_H_

#include <cstdio>
#include <string>

namespace safepoint {

inline std::string JsonQuote(const std::string& s) {
  std::string q = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      q += '\\';
      q += static_cast<char>(c);
    } else if (c < 0x20) {
      char buf[8];
      snprintf(buf, sizeof buf, "\\u%04x", c);
      q += buf;
    } else {
      q += static_cast<char>(c);
    }
  }
  return q + "\"";
}

}  // namespace safepoint

#endif
