#include "oracle/invisibility.h"

#include <cstdio>
#include <cstring>

namespace safepoint::oracle {

std::string DiffEndState(const harness::EndState& want, const harness::EndState& got) {
  std::string d;
  for (size_t i = 0; i < want.globals.size() && i < got.globals.size(); i++)
    if (want.globals[i] != got.globals[i]) {
      char b[96];
      snprintf(b, sizeof b, " g[%zu]=%llx want %llx", i, (unsigned long long)got.globals[i],
               (unsigned long long)want.globals[i]);
      d += b;
    }
  if (want.globals.size() != got.globals.size()) d += " (a different number of globals)";
  if (want.vdump.size() != got.vdump.size()) return d + " (vector dumps of different sizes)";
  // (The areas compared whole first: a run's match in one call, not 512
  // calls of 16 bytes, each through libFuzzer's memcmp hook in a fuzzer.)
  if (want.vdump.empty() || memcmp(want.vdump.data(), got.vdump.data(), want.vdump.size()) == 0) return d;
  for (size_t i = 0; i < want.vdump.size(); i += 16)
    if (memcmp(&want.vdump[i], &got.vdump[i], std::min<size_t>(16, want.vdump.size() - i)) != 0)
      d += " vdump[" + std::to_string(i / 16) + "]";
  return d;
}

}  // namespace safepoint::oracle
