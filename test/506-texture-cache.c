/*
 * 506-texture-cache.c - texel loads (TM_TEX) through the LD/ST unit: they look up the
 * SM's texture cache, not the L1, with its own hit latency, geometry and counters; their
 * fills come back to the texture cache even when the L1 misses on the same line at the
 * same time; the kernel-boundary flush empties both.
 * The miss latency is 505-l1.c's: the path below the SM is the same.
 */
#include "500-mem-util.h"

#define CFG T_SAME_CLOCKS

static TmAccess texel_line(uint64_t line)
{
    return t_acc(TM_TEX, TM_READ, 4, line, 4);
}

Test(tex, miss_then_hit_at_the_texture_hit_latency)
{
    TMem t;
    t_mem_open(&t, CFG ";tex.hit_latency=33");
    TmAccess a = texel_line(0x10000);
    cr_expect_eq(t_latency(&t, 0, &a, 1), t_miss_latency(&t.cfg, 4, 0));
    cr_expect_eq(t_latency(&t, 0, &a, 2), 33);
    cr_expect_eq(t.ctr.tex_accesses, 2);
    cr_expect_eq(t.ctr.ldst_accesses, 2);
    cr_expect_eq(t.ctr.tex_misses, 1);
    cr_expect_eq(t.ctr.tex_hits, 1);
    cr_expect_eq(t.ctr.l1_hits + t.ctr.l1_misses + t.ctr.l1_mshr_merges, 0, "the L1 was used");
    t_mem_close(&t);
}

Test(tex, texture_and_l1_hold_separate_copies)
{
    TMem t;
    t_mem_open(&t, CFG);
    TmAccess tx = texel_line(0x20000), gl = t_acc(TM_GLOBAL, TM_READ, 4, 0x20000, 4);
    t_latency(&t, 0, &tx, 1);
    /* the line is in the texture cache only: an ordinary load misses in the L1 (and hits
     * in L2) */
    Cycle l2_hit = t_latency(&t, 0, &gl, 2);
    cr_expect_gt(l2_hit, t.cfg.l1_hit_latency);
    cr_expect_eq(t.ctr.l1_misses, 1);
    cr_expect_eq(t.ctr.l2_hits, 1);
    cr_expect_eq(t_latency(&t, 0, &gl, 3), t.cfg.l1_hit_latency);
    cr_expect_eq(t_latency(&t, 0, &tx, 4), t.cfg.tex_hit_latency);
    t_mem_close(&t);
}

Test(tex, simultaneous_misses_to_one_line_fill_their_own_caches)
{
    TMem t;
    t_mem_open(&t, CFG);
    TmAccess tx = texel_line(0x30000), gl = t_acc(TM_GLOBAL, TM_READ, 4, 0x30000, 4);
    t_issue(&t, 0, &tx, 1);
    t_mem_tick(&t);
    t.now++;
    t_issue(&t, 0, &gl, 2);
    t_wait(&t, 0, 1);
    t_wait(&t, 0, 2);
    cr_expect_eq(t.ctr.tex_misses, 1);
    cr_expect_eq(t.ctr.l1_misses, 1);
    cr_expect_eq(t.ctr.l1_mshr_merges + t.ctr.tex_mshr_merges, 0, "merged across caches");
    /* both were filled: each now hits */
    cr_expect_eq(t_latency(&t, 0, &tx, 3), t.cfg.tex_hit_latency);
    cr_expect_eq(t_latency(&t, 0, &gl, 4), t.cfg.l1_hit_latency);
    cr_expect_eq(t.ctr.tex_hits, 1);
    cr_expect_eq(t.ctr.l1_hits, 1);
    t_mem_close(&t);
}

Test(tex, capacity_is_tex_bytes)
{
    /* 2 KB, 4 ways of 128-byte lines: 4 sets; 5 lines of one set evict the first (LRU) */
    TMem t;
    t_mem_open(&t, CFG ";tex.bytes=2048;tex.ways=4");
    for (unsigned i = 0; i < 5; i++) {
        TmAccess a = texel_line(i * 4 * 128ull);
        t_latency(&t, 0, &a, i);
    }
    cr_expect_eq(t.ctr.tex_misses, 5);
    TmAccess last = texel_line(4 * 4 * 128ull), first = texel_line(0);
    cr_expect_eq(t_latency(&t, 0, &last, 10), t.cfg.tex_hit_latency);
    cr_expect_gt(t_latency(&t, 0, &first, 11), t.cfg.tex_hit_latency, "first line not evicted");
    cr_expect_eq(t.ctr.tex_misses, 6);
    t_mem_close(&t);
}

Test(tex, flush_empties_the_texture_cache)
{
    TMem t;
    t_mem_open(&t, CFG);
    TmAccess a = texel_line(0x50000);
    t_latency(&t, 0, &a, 1);
    ldst_flush(t.u[0]);
    cr_expect_gt(t_latency(&t, 0, &a, 2), t.cfg.tex_hit_latency);
    cr_expect_eq(t.ctr.tex_misses, 2);
    t_mem_close(&t);
}

Test(tex, bad_geometry_is_refused_by_name)
{
    EmuConfig c;
    char err[256];
    emu_config_defaults(&c);
    cr_assert_eq(emu_config_set(&c, "tex.bytes", "1000", err, sizeof err), 0, "%s", err);
    cr_expect_neq(emu_config_check(&c, err, sizeof err), 0);
    cr_expect(strstr(err, "tex.bytes") != NULL, "%s", err);
    emu_config_defaults(&c);
    cr_assert_eq(emu_config_set(&c, "tex.policy", "random", err, sizeof err), 0, "%s", err);
    cr_expect_neq(emu_config_check(&c, err, sizeof err), 0);
    cr_expect(strstr(err, "tex.policy") != NULL, "%s", err);
}
