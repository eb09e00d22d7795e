// The save-area oracle (DESIGN.md section 5.3): at an asynchronous
// preemption, the asyncPreempt frame on the goroutine stack and the G's
// extended state hold exactly the registers as they were at the trap, in the
// layout the port's table documents (PortInfo::saved_regs). It knows what
// the program put in the registers from the program's own operations
// (fillregs, vfill, setflags), never from the code that saved them.
#ifndef SAFEPOINT_ORACLE_SAVE_AREA_H_
#define SAFEPOINT_ORACLE_SAVE_AREA_H_

#include <cstdint>
#include <string>
#include <vector>

#include "platforms/port.h"

namespace safepoint::oracle {

// The register state the program set before the trap.
struct TrapState {
  int64_t fillregs_seed;  // `fillregs SEED`: IR register i holds SEED + i
  int64_t vfill_seed;     // `vfill SEED`: ir::VectorPattern(SEED, reg, half)
  uint64_t setflags;      // `setflags IMM`, compared on port.setflags_mask
};

// The names of the registers the frame (asyncPreempt's SP) holds wrongly:
// the IR registers and the port's setflags register. Empty when all hold.
std::vector<std::string> CheckFrame(const PortInfo& port, const uint8_t* frame, const TrapState& want);
// The names of the vector registers of tier `tier` the G's extended state
// holds wrongly (vfill sets the low 128 bits of each; narrower registers,
// amd64's mask registers, are not compared).
std::vector<std::string> CheckExtendedState(const PortInfo& port, int tier, const uint8_t* xstate,
                                            const TrapState& want);

}  // namespace safepoint::oracle

#endif
