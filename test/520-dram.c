/*
 * 520-dram.c - one DRAM channel driven directly, command by command: row hit, row miss
 * and row conflict timing exactly per dram.c's rules, FR-FCFS serving a younger row hit
 * before an older conflict (and FCFS not), a row hit served between two row misses to
 * other banks whose activates overlap it, tFAW, bank groups (tCCDL), the write queue
 * drained between its watermarks with tWTR/tRTW turnarounds, bounded queues, refresh,
 * bursts of more than one sector, another bank group's bursts between one request's,
 * back-to-back bursts at the data-bus rate, clock conversion, and the counters.
 * Clocks equal (T_SAME_CLOCKS); defaults: tRCD = tCL = tRP = 20, tRAS 50, tRC 62,
 * tRRD 10, tCCD = tCCDL = 4 (4 bank groups of 4 banks), WL 8, tWR 20, tRTP 4, tWTR 9,
 * tRTW 18, burst 4 cycles of 32 bytes, dram.latency 100.
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

/* Lets the channel issue commands until a request's column commands have issued. */
static DramDone pick(void)
{
    DramDone d;
    for (int i = 0; i < 16; i++) {
        cr_assert_neq(dram_next(&ch), TM_NEVER, "requests queued, but no decision due");
        if (dram_pick(&ch, &d))
            return d;
    }
    cr_assert_fail("no request served after 16 decisions");
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
    /* precharge at tRAS = 50 (> column 20 + tRTP); activate at max(50 + tRP, tRC 62) = 70 */
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
    /* B's precharge waits while C hits the open row: C's column at max(tCCD 24, bus
     * 44 - tCL = 24) = 24 -> data ends 48 */
    cr_expect_eq(c, 48 + 100);
    /* B: precharge at max(tRAS 50, 24 + tRTP) = 50, activate 70, column 90 */
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

/* Bank 0 has row 3 open; at 200 a miss to bank 1, a hit to bank 0 and a miss to bank 2
 * arrive in that order. The hit's column command goes first (200); the misses activate
 * at 201 and 211 (tRRD) while its data moves, and their columns follow at 221 and 231. */
Test(dram, row_hit_between_two_misses_to_other_banks)
{
    open_chan(T_SAME_CLOCKS);
    push(0, 3, 0x1, 0, 0);
    pick();
    push(1, 7, 0x1, 0, 200);
    push(0, 3, 0x1, 0, 200);
    push(2, 7, 0x1, 0, 200);
    DramDone a = pick(), b = pick(), c = pick();
    cr_expect_eq(a.req.bank, 0);
    cr_expect(a.row_hit);
    cr_expect_eq(a.col, 200);
    cr_expect_eq(a.at, 200 + 20 + 4 + 100);
    cr_expect_eq(b.req.bank, 1);
    cr_expect_eq(b.col, 201 + 20);
    cr_expect_eq(b.at, 221 + 20 + 4 + 100);
    cr_expect_eq(c.req.bank, 2);
    cr_expect_eq(c.col, 211 + 20);
    cr_expect_eq(c.at, 231 + 20 + 4 + 100);
    cr_expect_eq(ctr.dram_activates, 3);
    dram_free(&ch);
}

/* Five misses to five closed banks, tRRD 2: the fifth activate waits for the four-activate
 * window (at 0 + 40) with tFAW = 40, and goes at 8 without it. */
static Cycle fifth_column(const char *sets)
{
    open_chan(sets);
    for (unsigned b = 0; b < 5; b++)
        push(b, 1, 0x1, 0, 0);
    DramDone d = {0};
    for (unsigned i = 0; i < 5; i++)
        d = pick();
    cr_expect_eq(d.req.bank, 4);
    dram_free(&ch);
    return d.col;
}

Test(dram, four_activate_window)
{
    /* columns of banks 0-3 at 20, 24, 28, 32 (tCCD); bank 4: activate 40, column 60 */
    cr_expect_eq(fifth_column(T_SAME_CLOCKS ";dram.trrd=2;dram.tfaw=40"), 60);
    /* activate at 8, column ready 28, after bank 2's (28) and bank 3's (32): 36 */
    cr_expect_eq(fifth_column(T_SAME_CLOCKS ";dram.trrd=2;dram.tfaw=0"), 36);
}

/* Column commands to one bank group are tCCDL apart, to different groups tCCD. */
Test(dram, bank_groups_space_columns_by_tccdl)
{
    open_chan(T_SAME_CLOCKS ";dram.tccd=2;dram.tccdl=6;dram.burst_cycles=2");
    for (unsigned b = 0; b < 16; b += 4) /* one bank in each group, rows open */
        push(b, 1, 0x1, 0, 0), pick();
    push(0, 1, 0x1, 0, 0), pick();
    push(1, 1, 0x1, 0, 0), pick(); /* open bank 1 (group 0) too */
    push(0, 1, 0x1, 0, 500);
    push(1, 1, 0x1, 0, 500);
    push(4, 1, 0x1, 0, 500);
    DramDone a = pick(), b = pick(), c = pick();
    cr_expect_eq(a.col, 500);
    cr_expect_eq(b.req.bank, 4, "the other group's column is ready first");
    cr_expect_eq(b.col, 502, "other group: tCCD after bank 0's column");
    cr_expect_eq(c.req.bank, 1);
    cr_expect_eq(c.col, 506, "same group: tCCDL after bank 0's column");
    dram_free(&ch);
}

/* W1-W3 (bank 5) and R1 (bank 0) arrive together; returns the order served ("WWRW" or
 * "RWWW") with R1's completion and the last write's column. */
static const char *drain_order(const char *sets, Cycle *r_at, uint64_t *w3_col)
{
    static char buf[5];
    open_chan(sets);
    push(5, 1, 0x1, 1, 0);
    push(5, 1, 0x1, 1, 0);
    push(5, 1, 0x1, 1, 0);
    push(0, 0, 0x1, 0, 0);
    for (int i = 0; i < 4; i++) {
        DramDone d = pick();
        buf[i] = d.req.write ? 'W' : 'R';
        if (!d.req.write)
            *r_at = d.at;
        else
            *w3_col = d.col;
    }
    dram_free(&ch);
    return buf;
}

Test(dram, write_queue_drains_between_watermarks)
{
    Cycle r;
    uint64_t w;
    /* three writes reach the high mark: W1 (activate 0, column 20) and W2 (column 24,
     * data ends 36) drain to the low mark; R1 activates at 25, reads at 36 + tWTR = 45;
     * W3 then writes at 45 + tRTW = 63 */
    cr_expect_str_eq(drain_order(T_SAME_CLOCKS ";dram.write_queue=4;dram.write_high=3;"
                                 "dram.write_low=1", &r, &w), "WWRW");
    cr_expect_eq(r, 45 + 20 + 4 + 100);
    cr_expect_eq(w, 63);
    /* below the high mark reads go first, and writes when no read waits */
    cr_expect_str_eq(drain_order(T_SAME_CLOCKS ";dram.write_queue=4;dram.write_high=4;"
                                 "dram.write_low=1", &r, &w), "RWWW");
    cr_expect_eq(r, 20 + 20 + 4 + 100);
}

Test(dram, bounded_queues_refuse_when_full)
{
    open_chan(T_SAME_CLOCKS ";dram.queue=2;dram.write_queue=1;dram.write_high=1;"
              "dram.write_low=0");
    DramReq r = {.bank = 0, .row = 1, .sectors = 0x1};
    cr_expect_eq(dram_push(&ch, &r, 0), 0);
    cr_expect_eq(dram_push(&ch, &r, 0), 0);
    cr_expect(dram_full(&ch, 0));
    cr_expect_eq(dram_push(&ch, &r, 0), -1, "a third read finds the queue full");
    cr_expect(!dram_full(&ch, 1));
    r.write = 1;
    cr_expect_eq(dram_push(&ch, &r, 0), 0);
    cr_expect_eq(dram_push(&ch, &r, 0), -1);
    r.write = 0;
    cr_expect(pick().req.write, "one write reaches the high mark: it drains first");
    cr_expect(dram_full(&ch, 0));
    cr_expect(!pick().req.write);
    cr_expect_eq(dram_push(&ch, &r, 60), 0, "a read served: room again");
    dram_free(&ch);
}

Test(dram, refresh_closes_rows_and_blocks_its_window)
{
    open_chan(T_SAME_CLOCKS ";dram.trefi=300;dram.trfc=30");
    push(0, 1, 0x1, 0, 0);
    cr_expect_eq(pick().col, 20);
    push(0, 1, 0x1, 0, 300); /* would hit, but the refresh at 300 closed the row */
    DramDone d = pick();
    cr_expect(!d.row_hit);
    cr_expect_eq(d.col, 330 + 20, "activate when the window [300, 330) ends");
    push(0, 1, 0x1, 0, 650);
    cr_expect(!pick().row_hit, "the refresh at 600 closed it again");
    cr_expect_eq(ctr.dram_refreshes, 2);
    dram_free(&ch);
}

Test(dram, wide_bursts_cover_sector_pairs)
{
    open_chan(T_SAME_CLOCKS ";dram.burst_bytes=64;dram.burst_cycles=2;dram.tccd=2;"
              "dram.tccdl=3");
    push(0, 1, 0xf, 0, 0);
    DramDone d = pick();
    /* two bursts tCCDL = 3 apart: columns 20 and 23, data ends 23 + 20 + 2 */
    cr_expect_eq(d.at, 45 + 100);
    cr_expect_eq(ctr.dram_bursts, 2);
    push(0, 1, 0x5, 0, 100); /* sectors 0 and 2: two bursts */
    push(0, 1, 0x3, 0, 100); /* sectors 0 and 1: one */
    pick(), pick();
    cr_expect_eq(ctr.dram_bursts, 5);
    cr_expect_eq(ctr.dram_bytes, 5 * 64);
    dram_free(&ch);
}

Test(dram, bad_timing_keys_are_errors_naming_them)
{
    char err[256] = "";
    EmuConfig c = t_cfg("dram.bank_groups=3");
    cr_expect_eq(dram_init(&ch, &c, &ctr, err, sizeof err), -1);
    cr_expect(strstr(err, "dram.bank_groups"), "%s", err);
    c = t_cfg("dram.write_high=80");
    cr_expect_eq(dram_init(&ch, &c, &ctr, err, sizeof err), -1);
    cr_expect(strstr(err, "dram.write_high"), "%s", err);
    c = t_cfg("dram.trefi=100;dram.trfc=30");
    cr_expect_eq(dram_init(&ch, &c, &ctr, err, sizeof err), -1, "no room between refreshes");
    cr_expect(strstr(err, "dram.trefi"), "%s", err);
    c = t_cfg("dram.burst_bytes=48");
    cr_expect_eq(dram_init(&ch, &c, &ctr, err, sizeof err), -1);
    cr_expect(strstr(err, "dram.burst_bytes"), "%s", err);
}

/* Bursts are separate column commands: with tCCDL (3) > tCCD (2) = a burst's cycles, a
 * request in another bank group goes between the two bursts of one, and the bus stays
 * full: A (bank 0) at 500 and 504, B (bank 4, another group) at 502 and 506. */
Test(dram, other_groups_bursts_fill_the_gaps)
{
    open_chan(T_SAME_CLOCKS ";dram.burst_bytes=64;dram.burst_cycles=2;dram.tccd=2;"
              "dram.tccdl=3");
    push(0, 1, 0x1, 0, 0), pick();
    push(4, 1, 0x1, 0, 0), pick();
    push(0, 1, 0xf, 0, 500);
    push(4, 1, 0xf, 0, 500);
    DramDone a = pick(), b = pick();
    cr_expect_eq(a.req.bank, 0);
    cr_expect_eq(a.col, 500);
    cr_expect_eq(a.at, 504 + 20 + 2 + 100);
    cr_expect_eq(b.col, 502);
    cr_expect_eq(b.at, 506 + 20 + 2 + 100);
    dram_free(&ch);
}
