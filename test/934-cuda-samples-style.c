/*
 * 934-cuda-samples-style: what NVIDIA's CUDA samples need from the headers and the
 * runtime before their first kernel. test/e2e/samples_style.cu tests CUDA's header guards
 * and version macros as the samples' common helpers do (an error checker defined only
 * under __DRIVER_TYPES_H__), pins the occupancy calculator's block-size search, available
 * shared memory and resident blocks on gtx480 against figures worked out by hand from the
 * preset's limits, and checks labeled and binary partitions, their ranks and reductions,
 * and match_any against host computations, also under divergence, a launch written with
 * spaces inside the chevrons, the profiler's marks from cuda_profiler_api.h, and a
 * dynamic shared array placed after one static byte (the window must hold the padding
 * before it). It must print PASS at -O2 and -O0, in timing and in functional mode.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "xtest.h"

static void expect_pass_on_gtx480(const char *opt)
{
    const char *exe = xt_compile_e2e("samples_style", opt);
    static const char *const modes[] = {"timing", "functional"};
    for (int m = 0; m < 2; m++) {
        char *out = NULL;
        int rc = xt_runf(&out, "XGPU_CONFIG=gtx480 XGPU_MODE=%s %s 2>&1", modes[m], exe);
        cr_expect_eq(rc, 0, "%s, %s mode, exited %d:\n%s", opt, modes[m], rc, out);
        cr_expect(out && strstr(out, "samples_style: PASS"), "%s, %s mode:\n%s", opt, modes[m],
                  out);
        free(out);
    }
}

Test(cuda_samples_style, guards_occupancy_partitions_O2) { expect_pass_on_gtx480("-O2"); }
Test(cuda_samples_style, guards_occupancy_partitions_O0) { expect_pass_on_gtx480("-O0"); }
