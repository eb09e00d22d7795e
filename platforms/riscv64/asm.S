/* riscv64 switching primitives of the reference runtime (GNU as syntax).
 *
 * Register use follows Go's riscv64 ABI in generated code: g in x27 (s11),
 * SP x2, RA x1, REGTMP x31 (t6), zero x0; x3 (gp, the linker's global
 * pointer) and x4 (tp, C++ thread_local) are never touched. C++ is entered
 * on the M's g0 stack with the LP64D ABI: argument in a0, SP 16-byte
 * aligned. x27 is callee-saved there, so C++ called from here hands g back
 * intact. Assembled without compressed instructions, like generated code.
 *
 *   sp_gogo(Gobuf*)                C: restore g, SP and RA from the Gobuf,
 *                                 jump to its PC
 *   sp_mcall                      stub: fn in a0, RA = the return address
 *                                 into user code; save it in g.sched, switch
 *                                 to g0, call fn(g); never returns
 *   sp_systemstack                stub: fn in a0, RA = the call site; switch
 *                                 to g0, call fn(g), switch back, return
 *   sp_morestack                  prologue tail (jalr t0, as Go's
 *                                 JAL X5, runtime.morestack): t0 = the PC in
 *                                 f's tail, RA = f's return address; record
 *                                 f and its caller, switch to g0, call
 *                                 sp_newstack(g)
 *   sp_call_on_stack(sp, fn, arg) C: run fn(arg) on another stack and come back
 *   sp_getsp()                    C: the caller's SP
 *
 * Temporaries (t1, t2) are free everywhere here: generated code treats every
 * call as clobbering every register but g and SP. */
#include "core/offsets.h"

	.option norvc
	.text

	.globl sp_gogo
	.type sp_gogo, @function
	.p2align 2
sp_gogo:
	ld x27, GOBUF_G(a0)
	ld sp, GOBUF_SP(a0)
	/* A goroutine resumed inside a morestack tail needs f's own return
	 * address back in RA; a new one needs goexit there; mcall leaves 0. */
	ld ra, GOBUF_LR(a0)
	ld x31, GOBUF_PC(a0)
	jr x31
	.size sp_gogo, .-sp_gogo

	.globl sp_mcall
	.type sp_mcall, @function
	.p2align 2
sp_mcall:
	/* The stub tail-jumped here without a frame: RA and SP are the caller's. */
	sd ra, G_SCHED_PC(x27)
	sd sp, G_SCHED_SP(x27)
	sd zero, G_SCHED_LR(x27)
	sd x27, G_SCHED_G(x27)
	ld t1, G_M(x27)
	ld t1, M_G0(t1)
	ld sp, G_SCHED_SP(t1)         /* g0 stack, 16-byte aligned */
	mv t2, a0                     /* fn */
	mv a0, x27                    /* gp */
	mv s0, zero                   /* a C frame chain ends here */
	jalr ra, 0(t2)
	ebreak                        /* fn never returns */
	.size sp_mcall, .-sp_mcall

	.globl sp_systemstack
	.type sp_systemstack, @function
	.p2align 2
sp_systemstack:
	ld t1, G_M(x27)
	ld t1, M_G0(t1)
	ld t1, G_SCHED_SP(t1)
	/* 16 bytes on g0 for the goroutine's SP and RA; alignment kept. */
	addi t1, t1, -16
	sd sp, 0(t1)
	sd ra, 8(t1)
	mv sp, t1
	mv t2, a0                     /* fn */
	mv a0, x27                    /* gp */
	jalr ra, 0(t2)
	/* No value of the runtime's C++ leaks into the goroutine's general or
	 * vector registers (every call clobbers them in Go's ABI): a stale
	 * pointer there would make what the conservative scan keeps depend on
	 * the C++ compiler. */
	li a1, 0
	li a2, 0
	li a3, 0
	li a4, 0
	li a5, 0
	li a6, 0
	li a7, 0
	li t0, 0
	li t1, 0
	li t2, 0
	li t3, 0
	li t4, 0
	li t5, 0
	li t6, 0
	fmv.d.x f0, zero
	fmv.d.x f1, zero
	fmv.d.x f2, zero
	fmv.d.x f3, zero
	fmv.d.x f4, zero
	fmv.d.x f5, zero
	fmv.d.x f6, zero
	fmv.d.x f7, zero
	fmv.d.x f8, zero
	fmv.d.x f9, zero
	fmv.d.x f10, zero
	fmv.d.x f11, zero
	fmv.d.x f12, zero
	fmv.d.x f13, zero
	fmv.d.x f14, zero
	fmv.d.x f15, zero
	fmv.d.x f16, zero
	fmv.d.x f17, zero
	fmv.d.x f18, zero
	fmv.d.x f19, zero
	fmv.d.x f20, zero
	fmv.d.x f21, zero
	fmv.d.x f22, zero
	fmv.d.x f23, zero
	fmv.d.x f24, zero
	fmv.d.x f25, zero
	fmv.d.x f26, zero
	fmv.d.x f27, zero
	fmv.d.x f28, zero
	fmv.d.x f29, zero
	fmv.d.x f30, zero
	fmv.d.x f31, zero
	ld ra, 8(sp)
	ld sp, 0(sp)                  /* back on the goroutine stack */
	jr ra
	.size sp_systemstack, .-sp_systemstack

	.globl sp_morestack
	.type sp_morestack, @function
	.p2align 2
sp_morestack:
	/* SP is f's entry SP: f has not allocated its frame yet. */
	ld t1, G_M(x27)
	sd ra, M_MOREBUF_PC(t1)       /* f's caller's PC */
	sd sp, M_MOREBUF_SP(t1)
	sd t0, G_SCHED_PC(x27)        /* in f's tail, after the call here */
	sd sp, G_SCHED_SP(x27)
	/* gogo puts this in RA: the tail jumps back to f's entry, whose
	 * prologue saves RA as f's return address. */
	sd ra, G_SCHED_LR(x27)
	sd x27, G_SCHED_G(x27)
	mv a0, x27
	ld t1, M_G0(t1)
	ld sp, G_SCHED_SP(t1)
	mv s0, zero
	call sp_newstack
	ebreak                        /* sp_newstack never returns */
	.size sp_morestack, .-sp_morestack

	.globl sp_call_on_stack
	.type sp_call_on_stack, @function
	.p2align 2
sp_call_on_stack:
	andi a0, a0, -16              /* align the new stack down to 16 */
	addi a0, a0, -16
	sd sp, 0(a0)
	sd ra, 8(a0)
	mv sp, a0
	mv a0, a2                     /* arg */
	jalr ra, 0(a1)                /* fn(arg) */
	ld ra, 8(sp)
	ld sp, 0(sp)
	ret
	.size sp_call_on_stack, .-sp_call_on_stack

	.globl sp_getsp
	.type sp_getsp, @function
	.p2align 2
sp_getsp:
	/* A leaf with no frame: SP here is the caller's. */
	mv a0, sp
	ret
	.size sp_getsp, .-sp_getsp

	/* sp_clobber(tier, flags): every bit of the caller-saved F registers
	   (ft0-ft11 and fa0-fa7: f0-f7, f10-f17, f28-f31) set, as another
	   goroutine's code might leave them (fs0-fs11 are callee-saved in
	   LP64D); fcsr = flags[0]. */
	.globl sp_clobber
	.type sp_clobber, @function
	.p2align 2
sp_clobber:
	li t0, -1
	.irp n, 0,1,2,3,4,5,6,7,10,11,12,13,14,15,16,17,28,29,30,31
	fmv.d.x f\n, t0
	.endr
	ld t0, 0(a1)
	csrw fcsr, t0
	ret
	.size sp_clobber, .-sp_clobber

	.section .note.GNU-stack,"",@progbits
