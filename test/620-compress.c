/*
 * 620-compress.c - the line codecs of CABA's compression (mech/common/compress_*.c) driven
 * directly: BDI's sizes per encoding on 64 and 128 B lines, each encoding chosen on a
 * hand-built line with its exact size (the tie rule and the delta-range boundaries
 * included) and one line's bytes in full; FPC's and C-Pack's heads, payloads and sizes on
 * hand-built lines; round trips of every codec on both line sizes over random,
 * structured and adversarial lines; decoders refusing truncated inputs, wrong sizes and
 * codes no encoder writes, without writing past the line; the burst count.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "mech/common/compress.h"

static const XcAlgo algos[] = {XC_BDI, XC_FPC, XC_CPACK};
static const unsigned sizes[] = {64, 128};

/* A fixed-seed xorshift64, so every run sees the same lines. */
static uint64_t rnd(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* Value i of a line of k-byte values. */
static void put(uint8_t *line, unsigned k, unsigned i, uint64_t v)
{
    xc_store(line + i * k, v, k);
}

/* Compress, check what any compressed line must satisfy, and decode it back. */
static XcInfo round_trip(XcAlgo a, const uint8_t *line, unsigned n)
{
    uint8_t out[XC_LINE_MAX], back[XC_LINE_MAX + 8];
    XcInfo info = xc_compress(a, line, n, out);
    cr_assert_eq(info.algo, a);
    if (info.encoding == XC_ENC_RAW) {
        cr_assert_eq(info.bytes, n);
        cr_assert_arr_eq(out, line, n);
    } else {
        cr_assert_lt(info.bytes, n, "%s on %u B: compressed must be smaller",
                     xc_encoding_name(a, info.encoding), n);
        cr_assert_gt(info.bytes, 0);
    }
    memset(back, 0xa5, sizeof back);
    cr_assert_eq(xc_decompress(a, info, out, info.bytes, back, n), 0, "%s %s",
                 xc_encoding_name(a, info.encoding), "refused its own output");
    cr_assert_arr_eq(back, line, n, "%s: the line came back different",
                     xc_encoding_name(a, info.encoding));
    for (unsigned i = n; i < sizeof back; i++)
        cr_assert_eq(back[i], 0xa5, "decode wrote past the line");
    return info;
}

static XcInfo bdi(const uint8_t *line, unsigned n)
{
    XcInfo info = round_trip(XC_BDI, line, n);
    cr_assert_eq(info.bytes, xc_bdi_size(info.encoding, n));
    return info;
}

/* --- BDI ---------------------------------------------------------------------------------- */

Test(bdi, sizes_per_encoding)
{
    /* mask (ceil(values / 8) B) + base + values x delta */
    static const struct {
        unsigned enc, s64, s128;
    } t[] = {
        {XC_BDI_ZEROS, 1, 1},   {XC_BDI_REPEAT, 8, 8},
        {XC_BDI_B8D1, 17, 26},  /* 1+8+8,  2+8+16 */
        {XC_BDI_B8D2, 25, 42},  /* 1+8+16, 2+8+32 */
        {XC_BDI_B8D4, 41, 74},  /* 1+8+32, 2+8+64 */
        {XC_BDI_B4D1, 22, 40},  /* 2+4+16, 4+4+32 */
        {XC_BDI_B4D2, 38, 72},  /* 2+4+32, 4+4+64 */
        {XC_BDI_B2D1, 38, 74},  /* 4+2+32, 8+2+64 */
        {XC_ENC_RAW, 64, 128},
    };
    for (unsigned i = 0; i < sizeof t / sizeof t[0]; i++) {
        cr_expect_eq(xc_bdi_size(t[i].enc, 64), t[i].s64, "%s", xc_bdi_name(t[i].enc));
        cr_expect_eq(xc_bdi_size(t[i].enc, 128), t[i].s128, "%s", xc_bdi_name(t[i].enc));
    }
    for (unsigned enc = 8; enc < 15; enc++)
        cr_expect_eq(xc_bdi_size(enc, 64), 0, "code %u is no encoding", enc);
    cr_expect_eq(xc_bdi_size(XC_BDI_B8D1, 32), 0, "32 B lines are not taken");
    cr_expect_eq(xc_bdi_size(16, 64), 0);
}

Test(bdi, names)
{
    static const char *const want[] = {"zeros", "repeat", "b8d1", "b8d2",
                                       "b8d4",  "b4d1", "b4d2", "b2d1"};
    for (unsigned enc = 0; enc < 8; enc++)
        cr_expect_str_eq(xc_encoding_name(XC_BDI, enc), want[enc]);
    cr_expect_str_eq(xc_encoding_name(XC_BDI, XC_ENC_RAW), "uncompressed");
    cr_expect_str_eq(xc_encoding_name(XC_BDI, 9), "invalid");
    cr_expect_str_eq(xc_encoding_name(XC_FPC, XC_ENC_PACKED), "fpc");
    cr_expect_str_eq(xc_encoding_name(XC_FPC, XC_ENC_RAW), "uncompressed");
    cr_expect_str_eq(xc_encoding_name(XC_CPACK, XC_ENC_PACKED), "cpack");
    cr_expect_str_eq(xc_encoding_name(XC_CPACK, 1), "invalid");
}

Test(bdi, zeros_and_repeat)
{
    for (unsigned s = 0; s < 2; s++) {
        unsigned n = sizes[s];
        uint8_t line[XC_LINE_MAX] = {0}, out[XC_LINE_MAX];
        XcInfo z = bdi(line, n);
        cr_expect_eq(z.encoding, XC_BDI_ZEROS);
        cr_expect_eq(z.bytes, 1);
        for (unsigned i = 0; i < n / 8; i++)
            put(line, 8, i, 0x0123456789abcdefull);
        XcInfo r = bdi(line, n);
        cr_expect_eq(r.encoding, XC_BDI_REPEAT);
        cr_expect_eq(r.bytes, 8);
        xc_bdi_compress(line, n, out);
        cr_expect_eq(xc_load(out, 8), 0x0123456789abcdefull, "the value, once");
    }
}

#define B8 0x1122334455667788ull

/* 8 values per 64 B: base B8, both ends of the 1-byte delta range, immediates. */
static void b8d1_line(uint8_t *line, unsigned n)
{
    static const uint64_t v[8] = {B8, B8 + 127, B8 - 128, 5, B8 + 1, (uint64_t)-3, B8 + 2, 0};
    for (unsigned i = 0; i < n / 8; i++)
        put(line, 8, i, i < 8 ? v[i] : B8 + (i - 8));
}

Test(bdi, b8d1_layout_64)
{
    uint8_t line[64], out[64];
    b8d1_line(line, 64);
    XcInfo info = bdi(line, 64);
    cr_assert_eq(info.encoding, XC_BDI_B8D1);
    cr_assert_eq(info.bytes, 17, "1 mask + 8 base + 8 x 1");
    xc_bdi_compress(line, 64, out);
    /* values 0, 1, 2, 4, 6 are from the base: bits 0x01|0x02|0x04|0x10|0x40 */
    const uint8_t want[17] = {0x57, 0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11,
                              0x00, 0x7f, 0x80, 0x05, 0x01, 0xfd, 0x02, 0x00};
    cr_assert_arr_eq(out, want, 17);
}

Test(bdi, b8d1_128)
{
    uint8_t line[128];
    b8d1_line(line, 128);
    XcInfo info = bdi(line, 128);
    cr_expect_eq(info.encoding, XC_BDI_B8D1);
    cr_expect_eq(info.bytes, 26, "2 mask + 8 base + 16 x 1");
}

/* The delta of value 1 from the base (d1 beyond the 1-byte range) decides. */
static XcInfo b8_with(unsigned n, uint64_t v1)
{
    uint8_t line[XC_LINE_MAX];
    for (unsigned i = 0; i < n / 8; i++)
        put(line, 8, i, B8 + i);
    put(line, 8, 1, v1);
    return bdi(line, n);
}

Test(bdi, delta_range_boundaries)
{
    for (unsigned s = 0; s < 2; s++) {
        unsigned n = sizes[s];
        cr_expect_eq(b8_with(n, B8 + 127).encoding, XC_BDI_B8D1);
        cr_expect_eq(b8_with(n, B8 - 128).encoding, XC_BDI_B8D1);
        cr_expect_eq(b8_with(n, B8 + 128).encoding, XC_BDI_B8D2, "+128 needs 2 bytes");
        cr_expect_eq(b8_with(n, B8 - 129).encoding, XC_BDI_B8D2);
        cr_expect_eq(b8_with(n, 127).encoding, XC_BDI_B8D1, "zero base, +127");
        cr_expect_eq(b8_with(n, (uint64_t)-128).encoding, XC_BDI_B8D1, "zero base, -128");
        cr_expect_eq(b8_with(n, 128).encoding, XC_BDI_B8D2, "zero base, 128");
        cr_expect_eq(b8_with(n, B8 + 32767).encoding, XC_BDI_B8D2);
        cr_expect_eq(b8_with(n, B8 - 32768).encoding, XC_BDI_B8D2);
        cr_expect_eq(b8_with(n, B8 + 32768).encoding, XC_BDI_B8D4);
        cr_expect_eq(b8_with(n, B8 + 0x7fffffff).encoding, XC_BDI_B8D4);
        cr_expect_eq(b8_with(n, B8 - 0x80000000ull).encoding, XC_BDI_B8D4);
        cr_expect_eq(b8_with(n, B8 + 0x80000000ull).encoding, XC_ENC_RAW, "beyond 4 bytes");
        cr_expect_eq(b8_with(n, 0x80000000ull).encoding, XC_ENC_RAW);
    }
}

Test(bdi, b8d2_and_b8d4_sizes)
{
    cr_expect_eq(b8_with(64, B8 + 300).bytes, 25, "1 + 8 + 8 x 2");
    cr_expect_eq(b8_with(128, B8 + 300).bytes, 42, "2 + 8 + 16 x 2");
    cr_expect_eq(b8_with(64, B8 + 100000).bytes, 41, "1 + 8 + 8 x 4");
    cr_expect_eq(b8_with(128, B8 + 100000).bytes, 74, "2 + 8 + 16 x 4");
}

/* 4-byte values: the base 0x40001000, then base + hi, base + lo, base + i in turn, and an
 * immediate 7. The odd values vary, so no 8-byte view is within 4 bytes of its base. */
static void b4_line(uint8_t *line, unsigned n, int32_t lo, int32_t hi)
{
    for (unsigned i = 0; i < n / 4; i++) {
        int32_t d = i % 3 == 1 ? hi : i % 3 == 2 ? lo : (int32_t)i;
        put(line, 4, i, (uint32_t)(0x40001000 + d));
    }
    put(line, 4, 5, 7);
}

Test(bdi, b4d1)
{
    uint8_t line[XC_LINE_MAX];
    b4_line(line, 64, -128, 127);
    XcInfo a = bdi(line, 64);
    cr_expect_eq(a.encoding, XC_BDI_B4D1);
    cr_expect_eq(a.bytes, 22, "2 mask + 4 base + 16 x 1");
    b4_line(line, 128, -128, 127);
    XcInfo b = bdi(line, 128);
    cr_expect_eq(b.encoding, XC_BDI_B4D1);
    cr_expect_eq(b.bytes, 40, "4 mask + 4 base + 32 x 1");
}

Test(bdi, b4d2)
{
    uint8_t line[XC_LINE_MAX];
    b4_line(line, 64, -32768, 32767);
    XcInfo a = bdi(line, 64);
    cr_expect_eq(a.encoding, XC_BDI_B4D2);
    cr_expect_eq(a.bytes, 38, "2 mask + 4 base + 16 x 2");
    b4_line(line, 128, -32768, 32767);
    XcInfo b = bdi(line, 128);
    cr_expect_eq(b.encoding, XC_BDI_B4D2);
    cr_expect_eq(b.bytes, 72, "4 mask + 4 base + 32 x 2");
    b4_line(line, 64, -32769, 0);
    cr_expect_eq(bdi(line, 64).encoding, XC_ENC_RAW, "-32769 from the base: no B4 fits");
}

/* Words 0x00011000 + i (even) and 0x00001000 + i (odd): the odd ones are zero + a 2-byte
 * delta, so B4-D1 fails and B4-D2 fits; every 2-byte half is the base 0x1000 + i or
 * zero + 0 or 1, so B2-D1 fits too. 38 B each on a 64 B line: the table order picks
 * B4-D2. */
Test(bdi, tie_goes_to_table_order)
{
    uint8_t line[XC_LINE_MAX];
    for (unsigned s = 0; s < 2; s++) {
        unsigned n = sizes[s], out_n;
        uint8_t out[XC_LINE_MAX];
        for (unsigned i = 0; i < n / 4; i++)
            put(line, 4, i, (i % 2 ? 0x00001000u : 0x00011000u) + i);
        out_n = xc_bdi_encode(XC_BDI_B2D1, line, n, out);
        cr_expect_eq(out_n, xc_bdi_size(XC_BDI_B2D1, n), "B2-D1 fits as well");
        cr_expect_eq(xc_bdi_encode(XC_BDI_B4D1, line, n, out), 0);
        XcInfo info = bdi(line, n);
        cr_expect_eq(info.encoding, XC_BDI_B4D2);
        cr_expect_eq(info.bytes, n == 64 ? 38 : 72);
    }
}

/* 2-byte values 0x8000 + i: as 4-byte words they step by 0x20002, beyond any delta. */
Test(bdi, b2d1)
{
    uint8_t line[XC_LINE_MAX];
    for (unsigned s = 0; s < 2; s++) {
        unsigned n = sizes[s];
        for (unsigned i = 0; i < n / 2; i++)
            put(line, 2, i, 0x8000u + i);
        XcInfo info = bdi(line, n);
        cr_expect_eq(info.encoding, XC_BDI_B2D1);
        cr_expect_eq(info.bytes, n == 64 ? 38 : 74, "4+2+32, 8+2+64");
        put(line, 2, 3, 0x8000u + 128);
        cr_expect_eq(bdi(line, n).encoding, XC_ENC_RAW, "+128 breaks B2-D1");
    }
}

/* The choice is the smallest that fits: nothing smaller fits, on any line. */
Test(bdi, choice_is_minimal)
{
    uint64_t seed = 7;
    uint8_t line[XC_LINE_MAX], out[XC_LINE_MAX];
    for (unsigned t = 0; t < 2000; t++) {
        unsigned n = sizes[t % 2], k = 2u << (t % 3);
        uint64_t base = rnd(&seed), span = 1ull << (rnd(&seed) % 40);
        for (unsigned i = 0; i < n / k; i++)
            put(line, k, i, (rnd(&seed) % 4 ? base : 0) + rnd(&seed) % span - span / 2);
        XcInfo info = bdi(line, n);
        for (unsigned enc = 0; enc < 8; enc++)
            if (xc_bdi_size(enc, n) < info.bytes ||
                (xc_bdi_size(enc, n) == info.bytes && enc < info.encoding))
                cr_assert_eq(xc_bdi_encode(enc, line, n, out), 0, "%s fits %s",
                             xc_bdi_name(enc), xc_bdi_name(info.encoding));
    }
}

/* A line packed by a larger encoding than needed (CABA's compressor tries the last
 * encoding that worked first) still decodes. */
Test(bdi, encode_as_given)
{
    uint8_t line[64], out[64], back[64];
    b8d1_line(line, 64);
    cr_assert_eq(xc_bdi_encode(XC_BDI_B8D4, line, 64, out), 41);
    XcInfo info = {.algo = XC_BDI, .encoding = XC_BDI_B8D4, .bytes = 41};
    cr_assert_eq(xc_bdi_decompress(info, out, 41, back, 64), 0);
    cr_assert_arr_eq(back, line, 64);
    cr_expect_eq(xc_bdi_encode(XC_BDI_ZEROS, line, 64, out), 0);
    cr_expect_eq(xc_bdi_encode(XC_BDI_REPEAT, line, 64, out), 0);
    cr_expect_eq(xc_bdi_encode(9, line, 64, out), 0, "no such code");
}

Test(bdi, decoder_rejects)
{
    uint8_t line[64], out[64], back[64];
    b8d1_line(line, 64);
    XcInfo ok = xc_bdi_compress(line, 64, out), bad;
    cr_assert_eq(ok.bytes, 17);
    cr_expect_eq(xc_bdi_decompress(ok, out, 16, back, 64), -1, "truncated");
    bad = ok, bad.bytes = 18;
    cr_expect_eq(xc_bdi_decompress(bad, out, 64, back, 64), -1, "size of no encoding");
    bad = ok, bad.encoding = XC_BDI_B8D2;
    cr_expect_eq(xc_bdi_decompress(bad, out, 64, back, 64), -1, "b8d2 is 25 B");
    for (unsigned enc = 8; enc < 15; enc++) {
        bad = ok, bad.encoding = (uint8_t)enc;
        cr_expect_eq(xc_bdi_decompress(bad, out, 64, back, 64), -1, "code %u", enc);
    }
    bad = ok, bad.algo = XC_FPC;
    cr_expect_eq(xc_decompress(XC_BDI, bad, out, 64, back, 64), -1, "another codec's info");
    cr_expect_eq(xc_bdi_decompress(ok, out, 17, back, 32), -1, "32 B line");
    XcInfo z = {.algo = XC_BDI, .encoding = XC_BDI_ZEROS, .bytes = 1};
    const uint8_t one = 1;
    cr_expect_eq(xc_bdi_decompress(z, &one, 1, back, 64), -1, "zeros' byte is 0");
    cr_expect_eq(xc_bdi_decompress(z, &one, 0, back, 64), -1, "nothing to read");
    XcInfo raw = {.algo = XC_BDI, .encoding = XC_ENC_RAW, .bytes = 63};
    cr_expect_eq(xc_bdi_decompress(raw, line, 64, back, 64), -1, "raw is the line size");
}

/* --- FPC ---------------------------------------------------------------------------------- */

static void words(uint8_t *line, const uint32_t *w, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        put(line, 4, i, w[i]);
}

Test(fpc, all_zero_is_the_head)
{
    uint8_t line[XC_LINE_MAX] = {0};
    XcInfo a = round_trip(XC_FPC, line, 64), b = round_trip(XC_FPC, line, 128);
    cr_expect_eq(a.bytes, 2, "4 x 3 prefix bits in 2 B, no payload");
    cr_expect_eq(b.bytes, 3, "8 x 3 bits");
}

/* Segments zero, 8-bit, 16-bit, repeated byte: 2 + 0 + 4x1 + 4x2 + 4x1 = 18 B. */
Test(fpc, one_segment_of_each_64)
{
    const uint32_t w[16] = {0,          0,          0,          0,
                            1,          0xffffffff, 127,        0xffffff80,
                            128,        0xffffff7f, 32767,      0xffff8000,
                            0xabababab, 0x01010101, 0x7f7f7f7f, 0xffffffff};
    uint8_t line[64], out[64];
    words(line, w, 16);
    XcInfo info = round_trip(XC_FPC, line, 64);
    cr_assert_eq(info.encoding, XC_ENC_PACKED);
    cr_assert_eq(info.bytes, 18);
    xc_fpc_compress(line, 64, out);
    /* prefixes 000, 010, 011, 110 from bit 0: 0 | 2<<3 | 3<<6 | 6<<9 = 0x0cd0 */
    const uint8_t want[18] = {0xd0, 0x0c, 0x01, 0xff, 0x7f, 0x80, 0x80, 0x00, 0x7f, 0xff,
                              0xff, 0x7f, 0x00, 0x80, 0xab, 0x01, 0x7f, 0xff};
    cr_assert_arr_eq(out, want, 18);
}

Test(fpc, boundaries_pick_the_wider_pattern)
{
    uint8_t line[64] = {0}, out[64];
    put(line, 4, 0, 0x80); /* not an 8-bit value: the segment goes 16-bit */
    XcInfo a = round_trip(XC_FPC, line, 64);
    cr_expect_eq(a.bytes, 2 + 8);
    put(line, 4, 0, 0x8000); /* not 16-bit, not a repeated byte: raw segment */
    cr_expect_eq(round_trip(XC_FPC, line, 64).bytes, 2 + 16);
    put(line, 4, 0, 0xffff7fff); /* -32769 */
    cr_expect_eq(round_trip(XC_FPC, line, 64).bytes, 2 + 16);
    put(line, 4, 0, 0x5a5a5a5a); /* 0x5a5a5a5a and three zeros: repeated bytes */
    cr_expect_eq(round_trip(XC_FPC, line, 64).bytes, 2 + 4);
    xc_fpc_compress(line, 64, out);
    cr_expect_eq(out[0], 6, "prefix 110 for segment 0");
    put(line, 4, 0, 0xffffffff); /* -1 is 8-bit and a repeated byte: 010 wins the tie */
    xc_fpc_compress(line, 64, out);
    cr_expect_eq(out[0], 2);
}

Test(fpc, incompressible_stays_raw)
{
    uint8_t line[XC_LINE_MAX];
    uint64_t seed = 3;
    for (unsigned i = 0; i < 32; i++)
        put(line, 4, i, rnd(&seed) | 0x01000000u);
    XcInfo a = round_trip(XC_FPC, line, 64);
    cr_expect_eq(a.encoding, XC_ENC_RAW, "2 + 4 x 16 = 66 B is not smaller");
    cr_expect_eq(a.bytes, 64);
    memset(line + 48, 0, 16);
    XcInfo b = round_trip(XC_FPC, line, 64);
    cr_expect_eq(b.encoding, XC_ENC_PACKED);
    cr_expect_eq(b.bytes, 2 + 3 * 16, "three raw segments, one zero");
    cr_expect_eq(round_trip(XC_FPC, line + 64, 64).bytes, 64);
}

/* 128 B: prefixes 0,2,3,6,7,0,2,3 -> 0x687cd0; 3 + 0+4+8+4+16+0+4+8 = 47 B. */
Test(fpc, eight_segments_128)
{
    const uint32_t w[32] = {
        0,          0, 0, 0,          /* 000 */
        5,          6, 7, 0xfffffffe, /* 010 */
        300,        0, 0, 0,          /* 011 */
        0x33333333, 0, 0, 0,          /* 110 */
        0x12345678, 1, 2, 3,          /* 111 */
        0,          0, 0, 0,          /* 000 */
        0xffffff80, 0, 0, 0,          /* 010: -128 */
        0xffff8000, 0, 0, 0,          /* 011: -32768 */
    };
    uint8_t line[128], out[128];
    words(line, w, 32);
    XcInfo info = round_trip(XC_FPC, line, 128);
    cr_assert_eq(info.bytes, 47);
    xc_fpc_compress(line, 128, out);
    cr_expect_eq(out[0], 0xd0);
    cr_expect_eq(out[1], 0x7c);
    cr_expect_eq(out[2], 0x68);
    cr_expect_eq(xc_load(out + 3 + 4 + 8 + 4, 4), 0x12345678, "raw word 0 of segment 4");
    uint8_t raw[128];
    for (unsigned i = 0; i < 32; i++)
        put(raw, 4, i, 0x12345678u + i * 0x01010101u);
    cr_expect_eq(round_trip(XC_FPC, raw, 128).encoding, XC_ENC_RAW, "3 + 8 x 16 = 131 B");
    memset(raw, 0, 16);
    cr_expect_eq(round_trip(XC_FPC, raw, 128).bytes, 3 + 7 * 16);
}

Test(fpc, decoder_rejects)
{
    const uint32_t w[16] = {0, 0, 0, 0, 1, 2, 3, 4, 300, 0, 0, 0, 0x12345678, 0, 0, 0};
    uint8_t line[64], out[64], back[64], bad[64];
    words(line, w, 16);
    XcInfo ok = xc_fpc_compress(line, 64, out), b;
    cr_assert_eq(ok.bytes, 2 + 0 + 4 + 8 + 16);
    for (unsigned len = 0; len < ok.bytes; len++)
        cr_expect_eq(xc_fpc_decompress(ok, out, len, back, 64), -1, "truncated to %u", len);
    b = ok, b.bytes = (uint16_t)(ok.bytes + 1);
    cr_expect_eq(xc_fpc_decompress(b, out, 64, back, 64), -1, "size the head does not say");
    b = ok, b.bytes = (uint16_t)(ok.bytes - 4);
    cr_expect_eq(xc_fpc_decompress(b, out, 64, back, 64), -1);
    b = ok, b.encoding = 3;
    cr_expect_eq(xc_fpc_decompress(b, out, 64, back, 64), -1, "no such encoding");
    b = ok, b.algo = XC_CPACK;
    cr_expect_eq(xc_fpc_decompress(b, out, 64, back, 64), -1);
    /* prefixes 001, 100, 101 are FPC's but not this form's */
    for (unsigned p = 1; p < 6; p += (p == 1 ? 3 : 1)) {
        memcpy(bad, out, 64);
        bad[0] = (uint8_t)((bad[0] & ~7u) | p);
        cr_expect_eq(xc_fpc_decompress(ok, bad, 64, back, 64), -1, "prefix %u", p);
    }
    memcpy(bad, out, 64);
    bad[1] |= 0x10; /* bits 12-15 of a 64 B line's head are padding */
    cr_expect_eq(xc_fpc_decompress(ok, bad, 64, back, 64), -1, "padding not zero");
    XcInfo big = {.algo = XC_FPC, .encoding = XC_ENC_PACKED, .bytes = 66};
    memset(bad, 0xff, 64); /* four raw segments: 66 B, more than the line */
    cr_expect_eq(xc_fpc_decompress(big, bad, 64, back, 64), -1);
    memcpy(back, line, 64);
    memcpy(bad, out, 64);
    bad[0] |= 1; /* segment 0: 000 -> 001 */
    cr_expect_eq(xc_fpc_decompress(ok, bad, 64, back, 64), -1);
    cr_expect_arr_eq(back, line, 64, "a refused decode leaves the line alone");
}

/* --- C-Pack ------------------------------------------------------------------------------- */

Test(cpack, all_zero_is_the_head)
{
    uint8_t line[XC_LINE_MAX] = {0};
    cr_expect_eq(round_trip(XC_CPACK, line, 64).bytes, 8, "16 words x 4 bits");
    cr_expect_eq(round_trip(XC_CPACK, line, 128).bytes, 16, "32 words x 4 bits");
}

Test(cpack, one_pattern_per_line)
{
    uint8_t line[XC_LINE_MAX];
    for (unsigned s = 0; s < 2; s++) {
        unsigned n = sizes[s], head = n / 8;
        for (unsigned i = 0; i < n / 4; i++)
            put(line, 4, i, 0x12345678);
        cr_expect_eq(round_trip(XC_CPACK, line, n).bytes, head + 4, "all mmmm on one entry");
        for (unsigned i = 0; i < n / 4; i++)
            put(line, 4, i, 0xab);
        cr_expect_eq(round_trip(XC_CPACK, line, n).bytes, head + n / 4, "all zzzx, no entry");
        for (unsigned i = 0; i < n / 4; i++)
            put(line, 4, i, 0x11223300u + i);
        /* word 0 is the entry (mmmm), the others mmmx */
        cr_expect_eq(round_trip(XC_CPACK, line, n).bytes, head + 4 + n / 4 - 1);
    }
}

/* Every code, all four entries: 8 head + 4 x 4 dictionary + 3 payload (w1, w3, w5) = 27. */
static const uint32_t cp_mix[16] = {0x11223344, 0x11223355, 0,          0x7f,
                                    0xaabbccdd, 0xaabbcc00, 0x11223344, 0x01020304,
                                    0x05060708, 0,          0,          0,
                                    0,          0,          0,          0};

Test(cpack, layout_64)
{
    uint8_t line[64], out[64];
    words(line, cp_mix, 16);
    XcInfo info = round_trip(XC_CPACK, line, 64);
    cr_assert_eq(info.encoding, XC_ENC_PACKED);
    cr_assert_eq(info.bytes, 27);
    xc_cpack_compress(line, 64, out);
    /* nibbles code | idx << 2: w0 mmmm0=2 w1 mmmx0=3 | w2 zzzz=0 w3 zzzx=1 |
     * w4 mmmm1=6 w5 mmmx1=7 | w6 mmmm0=2 w7 mmmm2=0xa | w8 mmmm3=0xe, rest zzzz */
    const uint8_t want[27] = {0x32, 0x10, 0x76, 0xa2, 0x0e, 0,    0,    0,    0x44,
                              0x33, 0x22, 0x11, 0xdd, 0xcc, 0xbb, 0xaa, 0x04, 0x03,
                              0x02, 0x01, 0x08, 0x07, 0x06, 0x05, 0x55, 0x7f, 0x00};
    cr_assert_arr_eq(out, want, 27);
}

Test(cpack, fifth_entry_stays_raw)
{
    uint8_t line[64];
    words(line, cp_mix, 16);
    put(line, 4, 9, 0x090a0b0c);
    XcInfo info = round_trip(XC_CPACK, line, 64);
    cr_expect_eq(info.encoding, XC_ENC_RAW);
    cr_expect_eq(info.bytes, 64);
    put(line, 4, 9, 0x0102030c); /* mmmx on entry 2 instead: 27 + 1 */
    cr_expect_eq(round_trip(XC_CPACK, line, 64).bytes, 28);
}

/* 128 B: four groups of upper bytes, 8 words each, the first of each exact: 16 head +
 * 16 dictionary + 28 mmmx payload = 60. */
Test(cpack, four_groups_128)
{
    uint8_t line[128];
    for (unsigned i = 0; i < 32; i++)
        put(line, 4, i, 0x10000000u * (i % 4 + 1) + (i / 4));
    XcInfo info = round_trip(XC_CPACK, line, 128);
    cr_expect_eq(info.encoding, XC_ENC_PACKED);
    cr_expect_eq(info.bytes, 60);
}

Test(cpack, decoder_rejects)
{
    uint8_t line[64], out[64], back[64], bad[64];
    words(line, cp_mix, 16);
    XcInfo ok = xc_cpack_compress(line, 64, out), b;
    for (unsigned len = 0; len < ok.bytes; len++)
        cr_expect_eq(xc_cpack_decompress(ok, out, len, back, 64), -1, "truncated to %u", len);
    b = ok, b.bytes = 26;
    cr_expect_eq(xc_cpack_decompress(b, out, 64, back, 64), -1, "size the head does not say");
    b = ok, b.bytes = 64;
    cr_expect_eq(xc_cpack_decompress(b, out, 64, back, 64), -1);
    b = ok, b.encoding = 2;
    cr_expect_eq(xc_cpack_decompress(b, out, 64, back, 64), -1);
    memcpy(bad, out, 64);
    bad[1] = 0x14; /* w2 zzzz with idx 1 */
    cr_expect_eq(xc_cpack_decompress(ok, bad, 64, back, 64), -1, "an index on a zero word");
    memcpy(bad, out, 64);
    bad[5] = 0xf0; /* w11 zzzz -> mmmx on entry 3: one more payload byte */
    bad[27] = 0x99;
    cr_expect_eq(xc_cpack_decompress(ok, bad, 64, back, 64), -1, "one more payload byte");
    b = ok, b.bytes = 28;
    cr_expect_eq(xc_cpack_decompress(b, bad, 64, back, 64), 0, "with the right size, fine");
    cr_expect_eq(xc_load(back + 44, 4), 0x05060799u, "entry 3 with the fourth payload byte");
}

/* --- all codecs --------------------------------------------------------------------------- */

/* A line of one kind: what CABA's workloads hold, and what breaks codecs. */
static void gen_line(uint8_t *line, unsigned n, unsigned kind, uint64_t *s)
{
    uint64_t base = rnd(s);
    unsigned k = 2u << (rnd(s) % 3);
    for (unsigned i = 0; i < n / 4; i++) {
        uint32_t r = (uint32_t)rnd(s);
        switch (kind) {
        case 0: put(line, 4, i, r); break;                               /* random */
        case 1: put(line, 4, i, (uint32_t)((int32_t)(r % 256) - 128)); break; /* small ints */
        case 2: put(line, 4, i, 0x3f800000u | (r & 0x7fff)); break; /* floats in [1, 2) */
        case 3: put(line, 4, i, (r & 0xff) * 0x01010101u); break;   /* repeated bytes */
        case 4: put(line, 4, i, i % 2 ? (uint32_t)-(int32_t)(r % 1000) : r % 1000); break;
        case 5: put(line, 4, i, r % 5 ? (uint32_t)(base >> 32) : r & 0xff); break;
        default: break;
        }
    }
    if (kind == 6) /* pointers: a base plus small offsets, some null */
        for (unsigned i = 0; i < n / 8; i++)
            put(line, 8, i, rnd(s) % 4 ? (base & ~0xfffull) + rnd(s) % 4096 : 0);
    if (kind == 7) /* k-byte values, a random delta width from one base or zero */
        for (unsigned i = 0; i < n / k; i++) {
            uint64_t span = 1ull << (rnd(s) % (8 * k));
            put(line, k, i, (rnd(s) % 3 ? base : 0) + rnd(s) % span - span / 2);
        }
    if (kind == 8) /* alternating signs */
        for (unsigned i = 0; i < n / k; i++)
            put(line, k, i, i % 2 ? (uint64_t)-(int64_t)(i + 1) : i + 1);
}

Test(all, round_trips, .timeout = 120)
{
    uint64_t seed = 0x9e3779b97f4a7c15ull;
    unsigned packed[3] = {0};
    uint8_t line[XC_LINE_MAX];
    for (unsigned t = 0; t < 4000; t++) {
        unsigned n = sizes[t % 2];
        gen_line(line, n, (t / 2) % 9, &seed);
        for (unsigned a = 0; a < 3; a++)
            packed[a] += round_trip(algos[a], line, n).encoding != XC_ENC_RAW;
    }
    for (unsigned a = 0; a < 3; a++)
        cr_expect_gt(packed[a], 1000, "codec %u compressed only %u lines", a, packed[a]);
}

Test(all, adversarial)
{
    uint8_t line[XC_LINE_MAX];
    static const uint64_t fill[] = {0, 0xff, 0x7f, 0x80, 0xffffffffffffffffull,
                                    0x8000000000000000ull, 0x7fffffffffffffffull};
    for (unsigned s = 0; s < 2; s++) {
        unsigned n = sizes[s];
        for (unsigned f = 0; f < sizeof fill / sizeof fill[0]; f++)
            for (unsigned k = 1; k <= 8; k *= 2) {
                for (unsigned i = 0; i < n / k; i++)
                    put(line, k, i, fill[f]);
                for (unsigned a = 0; a < 3; a++) {
                    XcInfo info = round_trip(algos[a], line, n);
                    /* BDI: zeros or repeat; C-Pack: at most two entries. FPC has no
                     * pattern for a word like 0x7fffffff. */
                    if (algos[a] != XC_FPC)
                        cr_expect_neq(info.encoding, XC_ENC_RAW, "%s: an all-equal line",
                                      xc_encoding_name(algos[a], 0));
                }
            }
        static const int64_t edge[] = {127, -128, 128, -129, 32767, -32768, 32768, -32769};
        for (unsigned k = 2; k <= 8; k *= 2)
            for (unsigned e = 0; e < 8; e++) {
                for (unsigned i = 0; i < n / k; i++)
                    put(line, k, i, (uint64_t)(i % 2 ? edge[e] : -edge[e]));
                for (unsigned a = 0; a < 3; a++)
                    round_trip(algos[a], line, n);
            }
    }
}

/* Every decoder, on every compressed line of a sample, refuses every shorter input. */
Test(all, truncation_refused)
{
    uint64_t seed = 11;
    uint8_t line[XC_LINE_MAX], out[XC_LINE_MAX], back[XC_LINE_MAX];
    for (unsigned t = 0; t < 300; t++) {
        unsigned n = sizes[t % 2];
        gen_line(line, n, 1 + t % 8, &seed);
        for (unsigned a = 0; a < 3; a++) {
            XcInfo info = xc_compress(algos[a], line, n, out);
            for (unsigned len = 0; len < info.bytes; len++)
                cr_assert_eq(xc_decompress(algos[a], info, out, len, back, n), -1);
        }
    }
}

Test(all, bursts)
{
    cr_expect_eq(xc_bursts(0, 32), 1, "at least one");
    cr_expect_eq(xc_bursts(1, 32), 1, "BDI zeros");
    cr_expect_eq(xc_bursts(17, 32), 1, "B8-D1 on 64 B");
    cr_expect_eq(xc_bursts(32, 32), 1);
    cr_expect_eq(xc_bursts(33, 32), 2);
    cr_expect_eq(xc_bursts(64, 32), 2, "a raw 64 B line");
    cr_expect_eq(xc_bursts(74, 32), 3, "B8-D4 on 128 B");
    cr_expect_eq(xc_bursts(128, 32), 4, "a raw 128 B line: GDDR5's 1-4");
    cr_expect_eq(xc_bursts(65, 64), 2);
    cr_expect_eq(xc_bursts(128, 64), 2);
}
