/*
 * compress_bdi.c - Base-Delta-Immediate line compression (Pekhimenko et al., "Base-Delta-
 * Immediate Compression: Practical Data Compression for On-Chip Caches", PACT 2012,
 * Sec. 3-4), in the layout CABA's assist warps decode (Vijaykumar et al., ISCA 2015,
 * Sec. 4, where BDI is mapped to assist warps).
 *
 * The line is read as values of k = 8, 4 or 2 bytes. There are two bases: the line's first
 * value and an implicit zero (BDI's "immediate"). Each value is stored as a d-byte delta,
 * sign-extended on decode, from one of them, and a bit per value says which; an encoding
 * fails when some value is within a d-byte delta of neither base. Arithmetic is modulo
 * 2^(8k), as the k-byte adders of the hardware (or of an assist warp's lanes) wrap.
 *
 * Layout of a BkDd line of n = line/k values: a base-select mask of ceil(n/8) bytes (bit
 * i, byte i/8 from bit 0 up: value i is base + delta; clear: zero + delta), then the
 * base (k bytes), then the n deltas (d bytes each, in value order). The mask is what the
 * thesis' one byte of metadata at the head of the line becomes for more than 8 values.
 * Zeros store one zero byte, repeated values the value once. Sizes in bytes:
 *
 *   code  encoding   64 B line          128 B line
 *   0000  zeros      1                  1
 *   0001  repeat     8                  8
 *   0010  B8-D1      1 + 8 +  8 = 17    2 + 8 +  16 = 26
 *   0011  B8-D2      1 + 8 + 16 = 25    2 + 8 +  32 = 42
 *   0100  B8-D4      1 + 8 + 32 = 41    2 + 8 +  64 = 74
 *   0101  B4-D1      2 + 4 + 16 = 22    4 + 4 +  32 = 40
 *   0110  B4-D2      2 + 4 + 32 = 38    4 + 4 +  64 = 72
 *   0111  B2-D1      4 + 2 + 32 = 38    8 + 2 +  64 = 74
 *   1111  raw        64                 128
 *
 * (the paper's table for a 64-byte line without the mask: 1, 8, 16, 24, 40, 20, 36, 34).
 * The compressor takes the smallest encoding the line fits; of equal sizes the one earlier
 * in the table (B4-D2 before B2-D1 on 64 B lines, B8-D4 before B2-D1 on 128 B ones).
 */
#include "mech/common/compress.h"

/* Value and delta sizes of the base-delta codes (0 for zeros, repeat, raw). */
static const struct {
    uint8_t k, d; /* value bytes, delta bytes */
} bdi_shape[16] = {
    [XC_BDI_B8D1] = {8, 1}, [XC_BDI_B8D2] = {8, 2}, [XC_BDI_B8D4] = {8, 4},
    [XC_BDI_B4D1] = {4, 1}, [XC_BDI_B4D2] = {4, 2}, [XC_BDI_B2D1] = {2, 1},
};

/* Table order, which breaks ties between equal sizes. */
static const uint8_t bdi_order[] = {XC_BDI_ZEROS, XC_BDI_REPEAT, XC_BDI_B8D1, XC_BDI_B8D2,
                                    XC_BDI_B8D4,  XC_BDI_B4D1,   XC_BDI_B4D2, XC_BDI_B2D1};

static int bdi_delta_code(unsigned enc)
{
    return enc < 16 && bdi_shape[enc].k != 0;
}

/* All ones in the low k bytes. */
static uint64_t bdi_wmask(unsigned k)
{
    return k >= 8 ? ~0ull : (1ull << (8 * k)) - 1;
}

/* Does x (a k-byte value) read as a signed number fit in d bytes? Shifting the signed
 * range [-2^(8d-1), 2^(8d-1)) up by 2^(8d-1) makes it [0, 2^(8d)), so no sign extension
 * of x is needed. */
static int bdi_fits(uint64_t x, unsigned k, unsigned d)
{
    uint64_t half = 1ull << (8 * d - 1);
    return ((x + half) & bdi_wmask(k)) < half * 2;
}

/* The d-byte delta u, sign-extended (modulo 2^64). */
static uint64_t bdi_sext(uint64_t u, unsigned d)
{
    uint64_t half = 1ull << (8 * d - 1);
    return (u ^ half) - half;
}

unsigned xc_bdi_size(unsigned enc, unsigned line_bytes)
{
    if (!xc_line_ok(line_bytes))
        return 0;
    if (enc == XC_BDI_ZEROS)
        return 1;
    if (enc == XC_BDI_REPEAT)
        return 8;
    if (enc == XC_ENC_RAW)
        return line_bytes;
    if (!bdi_delta_code(enc))
        return 0;
    unsigned n = line_bytes / bdi_shape[enc].k;
    return (n + 7) / 8 + bdi_shape[enc].k + n * bdi_shape[enc].d;
}

const char *xc_bdi_name(unsigned enc)
{
    static const char *const names[16] = {
        [XC_BDI_ZEROS] = "zeros", [XC_BDI_REPEAT] = "repeat", [XC_BDI_B8D1] = "b8d1",
        [XC_BDI_B8D2] = "b8d2",   [XC_BDI_B8D4] = "b8d4",     [XC_BDI_B4D1] = "b4d1",
        [XC_BDI_B4D2] = "b4d2",   [XC_BDI_B2D1] = "b2d1",     [XC_ENC_RAW] = "uncompressed",
    };
    return enc < 16 && names[enc] ? names[enc] : "invalid";
}

/* --- compression ------------------------------------------------------------------------ */

static int bdi_all_equal(const uint8_t *line, unsigned line_bytes, unsigned k)
{
    for (unsigned i = k; i < line_bytes; i += k)
        if (memcmp(line + i, line, k))
            return 0;
    return 1;
}

/* Pack the line as base-delta code enc into out; 0 when some value fits neither base.
 * Out is written as the values are checked, so a failed attempt leaves rubbish there. */
static unsigned bdi_pack(unsigned enc, const uint8_t *line, unsigned line_bytes, uint8_t *out)
{
    unsigned k = bdi_shape[enc].k, d = bdi_shape[enc].d, n = line_bytes / k;
    unsigned mbytes = (n + 7) / 8;
    uint64_t base = xc_load(line, k), wm = bdi_wmask(k);
    uint8_t *deltas = out + mbytes + k;
    memset(out, 0, mbytes);
    xc_store(out + mbytes, base, k);
    for (unsigned i = 0; i < n; i++) {
        uint64_t v = xc_load(line + i * k, k);
        if (bdi_fits(v, k, d)) { /* the zero base: an immediate */
            xc_store(deltas + i * d, v, d);
        } else if (bdi_fits((v - base) & wm, k, d)) {
            out[i / 8] |= (uint8_t)(1u << (i % 8));
            xc_store(deltas + i * d, v - base, d);
        } else {
            return 0;
        }
    }
    return mbytes + k + n * d;
}

unsigned xc_bdi_encode(unsigned enc, const uint8_t *line, unsigned line_bytes, uint8_t *out)
{
    assert(xc_line_ok(line_bytes));
    switch (enc) {
    case XC_BDI_ZEROS:
        if (line[0] != 0 || !bdi_all_equal(line, line_bytes, 1))
            return 0;
        out[0] = 0;
        return 1;
    case XC_BDI_REPEAT:
        if (!bdi_all_equal(line, line_bytes, 8))
            return 0;
        memcpy(out, line, 8);
        return 8;
    case XC_ENC_RAW:
        memcpy(out, line, line_bytes);
        return line_bytes;
    }
    return bdi_delta_code(enc) ? bdi_pack(enc, line, line_bytes, out) : 0;
}

/* The smallest encoding that fits, earlier in the table on a tie. Each attempt packs
 * into scratch; the winner is packed again into out. */
XcInfo xc_bdi_compress(const uint8_t *line, unsigned line_bytes, uint8_t *out)
{
    assert(xc_line_ok(line_bytes));
    uint8_t scratch[XC_LINE_MAX];
    unsigned best = XC_ENC_RAW, best_size = line_bytes;
    for (unsigned i = 0; i < sizeof bdi_order; i++) {
        unsigned enc = bdi_order[i];
        if (xc_bdi_size(enc, line_bytes) < best_size &&
            xc_bdi_encode(enc, line, line_bytes, scratch)) {
            best = enc;
            best_size = xc_bdi_size(enc, line_bytes);
        }
    }
    if (best == XC_ENC_RAW)
        return xc_raw(XC_BDI, line, line_bytes, out);
    xc_bdi_encode(best, line, line_bytes, out);
    return (XcInfo){.algo = XC_BDI, .encoding = (uint8_t)best, .bytes = (uint16_t)best_size};
}

/* --- decompression ---------------------------------------------------------------------- */

/* Every mask bit, base and delta is a valid value, so only the sizes are checked. */
static void bdi_unpack(unsigned enc, const uint8_t *in, uint8_t *line, unsigned line_bytes)
{
    unsigned k = bdi_shape[enc].k, d = bdi_shape[enc].d, n = line_bytes / k;
    unsigned mbytes = (n + 7) / 8;
    uint64_t base = xc_load(in + mbytes, k);
    const uint8_t *deltas = in + mbytes + k;
    for (unsigned i = 0; i < n; i++) {
        uint64_t v = bdi_sext(xc_load(deltas + i * d, d), d);
        if (in[i / 8] >> (i % 8) & 1)
            v += base;
        xc_store(line + i * k, v, k);
    }
}

int xc_bdi_decompress(XcInfo info, const uint8_t *in, unsigned in_bytes, uint8_t *line,
                      unsigned line_bytes)
{
    unsigned size = xc_bdi_size(info.encoding, line_bytes);
    if (info.algo != XC_BDI || size == 0 || info.bytes != size || in_bytes < size)
        return -1;
    switch (info.encoding) {
    case XC_BDI_ZEROS:
        if (in[0] != 0)
            return -1;
        memset(line, 0, line_bytes);
        return 0;
    case XC_BDI_REPEAT:
        for (unsigned i = 0; i < line_bytes; i += 8)
            memcpy(line + i, in, 8);
        return 0;
    case XC_ENC_RAW:
        return xc_raw_decode(info, in, in_bytes, line, line_bytes);
    }
    bdi_unpack(info.encoding, in, line, line_bytes);
    return 0;
}
