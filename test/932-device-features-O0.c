/*
 * 932-device-features-O0: every feature program at -O0 (prepare's cleanup only)
 *
 * The CUDA device features of real programs, end to end. Each
 * test/e2e/feat_NAME.cu is self-checking (atomics, warp collectives, math against the
 * host libm, vector types / 3D grids / parameters / globals / shared memory) and must
 * print PASS at -O2 and -O0; feat_printf's whole stdout is compared with the expected
 * text (device printf in lane order, flushed at synchronization).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xtest.h"

/* Compiles test/e2e/NAME.cu with opt into a binary; returns its path. */
static const char *build(const char *name, const char *opt)
{
    char exe[64];
    snprintf(exe, sizeof exe, "%s%s", name, opt);
    const char *bin = xt_tmp(exe);
    char *out = NULL;
    int rc = xt_runf(&out, "%s/xgpu-cc %s %s/test/e2e/%s.cu -o %s", XGPU_BIN_DIR, opt,
                     XGPU_SOURCE_DIR, name, bin);
    cr_assert_eq(rc, 0, "xgpu-cc %s %s failed (%d):\n%s", opt, name, rc, out);
    free(out);
    return bin;
}

static void run_pass(const char *name, const char *opt)
{
    const char *bin = build(name, opt);
    char *out = NULL;
    int rc = xt_runf(&out, "%s", bin);
    cr_assert_eq(rc, 0, "%s %s exited %d:\n%s", name, opt, rc, out);
    cr_assert(strstr(out, "PASS"), "%s %s:\n%s", name, opt, out);
    free(out);
}

#define FEAT(name, opt, suffix) \
    Test(features, name##suffix) { run_pass("feat_" #name, opt); }

FEAT(atomics, "-O0", _O0)
FEAT(warp, "-O0", _O0)
FEAT(math, "-O0", _O0)
FEAT(memory, "-O0", _O0)
