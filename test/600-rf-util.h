/*
 * 600-rf-util.h - helpers for the register-file cache tests (6xx): a tm_clocked kernel
 * (400-timing-util.h) run with hand-set Memento reuse bits, and the register-file
 * counters and clock span of one such run; and the rig of the unit tests (601, 607).
 */
#ifndef XGPU_TEST_600_RF_UTIL_H
#define XGPU_TEST_600_RF_UTIL_H

#include "400-timing-util.h"
#include "stats/stats.h"
#include "timing/gpu.h"

/* One SM with one sub-core, eight warp slots and up to eight collectors, driven directly
 * by the unit tests (each test's rig_init sets it up). */
typedef struct Rig {
    EmuConfig cfg;
    TmCounters ctr;
    TmRng rng;
    TmGpu g;
    TmSm sm;
    TmSubcore sc;
    TmOcu ocu[8];
    TmWarp warp[8];
} Rig;

/* Like tm_run, with reuse byte bits[i] on the i-th body instruction of tm_clocked (the
 * preamble is 12 instructions) or, with all_near, on every instruction. */
static inline void run_reuse(TmRun *r, const char *set, const char *body, const uint8_t *bits,
                      unsigned nbits, int all_near, EmuDim3 block)
{
    char src[4096], err[256] = "";
    memset(r, 0, sizeof *r);
    r->d = tm_dev(set);
    XGpubin *g = NULL;
    cr_assert_eq(xasm_assemble(tm_clocked(src, sizeof src, body), &g, err, sizeof err), 0,
                 "%s", err);
    uint8_t *reuse = calloc(g->ntext + 1, 1);
    for (uint32_t i = 0; i < g->ntext; i++)
        reuse[i] = all_near ? 0xff : i >= 12 && i - 12 < nbits ? bits[i - 12] : 0;
    g->reuse = bits || all_near ? reuse : NULL;
    EmuModule *m = NULL;
    cr_assert_eq(emu_load_module(r->d, g, &m, err, sizeof err), EMU_OK, "%s", err);
    g->reuse = NULL;
    free(reuse);
    xgpubin_free(g);
    uint64_t buf;
    cr_assert_eq(emu_malloc(r->d, 16, &buf), EMU_OK);
    r->status = emu_launch(r->d, m, emu_kernel(m, "k"), DIM(1, 1, 1), block, 0, &buf, 8,
                           &r->st, &r->fault);
    cr_assert_eq(r->status, EMU_OK, "%s", r->fault.message);
    r->out = calloc(4, 4);
    cr_assert_eq(emu_copy_from_device(r->d, r->out, buf, 8), EMU_OK);
}

typedef struct Res {
    uint32_t span;
    uint64_t reads, hits, misses, writes, drops, inval, wait, nofree;
} Res;

static inline Res measure(const char *set, const char *body, const uint8_t *bits, unsigned n)
{
    TmRun r;
    run_reuse(&r, set, body, bits, n, 0, DIM(1, 1, 1));
    Res x = {r.out[1] - r.out[0],        tm_ctr(&r, "rf.bank_reads"),
             tm_ctr(&r, "rf.ct_hits"),   tm_ctr(&r, "rf.ct_misses"),
             tm_ctr(&r, "rf.ct_writes"), tm_ctr(&r, "rf.ct_write_drops"),
             tm_ctr(&r, "rf.ct_invalidations"), tm_ctr(&r, "rf.ccu_alloc_wait"),
             tm_ctr(&r, "rf.ccu_alloc_none_free")};
    if (strstr(set, "ccu"))
        cr_expect_eq(x.reads, x.misses, "every miss is one bank read");
    tm_done(&r);
    return x;
}

#endif
