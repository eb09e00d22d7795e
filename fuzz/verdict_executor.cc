// The verdict executor: a persistent process, built for every config, that
// answers the differential fuzzer's probe requests (fuzz/verdict_protocol.h)
// on the port it is built for, under that port's QEMU when emulated. It
// runs for a whole campaign, so QEMU starts once, not once per input.
//
//   platforms/toolchains/run --config=CFG verdict_executor
//
// It writes its hello (the port's name and the config) and then answers
// each request from standard input on standard output until end of file.
// Standard output carries the protocol only: whatever else the runtime or
// the harness prints goes to standard error. Exit status: 0 at end of file,
// 3 after a header that is no request frame, 1 when standard output is
// gone.
//
// SAFEPOINT_EXECUTOR_EXIT_EVERY=N (a test of the driver's recovery): the
// executor exits abruptly, unanswered, at every N-th request it reads, as
// a crashed run would make it. SAFEPOINT_EXECUTOR_MUTATE=NAME: every run
// under that mutation (harness/mutations.h), so that the differential
// fuzzer must find this port differing (ci/differential.sh --mutate=NAME).
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "fuzz/verdict_probe.h"
#include "fuzz/executor_process.h"
#include "fuzz/verdict_protocol.h"
#include "harness/mutations.h"
#include "platforms/native.h"

int main(int argc, char** argv) {
  if (argc > 1) {
    fprintf(stderr,
            "usage: verdict_executor (no arguments): answers probe requests on standard input\n"
            "(fuzz/verdict_protocol.h); started by fuzz/differential_fuzz.cc through platforms/toolchains/run\n");
    return 2;
  }
  // The protocol's channel is a private copy of standard output; the
  // process's own standard output becomes standard error.
  int out = safepoint::fuzz::TakeStdoutForProtocol("verdict_executor");
  if (out < 0) return 1;
  const safepoint::harness::MutationDef* mutation = nullptr;
  if (const char* m = getenv("SAFEPOINT_EXECUTOR_MUTATE"); m && *m) {
    mutation = safepoint::harness::FindMutation(m);
    if (!mutation) {
      fprintf(stderr, "verdict_executor: SAFEPOINT_EXECUTOR_MUTATE=%s: no such mutation (safepoint sweep --mutate=list)\n", m);
      return 2;
    }
    std::string why = safepoint::harness::MutationInapplicable(*mutation, safepoint::NativePort());
    if (!why.empty()) {
      fprintf(stderr, "verdict_executor: SAFEPOINT_EXECUTOR_MUTATE=%s does not apply here: %s\n", m, why.c_str());
      return 2;
    }
  }
  const char* config = getenv("SAFEPOINT_CONFIG");
  std::string hello = safepoint::verdict::EncodeHello(safepoint::NativePort().name, config ? config : "");
  if (!safepoint::verdict::WriteFull(out, hello.data(), hello.size())) return 1;
  long every = 0, seen = 0;
  if (const char* e = getenv("SAFEPOINT_EXECUTOR_EXIT_EVERY")) every = atol(e);
  return safepoint::verdict::Serve(STDIN_FILENO, out, [&](const safepoint::verdict::ProbeRequest& q) {
    if (every > 0 && ++seen % every == 0) _exit(9);
    return safepoint::verdict::ProbeOnNativePort(q, mutation ? mutation->apply : nullptr);
  });
}
