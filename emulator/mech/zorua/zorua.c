/*
 * zorua.c - Zorua's resource virtualization for the resource-manager slot
 * (core.resource_mgr = zorua; timing/slots.h): Vijaykumar, Hsieh, Pekhimenko, Khan,
 * Shrestha, Ghose, Jog, Gibbons, Mutlu, "Zorua: A Holistic Approach to Resource
 * Virtualization in GPUs", MICRO 2016 (Sections 4 and 5; docs/zorua.md).
 *
 * Three resources are virtual: warp slots (thread slots), scratchpad in sets of
 * zorua.smem_set bytes per CTA, and registers in sets of zorua.reg_set registers x the
 * warp size per warp. Each has a physical size, a free count, an amount held in the swap
 * space and o_thresh, the swap space it may use. A register or scratchpad set is mapped
 * (a mapping-table entry per warp and set, or per CTA and set) to a physical set, to the
 * swap space, or to nothing.
 *
 * The coordinator. A CTA arrives while the SM has a free CTA slot and warp contexts
 * (1 + zorua.o_max/100 times its warp slots), its resident warps stay within the warp
 * slots plus their o_thresh, the scratchpad of the resident CTAs and its own within the
 * physical scratchpad plus its o_thresh (scratchpad is the CTA's, so a CTA that could only
 * wait for it is not admitted: another SM may start it sooner), and no warp waits in a
 * queue. Each warp then passes three
 * ordered queues: thread/barrier (a physical warp slot), scratchpad (its CTA holds the sets
 * the warp's phase needs) and registers (the warp holds the sets its phase needs). A
 * grant takes free physical sets first and maps the rest to the swap space, if that
 * stays within o_thresh; a queue's head that cannot be granted blocks the queue. Warps
 * that already hold resources (back from a phase change or a barrier) go before new ones.
 * A warp that has passed all three is schedulable: its scheduler sees it
 * (tm_sm_schedule). When the schedulable warps would stay below zorua.min_occupancy of the
 * warp slots, the head of a blocked queue is granted past o_thresh (forced
 * oversubscription), so nothing deadlocks.
 *
 * Events. A phase specifier (TmInsn.phase) where the warp's needs change: it gives back
 * the sets the new phase does not need (those in the swap space first, then the least
 * frequently used) and, if it needs more, leaves its scheduler for the queue of the first
 * resource it lacks, keeping what it holds. A barrier: the waiting warp gives back its
 * warp slot and, once released, queues for one again. A warp's end gives back its warp
 * slot and registers, a CTA's end its scratchpad.
 *
 * The swap space is global memory at a per-SM, per-resource base, addressed by the owner
 * (warp context or CTA slot) and the set. When an instruction reads or writes a register
 * set that is in the swap space, it waits (stall.resource) while the set is read back,
 * as a real memory request through the SM's L1, the L2 and DRAM; the set takes a free
 * physical set or the least frequently used one of the SM (not the instruction's own;
 * among the sets of warps that cannot issue now first), which is spilled with a write if
 * it was ever written. A shared-memory access that
 * touches a swapped scratchpad set does the same, but holds the warp's next instruction,
 * not the access itself: the addresses are known only once the access has executed
 * (execute-at-issue). A set mapped to nothing (fresh, or one a phase gave back) and a
 * swapped set never written need no read. The frequency counters halve every epoch.
 *
 * o_thresh (Algorithm 3): every zorua.epoch cycles, per SM, c_idle (issue slots with no
 * warp to issue or only warps at a barrier) and c_mem (issue slots held by the memory
 * pipeline or a swap-in) are compared with the last epoch's; o_thresh of every resource
 * rises by zorua.o_step when c_idle grew more than c_mem by zorua.c_delta_thresh, and
 * falls when c_mem did, within [0, zorua.o_max].
 *
 * Results stay the functional model's: the functional core executes every instruction
 * at issue with the warp's real registers and shared memory; the mapping decides only
 * when instructions may issue and what memory traffic the swap space adds.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mech/mech.h"
#include "timing/gpu.h"
#include "timing/sm.h"
#include "mech/registry.h"
#include "stats/jsonw.h"
#include "stats/printer.h"

enum { ZQ_THREAD, ZQ_SMEM, ZQ_REG, ZQ_N }; /* the queues, in order; also the resources */

/* What a warp context is doing. */
enum { ZW_FREE, ZW_QUEUED, ZW_SCHED, ZW_BARRIER, ZW_DONE };

/* A mapping-table entry: a physical set, or one of these. */
#define ZM_NONE 0xFFFFFFFFu       /* mapped to nothing */
#define ZM_SWAP 0x80000000u       /* in the swap space; | ZM_WRITTEN: it holds data */
#define ZM_WRITTEN 0x40000000u

/* A physical set: who maps it (warp context or CTA slot, and the set), how often it was
 * used, whether it was ever written, whether a swap-in holds it for its warp. */
typedef struct ZPhys {
    uint32_t owner;  /* UINT32_MAX: free */
    uint16_t set;
    uint8_t written, pinned;
    uint32_t freq;
} ZPhys;

/* One resource of one SM. Amounts in sets (warp slots for ZQ_THREAD). */
typedef struct ZRes {
    uint32_t phys, nfree, swap, othresh;
    ZPhys *p;        /* [phys] (not for ZQ_THREAD) */
    uint32_t *free;  /* [phys] free physical sets, a stack */
    uint32_t set_bytes;
    uint64_t base;   /* the swap space's base register */
} ZRes;

typedef struct ZWarp {
    uint8_t stage, queue, thread; /* thread: holds a physical warp slot */
    uint8_t prio;                 /* in its queue: already holds resources */
    uint64_t seq;                 /* order of entering its queue */
    uint32_t held;                /* register sets mapped (physical or swap) */
    uint32_t quota;               /* register sets its phase needs */
    uint32_t smem_need;           /* scratchpad sets its phase needs (its CTA's) */
    uint32_t pending;             /* swap-in reads in flight */
    uint32_t missed;              /* of its next instruction's sets, those it waited for */
    uint8_t pins;                 /* some set is pinned for it */
    const XPhase *phase;          /* the specifier it last applied */
    uint32_t *map;                /* [nsets] */
} ZWarp;

typedef struct ZCta {
    uint32_t held;                /* scratchpad sets mapped */
    uint32_t *map;                /* [nsmem] */
} ZCta;

/* A swap request waiting for the LD/ST unit. */
typedef struct ZReq {
    uint64_t addr;
    uint16_t slot;                /* the warp that waits (reads) */
    uint8_t kind, size;
} ZReq;

typedef struct Zs {
    ZRes r[ZQ_N];
    ZWarp *w;                     /* [max_warps] */
    ZCta *c;                      /* [core.max_ctas_per_sm] */
    uint32_t nsets, nsmem;        /* a warp's register sets, a CTA's scratchpad sets at most */
    uint32_t resident;            /* warps resident (contexts used) */
    uint32_t smem_committed;      /* scratchpad sets of the resident CTAs (nsmem each) */
    uint32_t qlen[ZQ_N];
    uint64_t seq;
    int dirty;                    /* something changed that a grant may use */
    ZReq *req;                    /* ring of swap requests */
    uint32_t rhead, rlen, rcap;
    uint32_t min_sched;           /* schedulable warps below which grants are forced */
    uint64_t idle_prev, mem_prev; /* Algorithm 3's counters at the last epoch */
    Cycle acct;                   /* time-weighted counters accounted up to here */
} Zs;

/* The launch's timer: the next epoch. */
typedef struct ZLaunch {
    Cycle next;
} ZLaunch;

static uint32_t div_up(uint64_t a, uint64_t b)
{
    return (uint32_t)((a + b - 1) / b);
}

static uint32_t phys_warps(const EmuConfig *c)
{
    return c->gpu_max_threads_per_sm / XGPU_WARP_SIZE;
}

static uint32_t pct_of(double pct, uint32_t of)
{
    return (uint32_t)(pct * of / 100.0);
}

static uint32_t zorua_contexts(const EmuConfig *c)
{
    uint32_t p = phys_warps(c);
    return p + pct_of(c->zorua_o_max, p);
}

/* --- time-weighted counters -------------------------------------------------------------- */

static void account(TmSm *sm, Zs *z, Cycle upto)
{
    if (upto <= z->acct)
        return;
    Cycle n = upto - z->acct;
    TmCounters *c = sm->ctr;
    c->zorua_qthread_cycles += n * z->qlen[ZQ_THREAD];
    c->zorua_qsmem_cycles += n * z->qlen[ZQ_SMEM];
    c->zorua_qreg_cycles += n * z->qlen[ZQ_REG];
    c->zorua_othresh_thread_cycles += n * z->r[ZQ_THREAD].othresh;
    c->zorua_othresh_smem_cycles += n * z->r[ZQ_SMEM].othresh;
    c->zorua_othresh_reg_cycles += n * z->r[ZQ_REG].othresh;
    z->acct = upto;
}

static void enqueue(TmSm *sm, Zs *z, uint16_t slot, unsigned q, int prio)
{
    ZWarp *w = &z->w[slot];
    account(sm, z, sm->gpu->now);
    w->stage = ZW_QUEUED, w->queue = (uint8_t)q, w->prio = (uint8_t)prio, w->seq = z->seq++;
    z->qlen[q]++;
    z->dirty = 1;
}

static void dequeue(TmSm *sm, Zs *z, uint16_t slot)
{
    ZWarp *w = &z->w[slot];
    if (w->stage != ZW_QUEUED)
        return;
    account(sm, z, sm->gpu->now);
    z->qlen[w->queue]--;
    w->stage = ZW_FREE;
}

/* --- physical sets and the swap space ---------------------------------------------------- */

static uint64_t swap_addr(const ZRes *r, uint32_t owner, uint32_t set)
{
    return r->base + ((uint64_t)owner << 24) + (uint64_t)set * r->set_bytes;
}

/* Queues a swap access of one set (a warp-level access of set_bytes / 32 bytes per lane). */
static void swap_access(TmSm *sm, Zs *z, const ZRes *r, uint32_t owner, uint32_t set,
                        unsigned kind, uint16_t slot)
{
    if (z->rlen == z->rcap) {
        uint32_t cap = z->rcap ? 2 * z->rcap : 64;
        ZReq *q = malloc(cap * sizeof *q);
        if (!q) {
            tm_sm_fault(sm, EMU_ERR_OUT_OF_MEMORY, NULL, NULL);
            return;
        }
        for (uint32_t i = 0; i < z->rlen; i++)
            q[i] = z->req[(z->rhead + i) % z->rcap];
        free(z->req);
        z->req = q, z->rcap = cap, z->rhead = 0;
    }
    z->req[(z->rhead + z->rlen++) % z->rcap] =
        (ZReq){.addr = swap_addr(r, owner, set), .slot = slot, .kind = (uint8_t)kind,
               .size = (uint8_t)(r->set_bytes / XGPU_WARP_SIZE)};
    TmCounters *c = sm->ctr;
    c->zorua_swap_reads += kind == TM_READ;
    c->zorua_swap_writes += kind == TM_WRITE;
    c->zorua_swap_bytes += r->set_bytes;
}

/* The owner's mapping table of resource q. */
static uint32_t *map_of(Zs *z, unsigned q, uint32_t owner)
{
    return q == ZQ_REG ? z->w[owner].map : z->c[owner].map;
}

/* Whether set `set` of owner is one the current access excludes from eviction. */
typedef struct ZKeep {
    uint32_t owner;
    const uint8_t *sets; /* bit per set */
} ZKeep;

static int kept(const ZKeep *k, const ZPhys *p)
{
    return p->pinned || (p->owner == k->owner && (k->sets[p->set / 8] >> (p->set % 8) & 1));
}

/* A physical set of resource q for (owner, set): a free one, or the least frequently
 * used one not kept, whose owner's entry moves to the swap space (spilled if written).
 * Returns its index, or UINT32_MAX when every set is kept. */
static uint32_t take_phys(TmSm *sm, Zs *z, unsigned q, uint32_t owner, uint32_t set,
                          const ZKeep *keep)
{
    ZRes *r = &z->r[q];
    uint32_t i;
    if (r->nfree) {
        i = r->free[--r->nfree];
    } else {
        /* the least frequently used set, among those of warps that cannot issue now
         * (queued or at a barrier) first: a running warp's set would come back soon */
        uint32_t best = UINT32_MAX;
        for (int pass = q == ZQ_REG ? 0 : 1; pass < 2 && best == UINT32_MAX; pass++)
            for (uint32_t j = 0; j < r->phys; j++)
                if (!kept(keep, &r->p[j]) &&
                    (pass || z->w[r->p[j].owner].stage != ZW_SCHED) &&
                    (best == UINT32_MAX || r->p[j].freq < r->p[best].freq))
                    best = j;
        if (best == UINT32_MAX)
            return UINT32_MAX;
        i = best;
        ZPhys *v = &r->p[i];
        map_of(z, q, v->owner)[v->set] = ZM_SWAP | (v->written ? ZM_WRITTEN : 0);
        r->swap++;
        if (v->written)
            swap_access(sm, z, r, v->owner, v->set, TM_WRITE, UINT16_MAX);
    }
    r->p[i] = (ZPhys){.owner = owner, .set = (uint16_t)set, .freq = 1};
    return i;
}

static void give_phys(ZRes *r, uint32_t i)
{
    r->p[i].owner = UINT32_MAX;
    r->p[i].pinned = 0;
    r->free[r->nfree++] = i;
}

/* Gives back entry m of a mapping table. */
static void give_entry(ZRes *r, uint32_t *m)
{
    if (*m == ZM_NONE)
        return;
    if (*m & ZM_SWAP)
        r->swap--;
    else
        give_phys(r, *m);
    *m = ZM_NONE;
}

/* Gives back sets of table map[0 .. n) until `keep` remain mapped: swapped ones first,
 * then the least frequently used. Returns the number still mapped. */
static uint32_t trim(ZRes *r, uint32_t *map, uint32_t n, uint32_t held, uint32_t keep)
{
    for (uint32_t s = 0; s < n && held > keep; s++)
        if (map[s] != ZM_NONE && (map[s] & ZM_SWAP))
            give_entry(r, &map[s]), held--;
    while (held > keep) {
        uint32_t best = UINT32_MAX;
        for (uint32_t s = 0; s < n; s++)
            if (map[s] != ZM_NONE &&
                (best == UINT32_MAX || r->p[map[s]].freq < r->p[map[best]].freq))
                best = s;
        give_entry(r, &map[best]), held--;
    }
    return held;
}

/* Maps `want` more sets of map[0 .. n) (the lowest unmapped ones): physical first, the
 * rest in the swap space (fresh: nothing to read). */
static void grow(Zs *z, unsigned q, uint32_t owner, uint32_t *map, uint32_t n, uint32_t want)
{
    ZRes *r = &z->r[q];
    for (uint32_t s = 0; s < n && want; s++) {
        if (map[s] != ZM_NONE)
            continue;
        if (r->nfree) {
            uint32_t i = r->free[--r->nfree];
            r->p[i] = (ZPhys){.owner = owner, .set = (uint16_t)s, .freq = 1};
            map[s] = i;
        } else {
            map[s] = ZM_SWAP;
            r->swap++;
        }
        want--;
    }
}

/* --- the coordinator --------------------------------------------------------------------- */

/* Whether resource q can give `want` more sets within o_thresh. */
static int within(const ZRes *r, uint32_t want)
{
    uint32_t room = r->nfree + (r->othresh > r->swap ? r->othresh - r->swap : 0);
    return want <= room;
}

/* Tries to pass warp slot through queue q; returns 1 when it did. */
static int grant(TmSm *sm, Zs *z, uint16_t slot, unsigned q, int force)
{
    ZWarp *w = &z->w[slot];
    ZCta *c = &z->c[sm->warp[slot].cta - sm->cta];
    ZRes *r = &z->r[q];
    uint32_t want = 0;
    if (q == ZQ_THREAD) {
        if (!r->nfree)
            return 0; /* a warp is schedulable only in a physical warp slot */
        r->nfree--;
        w->thread = 1;
    } else {
        uint32_t have = q == ZQ_SMEM ? c->held : w->held;
        uint32_t need = q == ZQ_SMEM ? w->smem_need : w->quota;
        want = need > have ? need - have : 0;
        if (want && !within(r, want) && !force)
            return 0;
        if (want && !within(r, want))
            sm->ctr->zorua_forced++;
        sm->ctr->zorua_oversub_grants += want > r->nfree;
        if (q == ZQ_SMEM)
            grow(z, q, (uint32_t)(c - z->c), c->map, z->nsmem, want), c->held += want;
        else
            grow(z, q, slot, w->map, z->nsets, want), w->held += want;
    }
    sm->ctr->zorua_grants++;
    return 1;
}

/* The queued warp of queue q that goes first: holders first, then by arrival. */
static int queue_head(const TmSm *sm, const Zs *z, unsigned q)
{
    int best = -1;
    for (uint32_t s = 0; s < sm->max_warps; s++) {
        const ZWarp *w = &z->w[s];
        if (w->stage != ZW_QUEUED || w->queue != q)
            continue;
        if (best < 0 || w->prio > z->w[best].prio ||
            (w->prio == z->w[best].prio && w->seq < z->w[best].seq))
            best = (int)s;
    }
    return best;
}

/* Passes queued warps while their heads can be granted. Returns whether any moved. */
static int coordinate(TmSm *sm, Zs *z)
{
    int moved = 0, progress = 1;
    while (progress) {
        progress = 0;
        for (unsigned q = ZQ_N; q-- > 0;) { /* later queues first: they are nearer issue */
            int head;
            while ((head = queue_head(sm, z, q)) >= 0) {
                int force = sm->sched_warps < z->min_sched;
                if (!grant(sm, z, (uint16_t)head, q, force))
                    break;
                dequeue(sm, z, (uint16_t)head);
                if (q + 1 < ZQ_N) {
                    enqueue(sm, z, (uint16_t)head, q + 1, z->w[head].prio);
                } else {
                    z->w[head].stage = ZW_SCHED;
                    tm_sm_schedule(sm, (uint16_t)head, 1);
                }
                moved = progress = 1;
            }
        }
    }
    z->dirty = 0; /* nothing more passes until something changes */
    if (moved)
        tm_sm_room(sm); /* admission waits for empty queues */
    return moved;
}

/* --- what a warp and a CTA need ---------------------------------------------------------- */

/* The phase's needs: register sets, scratchpad sets. */
static void phase_needs(const TmSm *sm, const Zs *z, const XPhase *p, uint32_t *regs,
                        uint32_t *smem)
{
    const TmGpu *g = sm->gpu;
    const EmuConfig *c = sm->cfg;
    if (!p || !c->zorua_phases) {
        *regs = z->nsets;
        *smem = z->nsmem;
        return;
    }
    uint64_t bytes = p->shared;
    if (p->flags & XPHASE_DYNAMIC)
        bytes += g->cta_dyn_shared;
    *regs = div_up(p->regs, c->zorua_reg_set);
    *smem = div_up(bytes, c->zorua_smem_set);
    *regs = *regs < z->nsets ? *regs : z->nsets;
    *smem = *smem < z->nsmem ? *smem : z->nsmem;
}

/* The most any live warp of CTA t needs. */
static uint32_t cta_need(const TmSm *sm, const Zs *z, const TmCta *t)
{
    uint32_t need = 0;
    for (uint32_t i = 0; i < sm->x.nwarps; i++) {
        uint16_t s = t->slot[i];
        if (sm->warp[s].fw && sm->warp[s].cta == t && z->w[s].stage != ZW_DONE &&
            z->w[s].smem_need > need)
            need = z->w[s].smem_need;
    }
    return need;
}

/* --- the slot's hooks -------------------------------------------------------------------- */

static int zorua_sm_init(TmSm *sm)
{
    const EmuConfig *c = sm->cfg;
    const TmGpu *g = sm->gpu;
    Zs *z = calloc(1, sizeof *z);
    if (!z)
        return -1;
    sm->res_state = z;
    uint32_t pw = phys_warps(c);
    z->r[ZQ_THREAD].phys = z->r[ZQ_THREAD].nfree = pw;
    z->r[ZQ_SMEM].phys = (uint32_t)(c->gpu_shared_per_sm / c->zorua_smem_set);
    z->r[ZQ_REG].phys = c->gpu_regs_per_sm / (c->zorua_reg_set * XGPU_WARP_SIZE);
    z->r[ZQ_SMEM].set_bytes = c->zorua_smem_set;
    z->r[ZQ_REG].set_bytes = c->zorua_reg_set * 4 * XGPU_WARP_SIZE;
    for (unsigned q = 0; q < ZQ_N; q++) {
        ZRes *r = &z->r[q];
        r->othresh = pct_of(c->zorua_o_default, r->phys);
        r->base = 1ull << 62 | (uint64_t)sm->id << 40 | (uint64_t)q << 38;
        if (q == ZQ_THREAD)
            continue;
        r->nfree = r->phys;
        r->p = calloc(r->phys ? r->phys : 1, sizeof *r->p);
        r->free = calloc(r->phys ? r->phys : 1, sizeof *r->free);
        if (!r->p || !r->free)
            return -1;
        for (uint32_t i = 0; i < r->phys; i++)
            r->p[i].owner = UINT32_MAX, r->free[i] = r->phys - 1 - i;
    }
    z->nsets = div_up(g->cta_regs / (g->cta_warps * XGPU_WARP_SIZE), c->zorua_reg_set);
    z->nsmem = div_up(g->cta_shared, c->zorua_smem_set);
    z->min_sched = div_up((uint64_t)(c->zorua_min_occupancy * pw), 100);
    z->w = calloc(sm->max_warps, sizeof *z->w);
    z->c = calloc(c->core_max_ctas_per_sm, sizeof *z->c);
    if (!z->w || !z->c)
        return -1;
    for (uint32_t s = 0; s < sm->max_warps; s++)
        if (!(z->w[s].map = malloc((z->nsets ? z->nsets : 1) * sizeof *z->w[s].map)))
            return -1;
    for (uint32_t i = 0; i < c->core_max_ctas_per_sm; i++)
        if (!(z->c[i].map = malloc((z->nsmem ? z->nsmem : 1) * sizeof *z->c[i].map)))
            return -1;
    return 0;
}

static void zorua_sm_free(TmSm *sm)
{
    Zs *z = sm->res_state;
    if (!z)
        return;
    for (uint32_t s = 0; z->w && s < sm->max_warps; s++)
        free(z->w[s].map);
    for (uint32_t i = 0; z->c && i < sm->cfg->core_max_ctas_per_sm; i++)
        free(z->c[i].map);
    for (unsigned q = 0; q < ZQ_N; q++)
        free(z->r[q].p), free(z->r[q].free);
    free(z->w), free(z->c), free(z->req);
    free(z);
    sm->res_state = NULL;
}

static int zorua_fits(const TmSm *sm)
{
    const Zs *z = sm->res_state;
    const TmGpu *g = sm->gpu;
    const ZRes *t = &z->r[ZQ_THREAD];
    return sm->ncta_live < sm->cfg->core_max_ctas_per_sm &&
           z->resident + g->cta_warps <= sm->max_warps &&
           z->resident + g->cta_warps <= t->phys + t->othresh &&
           z->smem_committed + z->nsmem <= z->r[ZQ_SMEM].phys + z->r[ZQ_SMEM].othresh &&
           !z->qlen[ZQ_THREAD] && !z->qlen[ZQ_SMEM] && !z->qlen[ZQ_REG];
}

static void zorua_cta_start(TmSm *sm, TmCta *t)
{
    Zs *z = sm->res_state;
    ZCta *c = &z->c[t - sm->cta];
    c->held = 0;
    for (uint32_t s = 0; s < z->nsmem; s++)
        c->map[s] = ZM_NONE;
    z->resident += sm->gpu->cta_warps;
    z->smem_committed += z->nsmem;
}

static void zorua_cta_done(TmSm *sm, TmCta *t)
{
    Zs *z = sm->res_state;
    ZCta *c = &z->c[t - sm->cta];
    for (uint32_t s = 0; s < z->nsmem; s++)
        give_entry(&z->r[ZQ_SMEM], &c->map[s]);
    c->held = 0;
    z->smem_committed -= z->nsmem;
    z->dirty = 1;
}

/* The phase at the warp's entry: the specifier at pc 0, if any. */
static const XPhase *entry_phase(const TmSm *sm)
{
    return sm->gpu->kc->count ? sm->gpu->info[0].phase : NULL;
}

static void zorua_warp_start(TmSm *sm, uint16_t slot)
{
    Zs *z = sm->res_state;
    ZWarp *w = &z->w[slot];
    uint32_t *map = w->map;
    *w = (ZWarp){.map = map, .phase = entry_phase(sm)};
    for (uint32_t s = 0; s < z->nsets; s++)
        map[s] = ZM_NONE;
    phase_needs(sm, z, w->phase, &w->quota, &w->smem_need);
    enqueue(sm, z, slot, ZQ_THREAD, 0); /* the coordinator runs in this cycle's tick */
}

static void zorua_warp_done(TmSm *sm, uint16_t slot)
{
    Zs *z = sm->res_state;
    ZWarp *w = &z->w[slot];
    dequeue(sm, z, slot);
    if (w->thread)
        z->r[ZQ_THREAD].nfree++;
    for (uint32_t s = 0; s < z->nsets; s++)
        give_entry(&z->r[ZQ_REG], &w->map[s]);
    w->held = 0, w->thread = 0, w->stage = ZW_FREE;
    z->resident--;
    z->dirty = 1;
    tm_sm_room(sm);
}

/* A barrier released warp slot: it queues for a warp slot again, ahead of new warps. */
static void zorua_warp_wake(TmSm *sm, uint16_t slot, Cycle now)
{
    Zs *z = sm->res_state;
    ZWarp *w = &z->w[slot];
    (void)now;
    if (w->stage != ZW_BARRIER)
        return;
    enqueue(sm, z, slot, ZQ_THREAD, 1);
}

/* Applies phase p at warp slot's issue: gives back what p does not need; returns 1 when
 * the warp must queue for more. */
static int apply_phase(TmSm *sm, Zs *z, uint16_t slot, const XPhase *p)
{
    ZWarp *w = &z->w[slot];
    TmCta *t = sm->warp[slot].cta;
    ZCta *c = &z->c[t - sm->cta];
    uint32_t regs, smem;
    w->phase = p;
    phase_needs(sm, z, p, &regs, &smem);
    if (regs == w->quota && smem == w->smem_need)
        return 0;
    sm->ctr->zorua_phase_changes++;
    w->quota = regs, w->smem_need = smem;
    if (w->held > regs)
        w->held = trim(&z->r[ZQ_REG], w->map, z->nsets, w->held, regs), z->dirty = 1;
    uint32_t cneed = cta_need(sm, z, t);
    if (c->held > cneed)
        c->held = trim(&z->r[ZQ_SMEM], c->map, z->nsmem, c->held, cneed), z->dirty = 1;
    unsigned q = c->held < smem ? ZQ_SMEM : w->held < regs ? ZQ_REG : ZQ_N;
    if (q == ZQ_N)
        return 0;
    sm->ctr->zorua_requeues++;
    w->stage = ZW_FREE;
    tm_sm_schedule(sm, slot, 0);
    enqueue(sm, z, slot, q, 1);
    return 1;
}

/* The register sets instruction ti touches, as a bit set, and which it writes. */
static void insn_sets(const TmInsn *ti, unsigned per_set, uint8_t *sets, uint8_t *writes)
{
    memset(sets, 0, 32), memset(writes, 0, 32);
    for (unsigned i = 0; i < ti->nsrc; i++)
        sets[ti->src[i] / per_set / 8] |= (uint8_t)(1u << (ti->src[i] / per_set % 8));
    for (unsigned i = 0; i < ti->ndst; i++) {
        unsigned s = ti->dst[i] / per_set;
        sets[s / 8] |= (uint8_t)(1u << (s % 8));
        writes[s / 8] |= (uint8_t)(1u << (s % 8));
    }
}

/* Makes set `set` of owner's table map physical for an access (counted); reads it back
 * when it was swapped with data, for warp slot `waiter`. Returns 0, or -1 when every
 * physical set is kept (try again later). */
static int touch(TmSm *sm, Zs *z, unsigned q, uint32_t owner, uint32_t *map, uint32_t set,
                 const ZKeep *keep, uint16_t waiter, int write)
{
    ZRes *r = &z->r[q];
    uint32_t m = map[set];
    if (m != ZM_NONE && !(m & ZM_SWAP)) {
        r->p[m].freq += r->p[m].freq < UINT32_MAX;
        r->p[m].written |= (uint8_t)write;
        return 1;
    }
    uint32_t i = take_phys(sm, z, q, owner, set, keep);
    if (i == UINT32_MAX)
        return -1;
    if (m == ZM_NONE) {
        if (q == ZQ_REG)
            z->w[owner].held++;
        else
            z->c[owner].held++;
    } else {
        r->swap--;
    }
    map[set] = i;
    r->p[i].written = (uint8_t)write;
    if (m != ZM_NONE && (m & ZM_WRITTEN)) {
        r->p[i].written = 1;
        r->p[i].pinned = 1; /* until the waiting warp issues */
        swap_access(sm, z, r, owner, set, TM_READ, waiter);
        z->w[waiter].pending++;
        z->w[waiter].pins = 1;
        return 0;
    }
    return 1;
}

static void unpin(Zs *z, unsigned q, const uint32_t *map, uint32_t n)
{
    for (uint32_t s = 0; s < n; s++)
        if (map[s] != ZM_NONE && !(map[s] & ZM_SWAP))
            z->r[q].p[map[s]].pinned = 0;
}

static int zorua_issue(TmSm *sm, uint16_t slot, const TmInsn *ti, Cycle now)
{
    Zs *z = sm->res_state;
    ZWarp *w = &z->w[slot];
    (void)now;
    if (w->pending)
        return 1;
    if (ti->phase && ti->phase != w->phase && apply_phase(sm, z, slot, ti->phase))
        return 1;
    unsigned per = sm->cfg->zorua_reg_set;
    uint8_t sets[32], writes[32];
    insn_sets(ti, per, sets, writes);
    ZKeep keep = {.owner = slot, .sets = sets};
    int stuck = 0;
    uint32_t touched = 0;
    for (uint32_t s = 0; s < z->nsets && s < 256; s++) {
        if (!(sets[s / 8] >> (s % 8) & 1))
            continue;
        int wr = writes[s / 8] >> (s % 8) & 1;
        int k = touch(sm, z, ZQ_REG, slot, w->map, s, &keep, slot, wr);
        touched++;
        stuck |= k < 0;
        w->missed += k == 0;
    }
    if (w->pending || stuck) {
        if (stuck)
            z->dirty = 1; /* tick retries */
        return 1;
    }
    /* it issues: its sets are counted once, the waits of earlier tries as misses */
    sm->ctr->zorua_rf_accesses += touched;
    sm->ctr->zorua_rf_hits += touched - (w->missed < touched ? w->missed : touched);
    w->missed = 0;
    if (w->pins) {
        unpin(z, ZQ_REG, w->map, z->nsets);
        unpin(z, ZQ_SMEM, z->c[sm->warp[slot].cta - sm->cta].map, z->nsmem);
        w->pins = 0;
    }
    return 0;
}

/* After the instruction executed: a barrier gives back the warp slot; shared-memory
 * accesses touch their scratchpad sets. */
static void zorua_issued(TmSm *sm, uint16_t slot, const TmInsn *ti, const EmuStep *st,
                         Cycle now)
{
    Zs *z = sm->res_state;
    ZWarp *w = &z->w[slot];
    TmWarp *tw = &sm->warp[slot];
    (void)ti, (void)now;
    uint32_t cidx = (uint32_t)(tw->cta - sm->cta);
    ZCta *c = &z->c[cidx];
    unsigned set_bytes = sm->cfg->zorua_smem_set;
    for (uint32_t i = 0; i < st->nacc; i++) {
        const TmAccess *a = &st->acc[i];
        if (a->space != TM_SHARED)
            continue;
        uint8_t sets[32] = {0};
        for (uint32_t m = a->mask; m; m &= m - 1) {
            uint64_t off = a->addr[__builtin_ctz(m)];
            uint64_t first = off / set_bytes, last = (off + (a->size ? a->size : 1) - 1) / set_bytes;
            for (uint64_t s = first; s <= last && s < z->nsmem && s < 256; s++)
                sets[s / 8] |= (uint8_t)(1u << (s % 8));
        }
        ZKeep keep = {.owner = cidx, .sets = sets};
        for (uint32_t s = 0; s < z->nsmem && s < 256; s++) {
            if (!(sets[s / 8] >> (s % 8) & 1))
                continue;
            int k = touch(sm, z, ZQ_SMEM, cidx, c->map, s, &keep, slot, a->kind != TM_READ);
            sm->ctr->zorua_smem_accesses++;
            sm->ctr->zorua_smem_hits += k > 0;
        }
    }
    if (tw->state == EW_BARRIER && w->stage == ZW_SCHED) {
        w->stage = ZW_BARRIER;
        w->thread = 0;
        z->r[ZQ_THREAD].nfree++;
        sm->ctr->zorua_requeues++;
        tm_sm_schedule(sm, slot, 0);
        z->dirty = 1;
    } else if (tw->state == EW_DONE) {
        w->stage = ZW_DONE;
    }
}

static int zorua_tick(TmSm *sm, Cycle now)
{
    Zs *z = sm->res_state;
    int work = 0;
    while (z->rlen) {
        const ZReq *q = &z->req[z->rhead];
        TmAccess a = {.space = TM_GLOBAL, .kind = q->kind, .size = q->size,
                      .mask = 0xffffffffu, .warp = q->slot == UINT16_MAX ? 0 : q->slot};
        for (unsigned l = 0; l < XGPU_WARP_SIZE; l++)
            a.addr[l] = q->addr + (uint64_t)l * q->size;
        if (tm_sm_mem(sm, &a, q->slot, now) < 0)
            break;
        z->rhead = (z->rhead + 1) % z->rcap, z->rlen--;
        work = 1;
    }
    if (z->dirty) {
        coordinate(sm, z);
        for (uint32_t s = 0; s < sm->max_warps; s++) /* a held warp may find a set now */
            if (z->w[s].stage == ZW_SCHED && !z->w[s].pending)
                tm_sm_poke(sm, (uint16_t)s);
        work = 1;
    }
    return work;
}

static Cycle zorua_next(const TmSm *sm, Cycle now)
{
    const Zs *z = sm->res_state;
    return z->dirty || z->rlen ? now + 1 : TM_NEVER;
}

static void zorua_mem_done(TmSm *sm, uint64_t tag, Cycle now)
{
    Zs *z = sm->res_state;
    (void)now;
    if (tag >= sm->max_warps || !z->w[tag].pending) /* a spill: nobody waits */
        return;
    if (!--z->w[tag].pending)
        tm_sm_poke(sm, (uint16_t)tag);
}

/* --- the epoch (Algorithm 3) ------------------------------------------------------------- */

static int zorua_begin(TmGpu *g, void **state, char *err, size_t n)
{
    const EmuConfig *c = g->cfg;
    if (c->core_mem_latency) {
        snprintf(err, n, "core.resource_mgr = zorua: the swap space needs the memory system "
                         "(core.mem_latency = 0)");
        return -1;
    }
    ZLaunch *l = calloc(1, sizeof *l);
    if (!l) {
        snprintf(err, n, "zorua: out of host memory");
        return -1;
    }
    l->next = c->zorua_epoch;
    *state = l;
    return 0;
}

static void zorua_end(TmGpu *g, void *state)
{
    (void)g;
    free(state);
}

static Cycle zorua_timer(const TmGpu *g, const void *state)
{
    (void)g;
    return ((const ZLaunch *)state)->next;
}

static void zorua_settle(TmGpu *g, void *state, Cycle upto)
{
    (void)state;
    for (uint32_t i = 0; i < g->nsm; i++)
        account(g->sm[i], g->sm[i]->res_state, upto);
}

static void step_othresh(ZRes *r, int dir, const EmuConfig *c)
{
    uint32_t step = pct_of(c->zorua_o_step, r->phys), max = pct_of(c->zorua_o_max, r->phys);
    if (!c->zorua_o_step)
        return;
    step = step ? step : 1; /* a step under one set is one set */
    if (dir > 0)
        r->othresh = r->othresh + step < max ? r->othresh + step : max;
    else
        r->othresh = r->othresh > step ? r->othresh - step : 0;
}

static void zorua_epoch(TmGpu *g, void *state)
{
    ZLaunch *l = state;
    const EmuConfig *c = g->cfg;
    for (uint32_t i = 0; i < g->nsm; i++) {
        TmSm *sm = g->sm[i];
        Zs *z = sm->res_state;
        tm_sm_settle(sm);
        account(sm, z, g->now);
        const TmCounters *k = sm->ctr;
        uint64_t idle = k->stall_no_warp + k->stall_barrier;
        uint64_t mem = k->stall_mem + k->stall_resource;
        int64_t di = (int64_t)(idle - z->idle_prev), dm = (int64_t)(mem - z->mem_prev);
        z->idle_prev = idle, z->mem_prev = mem;
        int dir = di - dm > (int64_t)c->zorua_c_delta ? 1 : dm - di > (int64_t)c->zorua_c_delta ? -1 : 0;
        if (dir) {
            for (unsigned q = 0; q < ZQ_N; q++)
                step_othresh(&z->r[q], dir, c);
            sm->ctr->zorua_othresh_up += dir > 0;
            sm->ctr->zorua_othresh_down += dir < 0;
            z->dirty = 1;
            tm_sm_room(sm);
            sm->wake = g->now;
        }
        for (unsigned q = ZQ_SMEM; q < ZQ_N; q++) /* the LFU counters age */
            for (uint32_t j = 0; j < z->r[q].phys; j++)
                z->r[q].p[j].freq >>= 1;
    }
    l->next = g->now + c->zorua_epoch;
}

const TmResourceOps tm_res_zorua = {
    .name = "zorua",
    .launch = {.begin = zorua_begin, .end = zorua_end, .next = zorua_timer,
               .event = zorua_epoch, .settle = zorua_settle},
    .contexts = zorua_contexts,
    .sm_init = zorua_sm_init,
    .sm_free = zorua_sm_free,
    .fits = zorua_fits,
    .cta_start = zorua_cta_start,
    .cta_done = zorua_cta_done,
    .gated = 1,
    .warp_start = zorua_warp_start,
    .warp_wake = zorua_warp_wake,
    .warp_done = zorua_warp_done,
    .issue = zorua_issue,
    .issued = zorua_issued,
    .tick = zorua_tick,
    .next = zorua_next,
    .mem_done = zorua_mem_done,
};

/* Zorua's percentages, and its swap space in the memory system (docs/zorua.md). */
static int zorua_check(const EmuConfig *c, char *err, size_t n)
{
    const struct { const char *key; double v, max; } pct[] = {
        {"zorua.o_default", c->zorua_o_default, c->zorua_o_max},
        {"zorua.o_step", c->zorua_o_step, 100},
        {"zorua.o_max", c->zorua_o_max, 300},
        {"zorua.min_occupancy", c->zorua_min_occupancy, 100},
    };
    for (size_t i = 0; i < sizeof pct / sizeof pct[0]; i++)
        if (pct[i].v < 0 || pct[i].v > pct[i].max) {
            snprintf(err, n, "%s: expected a percentage in [0, %g]%s, got %g", pct[i].key,
                     pct[i].max, i == 0 ? " (zorua.o_max)" : "", pct[i].v);
            return -1;
        }
    if (strcmp(c->core_resource_mgr, "zorua") == 0 && c->core_mem_latency) {
        snprintf(err, n, "core.mem_latency: core.resource_mgr = zorua swaps registers and "
                 "shared memory through the memory system, which core.mem_latency = %u "
                 "replaces (set it to 0)", c->core_mem_latency);
        return -1;
    }
    return 0;
}

/* An interval's mean schedulable warps per SM and mean o_thresh of each resource per
 * SM, in sets (warp slots for threads; docs/zorua.md). */
static void zorua_interval(JsonW *w, const EmuStatView *v, const EmuConfig *c, uint32_t nsm)
{
    static const char *const res[][2] = {{"reg", "zorua.othresh_reg_cycles"},
                                         {"smem", "zorua.othresh_smem_cycles"},
                                         {"thread", "zorua.othresh_thread_cycles"}};
    if (strcmp(c->core_resource_mgr, "zorua") != 0)
        return;
    double sm_cycles = (double)v->cycles * nsm;
    jw_object(w, "othresh");
    for (size_t r = 0; r < 3; r++)
        jw_real(w, res[r][0], (double)emu_stat_get(v, res[r][1]) / sm_cycles);
    jw_end(w);
    jw_real(w, "schedulable_warps",
            (double)emu_stat_get(v, "core.schedulable_warp_cycles") / sm_cycles);
}

const EmuMech emu_mech_zorua = {
    .name = "zorua", .check = zorua_check, .interval = zorua_interval,
};
