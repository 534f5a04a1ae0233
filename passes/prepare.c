/*
 * prepare.c - bring clang's device IR into the shape instruction selection accepts.
 *
 * Requires: a parsed nvptx64 module. Produces: a module whose only defined functions are
 * kernels, with every device function inlined, no calls except to intrinsics, switches
 * lowered to branches, vectors scalarized and address spaces inferred (so shared and
 * global accesses through generic pointers become direct ones where LLVM can prove it).
 *
 * Steps, in order:
 *   1. drop optnone/noinline from device functions (so -O0 code is lowered too), reject
 *      recursion (a cycle in the call graph) and indirect calls with a located error,
 *      mark every non-kernel definition alwaysinline;
 *   2. mark kernel pointer parameters as global (CUDA kernel arguments cannot point into
 *      shared or local memory), so infer-address-spaces turns their accesses into global
 *      ones;
 *   3. run LLVM's passes through LLVMRunPasses with an NVPTX target machine (sm_70) so
 *      target queries (flat address space, legal types) are right; before the scalarizer,
 *      vector loads and stores the optimizer formed are split into element accesses;
 *   4. report any call left to a non-intrinsic function other than the declarations isel
 *      knows (vprintf, the math library's __xgpu_* functions; device malloc, free, new and
 *      delete are named as unsupported), and any integer wider than 64 bits (__int128),
 *      delete non-kernel functions;
 *   5. contract `contract` multiply-add pairs into fma (fma.c), as NVIDIA's backend does,
 *      and expand the arithmetic-with-overflow intrinsics (overflow.c);
 *   6. split phis of struct type whose every use is an extractvalue into one phi per field
 *      (LLVM sinks the extractvalues of calls made on two paths, e.g. a wmma load whose
 *      layout is chosen at run time, below a phi of the whole result; isel keeps no
 *      aggregate in registers).
 */
#include "lower.h"

#include <llvm-c/Error.h>
#include <llvm-c/TargetMachine.h>
#include <llvm-c/Transforms/PassBuilder.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "xgpu/diag.h"

#define NVPTX_TRIPLE "nvptx64-nvidia-cuda"
#define PTX_KERNEL_CC 71u /* llvm::CallingConv::PTX_Kernel */

int lower_diag(const char *src, LLVMValueRef at, const char *fmt, ...)
{
    unsigned len = 0, line = 0, col = 0;
    const char *file = NULL;
    if (at && (LLVMIsAInstruction(at) || LLVMIsAFunction(at) || LLVMIsAGlobalVariable(at))) {
        file = LLVMGetDebugLocFilename(at, &len);
        line = LLVMGetDebugLocLine(at);
        col = LLVMGetDebugLocColumn(at); /* instructions only; 0 for the others */
    }
    char *name = file && len && line ? strndup(file, len) : NULL;
    va_list ap;
    va_start(ap, fmt);
    if (name)
        xdiag_v(NULL, XDIAG_ERROR, name, line, col, fmt, ap);
    else
        xdiag_v(NULL, XDIAG_ERROR, src ? src : "<input>", 0, 0, fmt, ap);
    va_end(ap);
    free(name);
    return -1;
}

/* The value of key in one annotation node about fn, or 0. */
static uint64_t annotation(LLVMValueRef node, LLVMValueRef fn, const char *key)
{
    unsigned n = LLVMGetMDNodeNumOperands(node);
    LLVMValueRef *ops = n >= 3 ? calloc(n, sizeof *ops) : NULL;
    uint64_t v = 0;
    if (!ops)
        return 0;
    LLVMGetMDNodeOperands(node, ops);
    for (unsigned i = 1; i + 1 < n && ops[0] == fn; i += 2) {
        unsigned klen = 0;
        const char *k = ops[i] ? LLVMGetMDString(ops[i], &klen) : NULL;
        if (k && klen == strlen(key) && !memcmp(k, key, klen) && ops[i + 1] &&
            LLVMIsAConstantInt(ops[i + 1]))
            v = LLVMConstIntGetZExtValue(ops[i + 1]);
    }
    free(ops);
    return v;
}

/* An nvvm.annotations node is {function, key, value, key, value...}: its function (NULL
 * when the first operand is none) and whether it marks it a kernel ("kernel" = 1). */
static int is_kernel_annotation(LLVMValueRef node, LLVMValueRef *fn)
{
    LLVMValueRef first = NULL;
    if (LLVMGetMDNodeNumOperands(node) >= 3) {
        LLVMValueRef *ops = calloc(LLVMGetMDNodeNumOperands(node), sizeof *ops);
        if (ops) {
            LLVMGetMDNodeOperands(node, ops);
            first = ops[0] && LLVMIsAFunction(ops[0]) ? ops[0] : NULL;
        }
        free(ops);
    }
    *fn = first;
    return first && annotation(node, first, "kernel") == 1;
}

void lower_launch_bounds(LLVMModuleRef m, LLVMValueRef fn, uint32_t *max_threads,
                         uint32_t *min_blocks)
{
    unsigned na = LLVMGetNamedMetadataNumOperands(m, "nvvm.annotations");
    LLVMValueRef *nodes = calloc(na ? na : 1, sizeof *nodes);
    uint64_t dim[3] = {0, 0, 0}, blocks = 0;
    static const char *const keys[3] = {"maxntidx", "maxntidy", "maxntidz"};
    if (nodes)
        LLVMGetNamedMetadataOperands(m, "nvvm.annotations", nodes);
    for (unsigned i = 0; nodes && i < na; i++) {
        for (int d = 0; d < 3; d++) {
            uint64_t v = annotation(nodes[i], fn, keys[d]);
            dim[d] = v ? v : dim[d];
        }
        uint64_t b = annotation(nodes[i], fn, "minctasm");
        blocks = b ? b : blocks;
    }
    free(nodes);
    uint64_t t = dim[0] ? dim[0] * (dim[1] ? dim[1] : 1) * (dim[2] ? dim[2] : 1) : 0;
    *max_threads = t > UINT32_MAX ? UINT32_MAX : (uint32_t)t;
    *min_blocks = blocks > UINT32_MAX ? UINT32_MAX : (uint32_t)blocks;
}

uint32_t lower_kernels(LLVMModuleRef m, LLVMValueRef **out)
{
    uint32_t n = 0;
    LLVMValueRef *k = NULL;
    unsigned na = LLVMGetNamedMetadataNumOperands(m, "nvvm.annotations");
    LLVMValueRef *nodes = calloc(na ? na : 1, sizeof *nodes);
    if (nodes)
        LLVMGetNamedMetadataOperands(m, "nvvm.annotations", nodes);
    for (LLVMValueRef f = LLVMGetFirstFunction(m); f && nodes; f = LLVMGetNextFunction(f)) {
        if (LLVMIsDeclaration(f))
            continue;
        int is = LLVMGetFunctionCallConv(f) == PTX_KERNEL_CC;
        for (unsigned i = 0; i < na && !is; i++) {
            LLVMValueRef kf;
            is = is_kernel_annotation(nodes[i], &kf) && kf == f;
        }
        if (!is)
            continue;
        LLVMValueRef *nk = realloc(k, (n + 1) * sizeof *k);
        if (!nk)
            break;
        k = nk;
        k[n++] = f;
    }
    free(nodes);
    *out = k;
    return n;
}

int lower_is_kernel(LLVMValueRef *kernels, uint32_t n, LLVMValueRef fn)
{
    for (uint32_t i = 0; i < n; i++)
        if (kernels[i] == fn)
            return 1;
    return 0;
}

static const char *fname(LLVMValueRef f)
{
    size_t len;
    const char *s = LLVMGetValueName2(f, &len);
    return len ? s : "<anonymous>";
}

/* The callee of a call instruction if it is a plain function, else NULL. */
static LLVMValueRef direct_callee(LLVMValueRef call)
{
    LLVMValueRef c = LLVMGetCalledValue(call);
    return c && LLVMIsAFunction(c) ? c : NULL;
}

/* ---- call graph: recursion and indirect calls ------------------------------------------ */

typedef struct CallWalk {
    const char *src;
    LLVMValueRef *stack; /* functions on the DFS path */
    uint32_t depth, cap;
    LLVMValueRef *done;
    uint32_t ndone, capdone;
} CallWalk;

static int in_list(LLVMValueRef *l, uint32_t n, LLVMValueRef f)
{
    for (uint32_t i = 0; i < n; i++)
        if (l[i] == f)
            return 1;
    return 0;
}

static int push(LLVMValueRef **l, uint32_t *n, uint32_t *cap, LLVMValueRef f)
{
    if (*n == *cap) {
        uint32_t c = *cap ? *cap * 2 : 16;
        LLVMValueRef *nl = realloc(*l, c * sizeof *nl);
        if (!nl)
            return -1;
        *l = nl;
        *cap = c;
    }
    (*l)[(*n)++] = f;
    return 0;
}

static int report_cycle(CallWalk *w, LLVMValueRef call, LLVMValueRef callee)
{
    char buf[1024];
    size_t used = 0;
    buf[0] = 0;
    uint32_t start = 0;
    while (w->stack[start] != callee)
        start++;
    for (uint32_t i = start; i < w->depth; i++)
        used += (size_t)snprintf(buf + used, used < sizeof buf ? sizeof buf - used : 0,
                                 "%s -> ", fname(w->stack[i]));
    if (used < sizeof buf)
        snprintf(buf + used, sizeof buf - used, "%s", fname(callee));
    return lower_diag(w->src, call, "recursion is not supported (%s)", buf);
}

static int walk_calls(CallWalk *w, LLVMValueRef f);

static int walk_call(CallWalk *w, LLVMValueRef call)
{
    LLVMValueRef callee = LLVMGetCalledValue(call);
    if (callee && LLVMIsAInlineAsm(callee))
        return lower_diag(w->src, call, "inline assembly is not supported");
    callee = direct_callee(call);
    if (!callee)
        return lower_diag(w->src, call, "indirect calls are not supported");
    if (LLVMIsDeclaration(callee))
        return 0;
    if (in_list(w->stack, w->depth, callee))
        return report_cycle(w, call, callee);
    return walk_calls(w, callee);
}

static int walk_calls(CallWalk *w, LLVMValueRef f)
{
    if (in_list(w->done, w->ndone, f))
        return 0;
    if (push(&w->stack, &w->depth, &w->cap, f))
        return -1;
    int rc = 0;
    for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(f); b && !rc; b = LLVMGetNextBasicBlock(b))
        for (LLVMValueRef i = LLVMGetFirstInstruction(b); i && !rc; i = LLVMGetNextInstruction(i))
            if (LLVMIsACallInst(i) || LLVMIsAInvokeInst(i))
                rc = walk_call(w, i);
    w->depth--;
    if (!rc && push(&w->done, &w->ndone, &w->capdone, f))
        rc = -1;
    return rc;
}

static int check_call_graph(LLVMModuleRef m, const char *src)
{
    CallWalk w = {.src = src};
    int rc = 0;
    for (LLVMValueRef f = LLVMGetFirstFunction(m); f && !rc; f = LLVMGetNextFunction(f))
        if (!LLVMIsDeclaration(f))
            rc = walk_calls(&w, f);
    free(w.stack);
    free(w.done);
    return rc;
}

/* ---- attributes ------------------------------------------------------------------------ */

static void remove_fn_attr(LLVMValueRef f, const char *name)
{
    unsigned kind = LLVMGetEnumAttributeKindForName(name, strlen(name));
    LLVMRemoveEnumAttributeAtIndex(f, LLVMAttributeFunctionIndex, kind);
}

static void add_fn_attr(LLVMValueRef f, const char *name)
{
    LLVMContextRef ctx = LLVMGetModuleContext(LLVMGetGlobalParent(f));
    unsigned kind = LLVMGetEnumAttributeKindForName(name, strlen(name));
    LLVMAddAttributeAtIndex(f, LLVMAttributeFunctionIndex, LLVMCreateEnumAttribute(ctx, kind, 0));
}

static void mark_functions(LLVMModuleRef m, LLVMValueRef *kernels, uint32_t nk)
{
    for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f)) {
        if (LLVMIsDeclaration(f))
            continue;
        remove_fn_attr(f, "optnone");
        remove_fn_attr(f, "noinline");
        if (!lower_is_kernel(kernels, nk, f))
            add_fn_attr(f, "alwaysinline");
    }
}

/* ---- LLVM passes ------------------------------------------------------------------------- */

static LLVMTargetMachineRef make_target_machine(const char *src)
{
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
    LLVMTargetRef t;
    char *msg = NULL;
    if (LLVMGetTargetFromTriple(NVPTX_TRIPLE, &t, &msg)) {
        lower_diag(src, NULL, "no NVPTX target in this LLVM: %s", msg ? msg : "?");
        LLVMDisposeMessage(msg);
        return NULL;
    }
    LLVMDisposeMessage(msg);
    return LLVMCreateTargetMachine(t, NVPTX_TRIPLE, "sm_70", "+ptx64", LLVMCodeGenLevelDefault,
                                   LLVMRelocDefault, LLVMCodeModelDefault);
}

/* The pass pipeline, in two parts: the second (from the scalarizer on) runs after
 * split_vector_memops. Everything from the scalarizer on keeps the IR inside what isel
 * handles: lower-switch runs after the last simplifycfg (which may form switches). */
static const char *pipeline_for(unsigned opt, int part)
{
    if (opt == 0)
        return part == 0 ? "always-inline,function(sroa,infer-address-spaces,lower-expect,"
                           "lower-constant-intrinsics,instcombine<no-verify-fixpoint>,"
                           "simplifycfg)"
                         : "function(scalarizer,lower-switch,dce)";
    /* infer-address-spaces runs before the O2 pipeline too: instcombine would fold the
     * generic->global->generic casts of kernel pointer parameters away */
    return part == 0 ? "always-inline,function(sroa,infer-address-spaces),default<O2>,"
                       "function(infer-address-spaces,sroa,instcombine<no-verify-fixpoint>,"
                       "lower-constant-intrinsics,simplifycfg)"
                     : "function(scalarizer,instcombine<no-verify-fixpoint>,lower-switch,"
                       "separate-const-offset-from-gep,slsr,gvn,nary-reassociate,early-cse,adce)";
}

/* The largest power of two dividing both a (an alignment) and b (an offset). */
static unsigned common_align(unsigned a, unsigned long long b)
{
    while (a > 1 && b % a)
        a /= 2;
    return a ? a : 1;
}

/* A load or store of a vector the optimizer formed from component accesses (a ushort4
 * copied into a uchar4 becomes one <4 x i16> load) becomes one access per element, with
 * insertelement / extractelement chains that the scalarizer then dissolves. Packed
 * <2 x half> stays whole: isel moves it as 32 bits. */
static int splittable_vector(LLVMTargetDataRef td, LLVMTypeRef t)
{
    if (LLVMGetTypeKind(t) != LLVMVectorTypeKind || isel_is_half2(t))
        return 0;
    LLVMTypeRef e = LLVMGetElementType(t);
    return LLVMSizeOfTypeInBits(td, e) % 8 == 0 && LLVMGetTypeKind(e) != LLVMPointerTypeKind;
}

static void split_memop(LLVMBuilderRef b, LLVMTargetDataRef td, LLVMValueRef in, int store)
{
    LLVMValueRef val = store ? LLVMGetOperand(in, 0) : in;
    LLVMValueRef ptr = LLVMGetOperand(in, store ? 1 : 0);
    LLVMTypeRef vt = LLVMTypeOf(val), et = LLVMGetElementType(vt);
    LLVMTypeRef i32 = LLVMInt32TypeInContext(LLVMGetTypeContext(vt));
    unsigned n = LLVMGetVectorSize(vt), align = LLVMGetAlignment(in);
    unsigned long long esize = LLVMABISizeOfType(td, et);
    LLVMPositionBuilderBefore(b, in);
    LLVMValueRef acc = LLVMGetPoison(vt);
    for (unsigned i = 0; i < n; i++) {
        LLVMValueRef idx = LLVMConstInt(i32, i, 0);
        LLVMValueRef at = LLVMBuildInBoundsGEP2(b, et, ptr, &idx, 1, "");
        LLVMValueRef m = store ? LLVMBuildStore(b, LLVMBuildExtractElement(b, val, idx, ""), at)
                               : LLVMBuildLoad2(b, et, at, "");
        LLVMSetAlignment(m, common_align(align, i * esize));
        LLVMSetVolatile(m, LLVMGetVolatile(in));
        if (!store)
            acc = LLVMBuildInsertElement(b, acc, m, idx, "");
    }
    if (!store)
        LLVMReplaceAllUsesWith(in, acc);
    LLVMInstructionEraseFromParent(in);
}

static void split_vector_memops(LLVMModuleRef m)
{
    LLVMTargetDataRef td = LLVMGetModuleDataLayout(m);
    LLVMBuilderRef b = LLVMCreateBuilderInContext(LLVMGetModuleContext(m));
    for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f))
        for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f); bb; bb = LLVMGetNextBasicBlock(bb))
            for (LLVMValueRef in = LLVMGetFirstInstruction(bb); in;) {
                LLVMValueRef next = LLVMGetNextInstruction(in);
                int simple = (LLVMIsALoadInst(in) || LLVMIsAStoreInst(in)) &&
                             LLVMGetOrdering(in) == LLVMAtomicOrderingNotAtomic;
                if (simple && LLVMIsALoadInst(in) && splittable_vector(td, LLVMTypeOf(in)))
                    split_memop(b, td, in, 0);
                else if (simple && LLVMIsAStoreInst(in) &&
                         splittable_vector(td, LLVMTypeOf(LLVMGetOperand(in, 0))))
                    split_memop(b, td, in, 1);
                in = next;
            }
    LLVMDisposeBuilder(b);
}

static int run_passes(LLVMModuleRef m, const XgpuLowerOptions *o, const char *src)
{
    LLVMTargetMachineRef tm = make_target_machine(src);
    if (!tm)
        return -1;
    const char *triple = LLVMGetTarget(m);
    if (!triple || !*triple)
        LLVMSetTarget(m, NVPTX_TRIPLE);
    const char *dl = LLVMGetDataLayoutStr(m);
    if (!dl || !*dl) {
        LLVMTargetDataRef td = LLVMCreateTargetDataLayout(tm);
        LLVMSetModuleDataLayout(m, td);
        LLVMDisposeTargetData(td);
    }
    LLVMPassBuilderOptionsRef po = LLVMCreatePassBuilderOptions();
    LLVMPassBuilderOptionsSetLoopVectorization(po, 0);
    LLVMPassBuilderOptionsSetSLPVectorization(po, 0);
    LLVMPassBuilderOptionsSetLoopInterleaving(po, 0);
    LLVMErrorRef err = LLVMRunPasses(m, pipeline_for(o->opt_level, 0), tm, po);
    if (!err) {
        split_vector_memops(m);
        err = LLVMRunPasses(m, pipeline_for(o->opt_level, 1), tm, po);
    }
    LLVMDisposePassBuilderOptions(po);
    LLVMDisposeTargetMachine(tm);
    if (err) {
        char *msg = LLVMGetErrorMessage(err);
        lower_diag(src, NULL, "LLVM passes failed: %s", msg);
        LLVMDisposeErrorMessage(msg);
        return -1;
    }
    return 0;
}

/* ---- after the passes ------------------------------------------------------------------ */

/* Device-side heap allocation: malloc, free and C++'s new and delete (their Itanium
 * names start _Znw, _Zna, _Zdl, _Zda). xgpu has no device heap. */
static int is_heap_function(const char *name)
{
    return !strcmp(name, "malloc") || !strcmp(name, "free") || !strcmp(name, "calloc") ||
           !strcmp(name, "realloc") || !strncmp(name, "_Znw", 4) || !strncmp(name, "_Zna", 4) ||
           !strncmp(name, "_Zdl", 4) || !strncmp(name, "_Zda", 4);
}

static int check_calls(LLVMValueRef f, const char *src)
{
    int rc = 0;
    for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(f); b; b = LLVMGetNextBasicBlock(b))
        for (LLVMValueRef i = LLVMGetFirstInstruction(b); i; i = LLVMGetNextInstruction(i)) {
            if (!LLVMIsACallInst(i) && !LLVMIsAInvokeInst(i))
                continue;
            LLVMValueRef c = direct_callee(i);
            if (!c)
                rc = lower_diag(src, i, "indirect calls are not supported");
            else if (LLVMIsDeclaration(c) && lower_known_external(fname(c)))
                continue;
            else if (LLVMIsDeclaration(c) && is_heap_function(fname(c)))
                rc = lower_diag(src, i, "call to external function '%s' is not supported: xgpu "
                                "has no device heap (device-side malloc, free, new and delete "
                                "are not supported); allocate with cudaMalloc on the host and "
                                "pass the pointer to the kernel", fname(c)[0] != '_' ? fname(c)
                                : fname(c)[3] == 'n' ? "operator new" : "operator delete");
            else if (!LLVMGetIntrinsicID(c) && LLVMIsDeclaration(c))
                rc = lower_diag(src, i, "call to external function '%s' is not supported "
                                "(device functions must be defined in the same file)", fname(c));
            else if (!LLVMGetIntrinsicID(c))
                rc = lower_diag(src, i, "call to '%s' could not be inlined", fname(c));
        }
    return rc;
}

/* What an error names a kernel by: its source signature when the front end recorded
 * one, else its (mangled) name. */
static const char *kernel_label(const XgpuLowerOptions *o, LLVMValueRef k)
{
    const char *name = fname(k);
    for (unsigned i = 0; i < o->nsignatures; i++)
        if (!o->signatures[i].prefix && !strcmp(o->signatures[i].name, name))
            return o->signatures[i].signature;
    return name;
}

static int wide_integer(LLVMTypeRef t)
{
    return LLVMGetTypeKind(t) == LLVMIntegerTypeKind && LLVMGetIntTypeWidth(t) > 64;
}

/* Integers wider than 64 bits (__int128) have no registers or instructions in xgpu: the
 * first instruction of a kernel that computes or takes one is a located error naming the
 * kernel, before instruction selection would fail on it with less to say. */
static int check_wide_integers(LLVMValueRef f, const char *src, const XgpuLowerOptions *o)
{
    for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(f); b; b = LLVMGetNextBasicBlock(b))
        for (LLVMValueRef i = LLVMGetFirstInstruction(b); i; i = LLVMGetNextInstruction(i)) {
            int wide = wide_integer(LLVMTypeOf(i));
            for (int k = 0; !wide && k < LLVMGetNumOperands(i); k++)
                wide = wide_integer(LLVMTypeOf(LLVMGetOperand(i, (unsigned)k)));
            if (wide)
                return lower_diag(src, i, "in kernel '%s': 128-bit integers (__int128) are not "
                                  "supported by xgpu", kernel_label(o, f));
        }
    return 0;
}

static void delete_device_functions(LLVMModuleRef m, LLVMValueRef *kernels, uint32_t nk)
{
    LLVMValueRef f = LLVMGetFirstFunction(m);
    while (f) {
        LLVMValueRef next = LLVMGetNextFunction(f);
        if (!LLVMIsDeclaration(f) && !lower_is_kernel(kernels, nk, f) && !LLVMGetFirstUse(f))
            LLVMDeleteFunction(f);
        f = next;
    }
}

/* Replaces every use of pointer parameter `arg` by addrspacecast(addrspacecast(arg to
 * global) to generic), as NVPTX's own argument lowering does. */
static void cast_param_to_global(LLVMBuilderRef b, LLVMValueRef arg)
{
    LLVMContextRef ctx = LLVMGetTypeContext(LLVMTypeOf(arg));
    LLVMValueRef g = LLVMBuildAddrSpaceCast(b, arg, LLVMPointerTypeInContext(ctx, 1), "");
    LLVMValueRef p = LLVMBuildAddrSpaceCast(b, g, LLVMTypeOf(arg), "");
    /* rewrite one user at a time and start over: LLVMSetOperand unlinks the uses */
    LLVMUseRef u = LLVMGetFirstUse(arg);
    while (u) {
        LLVMValueRef user = LLVMGetUser(u);
        if (user == g) {
            u = LLVMGetNextUse(u);
            continue;
        }
        for (int k = 0; k < LLVMGetNumOperands(user); k++)
            if (LLVMGetOperand(user, (unsigned)k) == arg)
                LLVMSetOperand(user, (unsigned)k, p);
        u = LLVMGetFirstUse(arg);
    }
}

static void global_kernel_pointers(LLVMValueRef *kernels, uint32_t nk)
{
    unsigned byval = LLVMGetEnumAttributeKindForName("byval", 5);
    for (uint32_t i = 0; i < nk; i++) {
        LLVMBasicBlockRef entry = LLVMGetFirstBasicBlock(kernels[i]);
        if (!entry)
            continue;
        LLVMBuilderRef b = LLVMCreateBuilderInContext(LLVMGetTypeContext(LLVMTypeOf(kernels[i])));
        LLVMPositionBuilderBefore(b, LLVMGetFirstInstruction(entry));
        unsigned np = LLVMCountParams(kernels[i]);
        for (unsigned a = 0; a < np; a++) {
            LLVMValueRef arg = LLVMGetParam(kernels[i], a);
            LLVMTypeRef t = LLVMTypeOf(arg);
            if (LLVMGetTypeKind(t) != LLVMPointerTypeKind || LLVMGetPointerAddressSpace(t) != 0 ||
                LLVMGetEnumAttributeAtIndex(kernels[i], a + 1, byval) || !LLVMGetFirstUse(arg))
                continue;
            cast_param_to_global(b, arg);
        }
        LLVMDisposeBuilder(b);
    }
}

/* Whether phi has a struct type and only single-index extractvalue users. */
static int splittable_phi(LLVMValueRef phi)
{
    if (LLVMGetTypeKind(LLVMTypeOf(phi)) != LLVMStructTypeKind)
        return 0;
    for (LLVMUseRef u = LLVMGetFirstUse(phi); u; u = LLVMGetNextUse(u)) {
        LLVMValueRef user = LLVMGetUser(u);
        if (!LLVMIsAExtractValueInst(user) || LLVMGetNumIndices(user) != 1)
            return 0;
    }
    return 1;
}

/* Replaces phi by one phi per field; the incoming aggregates are taken apart at the end
 * of their predecessors. */
static void split_phi(LLVMBuilderRef b, LLVMValueRef phi)
{
    LLVMTypeRef st = LLVMTypeOf(phi);
    unsigned nf = LLVMCountStructElementTypes(st), nin = LLVMCountIncoming(phi);
    LLVMValueRef *fields = calloc(nf ? nf : 1, sizeof *fields);
    if (!fields)
        return;
    LLVMUseRef u;
    while ((u = LLVMGetFirstUse(phi))) {
        LLVMValueRef ev = LLVMGetUser(u);
        unsigned i = LLVMGetIndices(ev)[0];
        if (!fields[i]) {
            LLVMPositionBuilderBefore(b, phi);
            fields[i] = LLVMBuildPhi(b, LLVMStructGetTypeAtIndex(st, i), "");
            for (unsigned k = 0; k < nin; k++) {
                LLVMBasicBlockRef pred = LLVMGetIncomingBlock(phi, k);
                LLVMPositionBuilderBefore(b, LLVMGetBasicBlockTerminator(pred));
                LLVMValueRef v = LLVMBuildExtractValue(b, LLVMGetIncomingValue(phi, k), i, "");
                LLVMAddIncoming(fields[i], &v, &pred, 1);
            }
        }
        LLVMReplaceAllUsesWith(ev, fields[i]);
        LLVMInstructionEraseFromParent(ev);
    }
    LLVMInstructionEraseFromParent(phi);
    free(fields);
}

/* Step 6 over one kernel, until no splittable phi is left (a split may make the phis
 * feeding it splittable). */
static void split_aggregate_phis(LLVMValueRef fn)
{
    LLVMBuilderRef b = LLVMCreateBuilderInContext(LLVMGetTypeContext(LLVMTypeOf(fn)));
    for (int changed = 1; changed;) {
        changed = 0;
        for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
            for (LLVMValueRef in = LLVMGetFirstInstruction(bb); in && LLVMIsAPHINode(in);) {
                LLVMValueRef next = LLVMGetNextInstruction(in);
                if (splittable_phi(in)) {
                    split_phi(b, in);
                    changed = 1;
                }
                in = next;
            }
    }
    LLVMDisposeBuilder(b);
}

int xgpu_prepare(LLVMModuleRef m, const XgpuLowerOptions *o, const char *src)
{
    LLVMValueRef *kernels;
    uint32_t nk = lower_kernels(m, &kernels);
    int rc = check_call_graph(m, src);
    if (!rc) {
        mark_functions(m, kernels, nk);
        global_kernel_pointers(kernels, nk);
        rc = run_passes(m, o, src);
    }
    for (uint32_t i = 0; i < nk && !rc; i++)
        rc = check_calls(kernels[i], src);
    for (uint32_t i = 0; i < nk && !rc; i++)
        rc = check_wide_integers(kernels[i], src, o);
    if (!rc) {
        xgpu_contract_fma(m);
        xgpu_expand_overflow(m);
    }
    if (!rc)
        delete_device_functions(m, kernels, nk);
    for (uint32_t i = 0; i < nk && !rc; i++)
        split_aggregate_phis(kernels[i]);
    free(kernels);
    return rc;
}
