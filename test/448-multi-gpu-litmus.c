/*
 * 448-multi-gpu-litmus.c - message passing between two GPUs that share memory
 * (system.memory = shared; docs/multi-gpu.md, "What a GPU reads"): CTA 0 runs on GPU 0
 * and CTA 1 on GPU 1. GPU 1 reads data and flag (both 0) into its caches; GPU 0 then
 * writes data = 42, fences and writes flag = 1; GPU 1 spins on flag and reads data.
 * Without coherence (none) GPU 1's L2 keeps serving its old flag and the spin gives up;
 * flushing the L2s at kernel boundaries (flush) does not help within a kernel; HALCONE's
 * leases run out, GPU 1 refetches the flag, and the data it then reads is 42. One GPU
 * (no L2 of another GPU to be stale) gets 42 at once.
 */
#include "400-timing-util.h"

#define LIMIT 20000 /* spins before GPU 1 gives up */

static const char *src =
    ".kernel k\n.param 8\n"
    "  s2r r1, %ctaid.x\n  ld.param.u64 r40, [0]\n"
    "  set.ne.u32 r2, r1, 0\n  brc r2, consumer, end\n"
    /* CTA 0: wait, then data = 42, fence, flag = 1 */
    "  mov.u32 r3, 0\n"
    "pwait:\n  add.u32 r3, r3, 1\n  set.lt.u32 r4, r3, 3000\n  brc r4, pwait, pgo\n"
    "pgo:\n  mov.u32 r5, 42\n  st.global.u32 [r40+1024], r5\n  membar.gl\n"
    "  mov.u32 r6, 1\n  st.global.u32 [r40+2048], r6\n  exit\n"
    /* CTA 1: read data and flag, spin on flag (at most LIMIT loads), read data */
    "consumer:\n  ld.global.u32 r7, [r40+1024]\n  ld.global.u32 r8, [r40+2048]\n"
    "  add.u32 r9, r7, r8\n  mov.u32 r10, 0\n"
    "spin:\n  ld.global.u32 r8, [r40+2048]\n  add.u32 r10, r10, 1\n"
    "  set.eq.u32 r11, r8, 0\n  set.lt.u32 r12, r10, 20000\n  and.u32 r13, r11, r12\n"
    "  brc r13, spin, out\n"
    "out:\n  ld.global.u32 r7, [r40+1024]\n  set.eq.u32 r11, r8, 0\n"
    "  mul.u32 r14, r11, 57005\n  add.u32 r7, r7, r14\n"  /* 0xdead when it gave up */
    "  st.global.u32 [r40], r7\n  st.global.u32 [r40+4], r10\n"
    "end:\n  exit\n";

/* out[0]: the data GPU 1 read after seeing the flag, or 0xdead when it gave up; *spins:
 * its loads of the flag. */
static uint32_t litmus(const char *set, uint32_t *spins, uint64_t *stale)
{
    TmRun r;
    tm_run(&r, set, src, DIM(2, 1, 1), DIM(1, 1, 1), 1024);
    cr_assert_eq(r.status, EMU_OK, "%s: %s", set, r.fault.message);
    uint32_t v = r.out[0];
    *spins = r.out[1];
    *stale = tm_ctr(&r, "l2.stale_copies");
    tm_done(&r);
    return v;
}

#define TWO "gpu.sm_count=1;system.gpus=2;system.memory=shared;halcone.tick=100;"

Test(multi_gpu_litmus, none_reads_stale_data_halcone_does_not)
{
    uint32_t spins;
    uint64_t stale;
    cr_expect_eq(litmus(TWO "coherence=none", &spins, &stale), 0xdead, "none: the flag stays 0");
    cr_expect_eq(spins, LIMIT);
    cr_expect_geq(stale, 2, "GPU 1's L2 held data and flag when GPU 0 wrote them");
    cr_expect_eq(litmus(TWO "coherence=flush", &spins, &stale), 0xdead,
                 "flush: no kernel boundary inside the kernel");
    cr_expect_eq(litmus(TWO "coherence=halcone", &spins, &stale), 42);
    cr_expect_lt(spins, LIMIT);
    cr_expect_geq(stale, 2);
    cr_expect_eq(litmus("gpu.sm_count=2;coherence=none", &spins, &stale), 42, "one GPU");
    cr_expect_eq(stale, 0);
}
