/*
 * 910-xgpu-cc: the compiler driver: separate compilation, several inputs of different
 * kinds, -v, -S, --max-regs, --regs, diagnostics and exit status, and the pinned host launch ABI.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xtest.h"

#define CC XGPU_BIN_DIR "/xgpu-cc"
#define E2E XGPU_SOURCE_DIR "/test/e2e"
#define SAMPLES XGPU_SOURCE_DIR "/samples"

static void expect_pass(const char *exe)
{
    char *out = NULL;
    int rc = xt_run(exe, &out);
    cr_assert_eq(rc, 0, "%s exited %d:\n%s", exe, rc, out);
    cr_assert(strstr(out, "PASS"), "%s:\n%s", exe, out);
    free(out);
}

Test(driver, compile_then_link)
{
    const char *obj = xt_tmp("vecadd.o"), *exe = xt_tmp("vecadd");
    char *out = NULL;
    cr_assert_eq(xt_runf(&out, CC " -c " SAMPLES "/vecadd.cu -o %s", obj), 0, "%s", out);
    free(out);
    cr_assert_eq(xt_runf(&out, CC " %s -o %s", obj, exe), 0, "%s", out);
    free(out);
    expect_pass(exe);
}

Test(driver, several_translation_units_and_c)
{
    const char *exe = xt_tmp("multi");
    char *out = NULL;
    int rc = xt_runf(&out, CC " " E2E "/multi_a.cu " E2E "/multi_b.cu " E2E "/multi_c.c -o %s",
                     exe);
    cr_assert_eq(rc, 0, "%s", out);
    free(out);
    expect_pass(exe);
}

Test(driver, verbose_prints_pinned_commands)
{
    char *out = NULL;
    int rc = xt_runf(&out, CC " -v -c " SAMPLES "/vecadd.cu -o %s", xt_tmp("v.o"));
    cr_assert_eq(rc, 0, "%s", out);
    cr_assert(strstr(out, "--cuda-device-only"), "%s", out);
    cr_assert(strstr(out, "--cuda-host-only"), "%s", out);
    cr_assert(strstr(out, "-target-sdk-version=12.0"), "%s", out);
    cr_assert(strstr(out, "-nocudainc"), "%s", out);
    free(out);
}

/* The host object must not depend on whether a CUDA installation is found: compiling with
 * clang pointed at a directory that holds none gives the same bytes, and the object calls
 * the pinned launch ABI. */
Test(driver, host_abi_independent_of_cuda_install)
{
    const char *a = xt_tmp("abi-a.o"), *b = xt_tmp("abi-b.o");
    char *out = NULL;
    cr_assert_eq(xt_runf(&out, CC " -c " SAMPLES "/vecadd.cu -o %s", a), 0, "%s", out);
    free(out);
    cr_assert_eq(xt_runf(&out, CC " --cuda-path=%s/no-cuda-here -c " SAMPLES "/vecadd.cu -o %s",
                         xt_tmpdir(), b), 0, "%s", out);
    free(out);
    cr_assert_eq(xt_runf(&out, "cmp %s %s", a, b), 0, "objects differ: %s", out);
    free(out);
    cr_assert_eq(xt_runf(&out, "nm %s", a), 0);
    cr_assert(strstr(out, "U cudaLaunchKernel"), "%s", out);
    cr_assert(strstr(out, "U __cudaPushCallConfiguration"), "%s", out);
    cr_assert(strstr(out, "U __cudaRegisterFatBinary"), "%s", out);
    cr_assert(!strstr(out, "cudaSetupArgument"), "old launch ABI used:\n%s", out);
    free(out);
}

Test(driver, device_assembly)
{
    char *out = NULL;
    int rc = xt_runf(&out, CC " -S --cuda-device-only " SAMPLES "/vecadd.cu -o -");
    cr_assert_eq(rc, 0, "%s", out);
    cr_assert(strstr(out, ".kernel"), "%s", out);
    cr_assert(strstr(out, "ld.global.f32"), "%s", out);
    cr_assert(strstr(out, "st.global.f32"), "%s", out);
    cr_assert(strstr(out, "exit"), "%s", out);
    free(out);
}

Test(driver, max_regs_spills_and_stays_correct)
{
    const char *exe = xt_tmp("matmul-r16"), *s = xt_tmp("matmul-r16.s");
    char *out = NULL;
    cr_assert_eq(xt_runf(&out, CC " --max-regs=16 " SAMPLES "/matmul.cu -o %s", exe), 0, "%s",
                 out);
    free(out);
    expect_pass(exe);
    cr_assert_eq(xt_runf(&out, CC " --max-regs=12 -S --cuda-device-only " SAMPLES
                               "/reduction.cu -o %s", s), 0, "%s", out);
    free(out);
    char *text = xt_read(s, NULL);
    cr_assert_not_null(text);
    cr_assert(strstr(text, "st.local"), "expected spill stores with 12 registers:\n%s", text);
    cr_assert(strstr(text, "ld.local"), "expected spill reloads with 12 registers");
    free(text);
}

/* The registers of kernel `name` in objdump's listing of exe (-1: not found). */
static int kernel_regs(const char *exe, const char *name)
{
    char *out = NULL;
    int regs = -1;
    if (xt_runf(&out, XGPU_BIN_DIR "/xgpu-objdump --section kernels %s", exe) == 0 && out) {
        const char *k = strstr(out, name);
        const char *r = k ? strstr(k, ": regs ") : NULL;
        if (r)
            regs = atoi(r + 7);
    }
    free(out);
    return regs;
}

Test(driver, regs_pads_and_limits)
{
    /* reduce needs more than 12 and fewer than 64 registers: --regs=64 declares 64 (and
     * runs), --regs=12 spills into 12 */
    const char *pad = xt_tmp("red-r64"), *lim = xt_tmp("red-r12"), *nat = xt_tmp("red-r0");
    char *out = NULL;
    cr_assert_eq(xt_runf(&out, CC " " SAMPLES "/reduction.cu -o %s", nat), 0, "%s", out);
    free(out);
    cr_assert_eq(xt_runf(&out, CC " --regs=64 " SAMPLES "/reduction.cu -o %s", pad), 0, "%s",
                 out);
    free(out);
    cr_assert_eq(xt_runf(&out, CC " --regs=12 " SAMPLES "/reduction.cu -o %s", lim), 0, "%s",
                 out);
    free(out);
    int n = kernel_regs(nat, "_Z6reducePKiPxi");
    cr_assert(n > 12 && n < 64, "reduce's own registers: %d", n);
    cr_expect_eq(kernel_regs(pad, "_Z6reducePKiPxi"), 64);
    cr_expect_eq(kernel_regs(lim, "_Z6reducePKiPxi"), 12);
    expect_pass(pad);
    expect_pass(lim);
    cr_assert_eq(xt_runf(&out, CC " --regs=256 " SAMPLES "/vecadd.cu"), 1);
    cr_expect(strstr(out, "--regs expects a number from 4 to 255"), "%s", out);
    free(out);
}

Test(driver, syntax_error_is_clang_diagnostic)
{
    char *out = NULL;
    int rc = xt_runf(&out, CC " " E2E "/syntax_error.cu -o %s", xt_tmp("se"));
    cr_assert(rc != 0 && rc < 128, "exit %d", rc);
    cr_assert(strstr(out, "syntax_error.cu:4:"), "no file:line diagnostic:\n%s", out);
    cr_assert(strstr(out, "error:"), "%s", out);
    free(out);
}

Test(driver, recursion_is_a_located_error)
{
    char *out = NULL;
    int rc = xt_runf(&out, CC " -g " E2E "/recursion.cu -o %s", xt_tmp("rec"));
    cr_assert(rc != 0 && rc < 128, "exit %d (crash?)\n%s", rc, out);
    cr_assert(strstr(out, "recursion.cu:"), "no location:\n%s", out);
    cr_assert(strstr(out, "error:"), "%s", out);
    cr_assert(strstr(out, "recursion"), "%s", out);
    free(out);
}

Test(driver, bad_options)
{
    char *out = NULL;
    cr_assert_eq(xt_runf(&out, CC " --max-regs=1 " SAMPLES "/vecadd.cu"), 1);
    cr_assert(strstr(out, "--max-regs"), "%s", out);
    free(out);
    cr_assert_eq(xt_runf(&out, CC), 1);
    cr_assert(strstr(out, "no input files"), "%s", out);
    free(out);
    cr_assert_eq(xt_runf(&out, CC " -O7 " SAMPLES "/vecadd.cu"), 1);
    cr_assert(strstr(out, "-O7"), "%s", out);
    free(out);
}
