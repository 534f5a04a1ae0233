/*
 * 150-phases-section: the optional .xgpu.phases section (Zorua phase specifiers).
 *
 * The assembler's .phases / .phase directives build the records; the writer and reader
 * round-trip them exactly, and so does the disassembly. Damaged records (kernel index,
 * pc, order, sizes, flags, thresholds, stray bytes) are rejected by the reader with one
 * line naming the section and the record; the writer refuses what the reader would
 * reject; the assembler reports misplaced directives with their line.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xgpu/gpubin.h"

static const char two_kernels[] =
    ".phases 77 13\n"
    ".kernel a\n"
    ".regs 8\n"
    ".shared 256\n"
    "    .phase 2 0 entry\n"
    "    mov.u32 r1, 5\n"
    "    .phase 8 256 barrier dynamic\n"
    "    bar 0\n"
    "    exit\n"
    ".kernel b\n"
    ".regs 4\n"
    "    mov.u32 r1, 5\n"
    "    .phase 3 0\n"
    "    add.u32 r2, r1, 1\n"
    "    exit\n";

static XGpubin *assemble(const char *text)
{
    XGpubin *g = NULL;
    char err[256] = "";
    cr_assert_eq(xasm_assemble(text, &g, err, sizeof err), 0, "%s", err);
    return g;
}

static void expect_records(const XGpubin *g)
{
    static const XPhase want[] = {
        {0, 0, 2, 0, XPHASE_ENTRY},
        {0, 1, 8, 256, XPHASE_BARRIER | XPHASE_DYNAMIC},
        {1, 1, 3, 0, 0},
    };
    cr_assert_eq(g->phase_delta, 77);
    cr_assert_eq(g->phase_gap, 13);
    cr_assert_eq(g->nphases, 3);
    for (unsigned i = 0; i < 3; i++) {
        const XPhase *p = &g->phases[i];
        cr_expect(p->kernel == want[i].kernel && p->pc == want[i].pc &&
                  p->regs == want[i].regs && p->shared == want[i].shared &&
                  p->flags == want[i].flags,
                  "record %u: kernel %u pc %u regs %u shared %u flags %u", i, p->kernel,
                  p->pc, p->regs, p->shared, p->flags);
    }
}

Test(phases, section_and_listing_round_trip)
{
    XGpubin *g = assemble(two_kernels);
    expect_records(g);
    void *img;
    size_t len;
    char err[256];
    cr_assert_eq(xgpubin_write_mem(g, &img, &len, err, sizeof err), 0, "%s", err);
    XGpubin *h = NULL;
    cr_assert_eq(xgpubin_read(img, len, &h, err, sizeof err), 0, "%s", err);
    expect_records(h);
    free(img);
    char *text = NULL;
    size_t tlen = 0;
    FILE *f = open_memstream(&text, &tlen);
    cr_assert_eq(xgpubin_disassemble(h, f), 0);
    fclose(f);
    cr_expect(strstr(text, ".phases 77 13\n") != NULL, "%s", text);
    cr_expect(strstr(text, "    .phase 8 256 barrier dynamic\n    bar 0\n") != NULL, "%s", text);
    XGpubin *k = assemble(text);
    expect_records(k);
    free(text);
    xgpubin_free(k);
    xgpubin_free(h);
    xgpubin_free(g);
}

Test(phases, module_without_phases_has_no_section)
{
    XGpubin *g = assemble(".kernel a\n    exit\n"), *h = NULL;
    void *img;
    size_t len;
    char err[256];
    cr_assert_eq(xgpubin_write_mem(g, &img, &len, err, sizeof err), 0, "%s", err);
    int nsec = 0; /* info, kernels, text, globals, lines: sections start 8-aligned */
    for (size_t i = 0; i + 4 <= len; i += 8)
        nsec += !memcmp((uint8_t *)img + i, "XSEC", 4);
    cr_expect_eq(nsec, 5);
    cr_assert_eq(xgpubin_read(img, len, &h, err, sizeof err), 0, "%s", err);
    cr_expect_eq(h->phase_delta, 0);
    cr_expect_eq(h->nphases, 0);
    free(img);
    xgpubin_free(h);
    xgpubin_free(g);
}

/* The phases section of the image of two_kernels: found by its thresholds 77 and 13. */
static uint8_t *phases_section(uint8_t *img, size_t len)
{
    for (size_t i = 0; i + 24 <= len; i += 8)
        if (!memcmp(img + i, "XSEC", 4) && img[i + 16] == 77 && img[i + 20] == 13)
            return img + i;
    cr_assert_fail("no .xgpu.phases section in the image");
    return NULL;
}

/* Patches the 32-bit field at byte off of the section and expects a one-line error
 * holding `want`. */
static void expect_patch_rejected(size_t off, uint32_t v, const char *want)
{
    XGpubin *g = assemble(two_kernels), *h = NULL;
    void *img;
    size_t len;
    char err[256] = "";
    cr_assert_eq(xgpubin_write_mem(g, &img, &len, err, sizeof err), 0, "%s", err);
    uint8_t *sec = phases_section(img, len);
    for (int i = 0; i < 4; i++)
        sec[off + i] = (uint8_t)(v >> (8 * i));
    cr_expect_neq(xgpubin_read(img, len, &h, err, sizeof err), 0, "accepted (%s)", want);
    cr_expect_null(h);
    cr_expect(strstr(err, want) != NULL && !strchr(err, '\n'), "want '%s', got '%s'", want,
              err);
    free(img);
    xgpubin_free(g);
}

/* Section layout: 16-byte header, u32 delta at 16, gap at 20, then 20-byte records at
 * 24: kernel, pc, regs, shared, flags. */
#define REC(i, field) (24 + 20 * (i) + 4 * (field))

Test(phases, malformed_records_rejected)
{
    expect_patch_rejected(REC(2, 0), 2, ".xgpu.phases record 2: kernel 2 of 2");
    expect_patch_rejected(REC(1, 1), 3, ".xgpu.phases record 1: kernel a, pc 3 past its 3");
    expect_patch_rejected(REC(0, 1), 1, "record 0: kernel a, pc 1: the entry flag");
    expect_patch_rejected(REC(1, 1), 0, "record 1: kernel a, pc 0 not sorted");
    expect_patch_rejected(REC(2, 0), 0, "record 2: kernel a, pc 1 not sorted");
    expect_patch_rejected(REC(1, 2), 9, "9 registers, 256 shared bytes exceed the kernel's 8");
    expect_patch_rejected(REC(1, 3), 257, "257 shared bytes exceed");
    expect_patch_rejected(REC(2, 4), 8, "record 2: kernel b, pc 1: unknown flags 0x8");
    expect_patch_rejected(16, 0, ".xgpu.phases: threshold of 0%");
    expect_patch_rejected(16, 1001, ".xgpu.phases: thresholds 1001% and 13 instructions");
    expect_patch_rejected(20, 0, ".xgpu.phases: thresholds 77% and 0 instructions");
    expect_patch_rejected(8, 2, ".xgpu.phases: 20 stray bytes after 2 records");
    expect_patch_rejected(8, 4, ".xgpu.phases: 4 records do not fit");
    expect_patch_rejected(4, 2, ".xgpu.phases: unsupported section version 2");
}

Test(phases, writer_refuses_bad_records)
{
    XGpubin *g = assemble(two_kernels);
    void *img = NULL;
    size_t len;
    char err[256] = "";
    g->phases[2].pc = 7;
    cr_expect_neq(xgpubin_write_mem(g, &img, &len, err, sizeof err), 0);
    cr_expect(strstr(err, "kernel b, pc 7 past its 3 instructions") != NULL, "%s", err);
    cr_expect_null(img);
    g->phases[2].pc = 1;
    g->phase_delta = 0;
    cr_expect_neq(xgpubin_write_mem(g, &img, &len, err, sizeof err), 0);
    cr_expect(strstr(err, "records without thresholds") != NULL, "%s", err);
    xgpubin_free(g);
}

static void expect_asm_error(const char *text, const char *want)
{
    XGpubin *g = NULL;
    char err[256] = "";
    cr_expect_neq(xasm_assemble(text, &g, err, sizeof err), 0, "accepted: %s", text);
    cr_expect_null(g);
    cr_expect(strstr(err, want) != NULL, "want '%s', got '%s'", want, err);
}

Test(phases, assembler_directive_errors)
{
    expect_asm_error(".kernel a\n.phase 1 0 entry\n  exit\n",
                     "2: .phase before the module's .phases directive");
    expect_asm_error(".phases 25 10\n.kernel a\n  exit\n  .phase 1 0\n",
                     "4: .phase without an instruction after it");
    expect_asm_error(".phases 25 10\n.kernel a\n.phase 1 0 entry\n.phase 1 0 entry\n  exit\n",
                     "4: two .phase directives for one instruction");
    expect_asm_error(".phases 25 10\n.kernel a\n.phase 1 0 entry fast\n  exit\n",
                     "3: unknown phase flag 'fast'");
    expect_asm_error(".phases 25 10\n.kernel a\n.phase 1\n  exit\n", "3: usage: .phase");
    expect_asm_error(".phases 0 10\n", "1: .phases 0 10: thresholds out of range");
    expect_asm_error(".phases 25\n", "1: usage: .phases DELTA GAP");
    expect_asm_error(".phases 25 10\n.phase 1 0\n", "2: .phase outside a .kernel");
    /* the module checks: the entry flag belongs to pc 0 */
    expect_asm_error(".phases 25 10\n.kernel a\n  mov.u32 r1, 1\n.phase 2 0 entry\n  exit\n",
                     "record 0: kernel a, pc 1: the entry flag");
}

/* Every bit of the section flipped: rejected with one line, or read as a module the
 * writer accepts again (a flip inside a record's figures can still be valid). */
Test(phases, bit_flips_never_crash)
{
    XGpubin *g = assemble(two_kernels);
    void *img;
    size_t len;
    char err[256];
    cr_assert_eq(xgpubin_write_mem(g, &img, &len, err, sizeof err), 0, "%s", err);
    size_t off = (size_t)(phases_section(img, len) - (uint8_t *)img), size = 24 + 3 * 20;
    unsigned rejected = 0;
    for (size_t i = off; i < off + size; i++)
        for (int bit = 0; bit < 8; bit++) {
            uint8_t *copy = malloc(len);
            memcpy(copy, img, len);
            copy[i] ^= (uint8_t)(1u << bit);
            XGpubin *h = NULL;
            err[0] = '\0';
            if (xgpubin_read(copy, len, &h, err, sizeof err)) {
                cr_expect(err[0] && !strchr(err, '\n'), "byte %zu bit %d: '%s'", i - off, bit,
                          err);
                rejected++;
            } else {
                void *again;
                size_t n;
                cr_expect_eq(xgpubin_write_mem(h, &again, &n, err, sizeof err), 0,
                             "byte %zu bit %d read but not writable: %s", i - off, bit, err);
                free(again);
                xgpubin_free(h);
            }
            free(copy);
        }
    cr_expect_gt(rejected, size * 4, "only %u of %zu flips rejected", rejected, size * 8);
    free(img);
    xgpubin_free(g);
}
