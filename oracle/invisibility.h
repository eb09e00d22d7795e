// The invisibility oracle (DESIGN.md section 5.2): a program's final
// registers (as it dumped them into globals) and memory must be
// bit-identical whether it ran unpreempted or was preempted anywhere.
#ifndef SAFEPOINT_ORACLE_INVISIBILITY_H_
#define SAFEPOINT_ORACLE_INVISIBILITY_H_

#include <string>

#include "harness/runtime_under_test.h"

namespace safepoint::oracle {

// "" when `got` equals `want`; else every difference, " g[3]=.. want .."
// and " vdump[N]" per differing 16-byte chunk.
std::string DiffEndState(const harness::EndState& want, const harness::EndState& got);

}  // namespace safepoint::oracle

#endif
