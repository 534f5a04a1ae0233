/*
 * divergence.c - which values may differ between the lanes of a warp, and which
 * conditional branches therefore never split one.
 *
 * Requires: mir_cfg and mir_postdom (succ, preds, ipdom). Runs after mir_outssa (phis,
 * if any remain, are handled conservatively too).
 * Guarantees: MVreg.divergent is set for every vreg that may differ across the active
 * lanes; every brc whose condition is not divergent carries XF_UNIFORM, the others not.
 *
 * A value is divergent when
 *  - data: it is read from s2r tid.* / laneid / clock / clock64, loaded by any `ld` but
 *    ld.param (even a uniform address in local or generic memory reads per-thread
 *    data), the old value of an atom/atomcas, a shfl result, an hmma result (each lane
 *    holds other elements of the product), or vprintf's count, used before being
 *    defined (live into the entry block: its register holds whatever each lane had),
 *    or computed from a divergent value;
 *  - sync: it is defined inside the region of a divergent brc (the blocks reachable
 *    from the branch before its immediate post-dominator, where the lanes run in
 *    separate groups) and is live into that post-dominator, where the groups meet
 *    again with possibly different values (also the loop-exit case: lanes leaving a
 *    loop in different iterations). Phi results in blocks entered from such a region
 *    count as well.
 * Both rules are iterated to a fixed point, since a newly divergent value can make
 * another branch divergent. Values used only inside a region stay uniform: each group
 * executes the region on its own, so they are uniform among the lanes that run them.
 * The analysis is conservative: when in doubt a value is divergent, which only costs
 * speed, while a wrong XF_UNIFORM would break a program.
 */
#include "mir.h"

#include <stdlib.h>
#include <string.h>

typedef struct DivCtx {
    MFunc *f;
    MLive live;
    uint8_t *done;     /* block whose divergent brc has had its region marked */
    uint8_t *inregion; /* scratch: block is in the current region */
    uint32_t *work;    /* scratch worklist */
    int changed;
} DivCtx;

static void mark(DivCtx *c, MReg r)
{
    if (mir_is_vreg(r) && r < c->f->nvregs && !c->f->vregs[r].divergent) {
        c->f->vregs[r].divergent = 1;
        c->changed = 1;
    }
}

static int is_div(const MFunc *f, MReg r)
{
    return mir_is_vreg(r) && r < f->nvregs && f->vregs[r].divergent;
}

/* Does the instruction produce a different value per lane whatever its inputs? */
static int is_source(const MInsn *in)
{
    if (in->x.op == XOP_ld)
        return in->x.mod != XS_PARAM;
    if (in->x.op == XOP_atom || in->x.op == XOP_atomcas || in->x.op == XOP_shfl ||
        in->x.op == XOP_vprintf || in->x.op == XOP_hmma)
        return 1; /* each lane gets its own old value / another lane's value / elements */
    if (in->x.op == XOP_s2r)
        switch (in->x.mod) {
        case XSR_TID_X: case XSR_TID_Y: case XSR_TID_Z:
        case XSR_LANEID: case XSR_CLOCK: case XSR_CLOCK64:
            return 1;
        default:
            return 0;
        }
    return 0;
}

/* ---- data dependence ---- */

static void propagate_insn(DivCtx *c, const MInsn *in)
{
    int div = is_source(in);
    for (unsigned s = 0, n = mir_nsrc(in); s < n && !div; s++)
        div = is_div(c->f, in->src[s]);
    if (div)
        for (unsigned d = 0, n = mir_ndst(in); d < n; d++)
            mark(c, in->dst[d]);
}

static void propagate(DivCtx *c)
{
    MFunc *f = c->f;
    for (uint32_t b = 0; b < f->nblocks; b++) {
        MBlock *bb = &f->blocks[b];
        for (uint32_t p = 0; p < bb->nphis; p++)
            for (uint32_t j = 0; j < bb->phis[p].nin; j++)
                if (is_div(f, bb->phis[p].in[j].reg))
                    mark(c, bb->phis[p].dst);
        for (uint32_t i = 0; i < bb->nins; i++)
            propagate_insn(c, &bb->ins[i]);
    }
}

/* ---- sync dependence ---- */

/* Blocks reachable from b's successors without passing through ipdom(b). */
static void find_region(DivCtx *c, uint32_t b)
{
    MFunc *f = c->f;
    uint32_t stop = f->blocks[b].ipdom, n = 0;
    memset(c->inregion, 0, f->nblocks);
    for (uint32_t k = 0; k < f->blocks[b].nsucc; k++) {
        uint32_t s = f->blocks[b].succ[k];
        if (s != stop && !c->inregion[s]) {
            c->inregion[s] = 1;
            c->work[n++] = s;
        }
    }
    while (n) {
        MBlock *bb = &f->blocks[c->work[--n]];
        for (uint32_t k = 0; k < bb->nsucc; k++) {
            uint32_t s = bb->succ[k];
            if (s != stop && !c->inregion[s]) {
                c->inregion[s] = 1;
                c->work[n++] = s;
            }
        }
    }
}

/* Marks what the region of divergent branch block b lets escape. */
static void mark_region(DivCtx *c, uint32_t b)
{
    MFunc *f = c->f;
    uint32_t stop = f->blocks[b].ipdom;
    find_region(c, b);
    const uint64_t *live = stop == MIR_EXIT ? NULL : mir_live_in(&c->live, stop);
    for (uint32_t r = 0; r < f->nblocks; r++) {
        if (!c->inregion[r])
            continue;
        MBlock *rb = &f->blocks[r];
        for (uint32_t i = 0; live && i < rb->nins; i++)
            for (unsigned d = 0, n = mir_ndst(&rb->ins[i]); d < n; d++)
                if (mir_is_vreg(rb->ins[i].dst[d]) && mir_live_has(live, rb->ins[i].dst[d]))
                    mark(c, rb->ins[i].dst[d]);
        for (uint32_t k = 0; k < rb->nsucc; k++) /* phis where region paths join */
            for (uint32_t p = 0; p < f->blocks[rb->succ[k]].nphis; p++)
                mark(c, f->blocks[rb->succ[k]].phis[p].dst);
        for (uint32_t p = 0; live && p < rb->nphis; p++)
            if (mir_live_has(live, rb->phis[p].dst))
                mark(c, rb->phis[p].dst);
    }
}

static void sync_dependence(DivCtx *c)
{
    MFunc *f = c->f;
    for (uint32_t b = 0; b < f->nblocks; b++) {
        MInsn *t = mir_terminator(f, b);
        if (c->done[b] || !t || t->x.op != XOP_brc || !is_div(f, t->src[0]))
            continue;
        c->done[b] = 1;
        mark_region(c, b);
    }
}

static void set_branch_flags(MFunc *f)
{
    for (uint32_t b = 0; b < f->nblocks; b++) {
        MInsn *t = mir_terminator(f, b);
        if (!t || t->x.op != XOP_brc)
            continue;
        if (is_div(f, t->src[0]))
            t->x.flags &= (uint8_t)~XF_UNIFORM;
        else
            t->x.flags |= XF_UNIFORM;
    }
}

int mir_divergence(MFunc *f)
{
    DivCtx c = {.f = f};
    mir_live(f, &c.live);
    c.done = mir_zalloc(f->nblocks, 1);
    c.inregion = mir_zalloc(f->nblocks, 1);
    c.work = mir_zalloc(f->nblocks, sizeof *c.work);
    for (MReg r = 1; r < f->nvregs; r++) /* used before defined: per-lane garbage */
        f->vregs[r].divergent = f->nblocks && mir_live_has(mir_live_in(&c.live, 0), r);
    do {
        c.changed = 0;
        propagate(&c);
        sync_dependence(&c);
    } while (c.changed);
    set_branch_flags(f);
    mir_live_free(&c.live);
    free(c.done);
    free(c.inregion);
    free(c.work);
    return 0;
}
