// Armed delivery (DESIGN.md section 4): a preemption signal at an exact
// instruction, natively and under QEMU (which delivers asynchronous signals
// only between translation blocks). Arm writes the port's breakpoint over
// the chosen instruction; when it traps, the SIGTRAP handler puts the
// instruction back, rewinds the PC to it, records a kTrap event and raises a
// request on that M as preemptone would (Runtime::preemptCurrent), whose
// SIGURG stays pending (it is in the handler's mask) until sigreturn and
// then arrives with the PC exactly at the armed instruction.
//
// One instruction is armed per process at a time. Arm only while no M runs
// the code (before Run, or from a callback with GOMAXPROCS=1).
#ifndef SAFEPOINT_HARNESS_ARMED_H_
#define SAFEPOINT_HARNESS_ARMED_H_

#include <cstdint>
#include <string>

#include "runtime/runtime.h"

namespace safepoint::harness {

// Arms code offset `off` of rt's loaded program. Refused (false, *err) for
// an offset that is not an instruction boundary of a generated function,
// when no program is loaded, or while another instruction of rt is armed.
bool Arm(Runtime& rt, uint32_t off, std::string* err);
// The code offset of the first machine instruction of the IR operation
// that follows label `label` in function `fn` of `prog` as rt loaded it
// (0 when there is none): what a test arms.
uint32_t LabelOffset(const FuncTable& table, const ir::Program& prog, const std::string& fn, const std::string& label);
// Whether an instruction is armed and has not trapped yet.
bool Armed();
// Disarms (restores the instruction) if `rt` holds the armed one.
void Disarm(Runtime& rt);

}  // namespace safepoint::harness

#endif
