/* PLACEHOLDER: the arm64 switching primitives are being written. */
	.section .note.GNU-stack,"",@progbits
