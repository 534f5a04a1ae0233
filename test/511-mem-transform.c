/*
 * 511-mem-transform.c - the memory-side transform slot (mem.transform) at the DRAM
 * channels, through the LD/ST unit and the real memory system, with a device memory the
 * test makes up (memsys_set_reader). Under `zero` a cold read miss of a whole line moves
 * one DRAM burst per sector that is not all zero (at least one), so its latency drops by
 * exactly the bursts saved (the crossbar still carries every sector); a line that cannot
 * be read, or the baseline `none`, moves every sector. Counters: dram.bursts_saved,
 * dram.bytes.
 */
#include "500-mem-util.h"

#define CFG T_SAME_CLOCKS

/* The made-up memory: every line reads as `line`, or cannot be read when !ok. */
typedef struct Fake {
    uint8_t line[128];
    int ok, calls;
} Fake;

static int fake_read(void *ctx, uint64_t addr, uint8_t *buf, unsigned n)
{
    Fake *f = ctx;
    (void)addr;
    f->calls++;
    if (!f->ok || n > sizeof f->line)
        return -1;
    memcpy(buf, f->line, n);
    return 0;
}

/* The latency of one cold whole-line read with memory f under settings set. */
static Cycle cold_read(const char *set, Fake *f, TMem *t)
{
    t_mem_open(t, set);
    memsys_set_reader(t->m, fake_read, f);
    TmAccess a = t_line_read(0x10000);
    return t_latency(t, 0, &a, 1);
}

Test(transform, zero_sectors_move_no_burst)
{
    TMem t;
    Fake f = {.ok = 1}; /* all zero */
    EmuConfig c = t_cfg(CFG);
    Cycle full = t_miss_latency(&c, 4, 0);
    cr_expect_eq(cold_read(CFG ";mem.transform=zero", &f, &t), full - 3 * t.cfg.dram_burst_cycles,
                 "an all-zero line moves one burst");
    cr_expect_eq(t.ctr.dram_bursts_saved, 3);
    cr_expect_eq(t.ctr.dram_bytes, t.cfg.dram_burst_bytes);
    cr_expect_gt(f.calls, 0);
    t_mem_close(&t);

    f.line[5] = 1, f.line[64 + 31] = 7; /* sectors 0 and 2 hold data */
    cr_expect_eq(cold_read(CFG ";mem.transform=zero", &f, &t), full - 2 * t.cfg.dram_burst_cycles);
    cr_expect_eq(t.ctr.dram_bursts_saved, 2);
    cr_expect_eq(t.ctr.dram_bytes, 2 * t.cfg.dram_burst_bytes);
    t_mem_close(&t);
}

Test(transform, unreadable_lines_and_the_baseline_move_every_sector)
{
    TMem t;
    Fake f = {.ok = 0};
    EmuConfig c = t_cfg(CFG);
    Cycle full = t_miss_latency(&c, 4, 0);
    cr_expect_eq(cold_read(CFG ";mem.transform=zero", &f, &t), full);
    cr_expect_eq(t.ctr.dram_bursts_saved, 0);
    t_mem_close(&t);
    f.ok = 1, f.calls = 0;
    cr_expect_eq(cold_read(CFG, &f, &t), full, "none: zero lines move as they are");
    cr_expect_eq(t.ctr.dram_bursts_saved, 0);
    cr_expect_eq(t.ctr.dram_bytes, 4 * t.cfg.dram_burst_bytes);
    cr_expect_eq(f.calls, 0, "the baseline never reads memory");
    t_mem_close(&t);
}
