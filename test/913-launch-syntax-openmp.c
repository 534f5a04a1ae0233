/*
 * 913-launch-syntax-openmp: two things nvcc users write that clang does not take as they
 * are. A launch with spaces inside the chevrons (`k << < g, b >> > (args)`, as Rodinia's
 * particlefilter has it) compiles and runs, while the same characters in strings and
 * comments, `operator<< <T>` and a `>> >` that closes templates stay as written, the
 * user's file is not touched, and diagnostics keep its name, lines and columns. A .cu
 * that includes <omp.h> (Rodinia's kmeans) compiles and links without -fopenmp (serial:
 * one thread in a parallel region), and with -fopenmp or -Xcompiler -fopenmp its parallel
 * regions run on several threads.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xtest.h"

#define CC XGPU_BIN_DIR "/xgpu-cc"

/* Writes text to NAME.cu in the test's directory, compiles it with opt into NAME and
 * returns xgpu-cc's exit status (its output in *out). */
static int build(const char *name, const char *text, const char *opt, char **out)
{
    char src[256];
    snprintf(src, sizeof src, "%s.cu", name);
    cr_assert_eq(xt_write(xt_tmp(src), text), 0);
    return xt_runf(out, "cd %s && " CC " %s %s.cu -o %s", xt_tmpdir(), opt, name, name);
}

/* Runs NAME (in the test's directory) with env; its output must contain want. */
static void expect_output(const char *name, const char *env, const char *want)
{
    char *out = NULL;
    int rc = xt_runf(&out, "cd %s && %s ./%s", xt_tmpdir(), env, name);
    cr_assert_eq(rc, 0, "%s exited %d:\n%s", name, rc, out);
    cr_assert(strstr(out, want), "%s printed no '%s':\n%s", name, want, out);
    free(out);
}

static const char spaced[] =
    "// a comment with k << < 1, 1 >> > (p) stays\n"
    "#include <cstdio>\n"
    "#include <vector>\n"
    "template <typename T> __global__ void k(T *p, T v) { *p = v; }\n"
    "struct S { int v; };\n"
    "template <typename T> int operator<<(S s, T t) { return s.v + (int)t; }\n"
    "int main() {\n"
    "  std::vector<std::vector<std::vector<int>> > nest(1);\n"
    "  int *d, h = 0;\n"
    "  cudaMalloc(&d, sizeof(int));\n"
    "  k<int> << < dim3(1), (1 > 0 ? 1 : 2),\n"
    "            0, 0 >> > (d, 40 + (int)nest.size());\n"
    "  k << <1,1>> >(d + 0, h + 42 + operator<< <int>(S{0}, 0) - 1);\n"
    "  cudaMemcpy(&h, d, sizeof(int), cudaMemcpyDeviceToHost);\n"
    "  printf(\"%s x = %d\\n\", \"k << < 1, 1 >> > (p);\", h);\n"
    "  return 0;\n"
    "}\n";

Test(launch_syntax, spaced_chevrons_are_a_launch_and_nothing_else_changes)
{
    char *out = NULL;
    cr_assert_eq(build("spaced", spaced, "-O2", &out), 0, "%s", out);
    free(out);
    expect_output("spaced", "", "k << < 1, 1 >> > (p); x = 41");
    char *kept = xt_read(xt_tmp("spaced.cu"), NULL);
    cr_assert_str_eq(kept, spaced, "the source was modified");
    free(kept);
}

/* The launch as Rodinia writes it: also with -S --cuda-device-only (one launch per line). */
Test(launch_syntax, particlefilter_style_launch)
{
    const char *text = "#include <cstdio>\n"
                       "__global__ void k(int *p) { *p = 42; }\n"
                       "int main() {\n"
                       "  int *d, h = 0;\n"
                       "  cudaMalloc(&d, sizeof(int));\n"
                       "  k << < 1, 1 >> > (d);\n"
                       "  cudaMemcpy(&h, d, sizeof(int), cudaMemcpyDeviceToHost);\n"
                       "  printf(\"x = %d\\n\", h);\n"
                       "  return h == 42 ? 0 : 1;\n"
                       "}\n";
    char *out = NULL;
    cr_assert_eq(build("pf", text, "", &out), 0, "%s", out);
    free(out);
    expect_output("pf", "", "x = 42");
}

/* After the rewrite, clang's diagnostics still name the user's file, line and column (a
 * column after the launch on the same line included), __FILE__ is the user's name, and a
 * quoted include is found beside the user's file. */
Test(launch_syntax, diagnostics_keep_file_line_and_column)
{
    cr_assert_eq(xt_write(xt_tmp("near.h"), "#define NEAR 1\n"), 0);
    const char *text = "#include \"near.h\"\n"
                       "__global__ void k(int *p) { *p = NEAR; }\n"
                       "int main() {\n"
                       "  int *d = 0;\n"
                       "  static_assert(sizeof(__FILE__) == sizeof(\"diag.cu\"), \"file\");\n"
                       "  k << < 1, 1 >> > (d); int bad = undeclared_name;\n"
                       "  return 0;\n"
                       "}\n";
    char *out = NULL;
    int rc = build("diag", text, "", &out);
    cr_assert(rc != 0 && rc < 128, "exit %d:\n%s", rc, out);
    cr_expect(strstr(out, "diag.cu:6:35: error: use of undeclared identifier 'undeclared_name'"),
              "%s", out);
    cr_expect(!strstr(out, "near.h' file not found") && !strstr(out, "static assertion"),
              "%s", out);
    cr_expect(!strstr(out, "launch.cu"), "the rewritten copy is named:\n%s", out);
    free(out);
}

/* Whether clang has an omp.h (libomp-19-dev); the tests of OpenMP skip without one. */
static int have_omp_h(void)
{
    char *out = NULL;
    cr_assert_eq(xt_write(xt_tmp("probe.c"), "#include <omp.h>\n"), 0);
    int rc = xt_runf(&out, CC " -E %s -o /dev/null", xt_tmp("probe.c"));
    free(out);
    return rc == 0;
}

static const char omp_text[] = "#include <cstdio>\n"
                               "#include <omp.h>\n"
                               "__global__ void k(int *p) { *p = 7; }\n"
                               "int main() {\n"
                               "  int n = 0, *d, h = 0;\n"
                               "#pragma omp parallel reduction(+ : n)\n"
                               "  n += 1;\n"
                               "  cudaMalloc(&d, sizeof(int));\n"
                               "  k<<<1, 1>>>(d);\n"
                               "  cudaMemcpy(&h, d, sizeof(int), cudaMemcpyDeviceToHost);\n"
                               "  printf(\"max threads >= 1: %d threads %d h %d\\n\",\n"
                               "         omp_get_max_threads() >= 1, n, h);\n"
                               "  return 0;\n"
                               "}\n";

Test(openmp, omp_h_without_fopenmp_links_and_runs_serially)
{
    if (!have_omp_h())
        cr_skip_test("clang has no omp.h here (scripts/setup.sh installs libomp-19-dev)");
    char *out = NULL;
    cr_assert_eq(build("omp0", omp_text, "", &out), 0, "%s", out);
    free(out);
    expect_output("omp0", "OMP_NUM_THREADS=3", "max threads >= 1: 1 threads 1 h 7");
}

Test(openmp, fopenmp_and_xcompiler_fopenmp_run_parallel_regions)
{
    if (!have_omp_h())
        cr_skip_test("clang has no omp.h here (scripts/setup.sh installs libomp-19-dev)");
    char *out = NULL;
    cr_assert_eq(build("omp1", omp_text, "-fopenmp", &out), 0, "%s", out);
    free(out);
    expect_output("omp1", "OMP_NUM_THREADS=3", "max threads >= 1: 1 threads 3 h 7");
    cr_assert_eq(build("omp2", omp_text, "-Xcompiler -fopenmp,-Wall", &out), 0, "%s", out);
    free(out);
    expect_output("omp2", "OMP_NUM_THREADS=3", "max threads >= 1: 1 threads 3 h 7");
}
