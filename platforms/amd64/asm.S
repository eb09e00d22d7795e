/* amd64 switching primitives of the reference runtime (AT&T syntax).
 *
 * Register use follows Go's amd64 ABI in generated code: g in R14, SP in
 * RSP. C++ is entered on the M's g0 stack with the SysV ABI (argument in
 * RDI, 16-byte aligned SP at the call).
 *
 *   sp_gogo(Gobuf*)                C: restore g and SP from the Gobuf, jump to its PC
 *   sp_mcall                      stub: fn in RDI; save the caller in g.sched,
 *                                 switch to g0, call fn(g); never returns
 *   sp_systemstack                stub: fn in RDI; switch to g0, call fn(g),
 *                                 switch back and return to the caller
 *   sp_morestack                  prologue tail: record f and its caller,
 *                                 switch to g0, call sp_newstack(g)
 *   sp_call_on_stack(sp, fn, arg) C: run fn(arg) on another stack and come back
 *   sp_getsp()                    C: the caller's SP
 */
#include "core/offsets.h"

	.text

	.globl sp_gogo
	.type sp_gogo, @function
sp_gogo:
	movq GOBUF_G(%rdi), %r14
	movq GOBUF_SP(%rdi), %rsp
	movq GOBUF_PC(%rdi), %r11
	jmp *%r11
	.size sp_gogo, .-sp_gogo

	.globl sp_mcall
	.type sp_mcall, @function
sp_mcall:
	movq 0(%rsp), %rax            /* caller's PC */
	movq %rax, G_SCHED_PC(%r14)
	leaq 8(%rsp), %rax            /* caller's SP */
	movq %rax, G_SCHED_SP(%r14)
	movq %r14, G_SCHED_G(%r14)
	movq $0, G_SCHED_LR(%r14)
	movq %rdi, %rsi               /* fn */
	movq %r14, %rdi               /* gp */
	movq G_M(%r14), %rax
	movq M_G0(%rax), %rax
	movq G_SCHED_SP(%rax), %rsp   /* g0 stack */
	call *%rsi
	ud2
	.size sp_mcall, .-sp_mcall

	.globl sp_systemstack
	.type sp_systemstack, @function
sp_systemstack:
	movq %rdi, %rsi               /* fn */
	movq %r14, %rdi               /* gp */
	movq G_M(%r14), %rax
	movq M_G0(%rax), %rax
	movq %rsp, %rdx
	movq G_SCHED_SP(%rax), %rsp
	subq $16, %rsp                /* keep 16-byte alignment at the call */
	movq %rdx, 0(%rsp)
	call *%rsi
	/* No value of the runtime's C++ leaks into the goroutine's general or
	 * vector registers (every call clobbers them in Go's ABI): a stale
	 * pointer there would make what the conservative scan keeps depend on
	 * the C++ compiler. */
	xorl %ecx, %ecx
	xorl %edx, %edx
	xorl %esi, %esi
	xorl %edi, %edi
	xorl %r8d, %r8d
	xorl %r9d, %r9d
	xorl %r10d, %r10d
	xorl %r11d, %r11d
	pxor %xmm0, %xmm0
	pxor %xmm1, %xmm1
	pxor %xmm2, %xmm2
	pxor %xmm3, %xmm3
	pxor %xmm4, %xmm4
	pxor %xmm5, %xmm5
	pxor %xmm6, %xmm6
	pxor %xmm7, %xmm7
	pxor %xmm8, %xmm8
	pxor %xmm9, %xmm9
	pxor %xmm10, %xmm10
	pxor %xmm11, %xmm11
	pxor %xmm12, %xmm12
	pxor %xmm13, %xmm13
	pxor %xmm14, %xmm14
	pxor %xmm15, %xmm15
	movq 0(%rsp), %rsp            /* back on the goroutine stack */
	ret
	.size sp_systemstack, .-sp_systemstack

	.globl sp_morestack
	.type sp_morestack, @function
sp_morestack:
	/* 0(SP): the PC in f's tail; 8(SP): f's return address. */
	movq G_M(%r14), %r11
	movq 8(%rsp), %rax
	movq %rax, M_MOREBUF_PC(%r11)
	leaq 16(%rsp), %rax
	movq %rax, M_MOREBUF_SP(%r11)
	movq 0(%rsp), %rax
	movq %rax, G_SCHED_PC(%r14)
	leaq 8(%rsp), %rax
	movq %rax, G_SCHED_SP(%r14)
	movq %r14, G_SCHED_G(%r14)
	movq $0, G_SCHED_LR(%r14)
	movq %r14, %rdi
	movq M_G0(%r11), %rax
	movq G_SCHED_SP(%rax), %rsp
	call sp_newstack
	ud2
	.size sp_morestack, .-sp_morestack

	.globl sp_call_on_stack
	.type sp_call_on_stack, @function
sp_call_on_stack:
	movq %rsp, %rax
	andq $-16, %rdi
	movq %rdi, %rsp
	subq $16, %rsp
	movq %rax, 0(%rsp)
	movq %rdx, %rdi
	call *%rsi
	movq 0(%rsp), %rsp
	ret
	.size sp_call_on_stack, .-sp_call_on_stack

	.globl sp_getsp
	.type sp_getsp, @function
sp_getsp:
	leaq 8(%rsp), %rax
	ret
	.size sp_getsp, .-sp_getsp

	/* sp_clobber(tier, flags): every bit of tier %edi's vector registers
	   (X0-X15; Y0-Y15; Z0-Z15 and K0-K7) set, as another goroutine's code
	   might leave them (all are caller-saved in the SysV ABI). RFLAGS, the
	   one flag register, the C++ code after the call changes anyway. */
	.globl sp_clobber
	.type sp_clobber, @function
sp_clobber:
	cmpl $1, %edi
	je 1f
	ja 2f
	.irp n, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15
	pcmpeqd %xmm\n, %xmm\n
	.endr
	ret
1:	.irp n, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15
	vcmpps $15, %ymm\n, %ymm\n, %ymm\n	/* TRUE_UQ: AVX, not AVX2 */
	.endr
	ret
2:	.irp n, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15
	vpternlogd $0xff, %zmm\n, %zmm\n, %zmm\n
	.endr
	.irp n, 0,1,2,3,4,5,6,7
	kxnorq %k0, %k0, %k\n
	.endr
	ret
	.size sp_clobber, .-sp_clobber

	.section .note.GNU-stack,"",@progbits
