/*
 * 125-diagnostics.c - located diagnostics (xgpu/diag.h), to a stream and into a buffer.
 *
 * The three lines of a diagnostic with a known file, line and column (tabs kept in the
 * caret's indent), the shorter forms without a column, a line or a file, a line past the
 * end of the file, a line longer than what is shown, a buffer too small for the message,
 * and the assembler's messages with and without the name of their text.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xgpu/diag.h"
#include "xgpu/gpubin.h"
#include "xtest.h"

/* What one diagnostic prints to a stream; *errors gets the error count. */
static char *print(XDiagKind kind, const char *file, unsigned line, unsigned col,
                   const char *msg, unsigned *errors)
{
    char *text = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);
    cr_assert_not_null(m);
    XDiag d = {.out = m};
    cr_expect_eq(xdiag(&d, kind, file, line, col, "%s", msg), -1);
    cr_assert_eq(fclose(m), 0);
    if (errors)
        *errors = d.errors;
    return text;
}

static void expect_print(XDiagKind kind, const char *file, unsigned line, unsigned col,
                         const char *want)
{
    char *got = print(kind, file, line, col, "msg", NULL);
    cr_expect_str_eq(got, want);
    free(got);
}

/* A file of the given text in the test's temporary directory; its path. */
static char *source(const char *name, const char *text)
{
    char *path = strdup(xt_tmp(name));
    cr_assert_eq(xt_write(path, text), 0);
    return path;
}

Test(diag, file_line_col_prints_the_line_and_a_caret)
{
    char *path = source("a.cu", "int x;\n\tint  y = z; // \xc3\xa9\n");
    char want[512];
    snprintf(want, sizeof want,
             "%s:2:11: error: use of undeclared identifier 'z'\n"
             "\tint  y = z; // \xc3\xa9\n"
             "\t         ^\n", path);
    unsigned errors = 0;
    char *got = print(XDIAG_ERROR, path, 2, 11, "use of undeclared identifier 'z'", &errors);
    cr_expect_str_eq(got, want);
    cr_expect_eq(errors, 1);
    free(got);
    snprintf(want, sizeof want, "%s:2:19: note: msg\n\tint  y = z; // \xc3\xa9\n"
                                "\t                ^\n", path);
    got = print(XDIAG_NOTE, path, 2, 19, "msg", &errors); /* past the two-byte character */
    cr_expect_str_eq(got, want, "a UTF-8 character takes one place in the indent");
    cr_expect_eq(errors, 0, "a note is not an error");
    free(got);
    free(path);
}

Test(diag, shorter_forms_without_col_line_or_file)
{
    char *path = source("b.cu", "one\ntwo\n");
    char want[512];
    snprintf(want, sizeof want, "%s:2: warning: msg\n", path);
    expect_print(XDIAG_WARNING, path, 2, 0, want);
    snprintf(want, sizeof want, "%s: error: msg\n", path);
    expect_print(XDIAG_ERROR, path, 0, 7, want);
    expect_print(XDIAG_NOTE, NULL, 0, 0, "note: msg\n");
    expect_print(XDIAG_ERROR, "nosuch/file.cu", 3, 4, "nosuch/file.cu:3:4: error: msg\n");
    free(path);
}

Test(diag, line_past_the_end_prints_no_source)
{
    char *path = source("c.cu", "one\ntwo\n");
    char want[512], buf[8];
    snprintf(want, sizeof want, "%s:3:1: error: msg\n", path);
    expect_print(XDIAG_ERROR, path, 3, 1, want);
    snprintf(want, sizeof want, "%s:99:1: error: msg\n", path);
    expect_print(XDIAG_ERROR, path, 99, 1, want);
    cr_expect_eq(xdiag_source_line(path, 3, buf, sizeof buf), -1);
    cr_expect_eq(xdiag_source_line(path, 2, buf, sizeof buf), 3);
    cr_expect_str_eq(buf, "two");
    free(path);
}

Test(diag, carriage_return_and_column_past_the_end)
{
    char *path = source("d.cu", "ab\r\n");
    char want[512];
    snprintf(want, sizeof want, "%s:1:9: error: msg\nab\n  ^\n", path);
    expect_print(XDIAG_ERROR, path, 1, 9, want);
    free(path);
}

Test(diag, long_line_is_cut)
{
    enum { LONG = 5000 };
    char *text = malloc(LONG + 2);
    memset(text, 'a', LONG);
    strcpy(text + LONG, "\n");
    char *path = source("e.cu", text);
    free(text);
    char *got = print(XDIAG_ERROR, path, 1, 3, "msg", NULL);
    char *second = strchr(got, '\n') + 1, *third = strchr(second, '\n') + 1;
    cr_expect_eq(third - second - 1, XDIAG_LINE_MAX, "the line is cut at XDIAG_LINE_MAX");
    cr_expect_str_eq(third, "  ^\n");
    free(got);
    char want[512];
    snprintf(want, sizeof want, "%s:1:4000: error: msg\n", path);
    expect_print(XDIAG_ERROR, path, 1, 4000, want); /* the column is past the cut */
    char buf[16];
    cr_expect_eq(xdiag_source_line(path, 1, buf, sizeof buf), LONG);
    cr_expect_eq(strlen(buf), sizeof buf - 1);
    free(path);
}

Test(diag, buffer_gets_the_same_text_or_what_fits)
{
    char *path = source("f.cu", "x = y;\n");
    char want[512], buf[512];
    snprintf(want, sizeof want, "%s:1:5: error: bad 'y'\nx = y;\n    ^", path);
    cr_expect_eq(xdiag_format(buf, sizeof buf, XDIAG_ERROR, path, 1, 5, "bad '%s'", "y"), -1);
    cr_expect_str_eq(buf, want, "the stream's text without its last newline");
    char small[24];
    memset(small, 'Z', sizeof small);
    xdiag_format(small, 10, XDIAG_ERROR, path, 1, 5, "bad '%s'", "y");
    cr_expect_eq(strlen(small), 9);
    cr_expect_eq(strncmp(small, want, 9), 0);
    cr_expect_eq(small[10], 'Z', "nothing written past the buffer");
    free(path);
}

Test(diag, assembler_errors_carry_their_line)
{
    static const char text[] = ".kernel k\n  exit\n  frob r1\n";
    XGpubin *g = NULL;
    char err[256] = "";
    cr_assert_neq(xasm_assemble_named("k.xs", text, &g, err, sizeof err), 0);
    cr_expect_null(g);
    cr_expect_str_eq(err, "k.xs:3: error: unknown instruction 'frob'");
    cr_assert_neq(xasm_assemble(text, &g, err, sizeof err), 0);
    cr_expect_str_eq(err, "3: unknown instruction 'frob'", "unnamed text: the line alone");
    char small[12];
    cr_assert_neq(xasm_assemble_named("k.xs", text, &g, small, sizeof small), 0);
    cr_expect_str_eq(small, "k.xs:3: err");
}
