/*
 * diag.h - located diagnostics, printed the way clang prints them:
 *
 *   file:line:col: error: message
 *   <the source line, tabs kept>
 *   <blanks and tabs up to the column>^
 *
 * The kind is `error`, `warning` or `note`. Without a column the first line is
 * `file:line: error: message`, without a line `file: error: message`, without a file
 * `error: message`. The source line and the caret follow only when line and column are
 * known and the file can be read; a line longer than XDIAG_LINE_MAX bytes is shown cut
 * there, and not at all when the column lies beyond the cut. Columns count bytes, as
 * clang's do; the caret's indent counts characters (UTF-8 continuation bytes take no
 * place of their own).
 *
 * The compiler (passes/) prints through xdiag; the assembler, which hands its caller one
 * message string, formats through xdiag_vformat.
 */
#ifndef XGPU_DIAG_H
#define XGPU_DIAG_H

/* The project's libraries hide every symbol but those declared in its public headers. */
#pragma GCC visibility push(default)

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

enum { XDIAG_LINE_MAX = 1024 }; /* bytes of a source line shown at most */

typedef enum XDiagKind { XDIAG_ERROR, XDIAG_WARNING, XDIAG_NOTE } XDiagKind;

/* Where diagnostics go, and how many errors went there. */
typedef struct XDiag {
    FILE *out;
    unsigned errors;
} XDiag;

/* Prints one diagnostic to d->out and counts an error in d->errors; with d NULL prints to
 * stderr and counts nothing. line and col are 1-based, 0 when unknown; file may be NULL.
 * Returns -1, so that an error can be reported and returned in one statement. */
int xdiag(XDiag *d, XDiagKind kind, const char *file, unsigned line, unsigned col,
          const char *fmt, ...) __attribute__((format(printf, 6, 7)));
int xdiag_v(XDiag *d, XDiagKind kind, const char *file, unsigned line, unsigned col,
            const char *fmt, va_list ap) __attribute__((format(printf, 6, 0)));

/* The same text in buf (n bytes with the NUL, cut to fit), without the final newline, as
 * one message string for a caller to print. Returns -1. */
int xdiag_format(char *buf, size_t n, XDiagKind kind, const char *file, unsigned line,
                 unsigned col, const char *fmt, ...) __attribute__((format(printf, 7, 8)));
int xdiag_vformat(char *buf, size_t n, XDiagKind kind, const char *file, unsigned line,
                  unsigned col, const char *fmt, va_list ap) __attribute__((format(printf, 7, 0)));

/* Reads line `line` (1-based) of file into buf: its first n - 1 bytes at most, without
 * the line end, NUL-terminated. Returns the whole line's length, or -1 when the file
 * cannot be read or has no such line. */
long xdiag_source_line(const char *file, unsigned line, char *buf, size_t n);

#pragma GCC visibility pop

#endif
