/*
 * fuzz_compress.c - libFuzzer target for the line codecs (emulator/mech/common/compress_*.c).
 *
 * The decoders take bytes that come from memory, so they must refuse anything no encoder
 * writes without reading past the input or writing past the line. An input is read as:
 *
 *   byte 0   the codec (mod 3)
 *   byte 1   the encoding code, as line metadata would hold it (any value)
 *   byte 2   bit 0: a 64 or 128 B line; bits 1-2: how many bytes more than it is given
 *            the metadata says the compressed line has (0-3), so short inputs are tried
 *   rest     the compressed line, copied into a buffer of exactly its size so that
 *            AddressSanitizer sees any overread
 *
 * A decode that succeeds must round-trip: the decoded line, compressed again, decodes to
 * itself. A refused decode must leave the line as it was. Independently, the rest (cut or
 * zero-padded to the line size) is compressed as a line by each codec and must decode
 * back to itself. Any failure aborts.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mech/common/compress.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fail(XcAlgo a, const char *what)
{
    fprintf(stderr, "fuzz_compress: codec %d: %s\n", (int)a, what);
    abort();
}

/* Compress line, check the result's shape, and decode it from an exact-size copy. */
static void round_trip(XcAlgo a, const uint8_t *line, unsigned n)
{
    uint8_t out[XC_LINE_MAX];
    XcInfo info = xc_compress(a, line, n, out);
    if (info.algo != a || info.bytes == 0 || info.bytes > n)
        fail(a, "compressed size out of range");
    if (info.encoding == XC_ENC_RAW ? info.bytes != n || memcmp(out, line, n)
                                    : info.bytes == n)
        fail(a, "raw line not kept as it is, or a packed one not smaller");
    unsigned bursts = xc_bursts(info.bytes, 32);
    if (bursts < 1 || bursts > n / 32)
        fail(a, "burst count");
    uint8_t *in = malloc(info.bytes), *back = malloc(n);
    if (!in || !back)
        abort();
    memcpy(in, out, info.bytes);
    if (xc_decompress(a, info, in, info.bytes, back, n))
        fail(a, "the decoder refused the encoder's output");
    if (memcmp(back, line, n))
        fail(a, "the round trip changed the line");
    free(in);
    free(back);
}

static void decode_input(const uint8_t *data, size_t size)
{
    XcAlgo a = (XcAlgo)(data[0] % 3);
    unsigned n = data[2] & 1 ? 128 : 64;
    size_t rest = size - 3, claimed = rest + (data[2] >> 1 & 3);
    XcInfo info = {.algo = (uint8_t)a, .encoding = data[1],
                   .bytes = (uint16_t)(claimed > 0xffff ? 0xffff : claimed)};
    uint8_t *in = malloc(rest ? rest : 1), *line = malloc(n);
    if (!in || !line)
        abort();
    memcpy(in, data + 3, rest);
    memset(line, 0x5a, n);
    if (xc_decompress(a, info, in, (unsigned)rest, line, n) == 0) {
        round_trip(a, line, n);
    } else {
        for (unsigned i = 0; i < n; i++)
            if (line[i] != 0x5a)
                fail(a, "a refused decode wrote the line");
    }
    free(in);
    free(line);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 3 || size > 4096)
        return 0;
    decode_input(data, size);
    uint8_t line[XC_LINE_MAX] = {0};
    unsigned n = data[2] & 1 ? 128 : 64;
    memcpy(line, data + 3, size - 3 < n ? size - 3 : n);
    for (int a = XC_BDI; a <= XC_CPACK; a++)
        round_trip((XcAlgo)a, line, n);
    return 0;
}
