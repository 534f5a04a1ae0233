/*
 * outssa.c - leaving SSA form: phis become register copies.
 *
 * Requires: mir_cfg (succ, preds); every phi has one input per predecessor.
 * Guarantees: no block has phis. For each phi block S and predecessor P, the copies
 * "phi.dst <- input from P" run at the end of P, before its terminator, as one parallel
 * copy. Invalidates: preds/rpo/loop depth (new blocks): run mir_cfg again.
 *
 * Two classic traps:
 *  - lost copy: a copy at the end of a P with two successors would also run on the
 *    other edge. Every edge P -> S with P ending in brc and S having phis (a critical
 *    edge, since S has more than one predecessor or is P itself) is therefore split by a
 *    new block holding only `bra S`. Edges into blocks without phis are left alone.
 *  - swap: the copies of one edge read their sources before any of them writes, so
 *    phis that permute each other must not be sequenced naively. seq_copies emits a
 *    copy only when no pending copy still reads its destination; when only cycles are
 *    left it saves one destination in a fresh vreg and redirects its readers.
 * Copies are `mov.u32` or `mov.u64` by the destination vreg's width.
 */
#include "mir.h"

#include <stdlib.h>
#include <string.h>

typedef struct Copy {
    MReg dst, src;
} Copy;

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "xgpu-cc: out of memory\n");
        abort();
    }
    return p;
}

/* ---- critical edges ---- */

/* Splits edge p -> s with a block holding `bra s`; returns the new block. */
static uint32_t split_edge(MFunc *f, uint32_t p, uint32_t s)
{
    uint32_t n = mir_block_new(f); /* may move f->blocks */
    MInsn *t = mir_terminator(f, p);
    uint32_t loc = t ? t->loc : 0;
    MInsn *br = mir_append(f, n, XOP_bra, XT_NONE);
    br->x.target = s;
    br->loc = loc;
    MBlock *nb = &f->blocks[n], *pb = &f->blocks[p], *sb = &f->blocks[s];
    nb->succ[0] = s;
    nb->nsucc = 1;
    nb->preds = xmalloc(sizeof *nb->preds);
    nb->preds[0] = p;
    nb->npreds = 1;
    if (t->x.target == s)
        t->x.target = n;
    else
        pb->succ[1] = n;
    for (uint32_t k = 0; k < pb->nsucc; k++)
        if (pb->succ[k] == s)
            pb->succ[k] = n;
    for (uint32_t i = 0; i < sb->npreds; i++)
        if (sb->preds[i] == p)
            sb->preds[i] = n;
    for (uint32_t i = 0; i < sb->nphis; i++)
        for (uint32_t j = 0; j < sb->phis[i].nin; j++)
            if (sb->phis[i].in[j].block == p)
                sb->phis[i].in[j].block = n;
    return n;
}

static void split_critical_edges(MFunc *f)
{
    uint32_t nb = f->nblocks; /* new blocks have no phis */
    for (uint32_t s = 0; s < nb; s++) {
        if (f->blocks[s].nphis == 0)
            continue;
        for (uint32_t i = 0; i < f->blocks[s].npreds; i++) {
            uint32_t p = f->blocks[s].preds[i];
            if (f->blocks[p].nsucc > 1)
                split_edge(f, p, s);
        }
    }
}

/* ---- sequencing a parallel copy ---- */

static void emit_mov(MFunc *f, uint32_t b, MReg dst, MReg src, uint32_t loc)
{
    MBlock *bb = &f->blocks[b];
    uint32_t pos = mir_terminator(f, b) ? bb->nins - 1 : bb->nins;
    MInsn *in = mir_insert(f, b, pos, XOP_mov, f->vregs[dst].wide ? XT_U64 : XT_U32);
    in->dst[0] = dst;
    in->src[0] = src;
    in->loc = loc;
}

static int is_read(const Copy *c, uint32_t n, MReg r)
{
    for (uint32_t i = 0; i < n; i++)
        if (c[i].src == r)
            return 1;
    return 0;
}

/* Emits the parallel copy c[0..n) at the end of block b as a sequence of movs. */
static void seq_copies(MFunc *f, uint32_t b, Copy *c, uint32_t n, uint32_t loc)
{
    uint32_t m = 0;
    for (uint32_t i = 0; i < n; i++) /* self-copies and undefined inputs do nothing */
        if (c[i].dst != c[i].src && c[i].src != MREG_NONE && c[i].dst != MREG_NONE)
            c[m++] = c[i];
    n = m;
    while (n > 0) {
        uint32_t i = 0;
        while (i < n && is_read(c, n, c[i].dst))
            i++;
        if (i == n) { /* only cycles left: free c[0].dst by saving its value */
            MReg t = mir_vreg_new(f, f->vregs[c[0].dst].wide);
            emit_mov(f, b, t, c[0].dst, loc);
            for (uint32_t j = 0; j < n; j++)
                if (c[j].src == c[0].dst)
                    c[j].src = t;
            i = 0;
        }
        emit_mov(f, b, c[i].dst, c[i].src, loc);
        c[i] = c[--n];
    }
}

/* The copies of all phis of block s along the edge from p. */
static int copies_from(MFunc *f, uint32_t s, uint32_t p, Copy *c)
{
    MBlock *sb = &f->blocks[s];
    for (uint32_t i = 0; i < sb->nphis; i++) {
        MPhi *ph = &sb->phis[i];
        uint32_t j = 0;
        while (j < ph->nin && ph->in[j].block != p)
            j++;
        if (j == ph->nin)
            return mir_error(f, 0, "internal: phi %%%u in bb%u has no input from bb%u",
                             ph->dst, s, p);
        c[i].dst = ph->dst;
        c[i].src = ph->in[j].reg;
    }
    return 0;
}

static int lower_phis(MFunc *f, uint32_t s)
{
    uint32_t np = f->blocks[s].nphis;
    Copy *c = xmalloc(np * sizeof *c);
    int rc = 0;
    for (uint32_t i = 0; i < f->blocks[s].npreds && rc == 0; i++) {
        uint32_t p = f->blocks[s].preds[i];
        MInsn *t = mir_terminator(f, p);
        rc = copies_from(f, s, p, c);
        if (rc == 0)
            seq_copies(f, p, c, np, t ? t->loc : 0);
    }
    free(c);
    MBlock *sb = &f->blocks[s];
    for (uint32_t i = 0; i < sb->nphis; i++)
        free(sb->phis[i].in);
    sb->nphis = 0;
    return rc;
}

int mir_outssa(MFunc *f)
{
    split_critical_edges(f);
    for (uint32_t s = 0; s < f->nblocks; s++)
        if (f->blocks[s].nphis && lower_phis(f, s))
            return -1;
    return 0;
}
