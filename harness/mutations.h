// The mutations: deliberate breakage of the reference runtime, each a
// realistic one-line bug of a class the suite must catch (a skipped rule, a
// register not saved, a request left live, a constant scaled, ...). One
// table serves the command (`safepoint sweep --mutate=M`, `--mutate=list`)
// and the suite, whose tests named in `caught_by` run with the mutation
// and must fail their check on every port it applies to.
//
// A new mutation: a field in RuntimeMutations (runtime/options.h), its
// effect in the runtime, a row here, and a test that catches it (see
// ARCHITECTURE.md, "Where things go").
#ifndef SAFEPOINT_HARNESS_MUTATIONS_H_
#define SAFEPOINT_HARNESS_MUTATIONS_H_

#include <string>
#include <vector>

#include "platforms/port.h"
#include "runtime/options.h"

namespace safepoint::harness {

struct MutationDef {
  const char* name;       // "drop-register"
  const char* what;       // one line: what is broken
  const char* caught_by;  // the suite's test(s) that catch it ("Suite.Test")
  bool sweep_catches;     // the judged sweep itself fails under it
  void (*apply)(RuntimeMutations&);
  // Why the port cannot show it ("" when it can).
  std::string (*inapplicable)(const PortInfo&);
  // Why no run of a program on the port can show it although the suite's
  // test does (which may feed the runtime states no run reaches); nullptr
  // when a run can. A fuzz campaign has nothing to find there.
  std::string (*unseen_in_runs)(const PortInfo&) = nullptr;
};

// Every mutation, in the order `--mutate=list` prints them.
const std::vector<MutationDef>& Mutations();
// The mutation called `name`, or nullptr.
const MutationDef* FindMutation(const std::string& name);
// "" when mutation m applies to `port`, else why not.
std::string MutationInapplicable(const MutationDef& m, const PortInfo& port);
// "" when some run of a program on `port` can show mutation m (it applies
// and a run reaches what it breaks), else why not.
std::string MutationUnseenInRuns(const MutationDef& m, const PortInfo& port);

}  // namespace safepoint::harness

#endif
