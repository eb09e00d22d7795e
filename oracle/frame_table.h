// The frame-table oracle: the function table's frames against the machine's.
// Every unwinder (the collector's stack walk, copystack's pointer
// adjustment, a traceback) trusts pcsp: at each PC, how far SP is below the
// frame's entry SP and where the return address is (its slot, or still the
// link register). Nothing else checks that the table says what the code
// does; a wrong row shows only when a walk happens to start there (Go's own
// worst bugs of this class: a goroutine preempted between two SP moves of
// an epilogue, then an unwinder crash). This oracle walks the goroutine's
// stack as it was at the trap, from the trap's SP and PC, by the table, and
// asks the machine at every frame: the return address the table points at
// must be a return site (the instruction before it a call the table lists),
// a caller's return address must be saved in its frame, and the walk must
// end at the goroutine's frame base exactly, returning to goexit. The SP
// the table derives from the frame base is then the trap's. When it is
// not, the oracle finds the SP offset (and, on a link-register port, the
// return address's place) the machine really had, by trying every other
// one at the first frame, and names both.
//
// It judges the table's shape (FuncTable) and a FrameImage only, so a
// runtime from outside this tree (Go's pclntab read from a binary) is
// judged the same way. It is the one oracle that reads the function table,
// because the table is what it judges; it never uses it to say what should
// happen (tools/layering.sh lets only this room include core/functab.h).
#ifndef SAFEPOINT_ORACLE_FRAME_TABLE_H_
#define SAFEPOINT_ORACLE_FRAME_TABLE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "core/functab.h"
#include "harness/frame_image.h"

namespace safepoint::oracle {

struct FrameCheck {
  bool judged = false;   // the image was seen and the walk could be judged
  std::string unjudged;  // why not, when it was seen ("" otherwise)
  size_t frames = 0;     // frames the table's walk visited
  // Those frames, innermost first: each one's PC and SP by the table (what
  // an unwinder, a traceback or the collector's stack map starts from).
  struct Frame {
    uintptr_t pc = 0, sp = 0;
    std::string func;
  };
  std::vector<Frame> walk;
  // "" when the table and the machine agree at every frame; else one line
  // naming the function, the PC and the two values.
  std::string problem;
  // The frame where the walk went wrong (0: the trap's), its function and
  // offset in it, the table's SP offset and the machine's (-1: not found).
  size_t frame = 0;
  std::string func;
  uint32_t func_off = 0;
  int table_delta = 0, machine_delta = -1;
  bool table_lr_saved = false, machine_lr_saved = false;
  bool ok() const { return problem.empty(); }
};

// The table's walk of `img` from the trap, PC `pc` (the armed instruction,
// or where an accepted preemption resumes: a restart's start).
FrameCheck CheckFrameTable(const FuncTable& table, const harness::FrameImage& img, uintptr_t pc);

}  // namespace safepoint::oracle

#endif
