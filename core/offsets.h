/* Field offsets the per-port assembly (gogo, mcall, systemstack, morestack)
 * and the emitted code use. Plain C preprocessor so that .S files include it;
 * runtime/runtime.h checks every one with static_assert against the C++
 * structs, so the two cannot drift apart.
 *
 * stackguard0 sits at 16(g), as in Go: the emitted prologue is
 * CMPQ SP, 16(R14) on amd64 and its arm64/loong64 forms. */
#ifndef SAFEPOINT_RUNTIME_OFFSETS_H_
#define SAFEPOINT_RUNTIME_OFFSETS_H_

/* struct G */
#define G_STACK_LO 0
#define G_STACK_HI 8
#define G_STACKGUARD0 16
#define G_STACKGUARD1 24
#define G_SCHED 32
#define G_SCHED_SP (G_SCHED + GOBUF_SP)
#define G_SCHED_PC (G_SCHED + GOBUF_PC)
#define G_SCHED_LR (G_SCHED + GOBUF_LR)
#define G_SCHED_G (G_SCHED + GOBUF_G)
#define G_M 64
#define G_PARAM 72    /* operand a service stub hands to the runtime */
#define G_ARGSPILL 80 /* r0 spilled around morestack, as Go's tail spills register args */

/* struct Gobuf */
#define GOBUF_SP 0
#define GOBUF_PC 8
#define GOBUF_LR 16
#define GOBUF_G 24

/* struct M */
#define M_G0 0
#define M_CURG 8
#define M_MOREBUF_PC 16
#define M_MOREBUF_SP 24
#define M_MOREBUF_LR 32
#define M_P 40

/* struct P: the vector scratch area asyncPreempt writes comes first. */
#define P_XSCRATCH 0
#define P_XSCRATCH_BYTES 2048

/* StackGuard: stackguard0 = stack.lo + STACK_GUARD normally. */
#define STACK_GUARD 928
#define STACK_SMALL 128

#endif
