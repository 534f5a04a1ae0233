/*
 * compress.h - the cache-line codecs of CABA's compression assist warps (Vijaykumar et al.,
 * "A Case for Core-Assisted Bottleneck Acceleration in GPUs", ISCA 2015, Sec. 4 "A Case for
 * CABA: Data Compression"): BDI (compress_bdi.c), FPC (compress_fpc.c) and C-Pack
 * (compress_cpack.c), each in the form CABA gives it so that a warp can decode a line with
 * a few vector instructions: everything that says how a word is coded sits at the head of
 * the line, and every word of one class has the same fixed size.
 *
 * Functions only: no timing, no state, nothing of the rest of the emulator. A line is 64
 * or 128 bytes, read as little-endian values whatever the host. A compressed line is
 * described by an XcInfo: the codec, a codec-specific encoding code (what the per-line
 * metadata would hold) and the compressed size in bytes (what the DRAM burst count is made
 * from, xc_bursts). A line that does not compress to fewer bytes than itself is kept as it
 * is, encoding XC_ENC_RAW, bytes == the line size.
 *
 * Decoding trusts nothing: a size, code or head that no encoder could have written for
 * that line size is refused (-1), nothing is read past the input's length and nothing
 * written past the line's, and a refused decode leaves the line untouched.
 */
#ifndef EMU_MECH_COMPRESS_H
#define EMU_MECH_COMPRESS_H

#include <assert.h>
#include <stdint.h>
#include <string.h>

typedef enum {
    XC_BDI,   /* Base-Delta-Immediate (Pekhimenko et al., PACT 2012) */
    XC_FPC,   /* Frequent Pattern Compression (Alameldeen and Wood, 2004) */
    XC_CPACK, /* C-Pack (Chen et al., IEEE TVLSI 2010) */
} XcAlgo;

/* Encoding codes. BDI's are the 4-bit codes of its encoding table; FPC and C-Pack keep
 * their per-word codes in the line, so their metadata only says compressed or not. */
enum {
    XC_BDI_ZEROS = 0x0,  /* every byte zero: 1 B */
    XC_BDI_REPEAT = 0x1, /* one 8-byte value repeated: 8 B */
    XC_BDI_B8D1 = 0x2,   /* 8-byte values, 1-byte deltas */
    XC_BDI_B8D2 = 0x3,
    XC_BDI_B8D4 = 0x4,
    XC_BDI_B4D1 = 0x5,   /* 4-byte values, 1-byte deltas */
    XC_BDI_B4D2 = 0x6,
    XC_BDI_B2D1 = 0x7,   /* 2-byte values, 1-byte deltas */
    XC_ENC_PACKED = 0x0, /* FPC, C-Pack: compressed, the head of the line says how */
    XC_ENC_RAW = 0xF,    /* every codec: the line as it is */
};

#define XC_LINE_MAX 128 /* the largest line the codecs take */

/* What a compressed line is. */
typedef struct XcInfo {
    uint8_t algo;     /* XcAlgo */
    uint8_t encoding; /* XC_BDI_*, XC_ENC_PACKED or XC_ENC_RAW */
    uint16_t bytes;   /* compressed size; the line size when XC_ENC_RAW */
} XcInfo;

/* Each codec: compress a line of line_bytes (64 or 128) into out (room for line_bytes),
 * or decode one (0, or -1 when in[0..in_bytes) is not a valid encoding for info). */
XcInfo xc_bdi_compress(const uint8_t *line, unsigned line_bytes, uint8_t *out);
int xc_bdi_decompress(XcInfo info, const uint8_t *in, unsigned in_bytes, uint8_t *line,
                      unsigned line_bytes);
XcInfo xc_fpc_compress(const uint8_t *line, unsigned line_bytes, uint8_t *out);
int xc_fpc_decompress(XcInfo info, const uint8_t *in, unsigned in_bytes, uint8_t *line,
                      unsigned line_bytes);
XcInfo xc_cpack_compress(const uint8_t *line, unsigned line_bytes, uint8_t *out);
int xc_cpack_decompress(XcInfo info, const uint8_t *in, unsigned in_bytes, uint8_t *line,
                        unsigned line_bytes);

/* BDI by one encoding, as CABA's compressor tries the last successful one first: the
 * size written to out, or 0 when the line does not fit enc (out may be written even
 * then). */
unsigned xc_bdi_encode(unsigned enc, const uint8_t *line, unsigned line_bytes, uint8_t *out);
/* The size of BDI encoding enc for a line of line_bytes; 0 for no such code or line size. */
unsigned xc_bdi_size(unsigned enc, unsigned line_bytes);

const char *xc_bdi_name(unsigned enc);
const char *xc_fpc_name(unsigned enc);
const char *xc_cpack_name(unsigned enc);

/* --- the common interface ---------------------------------------------------------------
 * Three switches over the codecs and a division, kept here so that each codec file stands
 * alone and a user (or the fuzz target) links only the codec files. */

static inline int xc_line_ok(unsigned line_bytes)
{
    return line_bytes == 64 || line_bytes == 128;
}

static inline XcInfo xc_compress(XcAlgo a, const uint8_t *line, unsigned line_bytes,
                                 uint8_t *out)
{
    switch (a) {
    case XC_BDI: return xc_bdi_compress(line, line_bytes, out);
    case XC_FPC: return xc_fpc_compress(line, line_bytes, out);
    case XC_CPACK: return xc_cpack_compress(line, line_bytes, out);
    }
    assert(0 && "xc_compress: no such codec");
    return (XcInfo){.algo = (uint8_t)a, .encoding = XC_ENC_RAW}; /* 0 bytes: never decodes */
}

static inline int xc_decompress(XcAlgo a, XcInfo info, const uint8_t *in, unsigned in_bytes,
                                uint8_t *line, unsigned line_bytes)
{
    if (info.algo != a)
        return -1;
    switch (a) {
    case XC_BDI: return xc_bdi_decompress(info, in, in_bytes, line, line_bytes);
    case XC_FPC: return xc_fpc_decompress(info, in, in_bytes, line, line_bytes);
    case XC_CPACK: return xc_cpack_decompress(info, in, in_bytes, line, line_bytes);
    }
    return -1;
}

/* The DRAM bursts a compressed size moves: ceil(bytes / burst_bytes), at least one (a
 * request always moves a burst, even for an all-zero line). */
static inline unsigned xc_bursts(unsigned bytes, unsigned burst_bytes)
{
    assert(burst_bytes > 0);
    unsigned b = bytes / burst_bytes + (bytes % burst_bytes != 0);
    return b ? b : 1;
}

/* "zeros", "repeat", "b8d1" ... for BDI, "fpc" / "cpack" for the packed forms,
 * "uncompressed", or "invalid" for a code the codec does not have. */
static inline const char *xc_encoding_name(XcAlgo a, unsigned enc)
{
    switch (a) {
    case XC_BDI: return xc_bdi_name(enc);
    case XC_FPC: return xc_fpc_name(enc);
    case XC_CPACK: return xc_cpack_name(enc);
    }
    return "invalid";
}

/* --- shared by the codec files ---------------------------------------------------------- */

/* An n-byte little-endian value (n <= 8), independent of the host's byte order. */
static inline uint64_t xc_load(const uint8_t *p, unsigned n)
{
    uint64_t v = 0;
    for (unsigned i = n; i-- > 0;)
        v = v << 8 | p[i];
    return v;
}

static inline void xc_store(uint8_t *p, uint64_t v, unsigned n)
{
    for (unsigned i = 0; i < n; i++, v >>= 8)
        p[i] = (uint8_t)v;
}

/* The line kept as it is. */
static inline XcInfo xc_raw(XcAlgo a, const uint8_t *line, unsigned line_bytes, uint8_t *out)
{
    memcpy(out, line, line_bytes);
    return (XcInfo){.algo = (uint8_t)a, .encoding = XC_ENC_RAW, .bytes = (uint16_t)line_bytes};
}

static inline int xc_raw_decode(XcInfo info, const uint8_t *in, unsigned in_bytes,
                                uint8_t *line, unsigned line_bytes)
{
    if (info.bytes != line_bytes || in_bytes < line_bytes)
        return -1;
    memcpy(line, in, line_bytes);
    return 0;
}

#endif
