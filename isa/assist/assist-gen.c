/*
 * assist-gen.c - the build-time tool that turns the CABA assist routines' assembly into C.
 *
 *   xgpu-assist-gen OUT.c FILE.s...
 *
 * Each FILE is named ALGO_DIR.s (ALGO bdi, fpc or cpack; DIR decomp or comp) and holds
 * one kernel named caba_ALGO_DIR: its parameters, registers and code are the routine
 * (assist.h). The tool assembles every file (xasm_assemble_named, so an assembly error
 * reads FILE:LINE: error: ...), checks that each file is what its name says and that the
 * table as a whole is one the gpubin writer takes (at most one routine per (algo, dir),
 * no globals, no shared or local memory: an assist warp runs beside any module's
 * kernels), then writes OUT.c: per routine an XInsn array (one line per instruction, with
 * its disassembly as a comment), the XAssist table sorted by (algo, dir), and
 * xgpu_assist_builtin. OUT.c is written under a temporary name and renamed, so that a
 * failed run leaves no stale table behind; the exit status is 1 on any error.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xgpu/assist.h"
#include "xgpu/diag.h"

/* One routine, from its file. */
typedef struct Routine {
    const char *path, *base; /* the file as named, and its last component */
    XGpubin *g;              /* the assembled file (owns the code) */
    XAssist a;
} Routine;

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

/* (algo, dir) from a base name ALGO_DIR.s; -1 when it is not one. */
static int parse_name(const char *base, unsigned *algo, unsigned *dir)
{
    for (unsigned i = 0; i < XASSIST_NALGO; i++)
        for (unsigned j = 0; j < XASSIST_NDIR; j++) {
            char want[64];
            snprintf(want, sizeof want, "%s_%s.s", xgpu_assist_algo_name(i),
                     xgpu_assist_dir_name(j));
            if (strcmp(base, want) == 0)
                return *algo = i, *dir = j, 0;
        }
    return -1;
}

/* Assembles r->path and fills r->a from its one kernel. */
static int load(Routine *r)
{
    const char *slash = strrchr(r->path, '/');
    r->base = slash ? slash + 1 : r->path;
    unsigned algo, dir;
    if (parse_name(r->base, &algo, &dir))
        return xdiag(NULL, XDIAG_ERROR, r->path, 0, 0, "an assist routine's file is named "
                     "ALGO_DIR.s (bdi, fpc or cpack; decomp or comp)");
    char *text = slurp(r->path), err[512];
    if (!text)
        return xdiag(NULL, XDIAG_ERROR, r->path, 0, 0, "cannot read the file");
    int rc = xasm_assemble_named(r->path, text, &r->g, err, sizeof err);
    free(text);
    if (rc)
        return fprintf(stderr, "%s\n", err), -1;
    char name[64];
    snprintf(name, sizeof name, "caba_%s_%s", xgpu_assist_algo_name(algo),
             xgpu_assist_dir_name(dir));
    const XGpubin *g = r->g;
    const XKernel *k = g->nkernels == 1 ? &g->kernels[0] : NULL;
    if (!k || strcmp(k->name, name) != 0)
        return xdiag(NULL, XDIAG_ERROR, r->path, 0, 0, "the file must hold one kernel, "
                     "named %s", name);
    if (g->nglobals || k->shared_bytes || k->local_bytes)
        return xdiag(NULL, XDIAG_ERROR, r->path, 0, 0, "%s: an assist routine has no "
                     "globals, shared or local memory", name);
    r->a = (XAssist){k->name, algo, dir, k->nregs, k->param_bytes, g->text + k->code_start,
                     k->code_count};
    return 0;
}

static int by_algo_dir(const void *x, const void *y)
{
    const XAssist *a = &((const Routine *)x)->a, *b = &((const Routine *)y)->a;
    unsigned ka = a->algo * XASSIST_NDIR + a->dir, kb = b->algo * XASSIST_NDIR + b->dir;
    return ka < kb ? -1 : ka > kb;
}

/* The table must be one the writer takes (gb_check: one routine per (algo, dir), every
 * instruction valid for the routine); the reader takes what the writer writes. */
static int check_table(const Routine *r, uint32_t n)
{
    XAssist *table = calloc(n, sizeof *table);
    if (!table)
        return xdiag(NULL, XDIAG_ERROR, NULL, 0, 0, "out of memory");
    for (uint32_t i = 0; i < n; i++)
        table[i] = r[i].a;
    static const XInsn stop = {.op = XOP_exit, .dst = {XREG_RZ, XREG_RZ},
                               .src = {XREG_RZ, XREG_RZ, XREG_RZ, XREG_RZ, XREG_RZ, XREG_RZ}};
    XKernel k = {.name = "k", .code_count = 1, .signature = ""};
    XGpubin g = {.producer = "xgpu-assist-gen", .options = "", .kernels = &k, .nkernels = 1,
                 .text = (XInsn *)&stop, .ntext = 1, .assist = table, .nassist = n};
    void *img = NULL;
    size_t len;
    char err[512];
    int rc = xgpubin_write_mem(&g, &img, &len, err, sizeof err);
    if (rc)
        xdiag(NULL, XDIAG_ERROR, NULL, 0, 0, "the assist routines: %s", err);
    free(img);
    free(table);
    return rc;
}

/* The initializer of one instruction, field by field (designated, so that it does not
 * depend on XInsn's field order), and its disassembly. */
static void put_insn(FILE *f, const XInsn *in, uint32_t pc)
{
    char text[256];
    xisa_format(in, NULL, 0, text, sizeof text);
    for (char *p = text; (p = strstr(p, "*/"));) /* keep the comment closed */
        p[0] = '+';
    fprintf(f, "    /* %4u: %s */\n", pc, text);
    fprintf(f, "    {.op = XOP_%s, .type = %u, .type2 = %u, .mod = %u, .flags = %u, "
               ".dst = {%u, %u}, .src = {%u, %u, %u, %u, %u, %u}, .sub = %u, .csrc = %u,\n",
            xisa_ops[in->op].name, in->type, in->type2, in->mod, in->flags, in->dst[0],
            in->dst[1], in->src[0], in->src[1], in->src[2], in->src[3], in->src[4], in->src[5],
            in->sub, in->csrc);
    if (in->imm == INT64_MIN)
        fprintf(f, "     .imm = INT64_MIN");
    else
        fprintf(f, "     .imm = INT64_C(%" PRId64 ")", in->imm);
    fprintf(f, ", .target = %" PRIu32 ", .reconv = %" PRIu32 "},\n", in->target, in->reconv);
}

static void put_table(FILE *f, const Routine *r, uint32_t n)
{
    fprintf(f, "/* Generated by isa/assist/assist-gen.c from emulator/mech/caba/assist/ when the "
               "project is\n * built: do not edit (assist.h). */\n"
               "#include <stdint.h>\n\n#include \"xgpu/assist.h\"\n");
    for (uint32_t i = 0; i < n; i++) {
        const XAssist *a = &r[i].a;
        fprintf(f, "\n/* %s (%s): %u registers, %u parameter bytes, %u instructions */\n"
                   "static const XInsn text_%s[] = {\n", a->name, r[i].base, a->nregs,
                a->param_bytes, a->ntext, a->name);
        for (uint32_t pc = 0; pc < a->ntext; pc++)
            put_insn(f, &a->text[pc], pc);
        fprintf(f, "};\n");
    }
    fprintf(f, "\nstatic const XAssist builtin[] = {\n");
    for (uint32_t i = 0; i < n; i++) {
        const XAssist *a = &r[i].a;
        fprintf(f, "    {.name = \"%s\", .algo = %u, .dir = %u, .nregs = %u, .param_bytes = %u,\n"
                   "     .text = text_%s, .ntext = %u},\n", a->name, a->algo, a->dir, a->nregs,
                a->param_bytes, a->name, a->ntext);
    }
    fprintf(f, "};\n\nconst XAssist *xgpu_assist_builtin(uint32_t *n)\n{\n"
               "    if (n)\n        *n = sizeof builtin / sizeof builtin[0];\n"
               "    return builtin;\n}\n");
}

static int write_out(const char *out, const Routine *r, uint32_t n)
{
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.tmp", out);
    FILE *f = fopen(tmp, "w");
    if (!f)
        return xdiag(NULL, XDIAG_ERROR, tmp, 0, 0, "cannot open for writing");
    put_table(f, r, n);
    int bad = ferror(f) | fclose(f);
    if (bad || rename(tmp, out)) {
        remove(tmp);
        return xdiag(NULL, XDIAG_ERROR, out, 0, 0, "cannot write");
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: xgpu-assist-gen OUT.c FILE.s...\n");
        return 2;
    }
    uint32_t n = (uint32_t)(argc - 2);
    Routine *r = calloc(n, sizeof *r);
    int rc = r ? 0 : xdiag(NULL, XDIAG_ERROR, NULL, 0, 0, "out of memory");
    for (uint32_t i = 0; !rc && i < n; i++) {
        r[i].path = argv[i + 2];
        rc = load(&r[i]);
    }
    if (!rc)
        qsort(r, n, sizeof *r, by_algo_dir);
    for (uint32_t i = 1; !rc && i < n; i++)
        if (by_algo_dir(&r[i - 1], &r[i]) == 0)
            rc = xdiag(NULL, XDIAG_ERROR, r[i].path, 0, 0, "%s again (also %s)", r[i].a.name,
                       r[i - 1].path);
    if (!rc)
        rc = check_table(r, n) || write_out(argv[1], r, n);
    for (uint32_t i = 0; r && i < n; i++)
        xgpubin_free(r[i].g);
    free(r);
    return rc ? 1 : 0;
}
