/*
 * 512-coherence-lease.c - the coherence slot at the L1, through the LD/ST unit and the
 * real memory system: under coherence = lease a line may be hit for coherence.lease
 * cycles after its fill; a read after that invalidates it (l1.coherence_invalidations)
 * and costs exactly an L2 hit's round trip, and the refetched line is good for another
 * lease. Under none the same read hits at the L1 hit latency.
 */
#include "500-mem-util.h"
#include "mech/mech.h"

#define CFG T_SAME_CLOCKS

/* Reads line 0x10000 at start + each of the delays after the previous read completed;
 * lat[i] is the i-th read's latency. */
static void reads(TMem *t, const TmCoherenceOps *coh, uint64_t lease, const Cycle *delay,
                  Cycle *lat, int n)
{
    t_mem_open(t, CFG);
    static uint64_t state;
    state = lease;
    ldst_coherence(t->u[0], coh, &state);
    TmAccess a = t_line_read(0x10000);
    for (int i = 0; i < n; i++) {
        t->now += delay[i];
        lat[i] = t_latency(t, 0, &a, (uint64_t)i + 1);
    }
}

Test(coherence, lease_expires_a_line)
{
    TMem t;
    Cycle lat[4];
    const Cycle delay[4] = {0, 10, 600, 10};
    reads(&t, &tm_coh_lease, 500, delay, lat, 4);
    Cycle l2_hit = 2 * t.cfg.icnt_latency + t.cfg.l2_latency + 3;
    cr_expect_eq(lat[0], t_miss_latency(&t.cfg, 4, 0), "cold miss");
    cr_expect_eq(lat[1], t.cfg.l1_hit_latency, "within the lease: a hit");
    cr_expect_eq(lat[2], l2_hit, "past the lease: fetched again from L2");
    cr_expect_eq(lat[3], t.cfg.l1_hit_latency, "a new lease from the refetch");
    cr_expect_eq(t.ctr.l1_coherence_invalidations, 1);
    cr_expect_eq(t.ctr.l1_hits, 2);
    cr_expect_eq(t.ctr.l1_misses, 2);
    t_mem_close(&t);

    reads(&t, &tm_coh_none, 0, delay, lat, 4);
    cr_expect_eq(lat[2], t.cfg.l1_hit_latency, "none: the line stays");
    cr_expect_eq(t.ctr.l1_coherence_invalidations, 0);
    t_mem_close(&t);
}
