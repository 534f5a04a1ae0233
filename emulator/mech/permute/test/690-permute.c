/*
 * 690-permute: permutation-based bank interleaving (dram.mapping = permute;
 * emulator/mech/permute/). For every row its map is a permutation of the banks (distinct
 * lines stay apart); lines of one bank and different rows under the interleaving, read
 * one after another, meet no open row under the interleaving and never conflict under
 * the permutation; a stream within one row keeps its row hits; permute.shift and
 * dram.banks are checked.
 */
#include <criterion/criterion.h>
#include "500-mem-util.h"
#include "mech/mech.h"

/* One SM, one slice, one channel: the channel's lines are the device's, in order. */
#define ONE "gpu.sm_count=1;l2.slices=1;dram.channels=1;" T_SAME_CLOCKS

Test(permute, each_row_permutes_the_banks)
{
    EmuConfig c = t_cfg("dram.mapping=permute;permute.shift=2");
    void *st = tm_map_permute.init(&c);
    cr_assert(st);
    for (uint64_t row = 0; row < 64; row++) {
        uint32_t seen = 0;
        for (unsigned b = 0; b < c.dram_banks; b++) {
            unsigned bank = b;
            uint64_t r = row;
            tm_map_permute.map(st, 0, 0, 0, &bank, &r);
            cr_assert_eq(r, row, "the row is kept");
            cr_assert_lt(bank, c.dram_banks);
            cr_assert_eq(bank, b ^ (unsigned)((row >> 2) % c.dram_banks));
            seen |= 1u << bank;
        }
        cr_assert_eq(seen, (1u << c.dram_banks) - 1, "row %llu: every bank once",
                     (unsigned long long)row);
    }
    tm_map_permute.free(st);
}

/* Reads n lines stride bytes apart, one after another; returns the row conflicts. */
static uint64_t conflicts(const char *mapping, uint64_t stride, unsigned n, uint64_t *hits)
{
    char sets[256];
    snprintf(sets, sizeof sets, ONE ";dram.mapping=%s", mapping);
    TMem t;
    t_mem_open(&t, sets);
    for (unsigned i = 0; i < n; i++) {
        TmAccess a = t_line_read(XGPU_GLOBAL_BASE + i * stride);
        t_latency(&t, 0, &a, i + 1);
    }
    t_drain(&t);
    uint64_t k = t.ctr.dram_row_conflicts;
    *hits = t.ctr.dram_row_hits;
    t_mem_close(&t);
    return k;
}

Test(permute, same_bank_rows_spread_over_the_banks)
{
    EmuConfig c = t_cfg(ONE);
    uint64_t bank_stride = (uint64_t)c.dram_row_bytes * c.dram_banks, hits;
    /* rows 0..7 of bank 0 under the interleaving: each read closes the last one's row */
    cr_expect_eq(conflicts("interleave", bank_stride, 8, &hits), 7);
    /* the permutation sends row r to bank r: eight banks, no row closed */
    cr_expect_eq(conflicts("permute", bank_stride, 8, &hits), 0);
}

Test(permute, a_stream_keeps_its_row_hits)
{
    EmuConfig c = t_cfg(ONE);
    unsigned lines = c.dram_row_bytes / c.l1_line;
    uint64_t hits_il, hits_pm;
    conflicts("interleave", c.l1_line, lines, &hits_il);
    conflicts("permute", c.l1_line, lines, &hits_pm);
    cr_expect_gt(hits_il, 0);
    cr_expect_eq(hits_pm, hits_il, "one row's lines stay in one bank's row");
}

Test(permute, keys_are_checked)
{
    EmuConfig c;
    char err[256] = "";
    cr_expect_neq(emu_config_from(&c, NULL, "dram.mapping=permute;dram.banks=12", err,
                                  sizeof err), 0);
    cr_expect(strstr(err, "dram.banks"), "%s", err);
    cr_expect_neq(emu_config_from(&c, NULL, "permute.shift=64", err, sizeof err), 0);
    cr_expect(strstr(err, "permute.shift"), "%s", err);
    cr_expect_eq(emu_config_from(&c, NULL, "dram.banks=12", err, sizeof err), 0, "%s", err);
}
