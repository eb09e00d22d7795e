// The liveness oracle: an object the program can still reach must survive
// every collection. The reference runtime poisons what it frees and makes
// it inaccessible (runtime/mheap.cc), so a collector that frees a
// reachable object is caught the moment the program touches it: the run
// ends in a fault the runtime names (an Ev::kFreedAccess event, and
// "found pointer to free object"). The oracle reads only the events, so a
// runtime from outside this tree that records them is judged the same way.
#ifndef SAFEPOINT_ORACLE_LIVENESS_H_
#define SAFEPOINT_ORACLE_LIVENESS_H_

#include <string>

#include "harness/sweep.h"

namespace safepoint::oracle {

// "" when no freed object was touched in the run; else what was lost.
std::string LivenessProblem(const harness::Observation& o);

}  // namespace safepoint::oracle

#endif
