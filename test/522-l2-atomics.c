/*
 * 522-l2-atomics.c - atomics at the L2 slices' atomic units: the coalescer's count of
 * each line request's operations (lanes, distinct addresses, the most lanes on one
 * address), and the slice's timing of them. Operations on one address are performed one
 * after the other (l2.atomic_latency apart), the unit performs at most
 * l2.atomic_per_cycle operations a cycle, a later atomic to the slice waits for the unit
 * while reads go on, and an atomic that missed is performed when its line comes back.
 * Exact cycles, at the slice itself and through an SM's LD/ST unit.
 */
#include "500-mem-util.h"
#include "timing/coalescer.h"
#include "timing/l2.h"

static TmReq req[COAL_MAX];

static unsigned split(const TmAccess *a)
{
    return coal_split(a, 0, 128, 32, req);
}

static void expect_ops(const TmReq *r, unsigned lanes, unsigned addrs, unsigned serial)
{
    CoalAtomic c = coal_atomic_ops(r);
    cr_expect_eq(c.lanes, lanes, "lanes %u, expected %u", c.lanes, lanes);
    cr_expect_eq(c.addrs, addrs, "addresses %u, expected %u", c.addrs, addrs);
    cr_expect_eq(c.serial, serial, "serial %u, expected %u", c.serial, serial);
}

Test(coalescer_atomics, one_address_is_32_serial_operations)
{
    TmAccess a = t_acc(TM_GLOBAL, TM_ATOMIC, 4, 0x4008, 0);
    cr_assert_eq(split(&a), 1);
    expect_ops(&req[0], 32, 1, 32);
    a.mask = 0x80001111u; /* five lanes */
    cr_assert_eq(split(&a), 1);
    expect_ops(&req[0], 5, 1, 5);
}

Test(coalescer_atomics, distinct_words_of_a_line_are_one_serial_operation)
{
    TmAccess a = t_acc(TM_GLOBAL, TM_ATOMIC, 4, 0x4000, 4);
    cr_assert_eq(split(&a), 1);
    expect_ops(&req[0], 32, 32, 1);
    a = t_acc(TM_GLOBAL, TM_ATOMIC, 8, 0x4000, 8); /* 8-byte atomics: two lines */
    cr_assert_eq(split(&a), 2);
    expect_ops(&req[0], 16, 16, 1);
    expect_ops(&req[1], 16, 16, 1);
}

Test(coalescer_atomics, mixed_patterns_count_the_most_lanes_on_one_address)
{
    TmAccess a = t_acc(TM_GLOBAL, TM_ATOMIC, 4, 0x4000, 0);
    for (unsigned l = 16; l < 32; l++)
        a.addr[l] = 0x4040; /* lanes 0-15 on A, 16-31 on B, one line */
    cr_assert_eq(split(&a), 1);
    expect_ops(&req[0], 32, 2, 16);

    /* lanes 0-9 on one word of line X; lanes 10-31 in line Y: 7 lanes on one word, the
     * rest on their own words */
    for (unsigned l = 0; l < 32; l++)
        a.addr[l] = l < 10 ? 0x8000 : l < 17 ? 0x9010 : 0x9000 + 4 * (l - 17 + 8);
    cr_assert_eq(split(&a), 2);
    cr_expect_eq(req[0].line, 0x8000);
    cr_expect_eq(req[1].line, 0x9000);
    expect_ops(&req[0], 10, 1, 10);
    expect_ops(&req[1], 22, 16, 7);

    a.mask = 0x0000ff00u; /* lanes 8-9 in X, 10-15 on the one word of Y */
    cr_assert_eq(split(&a), 2);
    expect_ops(&req[0], 2, 1, 2);
    expect_ops(&req[1], 6, 1, 6);
}

Test(coalescer_atomics, reads_and_writes_carry_no_count)
{
    TmAccess a = t_acc(TM_GLOBAL, TM_READ, 4, 0x4000, 0);
    cr_assert_eq(split(&a), 1);
    cr_expect_eq(req[0].meta, 0);
    a.kind = TM_WRITE;
    cr_assert_eq(split(&a), 1);
    cr_expect_eq(req[0].meta, 0);
    /* a request with no count is one operation */
    expect_ops(&(TmReq){.kind = TM_ATOMIC}, 1, 1, 1);
}

/* --- one slice, driven directly --- */

typedef struct TSlice {
    EmuConfig cfg;
    TmCounters ctr;
    L2Slice s;
} TSlice;

static void open_slice(TSlice *t, const char *sets)
{
    char err[256] = "";
    memset(t, 0, sizeof *t);
    t->cfg = t_cfg(sets);
    cr_assert_eq(l2_init(&t->s, &t->cfg, 0, &t->ctr, err, sizeof err), 0, "%s", err);
}

static TmReq atomic(uint64_t line, unsigned lanes, unsigned addrs, unsigned serial)
{
    return (TmReq){.line = line, .sectors = 0x1, .kind = TM_ATOMIC,
                   .meta = coal_atomic_pack((CoalAtomic){lanes, addrs, serial})};
}

/* Writes the whole line, so that an atomic to it hits. */
static void warm(TSlice *t, uint64_t line, Cycle at)
{
    L2Act act[3];
    TmReq w = {.line = line, .sectors = 0xf, .kind = TM_WRITE};
    cr_assert_geq(l2_access(&t->s, &w, at, act), 0);
}

/* Looks r up at cycle at: the cycle its response leaves the slice. */
static Cycle respond_at(TSlice *t, TmReq r, Cycle at)
{
    L2Act act[3];
    int n = l2_access(&t->s, &r, at, act);
    for (int i = 0; i < n; i++)
        if (act[i].kind == L2_RESPOND)
            return act[i].at;
    cr_assert_fail("no response at the lookup (%d actions)", n);
    return 0;
}

Test(l2_atomics, one_address_takes_32_serialized_operations)
{
    TSlice t;
    open_slice(&t, "l2.latency=100;l2.atomic_latency=4;l2.atomic_per_cycle=32");
    warm(&t, 0x1000, 0);
    cr_expect_eq(respond_at(&t, atomic(0x1000, 1, 1, 1), 10), 10 + 100);
    /* 32 lanes on one address: 31 operations after the first, 4 cycles each */
    cr_expect_eq(respond_at(&t, atomic(0x1000, 32, 1, 32), 1000), 1000 + 100 + 31 * 4);
    /* lanes 0-15 on A, 16-31 on B: 16 serialized operations */
    cr_expect_eq(respond_at(&t, atomic(0x1000, 32, 2, 16), 2000), 2000 + 100 + 15 * 4);
    l2_free(&t.s);
}

Test(l2_atomics, distinct_addresses_take_the_units_throughput)
{
    TSlice t;
    open_slice(&t, "l2.latency=100;l2.atomic_latency=1;l2.atomic_per_cycle=8");
    warm(&t, 0x1000, 0);
    /* 32 distinct words: 4 cycles at 8 a cycle, 3 more than a lone operation */
    cr_expect_eq(respond_at(&t, atomic(0x1000, 32, 32, 1), 10), 10 + 100 + 3);
    /* 32 lanes on one address: serialization, not throughput, bounds it */
    cr_expect_eq(respond_at(&t, atomic(0x1000, 32, 1, 32), 1000), 1000 + 100 + 31);
    l2_free(&t.s);

    open_slice(&t, "l2.latency=100;l2.atomic_latency=1;l2.atomic_per_cycle=32");
    warm(&t, 0x1000, 0);
    cr_expect_eq(respond_at(&t, atomic(0x1000, 32, 32, 1), 10), 10 + 100);
    l2_free(&t.s);
}

Test(l2_atomics, a_later_atomic_waits_for_the_unit_and_reads_do_not)
{
    TSlice t;
    open_slice(&t, "l2.latency=100;l2.atomic_latency=2;l2.atomic_per_cycle=32");
    warm(&t, 0x1000, 0);
    warm(&t, 0x2000, 1);
    /* 8 operations on one address hold the unit over cycles 10 .. 25 */
    cr_expect_eq(respond_at(&t, atomic(0x1000, 8, 1, 8), 10), 10 + 14 + 100);
    /* a lone atomic to another line at 11 starts when the unit frees, at 26 */
    cr_expect_eq(respond_at(&t, atomic(0x2000, 1, 1, 1), 11), 26 + 100);
    /* a read at 12 does not wait */
    TmReq rd = {.line = 0x2000, .sectors = 0x1, .kind = TM_READ};
    cr_expect_eq(respond_at(&t, rd, 12), 12 + 100);
    /* the next atomic queues behind both: free at 28 */
    cr_expect_eq(respond_at(&t, atomic(0x1000, 2, 1, 2), 13), 28 + 2 + 100);
    /* long after, the unit is free again */
    cr_expect_eq(respond_at(&t, atomic(0x1000, 1, 1, 1), 500), 500 + 100);
    l2_free(&t.s);
}

Test(l2_atomics, a_missed_atomic_is_performed_when_its_line_comes)
{
    TSlice t;
    open_slice(&t, "l2.latency=100;l2.atomic_latency=3;l2.atomic_per_cycle=32");
    L2Act act[3];
    TmReq a = atomic(0x3000, 32, 1, 32);
    cr_assert_eq(l2_access(&t.s, &a, 10, act), 1);
    cr_expect_eq(act[0].kind, L2_DRAM_READ);
    /* meanwhile a hit's atomic holds the unit from 20 to 20 + 3 x 10 */
    warm(&t, 0x1000, 15);
    cr_expect_eq(respond_at(&t, atomic(0x1000, 10, 1, 10), 20), 20 + 27 + 100);
    TmReq out[8];
    cr_assert_eq(l2_fill(&t.s, 0x3000, 0x1, out, 30), 1);
    cr_expect_eq(out[0].kind, TM_ATOMIC);
    /* starts when the unit frees (50): 32 operations, 31 x 3 after a lone one */
    cr_expect_eq(l2_fill_at(&t.s, 0), 50 + 31 * 3);
    l2_free(&t.s);
}

Test(l2_atomics, a_new_launch_finds_the_unit_free)
{
    TSlice t;
    open_slice(&t, "l2.latency=100;l2.atomic_latency=4;l2.atomic_per_cycle=32");
    warm(&t, 0x1000, 0);
    cr_expect_eq(respond_at(&t, atomic(0x1000, 32, 1, 32), 1000), 1000 + 100 + 124);
    l2_next_launch(&t.s); /* the clock restarts at 0 */
    cr_expect_eq(respond_at(&t, atomic(0x1000, 1, 1, 1), 5), 5 + 100);
    cr_expect_eq(respond_at(&t, atomic(0x1000, 32, 1, 32), 2000), 2000 + 100 + 124);
    /* and a clock that went back without it is taken as a new launch too */
    cr_expect_eq(respond_at(&t, atomic(0x1000, 1, 1, 1), 7), 7 + 100);
    l2_free(&t.s);
}

Test(l2_atomics, zero_turns_each_limit_off)
{
    TSlice t;
    open_slice(&t, "l2.latency=100;l2.atomic_latency=0;l2.atomic_per_cycle=4");
    warm(&t, 0x1000, 0);
    /* not serialized: 32 operations at 4 a cycle, 8 cycles, 7 beyond a lone one */
    cr_expect_eq(respond_at(&t, atomic(0x1000, 32, 1, 32), 10), 10 + 7 + 100);
    cr_expect_eq(respond_at(&t, atomic(0x1000, 1, 1, 1), 11), 18 + 100);
    l2_free(&t.s);

    open_slice(&t, "l2.latency=100;l2.atomic_latency=2;l2.atomic_per_cycle=0");
    warm(&t, 0x1000, 0);
    cr_expect_eq(respond_at(&t, atomic(0x1000, 32, 32, 1), 10), 10 + 100);
    cr_expect_eq(respond_at(&t, atomic(0x1000, 32, 4, 8), 11), 12 + 14 + 100);
    l2_free(&t.s);

    open_slice(&t, "l2.latency=100;l2.atomic_latency=0;l2.atomic_per_cycle=0");
    warm(&t, 0x1000, 0);
    cr_expect_eq(respond_at(&t, atomic(0x1000, 32, 1, 32), 10), 10 + 100);
    cr_expect_eq(respond_at(&t, atomic(0x1000, 32, 1, 32), 10), 10 + 100);
    l2_free(&t.s);
}

/* --- through an SM: the count survives the L1 and the crossbar --- */

/* The latency of atomic a of SM 0, its line already in the L2. */
static Cycle atomic_latency(const char *sets, const TmAccess *a)
{
    TMem t;
    t_mem_open(&t, sets);
    TmAccess warm_read = t_line_read(a->addr[0] & ~127ull);
    t_latency(&t, 0, &warm_read, 1);
    t_drain(&t);
    Cycle lat = t_latency(&t, 0, a, 2);
    t_drain(&t);
    t_mem_close(&t);
    return lat;
}

Test(l2_atomics, sm_sees_serialization_and_throughput)
{
    const char *cfg = T_SAME_CLOCKS ";l2.atomic_latency=4;l2.atomic_per_cycle=8";
    uint64_t base = XGPU_GLOBAL_BASE + 0x10000;
    TmAccess one = t_acc(TM_GLOBAL, TM_ATOMIC, 4, base, 0);
    one.mask = 1;
    TmAccess same = t_acc(TM_GLOBAL, TM_ATOMIC, 4, base, 0);
    TmAccess two = same;
    for (unsigned l = 16; l < 32; l++)
        two.addr[l] = base + 64; /* another sector: one more flit on the crossbar */
    TmAccess eight = t_acc(TM_GLOBAL, TM_ATOMIC, 4, base, 0);
    for (unsigned l = 0; l < 32; l++)
        eight.addr[l] = base + 4 * (l % 8); /* 8 words of one sector, 4 lanes each */
    Cycle lone = atomic_latency(cfg, &one);
    cr_expect_eq(atomic_latency(cfg, &same), lone + 31 * 4);
    /* 8 addresses, 4 lanes each: max(4 x 4, 32 / 8) = 16 cycles, 12 after a lone one */
    cr_expect_eq(atomic_latency(cfg, &eight), lone + 12);
    /* 16 on each of two addresses in two sectors: 15 x 4 more, and the second sector's
     * flit each way */
    cr_expect_eq(atomic_latency(cfg, &two), lone + 15 * 4 + 2);
}
