/*
 * 939-independent-thread-scheduling: emu.simt = its (the default for compute capability
 * 7.0 and later) lets a lock held inside a warp be released (test/e2e/its_spinlock.cu
 * ends with the counter at 128 in timing and functional mode, at -O2 and -O0); with
 * emu.simt = ipdom the same program spins until the instruction budget stops it, with the
 * budget's message; __syncwarp(mask) makes divergent paths wait for one another (ipdom:
 * a fence only); the pre-Volta presets choose ipdom; and below emu.its_spin nothing
 * differs from ipdom (a sample's statistics are identical).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xtest.h"

Test(its, intra_warp_lock_O2) { xt_expect_pass_both_modes("its_spinlock", "-O2"); }
Test(its, intra_warp_lock_O0) { xt_expect_pass_both_modes("its_spinlock", "-O0"); }

/* test/e2e/its_syncwarp.cu: __syncwarp inside divergent branches orders the two halves */
Test(its, syncwarp_across_divergent_paths_O2) { xt_expect_pass_both_modes("its_syncwarp", "-O2"); }
Test(its, syncwarp_across_divergent_paths_O0) { xt_expect_pass_both_modes("its_syncwarp", "-O0"); }
Test(its, syncwarp_under_ipdom_is_only_a_fence)
{
    char *out = NULL;
    xt_runf(&out, "XGPU_SET=emu.simt=ipdom %s", xt_compile_e2e("its_syncwarp", "-O2"));
    cr_expect(strstr(out, "its_syncwarp: FAIL"), "the pre-Volta stack should read too early:\n%s",
              out);
    free(out);
}

Test(its, ipdom_spins_until_the_budget)
{
    const char *exe = xt_compile_e2e("its_spinlock", "-O2");
    char *out = NULL;
    xt_runf(&out, XGPU_BIN_DIR "/xgpu-run --mode functional --set emu.simt=ipdom "
                 "--set emu.max_warp_insns=200000 -- %s 2>&1", exe);
    cr_expect(strstr(out, "cudaErrorLaunchTimeout counter=0"), "%s", out);
    cr_expect(strstr(out, "emu.max_warp_insns = 200000"), "%s", out);
    free(out);
}

Test(its, presets_before_volta_use_ipdom)
{
    static const char *const presets[][2] = {{"gtx480", "ipdom"}, {"kepler", "ipdom"},
                                             {"maxwell", "ipdom"}, {"accelsim-rtx2060", "its"}};
    for (size_t i = 0; i < sizeof presets / sizeof *presets; i++) {
        char *out = NULL, want[64];
        int rc = xt_runf(&out, XGPU_BIN_DIR "/xgpu-run --config %s --dump-config", presets[i][0]);
        cr_assert_eq(rc, 0, "%s", out);
        snprintf(want, sizeof want, "emu.simt = %s\n", presets[i][1]);
        cr_expect(strstr(out, want), "%s: no '%s' in the dump", presets[i][0], want);
        free(out);
    }
}

Test(its, below_the_spin_threshold_statistics_equal_ipdom)
{
    const char *exe = XGPU_BUILD_DIR "/samples/spmv";
    char *a = NULL, *b = NULL;
    int ra = xt_runf(&a, "XGPU_SET=emu.simt=its XGPU_STATS=%s %s 400 1 >/dev/null && grep -o "
                     "'\"cycles\": *[0-9]*\\|\"warp_instructions\": *[0-9]*' %s",
                     xt_tmp("its.json"), exe, xt_tmp("its.json"));
    int rb = xt_runf(&b, "XGPU_SET=emu.simt=ipdom XGPU_STATS=%s %s 400 1 >/dev/null && grep -o "
                     "'\"cycles\": *[0-9]*\\|\"warp_instructions\": *[0-9]*' %s",
                     xt_tmp("ipdom.json"), exe, xt_tmp("ipdom.json"));
    cr_assert_eq(ra, 0, "%s", a);
    cr_assert_eq(rb, 0, "%s", b);
    cr_expect_str_eq(a, b, "its:\n%s\nipdom:\n%s", a, b);
    free(a);
    free(b);
}
