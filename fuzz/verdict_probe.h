// One probe request answered on the port this binary is built for: what the
// verdict executor (fuzz/verdict_executor.cc) runs for each request, and
// what the differential fuzzer runs in-process for the native port. The
// request and response are fuzz/verdict_protocol.h's.
//
// The program runs once unpreempted (cached per program and settings: the
// function table says where each IR operation's first instruction is,
// harness::PositionOf), then once per probed operation armed at that
// instruction in a fresh runtime (harness::ObserveAt, as the sweep does).
// Each result carries what the runtime did there and what the port's own
// decision oracle expects there (oracle::Decide with the port's PortModel).
#ifndef SAFEPOINT_FUZZ_VERDICT_PROBE_H_
#define SAFEPOINT_FUZZ_VERDICT_PROBE_H_

#include "fuzz/verdict_protocol.h"
#include "runtime/options.h"

namespace safepoint::verdict {

// A probe whose accepted preemption the frame-table oracle judged wrong
// (oracle/frame_table.h) answers kRunError with a detail that starts with
// this; the differential fuzzer reports it on that port alone.
inline constexpr const char* kFrameTableFinding = "frame table: ";

// `mutate`, when given, breaks every runtime it runs (harness/mutations.h):
// an executor under a mutation shows the differential fuzzer a difference.
ProbeResponse ProbeOnNativePort(const ProbeRequest& q, void (*mutate)(RuntimeMutations&) = nullptr);

}  // namespace safepoint::verdict

#endif
