/*
 * regalloc.c - linear-scan register allocation with register pairs and spilling.
 *
 * Requires: mir_cfg (succ, rpo), no phis (mir_outssa). Runs after mir_divergence.
 * Guarantees: every register operand x.dst/x.src holds a machine register (XREG_RZ for
 * MREG_RZ and unused slots); a wide vreg gets an even register r(2k) and occupies
 * r(2k):r(2k+1); no two vregs live at the same point share a register; MVreg.phys and
 * f->nregs (highest register used + 1) are set; moves from a register to itself are
 * deleted. Registers r0..r(max_regs-1) are used, never RZ.
 *
 * Positions. Blocks are laid out in RPO; instruction k reads its sources at 2k and
 * writes its results at 2k+1, so a result may take the register of a source that dies
 * there. A vreg's interval runs from its first to its last position in that order,
 * where being live into (out of) a block counts as a use at its first (last) position
 * - liveness comes from mir_live, so a value live around a back edge covers the whole
 * loop. Intervals have no holes.
 *
 * Allocation (Poletto-Sarkar linear scan). Intervals are taken by start; a narrow one
 * takes the lowest free register, a wide one the lowest free even pair; a move's
 * destination first tries its source's register (the move then disappears). When none
 * is free, the interval ending furthest away among the current one and the occupants
 * of the best candidate register/pair is spilled.
 *
 * Spilling. A spilled vreg lives in a local-memory slot after the function's own frame
 * (4 bytes, or 8 bytes 8-aligned for a wide one: both halves spill together). Each use
 * reads it with `ld.local` into a fresh temporary just before the instruction, each
 * definition writes a fresh temporary that `st.local` stores right after; then the
 * allocation starts over. Temporaries live for one instruction and are never spilled,
 * so each round spills at least one more original vreg and the process ends; if the
 * temporaries of one instruction alone do not fit in max_regs, that is reported.
 */
#include "mir.h"

#include <stdlib.h>
#include <string.h>

#define NOREG (-1)
#define MAX_ROUNDS 64

typedef struct Ival {
    MReg v;
    uint32_t start, end;
} Ival;

typedef struct RaCtx {
    MFunc *f;
    uint32_t maxr;
    uint32_t *order;     /* blocks in RPO */
    Ival *iv;            /* by vreg; start > end when the vreg does not occur */
    uint32_t *byStart;   /* vregs that occur, sorted by interval start */
    uint32_t nsorted;
    int32_t *reg;        /* by vreg: register, or NOREG */
    MReg *hint;          /* by vreg: a move source whose register it would like */
    uint8_t *spill;      /* by vreg: spilled this round */
    uint8_t *temp;       /* by vreg: spill temporary (never spilled) */
    uint32_t *tloc;      /* by vreg: location of a temporary's instruction */
    uint32_t *slot;      /* by vreg: local offset + 1 once it has a slot */
    uint32_t cap;        /* capacity of the per-vreg arrays */
    MReg occ[XREG_MAX];  /* register -> vreg occupying it, or MREG_NONE */
    int nspilled;
} RaCtx;

static void *xrealloc(void *p, size_t n)
{
    p = realloc(p, n ? n : 1);
    if (!p) {
        fprintf(stderr, "xgpu-cc: out of memory\n");
        abort();
    }
    return p;
}

/* Per-vreg arrays, grown when spilling adds temporaries. */
static void ctx_resize(RaCtx *c, uint32_t n)
{
    if (n <= c->cap)
        return;
    uint32_t old = c->cap;
    while (c->cap < n)
        c->cap = c->cap ? 2 * c->cap : 64;
    n = c->cap;
    c->iv = xrealloc(c->iv, n * sizeof *c->iv);
    c->byStart = xrealloc(c->byStart, n * sizeof *c->byStart);
    c->reg = xrealloc(c->reg, n * sizeof *c->reg);
    c->hint = xrealloc(c->hint, n * sizeof *c->hint);
    c->spill = xrealloc(c->spill, n);
    c->temp = xrealloc(c->temp, n);
    c->tloc = xrealloc(c->tloc, n * sizeof *c->tloc);
    c->slot = xrealloc(c->slot, n * sizeof *c->slot);
    for (uint32_t v = old; v < n; v++) {
        c->reg[v] = NOREG;
        c->hint[v] = MREG_NONE;
        c->spill[v] = 0;
        c->temp[v] = 0;
        c->tloc[v] = 0;
        c->slot[v] = 0;
    }
}

static void ctx_free(RaCtx *c)
{
    free(c->order);
    free(c->iv);
    free(c->byStart);
    free(c->reg);
    free(c->hint);
    free(c->spill);
    free(c->temp);
    free(c->tloc);
    free(c->slot);
}

/* ---- intervals ---- */

static void extend(RaCtx *c, MReg v, uint32_t pos)
{
    Ival *iv = &c->iv[v];
    if (pos < iv->start)
        iv->start = pos;
    if (pos > iv->end)
        iv->end = pos;
}

static void extend_set(RaCtx *c, const uint64_t *set, uint32_t words, uint32_t pos)
{
    for (uint32_t w = 0; w < words; w++)
        for (uint64_t bits = set[w]; bits; bits &= bits - 1)
            extend(c, (MReg)(w * 64 + (uint32_t)__builtin_ctzll(bits)), pos);
}

static void scan_insn(RaCtx *c, const MInsn *in, uint32_t k)
{
    for (unsigned s = 0, n = mir_nsrc(in); s < n; s++)
        if (mir_is_vreg(in->src[s]))
            extend(c, in->src[s], 2 * k);
    for (unsigned d = 0, n = mir_ndst(in); d < n; d++)
        if (mir_is_vreg(in->dst[d]))
            extend(c, in->dst[d], 2 * k + 1);
    if (in->x.op == XOP_mov && !(in->x.flags & XF_IMM) && mir_is_vreg(in->dst[0]) &&
        mir_is_vreg(in->src[0]) && c->f->vregs[in->dst[0]].wide == c->f->vregs[in->src[0]].wide)
        c->hint[in->dst[0]] = in->src[0];
}

static int starts_before(const Ival *iv, uint32_t x, uint32_t y)
{
    return iv[x].start != iv[y].start ? iv[x].start < iv[y].start : x < y;
}

/* Sorts c->byStart by interval start (bottom-up merge sort, stable). */
static void sort_by_start(RaCtx *c)
{
    uint32_t n = c->nsorted;
    uint32_t *tmp = mir_zalloc(n, sizeof *tmp), *a = c->byStart;
    for (uint32_t w = 1; w < n; w *= 2) {
        for (uint32_t lo = 0; lo < n; lo += 2 * w) {
            uint32_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
            uint32_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi)
                tmp[k++] = starts_before(c->iv, a[j], a[i]) ? a[j++] : a[i++];
            while (i < mid)
                tmp[k++] = a[i++];
            while (j < hi)
                tmp[k++] = a[j++];
        }
        memcpy(a, tmp, n * sizeof *a);
    }
    free(tmp);
}

static void build_intervals(RaCtx *c)
{
    MFunc *f = c->f;
    MLive lv;
    mir_live(f, &lv);
    for (MReg v = 0; v < f->nvregs; v++) {
        c->iv[v] = (Ival){.v = v, .start = UINT32_MAX, .end = 0};
        c->hint[v] = MREG_NONE;
    }
    uint32_t k = 0;
    for (uint32_t i = 0; i < f->nblocks; i++) {
        uint32_t b = c->order[i];
        MBlock *bb = &f->blocks[b];
        extend_set(c, mir_live_in(&lv, b), lv.words, 2 * k);
        for (uint32_t j = 0; j < bb->nins; j++, k++)
            scan_insn(c, &bb->ins[j], k);
        extend_set(c, mir_live_out(&lv, b), lv.words, 2 * k - 1);
    }
    mir_live_free(&lv);
    c->nsorted = 0;
    for (MReg v = 1; v < f->nvregs; v++)
        if (c->iv[v].start <= c->iv[v].end)
            c->byStart[c->nsorted++] = v;
    sort_by_start(c);
}

/* ---- the scan ---- */

static int width(const RaCtx *c, MReg v)
{
    return c->f->vregs[v].wide ? 2 : 1;
}

static void occupy(RaCtx *c, MReg v, int r)
{
    c->reg[v] = r;
    for (int i = 0; i < width(c, v); i++)
        c->occ[r + i] = v;
}

static void release(RaCtx *c, MReg v)
{
    for (int i = 0; i < width(c, v); i++)
        c->occ[c->reg[v] + i] = MREG_NONE;
}

static void expire(RaCtx *c, uint32_t pos)
{
    for (uint32_t r = 0; r < c->maxr; r++) {
        MReg o = c->occ[r];
        if (o != MREG_NONE && c->iv[o].end < pos)
            release(c, o);
    }
}

static int is_free(const RaCtx *c, int r, int w)
{
    for (int i = 0; i < w; i++)
        if ((uint32_t)(r + i) >= c->maxr || c->occ[r + i] != MREG_NONE)
            return 0;
    return 1;
}

static int find_free(const RaCtx *c, MReg v)
{
    int w = width(c, v);
    MReg h = c->hint[v];
    if (h != MREG_NONE && c->reg[h] != NOREG && is_free(c, c->reg[h], w))
        return c->reg[h];
    for (int r = 0; (uint32_t)r < c->maxr; r += w)
        if (is_free(c, r, w))
            return r;
    return NOREG;
}

/* How attractive evicting the occupants of [r, r+w) is: the earliest end among them
 * (later is better), or 0 when one is a temporary, which cannot be spilled. */
static uint32_t victim_end(const RaCtx *c, int r, int w)
{
    uint32_t end = UINT32_MAX;
    for (int i = 0; i < w; i++) {
        MReg o = c->occ[r + i];
        if (o == MREG_NONE)
            continue;
        if (c->temp[o])
            return 0;
        if (c->iv[o].end < end)
            end = c->iv[o].end;
    }
    return end;
}

/* Register (pair) whose occupants end furthest away; NOREG when every candidate holds
 * a temporary. *end receives that end. */
static int pick_victim(const RaCtx *c, int w, uint32_t *end)
{
    int best = NOREG;
    *end = 0;
    for (int r = 0; (uint32_t)(r + w) <= c->maxr; r += w) {
        uint32_t e = victim_end(c, r, w);
        if (e > *end) {
            *end = e;
            best = r;
        }
    }
    return best;
}

static void spill(RaCtx *c, MReg v)
{
    if (c->reg[v] != NOREG)
        release(c, v);
    c->reg[v] = NOREG;
    c->spill[v] = 1;
    c->nspilled++;
}

static int too_small(RaCtx *c, MReg v)
{
    return mir_error(c->f, c->tloc[v],
                     "--max-regs=%u is too small for the operands of one instruction "
                     "(a %d-bit value cannot be placed)",
                     c->maxr, width(c, v) * 32);
}

static int allocate_one(RaCtx *c, MReg v)
{
    int r = find_free(c, v);
    if (r != NOREG) {
        occupy(c, v, r);
        return 0;
    }
    int w = width(c, v);
    uint32_t end;
    r = pick_victim(c, w, &end);
    if (r == NOREG && c->temp[v])
        return too_small(c, v);
    if (r == NOREG || (!c->temp[v] && end <= c->iv[v].end)) {
        spill(c, v);
        return 0;
    }
    for (int i = 0; i < w; i++)
        if (c->occ[r + i] != MREG_NONE)
            spill(c, c->occ[r + i]);
    occupy(c, v, r);
    return 0;
}

static int scan(RaCtx *c)
{
    for (uint32_t r = 0; r < XREG_MAX; r++)
        c->occ[r] = MREG_NONE;
    for (MReg v = 0; v < c->f->nvregs; v++) {
        c->reg[v] = NOREG;
        c->spill[v] = 0;
    }
    c->nspilled = 0;
    for (uint32_t i = 0; i < c->nsorted; i++) {
        MReg v = c->byStart[i];
        expire(c, c->iv[v].start);
        if (allocate_one(c, v))
            return -1;
    }
    return 0;
}

/* ---- spill code ---- */

static uint32_t slot_of(RaCtx *c, MReg v)
{
    if (!c->slot[v]) {
        uint32_t size = c->f->vregs[v].wide ? 8 : 4;
        uint32_t off = (c->f->local_bytes + size - 1) & ~(size - 1);
        c->f->local_bytes = off + size;
        c->slot[v] = off + 1;
    }
    return c->slot[v] - 1;
}

static MReg new_temp(RaCtx *c, MReg like, uint32_t loc)
{
    MFunc *f = c->f;
    MReg t = mir_vreg_new(f, f->vregs[like].wide);
    f->vregs[t].divergent = f->vregs[like].divergent;
    ctx_resize(c, f->nvregs);
    c->temp[t] = 1;
    c->tloc[t] = loc;
    return t;
}

static MInsn *spill_access(RaCtx *c, uint32_t b, uint32_t pos, XOp op, MReg v)
{
    MInsn *m = mir_insert(c->f, b, pos, op, c->f->vregs[v].wide ? XT_U64 : XT_U32);
    m->x.mod = XS_LOCAL;
    m->x.imm = slot_of(c, v);
    if (op == XOP_ld)
        m->src[0] = MREG_RZ;
    else {
        m->src[0] = MREG_RZ;
        m->src[1] = MREG_NONE;
    }
    return m;
}

/* Reloads before and stores after instruction *j of block b; advances *j past it and
 * the stores. */
static void rewrite_insn(RaCtx *c, uint32_t b, uint32_t *j)
{
    uint32_t nst = 0;
    MInsn *in = &c->f->blocks[b].ins[*j];
    uint32_t loc = in->loc;
    for (unsigned s = 0, n = mir_nsrc(in); s < n; s++) {
        MReg v = in->src[s];
        if (!mir_is_vreg(v) || !c->spill[v])
            continue;
        MReg t = new_temp(c, v, loc);
        for (unsigned s2 = s; s2 < n; s2++)
            if (in->src[s2] == v)
                in->src[s2] = t;
        MInsn *ld = spill_access(c, b, (*j)++, XOP_ld, v);
        ld->dst[0] = t;
        ld->loc = loc;
        in = &c->f->blocks[b].ins[*j];
    }
    for (unsigned d = 0, n = mir_ndst(in); d < n; d++) {
        MReg v = in->dst[d];
        if (!mir_is_vreg(v) || !c->spill[v])
            continue;
        MReg t = new_temp(c, v, loc);
        in->dst[d] = t;
        MInsn *st = spill_access(c, b, *j + 1, XOP_st, v);
        st->src[1] = t;
        st->loc = loc;
        in = &c->f->blocks[b].ins[*j];
        nst++;
    }
    *j += 1 + nst;
}

static void insert_spill_code(RaCtx *c)
{
    MFunc *f = c->f;
    for (uint32_t b = 0; b < f->nblocks; b++) {
        uint32_t j = 0;
        while (j < f->blocks[b].nins)
            rewrite_insn(c, b, &j);
    }
}

/* ---- final rewrite ---- */

static uint8_t phys_of(const RaCtx *c, MReg v)
{
    return mir_is_vreg(v) ? (uint8_t)c->reg[v] : XREG_RZ;
}

static void assign_insn(const RaCtx *c, MInsn *in)
{
    for (unsigned s = 0; s < 6; s++)
        in->x.src[s] = s < mir_nsrc(in) ? phys_of(c, in->src[s]) : XREG_RZ;
    for (unsigned d = 0; d < 2; d++)
        in->x.dst[d] = d < mir_ndst(in) ? phys_of(c, in->dst[d]) : XREG_RZ;
}

static int is_self_move(const MInsn *in)
{
    return in->x.op == XOP_mov && !(in->x.flags & XF_IMM) && in->x.dst[0] == in->x.src[0] &&
           in->x.dst[0] != XREG_RZ;
}

static void assign(RaCtx *c)
{
    MFunc *f = c->f;
    uint32_t nregs = 0;
    for (MReg v = 1; v < f->nvregs; v++) {
        if (c->reg[v] != NOREG) {
            f->vregs[v].phys = (uint16_t)c->reg[v];
            uint32_t top = (uint32_t)c->reg[v] + (uint32_t)width(c, v);
            nregs = top > nregs ? top : nregs;
        }
    }
    for (uint32_t b = 0; b < f->nblocks; b++) {
        MBlock *bb = &f->blocks[b];
        uint32_t n = 0;
        for (uint32_t j = 0; j < bb->nins; j++) {
            assign_insn(c, &bb->ins[j]);
            if (!is_self_move(&bb->ins[j]))
                bb->ins[n++] = bb->ins[j];
        }
        bb->nins = n;
    }
    f->nregs = nregs;
}

/* Blocks in RPO (rpo numbers are a permutation of 0..nblocks-1 after mir_cfg). */
static int layout(RaCtx *c)
{
    MFunc *f = c->f;
    c->order = mir_zalloc(f->nblocks, sizeof *c->order);
    uint8_t *seen = mir_zalloc(f->nblocks, 1);
    int rc = 0;
    for (uint32_t b = 0; b < f->nblocks && rc == 0; b++) {
        uint32_t r = f->blocks[b].rpo;
        if (r >= f->nblocks || seen[r])
            rc = mir_error(f, 0, "internal: stale block order (run mir_cfg first)");
        else if (f->blocks[b].nphis)
            rc = mir_error(f, 0, "internal: phis left for register allocation");
        else {
            seen[r] = 1;
            c->order[r] = b;
        }
    }
    free(seen);
    return rc;
}

int mir_regalloc(MFunc *f, const MRegallocOptions *o)
{
    RaCtx c = {.f = f};
    c.maxr = o && o->max_regs && o->max_regs < XREG_MAX ? o->max_regs : XREG_MAX;
    ctx_resize(&c, f->nvregs);
    int rc = layout(&c);
    for (int round = 0; rc == 0; round++) {
        build_intervals(&c);
        if (scan(&c)) {
            rc = -1;
            break;
        }
        if (c.nspilled == 0) {
            assign(&c);
            break;
        }
        if (round == MAX_ROUNDS) {
            rc = mir_error(f, 0, "internal: register allocation did not converge");
            break;
        }
        insert_spill_code(&c);
    }
    ctx_free(&c);
    return rc;
}
