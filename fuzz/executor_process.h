// A persistent executor process, as a native fuzzer drives one: a binary
// built for a config, started once through the runner
// (platforms/toolchains/run --config=CONFIG PATH, so that it runs under the
// config's QEMU when emulated), spoken to through a pipe each way, and
// ended with the fuzzer. The differential fuzzer's verdict executors
// (fuzz/differential_fuzz.cc) and the preemption fuzzer's case executor
// (fuzz/preempt_fuzz.cc, fuzz/case_protocol.h) are started this way.
//
// The executor first writes a hello frame (fuzz/verdict_protocol.h's
// kHello: its port and config); StartExecutor waits for it, bounded. The
// executor is killed when the thread that started it ends (the fuzzer's
// main thread: its exit, a crash, the stall watchdog's exit), so that no
// emulator is left running a hung input behind a finished campaign: the
// runner execs the emulator, which keeps the parent-death signal.
#ifndef SAFEPOINT_FUZZ_EXECUTOR_PROCESS_H_
#define SAFEPOINT_FUZZ_EXECUTOR_PROCESS_H_

#include <sys/types.h>

#include <string>
#include <vector>

namespace safepoint::fuzz {

struct ExecutorProcess {
  std::string config, path;  // given
  std::string port;          // from its hello
  pid_t pid = -1;
  int to = -1, from = -1;  // its standard input, its standard output
};

// Starts e through `runner` and reads its hello within hello_ms; false
// with *err (and e stopped) when it cannot start or says no hello.
bool StartExecutor(ExecutorProcess& e, const std::string& runner, int hello_ms, std::string* err);
// Closes its pipes and waits for it: 2 s for a healthy executor to see end
// of file and exit (none with `force`), then SIGKILL. Returns how it ended
// ("exit status N", "killed by signal N"; "" when it was not running).
std::string StopExecutor(ExecutorProcess& e, bool force);

// The executor's own side: its protocol's channel, a private copy of
// standard output, which itself becomes standard error (whatever else the
// process prints goes there). -1, said on stderr as `who`'s, when it
// cannot be set up.
int TakeStdoutForProtocol(const char* who);

// "CONFIG=PATH,CONFIG=PATH": false with *err for an item that is not
// CONFIG=PATH or a PATH that is no executable file.
bool ParseExecutors(const std::string& spec, std::vector<ExecutorProcess>* out, std::string* err);

}  // namespace safepoint::fuzz

#endif
