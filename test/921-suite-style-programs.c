/*
 * 921-suite-style-programs: programs written the way the public benchmark suites write
 * them (test/e2e/suite_*.cu: PolyBench-ACC's <cuda.h>, timing and percent-difference
 * check; Rodinia's implicit runtime header, __constant__ tables, texture references and
 * pow(double, int); Parboil's events, __launch_bounds__, shared atomics and vector
 * conversions) compile with a plain `xgpu-cc prog.cu` and match their CPU reference in
 * timing and in functional mode, at -O2 and -O0.
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

#define SUITE(name)                                                     \
    Test(suite_style, name##_O2) { both_modes("suite_" #name, ""); }    \
    Test(suite_style, name##_O0) { both_modes("suite_" #name, "-O0"); }

SUITE(polybench)
SUITE(rodinia)
SUITE(parboil)
