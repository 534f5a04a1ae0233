/*
 * 930-device-features: atomics, warp collectives, printf and assert at -O2
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

FEAT(atomics, "-O2", _O2)
FEAT(warp, "-O2", _O2)

static const char printf_expected[] =
    "lane 0/4:  0.00 even a\n"
    "lane 1/4:  0.25 odd b\n"
    "lane 2/4:  0.50 even c\n"
    "lane 3/4:  0.75 odd d\n"
    "host between\n"
    "-1234567890123 18446742839141661493 fffffee08e04fb35\n"
    "[   3.142] [42    ] [0002.5] [3.141590e+00] [0.0001]\n"
    "3735928559 deadbeef DEADBEEF 10 %\n"
    "no arguments\n"
    "first and second\n"
    "feat_printf: PASS\n";

static void check_printf(const char *opt)
{
    const char *bin = xt_compile_e2e("feat_printf", opt);
    char *out = NULL;
    /* stdout only: the runtime's diagnostics (if any) go to stderr */
    int rc = xt_runf(&out, "%s 2>/dev/null", bin);
    cr_assert_eq(rc, 0, "feat_printf %s exited %d:\n%s", opt, rc, out);
    cr_assert_str_eq(out, printf_expected, "feat_printf %s printed:\n%s", opt, out);
    free(out);
}

Test(features, printf_O2) { check_printf("-O2"); }

/* A failing device assert prints the assertion and ends the kernel with a launch failure. */
Test(features, device_assert_traps)
{
    const char *src = xt_tmp("assert.cu");
    xt_write(src,
             "#include <cuda_runtime.h>\n#include <assert.h>\n#include <stdio.h>\n"
             "__global__ void k(int *a) { assert(a[threadIdx.x] < 3); a[threadIdx.x]++; }\n"
             "int main() { int h[4] = {0, 1, 5, 2}; int *d;\n"
             "  cudaMalloc((void **)&d, sizeof h);\n"
             "  cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice);\n"
             "  k<<<1, 4>>>(d);\n"
             "  cudaError_t e = cudaDeviceSynchronize();\n"
             "  printf(\"\\nstatus %d\\n\", e != cudaSuccess);\n  return 0; }\n");
    const char *bin = xt_tmp("assert");
    char *out = NULL;
    int rc = xt_runf(&out, "%s/xgpu-cc %s -o %s", XGPU_BIN_DIR, src, bin);
    cr_assert_eq(rc, 0, "xgpu-cc failed:\n%s", out);
    free(out);
    rc = xt_runf(&out, "%s", bin);
    cr_assert(strstr(out, "Assertion `a[threadIdx.x] < 3' failed."), "%s", out);
    cr_assert(strstr(out, "status 1"), "%s", out);
    free(out);
}
