/*
 * pipeline.c - the device lowering as one straight-line function (QBE's func()):
 *
 *   parse IR -> prepare (LLVM passes) -> per kernel: isel -> mir_cfg -> mir_outssa
 *   -> mir_cfg -> mir_postdom -> mir_divergence -> mir_regalloc -> mir_emit
 *   -> mir_module_gpubin -> fat container (+ optional disassembly)
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

static int write_module(MModule *mm, const char *out_path, FILE *asm_out)
{
    XGpubin g;
    char err[256];
    int rc = mir_module_gpubin(mm, &g);
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
        rc = write_module(mm, out_fat_path, asm_out);
    mir_module_free(mm);
    return rc ? 1 : 0;
}
