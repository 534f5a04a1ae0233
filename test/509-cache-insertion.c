/*
 * 509-cache-insertion.c - the insertion slot (l1.insertion, l2.insertion) through the
 * LD/ST unit and the real memory system. A 4-way L1 set read cyclically over 5 lines
 * thrashes under the baseline (mru: no hit on the second pass) and keeps 3 of them under
 * lip (each new line goes first in line for eviction); bip inserts one new line in 32
 * as the baseline does; under bypass a line read twice misses twice, and the second
 * read costs exactly an L2 hit's round trip instead of the L1 hit latency; l2.insertion
 * = bypass makes the L2 miss again too. Counters: l1.insert_lru, l1.bypasses,
 * l2.bypasses.
 */
#include "500-mem-util.h"

/* 4096-byte 4-way L1: 8 sets, so lines 1024 bytes apart share a set. */
#define SMALL_L1 T_SAME_CLOCKS ";l1.bytes=4096;l1.ways=4"
#define SET_STRIDE 1024

/* Reads lines 0 .. n-1 of one set in order, `passes` times, each read waited for; returns
 * the L1 hits of the last pass. */
static uint64_t cyclic(TMem *t, unsigned n, unsigned passes)
{
    uint64_t tag = 1, before = 0;
    for (unsigned p = 0; p < passes; p++) {
        before = t->ctr.l1_hits;
        for (unsigned i = 0; i < n; i++) {
            TmAccess a = t_line_read(0x100000 + (uint64_t)i * SET_STRIDE);
            t_latency(t, 0, &a, tag++);
        }
    }
    return t->ctr.l1_hits - before;
}

Test(insertion, mru_thrashes_a_set_lip_keeps_part_of_it)
{
    TMem t;
    t_mem_open(&t, SMALL_L1);
    cr_expect_eq(cyclic(&t, 5, 2), 0, "mru: 5 lines through 4 ways, LRU keeps none");
    cr_expect_eq(t.ctr.l1_insert_lru, 0);
    t_mem_close(&t);

    t_mem_open(&t, SMALL_L1 ";l1.insertion=lip");
    /* pass 1 fills the 4 ways, then line 4 takes way 0 (all stamps equal: the first way);
     * pass 2: line 0 misses (evicts line 4), 1-3 hit and are promoted, 4 misses */
    cr_expect_eq(cyclic(&t, 5, 2), 3);
    cr_expect_eq(t.ctr.l1_misses, 7);
    cr_expect_eq(t.ctr.l1_insert_lru, 7, "every new line inserted at the LRU end");
    t_mem_close(&t);
}

Test(insertion, bip_inserts_one_line_in_32_as_the_policy_does)
{
    TMem t;
    t_mem_open(&t, SMALL_L1 ";l1.insertion=bip");
    cyclic(&t, 16, 3); /* 16 lines through 4 ways */
    uint64_t m = t.ctr.l1_misses;
    cr_expect_geq(m, 32, "%llu misses", (unsigned long long)m);
    cr_expect_eq(t.ctr.l1_insert_lru, m - m / 32, "%llu misses, %llu at the LRU end",
                 (unsigned long long)m, (unsigned long long)t.ctr.l1_insert_lru);
    t_mem_close(&t);
}

Test(insertion, l1_bypass_reads_from_l2_every_time)
{
    TMem t;
    t_mem_open(&t, T_SAME_CLOCKS ";l1.insertion=bypass");
    TmAccess a = t_line_read(0x10000);
    cr_expect_eq(t_latency(&t, 0, &a, 1), t_miss_latency(&t.cfg, 4, 0));
    t.now += 5;
    cr_expect_eq(t_latency(&t, 0, &a, 2), 2 * t.cfg.icnt_latency + t.cfg.l2_latency + 3,
                 "the second read is an L2 hit's round trip");
    cr_expect_eq(t.ctr.l1_hits, 0);
    cr_expect_eq(t.ctr.l1_misses, 2);
    cr_expect_eq(t.ctr.l1_bypasses, 2);
    cr_expect_eq(t.ctr.l2_hits, 1);
    t_mem_close(&t);
}

Test(insertion, l2_bypass_misses_again)
{
    TMem t;
    t_mem_open(&t, T_SAME_CLOCKS ";l1.insertion=bypass;l2.insertion=bypass");
    TmAccess a = t_line_read(0x10000);
    t_latency(&t, 0, &a, 1);
    t.now += 5;
    t_latency(&t, 0, &a, 2);
    cr_expect_eq(t.ctr.l2_hits, 0);
    cr_expect_eq(t.ctr.l2_misses, 2);
    cr_expect_eq(t.ctr.l2_bypasses, 2);
    t_mem_close(&t);
}

Test(insertion, unknown_policy_is_refused_by_key)
{
    EmuConfig c;
    char err[256] = "";
    emu_config_defaults(&c);
    cr_expect_neq(emu_config_set(&c, "l2.insertion", "lru-ish", err, sizeof err), 0);
    cr_expect(strstr(err, "l2.insertion") && strstr(err, "bip"), "%s", err);
}
