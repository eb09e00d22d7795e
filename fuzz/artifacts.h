// What a fuzz target leaves when it finds something, shared by the targets
// that run a runtime: the input as an artifact named as libFuzzer names its
// own (KIND-<SHA-1 of the input>, under -artifact_prefix), and the stall
// watchdog.
//
// Why a watchdog of our own: libFuzzer's -timeout is a SIGALRM whose
// handler acts only on the fuzzing thread (it returns at once on any
// other), and in these targets the fuzzing thread runs the runtime's main
// goroutine as M0, which blocks every signal but the runtime's
// (runtime/signal.cc, IsMSignal). So an input that never ends (a program
// looping forever after a wrong restart, a runtime waiting on itself) ran
// on until the test runner killed the target: no finding, no input kept.
// The watchdog is a thread of its own that notices an execution running
// longer than the limit, keeps its input as timeout-<SHA-1>, says so in one
// line a campaign's log keeps ("ERROR:"), and ends the process with
// libFuzzer's timeout status (70).
#ifndef SAFEPOINT_FUZZ_ARTIFACTS_H_
#define SAFEPOINT_FUZZ_ARTIFACTS_H_

#include <cstddef>
#include <cstdint>
#include <string>

namespace safepoint::fuzz {

// SHA-1 (FIPS 180-4) as hex: libFuzzer names its artifacts by it.
std::string Sha1Hex(const uint8_t* data, size_t size);

// -artifact_prefix= from the command line (default "./").
void ReadArtifactPrefix(int argc, char** argv);
const std::string& ArtifactPrefix();

// Writes the input as ARTIFACT_PREFIX + kind + "-" + SHA-1, says where on
// stderr, and returns the path ("" when it could not be written). A target
// writes its crash- file itself before it aborts: libFuzzer writes its own
// only after printing a stack trace, and under QEMU on loong64 the
// sanitizer's unwinder faulted there, so a campaign ended with its finding
// printed and no reproducer left. Same name as libFuzzer's, so where
// libFuzzer gets there too it is one file.
std::string SaveArtifact(const char* kind, const uint8_t* data, size_t size);

// The stall watchdog. Start it once (LLVMFuzzerInitialize) with the
// target's name and the limit in seconds: SAFEPOINT_FUZZ_STALL_S when set,
// else libFuzzer's -timeout= from argv, else 1200 s (libFuzzer's default).
// `replay`: the command that replays an input, said with the finding.
void StartStallWatchdog(const char* target, int argc, char** argv, const std::string& replay);
// Around each execution: the input is copied, so the watchdog can keep it.
void ExecutionBegins(const uint8_t* data, size_t size);
void ExecutionEnds();
// Both, around a scope (a target with many ways out of an execution).
struct WatchedExecution {
  WatchedExecution(const uint8_t* data, size_t size) { ExecutionBegins(data, size); }
  ~WatchedExecution() { ExecutionEnds(); }
  WatchedExecution(const WatchedExecution&) = delete;
  WatchedExecution& operator=(const WatchedExecution&) = delete;
};
// The watchdog's limit (0 before it starts).
int StallLimitSeconds();

}  // namespace safepoint::fuzz

#endif
