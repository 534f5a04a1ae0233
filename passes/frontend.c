/*
 * frontend.c - kernel source signatures: a libclang parse of the CUDA source.
 *
 * The device IR names a kernel only by its mangled name and knows its parameters only as
 * LLVM types; .xgpu.kernels also records the signature the programmer wrote, such as
 * "void saxpy(int n, float a, const float *x, float *y)". This file recovers it from the
 * source. The translation unit is parsed with the device compile's own command line
 * (--cuda-device-only, so the target is nvptx64 and clang_Cursor_getMangling yields the
 * names the device IR gives the kernels) and with CXTranslationUnit_SkipFunctionBodies:
 * only declarations matter, and skipping bodies halves the cost of the parse (it is
 * dominated by the C++ headers the CUDA headers pull in). A fresh index, no precompiled
 * preamble, no diagnostics printed.
 *
 * Every definition of a function with a CUDAGlobalAttr child at namespace or class scope
 * gets one entry: its mangled name and "RET QUALIFIED-NAME[<ARGS>](PARAM, ...)", each
 * parameter printed by clang as written (type sugar and names kept, an unnamed parameter
 * as its type alone, default arguments kept). An explicit specialization of a kernel
 * template is a definition of its own and is recorded like a plain kernel. A kernel
 * template itself has no mangled name: it is recorded as the template declaration
 * ("template <typename T> void scan(T *x, int n)") under the prefix its instantiations'
 * names share, which the lowering uses when no exact name matches (lower.h). The prefix
 * is only formed for templates at namespace scope outside std with external linkage;
 * templates sharing one prefix (overloads) are dropped, so a signature is never wrong.
 *
 * A translation unit with errors yields no entries (the device compile reports them).
 */
#include "frontend.h"

#include <clang-c/Index.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xgpu/diag.h"

/* A growing string; oom sticks once an allocation failed. */
typedef struct Str {
    char *p;
    size_t n, cap;
    int oom;
} Str;

/* One kernel (or kernel template) declaration seen; redeclarations share canon. */
typedef struct Entry {
    char *name, *sig;
    int prefix;
    int body; /* the declaration is followed by a function body */
    CXCursor canon;
} Entry;

typedef struct Frontend {
    CXTranslationUnit tu;
    XDiag diag;                    /* located errors for the driver to print, into errtext */
    char *errtext;                 /* a memstream's text, opened at the first error */
    size_t errlen;
    CXPrintingPolicy param_policy; /* parameters: terse, no attributes */
    CXPrintingPolicy decl_policy;  /* template declarations: also the qualified name */
    Entry *v;
    unsigned n, cap;
    int oom;
} Frontend;

static void str_add(Str *s, const char *t)
{
    size_t k = strlen(t);
    if (s->oom)
        return;
    if (s->n + k + 1 > s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 64;
        while (cap < s->n + k + 1)
            cap *= 2;
        char *p = realloc(s->p, cap);
        if (!p) {
            s->oom = 1;
            return;
        }
        s->p = p, s->cap = cap;
    }
    memcpy(s->p + s->n, t, k + 1);
    s->n += k;
}

static void str_addf(Str *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void str_addf(Str *s, const char *fmt, ...)
{
    char small[64], *buf = small;
    va_list ap, again;
    va_start(ap, fmt);
    va_copy(again, ap);
    int k = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (k >= (int)sizeof small && (buf = malloc((size_t)k + 1)))
        vsnprintf(buf, (size_t)k + 1, fmt, again);
    va_end(again);
    if (!buf || k < 0)
        s->oom = 1;
    else
        str_add(s, buf);
    if (buf != small)
        free(buf);
}

/* Appends a libclang string and disposes of it. */
static void str_cx(Str *s, CXString c)
{
    const char *t = clang_getCString(c);
    str_add(s, t ? t : "");
    clang_disposeString(c);
}

/* Whether the text after a declaration opens its body. With skipped bodies libclang
 * marks no declaration as a definition and ends every extent at the ')', so this looks at
 * the source. A kernel made by a macro does not pass; it is then recorded from its last
 * declaration, the same thing in the usual order (declarations before the definition). */
static int followed_by_body(Frontend *fe, CXCursor c)
{
    CXFile file;
    unsigned off;
    size_t size = 0;
    clang_getExpansionLocation(clang_getRangeEnd(clang_getCursorExtent(c)), &file, NULL, NULL,
                               &off);
    const char *text = file ? clang_getFileContents(fe->tu, file, &size) : NULL;
    while (text && off < size && strchr(" \t\r\n", text[off]))
        off++;
    return text && off < size && text[off] == '{';
}

/* Records a declaration; takes ownership of name and sig. A redeclaration of an entity
 * already seen replaces it unless only the earlier one had a body. */
static void add_entry(Frontend *fe, CXCursor c, char *name, char *sig, int prefix)
{
    if (!name || !sig || !name[0]) {
        fe->oom |= name == NULL || sig == NULL;
        free(name), free(sig);
        return;
    }
    Entry e = {name, sig, prefix, followed_by_body(fe, c), clang_getCanonicalCursor(c)};
    for (unsigned i = 0; i < fe->n; i++) {
        Entry *old = &fe->v[i];
        if (!clang_equalCursors(old->canon, e.canon))
            continue;
        if (old->body && !e.body) {
            free(name), free(sig);
        } else {
            free(old->name), free(old->sig);
            *old = e;
        }
        return;
    }
    if (fe->n == fe->cap) {
        unsigned cap = fe->cap ? 2 * fe->cap : 16;
        Entry *v = realloc(fe->v, cap * sizeof *v);
        if (!v) {
            fe->oom = 1;
            free(name), free(sig);
            return;
        }
        fe->v = v, fe->cap = cap;
    }
    fe->v[fe->n++] = e;
}

static enum CXChildVisitResult find_global_attr(CXCursor c, CXCursor parent, CXClientData d)
{
    if (clang_getCursorKind(c) != CXCursor_CUDAGlobalAttr)
        return CXChildVisit_Continue;
    *(int *)d = 1;
    return CXChildVisit_Break;
}

static int is_kernel(CXCursor c)
{
    int global = 0;
    clang_visitChildren(c, find_global_attr, &global);
    return global;
}

static int is_record(enum CXCursorKind k)
{
    return k == CXCursor_StructDecl || k == CXCursor_ClassDecl || k == CXCursor_UnionDecl ||
           k == CXCursor_ClassTemplate || k == CXCursor_ClassTemplatePartialSpecialization;
}

/* Appends "ns::Class::" for the scopes around a declaration whose semantic parent is p. */
static void add_scope(Str *s, CXCursor p)
{
    enum CXCursorKind k = clang_getCursorKind(p);
    if (k == CXCursor_LinkageSpec) {
        add_scope(s, clang_getCursorSemanticParent(p));
    } else if (k == CXCursor_Namespace) {
        add_scope(s, clang_getCursorSemanticParent(p));
        if (clang_Cursor_isAnonymous(p))
            str_add(s, "(anonymous namespace)");
        else
            str_cx(s, clang_getCursorSpelling(p));
        str_add(s, "::");
    } else if (is_record(k)) { /* the type's spelling carries its own scope */
        str_cx(s, clang_getTypeSpelling(clang_getCursorType(p)));
        str_add(s, "::");
    }
}

typedef struct TemplateParams {
    CXType type[16]; /* of the non-type parameters; CXType_Invalid for the others */
    unsigned n;
} TemplateParams;

static enum CXChildVisitResult collect_param(CXCursor c, CXCursor parent, CXClientData d)
{
    TemplateParams *t = d;
    enum CXCursorKind k = clang_getCursorKind(c);
    if (k != CXCursor_TemplateTypeParameter && k != CXCursor_NonTypeTemplateParameter &&
        k != CXCursor_TemplateTemplateParameter)
        return CXChildVisit_Continue;
    if (t->n == 16)
        return CXChildVisit_Break;
    t->type[t->n++] = k == CXCursor_NonTypeTemplateParameter ? clang_getCursorType(c)
                                                             : (CXType){CXType_Invalid, {0}};
    return CXChildVisit_Continue;
}

static int is_unsigned(enum CXTypeKind k)
{
    return k == CXType_UChar || k == CXType_Char_U || k == CXType_UShort || k == CXType_UInt ||
           k == CXType_ULong || k == CXType_ULongLong || k == CXType_UInt128;
}

/* An integer template argument as its parameter's type reads (bool as true/false). */
static void add_integral_arg(Str *s, CXCursor c, unsigned i, const TemplateParams *t)
{
    enum CXTypeKind k = i < t->n ? clang_getCanonicalType(t->type[i]).kind : CXType_Int;
    if (k == CXType_Bool)
        str_add(s, clang_Cursor_getTemplateArgumentUnsignedValue(c, i) ? "true" : "false");
    else if (is_unsigned(k))
        str_addf(s, "%llu", clang_Cursor_getTemplateArgumentUnsignedValue(c, i));
    else
        str_addf(s, "%lld", clang_Cursor_getTemplateArgumentValue(c, i));
}

/* "<float, 4>" for an explicit specialization; 0, or -1 for arguments it cannot print
 * (templates, packs, declarations). */
static int add_template_args(Str *s, CXCursor c)
{
    int n = clang_Cursor_getNumTemplateArguments(c);
    if (n <= 0)
        return 0;
    TemplateParams t = {.n = 0};
    clang_visitChildren(clang_getSpecializedCursorTemplate(c), collect_param, &t);
    if (t.n != (unsigned)n)
        return -1;
    str_add(s, "<");
    for (unsigned i = 0; i < (unsigned)n; i++) {
        enum CXTemplateArgumentKind k = clang_Cursor_getTemplateArgumentKind(c, i);
        str_add(s, i ? ", " : "");
        if (k == CXTemplateArgumentKind_Type)
            str_cx(s, clang_getTypeSpelling(clang_Cursor_getTemplateArgumentType(c, i)));
        else if (k == CXTemplateArgumentKind_Integral)
            add_integral_arg(s, c, i, &t);
        else
            return -1;
    }
    str_add(s, ">");
    return 0;
}

static int has_long_double(CXType t);

static enum CXVisitorResult field_long_double(CXCursor c, CXClientData d)
{
    if (has_long_double(clang_getCursorType(c))) {
        *(int *)d = 1;
        return CXVisit_Break;
    }
    return CXVisit_Continue;
}

/* Whether a value of type t holds a long double: itself, an array element or a field. */
static int has_long_double(CXType t)
{
    t = clang_getCanonicalType(t);
    if (t.kind == CXType_LongDouble)
        return 1;
    if (t.kind == CXType_ConstantArray)
        return has_long_double(clang_getArrayElementType(t));
    int found = 0;
    if (t.kind == CXType_Record)
        clang_Type_visitFields(t, field_long_double, &found);
    return found;
}

/* Kernel parameters the host and the device would lay out differently: long double is
 * the 80-bit x87 format in 16 bytes on the host and a double on the device, so its value
 * would arrive as garbage. Reported as a located error; no conversion is attempted. */
static void check_params(Frontend *fe, CXCursor c)
{
    int n = clang_Cursor_getNumArguments(c);
    for (int i = 0; i < n; i++) {
        CXCursor p = clang_Cursor_getArgument(c, (unsigned)i);
        if (!has_long_double(clang_getCursorType(p)))
            continue;
        CXFile file;
        unsigned line, col;
        clang_getExpansionLocation(clang_getCursorLocation(p), &file, &line, &col, NULL);
        CXString fname = clang_getFileName(file), pname = clang_getCursorSpelling(p);
        CXString tname = clang_getTypeSpelling(clang_getCursorType(p));
        const char *pn = clang_getCString(pname);
        if (!fe->diag.out && !(fe->diag.out = open_memstream(&fe->errtext, &fe->errlen)))
            fe->oom = 1;
        else
            xdiag(&fe->diag, XDIAG_ERROR, file ? clang_getCString(fname) : "<unknown>", line,
                  col, "kernel parameter %s%s%shas type '%s': long double is not supported by "
                  "xgpu in kernel parameters (the device computes it as double); pass a double",
                  pn && *pn ? "'" : "", pn && *pn ? pn : "", pn && *pn ? "' " : "",
                  clang_getCString(tname));
        clang_disposeString(fname), clang_disposeString(pname), clang_disposeString(tname);
    }
}

/* A kernel definition that is a function (plain, static member, explicit specialization). */
static void record_function(Frontend *fe, CXCursor c)
{
    if (followed_by_body(fe, c)) /* bodies are skipped: not a "definition" to libclang */
        check_params(fe, c);
    Str sig = {0};
    str_cx(&sig, clang_getTypeSpelling(clang_getCursorResultType(c)));
    str_add(&sig, " ");
    add_scope(&sig, clang_getCursorSemanticParent(c));
    str_cx(&sig, clang_getCursorSpelling(c));
    if (add_template_args(&sig, c)) {
        free(sig.p);
        return;
    }
    str_add(&sig, "(");
    int n = clang_Cursor_getNumArguments(c);
    for (int i = 0; i < n; i++) {
        str_add(&sig, i ? ", " : "");
        str_cx(&sig, clang_getCursorPrettyPrinted(clang_Cursor_getArgument(c, (unsigned)i),
                                                  fe->param_policy));
    }
    str_add(&sig, ")");
    CXString m = clang_Cursor_getMangling(c);
    const char *name = clang_getCString(m);
    char *copy = name ? strdup(name) : NULL;
    clang_disposeString(m);
    fe->oom |= sig.oom;
    add_entry(fe, c, copy, sig.oom ? NULL : sig.p, 0);
    if (sig.oom)
        free(sig.p);
}

/* Appends the Itanium <source-name>s of the namespaces around a template; -1 when its
 * scope is one whose mangling this does not reproduce (classes, std). */
static int add_mangled_scope(Str *s, CXCursor p, int *depth)
{
    enum CXCursorKind k = clang_getCursorKind(p);
    if (k == CXCursor_TranslationUnit)
        return 0;
    if (k == CXCursor_LinkageSpec)
        return add_mangled_scope(s, clang_getCursorSemanticParent(p), depth);
    if (k != CXCursor_Namespace || add_mangled_scope(s, clang_getCursorSemanticParent(p), depth))
        return -1;
    CXString name = clang_getCursorSpelling(p);
    const char *t = clang_getCString(name);
    int rc = 0;
    if (clang_Cursor_isAnonymous(p))
        str_add(s, "12_GLOBAL__N_1");
    else if (*depth == 0 && strcmp(t, "std") == 0)
        rc = -1; /* ::std is abbreviated "St" */
    else {
        str_addf(s, "%zu", strlen(t));
        str_add(s, t);
    }
    clang_disposeString(name);
    ++*depth;
    return rc;
}

/* "_Z4scanI" / "_ZN2ns4scanI": how the names of a template's instantiations begin. */
static char *template_prefix(CXCursor c)
{
    if (clang_Cursor_getStorageClass(c) == CX_SC_Static)
        return NULL; /* internal linkage adds an L the scope walk does not place */
    Str scope = {0}, s = {0};
    int depth = 0;
    CXString name = clang_getCursorSpelling(c);
    const char *t = clang_getCString(name);
    if (add_mangled_scope(&scope, clang_getCursorSemanticParent(c), &depth) == 0) {
        str_add(&s, depth ? "_ZN" : "_Z");
        str_add(&s, scope.p ? scope.p : "");
        str_addf(&s, "%zu", strlen(t));
        str_add(&s, t);
        str_add(&s, "I");
    } else {
        s.oom = 1;
    }
    clang_disposeString(name);
    free(scope.p);
    if (s.oom || scope.oom) {
        free(s.p);
        return NULL;
    }
    return s.p;
}

static void record_template(Frontend *fe, CXCursor c)
{
    char *prefix = template_prefix(c);
    if (!prefix)
        return;
    Str sig = {0};
    str_cx(&sig, clang_getCursorPrettyPrinted(c, fe->decl_policy));
    fe->oom |= sig.oom;
    add_entry(fe, c, prefix, sig.oom ? NULL : sig.p, 1);
    if (sig.oom)
        free(sig.p);
}

static enum CXChildVisitResult visit(CXCursor c, CXCursor parent, CXClientData d)
{
    Frontend *fe = d;
    enum CXCursorKind k = clang_getCursorKind(c);
    int scope = k == CXCursor_Namespace || k == CXCursor_LinkageSpec || is_record(k);
    int function = k == CXCursor_FunctionDecl || k == CXCursor_CXXMethod;
    if (!scope && !function && k != CXCursor_FunctionTemplate)
        return CXChildVisit_Continue;
    if (clang_Location_isInSystemHeader(clang_getCursorLocation(c)))
        return CXChildVisit_Continue;
    if (scope)
        return CXChildVisit_Recurse;
    if (is_kernel(c)) {
        if (function)
            record_function(fe, c);
        else
            record_template(fe, c);
    }
    return CXChildVisit_Continue;
}

static int has_errors(CXTranslationUnit tu)
{
    unsigned n = clang_getNumDiagnostics(tu);
    int errors = 0;
    for (unsigned i = 0; i < n && !errors; i++) {
        CXDiagnostic d = clang_getDiagnostic(tu, i);
        errors = clang_getDiagnosticSeverity(d) >= CXDiagnostic_Error;
        clang_disposeDiagnostic(d);
    }
    return errors;
}

/* Moves the entries into the caller's list. Templates whose instantiations share one
 * prefix (overloads) cannot be told apart: they are dropped. */
static int take_entries(Frontend *fe, XgpuSignatures *out)
{
    if (fe->n && !(out->v = calloc(fe->n, sizeof *out->v)))
        return -1;
    out->cap = fe->n;
    for (unsigned i = 0; i < fe->n; i++) {
        const Entry *e = &fe->v[i];
        int clash = 0; /* (an entry already moved out has no name and clashed with none) */
        for (unsigned j = 0; j < fe->n && e->prefix; j++)
            clash |= j != i && fe->v[j].prefix && fe->v[j].name &&
                     strcmp(e->name, fe->v[j].name) == 0;
        if (clash)
            continue;
        out->v[out->n++] = (XgpuSignature){e->name, e->sig, e->prefix};
        fe->v[i].name = fe->v[i].sig = NULL;
    }
    return 0;
}

static void free_entries(Frontend *fe)
{
    for (unsigned i = 0; i < fe->n; i++)
        free(fe->v[i].name), free(fe->v[i].sig);
    free(fe->v);
}

static CXPrintingPolicy make_policy(CXTranslationUnit tu, int qualified)
{
    CXPrintingPolicy p = clang_getCursorPrintingPolicy(clang_getTranslationUnitCursor(tu));
    clang_PrintingPolicy_setProperty(p, CXPrintingPolicy_TerseOutput, 1);
    clang_PrintingPolicy_setProperty(p, CXPrintingPolicy_PolishForDeclaration, 1);
    clang_PrintingPolicy_setProperty(p, CXPrintingPolicy_FullyQualifiedName, qualified);
    return p;
}

int xgpu_frontend_signatures(const char *src, const char *const *argv, int argc,
                             XgpuSignatures *out)
{
    memset(out, 0, sizeof *out);
    CXIndex index = clang_createIndex(0, 0); /* fresh, diagnostics not printed */
    if (!index)
        return 0;
    CXTranslationUnit tu = NULL;
    enum CXErrorCode rc = clang_parseTranslationUnit2FullArgv(
        index, src, argv, argc, NULL, 0, CXTranslationUnit_SkipFunctionBodies, &tu);
    Frontend fe = {.tu = tu};
    if (rc == CXError_Success && tu && !has_errors(tu)) {
        fe.param_policy = make_policy(tu, 0);
        fe.decl_policy = make_policy(tu, 1);
        clang_visitChildren(clang_getTranslationUnitCursor(tu), visit, &fe);
        clang_PrintingPolicy_dispose(fe.param_policy);
        clang_PrintingPolicy_dispose(fe.decl_policy);
        if (!fe.oom && take_entries(&fe, out))
            fe.oom = 1;
    }
    free_entries(&fe);
    if (tu)
        clang_disposeTranslationUnit(tu);
    clang_disposeIndex(index);
    if (fe.diag.out && fclose(fe.diag.out))
        fe.oom = 1;
    if (fe.oom)
        free(fe.errtext), xgpu_frontend_free(out);
    else
        out->errors = fe.errtext;
    return fe.oom ? -1 : 0;
}

void xgpu_frontend_free(XgpuSignatures *s)
{
    for (unsigned i = 0; i < s->n; i++) {
        free((char *)s->v[i].name);
        free((char *)s->v[i].signature);
    }
    free(s->v);
    free(s->errors);
    memset(s, 0, sizeof *s);
}
