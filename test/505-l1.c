/*
 * 505-l1.c - the L1 through the LD/ST unit, with the real memory system behind it:
 * exact hit latency, miss then hit, MSHR merging, a full MSHR table stalling issue, sector
 * misses fetching only the missing sectors, LRU and FIFO eviction order, lookup ports,
 * write-through stores, atomics at L2 and the kernel-boundary flush.
 * Clocks are equal (T_SAME_CLOCKS) so a cold miss costs, for n sectors on an idle system:
 *   icnt + l2 + tRCD + tCL + n*burst + dram.latency + icnt + (n - 1)   (empty DRAM bank)
 * and n*burst + tCL without the tRCD when the DRAM row is already open.
 */
#include "500-mem-util.h"

#define CFG T_SAME_CLOCKS

Test(l1, cold_miss_then_hit_at_exact_latency)
{
    TMem t;
    t_mem_open(&t, CFG);
    TmAccess a = t_line_read(0x10000);
    cr_expect_eq(t_latency(&t, 0, &a, 1), t_miss_latency(&t.cfg, 4, 0));
    cr_expect_eq(t_miss_latency(&t.cfg, 4, 0), 339); /* the defaults, spelled out */
    t.now += 5;
    Cycle start = t.now;
    t_issue(&t, 0, &a, 2);
    uint64_t tag;
    cr_expect_eq(ldst_done(t.u[0], &tag, start + 19), 0, "ready one cycle early");
    cr_assert_eq(ldst_done(t.u[0], &tag, start + 20), 1, "not ready at the hit latency");
    cr_expect_eq(tag, 2);
    cr_expect_eq(t.ctr.l1_misses, 1);
    cr_expect_eq(t.ctr.l1_hits, 1);
    cr_expect_eq(t.ctr.l2_misses, 1);
    t_mem_close(&t);
}

Test(l1, second_miss_to_a_line_merges_into_the_mshr)
{
    TMem t;
    t_mem_open(&t, CFG);
    TmAccess a = t_line_read(0x20000);
    t_issue(&t, 0, &a, 1);
    t_mem_tick(&t);
    t.now++;
    t_issue(&t, 0, &a, 2);
    Cycle d1 = t_wait(&t, 0, 1);
    uint64_t tag;
    cr_assert_eq(ldst_done(t.u[0], &tag, t.now), 1, "the merged access completes with the fill");
    cr_expect_eq(tag, 2);
    cr_expect_eq(d1, t_miss_latency(&t.cfg, 4, 0));
    cr_expect_eq(t.ctr.l1_misses, 1);
    cr_expect_eq(t.ctr.l1_mshr_merges, 1);
    cr_expect_eq(t.ctr.l2_misses + t.ctr.l2_hits + t.ctr.l2_mshr_merges, 1);
    t_mem_close(&t);
}

Test(l1, full_mshr_table_stalls_issue_until_a_fill)
{
    TMem t;
    t_mem_open(&t, CFG ";l1.mshrs=1");
    TmAccess a = t_line_read(0x0), b = t_line_read(0x1000), c = t_line_read(0x2000);
    t_issue(&t, 0, &a, 1);
    t.now = 1;
    t_issue(&t, 0, &b, 2); /* accepted: queued behind the full MSHR table */
    cr_expect_eq(t.ctr.l1_mshr_stalls, 1);
    Cycle fill = t_miss_latency(&t.cfg, 4, 0);
    uint64_t tag;
    for (t.now = 1; t.now < fill; t.now++) {
        t_mem_tick(&t);
        cr_assert_eq(ldst_issue(t.u[0], &c, 3, t.now), -1, "issued at %llu before the fill",
                     (unsigned long long)t.now);
        cr_assert_eq(ldst_done(t.u[0], &tag, t.now), 0);
    }
    t_mem_tick(&t);
    cr_assert_eq(ldst_done(t.u[0], &tag, t.now), 1);
    cr_expect_eq(tag, 1);
    cr_expect_eq(ldst_issue(t.u[0], &c, 3, t.now), 0, "b was looked up at the fill cycle");
    t_wait(&t, 0, 2);
    t_wait(&t, 0, 3);
    cr_expect_eq(t.ctr.l1_mshr_stalls, 2); /* b once, c once (it waits for b's fill) */
    cr_expect_eq(t.ctr.l1_misses, 3);
    t_mem_close(&t);
}

Test(l1, sector_miss_fetches_only_missing_sectors)
{
    TMem t;
    t_mem_open(&t, CFG);
    TmAccess one = t_acc(TM_GLOBAL, TM_READ, 1, 0x40000, 1); /* bytes 0..31: sector 0 */
    cr_expect_eq(t_latency(&t, 0, &one, 1), t_miss_latency(&t.cfg, 1, 0));
    cr_expect_eq(t.ctr.icnt_resp_flits, 1);
    TmAccess all = t_line_read(0x40000);
    /* sectors 1-3 miss in L1 and L2; the DRAM row is still open */
    cr_expect_eq(t_latency(&t, 0, &all, 2), t_miss_latency(&t.cfg, 3, 1));
    cr_expect_eq(t.ctr.icnt_resp_flits, 1 + 3);
    cr_expect_eq(t.ctr.l1_sector_misses, 1);
    cr_expect_eq(t.ctr.l1_misses, 2);
    cr_expect_eq(t.ctr.dram_row_hits, 1);
    cr_expect_eq(t_latency(&t, 0, &all, 3), t.cfg.l1_hit_latency);
    t_mem_close(&t);
}

/* Runs reads of lines (multiples of 128) one after another; returns the L1 hits. */
static uint64_t run_lines(const char *cfg, const unsigned *lines, unsigned n)
{
    TMem t;
    t_mem_open(&t, cfg);
    for (unsigned i = 0; i < n; i++) {
        TmAccess a = t_line_read(lines[i] * 128ull);
        t_latency(&t, 0, &a, i);
    }
    cr_expect_eq(t.ctr.l1_hits + t.ctr.l1_misses, n);
    uint64_t hits = t.ctr.l1_hits;
    t_mem_close(&t);
    return hits;
}

Test(l1, lru_evicts_the_least_recently_used_way)
{
    /* one set of two ways: A B A C (evicts B) A (hit) B (miss) */
    const unsigned seq[] = {0, 1, 0, 2, 0, 1};
    cr_expect_eq(run_lines(CFG ";l1.bytes=256;l1.ways=2", seq, 6), 2);
    /* FIFO evicts A at C although A was just used: A then misses, B too */
    cr_expect_eq(run_lines(CFG ";l1.bytes=256;l1.ways=2;l1.policy=fifo", seq, 6), 1);
}

Test(l1, lookup_ports_bound_requests_per_cycle)
{
    TMem t;
    t_mem_open(&t, CFG ";l1.ports=1");
    TmAccess s = t_acc(TM_GLOBAL, TM_READ, 4, 0, 128); /* a line per lane */
    s.mask = 0xf; /* lanes 0-3: 4 lines */
    t_latency(&t, 0, &s, 1);
    cr_expect_eq(t_latency(&t, 0, &s, 2), 3 + t.cfg.l1_hit_latency);
    t_mem_close(&t);
    t_mem_open(&t, CFG ";l1.ports=2");
    t_latency(&t, 0, &s, 1);
    cr_expect_eq(t_latency(&t, 0, &s, 2), 1 + t.cfg.l1_hit_latency);
    t_mem_close(&t);
}

Test(l1, stores_write_through_without_allocating)
{
    TMem t;
    t_mem_open(&t, CFG);
    TmAccess st = t_acc(TM_GLOBAL, TM_WRITE, 4, 0x8000, 4), ld = t_line_read(0x8000);
    cr_expect_eq(t_latency(&t, 0, &st, 1), 0, "a store completes when accepted");
    t_drain(&t);
    cr_expect_eq(t.ctr.l1_writes, 1);
    cr_expect_eq(t.ctr.l2_writes, 1);
    /* no allocation in L1; L2 allocated it (write-allocate) and hits */
    cr_expect_eq(t_latency(&t, 0, &ld, 2), 2 * t.cfg.icnt_latency + t.cfg.l2_latency + 3);
    cr_expect_eq(t.ctr.l1_misses, 1);
    cr_expect_eq(t.ctr.l2_hits, 1);
    /* a store to a present line keeps it */
    t_latency(&t, 0, &st, 3);
    t.now++; /* the store used this cycle's lookup port */
    Cycle lat = t_latency(&t, 0, &ld, 4);
    cr_expect_eq(lat, t.cfg.l1_hit_latency, "%llu", (unsigned long long)lat);
    t_mem_close(&t);
}

Test(l1, atomics_go_to_l2_and_invalidate_the_line)
{
    TMem t;
    t_mem_open(&t, CFG);
    TmAccess ld = t_line_read(0x9000), at = t_acc(TM_GLOBAL, TM_ATOMIC, 4, 0x9000, 0);
    t_latency(&t, 0, &ld, 1);
    /* all 32 lanes add to one address: the slice's atomic unit performs them one after
     * the other, l2.latency covering the first */
    cr_expect_eq(t_latency(&t, 0, &at, 2),
                 2 * t.cfg.icnt_latency + t.cfg.l2_latency + 31 * t.cfg.l2_atomic_latency);
    cr_expect_eq(t.ctr.l1_atomics, 1);
    cr_expect_eq(t.ctr.l2_hits, 1);
    t_latency(&t, 0, &ld, 3);
    cr_expect_eq(t.ctr.l1_misses, 2, "the atomic invalidated the L1 copy");
    t_mem_close(&t);
}

Test(l1, flush_invalidates)
{
    TMem t;
    t_mem_open(&t, CFG);
    TmAccess ld = t_line_read(0xa000);
    t_latency(&t, 0, &ld, 1);
    ldst_flush(t.u[0]);
    t_latency(&t, 0, &ld, 2);
    cr_expect_eq(t.ctr.l1_misses, 2);
    cr_expect_eq(t.ctr.l1_hits, 0);
    cr_expect(ldst_idle(t.u[0]));
    t_mem_close(&t);
}
