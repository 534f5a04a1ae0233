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
 * A translation unit with errors yields no entries (the device compile reports them). A
 * parse that fails or crashes (libclang's crash recovery catches it) is a located error,
 * so the driver fails instead of building a binary without signatures; so is an included
 * file that is not a regular file (below), which libclang would read to its end.
 */
#define _GNU_SOURCE /* getline, open_memstream, environ */
#include "frontend.h"

#include <clang-c/Index.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

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

/* A located error for the driver to print (into fe->errtext). */
static void fe_error(Frontend *fe, const char *file, unsigned line, unsigned col,
                     const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static void fe_error(Frontend *fe, const char *file, unsigned line, unsigned col,
                     const char *fmt, ...)
{
    if (!fe->diag.out && !(fe->diag.out = open_memstream(&fe->errtext, &fe->errlen))) {
        fe->oom = 1;
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    xdiag_v(&fe->diag, XDIAG_ERROR, file, line, col, fmt, ap);
    va_end(ap);
}

/* ---- included files that are not regular files -----------------------------------------
 *
 * libclang treats the user's files as volatile and reads each to its end, so an included
 * character device (`#include "/dev/zero"`) is read until memory runs out; clang itself
 * reads such a file as empty. Before the parse, the device compile's preprocessor lists
 * the files the source includes (-M, as clang itself reads them) and each must be a
 * regular file; otherwise that is a located error at its #include line (found by name in
 * the files included before it), and there is no parse. A source the preprocessor
 * rejects is left to the device compile to report. */

#define DEPS_MAX (64u << 20)   /* bytes of dependency list read */
#define SCAN_MAX (16u << 20)   /* bytes of an includer searched for the #include line */

/* Runs argv (stderr to /dev/null) and returns its stdout (at most DEPS_MAX bytes) in *out;
 * the exit status, or -1 when it could not run. Signals the driver catches are reset to
 * their defaults in the child, and none is blocked there. */
int xgpu_frontend_capture(char *const *argv, char **out, size_t *len)
{
    int fd[2];
    *out = NULL, *len = 0;
    if (pipe(fd))
        return -1;
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t at;
    sigset_t def, none;
    sigemptyset(&none), sigemptyset(&def);
    static const int caught[] = {SIGTERM, SIGINT, SIGHUP, SIGPIPE};
    for (size_t i = 0; i < sizeof caught / sizeof *caught; i++) {
        struct sigaction was; /* handled ones to the default, ignored ones stay ignored */
        if (sigaction(caught[i], NULL, &was) == 0 && was.sa_handler != SIG_IGN)
            sigaddset(&def, caught[i]);
    }
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fd[1], 1);
    posix_spawn_file_actions_addclose(&fa, fd[0]);
    posix_spawn_file_actions_addclose(&fa, fd[1]);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    posix_spawnattr_init(&at);
    posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
    posix_spawnattr_setsigdefault(&at, &def);
    posix_spawnattr_setsigmask(&at, &none);
    pid_t pid;
    int rc = posix_spawnp(&pid, argv[0], &fa, &at, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&at);
    close(fd[1]);
    if (rc) {
        close(fd[0]);
        return -1;
    }
    FILE *m = open_memstream(out, len);
    char buf[65536];
    size_t kept = 0; /* the rest is read and dropped, so that the child can finish */
    for (;;) {
        ssize_t k = read(fd[0], buf, sizeof buf);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            break;
        if (m && kept + (size_t)k <= DEPS_MAX)
            kept += fwrite(buf, 1, (size_t)k, m);
    }
    close(fd[0]);
    if (m)
        fclose(m);
    int st;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR)
            return -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* The next file name of a make rule (clang's escapes undone: "\ ", "\#", "$$"), or NULL;
 * *p moves past it. Names are rewritten in place. */
static char *next_dep(char **p)
{
    char *s = *p;
    for (;;) {
        while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
            s++;
        if (s[0] == '\\' && (s[1] == '\n' || s[1] == '\r'))
            s += 2;
        else
            break;
    }
    if (!*s)
        return NULL;
    char *name = s, *w = s;
    while (*s && !strchr(" \t\r\n", *s)) {
        if (s[0] == '\\' && (s[1] == ' ' || s[1] == '#' || s[1] == '\\'))
            s++;
        else if (s[0] == '$' && s[1] == '$')
            s++;
        else if (s[0] == '\\' && (s[1] == '\n' || s[1] == '\r'))
            break;
        *w++ = *s++;
    }
    if (*s && *s != '\\')
        s++;
    *w = '\0';
    *p = s;
    return name;
}

static const char *base_name(const char *path)
{
    const char *b = strrchr(path, '/');
    return b ? b + 1 : path;
}

/* Finds `#include "…NAME"` (or <…NAME>) with NAME the last component of path in the
 * file includer; its line and the column of the name, or 0. */
static unsigned find_include(const char *includer, const char *path, unsigned *col)
{
    struct stat st;
    FILE *f = fopen(includer, "rb");
    if (!f || fstat(fileno(f), &st) || !S_ISREG(st.st_mode) || st.st_size > SCAN_MAX) {
        if (f)
            fclose(f);
        return 0;
    }
    const char *want = base_name(path);
    char *line = NULL;
    size_t cap = 0;
    unsigned no = 0, found = 0;
    while (!found && getline(&line, &cap, f) > 0) {
        no++;
        char *h = line + strspn(line, " \t");
        if (*h != '#')
            continue;
        h += 1 + strspn(h + 1, " \t");
        if (strncmp(h, "include", 7) && strncmp(h, "import", 6))
            continue;
        char *open = strpbrk(h, "\"<");
        char *close = open ? strchr(open + 1, *open == '<' ? '>' : '"') : NULL;
        if (!close)
            continue;
        *close = '\0';
        if (!strcmp(base_name(open + 1), want))
            found = no, *col = (unsigned)(open - line) + 1;
    }
    free(line);
    fclose(f);
    return found;
}

static const char *file_kind(mode_t m)
{
    return S_ISCHR(m) ? "a character device" : S_ISBLK(m) ? "a block device" :
           S_ISFIFO(m) ? "a FIFO" : S_ISSOCK(m) ? "a socket" : S_ISDIR(m) ? "a directory" :
           "not a regular file";
}

/* 0: every file src includes is a regular file (or the preprocessor failed: the device
 * compile reports why); -1: one is not, reported. */
static int check_includes(Frontend *fe, const char *src, const char *const *argv, int argc)
{
    char **cmd = calloc((size_t)argc + 4, sizeof *cmd);
    if (!cmd)
        return fe->oom = 1, -1;
    for (int i = 0; i < argc; i++)
        cmd[i] = (char *)argv[i];
    cmd[argc] = "-M", cmd[argc + 1] = "-MG", cmd[argc + 2] = (char *)src;
    char *deps = NULL;
    size_t len = 0;
    int rc = xgpu_frontend_capture(cmd, &deps, &len);
    free(cmd);
    char **seen = rc == 0 && deps ? calloc(len / 2 + 2, sizeof *seen) : NULL;
    unsigned n = 0;
    int bad = 0;
    char *p = deps, *name;
    while (seen && !bad && (name = next_dep(&p))) {
        size_t k = strlen(name);
        if (n == 0 && k && name[k - 1] == ':' && !seen[0]) { /* the rule's target */
            seen[0] = name; /* a placeholder: dependencies start at 1 */
            n = 1;
            continue;
        }
        struct stat st;
        if (stat(name, &st) == 0 && !S_ISREG(st.st_mode)) {
            unsigned line = 0, col = 0, i = 1;
            while (i < n && !(line = find_include(seen[i], name, &col)))
                i++;
            fe_error(fe, line ? seen[i] : src, line, col, "included file '%s' is %s, not a "
                     "regular file: xgpu-cc reads sources and headers only from regular files",
                     name, file_kind(st.st_mode));
            bad = 1;
        }
        seen[n++] = name;
    }
    free(seen);
    free(deps);
    return bad ? -1 : 0;
}

/* The parse proper: signatures, or a located error when libclang fails or crashes (its
 * crash recovery turns a fault or an out-of-memory abort into CXError_Crashed). */
static void parse(Frontend *fe, const char *src, const char *const *argv, int argc)
{
    CXIndex index = clang_createIndex(0, 0); /* fresh, diagnostics not printed */
    if (!index) {
        fe_error(fe, src, 0, 0, "the front end (libclang) could not start");
        return;
    }
    enum CXErrorCode rc = clang_parseTranslationUnit2FullArgv(
        index, src, argv, argc, NULL, 0, CXTranslationUnit_SkipFunctionBodies, &fe->tu);
    if (rc == CXError_Crashed)
        fe_error(fe, src, 0, 0, "the front end (libclang) crashed while parsing this source "
                 "(kernel signatures); nothing was built");
    else if (rc != CXError_Success || !fe->tu)
        fe_error(fe, src, 0, 0, "the front end (libclang) could not parse this source "
                 "(error %d); nothing was built", (int)rc);
    else if (!has_errors(fe->tu)) {
        fe->param_policy = make_policy(fe->tu, 0);
        fe->decl_policy = make_policy(fe->tu, 1);
        clang_visitChildren(clang_getTranslationUnitCursor(fe->tu), visit, fe);
        clang_PrintingPolicy_dispose(fe->param_policy);
        clang_PrintingPolicy_dispose(fe->decl_policy);
    }
    if (fe->tu)
        clang_disposeTranslationUnit(fe->tu);
    fe->tu = NULL;
    clang_disposeIndex(index);
}

int xgpu_frontend_signatures(const char *src, const char *const *argv, int argc,
                             XgpuSignatures *out)
{
    memset(out, 0, sizeof *out);
    Frontend fe = {0};
    if (check_includes(&fe, src, argv, argc) == 0)
        parse(&fe, src, argv, argc);
    if (!fe.oom && !fe.diag.out && take_entries(&fe, out))
        fe.oom = 1;
    free_entries(&fe);
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
