/*
 * 524-const-cache.c - const and param loads (TM_CONST, TM_PARAM) through the LD/ST unit:
 * they look up the SM's constant cache, not the L1, with its own hit latency, geometry,
 * MSHRs and counters. A warp whose active lanes read one word is served at once
 * (broadcast); d distinct words are served one a cycle, so the access completes d - 1
 * cycles later and holds the constant cache's port for d cycles, during which the next
 * const or param access is refused while global accesses go on. Const loads leave the
 * L1's lines alone; their fills come back to the constant cache.
 * The miss latency is 505-l1.c's: the path below the SM is the same.
 */
#include "500-mem-util.h"

#define CFG T_SAME_CLOCKS

/* Every lane reads the same word: a broadcast. */
static TmAccess broadcast(TmSpace space, uint64_t addr)
{
    return t_acc(space, TM_READ, 4, addr, 0);
}

Test(konst, broadcast_param_load_misses_once_then_hits_at_the_hit_latency)
{
    TMem t;
    t_mem_open(&t, CFG ";const.hit_latency=13");
    TmAccess a = broadcast(TM_PARAM, 0x40);
    cr_expect_eq(t_latency(&t, 0, &a, 1), t_miss_latency(&t.cfg, 1, 0));
    a.warp = 5; /* another warp of the SM reads the same parameter */
    cr_expect_eq(t_latency(&t, 0, &a, 2), 13);
    cr_expect_eq(t_latency(&t, 0, &a, 3), 13);
    cr_expect_eq(t.ctr.const_accesses, 3);
    cr_expect_eq(t.ctr.ldst_accesses, 3);
    cr_expect_eq(t.ctr.const_misses, 1);
    cr_expect_eq(t.ctr.const_hits, 2);
    cr_expect_eq(t.ctr.const_serial_cycles, 0);
    cr_expect_eq(t.ctr.l1_hits + t.ctr.l1_misses + t.ctr.l1_mshr_merges, 0, "the L1 was used");
    t_mem_close(&t);
}

Test(konst, distinct_words_are_served_one_a_cycle)
{
    TMem t;
    t_mem_open(&t, CFG);
    uint64_t line = 0x1000000000ull + 0x8000; /* a const address in the device window */
    TmAccess one = broadcast(TM_CONST, line), all = t_acc(TM_CONST, TM_READ, 4, line, 4);
    t_latency(&t, 0, &all, 1); /* brings the line (4 sectors) */
    Cycle hit = t.cfg.const_hit_latency;
    cr_expect_eq(t_latency(&t, 0, &one, 2), hit);
    cr_expect_eq(t_latency(&t, 0, &all, 3), hit + 31);
    /* two distinct words, each read by half of the lanes */
    TmAccess two = broadcast(TM_CONST, line);
    for (unsigned l = 16; l < 32; l++)
        two.addr[l] = line + 64;
    cr_expect_eq(t_latency(&t, 0, &two, 4), hit + 1);
    /* bytes of one word are one address; inactive lanes do not count */
    TmAccess bytes = t_acc(TM_CONST, TM_READ, 1, line, 0);
    for (unsigned l = 0; l < 32; l++)
        bytes.addr[l] = line + 8 + l % 4;
    cr_expect_eq(t_latency(&t, 0, &bytes, 5), hit);
    all.mask = 0x7; /* three lanes, three words */
    cr_expect_eq(t_latency(&t, 0, &all, 6), hit + 2);
    cr_expect_eq(t.ctr.const_serial_cycles, 31 + 31 + 1 + 2);
    cr_expect_eq(t.ctr.const_misses, 1);
    cr_expect_eq(t.ctr.const_hits, 5);
    t_mem_close(&t);
}

Test(konst, serialization_holds_the_port_but_not_global_accesses)
{
    TMem t;
    t_mem_open(&t, CFG);
    uint64_t line = 0x1000000000ull + 0x9000;
    TmAccess all = t_acc(TM_CONST, TM_READ, 4, line, 4), one = broadcast(TM_PARAM, 0);
    t_latency(&t, 0, &all, 1);
    t_latency(&t, 0, &one, 2);
    t.now += 10;
    Cycle start = t.now;
    t_issue(&t, 0, &all, 3); /* 32 words: the port is busy for 32 cycles */
    cr_expect_eq(ldst_wake(t.u[0], start), start + 32, "the SM must look again when the port frees");
    for (Cycle c = start; c < start + 32; c++)
        cr_expect(ldst_refuses(t.u[0], &one, c), "cycle %llu: not refused",
                  (unsigned long long)(c - start));
    cr_expect_not(ldst_refuses(t.u[0], &one, start + 32));
    t_mem_tick(&t);
    t.now++;
    cr_expect_eq(ldst_issue(t.u[0], &one, 4, t.now), -1, "a param load went while the port was busy");
    /* a global load is not held back */
    TmAccess gl = t_line_read(0x1000000000ull + 0x20000);
    cr_expect_not(ldst_refuses(t.u[0], &gl, t.now));
    t_issue(&t, 0, &gl, 5);
    cr_expect_eq(t_wait(&t, 0, 3) - start, t.cfg.const_hit_latency + 31);
    t_wait(&t, 0, 5);
    cr_expect_eq(t_latency(&t, 0, &one, 6), t.cfg.const_hit_latency);
    t_mem_close(&t);
}

Test(konst, const_loads_do_not_evict_l1_lines)
{
    /* a 1 KB L1 (8 ways, one set): 64 const lines would have evicted the global line */
    TMem t;
    t_mem_open(&t, CFG ";l1.bytes=1024;l1.ways=8");
    uint64_t g = 0x1000000000ull + 0x40000;
    TmAccess gl = t_line_read(g);
    t_latency(&t, 0, &gl, 1);
    cr_expect_eq(t_latency(&t, 0, &gl, 2), t.cfg.l1_hit_latency);
    for (unsigned i = 0; i < 64; i++) {
        TmAccess c = broadcast(i % 2 ? TM_CONST : TM_PARAM, 0x1000000000ull + 0x80000 + i * 128);
        t_latency(&t, 0, &c, 10 + i);
    }
    cr_expect_eq(t.ctr.const_misses, 64);
    cr_expect_eq(t_latency(&t, 0, &gl, 3), t.cfg.l1_hit_latency, "the global line was evicted");
    cr_expect_eq(t.ctr.l1_misses, 1);
    cr_expect_eq(t.ctr.l1_hits, 2);
    t_mem_close(&t);
}

Test(konst, misses_merge_and_fill_their_own_cache)
{
    TMem t;
    t_mem_open(&t, CFG);
    uint64_t line = 0x1000000000ull + 0xa000;
    TmAccess c = broadcast(TM_CONST, line), gl = t_line_read(line);
    t_issue(&t, 0, &c, 1);
    t_mem_tick(&t);
    t.now++;
    c.warp = 1;
    t_issue(&t, 0, &c, 2); /* the port is free again (one word); the miss is in flight */
    t_issue(&t, 0, &gl, 3); /* the same line through the L1 */
    Cycle d1 = t_wait(&t, 0, 1), d2 = t_wait(&t, 0, 2);
    cr_expect_eq(d1, d2, "the merged request completes with the fill");
    t_wait(&t, 0, 3);
    cr_expect_eq(t.ctr.const_misses, 1);
    cr_expect_eq(t.ctr.const_mshr_merges, 1);
    cr_expect_eq(t.ctr.l1_misses, 1);
    cr_expect_eq(t.ctr.l1_mshr_merges, 0, "merged across caches");
    cr_expect_eq(t_latency(&t, 0, &c, 4), t.cfg.const_hit_latency);
    cr_expect_eq(t_latency(&t, 0, &gl, 5), t.cfg.l1_hit_latency);
    cr_expect_eq(t.ctr.const_hits, 1);
    cr_expect_eq(t.ctr.l1_hits, 1);
    cr_expect_eq(t.ctr.const_accesses, 3);
    t_mem_close(&t);
}

Test(konst, mshrs_limit_lines_in_flight)
{
    /* const.mshrs = 2: the third line's lookup waits for a fill */
    TMem t;
    t_mem_open(&t, CFG ";const.mshrs=2");
    TmAccess a = t_acc(TM_CONST, TM_READ, 4, 0x1000000000ull + 0xc000, 128);
    a.mask = 0x7; /* three lanes, three lines */
    Cycle lat = t_latency(&t, 0, &a, 1);
    cr_expect_gt(lat, t_miss_latency(&t.cfg, 1, 0) + 2);
    cr_expect_eq(t.ctr.const_misses, 3);
    cr_expect_eq(t.ctr.const_mshr_stalls, 1);
    t_mem_close(&t);
}

Test(konst, flush_empties_the_constant_cache)
{
    TMem t;
    t_mem_open(&t, CFG);
    TmAccess a = broadcast(TM_PARAM, 0x80);
    t_latency(&t, 0, &a, 1);
    cr_expect_eq(t_latency(&t, 0, &a, 2), t.cfg.const_hit_latency);
    ldst_flush(t.u[0]);
    cr_expect_gt(t_latency(&t, 0, &a, 3), t.cfg.const_hit_latency);
    cr_expect_eq(t.ctr.const_misses, 2);
    t_mem_close(&t);
}

/* ldst_new refuses the configuration with an error naming the key. */
static void refused(const char *sets, const char *key)
{
    EmuConfig c = t_cfg(sets);
    TmCounters ctr;
    char err[256] = "";
    memset(&ctr, 0, sizeof ctr);
    LdSt *u = ldst_new(&c, 0, &ctr, err, sizeof err);
    cr_expect_null(u, "%s accepted", sets);
    ldst_free(u);
    cr_expect(strncmp(err, key, strlen(key)) == 0, "%s: %s", sets, err);
}

Test(konst, bad_geometry_is_refused_by_name)
{
    refused("const.bytes=1000", "const.bytes");
    refused("const.bytes=0", "const.bytes");
    refused("const.ways=0", "const.ways");
    refused("const.mshrs=0", "const.mshrs");
    refused("const.mshr_merge=100000", "const.mshr_merge");
    refused("const.policy=random", "const.policy");
    refused("const.bytes=12288;const.ways=4;const.index=xor", "const.index");
}
