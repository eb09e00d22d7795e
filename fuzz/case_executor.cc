// The case executor: a persistent process, built for every config, that
// runs the preemption fuzzer's cases on the reference runtime of the port
// it is built for (fuzz/case_protocol.h), under that port's QEMU when
// emulated. The native fuzzer (fuzz/preempt_fuzz.cc, with
// SAFEPOINT_FUZZ_EXECUTOR) starts it once per campaign:
//
//   platforms/toolchains/run --config=CFG case_executor
//
// It writes its hello (the port's name and the config), then answers each
// request from standard input on standard output until end of file.
// Standard output carries the protocol only: whatever the runtime prints
// goes to standard error, which is the fuzzer's. A fatal error in a run
// aborts it (the driver then aborts too, and libFuzzer keeps the input).
// Exit status: 0 at end of file, 3 after a header that is no request
// frame, 1 when standard output is gone, 2 for arguments.
#include <malloc.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

#include "fuzz/case_protocol.h"
#include "fuzz/executor_process.h"
#include "fuzz/verdict_protocol.h"
#include "harness/runtime_under_test.h"
#include "platforms/native.h"
#include "runtime/runtime.h"

int main(int argc, char** argv) {
  (void)argv;
  if (argc > 1) {
    fprintf(stderr,
            "usage: case_executor (no arguments): runs preemption cases asked on standard input\n"
            "(fuzz/case_protocol.h); started by fuzz/preempt_fuzz.cc through platforms/toolchains/run\n");
    return 2;
  }
  // The protocol's channel is a private copy of standard output; the
  // process's own standard output becomes standard error.
  int out = safepoint::fuzz::TakeStdoutForProtocol("case_executor");
  if (out < 0) return 1;
  // As in the fuzzing process (fuzz/preempt_fuzz.cc): large blocks kept in
  // the heap, a fatal error an abort.
  mallopt(M_MMAP_THRESHOLD, 64 << 20);
  mallopt(M_TRIM_THRESHOLD, 256 << 20);
  safepoint::SetFatalErrorsAbort(true);
  const char* config = getenv("SAFEPOINT_CONFIG");
  std::string hello = safepoint::verdict::EncodeHello(safepoint::NativePort().name, config ? config : "");
  if (!safepoint::verdict::WriteFull(out, hello.data(), hello.size())) return 1;
  int rc = safepoint::fuzz::cases::Serve(STDIN_FILENO, out);
  fprintf(stderr, "case_executor: %s\n", safepoint::harness::KeptRuntimeSummary().c_str());
  return rc;
}
