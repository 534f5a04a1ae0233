/*
 * 410-rf-bank-conflicts.c - register-file banks: two sources in the same bank are read
 * in two cycles (the instruction's result comes one cycle later), sources in different
 * banks in one; a write-back takes its bank for the cycle and a read of that bank waits.
 * Register r is in bank r mod 2 (rf.banks_per_subcore = 2).
 */
#include "400-timing-util.h"

static uint64_t conflicts(const char *set, const char *body, uint32_t *span)
{
    char src[4096];
    TmRun r;
    tm_run(&r, set, tm_clocked(src, sizeof src, body), DIM(1, 1, 1), DIM(1, 1, 1), 2);
    cr_assert_eq(r.status, EMU_OK, "%s", r.fault.message);
    *span = r.out[1] - r.out[0];
    uint64_t c = tm_ctr(&r, "rf.bank_conflicts");
    tm_done(&r);
    return c;
}

Test(rf, same_bank_sources_serialize_by_one_cycle)
{
    uint32_t diff, same;
    uint64_t cd = conflicts(TM_BASE, "  add.u32 r2, r3, r4\n  add.u32 r5, r2, 1\n", &diff);
    uint64_t cs = conflicts(TM_BASE, "  add.u32 r2, r3, r7\n  add.u32 r5, r2, 1\n", &same);
    cr_expect_eq(diff, 6, "r3, r4 (banks 1, 0): %u", diff);
    cr_expect_eq(same, 7, "r3, r7 (both bank 1): %u", same);
    cr_expect_eq(cs, cd + 1, "conflicts %llu vs %llu", (unsigned long long)cs,
                 (unsigned long long)cd);
}

Test(rf, more_banks_remove_the_conflict)
{
    uint32_t span;
    conflicts(TM_BASE "rf.banks_per_subcore=4", "  add.u32 r2, r3, r7\n  add.u32 r5, r2, 1\n",
              &span);
    /* r3 and r7 are still one bank (3) of 4: r3 and r5 are not */
    cr_expect_eq(span, 7, "%u", span);
    conflicts(TM_BASE "rf.banks_per_subcore=4", "  add.u32 r2, r3, r5\n  add.u32 r5, r2, 1\n",
              &span);
    cr_expect_eq(span, 6, "%u", span);
}

Test(rf, write_back_wins_over_a_read)
{
    /* the first clock read (r0, bank 0) writes back 4 cycles after it issues; the third
     * add issues 3 cycles after it and reads r4 (bank 0) in that cycle: one cycle late.
     * The adds before it write odd registers (bank 1). */
    uint32_t quiet, hit;
    conflicts(TM_BASE, "  add.u32 r5, r3, 1\n  add.u32 r11, r7, 1\n  add.u32 r8, r9, 1\n"
                       "  add.u32 r10, r8, 1\n", &quiet);
    conflicts(TM_BASE, "  add.u32 r5, r3, 1\n  add.u32 r11, r7, 1\n  add.u32 r8, r4, 1\n"
                       "  add.u32 r10, r8, 1\n", &hit);
    cr_expect_eq(quiet, 8, "%u", quiet);
    cr_expect_eq(hit, 9, "%u", hit);
}

Test(rf, reads_and_writes_are_counted)
{
    char src[4096];
    TmRun r;
    tm_run(&r, TM_BASE, tm_clocked(src, sizeof src, "  add.u32 r2, r3, r4\n"), DIM(1, 1, 1),
           DIM(1, 1, 1), 2);
    cr_assert_eq(r.status, EMU_OK);
    /* reads: add rz (r40, r31), add (r3, r4), 2 stores (r40, r41 and the value), and
     * ld.param's address is RZ: 2 + 2 + 3 + 3 = 10; writes: 10 movs/ld words + 2 clocks +
     * add = ld (2) + 9 movs + 2 + 1 */
    cr_expect_eq(tm_ctr(&r, "rf.bank_reads"), 10);
    cr_expect_eq(tm_ctr(&r, "rf.bank_writes"), 2 + 9 + 2 + 1);
    tm_done(&r);
}
