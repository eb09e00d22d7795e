// The save-area oracle (DESIGN.md section 5.3): at an asynchronous
// preemption, the asyncPreempt frame on the goroutine stack and the G's
// extended state hold exactly the registers as they were at the trap, in the
// layout the port's table documents (PortInfo::saved_regs): every IR
// register, every flag and control register on the bits `setflags` sets,
// every vector register of the tier at its full width. It knows what the
// program put in the registers from the program's own operations (fillregs,
// vfill, setflags; core/ir.h), never from the code that saved them. The
// same checks judge what the program itself observes (`vdump`, whose layout
// is the tier's, and `flagsdump`).
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
  int64_t vfill_seed;     // `vfill SEED`: word w of the tier's layout is ir::VectorPattern(SEED, w)
  uint64_t setflags;      // `setflags IMM`: each kFlags register holds IMM on its setflags_mask
};

// The names of the registers the frame (asyncPreempt's SP) holds wrongly:
// the IR registers, and every flag and control register (compared on its
// setflags_mask). Empty when all hold.
std::vector<std::string> CheckFrame(const PortInfo& port, const uint8_t* frame, const TrapState& want);
// The names of the vector registers of tier `tier` that `area`, in the
// tier's layout (the G's extended state, or a `vdump` area), holds wrongly
// in any byte.
std::vector<std::string> CheckExtendedState(const PortInfo& port, int tier, const uint8_t* area,
                                            const TrapState& want);
// The names of the flag and control registers that `flagsdump g[N]` stored
// wrongly (on their setflags_mask); `words` is g[N..N+ir::kFlagsWords).
std::vector<std::string> CheckFlagsDump(const PortInfo& port, const uint64_t* words, const TrapState& want);

// The fuzzer's form, for programs that set no known pattern: what
// asyncPreempt saved (the frame at its SP, and the extended state of tier
// `tier`) against the registers the armed trap's signal context held at the
// same instruction (RegisterImage, in saved_regs order): every general
// register, every flag and control register on its setflags_mask, every
// vector register of the tier, each on the leading bytes the context held.
// On a port with a link register, the interrupted one too, in pushCall's
// slot (RegisterImage::link). Registers the context does not hold are not
// judged; *compared counts the ones that were. Each wrong one as "NAME:
// saved 0x.., trap had 0x..".
std::vector<std::string> CheckAgainstTrap(const PortInfo& port, const std::vector<uint8_t>& frame, int tier,
                                          const std::vector<uint8_t>& xstate, const RegisterImage& trap,
                                          size_t* compared);

}  // namespace safepoint::oracle

#endif
