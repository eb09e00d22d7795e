// What a goroutine's stack looked like at an armed instruction's trap: the
// machine's side of the frame-table oracle (oracle/frame_table.h). A runtime
// under test records one per point it traps at, before anything else runs
// on the goroutine; a runtime from outside this tree (a tracer stopped at
// the instruction) records the same: registers and stack memory, nothing
// of the runtime's own bookkeeping but the stack's bounds, the goroutine's
// frame base and the return PC its first frame returns to.
#ifndef SAFEPOINT_HARNESS_FRAME_IMAGE_H_
#define SAFEPOINT_HARNESS_FRAME_IMAGE_H_

#include <cstdint>
#include <vector>

namespace safepoint::harness {

struct FrameImage {
  bool seen = false;      // recorded at the trap
  uintptr_t code_base = 0;  // where the function table's offset 0 is
  uintptr_t pc = 0;         // the trap's PC (the armed instruction)
  uintptr_t sp = 0;         // the trap's SP, from its signal context
  bool has_lr = false;      // the port has a link register
  uintptr_t lr = 0;         // its value at the trap
  uintptr_t stack_lo = 0, stack_hi = 0;  // the goroutine's stack
  // The goroutine's frame base: the SP its first function's caller would
  // have (that function's entry SP plus the return address amd64's call
  // pushed), and the return PC that first frame holds (goexit's). A walk
  // that reaches `goexit` must be at `base` exactly.
  uintptr_t base = 0;
  uintptr_t goexit = 0;
  // The stack's bytes from `sp` up (toward stack_hi), as far as they were
  // kept: words past the end are unknown to the oracle, never guessed.
  std::vector<uint8_t> stack;
  bool Read(uintptr_t addr, uintptr_t* out) const;
};

inline bool FrameImage::Read(uintptr_t addr, uintptr_t* out) const {
  if (addr < sp || addr - sp + sizeof(uintptr_t) > stack.size()) return false;
  uintptr_t w = 0;
  const uint8_t* p = stack.data() + (addr - sp);
  for (size_t i = 0; i < sizeof w; i++) w |= static_cast<uintptr_t>(p[i]) << (8 * i);
  *out = w;
  return true;
}

}  // namespace safepoint::harness

#endif
