/*
 * compress_cpack.c - C-Pack line compression (Chen, Yang, Dick, Shang and Lekatsas,
 * "C-Pack: A High-Performance Microprocessor Cache Compression Algorithm", IEEE TVLSI
 * 18(8), 2010) in CABA's simplified form (Vijaykumar et al., ISCA 2015,
 * Sec. 4, on algorithms other than BDI).
 *
 * C-Pack codes each 32-bit word against a small dictionary of recent words: all zero,
 * zero but the low byte, a full match, a match of the upper bytes, and so on, with codes
 * of 2 or 4 bits and dictionary indices and raw bits of varying length. CABA keeps only
 * the four patterns that leave a word a fixed size, with at most four dictionary entries
 * built from the line itself, and moves all codes and the dictionary to the head of the
 * line; a line that needs an unmatched (xxxx) word, or a fifth entry, stays uncompressed.
 *
 *   code  pattern  the word is                               payload
 *   00    zzzz     zero                                      -
 *   01    zzzx     zero but its low byte                     1 B: the low byte
 *   10    mmmm     dictionary entry idx                      -
 *   11    mmmx     entry idx with its low byte replaced      1 B: the low byte
 *
 * Layout: a nibble per word, two words a byte, word 0 in the low nibble of byte 0 (bits
 * 0-1: the code, bits 2-3: idx, 0 for zzzz and zzzx): 8 B for a 64 B line (16 words),
 * 16 B for a 128 B line (32 words); then the dictionary, 4 B (little-endian) per entry;
 * then one payload byte per zzzx or mmmx word, in word order. The number of entries is
 * not stored: it is one more than the largest idx any mmmm or mmmx word uses (none: no
 * dictionary). Every entry the compressor makes is used by the word it was made from, so
 * this recovers the dictionary exactly.
 *
 * The dictionary is built greedily, the way CABA's compression assist warp tests all
 * lanes against one candidate at a time: zero-class words (zzzz, zzzx) never need an
 * entry; then, while some word is uncovered and there are fewer than four entries, the
 * first uncovered word becomes the next entry and covers every word whose upper three
 * bytes equal its own. Each word then takes the smallest code that describes it: zzzz,
 * mmmm (the first entry equal to it), zzzx, then mmmx (the first entry whose upper bytes
 * match). Sizes: 64 B line 8 + 4 x entries + payload <= 40 B; 128 B line <= 64 B.
 */
#include "mech/common/compress.h"

#define CP_MAX_WORDS (XC_LINE_MAX / 4)
#define CP_MAX_DICT 4

enum {
    CP_ZZZZ = 0, /* 00 */
    CP_ZZZX = 1, /* 01 */
    CP_MMMM = 2, /* 10 */
    CP_MMMX = 3, /* 11 */
};

/* A line's words, their codes and the dictionary. */
typedef struct CpLine {
    unsigned nwords, ndict;
    uint32_t word[CP_MAX_WORDS];
    uint8_t code[CP_MAX_WORDS], idx[CP_MAX_WORDS];
    uint32_t dict[CP_MAX_DICT];
} CpLine;

const char *xc_cpack_name(unsigned enc)
{
    return enc == XC_ENC_PACKED ? "cpack" : enc == XC_ENC_RAW ? "uncompressed" : "invalid";
}

static int cp_has_payload(unsigned code)
{
    return code == CP_ZZZX || code == CP_MMMX;
}

static unsigned cp_size(const CpLine *c)
{
    unsigned size = c->nwords / 2 + 4 * c->ndict;
    for (unsigned i = 0; i < c->nwords; i++)
        size += (unsigned)cp_has_payload(c->code[i]);
    return size;
}

/* --- compression ------------------------------------------------------------------------ */

/* The dictionary, greedily; 0 when four entries leave a word uncovered. */
static int cp_build_dict(CpLine *c)
{
    uint8_t covered[CP_MAX_WORDS];
    for (unsigned i = 0; i < c->nwords; i++)
        covered[i] = (c->word[i] >> 8) == 0;
    for (unsigned i = 0; i < c->nwords; i++) {
        if (covered[i])
            continue;
        if (c->ndict == CP_MAX_DICT)
            return 0;
        uint32_t d = c->word[i];
        c->dict[c->ndict++] = d;
        for (unsigned j = i; j < c->nwords; j++)
            covered[j] |= (c->word[j] >> 8) == (d >> 8);
    }
    return 1;
}

/* The first entry equal to w (exact), or whose upper bytes are w's; -1 for none. */
static int cp_find(const CpLine *c, uint32_t w, int exact)
{
    for (unsigned k = 0; k < c->ndict; k++)
        if (exact ? c->dict[k] == w : (c->dict[k] >> 8) == (w >> 8))
            return (int)k;
    return -1;
}

static void cp_assign_codes(CpLine *c)
{
    for (unsigned i = 0; i < c->nwords; i++) {
        uint32_t w = c->word[i];
        int k = -1;
        c->idx[i] = 0;
        if (w == 0) {
            c->code[i] = CP_ZZZZ;
        } else if ((k = cp_find(c, w, 1)) >= 0) {
            c->code[i] = CP_MMMM;
        } else if ((w >> 8) == 0) {
            c->code[i] = CP_ZZZX;
        } else {
            k = cp_find(c, w, 0);
            assert(k >= 0); /* the dictionary covers every word */
            c->code[i] = CP_MMMX;
        }
        if (k >= 0)
            c->idx[i] = (uint8_t)k;
    }
}

static void cp_write(const CpLine *c, uint8_t *out)
{
    unsigned hb = c->nwords / 2;
    memset(out, 0, hb);
    for (unsigned i = 0; i < c->nwords; i++)
        out[i / 2] |= (uint8_t)((c->code[i] | c->idx[i] << 2) << (4 * (i % 2)));
    for (unsigned k = 0; k < c->ndict; k++)
        xc_store(out + hb + 4 * k, c->dict[k], 4);
    uint8_t *p = out + hb + 4 * c->ndict;
    for (unsigned i = 0; i < c->nwords; i++)
        if (cp_has_payload(c->code[i]))
            *p++ = (uint8_t)c->word[i];
}

XcInfo xc_cpack_compress(const uint8_t *line, unsigned line_bytes, uint8_t *out)
{
    assert(xc_line_ok(line_bytes));
    CpLine c = {.nwords = line_bytes / 4};
    for (unsigned i = 0; i < c.nwords; i++)
        c.word[i] = (uint32_t)xc_load(line + 4 * i, 4);
    if (!cp_build_dict(&c))
        return xc_raw(XC_CPACK, line, line_bytes, out);
    cp_assign_codes(&c);
    unsigned size = cp_size(&c);
    if (size >= line_bytes) /* cannot happen with four entries; kept for the rule */
        return xc_raw(XC_CPACK, line, line_bytes, out);
    cp_write(&c, out);
    return (XcInfo){.algo = XC_CPACK, .encoding = XC_ENC_PACKED, .bytes = (uint16_t)size};
}

/* --- decompression ---------------------------------------------------------------------- */

/* Codes, indices and the entry count from the head at in (nwords / 2 bytes); 0 when a
 * zero-class word carries an index. */
static int cp_parse_head(CpLine *c, const uint8_t *in)
{
    for (unsigned i = 0; i < c->nwords; i++) {
        unsigned nib = in[i / 2] >> (4 * (i % 2)) & 0xf;
        c->code[i] = nib & 3;
        c->idx[i] = (uint8_t)(nib >> 2);
        if (c->code[i] == CP_MMMM || c->code[i] == CP_MMMX) {
            if (c->idx[i] + 1u > c->ndict)
                c->ndict = c->idx[i] + 1u;
        } else if (c->idx[i]) {
            return 0;
        }
    }
    return 1;
}

int xc_cpack_decompress(XcInfo info, const uint8_t *in, unsigned in_bytes, uint8_t *line,
                        unsigned line_bytes)
{
    if (info.algo != XC_CPACK || !xc_line_ok(line_bytes))
        return -1;
    if (info.encoding == XC_ENC_RAW)
        return xc_raw_decode(info, in, in_bytes, line, line_bytes);
    CpLine c = {.nwords = line_bytes / 4};
    unsigned hb = c.nwords / 2;
    if (info.encoding != XC_ENC_PACKED || info.bytes >= line_bytes || info.bytes < hb ||
        in_bytes < info.bytes || !cp_parse_head(&c, in) || cp_size(&c) != info.bytes)
        return -1;
    const uint8_t *p = in + hb + 4 * c.ndict;
    for (unsigned i = 0; i < c.nwords; i++) {
        uint32_t w = 0;
        if (c.code[i] == CP_MMMM || c.code[i] == CP_MMMX)
            w = (uint32_t)xc_load(in + hb + 4 * c.idx[i], 4);
        if (cp_has_payload(c.code[i]))
            w = (w & ~0xffu) | *p++;
        xc_store(line + 4 * i, w, 4);
    }
    return 0;
}
