/*
 * host.c - the host pass: XMem atom and Locality Descriptor tables (docs/annotations.md).
 *
 * Requires: one translation unit's host IR straight from clang's front end (no LLVM
 * passes run yet), where the CreateAtom and LocalityDescriptor macros (xmem.h, ldesc.h)
 * left one constant record per call site: a global XAtomSite / XLDSite whose address is
 * the first argument of __xgpu_create_atom / __xgpu_ldesc. Invalidates nothing: it adds
 * globals and a constructor and changes one call operand per call.
 *
 * Steps, in order:
 *   1. find the calls of __xgpu_create_atom and __xgpu_ldesc (module order: functions,
 *      then blocks, then instructions) and the distinct site records they name; a site's
 *      place in that order is its index in this translation unit's table;
 *   2. read each record's constant initializer as bytes (hp_flatten: the record's host
 *      layout, the same target the pass compiles for) and its __FILE__ string; check the
 *      values with the reader's own checks (hostsec.c) and report a bad one as
 *      file:line:col with the source line and a caret;
 *   3. write the table (xhost_atoms_write / xhost_ldesc_write) as one constant byte
 *      array in section xgpu_atoms / xgpu_ldesc, 8-aligned, kept by llvm.compiler.used;
 *   4. make each call pass the address of its record in that table instead of the site;
 *   5. add a constructor that hands the runtime the linker's __start_/__stop_ bounds of
 *      both sections (hidden weak references, null when a section is absent), so libxgpurt,
 *      a shared library, can load them as the Global Attribute Table and descriptor table.
 *
 * The line and column clang's __LINE__ and __builtin_COLUMN give inside a macro are where
 * the invocation ends; the pass moves them to the macro's name when the file can be read.
 */
#include "host.h"

#include <llvm-c/Analysis.h>
#include <llvm-c/BitReader.h>
#include <llvm-c/BitWriter.h>
#include <llvm-c/Target.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xgpu/diag.h"
#include "xgpu/hostsec.h"

enum { HP_MAX_PTRS = 4 };

/* A constant record as bytes, with its pointer fields kept aside. */
typedef struct HpBytes {
    uint8_t *b;
    size_t size;
    LLVMValueRef ptr[HP_MAX_PTRS];
    size_t ptroff[HP_MAX_PTRS];
    int nptrs;
    int bad;
} HpBytes;

/* The call sites of one kind (atoms or descriptors). */
typedef struct HpKind {
    const char *callee;   /* __xgpu_create_atom */
    const char *macro;    /* CreateAtom, for messages and the column */
    const char *section;
    uint32_t magic;       /* XMEM_SITE_MAGIC */
    size_t site_size;     /* sizeof(XAtomSite) */
    size_t recsize;
    LLVMValueRef *sites;  /* distinct site records, in first-use order */
    size_t nsites;
    LLVMValueRef *calls;
    size_t ncalls;
    LLVMValueRef table;
} HpKind;

typedef struct HostPass {
    LLVMModuleRef m;
    LLVMContextRef ctx;
    LLVMTargetDataRef td;
    XDiag diag; /* stderr; counts the errors */
    HpKind atoms, ldesc;
} HostPass;

/* ---- diagnostics ------------------------------------------------------------------- */

/* Moves (line, col) from where clang puts a macro's __LINE__ and __builtin_COLUMN (the
 * end of the invocation, which may span lines) to the macro's name: the last occurrence
 * before col on that line, else the last one on the closest line above (at most
 * HP_MAX_SPAN lines up). Unchanged when the source cannot be read. */
enum { HP_MAX_SPAN = 32 };

static void hp_locate(const char *file, unsigned *line, unsigned *col, const char *macro)
{
    char text[1024];
    for (unsigned k = 0; k < HP_MAX_SPAN && k < *line; k++) {
        if (xdiag_source_line(file, *line - k, text, sizeof text) < 0)
            return;
        const char *best = NULL;
        for (const char *p = strstr(text, macro); p; p = strstr(p + 1, macro))
            if (k || !*col || (unsigned)(p - text) + 1 < *col)
                best = p;
        if (best) {
            *line -= k;
            *col = (unsigned)(best - text) + 1;
            return;
        }
    }
}

static void hp_error(HostPass *hp, const char *file, unsigned line, unsigned col,
                     const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static void hp_error(HostPass *hp, const char *file, unsigned line, unsigned col,
                     const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    xdiag_v(&hp->diag, XDIAG_ERROR, file, line, col, fmt, ap);
    va_end(ap);
}

/* An error with no source location: the module's own name. */
static void hp_error_here(HostPass *hp, const char *what)
{
    size_t len;
    const char *src = LLVMGetSourceFileName(hp->m, &len);
    char *name = strndup(src, len);
    xdiag(&hp->diag, XDIAG_ERROR, name ? name : "<input>", 0, 0, "%s", what);
    free(name);
}

/* ---- reading constant records ------------------------------------------------------ */

static void hp_flatten(HostPass *hp, HpBytes *o, LLVMValueRef c, size_t off)
{
    LLVMTypeRef t = LLVMTypeOf(c);
    size_t size = (size_t)LLVMStoreSizeOfType(hp->td, t);
    if (off + size > o->size) {
        o->bad = 1;
        return;
    }
    if (LLVMIsNull(c) || LLVMIsUndef(c))
        return; /* zeros */
    switch (LLVMGetTypeKind(t)) {
    case LLVMIntegerTypeKind: {
        if (!LLVMIsAConstantInt(c) || size > 8) {
            o->bad = 1;
            return;
        }
        uint64_t v = LLVMConstIntGetZExtValue(c);
        for (size_t i = 0; i < size; i++)
            o->b[off + i] = (uint8_t)(v >> (8 * i));
        return;
    }
    case LLVMPointerTypeKind:
        if (o->nptrs == HP_MAX_PTRS) {
            o->bad = 1;
            return;
        }
        o->ptr[o->nptrs] = c;
        o->ptroff[o->nptrs++] = off;
        return;
    case LLVMStructTypeKind:
        for (unsigned i = 0; i < LLVMCountStructElementTypes(t); i++)
            hp_flatten(hp, o, LLVMGetAggregateElement(c, i),
                       off + (size_t)LLVMOffsetOfElement(hp->td, t, i));
        return;
    case LLVMArrayTypeKind: {
        size_t es = (size_t)LLVMABISizeOfType(hp->td, LLVMGetElementType(t));
        for (uint64_t i = 0; i < LLVMGetArrayLength2(t); i++)
            hp_flatten(hp, o, LLVMGetAggregateElement(c, (unsigned)i), off + (size_t)i * es);
        return;
    }
    default: o->bad = 1; return;
    }
}

/* The pointer field at off, NULL when it is null or absent. */
static LLVMValueRef hp_ptr_at(const HpBytes *o, size_t off)
{
    for (int i = 0; i < o->nptrs; i++)
        if (o->ptroff[i] == off)
            return o->ptr[i];
    return NULL;
}

/* The C string a constant pointer points at (malloc'd), or NULL. */
static char *hp_string(LLVMValueRef p)
{
    if (p && LLVMIsAConstantExpr(p) && LLVMGetConstOpcode(p) == LLVMGetElementPtr) {
        for (int i = 1; i < LLVMGetNumOperands(p); i++)
            if (!LLVMIsNull(LLVMGetOperand(p, (unsigned)i)))
                return NULL;
        p = LLVMGetOperand(p, 0);
    }
    if (!p || !LLVMIsAGlobalVariable(p) || !LLVMGetInitializer(p))
        return NULL;
    LLVMValueRef init = LLVMGetInitializer(p);
    if (!LLVMIsAConstantDataSequential(init) || !LLVMIsConstantString(init))
        return NULL;
    size_t len;
    const char *s = LLVMGetAsString(init, &len);
    return strndup(s, len);
}

static uint32_t hp_u32(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

/* Reads a site record: bytes, file, line, column. 0 on success. */
static int hp_read_site(HostPass *hp, HpKind *k, LLVMValueRef site, uint8_t *bytes, char **file,
                        unsigned *line, unsigned *col, size_t file_off, size_t line_off)
{
    HpBytes o = {.b = bytes, .size = k->site_size};
    LLVMValueRef init = LLVMGetInitializer(site);
    memset(bytes, 0, k->site_size);
    if (!LLVMIsGlobalConstant(site) || !init ||
        LLVMStoreSizeOfType(hp->td, LLVMTypeOf(init)) != k->site_size) {
        hp_error_here(hp, "a call of the runtime's annotation entry point does not name a "
                          "constant call-site record; use the macro from xmem.h / ldesc.h");
        return -1;
    }
    hp_flatten(hp, &o, init, 0);
    *file = hp_string(hp_ptr_at(&o, file_off));
    if (o.bad || hp_u32(bytes) != k->magic || !*file) {
        free(*file);
        hp_error_here(hp, "malformed call-site record (use the macro from xmem.h / ldesc.h)");
        return -1;
    }
    *line = hp_u32(bytes + line_off);
    *col = hp_u32(bytes + line_off + 4);
    hp_locate(*file, line, col, k->macro);
    return 0;
}

/* ---- step 1: call sites ------------------------------------------------------------ */

static int hp_push(LLVMValueRef **v, size_t *n, LLVMValueRef x)
{
    LLVMValueRef *nv = realloc(*v, (*n + 1) * sizeof *nv);
    if (!nv)
        return -1;
    nv[(*n)++] = x;
    *v = nv;
    return 0;
}

static size_t hp_site_index(const HpKind *k, LLVMValueRef site)
{
    for (size_t i = 0; i < k->nsites; i++)
        if (k->sites[i] == site)
            return i;
    return k->nsites;
}

static void hp_note_call(HostPass *hp, HpKind *k, LLVMValueRef call)
{
    LLVMValueRef site = LLVMGetOperand(call, 0);
    if (!LLVMIsAGlobalVariable(site)) {
        hp_error_here(hp, "the record argument of an annotation call is not a call-site "
                          "record; use the macro from xmem.h / ldesc.h");
        return;
    }
    if (hp_push(&k->calls, &k->ncalls, call) ||
        (hp_site_index(k, site) == k->nsites && hp_push(&k->sites, &k->nsites, site)))
        hp_error_here(hp, "out of memory");
}

static const char *hp_callee_name(LLVMValueRef call)
{
    LLVMValueRef f = LLVMGetCalledValue(call);
    size_t len;
    return f && LLVMIsAFunction(f) ? LLVMGetValueName2(f, &len) : "";
}

static void hp_find_calls(HostPass *hp)
{
    for (LLVMValueRef f = LLVMGetFirstFunction(hp->m); f; f = LLVMGetNextFunction(f))
        for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(f); b; b = LLVMGetNextBasicBlock(b))
            for (LLVMValueRef i = LLVMGetFirstInstruction(b); i; i = LLVMGetNextInstruction(i)) {
                if (!LLVMIsACallInst(i) && !LLVMIsAInvokeInst(i))
                    continue;
                const char *name = hp_callee_name(i);
                if (!strcmp(name, hp->atoms.callee))
                    hp_note_call(hp, &hp->atoms, i);
                else if (!strcmp(name, hp->ldesc.callee))
                    hp_note_call(hp, &hp->ldesc, i);
            }
}

/* ---- step 2: records --------------------------------------------------------------- */

static int hp_atom(HostPass *hp, LLVMValueRef site, XHostAtom *a)
{
    uint8_t bytes[sizeof(XAtomSite)];
    char *file;
    if (hp_read_site(hp, &hp->atoms, site, bytes, &file, &a->line, &a->column,
                     offsetof(XAtomSite, file), offsetof(XAtomSite, line)))
        return -1;
    memcpy(&a->attrs, bytes + offsetof(XAtomSite, attrs), sizeof a->attrs);
    a->file = file;
    char msg[160];
    if (xhost_atom_check(&a->attrs, msg, sizeof msg))
        hp_error(hp, file, a->line, a->column, "CreateAtom: %s", msg);
    return 0;
}

/* The device name __cudaRegisterFunction gives a kernel's host stub, or NULL. */
static char *hp_kernel_name(HostPass *hp, LLVMValueRef stub)
{
    LLVMValueRef reg = LLVMGetNamedFunction(hp->m, "__cudaRegisterFunction");
    for (LLVMUseRef u = reg ? LLVMGetFirstUse(reg) : NULL; u; u = LLVMGetNextUse(u)) {
        LLVMValueRef call = LLVMGetUser(u);
        if (LLVMIsACallInst(call) && LLVMGetNumArgOperands(call) >= 3 &&
            LLVMGetOperand(call, 1) == stub)
            return hp_string(LLVMGetOperand(call, 2));
    }
    size_t len;
    return strdup(LLVMGetValueName2(stub, &len));
}

/* The kernel of a descriptor when every call of its site names the same function. */
static char *hp_static_kernel(HostPass *hp, LLVMValueRef site)
{
    LLVMValueRef kernel = NULL;
    for (size_t i = 0; i < hp->ldesc.ncalls; i++) {
        LLVMValueRef c = hp->ldesc.calls[i];
        if (LLVMGetOperand(c, 0) != site)
            continue;
        LLVMValueRef k = LLVMGetNumArgOperands(c) > 1 ? LLVMGetOperand(c, 1) : NULL;
        if (!k || !LLVMIsAFunction(k) || (kernel && kernel != k))
            return NULL;
        kernel = k;
    }
    return kernel ? hp_kernel_name(hp, kernel) : NULL;
}

static int hp_ldesc(HostPass *hp, LLVMValueRef site, XHostLDesc *d)
{
    uint8_t bytes[sizeof(XLDSite)];
    char *file;
    if (hp_read_site(hp, &hp->ldesc, site, bytes, &file, &d->line, &d->column,
                     offsetof(XLDSite, file), offsetof(XLDSite, line)))
        return -1;
    memcpy(&d->s, bytes + offsetof(XLDSite, s), sizeof d->s);
    d->file = file;
    d->kernel = hp_static_kernel(hp, site);
    char msg[160];
    if (xhost_ldesc_check(&d->s, msg, sizeof msg))
        hp_error(hp, file, d->line, d->column, "LocalityDescriptor: %s", msg);
    return 0;
}

/* ---- steps 3-5: tables, calls, constructor ----------------------------------------- */

/* Appends v to the appending-linkage array global `name` (llvm.global_ctors, ...). */
static void hp_append(HostPass *hp, const char *name, LLVMTypeRef elty, LLVMValueRef v)
{
    LLVMValueRef old = LLVMGetNamedGlobal(hp->m, name), init = NULL;
    unsigned n = 0;
    if (old && (init = LLVMGetInitializer(old))) {
        n = (unsigned)LLVMGetArrayLength2(LLVMTypeOf(init));
        elty = LLVMGetElementType(LLVMTypeOf(init));
    }
    LLVMValueRef *els = calloc(n + 1, sizeof *els);
    if (!els) {
        hp_error_here(hp, "out of memory");
        return;
    }
    for (unsigned i = 0; i < n; i++)
        els[i] = LLVMGetAggregateElement(init, i);
    els[n] = v;
    const char *section = old ? LLVMGetSection(old) : NULL;
    char *sec = section ? strdup(section) : NULL;
    if (old)
        LLVMDeleteGlobal(old);
    LLVMValueRef arr = LLVMConstArray2(elty, els, n + 1);
    LLVMValueRef g = LLVMAddGlobal(hp->m, LLVMTypeOf(arr), name);
    LLVMSetInitializer(g, arr);
    LLVMSetLinkage(g, LLVMAppendingLinkage);
    if (sec || strcmp(name, "llvm.global_ctors"))
        LLVMSetSection(g, sec ? sec : "llvm.metadata");
    free(sec);
    free(els);
}

static LLVMValueRef hp_table(HostPass *hp, HpKind *k, const uint8_t *buf, size_t len)
{
    LLVMValueRef data = LLVMConstStringInContext(hp->ctx, (const char *)buf, (unsigned)len, 1);
    char name[64];
    snprintf(name, sizeof name, "__xgpu_table.%s", k->section);
    LLVMValueRef g = LLVMAddGlobal(hp->m, LLVMTypeOf(data), name);
    LLVMSetInitializer(g, data);
    LLVMSetGlobalConstant(g, 1);
    LLVMSetLinkage(g, LLVMInternalLinkage);
    LLVMSetSection(g, k->section);
    LLVMSetAlignment(g, 8);
    hp_append(hp, "llvm.compiler.used", LLVMPointerTypeInContext(hp->ctx, 0), g);
    return g;
}

static void hp_rewrite_calls(HostPass *hp, HpKind *k)
{
    LLVMTypeRef i8 = LLVMInt8TypeInContext(hp->ctx), i64 = LLVMInt64TypeInContext(hp->ctx);
    for (size_t i = 0; i < k->ncalls; i++) {
        size_t idx = hp_site_index(k, LLVMGetOperand(k->calls[i], 0));
        LLVMValueRef off = LLVMConstInt(i64, XHOST_HEADER + idx * k->recsize, 0);
        LLVMSetOperand(k->calls[i], 0, LLVMConstGEP2(i8, k->table, &off, 1));
    }
}

/* A hidden weak reference to a linker-defined section bound. */
static LLVMValueRef hp_bound(HostPass *hp, const char *prefix, const char *section)
{
    char name[64];
    snprintf(name, sizeof name, "%s%s", prefix, section);
    LLVMValueRef g = LLVMGetNamedGlobal(hp->m, name);
    if (g)
        return g;
    g = LLVMAddGlobal(hp->m, LLVMInt8TypeInContext(hp->ctx), name);
    LLVMSetLinkage(g, LLVMExternalWeakLinkage);
    LLVMSetVisibility(g, LLVMHiddenVisibility);
    return g;
}

static void hp_constructor(HostPass *hp)
{
    LLVMTypeRef ptr = LLVMPointerTypeInContext(hp->ctx, 0);
    LLVMTypeRef vd = LLVMVoidTypeInContext(hp->ctx);
    LLVMTypeRef ps[4] = {ptr, ptr, ptr, ptr};
    LLVMTypeRef regty = LLVMFunctionType(vd, ps, 4, 0);
    LLVMValueRef reg = LLVMGetNamedFunction(hp->m, "__xgpu_register_host");
    if (!reg)
        reg = LLVMAddFunction(hp->m, "__xgpu_register_host", regty);
    LLVMValueRef ctor = LLVMAddFunction(hp->m, "__xgpu_host_tables.ctor",
                                        LLVMFunctionType(vd, NULL, 0, 0));
    LLVMSetLinkage(ctor, LLVMInternalLinkage);
    LLVMBuilderRef b = LLVMCreateBuilderInContext(hp->ctx);
    LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(hp->ctx, ctor, "entry"));
    LLVMValueRef args[4] = {hp_bound(hp, "__start_", XHOST_ATOMS_SECTION),
                            hp_bound(hp, "__stop_", XHOST_ATOMS_SECTION),
                            hp_bound(hp, "__start_", XHOST_LDESC_SECTION),
                            hp_bound(hp, "__stop_", XHOST_LDESC_SECTION)};
    LLVMBuildCall2(b, regty, reg, args, 4, "");
    LLVMBuildRetVoid(b);
    LLVMDisposeBuilder(b);
    LLVMTypeRef i32 = LLVMInt32TypeInContext(hp->ctx);
    LLVMTypeRef fields[3] = {i32, ptr, ptr};
    LLVMValueRef vals[3] = {LLVMConstInt(i32, 65535, 0), ctor, LLVMConstNull(ptr)};
    hp_append(hp, "llvm.global_ctors", LLVMStructTypeInContext(hp->ctx, fields, 3, 0),
              LLVMConstStructInContext(hp->ctx, vals, 3, 0));
}

/* ---- the pass ---------------------------------------------------------------------- */

static void hp_emit_atoms(HostPass *hp)
{
    HpKind *k = &hp->atoms;
    if (k->nsites > XMEM_MAX_ATOMS) {
        hp_error_here(hp, "too many CreateAtom call sites (at most 255 atoms per program)");
        return;
    }
    XHostAtom *v = calloc(k->nsites, sizeof *v);
    for (size_t i = 0; v && i < k->nsites; i++)
        hp_atom(hp, k->sites[i], &v[i]);
    uint8_t *buf = NULL;
    size_t len;
    if (!v || (!hp->diag.errors && xhost_atoms_write(v, k->nsites, &buf, &len)))
        hp_error_here(hp, "out of memory");
    else if (!hp->diag.errors)
        k->table = hp_table(hp, k, buf, len);
    for (size_t i = 0; v && i < k->nsites; i++)
        free((char *)v[i].file);
    free(v);
    free(buf);
}

static void hp_emit_ldesc(HostPass *hp)
{
    HpKind *k = &hp->ldesc;
    XHostLDesc *v = calloc(k->nsites, sizeof *v);
    for (size_t i = 0; v && i < k->nsites; i++)
        hp_ldesc(hp, k->sites[i], &v[i]);
    uint8_t *buf = NULL;
    size_t len;
    if (!v || (!hp->diag.errors && xhost_ldesc_write(v, k->nsites, &buf, &len)))
        hp_error_here(hp, "out of memory");
    else if (!hp->diag.errors)
        k->table = hp_table(hp, k, buf, len);
    for (size_t i = 0; v && i < k->nsites; i++) {
        free((char *)v[i].file);
        free((char *)v[i].kernel);
    }
    free(v);
    free(buf);
}

int xgpu_host_pass(LLVMModuleRef m)
{
    HostPass hp = {
        .m = m, .ctx = LLVMGetModuleContext(m), .diag = {.out = stderr},
        .atoms = {.callee = "__xgpu_create_atom", .macro = "CreateAtom",
                  .section = XHOST_ATOMS_SECTION, .magic = XMEM_SITE_MAGIC,
                  .site_size = sizeof(XAtomSite), .recsize = XHOST_ATOM_REC},
        .ldesc = {.callee = "__xgpu_ldesc", .macro = "LocalityDescriptor",
                  .section = XHOST_LDESC_SECTION, .magic = XLD_SITE_MAGIC,
                  .site_size = sizeof(XLDSite), .recsize = XHOST_LDESC_REC},
    };
    hp.td = LLVMCreateTargetData(LLVMGetDataLayoutStr(m));
    hp_find_calls(&hp);
    int changed = hp.atoms.nsites || hp.ldesc.nsites;
    if (changed && LLVMPointerSize(hp.td) != sizeof(void *))
        hp_error_here(&hp, "annotations need a host target with the compiler's pointer size");
    if (changed && !hp.diag.errors && hp.atoms.nsites)
        hp_emit_atoms(&hp);
    if (changed && !hp.diag.errors && hp.ldesc.nsites)
        hp_emit_ldesc(&hp);
    if (changed && !hp.diag.errors) {
        hp_rewrite_calls(&hp, &hp.atoms);
        hp_rewrite_calls(&hp, &hp.ldesc);
        hp_constructor(&hp);
    }
    LLVMDisposeTargetData(hp.td);
    free(hp.atoms.sites);
    free(hp.atoms.calls);
    free(hp.ldesc.sites);
    free(hp.ldesc.calls);
    return hp.diag.errors ? -1 : changed;
}

static int hp_verify(LLVMModuleRef m, const char *path)
{
    char *msg = NULL;
    int bad = LLVMVerifyModule(m, LLVMReturnStatusAction, &msg);
    if (bad)
        fprintf(stderr, "xgpu-cc: internal error: host pass left invalid IR in %s: %s\n",
                path, msg ? msg : "");
    LLVMDisposeMessage(msg);
    return bad ? -1 : 0;
}

int xgpu_host_pass_file(const char *in, const char *fat, const char *out)
{
    LLVMMemoryBufferRef mb;
    char *msg = NULL;
    if (LLVMCreateMemoryBufferWithContentsOfFile(in, &mb, &msg)) {
        fprintf(stderr, "xgpu-cc: error: cannot read %s: %s\n", in, msg ? msg : "");
        LLVMDisposeMessage(msg);
        return -1;
    }
    LLVMContextRef ctx = LLVMContextCreate();
    LLVMModuleRef m;
    int rc = -1;
    if (LLVMParseBitcodeInContext2(ctx, mb, &m)) {
        fprintf(stderr, "xgpu-cc: error: %s: not valid LLVM bitcode\n", in);
    } else {
        int r = xgpu_host_pass(m), rm = r < 0 ? 0 : xgpu_host_managed(m, fat);
        r = rm < 0 ? -1 : r > 0 || rm > 0 ? 1 : r;
        if (r >= 0 && (r == 0 || !hp_verify(m, in))) {
            rc = LLVMWriteBitcodeToFile(m, out) ? -1 : 0;
            if (rc)
                fprintf(stderr, "xgpu-cc: error: cannot write %s\n", out);
        }
        LLVMDisposeModule(m);
    }
    LLVMDisposeMemoryBuffer(mb);
    LLVMContextDispose(ctx);
    return rc;
}
