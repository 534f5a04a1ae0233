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
 * Register pressure: the pass counts the 32-bit registers live at each point (a wide
 * vreg counts 2; values live out of the block, from mir_live, stay live to its end) and
 * does not let the count exceed a limit while another choice stays under it; when every
 * choice exceeds it, the one that adds the fewest registers wins, then source order. The
 * limit is the larger of the kernel's peak in source order (the schedule never needs
 * more than the unscheduled code did) and a target of 3/4 of the register budget, at
 * most 32 registers: the margin leaves the register allocator room for what the count
 * does not see (its intervals have no holes; pairs must be aligned), and 32 registers per
 * thread is what a full SM of the compile target leaves (sm_70: 2048 threads, 65536
 * registers), so latency hiding does not cost occupancy there.
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
    /* per instruction of the block (capacity cap) */
    uint32_t cap;
    uint32_t *lat, *height, *npred, *earliest, *order, *cand, *first, *rd, *rdnext;
    Edge *succ;       /* successors grouped by first[] */
    Edge *edges;
    uint32_t nedges, capedges;
    MInsn *tmp;       /* the block's instructions in their new order */
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

/* Sets the counts up for block b with its instructions [0, n) still to issue. */
static void press_begin(Sched *s, uint32_t b, uint32_t n)
{
    const MBlock *bb = &s->f->blocks[b];
    s->pressure = 0;
    each_in_set(s, mir_live_in(&s->lv, b), set_live, 1);
    each_in_set(s, mir_live_out(&s->lv, b), set_at_end, 1);
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

/* The change in live registers once x has issued. */
static int press_delta(const Sched *s, const MInsn *x)
{
    unsigned peak, kept;
    press_defs(s, x, &peak, &kept);
    return (int)kept - (int)press_dying(s, x);
}

static void press_issue(Sched *s, const MInsn *x)
{
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
    free(s->tmp);
    s->tmp = xcalloc(n, sizeof *s->tmp);
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
    int over;     /* would raise pressure above the limit */
    int delta;    /* change of live registers */
    int ready;    /* operands ready by now */
    uint32_t at;  /* cycle it could issue */
} Choice;

/* 1 when a is the better choice than b. Over the limit, the fewest new registers win,
 * then source order. */
static int better(const Sched *s, const MInsn *ins, const Choice *a, const Choice *b)
{
    if (a->over != b->over)
        return !a->over;
    if (a->over)
        return a->delta != b->delta ? a->delta < b->delta : a->i < b->i;
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

/* Index in s->cand of the instruction to issue at cycle now. An instruction goes over
 * the limit if the registers live while it issues exceed it, or if it is not the first
 * candidate in source order and that one could no longer follow it within the limit
 * (a one-step look-ahead: filling the limit with loads would leave no room for the
 * instruction that starts using them). */
static uint32_t pick(const Sched *s, const MInsn *ins, uint32_t ncand, uint32_t now)
{
    uint32_t lo = s->cand[0];
    for (uint32_t c = 1; c < ncand; c++)
        lo = s->cand[c] < lo ? s->cand[c] : lo;
    uint32_t lo_peak = press_peak(s, &ins[lo]);
    uint32_t lo_rise = lo_peak > s->pressure ? lo_peak - s->pressure : 0;
    uint32_t best = UINT32_MAX;
    Choice bc = {0};
    for (uint32_t c = 0; c < ncand; c++) {
        uint32_t i = s->cand[c];
        if (i - lo >= WINDOW)
            continue;
        int delta = press_delta(s, &ins[i]);
        int over = press_peak(s, &ins[i]) > s->limit ||
                   (i != lo && (int64_t)s->pressure + delta + lo_rise > s->limit);
        Choice ch = {.i = i, .over = over, .delta = delta, .ready = s->earliest[i] <= now,
                     .at = s->earliest[i]};
        if (best == UINT32_MAX || better(s, ins, &ch, &bc))
            best = c, bc = ch;
    }
    return best;
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
    for (uint32_t k = 0; k < n; k++) {
        uint32_t c = pick(s, ins, ncand, now), i = s->cand[c];
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

/* The pressure limit of f: its peak in source order, or the target if that is more. */
static uint32_t pressure_limit(Sched *s, const MSchedOptions *o)
{
    uint32_t budget = o && o->max_live ? o->max_live : 255;
    uint32_t target = budget - budget / 4, peak = 0;
    if (target > FULL_OCCUPANCY_REGS)
        target = FULL_OCCUPANCY_REGS;
    for (uint32_t b = 0; b < s->f->nblocks; b++) {
        uint32_t p = block_peak(s, b);
        peak = p > peak ? p : peak;
    }
    return peak > target ? peak : target;
}

int mir_sched(MFunc *f, const MSchedOptions *o)
{
    Sched s = {.f = f};
    mir_live(f, &s.lv);
    s.uses = xcalloc(f->nvregs, sizeof *s.uses);
    s.live = xcalloc(f->nvregs, 1);
    s.at_end = xcalloc(f->nvregs, 1);
    s.lastdef = xcalloc(f->nvregs, sizeof *s.lastdef);
    s.readers = xcalloc(f->nvregs, sizeof *s.readers);
    s.limit = pressure_limit(&s, o);
    for (uint32_t b = 0; b < f->nblocks; b++)
        schedule_block(&s, b);
    uint32_t *arr[] = {s.uses, s.lastdef, s.readers, s.lat, s.height, s.npred, s.earliest,
                       s.order, s.cand, s.first, s.rd, s.rdnext};
    for (size_t i = 0; i < sizeof arr / sizeof *arr; i++)
        free(arr[i]);
    free(s.live), free(s.at_end), free(s.succ), free(s.edges), free(s.tmp);
    mir_live_free(&s.lv);
    return 0;
}
