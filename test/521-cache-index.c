/*
 * 521-cache-index.c - the caches' set-index functions (l1.index, tex.index, l2.index):
 * each function's set for line numbers worked out by hand from its definition
 * (cache_index.c), a bijection on every aligned block of `sets` lines, ipoly's
 * conflict-free power-of-two strides, the L2 slice choice, and through the L1 and the L2
 * the conflict misses a hash removes: lines 8 KB apart all fall into one set of a
 * 32-set L1 under linear and thrash its 4 ways, while fermi and ipoly spread them.
 * Unknown names and set counts a function does not support are refused naming the key.
 */
#include "500-mem-util.h"
#include "timing/cache_index.h"

static unsigned set_of(const char *name, uint64_t line, unsigned sets)
{
    const CacheIndex *ix = cache_index_find(name);
    cr_assert(ix, "no function '%s'", name);
    cr_assert(ix->supports(sets), "%s does not support %u sets", name, sets);
    return ix->set(line, sets);
}

Test(cache_index, linear_is_line_mod_sets)
{
    cr_expect_eq(set_of("linear", 100, 32), 4);  /* 100 = 3*32 + 4 */
    cr_expect_eq(set_of("linear", 100, 24), 4);  /* 100 = 4*24 + 4 */
    cr_expect_eq(set_of("linear", 37, 24), 13);  /* 37 = 24 + 13 */
    cr_expect_eq(set_of("linear", 64, 32), 0);   /* 8 KB apart: set 0 */
}

Test(cache_index, xor_folds_the_next_bits_into_the_index)
{
    /* 0x123 = 01001 00011: low five bits 3, next five 9; 3 ^ 9 = 10 */
    cr_expect_eq(set_of("xor", 0x123, 32), 10);
    cr_expect_eq(set_of("xor", 64, 32), 2);       /* low 0, next 00010 */
    cr_expect_eq(set_of("xor", 1u << 10, 32), 0); /* bit 10 is above both fields */
    cr_expect_eq(set_of("xor", 0x4A, 8), 3);      /* 1 001 010: 010 ^ 001 */
}

Test(cache_index, fermi_is_the_measured_hash)
{
    /* set bits 0-4 = address bits 7-11 ^ (13, 14, 15, 17, 19); line bit i = address
     * bit i + 7, so the upper bits are line bits 6, 7, 8, 10, 12 */
    cr_expect_eq(set_of("fermi", 64, 32), 1);      /* address bit 13 -> set bit 0 */
    cr_expect_eq(set_of("fermi", 1u << 9, 32), 0); /* address bit 16 is not used */
    cr_expect_eq(set_of("fermi", 1u << 10, 32), 8);  /* address bit 17 -> set bit 3 */
    cr_expect_eq(set_of("fermi", 1u << 12, 32), 16); /* address bit 19 -> set bit 4 */
    /* 0x5C5 = 101 1100 0101: low 00101 = 5; (L6, L7, L8, L10, L12) = (1,1,1,1,0) = 15;
     * 5 ^ 15 = 10 (address 0x2E280) */
    cr_expect_eq(set_of("fermi", 0x5C5, 32), 10);
    cr_expect_eq(set_of("fermi", 0x5C5, 64), 10);  /* L5 = 0 */
    cr_expect_eq(set_of("fermi", 0x20, 64), 32);   /* address bit 12 -> set bit 5 */
    cr_expect_eq(set_of("fermi", 0x20, 32), 0);    /* ... only with 64 sets */
}

Test(cache_index, ipoly_is_the_remainder_modulo_the_polynomial)
{
    /* 32 sets, P = x^5 + x^2 + 1: x^5 = x^2 + 1, x^6 = x^3 + x, x^10 = (x^2 + 1)^2 */
    cr_expect_eq(set_of("ipoly", 32, 32), 5);
    cr_expect_eq(set_of("ipoly", 33, 32), 4);       /* x^5 + 1 = x^2 */
    cr_expect_eq(set_of("ipoly", 64, 32), 10);
    cr_expect_eq(set_of("ipoly", 1u << 10, 32), 17); /* x^4 + 1 */
    /* 16 sets, P = x^4 + x + 1: 0xFF = 0xF ^ x^4 (3) ^ x^5 (6) ^ x^6 (12) ^ x^7 (11) */
    cr_expect_eq(set_of("ipoly", 16, 16), 3);
    cr_expect_eq(set_of("ipoly", 0xFF, 16), 13);
    /* 64 sets, P = x^6 + x + 1: x^6 = x + 1, x^7 = x^2 + x */
    cr_expect_eq(set_of("ipoly", 64, 64), 3);
    cr_expect_eq(set_of("ipoly", 128, 64), 6);
    /* 8 sets, P = x^3 + x + 1 */
    cr_expect_eq(set_of("ipoly", 8, 8), 3);
    cr_expect_eq(set_of("ipoly", 12345, 1), 0);
}

/* Each aligned block of sets lines (at a few bases) covers every set once. */
static void expect_bijection(const char *name, unsigned sets)
{
    const uint64_t bases[] = {0, 1, 77, 0x12345, 0xFFFFF, 0x3ABCDEF01ull};
    const CacheIndex *ix = cache_index_find(name);
    static unsigned char seen[65536];
    for (size_t b = 0; b < sizeof bases / sizeof bases[0]; b++) {
        memset(seen, 0, sets);
        uint64_t base = bases[b] * sets;
        for (unsigned i = 0; i < sets; i++) {
            unsigned s = ix->set(base + i, sets);
            cr_assert_lt(s, sets, "%s: line %llu -> set %u of %u", name,
                         (unsigned long long)(base + i), s, sets);
            cr_assert_eq(seen[s]++, 0, "%s, %u sets: set %u twice in block %llu", name, sets,
                         s, (unsigned long long)bases[b]);
        }
    }
}

Test(cache_index, every_function_is_a_bijection_on_aligned_blocks)
{
    for (unsigned sets = 1; sets <= 65536; sets *= 2) {
        expect_bijection("linear", sets);
        expect_bijection("xor", sets);
        expect_bijection("ipoly", sets);
    }
    expect_bijection("fermi", 32);
    expect_bijection("fermi", 64);
}

Test(cache_index, ipoly_spreads_every_power_of_two_stride)
{
    static unsigned char seen[1024];
    for (unsigned sets = 2; sets <= 1024; sets *= 2)
        for (unsigned k = 0; k <= 24; k++) {
            memset(seen, 0, sets);
            for (uint64_t i = 0; i < sets; i++)
                cr_assert_eq(seen[set_of("ipoly", i << k, sets)]++, 0,
                             "%u sets, stride 2^%u: a set twice", sets, k);
        }
    /* linear and xor do not: 32 lines 2^10 apart in 32 sets */
    cr_expect_eq(set_of("linear", 3u << 10, 32), set_of("linear", 5u << 10, 32));
    cr_expect_eq(set_of("xor", 3u << 10, 32), set_of("xor", 5u << 10, 32));
}

Test(cache_index, supported_set_counts)
{
    const CacheIndex *lin = cache_index_find("linear"), *x = cache_index_find("xor");
    const CacheIndex *f = cache_index_find("fermi"), *p = cache_index_find("ipoly");
    cr_expect(lin->supports(24) && lin->supports(1));
    cr_expect(x->supports(64) && !x->supports(24) && !x->supports(0));
    cr_expect(f->supports(32) && f->supports(64) && !f->supports(16) && !f->supports(128));
    cr_expect(p->supports(65536) && !p->supports(131072) && !p->supports(48));
}

Test(cache_index, slices)
{
    char err[256] = "";
    cr_expect_eq(cache_index_slice(cache_index_find("linear"), 100, 12), 4);
    cr_expect_eq(cache_index_slice(cache_index_find("xor"), 0x4A, 8), 3);
    /* ipoly over 8 slices is ipoly itself; over 12, ipoly over 16 then mod 12 */
    cr_expect_eq(cache_index_slice(cache_index_find("ipoly"), 8, 8), 3);
    cr_expect_eq(cache_index_slice(cache_index_find("ipoly"), 0xFF, 12), 1); /* 13 mod 12 */
    cr_expect_eq(cache_index_slice(cache_index_find("ipoly"), 16, 12), 3);
    for (uint64_t l = 0; l < 4096; l++)
        cr_assert_lt(cache_index_slice(cache_index_find("ipoly"), l, 12), 12);
    cr_expect_eq(cache_index_slice_check("l2.slice_hash", "ipoly", 12, err, sizeof err), 0);
    cr_expect_eq(cache_index_slice_check("l2.slice_hash", "linear", 6, err, sizeof err), 0);
    cr_expect_eq(cache_index_slice_check("l2.slice_hash", "xor", 12, err, sizeof err), -1);
    cr_expect(strstr(err, "l2.slice_hash: xor") != NULL, "%s", err);
    cr_expect_eq(cache_index_slice_check("l2.slice_hash", "fermi", 8, err, sizeof err), -1);
    cr_expect(strstr(err, "l2.slice_hash") != NULL, "%s", err);
}

/* Reads lines[0..n) (line numbers) passes times, one after another through SM 0's L1. */
static void run_passes(TMem *t, const char *cfg, const uint64_t *lines, unsigned n,
                       unsigned passes)
{
    t_mem_open(t, cfg);
    uint64_t tag = 0;
    for (unsigned p = 0; p < passes; p++)
        for (unsigned i = 0; i < n; i++) {
            TmAccess a = t_line_read(lines[i] * 128);
            t_latency(t, 0, &a, ++tag);
        }
}

/* gtx480's L1: 16 KB, 4 ways of 128-byte lines = 32 sets. */
#define FERMI_L1 T_SAME_CLOCKS ";l1.bytes=16384;l1.ways=4"

static void expect_l1(const char *index, unsigned n, uint64_t hits)
{
    char cfg[256];
    uint64_t lines[16];
    for (unsigned i = 0; i < n; i++)
        lines[i] = 0x100 + i * 64ull; /* 8 KB apart */
    snprintf(cfg, sizeof cfg, "%s;l1.index=%s", FERMI_L1, index);
    TMem t;
    run_passes(&t, cfg, lines, n, 3);
    cr_expect_eq(t.ctr.l1_hits, hits, "l1.index=%s, %u lines: %llu hits", index, n,
                 (unsigned long long)t.ctr.l1_hits);
    cr_expect_eq(t.ctr.l1_misses, 3 * n - hits);
    t_mem_close(&t);
}

Test(cache_index, l1_lines_8k_apart_thrash_linear_and_fit_the_hashes)
{
    /* linear: every line in one set of 4 ways, read round robin: LRU misses each time */
    expect_l1("linear", 9, 0);
    expect_l1("linear", 16, 0);
    /* fermi: line bits 6, 7, 8, 10 of the 16 lines pick 8 sets, two lines each (bit 9,
     * address bit 16, is not hashed); ipoly: 16 different sets. Only the first pass
     * misses. */
    expect_l1("fermi", 9, 18);
    expect_l1("fermi", 16, 32);
    expect_l1("ipoly", 9, 18);
    expect_l1("ipoly", 16, 32);
    expect_l1("xor", 16, 32);
}

Test(cache_index, l2_slice_sets_follow_l2_index)
{
    /* 17 lines 512 lines apart: with l2.slice_hash = mod all go to slice 0 and, linear,
     * to its set 0 (line / 8 slices = 64k), one more than its 16 ways; the L1 (32 sets
     * of 8 ways) holds none of them across passes either. ipoly spreads 64k over 17
     * sets: only the first pass misses in L2. */
    uint64_t lines[17];
    for (unsigned i = 0; i < 17; i++)
        lines[i] = 512ull * (i + 1);
    TMem t;
    run_passes(&t, T_SAME_CLOCKS ";l2.slice_hash=mod", lines, 17, 3);
    cr_expect_eq(t.ctr.l1_hits, 0);
    cr_expect_eq(t.ctr.l2_hits, 0);
    t_mem_close(&t);
    run_passes(&t, T_SAME_CLOCKS ";l2.slice_hash=mod;l2.index=ipoly", lines, 17, 3);
    cr_expect_eq(t.ctr.l1_hits, 0);
    cr_expect_eq(t.ctr.l2_hits, 34);
    t_mem_close(&t);
}

Test(cache_index, keys_name_the_table)
{
    EmuConfig c;
    emu_config_defaults(&c);
    const char *keys[] = {"l1.index", "tex.index", "l2.index"};
    const char *vals[] = {c.l1_index, c.tex_index, c.l2_index};
    for (int k = 0; k < 3; k++) {
        cr_expect_str_eq(vals[k], "linear", "%s keeps today's index by default", keys[k]);
        const EmuCfgKey *row = NULL;
        for (size_t i = 0; i < emu_cfg_nkeys; i++)
            if (strcmp(emu_cfg_keys[i].key, keys[k]) == 0)
                row = &emu_cfg_keys[i];
        cr_assert(row, "no key %s", keys[k]);
        cr_expect_str_eq(row->unit, CACHE_INDEX_NAMES);
    }
    /* every listed name is a function */
    char names[] = CACHE_INDEX_NAMES;
    for (char *save, *p = strtok_r(names, "|", &save); p; p = strtok_r(NULL, "|", &save))
        cr_expect(cache_index_find(p), "'%s' has no function", p);
}

Test(cache_index, unknown_names_and_unsupported_counts_are_refused)
{
    char err[256] = "";
    EmuConfig c;
    emu_config_defaults(&c);
    cr_expect_eq(emu_config_set(&c, "l1.index", "modulo", err, sizeof err), -1);
    cr_expect(strstr(err, "l1.index") && strstr(err, "modulo"), "%s", err);
    cr_expect_null(cache_index_open("l2.index", "l2", "bogus", 64, err, sizeof err));
    cr_expect(strstr(err, "l2.index: unknown set-index function 'bogus'"), "%s", err);
    cr_expect_null(cache_index_open("tex.index", "tex", "xor", 24, err, sizeof err));
    cr_expect_str_eq(err, "tex.index: xor needs a power of two sets, and the tex has 24");

    /* through the units: gtx480's texture cache has 24 sets, a 16 KB 8-way L1 16 */
    c = t_cfg("tex.bytes=12288;tex.ways=4;tex.index=fermi");
    TmCounters ctr;
    memset(&ctr, 0, sizeof ctr);
    LdSt *u = ldst_new(&c, 0, &ctr, err, sizeof err);
    cr_expect_null(u);
    cr_expect_str_eq(err, "tex.index: fermi needs 32 or 64 sets, and the tex has 24");
    if (u)
        ldst_free(u);
    c = t_cfg("l1.bytes=16384;l1.index=fermi");
    u = ldst_new(&c, 0, &ctr, err, sizeof err);
    cr_expect_null(u);
    cr_expect_str_eq(err, "l1.index: fermi needs 32 or 64 sets, and the l1 has 16");
    if (u)
        ldst_free(u);
    c = t_cfg("l2.sets=48;l2.index=ipoly");
    MemSys *m = memsys_new(&c, &ctr, err, sizeof err);
    cr_expect_null(m);
    cr_expect_str_eq(err, "l2.index: ipoly needs a power of two up to 65536 sets, and the "
                     "l2 has 48");
    if (m)
        memsys_free(m);
}
