/*
 * phases.c - Zorua phase specifiers (docs/hints.md): where a kernel's
 * demand for registers or shared memory changes enough that the hardware coordinator
 * should hear about it, and how much the code after each such point needs.
 *
 * Two passes. mir_shared_refs runs on the MIR before register allocation, while
 * values are still virtual registers: isel tags the value that holds a __shared__
 * variable's address (MVreg.svar); the tags flow through every non-memory instruction
 * (address arithmetic, copies, cvta, selects) to a fixed point, and every memory access
 * in the shared or generic space gets in MInsn.shared the variables its address may
 * come from (an access with no base register names its variable by its constant
 * offset). A tagged value stored to memory lets the address escape: that variable
 * counts as live everywhere. With more than 64 variables (one bit each) all of them do.
 * mir_emit carries MInsn.shared to f->code_shared.
 *
 * mir_phases runs on the emitted code, with physical registers, and computes per pc:
 *  - R(pc): registers live into pc or written by it (a 64-bit pair counts 2);
 *  - S(pc): bytes of the static __shared__ variables live at pc, a variable being live
 *    from a reference to it to any later reference along the control flow (reached
 *    from one and reaching one; a reference inside a loop keeps the variable live in
 *    the whole loop). A live dynamic `extern __shared__` array, whose size only the
 *    launch knows, adds no bytes but sets XPHASE_DYNAMIC;
 *  - whether pc is uniform: not inside the region of a divergent brc (the pcs reached
 *    from the branch before its reconvergence pc).
 * Boundaries, walking the pcs in order: pc 0 opens the first phase (XPHASE_ENTRY); a
 * barrier (bar, barred) or fence (membar) always opens one (XPHASE_BARRIER); any other
 * uniform pc at least `gap` instructions after the previous boundary opens one when R or
 * S differs from its value at that boundary by `delta` percent of it or more (any
 * change from zero counts). A record then carries the largest R and S over the pcs its
 * boundary reaches before reaching another boundary, which bounds what a warp needs
 * whichever way it goes until the next specifier.
 *
 * mir_shared_refs requires: isel's MVreg.svar and f->svars (lower_shared_layout), vregs
 * in MInsn.src/dst (before regalloc). Guarantees: MInsn.shared on every instruction,
 * f->shared_escaped. Changes no code.
 * mir_phases requires: mir_emit (f->code with pcs and reconvergence pcs, XF_UNIFORM on
 * uniform brc, f->code_shared). Guarantees: f->phases sorted by pc, one at pc 0, each
 * within f->nregs and f->shared_bytes. Changes no code.
 */
#include "mir.h"

#include <stdlib.h>
#include <string.h>

/* ---- shared references (MIR) ---- */

/* Bits of the variables whose address region contains shared offset off. */
static uint64_t vars_at(const MFunc *f, int64_t off)
{
    uint64_t m = 0, dyn = 0;
    for (uint32_t i = 0; i < f->nsvars && i < 64; i++) {
        const MShared *v = &f->svars[i];
        if (v->dynamic)
            dyn |= 1ull << i;
        else if (off >= v->off && off < (int64_t)v->off + v->size)
            m |= 1ull << i;
    }
    return m ? m : dyn;
}

static int is_shared_mem(const MInsn *in)
{
    return (xisa_ops[in->x.op].flags & XI_MEM) &&
           (in->x.mod == XS_SHARED || in->x.mod == XS_GENERIC);
}

/* One round over the MIR: dst tags from src tags; returns whether anything changed. */
static int flow_round(MFunc *f, uint64_t *tag)
{
    int changed = 0;
    for (uint32_t b = 0; b < f->nblocks; b++) {
        MBlock *bb = &f->blocks[b];
        for (uint32_t p = 0; p < bb->nphis; p++)
            for (uint32_t j = 0; j < bb->phis[p].nin; j++) {
                uint64_t old = tag[bb->phis[p].dst];
                tag[bb->phis[p].dst] |= tag[bb->phis[p].in[j].reg];
                changed |= old != tag[bb->phis[p].dst];
            }
        for (uint32_t j = 0; j < bb->nins; j++) {
            const MInsn *in = &bb->ins[j];
            if (xisa_ops[in->x.op].flags & XI_MEM)
                continue; /* a loaded value is data, not the address it came from */
            uint64_t m = 0;
            for (unsigned s = 0, n = mir_nsrc(in); s < n; s++)
                if (mir_is_vreg(in->src[s]))
                    m |= tag[in->src[s]];
            for (unsigned d = 0, n = mir_ndst(in); d < n; d++)
                if (mir_is_vreg(in->dst[d]) && (tag[in->dst[d]] | m) != tag[in->dst[d]]) {
                    tag[in->dst[d]] |= m;
                    changed = 1;
                }
        }
    }
    return changed;
}

/* MInsn.shared of a memory access, and the escapes of the addresses it stores. */
static void mark_access(MFunc *f, MInsn *in, const uint64_t *tag)
{
    for (unsigned s = 1, n = mir_nsrc(in); s < n; s++)
        if (mir_is_vreg(in->src[s]))
            f->shared_escaped |= tag[in->src[s]];
    if (!is_shared_mem(in))
        return;
    if (mir_is_vreg(in->src[0]))
        in->shared = tag[in->src[0]];
    else if (in->x.mod == XS_SHARED)
        in->shared = vars_at(f, in->x.imm);
}

int mir_shared_refs(MFunc *f)
{
    uint64_t *tag = mir_zalloc(f->nvregs, sizeof *tag);
    for (MReg v = 1; v < f->nvregs; v++)
        if (f->vregs[v].svar && f->vregs[v].svar <= f->nsvars)
            tag[v] = 1ull << (f->vregs[v].svar - 1);
    while (flow_round(f, tag))
        ;
    f->shared_escaped = 0;
    for (uint32_t b = 0; b < f->nblocks; b++)
        for (uint32_t j = 0; j < f->blocks[b].nins; j++) {
            MInsn *in = &f->blocks[b].ins[j];
            in->shared = 0;
            if (xisa_ops[in->x.op].flags & XI_MEM)
                mark_access(f, in, tag);
        }
    if (f->nsvars > 64)
        f->shared_escaped = ~0ull;
    free(tag);
    return 0;
}

/* ---- the emitted code ---- */

enum { RWORDS = 4 }; /* 256 registers */

typedef struct PhCtx {
    const MFunc *f;
    const MPhaseOptions *o;
    uint32_t n;
    uint32_t (*succ)[2]; /* successors per pc */
    uint8_t *nsucc;
    uint32_t *regs;      /* R(pc) */
    uint64_t *live_sh;   /* variables live at pc */
    uint8_t *divergent;  /* pc inside a divergent region */
    uint8_t *boundary;   /* pc starts a phase */
    uint32_t *stack;     /* scratch, n entries */
    uint8_t *seen;       /* scratch */
} PhCtx;

static void find_succs(PhCtx *c)
{
    for (uint32_t pc = 0; pc < c->n; pc++) {
        const XInsn *in = &c->f->code[pc];
        unsigned fl = xisa_ops[in->op].flags, k = 0;
        if (!(fl & XI_EXIT)) {
            if ((fl & XI_BRANCH) && in->target < c->n)
                c->succ[pc][k++] = in->target;
            if ((!(fl & XI_BRANCH) || (fl & XI_COND)) && pc + 1 < c->n &&
                (k == 0 || c->succ[pc][0] != pc + 1))
                c->succ[pc][k++] = pc + 1;
        }
        c->nsucc[pc] = (uint8_t)k;
    }
}

/* Registers an operand side of in covers, added to set. */
static void add_regs(const XInsn *in, int dst, uint64_t *set)
{
    for (unsigned i = 0; i < (dst ? 2u : 6u); i++) {
        unsigned w = xisa_operand_regs(in, dst, i), r = dst ? in->dst[i] : in->src[i];
        for (unsigned k = 0; r != XREG_RZ && k < w && r + k < 64 * RWORDS; k++)
            set[(r + k) >> 6] |= 1ull << ((r + k) & 63);
    }
}

static uint32_t popcount_set(const uint64_t *set)
{
    uint32_t n = 0;
    for (int w = 0; w < RWORDS; w++)
        n += (uint32_t)__builtin_popcountll(set[w]);
    return n;
}

/* Backward register liveness to a fixed point, then R(pc) = |live-in ∪ defs|. */
static void register_demand(PhCtx *c)
{
    uint64_t *in = mir_zalloc((size_t)c->n * RWORDS, sizeof *in);
    for (int changed = 1; changed;) {
        changed = 0;
        for (uint32_t pc = c->n; pc-- > 0;) {
            uint64_t out[RWORDS] = {0}, def[RWORDS] = {0}, use[RWORDS] = {0};
            for (unsigned s = 0; s < c->nsucc[pc]; s++)
                for (int w = 0; w < RWORDS; w++)
                    out[w] |= in[(size_t)c->succ[pc][s] * RWORDS + w];
            add_regs(&c->f->code[pc], 1, def);
            add_regs(&c->f->code[pc], 0, use);
            for (int w = 0; w < RWORDS; w++) {
                uint64_t v = use[w] | (out[w] & ~def[w]);
                changed |= v != in[(size_t)pc * RWORDS + w];
                in[(size_t)pc * RWORDS + w] = v;
            }
        }
    }
    for (uint32_t pc = 0; pc < c->n; pc++) {
        uint64_t set[RWORDS];
        memcpy(set, &in[(size_t)pc * RWORDS], sizeof set);
        add_regs(&c->f->code[pc], 1, set);
        c->regs[pc] = popcount_set(set);
    }
    free(in);
}

/* Variables live at pc: referenced there, or both reached from and reaching a reference. */
static void shared_demand(PhCtx *c)
{
    const uint64_t *ref = c->f->code_shared;
    uint64_t *after = mir_zalloc(c->n, sizeof *after), *before = mir_zalloc(c->n, sizeof *before);
    for (int changed = 1; changed;) {
        changed = 0;
        for (uint32_t pc = 0; pc < c->n; pc++)
            for (unsigned s = 0; s < c->nsucc[pc]; s++) {
                uint32_t t = c->succ[pc][s];
                uint64_t v = after[t] | after[pc] | ref[pc];
                changed |= v != after[t];
                after[t] = v;
            }
        for (uint32_t pc = c->n; pc-- > 0;) {
            uint64_t v = ref[pc];
            for (unsigned s = 0; s < c->nsucc[pc]; s++)
                v |= before[c->succ[pc][s]];
            changed |= v != before[pc];
            before[pc] = v;
        }
    }
    for (uint32_t pc = 0; pc < c->n; pc++)
        c->live_sh[pc] = ref[pc] | (after[pc] & before[pc]) | c->f->shared_escaped;
    free(after);
    free(before);
}

static uint32_t shared_bytes(const MFunc *f, uint64_t m)
{
    if (f->nsvars > 64)
        return f->shared_bytes;
    uint64_t n = 0;
    for (uint32_t i = 0; i < f->nsvars; i++)
        if (m >> i & 1)
            n += f->svars[i].size;
    return n > f->shared_bytes ? f->shared_bytes : (uint32_t)n;
}

static uint64_t dynamic_vars(const MFunc *f)
{
    uint64_t m = 0;
    for (uint32_t i = 0; i < f->nsvars && i < 64; i++)
        if (f->svars[i].dynamic)
            m |= 1ull << i;
    return f->nsvars > 64 ? ~0ull : m;
}

/* Marks the pcs reached from branch pc b before its reconvergence pc. */
static void mark_region(PhCtx *c, uint32_t b)
{
    uint32_t reconv = c->f->code[b].reconv, top = 0;
    memset(c->seen, 0, c->n);
    for (unsigned s = 0; s < c->nsucc[b]; s++)
        if (c->succ[b][s] != reconv && !c->seen[c->succ[b][s]])
            c->seen[c->succ[b][s]] = 1, c->stack[top++] = c->succ[b][s];
    while (top) {
        uint32_t pc = c->stack[--top];
        c->divergent[pc] = 1;
        for (unsigned s = 0; s < c->nsucc[pc]; s++) {
            uint32_t t = c->succ[pc][s];
            if (t != reconv && !c->seen[t])
                c->seen[t] = 1, c->stack[top++] = t;
        }
    }
}

static int changed_by(uint32_t now, uint32_t then, unsigned delta)
{
    if (then == 0)
        return now != 0;
    uint64_t diff = now > then ? now - then : then - now;
    return diff * 100 >= (uint64_t)delta * then;
}

static int is_barrier(const XInsn *in)
{
    return (xisa_ops[in->op].flags & XI_BARRIER) || in->op == XOP_membar;
}

/* The record of the phase starting at boundary pc: the largest demand over the pcs it
 * reaches before another boundary. */
static XPhase phase_record(PhCtx *c, uint32_t start)
{
    XPhase p = {.pc = start};
    uint64_t dyn = dynamic_vars(c->f), vars = 0;
    uint32_t top = 0;
    memset(c->seen, 0, c->n);
    c->seen[start] = 1, c->stack[top++] = start;
    while (top) {
        uint32_t pc = c->stack[--top];
        if (c->regs[pc] > p.regs)
            p.regs = c->regs[pc];
        uint32_t sh = shared_bytes(c->f, c->live_sh[pc]);
        if (sh > p.shared)
            p.shared = sh;
        vars |= c->live_sh[pc];
        for (unsigned s = 0; s < c->nsucc[pc]; s++) {
            uint32_t t = c->succ[pc][s];
            if (!c->boundary[t] && !c->seen[t])
                c->seen[t] = 1, c->stack[top++] = t;
        }
    }
    p.flags = (start == 0 ? XPHASE_ENTRY : 0) | (vars & dyn ? XPHASE_DYNAMIC : 0) |
              (is_barrier(&c->f->code[start]) ? XPHASE_BARRIER : 0);
    return p;
}

/* The boundaries, in pc order, by the rules of the header comment. */
static uint32_t place_boundaries(PhCtx *c)
{
    uint32_t count = 1, last = 0;
    c->boundary[0] = 1;
    for (uint32_t pc = 1; pc < c->n; pc++) {
        uint32_t r0 = c->regs[last], s0 = shared_bytes(c->f, c->live_sh[last]);
        uint32_t r = c->regs[pc], s = shared_bytes(c->f, c->live_sh[pc]);
        int open = is_barrier(&c->f->code[pc]) ||
                   (!c->divergent[pc] && pc - last >= c->o->gap &&
                    (changed_by(r, r0, c->o->delta) || changed_by(s, s0, c->o->delta)));
        if (open)
            c->boundary[pc] = 1, last = pc, count++;
    }
    return count;
}

int mir_phases(MFunc *f, const MPhaseOptions *o)
{
    PhCtx c = {.f = f, .o = o, .n = f->ncode};
    free(f->phases);
    f->phases = NULL;
    f->nphases = 0;
    if (!f->ncode || !f->code_shared)
        return f->ncode ? mir_error(f, 0, "internal: phases before mir_emit") : 0;
    c.succ = mir_zalloc(c.n, sizeof *c.succ);
    c.nsucc = mir_zalloc(c.n, 1);
    c.regs = mir_zalloc(c.n, sizeof *c.regs);
    c.live_sh = mir_zalloc(c.n, sizeof *c.live_sh);
    c.divergent = mir_zalloc(c.n, 1);
    c.boundary = mir_zalloc(c.n, 1);
    c.stack = mir_zalloc(c.n, sizeof *c.stack);
    c.seen = mir_zalloc(c.n, 1);
    find_succs(&c);
    register_demand(&c);
    shared_demand(&c);
    for (uint32_t pc = 0; pc < c.n; pc++)
        if (f->code[pc].op == XOP_brc && !(f->code[pc].flags & XF_UNIFORM))
            mark_region(&c, pc);
    f->nphases = place_boundaries(&c);
    f->phases = mir_zalloc(f->nphases, sizeof *f->phases);
    for (uint32_t pc = 0, i = 0; pc < c.n; pc++)
        if (c.boundary[pc])
            f->phases[i++] = phase_record(&c, pc);
    free(c.succ), free(c.nsucc), free(c.regs), free(c.live_sh), free(c.divergent);
    free(c.boundary), free(c.stack), free(c.seen);
    return 0;
}
