/*
 * pipeline.c - the device lowering as one straight-line function (QBE's func()):
 *
 *   parse IR -> prepare (LLVM passes) -> per kernel: isel -> mir_cfg -> mir_fold
 *   -> mir_sched (mir_fold and mir_sched above -O0) -> mir_outssa
 *   -> mir_cfg -> mir_postdom -> mir_divergence -> mir_shared_refs -> mir_regalloc
 *   -> mir_emit -> mir_phases -> mir_module_gpubin -> source signatures (from the front
 *   end, by kernel name) -> reuse bits (.xgpu.reuse, static estimate on the final code)
 *   -> phase specifiers (.xgpu.phases) -> the CABA assist routines (.xgpu.assist, built
 *   in: xgpu/assist.h) -> fat container (+ optional disassembly)
 *
 * With XgpuLowerOptions.debug_dumps (or env XGPU_DUMP=1) the MIR is printed to stderr
 * after each pass. Every stage reports its own located errors; this file only stops at
 * the first stage that failed.
 */
#include "lower.h"

#include <stdlib.h>
#include <string.h>

#include "xgpu/assist.h"
#include "xgpu/diag.h"

#define XGPU_SM70_REGFILE 65536u /* 32-bit registers per SM of sm_70, the compile target */

static void dump(const XgpuLowerOptions *o, MFunc *f, const char *after)
{
    if (!o->debug_dumps)
        return;
    fprintf(stderr, "# MIR after %s\n", after);
    mir_print(f, stderr);
}

/* The register budget that __launch_bounds__(max_threads, min_blocks) leaves, as nvcc
 * derives it (CUDA C Programming Guide, "Launch Bounds"): min_blocks blocks (at least
 * one) of max_threads threads, rounded up to whole warps, must fit in the register file of
 * one SM of the compiled-for architecture (sm_70: 65536 registers), at the allocation
 * granularity of 8 registers per thread. 0 when the kernel has no bounds. */
static unsigned launch_bound_regs(const MFunc *f)
{
    if (!f->max_threads)
        return 0;
    unsigned warps = (f->max_threads + 31) / 32, blocks = f->min_blocks ? f->min_blocks : 1;
    unsigned regs = XGPU_SM70_REGFILE / (blocks * warps * 32) / 8 * 8;
    return regs < 8 ? 8 : regs > XREG_MAX ? XREG_MAX : regs;
}

/* CUDA's limit on local memory per thread (ptxas refuses more). */
#define CUDA_MAX_LOCAL_BYTES (512u * 1024)

/* The backend over one kernel whose MIR isel produced. */
static int lower_kernel(MFunc *f, const XgpuLowerOptions *o)
{
    MRegallocOptions ro = {.max_regs = o->max_regs ? o->max_regs : 255};
    unsigned bound = launch_bound_regs(f);
    if (bound && bound < ro.max_regs)
        ro.max_regs = bound;
    MPhaseOptions po = {.delta = o->phase_delta ? o->phase_delta : XPHASE_DELTA_DEFAULT,
                        .gap = o->phase_gap ? o->phase_gap : XPHASE_GAP_DEFAULT};
    dump(o, f, "isel");
    if (mir_cfg(f))
        return -1;
    dump(o, f, "cfg");
    if (o->opt_level > 0) {
        MSchedOptions so = {.max_live = ro.max_regs};
        if (mir_fold(f))
            return -1;
        dump(o, f, "fold");
        if (mir_sched(f, &so))
            return -1;
        dump(o, f, "sched");
    }
    if (mir_outssa(f))
        return -1;
    dump(o, f, "outssa");
    if (mir_cfg(f) || mir_postdom(f))
        return -1;
    if (mir_divergence(f))
        return -1;
    dump(o, f, "divergence");
    if (mir_shared_refs(f) || mir_regalloc(f, &ro))
        return -1;
    dump(o, f, "regalloc");
    unsigned floor = o->min_regs < ro.max_regs ? o->min_regs : ro.max_regs;
    if (f->nregs < floor) /* --regs: the kernel is given this many, used or not */
        f->nregs = floor;
    if (f->local_bytes > CUDA_MAX_LOCAL_BYTES)
        return mir_error(f, f->decl_loc, "kernel needs %u bytes of local memory per thread "
                         "(stack arrays and spills); CUDA's limit is %u bytes (512 KiB)",
                         f->local_bytes, CUDA_MAX_LOCAL_BYTES);
    return mir_emit(f) || mir_phases(f, &po) ? -1 : 0;
}

/* The reuse bits of every kernel into g->reuse: the static estimate
 * (xisa_reuse_static), then, with a profile, the profile's majority for every operand it
 * counted. A kernel the profile has no record of (other code) keeps the static bits,
 * with a warning. */
static int add_reuse(XGpubin *g, unsigned rthld, const char *profile)
{
    uint8_t *bits = calloc(g->ntext ? g->ntext : 1, 1);
    if (!bits) {
        fprintf(stderr, "xgpu-cc: error: out of memory computing reuse distances\n");
        return -1;
    }
    int from_profile = 0;
    for (uint32_t i = 0; i < g->nkernels; i++) {
        const XKernel *k = &g->kernels[i];
        const XInsn *code = &g->text[k->code_start];
        char err[600];
        int n = 0;
        if (xisa_reuse_static(code, k->code_count, rthld, &bits[k->code_start])) {
            fprintf(stderr, "xgpu-cc: error: out of memory computing reuse distances\n");
            n = -1;
        } else if (profile) {
            n = xisa_reuse_apply_profile(profile, k->name, code, k->code_count, rthld,
                                         &bits[k->code_start], err, sizeof err);
            if (n < 0)
                fprintf(stderr, "xgpu-cc: error: %s\n", err);
            else if (n == 0)
                fprintf(stderr, "xgpu-cc: warning: %s: no profile of kernel %s with this "
                                "code; its reuse bits stay static\n", profile, k->name);
            from_profile |= n > 0;
        }
        if (n < 0) {
            free(bits);
            return -1;
        }
    }
    g->reuse = bits, g->reuse_rthld = rthld;
    g->reuse_source = from_profile ? XREUSE_PROFILE : XREUSE_STATIC;
    return 0;
}

/* Every kernel's phase records into g, with the thresholds, which also go into the
 * module's options text. */
static void add_phases(XGpubin *g, const MModule *mm, const XgpuLowerOptions *o, char *opts,
                       size_t optlen)
{
    g->phase_delta = o->phase_delta ? o->phase_delta : XPHASE_DELTA_DEFAULT;
    g->phase_gap = o->phase_gap ? o->phase_gap : XPHASE_GAP_DEFAULT;
    snprintf(opts, optlen, "--phase-delta=%u --phase-gap=%u", g->phase_delta, g->phase_gap);
    g->options = opts;
    for (uint32_t i = 0; i < mm->nfuncs; i++)
        g->nphases += mm->funcs[i]->nphases;
    g->phases = mir_zalloc(g->nphases, sizeof *g->phases);
    for (uint32_t i = 0, n = 0; i < mm->nfuncs; i++)
        for (uint32_t j = 0; j < mm->funcs[i]->nphases; j++) {
            g->phases[n] = mm->funcs[i]->phases[j];
            g->phases[n++].kernel = i;
        }
}

/* The front end's signature for a kernel: the entry of its exact mangled name, else the
 * template whose instantiation names start with the entry's prefix; "" when none. */
static const char *signature_of(const XgpuLowerOptions *o, const char *kernel)
{
    const char *by_prefix = "";
    for (unsigned i = 0; i < o->nsignatures; i++) {
        const XgpuSignature *s = &o->signatures[i];
        if (!s->prefix && strcmp(s->name, kernel) == 0)
            return s->signature;
        if (s->prefix && strncmp(s->name, kernel, strlen(s->name)) == 0)
            by_prefix = s->signature;
    }
    return by_prefix;
}

static int write_module(MModule *mm, const XgpuLowerOptions *o, const char *out_path,
                        FILE *asm_out)
{
    XGpubin g;
    char err[256], opts[64];
    int rc = mir_module_gpubin(mm, &g);
    for (uint32_t i = 0; !rc && i < g.nkernels && o->nsignatures; i++)
        g.kernels[i].signature = signature_of(o, g.kernels[i].name);
    if (!rc && add_reuse(&g, o->rthld ? o->rthld : XREUSE_RTHLD_DEFAULT, o->reuse_profile))
        rc = -1;
    if (!rc)
        add_phases(&g, mm, o, opts, sizeof opts);
    if (!rc && !o->no_assist) /* the built-in table: static, shared, never freed */
        g.assist = (XAssist *)xgpu_assist_builtin(&g.nassist);
    if (!rc && out_path && xgpubin_write_fat(&g, out_path, err, sizeof err))
        rc = xdiag(NULL, XDIAG_ERROR, out_path, 0, 0, "%s", err);
    if (!rc && asm_out)
        rc = xgpubin_disassemble(&g, asm_out);
    free(g.kernels);
    free(g.text);
    free(g.globals);
    free(g.files);
    free(g.lines);
    free((void *)g.reuse);
    free(g.phases);
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
