/*
 * isel_module.c - from an IR file to the MIR of every kernel: parse, prepare, lay out
 * the module's globals, then select instructions kernel by kernel (isel.c).
 *
 * The MModule owns copies of everything it needs (names, initializers, file names), so
 * the LLVM context is disposed before returning; only MModule.source points at the
 * caller's string.
 */
#include "lower.h"

#include <llvm-c/IRReader.h>
#include <stdlib.h>
#include <string.h>

#include "xgpu/diag.h"

int xgpu_load_ir(LLVMContextRef ctx, const char *path, LLVMModuleRef *out)
{
    LLVMMemoryBufferRef buf;
    char *msg = NULL;
    if (LLVMCreateMemoryBufferWithContentsOfFile(path, &buf, &msg)) {
        xdiag(NULL, XDIAG_ERROR, path, 0, 0, "cannot read: %s", msg ? msg : "?");
        LLVMDisposeMessage(msg);
        return -1;
    }
    /* LLVMParseIRInContext takes ownership of buf */
    if (LLVMParseIRInContext(ctx, buf, out, &msg)) {
        xdiag(NULL, XDIAG_ERROR, path, 0, 0, "invalid IR: %s", msg ? msg : "?");
        LLVMDisposeMessage(msg);
        return -1;
    }
    return 0;
}

/* The kernel's definition: a function's debug location has a line, no column. */
static void decl_loc(MFunc *f, LLVMValueRef fn)
{
    unsigned len = 0;
    const char *file = LLVMGetDebugLocFilename(fn, &len);
    unsigned line = LLVMGetDebugLocLine(fn);
    if (!file || !len || !line)
        return;
    char *name = strndup(file, len);
    if (name)
        f->decl_loc = mir_loc(f, mir_file(f->mod, name), line, 0);
    free(name);
}

/* __launch_bounds__(max, min): CUDA allows at most 1024 threads and 32 blocks per SM. */
static int launch_bounds(MFunc *f, LLVMModuleRef m, LLVMValueRef fn)
{
    lower_launch_bounds(m, fn, &f->max_threads, &f->min_blocks);
    if (f->max_threads > XKERNEL_MAX_THREADS)
        return mir_error(f, f->decl_loc, "__launch_bounds__ of %u threads exceeds CUDA's %u "
                         "threads per block", f->max_threads, XKERNEL_MAX_THREADS);
    if (f->min_blocks > XKERNEL_MAX_MIN_BLOCKS)
        return mir_error(f, f->decl_loc, "__launch_bounds__ minimum of %u blocks per SM exceeds "
                         "CUDA's %u", f->min_blocks, XKERNEL_MAX_MIN_BLOCKS);
    if (f->min_blocks && !f->max_threads)
        f->min_blocks = 0; /* (cannot be written in CUDA) */
    return 0;
}

static int isel_kernel(MModule *mm, LLVMModuleRef m, LLVMValueRef fn, LLVMTargetDataRef td,
                       const LowerGlobals *g)
{
    size_t len;
    MFunc *f = mir_func_new(mm, LLVMGetValueName2(fn, &len));
    decl_loc(f, fn);
    if (launch_bounds(f, m, fn))
        return -1;
    Isel s = {.f = f, .fn = fn, .td = td, .globals = g};
    int rc = isel_function(&s);
    isel_map_free(&s.vals);
    isel_map_free(&s.blocks);
    isel_map_free(&s.frames);
    isel_map_free(&s.byval);
    isel_map_free(&s.field1);
    isel_map_free(&s.aggs);
    free(s.aggf);
    lower_shared_free(&s.shared);
    free(s.bfirst);
    free(s.blast);
    return rc;
}

MModule *xgpu_isel_module(LLVMModuleRef m, const char *src)
{
    MModule *mm = mir_module_new(src);
    LowerGlobals g;
    int rc = lower_globals(mm, m, src, &g);
    LLVMValueRef *kernels;
    uint32_t nk = lower_kernels(m, &kernels);
    LLVMTargetDataRef td = LLVMGetModuleDataLayout(m);
    for (uint32_t i = 0; i < nk && !rc; i++)
        rc = isel_kernel(mm, m, kernels[i], td, &g);
    free(kernels);
    lower_globals_free(&g);
    if (rc || mm->errors) {
        mir_module_free(mm);
        return NULL;
    }
    return mm;
}

MModule *xgpu_lower_to_mir(const char *ir_path, const XgpuLowerOptions *o)
{
    const char *src = o->source_name ? o->source_name : ir_path;
    LLVMContextRef ctx = LLVMContextCreate();
    LLVMModuleRef m = NULL;
    MModule *mm = NULL;
    if (!xgpu_load_ir(ctx, ir_path, &m) && !xgpu_prepare(m, o, src))
        mm = xgpu_isel_module(m, src);
    if (m)
        LLVMDisposeModule(m);
    LLVMContextDispose(ctx);
    return mm;
}
