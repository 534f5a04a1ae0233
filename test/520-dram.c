/*
 * 520-dram.c - one DRAM channel driven directly: row hit, row miss and row conflict
 * timing exactly per dram.c's formulas, FR-FCFS serving a younger row hit before an
 * older conflict (and FCFS not), back-to-back bursts at the data-bus rate, clock
 * conversion, and the counters.
 * Clocks equal (T_SAME_CLOCKS); tRCD = tCL = tRP = 20, tRAS 50, tRC 62, tRRD 10,
 * tCCD 4, burst 4, dram.latency 100 (the defaults).
 */
#include "500-mem-util.h"
#include "timing/dram.h"

static DramChan ch;
static TmCounters ctr;

static void open_chan(const char *sets)
{
    char err[256] = "";
    EmuConfig c = t_cfg(sets);
    memset(&ctr, 0, sizeof ctr);
    cr_assert_eq(dram_init(&ch, &c, &ctr, err, sizeof err), 0, "%s", err);
}

static void push(unsigned bank, uint64_t row, uint8_t sectors, int write, Cycle now)
{
    DramReq r = {.line = row * 1000 + bank, .row = row, .bank = bank, .sectors = sectors,
                 .write = (uint8_t)write};
    cr_assert_eq(dram_push(&ch, &r, now), 0);
}

static DramDone pick(void)
{
    DramDone d;
    cr_assert_eq(dram_pick(&ch, &d), 1);
    return d;
}

Test(dram, row_miss_hit_and_conflict_timing)
{
    open_chan(T_SAME_CLOCKS);
    push(0, 5, 0x1, 0, 0);
    cr_expect_eq(dram_next(&ch), 0);
    DramDone d = pick();
    cr_expect_eq(d.at, 0 + 20 + 20 + 4 + 100, "row miss: tRCD + tCL + burst");
    cr_expect(!d.row_hit && !d.row_conflict);
    push(0, 5, 0x1, 0, 100);
    cr_expect_eq(dram_next(&ch), 100);
    d = pick();
    cr_expect_eq(d.at, 100 + 20 + 4 + 100, "row hit: tCL + burst");
    cr_expect(d.row_hit);
    push(0, 6, 0x1, 0, 200);
    d = pick();
    cr_expect_eq(d.at, 200 + 20 + 20 + 20 + 4 + 100, "conflict: tRP + tRCD + tCL + burst");
    cr_expect(d.row_conflict);
    cr_expect_eq(ctr.dram_reads, 3);
    cr_expect_eq(ctr.dram_row_hits, 1);
    cr_expect_eq(ctr.dram_row_misses, 2);
    cr_expect_eq(ctr.dram_row_conflicts, 1);
    cr_expect_eq(ctr.dram_bytes, 3 * 32);
    dram_free(&ch);
}

Test(dram, conflict_waits_for_tras_and_trc)
{
    open_chan(T_SAME_CLOCKS);
    push(0, 1, 0x1, 0, 0);   /* activate at 0 */
    pick();
    push(0, 2, 0x1, 0, 1);   /* precharge no earlier than tRAS = 50 */
    DramDone d = pick();
    /* T = 20 (next decision after the first column command); p = 50, a = max(70, tRC 62) */
    cr_expect_eq(d.col, 50 + 20 + 20);
    cr_expect_eq(d.at, 90 + 20 + 4 + 100);
    dram_free(&ch);
}

Test(dram, writes_use_write_latency_and_recovery)
{
    open_chan(T_SAME_CLOCKS);
    push(3, 7, 0xf, 1, 0);
    DramDone d = pick();
    cr_expect_eq(d.col, 20);
    cr_expect_eq(d.at, 20 + 8 + 16, "writes: WL + bursts, no read latency");
    push(3, 8, 0x1, 0, 100); /* precharge after write recovery: 44 + tWR = 64 < 100 */
    d = pick();
    cr_expect_eq(d.col, 100 + 20 + 20);
    cr_expect_eq(ctr.dram_writes, 1);
    cr_expect_eq(ctr.dram_bytes, 5 * 32);
    dram_free(&ch);
}

/* A opens row 0 of bank 0; B (row 1, conflict) and C (row 0, hit) arrive while A is in
 * service. Returns the order they were served in, as "BC" or "CB". */
static const char *order(const char *sched, Cycle *b_at, Cycle *c_at)
{
    static char buf[3];
    open_chan(sched ? sched : T_SAME_CLOCKS ";dram.scheduler=fr-fcfs");
    push(0, 0, 0x1, 0, 0);
    pick();
    push(0, 1, 0x1, 0, 1); /* B */
    push(0, 0, 0x1, 0, 2); /* C */
    for (int i = 0; i < 2; i++) {
        DramDone d = pick();
        buf[i] = d.req.row == 1 ? 'B' : 'C';
        *(d.req.row == 1 ? b_at : c_at) = d.at;
    }
    dram_free(&ch);
    return buf;
}

Test(dram, fr_fcfs_serves_a_younger_row_hit_first)
{
    Cycle b, c;
    cr_expect_str_eq(order(NULL, &b, &c), "CB");
    /* C at T = 20: col = max(20, tCCD 24, bus 44 - tCL = 24) = 24 -> data ends 48 */
    cr_expect_eq(c, 48 + 100);
    /* B at 24: precharge at max(tRAS 50, 48) = 50, activate 70, column 90 */
    cr_expect_eq(b, 90 + 20 + 4 + 100);
    cr_expect_str_eq(order(T_SAME_CLOCKS ";dram.scheduler=fcfs", &b, &c), "BC");
    cr_expect_lt(b, c);
}

Test(dram, back_to_back_bursts_stream_at_bus_rate)
{
    open_chan(T_SAME_CLOCKS);
    push(2, 9, 0x1, 0, 0); /* open the row */
    pick();
    const unsigned n = 8;
    for (unsigned i = 0; i < n; i++)
        push(2, 9, 0x1, 0, 100);
    Cycle first = 0, last = 0;
    for (unsigned i = 0; i < n; i++) {
        DramDone d = pick();
        if (i == 0)
            first = d.at;
        last = d.at;
    }
    cr_expect_eq(first, 100 + 20 + 4 + 100);
    cr_expect_eq(last - (first - 4), n * 4, "n bursts occupy the bus n x burst cycles");
    push(2, 9, 0xf, 0, 1000); /* one request, 4 bursts */
    cr_expect_eq(pick().at, 1000 + 20 + 16 + 100);
    dram_free(&ch);
}

Test(dram, clock_conversion_rounds_up)
{
    open_chan("gpu.clock_khz=1365000;dram.clock_khz=3500000");
    cr_expect_eq(dram_cycle(&ch, 1365), 3500);
    cr_expect_eq(dram_core(&ch, 3500), 1365);
    cr_expect_eq(dram_cycle(&ch, 1), 3);
    cr_expect_eq(dram_core(&ch, 1), 1);
    push(0, 0, 0x1, 0, 0);
    /* 20 + 20 + 4 = 44 DRAM cycles = 17.2 core cycles -> 18, + 100 */
    cr_expect_eq(pick().at, 18 + 100);
    dram_free(&ch);
}

Test(dram, bad_scheduler_is_an_error_naming_the_key)
{
    char err[256] = "";
    EmuConfig c = t_cfg("dram.scheduler=open-page");
    cr_expect_eq(dram_init(&ch, &c, &ctr, err, sizeof err), -1);
    cr_expect(strstr(err, "dram.scheduler"), "%s", err);
}
