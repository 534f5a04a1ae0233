/*
 * 525-memsys-determinism.c - a seeded random stream of warp accesses (global, local,
 * const, shared; reads, writes, atomics; several SMs contending for a small working set
 * so hits, misses, merges, stalls and DRAM row conflicts all happen) gives identical
 * counters and completion cycles when run twice, and the same again when the driver
 * skips idle cycles with ldst_next / memsys_next instead of ticking every cycle.
 */
#include "500-mem-util.h"

#define NSM 4
#define PER_SM 300

typedef struct Run {
    TmCounters ctr;
    uint64_t hash;  /* over (sm, tag, completion cycle) in completion order */
    Cycle end;
    uint64_t ticks;
} Run;

static uint64_t rng_next(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static TmAccess random_access(uint64_t *s)
{
    static const uint8_t sizes[] = {1, 4, 4, 4, 8, 16};
    TmSpace space = (TmSpace)(rng_next(s) % 8 < 5 ? TM_GLOBAL : rng_next(s) % 3 == 0 ? TM_LOCAL
                                                      : rng_next(s) % 2 ? TM_SHARED : TM_CONST);
    unsigned r = (unsigned)(rng_next(s) % 10);
    TmKind kind = r < 6 ? TM_READ : r < 9 ? TM_WRITE : TM_ATOMIC;
    if (space == TM_CONST)
        kind = TM_READ;
    unsigned size = sizes[rng_next(s) % 6];
    uint64_t base = (rng_next(s) % 512) * 64, stride = (rng_next(s) % 4 == 0) ? 1024 : size;
    TmAccess a = t_acc(space, kind, size, space == TM_LOCAL ? base % 256 : base, stride);
    a.mask = (uint32_t)rng_next(s) | 1;
    a.warp = (uint32_t)(rng_next(s) % 8);
    return a;
}

static void run(Run *out, int skip)
{
    TMem t;
    uint64_t seed = 0x9e3779b97f4a7c15ull;
    t_mem_open(&t, "l1.mshrs=8;l1.bytes=4096;l2.sets=8;l2.mshrs=8;dram.queue=8");
    TmAccess acc[NSM][PER_SM];
    Cycle when[NSM][PER_SM];
    unsigned next[NSM] = {0}, done = 0;
    for (unsigned sm = 0; sm < NSM; sm++)
        for (unsigned i = 0; i < PER_SM; i++) {
            acc[sm][i] = random_access(&seed);
            when[sm][i] = i * 6 + rng_next(&seed) % 6;
        }
    memset(out, 0, sizeof *out);
    while (done < NSM * PER_SM) {
        cr_assert_lt(t.now, 10000000, "stuck");
        out->ticks++;
        t_mem_tick(&t);
        Cycle wake = memsys_next(t.m, t.now);
        for (unsigned sm = 0; sm < NSM; sm++) {
            uint64_t tag;
            while (ldst_done(t.u[sm], &tag, t.now)) {
                out->hash = (out->hash ^ (sm * 1000003 + tag * 31 + t.now)) * 0x100000001b3ull;
                done++;
            }
            if (next[sm] < PER_SM && when[sm][next[sm]] <= t.now &&
                ldst_issue(t.u[sm], &acc[sm][next[sm]], next[sm], t.now) == 0)
                next[sm]++;
            Cycle n = ldst_next(t.u[sm], t.now);
            if (next[sm] < PER_SM) {
                Cycle w = when[sm][next[sm]] > t.now ? when[sm][next[sm]] : t.now + 1;
                n = w < n ? w : n;
            }
            wake = n < wake ? n : wake;
        }
        t.now = skip && wake != TM_NEVER ? wake : t.now + 1;
    }
    out->ctr = t.ctr;
    out->end = t.now;
    t_mem_close(&t);
}

Test(determinism, same_stream_same_counters)
{
    Run a, b;
    run(&a, 0);
    run(&b, 0);
    cr_expect_eq(memcmp(&a.ctr, &b.ctr, sizeof a.ctr), 0);
    cr_expect_eq(a.hash, b.hash);
    cr_expect_eq(a.end, b.end);
    /* the stream exercised every part of the memory system */
    cr_expect_gt(a.ctr.l1_hits, 0);
    cr_expect_gt(a.ctr.l1_misses, 0);
    cr_expect_gt(a.ctr.l1_mshr_merges, 0);
    cr_expect_gt(a.ctr.l1_mshr_stalls, 0);
    cr_expect_gt(a.ctr.smem_bank_conflicts, 0);
    cr_expect_gt(a.ctr.l2_hits, 0);
    cr_expect_gt(a.ctr.l2_writebacks, 0);
    cr_expect_gt(a.ctr.dram_row_hits, 0);
    cr_expect_gt(a.ctr.dram_row_conflicts, 0);
}

Test(determinism, skipping_idle_cycles_changes_nothing)
{
    Run a, b;
    run(&a, 0);
    run(&b, 1);
    cr_expect_eq(memcmp(&a.ctr, &b.ctr, sizeof a.ctr), 0);
    cr_expect_eq(a.hash, b.hash);
    cr_expect_lt(b.ticks, a.ticks, "skipping visited fewer cycles (%llu vs %llu)",
                 (unsigned long long)b.ticks, (unsigned long long)a.ticks);
}
