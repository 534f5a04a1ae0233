/*
 * 260-phases: the Zorua phase analysis (passes/lower/phases.c) on compiled CUDA.
 *
 * The kernel `phases` has a register-heavy part (twelve values live at once), then a
 * shared-memory part (two 1 KiB arrays, one dead before the other), a barrier between
 * them, and a branch whose body raises the register demand again: divergent
 * (threadIdx.x < 32) or uniform (a parameter). The records are pinned exactly for the
 * default thresholds, a 50% threshold and a 30-instruction gap; on top of that the
 * rules are checked on the code itself: every barrier opens a phase, no two boundaries
 * are closer than the gap unless the second is a barrier, none lies inside a divergent
 * region, and the uniform version of the branch does get one. The kernel `dynk` uses a
 * dynamic `extern __shared__` array: no bytes, the dynamic flag.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xgpu/gpubin.h"
#include "xtest.h"

static const char source[] =
    "#include <cuda_runtime.h>\n"
    "#define N 256\n"
    "#ifndef COND\n"
    "#define COND (t < 32)\n"
    "#endif\n"
    "__global__ void phases(const float *in, float *out, int n)\n"
    "{\n"
    "    __shared__ float tile[N];\n"
    "    __shared__ float extra[N];\n"
    "    float a0 = in[0], a1 = in[1], a2 = in[2], a3 = in[3], a4 = in[4], a5 = in[5];\n"
    "    float a6 = in[6], a7 = in[7], a8 = in[8], a9 = in[9], a10 = in[10], a11 = in[11];\n"
    "    float r = a0 * a11 + a1 * a10 + a2 * a9 + a3 * a8 + a4 * a7 + a5 * a6;\n"
    "    out[blockIdx.x] = r * (a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7 + a8 + a9 + a10 + a11);\n"
    "    unsigned t = threadIdx.x;\n"
    "    tile[t] = in[t];\n"
    "    extra[t] = in[t + N];\n"
    "    __syncthreads();\n"
    "    float s = tile[(t + 1) % N] + extra[(t + 3) % N];\n"
    "    if (COND) {\n"
    "        float b0 = in[t + 1], b1 = in[t + 2], b2 = in[t + 3], b3 = in[t + 4];\n"
    "        float b4 = in[t + 5], b5 = in[t + 6], b6 = in[t + 7], b7 = in[t + 8];\n"
    "        s += b0 * b7 + b1 * b6 + b2 * b5 + b3 * b4 + b0 * b1 * b2 * b3 * b4 * b5 * b6 * b7;\n"
    "    }\n"
    "    out[t] = s;\n"
    "}\n"
    "extern __shared__ float dyn[];\n"
    "__global__ void dynk(float *out)\n"
    "{\n"
    "    unsigned t = threadIdx.x;\n"
    "    dyn[t] = (float)t;\n"
    "    __syncthreads();\n"
    "    out[t] = dyn[t ^ 1];\n"
    "}\n";

static XGpubin *compile(const char *opts)
{
    const char *src = xt_tmp("phases.cu"), *fat = xt_tmp("phases.fatbin");
    cr_assert_eq(xt_write(src, source), 0);
    char *out = NULL;
    int rc = xt_runf(&out, "%s/xgpu-cc --cuda-device-only %s %s -o %s", XGPU_BIN_DIR, opts, src,
                     fat);
    cr_assert_eq(rc, 0, "%s", out);
    free(out);
    size_t len, elflen, next;
    char *buf = xt_read(fat, &len), err[256];
    const void *elf;
    XGpubin *g = NULL;
    cr_assert_not_null(buf);
    cr_assert_eq(xfat_parse(buf, len, &elf, &elflen, &next, err, sizeof err), 0, "%s", err);
    cr_assert_eq(xgpubin_read(elf, elflen, &g, err, sizeof err), 0, "%s", err);
    free(buf);
    return g;
}

/* The records of kernel ki as "pc:regs:shared[:flags] ..." (flags b, e, d). */
static char *records(const XGpubin *g, uint32_t ki)
{
    static char s[1024];
    size_t n = 0;
    s[0] = '\0';
    for (uint32_t i = 0; i < g->nphases; i++) {
        const XPhase *p = &g->phases[i];
        if (p->kernel != ki)
            continue;
        n += (size_t)snprintf(s + n, sizeof s - n, "%s%u:%u:%u%s%s%s%s", n ? " " : "", p->pc,
                              p->regs, p->shared, p->flags ? ":" : "",
                              p->flags & XPHASE_BARRIER ? "b" : "",
                              p->flags & XPHASE_ENTRY ? "e" : "",
                              p->flags & XPHASE_DYNAMIC ? "d" : "");
    }
    return s;
}

static uint32_t kernel(const XGpubin *g, const char *name)
{
    int k = xgpubin_find_kernel(g, name);
    cr_assert_geq(k, 0, "no kernel %s", name);
    return (uint32_t)k;
}

static int is_barrier(const XInsn *in)
{
    return in->op == XOP_bar || in->op == XOP_barred || in->op == XOP_membar;
}

/* Marks in div[] the pcs reached from each non-uniform brc before its reconvergence pc. */
static void divergent_pcs(const XInsn *code, uint32_t n, uint8_t *div)
{
    uint32_t *stack = calloc(n + 1, sizeof *stack);
    uint8_t *seen = calloc(n + 1, 1);
    for (uint32_t b = 0; b < n; b++) {
        if (code[b].op != XOP_brc || (code[b].flags & XF_UNIFORM))
            continue;
        uint32_t top = 0, r = code[b].reconv;
        memset(seen, 0, n + 1);
        stack[top++] = code[b].target, stack[top++] = b + 1;
        while (top) {
            uint32_t pc = stack[--top];
            if (pc >= n || pc == r || seen[pc])
                continue;
            seen[pc] = div[pc] = 1;
            const XInsn *in = &code[pc];
            if (in->op == XOP_exit || in->op == XOP_trap)
                continue;
            if (in->op == XOP_bra || in->op == XOP_brc)
                stack[top++] = in->target;
            if (in->op != XOP_bra)
                stack[top++] = pc + 1;
        }
    }
    free(stack);
    free(seen);
}

/* The placement rules on the code of kernel ki; returns how many records lie in the
 * region [lo, hi) of pcs. */
static unsigned check_rules(const XGpubin *g, uint32_t ki, uint32_t lo, uint32_t hi)
{
    const XKernel *k = &g->kernels[ki];
    const XInsn *code = &g->text[k->code_start];
    uint8_t *div = calloc(k->code_count, 1), *rec = calloc(k->code_count, 1);
    divergent_pcs(code, k->code_count, div);
    unsigned inside = 0;
    uint32_t last = 0;
    for (uint32_t i = 0; i < g->nphases; i++) {
        const XPhase *p = &g->phases[i];
        if (p->kernel != ki)
            continue;
        rec[p->pc] = 1;
        inside += p->pc >= lo && p->pc < hi;
        cr_expect_eq(!!(p->flags & XPHASE_BARRIER), is_barrier(&code[p->pc]), "pc %u", p->pc);
        if (p->flags & (XPHASE_BARRIER | XPHASE_ENTRY)) {
            last = p->pc;
            continue;
        }
        cr_expect_geq(p->pc - last, g->phase_gap, "pc %u: %u after pc %u", p->pc,
                      p->pc - last, last);
        cr_expect(!div[p->pc], "pc %u: a boundary inside a divergent region", p->pc);
        last = p->pc;
    }
    for (uint32_t pc = 0; pc < k->code_count; pc++)
        cr_expect(!is_barrier(&code[pc]) || rec[pc], "barrier at pc %u without a record", pc);
    cr_expect(rec[0], "no record at pc 0");
    free(div);
    free(rec);
    return inside;
}

/* The pcs of the body of the kernel's only conditional branch: [target, reconv). */
static void branch_body(const XGpubin *g, uint32_t ki, uint32_t *lo, uint32_t *hi)
{
    const XKernel *k = &g->kernels[ki];
    for (uint32_t pc = 0; pc < k->code_count; pc++)
        if (g->text[k->code_start + pc].op == XOP_brc) {
            *lo = g->text[k->code_start + pc].target;
            *hi = g->text[k->code_start + pc].reconv;
            return;
        }
    cr_assert_fail("no conditional branch");
}

Test(phases, default_thresholds)
{
    XGpubin *g = compile("");
    uint32_t ki = kernel(g, "_Z6phasesPKfPfi"), lo, hi;
    cr_expect_str_eq(g->options, "--phase-delta=25 --phase-gap=10");
    cr_expect_eq(g->phase_delta, 25);
    cr_expect_eq(g->phase_gap, 10);
    /* registers climb to 28 while the twelve inputs (loaded together, the scheduler
     * hoisting the loads) and the loads for the arrays are live (pcs 0-41), then fall;
     * the two arrays (2048 bytes) are live from their stores to their loads, the barrier
     * at 49 opens a phase, both arrays are read right after it, and the divergent body
     * gets no record (the parameters are constant-bank operands: no register holds n) */
    cr_expect_str_eq(records(g, ki), "0:11:0:e 10:22:0 20:28:0 42:17:2048 "
                                     "49:12:2048:b 77:3:0");
    branch_body(g, ki, &lo, &hi);
    cr_expect_eq(check_rules(g, ki, lo, hi), 0);
    cr_expect_str_eq(records(g, kernel(g, "_Z4dynkPf")), "0:7:0:ed 7:4:0:bd");
    xgpubin_free(g);
}

Test(phases, delta_threshold)
{
    XGpubin *g = compile("--phase-delta=50");
    uint32_t ki = kernel(g, "_Z6phasesPKfPfi"), lo, hi;
    cr_expect_str_eq(g->options, "--phase-delta=50 --phase-gap=10");
    /* a 50% change needs longer: no record at 42, one at 46 (28 -> 13 registers) */
    cr_expect_str_eq(records(g, ki), "0:11:0:e 10:22:0 20:28:0 46:13:2048 49:12:2048:b "
                                     "77:3:0");
    branch_body(g, ki, &lo, &hi);
    cr_expect_eq(check_rules(g, ki, lo, hi), 0);
    xgpubin_free(g);
}

Test(phases, gap_threshold)
{
    XGpubin *g = compile("--phase-gap=30");
    uint32_t ki = kernel(g, "_Z6phasesPKfPfi"), lo, hi;
    cr_expect_eq(g->phase_gap, 30);
    /* the barrier still opens a phase 20 instructions after the previous boundary */
    cr_expect_str_eq(records(g, ki), "0:28:0:e 30:27:2048 49:12:2048:b 79:0:0");
    branch_body(g, ki, &lo, &hi);
    cr_expect_eq(check_rules(g, ki, lo, hi), 0);
    xgpubin_free(g);
}

Test(phases, uniform_branch_body_gets_boundaries)
{
    XGpubin *g = compile("'-DCOND=(n < 32)'");
    uint32_t ki = kernel(g, "_Z6phasesPKfPfi"), lo, hi;
    branch_body(g, ki, &lo, &hi);
    cr_expect_gt(check_rules(g, ki, lo, hi), 0, "no record in the uniform body [%u, %u): %s",
                 lo, hi, records(g, ki));
    xgpubin_free(g);
}

Test(phases, bad_option_values)
{
    static const char *const bad[] = {"--phase-delta=0", "--phase-delta=1001",
                                      "--phase-delta=x", "--phase-gap=0", "--phase-gap=-3"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char *out = NULL;
        int rc = xt_runf(&out, "%s/xgpu-cc --cuda-device-only %s x.cu", XGPU_BIN_DIR, bad[i]);
        cr_expect_neq(rc, 0, "%s accepted", bad[i]);
        cr_expect(strstr(out, "xgpu-cc: error: --phase-") != NULL, "%s: %s", bad[i], out);
        free(out);
    }
}
