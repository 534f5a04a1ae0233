/*
 * cfg.c - the control-flow graph of a kernel.
 *
 * mir_cfg    requires: every block ends in a terminator; a brc's else block is in
 *                      succ[1] (the terminator has no field for it).
 *            guarantees: succ[]/nsucc match the terminators (brc: {target, else}; a brc
 *                      whose two successors are equal becomes a bra), preds[] list each
 *                      predecessor once, every block is reachable from block 0 (the
 *                      others are deleted and the survivors renumbered in branch
 *                      targets, succ[] and phi inputs), rpo is the reverse-postorder
 *                      number of a DFS that visits succ[0] before succ[1] (so a brc's
 *                      else block tends to follow it), loop_depth counts the natural
 *                      loops (one per header, from the DFS back edges) around a block.
 * mir_postdom requires: mir_cfg.
 *            guarantees: ipdom of every block, MIR_EXIT when only the virtual exit
 *                      post-dominates it. The virtual exit joins every exit/trap block;
 *                      blocks that cannot reach one (infinite loops) are joined to it
 *                      too, through the latest block in RPO of each such region, so every
 *                      block has an ipdom. Cooper-Harvey-Kennedy's iterative algorithm on
 *                      the reverse graph.
 */
#include "mir.h"

#include <stdlib.h>
#include <string.h>

#define NONE 0xffffffffu

/* ---- successors ---- */

static int set_succ(MFunc *f, uint32_t b)
{
    MBlock *bb = &f->blocks[b];
    MInsn *t = mir_terminator(f, b);
    if (!t)
        return mir_error(f, 0, "internal: block bb%u has no terminator", b);
    if (t->x.op == XOP_exit || t->x.op == XOP_trap) {
        bb->nsucc = 0;
        return 0;
    }
    if (t->x.target >= f->nblocks)
        return mir_error(f, t->loc, "internal: bb%u branches to missing bb%u", b, t->x.target);
    if (t->x.op == XOP_brc) {
        if (bb->succ[1] >= f->nblocks)
            return mir_error(f, t->loc, "internal: bb%u: brc without an else block", b);
        if (bb->succ[1] != t->x.target) {
            bb->succ[0] = t->x.target;
            bb->nsucc = 2;
            return 0;
        }
        /* both ways lead to the same block: an unconditional branch */
        uint32_t target = t->x.target, loc = t->loc;
        memset(t, 0, sizeof *t);
        t->x.op = XOP_bra;
        t->x.target = target;
        memset(t->x.dst, XREG_RZ, sizeof t->x.dst);
        memset(t->x.src, XREG_RZ, sizeof t->x.src);
        t->loc = loc;
    }
    bb->succ[0] = t->x.target;
    bb->nsucc = 1;
    return 0;
}

/* ---- depth-first search ---- */

/* Postorder of the blocks reachable from block 0 (succ[0] explored before succ[1]);
 * returns how many. post[] receives block numbers. */
static uint32_t dfs(MFunc *f, uint32_t *post)
{
    uint32_t nb = f->nblocks, npost = 0, sp = 0;
    uint8_t *state = mir_zalloc(nb, 1); /* 0 new, 1 on stack, 2 done */
    uint32_t *stack = mir_zalloc(nb, sizeof *stack), *next = mir_zalloc(nb, sizeof *next);
    stack[sp++] = 0;
    state[0] = 1;
    while (sp) {
        uint32_t b = stack[sp - 1];
        MBlock *bb = &f->blocks[b];
        if (next[b] < bb->nsucc) {
            uint32_t s = bb->succ[next[b]++];
            if (state[s] == 0) {
                state[s] = 1;
                stack[sp++] = s;
            }
            continue;
        }
        state[b] = 2;
        post[npost++] = b;
        sp--;
    }
    free(state);
    free(stack);
    free(next);
    return npost;
}

/* ---- unreachable blocks ---- */

static void free_block(MBlock *bb)
{
    for (uint32_t i = 0; i < bb->nphis; i++)
        free(bb->phis[i].in);
    free(bb->phis);
    free(bb->ins);
    free(bb->preds);
}

static void remap_block(MBlock *bb, const uint32_t *map)
{
    MInsn *t = bb->nins ? &bb->ins[bb->nins - 1] : NULL;
    if (t && (xisa_ops[t->x.op].flags & XI_BRANCH))
        t->x.target = map[t->x.target];
    for (uint32_t k = 0; k < bb->nsucc; k++)
        bb->succ[k] = map[bb->succ[k]];
    for (uint32_t p = 0; p < bb->nphis; p++) {
        MPhi *ph = &bb->phis[p];
        uint32_t n = 0;
        for (uint32_t j = 0; j < ph->nin; j++)
            if (map[ph->in[j].block] != NONE) {
                ph->in[n] = ph->in[j];
                ph->in[n++].block = map[ph->in[j].block];
            }
        ph->nin = n;
    }
}

static void drop_unreachable(MFunc *f, const uint32_t *post, uint32_t npost)
{
    uint32_t nb = f->nblocks;
    uint32_t *map = mir_zalloc(nb, sizeof *map);
    for (uint32_t b = 0; b < nb; b++)
        map[b] = NONE;
    for (uint32_t i = 0; i < npost; i++)
        map[post[i]] = 0;
    uint32_t n = 0;
    for (uint32_t b = 0; b < nb; b++) {
        if (map[b] == NONE) {
            free_block(&f->blocks[b]);
            continue;
        }
        map[b] = n;
        f->blocks[n++] = f->blocks[b];
    }
    f->nblocks = n;
    for (uint32_t b = 0; b < n; b++)
        remap_block(&f->blocks[b], map);
    free(map);
}

/* ---- predecessors, rpo, loops ---- */

static void set_preds(MFunc *f)
{
    uint32_t nb = f->nblocks;
    for (uint32_t b = 0; b < nb; b++)
        f->blocks[b].npreds = 0;
    for (uint32_t b = 0; b < nb; b++)
        for (uint32_t k = 0; k < f->blocks[b].nsucc; k++)
            f->blocks[f->blocks[b].succ[k]].npreds++;
    for (uint32_t b = 0; b < nb; b++) {
        free(f->blocks[b].preds);
        f->blocks[b].preds = mir_zalloc(f->blocks[b].npreds, sizeof(uint32_t));
        f->blocks[b].npreds = 0;
    }
    for (uint32_t b = 0; b < nb; b++) {
        MBlock *bb = &f->blocks[b];
        for (uint32_t k = 0; k < bb->nsucc; k++) {
            MBlock *s = &f->blocks[bb->succ[k]];
            if (s->npreds == 0 || s->preds[s->npreds - 1] != b)
                s->preds[s->npreds++] = b;
        }
    }
}

/* A DFS back edge p -> h is a retreating edge: rpo(h) <= rpo(p). */
static int is_back_edge(const MFunc *f, uint32_t p, uint32_t h)
{
    return f->blocks[h].rpo <= f->blocks[p].rpo;
}

/* Natural loop of header h: h plus every block that reaches a latch without h. */
static void mark_loop(MFunc *f, uint32_t h, uint32_t *mark, uint32_t *work)
{
    uint32_t n = 0;
    mark[h] = h;
    for (uint32_t i = 0; i < f->blocks[h].npreds; i++) {
        uint32_t p = f->blocks[h].preds[i];
        /* a latch: p -> h is a back edge when h's rpo is not after p's */
        if (is_back_edge(f, p, h) && mark[p] != h) {
            mark[p] = h;
            work[n++] = p;
        }
    }
    while (n) {
        uint32_t b = work[--n];
        f->blocks[b].loop_depth++;
        for (uint32_t i = 0; i < f->blocks[b].npreds; i++) {
            uint32_t p = f->blocks[b].preds[i];
            if (mark[p] != h) {
                mark[p] = h;
                work[n++] = p;
            }
        }
    }
    f->blocks[h].loop_depth++;
}

static void set_loops(MFunc *f)
{
    uint32_t nb = f->nblocks;
    uint8_t *header = mir_zalloc(nb, 1);
    uint32_t *mark = mir_zalloc(nb, sizeof *mark), *work = mir_zalloc(nb, sizeof *work);
    for (uint32_t b = 0; b < nb; b++) {
        f->blocks[b].loop_depth = 0;
        mark[b] = NONE;
        for (uint32_t k = 0; k < f->blocks[b].nsucc; k++)
            if (is_back_edge(f, b, f->blocks[b].succ[k]))
                header[f->blocks[b].succ[k]] = 1;
    }
    for (uint32_t h = 0; h < nb; h++)
        if (header[h])
            mark_loop(f, h, mark, work);
    free(header);
    free(mark);
    free(work);
}

int mir_cfg(MFunc *f)
{
    if (f->nblocks == 0)
        return mir_error(f, 0, "internal: kernel has no blocks");
    for (uint32_t b = 0; b < f->nblocks; b++)
        if (set_succ(f, b))
            return -1;
    uint32_t *post = mir_zalloc(f->nblocks, sizeof *post);
    uint32_t npost = dfs(f, post);
    if (npost < f->nblocks) {
        drop_unreachable(f, post, npost);
        npost = dfs(f, post);
    }
    for (uint32_t i = 0; i < npost; i++)
        f->blocks[post[i]].rpo = npost - 1 - i;
    set_preds(f);
    set_loops(f);
    free(post);
    return 0;
}

/* ---- post-dominators ---- */

typedef struct PdCtx {
    MFunc *f;
    uint32_t n;       /* blocks; node n is the virtual exit */
    uint8_t *toexit;  /* block has an edge to the virtual exit */
    uint32_t *po;     /* postorder number in the reverse graph */
    uint32_t *idom;
} PdCtx;

/* Marks every block that reaches the virtual exit (backward search). */
static void reach_exit(PdCtx *c, uint8_t *reach, uint32_t *work)
{
    uint32_t n = 0;
    memset(reach, 0, c->n);
    for (uint32_t b = 0; b < c->n; b++)
        if (c->toexit[b]) {
            reach[b] = 1;
            work[n++] = b;
        }
    while (n) {
        MBlock *bb = &c->f->blocks[work[--n]];
        for (uint32_t i = 0; i < bb->npreds; i++)
            if (!reach[bb->preds[i]]) {
                reach[bb->preds[i]] = 1;
                work[n++] = bb->preds[i];
            }
    }
}

/* Joins exit/trap blocks to the virtual exit, then one block (the latest in RPO) of
 * every region that cannot reach it, until all can. */
static void connect_exit(PdCtx *c)
{
    uint8_t *reach = mir_zalloc(c->n, 1);
    uint32_t *work = mir_zalloc(c->n, sizeof *work);
    for (uint32_t b = 0; b < c->n; b++)
        c->toexit[b] = c->f->blocks[b].nsucc == 0;
    for (;;) {
        reach_exit(c, reach, work);
        uint32_t pick = NONE;
        for (uint32_t b = 0; b < c->n; b++)
            if (!reach[b] && (pick == NONE || c->f->blocks[b].rpo > c->f->blocks[pick].rpo))
                pick = b;
        if (pick == NONE)
            break;
        c->toexit[pick] = 1;
    }
    free(reach);
    free(work);
}

/* Postorder of the reverse graph from the virtual exit; order[] gets the nodes. */
static uint32_t reverse_postorder(PdCtx *c, uint32_t *order)
{
    uint32_t total = c->n + 1, sp = 0, cnt = 0, ex = c->n;
    uint8_t *seen = mir_zalloc(total, 1);
    uint32_t *stack = mir_zalloc(total, sizeof *stack), *next = mir_zalloc(total, sizeof *next);
    stack[sp++] = ex;
    seen[ex] = 1;
    while (sp) {
        uint32_t v = stack[sp - 1], w = NONE;
        if (v == ex) {
            while (next[v] < c->n && w == NONE) {
                uint32_t b = next[v]++;
                if (c->toexit[b] && !seen[b])
                    w = b;
            }
        } else {
            MBlock *bb = &c->f->blocks[v];
            while (next[v] < bb->npreds && w == NONE) {
                uint32_t p = bb->preds[next[v]++];
                if (!seen[p])
                    w = p;
            }
        }
        if (w != NONE) {
            seen[w] = 1;
            stack[sp++] = w;
            continue;
        }
        c->po[v] = cnt;
        order[cnt++] = v;
        sp--;
    }
    free(seen);
    free(stack);
    free(next);
    return cnt;
}

static uint32_t intersect(const PdCtx *c, uint32_t a, uint32_t b)
{
    while (a != b) {
        while (c->po[a] < c->po[b])
            a = c->idom[a];
        while (c->po[b] < c->po[a])
            b = c->idom[b];
    }
    return a;
}

/* One CHK step for block b: meet of the processed successors (and the exit). */
static uint32_t meet_succs(const PdCtx *c, uint32_t b)
{
    const MBlock *bb = &c->f->blocks[b];
    uint32_t m = c->toexit[b] ? c->n : NONE;
    for (uint32_t k = 0; k < bb->nsucc; k++) {
        uint32_t s = bb->succ[k];
        if (c->idom[s] == NONE)
            continue;
        m = m == NONE ? s : intersect(c, m, s);
    }
    return m;
}

int mir_postdom(MFunc *f)
{
    PdCtx c = {.f = f, .n = f->nblocks};
    c.toexit = mir_zalloc(c.n, 1);
    c.po = mir_zalloc(c.n + 1, sizeof *c.po);
    c.idom = mir_zalloc(c.n + 1, sizeof *c.idom);
    uint32_t *order = mir_zalloc(c.n + 1, sizeof *order);
    connect_exit(&c);
    uint32_t cnt = reverse_postorder(&c, order);
    for (uint32_t v = 0; v <= c.n; v++)
        c.idom[v] = NONE;
    c.idom[c.n] = c.n;
    for (int changed = 1; changed;) {
        changed = 0;
        for (uint32_t i = cnt - 1; i-- > 0;) { /* reverse postorder, exit (last) skipped */
            uint32_t b = order[i], m = meet_succs(&c, b);
            if (m != NONE && c.idom[b] != m) {
                c.idom[b] = m;
                changed = 1;
            }
        }
    }
    int rc = 0;
    for (uint32_t b = 0; b < c.n; b++) {
        if (c.idom[b] == NONE)
            rc = mir_error(f, 0, "internal: bb%u has no post-dominator", b);
        f->blocks[b].ipdom = c.idom[b] == c.n || c.idom[b] == NONE ? MIR_EXIT : c.idom[b];
    }
    free(c.toexit);
    free(c.po);
    free(c.idom);
    free(order);
    return rc;
}
