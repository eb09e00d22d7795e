/* PLACEHOLDER: the loong64 switching primitives are being written. */
	.section .note.GNU-stack,"",@progbits
