/*
 * 936-cooperative-groups: <cooperative_groups.h> and <cooperative_groups/reduce.h> within
 * a block. test/e2e/cg_groups.cu checks block ranks and sync, static and dynamic tiles,
 * tiles of tiles, coalesced groups under divergence, shuffles of 32- and 64-bit values,
 * votes, cg::reduce with each operator and the tile scans against host computations; it
 * must print PASS at -O2 and -O0, in timing and in functional mode.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "xtest.h"

Test(coop_groups, block_tiles_coalesced_reduce_O2) { xt_expect_pass_both_modes("cg_groups", "-O2"); }
Test(coop_groups, block_tiles_coalesced_reduce_O0) { xt_expect_pass_both_modes("cg_groups", "-O0"); }
