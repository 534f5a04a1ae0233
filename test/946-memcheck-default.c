/*
 * 946-memcheck-default: a CUDA program that reads just outside an allocation and never
 * uses the value (Rodinia's srad_v2 and Parboil's spmv do) runs under the default
 * emu.memcheck = warn as it does on a GPU: the read gives 0, the result is right and
 * cudaDeviceSynchronize returns cudaSuccess, while stderr tells, once per launch, where
 * the first such access was (kernel, block, thread, pc, source line, address) and that
 * emu.memcheck = on makes it an error, which it then is (cudaErrorIllegalAddress). Both
 * modes; off prints nothing.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xtest.h"

/* Thread 0 reads x[-1]; y[255] = x[254] + 100 = 354 whatever that read gave. argv[1]:
 * launches. */
static const char *src =
    "#include <cstdio>\n"
    "#include <cstdlib>\n"
    "__global__ void halo(const float *x, float *y, int n) {\n"
    "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  float left = x[i - 1];\n" /* line 5 */
    "  __syncthreads();\n"
    "  if (i < n) y[i] = (i == 0) ? x[0] : left + 100.0f;\n"
    "}\n"
    "int main(int argc, char **argv) {\n"
    "  const int n = 256; float h[n], *x, *y;\n"
    "  for (int i = 0; i < n; i++) h[i] = i;\n"
    "  cudaMalloc(&x, sizeof h); cudaMalloc(&y, sizeof h);\n"
    "  cudaMemcpy(x, h, sizeof h, cudaMemcpyHostToDevice);\n"
    "  for (int l = 0; l < atoi(argv[1]); l++) halo<<<1, n>>>(x, y, n);\n"
    "  cudaError_t e = cudaDeviceSynchronize();\n"
    "  h[255] = -1; cudaMemcpy(h, y, sizeof h, cudaMemcpyDeviceToHost);\n"
    "  printf(\"sync %d y[255] = %g\\n\", (int)e, h[255]);\n"
    "  return 0;\n"
    "}\n";

static const char *exe(void)
{
    static char path[512];
    if (path[0])
        return path;
    const char *cu = xt_tmp("halo.cu");
    cr_assert_eq(xt_write(cu, src), 0);
    snprintf(path, sizeof path, "%s", xt_tmp("halo"));
    char *out = NULL;
    int rc = xt_runf(&out, "cd %s && %s/xgpu-cc -g halo.cu -o %s", xt_tmpdir(), XGPU_BIN_DIR,
                     path);
    cr_assert_eq(rc, 0, "xgpu-cc: %s", out);
    free(out);
    return path;
}

/* Runs the program (launches times) with XGPU_SET=set and XGPU_MODE=mode; stdout into
 * *out, stderr into *err. */
static void run(const char *set, const char *mode, int launches, char **out, char **err)
{
    char errf[512]; /* xt_tmp's buffers are reused */
    snprintf(errf, sizeof errf, "%s", xt_tmp("stderr.txt"));
    int rc = xt_runf(out, "XGPU_SET='%s' XGPU_MODE=%s %s %d 2>%s", set, mode, exe(), launches,
                     errf);
    cr_assert_eq(rc, 0, "%s %s: exit %d: %s", set, mode, rc, *out);
    *err = xt_read(errf, NULL);
    cr_assert_not_null(*err);
}

Test(memcheck_default, runs_like_a_gpu_and_tells_once_per_launch)
{
    const char *modes[] = {"functional", "timing"};
    for (int i = 0; i < 2; i++) {
        char *out, *err;
        run("", modes[i], 2, &out, &err);
        cr_expect(strstr(out, "sync 0 y[255] = 354"), "%s: %s", modes[i], out);
        /* one report per launch, each whole */
        cr_expect_eq(xt_count(err, "========= Warning: Invalid __global__ read of size 4 bytes\n"
                                   "=========     at _Z4haloPKfPfi+pc "),
                     2, "%s:\n%s", modes[i], err);
        cr_expect_eq(xt_count(err, "halo.cu:5)\n=========     by thread (0,0,0) in block "
                                   "(0,0,0)\n=========     Address 0xffffffffc: load of 4 "
                                   "bytes at 0xffffffffc outside any allocation (4 bytes "
                                   "before [0x1000000000, +1024)) (emu.memcheck = warn: the "
                                   "load reads 0)\n"),
                     2, "%s:\n%s", modes[i], err);
        cr_expect_eq(xt_count(err, "=========     The launch went on; emu.memcheck = on makes "
                                   "an invalid access an error that ends it "
                                   "(XGPU_SET=emu.memcheck=on"),
                     2, "%s:\n%s", modes[i], err);
        cr_expect(!strstr(err, "more invalid accesses"), "one access a launch:\n%s", err);
        free(out);
        free(err);
    }
}

Test(memcheck_default, on_makes_it_an_error_and_off_is_silent)
{
    char *out, *err;
    run("emu.memcheck=on", "functional", 1, &out, &err);
    cr_expect(strstr(out, "sync 700 y[255] = -1"), "%s", out);
    cr_expect(strstr(err, "========= Invalid __global__ read of size 4 bytes\n") &&
                  !strstr(err, "Warning"), "%s", err);
    cr_expect(strstr(err, "cudaErrorIllegalAddress"), "%s", err);
    free(out);
    free(err);
    run("emu.memcheck=off", "timing", 1, &out, &err);
    cr_expect(strstr(out, "sync 0 y[255] = 354"), "%s", out);
    cr_expect_str_eq(err, "");
    free(out);
    free(err);
}
