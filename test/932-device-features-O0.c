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

static void run_pass(const char *name, const char *opt)
{
    xt_expect_pass(xt_compile_e2e(name, opt), "");
}

#define FEAT(name, opt, suffix) \
    Test(features, name##suffix) { run_pass("feat_" #name, opt); }

FEAT(atomics, "-O0", _O0)
FEAT(warp, "-O0", _O0)
FEAT(math, "-O0", _O0)
FEAT(memory, "-O0", _O0)
