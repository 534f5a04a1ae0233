/*
 * 623-assist-compress.c - CABA's compression assist routines (Vijaykumar et al., "A Case
 * for Core-Assisted Bottleneck Acceleration in GPUs", ISCA 2015, Sec. 4) as xgpu assembly
 * (emulator/mech/assist/{bdi,fpc,cpack}_comp.s), run on the functional emulator as one
 * warp per line against the C encoders (mech/compress_*.c): fixed-seed lines of many
 * kinds on 64 and 128 B lines are compressed by the routine in device memory and by
 * xc_compress; the encoding, the size and the bytes [0, size) must be the same, nothing
 * may be written past the size (rounded up to a word), and the routine's output must
 * decode (C decoder) back to the line. Every BDI encoding, every FPC prefix and every
 * C-Pack code (and dictionary size) must have occurred. The warp instructions a line
 * costs are printed per codec and encoding.
 */
#include <inttypes.h>
#include <stdio.h>

#include "300-emu-util.h"
#include "mech/compress.h"
#include "xtest.h"

#define ASSIST_DIR XGPU_SOURCE_DIR "/emulator/mech/assist/"
#define LINES_PER_KIND 96
#define NKINDS 13

static EmuDevice *dev;
/* The line's place, exactly 64 or 128 B so that the memory check faults any read past
 * the line; the output buffer; the result word. */
static uint64_t d_in64, d_in128, d_out, d_res;

static void setup(void)
{
    dev = t_dev();
    cr_assert_eq(emu_malloc(dev, 64, &d_in64), EMU_OK);
    cr_assert_eq(emu_malloc(dev, 128, &d_in128), EMU_OK);
    cr_assert_eq(emu_malloc(dev, XC_LINE_MAX, &d_out), EMU_OK);
    cr_assert_eq(emu_malloc(dev, 4, &d_res), EMU_OK);
}

static void teardown(void) { emu_destroy(dev); }

TestSuite(assist_comp, .init = setup, .fini = teardown);

static const unsigned sizes[] = {64, 128};

/* A routine: its file, its kernel, the codec it encodes. */
typedef struct Routine {
    const char *file, *kernel;
    XcAlgo algo;
} Routine;

static const Routine routines[] = {
    {"bdi_comp.s", "caba_bdi_comp", XC_BDI},
    {"fpc_comp.s", "caba_fpc_comp", XC_FPC},
    {"cpack_comp.s", "caba_cpack_comp", XC_CPACK},
};

static EmuModule *load_routine(const Routine *r)
{
    char path[512];
    snprintf(path, sizeof path, "%s%s", ASSIST_DIR, r->file);
    char *src = xt_read(path, NULL);
    cr_assert(src, "cannot read %s", path);
    EmuModule *m = t_load(dev, src);
    free(src);
    return m;
}

/* Compresses line (n bytes) with one warp into comp; the routine's encoding and size in
 * *info; the warp instructions it took. */
static uint64_t run_routine(EmuModule *m, const Routine *r, const uint8_t *line, unsigned n,
                            uint8_t *comp, XcInfo *info)
{
    uint8_t out[XC_LINE_MAX];
    uint64_t d_in = n == 64 ? d_in64 : d_in128;
    cr_assert_eq(emu_copy_to_device(dev, d_in, line, n), EMU_OK);
    cr_assert_eq(emu_memset(dev, d_out, 0xa5, XC_LINE_MAX), EMU_OK);
    cr_assert_eq(emu_memset(dev, d_res, 0xee, 4), EMU_OK);
    uint8_t params[32] = {0};
    uint32_t lb = n;
    memcpy(params, &d_in, 8);
    memcpy(params + 8, &lb, 4);
    memcpy(params + 16, &d_out, 8);
    memcpy(params + 24, &d_res, 8);
    EmuLaunchStats st;
    EmuFault f;
    memset(&f, 0, sizeof f);
    int k = emu_kernel(m, r->kernel);
    cr_assert_geq(k, 0, "no kernel %s", r->kernel);
    EmuStatus s = emu_launch(dev, m, k, DIM(1, 1, 1), DIM(32, 1, 1), 0, params, sizeof params,
                             &st, &f);
    cr_assert_eq(s, EMU_OK, "%s: %s: pc %u: %s", r->kernel, emu_status_name(s), f.pc,
                 f.message);
    uint32_t res;
    cr_assert_eq(emu_copy_from_device(dev, &res, d_res, 4), EMU_OK);
    cr_assert_eq(emu_copy_from_device(dev, out, d_out, XC_LINE_MAX), EMU_OK);
    *info = (XcInfo){.algo = (uint8_t)r->algo, .encoding = (uint8_t)(res & 0xffff),
                     .bytes = (uint16_t)(res >> 16)};
    cr_assert_lt(res & 0xffff, 16, "%s: result word 0x%08x", r->kernel, res);
    cr_assert_leq(info->bytes, n, "%s: result word 0x%08x", r->kernel, res);
    unsigned end = (info->bytes + 3u) & ~3u;
    for (unsigned i = end; i < XC_LINE_MAX; i++)
        cr_assert_eq(out[i], 0xa5, "%s wrote byte %u past a %u B compressed size", r->kernel,
                     i, info->bytes);
    memcpy(comp, out, n);
    return st.warp_instructions;
}

/* --- lines ------------------------------------------------------------------------------ */

/* A fixed-seed xorshift64, so every run sees the same lines. */
static uint64_t rnd(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* A signed value that needs up to d bytes (d < 8), often the extremes or just past. */
static uint64_t small(uint64_t *s, unsigned d)
{
    uint64_t half = 1ull << (8 * d - 1), r = rnd(s);
    switch (r % 8) {
    case 0: return -half;
    case 1: return half - 1;
    }
    return (r >> 8) % (2 * half) - half;
}

/* Values of k bytes: the first a random base, the others base + a d-byte delta or (one in
 * four) a d-byte immediate; one in eight lines has one value just out of range. */
static void based(uint64_t *s, uint8_t *line, unsigned n, unsigned k, unsigned d)
{
    uint64_t base = rnd(s);
    for (unsigned i = 0; i < n / k; i++) {
        uint64_t v = i == 0 ? base : rnd(s) % 4 == 0 ? small(s, d) : base + small(s, d);
        xc_store(line + i * k, v, k);
    }
    if (rnd(s) % 8 == 0) {
        unsigned i = 1 + (unsigned)(rnd(s) % (n / k - 1));
        xc_store(line + i * k, base + (1ull << (8 * d - 1)), k);
    }
}

/* Line kind `kind` (0 .. NKINDS-1) of n bytes. */
static void make_line(unsigned kind, uint64_t *s, uint8_t *line, unsigned n)
{
    static const unsigned dd8[] = {1, 2, 4};
    memset(line, 0, n);
    switch (kind) {
    case 0: /* zeros */
        break;
    case 1: { /* one 8-byte value repeated */
        uint64_t v = rnd(s);
        for (unsigned i = 0; i < n; i += 8)
            xc_store(line + i, v, 8);
        break;
    }
    case 2: based(s, line, n, 8, dd8[rnd(s) % 3]); break;
    case 3: based(s, line, n, 4, 1 + (unsigned)(rnd(s) % 2)); break;
    case 4: based(s, line, n, 2, 1); break;
    case 5: /* small ints, one width per segment */
        for (unsigned g = 0; g < n; g += 16) {
            unsigned d = 1 + (unsigned)(rnd(s) % 2);
            for (unsigned w = 0; w < 16; w += 4)
                xc_store(line + g + w, small(s, d), 4);
        }
        break;
    case 6: /* FPC's patterns mixed by segment */
        for (unsigned g = 0; g < n; g += 16) {
            unsigned p = (unsigned)(rnd(s) % 6);
            for (unsigned w = 0; w < 16; w += 4) {
                uint32_t v = 0;
                switch (p) {
                case 1: v = (uint32_t)small(s, 1); break;
                case 2: v = (uint32_t)small(s, 2); break;
                case 3: v = (uint32_t)(rnd(s) & 0xff) * 0x01010101u; break;
                case 4: v = (uint32_t)rnd(s); break;
                case 5: v = rnd(s) % 2 ? 0 : (uint32_t)small(s, 1); break;
                }
                xc_store(line + g + w, v, 4);
            }
        }
        break;
    case 7: /* words zero or not, half and half */
        for (unsigned w = 0; w < n; w += 4)
            xc_store(line + w, rnd(s) % 2 ? 0 : rnd(s), 4);
        break;
    case 8: /* incompressible */
        for (unsigned i = 0; i < n; i += 8)
            xc_store(line + i, rnd(s), 8);
        break;
    case 9: { /* C-Pack's codes: up to four upper parts (five: raw), zeros, low bytes */
        uint32_t dict[5];
        unsigned nd = 1 + (unsigned)(rnd(s) % 5);
        for (unsigned k = 0; k < nd; k++)
            dict[k] = (uint32_t)rnd(s) | 0x100u;
        for (unsigned w = 0; w < n; w += 4) {
            uint32_t d = dict[rnd(s) % nd], v = 0;
            switch (rnd(s) % 5) {
            case 1: v = 1 + (uint32_t)(rnd(s) % 255); break;
            case 2: v = d; break;
            case 3: case 4: v = (d & ~0xffu) | (uint32_t)(rnd(s) & 0xff); break;
            }
            xc_store(line + w, v, 4);
        }
        break;
    }
    case 10: /* random bytes with zero runs */
        for (unsigned i = 0; i < n; i++)
            line[i] = rnd(s) % 3 ? 0 : (uint8_t)rnd(s);
        break;
    case 11: { /* a repeated value with one byte changed: almost repeat */
        uint64_t v = rnd(s);
        for (unsigned i = 0; i < n; i += 8)
            xc_store(line + i, v, 8);
        line[rnd(s) % n] ^= (uint8_t)(1u << (rnd(s) % 8));
        break;
    }
    case 12: { /* 8-byte values near the base with the high word crossing (carries) */
        uint64_t base = (rnd(s) | 0xffffffffull) - (rnd(s) % 64);
        for (unsigned i = 0; i < n; i += 8)
            xc_store(line + i, i == 0 ? base : base + small(s, 1 + (unsigned)(rnd(s) % 2)), 8);
        break;
    }
    }
}

/* --- what occurred ---------------------------------------------------------------------- */

typedef struct Seen {
    unsigned enc[2][16];    /* lines by encoding, per line size */
    unsigned fpc_pat[2][8]; /* FPC segments by prefix */
    unsigned cp_code[2][4]; /* C-Pack words by code */
    unsigned cp_dict[2][5]; /* C-Pack lines by dictionary entries */
    uint64_t insns[2][16];  /* warp instructions, summed per encoding */
} Seen;

static void note(Seen *sn, XcAlgo a, unsigned si, XcInfo info, const uint8_t *comp, unsigned n)
{
    sn->enc[si][info.encoding]++;
    if (a == XC_BDI || info.encoding != XC_ENC_PACKED)
        return;
    if (a == XC_FPC) {
        uint32_t head = (uint32_t)xc_load(comp, n == 128 ? 3 : 2);
        for (unsigned g = 0; g < n / 16; g++)
            sn->fpc_pat[si][head >> (3 * g) & 7]++;
    } else if (a == XC_CPACK) {
        unsigned nd = 0;
        for (unsigned w = 0; w < n / 4; w++) {
            unsigned nib = comp[w / 2] >> (4 * (w % 2)) & 15;
            sn->cp_code[si][nib & 3]++;
            if ((nib & 3) >= 2 && (nib >> 2) + 1 > nd)
                nd = (nib >> 2) + 1;
        }
        sn->cp_dict[si][nd]++;
    }
}

static void report(const Routine *r, const Seen *sn)
{
    for (unsigned si = 0; si < 2; si++)
        for (unsigned e = 0; e < 16; e++)
            if (sn->enc[si][e])
                printf("%s %3u B %-12s %4u lines, %5.1f warp instructions a line\n", r->kernel,
                       sizes[si], xc_encoding_name(r->algo, e), sn->enc[si][e],
                       (double)sn->insns[si][e] / sn->enc[si][e]);
}

/* Every kind of line on both sizes through the routine, against xc_compress. */
static void check_routine(const Routine *r, Seen *sn)
{
    EmuModule *m = load_routine(r);
    uint64_t s = 0x2545f4914f6cdd1dull ^ r->algo;
    memset(sn, 0, sizeof *sn);
    for (unsigned si = 0; si < 2; si++) {
        unsigned n = sizes[si];
        for (unsigned kind = 0; kind < NKINDS; kind++)
            for (unsigned t = 0; t < LINES_PER_KIND; t++) {
                uint8_t line[XC_LINE_MAX], want[XC_LINE_MAX], got[XC_LINE_MAX],
                    back[XC_LINE_MAX];
                make_line(kind, &s, line, n);
                XcInfo info = xc_compress(r->algo, line, n, want), ginfo;
                uint64_t insns = run_routine(m, r, line, n, got, &ginfo);
                cr_assert_eq(ginfo.encoding, info.encoding,
                             "%s, %u B line of kind %u (#%u): encoding %s, want %s", r->kernel,
                             n, kind, t, xc_encoding_name(r->algo, ginfo.encoding),
                             xc_encoding_name(r->algo, info.encoding));
                cr_assert_eq(ginfo.bytes, info.bytes,
                             "%s, %u B line of kind %u (#%u), %s: %u bytes, want %u", r->kernel,
                             n, kind, t, xc_encoding_name(r->algo, info.encoding), ginfo.bytes,
                             info.bytes);
                for (unsigned i = 0; i < info.bytes; i++)
                    cr_assert_eq(got[i], want[i],
                                 "%s, %u B line of kind %u (#%u), %s: byte %u is 0x%02x, "
                                 "want 0x%02x",
                                 r->kernel, n, kind, t, xc_encoding_name(r->algo, info.encoding),
                                 i, got[i], want[i]);
                cr_assert_eq(xc_decompress(r->algo, ginfo, got, ginfo.bytes, back, n), 0);
                cr_assert_arr_eq(back, line, n);
                note(sn, r->algo, si, info, want, n);
                sn->insns[si][info.encoding] += insns;
            }
    }
    report(r, sn);
}

Test(assist_comp, bdi_every_encoding)
{
    Seen sn;
    check_routine(&routines[0], &sn);
    static const unsigned codes[] = {XC_BDI_ZEROS, XC_BDI_REPEAT, XC_BDI_B8D1, XC_BDI_B8D2,
                                     XC_BDI_B8D4,  XC_BDI_B4D1,   XC_BDI_B4D2, XC_BDI_B2D1,
                                     XC_ENC_RAW};
    for (unsigned si = 0; si < 2; si++)
        for (unsigned i = 0; i < sizeof codes / sizeof codes[0]; i++)
            cr_expect_gt(sn.enc[si][codes[i]], 0, "BDI %s never occurred on %u B lines",
                         xc_bdi_name(codes[i]), sizes[si]);
}

Test(assist_comp, fpc_every_pattern)
{
    Seen sn;
    check_routine(&routines[1], &sn);
    static const unsigned prefixes[] = {0, 2, 3, 6, 7};
    for (unsigned si = 0; si < 2; si++) {
        cr_expect_gt(sn.enc[si][XC_ENC_PACKED], 0);
        cr_expect_gt(sn.enc[si][XC_ENC_RAW], 0, "no raw FPC line on %u B", sizes[si]);
        for (unsigned i = 0; i < 5; i++)
            cr_expect_gt(sn.fpc_pat[si][prefixes[i]], 0, "FPC prefix %u never on %u B lines",
                         prefixes[i], sizes[si]);
    }
}

Test(assist_comp, cpack_every_code)
{
    Seen sn;
    check_routine(&routines[2], &sn);
    for (unsigned si = 0; si < 2; si++) {
        cr_expect_gt(sn.enc[si][XC_ENC_RAW], 0, "no raw C-Pack line on %u B", sizes[si]);
        for (unsigned c = 0; c < 4; c++)
            cr_expect_gt(sn.cp_code[si][c], 0, "C-Pack code %u never on %u B lines", c,
                         sizes[si]);
        for (unsigned nd = 0; nd <= 4; nd++)
            cr_expect_gt(sn.cp_dict[si][nd], 0, "no C-Pack line with %u entries on %u B",
                         nd, sizes[si]);
    }
}
