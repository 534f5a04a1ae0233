/*
 * 921-suite-style-programs: programs written the way the public benchmark suites write
 * them (test/e2e/suite_*.cu: PolyBench-ACC's <cuda.h>, timing and percent-difference
 * check; Rodinia's implicit runtime header, __constant__ tables, texture references and
 * pow(double, int); Parboil's events, __launch_bounds__, shared atomics and vector
 * conversions) compile with a plain `xgpu-cc prog.cu` and match their CPU reference in
 * timing and in functional mode, at -O2 and -O0.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "xtest.h"

#define SUITE(name)                                                     \
    Test(suite_style, name##_O2) { xt_expect_pass_both_modes("suite_" #name, ""); }    \
    Test(suite_style, name##_O0) { xt_expect_pass_both_modes("suite_" #name, "-O0"); }

SUITE(polybench)
SUITE(rodinia)
SUITE(parboil)
