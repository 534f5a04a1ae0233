/*
 * 510-smem-banks.c - shared-memory bank conflicts: conflict-free, 2-way, 32-way,
 * broadcast, 8-byte accesses, and the exact completion cycle and bank occupancy through
 * the LD/ST unit (latency + k - 1, next access refused for k cycles).
 */
#include "500-mem-util.h"
#include "timing/smem.h"

static SmemCost cost(unsigned size, uint64_t base, uint64_t stride)
{
    TmAccess a = t_acc(TM_SHARED, TM_READ, size, base, stride);
    return smem_cost(&a, 32, 4);
}

Test(smem, unit_stride_is_conflict_free)
{
    SmemCost c = cost(4, 0, 4);
    cr_expect_eq(c.cycles, 1);
    cr_expect_eq(c.conflicts, 0);
}

Test(smem, stride_two_words_is_two_way)
{
    SmemCost c = cost(4, 0, 8);
    cr_expect_eq(c.cycles, 2);
    cr_expect_eq(c.conflicts, 1);
}

Test(smem, stride_32_words_is_32_way)
{
    SmemCost c = cost(4, 0, 128);
    cr_expect_eq(c.cycles, 32);
    cr_expect_eq(c.conflicts, 31);
}

Test(smem, odd_stride_is_conflict_free)
{
    SmemCost c = cost(4, 0, 33 * 4);
    cr_expect_eq(c.cycles, 1);
}

Test(smem, same_word_broadcasts)
{
    SmemCost c = cost(4, 64, 0);
    cr_expect_eq(c.cycles, 1);
    cr_expect_eq(c.conflicts, 0);
    /* half the lanes on one word, half on another word of the same bank: 2 cycles */
    TmAccess a = t_acc(TM_SHARED, TM_READ, 4, 0, 0);
    for (unsigned l = 16; l < 32; l++)
        a.addr[l] = 128;
    cr_expect_eq(smem_cost(&a, 32, 4).cycles, 2);
}

Test(smem, eight_byte_unit_stride_takes_two_cycles_without_conflict)
{
    SmemCost c = cost(8, 0, 8);
    cr_expect_eq(c.cycles, 2);
    cr_expect_eq(c.conflicts, 0);
    c = cost(8, 0, 16); /* every other 8-byte word: 4 words per bank, needs 2 */
    cr_expect_eq(c.cycles, 4);
    cr_expect_eq(c.conflicts, 2);
}

Test(smem, ldst_completes_at_latency_plus_conflict_cycles)
{
    TMem t;
    t_mem_open(&t, "smem.latency=20");
    TmAccess free_ = t_acc(TM_SHARED, TM_READ, 4, 0, 4);
    TmAccess way32 = t_acc(TM_SHARED, TM_READ, 4, 0, 128);
    uint64_t tag;
    t.now = 100;
    t_issue(&t, 0, &free_, 1);
    cr_expect_eq(ldst_done(t.u[0], &tag, 118), 0);
    cr_expect_eq(ldst_done(t.u[0], &tag, 119), 0);
    cr_assert_eq(ldst_done(t.u[0], &tag, 120), 1);
    cr_expect_eq(tag, 1);
    /* the banks took the first access for one cycle */
    t.now = 101;
    t_issue(&t, 0, &way32, 2);
    cr_expect_eq(ldst_next(t.u[0], 101), 101 + 20 + 31);
    cr_expect_eq(ldst_done(t.u[0], &tag, 101 + 20 + 30), 0);
    cr_expect_eq(ldst_done(t.u[0], &tag, 101 + 20 + 31), 1);
    cr_expect_eq(tag, 2);
    /* 32 cycles of bank time: refused until 133 */
    cr_expect_eq(ldst_issue(t.u[0], &free_, 3, 132), -1);
    cr_expect_eq(ldst_issue(t.u[0], &free_, 3, 133), 0);
    cr_expect_eq(t.ctr.smem_accesses, 3);
    cr_expect_eq(t.ctr.smem_bank_conflicts, 31);
    /* shared accesses never reach the memory system */
    cr_expect(memsys_idle(t.m));
    cr_expect_eq(t.ctr.ldst_accesses, 0);
    t_mem_close(&t);
}

Test(smem, atomics_read_then_write_the_banks)
{
    TMem t;
    t_mem_open(&t, "smem.latency=20");
    TmAccess a = t_acc(TM_SHARED, TM_ATOMIC, 4, 0, 8); /* 2-way */
    uint64_t tag;
    t_issue(&t, 0, &a, 7);
    cr_expect_eq(ldst_done(t.u[0], &tag, 20 + 4 - 2), 0);
    cr_expect_eq(ldst_done(t.u[0], &tag, 20 + 4 - 1), 1);
    cr_expect_eq(ldst_issue(t.u[0], &a, 8, 3), -1);
    cr_expect_eq(ldst_issue(t.u[0], &a, 8, 4), 0);
    t_mem_close(&t);
}

/* The one-cycle shortcut against a brute-force count on random accesses (broadcasts,
 * conflicts, 8- and 16-byte lanes, misaligned narrow ones): the distinct words every bank
 * serves, the most of them, and the cycles beyond ceil(distinct words / banks). */
Test(smem, random_accesses_match_a_brute_force_count)
{
    static const uint64_t spans[3] = {128, 1024, 49152};
    uint64_t x = 0x2545f4914f6cdd1dull, span;
    for (int t = 0; t < 4000; t++) {
        TmAccess a = t_random_access(TM_SHARED, &x, t, spans, &span);
        for (unsigned l = 0; l < 32; l++) {
            t_next(&x);
            uint64_t off = t % 5 == 0 ? (l * 4 + (x >> 61) * 128) % span : (x >> 20) % span;
            if (t % 2 || a.size >= 8) /* the functional core faults wider misaligned lanes */
                off &= ~(uint64_t)(a.size - 1);
            a.addr[l] = off;
        }
        uint64_t words[32 * 5];
        unsigned nw = 0, per_bank[32] = {0}, worst = 1;
        for (unsigned l = 0; l < 32; l++) {
            if (!(a.mask >> l & 1))
                continue;
            for (uint64_t w = a.addr[l] / 4; w <= (a.addr[l] + a.size - 1) / 4; w++) {
                unsigned i = 0;
                while (i < nw && words[i] != w)
                    i++;
                if (i < nw)
                    continue;
                words[nw++] = w;
                if (++per_bank[w % 32] > worst)
                    worst = per_bank[w % 32];
            }
        }
        unsigned need = nw ? (nw + 31) / 32 : 1;
        SmemCost c = smem_cost(&a, 32, 4);
        cr_assert_eq(c.cycles, worst, "access %d: cycles", t);
        cr_assert_eq(c.conflicts, worst - need, "access %d: conflicts", t);
    }
}
