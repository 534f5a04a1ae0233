/*
 * 523-dram-backpressure.c - a full DRAM queue pushes back to the L2, and a full L2 input
 * queue to the SMs. The request that finds its channel's read queue full waits at its
 * slice (dram.queue_full), the slice stops looking up until the channel takes it, so
 * even an L2 hit behind it waits, and the waiting request enters the channel when the
 * one ahead leaves it (its last column command). An SM may not send to a slice whose
 * input queue, the requests crossing the crossbar to it included, is full
 * (icnt.slice_full). One slice, one channel, equal clocks: every cycle below follows
 * from the defaults (icnt 10, l2.latency 160, tRCD = tCL = 20, tRRD 10, four 4-cycle
 * bursts, dram.latency 100; 16 lines per DRAM row, so line 16k is bank k).
 */
#include "500-mem-util.h"

#define CFG T_SAME_CLOCKS ";l2.slices=1;dram.channels=1;l2.slice_hash=mod"

typedef struct Got {
    Cycle a, b, c;
    uint64_t waited;
} Got;

static Cycle recv_sm(MemSys *m, unsigned sm, Cycle *now, Cycle stop)
{
    TmReq r;
    for (; *now < stop; ++*now) {
        memsys_tick(m, *now);
        if (memsys_recv(m, sm, &r, *now))
            return *now;
    }
    cr_assert_fail("no response for SM %u", sm);
    return 0;
}

/* C (line 0) is warmed into the L2. At 1000 SM0 reads A (bank 1) and SM1 reads B (bank
 * 2), both DRAM misses; at 1165 SM2 reads C, an L2 hit. */
static Got run(const char *queue)
{
    char err[256] = "", sets[256];
    snprintf(sets, sizeof sets, "%s;%s", CFG, queue);
    EmuConfig cfg = t_cfg(sets);
    TmCounters ctr = {0};
    MemSys *m = memsys_new(&cfg, &ctr, err, sizeof err);
    cr_assert(m, "%s", err);
    TmReq a = {.line = 16 * 128, .sectors = 0xf, .kind = TM_READ, .sm = 0};
    TmReq b = {.line = 32 * 128, .sectors = 0xf, .kind = TM_READ, .sm = 1};
    TmReq c = {.line = 0, .sectors = 0xf, .kind = TM_READ, .sm = 2};
    Cycle now = 0;
    memsys_send(m, &c, now);
    recv_sm(m, 2, &now, 10000);
    for (; now < 1000; now++)
        memsys_tick(m, now);
    cr_assert(memsys_idle(m));
    Got g = {0};
    memsys_send(m, &a, 1000);
    memsys_send(m, &b, 1000);
    TmReq r;
    for (now = 1000; now < 5000 && !(g.a && g.b && g.c); now++) {
        if (now == 1165)
            memsys_send(m, &c, now);
        memsys_tick(m, now);
        while (memsys_recv(m, 0, &r, now))
            g.a = now;
        while (memsys_recv(m, 1, &r, now))
            g.b = now;
        while (memsys_recv(m, 2, &r, now))
            g.c = now;
    }
    cr_assert(g.a && g.b && g.c, "responses missing");
    g.waited = ctr.dram_queue_full;
    memsys_free(m);
    return g;
}

Test(dram_backpressure, a_full_queue_stalls_the_slice)
{
    /* room for both: A activates at 1170 (lookup 1010 + l2.latency), B at 1180 (tRRD);
     * A's columns at 1190..1202, B's at 1206 (tCCD after A's last), data ends 1242 */
    Got free = run("dram.queue=64");
    cr_expect_eq(free.waited, 0);
    cr_expect_eq(free.b, 1242 + 100 + 10 + 3);
    cr_expect_eq(free.c, 1175 + 160 + 10 + 3, "C: looked up when it arrives (1175)");
    /* room for one: B reaches the channel at 1171, finds A there, and waits; the slice
     * stops looking up. A leaves the queue with its last column command (1202): B
     * enters, and C, waiting since 1175, is looked up at 1202. B activates at 1203 and
     * reads at 1223..1235, data ending 1259. */
    Got full = run("dram.queue=1");
    cr_expect_eq(full.waited, 1);
    cr_expect_eq(full.a, free.a, "A is not affected");
    cr_expect_eq(full.b, 1259 + 100 + 10 + 3);
    /* C's response is ready at 1362, but B's (filled at 1359) holds the slice's
     * crossbar port for its four flits until 1362: C's first flit leaves at 1363 */
    cr_expect_eq(full.c, 1363 + 10 + 3);
}

/* The L2's input queue is bounded too: with l2.queue = 2, two requests in flight to the
 * one slice fill it, a third is refused (icnt.slice_full) until the slice has looked
 * one up (cycle 10: the crossbar's latency), and it is accepted the cycle after. */
Test(dram_backpressure, a_full_slice_refuses_the_sm)
{
    char err[256] = "";
    EmuConfig cfg = t_cfg(CFG ";l2.queue=2");
    TmCounters ctr = {0};
    MemSys *m = memsys_new(&cfg, &ctr, err, sizeof err);
    cr_assert(m, "%s", err);
    TmReq r = {.line = 0, .sectors = 0xf, .kind = TM_READ, .sm = 0};
    cr_expect_eq(memsys_send(m, &r, 0), 0);
    r.line = 128;
    cr_expect_eq(memsys_send(m, &r, 0), 0);
    memsys_tick(m, 0);
    r.line = 256;
    Cycle accepted = 0;
    for (Cycle now = 1; now < 100 && !accepted; now++) {
        if (memsys_send(m, &r, now) == 0)
            accepted = now;
        memsys_tick(m, now);
    }
    cr_expect_eq(accepted, 11);
    cr_expect_eq(ctr.icnt_slice_full, 10, "refused at cycles 1 to 10");
    memsys_free(m);
    cfg = t_cfg(CFG ";l2.queue=0");
    cr_expect_null(memsys_new(&cfg, &ctr, err, sizeof err));
    cr_expect(strstr(err, "l2.queue"), "%s", err);
}
