/*
 * 436-fence-coherence.c - coherence = fence: a device-scope fence (membar.gl, what
 * __threadfence() compiles to) invalidates the SM's L1, so the same load after it misses
 * (l1.fence_flushes, l1.misses); a block-scope fence (membar.cta) and the baseline
 * (coherence = none) keep the line, and the load after the fence hits. Results are the
 * same either way.
 */
#include "400-timing-util.h"

/* One thread: loads out[64] twice with a fence between (the add waits for the first load,
 * so the fence issues after its fill), then stores both values. */
static const char *src_of(const char *fence)
{
    static char buf[1024];
    snprintf(buf, sizeof buf,
             ".kernel k\n.param 8\n"
             "  ld.param.u64 r2, [0]\n"
             "  ld.global.u32 r4, [r2+256]\n"
             "  add.u32 r5, r4, 0\n"
             "  %s\n"
             "  ld.global.u32 r6, [r2+256]\n"
             "  st.global.u32 [r2], r5\n"
             "  st.global.u32 [r2+4], r6\n"
             "  exit\n", fence);
    return buf;
}

static void run(const char *coherence, const char *fence, uint64_t *misses, uint64_t *flushes)
{
    char set[256];
    snprintf(set, sizeof set, "gpu.sm_count=1;coherence=%s", coherence);
    TmRun r;
    tm_run(&r, set, src_of(fence), DIM(1, 1, 1), DIM(1, 1, 1), 128);
    cr_assert_eq(r.status, EMU_OK, "%s", r.fault.message);
    cr_expect_eq(r.out[0], r.out[1], "the two loads read the same word");
    *misses = tm_ctr(&r, "l1.misses");
    *flushes = tm_ctr(&r, "l1.fence_flushes");
    tm_done(&r);
}

Test(fence_coherence, device_fence_invalidates_the_l1)
{
    uint64_t base, misses, flushes;
    run("none", "membar.gl", &base, &flushes); /* the baseline keeps the L1 */
    cr_expect_eq(flushes, 0);
    run("fence", "membar.gl", &misses, &flushes);
    cr_expect_eq(misses, base + 1, "the load after the fence misses (%llu, baseline %llu)",
                 (unsigned long long)misses, (unsigned long long)base);
    cr_expect_eq(flushes, 1);
    run("fence", "membar.cta", &misses, &flushes);
    cr_expect_eq(misses, base, "a block-scope fence keeps the L1");
    cr_expect_eq(flushes, 0);
    run("none", "membar.cta", &misses, &flushes);
    cr_expect_eq(misses, base);
}
