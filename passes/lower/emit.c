/*
 * emit.c - from allocated MIR to instruction arrays: layout, pcs, reconvergence points,
 * and the module's gpubin.
 *
 * mir_emit requires: mir_cfg (succ, rpo), mir_postdom (ipdom), mir_regalloc (machine
 * registers in x.dst/x.src).
 * It guarantees: f->code[0..ncode) is the kernel in layout order (blocks in RPO) with
 * kernel-relative pcs in x.target, x.reconv of every brc = the pc of its block's ipdom
 * (ncode when that is the virtual exit), f->code_loc[pc] = the instruction's location,
 * f->code_shared[pc] = its MInsn.shared (0 for the branches emit adds).
 * Branches to a block that holds only `bra X` go to X directly (jump threading, which
 * removes the extra jump of every loop whose back edge out-of-SSA split), unless that
 * block is the ipdom of some brc: lanes must pass a reconvergence pc, not jump past it.
 * Blocks no branch reaches any more are not emitted. A bra to the next block is
 * dropped; a brc whose target is the next block is inverted (XF_NEG toggled) so that
 * its else block is; when neither successor follows, a bra to the else block is added
 * after it. A block's pc is where its first instruction would go, so a block reduced to
 * nothing (a dropped bra) shares the pc of its successor.
 * Every instruction is checked with xisa_validate.
 *
 * mir_module_gpubin lays the kernels' code end to end in one text and adds the line
 * table: one XLine each time (file, line) changes along the text.
 */
#include "mir.h"

#include <stdlib.h>
#include <string.h>

#define NONE 0xffffffffu

typedef struct EmitCtx {
    MFunc *f;
    uint32_t *order; /* blocks in layout order */
    uint32_t norder;
    uint32_t *pc;    /* by block: pc of its first instruction */
    uint8_t *live;   /* by block: some branch (or the entry) reaches it */
    uint32_t n;      /* instructions so far */
} EmitCtx;

static uint32_t next_block(const EmitCtx *c, uint32_t i)
{
    return i + 1 < c->norder ? c->order[i + 1] : NONE;
}

/* ---- jump threading ---- */

static int is_jump_only(const MFunc *f, uint32_t b)
{
    return f->blocks[b].nins == 1 && f->blocks[b].ins[0].x.op == XOP_bra;
}

/* Where a branch to b really goes: past blocks holding only a bra that no brc needs
 * as its reconvergence point. */
static uint32_t thread(const MFunc *f, const uint8_t *is_ipdom, uint32_t b)
{
    for (uint32_t hops = 0; hops < f->nblocks; hops++) {
        if (b == 0 || is_ipdom[b] || !is_jump_only(f, b))
            break;
        b = f->blocks[b].ins[0].x.target;
    }
    return b;
}

static void thread_jumps(EmitCtx *c)
{
    MFunc *f = c->f;
    uint8_t *is_ipdom = mir_zalloc(f->nblocks, 1);
    for (uint32_t b = 0; b < f->nblocks; b++) {
        MInsn *t = mir_terminator(f, b);
        if (t && t->x.op == XOP_brc && f->blocks[b].ipdom != MIR_EXIT)
            is_ipdom[f->blocks[b].ipdom] = 1;
    }
    c->live[0] = 1;
    for (uint32_t b = 0; b < f->nblocks; b++) {
        MInsn *t = mir_terminator(f, b);
        if (!t || !(xisa_ops[t->x.op].flags & XI_BRANCH))
            continue;
        t->x.target = thread(f, is_ipdom, t->x.target);
        f->blocks[b].succ[0] = t->x.target;
        c->live[t->x.target] = 1;
        if (t->x.op == XOP_brc) {
            f->blocks[b].succ[1] = thread(f, is_ipdom, f->blocks[b].succ[1]);
            c->live[f->blocks[b].succ[1]] = 1;
        }
    }
    free(is_ipdom);
}

/* Puts the fall-through block of a brc after it when possible; returns the number of
 * instructions the block will take. */
static uint32_t block_size(EmitCtx *c, uint32_t b, uint32_t next)
{
    MBlock *bb = &c->f->blocks[b];
    MInsn *t = mir_terminator(c->f, b);
    if (!t)
        return bb->nins;
    if (t->x.op == XOP_bra && t->x.target == next)
        return bb->nins - 1;
    if (t->x.op != XOP_brc || bb->succ[1] == next)
        return bb->nins;
    if (t->x.target == next) { /* invert: the old target falls through */
        t->x.flags ^= XF_NEG;
        t->x.target = bb->succ[1];
        bb->succ[1] = next;
        bb->succ[0] = t->x.target;
        return bb->nins;
    }
    return bb->nins + 1;
}

static void put(EmitCtx *c, const XInsn *x, uint32_t loc, uint64_t shared)
{
    c->f->code[c->n] = *x;
    c->f->code_loc[c->n] = loc;
    c->f->code_shared[c->n] = shared;
    c->n++;
}

static void emit_block(EmitCtx *c, uint32_t b, uint32_t next)
{
    MFunc *f = c->f;
    MBlock *bb = &f->blocks[b];
    for (uint32_t j = 0; j < bb->nins; j++) {
        XInsn x = bb->ins[j].x;
        uint32_t loc = bb->ins[j].loc;
        if (!(xisa_ops[x.op].flags & XI_BRANCH)) {
            put(c, &x, loc, bb->ins[j].shared);
            continue;
        }
        if (x.op == XOP_bra && x.target == next)
            continue;
        x.target = c->pc[x.target];
        if (x.op == XOP_brc) {
            x.reconv = bb->ipdom == MIR_EXIT ? f->ncode : c->pc[bb->ipdom];
            put(c, &x, loc, 0);
            if (bb->succ[1] != next) {
                XInsn br = {.op = XOP_bra, .target = c->pc[bb->succ[1]]};
                memset(br.dst, XREG_RZ, sizeof br.dst);
                memset(br.src, XREG_RZ, sizeof br.src);
                put(c, &br, loc, 0);
            }
            continue;
        }
        put(c, &x, loc, 0);
    }
}

/* Live blocks in RPO, their pcs; blocks left out get the pc of where they lead. */
static int layout(EmitCtx *c)
{
    MFunc *f = c->f;
    for (uint32_t b = 0; b < f->nblocks; b++) {
        if (f->blocks[b].rpo >= f->nblocks || c->order[f->blocks[b].rpo] != NONE)
            return mir_error(f, 0, "internal: stale block order (run mir_cfg first)");
        c->order[f->blocks[b].rpo] = b;
    }
    for (uint32_t i = 0; i < f->nblocks; i++)
        if (c->live[c->order[i]])
            c->order[c->norder++] = c->order[i];
    uint32_t n = 0;
    for (uint32_t i = 0; i < c->norder; i++) {
        uint32_t b = c->order[i];
        c->pc[b] = n;
        n += block_size(c, b, next_block(c, i));
    }
    f->ncode = n;
    for (uint32_t b = 0; b < f->nblocks; b++)
        if (!c->live[b])
            c->pc[b] = is_jump_only(f, b) ? c->pc[f->blocks[b].ins[0].x.target] : n;
    return 0;
}

static int validate(MFunc *f)
{
    char err[160];
    for (uint32_t pc = 0; pc < f->ncode; pc++)
        if (xisa_validate(&f->code[pc], f->ncode, err, sizeof err))
            return mir_error(f, f->code_loc[pc], "internal: bad instruction at pc %u: %s",
                             pc, err);
    return 0;
}

int mir_emit(MFunc *f)
{
    EmitCtx c = {.f = f};
    c.order = mir_zalloc(f->nblocks, sizeof *c.order);
    c.pc = mir_zalloc(f->nblocks, sizeof *c.pc);
    c.live = mir_zalloc(f->nblocks, 1);
    for (uint32_t i = 0; i < f->nblocks; i++)
        c.order[i] = NONE;
    thread_jumps(&c);
    int rc = layout(&c);
    if (rc == 0) {
        free(f->code);
        free(f->code_loc);
        free(f->code_shared);
        f->code = mir_zalloc(f->ncode, sizeof *f->code);
        f->code_loc = mir_zalloc(f->ncode, sizeof *f->code_loc);
        f->code_shared = mir_zalloc(f->ncode, sizeof *f->code_shared);
        for (uint32_t i = 0; i < c.norder; i++)
            emit_block(&c, c.order[i], next_block(&c, i));
        rc = validate(f);
    }
    free(c.order);
    free(c.pc);
    free(c.live);
    return rc;
}

/* ---- the module ---- */

static void fill_kernel(XKernel *k, const MFunc *f, uint32_t start)
{
    k->name = f->name;
    k->code_start = start;
    k->code_count = f->ncode;
    k->nregs = f->nregs;
    k->shared_bytes = f->shared_bytes;
    k->local_bytes = f->local_bytes;
    k->param_bytes = f->param_bytes;
    k->nparams = f->nparams;
    k->params = f->params;
    k->signature = f->signature ? f->signature : "";
    k->max_threads = f->max_threads;
    k->min_blocks = f->min_blocks;
}

/* Appends line records for kernel f placed at text index start. */
static void add_lines(XGpubin *g, const MFunc *f, uint32_t start, uint32_t *cap)
{
    for (uint32_t pc = 0; pc < f->ncode; pc++) {
        uint32_t l = f->code_loc[pc];
        MLoc loc = l < f->nlocs ? f->locs[l] : (MLoc){0};
        if (loc.line == 0 && g->nlines) /* unknown: keep the file, line 0 */
            loc.file = g->lines[g->nlines - 1].file;
        XLine *last = g->nlines ? &g->lines[g->nlines - 1] : NULL;
        if (last && last->file == loc.file && last->line == loc.line)
            continue;
        if (g->nlines == *cap) {
            *cap = *cap ? 2 * *cap : 64;
            g->lines = realloc(g->lines, *cap * sizeof *g->lines);
            if (!g->lines) {
                fprintf(stderr, "xgpu-cc: out of memory\n");
                abort();
            }
        }
        g->lines[g->nlines++] = (XLine){.pc = start + pc, .file = loc.file, .line = loc.line};
    }
}

int mir_module_gpubin(MModule *m, XGpubin *out)
{
    memset(out, 0, sizeof *out);
    out->producer = "xgpu-cc";
    out->options = "";
    out->nkernels = m->nfuncs;
    out->kernels = mir_zalloc(m->nfuncs, sizeof *out->kernels);
    for (uint32_t i = 0; i < m->nfuncs; i++)
        out->ntext += m->funcs[i]->ncode;
    out->text = mir_zalloc(out->ntext, sizeof *out->text);
    uint32_t start = 0, cap = 0;
    for (uint32_t i = 0; i < m->nfuncs; i++) {
        const MFunc *f = m->funcs[i];
        fill_kernel(&out->kernels[i], f, start);
        if (f->ncode)
            memcpy(out->text + start, f->code, f->ncode * sizeof *f->code);
        if (m->nfiles)
            add_lines(out, f, start, &cap);
        start += f->ncode;
    }
    out->nglobals = m->nglobals;
    out->globals = mir_zalloc(m->nglobals, sizeof *out->globals);
    if (m->nglobals)
        memcpy(out->globals, m->globals, m->nglobals * sizeof *out->globals);
    out->nfiles = m->nfiles;
    out->files = mir_zalloc(m->nfiles, sizeof *out->files);
    for (uint32_t i = 0; i < m->nfiles; i++)
        out->files[i] = m->files[i];
    return 0;
}
