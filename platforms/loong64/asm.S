/* loong64 switching primitives of the reference runtime (GNU as syntax).
 *
 * Register use follows Go's loong64 ABI in generated code, by number:
 * g in $r22, SP $r3, RA $r1, REGTMP $r30, zero $r0; $r2 is the thread
 * pointer (C++ thread_local) and is never touched. C++ is entered on the M's
 * g0 stack with the LP64D ABI: argument in $r4, SP 16-byte aligned. $r22 is
 * $fp there, callee-saved, so C++ called from here hands g back intact.
 *
 *   sp_gogo(Gobuf*)                C: restore g, SP and RA from the Gobuf,
 *                                 jump to its PC
 *   sp_mcall                      stub: fn in $r4, RA = the return address
 *                                 into user code; save it in g.sched, switch
 *                                 to g0, call fn(g); never returns
 *   sp_systemstack                stub: fn in $r4, RA = the call site; switch
 *                                 to g0, call fn(g), switch back, return
 *   sp_morestack                  prologue tail: RA = the PC in f's tail,
 *                                 $r31 = f's return address; record f and its
 *                                 caller, switch to g0, call sp_newstack(g)
 *   sp_call_on_stack(sp, fn, arg) C: run fn(arg) on another stack and come back
 *   sp_getsp()                    C: the caller's SP
 *
 * Temporaries ($r12, $r13) are free everywhere here: generated code treats
 * every call as clobbering every register but g and SP. */
#include "core/offsets.h"

	.text

	.globl sp_gogo
	.type sp_gogo, @function
sp_gogo:
	ld.d $r22, $r4, GOBUF_G
	ld.d $r3, $r4, GOBUF_SP
	/* A goroutine resumed inside a morestack tail needs f's own return
	 * address back in RA; a new one needs goexit there; mcall leaves 0. */
	ld.d $r1, $r4, GOBUF_LR
	ld.d $r30, $r4, GOBUF_PC
	jirl $r0, $r30, 0
	.size sp_gogo, .-sp_gogo

	.globl sp_mcall
	.type sp_mcall, @function
sp_mcall:
	/* The stub tail-jumped here without a frame: RA and SP are the caller's. */
	st.d $r1, $r22, G_SCHED_PC
	st.d $r3, $r22, G_SCHED_SP
	st.d $r0, $r22, G_SCHED_LR
	st.d $r22, $r22, G_SCHED_G
	ld.d $r12, $r22, G_M
	ld.d $r12, $r12, M_G0
	ld.d $r3, $r12, G_SCHED_SP    /* g0 stack, 16-byte aligned */
	or $r13, $r4, $r0             /* fn */
	or $r4, $r22, $r0             /* gp */
	jirl $r1, $r13, 0
	break 0                       /* fn never returns */
	.size sp_mcall, .-sp_mcall

	.globl sp_systemstack
	.type sp_systemstack, @function
sp_systemstack:
	ld.d $r12, $r22, G_M
	ld.d $r12, $r12, M_G0
	ld.d $r12, $r12, G_SCHED_SP
	/* 16 bytes on g0 for the goroutine's SP and RA; alignment kept. */
	addi.d $r12, $r12, -16
	st.d $r3, $r12, 0
	st.d $r1, $r12, 8
	or $r3, $r12, $r0
	or $r13, $r4, $r0             /* fn */
	or $r4, $r22, $r0             /* gp */
	jirl $r1, $r13, 0
	/* No value of the runtime's C++ leaks into the goroutine's general or
	 * vector registers (every call clobbers them in Go's ABI): a stale
	 * pointer there would make what the conservative scan keeps depend on
	 * the C++ compiler. */
	or $r5, $r0, $r0
	or $r6, $r0, $r0
	or $r7, $r0, $r0
	or $r8, $r0, $r0
	or $r9, $r0, $r0
	or $r10, $r0, $r0
	or $r11, $r0, $r0
	or $r12, $r0, $r0
	or $r13, $r0, $r0
	or $r14, $r0, $r0
	or $r15, $r0, $r0
	or $r16, $r0, $r0
	or $r17, $r0, $r0
	or $r18, $r0, $r0
	or $r19, $r0, $r0
	or $r20, $r0, $r0
	/* Every lane of $xr0-$xr31 = $zero (xvinsgr2vr.d, spelled as .word: the
	 * assembler has no LASX mnemonics). */
	.irp n, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31
	.word 0x76ebe000 | (0 << 10) | (0 << 5) | \n
	.word 0x76ebe000 | (1 << 10) | (0 << 5) | \n
	.word 0x76ebe000 | (2 << 10) | (0 << 5) | \n
	.word 0x76ebe000 | (3 << 10) | (0 << 5) | \n
	.endr
	ld.d $r1, $r3, 8
	ld.d $r3, $r3, 0              /* back on the goroutine stack */
	jirl $r0, $r1, 0
	.size sp_systemstack, .-sp_systemstack

	.globl sp_morestack
	.type sp_morestack, @function
sp_morestack:
	/* SP is f's entry SP: f has not allocated its frame yet. */
	ld.d $r12, $r22, G_M
	st.d $r31, $r12, M_MOREBUF_PC /* f's caller's PC */
	st.d $r3, $r12, M_MOREBUF_SP
	st.d $r1, $r22, G_SCHED_PC    /* in f's tail, after the call here */
	st.d $r3, $r22, G_SCHED_SP
	/* gogo puts this in RA: the tail branches back to f's entry, whose
	 * prologue saves RA as f's return address. */
	st.d $r31, $r22, G_SCHED_LR
	st.d $r22, $r22, G_SCHED_G
	or $r4, $r22, $r0
	ld.d $r12, $r12, M_G0
	ld.d $r3, $r12, G_SCHED_SP
	bl sp_newstack
	break 0                       /* sp_newstack never returns */
	.size sp_morestack, .-sp_morestack

	.globl sp_call_on_stack
	.type sp_call_on_stack, @function
sp_call_on_stack:
	bstrins.d $r4, $r0, 3, 0      /* align the new stack down to 16 */
	addi.d $r4, $r4, -16
	st.d $r3, $r4, 0
	st.d $r1, $r4, 8
	or $r3, $r4, $r0
	or $r4, $r6, $r0              /* arg */
	jirl $r1, $r5, 0              /* fn(arg) */
	ld.d $r1, $r3, 8
	ld.d $r3, $r3, 0
	jirl $r0, $r1, 0
	.size sp_call_on_stack, .-sp_call_on_stack

	.globl sp_getsp
	.type sp_getsp, @function
sp_getsp:
	/* A leaf with no frame: SP here is the caller's. */
	or $r4, $r3, $r0
	jirl $r0, $r1, 0
	.size sp_getsp, .-sp_getsp

	/* sp_clobber(tier, flags): every bit of $xr0-$xr23 set, and bits
	   255:64 of $xr24-$xr31 (the psABI keeps $f24-$f31, their low 64 bits,
	   callee-saved), as another goroutine's code might leave them; fcc_i =
	   bit i of flags[0], fcsr0 = flags[1] (the table's order). clang 16
	   has no LASX mnemonics: xvinsgr2vr.d $xrN, $t0, L as .word. */
	.globl sp_clobber
	.type sp_clobber, @function
sp_clobber:
	addi.d $r12, $r0, -1
	.irp n, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23
	.word 0x76ebe000 | (0 << 10) | (12 << 5) | \n
	.endr
	.irp n, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31
	.word 0x76ebe000 | (1 << 10) | (12 << 5) | \n
	.word 0x76ebe000 | (2 << 10) | (12 << 5) | \n
	.word 0x76ebe000 | (3 << 10) | (12 << 5) | \n
	.endr
	ld.d $r12, $r5, 0
	.irp n, 0,1,2,3,4,5,6,7
	bstrpick.d $r13, $r12, \n, \n
	movgr2cf $fcc\n, $r13
	.endr
	ld.d $r12, $r5, 8
	movgr2fcsr $fcsr0, $r12
	jirl $r0, $r1, 0
	.size sp_clobber, .-sp_clobber

	.section .note.GNU-stack,"",@progbits
