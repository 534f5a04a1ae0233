/*
 * 920-unseen-programs: CUDA programs that are not samples (test/e2e/NAME.cu: 2D grids, many
 * launches, device functions, 64-bit and double arithmetic, structs by value, device
 * tables, mixed integer widths, unstructured control flow, register pressure, overflow-checked
 * and saturating arithmetic) compile with
 * xgpu-cc at -O0 and -O2 (and a few other settings) and print PASS on the emulator.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xtest.h"

static void compile_and_run(const char *name, const char *opt)
{
    xt_expect_pass(xt_compile_e2e(name, opt), "");
}

#define E2E(name)                                                   \
    Test(unseen, name##_O2) { compile_and_run(#name, "-O2"); }      \
    Test(unseen, name##_O0) { compile_and_run(#name, "-O0"); }

E2E(grid2d)
E2E(int64_devfn)
E2E(stencil_iter)
E2E(mixed_types)
E2E(control_flow)
E2E(arith_overflow)

Test(unseen, control_flow_O3_8_registers) { compile_and_run("control_flow", "-O3 --max-regs=8"); }
Test(unseen, api_templates_O2) { compile_and_run("api_templates", "-O2"); }
Test(unseen, mixed_types_O1_g) { compile_and_run("mixed_types", "-O1 -g"); }
