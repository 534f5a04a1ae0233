/*
 * 911-nvcc-environment: what nvcc does implicitly and xgpu-cc must do too, so that
 * programs written for nvcc build unmodified: cuda_runtime.h without an #include, nvcc's
 * host-compiler leniency (narrowing, `register`), vector copies the optimizer forms,
 * -E / -M / -MD, a launch written `k << < g, b >> > (...)` (test 913 has the details), and
 * located errors or notes where a program cannot work as written (a long double
 * parameter, more local memory than CUDA allows, an output that would overwrite an input,
 * a clang that fails silently).
 * Also __launch_bounds__ end to end and the size of a zero-initialized __device__ array.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "xtest.h"

#define CC XGPU_BIN_DIR "/xgpu-cc"
#define E2E XGPU_SOURCE_DIR "/test/e2e"

/* Compiles test/e2e/NAME.cu with opt; returns xgpu-cc's exit status, its output in *out. */
static int compile(const char *name, const char *opt, char **out)
{
    return xt_runf(out, CC " %s " E2E "/%s.cu -o %s", opt, name, xt_tmp(name));
}

Test(nvcc_env, cuda_runtime_is_included_implicitly)
{
    xt_expect_pass(xt_compile_e2e("compat_no_include", "-O2"), "");
}

Test(nvcc_env, narrowing_and_register_are_warnings)
{
    char *out = NULL;
    cr_assert_eq(compile("compat_narrowing", "-O2", &out), 0, "%s", out);
    cr_expect(strstr(out, "warning") && strstr(out, "narrowing"), "no narrowing warning:\n%s",
              out);
    free(out);
    xt_expect_pass(xt_tmp("compat_narrowing"), "");
}

Test(nvcc_env, optimizer_vector_copies_lower_at_O2_and_O0)
{
    xt_expect_pass(xt_compile_e2e("compat_vector_copy", "-O2"), "");
    xt_expect_pass(xt_compile_e2e("compat_vector_copy", "-O0"), "");
}

Test(nvcc_env, spaced_launch_compiles_as_nvcc_reads_it)
{
    char *out = NULL;
    cr_assert_eq(compile("compat_spaced_launch", "", &out), 0, "%s", out);
    free(out);
    cr_assert_eq(xt_run(xt_tmp("compat_spaced_launch"), &out), 0, "%s", out);
    free(out);
}

Test(nvcc_env, long_double_parameter_is_a_located_error)
{
    char *out = NULL;
    cr_assert_neq(compile("compat_long_double", "", &out), 0, "compiled:\n%s", out);
    cr_expect(strstr(out, "compat_long_double.cu:5:31: error: kernel parameter 'x' has type "
                          "'long double'"), "%s", out);
    cr_expect(strstr(out, "pass a double\n"
                          "                  long double x) { o[0] = (double)(x * 3.0L); }\n"
                          "                              ^\n"), "no source line and caret:\n%s",
              out);
    free(out);
}

Test(nvcc_env, local_memory_beyond_cuda_limit_is_an_error)
{
    char *out = NULL;
    cr_assert_neq(compile("compat_huge_local", "-g", &out), 0, "compiled:\n%s", out);
    cr_expect(strstr(out, "compat_huge_local.cu:3: error:") &&
              strstr(out, "16777216 bytes of local memory per thread") &&
              strstr(out, "524288"), "%s", out);
    free(out);
}

Test(nvcc_env, launch_bounds_end_to_end)
{
    const char *exe = xt_compile_e2e("compat_launch_bounds", "-O2");
    xt_expect_pass(exe, "");
    char *out = NULL;
    int rc = xt_runf(&out, XGPU_BIN_DIR "/xgpu-objdump %s", exe);
    cr_assert_eq(rc, 0, "%s", out);
    cr_expect(strstr(out, "launch bounds: 64 threads per block, 0 blocks"), "%s", out);
    cr_expect(strstr(out, "launch bounds: 256 threads per block, 4 blocks"), "%s", out);
    free(out);
}

Test(nvcc_env, zero_initialized_global_costs_no_bytes)
{
    const char *exe = xt_compile_e2e("compat_zero_global", "-O2");
    struct stat st;
    cr_assert_eq(stat(exe, &st), 0);
    cr_expect_lt(st.st_size, 1 << 23, "a 16 MiB zero array made a %lld-byte executable",
                 (long long)st.st_size);
    xt_expect_pass(exe, "");
}

Test(nvcc_env, output_that_is_an_input_is_refused)
{
    const char *src = xt_tmp("victim.cu");
    const char *text = "__global__ void k() {}\nint main() { return 0; }\n";
    xt_write(src, text);
    char *out = NULL;
    cr_assert_neq(xt_runf(&out, CC " %s -o %s", src, src), 0, "overwrote the source:\n%s", out);
    cr_expect(strstr(out, "is the same as output file"), "%s", out);
    free(out);
    char *kept = xt_read(src, NULL);
    cr_assert_str_eq(kept, text, "the source changed");
    free(kept);
}

Test(nvcc_env, preprocess_and_dependencies)
{
    char *out = NULL;
    int rc = xt_runf(&out, CC " -E " E2E "/compat_no_include.cu 2>&1");
    cr_assert_eq(rc, 0, "%s", out);
    cr_expect(strstr(out, "compat_no_include: %s") && strstr(out, "cudaMalloc"), "%.2000s", out);
    free(out);
    rc = xt_runf(&out, CC " -M " E2E "/compat_no_include.cu");
    cr_assert_eq(rc, 0, "%s", out);
    cr_expect(strstr(out, "compat_no_include.o:") && strstr(out, "cuda_runtime.h"), "%s", out);
    free(out);
    const char *obj = xt_tmp("dep.o");
    rc = xt_runf(&out, "cd %s && " CC " -MD -c " E2E "/compat_no_include.cu -o %s", xt_tmpdir(),
                 obj);
    cr_assert_eq(rc, 0, "%s", out);
    free(out);
    char *dep = xt_read(xt_tmp("dep.d"), NULL);
    cr_assert_not_null(dep, "-MD wrote no dep.d beside the object");
    cr_expect(strstr(dep, "dep.o:") && strstr(dep, "compat_no_include.cu"), "%s", dep);
    free(dep);
}

Test(nvcc_env, a_silent_failing_clang_is_named)
{
    char *out = NULL;
    int rc = xt_runf(&out, "XGPU_CLANG=/bin/false " CC " " E2E "/compat_no_include.cu -o %s",
                     xt_tmp("never"));
    cr_assert_neq(rc, 0);
    cr_expect(strstr(out, "/bin/false failed with exit status 1 and printed nothing"), "%s",
              out);
    free(out);
}

Test(nvcc_env, dynamic_parallelism_is_named_as_unsupported)
{
    char *out = NULL;
    cr_assert_neq(compile("compat_dynamic_parallelism", "", &out), 0, "compiled:\n%s", out);
    cr_expect(strstr(out, "compat_dynamic_parallelism.cu:5:34: note: xgpu-cc: dynamic "
                          "parallelism (launching a kernel from device code) is not supported "
                          "by xgpu"), "%s", out);
    free(out);
}
