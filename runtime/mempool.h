// The runtime's memory kept for reuse across runtimes in one process (Go
// keeps freed stacks in its stackpool and never returns the heap's arenas;
// here a fuzzing process builds a runtime, or resets one, per execution).
//
// Why: a fuzz execution ran a few hundred goroutines over two runtime
// lifetimes, and every goroutine stack, g0 stack, heap reservation and
// data page was an mmap at its start and a munmap at its end. On these
// machines (a VM) every munmap of a page touched by more than one thread
// is a TLB shootdown across CPUs: the kernel's share was 40% of a
// preempt_fuzz process, newproc and ~Runtime alone 40% (perf, -c opt).
//
// A mapping is kept only when nothing can still reach it (the runtime that
// gave it back had every M stopped), and whoever takes it again puts it in
// the state a fresh mmap would have where that matters: a goroutine
// stack zeroed from its lo up, a heap reservation's pages inaccessible and
// zeroed as they are handed out, a heap object table zeroed (by the runtime
// that gives it back, where its runs wrote), the data pages zeroed
// (stack.cc, mheap.cc, proc.cc say which). A g0 stack is taken as it was left: only C++ frames
// live there, below the SP mstart1 gives it.
#ifndef SAFEPOINT_RUNTIME_MEMPOOL_H_
#define SAFEPOINT_RUNTIME_MEMPOOL_H_

#include <cstddef>

namespace safepoint {

enum class Mapping {
  kGoroutineStack,  // a guard page and the body (AllocStack)
  kG0Stack,         // an M's g0 stack (StartM)
  kHeap,            // the heap's PROT_NONE reservation (HeapInit)
  kData,            // the program's data reservation (Runtime::Runtime)
  kHeapObjects,     // the heap's object table (HeapInit), all zero
};

// A kept mapping of exactly `size` bytes of that kind, or nullptr (then
// the caller maps one).
void* TakeMapping(Mapping kind, size_t size);
// Keeps the mapping for a later TakeMapping, or unmaps it when the pool
// already holds its limit of that kind (64 MiB of goroutine stacks, 64 g0
// stacks, 8 heap and 8 data reservations, 8 object tables).
void GiveMapping(Mapping kind, void* addr, size_t size);

// Counters (tests, the fuzzers' reports): mappings taken from the pool,
// and mapped afresh because it had none of the size.
struct MappingCounts {
  long reused = 0;
  long fresh = 0;
};
MappingCounts MappingCountsOf(Mapping kind);
// Counts a fresh mapping (the callers that map one themselves).
void CountFreshMapping(Mapping kind);

}  // namespace safepoint

#endif
