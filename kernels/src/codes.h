/*
 * The integer codes Python passes into the kernel, defined once. module.c exports each of them as
 * a module constant of the same name, and tests/kernel/test_kernel_constants.py checks that the Python
 * enums (tokenizer_core/kernel/codes.py) hold the same values.
 */
#ifndef TOKENIZER_KERNEL_CODES_H
#define TOKENIZER_KERNEL_CODES_H

/* Encoder(pattern=...): the split pattern the encoder walks. */
/* PAT_EXTERNAL: the encoder walks no pattern of its own; the caller gives each piece's end (encode_split). */
/* PAT_PROGRAM: a compiled pattern (program.c) walked by the kernel's backtracking matcher. */
enum { PAT_GPT2 = 0, PAT_CL100K = 1, PAT_EXTERNAL = 2, PAT_PROGRAM = 3 };

/* PieceCounter(how=...): how training text is split into pieces (1 is unused: it was cl100k). */
enum { SPLIT_GPT2 = 0, SPLIT_WHITESPACE = 2, SPLIT_WORDSPLIT = 3, SPLIT_WHITESPACESPLIT = 4, SPLIT_SPACES = 5 };

/* ChunkTable(rule=...): how the chunk table cuts a text (chunks.c). */
/* RULE_PIECES: the pieces of a split program (an Encoder given as the table's splitter). */
enum { RULE_WORDS = 0, RULE_SPACES = 1, RULE_PIECES = 2 };

/* Class table bits (the table is built in Python, tokenizer_core/kernel/native.py). Bits 3..6 hold
 * 1 + the index in "sdmtlver" of the letter a character matches case-insensitively (cl100k's
 * contractions). */
#define C_L 1u   /* \p{L} */
#define C_N 2u   /* \p{N} */
#define C_S 4u   /* \s    */
#define C_W 128u /* \w    */
#define C_CASELESS_SHIFT 3

#endif
