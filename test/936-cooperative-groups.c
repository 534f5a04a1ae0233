/*
 * 936-cooperative-groups: <cooperative_groups.h> and <cooperative_groups/reduce.h> within
 * a block. test/e2e/cg_groups.cu checks block ranks and sync, static and dynamic tiles,
 * tiles of tiles, coalesced groups under divergence, shuffles of 32- and 64-bit values,
 * votes, cg::reduce with each operator and the tile scans against host computations; it
 * must print PASS at -O2 and -O0, in timing and in functional mode.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xtest.h"

static void both_modes(const char *name, const char *opt)
{
    const char *exe = xt_compile_e2e(name, opt);
    xt_expect_pass(exe, "");
    char *out = NULL;
    int rc = xt_runf(&out, "XGPU_MODE=functional %s", exe);
    cr_assert_eq(rc, 0, "%s %s, functional mode, exited %d:\n%s", name, opt, rc, out);
    cr_expect(strstr(out, "PASS"), "%s %s, functional mode:\n%s", name, opt, out);
    free(out);
}

Test(coop_groups, block_tiles_coalesced_reduce_O2) { both_modes("cg_groups", "-O2"); }
Test(coop_groups, block_tiles_coalesced_reduce_O0) { both_modes("cg_groups", "-O0"); }
