/*
 * 537-halcone.c - HALCONE's timestamp coherence (coherence = halcone; mech/halcone/halcone.c) in
 * a two-GPU shared-memory system, through memsys_send / memsys_recv and the slot's L1
 * hooks: the numbers of the paper's Fig. 5 walk-through (leases (10, 0) and (7, 0), a
 * write to Y answered (12, 8) and one to X (15, 11), the writer's clock moving to 8 and
 * 11, an L1 at cts 8 hitting X's lease 10, an L1 at cts 11 missing Y's lease 7, Y hitting
 * in the writer's L2 and missing in the other GPU's); a lease that runs out by the
 * progress tick at its exact cycle, and at a kernel boundary; written-through writes
 * answered to the SM; the TSU's eviction of the lowest memts and the floor register
 * (write timestamps never go back); the 16-bit overflow.
 */
#include "500-mem-util.h"
#include "mech/mech.h"
#include "timing/gpu.h"

#define T 1000 /* halcone.tick */
/* One SM per GPU; Mrts = 7 (X's lease of 10 is 7 granted at clock 3), Mwts = 5. */
#define SYS T_SAME_CLOCKS ";gpu.sm_count=1;system.gpus=2;system.memory=shared;" \
            "coherence=halcone;halcone.read_lease=7;halcone.write_lease=5;halcone.tick=1000"

#define X 0x100000ull
#define Y 0x200000ull

static unsigned rts(uint64_t meta) { return (unsigned)(meta & 0xFFFF); }
static unsigned wts(uint64_t meta) { return (unsigned)(meta >> 16 & 0xFFFF); }

/* Sends a whole-line read (or write) of line from sm at cycle at and ticks until its
 * response (or answer) arrives: the response. */
static TmReq access(TMemSys *s, unsigned sm, TmKind kind, uint64_t line, Cycle at)
{
    TmReq r = {.line = line, .sectors = 0xf, .kind = (uint8_t)kind, .sm = (uint16_t)sm};
    cr_assert_geq(at, s->now);
    for (; s->now < at; s->now++)
        memsys_tick(s->m, s->now);
    cr_assert_eq(memsys_send(s->m, &r, at), 0);
    TmReq got;
    for (; s->now < at + 100000; s->now++) {
        memsys_tick(s->m, s->now);
        if (memsys_recv(s->m, sm, &got, s->now)) {
            cr_assert_eq(got.line, line);
            cr_assert_eq(got.kind, kind);
            s->now++;
            return got;
        }
    }
    cr_assert_fail("no response");
    return got;
}

Test(halcone, fig5_walk_through)
{
    TMemSys s;
    t_memsys_open(&s, SYS);
    /* GPU 1 reads Y at clock 0: lease 7; GPU 0 reads X at clock 3: lease 10 */
    TmReq y1 = access(&s, 1, TM_READ, Y, 10);
    cr_expect_eq(rts(y1.meta), 7);
    cr_expect_eq(wts(y1.meta), 0);
    TmReq x0 = access(&s, 0, TM_READ, X, 3 * T + 10);
    cr_expect_eq(rts(x0.meta), 10);
    cr_expect_eq(wts(x0.meta), 0);
    /* GPU 0 writes Y (memts 7): answered (12, 8); then X (memts 10): (15, 11). Each
     * write goes through its L2 to DRAM. */
    uint64_t dw = s.ctr.dram_writes;
    TmReq wy = access(&s, 0, TM_WRITE, Y, s.now);
    cr_expect_eq(rts(wy.meta), 12);
    cr_expect_eq(wts(wy.meta), 8);
    TmReq wx = access(&s, 0, TM_WRITE, X, s.now);
    cr_expect_eq(rts(wx.meta), 15);
    cr_expect_eq(wts(wx.meta), 11);
    cr_expect_eq(s.ctr.dram_writes, dw + 2, "written through");
    cr_expect_eq(s.ctr.l2_writes, 2);
    /* GPU 0's L2 is at cts 11 (the answers' wts): Y (12, 8) hits there, 8 <= 11 <= 12 */
    uint64_t reads = s.ctr.dram_reads, hits = s.ctr.l2_hits;
    TmReq y0 = access(&s, 0, TM_READ, Y, s.now);
    cr_expect_eq(s.ctr.l2_hits, hits + 1);
    cr_expect_eq(s.ctr.dram_reads, reads);
    cr_expect_eq(rts(y0.meta), 12);
    cr_expect_eq(wts(y0.meta), 8);
    /* GPU 1's L2 still holds Y's lease 7: at clock 11 (eleven ticks) it is a coherence
     * miss, and memory gives the new version (wts 8) a lease from clock 11 */
    TmReq y1b = access(&s, 1, TM_READ, Y, 11 * T + 10);
    cr_expect_eq(s.ctr.l2_coherence_invalidations, 1);
    cr_expect_eq(s.ctr.dram_reads, reads + 1);
    cr_expect_eq(wts(y1b.meta), 8, "GPU 1 sees GPU 0's write");
    cr_expect_eq(rts(y1b.meta), 18);
    memsys_free(s.m);
}

/* The L1 part: the slot's hooks on SM 0's clock, with the walk-through's numbers. */
Test(halcone, fig5_l1_leases)
{
    TMemSys s;
    t_memsys_open(&s, SYS);
    TmGpu g;
    memset(&g, 0, sizeof g);
    g.nsm_total = 2, g.mem = s.m;
    void *st = NULL;
    char err[256] = "";
    const TmCoherenceOps *h = &tm_coh_halcone;
    cr_assert_eq(h->launch.begin(&g, &st, err, sizeof err), 0, "%s", err);
    uint64_t lease = 1ull << 48;
    uint64_t x = lease | 0 << 16 | 10, y = lease | 0 << 16 | 7;
    TmReq ans = {.line = Y, .kind = TM_WRITE, .meta = lease | 8 << 16 | 12};
    h->l1_fill(st, 0, &ans, 5); /* Y's write answer: cts 8 */
    cr_expect_eq(h->l1_read(st, 0, X, x, 0, 6), 1, "X at cts 8 against rts 10 hits");
    cr_expect_eq(h->l1_read(st, 0, Y, y, 0, 6), 0, "rts 7 < cts 8");
    ans = (TmReq){.line = X, .kind = TM_WRITE, .meta = lease | 11 << 16 | 15};
    h->l1_fill(st, 0, &ans, 7); /* cts 11 */
    cr_expect_eq(h->l1_read(st, 0, X, x, 0, 8), 0, "X's lease 10 ran out at cts 11");
    cr_expect_eq(h->l1_read(st, 0, X, ans.meta, 0, 8), 1);
    cr_expect_eq(h->l1_read(st, 1, Y, y, 0, 8), 1, "SM 1's clock is its own");
    /* the progress tick: SM 1's clock passes 7 at cycle 8 T */
    cr_expect_eq(h->l1_read(st, 1, Y, y, 0, 8 * T - 1), 1);
    cr_expect_eq(h->l1_read(st, 1, Y, y, 0, 8 * T), 0);
    h->launch.end(&g, st);
    memsys_free(s.m);
}

/* GPU 1 reads Y at cycle 10 (lease 7 at clock 0), then again at cycle at: whether the
 * second read was a coherence miss. */
static uint64_t second_read_misses(Cycle at)
{
    TMemSys s;
    t_memsys_open(&s, SYS);
    access(&s, 1, TM_READ, Y, 10);
    access(&s, 1, TM_READ, Y, at);
    uint64_t inv = s.ctr.l2_coherence_invalidations;
    cr_expect_eq(s.ctr.l2_hits + inv, 1);
    memsys_free(s.m);
    return inv;
}

Test(halcone, a_lease_runs_out_at_its_exact_cycle)
{
    /* the L2 looks the read up icnt.latency cycles after the send: at clock 7 (cycle
     * 8 T - 1) it hits, at clock 8 it misses */
    Cycle icnt = t_cfg(SYS).icnt_latency;
    cr_expect_eq(second_read_misses(8 * T - 1 - icnt), 0);
    cr_expect_eq(second_read_misses(8 * T - icnt), 1);
}

Test(halcone, a_kernel_boundary_advances_every_clock)
{
    TMemSys s;
    t_memsys_open(&s, SYS ";halcone.read_lease=2");
    access(&s, 1, TM_READ, Y, 10);             /* lease 2 at clock 0 */
    access(&s, 1, TM_READ, Y, T + 10);         /* clock 1: hits */
    cr_expect_eq(s.ctr.l2_hits, 1);
    memsys_end_launch(s.m, s.now);             /* clock 1, + 1 at the boundary */
    cr_assert_eq(memsys_next_launch(s.m, &s.ctr), 0);
    s.now = 0;
    access(&s, 1, TM_READ, Y, 10);             /* clock 2 at cycle 0: still hits */
    cr_expect_eq(s.ctr.l2_hits, 2);
    memsys_end_launch(s.m, s.now);             /* clock 3 */
    cr_assert_eq(memsys_next_launch(s.m, &s.ctr), 0);
    s.now = 0;
    access(&s, 1, TM_READ, Y, 10);
    cr_expect_eq(s.ctr.l2_hits, 2);
    cr_expect_eq(s.ctr.l2_coherence_invalidations, 1);
    memsys_free(s.m);
}

Test(halcone, tsu_evicts_the_lowest_memts_and_keeps_write_timestamps_monotonic)
{
    TMemSys s;
    /* one TSU set of 4 ways */
    t_memsys_open(&s, SYS ";halcone.tsu_entries=4;halcone.tsu_ways=4");
    for (uint64_t i = 0; i < 4; i++)
        access(&s, 0, TM_WRITE, 0x10000 * (i + 1), s.now); /* memts 5 each: wts 1 */
    TmReq w = access(&s, 0, TM_WRITE, 0x10000, s.now);    /* the first again: wts 6 */
    cr_expect_eq(wts(w.meta), 6);
    cr_expect_eq(rts(w.meta), 10);
    cr_expect_eq(s.ctr.halcone_tsu_evictions, 0);
    /* a fifth block evicts a memts-5 entry (not the memts-10 one): floor 5 */
    TmReq f = access(&s, 0, TM_WRITE, 0x50000, s.now);
    cr_expect_eq(s.ctr.halcone_tsu_evictions, 1);
    cr_expect_eq(wts(f.meta), 6, "a new entry starts at the floor");
    /* the evicted block comes back at the floor: its next write is after every lease
     * it was ever given */
    TmReq again = access(&s, 0, TM_WRITE, 0x20000, s.now);
    cr_expect_geq(wts(again.meta), 6);
    TmReq still = access(&s, 0, TM_WRITE, 0x10000, s.now);
    cr_expect_gt(wts(still.meta), 10, "block 1's memts 10 survived the evictions");
    memsys_free(s.m);
}

Test(halcone, evicting_an_unshared_block_drops_its_entry)
{
    TMemSys s;
    /* one L2 set of one way per slice, lease 2: the reader's clock passes the lease
     * before the eviction, so the entry goes */
    t_memsys_open(&s, SYS ";l2.sets=1;l2.ways=1;l2.slice_hash=mod;halcone.read_lease=2");
    access(&s, 0, TM_READ, 0, 10);
    access(&s, 0, TM_READ, 8 * 128, 3 * T); /* same slice of GPU 0: evicts line 0 */
    cr_expect_eq(s.ctr.halcone_tsu_drops, 1);
    /* a block whose lease still runs (memts > cts) keeps its entry */
    access(&s, 0, TM_READ, 16 * 128, 4 * T);
    cr_expect_eq(s.ctr.halcone_tsu_drops, 1);
    memsys_free(s.m);
}

Test(halcone, timestamps_overflow_and_restart)
{
    TMemSys s;
    t_memsys_open(&s, SYS ";halcone.read_lease=32767;halcone.write_lease=32767");
    access(&s, 1, TM_READ, Y, 10);                 /* GPU 1: lease 32767 */
    TmReq a = access(&s, 0, TM_WRITE, X, s.now);   /* wts 1, memts 32767 */
    TmReq b = access(&s, 0, TM_WRITE, X, s.now);   /* wts 32768, memts 65534 */
    cr_expect_eq(wts(a.meta), 1);
    cr_expect_eq(wts(b.meta), 32768);
    cr_expect_eq(s.ctr.halcone_overflows, 0);
    TmReq c = access(&s, 0, TM_WRITE, X, s.now);   /* would pass 0xFFFF */
    cr_expect_eq(s.ctr.halcone_overflows, 1);
    cr_expect_eq(wts(c.meta), 1, "restarted at 0");
    /* GPU 1's lease of the old generation is void: one more miss */
    uint64_t inv = s.ctr.l2_coherence_invalidations;
    access(&s, 1, TM_READ, Y, s.now);
    cr_expect_eq(s.ctr.l2_coherence_invalidations, inv + 1);
    memsys_free(s.m);
}
