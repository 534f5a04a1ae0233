/*
 * mir.c - construction, diagnostics and the debug printer of the machine IR (mir.h), plus
 * the analysis helpers the backend passes share (operand slots, liveness).
 *
 * Arrays grow by doubling; every object hangs off its MModule and is released by
 * mir_module_free. Allocation failure is an internal error (die), not a user error.
 */
#include "mir.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "xgpu/diag.h"

static void die_oom(void)
{
    fprintf(stderr, "xgpu-cc: out of memory\n");
    abort();
}

static void *xrealloc(void *p, size_t n)
{
    p = realloc(p, n ? n : 1);
    if (!p)
        die_oom();
    return p;
}

void *mir_zalloc(size_t n, size_t sz)
{
    void *p = calloc(n ? n : 1, sz);
    if (!p)
        die_oom();
    return p;
}

static char *xstrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    return memcpy(xrealloc(NULL, n), s, n);
}

/* Grows *arr (elements of size sz) so that index `need` fits. */
static void grow(void **arr, uint32_t *cap, uint32_t need, size_t sz)
{
    if (need < *cap)
        return;
    uint32_t c = *cap ? *cap : 4;
    while (c <= need)
        c *= 2;
    *arr = xrealloc(*arr, (size_t)c * sz);
    memset((char *)*arr + (size_t)*cap * sz, 0, (size_t)(c - *cap) * sz);
    *cap = c;
}

MModule *mir_module_new(const char *source)
{
    MModule *m = xrealloc(NULL, sizeof *m);
    memset(m, 0, sizeof *m);
    m->source = source;
    return m;
}

static void func_free(MFunc *f)
{
    for (uint32_t b = 0; b < f->nblocks; b++) {
        MBlock *bb = &f->blocks[b];
        for (uint32_t i = 0; i < bb->nphis; i++)
            free(bb->phis[i].in);
        free(bb->phis);
        free(bb->ins);
        free(bb->preds);
    }
    free(f->blocks);
    free(f->vregs);
    free(f->locs);
    free(f->params);
    free(f->name);
    free(f->signature);
    free(f->code);
    free(f->code_loc);
    free(f->code_shared);
    free(f->svars);
    free(f->phases);
    free(f);
}

void mir_module_free(MModule *m)
{
    if (!m)
        return;
    for (uint32_t i = 0; i < m->nfuncs; i++)
        func_free(m->funcs[i]);
    free(m->funcs);
    for (uint32_t i = 0; i < m->nglobals; i++) {
        free((char *)m->globals[i].name);
        free((uint8_t *)m->globals[i].init);
    }
    free(m->globals);
    for (uint32_t i = 0; i < m->nfiles; i++)
        free(m->files[i]);
    free(m->files);
    free(m);
}

MFunc *mir_func_new(MModule *m, const char *name)
{
    MFunc *f = xrealloc(NULL, sizeof *f);
    memset(f, 0, sizeof *f);
    f->name = xstrdup(name);
    f->mod = m;
    f->signature = xstrdup("");
    mir_vreg_new(f, 0); /* vreg 0 is MREG_NONE */
    mir_loc(f, 0, 0, 0); /* loc 0 is "unknown" */
    m->funcs = xrealloc(m->funcs, (m->nfuncs + 1) * sizeof *m->funcs);
    m->funcs[m->nfuncs++] = f;
    return f;
}

uint32_t mir_block_new(MFunc *f)
{
    grow((void **)&f->blocks, &f->capblocks, f->nblocks, sizeof *f->blocks);
    MBlock *b = &f->blocks[f->nblocks];
    memset(b, 0, sizeof *b);
    b->ipdom = MIR_EXIT;
    return f->nblocks++;
}

MReg mir_vreg_new(MFunc *f, int wide)
{
    grow((void **)&f->vregs, &f->capvregs, f->nvregs, sizeof *f->vregs);
    f->vregs[f->nvregs].wide = wide ? 1 : 0;
    return f->nvregs++;
}

static void insn_init(MInsn *in, XOp op, XType type)
{
    memset(in, 0, sizeof *in);
    in->x.op = (uint16_t)op;
    in->x.type = (uint8_t)type;
    memset(in->x.dst, XREG_RZ, sizeof in->x.dst);
    memset(in->x.src, XREG_RZ, sizeof in->x.src);
}

MInsn *mir_append(MFunc *f, uint32_t b, XOp op, XType type)
{
    MBlock *bb = &f->blocks[b];
    return mir_insert(f, b, bb->nins, op, type);
}

MInsn *mir_insert(MFunc *f, uint32_t b, uint32_t pos, XOp op, XType type)
{
    MBlock *bb = &f->blocks[b];
    grow((void **)&bb->ins, &bb->capins, bb->nins, sizeof *bb->ins);
    memmove(&bb->ins[pos + 1], &bb->ins[pos], (bb->nins - pos) * sizeof *bb->ins);
    bb->nins++;
    insn_init(&bb->ins[pos], op, type);
    return &bb->ins[pos];
}

MPhi *mir_phi_new(MFunc *f, uint32_t b, MReg dst, uint32_t nin)
{
    MBlock *bb = &f->blocks[b];
    grow((void **)&bb->phis, &bb->capphis, bb->nphis, sizeof *bb->phis);
    MPhi *p = &bb->phis[bb->nphis++];
    p->dst = dst;
    p->nin = nin;
    p->in = xrealloc(NULL, (nin ? nin : 1) * sizeof *p->in);
    memset(p->in, 0, (nin ? nin : 1) * sizeof *p->in);
    return p;
}

uint32_t mir_file(MModule *m, const char *path)
{
    for (uint32_t i = 0; i < m->nfiles; i++)
        if (strcmp(m->files[i], path) == 0)
            return i;
    m->files = xrealloc(m->files, (m->nfiles + 1) * sizeof *m->files);
    m->files[m->nfiles] = xstrdup(path);
    return m->nfiles++;
}

uint32_t mir_loc(MFunc *f, uint32_t file, uint32_t line, uint32_t col)
{
    if (f->nlocs > 0) {
        MLoc *last = &f->locs[f->nlocs - 1];
        if (f->nlocs > 1 && last->file == file && last->line == line && last->col == col)
            return f->nlocs - 1;
    }
    grow((void **)&f->locs, &f->caplocs, f->nlocs, sizeof *f->locs);
    f->locs[f->nlocs] = (MLoc){file, line, col};
    return f->nlocs++;
}

uint32_t mir_global_add(MModule *m, const XGlobal *g)
{
    m->globals = xrealloc(m->globals, (m->nglobals + 1) * sizeof *m->globals);
    XGlobal *n = &m->globals[m->nglobals];
    *n = *g;
    n->name = xstrdup(g->name);
    if (g->init) {
        uint8_t *p = xrealloc(NULL, g->size);
        memcpy(p, g->init, g->size);
        n->init = p;
    }
    return m->nglobals++;
}

MInsn *mir_terminator(MFunc *f, uint32_t b)
{
    MBlock *bb = &f->blocks[b];
    if (bb->nins == 0)
        return NULL;
    MInsn *t = &bb->ins[bb->nins - 1];
    const XOpInfo *oi = &xisa_ops[t->x.op];
    return (oi->flags & (XI_BRANCH | XI_EXIT)) ? t : NULL;
}

int mir_error(MFunc *f, uint32_t loc, const char *fmt, ...)
{
    MModule *m = f->mod;
    va_list ap, again;
    va_start(ap, fmt);
    va_copy(again, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *msg = xrealloc(NULL, n > 0 ? (size_t)n + 1 : 1);
    vsnprintf(msg, n > 0 ? (size_t)n + 1 : 1, fmt, again);
    va_end(again);
    uint32_t l = loc ? loc : f->decl_loc;
    if (l && l < f->nlocs && f->locs[l].file < m->nfiles)
        xdiag(NULL, XDIAG_ERROR, m->files[f->locs[l].file], f->locs[l].line, f->locs[l].col,
              "in kernel '%s': %s", f->name, msg);
    else
        xdiag(NULL, XDIAG_ERROR, m->source ? m->source : "<input>", 0, 0,
              "in kernel '%s': %s", f->name, msg);
    free(msg);
    m->errors++;
    return -1;
}

static void print_reg(FILE *out, MReg r)
{
    if (r == MREG_RZ)
        fprintf(out, "rz");
    else
        fprintf(out, "%%%u", r);
}

static void print_insn(const MFunc *f, const MInsn *in, FILE *out)
{
    const XOpInfo *oi = &xisa_ops[in->x.op];
    fprintf(out, "    %s", oi->name);
    if (in->x.type)
        fprintf(out, ".%s", xisa_type_names[in->x.type]);
    if (in->x.type2)
        fprintf(out, ".%s", xisa_type_names[in->x.type2]);
    fprintf(out, " mod=%u", in->x.mod);
    for (unsigned i = 0; i < oi->ndst; i++) {
        fputc(' ', out);
        print_reg(out, in->dst[i]);
    }
    unsigned nreg = oi->nsrc - ((in->x.flags & XF_IMM) ? 1 : 0);
    for (unsigned i = 0; i < nreg; i++) {
        fputs(i == 0 && oi->ndst == 0 ? " " : ", ", out);
        print_reg(out, in->src[i]);
    }
    if ((in->x.flags & XF_IMM) || (oi->flags & XI_MEM) || in->x.imm)
        fprintf(out, " imm=%lld", (long long)in->x.imm);
    if (oi->flags & XI_BRANCH)
        fprintf(out, " -> bb%u", in->x.target);
    if (in->x.flags & XF_UNIFORM)
        fprintf(out, " uniform");
    fputc('\n', out);
    (void)f;
}

void mir_print(const MFunc *f, FILE *out)
{
    fprintf(out, "kernel %s (vregs %u, local %u, shared %u)\n", f->name, f->nvregs,
            f->local_bytes, f->shared_bytes);
    for (uint32_t b = 0; b < f->nblocks; b++) {
        const MBlock *bb = &f->blocks[b];
        fprintf(out, "bb%u:", b);
        for (uint32_t i = 0; i < bb->npreds; i++)
            fprintf(out, "%s bb%u", i ? "," : " preds", bb->preds[i]);
        fputc('\n', out);
        for (uint32_t i = 0; i < bb->nphis; i++) {
            const MPhi *p = &bb->phis[i];
            fprintf(out, "    %%%u = phi", p->dst);
            for (uint32_t j = 0; j < p->nin; j++)
                fprintf(out, " [bb%u: %%%u]", p->in[j].block, p->in[j].reg);
            fputc('\n', out);
        }
        for (uint32_t i = 0; i < bb->nins; i++)
            print_insn(f, &bb->ins[i], out);
    }
}

/* ---- analysis helpers ---- */

unsigned mir_nsrc(const MInsn *in)
{
    const XOpInfo *oi = &xisa_ops[in->x.op];
    unsigned n = oi->nsrc;
    if ((in->x.flags & XF_IMM) && n > 0)
        n--;
    return n;
}

unsigned mir_ndst(const MInsn *in)
{
    return xisa_ops[in->x.op].ndst;
}

static void set_add(uint64_t *s, MReg r)
{
    s[r >> 6] |= 1ull << (r & 63);
}

/* gen: read before any write in b; kill: written in b (phi results included). */
static void live_block_sets(const MFunc *f, uint32_t b, uint64_t *gen, uint64_t *kill)
{
    const MBlock *bb = &f->blocks[b];
    for (uint32_t i = 0; i < bb->nphis; i++)
        if (mir_is_vreg(bb->phis[i].dst))
            set_add(kill, bb->phis[i].dst);
    for (uint32_t i = 0; i < bb->nins; i++) {
        const MInsn *in = &bb->ins[i];
        for (unsigned s = 0, n = mir_nsrc(in); s < n; s++)
            if (mir_is_vreg(in->src[s]) && !mir_live_has(kill, in->src[s]))
                set_add(gen, in->src[s]);
        for (unsigned d = 0, n = mir_ndst(in); d < n; d++)
            if (mir_is_vreg(in->dst[d]))
                set_add(kill, in->dst[d]);
    }
}

/* out(b) = union over successors s of in(s) and the phi inputs of s coming from b. */
static void live_out_of(const MFunc *f, const MLive *lv, uint32_t b, uint64_t *out)
{
    const MBlock *bb = &f->blocks[b];
    memset(out, 0, lv->words * sizeof *out);
    for (uint32_t k = 0; k < bb->nsucc; k++) {
        uint32_t s = bb->succ[k];
        const uint64_t *sin = mir_live_in(lv, s);
        for (uint32_t w = 0; w < lv->words; w++)
            out[w] |= sin[w];
        const MBlock *sb = &f->blocks[s];
        for (uint32_t p = 0; p < sb->nphis; p++)
            for (uint32_t j = 0; j < sb->phis[p].nin; j++)
                if (sb->phis[p].in[j].block == b && mir_is_vreg(sb->phis[p].in[j].reg))
                    set_add(out, sb->phis[p].in[j].reg);
    }
}

/* Backward data flow to a fixed point; blocks are visited from last to first, which
 * converges in a few rounds for the usual (mostly forward-numbered) layouts. */
void mir_live(const MFunc *f, MLive *lv)
{
    uint32_t nb = f->nblocks, words = (f->nvregs + 63) / 64;
    size_t total = (size_t)nb * words;
    lv->nblocks = nb;
    lv->words = words;
    lv->in = xrealloc(NULL, total * sizeof *lv->in);
    lv->out = xrealloc(NULL, total * sizeof *lv->out);
    uint64_t *gen = xrealloc(NULL, total * sizeof *gen);
    uint64_t *kill = xrealloc(NULL, total * sizeof *kill);
    memset(lv->in, 0, total * sizeof *lv->in);
    memset(lv->out, 0, total * sizeof *lv->out);
    memset(gen, 0, total * sizeof *gen);
    memset(kill, 0, total * sizeof *kill);
    for (uint32_t b = 0; b < nb; b++)
        live_block_sets(f, b, gen + (size_t)b * words, kill + (size_t)b * words);
    for (int changed = 1; changed;) {
        changed = 0;
        for (uint32_t b = nb; b-- > 0;) {
            uint64_t *out = lv->out + (size_t)b * words, *in = lv->in + (size_t)b * words;
            const uint64_t *g = gen + (size_t)b * words, *k = kill + (size_t)b * words;
            live_out_of(f, lv, b, out);
            for (uint32_t w = 0; w < words; w++) {
                uint64_t v = g[w] | (out[w] & ~k[w]);
                if (v != in[w]) {
                    in[w] = v;
                    changed = 1;
                }
            }
        }
    }
    free(gen);
    free(kill);
}

void mir_live_free(MLive *lv)
{
    free(lv->in);
    free(lv->out);
    lv->in = lv->out = NULL;
}
