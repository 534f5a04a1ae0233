/*
 * asm.c - the assembler: the text form of isa.h (what xisa_format and
 * xgpubin_disassemble print) back into a module.
 *
 * One pass over the lines builds kernels, instructions, globals and line records in
 * growable arrays; branch labels are kernel-local and resolved when the kernel ends
 * (a label after the last instruction names pc == code_count, a valid reconvergence
 * point; `exit` is a synonym for it), gaddr symbols are resolved at the end of the
 * file. Sub-operations (.add, .down, .ballot, .popc, .sin, ...) are looked up before
 * the flags, so `vote.uni` is a vote; opcodes that have one require it. `atom`,
 * `atomcas` and `barred` (optional third operand: the barrier number) have their own
 * operand forms; ld/st take `.aN`, a required alignment (XInsn.sub = log2 N). Every
 * instruction is validated (xisa_validate) with the line it came from, and the finished
 * module passes gb_check, so anything assembled can be written and read.
 *
 * Directives beyond the ones listed in gpubin.h, so that a disassembly reproduces a
 * module exactly: .producer STR, .options STR, .signature STR, .file STR (declares the
 * next file index), .parambytes N, and an optional OFFSET after .param's ALIGN.
 * Errors: -1 and "LINE: message", or "NAME:LINE: error: message" (diag.h) when the
 * caller names the text; nothing is kept.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "gpubin_int.h"
#include "asm_lex.h"
#include "xgpu/diag.h"

typedef struct Fixup {
    uint32_t insn;  /* text index */
    int reconv;     /* patches reconv instead of target */
    int line;
    char name[64];
} Fixup;

typedef struct Label {
    char name[64];
    uint32_t pc;
} Label;

typedef struct KernState {
    int line;           /* of its .kernel directive */
    int explicit_regs;  /* line of the .regs directive, 0 when none */
    int explicit_pbytes;
    uint32_t pbytes;
} KernState;

typedef struct Asm {
    XGpubin g;           /* arrays malloc'd here; cloned into an arena at the end */
    uint32_t capk, capt, capg, capf, capl, capil;
    int *insn_line;      /* source line of each instruction */
    KernState ks;
    int in_kernel;
    Label *labels;
    uint32_t nlabels, caplabels;
    Fixup *fix, *symfix; /* branch fixups (this kernel), gaddr fixups (whole file) */
    uint32_t nfix, capfix, nsymfix, capsymfix;
    XLine *pending;      /* .loc records waiting for the next instruction */
    uint32_t npending, cappending;
    XPhase phase;        /* a .phase waiting for the next instruction */
    int phase_line;      /* its line, 0 when none waits */
    uint32_t capph;
    int line;
    const char *name;    /* of the text, for messages; NULL when the caller names none */
    char *err;
    size_t errlen;
} Asm;

static int err_at(Asm *a, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static XKernel *cur(Asm *a);
static int err_at(Asm *a, int line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (a->name) {
        xdiag_vformat(a->err, a->errlen, XDIAG_ERROR, a->name, (unsigned)line, 0, fmt, ap);
        va_end(ap);
        return -1;
    }
    char msg[200];
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return gb_fail(a->err, a->errlen, "%d: %s", line, msg);
}

/* Grows *arr (of *cap elements of size sz) to hold n + 1; -1 when out of memory. */
static int grow(void *arr, uint32_t *cap, uint32_t n, size_t sz)
{
    if (n < *cap)
        return 0;
    uint32_t c = *cap ? *cap * 2 : 16;
    void *p = realloc(*(void **)arr, (size_t)c * sz);
    if (!p)
        return -1;
    *(void **)arr = p;
    *cap = c;
    return 0;
}

#define GROW(a, arr, cap, n)                                                          \
    (grow(&(arr), &(cap), (n), sizeof *(arr)) ? err_at((a), (a)->line, "out of memory") : 0)

/* ---- operands ---------------------------------------------------------------------- */

static int parse_reg(Asm *a, const char *s, uint8_t *out)
{
    char *end;
    if (strcmp(s, "rz") == 0) {
        *out = XREG_RZ;
        return 0;
    }
    if (s[0] != 'r' || s[1] < '0' || s[1] > '9')
        return err_at(a, a->line, "expected a register, got '%s'", s);
    errno = 0;
    unsigned long v = strtoul(s + 1, &end, 10);
    if (*end || errno || v >= XREG_MAX)
        return err_at(a, a->line, "bad register '%s'", s);
    *out = (uint8_t)v;
    return 0;
}

static int parse_imm(Asm *a, const char *s, int64_t *out)
{
    if (lex_int(s, out))
        return err_at(a, a->line, "bad immediate '%s'", s);
    return 0;
}

/* [reg], [reg+off], [reg-off] or [off]. */
static int parse_mem(Asm *a, const char *s, XInsn *in)
{
    size_t n = strlen(s);
    char body[128];
    if (n < 3 || s[0] != '[' || s[n - 1] != ']' || n - 2 >= sizeof body)
        return err_at(a, a->line, "expected a memory operand [reg+offset], got '%s'", s);
    memcpy(body, s + 1, n - 2);
    body[n - 2] = '\0';
    if (body[0] != 'r')
        return parse_imm(a, body, &in->imm);
    char *sign = strpbrk(body, "+-");
    if (sign) {
        if (parse_imm(a, sign, &in->imm))
            return -1;
        *sign = '\0';
    }
    return parse_reg(a, lex_trim(body), &in->src[0]);
}

static int add_fixup(Asm *a, Fixup **arr, uint32_t *n, uint32_t *cap, const char *name,
                     int reconv)
{
    if (GROW(a, *arr, *cap, *n))
        return -1;
    if (strlen(name) >= sizeof(*arr)[0].name)
        return err_at(a, a->line, "name too long: '%s'", name);
    Fixup *f = &(*arr)[(*n)++];
    f->insn = a->g.ntext;
    f->reconv = reconv;
    f->line = a->line;
    strcpy(f->name, name);
    return 0;
}

static int parse_label_ref(Asm *a, const char *s, int reconv)
{
    if (!lex_is_name(s))
        return err_at(a, a->line, "expected a label, got '%s'", s);
    return add_fixup(a, &a->fix, &a->nfix, &a->capfix, s, reconv);
}

/* gaddr's operand: NAME, NAME+off, NAME-off, @index[+off]. */
static int parse_sym(Asm *a, const char *s, XInsn *in)
{
    char name[128];
    size_t n = strcspn(s, "+-");
    if (n == 0 || n >= sizeof name)
        return err_at(a, a->line, "expected a symbol, got '%s'", s);
    memcpy(name, s, n);
    name[n] = '\0';
    if (s[n] && parse_imm(a, s + n, &in->imm))
        return -1;
    if (name[0] == '@') {
        int64_t idx;
        if (lex_int(name + 1, &idx) || idx < 0 || idx > UINT32_MAX)
            return err_at(a, a->line, "bad symbol index '%s'", name);
        in->target = (uint32_t)idx;
        return 0;
    }
    return add_fixup(a, &a->symfix, &a->nsymfix, &a->capsymfix, name, 0);
}

/* A constant-bank operand c[OFF] in source slot i (XF_CONST; one per instruction). */
static int parse_const(Asm *a, const char *s, XInsn *in, unsigned i)
{
    size_t n = strlen(s);
    char body[64];
    int64_t off;
    if (n < 4 || s[n - 1] != ']' || n - 3 >= sizeof body)
        return err_at(a, a->line, "expected a constant-bank operand c[offset], got '%s'", s);
    memcpy(body, s + 2, n - 3);
    body[n - 3] = '\0';
    if (lex_int(lex_trim(body), &off) || off < 0 || off > UINT32_MAX)
        return err_at(a, a->line, "bad constant-bank offset in '%s'", s);
    if (in->flags & XF_CONST)
        return err_at(a, a->line, "only one constant-bank operand per instruction");
    in->flags |= XF_CONST;
    in->csrc = (uint8_t)i;
    in->src[i] = XREG_RZ;
    in->target = (uint32_t)off;
    return 0;
}

/* Source slot i: a register, a constant-bank operand, or (the last slot only) an
 * immediate. */
static int parse_src(Asm *a, const char *s, XInsn *in, unsigned i)
{
    if (s[0] == 'r' && (s[1] == 'z' || (s[1] >= '0' && s[1] <= '9')))
        return parse_reg(a, s, &in->src[i]);
    if (s[0] == 'c' && s[1] == '[')
        return parse_const(a, s, in, i);
    if (i + 1 != xisa_ops[in->op].nsrc)
        return err_at(a, a->line, "only the last source may be an immediate");
    in->flags |= XF_IMM;
    return parse_imm(a, s, &in->imm);
}

static int expect_ops(Asm *a, unsigned got, unsigned want, const char *op)
{
    if (got != want)
        return err_at(a, a->line, "%s takes %u operands, got %u", op, want, got);
    return 0;
}

static int parse_operands(Asm *a, XInsn *in, char **ops, unsigned n)
{
    const XOpInfo *oi = &xisa_ops[in->op];
    switch (in->op) {
    case XOP_ld:
        return expect_ops(a, n, 2, oi->name) || parse_reg(a, ops[0], &in->dst[0]) ||
               parse_mem(a, ops[1], in);
    case XOP_st:
        return expect_ops(a, n, 2, oi->name) || parse_mem(a, ops[0], in) ||
               parse_reg(a, ops[1], &in->src[1]);
    case XOP_s2r:
        if (expect_ops(a, n, 2, oi->name) || parse_reg(a, ops[0], &in->dst[0]))
            return -1;
        if (ops[1][0] != '%' || lex_lookup(xisa_sreg_names, XSR_COUNT, ops[1] + 1) < 0)
            return err_at(a, a->line, "unknown special register '%s'", ops[1]);
        in->mod = (uint8_t)lex_lookup(xisa_sreg_names, XSR_COUNT, ops[1] + 1);
        return 0;
    case XOP_gaddr:
        return expect_ops(a, n, 2, oi->name) || parse_reg(a, ops[0], &in->dst[0]) ||
               parse_sym(a, ops[1], in);
    case XOP_bra: return expect_ops(a, n, 1, oi->name) || parse_label_ref(a, ops[0], 0);
    case XOP_brc:
        return expect_ops(a, n, 3, oi->name) || parse_reg(a, ops[0], &in->src[0]) ||
               parse_label_ref(a, ops[1], 0) || parse_label_ref(a, ops[2], 1);
    case XOP_bar: return expect_ops(a, n, 1, oi->name) || parse_imm(a, ops[0], &in->imm);
    case XOP_atom: case XOP_atomcas:
        if (expect_ops(a, n, in->op == XOP_atom ? 3 : 4, oi->name) ||
            parse_reg(a, ops[0], &in->dst[0]) || parse_mem(a, ops[1], in) ||
            parse_reg(a, ops[2], &in->src[1]))
            return -1;
        return in->op == XOP_atomcas ? parse_reg(a, ops[3], &in->src[2]) : 0;
    case XOP_lea: /* d, s0, s1, shift */
        return expect_ops(a, n, 4, oi->name) || parse_reg(a, ops[0], &in->dst[0]) ||
               parse_src(a, ops[1], in, 0) || parse_src(a, ops[2], in, 1) ||
               parse_imm(a, ops[3], &in->imm);
    case XOP_barred: /* d, s0 [, barrier] */
        if (n != 2 && n != 3)
            return err_at(a, a->line, "barred takes 2 or 3 operands, got %u", n);
        return parse_reg(a, ops[0], &in->dst[0]) || parse_reg(a, ops[1], &in->src[0]) ||
               (n == 3 && parse_imm(a, ops[2], &in->imm));
    default: break;
    }
    if (expect_ops(a, n, oi->ndst + oi->nsrc, oi->name))
        return -1;
    for (unsigned i = 0; i < oi->ndst; i++)
        if (parse_reg(a, ops[i], &in->dst[i]))
            return -1;
    for (unsigned i = 0; i < oi->nsrc; i++)
        if (parse_src(a, ops[oi->ndst + i], in, i))
            return -1;
    return 0;
}

/* ---- mnemonics --------------------------------------------------------------------- */

/* The opcode's sub-operation named s (tried first: vote.uni is a vote, not .uni). */
static int lookup_sub(const XInsn *in, const char *s)
{
    unsigned lo, hi;
    const char *const *names = xisa_sub_names(in->op, &lo, &hi);
    if (!names)
        return -1;
    int v = lex_lookup(names + lo, (int)(hi - lo), s);
    return v < 0 ? -1 : v + (int)lo;
}

/* ld/st's `.aN`: a required alignment of N bytes (a power of two; xisa_validate checks
 * that it exceeds the access and is at most 16). Returns log2 N, or -1 when s is not one. */
static int mem_align_suffix(const XInsn *in, const char *s)
{
    if ((in->op != XOP_ld && in->op != XOP_st) || s[0] != 'a' || s[1] < '1' || s[1] > '9')
        return -1;
    char *end;
    errno = 0;
    unsigned long v = strtoul(s + 1, &end, 10);
    if (*end || errno || v < 2 || v > 128 || (v & (v - 1)))
        return -1;
    return __builtin_ctzl(v);
}

static int parse_suffix(Asm *a, XInsn *in, const char *s, int *ntypes, int *nsub)
{
    int v;
    if ((v = mem_align_suffix(in, s)) >= 0 && !in->sub)
        in->sub = (uint8_t)v;
    else if (*nsub == 0 && (v = lookup_sub(in, s)) >= 0)
        in->sub = (uint8_t)v, (*nsub)++;
    else if (in->op == XOP_set && (v = lex_lookup(xisa_cmp_names, XCMP_COUNT, s)) >= 0)
        in->mod = (uint8_t)v;
    else if ((in->op == XOP_ld || in->op == XOP_st || in->op == XOP_cvta ||
              in->op == XOP_atom || in->op == XOP_atomcas) &&
             (v = lex_lookup(xisa_space_names, XS_COUNT, s)) >= 0)
        in->mod = (uint8_t)v;
    else if (in->op == XOP_membar && (v = lex_lookup(xisa_scope_names, XSCOPE_COUNT, s)) >= 0)
        in->mod = (uint8_t)v;
    else if (strcmp(s, "to") == 0)
        in->flags |= XF_TOSPACE;
    else if (strcmp(s, "not") == 0)
        in->flags |= XF_NEG;
    else if (strcmp(s, "uni") == 0)
        in->flags |= XF_UNIFORM;
    else if ((v = lex_lookup(xisa_type_names + 1, XT_COUNT - 1, s)) >= 0 && *ntypes < 2)
        *((*ntypes)++ == 0 ? &in->type : &in->type2) = (uint8_t)(v + 1);
    else
        return err_at(a, a->line, "unknown suffix '.%s' for %s", s, xisa_ops[in->op].name);
    return 0;
}

/* hmma's positional suffixes after its quadrant: A layout, B layout, D format, C format
 * (k counts them). Returns 0 when s was one, 1 when it is some other suffix. */
static int hmma_suffix(XInsn *in, const char *s, int *k)
{
    static const char *const forms[2][2] = {{"row", "col"}, {"f16", "f32"}};
    static const uint8_t bits[4] = {XHMMA_ACOL, XHMMA_BCOL, XHMMA_D32, XHMMA_C32};
    if (in->op != XOP_hmma || *k >= 4)
        return 1;
    int v = lex_lookup(forms[*k / 2], 2, s);
    if (v < 0)
        return 1;
    in->mod |= (uint8_t)(v ? bits[*k] : 0);
    (*k)++;
    return 0;
}

static int parse_mnemonic(Asm *a, char *m, XInsn *in)
{
    char *dot = strchr(m, '.');
    if (dot)
        *dot = '\0';
    int op = -1;
    for (int i = 0; i < XOP_COUNT && op < 0; i++)
        if (strcmp(xisa_ops[i].name, m) == 0)
            op = i;
    if (op < 0)
        return err_at(a, a->line, "unknown instruction '%s'", m);
    memset(in, 0, sizeof *in);
    memset(in->dst, XREG_RZ, sizeof in->dst);
    memset(in->src, XREG_RZ, sizeof in->src);
    in->op = (uint16_t)op;
    int ntypes = 0, nsub = 0, nhmma = 0;
    unsigned lo, hi;
    for (char *s = dot ? dot + 1 : NULL; s;) {
        char *next = strchr(s, '.');
        if (next)
            *next++ = '\0';
        if ((!nsub || hmma_suffix(in, s, &nhmma)) && parse_suffix(a, in, s, &ntypes, &nsub))
            return -1;
        s = next;
    }
    if (!nsub && xisa_sub_names(in->op, &lo, &hi))
        return err_at(a, a->line, "%s needs an operation suffix (e.g. .%s)", m,
                      xisa_sub_names(in->op, &lo, &hi)[lo]);
    if (in->op == XOP_hmma && nhmma != 4)
        return err_at(a, a->line, "hmma needs its quadrant, two layouts and two formats "
                      "(e.g. hmma.q0.row.col.f32.f32)");
    return 0;
}

static int emit(Asm *a, const XInsn *in)
{
    if (GROW(a, a->g.text, a->capt, a->g.ntext) ||
        GROW(a, a->insn_line, a->capil, a->g.ntext))
        return -1;
    for (uint32_t i = 0; i < a->npending; i++) {
        if (GROW(a, a->g.lines, a->capl, a->g.nlines))
            return -1;
        a->g.lines[a->g.nlines] = a->pending[i];
        a->g.lines[a->g.nlines++].pc = a->g.ntext;
    }
    a->npending = 0;
    if (a->phase_line) {
        if (GROW(a, a->g.phases, a->capph, a->g.nphases))
            return -1;
        a->phase.kernel = a->g.nkernels - 1;
        a->phase.pc = a->g.ntext - cur(a)->code_start;
        a->g.phases[a->g.nphases++] = a->phase;
        a->phase_line = 0;
    }
    a->insn_line[a->g.ntext] = a->line;
    a->g.text[a->g.ntext++] = *in;
    return 0;
}

static int parse_insn(Asm *a, char *s)
{
    XInsn in;
    char *ops[8];
    if (!a->in_kernel)
        return err_at(a, a->line, "instruction outside a .kernel");
    char *m = lex_word(&s);
    if (parse_mnemonic(a, m, &in))
        return -1;
    int n = lex_split(s, ops, 8);
    if (n < 0)
        return err_at(a, a->line, "too many operands");
    if (parse_operands(a, &in, ops, (unsigned)n))
        return -1;
    return emit(a, &in);
}

/* ---- kernels ----------------------------------------------------------------------- */

static XKernel *cur(Asm *a) { return &a->g.kernels[a->g.nkernels - 1]; }

static int resolve_labels(Asm *a, XKernel *k)
{
    for (uint32_t i = 0; i < a->nfix; i++) {
        Fixup *f = &a->fix[i];
        XInsn *in = &a->g.text[f->insn];
        int64_t pc = -1;
        for (uint32_t j = 0; j < a->nlabels && pc < 0; j++)
            if (strcmp(a->labels[j].name, f->name) == 0)
                pc = a->labels[j].pc;
        if (pc < 0 && f->reconv && strcmp(f->name, "exit") == 0)
            pc = k->code_count;
        if (pc < 0)
            return err_at(a, f->line, "undefined label '%s'", f->name);
        *(f->reconv ? &in->reconv : &in->target) = (uint32_t)pc;
    }
    a->nfix = a->nlabels = 0;
    return 0;
}

/* Registers needed by the kernel's instructions: highest used + 1. */
static uint32_t regs_used(const Asm *a, const XKernel *k)
{
    uint32_t need = 0;
    for (uint32_t pc = k->code_start; pc < k->code_start + k->code_count; pc++) {
        const XInsn *in = &a->g.text[pc];
        for (unsigned i = 0; i < 8; i++) {
            unsigned d = i < 2, slot = d ? i : i - 2, r = d ? in->dst[slot] : in->src[slot];
            unsigned w = xisa_operand_regs(in, (int)d, slot);
            if (w && r != XREG_RZ && r + w > need)
                need = r + w;
        }
    }
    return need;
}

static int end_kernel(Asm *a)
{
    if (!a->in_kernel)
        return 0;
    XKernel *k = cur(a);
    char why[160];
    a->in_kernel = 0;
    if (a->phase_line)
        return err_at(a, a->phase_line, ".phase without an instruction after it");
    k->code_count = a->g.ntext - k->code_start;
    if (k->code_count == 0)
        return err_at(a, a->ks.line, "kernel %s has no instructions", k->name);
    if (resolve_labels(a, k))
        return -1;
    uint32_t need = regs_used(a, k);
    if (!a->ks.explicit_regs)
        k->nregs = need;
    else if (k->nregs < need)
        return err_at(a, a->ks.explicit_regs, ".regs %u but the code uses %u", k->nregs, need);
    if (a->ks.explicit_pbytes) {
        if (a->ks.pbytes < k->param_bytes)
            return err_at(a, a->ks.line, ".parambytes %u smaller than the parameters",
                          a->ks.pbytes);
        k->param_bytes = a->ks.pbytes;
    }
    for (uint32_t pc = 0; pc < k->code_count; pc++)
        if (xisa_validate(&a->g.text[k->code_start + pc], k->code_count, why, sizeof why))
            return err_at(a, a->insn_line[k->code_start + pc], "%s", why);
    return 0;
}

static int dir_kernel(Asm *a, char *s)
{
    char *name = lex_word(&s);
    if (!*name || *lex_trim(s))
        return err_at(a, a->line, ".kernel takes one name");
    if (end_kernel(a) || GROW(a, a->g.kernels, a->capk, a->g.nkernels))
        return -1;
    XKernel *k = &a->g.kernels[a->g.nkernels++];
    memset(k, 0, sizeof *k);
    k->name = strdup(name);
    k->signature = strdup("");
    k->code_start = a->g.ntext;
    if (!k->name || !k->signature)
        return err_at(a, a->line, "out of memory");
    a->in_kernel = 1;
    a->ks = (KernState){.line = a->line};
    return 0;
}

static int dir_param(Asm *a, char *s)
{
    uint64_t v[3] = {0, 0, 0};
    int n = lex_uints(s, v, 3, UINT32_MAX);
    if (n < 1)
        return err_at(a, a->line, "usage: .param SIZE [ALIGN [OFFSET]]");
    XKernel *k = cur(a);
    uint32_t align = n >= 2 ? (uint32_t)v[1] : lex_natural_align(v[0]);
    if (!align || (align & (align - 1)))
        return err_at(a, a->line, "parameter alignment %u is not a power of two", align);
    uint64_t off = n >= 3 ? v[2] : ((uint64_t)k->param_bytes + align - 1) / align * align;
    if (off + v[0] > UINT32_MAX)
        return err_at(a, a->line, "parameter buffer too large");
    XParam *p = realloc(k->params, (k->nparams + 1) * sizeof *p);
    if (!p)
        return err_at(a, a->line, "out of memory");
    k->params = p;
    p[k->nparams++] = (XParam){(uint32_t)off, (uint32_t)v[0], align};
    if (off + v[0] > k->param_bytes)
        k->param_bytes = (uint32_t)(off + v[0]);
    return 0;
}

/* .regs .shared .local .parambytes: one number for the current kernel. */
static int dir_resource(Asm *a, const char *d, char *s)
{
    uint64_t v;
    if (lex_uints(s, &v, 1, UINT32_MAX) != 1)
        return err_at(a, a->line, "%s takes one number", d);
    XKernel *k = cur(a);
    if (strcmp(d, ".regs") == 0) {
        if (v > XREG_MAX)
            return err_at(a, a->line, ".regs %u exceeds %u", (unsigned)v, XREG_MAX);
        k->nregs = (uint32_t)v;
        a->ks.explicit_regs = a->line;
    } else if (strcmp(d, ".shared") == 0) {
        k->shared_bytes = (uint32_t)v;
    } else if (strcmp(d, ".local") == 0) {
        k->local_bytes = (uint32_t)v;
    } else {
        a->ks.pbytes = (uint32_t)v;
        a->ks.explicit_pbytes = 1;
    }
    return 0;
}

/* .global NAME SIZE [ALIGN] [const | managed] [= b0 b1 ...] */
static int dir_global(Asm *a, char *s)
{
    char *eq = strchr(s, '=');
    if (eq)
        *eq++ = '\0';
    char *name = lex_word(&s), *w[4];
    int n = lex_words(s, w, 4);
    uint64_t size, align = 1;
    int is_const = n > 0 && strcmp(w[n - 1], "const") == 0;
    int managed = !is_const && n > 0 && strcmp(w[n - 1], "managed") == 0;
    n -= is_const + managed;
    if (!*name || n < 1 || n > 2 || lex_uint(w[0], &size, UINT64_MAX) ||
        (n == 2 && lex_uint(w[1], &align, UINT32_MAX)))
        return err_at(a, a->line, "usage: .global NAME SIZE [ALIGN] [const | managed] [= bytes]");
    if (n < 2)
        align = lex_natural_align(size);
    if (GROW(a, a->g.globals, a->capg, a->g.nglobals))
        return -1;
    XGlobal *v = &a->g.globals[a->g.nglobals];
    *v = (XGlobal){.name = strdup(name), .space = is_const ? XG_CONST : XG_GLOBAL,
                   .align = (uint32_t)align, .size = size, .managed = (uint32_t)managed};
    a->g.nglobals++;
    if (!v->name)
        return err_at(a, a->line, "out of memory");
    if (!eq)
        return 0;
    if (size > (1u << 30))
        return err_at(a, a->line, "initializer of %llu bytes is too large",
                      (unsigned long long)size);
    uint8_t *init = calloc(size ? (size_t)size : 1, 1);
    if (!init)
        return err_at(a, a->line, "out of memory");
    v->init = init;
    uint64_t i = 0;
    for (char *b = lex_word(&eq); *b; b = lex_word(&eq), i++) {
        uint64_t byte;
        if (i >= size || lex_uint(b, &byte, 255))
            return err_at(a, a->line, i >= size ? "too many initializer bytes"
                                                : "bad initializer byte '%s'", b);
        init[i] = (uint8_t)byte;
    }
    return 0;
}

/* Index of file name, declaring it when new (.file always declares). */
static int file_index(Asm *a, const char *name, int declare)
{
    for (uint32_t i = 0; !declare && i < a->g.nfiles; i++)
        if (strcmp(a->g.files[i], name) == 0)
            return (int)i;
    if (GROW(a, a->g.files, a->capf, a->g.nfiles))
        return -1;
    if (!(a->g.files[a->g.nfiles] = strdup(name)))
        return err_at(a, a->line, "out of memory");
    return (int)a->g.nfiles++;
}

static int dir_loc(Asm *a, char *s, int declare)
{
    char name[512];
    uint64_t line = 0;
    if (lex_string(&s, name, sizeof name) ||
        (!declare && lex_uints(s, &line, 1, UINT32_MAX) != 1) || (declare && *lex_trim(s)))
        return err_at(a, a->line, declare ? "usage: .file NAME" : "usage: .loc FILE LINE");
    int f = file_index(a, name, declare);
    if (f < 0 || declare)
        return f < 0 ? -1 : 0;
    if (GROW(a, a->pending, a->cappending, a->npending))
        return -1;
    a->pending[a->npending++] = (XLine){0, (uint32_t)f, (uint32_t)line};
    return 0;
}

/* .producer .options .signature: one (quoted) string. */
static int dir_string(Asm *a, const char *d, char *s)
{
    char buf[1024];
    if (lex_string(&s, buf, sizeof buf) || *lex_trim(s))
        return err_at(a, a->line, "%s takes one string", d);
    const char **slot = strcmp(d, ".producer") == 0 ? &a->g.producer
                        : strcmp(d, ".options") == 0 ? &a->g.options : &cur(a)->signature;
    char *copy = strdup(buf);
    if (!copy)
        return err_at(a, a->line, "out of memory");
    free((char *)*slot);
    *slot = copy;
    return 0;
}

/* .phases DELTA GAP: the module carries phase specifiers placed with these thresholds. */
static int dir_phases(Asm *a, char *s)
{
    uint64_t v[2];
    if (lex_uints(s, v, 2, UINT32_MAX) != 2)
        return err_at(a, a->line, "usage: .phases DELTA GAP");
    if (v[0] < 1 || v[0] > XPHASE_DELTA_MAX || v[1] < 1 || v[1] > XPHASE_GAP_MAX)
        return err_at(a, a->line, ".phases %llu %llu: thresholds out of range (1..%u, 1..%u)",
                      (unsigned long long)v[0], (unsigned long long)v[1], XPHASE_DELTA_MAX,
                      XPHASE_GAP_MAX);
    a->g.phase_delta = (uint32_t)v[0];
    a->g.phase_gap = (uint32_t)v[1];
    return 0;
}

/* .phase REGS SHARED [entry] [barrier] [dynamic]: a specifier at the next instruction. */
static int dir_phase(Asm *a, char *s)
{
    static const char *const flag_names[] = {"barrier", "entry", "dynamic"};
    char *w[5];
    uint64_t regs, shared;
    int n = lex_words(s, w, 5);
    if (n < 2 || n > 5 || lex_uint(w[0], &regs, XREG_MAX) ||
        lex_uint(w[1], &shared, UINT32_MAX))
        return err_at(a, a->line, "usage: .phase REGS SHARED [entry] [barrier] [dynamic]");
    if (!a->g.phase_delta)
        return err_at(a, a->line, ".phase before the module's .phases directive");
    if (a->phase_line)
        return err_at(a, a->line, "two .phase directives for one instruction");
    XPhase p = {.regs = (uint32_t)regs, .shared = (uint32_t)shared};
    for (int i = 2; i < n; i++) {
        size_t f = 0;
        while (f < 3 && strcmp(w[i], flag_names[f]) != 0)
            f++;
        if (f == 3)
            return err_at(a, a->line, "unknown phase flag '%s'", w[i]);
        p.flags |= 1u << f;
    }
    a->phase = p;
    a->phase_line = a->line;
    return 0;
}

/* .launch_bounds MAXTHREADS [MINBLOCKS] */
static int dir_launch_bounds(Asm *a, char *s)
{
    uint64_t v[2] = {0, 0};
    int n = lex_uints(s, v, 2, UINT32_MAX);
    if (n < 1 || v[0] < 1 || v[0] > XKERNEL_MAX_THREADS || v[1] > XKERNEL_MAX_MIN_BLOCKS)
        return err_at(a, a->line, ".launch_bounds takes 1 to %u threads and optionally 0 to %u "
                      "blocks", XKERNEL_MAX_THREADS, XKERNEL_MAX_MIN_BLOCKS);
    cur(a)->max_threads = (uint32_t)v[0];
    cur(a)->min_blocks = (uint32_t)v[1];
    return 0;
}

static int parse_directive(Asm *a, char *s)
{
    char *d = lex_word(&s);
    static const char *const per_kernel[] = {".regs", ".shared", ".local", ".parambytes",
                                             ".param", ".signature", ".phase",
                                             ".launch_bounds"};
    for (size_t i = 0; i < sizeof per_kernel / sizeof *per_kernel; i++)
        if (strcmp(d, per_kernel[i]) == 0 && !a->in_kernel)
            return err_at(a, a->line, "%s outside a .kernel", d);
    if (strcmp(d, ".kernel") == 0)
        return dir_kernel(a, s);
    if (strcmp(d, ".param") == 0)
        return dir_param(a, s);
    if (strcmp(d, ".global") == 0)
        return dir_global(a, s);
    if (strcmp(d, ".phases") == 0)
        return dir_phases(a, s);
    if (strcmp(d, ".phase") == 0)
        return dir_phase(a, s);
    if (strcmp(d, ".launch_bounds") == 0)
        return dir_launch_bounds(a, s);
    if (strcmp(d, ".loc") == 0 || strcmp(d, ".file") == 0)
        return dir_loc(a, s, d[1] == 'f');
    if (!strcmp(d, ".producer") || !strcmp(d, ".options") || !strcmp(d, ".signature"))
        return dir_string(a, d, s);
    for (size_t i = 0; i < 4; i++)
        if (strcmp(d, per_kernel[i]) == 0)
            return dir_resource(a, d, s);
    return err_at(a, a->line, "unknown directive '%s'", d);
}

/* ---- driver ------------------------------------------------------------------------ */

static int parse_line(Asm *a, char *s)
{
    s = lex_trim(lex_strip_comment(s));
    char *colon = lex_label_end(s);
    if (colon) {
        *colon = '\0';
        if (!a->in_kernel)
            return err_at(a, a->line, "label '%s' outside a .kernel", s);
        for (uint32_t j = 0; j < a->nlabels; j++)
            if (strcmp(a->labels[j].name, s) == 0)
                return err_at(a, a->line, "label '%s' defined twice", s);
        if (GROW(a, a->labels, a->caplabels, a->nlabels) || strlen(s) >= sizeof a->labels->name)
            return err_at(a, a->line, "label '%s' too long", s);
        strcpy(a->labels[a->nlabels].name, s);
        a->labels[a->nlabels++].pc = a->g.ntext - cur(a)->code_start;
        s = lex_trim(colon + 1);
    }
    if (!*s)
        return 0;
    return *s == '.' ? parse_directive(a, s) : parse_insn(a, s);
}

static int resolve_symbols(Asm *a)
{
    for (uint32_t i = 0; i < a->nsymfix; i++) {
        Fixup *f = &a->symfix[i];
        uint32_t j = 0;
        while (j < a->g.nglobals && strcmp(a->g.globals[j].name, f->name) != 0)
            j++;
        if (j == a->g.nglobals)
            return err_at(a, f->line, "undefined symbol '%s'", f->name);
        a->g.text[f->insn].target = j;
    }
    return 0;
}

static void asm_release(Asm *a)
{
    for (uint32_t i = 0; i < a->g.nkernels; i++) {
        free((char *)a->g.kernels[i].name);
        free((char *)a->g.kernels[i].signature);
        free(a->g.kernels[i].params);
    }
    for (uint32_t i = 0; i < a->g.nglobals; i++) {
        free((char *)a->g.globals[i].name);
        free((void *)a->g.globals[i].init);
    }
    for (uint32_t i = 0; i < a->g.nfiles; i++)
        free((char *)a->g.files[i]);
    free(a->g.kernels), free(a->g.text), free(a->g.globals), free(a->g.files);
    free(a->g.lines), free(a->insn_line), free(a->labels), free(a->fix), free(a->symfix);
    free(a->pending), free((char *)a->g.producer), free((char *)a->g.options);
    free(a->g.phases);
}

static int assemble(Asm *a, const char *text)
{
    for (const char *p = text; *p;) {
        size_t n = strcspn(p, "\n");
        char *line = malloc(n + 1);
        if (!line)
            return err_at(a, a->line + 1, "out of memory");
        memcpy(line, p, n);
        line[n] = '\0';
        a->line++;
        int rc = parse_line(a, line);
        free(line);
        if (rc)
            return -1;
        p += n + (p[n] == '\n');
    }
    a->line++;
    if (end_kernel(a) || resolve_symbols(a))
        return -1;
    char why[200];
    if (!gb_check(&a->g, why, sizeof why))
        return 0;
    return a->name ? err_at(a, 0, "%s", why) : gb_fail(a->err, a->errlen, "%s", why);
}

int xasm_assemble_named(const char *name, const char *text, XGpubin **out, char *err,
                        size_t errlen)
{
    Asm a = {.name = name, .err = err, .errlen = errlen};
    *out = NULL;
    a.g.producer = strdup("xgpu-asm");
    a.g.options = strdup("");
    int rc = !a.g.producer || !a.g.options ? err_at(&a, 0, "out of memory")
                                           : assemble(&a, text ? text : "");
    if (!rc && !(*out = gb_clone(&a.g)))
        rc = err_at(&a, a.line, "out of memory");
    asm_release(&a);
    return rc ? -1 : 0;
}

int xasm_assemble(const char *text, XGpubin **out, char *err, size_t errlen)
{
    return xasm_assemble_named(NULL, text, out, err, errlen);
}
