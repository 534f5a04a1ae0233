/*
 * 620-assist-util.h - what the tests of CABA's assist routines (622 decompression, 623
 * compression) share: loading a routine's assembly from emulator/mech/caba/assist/, the
 * fixed-seed lines of every kind the codecs must see, and the tally of the encodings,
 * patterns and codes that occurred. Include after 300-emu-util.h and mech/common/compress.h; the
 * test defines `dev`, the device the routines load on.
 */
#ifndef XGPU_TEST_620_ASSIST_UTIL_H
#define XGPU_TEST_620_ASSIST_UTIL_H

#include <inttypes.h>
#include <stdio.h>

#include "300-emu-util.h"
#include "mech/common/compress.h"
#include "xtest.h"

#define ASSIST_DIR XGPU_SOURCE_DIR "/emulator/mech/caba/assist/"
#define LINES_PER_KIND 96
#define NKINDS 13

static EmuDevice *dev;
static const unsigned sizes[] = {64, 128};

/* A routine: its file, its kernel, the codec it encodes or decodes. */
typedef struct Routine {
    const char *file, *kernel;
    XcAlgo algo;
} Routine;

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

#endif
