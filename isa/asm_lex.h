/*
 * asm_lex.h - private to libxgpuisa: the small lexical helpers of the assembler and the
 * quoting used by the disassembler. They work in place on one NUL-terminated line and
 * never allocate; a parse failure returns -1 and leaves the caller to name the line.
 */
#ifndef XGPU_ASM_LEX_H
#define XGPU_ASM_LEX_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

char *lex_trim(char *s);
/* Cuts the comment (`#` or `//` outside quotes) off s; returns s. */
char *lex_strip_comment(char *s);
/* For a line starting with `name:`, the colon; else NULL. */
char *lex_label_end(char *s);
/* Next whitespace-separated word of *s (NUL-terminated in place, "" at the end). */
char *lex_word(char **s);
/* All words of s into w[0..max); their number, or -1 when there are more. */
int lex_words(char *s, char **w, int max);
/* Comma-separated, trimmed operands; their number (0 for a blank s), -1 when > max. */
int lex_split(char *s, char **ops, int max);
/* [+-] decimal, 0x hex, or raw float bits 0f.../0d...; the whole string. */
int lex_int(const char *s, int64_t *out);
/* Unsigned decimal or 0x hex no larger than max. */
int lex_uint(const char *s, uint64_t *out, uint64_t max);
/* Up to n unsigned numbers separated by blanks; their count, -1 on a bad or extra one. */
int lex_uints(char *s, uint64_t *v, int n, uint64_t max);
/* Identifier: [A-Za-z_.$][A-Za-z0-9_.$]*. */
int lex_is_name(const char *s);
int lex_lookup(const char *const *names, int n, const char *s);
/* Largest power of two dividing size, at most 8 (1 for 0). */
uint32_t lex_natural_align(uint64_t size);
/* A "quoted" string (escapes \\ \" \n \t \xHH) or a bare word, into buf. */
int lex_string(char **s, char *buf, size_t n);
/* Prints s quoted so that lex_string reads it back. */
void lex_quote(FILE *f, const char *s);

#endif
