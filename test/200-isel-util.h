/*
 * 200-isel-util.h - the harness shared by the instruction-selection tests (201, 202):
 * lower an IR snippet (as text) through the real pipeline and capture the disassembly
 * (or the MIR after isel) and what was printed on stderr.
 * Included by one test file each; everything is static.
 */
#ifndef XGPU_TEST_ISEL_UTIL_H
#define XGPU_TEST_ISEL_UTIL_H

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lower/lower.h"

#define HDR "target datalayout = \"e-i64:64-i128:128-v16:16-v32:32-n16:32:64\"\n" \
            "target triple = \"nvptx64-nvidia-cuda\"\n"
#define KERNEL(name) "!nvvm.annotations = !{!0}\n!0 = !{ptr @" name ", !\"kernel\", i32 1}\n"

static char *slurp(FILE *f)
{
    fflush(f);
    long n = ftell(f);
    rewind(f);
    char *s = calloc((size_t)n + 1, 1);
    cr_assert(s);
    size_t got = fread(s, 1, (size_t)n, f);
    s[got] = 0;
    return s;
}

typedef struct Result {
    int rc;
    char *text; /* disassembly or MIR dump */
    char *err;  /* what was printed on stderr */
} Result;

/* Lowers the IR text; mir = 1 stops after isel and dumps the MIR instead. */
static Result lower(const char *ir, int mir, unsigned opt)
{
    char path[] = XGPU_BUILD_DIR "/xgpu-isel-XXXXXX";
    int fd = mkstemp(path);
    cr_assert(fd >= 0);
    cr_assert(write(fd, ir, strlen(ir)) == (ssize_t)strlen(ir));
    close(fd);
    FILE *out = tmpfile(), *err = tmpfile();
    cr_assert(out && err);
    fflush(stderr);
    int saved = dup(2);
    dup2(fileno(err), 2);
    XgpuLowerOptions o = {.opt_level = opt, .source_name = "snippet.ll"};
    Result r = {0};
    if (mir) {
        MModule *m = xgpu_lower_to_mir(path, &o);
        r.rc = m ? 0 : 1;
        for (uint32_t i = 0; m && i < m->nfuncs; i++)
            mir_print(m->funcs[i], out);
        mir_module_free(m);
    } else {
        char fat[sizeof path + 4];
        snprintf(fat, sizeof fat, "%s.fat", path);
        r.rc = xgpu_lower_file(path, &o, fat, out);
        unlink(fat);
    }
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    unlink(path);
    r.text = slurp(out);
    r.err = slurp(err);
    fclose(out);
    fclose(err);
    return r;
}

static void expect_ok(Result r)
{
    cr_assert_eq(r.rc, 0, "lowering failed:\n%s", r.err);
}

static void expect_has(const Result *r, const char *what)
{
    cr_expect(strstr(r->text, what) != NULL, "missing '%s' in:\n%s", what, r->text);
}

static void expect_error(Result r, const char *msg)
{
    cr_expect_neq(r.rc, 0, "lowering should fail");
    cr_expect(strstr(r.err, ": error: ") != NULL, "no located error in: %s", r.err);
    cr_expect(strstr(r.err, msg) != NULL, "expected '%s' in: %s", msg, r.err);
    free(r.text);
    free(r.err);
}

static void done(Result r)
{
    free(r.text);
    free(r.err);
}

#endif
