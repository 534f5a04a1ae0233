/*
 * 425-occupancy.c - the CTA scheduler keeps as many CTAs on an SM as registers, shared
 * memory, threads and core.max_ctas_per_sm allow, and places the next when one
 * finishes. Each CTA records (SM, start clock, end clock); the test counts how many
 * were resident at once.
 */
#include "400-timing-util.h"

/* lrr: every resident warp issues its first instruction (the start clock) within a few
 * cycles of its CTA's placement (gto would starve the youngest CTAs' warps) */
#undef TM_BASE
#define TM_BASE "gpu.sm_count=1;core.mem_latency=20;core.sched=lrr;"

/* %s: an extra instruction (to raise the register count); shared bytes from .shared */
static const char *fmt =
    ".kernel k\n.param 8\n.shared %u\n"
    "  s2r r5, %%clock\n  %s\n"
    "  mov.u32 r3, 0\n"
    "loop:\n  add.u32 r3, r3, 1\n  set.lt.u32 r4, r3, 20\n  brc r4, loop, after\n"
    "after:\n  bar 0\n  s2r r6, %%clock\n  s2r r7, %%smid\n"
    "  ld.param.u64 r40, [0]\n  s2r r1, %%ctaid.x\n  mul.u32 r2, r1, 12\n"
    "  cvt.u64.u32 r8, r2\n  add.u64 r40, r40, r8\n"
    "  st.global.u32 [r40], r7\n  st.global.u32 [r40+4], r5\n  st.global.u32 [r40+8], r6\n"
    "  exit\n";

static uint32_t max_resident(const char *set, unsigned shared, const char *extra,
                             uint32_t threads)
{
    enum { N = 12 };
    char src[2048];
    TmRun r;
    snprintf(src, sizeof src, fmt, shared, extra);
    tm_run(&r, set, src, DIM(N, 1, 1), DIM(threads, 1, 1), 3 * N);
    cr_assert_eq(r.status, EMU_OK, "%s", r.fault.message);
    uint32_t best = 0;
    for (uint32_t i = 0; i < N; i++) {
        uint32_t n = 0;
        cr_expect_eq(r.out[3 * i], 0, "one SM");
        for (uint32_t j = 0; j < N; j++)
            n += r.out[3 * j + 1] <= r.out[3 * i + 1] && r.out[3 * i + 1] <= r.out[3 * j + 2];
        best = n > best ? n : best;
    }
    tm_done(&r);
    return best;
}

Test(occupancy, limited_by_threads)
{
    cr_expect_eq(max_resident(TM_BASE "gpu.max_threads_per_sm=768;gpu.max_threads_per_block=256", 0, "nop", 256), 3);
    uint32_t n = max_resident(TM_BASE "gpu.regs_per_sm=1048576", 0, "nop", 256);
    cr_expect_eq(n, 8, "%u", n);
}

Test(occupancy, limited_by_registers)
{
    /* r100 makes 101 registers per thread: 25 856 per CTA of 256 threads */
    cr_expect_eq(max_resident(TM_BASE, 0, "mov.u32 r100, 1", 256), 2);
}

Test(occupancy, limited_by_shared_memory)
{
    cr_expect_eq(max_resident(TM_BASE "gpu.shared_per_sm=65536", 20000, "nop", 64), 3);
}

Test(occupancy, limited_by_max_ctas)
{
    cr_expect_eq(max_resident(TM_BASE "core.max_ctas_per_sm=2", 0, "nop", 64), 2);
    cr_expect_eq(max_resident(TM_BASE "core.max_ctas_per_sm=5", 0, "nop", 64), 5);
}

Test(occupancy, ctas_spread_round_robin_over_sms)
{
    enum { N = 8 };
    char src[2048];
    TmRun r;
    snprintf(src, sizeof src, fmt, 0, "nop");
    tm_run(&r, "gpu.sm_count=4;core.mem_latency=20", src, DIM(N, 1, 1), DIM(32, 1, 1), 3 * N);
    cr_assert_eq(r.status, EMU_OK, "%s", r.fault.message);
    for (uint32_t i = 0; i < N; i++)
        cr_expect_eq(r.out[3 * i], i % 4, "CTA %u on SM %u", i, r.out[3 * i]);
    cr_expect_gt(tm_ctr(&r, "core.active_warp_cycles"), 0);
    tm_done(&r);
}
