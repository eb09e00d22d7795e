// The chapter's first experiment (9.7.1) on the reference runtime: three
// loops that never yield (calling a non-leaf, calling a small-frame leaf,
// calling nothing), each in a child process with GOMAXPROCS=1, with
// GODEBUG=asyncpreemptoff=1 and with the default, each child given a
// deadline. A child exits as soon as main gets back on the P.
#ifndef SAFEPOINT_HARNESS_EXPERIMENT_H_
#define SAFEPOINT_HARNESS_EXPERIMENT_H_

#include <cstdint>
#include <string>
#include <vector>

namespace safepoint {

struct ExperimentRow {
  std::string godebug;
  std::string loop;    // the chapter's name of the loop
  std::string result;  // "main got back on the P", "not preempted within 1 s", or an error
  bool timed_out = false;
};

struct ExperimentOptions {
  double deadline_s = 1.0;
  std::vector<std::string> godebugs = {"asyncpreemptoff=1", ""};
  bool omit_stack_check = false;  // mutation passed to the children
};

extern const char* const kExperimentLoops[3];

// Runs every row. Children are this executable (/proc/self/exe) started
// with "child LOOP", through $SAFEPOINT_EMULATOR when set.
bool RunExperiment(const ExperimentOptions& opts, std::vector<ExperimentRow>* rows, std::string* err);
// The chapter's output line for a row.
std::string FormatRow(const ExperimentRow& row);
// The child's side: returns the process exit code (it normally _exits 0
// from inside the runtime when main returns).
// The emulator this process runs under, as the runner exported it
// (SAFEPOINT_EMULATOR: "qemu-aarch64 -cpu ..."), in words; empty natively.
// Children that must run the way this process does are started under it.
std::vector<std::string> EmulatorCommand();

// This executable's path (/proc/self/exe: under QEMU, the guest binary), or
// "" when it cannot be read.
std::string SelfExe();
// Runs argv (argv[0] a path) as a child with each "K=V" of `env` set and
// each name in `unset` removed, its output discarded when `quiet`; waits at
// most bound_ns, then kills it. `status` is waitpid's.
struct ChildExit {
  bool started = false;
  bool timed_out = false;
  int status = 0;
  std::string error;  // why it did not start
};
ChildExit RunChild(const std::vector<std::string>& argv, const std::vector<std::string>& env,
                   const std::vector<std::string>& unset, bool quiet, int64_t bound_ns);

int ExperimentChild(const std::string& loop, bool omit_stack_check);

}  // namespace safepoint

#endif
