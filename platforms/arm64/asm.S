/* arm64 switching primitives of the reference runtime (GNU as syntax).
 *
 * Register use follows Go's arm64 ABI in generated code: g in x28, REGTMP
 * x27, LR x30, the saved LR at 0(SP) of a frame (platforms/arm64/README.md).
 * C++ is entered on the M's g0 stack with AAPCS64: argument in x0, SP
 * 16-byte aligned, x19-x28 preserved by the callee, so g survives a C++ call
 * that returns. x29 is zeroed before C++ runs on g0, so that a C++ frame
 * chain ends there instead of running into a goroutine's stale value.
 *
 *   sp_gogo(Gobuf*)                C: restore g, SP and LR from the Gobuf,
 *                                 jump to its PC
 *   sp_mcall                      stub (br): fn in x0, LR = return address
 *                                 in the caller; save the caller in g.sched,
 *                                 switch to g0, call fn(g); never returns
 *   sp_systemstack                stub (br): fn in x0, LR = return address;
 *                                 switch to g0, call fn(g), switch back and
 *                                 return to the caller
 *   sp_morestack                  prologue tail (blr): LR = the PC in f's
 *                                 tail, x3 = f's return address; record f
 *                                 and its caller, switch to g0, call
 *                                 sp_newstack(g)
 *   sp_call_on_stack(sp, fn, arg) C: run fn(arg) on another stack and come back
 *   sp_getsp()                    C: the caller's SP
 */
#include "core/offsets.h"

	.text

	.globl sp_gogo
	.type sp_gogo, @function
	.p2align 2
sp_gogo:
	ldr x28, [x0, #GOBUF_G]
	ldr x1, [x0, #GOBUF_SP]
	mov sp, x1
	/* A function resumed in its morestack tail re-runs its prologue, which
	 * saves LR: LR must again be its return address (sched.lr). */
	ldr x30, [x0, #GOBUF_LR]
	ldr x27, [x0, #GOBUF_PC]
	br x27
	.size sp_gogo, .-sp_gogo

	.globl sp_mcall
	.type sp_mcall, @function
	.p2align 2
sp_mcall:
	/* Resuming at the return address with this SP is returning from the
	 * stub's BL; the caller saved its own LR in its frame. */
	str x30, [x28, #G_SCHED_PC]
	mov x9, sp
	str x9, [x28, #G_SCHED_SP]
	str xzr, [x28, #G_SCHED_LR]
	str x28, [x28, #G_SCHED_G]
	mov x1, x0                     /* fn */
	mov x0, x28                    /* gp */
	ldr x9, [x28, #G_M]
	ldr x9, [x9, #M_G0]
	ldr x9, [x9, #G_SCHED_SP]
	mov sp, x9                     /* g0 stack, 16-byte aligned */
	mov x29, xzr
	blr x1
	udf #0
	.size sp_mcall, .-sp_mcall

	.globl sp_systemstack
	.type sp_systemstack, @function
	.p2align 2
sp_systemstack:
	ldr x9, [x28, #G_M]
	ldr x9, [x9, #M_G0]
	ldr x9, [x9, #G_SCHED_SP]
	mov x10, sp
	sub sp, x9, #16                /* a 16-byte slot keeps the alignment */
	stp x10, x30, [sp]             /* goroutine SP and return address */
	mov x1, x0                     /* fn */
	mov x0, x28                    /* gp */
	mov x29, xzr
	blr x1
	/* No value of the runtime's C++ leaks into the goroutine's general or
	 * vector registers (every call clobbers them in Go's ABI): a stale
	 * pointer there would make what the conservative scan keeps depend on
	 * the C++ compiler. */
	mov x1, xzr
	mov x2, xzr
	mov x3, xzr
	mov x4, xzr
	mov x5, xzr
	mov x6, xzr
	mov x7, xzr
	mov x8, xzr
	mov x9, xzr
	mov x11, xzr
	mov x12, xzr
	mov x13, xzr
	mov x14, xzr
	mov x15, xzr
	mov x16, xzr
	mov x17, xzr
	movi v0.2d, #0
	movi v1.2d, #0
	movi v2.2d, #0
	movi v3.2d, #0
	movi v4.2d, #0
	movi v5.2d, #0
	movi v6.2d, #0
	movi v7.2d, #0
	movi v8.2d, #0
	movi v9.2d, #0
	movi v10.2d, #0
	movi v11.2d, #0
	movi v12.2d, #0
	movi v13.2d, #0
	movi v14.2d, #0
	movi v15.2d, #0
	movi v16.2d, #0
	movi v17.2d, #0
	movi v18.2d, #0
	movi v19.2d, #0
	movi v20.2d, #0
	movi v21.2d, #0
	movi v22.2d, #0
	movi v23.2d, #0
	movi v24.2d, #0
	movi v25.2d, #0
	movi v26.2d, #0
	movi v27.2d, #0
	movi v28.2d, #0
	movi v29.2d, #0
	movi v30.2d, #0
	movi v31.2d, #0
	ldp x10, x30, [sp]
	mov sp, x10                    /* back on the goroutine stack */
	ret
	.size sp_systemstack, .-sp_systemstack

	.globl sp_morestack
	.type sp_morestack, @function
	.p2align 2
sp_morestack:
	/* The tail runs before f opens its frame: SP is f's entry SP, which is
	 * also its caller's SP. */
	ldr x9, [x28, #G_M]
	str x3, [x9, #M_MOREBUF_PC]    /* f's caller's PC */
	mov x10, sp
	str x10, [x9, #M_MOREBUF_SP]
	str x30, [x28, #G_SCHED_PC]    /* resume in the tail: reload r0, check again */
	str x10, [x28, #G_SCHED_SP]
	str x3, [x28, #G_SCHED_LR]     /* f's LR, for its prologue to save */
	str x28, [x28, #G_SCHED_G]
	mov x0, x28
	ldr x9, [x9, #M_G0]
	ldr x9, [x9, #G_SCHED_SP]
	mov sp, x9
	mov x29, xzr
	bl sp_newstack
	udf #0
	.size sp_morestack, .-sp_morestack

	.globl sp_call_on_stack
	.type sp_call_on_stack, @function
	.p2align 2
sp_call_on_stack:
	/* A frame record on the old stack, so that C++ unwinding from fn
	 * reaches our caller. */
	stp x29, x30, [sp, #-16]!
	mov x29, sp
	and x0, x0, #~15
	mov x9, sp
	sub sp, x0, #16
	str x9, [sp]                   /* the old SP, in a 16-byte slot */
	mov x0, x2
	blr x1
	ldr x9, [sp]
	mov sp, x9
	ldp x29, x30, [sp], #16
	ret
	.size sp_call_on_stack, .-sp_call_on_stack

	.globl sp_getsp
	.type sp_getsp, @function
	.p2align 2
sp_getsp:
	mov x0, sp                     /* BL does not move SP: this is the caller's */
	ret
	.size sp_getsp, .-sp_getsp

	/* sp_clobber(tier, flags): every bit of V0-V7 and V16-V31 set, and the
	   upper 64 bits of V8-V15 (AAPCS64 keeps their low 64 bits
	   callee-saved), as another goroutine's code might leave them; NZCV,
	   FPSR, FPCR = flags[0..2] (the table's order). */
	.globl sp_clobber
	.type sp_clobber, @function
	.p2align 2
sp_clobber:
	.irp n, 0,1,2,3,4,5,6,7,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31
	movi v\n\().2d, #0xffffffffffffffff
	.endr
	mov x9, #-1
	.irp n, 8,9,10,11,12,13,14,15
	mov v\n\().d[1], x9
	.endr
	ldr x9, [x1]
	msr nzcv, x9
	ldr x9, [x1, #8]
	msr fpsr, x9
	ldr x9, [x1, #16]
	msr fpcr, x9
	ret
	.size sp_clobber, .-sp_clobber

	.section .note.GNU-stack,"",@progbits
