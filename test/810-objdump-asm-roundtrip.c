/*
 * 810-objdump-asm-roundtrip: the listing `xgpu-objdump --asm` prints for compiled CUDA code
 * assembles back (xasm_assemble) to the same kernels, instructions, globals and lines.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xgpu/gpubin.h"
#include "xtest.h"

static XGpubin *read_fat(const char *path)
{
    size_t len;
    char *buf = xt_read(path, &len);
    cr_assert_not_null(buf, "cannot read %s", path);
    const void *elf;
    size_t elflen, next;
    char err[256];
    cr_assert_eq(xfat_parse(buf, len, &elf, &elflen, &next, err, sizeof err), 0, "%s", err);
    XGpubin *g = NULL;
    cr_assert_eq(xgpubin_read(elf, elflen, &g, err, sizeof err), 0, "%s", err);
    free(buf);
    return g;
}

static void roundtrip(const char *sample)
{
    char name[128];
    snprintf(name, sizeof name, "%s.fatbin", sample);
    const char *fat = xt_tmp(name);
    char *out = NULL;
    int rc = xt_runf(&out, "%s/xgpu-cc -g --cuda-device-only %s/samples/%s.cu -o %s", XGPU_BIN_DIR,
                     XGPU_SOURCE_DIR, sample, fat);
    cr_assert_eq(rc, 0, "%s", out);
    free(out);
    rc = xt_runf(&out, "%s/xgpu-objdump --asm %s", XGPU_BIN_DIR, fat);
    cr_assert_eq(rc, 0, "%s", out);
    XGpubin *a = read_fat(fat), *b = NULL;
    char err[256];
    cr_assert_eq(xasm_assemble(out, &b, err, sizeof err), 0, "listing does not assemble: %s\n%s",
                 err, out);
    free(out);
    cr_assert_eq(a->nkernels, b->nkernels);
    for (uint32_t k = 0; k < a->nkernels; k++) {
        const XKernel *x = &a->kernels[k], *y = &b->kernels[k];
        cr_assert_str_eq(x->name, y->name);
        cr_assert_eq(x->code_count, y->code_count);
        cr_assert_eq(x->nregs, y->nregs);
        cr_assert_eq(x->shared_bytes, y->shared_bytes);
        cr_assert_eq(x->local_bytes, y->local_bytes);
        cr_assert_eq(x->param_bytes, y->param_bytes);
        cr_assert_eq(x->nparams, y->nparams);
    }
    cr_assert_eq(a->ntext, b->ntext);
    cr_assert_eq(memcmp(a->text, b->text, a->ntext * sizeof *a->text), 0, "instructions differ");
    cr_assert_eq(a->nglobals, b->nglobals);
    cr_assert_eq(a->nlines, b->nlines);
    for (uint32_t i = 0; i < a->nlines; i++) {
        cr_assert_eq(a->lines[i].pc, b->lines[i].pc);
        cr_assert_eq(a->lines[i].line, b->lines[i].line);
    }
    xgpubin_free(a);
    xgpubin_free(b);
}

Test(objdump_asm, vecadd) { roundtrip("vecadd"); }
Test(objdump_asm, matmul) { roundtrip("matmul"); }
Test(objdump_asm, reduction) { roundtrip("reduction"); }
