/*
 * sched.c - list scheduling within each basic block, on SSA MIR.
 *
 * isel emits a kernel's instructions in source order, so a value is usually used right
 * after it is produced and a warp waits for every load. This pass reorders the
 * instructions of each block, as NVIDIA's ptxas does, so that work that does not depend
 * on a long-latency result runs while that result is on its way.
 *
 * Requires: mir_cfg (succ, for liveness); SSA form before mir_outssa (the pass only keeps
 * the order the registers need, so a vreg written twice is handled too).
 * Guarantees: each block holds the same instructions; phis (kept apart in MBlock.phis)
 * stay at its top and the terminator stays last. Every instruction follows the ones it
 * depends on:
 *   - data: a reader follows the writer of its register (and a writer follows the
 *     earlier readers and writer of its register);
 *   - memory and side effects: stores, atomics, barriers (bar, barred, gsync), membar,
 *     wsync, vprintf and the warp-level instructions (shfl, vote, actmask, hmma) keep
 *     their relative order; loads move among themselves but never across any of those.
 *     Loads from param and const space (memory no kernel writes) move freely;
 *   - a read of %clock or %clock64 is a full fence: no instruction crosses it, so the
 *     code a program times stays between its two clock reads.
 * Invalidates nothing: no block, edge or vreg is added or removed.
 *
 * Priority: the latency-weighted critical path from an instruction to the block's end,
 * with the latencies of one table (below). A cycle counter models one warp issuing one
 * instruction per cycle; an instruction whose operands are ready by the current cycle
 * beats one that would stall, then the longer path wins, then a load, then source order
 * (so the result is deterministic).
 *
 * Register pressure: the pass counts the 32-bit registers the allocator will hold at
 * each point (a wide vreg counts 2), including values that only pass through a block
 * because mir_regalloc's intervals have no holes (see "the allocator's view" below). An
 * instruction may issue only if the rest of the block can still follow, in source order,
 * without the count exceeding a limit; the earliest instruction in source order always
 * can, so the count exceeds it only where source order does. The limit is the larger of
 * the kernel's peak in source order and a target of 3/4 of the register budget, at most
 * 32 registers: 32 registers per thread is what a full SM of the compile target leaves
 * (sm_70: 2048 threads, 65536 registers), so latency hiding does not cost occupancy
 * there.
 *
 * The rule the result keeps: the registers the allocator needs for the scheduled kernel
 * are at most the larger of source order's count and the target. The count above sees
 * neither pair alignment nor first-fit packing, so the pass replays the allocation for
 * both orders; when the schedule needs more, it schedules again with the limit lowered
 * by the excess, and after a few tries keeps source order.
 */
#include "mir.h"

#include <stdlib.h>
#include <string.h>

/* ---- latencies ----
 *
 * One compiled binary runs on every preset, so the table is one machine's: the
 * accelsim-rtx2060 preset's issue-to-result latencies (docs/timing.md, Memento's
 * Table I): int 4 (min/max 13, div/rem 145, shfl 32), fp32 4 (fmin/fmax 13, ffma 5,
 * fdiv 39), fp64 8 (fmin/fmax 19, fdiv 330), sfu 100, tensor 64. Loads: shared memory
 * and an L1 hit take 20 cycles; a global, local or generic load is counted as an L1
 * miss that hits L2 and goes on to DRAM (20 + 160 + 100); param and const loads are
 * counted as L1 hits (every thread reads the same few lines). */
enum {
    LAT_ORDER = 1, /* an edge that only keeps order */
    LAT_CTRL = 1,
    LAT_INT = 4, LAT_INT_MINMAX = 13, LAT_INT_DIV = 145, LAT_SHFL = 32,
    LAT_FP = 4, LAT_FP_MINMAX = 13, LAT_FFMA = 5, LAT_FDIV = 39,
    LAT_DP = 8, LAT_DP_MINMAX = 19, LAT_DDIV = 330,
    LAT_SFU = 100, LAT_TENSOR = 64,
    LAT_L1 = 20, LAT_DRAM = 280,
};

static unsigned mem_latency(const MInsn *in)
{
    switch (in->x.mod) {
    case XS_SHARED: case XS_PARAM: case XS_CONST: return LAT_L1;
    default: return LAT_DRAM;
    }
}

static unsigned fp_latency(const MInsn *in)
{
    int dp = in->x.type == XT_F64;
    switch (in->x.op) {
    case XOP_fmin: case XOP_fmax: return dp ? LAT_DP_MINMAX : LAT_FP_MINMAX;
    case XOP_ffma: return dp ? LAT_DP : LAT_FFMA;
    case XOP_fdiv: return dp ? LAT_DDIV : LAT_FDIV;
    default: return dp ? LAT_DP : LAT_FP;
    }
}

/* Cycles from issuing in until an instruction reading its result can issue. Opcodes
 * the table does not name take their unit's latency. */
static unsigned latency(const MInsn *in)
{
    const XOpInfo *oi = &xisa_ops[in->x.op];
    if (oi->flags & XI_LOAD)
        return mem_latency(in);
    switch (in->x.op) {
    case XOP_min: case XOP_max: return LAT_INT_MINMAX;
    case XOP_div: case XOP_rem: return LAT_INT_DIV;
    case XOP_shfl: return LAT_SHFL;
    default: break;
    }
    switch (oi->unit) {
    case XU_INT: return LAT_INT;
    case XU_FP: return fp_latency(in);
    case XU_SFU: return LAT_SFU;
    case XU_TENSOR: return LAT_TENSOR;
    case XU_LDST: return LAT_DRAM;
    default: return LAT_CTRL;
    }
}

/* ---- what may move ---- */

typedef enum Kind {
    K_FREE,  /* only data dependences */
    K_LOAD,  /* a load: between the ordered instructions around it */
    K_ORDER, /* memory, side effects and warp-level: in order among themselves */
    K_FENCE, /* nothing crosses it */
} Kind;

static Kind kind_of(const MInsn *in)
{
    const XOpInfo *oi = &xisa_ops[in->x.op];
    switch (in->x.op) {
    case XOP_s2r:
        return in->x.mod == XSR_CLOCK || in->x.mod == XSR_CLOCK64 ? K_FENCE : K_FREE;
    case XOP_shfl: case XOP_vote: case XOP_actmask: case XOP_hmma:
        return K_ORDER;
    default: break;
    }
    if (oi->flags & (XI_BRANCH | XI_EXIT)) /* only mid-block in malformed MIR */
        return K_FENCE;
    if (oi->flags & (XI_STORE | XI_ATOMIC | XI_BARRIER))
        return K_ORDER;
    if (oi->flags & XI_LOAD)
        return in->x.mod == XS_PARAM || in->x.mod == XS_CONST ? K_FREE : K_LOAD;
    /* membar, vprintf, wsync, nop, and any unit but the arithmetic ones */
    if (oi->flags & XI_MEM || oi->unit == XU_LDST || oi->unit == XU_CTRL || oi->unit == XU_TENSOR)
        return K_ORDER;
    return K_FREE;
}

/* ---- the pass's state ---- */

typedef struct Edge {
    uint32_t from, to, lat;
} Edge;

/* A vreg's count state before a simulated issue (see completes_within). */
typedef struct Undo {
    MReg r;
    uint32_t uses;
    uint8_t live;
} Undo;

typedef struct Sched {
    MFunc *f;
    MLive lv;
    uint32_t limit;   /* register-pressure limit of this kernel */
    /* per vreg */
    uint32_t *uses;   /* instructions of the block still to issue that read it */
    uint8_t *live;    /* holds a register now */
    uint8_t *at_end;  /* live out of the block, or read by its terminator */
    uint32_t *lastdef; /* 1 + the block's instruction that last wrote it, or 0 */
    uint32_t *readers; /* head of its list of readers since that write (1 + index in rd) */
    uint32_t pressure; /* registers live now */
    /* the register allocator's view (see predict_layout) */
    uint32_t *pos;    /* per block: its place in the predicted layout */
    uint32_t *vfirst, *vlast; /* per vreg: first and last place it occupies a register */
    MReg *span;       /* vregs that occupy a register in more than one block */
    uint32_t nspan;
    uint32_t nlaid;   /* nodes in the predicted layout */
    /* per instruction of the block (capacity cap) */
    uint32_t cap;
    uint32_t *lat, *height, *npred, *earliest, *order, *cand, *first, *rd, *rdnext;
    Edge *succ;       /* successors grouped by first[] */
    Edge *edges;
    uint32_t nedges, capedges;
    MInsn *tmp;       /* the block's instructions in their new order */
    uint8_t *done, *rejected; /* per instruction: issued; per candidate: refused now */
    uint32_t maxdone; /* 1 + the highest instruction issued */
    Undo *log;        /* while simulating: the states to restore */
    uint32_t nlog;
    int logging;
} Sched;

static void *xcalloc(size_t n, size_t sz)
{
    return mir_zalloc(n ? n : 1, sz);
}

static unsigned width(const Sched *s, MReg r)
{
    return s->f->vregs[r].wide ? 2u : 1u;
}

/* Source slot k of in repeats an earlier slot (a register read twice counts once). */
static int repeated(const MInsn *in, unsigned k)
{
    for (unsigned j = 0; j < k; j++)
        if (in->src[j] == in->src[k])
            return 1;
    return 0;
}

/* ---- register pressure ---- */

/* Calls fn for every vreg in the set (bit vector of lv->words words). */
static void each_in_set(Sched *s, const uint64_t *set, void (*fn)(Sched *, MReg, int), int arg)
{
    for (uint32_t w = 0; w < s->lv.words; w++)
        for (uint64_t bits = set[w]; bits; bits &= bits - 1)
            fn(s, (MReg)(w * 64 + (uint32_t)__builtin_ctzll(bits)), arg);
}

static void set_live(Sched *s, MReg r, int on)
{
    if (on && !s->live[r])
        s->pressure += width(s, r);
    s->live[r] = (uint8_t)on;
}

static void set_at_end(Sched *s, MReg r, int on)
{
    s->at_end[r] = (uint8_t)on;
}

/* ---- the allocator's view of live ranges ----
 *
 * mir_regalloc gives a vreg one interval without holes, from the first to the last
 * place it is live in the block layout that mir_cfg makes after mir_outssa, so a value
 * holds its register through every block laid out between two of its places, live
 * there or not. The layout adds blocks: mir_outssa splits every edge from a block with
 * two successors into a block with phis, and the block on a loop's back edge, holding
 * the loop-carried copies, is laid out after the code that follows the loop (the
 * depth-first order explores a latch's taken branch back to the header first, so the
 * exit path finishes later and comes earlier in reverse postorder). Every value live
 * around the loop then holds its register through all that code. The pass predicts
 * that layout (the same split rule; reverse postorder of a DFS visiting succ[0] before
 * succ[1], as mir_cfg numbers blocks) and counts, in each block, every vreg whose
 * interval covers it. */

/* Edge k of block p gets a block of its own in mir_outssa. */
static int split_edge_at(const MFunc *f, uint32_t p, unsigned k)
{
    const MBlock *pb = &f->blocks[p];
    return pb->nsucc > 1 && f->blocks[pb->succ[k]].nphis > 0;
}

/* Successor k of node n of the predicted layout, or UINT32_MAX. Nodes: the blocks
 * [0, nblocks), then node nblocks + 2p + k for edge k of block p when it is split. */
static uint32_t layout_succ(const MFunc *f, uint32_t n, unsigned k)
{
    uint32_t nb = f->nblocks;
    if (n >= nb) {
        uint32_t p = (n - nb) / 2, j = (n - nb) % 2;
        return k == 0 ? f->blocks[p].succ[j] : UINT32_MAX;
    }
    if (k >= f->blocks[n].nsucc)
        return UINT32_MAX;
    return split_edge_at(f, n, k) ? nb + 2 * n + k : f->blocks[n].succ[k];
}

/* s->pos of every node: its place in reverse postorder (UINT32_MAX: not reached). */
static void predict_layout(Sched *s)
{
    uint32_t nn = 3 * s->f->nblocks, npost = 0, sp = 0;
    uint32_t *stack = xcalloc(nn, sizeof *stack), *post = xcalloc(nn, sizeof *post);
    uint8_t *next = xcalloc(nn, 1), *seen = xcalloc(nn, 1);
    for (uint32_t i = 0; i < nn; i++)
        s->pos[i] = UINT32_MAX;
    if (s->f->nblocks)
        stack[sp++] = 0, seen[0] = 1;
    while (sp) {
        uint32_t n = stack[sp - 1];
        if (next[n] < 2) {
            uint32_t t = layout_succ(s->f, n, next[n]++);
            if (t != UINT32_MAX && !seen[t])
                seen[t] = 1, stack[sp++] = t;
            continue;
        }
        post[npost++] = n;
        sp--;
    }
    for (uint32_t i = 0; i < npost; i++)
        s->pos[post[i]] = npost - 1 - i;
    s->nlaid = npost;
    free(stack), free(post), free(next), free(seen);
}

static void extend_to(Sched *s, MReg r, int at)
{
    uint32_t a = (uint32_t)at;
    s->vfirst[r] = a < s->vfirst[r] ? a : s->vfirst[r];
    s->vlast[r] = a > s->vlast[r] ? a : s->vlast[r];
}

/* The interval of every vreg, in layout places: live into or out of a block, read or
 * written there, or copied on an edge (a phi's input and result, at the end of the
 * predecessor or in the block splitting the edge, which the successor's live-in values
 * also cross). s->span lists the vregs whose interval covers more than one place. */
static void predict_spans(Sched *s)
{
    const MFunc *f = s->f;
    for (MReg r = 0; r < f->nvregs; r++)
        s->vfirst[r] = UINT32_MAX, s->vlast[r] = 0;
    for (uint32_t b = 0; b < f->nblocks; b++) {
        const MBlock *bb = &f->blocks[b];
        int at = (int)s->pos[b];
        if (s->pos[b] == UINT32_MAX)
            continue;
        each_in_set(s, mir_live_in(&s->lv, b), extend_to, at);
        each_in_set(s, mir_live_out(&s->lv, b), extend_to, at);
        for (uint32_t i = 0; i < bb->nins; i++) {
            const MInsn *x = &bb->ins[i];
            for (unsigned k = 0, ns = mir_nsrc(x); k < ns; k++)
                if (mir_is_vreg(x->src[k]))
                    extend_to(s, x->src[k], at);
            for (unsigned d = 0, nd = mir_ndst(x); d < nd; d++)
                if (mir_is_vreg(x->dst[d]))
                    extend_to(s, x->dst[d], at);
        }
        for (unsigned k = 0; k < bb->nsucc; k++) {
            uint32_t sb = bb->succ[k];
            int copy_at = at;
            if (split_edge_at(f, b, k)) {
                copy_at = (int)s->pos[f->nblocks + 2 * b + k];
                each_in_set(s, mir_live_in(&s->lv, sb), extend_to, copy_at);
            }
            for (uint32_t i = 0; i < f->blocks[sb].nphis; i++) {
                const MPhi *ph = &f->blocks[sb].phis[i];
                for (uint32_t j = 0; j < ph->nin; j++)
                    if (ph->in[j].block == b && mir_is_vreg(ph->in[j].reg)) {
                        extend_to(s, ph->in[j].reg, copy_at);
                        if (mir_is_vreg(ph->dst))
                            extend_to(s, ph->dst, copy_at);
                    }
            }
        }
    }
    s->nspan = 0;
    for (MReg r = 0; r < f->nvregs; r++)
        if (s->vfirst[r] < s->vlast[r])
            s->span[s->nspan++] = r;
}

/* Sets the counts up for block b with its instructions [0, n) still to issue. */
static void press_begin(Sched *s, uint32_t b, uint32_t n)
{
    const MBlock *bb = &s->f->blocks[b];
    s->pressure = 0;
    each_in_set(s, mir_live_in(&s->lv, b), set_live, 1);
    each_in_set(s, mir_live_out(&s->lv, b), set_at_end, 1);
    /* what the allocator keeps: held on entry when placed earlier, to the end when
     * placed later (phi results, and values only passing through, included) */
    uint32_t at = s->pos[b];
    for (uint32_t k = 0; k < s->nspan; k++) {
        MReg r = s->span[k];
        if (s->vfirst[r] < at && at <= s->vlast[r])
            set_live(s, r, 1);
        if (s->vlast[r] > at && at != UINT32_MAX)
            s->at_end[r] = 1;
    }
    for (uint32_t i = 0; i < bb->nins; i++) {
        const MInsn *x = &bb->ins[i];
        for (unsigned k = 0, ns = mir_nsrc(x); k < ns; k++)
            if (mir_is_vreg(x->src[k]) && !repeated(x, k)) {
                if (i < n)
                    s->uses[x->src[k]]++;
                else
                    s->at_end[x->src[k]] = 1; /* the terminator reads it */
            }
    }
}

/* Clears the per-vreg state press_begin(s, b, ...) and issuing set. */
static void press_end(Sched *s, uint32_t b)
{
    const MBlock *bb = &s->f->blocks[b];
    each_in_set(s, mir_live_in(&s->lv, b), set_live, 0);
    each_in_set(s, mir_live_out(&s->lv, b), set_at_end, 0);
    for (uint32_t k = 0; k < s->nspan; k++)
        s->live[s->span[k]] = 0, s->at_end[s->span[k]] = 0;
    for (uint32_t i = 0; i < bb->nins; i++) {
        const MInsn *x = &bb->ins[i];
        for (unsigned k = 0, ns = mir_nsrc(x); k < ns; k++)
            if (mir_is_vreg(x->src[k]))
                s->uses[x->src[k]] = 0, s->live[x->src[k]] = 0, s->at_end[x->src[k]] = 0;
        for (unsigned d = 0, nd = mir_ndst(x); d < nd; d++)
            if (mir_is_vreg(x->dst[d]))
                s->live[x->dst[d]] = 0;
    }
}

/* Registers freed by issuing x: sources it reads last that are not needed later. */
static unsigned press_dying(const Sched *s, const MInsn *x)
{
    unsigned w = 0;
    for (unsigned k = 0, ns = mir_nsrc(x); k < ns; k++) {
        MReg r = x->src[k];
        if (mir_is_vreg(r) && !repeated(x, k) && s->uses[r] == 1 && !s->at_end[r] && s->live[r])
            w += width(s, r);
    }
    return w;
}

/* Registers x's results take: all of them while it issues (peak), or only those read
 * later (kept). */
static void press_defs(const Sched *s, const MInsn *x, unsigned *peak, unsigned *kept)
{
    *peak = *kept = 0;
    for (unsigned d = 0, nd = mir_ndst(x); d < nd; d++) {
        MReg r = x->dst[d];
        if (!mir_is_vreg(r) || s->live[r])
            continue;
        *peak += width(s, r);
        if (s->uses[r] || s->at_end[r])
            *kept += width(s, r);
    }
}

/* The registers live while x issues (a result may take a dying source's register). */
static uint32_t press_peak(const Sched *s, const MInsn *x)
{
    unsigned peak, kept;
    press_defs(s, x, &peak, &kept);
    return s->pressure - press_dying(s, x) + peak;
}

static void log_state(Sched *s, MReg r)
{
    if (s->logging && mir_is_vreg(r))
        s->log[s->nlog++] = (Undo){r, s->uses[r], s->live[r]};
}

static void press_issue(Sched *s, const MInsn *x)
{
    for (unsigned k = 0, ns = mir_nsrc(x); k < ns; k++)
        log_state(s, x->src[k]);
    for (unsigned d = 0, nd = mir_ndst(x); d < nd; d++)
        log_state(s, x->dst[d]);
    unsigned peak, kept;
    press_defs(s, x, &peak, &kept);
    s->pressure = s->pressure - press_dying(s, x) + kept;
    for (unsigned k = 0, ns = mir_nsrc(x); k < ns; k++) {
        MReg r = x->src[k];
        if (!mir_is_vreg(r) || repeated(x, k))
            continue;
        if (--s->uses[r] == 0 && !s->at_end[r])
            s->live[r] = 0;
    }
    for (unsigned d = 0, nd = mir_ndst(x); d < nd; d++) {
        MReg r = x->dst[d];
        if (mir_is_vreg(r) && (s->uses[r] || s->at_end[r]))
            s->live[r] = 1;
    }
}

/* ---- the dependence graph of one block ---- */

static void add_edge(Sched *s, uint32_t from, uint32_t to, uint32_t lat)
{
    if (s->nedges == s->capedges) {
        s->capedges = s->capedges ? 2 * s->capedges : 256;
        Edge *e = xcalloc(s->capedges, sizeof *e);
        if (s->nedges)
            memcpy(e, s->edges, s->nedges * sizeof *e);
        free(s->edges);
        s->edges = e;
    }
    s->edges[s->nedges++] = (Edge){from, to, lat};
}

/* Per-instruction arrays big enough for n instructions (rd, rdnext: a read per source
 * slot). */
static void reserve(Sched *s, uint32_t n)
{
    if (n <= s->cap)
        return;
    uint32_t **arr[] = {&s->lat, &s->height, &s->npred, &s->earliest, &s->order, &s->cand,
                        &s->first, &s->rd, &s->rdnext};
    for (size_t i = 0; i < sizeof arr / sizeof *arr; i++) {
        free(*arr[i]);
        *arr[i] = xcalloc((size_t)n * (i >= 7 ? 6 : 1) + 1, sizeof **arr[i]);
    }
    free(s->tmp), free(s->done), free(s->rejected), free(s->log);
    s->tmp = xcalloc(n, sizeof *s->tmp);
    s->done = xcalloc(n, 1);
    s->rejected = xcalloc(n, 1);
    s->log = xcalloc(8 * ((size_t)n + 1), sizeof *s->log); /* 8 operands an instruction */
    s->cap = n;
}

/* Register dependences of instruction i: after the writer of each source (its latency)
 * and, for each result, after the register's earlier readers and writer. */
static void reg_edges(Sched *s, const MInsn *ins, uint32_t i, uint32_t *nrd)
{
    const MInsn *x = &ins[i];
    for (unsigned k = 0, ns = mir_nsrc(x); k < ns; k++) {
        MReg r = x->src[k];
        if (!mir_is_vreg(r) || repeated(x, k))
            continue;
        if (s->lastdef[r])
            add_edge(s, s->lastdef[r] - 1, i, s->lat[s->lastdef[r] - 1]);
        s->rd[*nrd] = i;
        s->rdnext[*nrd] = s->readers[r];
        s->readers[r] = ++*nrd;
    }
    for (unsigned d = 0, nd = mir_ndst(x); d < nd; d++) {
        MReg r = x->dst[d];
        if (!mir_is_vreg(r))
            continue;
        for (uint32_t k = s->readers[r]; k; k = s->rdnext[k - 1])
            if (s->rd[k - 1] != i)
                add_edge(s, s->rd[k - 1], i, LAT_ORDER);
        if (s->lastdef[r])
            add_edge(s, s->lastdef[r] - 1, i, LAT_ORDER);
        s->lastdef[r] = i + 1;
        s->readers[r] = 0;
    }
}

/* Memory and side-effect order among instructions [0, n). The loads since the last
 * ordered instruction all precede the next one; a fence also collects everything. */
static void order_edges(Sched *s, const MInsn *ins, uint32_t n)
{
    uint32_t last_order = 0, last_fence = 0; /* 1 + index, or 0 */
    uint32_t since_order = 0, since_fence = 0; /* first index after them */
    for (uint32_t i = 0; i < n; i++) {
        Kind k = kind_of(&ins[i]);
        if (last_fence)
            add_edge(s, last_fence - 1, i, LAT_ORDER);
        if (k == K_LOAD && last_order)
            add_edge(s, last_order - 1, i, LAT_ORDER);
        if ((k == K_ORDER || k == K_FENCE) && last_order)
            add_edge(s, last_order - 1, i, LAT_ORDER);
        if (k == K_ORDER || k == K_FENCE) {
            uint32_t from = k == K_FENCE ? since_fence : since_order;
            for (uint32_t j = from; j < i; j++) {
                Kind kj = kind_of(&ins[j]);
                if (k == K_FENCE || kj == K_LOAD || kj == K_ORDER)
                    add_edge(s, j, i, LAT_ORDER);
            }
            last_order = i + 1, since_order = i + 1;
            if (k == K_FENCE)
                last_fence = i + 1, since_fence = i + 1;
        }
    }
}

/* Builds the graph of instructions [0, n) of block b: s->succ grouped by s->first,
 * s->npred, and each instruction's height (its latency-weighted path to the end). */
static void build_graph(Sched *s, const MInsn *ins, uint32_t n)
{
    s->nedges = 0;
    uint32_t nrd = 0;
    for (uint32_t i = 0; i < n; i++) {
        s->lat[i] = latency(&ins[i]);
        s->npred[i] = 0, s->first[i] = 0, s->earliest[i] = 0;
    }
    for (uint32_t i = 0; i < n; i++)
        reg_edges(s, ins, i, &nrd);
    order_edges(s, ins, n);
    for (uint32_t i = 0; i < n; i++) /* leave the per-vreg state clean */
        for (unsigned d = 0, nd = mir_ndst(&ins[i]); d < nd; d++)
            if (mir_is_vreg(ins[i].dst[d]))
                s->lastdef[ins[i].dst[d]] = 0;
    for (uint32_t i = 0; i < n; i++)
        for (unsigned k = 0, ns = mir_nsrc(&ins[i]); k < ns; k++)
            if (mir_is_vreg(ins[i].src[k]))
                s->readers[ins[i].src[k]] = 0;
    /* successors grouped by their source, in the order they were found: first[i] to
     * first[i + 1] (a counting sort; earliest[] is zero and serves as the counter) */
    free(s->succ);
    s->succ = xcalloc(s->nedges, sizeof *s->succ);
    uint32_t *cnt = s->earliest, sum = 0;
    for (uint32_t e = 0; e < s->nedges; e++)
        cnt[s->edges[e].from]++, s->npred[s->edges[e].to]++;
    for (uint32_t i = 0; i < n; i++)
        s->first[i] = sum, sum += cnt[i], cnt[i] = 0;
    s->first[n] = sum;
    for (uint32_t e = 0; e < s->nedges; e++) {
        uint32_t from = s->edges[e].from;
        s->succ[s->first[from] + cnt[from]++] = s->edges[e];
    }
    memset(cnt, 0, n * sizeof *cnt);
    for (uint32_t i = n; i-- > 0;) { /* edges only go forward */
        uint32_t h = s->lat[i];
        for (uint32_t e = s->first[i]; e < s->first[i + 1]; e++) {
            uint32_t t = s->succ[e].lat + s->height[s->succ[e].to];
            h = t > h ? t : h;
        }
        s->height[i] = h;
    }
}

/* ---- choosing ---- */

typedef struct Choice {
    uint32_t i;
    int ready;    /* operands ready by now */
    uint32_t at;  /* cycle it could issue */
} Choice;

/* 1 when a is the better choice than b. */
static int better(const Sched *s, const MInsn *ins, const Choice *a, const Choice *b)
{
    if (a->ready != b->ready)
        return a->ready;
    if (!a->ready && a->at != b->at)
        return a->at < b->at;
    if (s->height[a->i] != s->height[b->i])
        return s->height[a->i] > s->height[b->i];
    int la = kind_of(&ins[a->i]) == K_LOAD, lb = kind_of(&ins[b->i]) == K_LOAD;
    if (la != lb)
        return la;
    return a->i < b->i;
}

/* How far (in source positions) past the earliest unscheduled instruction a candidate
 * may come from: bounds the work per choice in very long blocks (and how far an
 * instruction can move up). */
#define WINDOW 512u

/* Candidates refused by simulation at one choice before the earliest one is taken. */
#define MAX_REFUSED 16u

/* Whether issuing i now leaves a way to finish the block within the limit: i, then the
 * instructions not issued yet in source order, up to the highest one issued so far. From
 * there on the issued set, and so the live set, is source order's, whose peak the limit
 * covers (unless a retry lowered it below, where source order is all that fits). The
 * counts are restored afterwards. */
static int completes_within(Sched *s, const MInsn *ins, uint32_t i, uint32_t lo)
{
    if (press_peak(s, &ins[i]) > s->limit)
        return 0;
    uint32_t end = s->maxdone > i + 1 ? s->maxdone : i + 1, saved = s->pressure;
    int ok = 1;
    s->logging = 1, s->nlog = 0;
    press_issue(s, &ins[i]);
    for (uint32_t j = lo; ok && j < end; j++)
        if (j != i && !s->done[j]) {
            ok = press_peak(s, &ins[j]) <= s->limit;
            press_issue(s, &ins[j]);
        }
    while (s->nlog) {
        const Undo *u = &s->log[--s->nlog];
        s->uses[u->r] = u->uses, s->live[u->r] = u->live;
    }
    s->logging = 0, s->pressure = saved;
    return ok;
}

/* Index in s->cand of the instruction to issue at cycle now: the best one by `better`
 * that keeps the block able to finish within the register limit (completes_within).
 * The earliest candidate in source order is always allowed: issuing it follows the
 * order that was shown to fit, so the count exceeds the limit only where source order
 * does. */
static uint32_t pick(Sched *s, const MInsn *ins, uint32_t ncand, uint32_t now)
{
    uint32_t lo = s->cand[0], lo_c = 0;
    for (uint32_t c = 1; c < ncand; c++)
        if (s->cand[c] < lo)
            lo = s->cand[c], lo_c = c;
    memset(s->rejected, 0, ncand);
    for (uint32_t tries = 0; tries < MAX_REFUSED; tries++) {
        uint32_t best = UINT32_MAX;
        Choice bc = {0};
        for (uint32_t c = 0; c < ncand; c++) {
            uint32_t i = s->cand[c];
            if (i - lo >= WINDOW || s->rejected[c])
                continue;
            Choice ch = {.i = i, .ready = s->earliest[i] <= now, .at = s->earliest[i]};
            if (best == UINT32_MAX || better(s, ins, &ch, &bc))
                best = c, bc = ch;
        }
        if (best == lo_c || completes_within(s, ins, bc.i, lo))
            return best;
        s->rejected[best] = 1;
    }
    return lo_c;
}

/* Orders instructions [0, n) of block b into s->order. */
static void list_schedule(Sched *s, uint32_t b, uint32_t n)
{
    const MInsn *ins = s->f->blocks[b].ins;
    uint32_t ncand = 0, now = 0;
    for (uint32_t i = 0; i < n; i++)
        if (!s->npred[i])
            s->cand[ncand++] = i;
    press_begin(s, b, n);
    memset(s->done, 0, n);
    s->maxdone = 0;
    for (uint32_t k = 0; k < n; k++) {
        uint32_t c = pick(s, ins, ncand, now), i = s->cand[c];
        s->done[i] = 1;
        s->maxdone = i + 1 > s->maxdone ? i + 1 : s->maxdone;
        s->cand[c] = s->cand[--ncand];
        uint32_t at = s->earliest[i] > now ? s->earliest[i] : now;
        now = at + 1;
        s->order[k] = i;
        press_issue(s, &ins[i]);
        for (uint32_t e = s->first[i]; e < s->first[i + 1]; e++) {
            const Edge *ed = &s->succ[e];
            if (s->earliest[ed->to] < at + ed->lat)
                s->earliest[ed->to] = at + ed->lat;
            if (--s->npred[ed->to] == 0)
                s->cand[ncand++] = ed->to;
        }
    }
}

/* Instructions of block b that are scheduled: all but a final terminator. */
static uint32_t body_len(const MFunc *f, uint32_t b)
{
    const MBlock *bb = &f->blocks[b];
    if (!bb->nins)
        return 0;
    uint16_t fl = xisa_ops[bb->ins[bb->nins - 1].x.op].flags;
    return bb->nins - ((fl & (XI_BRANCH | XI_EXIT)) ? 1u : 0u);
}

/* Peak register pressure of block b in its current order. */
static uint32_t block_peak(Sched *s, uint32_t b)
{
    const MBlock *bb = &s->f->blocks[b];
    uint32_t n = body_len(s->f, b);
    press_begin(s, b, n);
    uint32_t peak = s->pressure;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t p = press_peak(s, &bb->ins[i]);
        peak = p > peak ? p : peak;
        press_issue(s, &bb->ins[i]);
    }
    press_end(s, b);
    return peak;
}

static void schedule_block(Sched *s, uint32_t b)
{
    uint32_t n = body_len(s->f, b);
    if (n < 2)
        return;
    reserve(s, n);
    MBlock *bb = &s->f->blocks[b];
    build_graph(s, bb->ins, n);
    list_schedule(s, b, n);
    press_end(s, b);
    for (uint32_t k = 0; k < n; k++)
        s->tmp[k] = bb->ins[s->order[k]];
    memcpy(bb->ins, s->tmp, n * sizeof *bb->ins);
}

/* Registers per thread at which a full SM of the compile target still fits: sm_70 runs
 * 2048 threads on 65536 registers (also the emulator's default machine). */
#define FULL_OCCUPANCY_REGS 32u

/* The register budget of f, and the target within it: 3/4 of the budget, at most
 * FULL_OCCUPANCY_REGS. */
static uint32_t budget_of(const MSchedOptions *o)
{
    return o && o->max_live && o->max_live < XREG_MAX ? o->max_live : XREG_MAX;
}

static uint32_t target_of(const MSchedOptions *o)
{
    uint32_t budget = budget_of(o), target = budget - budget / 4;
    return target > FULL_OCCUPANCY_REGS ? FULL_OCCUPANCY_REGS : target;
}

/* The pressure limit of f: its peak in source order, or the target if that is more. */
static uint32_t pressure_limit(Sched *s, const MSchedOptions *o)
{
    uint32_t target = target_of(o), peak = 0;
    for (uint32_t b = 0; b < s->f->nblocks; b++) {
        uint32_t p = block_peak(s, b);
        peak = p > peak ? p : peak;
    }
    return peak > target ? peak : target;
}

/* ---- checking the result: the allocator's count ----
 *
 * The pressure count is per block and sees neither the alignment of register pairs nor
 * how mir_regalloc's first fit packs them, which can cost a few registers (more with
 * many 64-bit addresses live). So the pass replays the allocation: intervals without
 * holes over the predicted layout (each instruction reads at 2k and writes at 2k + 1;
 * phi copies go before a predecessor's terminator or into the block splitting the edge),
 * taken by start, a narrow one in the lowest free register, a wide one in the lowest free
 * even pair, a move's result in its source's register when that is free. The replay
 * gives the registers the kernel would use, plus the width of every interval that
 * would not fit in the budget (the allocator would spill it). */

typedef struct Replay {
    const Sched *s;
    uint32_t *start, *end; /* per vreg: first and last position (start > end: absent) */
    MReg *hint;            /* per vreg: the move source whose register it would like */
} Replay;

static void replay_at(Replay *p, MReg r, uint32_t at)
{
    if (!mir_is_vreg(r))
        return;
    p->start[r] = at < p->start[r] ? at : p->start[r];
    p->end[r] = at > p->end[r] ? at : p->end[r];
}

static void replay_set(Replay *p, const uint64_t *set, uint32_t at)
{
    for (uint32_t w = 0; w < p->s->lv.words; w++)
        for (uint64_t bits = set[w]; bits; bits &= bits - 1)
            replay_at(p, (MReg)(w * 64 + (uint32_t)__builtin_ctzll(bits)), at);
}

/* The copies mir_outssa puts on edge b -> t, from instruction index k on (when p is
 * given); returns how many. */
static uint32_t replay_copies(Replay *p, const MFunc *f, uint32_t b, uint32_t t, uint32_t k)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < f->blocks[t].nphis; i++) {
        const MPhi *ph = &f->blocks[t].phis[i];
        for (uint32_t j = 0; j < ph->nin; j++) {
            MReg src = ph->in[j].reg;
            if (ph->in[j].block != b || !mir_is_vreg(src) || !mir_is_vreg(ph->dst) ||
                src == ph->dst)
                continue;
            if (p) {
                replay_at(p, src, 2 * (k + n));
                replay_at(p, ph->dst, 2 * (k + n) + 1);
                if (f->vregs[src].wide == f->vregs[ph->dst].wide)
                    p->hint[ph->dst] = src;
            }
            n++;
        }
    }
    return n;
}

/* The copies on the edges of block b that are not split, from instruction index k. */
static uint32_t replay_out_copies(Replay *p, const MFunc *f, uint32_t b, uint32_t k)
{
    uint32_t n = 0;
    for (unsigned j = 0; j < f->blocks[b].nsucc; j++)
        if (!split_edge_at(f, b, j))
            n += replay_copies(p, f, b, f->blocks[b].succ[j], k + n);
    return n;
}

/* Intervals of every vreg over the predicted layout. */
static void replay_intervals(Replay *p)
{
    const Sched *s = p->s;
    const MFunc *f = s->f;
    uint32_t nb = f->nblocks, *node = xcalloc(s->nlaid, sizeof *node), k = 0;
    for (uint32_t n = 0; n < 3 * nb; n++)
        if (s->pos[n] != UINT32_MAX)
            node[s->pos[n]] = n;
    for (uint32_t i = 0; i < s->nlaid; i++) {
        uint32_t n = node[i], base = k;
        if (n >= nb) { /* a split edge: its copies, then a bra */
            uint32_t b = (n - nb) / 2, t = f->blocks[b].succ[(n - nb) % 2];
            k += replay_copies(p, f, b, t, k) + 1;
            replay_set(p, mir_live_in(&s->lv, t), 2 * base);
            replay_set(p, mir_live_in(&s->lv, t), 2 * k - 1);
            for (uint32_t j = 0; j < f->blocks[t].nphis; j++)
                replay_at(p, f->blocks[t].phis[j].dst, 2 * k - 1);
            continue;
        }
        const MBlock *bb = &f->blocks[n];
        uint32_t body = body_len(f, n);
        replay_set(p, mir_live_in(&s->lv, n), 2 * base);
        for (uint32_t j = 0; j < bb->nins; j++) {
            if (j == body) /* the copies go before the terminator */
                k += replay_out_copies(p, f, n, k);
            const MInsn *x = &bb->ins[j];
            for (unsigned q = 0, ns = mir_nsrc(x); q < ns; q++)
                replay_at(p, x->src[q], 2 * k);
            for (unsigned d = 0, nd = mir_ndst(x); d < nd; d++)
                replay_at(p, x->dst[d], 2 * k + 1);
            if (x->x.op == XOP_mov && !(x->x.flags & XF_IMM) && mir_is_vreg(x->dst[0]) &&
                mir_is_vreg(x->src[0]) &&
                f->vregs[x->dst[0]].wide == f->vregs[x->src[0]].wide)
                p->hint[x->dst[0]] = x->src[0];
            k++;
        }
        if (body == bb->nins)
            k += replay_out_copies(p, f, n, k);
        if (k > base) {
            replay_set(p, mir_live_out(&s->lv, n), 2 * k - 1);
            for (unsigned j = 0; j < bb->nsucc; j++) /* copy results live out of it */
                if (!split_edge_at(f, n, j))
                    for (uint32_t q = 0; q < f->blocks[bb->succ[j]].nphis; q++) {
                        const MPhi *ph = &f->blocks[bb->succ[j]].phis[q];
                        for (uint32_t r = 0; r < ph->nin; r++)
                            if (ph->in[r].block == n)
                                replay_at(p, ph->dst, 2 * k - 1);
                    }
        }
    }
    free(node);
}

static int replay_free(const MReg *occ, uint32_t r, uint32_t w, uint32_t maxr)
{
    for (uint32_t i = 0; i < w; i++)
        if (r + i >= maxr || occ[r + i] != MREG_NONE)
            return 0;
    return 1;
}

static int by_start(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Registers the allocator would use for f in its current order, with maxr registers;
 * intervals that would not fit add their width. */
static uint32_t replay_regs(const Sched *s, uint32_t maxr)
{
    const MFunc *f = s->f;
    Replay p = {.s = s};
    p.start = xcalloc(f->nvregs, sizeof *p.start);
    p.end = xcalloc(f->nvregs, sizeof *p.end);
    p.hint = xcalloc(f->nvregs, sizeof *p.hint);
    int32_t *reg = xcalloc(f->nvregs, sizeof *reg);
    uint64_t *order = xcalloc(f->nvregs, sizeof *order);
    for (MReg r = 0; r < f->nvregs; r++)
        p.start[r] = UINT32_MAX, p.end[r] = 0, p.hint[r] = MREG_NONE, reg[r] = -1;
    replay_intervals(&p);
    uint32_t n = 0, top = 0, over = 0;
    for (MReg r = 1; r < f->nvregs; r++)
        if (p.start[r] <= p.end[r])
            order[n++] = (uint64_t)p.start[r] << 32 | r;
    qsort(order, n, sizeof *order, by_start);
    MReg occ[XREG_MAX];
    for (uint32_t r = 0; r < XREG_MAX; r++)
        occ[r] = MREG_NONE;
    for (uint32_t i = 0; i < n; i++) {
        MReg v = (MReg)order[i], h = p.hint[v];
        uint32_t w = f->vregs[v].wide ? 2 : 1, r = 0;
        for (uint32_t q = 0; q < maxr; q++)
            if (occ[q] != MREG_NONE && p.end[occ[q]] < p.start[v])
                occ[q] = MREG_NONE;
        if (h != MREG_NONE && reg[h] >= 0 && replay_free(occ, (uint32_t)reg[h], w, maxr))
            r = (uint32_t)reg[h];
        else
            while (r < maxr && !replay_free(occ, r, w, maxr))
                r += w;
        if (r >= maxr) {
            over += w;
            continue;
        }
        reg[v] = (int32_t)r;
        for (uint32_t q = 0; q < w; q++)
            occ[r + q] = v;
        top = r + w > top ? r + w : top;
    }
    free(p.start), free(p.end), free(p.hint), free(reg), free(order);
    return top + over;
}

/* Schedules every block with the current limit. */
static void schedule_all(Sched *s)
{
    for (uint32_t b = 0; b < s->f->nblocks; b++)
        schedule_block(s, b);
}

/* Copies of every block's instructions, to go back to source order. */
static MInsn **save_order(const MFunc *f)
{
    MInsn **saved = xcalloc(f->nblocks, sizeof *saved);
    for (uint32_t b = 0; b < f->nblocks; b++) {
        saved[b] = xcalloc(f->blocks[b].nins, sizeof **saved);
        memcpy(saved[b], f->blocks[b].ins, f->blocks[b].nins * sizeof **saved);
    }
    return saved;
}

static void restore_order(MFunc *f, MInsn **saved)
{
    for (uint32_t b = 0; b < f->nblocks; b++)
        memcpy(f->blocks[b].ins, saved[b], f->blocks[b].nins * sizeof **saved);
}

/* Schedules at most this many times with a lower limit before keeping source order. */
#define MAX_TRIES 4

int mir_sched(MFunc *f, const MSchedOptions *o)
{
    Sched s = {.f = f};
    mir_live(f, &s.lv);
    s.uses = xcalloc(f->nvregs, sizeof *s.uses);
    s.live = xcalloc(f->nvregs, 1);
    s.at_end = xcalloc(f->nvregs, 1);
    s.lastdef = xcalloc(f->nvregs, sizeof *s.lastdef);
    s.readers = xcalloc(f->nvregs, sizeof *s.readers);
    s.pos = xcalloc(3 * (size_t)f->nblocks, sizeof *s.pos);
    s.vfirst = xcalloc(f->nvregs, sizeof *s.vfirst);
    s.vlast = xcalloc(f->nvregs, sizeof *s.vlast);
    s.span = xcalloc(f->nvregs, sizeof *s.span);
    predict_layout(&s);
    predict_spans(&s);
    s.limit = pressure_limit(&s, o);
    /* the allocator may use as many registers as source order needs, or the target */
    uint32_t budget = budget_of(o), source = replay_regs(&s, budget);
    uint32_t allowed = source > target_of(o) ? source : target_of(o);
    MInsn **saved = save_order(f);
    for (int tries = 0;; tries++) {
        schedule_all(&s);
        uint32_t regs = replay_regs(&s, budget);
        if (regs <= allowed)
            break;
        restore_order(f, saved);
        if (tries + 1 == MAX_TRIES || s.limit <= regs - allowed)
            break; /* source order */
        s.limit -= regs - allowed;
    }
    for (uint32_t b = 0; b < f->nblocks; b++)
        free(saved[b]);
    free(saved);
    uint32_t *arr[] = {s.uses, s.lastdef, s.readers, s.pos, s.vfirst, s.vlast, s.span, s.lat,
                       s.height, s.npred, s.earliest, s.order, s.cand, s.first, s.rd, s.rdnext};
    for (size_t i = 0; i < sizeof arr / sizeof *arr; i++)
        free(arr[i]);
    free(s.live), free(s.at_end), free(s.succ), free(s.edges), free(s.tmp);
    free(s.done), free(s.rejected), free(s.log);
    mir_live_free(&s.lv);
    return 0;
}
