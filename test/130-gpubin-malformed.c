/*
 * 130-gpubin-malformed.c - the reader rejects damaged images with a message and never
 * crashes (the suite also runs under ASan, so every input lives in a buffer of exactly
 * its own size).
 *
 * Truncations at every length; every bit of every byte flipped (damaged section headers
 * must be rejected, other damage may be accepted only as a module that still passes
 * the writer's checks); wrong magic and versions; a kernel code range past the text; an
 * instruction with a bad opcode; fat containers that lie about their size.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xgpu/gpubin.h"

static const char small[] =
    ".global v 4 4 = 1 2 3 4\n"
    ".kernel k\n"
    ".param 8\n"
    "    .loc \"k.cu\" 2\n"
    "    ld.param.u64 r2, [0]\n"
    "    gaddr r4, v\n"
    "    ld.global.u32 r6, [r4]\n"
    "    st.global.u32 [r2], r6\n"
    "    exit\n";

static uint8_t *small_image(size_t *len)
{
    XGpubin *g = NULL;
    void *img;
    char err[256] = "";
    cr_assert_eq(xasm_assemble(small, &g, err, sizeof err), 0, "%s", err);
    cr_assert_eq(xgpubin_write_mem(g, &img, len, err, sizeof err), 0, "%s", err);
    xgpubin_free(g);
    return img;
}

/* Reads a copy of exactly len bytes; returns the status, err holds the message. */
static int read_copy(const uint8_t *img, size_t len, char *err, size_t n, XGpubin **out)
{
    uint8_t *copy = malloc(len ? len : 1);
    memcpy(copy, img, len);
    err[0] = '\0';
    int rc = xgpubin_read(copy, len, out, err, n);
    free(copy);
    return rc;
}

static void expect_rejected(const uint8_t *img, size_t len, const char *what)
{
    char err[256];
    XGpubin *g = NULL;
    cr_assert_neq(read_copy(img, len, err, sizeof err, &g), 0, "accepted: %s", what);
    cr_assert_null(g);
    cr_assert(err[0] && !strchr(err, '\n'), "%s: want one line, got '%s'", what, err);
}

/* Start offsets of the gpubin sections (found by their XSEC magic), in file order. */
static int find_sections(const uint8_t *img, size_t len, size_t *off, int max)
{
    int n = 0;
    for (size_t i = 0; i + 16 <= len && n < max; i += 8) /* sections are 8-aligned */
        if (!memcmp(img + i, "XSEC", 4))
            off[n++] = i;
    return n;
}

static uint32_t get32(const uint8_t *p) { return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24; }

Test(malformed, every_truncation_is_rejected)
{
    size_t len;
    uint8_t *img = small_image(&len);
    for (size_t n = 0; n < len; n++) {
        char what[48];
        snprintf(what, sizeof what, "truncated to %zu", n);
        expect_rejected(img, n, what);
    }
    free(img);
}

Test(malformed, bit_flips_never_crash)
{
    size_t len, off[8];
    uint8_t *img = small_image(&len);
    int nsec = find_sections(img, len, off, 8);
    cr_assert_eq(nsec, 5, "five gpubin sections");
    for (size_t i = 0; i < len; i++) {
        int in_header = 0;
        for (int s = 0; s < nsec; s++)
            in_header |= i >= off[s] && i < off[s] + 16;
        for (int bit = 0; bit < 8; bit++) {
            char err[256], what[64];
            XGpubin *g = NULL;
            img[i] ^= (uint8_t)(1u << bit);
            snprintf(what, sizeof what, "bit %d of byte %zu flipped", bit, i);
            if (in_header) {
                expect_rejected(img, len, what);
            } else if (read_copy(img, len, err, sizeof err, &g) == 0) {
                void *again; /* whatever was accepted is a consistent module */
                size_t n2;
                cr_assert_eq(xgpubin_write_mem(g, &again, &n2, err, sizeof err), 0,
                             "%s: accepted, but: %s", what, err);
                free(again);
                xgpubin_free(g);
            } else {
                cr_assert(err[0], "%s: rejected without a message", what);
            }
            img[i] ^= (uint8_t)(1u << bit);
        }
    }
    free(img);
}

Test(malformed, section_magic_and_versions)
{
    size_t len, off[8];
    uint8_t *img = small_image(&len);
    find_sections(img, len, off, 8);
    img[off[2] + 4] = 9; /* .xgpu.text version 9 */
    expect_rejected(img, len, "text section version 9");
    img[off[2] + 4] = 1;
    img[off[0] + 16] = 9; /* .xgpu.info: gpubin format version 9 */
    char err[256];
    XGpubin *g = NULL;
    cr_assert_neq(read_copy(img, len, err, sizeof err, &g), 0);
    cr_assert(strstr(err, "version"), "%s", err);
    img[off[0] + 16] = XGPUBIN_VERSION;
    memcpy(img + 1, "XLF", 3);
    expect_rejected(img, len, "ELF magic");
    free(img);
    expect_rejected((const uint8_t *)"garbage", 7, "garbage");
}

Test(malformed, kernel_code_range_past_text)
{
    size_t len, off[8];
    uint8_t *img = small_image(&len);
    find_sections(img, len, off, 8);
    uint8_t *rec = img + off[1] + 16; /* the first kernel record */
    cr_assert_eq(get32(rec + 12), 5, "code_count field");
    rec[12] = 6;
    char err[256];
    XGpubin *g = NULL;
    cr_assert_neq(read_copy(img, len, err, sizeof err, &g), 0);
    cr_assert(strstr(err, "code range"), "%s", err);
    rec[12] = 5;
    rec[8] = 1; /* code_start 1: 1 + 5 > 5 */
    cr_assert_neq(read_copy(img, len, err, sizeof err, &g), 0);
    cr_assert(strstr(err, "code range"), "%s", err);
    free(img);
}

Test(malformed, bad_opcode_and_bad_operands)
{
    size_t len, off[8];
    uint8_t *img = small_image(&len);
    find_sections(img, len, off, 8);
    uint8_t *insn = img + off[2] + 16 + 32 * 2; /* ld.global.u32 r6, [r4] */
    char err[256];
    XGpubin *g = NULL;
    insn[0] = 0xff, insn[1] = 0x7f;
    cr_assert_neq(read_copy(img, len, err, sizeof err, &g), 0);
    cr_assert(strstr(err, "opcode"), "%s", err);
    insn[0] = XOP_ld, insn[1] = 0;
    insn[8] = 5; /* odd address register */
    cr_assert_neq(read_copy(img, len, err, sizeof err, &g), 0);
    cr_assert(strstr(err, "even"), "%s", err);
    insn[8] = 4;
    uint8_t *gaddr = img + off[2] + 16 + 32 * 1;
    gaddr[24] = 3; /* symbol 3 of 1 */
    cr_assert_neq(read_copy(img, len, err, sizeof err, &g), 0);
    cr_assert(strstr(err, "symbol"), "%s", err);
    gaddr[24] = 0;
    cr_assert_eq(read_copy(img, len, err, sizeof err, &g), 0, "restored image: %s", err);
    xgpubin_free(g);
    free(img);
}

Test(malformed, fat_headers)
{
    size_t len, elflen, next;
    uint8_t *img = small_image(&len);
    uint8_t *fat = calloc(1, 24 + len);
    const void *elf;
    char err[256];
    uint64_t magic = XFAT_MAGIC, size = len;
    memcpy(fat, &magic, 8);
    fat[8] = XFAT_VERSION;
    memcpy(fat + 16, &size, 8);
    memcpy(fat + 24, img, len);
    cr_assert_eq(xfat_parse(fat, 24 + len, &elf, &elflen, &next, err, sizeof err), 0, "%s", err);
    cr_assert_eq(elflen, len);
    cr_assert_neq(xfat_parse(fat, 24 + len - 1, &elf, &elflen, &next, err, sizeof err), 0,
                  "image past the end");
    cr_assert_neq(xfat_parse(fat, 23, &elf, &elflen, &next, err, sizeof err), 0, "short");
    fat[8] = 2;
    cr_assert_neq(xfat_parse(fat, 24 + len, &elf, &elflen, &next, err, sizeof err), 0);
    cr_assert(strstr(err, "version"), "%s", err);
    fat[8] = 1;
    fat[0] ^= 1;
    cr_assert_neq(xfat_parse(fat, SIZE_MAX, &elf, &elflen, &next, err, sizeof err), 0);
    cr_assert(strstr(err, "magic"), "%s", err);
    fat[0] ^= 1;
    fat[24] = 0; /* trusted size, but no ELF inside */
    cr_assert_neq(xfat_parse(fat, SIZE_MAX, &elf, &elflen, &next, err, sizeof err), 0);
    free(fat);
    free(img);
}

/* A change that leaves the image well formed (one immediate of one instruction, one
 * kernel's register count) is caught by the checksum in .xgpu.info; so is a change of the
 * checksum itself. The intact image reads. */
Test(malformed, checksum_catches_well_formed_damage)
{
    size_t len, off[8];
    uint8_t *img = small_image(&len);
    find_sections(img, len, off, 8);
    char err[256];
    XGpubin *g = NULL;
    cr_assert_eq(read_copy(img, len, err, sizeof err, &g), 0, "%s", err);
    xgpubin_free(g);
    size_t at[] = {off[1] + 16 + 16, /* kernel 0: nregs */
                   off[2] + 16 + 16, /* text: a byte of the first instruction's operands */
                   off[0] + 16 + 12}; /* the checksum */
    for (size_t i = 0; i < sizeof at / sizeof *at; i++) {
        uint8_t keep = img[at[i]];
        img[at[i]] ^= 0x01;
        int rc = read_copy(img, len, err, sizeof err, &g);
        if (rc == 0)
            xgpubin_free(g);
        cr_expect_neq(rc, 0, "byte %zu changed, yet the image was accepted", at[i]);
        if (rc)
            cr_expect(strstr(err, "damaged") || strstr(err, "register") || strstr(err, "operand"),
                      "byte %zu: %s", at[i], err);
        img[at[i]] = keep;
    }
    free(img);
}
