// The assembly entry points every port supplies (platforms/<arch>/asm.S).
// Their contracts are documented at the top of each port's asm.S.
#ifndef SAFEPOINT_PLATFORMS_ASM_H_
#define SAFEPOINT_PLATFORMS_ASM_H_

#include <cstdint>

namespace safepoint {
struct Gobuf;
struct G;
}

extern "C" {
[[noreturn]] void sp_gogo(const safepoint::Gobuf* buf);
void sp_mcall();        // entered from service stubs only
void sp_systemstack();  // entered from service stubs only
void sp_morestack();    // entered from prologue tails only
void sp_call_on_stack(uintptr_t sp, void (*fn)(void*), void* arg);
uintptr_t sp_getsp();
// Changes what asyncPreempt saved beyond the general registers, as another
// goroutine's code might: sets every bit of the vector registers of
// extended-state tier `tier` (PortInfo::tiers) that the C calling
// convention lets a callee change, and writes flags[i] into the i-th flag
// and control register of the port's table (FlagRegs; amd64's RFLAGS is
// left to the C++ code that follows, which changes it anyway).
// asyncPreempt2 calls it, so a register, or part of one, that asyncPreempt
// does not restore shows in what the program observes.
void sp_clobber(int tier, const uint64_t* flags);
// Called by sp_morestack on g0.
[[noreturn]] void sp_newstack(safepoint::G* gp);
}

#endif
