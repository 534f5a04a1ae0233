/*
 * 120-gpubin-rw.c - the gpubin writer and reader agree, on disk and in fat containers.
 *
 * A module written to a file reads back to the same module (same fields, and the same
 * bytes when written again); the file is a little-endian ELF64 with the project's
 * sections; fat containers round-trip, and two containers back to back parse one after
 * the other through `next`, also when the caller has only a pointer (SIZE_MAX). The
 * optional .xgpu.assist section (the built-in CABA assist routines) round-trips too, and is
 * written only when the module has routines.
 */
#define _GNU_SOURCE /* memmem */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "xgpu/assist.h"
#include "xgpu/gpubin.h"
#include "xtest.h"

static const char module_a[] =
    ".producer \"test 1\"\n"
    ".global counter 8 8 = 1 0 0 0 0 0 0 0\n"
    ".global lut 4 4 const = 9 8 7 6\n"
    ".kernel first\n"
    ".param 8\n"
    ".param 4\n"
    ".shared 128\n"
    "    .loc \"a.cu\" 5\n"
    "    s2r r0, %tid.x\n"
    "    ld.param.u64 r2, [0]\n"
    "    set.lt.u32 r1, r0, 32\n"
    "    brc.not r1, out, out\n"
    "    .loc \"a.cu\" 6\n"
    "    gaddr r4, lut+2\n"
    "    ld.const.u8 r6, [r4]\n"
    "    st.global.u32 [r2], r6\n"
    "out:\n"
    "    exit\n"
    ".kernel second\n"
    "    bar 0\n"
    "    exit\n";

static const char module_b[] =
    ".kernel only\n"
    "    mov.f64 r2, 0d4000000000000000\n"
    "    exit\n";

static XGpubin *assemble_ok(const char *text)
{
    XGpubin *g = NULL;
    char err[256] = "";
    cr_assert_eq(xasm_assemble(text, &g, err, sizeof err), 0, "assembly failed: %s", err);
    return g;
}

static uint8_t *image_of(const XGpubin *g, size_t *len)
{
    void *img;
    char err[256] = "";
    cr_assert_eq(xgpubin_write_mem(g, &img, len, err, sizeof err), 0, "%s", err);
    return img;
}

static uint8_t *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    cr_assert(f, "cannot open %s", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *buf = malloc((size_t)n);
    cr_assert_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    *len = (size_t)n;
    return buf;
}

static char *temp_path(void)
{
    static char path[512];
    snprintf(path, sizeof path, "%s/gpubin-XXXXXX", xt_tmpdir());
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    close(fd);
    return path;
}

/* Same module: the same serialization, plus the fields a reader would look at. */
static void expect_same(const XGpubin *a, const XGpubin *b)
{
    size_t la, lb;
    uint8_t *ia = image_of(a, &la), *ib = image_of(b, &lb);
    cr_assert_eq(la, lb);
    cr_assert_eq(memcmp(ia, ib, la), 0, "the images differ");
    free(ia);
    free(ib);
    cr_assert_eq(a->nkernels, b->nkernels);
    cr_assert_eq(a->ntext, b->ntext);
    cr_assert_eq(memcmp(a->text, b->text, a->ntext * sizeof(XInsn)), 0);
    cr_assert_str_eq(a->producer, b->producer);
    for (uint32_t i = 0; i < a->nkernels; i++) {
        cr_assert_str_eq(a->kernels[i].name, b->kernels[i].name);
        cr_assert_eq(a->kernels[i].nparams, b->kernels[i].nparams);
        cr_assert_eq(a->kernels[i].param_bytes, b->kernels[i].param_bytes);
    }
}

Test(gpubin, file_round_trip)
{
    XGpubin *g = assemble_ok(module_a), *h = NULL;
    char err[256] = "", *path = temp_path();
    cr_assert_eq(xgpubin_write_file(g, path, err, sizeof err), 0, "%s", err);
    size_t len;
    uint8_t *buf = slurp(path, &len);
    unlink(path);
    cr_assert_eq(memcmp(buf, "\177ELF\002\001", 6), 0, "not a little-endian ELF64 file");
    cr_assert_eq(buf[16] | buf[17] << 8, 1, "e_type is ET_REL");
    cr_assert(memmem(buf, len, ".xgpu.text", 10), "no .xgpu.text section name");
    cr_assert_eq(xgpubin_read(buf, len, &h, err, sizeof err), 0, "%s", err);
    memset(buf, 0xee, len); /* the module must not point into the input */
    free(buf);
    expect_same(g, h);
    cr_assert_eq(h->nglobals, 2);
    cr_assert_eq(h->globals[1].init[3], 6);
    cr_assert_eq(h->nlines, 2);
    cr_assert_str_eq(h->files[xgpubin_line(h, 5)->file], "a.cu");
    cr_assert_eq(xgpubin_line(h, 5)->line, 6);
    cr_assert_eq(xgpubin_find_kernel(h, "second"), 1);
    cr_assert_eq(xgpubin_find_kernel(h, "third"), -1);
    cr_assert_eq(h->kernels[1].code_start, 8);
    xgpubin_free(g);
    xgpubin_free(h);
}

Test(gpubin, fat_round_trip)
{
    XGpubin *g = assemble_ok(module_a), *h = NULL;
    char err[256] = "", *path = temp_path();
    cr_assert_eq(xgpubin_write_fat(g, path, err, sizeof err), 0, "%s", err);
    size_t len, elflen, next;
    uint8_t *buf = slurp(path, &len);
    unlink(path);
    const void *elf;
    cr_assert_eq(len % 8, 0, "containers are padded to 8 bytes");
    cr_assert_eq(xfat_parse(buf, len, &elf, &elflen, &next, err, sizeof err), 0, "%s", err);
    cr_assert_eq(next, len);
    cr_assert_eq((const uint8_t *)elf, buf + sizeof(XFatHeader));
    cr_assert_eq(xgpubin_read(elf, elflen, &h, err, sizeof err), 0, "%s", err);
    expect_same(g, h);
    free(buf);
    xgpubin_free(g);
    xgpubin_free(h);
}

Test(gpubin, concatenated_containers)
{
    XGpubin *a = assemble_ok(module_a), *b = assemble_ok(module_b);
    char err[256] = "", pa[64], pb[64];
    strcpy(pa, temp_path());
    strcpy(pb, temp_path());
    cr_assert_eq(xgpubin_write_fat(a, pa, err, sizeof err), 0, "%s", err);
    cr_assert_eq(xgpubin_write_fat(b, pb, err, sizeof err), 0, "%s", err);
    size_t la, lb;
    uint8_t *ba = slurp(pa, &la), *bb = slurp(pb, &lb);
    unlink(pa);
    unlink(pb);
    uint8_t *both = malloc(la + lb);
    memcpy(both, ba, la);
    memcpy(both + la, bb, lb);
    for (int trusted = 0; trusted < 2; trusted++) {
        size_t off = 0, elflen, next;
        const void *elf;
        const char *names[2] = {"first", "only"};
        for (int i = 0; i < 2; i++) {
            size_t avail = trusted ? SIZE_MAX : la + lb - off;
            cr_assert_eq(xfat_parse(both + off, avail, &elf, &elflen, &next, err, sizeof err),
                         0, "container %d: %s", i, err);
            XGpubin *m = NULL;
            cr_assert_eq(xgpubin_read(elf, elflen, &m, err, sizeof err), 0, "%s", err);
            cr_assert_str_eq(m->kernels[0].name, names[i]);
            xgpubin_free(m);
            off += next;
        }
        cr_assert_eq(off, la + lb);
    }
    free(both);
    free(ba);
    free(bb);
    xgpubin_free(a);
    xgpubin_free(b);
}

Test(gpubin, caller_built_module)
{
    /* A module put together by hand (as the compiler does) is written and read back. */
    XInsn code[2];
    memset(code, 0, sizeof code);
    for (int i = 0; i < 2; i++) {
        memset(code[i].dst, XREG_RZ, 2);
        memset(code[i].src, XREG_RZ, 6);
    }
    code[0].op = XOP_mov, code[0].type = XT_U32, code[0].flags = XF_IMM, code[0].dst[0] = 0;
    code[0].imm = 7;
    code[1].op = XOP_exit;
    XParam p = {0, 4, 4};
    XKernel k = {.name = "k", .code_count = 2, .nregs = 1, .param_bytes = 4, .nparams = 1,
                 .params = &p, .signature = "k(int)"};
    XGpubin g = {.producer = "hand", .options = "", .kernels = &k, .nkernels = 1,
                 .text = code, .ntext = 2};
    size_t len;
    uint8_t *img = image_of(&g, &len);
    XGpubin *h = NULL;
    char err[256] = "";
    cr_assert_eq(xgpubin_read(img, len, &h, err, sizeof err), 0, "%s", err);
    cr_assert_str_eq(h->kernels[0].signature, "k(int)");
    cr_assert_eq(h->text[0].imm, 7);
    cr_assert_eq(h->nglobals, 0);
    cr_assert_null(xgpubin_line(h, 0));
    free(img);
    xgpubin_free(h);
    xgpubin_free(&g); /* caller-built: nothing to free, must not crash */

    k.nregs = 0; /* r0 used but no registers: the writer refuses */
    void *bad;
    cr_assert_neq(xgpubin_write_mem(&g, &bad, &len, err, sizeof err), 0);
    cr_assert(strstr(err, "registers"), "%s", err);
}

/* gpubin sections of an image (headers found by their XSEC magic; sections are 8-aligned). */
static int count_sections(const uint8_t *img, size_t len)
{
    int n = 0;
    for (size_t i = 0; i + 16 <= len; i += 8)
        n += !memcmp(img + i, "XSEC", 4);
    return n;
}

Test(gpubin, assist_round_trip)
{
    XGpubin *g = assemble_ok(module_a), *h = NULL;
    size_t len;
    uint8_t *plain = image_of(g, &len);
    cr_assert_eq(count_sections(plain, len), 5, "no routines, no .xgpu.assist");
    free(plain);
    g->assist = (XAssist *)xgpu_assist_builtin(&g->nassist);
    cr_assert_eq(g->nassist, 6);
    char err[256] = "", *path = temp_path();
    cr_assert_eq(xgpubin_write_file(g, path, err, sizeof err), 0, "%s", err);
    uint8_t *buf = slurp(path, &len);
    unlink(path);
    cr_assert_eq(count_sections(buf, len), 6);
    cr_assert_eq(xgpubin_read(buf, len, &h, err, sizeof err), 0, "%s", err);
    memset(buf, 0xee, len); /* the routines must not point into the input */
    free(buf);
    expect_same(g, h); /* the same bytes when written again */
    cr_assert_eq(h->nassist, g->nassist);
    for (uint32_t i = 0; i < g->nassist; i++) {
        const XAssist *a = &g->assist[i], *b = &h->assist[i];
        cr_assert_str_eq(a->name, b->name);
        cr_assert(a->algo == b->algo && a->dir == b->dir, "%s: algo, dir", a->name);
        cr_assert(a->nregs == b->nregs && a->param_bytes == b->param_bytes, "%s", a->name);
        cr_assert_eq(a->ntext, b->ntext, "%s", a->name);
        cr_assert_neq(a->text, b->text, "%s: a copy", a->name);
        cr_assert_eq(memcmp(a->text, b->text, a->ntext * sizeof(XInsn)), 0, "%s", a->name);
    }
    cr_assert_eq(xgpu_assist_find(h->assist, h->nassist, XASSIST_CPACK, XASSIST_COMP),
                 &h->assist[5]);
    cr_assert_eq(h->ntext, g->ntext, "the kernels' text is apart from the routines'");
    g->assist = NULL, g->nassist = 0;
    xgpubin_free(g);
    xgpubin_free(h);
}
