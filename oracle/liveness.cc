#include "oracle/liveness.h"

namespace safepoint::oracle {

std::string LivenessProblem(const harness::Observation& o) {
  if (o.freed_accesses == 0) return "";
  std::string s = std::to_string(o.freed_accesses) + " access(es) to an object a collection freed while reachable";
  if (!o.run_error.empty()) s += " (" + o.run_error + ")";
  return s;
}

}  // namespace safepoint::oracle
