/*
 * globals.c - module-level layout decisions of the lowering:
 *
 *   - __device__ (addrspace 1) and __constant__ (addrspace 4) variables become gpubin
 *     symbols (mir_global_add) with their initializers serialized to little-endian bytes
 *     in the target's data layout; an initializer that is all zero bytes is stored as
 *     its size alone. Pointers inside initializers are rejected for now (they would need
 *     relocations).
 *   - __shared__ (addrspace 3) variables that a kernel uses get static offsets in the
 *     CTA's shared window, in module order, each at its natural alignment; the dynamic
 *     `extern __shared__` array starts after them, rounded up to 16 bytes, and the static
 *     bytes the kernel declares then include that padding, so that the window of static
 *     plus dynamic bytes holds the whole dynamic array.
 *   - a file's device variables together stay under 2 GiB less 64 MiB, or the one that
 *     crosses that is a located error (the host program's copies must be reachable);
 *   - kernel parameters get the natural C layout: each at the next multiple of its
 *     alignment; a byval parameter takes its byval type's size and alignment.
 *
 * Invariant: offsets are computed once per kernel and never change after isel starts.
 */
#include "lower.h"

#include <stdlib.h>
#include <string.h>

static uint64_t align_up(uint64_t v, uint64_t a)
{
    return a ? (v + a - 1) / a * a : v;
}

static const char *vname(LLVMValueRef v)
{
    size_t len;
    const char *s = LLVMGetValueName2(v, &len);
    return len ? s : "<anonymous>";
}

/* ---- initializers ------------------------------------------------------------------- */

typedef struct InitCtx {
    LLVMTargetDataRef td;
    uint8_t *buf;
    uint64_t size;
    LLVMValueRef var;
    const char *src;
} InitCtx;

static int put_init(InitCtx *c, LLVMValueRef k, uint64_t off);

static void put_bytes(InitCtx *c, uint64_t off, uint64_t v, unsigned n)
{
    for (unsigned i = 0; i < n && off + i < c->size; i++)
        c->buf[off + i] = (uint8_t)(v >> (8 * i));
}

static int put_scalar(InitCtx *c, LLVMValueRef k, uint64_t off)
{
    LLVMTypeRef t = LLVMTypeOf(k);
    if (LLVMIsAConstantInt(k)) {
        if (LLVMGetIntTypeWidth(t) > 64)
            return lower_diag(c->src, c->var, "initializer of '%s': integers wider than 64 "
                              "bits are not supported", vname(c->var));
        put_bytes(c, off, LLVMConstIntGetZExtValue(k), (unsigned)LLVMABISizeOfType(c->td, t));
        return 0;
    }
    LLVMBool loses;
    double d = LLVMConstRealGetDouble(k, &loses);
    if (LLVMGetTypeKind(t) == LLVMFloatTypeKind) {
        float f = (float)d;
        uint32_t u;
        memcpy(&u, &f, 4);
        put_bytes(c, off, u, 4);
    } else if (LLVMGetTypeKind(t) == LLVMDoubleTypeKind) {
        uint64_t u;
        memcpy(&u, &d, 8);
        put_bytes(c, off, u, 8);
    } else {
        return lower_diag(c->src, c->var, "initializer of '%s': unsupported floating-point "
                          "type", vname(c->var));
    }
    return 0;
}

static int put_elements(InitCtx *c, LLVMValueRef k, uint64_t off)
{
    LLVMTypeRef t = LLVMTypeOf(k);
    LLVMTypeKind kind = LLVMGetTypeKind(t);
    unsigned n = kind == LLVMStructTypeKind ? LLVMCountStructElementTypes(t)
                 : kind == LLVMArrayTypeKind ? (unsigned)LLVMGetArrayLength2(t)
                                             : LLVMGetVectorSize(t);
    if (kind == LLVMArrayTypeKind && LLVMGetElementType(t) == LLVMInt8TypeInContext(
                                         LLVMGetTypeContext(t)) && LLVMIsConstantString(k)) {
        size_t len;
        const char *s = LLVMGetAsString(k, &len);
        memcpy(c->buf + off, s, len <= c->size - off ? len : c->size - off);
        return 0;
    }
    for (unsigned i = 0; i < n; i++) {
        LLVMValueRef e = LLVMGetAggregateElement(k, i);
        if (!e)
            return lower_diag(c->src, c->var, "initializer of '%s' is not a constant",
                              vname(c->var));
        uint64_t eo = kind == LLVMStructTypeKind
                          ? LLVMOffsetOfElement(c->td, t, i)
                          : i * LLVMABISizeOfType(c->td, LLVMTypeOf(e));
        if (put_init(c, e, off + eo))
            return -1;
    }
    return 0;
}

static int put_init(InitCtx *c, LLVMValueRef k, uint64_t off)
{
    if (LLVMIsAConstantAggregateZero(k) || LLVMIsAConstantPointerNull(k) || LLVMIsUndef(k) ||
        LLVMIsPoison(k))
        return 0;
    if (LLVMIsAConstantInt(k) || LLVMIsAConstantFP(k))
        return put_scalar(c, k, off);
    if (LLVMIsAConstantDataSequential(k) || LLVMIsAConstantArray(k) ||
        LLVMIsAConstantStruct(k) || LLVMIsAConstantVector(k))
        return put_elements(c, k, off);
    if (LLVMGetTypeKind(LLVMTypeOf(k)) == LLVMPointerTypeKind)
        return lower_diag(c->src, c->var, "initializer of '%s' contains a pointer, which is not "
                          "supported yet", vname(c->var));
    return lower_diag(c->src, c->var, "initializer of '%s' is not supported", vname(c->var));
}

/* ---- __device__ / __constant__ symbols ------------------------------------------------ */

/* A zero initializer needs no bytes: a 1 GiB zero-initialized array is 1 GiB of .bss in a
 * host program and should cost the device binary no more. */
static int all_zero_constant(LLVMValueRef k)
{
    return LLVMIsAConstantAggregateZero(k) || LLVMIsAConstantPointerNull(k) || LLVMIsUndef(k) ||
           LLVMIsPoison(k) || LLVMIsNull(k);
}

static int add_global(MModule *mm, LLVMTargetDataRef td, LLVMValueRef g, const char *src,
                      uint32_t *index)
{
    LLVMTypeRef t = LLVMGlobalGetValueType(g);
    unsigned as = LLVMGetPointerAddressSpace(LLVMTypeOf(g));
    LLVMValueRef init = LLVMGetInitializer(g);
    if (!init)
        return lower_diag(src, g, "external device variable '%s' is not supported "
                          "(define it in this file)", vname(g));
    XGlobal x = {.name = vname(g), .space = as == 4 ? XG_CONST : XG_GLOBAL};
    x.size = LLVMABISizeOfType(td, t);
    x.align = LLVMGetAlignment(g);
    if (x.align < LLVMABIAlignmentOfType(td, t))
        x.align = LLVMABIAlignmentOfType(td, t);
    if (all_zero_constant(init)) { /* only the size is stored: no bytes in the binary */
        *index = mir_global_add(mm, &x);
        return 0;
    }
    InitCtx c = {.td = td, .size = x.size, .var = g, .src = src};
    c.buf = calloc(x.size ? x.size : 1, 1);
    if (!c.buf)
        return lower_diag(src, g, "out of memory");
    int rc = put_init(&c, init, 0);
    size_t nz = 0;
    while (nz < x.size && !c.buf[nz])
        nz++;
    x.init = nz < x.size ? c.buf : NULL; /* = {0} and the like: zero-initialized too */
    if (!rc)
        *index = mir_global_add(mm, &x);
    free(c.buf);
    return rc;
}

/* The value under addrspacecasts and bitcasts. */
static LLVMValueRef strip_casts(LLVMValueRef v)
{
    while (v && LLVMIsAConstantExpr(v) && (LLVMGetConstOpcode(v) == LLVMAddrSpaceCast ||
                                           LLVMGetConstOpcode(v) == LLVMBitCast))
        v = LLVMGetOperand(v, 0);
    return v;
}

int lower_annotated(LLVMModuleRef m, LLVMValueRef g, const char *text)
{
    LLVMValueRef ann = LLVMGetNamedGlobal(m, "llvm.global.annotations");
    LLVMValueRef arr = ann ? LLVMGetInitializer(ann) : NULL;
    int n = arr && LLVMIsAConstantArray(arr) ? LLVMGetNumOperands(arr) : 0;
    for (int i = 0; i < n; i++) {
        LLVMValueRef e = LLVMGetOperand(arr, (unsigned)i);
        if (!LLVMIsAConstantStruct(e) || LLVMGetNumOperands(e) < 2 ||
            strip_casts(LLVMGetOperand(e, 0)) != g)
            continue;
        LLVMValueRef str = strip_casts(LLVMGetOperand(e, 1));
        LLVMValueRef init = str && LLVMIsAGlobalVariable(str) ? LLVMGetInitializer(str) : NULL;
        size_t len = 0, want = strlen(text);
        const char *s = init && LLVMIsAConstantDataSequential(init) ? LLVMGetAsString(init, &len)
                                                                    : NULL;
        if (s && len >= want && !memcmp(s, text, want) && (len == want || !s[want]))
            return 1;
    }
    return 0;
}

/* The host program keeps a copy of every __device__, __constant__ and __managed__
 * variable in its own data, which x86-64 code (the small code model) must reach within
 * 2 GiB; past that the link fails with "relocation truncated to fit". A file's variables
 * are refused before that, by name, at this total (64 MiB left for the program's code and
 * other data). */
#define DEVICE_DATA_MAX ((2ull << 30) - (64ull << 20))

static int check_data_size(LLVMTargetDataRef td, LLVMValueRef g, const char *src,
                           uint64_t *total)
{
    uint64_t size = LLVMABISizeOfType(td, LLVMGlobalGetValueType(g));
    *total += size;
    if (*total <= DEVICE_DATA_MAX || *total - size > DEVICE_DATA_MAX)
        return 0; /* under the limit, or over it already (said once) */
    unsigned as = LLVMGetPointerAddressSpace(LLVMTypeOf(g));
    const char *kind = as == 4 ? "__constant__" : "__device__";
    if (size > DEVICE_DATA_MAX)
        return lower_diag(src, g, "%s variable '%s' is %llu bytes, more than xgpu's limit of "
                          "%llu bytes (2 GiB less 64 MiB) of device variables per file: the "
                          "host program holds a copy of each, which x86-64 code must reach "
                          "within 2 GiB; allocate it with cudaMalloc", kind, vname(g),
                          (unsigned long long)size, DEVICE_DATA_MAX);
    return lower_diag(src, g, "%s variable '%s' (%llu bytes) takes this file's device "
                      "variables to %llu bytes, more than xgpu's limit of %llu bytes (2 GiB "
                      "less 64 MiB): the host program holds a copy of each, which x86-64 code "
                      "must reach within 2 GiB; allocate large arrays with cudaMalloc", kind,
                      vname(g), (unsigned long long)size, (unsigned long long)*total,
                      DEVICE_DATA_MAX);
}

int lower_globals(MModule *mm, LLVMModuleRef m, const char *src, LowerGlobals *out)
{
    LLVMTargetDataRef td = LLVMGetModuleDataLayout(m);
    memset(out, 0, sizeof *out);
    int rc = 0;
    uint64_t total = 0;
    for (LLVMValueRef g = LLVMGetFirstGlobal(m); g; g = LLVMGetNextGlobal(g)) {
        unsigned as = LLVMGetPointerAddressSpace(LLVMTypeOf(g));
        const char *section = LLVMGetSection(g);
        if (strncmp(vname(g), "llvm.", 5) == 0 || (as != 0 && as != 1 && as != 4) ||
            (section && !strcmp(section, "llvm.metadata"))) /* annotation strings */
            continue;
        if (!LLVMGetFirstUse(g) && !LLVMGetInitializer(g))
            continue;
        uint32_t idx = 0;
        if (check_data_size(td, g, src, &total) || add_global(mm, td, g, src, &idx)) {
            rc = -1;
            continue;
        }
        if (lower_annotated(m, g, XGPU_MANAGED_ANNOTATION)) {
            if (as == 4)
                rc = lower_diag(src, g, "'%s' cannot be both __constant__ and __managed__",
                                vname(g));
            mm->globals[idx].managed = 1;
        }
        out->vars = realloc(out->vars, (out->n + 1) * sizeof *out->vars);
        out->index = realloc(out->index, (out->n + 1) * sizeof *out->index);
        if (!out->vars || !out->index)
            return lower_diag(src, NULL, "out of memory");
        out->vars[out->n] = g;
        out->index[out->n++] = idx;
    }
    return rc;
}

void lower_globals_free(LowerGlobals *g)
{
    free(g->vars);
    free(g->index);
    memset(g, 0, sizeof *g);
}

int lower_global_index(const LowerGlobals *g, LLVMValueRef var)
{
    for (uint32_t i = 0; i < g->n; i++)
        if (g->vars[i] == var)
            return (int)g->index[i];
    return -1;
}

/* ---- shared memory ------------------------------------------------------------------- */

/* Adds every addrspace(3) global reachable from v through constant expressions. */
static void note_shared(LLVMValueRef v, LLVMValueRef **set, uint32_t *n, int depth)
{
    if (depth > 16 || !v)
        return;
    if (LLVMIsAGlobalVariable(v)) {
        if (LLVMGetPointerAddressSpace(LLVMTypeOf(v)) != 3)
            return;
        for (uint32_t i = 0; i < *n; i++)
            if ((*set)[i] == v)
                return;
        LLVMValueRef *ns = realloc(*set, (*n + 1) * sizeof *ns);
        if (!ns)
            return;
        *set = ns;
        (*set)[(*n)++] = v;
        return;
    }
    if (!LLVMIsAConstantExpr(v) && !LLVMIsAConstantArray(v) && !LLVMIsAConstantStruct(v))
        return;
    int nops = LLVMGetNumOperands(v);
    for (int i = 0; i < nops; i++)
        note_shared(LLVMGetOperand(v, (unsigned)i), set, n, depth + 1);
}

static int used_in(LLVMValueRef *set, uint32_t n, LLVMValueRef g)
{
    for (uint32_t i = 0; i < n; i++)
        if (set[i] == g)
            return 1;
    return 0;
}

int lower_shared_layout(MFunc *f, LLVMValueRef fn, LLVMTargetDataRef td, SharedLayout *out)
{
    LLVMValueRef *used = NULL;
    uint32_t nused = 0;
    memset(out, 0, sizeof *out);
    for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(fn); b; b = LLVMGetNextBasicBlock(b))
        for (LLVMValueRef i = LLVMGetFirstInstruction(b); i; i = LLVMGetNextInstruction(i))
            for (int k = 0; k < LLVMGetNumOperands(i); k++)
                note_shared(LLVMGetOperand(i, (unsigned)k), &used, &nused, 0);
    out->vars = calloc(nused ? nused : 1, sizeof *out->vars);
    out->off = calloc(nused ? nused : 1, sizeof *out->off);
    free(f->svars);
    f->svars = mir_zalloc(nused, sizeof *f->svars);
    f->nsvars = 0;
    if (!out->vars || !out->off) {
        free(used);
        return mir_error(f, 0, "out of memory");
    }
    uint64_t off = 0;
    int dynamic = 0;
    LLVMModuleRef m = LLVMGetGlobalParent(fn);
    /* static variables first, in module order, then the dynamic arrays */
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 1)
            out->dyn_off = (uint32_t)align_up(off, 16);
        for (LLVMValueRef g = LLVMGetFirstGlobal(m); g; g = LLVMGetNextGlobal(g)) {
            if (!used_in(used, nused, g) || (LLVMGetInitializer(g) == NULL) != (pass == 1))
                continue;
            LLVMTypeRef t = LLVMGlobalGetValueType(g);
            uint64_t a = LLVMGetAlignment(g);
            if (a < LLVMABIAlignmentOfType(td, t))
                a = LLVMABIAlignmentOfType(td, t);
            out->vars[out->n] = g;
            MShared *sv = &f->svars[f->nsvars++];
            if (pass == 0) {
                off = align_up(off, a);
                out->off[out->n] = (uint32_t)off;
                *sv = (MShared){(uint32_t)off, (uint32_t)LLVMABISizeOfType(td, t), 0};
                off += LLVMABISizeOfType(td, t);
            } else {
                out->off[out->n] = out->dyn_off;
                *sv = (MShared){out->dyn_off, 0, 1};
                dynamic = 1;
            }
            out->n++;
        }
    }
    free(used);
    if (off > 0xffffffffu)
        return mir_error(f, 0, "too much static shared memory (%llu bytes)",
                         (unsigned long long)off);
    /* with a dynamic array the static part ends where it starts: the window (static +
     * dynamic bytes) must hold the padding before it */
    out->static_bytes = dynamic ? out->dyn_off : (uint32_t)off;
    f->shared_bytes = out->static_bytes;
    return 0;
}

void lower_shared_free(SharedLayout *s)
{
    free(s->vars);
    free(s->off);
    memset(s, 0, sizeof *s);
}

int lower_shared_index(const SharedLayout *s, LLVMValueRef var)
{
    for (uint32_t i = 0; i < s->n; i++)
        if (s->vars[i] == var)
            return (int)i;
    return -1;
}

int lower_shared_offset(const SharedLayout *s, LLVMValueRef var, uint32_t *off)
{
    for (uint32_t i = 0; i < s->n; i++)
        if (s->vars[i] == var) {
            *off = s->off[i];
            return 0;
        }
    return -1;
}

/* ---- parameters ------------------------------------------------------------------------ */

static LLVMAttributeRef param_attr(LLVMValueRef fn, unsigned i, const char *name)
{
    unsigned kind = LLVMGetEnumAttributeKindForName(name, strlen(name));
    return LLVMGetEnumAttributeAtIndex(fn, i + 1, kind);
}

LLVMTypeRef lower_byval_type(LLVMValueRef fn, unsigned i)
{
    LLVMAttributeRef a = param_attr(fn, i, "byval");
    return a ? LLVMGetTypeAttributeValue(a) : NULL;
}

int lower_param_layout(MFunc *f, LLVMValueRef fn, LLVMTargetDataRef td, uint32_t *off)
{
    unsigned n = LLVMCountParams(fn);
    f->params = calloc(n ? n : 1, sizeof *f->params);
    if (!f->params)
        return mir_error(f, 0, "out of memory");
    uint64_t pos = 0;
    for (unsigned i = 0; i < n; i++) {
        LLVMTypeRef t = lower_byval_type(fn, i);
        LLVMTypeRef pt = LLVMTypeOf(LLVMGetParam(fn, i));
        if (!t)
            t = pt;
        LLVMTypeKind k = LLVMGetTypeKind(t);
        if (t == pt && (k == LLVMStructTypeKind || k == LLVMArrayTypeKind ||
                        k == LLVMVectorTypeKind))
            return mir_error(f, 0, "parameter %u: aggregate parameters passed directly are "
                             "not supported", i + 1);
        uint64_t a = LLVMABIAlignmentOfType(td, t);
        LLVMAttributeRef al = param_attr(fn, i, "align");
        if (t != pt && al && LLVMGetEnumAttributeValue(al) > a)
            a = LLVMGetEnumAttributeValue(al);
        pos = align_up(pos, a);
        f->params[i].offset = (uint32_t)pos;
        f->params[i].size = (uint32_t)LLVMABISizeOfType(td, t);
        f->params[i].align = (uint32_t)a;
        off[i] = (uint32_t)pos;
        pos += f->params[i].size;
    }
    f->nparams = n;
    f->param_bytes = (uint32_t)pos;
    return 0;
}
