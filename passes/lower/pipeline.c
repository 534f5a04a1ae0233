/*
 * pipeline.c - the device lowering as one straight-line function (QBE's func()):
 *
 *   parse IR -> prepare (LLVM passes) -> per kernel: isel -> mir_cfg -> mir_outssa
 *   -> mir_cfg -> mir_postdom -> mir_divergence -> mir_regalloc -> mir_emit
 *   -> mir_module_gpubin -> reuse bits (.xgpu.reuse, static estimate on the final code)
 *   -> fat container (+ optional disassembly)
 *
 * With XgpuLowerOptions.debug_dumps (or env XGPU_DUMP=1) the MIR is printed to stderr
 * after each pass. Every stage reports its own located errors; this file only stops at
 * the first stage that failed.
 */
#include "lower.h"

#include <stdlib.h>
#include <string.h>

static void dump(const XgpuLowerOptions *o, MFunc *f, const char *after)
{
    if (!o->debug_dumps)
        return;
    fprintf(stderr, "# MIR after %s\n", after);
    mir_print(f, stderr);
}

/* The backend over one kernel whose MIR isel produced. */
static int lower_kernel(MFunc *f, const XgpuLowerOptions *o)
{
    MRegallocOptions ro = {.max_regs = o->max_regs ? o->max_regs : 255};
    dump(o, f, "isel");
    if (mir_cfg(f))
        return -1;
    dump(o, f, "cfg");
    if (mir_outssa(f))
        return -1;
    dump(o, f, "outssa");
    if (mir_cfg(f) || mir_postdom(f))
        return -1;
    if (mir_divergence(f))
        return -1;
    dump(o, f, "divergence");
    if (mir_regalloc(f, &ro))
        return -1;
    dump(o, f, "regalloc");
    return mir_emit(f);
}

/* The static reuse estimate of every kernel (xisa_reuse_static), into g->reuse. */
static int add_reuse(XGpubin *g, unsigned rthld)
{
    uint8_t *bits = calloc(g->ntext ? g->ntext : 1, 1);
    if (!bits)
        return -1;
    for (uint32_t i = 0; i < g->nkernels; i++) {
        const XKernel *k = &g->kernels[i];
        if (xisa_reuse_static(&g->text[k->code_start], k->code_count, rthld,
                              &bits[k->code_start])) {
            free(bits);
            return -1;
        }
    }
    g->reuse = bits, g->reuse_rthld = rthld, g->reuse_source = XREUSE_STATIC;
    return 0;
}

static int write_module(MModule *mm, const XgpuLowerOptions *o, const char *out_path,
                        FILE *asm_out)
{
    XGpubin g;
    char err[256];
    int rc = mir_module_gpubin(mm, &g);
    if (!rc && add_reuse(&g, o->rthld ? o->rthld : XREUSE_RTHLD_DEFAULT)) {
        fprintf(stderr, "xgpu-cc: error: out of memory computing reuse distances\n");
        rc = -1;
    }
    if (!rc && out_path && xgpubin_write_fat(&g, out_path, err, sizeof err)) {
        fprintf(stderr, "%s: error: %s\n", out_path, err);
        rc = -1;
    }
    if (!rc && asm_out)
        rc = xgpubin_disassemble(&g, asm_out);
    free(g.kernels);
    free(g.text);
    free(g.globals);
    free(g.files);
    free(g.lines);
    free((void *)g.reuse);
    return rc ? -1 : 0;
}

int xgpu_lower_file(const char *ir_path, const XgpuLowerOptions *opts, const char *out_fat_path,
                    FILE *asm_out)
{
    XgpuLowerOptions o = *opts;
    const char *env = getenv("XGPU_DUMP");
    if (env && strcmp(env, "0") != 0)
        o.debug_dumps = 1;
    const char *src = o.source_name ? o.source_name : ir_path;
    LLVMContextRef ctx = LLVMContextCreate();
    LLVMModuleRef m = NULL;
    MModule *mm = NULL;
    int rc = xgpu_load_ir(ctx, ir_path, &m);
    if (!rc)
        rc = xgpu_prepare(m, &o, src);
    if (!rc) {
        mm = xgpu_isel_module(m, src);
        rc = mm ? 0 : -1;
    }
    if (m)
        LLVMDisposeModule(m);
    LLVMContextDispose(ctx);
    for (uint32_t i = 0; mm && i < mm->nfuncs && !rc; i++)
        rc = lower_kernel(mm->funcs[i], &o);
    if (!rc)
        rc = write_module(mm, &o, out_fat_path, asm_out);
    mir_module_free(mm);
    return rc ? 1 : 0;
}
