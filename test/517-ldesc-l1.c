/*
 * 517-ldesc-l1.c - the Locality Descriptor's L1 policies (ldesc.mode = cache; mech/ldesc/ldesc.c)
 * through the LD/ST unit and the real memory system, each on a hand-made descriptor:
 * a hard-pinned line survives a stream through its set until the pinning timer clears
 * it; a set whose every way is hard-pinned gives up way 0, not its LRU line; a soft-pinned
 * line goes after unpinned ones; a NO_REUSE (bypassed) read allocates no way and evicts
 * nothing, and a second read while it is in flight merges into its MSHR; a miss to
 * COACCESSED REGULAR data prefetches exactly address + L1 bytes / (active tiles x tile
 * width) x stride; a NEARBY miss prefetches the next line, never past the data
 * structure; a prefetched line evicted unread is counted, and so are the pinned lines'
 * cycles and the pinned lines evicted.
 */
#include "500-mem-util.h"
#include "hints.h"
#include "timing/slots.h"
#include "xgpu/ldesc.h"

/* 4096-byte 4-way L1: 8 sets, so lines 1024 bytes apart share a set. */
#define SMALL_L1 T_SAME_CLOCKS ";l1.bytes=4096;l1.ways=4;ldesc.mode=cache"
#define SET_STRIDE 1024
#define DESCRIBED 0x100000ull /* the descriptor's data */
#define OTHER 0x800000ull     /* data in no descriptor, mapping to the same sets */

/* Opens the units with one descriptor d over [DESCRIBED, DESCRIBED + 1 MB), bound as the
 * launch's with ctas_per_sm CTAs per SM on an 8-CTA grid. */
static void ld_open(TMem *t, const char *sets, EmuDescRange d, uint32_t ctas_per_sm,
                    EmuHintTable *h)
{
    static EmuDescRange one;
    one = d;
    one.base = DESCRIBED, one.bytes = 1 << 20;
    *h = (EmuHintTable){.descs = &one, .ndescs = 1};
    t_mem_open(t, sets);
    TmLaunchView v = {.hints = h, .grid = {8, 1, 1}, .nsm = t->cfg.gpu_sm_count,
                      .ctas_per_sm = ctas_per_sm};
    for (unsigned i = 0; i < t->nsm; i++)
        cr_assert_eq(ldst_observe(t->u[i], &v, NULL, NULL), 0);
}

/* Reads line at (waits for it); returns 1 when it hit in the L1. */
static int rd(TMem *t, uint64_t line)
{
    static uint64_t tag = 1;
    uint64_t hits = t->ctr.l1_hits;
    TmAccess a = t_line_read(line);
    t_latency(t, 0, &a, tag++);
    return t->ctr.l1_hits > hits;
}

static const EmuDescRange intra = {.locality = XLD_INTRA_THREAD, .elem_size = 4,
                                   .dtile = {1, 1, 1}, .ctile = {1, 1, 1}};

Test(ldesc_l1, hard_pinned_line_survives_a_stream_until_the_timer_clears_it)
{
    TMem t;
    EmuHintTable h;
    ld_open(&t, SMALL_L1 ";ldesc.pin_period=20000", intra, 1, &h);
    Cycle pinned_at = t.now; /* the lookup installs it in the cycle the read issues */
    rd(&t, DESCRIBED);
    cr_expect_eq(t.ctr.l1_pins_hard, 1);
    for (unsigned i = 0; i < 8; i++) /* twice the ways, all in the pinned line's set */
        rd(&t, OTHER + (uint64_t)i * SET_STRIDE);
    cr_expect(rd(&t, DESCRIBED), "the pinned line outlived 8 unpinned ones");
    cr_expect_lt(t.now, 20000, "all before the timer");
    t.now = 20000; /* the timer clears every priority */
    for (unsigned i = 0; i < 4; i++)
        rd(&t, OTHER + (uint64_t)(8 + i) * SET_STRIDE);
    cr_expect_eq(t.ctr.l1_pin_clears, 1);
    cr_expect_eq(t.ctr.l1_pinned_line_cycles, 20000 - pinned_at,
                 "one line pinned from its fill's lookup to the timer");
    cr_expect_eq(t.ctr.l1_pinned_evictions, 0);
    cr_expect_not(rd(&t, DESCRIBED), "unpinned, LRU evicted it");
    t_mem_close(&t);
}

Test(ldesc_l1, a_set_all_hard_pinned_gives_up_way_0)
{
    TMem t;
    EmuHintTable h;
    ld_open(&t, SMALL_L1, intra, 1, &h);
    for (unsigned i = 0; i < 4; i++) /* lines 0-3 fill ways 0-3 of one set, pinned */
        rd(&t, DESCRIBED + (uint64_t)i * SET_STRIDE);
    cr_expect(rd(&t, DESCRIBED), "line 0 (way 0) is now the most recently used");
    rd(&t, DESCRIBED + 4 * SET_STRIDE); /* LRU would take line 1; the pinned set, way 0 */
    cr_expect(rd(&t, DESCRIBED + 1 * SET_STRIDE), "line 1 stayed");
    cr_expect(rd(&t, DESCRIBED + 4 * SET_STRIDE), "line 4 is in way 0");
    cr_expect_not(rd(&t, DESCRIBED), "line 0 went");
    cr_expect_eq(t.ctr.l1_pins_hard, 6);
    cr_expect_eq(t.ctr.l1_pinned_evictions, 2, "line 0, then line 4, from way 0");
    t_mem_close(&t);
}

Test(ldesc_l1, a_soft_pinned_line_goes_after_unpinned_ones)
{
    TMem t;
    EmuHintTable h;
    EmuDescRange soft = {.locality = XLD_INTER_THREAD, .sharing = XLD_COACCESSED,
                         .pattern = XLD_IRREGULAR, .elem_size = 4, .dtile = {1, 1, 1},
                         .ctile = {1, 1, 1}};
    ld_open(&t, SMALL_L1, soft, 1, &h);
    rd(&t, DESCRIBED);
    for (unsigned i = 0; i < 6; i++)
        rd(&t, OTHER + (uint64_t)i * SET_STRIDE);
    cr_expect(rd(&t, DESCRIBED), "soft-pinned: the unpinned lines went first");
    cr_expect_eq(t.ctr.l1_pins_soft, 1);
    for (unsigned i = 0; i < 3; i++) /* soft-pinned lines 1-3 take the unpinned ways */
        rd(&t, DESCRIBED + (uint64_t)(1 + i) * SET_STRIDE);
    rd(&t, DESCRIBED + 4 * SET_STRIDE); /* all soft: LRU among equals, line 0 */
    cr_expect(rd(&t, DESCRIBED + 1 * SET_STRIDE));
    cr_expect_not(rd(&t, DESCRIBED), "line 0 was the least recently used");
    t_mem_close(&t);
}

Test(ldesc_l1, a_bypassed_read_allocates_nothing_and_merges_in_flight)
{
    TMem t;
    EmuHintTable h;
    EmuDescRange stream = {.locality = XLD_NO_REUSE, .elem_size = 4, .dtile = {1, 1, 1},
                           .ctile = {1, 1, 1}};
    ld_open(&t, SMALL_L1, stream, 1, &h);
    for (unsigned i = 0; i < 4; i++) /* the set is full */
        rd(&t, OTHER + (uint64_t)i * SET_STRIDE);
    cr_expect_not(rd(&t, DESCRIBED));
    cr_expect_eq(t.ctr.l1_bypasses, 1);
    for (unsigned i = 0; i < 4; i++)
        cr_expect(rd(&t, OTHER + (uint64_t)i * SET_STRIDE), "line %u was not evicted", i);
    /* two reads of the bypassed line, the second while the first is in flight */
    uint64_t misses = t.ctr.l1_misses;
    TmAccess a = t_line_read(DESCRIBED);
    t_issue(&t, 0, &a, 100);
    t.now++, t_mem_tick(&t);
    t_issue(&t, 0, &a, 101);
    t_wait(&t, 0, 101);
    t_drain(&t);
    cr_expect_eq(t.ctr.l1_misses - misses, 1, "one miss went out");
    cr_expect_eq(t.ctr.l1_mshr_merges, 1, "the second read merged into it");
    cr_expect_not(rd(&t, DESCRIBED), "and still nothing is kept");
    t_mem_close(&t);
}

Test(ldesc_l1, guided_stride_prefetch_goes_to_the_exact_target)
{
    TMem t;
    EmuHintTable h;
    /* rows of 256 floats (stride 256 elements = 1 KB), D-Tile 64 floats wide (256 B);
     * 4 CTAs per SM, each its own C-Tile (no clustering under ldesc.mode = cache):
     * 32768 / (4 x 256) = 32 rows ahead = 32 KB */
    EmuDescRange rows = {.locality = XLD_INTER_THREAD, .sharing = XLD_COACCESSED,
                         .pattern = XLD_REGULAR, .elem_size = 4, .stride = 256,
                         .dtile = {64, 8, 1}, .ctile = {1, 1, 1}};
    ld_open(&t, T_SAME_CLOCKS ";ldesc.mode=cache", rows, 4, &h);
    cr_expect_eq(t.cfg.l1_bytes, 32768);
    rd(&t, DESCRIBED + 3 * 128);
    t_drain(&t);
    cr_expect_eq(t.ctr.l1_prefetches, 1);
    cr_expect(rd(&t, DESCRIBED + 3 * 128 + 32768), "the target was prefetched");
    cr_expect_eq(t.ctr.l1_prefetch_hits, 1);
    cr_expect_not(rd(&t, DESCRIBED + 4 * 128), "nothing else was");
    t_mem_close(&t);

    /* one CTA per SM: 32768 / 256 = 128 rows ahead */
    ld_open(&t, T_SAME_CLOCKS ";ldesc.mode=cache", rows, 1, &h);
    rd(&t, DESCRIBED);
    t_drain(&t);
    cr_expect(rd(&t, DESCRIBED + 128 * 1024));
    t_mem_close(&t);
}

Test(ldesc_l1, nearby_prefetches_the_next_line_inside_the_structure)
{
    TMem t;
    EmuHintTable h;
    EmuDescRange near = {.locality = XLD_INTER_THREAD, .sharing = XLD_NEARBY, .elem_size = 4,
                         .dtile = {32, 1, 1}, .ctile = {1, 1, 1}};
    ld_open(&t, SMALL_L1, near, 1, &h);
    rd(&t, DESCRIBED + 128);
    t_drain(&t);
    cr_expect(rd(&t, DESCRIBED + 256), "the next line was prefetched");
    rd(&t, DESCRIBED + (1 << 20) - 128); /* the structure's last line */
    t_drain(&t);
    cr_expect_eq(t.ctr.l1_prefetches, 1, "no prefetch past the end");
    /* a prefetched line evicted before any read: through its set (4 ways) */
    rd(&t, DESCRIBED + 8 * SET_STRIDE);
    t_drain(&t); /* prefetched: + 8 KB + 128, set 1 */
    for (unsigned i = 0; i < 4; i++)
        rd(&t, OTHER + 128 + (uint64_t)i * SET_STRIDE);
    cr_expect_eq(t.ctr.l1_prefetch_evicted, 1);
    t_mem_close(&t);
}

Test(ldesc_l1, mode_sets_the_slots_and_refuses_a_conflict)
{
    EmuConfig c = t_cfg("ldesc.mode=all");
    char err[256] = "";
    cr_expect_str_eq(c.core_cta_placement, "ldesc");
    cr_expect_str_eq(c.l1_insertion, "ldesc");
    cr_expect_str_eq(c.l1_prefetch, "ldesc");
    cr_expect_eq(emu_config_check(&c, err, sizeof err), 0, "%s", err);
    c = t_cfg("ldesc.mode=all;ldesc.mode=cta");
    cr_expect_str_eq(c.core_cta_placement, "ldesc");
    cr_expect_str_eq(c.l1_insertion, "mru", "given back to its default");
    c = t_cfg("ldesc.mode=cache;l1.prefetch=stride");
    cr_expect_neq(emu_config_check(&c, err, sizeof err), 0);
    cr_expect(strstr(err, "l1.prefetch") && strstr(err, "ldesc.mode"), "%s", err);
    c = t_cfg("l1.insertion=ldesc");
    cr_expect_neq(emu_config_check(&c, err, sizeof err), 0);
    cr_expect(strstr(err, "l1.insertion"), "%s", err);
    c = t_cfg("l2.insertion=ldesc");
    cr_expect_neq(emu_config_check(&c, err, sizeof err), 0);
    cr_expect(strstr(err, "l2.insertion"), "%s", err);
}
