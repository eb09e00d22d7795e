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
// the code (before Run, or from a callback with GOMAXPROCS=1). Further
// points may follow it (ArmThen): each is armed by the trap handler of the
// one before, once that one's request is in, so they are armed one after
// another, never two at once.
#ifndef SAFEPOINT_HARNESS_ARMED_H_
#define SAFEPOINT_HARNESS_ARMED_H_

#include <cstdint>
#include <string>
#include <vector>

#include "harness/frame_image.h"
#include "platforms/port.h"
#include "runtime/runtime.h"

namespace safepoint::harness {

// Who raises the request the armed instruction's signal answers: the
// sources of chapter 9.7.6, each through the runtime's own code.
//   kPreemptOne  the trap handler, on the trapping M, as preemptone would
//                (Runtime::preemptCurrent; the request's source is kArmed)
//   kSysmon      sysmon's retake: the runtime runs on a ManualClock, which a
//                requester thread moves by forcePreemptNS (10 ms) once
//                sysmon has seen this time slice begin; sysmon must retake
//   kSuspendG    suspendG from a requester thread (as the collector would),
//                then resumeG; on a ManualClock, time flows while it runs
//                (its preemptM is paced on that clock)
//   kForEachP    forEachP from a requester thread (preemptall every 100 us
//                until every P ran the function at a safe point)
// For the last three the trap handler waits (bounded) until the request
// has reached the goroutine and, when asynchronous preemption is on, its
// signal is pending, so that the signal still arrives at the armed
// instruction.
enum class RequestSource : uint8_t { kPreemptOne, kSysmon, kSuspendG, kForEachP };
constexpr int kRequestSources = 4;
const char* RequestSourceName(RequestSource s);

// Arms code offset `off` of rt's loaded program. Refused (false, *err) for
// an offset that is not an instruction boundary of a generated function,
// when no program is loaded, or while another instruction of rt is armed.
// `clock` is rt's ManualClock, which kSysmon needs (and rt's sysmon
// running on it).
bool Arm(Runtime& rt, uint32_t off, std::string* err, RequestSource src = RequestSource::kPreemptOne,
         ManualClock* clock = nullptr);
// A further point of a chain: its code offset and who raises its request.
struct ArmPoint {
  uint32_t off = 0;
  RequestSource src = RequestSource::kPreemptOne;
};
constexpr size_t kMaxArmThen = 3;
// After Arm (before Run): the points to arm, in order, after the armed one
// traps. Refused (false, *err) for more than kMaxArmThen, an offset that is
// not an instruction boundary of a generated function, sysmon as a source
// without the ManualClock Arm was given, or when rt holds no armed
// instruction. Points never reached stay unarmed. Each point's request is
// served once, in order, even when the next point traps before the
// requester thread has finished the one before's.
bool ArmThen(Runtime& rt, const std::vector<ArmPoint>& then, std::string* err);

// The code offset of the first machine instruction of the IR operation
// that follows label `label` in function `fn` of `prog` as rt loaded it
// (0 when there is none): what a test arms.
uint32_t LabelOffset(const FuncTable& table, const ir::Program& prog, const std::string& fn, const std::string& label);
// The registers at the armed instruction when it trapped, for the
// save-area oracle: asked in asyncPreempt2 (RuntimeHooks::on_async_preempt)
// by the runtime under test. True, with *out, when this preemption of
// goroutine `gp` (by goid: Gs are reused) on M `m` answers the first
// SIGURG the M handled since the armed instruction trapped there on that
// goroutine, a signal the trap handler made sure of, and stopped exactly
// there (async PC `pc`); each trap answers once. A later preemption at the
// same instruction (a loop, or another goroutine running the same code in
// a reused G after the trapped one passed it without a signal) is never
// compared with the trap's registers: found by the preemption fuzzer on
// loong64, where 134 goroutines run one function, and QEMU delivers
// signals at the starts of translation blocks.
bool TakeTrapRegisters(const M* m, const G* gp, uintptr_t pc, RegisterImage* out);
// The goroutine's frame image at point `point` of the current arm (0: the
// armed instruction, n: the chain's nth further point), recorded by the
// trap handler that took it before anything else ran on the goroutine.
// False when that point has not trapped since the last Arm.
bool TakeTrapFrame(size_t point, FrameImage* out);
// Whether an instruction is armed and has not trapped yet.
bool Armed();
// Disarms (restores the instruction) if `rt` holds the armed one, and ends
// its requester thread (bounded: suspendG and forEachP end when the
// program has ended).
void Disarm(Runtime& rt);

}  // namespace safepoint::harness

#endif
