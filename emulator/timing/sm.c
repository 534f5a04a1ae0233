/*
 * sm.c - one SM of the timing model: warp slots, resident CTAs, and the per-cycle order
 * of its sub-cores' pipelines.
 *
 * A cycle, in this order: the LD/ST unit advances and reports finished accesses;
 * write-back (writeback.c) writes ready results and clears their scoreboard bits; then
 * every sub-core grants register reads (rf.c), dispatches collected instructions to
 * their units (ocu.c) and issues one instruction, or with core.issue_width up to that
 * many of one warp (below).
 *
 * Issue: the scheduler policy (sched.c) orders the sub-core's warps; the first whose
 * next instruction may go issues. A warp may not issue while it waits at a barrier, its
 * instruction buffer refills (core.fetch_latency after a taken branch), its instruction
 * has a source or destination with a write in flight (scoreboard.c), its unit cannot
 * accept an instruction by the next cycle, or no operand collector is free. When nothing
 * issues, the cycle's stall cause is the one of the warp that got furthest (TmStall
 * order), or "no warp". Issuing executes the instruction in the functional core at once
 * (emu_warp_step): control instructions (branches, exit, barriers) are resolved then and
 * take no collector or unit; others take a collector and queue their register reads.
 * With core.issue_width above 1 the warp that issued may issue its next instructions in
 * the same cycle when they are independent of it (issue_more: dual issue).
 * The issue order, the collector allocation, how operands are collected and what a
 * result does at write-back are the policy slots' (slots.h): the SM calls their hooks.
 *
 * CTAs: a CTA takes warp slots (lowest free first) and, under the resource-manager
 * slot's baseline (static, below), registers (nregs x threads rounded up to whole warps),
 * shared memory and threads; a warp slot is freed when the warp has exited and its last
 * instruction completed, the CTA when all its warps are freed.
 */
#include <stdlib.h>
#include <string.h>
#include "timing/sched.h"
#include "timing/sm.h"

static int sc_init(TmSm *sm, TmSubcore *sc, uint32_t id, const TmSchedOps *ops,
                   int private_collectors)
{
    const EmuConfig *cfg = sm->cfg;
    sc->id = id;
    sc->nslots = (sm->max_warps + sm->nsc - 1 - id) / sm->nsc;
    sc->slots = calloc(sc->nslots + 1, sizeof *sc->slots);
    sc->nocu = private_collectors ? sc->nslots : cfg->rf_collectors_per_subcore;
    sc->ocu = calloc(sc->nocu ? sc->nocu : 1, sizeof *sc->ocu);
    sc->sched = tm_sched_new(ops, sc->nslots, cfg->core_sched_active);
    if (!sc->slots || !sc->ocu || !sc->sched || tm_rf_init(sc, cfg))
        return -1;
    for (uint32_t k = 0; k < sc->nslots; k++)
        sc->slots[k] = (uint16_t)(id + k * sm->nsc);
    return 0;
}

/* The LD/ST unit's hooks into the assist slot (ldst_assist). */
static void sm_park(void *ctx, const TmReq *r, Cycle now)
{
    TmSm *sm = ctx;
    sm->assist->fill(sm, r, now);
    sm->stir = 1;
}

static int sm_hold(void *ctx, TmReq *r, Cycle now)
{
    TmSm *sm = ctx;
    int kept = sm->assist->store(sm, r, now);
    sm->stir |= kept;
    return kept;
}

/* EmuWlog.watch: the SM's global writes, as they are applied, for the memory system's
 * stale copies (memsys_write). */
static void sm_watch(void *ctx, uint64_t addr, unsigned n, int after)
{
    TmSm *sm = ctx;
    memsys_write(sm->gpu->mem, sm->id, addr, n, after);
}

TmSm *tm_sm_new(TmGpu *g, uint32_t id, char *err, size_t n)
{
    const EmuConfig *cfg = g->cfg;
    const TmSchedOps *ops = g->issue;
    TmSm *sm = calloc(1, sizeof *sm);
    if (!sm) {
        snprintf(err, n, "out of host memory");
        return NULL;
    }
    sm->id = id, sm->gpu = g, sm->cfg = cfg, sm->ctr = &g->unit[id], sm->rng = &sm->own_rng;
    sm->stages = cfg->core_collect_stages || cfg->core_dispatch_stages;
    sm->one_port = strcmp(cfg->rf_collector_port, "one") == 0;
    sm->collect_stages = cfg->core_collect_stages, sm->exec_stages = cfg->core_exec_stages;
    sm->dispatch_stages = cfg->core_dispatch_stages, sm->wb_stages = cfg->core_wb_stages;
    for (unsigned c = 0; c < TC_COUNT; c++)
        sm->unit_lead[c] = c == TC_LDST                ? 1
                           : cfg->core_issue_waits_unit ? 1 + sm->collect_stages + sm->exec_stages
                                                        : TM_LEAD_NEVER;
    uint32_t lanes[TC_COUNT] = {cfg->unit_int_lanes, cfg->unit_fp_lanes, cfg->unit_dp_lanes,
                                cfg->unit_sfu_lanes, 0, 0, 0};
    for (unsigned c = 0; c < TC_COUNT; c++)
        sm->unit_lanes[c] = lanes[c], sm->unit_ii[c] = tm_unit_ii(cfg, c);
    sm->issue_width = cfg->core_issue_width;
    /* the SM's own execution context: the launch's, with its global writes logged until
     * the end of the cycle and the budget kept by the device loop (gpu_cycle.c) */
    sm->x = *g->x;
    sm->x.wlog = &sm->wlog;
    sm->x.budget = UINT64_MAX;
    sm->x.progress = 0;
    sm->x.slice_end = UINT64_MAX;
    sm->x.winsns = sm->x.tinsns = sm->x.bad_accesses = sm->x.pf_bytes = sm->x.pf_dropped = 0;
    sm->x.grid_waiting = 0;
    sm->x.bad_seen = &g->bad_seen;
    sm->x.cta = NULL;
    emu_exec_init_stop(&sm->x);
    /* SM i's stream: SM 0 draws what the launch's single stream used to */
    tm_rng_seed(&sm->own_rng, cfg->emu_seed + id * 0xd1b54a32d192ed03ull);
    sm->issue = ops, sm->coll = g->coll, sm->res = g->res, sm->assist = g->assist;
    /* the issue policy's allocation wins over the collector's, the default is random */
    sm->pick = ops->pick ? ops->pick : sm->coll->pick ? sm->coll->pick : tm_pick_random;
    int private_collectors = ops->private_collectors || sm->coll->private_collectors;
    sm->max_warps = sm->res->contexts ? sm->res->contexts(cfg)
                                      : cfg->gpu_max_threads_per_sm / XGPU_WARP_SIZE;
    sm->nsc = cfg->core_subcores;
    sm->warp = aligned_alloc(_Alignof(TmWarp), sm->max_warps * sizeof *sm->warp);
    if (sm->warp)
        memset(sm->warp, 0, sm->max_warps * sizeof *sm->warp);
    sm->sc = calloc(sm->nsc, sizeof *sm->sc);
    sm->cta = calloc(cfg->core_max_ctas_per_sm, sizeof *sm->cta);
    int bad = !sm->warp || !sm->sc || !sm->cta;
    for (uint32_t i = 0; i < sm->nsc && !bad; i++)
        bad = sc_init(sm, &sm->sc[i], i, ops, private_collectors);
    if (!bad && sm->coll->sm_init)
        bad = sm->coll->sm_init(sm);
    if (!bad && ops->sm_init)
        bad = ops->sm_init(sm);
    if (!bad && sm->res->sm_init)
        bad = sm->res->sm_init(sm);
    if (!bad && !cfg->core_mem_latency) {
        sm->ldst = ldst_new(cfg, id, sm->ctr, err, n);
        if (!sm->ldst)
            return tm_sm_free(sm), NULL;
        ldst_connect(sm->ldst, g->mem, &g->d->uvm, &g->d->props);
        TmLaunchView v = tm_gpu_view(g);
        bad = ldst_observe(sm->ldst, &v, g->obs, g->mech[TM_SLOT_OBSERVER].state) < 0;
        ldst_coherence(sm->ldst, g->coh, g->mech[TM_SLOT_COHERENCE].state);
        if (memsys_view(g->mem, id, &g->now, &sm->view)) { /* GPUs with L2s of their own */
            sm->x.view = &sm->view;
            sm->wlog.watch = sm_watch, sm->wlog.watch_ctx = sm;
        }
        if (sm->assist->fill || sm->assist->store)
            ldst_assist(sm->ldst, sm->assist->fill ? sm_park : NULL,
                        sm->assist->store ? sm_hold : NULL, sm);
    }
    if (!bad && sm->assist->sm_init)
        bad = sm->assist->sm_init(sm);
    if (bad) {
        snprintf(err, n, "out of host memory");
        tm_sm_free(sm);
        return NULL;
    }
    return sm;
}

void tm_sm_free(TmSm *sm)
{
    if (!sm)
        return;
    for (uint32_t i = 0; sm->sc && i < sm->nsc; i++) {
        tm_rf_free(&sm->sc[i], sm->cfg);
        tm_sched_free(sm->sc[i].sched);
        free(sm->sc[i].slots);
        free(sm->sc[i].ocu);
    }
    for (uint32_t i = 0; sm->cta && i < sm->cfg->core_max_ctas_per_sm; i++) {
        emu_cta_free(&sm->cta[i].c, &sm->x);
        free(sm->cta[i].slot);
    }
    if (sm->ldst)
        ldst_free(sm->ldst);
    emu_wlog_free(&sm->wlog);
    if (sm->coll && sm->coll->sm_free)
        sm->coll->sm_free(sm);
    if (sm->issue && sm->issue->sm_free)
        sm->issue->sm_free(sm);
    if (sm->res && sm->res->sm_free)
        sm->res->sm_free(sm);
    if (sm->assist && sm->assist->sm_free)
        sm->assist->sm_free(sm);
    free(sm->sc);
    free(sm->cta);
    free(sm->warp);
    free(sm->wb);
    free(sm->wb_free);
    free(sm->wb_keep);
    tm_heap_free(&sm->wb_ready);
    free(sm);
}

/* --- CTAs ------------------------------------------------------------------------------- */

/* The static resource manager: a CTA holds its warp slots, threads, registers and shared
 * memory from its start to its end (the baseline of the resource-manager slot). */
static int static_fits(const TmSm *sm)
{
    const TmGpu *g = sm->gpu;
    return sm->ncta_live < sm->cfg->core_max_ctas_per_sm &&
           sm->warps_used + g->cta_warps <= sm->cfg->gpu_max_threads_per_sm / XGPU_WARP_SIZE &&
           sm->threads_used + g->cta_threads <= sm->cfg->gpu_max_threads_per_sm &&
           sm->regs_used + g->cta_regs <= sm->cfg->gpu_regs_per_sm &&
           sm->shared_used + g->cta_shared <= sm->cfg->gpu_shared_per_sm;
}

static void static_start(TmSm *sm, TmCta *t)
{
    const TmGpu *g = sm->gpu;
    (void)t;
    sm->warps_used += g->cta_warps;
    sm->threads_used += g->cta_threads;
    sm->regs_used += g->cta_regs;
    sm->shared_used += g->cta_shared;
}

static void static_done(TmSm *sm, TmCta *t)
{
    const TmGpu *g = sm->gpu;
    (void)t;
    sm->warps_used -= g->cta_warps;
    sm->threads_used -= g->cta_threads;
    sm->regs_used -= g->cta_regs;
    sm->shared_used -= g->cta_shared;
}

const TmResourceOps tm_res_static = {.name = "static", .fits = static_fits,
                                     .cta_start = static_start, .cta_done = static_done};

int tm_sm_fits(const TmSm *sm)
{
    return sm->res->fits(sm);
}

static TmCta *cta_slot(TmSm *sm)
{
    TmGpu *g = sm->gpu;
    for (uint32_t i = 0; i < sm->cfg->core_max_ctas_per_sm; i++) {
        TmCta *t = &sm->cta[i];
        if (t->live)
            continue;
        if (!t->c.warps && emu_cta_alloc(&t->c, &sm->x, g->kc->nrows))
            return NULL;
        if (!t->slot && !(t->slot = calloc(sm->x.nwarps, sizeof *t->slot)))
            return NULL;
        return t;
    }
    return NULL;
}

/* The pc of a functional warp, and the instruction there. */
static uint32_t warp_pc(const EmuWarp *fw)
{
    return fw->depth ? fw->stack[fw->depth - 1].pc : 0;
}

static const TmInsn *insn_at(const TmSm *sm, uint32_t pc)
{
    static const TmInsn past_end = {.cls = TC_CTRL};
    return pc < sm->gpu->kc->count ? &sm->gpu->info[pc] : &past_end;
}

EmuStatus tm_sm_start_cta(TmSm *sm, EmuDim3 ctaid, Cycle now)
{
    TmCta *t = cta_slot(sm);
    if (!t)
        return EMU_ERR_OUT_OF_MEMORY;
    tm_sm_settle(sm); /* before occupancy changes */
    t->c.smid = sm->id;
    emu_cta_start(&sm->x, &t->c, ctaid);
    t->live = 1;
    t->warps_left = sm->x.nwarps;
    uint32_t s = 0;
    for (uint32_t i = 0; i < sm->x.nwarps; i++, s++) {
        while (sm->warp[s].fw)
            s++;
        EmuWarp *fw = &t->c.warps[i];
        sm->warp[s] = (TmWarp){.fw = fw, .ti = insn_at(sm, warp_pc(fw)), .cta = t,
                               .ready_at = now, .state = (uint8_t)fw->state};
        t->slot[i] = (uint16_t)s;
        if (sm->coll->warp_start)
            sm->coll->warp_start(sm, (uint16_t)s);
        if (!sm->res->gated)
            tm_sm_schedule(sm, (uint16_t)s, 1);
    }
    sm->ncta_live++;
    sm->res->cta_start(sm, t);
    for (uint32_t i = 0; sm->res->warp_start && i < sm->x.nwarps; i++)
        sm->res->warp_start(sm, t->slot[i]);
    sm->active_warps += sm->x.nwarps;
    sm->ctr->ctas++;
    sm->wake = now;
    return EMU_OK;
}

void tm_sm_warp_done(TmSm *sm, uint16_t slot)
{
    TmWarp *w = &sm->warp[slot];
    TmCta *t = w->cta;
    if (sm->coll->warp_done)
        sm->coll->warp_done(sm, slot);
    if (sm->res->warp_done)
        sm->res->warp_done(sm, slot);
    tm_sm_schedule(sm, slot, 0);
    *w = (TmWarp){0};
    sm->active_warps--;
    if (--t->warps_left)
        return;
    t->live = 0;
    sm->ncta_live--;
    sm->res->cta_done(sm, t);
    sm->ctas_finished++; /* the device loop gathers it (gpu_cycle.c) */
}

/* --- what a resource manager asks of the SM (slots.h) ---------------------------------- */

void tm_sm_schedule(TmSm *sm, uint16_t slot, int on)
{
    TmWarp *w = &sm->warp[slot];
    TmSubcore *sc = &sm->sc[slot % sm->nsc];
    if (on == w->sched)
        return;
    tm_sm_settle(sm); /* before the schedulable count changes */
    w->sched = (uint8_t)on;
    if (w->state == EW_BARRIER && on)
        sm->sched_barrier++;
    else if (w->state == EW_BARRIER)
        sm->sched_barrier--;
    if (on)
        tm_sched_add(sc->sched, slot), sm->sched_warps++;
    else
        tm_sched_remove(sc->sched, slot), sm->sched_warps--;
    sc->issue_wake = 0;
    sm->stir = 1;
}

void tm_sm_poke(TmSm *sm, uint16_t slot)
{
    sm->sc[slot % sm->nsc].issue_wake = 0;
    sm->stir = 1;
}

/* Tags of the resource manager's own accesses: the LD/ST unit returns tags as given, and
 * those of instructions are write-back entry indices (below 2^32). */
#define TM_TAG_RES (1ull << 62)

int tm_sm_mem(TmSm *sm, const TmAccess *a, uint64_t tag, Cycle now)
{
    if (!sm->ldst || ldst_issue(sm->ldst, a, TM_TAG_RES | tag, now) < 0)
        return -1;
    sm->stir = 1;
    return 0;
}

void tm_sm_room(TmSm *sm)
{
    sm->room = 1;
}

/* --- what an assist mechanism asks of the SM (slots.h) --------------------------------- */

void tm_sm_fill(TmSm *sm, const TmReq *r, Cycle now)
{
    ldst_fill(sm->ldst, r, now);
    sm->stir = 1;
}

int tm_sm_hold(TmSm *sm, uint16_t slot, int on, Cycle now)
{
    TmWarp *w = &sm->warp[slot];
    if (!w->fw)
        return 0;
    if (on) {
        w->held_ready = w->ready_at;
        w->ready_at = TM_NEVER; /* the warp's buffer holds another's instructions */
    } else {
        w->ready_at = w->held_ready > now + 1 ? w->held_ready : now + 1;
    }
    sm->sc[slot % sm->nsc].issue_wake = 0;
    sm->stir = 1;
    return 1;
}

int tm_sm_send(TmSm *sm, const TmReq *r, Cycle now)
{
    if (memsys_send(sm->gpu->mem, r, now) < 0)
        return -1;
    sm->stir = 1;
    return 0;
}

/* --- issue ------------------------------------------------------------------------------ */

/* Inline: count_stall runs for every sub-core in every cycle it is awake. */
static inline __attribute__((always_inline)) uint64_t *stall_counter(TmCounters *c,
                                                                     unsigned cause)
{
    switch (cause) {
    case TS_NO_WARP: return &c->stall_no_warp;
    case TS_BARRIER: return &c->stall_barrier;
    case TS_IBUFFER: return &c->stall_ibuffer;
    case TS_SCOREBOARD: return &c->stall_scoreboard;
    case TS_UNIT: return &c->stall_unit;
    case TS_MEM: return &c->stall_mem;
    case TS_RESOURCE: return &c->stall_resource;
    case TS_ASSIST: return &c->stall_assist;
    case TS_COLLECTOR: return &c->stall_collector;
    default: return &c->issued;
    }
}

/* CTA t's released warps issue from the next cycle. */
static void barrier_wake(TmSm *sm, TmCta *t, Cycle now)
{
    sm->ctr->barrier_releases++;
    tm_sm_settle(sm); /* a grid barrier may release a sleeping SM's warps */
    for (uint32_t i = 0; i < sm->nsc; i++)
        sm->sc[i].issue_wake = 0;
    for (uint32_t i = 0; i < sm->x.nwarps; i++) {
        TmWarp *w = &sm->warp[t->slot[i]];
        if (!w->fw)
            continue;
        sm->sched_barrier -= w->state == EW_BARRIER && w->sched;
        w->state = (uint8_t)w->fw->state; /* released: running again */
        if (w->state == EW_RUN && w->ready_at <= now)
            w->ready_at = now + 1;
        if (sm->res->warp_wake)
            sm->res->warp_wake(sm, t->slot[i], now);
    }
}

void tm_sm_grid_release(TmSm *sm, Cycle now)
{
    int woken = 0;
    for (uint32_t j = 0; j < sm->cfg->core_max_ctas_per_sm; j++) {
        TmCta *t = &sm->cta[j];
        if (!t->live || !t->c.grid_wait)
            continue;
        if (!woken)
            tm_sm_settle(sm);
        woken = 1;
        emu_grid_release(&sm->x, &t->c);
        barrier_wake(sm, t, now);
    }
    if (woken)
        sm->wake = sm->wake < now + 1 ? sm->wake : now + 1;
}

void tm_sm_fault(TmSm *sm, EmuStatus s, EmuWarp *fw, EmuCta *c)
{
    if (!sm->status)
        sm->status = s, sm->fw = fw, sm->fcta = c;
}

/* After warp w of CTA t stopped running (barrier, exit): release the barrier if all
 * arrived; the released warps issue from the next cycle. */
static void barrier_check(TmSm *sm, TmCta *t, Cycle now)
{
    int released;
    EmuWarp *fw = NULL;
    EmuStatus s = emu_cta_sync(&sm->x, &t->c, &fw, &released);
    if (s) {
        tm_sm_fault(sm, s, fw, &t->c);
        return;
    }
    if (released)
        barrier_wake(sm, t, now); /* a grid barrier waits for the device (gpu_cycle.c) */
}

/* Issues the instruction at warp slot's pc (checks passed); ocu is -1 for control.
 * Returns 1 when the warp runs on to the next instruction in sequence (no fault, no
 * branch or reconvergence jump, no barrier, not done). */
static int issue(TmSm *sm, TmSubcore *sc, uint16_t slot, const TmInsn *ti, int ocu, Cycle now)
{
    TmGpu *g = sm->gpu;
    TmWarp *w = &sm->warp[slot];
    EmuStep ctrl, *st = ocu >= 0 ? &sc->ocu[ocu].step : &ctrl;
    EmuStatus s = emu_warp_step(&sm->x, &w->cta->c, w->fw, ti->cls == TC_LDST && sm->ldst, st);
    EmuWarp *fw = w->fw;
    uint32_t pc = warp_pc(fw);
    w->ti = insn_at(sm, pc); /* only a step moves the pc */
    w->state = (uint8_t)fw->state;
    sm->sched_barrier += w->state == EW_BARRIER && w->sched;
    sm->ctr->warp_insns++;
    sm->ctr->phase_boundaries += ti->phase != NULL;
    if (s) {
        tm_sm_fault(sm, s, w->fw, &w->cta->c);
        return 0;
    }
    for (uint32_t i = 0; i < st->nacc; i++) /* who made each access */
        st->acc[i].warp = slot, st->acc[i].pc = st->pc;
    if (ti->fence && g->coh->fence && sm->ldst &&
        g->coh->fence(g->mech[TM_SLOT_COHERENCE].state, sm->id, ti->fence - 1u)) {
        ldst_invalidate_l1(sm->ldst);
        sm->ctr->l1_fence_flushes++;
    }
    tm_sched_note(sc->sched, slot);
    if (ti->konst && sm->ldst)
        ldst_const_read(sm->ldst, ti->konst - 1, now);
    if (sm->coll->warp_issued)
        sm->coll->warp_issued(sm, slot);
    if (sm->res->issued)
        sm->res->issued(sm, slot, ti, st, now);
    if (ocu >= 0) {
        TmOcu *o = &sc->ocu[ocu];
        o->busy = 1, o->slot = slot, o->cls = ti->cls, o->reads_left = ti->nsrc;
        o->issued = now, o->read_at = 0, o->seq = sm->seq++, o->ti = ti, o->acc_next = 0;
        o->wb = -1;
        sc->ocu_busy++;
        sm->coll->fill(sm, sc, (uint32_t)ocu, slot, ti, now);
        tm_sb_set(w, ti);
        w->inflight++;
        w->long_ops += ti->cls == TC_LDST || ti->cls == TC_SFU;
    }
    w->ready_at = now + 1;
    if (fw->state == EW_RUN && pc != st->pc + 1)
        w->ready_at += sm->cfg->core_fetch_latency;
    if (fw->state != EW_RUN)
        barrier_check(sm, w->cta, now);
    if (fw->state == EW_DONE && !w->inflight)
        tm_sm_warp_done(sm, slot);
    return fw->state == EW_RUN && pc == st->pc + 1;
}

/* The collector for warp slot's instruction (>= 0), or TM_PICK_BUSY / TM_PICK_STOP with
 * sc->last_pick saying why. */
static int pick_collector(TmSm *sm, TmSubcore *sc, uint16_t slot)
{
    unsigned why = TPS_NONE;
    int ocu = sm->pick(sm, sc, slot, &why);
    if (why == TPS_WAIT) /* the policy's state moved: scan again next cycle */
        sm->stir = 1;
    if (why > sc->last_pick)
        sc->last_pick = (uint8_t)why;
    return ocu;
}

/* Why warp w cannot issue now, its collector aside (TS_ISSUED: it can); *ti gets its
 * instruction once the warp is running and its buffer full. */
static unsigned warp_ready(const TmSm *sm, const TmSubcore *sc, const TmWarp *w,
                           const TmInsn **ti, Cycle now)
{
    if (w->state == EW_DONE)
        return TS_NO_WARP;
    if (w->state == EW_BARRIER)
        return TS_BARRIER;
    if (w->ready_at > now)
        return TS_IBUFFER;
    *ti = w->ti;
    if (tm_sb_blocked(w, *ti))
        return TS_SCOREBOARD;
    unsigned cls = (*ti)->cls;
    if (cls == TC_CTRL)
        return TS_ISSUED;
    if (sc->issue_at[cls] > now) /* the unit is busy when the instruction could start */
        return cls == TC_LDST ? TS_MEM : TS_UNIT;
    if (cls == TC_LDST && sc->mem_blocked)
        return TS_MEM;
    return TS_ISSUED;
}

/* Whether ti's constant-bank operand is in the constant cache (ldst_const_ready): the
 * last condition of issue, after warp_ready, which every scan runs for every warp and
 * which stays small enough to be inlined there. */
static __attribute__((noinline)) int konst_ready(const TmSm *sm, const TmInsn *ti,
                                                  Cycle now)
{
    return !sm->ldst || ldst_const_ready(sm->ldst, ti->konst - 1, now);
}

/* Why warp slot cannot issue now (TS_ISSUED: it can); *ocu gets a free collector, or
 * TM_PICK_STOP when the scheduler must issue nothing more this cycle. */
static unsigned can_issue(TmSm *sm, TmSubcore *sc, uint16_t slot, const TmInsn **ti,
                          int *ocu, Cycle now)
{
    unsigned why = warp_ready(sm, sc, &sm->warp[slot], ti, now);
    if (why == TS_ISSUED && (*ti)->konst && !konst_ready(sm, *ti, now))
        why = TS_MEM; /* its constant-bank operand is not in the constant cache yet */
    if (why == TS_ISSUED && sm->res->issue && sm->res->issue(sm, slot, *ti, now))
        return TS_RESOURCE;
    if (why != TS_ISSUED || (*ti)->cls == TC_CTRL)
        return why;
    if ((*ocu = pick_collector(sm, sc, slot)) < 0)
        return TS_COLLECTOR;
    return TS_ISSUED;
}

/* Whether warp w's instruction ti may issue in the cycle in which the instructions
 * before it did (dual issue, issue_more): not control, nothing it reads or writes has a
 * write in flight (the scoreboard holds theirs by now), it writes nothing they read
 * (read: the registers they name), and its unit starts it by the time it could start,
 * after the k of its class issued before it in the cycle, in the same cycle as theirs. */
static int pair_ready(const TmSm *sm, const TmSubcore *sc, const TmWarp *w, const TmInsn *ti,
                      const uint64_t *read, unsigned k, Cycle now)
{
    if (!w->sched || ti->cls == TC_CTRL || tm_sb_blocked(w, ti))
        return 0;
    for (unsigned j = 0; j < ti->ndst; j++)
        if (read[ti->dst[j] >> 6] >> (ti->dst[j] & 63) & 1)
            return 0;
    if (ti->cls == TC_LDST && sc->mem_blocked)
        return 0;
    if (ti->konst && !konst_ready(sm, ti, now))
        return 0;
    return k ? tm_unit_takes(sm, sc, ti->cls, k, now) : sc->issue_at[ti->cls] <= now;
}

/* Dual issue (core.issue_width > 1): after warp slot issued `first`, its following
 * instructions issue in the same cycle, up to the width, while each runs in sequence from
 * the one before (no branch, reconvergence jump or barrier between them), is independent
 * of those issued before it in the cycle (pair_ready), the resource manager lets it go
 * and a collector is free. Only one warp's instructions pair, as in NVIDIA's Kepler and
 * Maxwell schedulers. */
static void issue_more(TmSm *sm, TmSubcore *sc, uint16_t slot, const TmInsn *first, Cycle now)
{
    /* The device loop counts the budget exactly once fewer instructions are left than one
     * per sub-core of every SM (gpu_cycle.c); until then a cycle must not issue more than
     * are left, so nothing pairs while fewer than a full-width cycle's are (g->insns
     * changes only between the SMs' ticks). */
    const TmGpu *g = sm->gpu;
    if (g->x->budget - g->insns <= (uint64_t)g->nsm * sm->nsc * sm->issue_width)
        return;
    uint8_t taken[TC_COUNT] = {0};
    uint64_t read[4];
    memcpy(read, first->regs, sizeof read);
    taken[first->cls] = 1;
    for (uint32_t n = 1; n < sm->issue_width; n++) {
        TmWarp *w = &sm->warp[slot];
        const TmInsn *ti = w->ti;
        int ocu;
        if (!pair_ready(sm, sc, w, ti, read, taken[ti->cls], now) ||
            (sm->res->issue && sm->res->issue(sm, slot, ti, now)) ||
            (ocu = pick_collector(sm, sc, slot)) < 0 || !issue(sm, sc, slot, ti, ocu, now))
            return;
        taken[ti->cls]++;
        for (unsigned j = 0; j < 4; j++)
            read[j] |= ti->regs[j];
    }
}

/* Counts n issue slots in two-level state st. */
static void count_tl(TmCounters *c, unsigned st, uint64_t n)
{
    switch (st) {
    case TL_ISSUED: c->tl_issued += n; break;
    case TL_PENDING_READY: c->tl_pending_ready += n; break;
    default: c->tl_none_ready += n; break;
    }
}

/* Counts the cycle's issue outcome. */
static void count_stall(TmSm *sm, TmSubcore *sc, unsigned best)
{
    if (tm_sched_two_level(sc->sched))
        count_tl(sm->ctr, sc->last_tl, 1);
    sm->ctr->ocu_alloc_stalls += best == TS_COLLECTOR;
    if (best == TS_COLLECTOR && sc->last_pick) {
        sm->ctr->pick_wait += sc->last_pick == TPS_WAIT;
        sm->ctr->pick_none_free += sc->last_pick == TPS_NONE_FREE;
    }
    sm->stir |= best == TS_COLLECTOR; /* counted per tick, not by tm_sm_skip */
    sc->stall_ctr = stall_counter(sm->ctr, best);
    (*sc->stall_ctr)++;
    sc->last_stall = (uint8_t)best;
    sc->stall_plain = best != TS_COLLECTOR && !tm_sched_two_level(sc->sched);
}

/* After a scan that issued nothing: the first cycle a time-dependent check of can_issue
 * (a warp's ready time, a unit's initiation interval) changes its answer. Other inputs
 * (scoreboard, collectors, warps, barriers, mem_blocked) reset issue_wake when they
 * change. */
static Cycle issue_next(const TmSm *sm, const TmSubcore *sc, Cycle now)
{
    Cycle next = TM_NEVER;
    for (uint32_t k = 0; k < sc->nslots; k++) {
        const TmWarp *w = &sm->warp[sc->slots[k]];
        if (w->fw && w->ready_at > now && w->ready_at < next)
            next = w->ready_at;
    }
    for (unsigned c = 0; c < TC_COUNT; c++) /* warp_ready's test */
        if (sc->issue_at[c] > now && sc->issue_at[c] < next)
            next = sc->issue_at[c];
    return next;
}

/* Two-level policies: whether a pending warp could issue now if it were active (its
 * collector aside). */
static int pending_ready(const TmSm *sm, const TmSubcore *sc, Cycle now)
{
    const TmSched *s = sc->sched;
    for (uint32_t i = 0; i < s->npend; i++) {
        const TmInsn *ti;
        if (warp_ready(sm, sc, &sm->warp[s->pend[i]], &ti, now) == TS_ISSUED &&
            (!ti->konst || konst_ready(sm, ti, now)))
            return 1;
    }
    return 0;
}

/* The issue scan (the caller has checked that issue_wake has passed). */
static int subcore_issue(TmSm *sm, TmSubcore *sc, Cycle now)
{
    uint16_t scratch[256];
    const uint16_t *order;
    uint32_t n = sc->sched->ops->order(sc->sched, sm, sc, &order, scratch);
    unsigned best = TS_NO_WARP;
    int moved = 0;
    sc->last_pick = TPS_NONE;
    for (uint32_t i = 0; i < n && !sm->status; i++) {
        const TmInsn *ti = NULL;
        int ocu = -1;
        TmWarp *w = &sm->warp[order[i]];
        if (sm->coll->scan && sm->coll->scan(sm, sc, order[i])) {
            moved = 1;
            continue;
        }
        unsigned why = can_issue(sm, sc, order[i], &ti, &ocu, now);
        if (why == TS_ISSUED) {
            if (issue(sm, sc, order[i], ti, ocu, now) && sm->issue_width > 1 &&
                ti->cls != TC_CTRL)
                issue_more(sm, sc, order[i], ti, now);
            best = TS_ISSUED;
            break;
        }
        if (sc->sched->ops->long_stall &&
            (why == TS_BARRIER || (why == TS_SCOREBOARD && w->long_ops)) &&
            sc->sched->ops->long_stall(sc->sched, order[i])) {
            moved = 1;
            sm->ctr->tl_demotions++;
            if (sm->coll->warp_demoted)
                sm->coll->warp_demoted(sm, order[i]);
        }
        if (why > best)
            best = why;
        if (ocu == TM_PICK_STOP)
            break;
    }
    moved |= sc->last_pick == TPS_WAIT; /* the policy's state changed */
    sm->stir |= moved;
    if (tm_sched_two_level(sc->sched))
        sc->last_tl = best == TS_ISSUED          ? TL_ISSUED
                      : pending_ready(sm, sc, now) ? TL_PENDING_READY
                                                   : TL_NONE_READY;
    count_stall(sm, sc, best);
    sc->issue_wake = best == TS_ISSUED || moved ? 0 : issue_next(sm, sc, now);
    return best == TS_ISSUED;
}

/* --- the cycle --------------------------------------------------------------------------- */

static int mem_tick(TmSm *sm, Cycle now)
{
    if (!sm->ldst)
        return 0;
    int work = ldst_tick(sm->ldst, now);
    if (ldst_const_news(sm->ldst))
        for (uint32_t i = 0; i < sm->nsc; i++)
            sm->sc[i].issue_wake = 0; /* a warp waiting on a constant-bank operand may go */
    uint64_t tag;
    while (ldst_done(sm->ldst, &tag, now)) {
        if (tag & TM_TAG_RES)
            sm->res->mem_done(sm, tag & ~TM_TAG_RES, now);
        else
            tm_wb_mem_done(sm, tag, now);
        work = 1;
    }
    return work;
}

static Cycle later_min(Cycle best, Cycle t, Cycle now)
{
    return t > now && t < best ? t : best;
}

/* Write-back, unit initiation intervals for issue, warp ready times: per sub-core that is
 * issue_next, which a sub-core's issue_wake still holds while it is later than now (every
 * change of a ready time or an initiation interval resets issue_wake). */
static Cycle core_next(const TmSm *sm, Cycle now)
{
    Cycle next = tm_wb_next(sm, now);
    for (uint32_t i = 0; i < sm->nsc; i++) {
        const TmSubcore *sc = &sm->sc[i];
        next = later_min(next, sc->issue_wake > now ? sc->issue_wake : issue_next(sm, sc, now),
                         now);
    }
    return next;
}

/* After a tick that did nothing and changed nothing, the ticks up to this cycle would
 * repeat it exactly (barring memory responses and new CTAs, which gpu_cycle.c watches): the
 * earliest cycle a time-dependent check (ready times, initiation intervals for issue and
 * for dispatch, write-back, the LD/ST unit, the shared-memory banks) can change its
 * answer. */
static Cycle sm_wake(const TmSm *sm, Cycle now)
{
    Cycle next = core_next(sm, now);
    Cycle exec = sm->exec_stages;
    for (uint32_t i = 0; i < sm->nsc; i++) { /* a collected operand dispatches then */
        const TmSubcore *sc = &sm->sc[i];
        for (unsigned c = 0; c < TC_COUNT; c++) {
            Cycle u = sc->unit_next[c];
            next = later_min(next, c != TC_LDST && u > exec ? u - exec : u, now);
        }
        if (sm->stages) /* reads and dispatches that wait for the pipeline's stages */
            next = later_min(next, tm_stage_wake(sm, sc, now), now);
    }
    if (sm->ldst)
        next = later_min(next, ldst_wake(sm->ldst, now), now);
    if (sm->res->next)
        next = later_min(next, sm->res->next(sm, now), now);
    if (sm->assist->next)
        next = later_min(next, sm->assist->next(sm, now), now);
    return next;
}

/* One sub-core's arbiter, dispatch and issue slot. With assist (the SM has an assist
 * mechanism), the assist slot's first may take the slot, and its idle may use a slot the
 * program left. */
static inline int subcore_cycle(TmSm *sm, TmSubcore *sc,
                                                                Cycle now, int assist)
{
    int work = 0; /* the checks skip calls that would do nothing */
    if (sc->reads_queued)
        work |= tm_rf_arbitrate(sm, sc, now);
    if (sc->ocu_collected)
        work |= tm_ocu_dispatch(sm, sc, now);
    if (assist && sm->assist->first && sm->assist->first(sm, sc, now)) {
        count_stall(sm, sc, TS_ASSIST); /* the assist mechanism took the slot */
        sc->issue_wake = 0;
        return 1;
    }
    if (sc->issue_wake > now && sc->stall_plain) /* the last scan's answer holds */
        (*sc->stall_ctr)++;
    else if (sc->issue_wake > now)
        count_stall(sm, sc, sc->last_stall);
    else if (subcore_issue(sm, sc, now))
        return 1;
    if (assist && sm->assist->idle && sm->assist->idle(sm, sc, now)) {
        sc->issue_wake = 0; /* it may have taken a unit the scan looked at */
        work = 1;
    }
    return work;
}

int tm_sm_tick(TmSm *sm, Cycle now)
{
    if (sm->slept)
        tm_sm_settle(sm);
    sm->stir = 0;
    int work = mem_tick(sm, now);
    work |= tm_wb_tick(sm, now);
    if (sm->res->tick)
        work |= sm->res->tick(sm, now);
    int assist = sm->assist->first || sm->assist->idle;
    for (uint32_t i = 0; i < sm->nsc; i++)
        work |= subcore_cycle(sm, &sm->sc[i], now, assist);
    sm->ctr->subcore_cycles += sm->nsc;
    sm->ctr->active_warp_cycles += sm->active_warps;
    sm->ctr->sched_warp_cycles += sm->sched_warps - sm->sched_barrier;
    sm->ctr->sm_busy_cycles += sm->ncta_live != 0;
    sm->wake = work || sm->stir ? now + 1 : sm_wake(sm, now);
    return work;
}

void tm_sm_skip(TmSm *sm, Cycle n)
{
    if (sm->ldst)
        ldst_skip(sm->ldst, n);
    for (uint32_t i = 0; i < sm->nsc; i++) {
        *stall_counter(sm->ctr, sm->sc[i].last_stall) += n;
        if (tm_sched_two_level(sm->sc[i].sched))
            count_tl(sm->ctr, sm->sc[i].last_tl, n);
    }
    sm->ctr->subcore_cycles += n * sm->nsc;
    sm->ctr->active_warp_cycles += n * sm->active_warps;
    sm->ctr->sched_warp_cycles += n * (sm->sched_warps - sm->sched_barrier);
    sm->ctr->sm_busy_cycles += sm->ncta_live ? n : 0;
}

void tm_sm_settle(TmSm *sm)
{
    if (sm->slept)
        tm_sm_skip(sm, sm->slept);
    sm->slept = 0;
}

int tm_sm_idle(const TmSm *sm)
{
    return !sm->ncta_live && !sm->wb_live && (!sm->ldst || ldst_idle(sm->ldst)) &&
           (!sm->assist->busy || !sm->assist->busy(sm));
}

void tm_sm_dump(const TmSm *sm, FILE *f)
{
    fprintf(f, "sm %u: %u CTAs, %llu warps, %u instructions in flight\n", sm->id,
            sm->ncta_live, (unsigned long long)sm->active_warps, sm->wb_live);
    for (uint32_t s = 0; s < sm->max_warps; s++) {
        const TmWarp *w = &sm->warp[s];
        if (w->fw)
            fprintf(f, "  slot %u: warp %u state %u pc %u inflight %u ready_at %llu\n", s,
                    w->fw->id, w->fw->state,
                    w->fw->depth ? w->fw->stack[w->fw->depth - 1].pc : 0, w->inflight,
                    (unsigned long long)w->ready_at);
    }
    if (sm->ldst)
        ldst_dump(sm->ldst, f);
}
