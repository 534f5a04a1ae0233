/*
 * compress_fpc.c - Frequent Pattern Compression (Alameldeen and Wood, "Frequent Pattern
 * Compression: A Significance-Based Compression Scheme for L2 Caches", UW-Madison tech
 * report 1500, 2004; and "Adaptive Cache Compression for High-Performance Processors",
 * ISCA 2004) in CABA's segmented form (Vijaykumar et al., ISCA 2015, Sec. 4, on
 * algorithms other than BDI).
 *
 * FPC codes each 32-bit word with a 3-bit prefix naming a pattern, and the word's data in
 * as few bits as the pattern needs; decoding is serial, since a word's place depends on
 * every prefix before it. CABA moves the prefixes to the front of the line and gives one
 * pattern to a whole segment, so an assist warp decodes a segment's words in parallel
 * and finds the next segment from the pattern alone. Here a segment is 16 bytes (4 words)
 * and the patterns are five of FPC's eight, with their FPC prefixes:
 *
 *   prefix  pattern (every word of the segment)   payload per word
 *   000     zero                                  0 B
 *   010     8-bit value, sign-extended            1 B
 *   011     16-bit value, sign-extended           2 B  (little-endian)
 *   110     one byte repeated four times          1 B
 *   111     uncompressed                          4 B  (little-endian)
 *
 * (FPC's 000 codes a run of zero words; a zero segment is a run of four.) Layout: the
 * 3-bit prefixes of the segments in order, packed from bit 0 of byte 0 up and padded
 * with zero bits to a whole byte (64 B line: 4 segments, 12 bits, 2 B; 128 B line: 8
 * segments, 24 bits, 3 B), then each segment's payload, words in order. A segment takes
 * the pattern with the smallest payload that all its four words fit; 010 before 110 on a
 * tie. The line is compressed when that comes to fewer bytes than the line.
 */
#include "mech/common/compress.h"

#define FPC_SEG_WORDS 4
#define FPC_SEG_BYTES (FPC_SEG_WORDS * 4)
#define FPC_MAX_SEGS (XC_LINE_MAX / FPC_SEG_BYTES)

enum {
    FPC_ZERO = 0, /* 000 */
    FPC_S8 = 2,   /* 010 */
    FPC_S16 = 3,  /* 011 */
    FPC_REP = 6,  /* 110 */
    FPC_RAW = 7,  /* 111 */
};

/* Payload bytes per word of each prefix; 0xff: a prefix this form does not use. */
static const uint8_t fpc_word_bytes[8] = {0, 0xff, 1, 2, 0xff, 0xff, 1, 4};

/* The order a segment's patterns are tried in: smallest payload first. */
static const uint8_t fpc_try[] = {FPC_ZERO, FPC_S8, FPC_REP, FPC_S16, FPC_RAW};

static int fpc_matches(unsigned pat, uint32_t w)
{
    switch (pat) {
    case FPC_ZERO: return w == 0;
    case FPC_S8: return (uint32_t)(w + 0x80u) < 0x100u;
    case FPC_S16: return (uint32_t)(w + 0x8000u) < 0x10000u;
    case FPC_REP: return w == (w & 0xffu) * 0x01010101u;
    }
    return 1; /* FPC_RAW */
}

/* The word back from its payload p. */
static uint32_t fpc_word(unsigned pat, const uint8_t *p)
{
    switch (pat) {
    case FPC_ZERO: return 0;
    case FPC_S8: return ((uint32_t)p[0] ^ 0x80u) - 0x80u;
    case FPC_S16: return ((uint32_t)xc_load(p, 2) ^ 0x8000u) - 0x8000u;
    case FPC_REP: return p[0] * 0x01010101u;
    }
    return (uint32_t)xc_load(p, 4);
}

static unsigned fpc_head_bytes(unsigned nseg)
{
    return (nseg * 3 + 7) / 8;
}

const char *xc_fpc_name(unsigned enc)
{
    return enc == XC_ENC_PACKED ? "fpc" : enc == XC_ENC_RAW ? "uncompressed" : "invalid";
}

/* The pattern of the segment at seg (the first that all its words match). */
static unsigned fpc_pick(const uint8_t *seg)
{
    for (unsigned t = 0; t < sizeof fpc_try; t++) {
        unsigned w = 0;
        while (w < FPC_SEG_WORDS && fpc_matches(fpc_try[t], (uint32_t)xc_load(seg + 4 * w, 4)))
            w++;
        if (w == FPC_SEG_WORDS)
            return fpc_try[t];
    }
    return FPC_RAW;
}

XcInfo xc_fpc_compress(const uint8_t *line, unsigned line_bytes, uint8_t *out)
{
    assert(xc_line_ok(line_bytes));
    unsigned nseg = line_bytes / FPC_SEG_BYTES, size = fpc_head_bytes(nseg);
    uint8_t pat[FPC_MAX_SEGS];
    for (unsigned s = 0; s < nseg; s++) {
        pat[s] = (uint8_t)fpc_pick(line + s * FPC_SEG_BYTES);
        size += FPC_SEG_WORDS * fpc_word_bytes[pat[s]];
    }
    if (size >= line_bytes)
        return xc_raw(XC_FPC, line, line_bytes, out);
    uint32_t head = 0; /* at most 8 x 3 bits */
    for (unsigned s = 0; s < nseg; s++)
        head |= (uint32_t)pat[s] << (3 * s);
    unsigned hb = fpc_head_bytes(nseg);
    xc_store(out, head, hb);
    uint8_t *p = out + hb;
    for (unsigned s = 0; s < nseg; s++)
        for (unsigned w = 0; w < FPC_SEG_WORDS; w++, p += fpc_word_bytes[pat[s]])
            xc_store(p, xc_load(line + s * FPC_SEG_BYTES + 4 * w, 4), fpc_word_bytes[pat[s]]);
    return (XcInfo){.algo = XC_FPC, .encoding = XC_ENC_PACKED, .bytes = (uint16_t)size};
}

/* The size the head at in says the line has, or 0 for a prefix this form does not use or
 * padding bits that are not zero. in holds at least the head's bytes. */
static unsigned fpc_parse(const uint8_t *in, unsigned nseg, uint8_t *pat)
{
    unsigned hb = fpc_head_bytes(nseg), size = hb;
    uint32_t head = (uint32_t)xc_load(in, hb);
    if (head >> (3 * nseg))
        return 0;
    for (unsigned s = 0; s < nseg; s++) {
        pat[s] = (uint8_t)(head >> (3 * s) & 7);
        if (fpc_word_bytes[pat[s]] == 0xff)
            return 0;
        size += FPC_SEG_WORDS * fpc_word_bytes[pat[s]];
    }
    return size;
}

int xc_fpc_decompress(XcInfo info, const uint8_t *in, unsigned in_bytes, uint8_t *line,
                      unsigned line_bytes)
{
    if (info.algo != XC_FPC || !xc_line_ok(line_bytes))
        return -1;
    if (info.encoding == XC_ENC_RAW)
        return xc_raw_decode(info, in, in_bytes, line, line_bytes);
    unsigned nseg = line_bytes / FPC_SEG_BYTES, hb = fpc_head_bytes(nseg);
    uint8_t pat[FPC_MAX_SEGS];
    if (info.encoding != XC_ENC_PACKED || info.bytes >= line_bytes || info.bytes < hb ||
        in_bytes < info.bytes || fpc_parse(in, nseg, pat) != info.bytes)
        return -1;
    const uint8_t *p = in + hb;
    for (unsigned s = 0; s < nseg; s++)
        for (unsigned w = 0; w < FPC_SEG_WORDS; w++, p += fpc_word_bytes[pat[s]])
            xc_store(line + s * FPC_SEG_BYTES + 4 * w, fpc_word(pat[s], p), 4);
    return 0;
}
