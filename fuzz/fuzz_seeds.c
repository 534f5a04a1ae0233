/*
 * fuzz_seeds.c - writes a seed corpus for fuzz_gpubin from assembled modules.
 *
 *   fuzz_seeds OUTDIR [FILE.s ...]
 *
 * Each module is written twice, as a gpubin ELF image (NAME.gpubin) and as a fat container
 * (NAME.fat); the built-in module covers every section (kernels with parameters and a
 * signature, globals with and without initializers, lines, reuse bits), assist.gpubin is
 * the same module without reuse bits and with two of the built-in CABA assist routines
 * (.xgpu.assist; the two shortest, so that the seed stays small), and two.fat holds two
 * containers back to back, as a linked program does. FILE.s are modules in the text form
 * (isa.h), e.g. the lowering's golden outputs. Real compiler output (with all six
 * routines) is added by scripts/fuzz.sh when an xgpu-cc is at hand.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xgpu/assist.h"
#include "xgpu/gpubin.h"

static const char builtin[] =
    ".global v 4 4 = 1 2 3 4\n"
    ".global z 64 16\n"
    ".global c 8 8 const = 1 0 0 0 0 0 0 0\n"
    ".kernel k\n"
    ".signature \"void k(int *out, int n)\"\n"
    ".shared 32\n"
    ".param 8\n"
    ".param 4\n"
    "    .loc \"k.cu\" 2\n"
    "    ld.param.u64 r2, [0]\n"
    "    ld.param.u32 r5, [8]\n"
    "    gaddr r4, v\n"
    "    .loc \"k.cu\" 3\n"
    "    ld.global.u32 r6, [r4]\n"
    "    add.u32 r6, r6, r5\n"
    "    st.global.u32 [r2], r6\n"
    "    exit\n"
    ".kernel other\n"
    "    .loc \"other.cu\" 7\n"
    "    exit\n";

static int put(const char *dir, const char *name, const char *ext, const void *p, size_t n)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s%s", dir, name, ext);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(p, 1, n, f) != n || fclose(f)) {
        fprintf(stderr, "fuzz_seeds: cannot write %s\n", path);
        return -1;
    }
    return 0;
}

/* The fat container: header + image, padded to 8 bytes; `copies` of them back to back. */
static int put_fat(const char *dir, const char *name, const void *img, size_t n, int copies)
{
    size_t one = (24 + n + 7) & ~(size_t)7;
    uint8_t *buf = calloc((size_t)copies, one);
    if (!buf)
        return -1;
    for (int i = 0; i < copies; i++) {
        XFatHeader h = {.magic = XFAT_MAGIC, .version = XFAT_VERSION, .size = n};
        memcpy(buf + (size_t)i * one, &h, sizeof h);
        memcpy(buf + (size_t)i * one + 24, img, n);
    }
    int rc = put(dir, name, ".fat", buf, (size_t)copies * one);
    free(buf);
    return rc;
}

/* Static reuse bits over the whole text, as xgpu-cc writes them. */
static uint8_t *add_reuse(XGpubin *g)
{
    uint8_t *bits = calloc(g->ntext ? g->ntext : 1, 1);
    for (uint32_t k = 0; bits && k < g->nkernels; k++)
        xisa_reuse_static(g->text + g->kernels[k].code_start, g->kernels[k].code_count,
                          XREUSE_RTHLD_DEFAULT, bits + g->kernels[k].code_start);
    g->reuse = bits;
    g->reuse_rthld = XREUSE_RTHLD_DEFAULT;
    g->reuse_source = XREUSE_STATIC;
    return bits;
}

/* Two built-in routines: C-Pack's and FPC's decompression. */
static void add_assist(XGpubin *g, XAssist *two)
{
    uint32_t n;
    const XAssist *t = xgpu_assist_builtin(&n);
    two[0] = *xgpu_assist_find(t, n, XASSIST_FPC, XASSIST_DECOMP);
    two[1] = *xgpu_assist_find(t, n, XASSIST_CPACK, XASSIST_DECOMP);
    g->assist = two, g->nassist = 2;
}

static int seed(const char *dir, const char *name, const char *text, int with_reuse,
                int with_assist)
{
    XGpubin *g = NULL;
    void *img = NULL;
    size_t n = 0;
    char err[256];
    if (xasm_assemble(text, &g, err, sizeof err)) {
        fprintf(stderr, "fuzz_seeds: %s: %s\n", name, err);
        return -1;
    }
    uint8_t *bits = with_reuse ? add_reuse(g) : NULL;
    XAssist two[2];
    if (with_assist)
        add_assist(g, two);
    int rc = xgpubin_write_mem(g, &img, &n, err, sizeof err);
    if (rc)
        fprintf(stderr, "fuzz_seeds: %s: %s\n", name, err);
    else
        rc = put(dir, name, ".gpubin", img, n) || put_fat(dir, name, img, n, 1) ||
             (with_reuse && put_fat(dir, "two", img, n, 2));
    g->reuse = NULL, g->assist = NULL, g->nassist = 0;
    free(bits);
    free(img);
    xgpubin_free(g);
    return rc;
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    long n = -1;
    if (f && fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (buf = malloc((size_t)n + 1)) && fread(buf, 1, (size_t)n, f) == (size_t)n)
        buf[n] = 0;
    else if (buf)
        free(buf), buf = NULL;
    if (f)
        fclose(f);
    return buf;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: fuzz_seeds OUTDIR [FILE.s ...]\n");
        return 2;
    }
    int rc = seed(argv[1], "builtin", builtin, 1, 0) || seed(argv[1], "assist", builtin, 0, 1);
    for (int i = 2; i < argc; i++) {
        char *text = slurp(argv[i]);
        const char *base = strrchr(argv[i], '/');
        char name[256];
        snprintf(name, sizeof name, "asm-%s", base ? base + 1 : argv[i]);
        if (!text) {
            fprintf(stderr, "fuzz_seeds: cannot read %s\n", argv[i]);
            rc = 1;
            continue;
        }
        rc |= seed(argv[1], name, text, 0, 0);
        free(text);
    }
    return rc ? 1 : 0;
}
