/*
 * 936-cooperative-groups: <cooperative_groups.h> and <cooperative_groups/reduce.h> within
 * a block. test/e2e/cg_groups.cu checks block ranks and sync, static and dynamic tiles,
 * tiles of tiles, coalesced groups under divergence, shuffles of 32- and 64-bit values,
 * votes, cg::reduce with each operator and the tile scans against host computations; it
 * must print PASS at -O2 and -O0, in timing and in functional mode. Grid groups: below.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "xtest.h"

Test(coop_groups, block_tiles_coalesced_reduce_O2) { xt_expect_pass_both_modes("cg_groups", "-O2"); }
Test(coop_groups, block_tiles_coalesced_reduce_O0) { xt_expect_pass_both_modes("cg_groups", "-O0"); }

/* test/e2e/cg_grid.cu: grid sync in cooperative and plain launches, the co-residency
 * limit; also with emu.quantum = 0, where functional mode still keeps the grid resident */
Test(coop_groups, grid_sync_O2) { xt_expect_pass_both_modes("cg_grid", "-O2"); }
Test(coop_groups, grid_sync_O0) { xt_expect_pass_both_modes("cg_grid", "-O0"); }
Test(coop_groups, grid_sync_without_quantum)
{
    char *out = NULL;
    int rc = xt_runf(&out, "XGPU_MODE=functional XGPU_SET=emu.quantum=0 %s 2>&1",
                     xt_compile_e2e("cg_grid", "-O2"));
    cr_assert_eq(rc, 0, "%s", out);
    cr_expect(strstr(out, "cg_grid: PASS"), "%s", out);
    free(out);
}

/* The timing model releases the grid barrier from any SM: statistics are the same with
 * and without idle skipping. */
Test(coop_groups, grid_sync_keeps_idle_skipping_exact)
{
    const char *exe = xt_compile_e2e("cg_grid", "-O2");
    char *a = NULL, *b = NULL;
    int ra = xt_runf(&a, "XGPU_STATS=%s %s >/dev/null 2>&1; grep -o '\"cycles\": *[0-9]*' %s",
                     xt_tmp("skip.json"), exe, xt_tmp("skip.json"));
    int rb = xt_runf(&b, "XGPU_SET=emu.skip_idle=0 XGPU_STATS=%s %s >/dev/null 2>&1; "
                     "grep -o '\"cycles\": *[0-9]*' %s", xt_tmp("noskip.json"), exe,
                     xt_tmp("noskip.json"));
    cr_assert_eq(ra, 0, "%s", a);
    cr_assert_eq(rb, 0, "%s", b);
    cr_expect_str_eq(a, b, "cycles with idle skipping:\n%s\nwithout:\n%s", a, b);
    free(a);
    free(b);
}
