/*
 * 518-xmem.c - XMem's hardware (xmem.mode; mech/xmem/xmem.c). The atom management unit, driven
 * directly: the 512-byte-block atom map (a block takes the atom of the first range that
 * overlaps it), the lookaside buffer's hits, misses, LRU replacement within a set and the
 * cycle an access may complete after a miss. Through the LD/ST unit and the real memory
 * system: an access that misses in the ALB completes exactly xmem.alb_miss_latency
 * cycles after it issued; a reused atom twice the pinning budget keeps its first share in
 * the L1 where LRU keeps nothing (the tiling use case), a write-only atom bypasses, an
 * inactive atom is the baseline's. The DRAM mapping: two hot atoms get disjoint halves of
 * each channel's banks in rows of their own, and reading them alternately turns the
 * interleaving's row conflicts into row hits.
 */
#include "500-mem-util.h"
#include "hints.h"
#include "mech/mech.h"
#include "xgpu/xmem.h"

#define SMALL_L1 T_SAME_CLOCKS ";l1.bytes=4096;l1.ways=4"
#define SET_STRIDE 1024
#define A_BASE 0x100000ull
#define B_BASE 0x900000ull

typedef struct Hints {
    EmuAtomRange r[4];
    EmuAtomAttr a[4];
    EmuHintTable h;
} Hints;

/* Atom 0 over [A_BASE, A_BASE + abytes), atom 1 over [B_BASE, B_BASE + bbytes), with the
 * attributes given; active as the mask says (bit i: atom i). */
static void hints(Hints *x, uint64_t abytes, EmuAtomAttr a, uint64_t bbytes, EmuAtomAttr b,
                  unsigned active)
{
    memset(x, 0, sizeof *x);
    x->r[0] = (EmuAtomRange){A_BASE, A_BASE + abytes, 0};
    x->r[1] = (EmuAtomRange){B_BASE, B_BASE + bbytes, 1};
    x->a[0] = a, x->a[1] = b;
    x->h = (EmuHintTable){.atoms = x->r, .natoms = 2, .attrs = x->a, .nattrs = 2};
    x->h.active[0] = (uint8_t)active;
}

static void bind_all(TMem *t, const EmuHintTable *h)
{
    TmLaunchView v = {.hints = h, .grid = {1, 1, 1}, .nsm = t->cfg.gpu_sm_count,
                      .ctas_per_sm = 1};
    cr_assert_eq(memsys_bind(t->m, &v), 0);
    for (unsigned i = 0; i < t->nsm; i++)
        cr_assert_eq(ldst_observe(t->u[i], &v, NULL, NULL), 0);
}

static const EmuAtomAttr reused = {.pattern = XMEM_REGULAR, .stride = 4, .rw = XMEM_READ_ONLY,
                                   .intensity = 200, .reuse = 255, .elem_size = 4};
static const EmuAtomAttr written = {.pattern = XMEM_REGULAR, .stride = 4,
                                    .rw = XMEM_WRITE_ONLY, .intensity = 200, .reuse = 0,
                                    .elem_size = 4};

Test(xmem, the_amu_maps_blocks_and_caches_pages)
{
    EmuConfig c = t_cfg("xmem.mode=on;xmem.alb_entries=16;xmem.alb_ways=2;"
                        "xmem.alb_miss_latency=300");
    cr_expect_str_eq(c.mem_hint_lookup, "amu");
    Hints x;
    /* atom 0 over bytes 100 .. 600 of a page: blocks 0 and 1 are atom 0's, block 2 none */
    hints(&x, 1, reused, 1, reused, 3);
    x.r[0] = (EmuAtomRange){A_BASE + 100, A_BASE + 600, 0};
    void *s = tm_lookup_amu.init(&c);
    TmLaunchView v = {.hints = &x.h};
    cr_assert_eq(tm_lookup_amu.bind(s, &v), 0);
    TmCounters ctr = {0};
    TmReq r[3] = {{.line = A_BASE}, {.line = A_BASE + 512}, {.line = A_BASE + 1024}};
    cr_expect_eq(tm_lookup_amu.tag(s, &ctr, &x.h, r, 3, 1000), 1300, "a miss: now + 300");
    cr_expect_eq(r[0].atom, 0);
    cr_expect_eq(r[1].atom, 0);
    cr_expect_eq(r[2].atom, TM_NO_ATOM);
    cr_expect_eq(ctr.xmem_alb_misses, 1, "one page, one miss");
    cr_expect_eq(ctr.xmem_alb_hits, 2);
    cr_expect_eq(tm_lookup_amu.tag(s, &ctr, &x.h, r, 1, 2000), 2000, "a hit costs nothing");
    /* 8 sets of 2 ways: pages 8 apart share a set; a third one evicts the LRU page */
    TmReq p1 = {.line = A_BASE + 8 * 4096}, p2 = {.line = A_BASE + 16 * 4096};
    tm_lookup_amu.tag(s, &ctr, &x.h, &p1, 1, 3000);
    tm_lookup_amu.tag(s, &ctr, &x.h, r, 1, 3001); /* the first page is now the MRU */
    tm_lookup_amu.tag(s, &ctr, &x.h, &p2, 1, 3002); /* evicts p1's page */
    uint64_t misses = ctr.xmem_alb_misses;
    cr_expect_eq(tm_lookup_amu.tag(s, &ctr, &x.h, r, 1, 4000), 4000);
    cr_expect_eq(tm_lookup_amu.tag(s, &ctr, &x.h, &p1, 1, 4000), 4300);
    cr_expect_eq(ctr.xmem_alb_misses, misses + 1);
    tm_lookup_amu.free(s);
}

/* Two reads of one page, the second 5 cycles after the first completed: their latencies. */
static void same_page(const char *sets, Cycle lat[2], uint64_t *misses, uint64_t *hits)
{
    TMem t;
    Hints x;
    hints(&x, 1 << 20, reused, 4096, written, 3);
    t_mem_open(&t, sets);
    bind_all(&t, &x.h);
    TmAccess a = t_line_read(A_BASE), b = t_line_read(A_BASE + 128);
    lat[0] = t_latency(&t, 0, &a, 1);
    t.now += 5;
    lat[1] = t_latency(&t, 0, &b, 2);
    *misses = t.ctr.xmem_alb_misses, *hits = t.ctr.xmem_alb_hits;
    t_mem_close(&t);
}

Test(xmem, an_alb_miss_delays_its_access_exactly)
{
    Cycle base[2], amu[2];
    uint64_t misses, hits;
    EmuConfig c = t_cfg(T_SAME_CLOCKS);
    same_page(T_SAME_CLOCKS, base, &misses, &hits);
    cr_expect_eq(base[0], t_miss_latency(&c, 4, 0));
    same_page(T_SAME_CLOCKS ";xmem.mode=on;xmem.alb_miss_latency=2000", amu, &misses, &hits);
    cr_expect_eq(amu[0], 2000, "the AAM read outlasts the cache miss");
    cr_expect_eq(amu[1], base[1], "same page: an ALB hit costs nothing");
    cr_expect_eq(misses, 1);
    cr_expect_eq(hits, 1);
}

/* Reads lines 0 .. n-1 of atom 0 in order, twice; the L1 hits of the second pass. */
static uint64_t two_passes(TMem *t, unsigned n)
{
    uint64_t tag = 1, before = 0;
    for (unsigned p = 0; p < 2; p++) {
        before = t->ctr.l1_hits;
        for (unsigned i = 0; i < n; i++) {
            TmAccess a = t_line_read(A_BASE + (uint64_t)i * 128);
            t_latency(t, 0, &a, tag++);
        }
    }
    return t->ctr.l1_hits - before;
}

Test(xmem, a_reused_tile_keeps_its_share_of_the_cache)
{
    /* 6 KB of atom 0 through a 4 KB 4-way L1, twice: LRU keeps nothing; XMem pins the
     * first 75% of the cache (3 KB: 3 lines of each of the 8 sets) and inserts the rest
     * at the LRU end, where they only evict each other */
    TMem t;
    Hints x;
    hints(&x, 6144, reused, 4096, written, 3);
    t_mem_open(&t, SMALL_L1);
    bind_all(&t, &x.h);
    cr_expect_eq(two_passes(&t, 48), 0);
    t_mem_close(&t);
    t_mem_open(&t, SMALL_L1 ";xmem.mode=cache");
    bind_all(&t, &x.h);
    cr_expect_eq(two_passes(&t, 48), 24);
    cr_expect_eq(t.ctr.l1_pins_soft, 24);
    cr_expect_eq(t.ctr.l1_insert_lru, 48, "24 lines LRU-inserted in each pass");
    cr_expect_gt(t.ctr.l2_pins_soft, 0, "the L2 pins the atom too");
    t_mem_close(&t);
    /* the atom inactive: the baseline */
    hints(&x, 6144, reused, 4096, written, 2);
    t_mem_open(&t, SMALL_L1 ";xmem.mode=cache");
    bind_all(&t, &x.h);
    cr_expect_eq(two_passes(&t, 48), 0);
    cr_expect_eq(t.ctr.l1_pins_soft, 0);
    t_mem_close(&t);
}

Test(xmem, a_write_only_atom_bypasses)
{
    TMem t;
    Hints x;
    hints(&x, 4096, reused, 4096, written, 3);
    t_mem_open(&t, SMALL_L1 ";xmem.mode=cache");
    bind_all(&t, &x.h);
    TmAccess b = t_line_read(B_BASE);
    t_latency(&t, 0, &b, 1);
    t.now += 5;
    t_latency(&t, 0, &b, 2);
    cr_expect_eq(t.ctr.l1_bypasses, 2);
    cr_expect_eq(t.ctr.l1_hits, 0);
    t_mem_close(&t);
}

Test(xmem, hot_atoms_get_banks_of_their_own)
{
    EmuConfig c = t_cfg("xmem.mode=dram;dram.banks=16");
    cr_expect_str_eq(c.dram_mapping, "xmem");
    Hints x;
    hints(&x, 1 << 20, reused, 1 << 20, reused, 3);
    x.a[1].intensity = 250; /* atom 1 first: banks 0-7; atom 0: banks 8-15 */
    void *s = tm_map_xmem.init(&c);
    TmLaunchView v = {.hints = &x.h};
    cr_assert_eq(tm_map_xmem.bind(s, &v), 0);
    unsigned lpr = c.dram_row_bytes / c.l1_line, bank = 99;
    uint64_t row = 99, local = 21 * lpr + 3; /* the 21st row's worth of the channel */
    tm_map_xmem.map(s, B_BASE, 0, local, &bank, &row);
    cr_expect_eq(bank, 21 % 8);
    cr_expect_eq(row, (21 / 8) | 2ull << 48);
    tm_map_xmem.map(s, A_BASE, 0, local, &bank, &row);
    cr_expect_eq(bank, 8 + 21 % 8);
    cr_expect_eq(row, (21 / 8) | 1ull << 48);
    bank = 5, row = 7;
    tm_map_xmem.map(s, 0x5000000, 0, local, &bank, &row);
    cr_expect(bank == 5 && row == 7, "data in no atom keeps the interleaving");
    x.a[1].intensity = 10; /* one hot atom: nothing to separate */
    cr_assert_eq(tm_map_xmem.bind(s, &v), 0);
    tm_map_xmem.map(s, A_BASE, 0, local, &bank, &row);
    cr_expect(bank == 5 && row == 7);
    tm_map_xmem.free(s);
}

/* Reads line i of atom 0 then line i of atom 1, i = 0 .. n-1, every read waited for;
 * returns the DRAM row conflicts. */
static uint64_t alternate(const char *sets, unsigned n)
{
    TMem t;
    Hints x;
    hints(&x, 1 << 20, reused, 1 << 20, reused, 3);
    t_mem_open(&t, sets);
    bind_all(&t, &x.h);
    uint64_t tag = 1;
    for (unsigned i = 0; i < n; i++) {
        TmAccess a = t_line_read(A_BASE + (uint64_t)i * 128 * t.cfg.l2_slices);
        TmAccess b = t_line_read(B_BASE + (uint64_t)i * 128 * t.cfg.l2_slices);
        t_latency(&t, 0, &a, tag++);
        t_latency(&t, 0, &b, tag++);
    }
    uint64_t conflicts = t.ctr.dram_row_conflicts;
    t_mem_close(&t);
    return conflicts;
}

Test(xmem, separated_atoms_stop_closing_each_others_rows)
{
    /* one slice and channel, so that both atoms' lines meet in the same banks */
    const char *one = T_SAME_CLOCKS ";l2.slices=1;dram.channels=1;l1.bytes=4096;l1.ways=4";
    char sets[256];
    uint64_t base = alternate(one, 12);
    snprintf(sets, sizeof sets, "%s;xmem.mode=dram", one);
    cr_expect_gt(base, 10, "the interleaving: A and B share banks, %llu conflicts",
                 (unsigned long long)base);
    cr_expect_eq(alternate(sets, 12), 0, "separate banks: no conflict");
}
