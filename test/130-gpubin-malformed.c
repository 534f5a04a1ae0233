/*
 * 130-gpubin-malformed.c - the reader rejects damaged images with a message and never
 * crashes (the suite also runs under ASan, so every input lives in a buffer of exactly
 * its own size).
 *
 * Truncations at every length; every bit of every byte flipped (damaged section headers
 * must be rejected, other damage may be accepted only as a module that still passes
 * the writer's checks); wrong magic and versions; a kernel code range past the text; an
 * instruction with a bad opcode; fat containers that lie about their size. The optional
 * .xgpu.assist section (CABA assist routines): every truncation and bit flip, and each
 * damaged field refused with its own message, by the reader and by the writer.
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

/* ---- .xgpu.assist ------------------------------------------------------------------- */

/* Two small routines, assembled as kernels and then taken out as routines: a branch
 * (routine-relative target), parameters, registers. */
static const char routines[] =
    ".kernel caba_bdi_decomp\n"
    ".param 8\n"
    "    s2r r0, %laneid\n"
    "    set.ge.u32 r1, r0, 8\n"
    "    brc r1, done, done\n"
    "    ld.param.u64 r2, [0]\n"
    "    st.global.u32 [r2], r0\n"
    "done:\n"
    "    exit\n"
    ".kernel caba_fpc_comp\n"
    ".param 4\n"
    "    ld.param.u32 r1, [0]\n"
    "    exit\n";

enum { A_REC = 16, A_SIZE = 24 }; /* first record, record size */

/* small with the two routines attached; *rt keeps their code alive while g lives. */
static XGpubin *with_routines(XGpubin **rt, XAssist *a)
{
    XGpubin *g = NULL;
    char err[256] = "";
    cr_assert_eq(xasm_assemble(small, &g, err, sizeof err), 0, "%s", err);
    cr_assert_eq(xasm_assemble(routines, rt, err, sizeof err), 0, "%s", err);
    static const unsigned algo[] = {XASSIST_BDI, XASSIST_FPC}, dir[] = {XASSIST_DECOMP,
                                                                      XASSIST_COMP};
    for (unsigned i = 0; i < 2; i++) {
        const XKernel *k = &(*rt)->kernels[i];
        a[i] = (XAssist){k->name, algo[i], dir[i], k->nregs, k->param_bytes,
                         (*rt)->text + k->code_start, k->code_count};
    }
    g->assist = a, g->nassist = 2;
    return g;
}

/* The image of small with the two routines; *at is where .xgpu.assist starts. */
static uint8_t *assist_image(size_t *len, size_t *at)
{
    XGpubin *rt = NULL, *g;
    XAssist a[2];
    void *img;
    char err[256] = "";
    g = with_routines(&rt, a);
    cr_assert_eq(xgpubin_write_mem(g, &img, len, err, sizeof err), 0, "%s", err);
    xgpubin_free(g);
    xgpubin_free(rt);
    size_t off[8];
    int n = find_sections(img, *len, off, 8);
    cr_assert_eq(n, 6, "five sections and .xgpu.assist");
    *at = off[5]; /* the writer emits it last */
    cr_assert_eq(get32((uint8_t *)img + *at + 8), 2, ".xgpu.assist has the two routines");
    return img;
}

/* The image with the 32-bit field at `field` of .xgpu.assist set to v is refused with a
 * message holding want; the field is restored. */
static void expect_field(uint8_t *img, size_t len, size_t at, size_t field, uint32_t v,
                         const char *want)
{
    uint8_t keep[4];
    memcpy(keep, img + at + field, 4);
    for (int i = 0; i < 4; i++)
        img[at + field + i] = (uint8_t)(v >> (8 * i));
    char err[256];
    XGpubin *g = NULL;
    cr_expect_neq(read_copy(img, len, err, sizeof err, &g), 0, "field %zu = %u accepted", field,
                  v);
    cr_expect(strstr(err, want) && !strchr(err, '\n'), "field %zu = %u: want '%s', got '%s'",
              field, v, want, err);
    memcpy(img + at + field, keep, 4);
}

Test(malformed, assist_truncations_and_bit_flips)
{
    size_t len, at;
    uint8_t *img = assist_image(&len, &at);
    char err[256];
    XGpubin *g = NULL;
    cr_assert_eq(read_copy(img, len, err, sizeof err, &g), 0, "%s", err);
    cr_assert_eq(g->nassist, 2);
    xgpubin_free(g);
    for (size_t n = 0; n < len; n++) {
        char what[48];
        snprintf(what, sizeof what, "truncated to %zu", n);
        expect_rejected(img, n, what);
    }
    uint32_t size = get32(img + at + 12);
    for (size_t i = at; i < at + size; i++)
        for (int bit = 0; bit < 8; bit++) {
            char what[64];
            img[i] ^= (uint8_t)(1u << bit);
            snprintf(what, sizeof what, "bit %d of byte %zu flipped", bit, i);
            if (i < at + 16) {
                expect_rejected(img, len, what);
            } else if (read_copy(img, len, err, sizeof err, &g) == 0) {
                void *again; /* the checksum is on: whatever is accepted is consistent */
                size_t n2;
                cr_assert_eq(xgpubin_write_mem(g, &again, &n2, err, sizeof err), 0,
                             "%s: accepted, but: %s", what, err);
                free(again);
                xgpubin_free(g);
            } else {
                cr_assert(err[0] && !strchr(err, '\n'), "%s: '%s'", what, err);
            }
            img[i] ^= (uint8_t)(1u << bit);
        }
    free(img);
}

Test(malformed, assist_fields)
{
    size_t len, at;
    uint8_t *img = assist_image(&len, &at);
    const size_t r0 = A_REC, r1 = A_REC + A_SIZE, code = A_REC + 2 * A_SIZE;
    img[at + 4] = 2; /* header: section version 2 */
    expect_rejected(img, len, "assist version 2");
    char err[256];
    XGpubin *g = NULL;
    read_copy(img, len, err, sizeof err, &g);
    cr_expect(strstr(err, ".xgpu.assist: unsupported section version 2"), "%s", err);
    img[at + 4] = 1;
    expect_field(img, len, at, 8, 0, ".xgpu.assist: a section without routines");
    expect_field(img, len, at, 8, 1000, ".xgpu.assist: 1000 records do not fit");
    expect_field(img, len, at, 12, 8, ".xgpu.assist: header size 8");
    expect_field(img, len, at, r0 + 0, 1, ".xgpu.assist: string at 1, expected at 0");
    expect_field(img, len, at, r0 + 0, 4096, ".xgpu.assist: string offset 4096 outside");
    expect_field(img, len, at, r0 + 4, 3, "routine caba_bdi_decomp: algorithm 3, direction 0 "
                                          "out of range");
    expect_field(img, len, at, r0 + 8, 2, "routine caba_bdi_decomp: algorithm 0, direction 2 "
                                          "out of range");
    uint32_t dir0 = get32(img + at + r0 + 8); /* (bdi, decomp) twice */
    cr_assert_eq(dir0, XASSIST_DECOMP);
    img[at + r1 + 4] = XASSIST_BDI;
    expect_field(img, len, at, r1 + 8, XASSIST_DECOMP, "routine caba_fpc_comp: a second "
                                                       "routine for algorithm 0, direction 0");
    img[at + r1 + 4] = XASSIST_FPC;
    expect_field(img, len, at, r0 + 12, 256, "routine caba_bdi_decomp: 256 registers, at most "
                                             "255");
    expect_field(img, len, at, r0 + 12, 2, "routine caba_bdi_decomp, pc 3: r2 beyond the "
                                           "routine's 2 registers");
    expect_field(img, len, at, r0 + 20, 5, ".xgpu.assist: string at"); /* the code shifts */
    expect_field(img, len, at, r0 + 20, 1u << 30, ".xgpu.assist: 1073741826 records do not fit");
    /* brc r1, done, done at pc 2: its target and reconvergence point are the routine's */
    cr_assert_eq(get32(img + at + code + 2 * 32 + 24), 5, "routine-relative target");
    expect_field(img, len, at, code + 2 * 32 + 24, 9, "routine caba_bdi_decomp, pc 2: brc: "
                                                      "target 9 outside");
    expect_field(img, len, at, code + 2 * 32, 0x7fff, "routine caba_bdi_decomp, pc 2: ");
    /* well formed, not what was written: the checksum */
    expect_field(img, len, at, r0 + 16, 9, "device binary is damaged");
    cr_assert_eq(read_copy(img, len, err, sizeof err, &g), 0, "restored image: %s", err);
    xgpubin_free(g);
    free(img);
}

/* The writer runs the same checks on a caller's table, so it never writes a section the
 * reader refuses. */
Test(malformed, assist_refused_by_the_writer)
{
    XGpubin *rt = NULL;
    XAssist a[2];
    XGpubin *g = with_routines(&rt, a);
    void *img = NULL;
    size_t len;
    char err[256];
#define REFUSED(change, want)                                                                  \
    do {                                                                                       \
        XAssist keep[2] = {a[0], a[1]};                                                        \
        change;                                                                                \
        cr_expect_neq(xgpubin_write_mem(g, &img, &len, err, sizeof err), 0, "%s", #change);    \
        cr_expect(strstr(err, want), "%s: want '%s', got '%s'", #change, want, err);          \
        a[0] = keep[0], a[1] = keep[1];                                                        \
    } while (0)
    REFUSED(a[1].name = "", ".xgpu.assist record 1: a routine without a name");
    REFUSED(a[1].name = NULL, ".xgpu.assist record 1: a routine without a name");
    REFUSED(a[0].ntext = 0, ".xgpu.assist routine caba_bdi_decomp: no instructions");
    REFUSED(a[0].text = NULL, ".xgpu.assist routine caba_bdi_decomp: no instructions");
    REFUSED(a[1].dir = 9, "algorithm 1, direction 9 out of range");
    REFUSED((a[1].algo = XASSIST_BDI, a[1].dir = XASSIST_DECOMP), "a second routine");
    REFUSED(a[1].nregs = 1, "routine caba_fpc_comp, pc 0: r1 beyond the routine's 1 registers");
    REFUSED(a[0].ntext = 3, "routine caba_bdi_decomp, pc 2: brc: target 5 outside");
    g->assist = NULL;
    REFUSED((void)0, "a non-empty table without storage");
    g->assist = a;
    /* a routine serves any module: gaddr (of the module's globals) is refused */
    XInsn code[2];
    memcpy(code, rt->text, sizeof code);
    code[0] = g->text[1]; /* gaddr r4, v */
    cr_assert_eq(code[0].op, XOP_gaddr);
    REFUSED((a[0].text = code, a[0].ntext = 2, a[0].nregs = 8),
            "routine caba_bdi_decomp, pc 0: gaddr in a routine");
#undef REFUSED
    cr_assert_eq(xgpubin_write_mem(g, &img, &len, err, sizeof err), 0, "restored: %s", err);
    free(img);
    xgpubin_free(g);
    xgpubin_free(rt);
}
