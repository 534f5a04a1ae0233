/*
 * gpu.c - the timing model's device loop for one launch: SMs and the memory system, the
 * CTA scheduler, idle skipping, and the per-launch counters kept on the device.
 *
 * Execute-at-issue (docs/timing.md): the functional core computes every result when an SM
 * issues the instruction (emu_warp_step); the units here only decide when. Results are
 * therefore those of functional mode, CTA placement and warp interleaving aside (which
 * only matter for racy programs).
 *
 * CTA placement is a policy slot (core.cta_placement, slots.h), called at the start of the
 * launch's first cycle and at the start of the cycle after a CTA finishes. The baseline,
 * rr: CTAs go out in grid order (x fastest); each goes to the next SM, from the one after
 * the last SM that got a CTA, that has room for it (the resource-manager slot's fits:
 * for static, warp slots, threads, registers = nregs x threads rounded up to whole warps,
 * shared memory, core.max_ctas_per_sm).
 *
 * The loop: every cycle each SM ticks (gpu_tick_sms, on the emu.threads pool when more
 * than one SM is awake: each SM touches only its own state), then the device gathers what
 * the ticks left, SM by SM in SM order (gpu_gather: the SMs' global stores and atomics,
 * their requests into the memory system, faults, finished CTAs, the grid barrier, the
 * budget), then the memory system ticks (docs/timing.md, "Parallel simulation"). An SM
 * whose last tick did
 * nothing and changed nothing sleeps until the earliest cycle it names (sm.c) or a memory
 * response or CTA reaches it; each cycle it sleeps counts as a repeat of that tick
 * (accounted when it wakes or the counters are read), so the result is the same as
 * ticking it. When nothing happened in
 * a cycle, nothing can happen before the earliest cycle some unit names (an SM's wake
 * cycle, memsys_next), so the loop jumps there, or to the next interval record if that
 * comes first, and accounts the skipped cycles as repeats of the idle one. With
 * emu.skip_idle = false every unit ticks every cycle instead; the statistics must be
 * the same (test 903 checks it on every sample). The
 * launch ends, after its last cycle, when every CTA has finished and every unit is idle;
 * `cycles` counts cycles 0 .. last. A launch with no event pending that is not done is a
 * bug in the model: it dumps every unit and fails with EMU_ERR_LAUNCH_FAILURE; one in
 * which units keep working for emu.stall_cycles cycles without a warp instruction issuing
 * (a livelock; cycles spent waiting do not count) dumps every unit and fails with
 * EMU_ERR_DEADLOCK.
 *
 * A mechanism's timer (slots.h: TmLaunchHooks.next/event, e.g. a policy that adapts at
 * interval ends) is honoured like interval records: the loop never skips past it and
 * calls the event when the cycle reaches it, so skipping cannot move it.
 *
 * Determinism: one splitmix64 generator (rng.h) per SM, seeded from emu.seed and the SM's
 * number; no host time, host address or host thread influences any decision.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "func/memory.h"
#include "stats/log.h"
#include "stats/stats.h"
#include "timing/gpu.h"
#include "timing/pool.h"
#include "timing/sched.h"
#include "timing/sm.h"

/* --- per-pc timing facts ----------------------------------------------------------------- */

static unsigned insn_class(const XInsn *in)
{
    int f64 = 0;
    XUnit u = xisa_insn_unit(in, &f64);
    switch (u) {
    case XU_INT: return TC_INT;
    case XU_FP: return f64 ? TC_DP : TC_FP;
    case XU_SFU: return TC_SFU;
    case XU_TENSOR: return TC_TENSOR;
    case XU_LDST: return (xisa_ops[in->op].flags & XI_MEM) ? TC_LDST : TC_CTRL;
    default: return TC_CTRL;
    }
}

/* Registers of slot i (dst or src) appended to out: RZ dropped, each register once (an
 * instruction reads a register once however many operands name it). */
static unsigned operand_regs(const XInsn *in, int dst, unsigned i, uint8_t *out, unsigned n,
                             unsigned max)
{
    unsigned r = dst ? in->dst[i] : in->src[i], k = xisa_operand_regs(in, dst, i);
    for (unsigned j = 0; j < k && r != XREG_RZ && n < max; j++) {
        unsigned seen = 0;
        for (unsigned m = 0; m < n; m++)
            seen |= out[m] == r + j;
        if (!seen)
            out[n++] = (uint8_t)(r + j);
    }
    return n;
}

/* Sets bit k of *near for every register of operand slot i (dst or src) in list
 * out[0..n): a register named by several operands is near if any of them is. */
static void mark_near(const XInsn *in, int dst, unsigned i, const uint8_t *out, unsigned n,
                      uint16_t *near)
{
    unsigned r = dst ? in->dst[i] : in->src[i], k = xisa_operand_regs(in, dst, i);
    for (unsigned j = 0; j < k && r != XREG_RZ; j++)
        for (unsigned m = 0; m < n; m++)
            if (out[m] == r + j)
                *near |= (uint16_t)(1u << m);
}

/* reuse: the instruction's reuse byte from the compiler's hints (.xgpu.reuse, XREUSE_*;
 * docs/hints.md; 0 without the section: all far).
 * A 64-bit operand's bit covers both registers of the pair. */
void tm_insn_info(const EmuConfig *c, const XInsn *in, uint8_t reuse, TmInsn *t)
{
    memset(t, 0, sizeof *t);
    t->cls = (uint8_t)insn_class(in);
    t->fence = in->op == XOP_membar ? (uint8_t)(in->mod + 1) : 0;
    t->konst = in->flags & XF_CONST ? in->target + 1 : 0;
    t->latency = (uint32_t)tm_insn_latency(c, in, t->cls);
    for (unsigned i = 0; i < 2; i++)
        t->ndst = (uint8_t)operand_regs(in, 1, i, t->dst, t->ndst, TM_MAXDST);
    for (unsigned i = 0; i < 6; i++)
        t->nsrc = (uint8_t)operand_regs(in, 0, i, t->src, t->nsrc, TM_MAXSRC);
    uint16_t dn = 0;
    for (unsigned i = 0; i < 2; i++)
        if (reuse & XREUSE_DST(i))
            mark_near(in, 1, i, t->dst, t->ndst, &dn);
    for (unsigned i = 0; i < 6; i++)
        if (reuse & XREUSE_SRC(i))
            mark_near(in, 0, i, t->src, t->nsrc, &t->src_near);
    t->dst_near = (uint8_t)dn;
    if (t->cls == TC_CTRL)
        t->ndst = 0; /* control results (barred, vprintf) are written at issue */
    for (unsigned i = 0; i < t->nsrc; i++)
        t->regs[t->src[i] >> 6] |= 1ull << (t->src[i] & 63);
    for (unsigned i = 0; i < t->ndst; i++)
        t->regs[t->dst[i] >> 6] |= 1ull << (t->dst[i] & 63);
}

/* --- setup -------------------------------------------------------------------------------- */

int tm_read_line(const EmuDevice *d, uint64_t line, uint8_t *buf, unsigned n)
{
    const EmuProps *p = &d->props;
    if (line - XGPU_GLOBAL_BASE < p->global_limit - p->global_base)
        line += p->global_base - XGPU_GLOBAL_BASE;
    const EmuAlloc *a = emu_mem_lookup(&d->mem, line, n);
    if (!a)
        return -1;
    memcpy(buf, a->host + (line - a->base), n);
    return 0;
}

/* TmLineRead over the device's memory (memsys_set_reader). */
static int read_line(void *ctx, uint64_t line, uint8_t *buf, unsigned n)
{
    return tm_read_line(ctx, line, buf, n);
}

/* The launch's memory system: the device's, carried over (l2.persist), or its own. A
 * device's memory system that a failed launch left with requests in flight is replaced
 * by a cold one. Made before the slots' launch.begin (the coherence slot's L1 part finds
 * its memory side there); told of the launch after (gpu_bind_memsys). */
static int gpu_memsys(TmGpu *g, char *err, size_t n)
{
    EmuDevice *d = g->d;
    if (!g->cfg->l2_persist) {
        g->mem_owned = 1;
        g->mem = memsys_new(g->cfg, &g->ctr, err, n);
    } else {
        if (d->tm_mem && memsys_next_launch(d->tm_mem, &g->ctr)) {
            memsys_free(d->tm_mem);
            d->tm_mem = NULL;
        }
        if (!d->tm_mem)
            d->tm_mem = memsys_new(g->cfg, &g->ctr, err, n);
        g->mem = d->tm_mem;
    }
    if (!g->mem)
        return -1;
    memsys_set_reader(g->mem, read_line, d);
    return 0;
}

static int gpu_bind_memsys(TmGpu *g, char *err, size_t n)
{
    TmLaunchView v = tm_gpu_view(g);
    memsys_observe(g->mem, g->obs, g->mech[TM_SLOT_OBSERVER].state);
    if (memsys_bind(g->mem, &v) < 0) {
        snprintf(err, n, "out of host memory");
        return -1;
    }
    return 0;
}

/* Every SM counts into its own counters (the SMs may tick on different host threads); with
 * stats.per_unit every L2 slice and DRAM channel does too, and the report shows them; in
 * a device of several GPUs so does each GPU's link, and the report sums them by GPU. */
static int gpu_units(TmGpu *g, char *err, size_t n)
{
    const EmuConfig *c = g->cfg;
    int per_unit = (c->stats_per_unit || g->ngpu > 1) && !c->core_mem_latency;
    g->nslice = per_unit ? c->l2_slices * g->ngpu : 0;
    g->nchan = per_unit ? c->dram_channels * g->ngpu : 0;
    g->nlink = per_unit && g->ngpu > 1 ? g->ngpu : 0;
    g->unit = calloc((size_t)g->nsm_total + g->nslice + g->nchan + g->nlink, sizeof *g->unit);
    g->gpu_done = calloc(g->ngpu, sizeof *g->gpu_done);
    g->gpu_next = calloc(g->ngpu, sizeof *g->gpu_next);
    g->gpu_rr = calloc(g->ngpu, sizeof *g->gpu_rr);
    if (!g->unit || !g->gpu_done || !g->gpu_next || !g->gpu_rr) {
        snprintf(err, n, "out of host memory");
        return -1;
    }
    if (g->mem && per_unit)
        memsys_count_into(g->mem, &g->ctr, g->unit + g->nsm_total);
    if (g->mem)
        memsys_count_sms(g->mem, g->unit);
    return 0;
}

static EmuStatus gpu_setup(TmGpu *g, const EmuModule *m, int kernel, char *err, size_t n)
{
    const XKernel *k = &m->bin->kernels[kernel];
    const EmuConfig *c = g->cfg;
    g->cta_threads = g->x->block.x * g->x->block.y * g->x->block.z;
    g->cta_warps = g->x->nwarps;
    g->cta_regs = k->nregs * g->cta_warps * XGPU_WARP_SIZE;
    g->cta_shared = g->x->shared_size;
    g->cta_dyn_shared = g->cta_shared > k->shared_bytes ? g->cta_shared - k->shared_bytes : 0;
    g->ncta = (uint64_t)g->x->grid.x * g->x->grid.y * g->x->grid.z;
    g->ngpu = emu_config_device_gpus(c), g->gpu_sms = c->gpu_sm_count;
    g->nsm_total = g->ngpu * g->gpu_sms;
    if (!c->gpu_sm_count || !c->core_subcores || c->gpu_max_threads_per_sm / 32 / c->core_subcores > 256 ||
        !c->rf_banks_per_subcore || !c->rf_collectors_per_subcore || !c->core_wb_ports) {
        snprintf(err, n, "timing model: gpu.sm_count, core.subcores, core.wb_ports and rf.* must "
                         "be positive, at most 256 warp slots per sub-core");
        return EMU_ERR_INVALID_CONFIG;
    }
    if (g->cta_warps * 32 > c->gpu_max_threads_per_sm || g->cta_regs > c->gpu_regs_per_sm ||
        g->cta_shared > c->gpu_shared_per_sm) {
        snprintf(err, n, "one CTA (%u threads, %u registers, %llu shared bytes) does not fit an SM",
                 g->cta_threads, g->cta_regs, (unsigned long long)g->cta_shared);
        return EMU_ERR_OUT_OF_RESOURCES;
    }
    g->info = calloc(g->kc->count ? g->kc->count : 1, sizeof *g->info);
    if (!g->info)
        return EMU_ERR_OUT_OF_MEMORY;
    for (uint32_t pc = 0; pc < g->kc->count; pc++) {
        uint32_t at = k->code_start + pc;
        uint8_t reuse = m->bin->reuse && at < m->bin->ntext ? m->bin->reuse[at] : 0;
        tm_insn_info(c, &m->bin->text[at], reuse, &g->info[pc]);
    }
    g->code = &m->bin->text[k->code_start];
    for (uint32_t i = 0; i < m->bin->nphases; i++) { /* the compiler's phase specifiers */
        const XPhase *p = &m->bin->phases[i];
        if (p->kernel == (uint32_t)kernel && p->pc < g->kc->count)
            g->info[p->pc].phase = p;
    }
    if (tm_slots_resolve(c, &g->issue, &g->coll, err, n))
        return EMU_ERR_INVALID_CONFIG;
    if (!(g->obs = tm_observer_find(c->mem_observer)) ||
        !(g->res = tm_resource_find(c->core_resource_mgr)) ||
        !(g->place = tm_placement_find(c->core_cta_placement)) ||
        !(g->coh = tm_coherence_find(c->coherence)) ||
        !(g->assist = tm_assist_find(c->core_assist))) {
        snprintf(err, n, "%s: unknown choice", !g->obs ? "mem.observer"
                 : !g->res ? "core.resource_mgr" : !g->place ? "core.cta_placement"
                 : !g->coh ? "coherence" : "core.assist");
        return EMU_ERR_INVALID_CONFIG;
    }
    g->mech[TM_SLOT_ISSUE].hooks = &g->issue->launch;
    g->mech[TM_SLOT_COLLECTOR].hooks = &g->coll->launch;
    g->mech[TM_SLOT_OBSERVER].hooks = &g->obs->launch;
    g->mech[TM_SLOT_RESOURCE].hooks = &g->res->launch;
    g->mech[TM_SLOT_PLACEMENT].hooks = &g->place->launch;
    g->mech[TM_SLOT_COHERENCE].hooks = &g->coh->launch;
    g->mech[TM_SLOT_ASSIST].hooks = &g->assist->launch;
    if (!c->core_mem_latency && gpu_memsys(g, err, n))
        return EMU_ERR_INVALID_CONFIG;
    for (unsigned i = 0; i < TM_NSLOTS; i++) {
        const TmLaunchHooks *h = g->mech[i].hooks;
        if (h->begin && h->begin(g, &g->mech[i].state, err, n))
            return EMU_ERR_INVALID_CONFIG;
        if (h->next)
            g->timed[g->ntimed++] = (uint8_t)i;
    }
    if (g->assist->regs) { /* the assist warps' registers, in the parent's register file */
        g->assist_regs = g->assist->regs(g);
        g->cta_regs = (k->nregs + g->assist_regs) * g->cta_warps * XGPU_WARP_SIZE;
        if (g->cta_regs > c->gpu_regs_per_sm) {
            snprintf(err, n, "one CTA (%u threads, %u registers per thread and %u for its "
                     "assist warps) does not fit an SM's %u registers", g->cta_threads,
                     k->nregs, g->assist_regs, c->gpu_regs_per_sm);
            return EMU_ERR_OUT_OF_RESOURCES;
        }
    }
    if (g->mem && gpu_bind_memsys(g, err, n))
        return EMU_ERR_INVALID_CONFIG;
    if (gpu_units(g, err, n))
        return EMU_ERR_OUT_OF_MEMORY;
    g->recv_head = g->mem ? memsys_recv_heads(g->mem) : NULL;
    g->sm = calloc(g->nsm_total, sizeof *g->sm);
    g->ticked = calloc(g->nsm_total, sizeof *g->ticked);
    if (!g->sm || !g->ticked)
        return EMU_ERR_OUT_OF_MEMORY;
    for (g->nsm = 0; g->nsm < g->nsm_total; g->nsm++)
        if (!(g->sm[g->nsm] = tm_sm_new(g, g->nsm, err, n)))
            return EMU_ERR_INVALID_CONFIG;
    return EMU_OK;
}

TmLaunchView tm_gpu_view(const TmGpu *g)
{
    return (TmLaunchView){.hints = &g->d->hints, .grid = g->x->grid, .nsm = g->nsm_total,
                          .ngpu = g->ngpu, .ctas_per_sm = tm_gpu_ctas_per_sm(g)};
}

uint32_t tm_gpu_ctas_per_sm(const TmGpu *g)
{
    const EmuConfig *c = g->cfg;
    uint64_t n = c->core_max_ctas_per_sm;
    uint64_t by[] = {c->gpu_max_threads_per_sm / ((uint64_t)g->cta_warps * XGPU_WARP_SIZE),
                     g->cta_regs ? c->gpu_regs_per_sm / g->cta_regs : n,
                     g->cta_shared ? c->gpu_shared_per_sm / g->cta_shared : n};
    for (size_t i = 0; i < sizeof by / sizeof by[0]; i++)
        n = by[i] < n ? by[i] : n;
    return n ? (uint32_t)n : 1;
}

static void gpu_free(TmGpu *g)
{
    for (uint32_t i = 0; i < g->nsm; i++)
        tm_sm_free(g->sm[i]);
    free(g->sm);
    free(g->ticked);
    if (g->mem && g->mem_owned)
        memsys_free(g->mem);
    free(g->unit);
    free(g->gpu_done);
    free(g->gpu_next);
    free(g->gpu_rr);
    for (unsigned i = 0; i < TM_NSLOTS; i++)
        if (g->mech[i].hooks && g->mech[i].hooks->end && g->mech[i].state)
            g->mech[i].hooks->end(g, g->mech[i].state);
    free(g->info);
}

/* --- the loop ----------------------------------------------------------------------------- */

static EmuDim3 cta_id(const TmGpu *g, uint64_t i)
{
    const EmuDim3 *gr = &g->x->grid;
    return (EmuDim3){(uint32_t)(i % gr->x), (uint32_t)(i / gr->x % gr->y),
                     (uint32_t)(i / gr->x / gr->y)};
}

/* GPU k's share of the grid (system.cta_split): how many CTAs, and the grid index of
 * its i-th. */
static uint64_t gpu_share(const TmGpu *g, uint32_t k)
{
    if (strcmp(g->cfg->system_cta_split, "interleave") == 0)
        return g->ncta / g->ngpu + (k < g->ncta % g->ngpu);
    return (k + 1) * g->ncta / g->ngpu - k * g->ncta / g->ngpu;
}

static uint64_t gpu_cta(const TmGpu *g, uint32_t k, uint64_t i)
{
    if (strcmp(g->cfg->system_cta_split, "interleave") == 0)
        return k + i * g->ngpu;
    return k * g->ncta / g->ngpu + i;
}

/* With several GPUs, the baseline within each GPU's share of the grid, GPU by GPU. */
static EmuStatus place_rr_gpus(TmGpu *g)
{
    for (uint32_t k = 0; k < g->ngpu; k++) {
        uint64_t share = gpu_share(g, k);
        uint32_t tried = 0;
        while (g->gpu_next[k] < share && tried < g->gpu_sms) {
            TmSm *sm = g->sm[k * g->gpu_sms + g->gpu_rr[k]];
            g->gpu_rr[k] = (g->gpu_rr[k] + 1) % g->gpu_sms;
            if (!tm_sm_fits(sm)) {
                tried++;
                continue;
            }
            EmuStatus s = tm_sm_start_cta(sm, cta_id(g, gpu_cta(g, k, g->gpu_next[k]++)),
                                          g->now);
            if (s)
                return s;
            g->next_cta++;
            tried = 0;
        }
    }
    return EMU_OK;
}

/* The baseline CTA placement: waiting CTAs round robin over the SMs, from the one after the
 * last SM that got a CTA, while an SM has room. In a device of several GPUs
 * (docs/multi-gpu.md) each GPU takes its share of the grid (system.cta_split) so. */
static EmuStatus place_rr(TmGpu *g)
{
    if (g->ngpu > 1)
        return place_rr_gpus(g);
    uint32_t tried = 0;
    while (g->next_cta < g->ncta && tried < g->nsm) {
        TmSm *sm = g->sm[g->rr];
        g->rr = (g->rr + 1) % g->nsm;
        if (!tm_sm_fits(sm)) {
            tried++;
            continue;
        }
        EmuStatus s = tm_sm_start_cta(sm, cta_id(g, g->next_cta++), g->now);
        if (s)
            return s;
        tried = 0;
    }
    return EMU_OK;
}

const TmPlacementOps tm_place_rr = {.name = "rr", .place = place_rr};

static int gpu_idle(const TmGpu *g)
{
    if (g->ctas_done < g->ncta || (g->mem && !memsys_idle(g->mem)))
        return 0;
    for (uint32_t i = 0; i < g->nsm; i++)
        if (!tm_sm_idle(g->sm[i]))
            return 0;
    return 1;
}

/* After a cycle in which nothing happened: every SM's wake cycle (> now: it ticked or
 * slept this cycle) bounds what it can do next, and the memory system names its own. */
static Cycle gpu_next(const TmGpu *g)
{
    Cycle next = g->mem ? memsys_next(g->mem, g->now) : TM_NEVER;
    for (uint32_t i = 0; i < g->nsm; i++)
        next = g->sm[i]->wake < next ? g->sm[i]->wake : next;
    return next;
}

static void gpu_dump(const TmGpu *g, FILE *f)
{
    fprintf(f, "timing model stalled at cycle %llu: %llu of %llu CTAs done\n",
            (unsigned long long)g->now, (unsigned long long)g->ctas_done,
            (unsigned long long)g->ncta);
    for (uint32_t i = 0; i < g->nsm; i++)
        tm_sm_dump(g->sm[i], f);
    if (g->mem)
        memsys_dump(g->mem, f);
}

/* Whether SM i may skip this cycle: its last tick did nothing and changed nothing, no
 * time-dependent check changes before sm->wake, and no response or new CTA arrived.
 * Its tick would repeat the last one, so it is accounted as one (tm_sm_skip). */
static int sm_asleep(const TmGpu *g, uint32_t i)
{
    return g->cfg->emu_skip_idle && g->sm[i]->wake > g->now &&
           (!g->recv_head || g->recv_head[i] > g->now);
}

/* The SMs' part of a cycle on this thread: every SM that is awake ticks, the others count
 * a slept cycle. Each touches only its own state (its execution context, counters, random
 * stream, write log, outbox in the memory system), which is why gpu_tick_pool may spread
 * them over host threads; what concerns the device is gathered afterwards, in SM order
 * (gpu_gather). */
static void gpu_tick_sms(TmGpu *g)
{
    g->nticked = 0;
    for (uint32_t i = 0; i < g->nsm; i++) {
        TmSm *sm = g->sm[i];
        if (sm_asleep(g, i)) {
            sm->slept++;
        } else {
            sm->work = tm_sm_tick(sm, g->now);
            g->ticked[g->nticked++] = i;
        }
    }
}

/* Ticks the awake SMs of worker `of`'s list that nobody has taken yet; returns when none
 * is left. */
static void pool_take(TmGpu *g, unsigned of)
{
    TmAwake *a = &g->awake[of];
    for (;;) {
        unsigned j = atomic_fetch_add_explicit(&a->next, 1, memory_order_relaxed);
        if (j >= a->n)
            return;
        TmSm *sm = g->sm[a->sm[j]];
        sm->work = tm_sm_tick(sm, g->now);
    }
}

/* TmPoolFn: worker k ticks the awake SMs it is home to (SMs k, k + n, ...: an SM's state
 * stays in one core's caches), then helps the others with theirs. Each SM's tick depends
 * only on the SM, so who ticks which changes nothing. */
static void pool_tick(void *ctx, unsigned k, unsigned n)
{
    TmGpu *g = ctx;
    for (unsigned i = 0; i < n; i++)
        pool_take(g, (k + i) % n);
}

/* The SMs' part of a cycle on the pool: the sleeping SMs count their cycle here, the
 * awake ones tick on the workers (with fewer than two awake, here). */
static void gpu_tick_pool(TmGpu *g)
{
    unsigned n = tm_pool_size(g->pool);
    for (unsigned k = 0; k < n; k++)
        g->awake[k].n = 0;
    g->nticked = 0;
    for (uint32_t i = 0; i < g->nsm; i++) {
        TmAwake *a = &g->awake[i % n];
        if (sm_asleep(g, i))
            g->sm[i]->slept++;
        else
            a->sm[a->n++] = i, g->ticked[g->nticked++] = i;
    }
    if (g->nticked < 2) { /* a round on the pool would cost more than it saves */
        for (unsigned j = 0; j < g->nticked; j++)
            g->sm[g->ticked[j]]->work = tm_sm_tick(g->sm[g->ticked[j]], g->now);
        return;
    }
    for (unsigned k = 0; k < n; k++)
        atomic_store_explicit(&g->awake[k].next, 0, memory_order_relaxed);
    tm_pool_run(g->pool);
}

/* The awake lists, one per worker, or -1 (host memory). */
static int gpu_awake_lists(TmGpu *g, unsigned n)
{
    g->awake = calloc(n, sizeof *g->awake);
    for (unsigned k = 0; g->awake && k < n; k++)
        if (!(g->awake[k].sm = calloc(g->nsm, sizeof *g->awake[k].sm)))
            return -1;
    return g->awake ? 0 : -1;
}

static void gpu_awake_free(TmGpu *g, unsigned n)
{
    for (unsigned k = 0; g->awake && k < n; k++)
        free(g->awake[k].sm);
    free(g->awake);
    g->awake = NULL;
}

/* Whether the SMs may tick on several threads in this launch: emu.threads asks for it,
 * and nothing an SM does during its tick reaches state another SM or the device shares.
 * Not so (the SMs then tick on one thread; the results are the same) for a kernel that
 * calls printf (one FIFO, filled in issue order), reuse profiling, managed memory that
 * migrates (one migration engine), or an observer of the requests (mem.observer). With
 * emu.memcheck = warn each SM keeps its own first invalid access, and the launch reports
 * the earliest (gpu_sum_exec). */
static unsigned gpu_threads(const TmGpu *g)
{
    const EmuConfig *c = g->cfg;
    unsigned n = c->emu_threads ? c->emu_threads : tm_host_cores();
    if (n > g->nsm)
        n = g->nsm;
    if (n < 2 || g->x->reuse ||
        (g->obs && g->obs->request) || (g->d->uvm.on && g->d->uvm.n))
        return 1;
    for (uint32_t pc = 0; pc < g->kc->count; pc++)
        if (g->code[pc].op == XOP_vprintf)
            return 1;
    return n;
}

/* The last cycles before the budget (emu.max_warp_insns) can run out, when fewer warp
 * instructions are left than the SMs could issue in a cycle: the SMs tick one after the
 * other, each with the launch's count so far in its context, so the budget stops the
 * launch at exactly its last instruction, as in functional mode. */
static void gpu_tick_counted(TmGpu *g)
{
    uint64_t insns = g->insns;
    g->nticked = 0;
    for (uint32_t i = 0; i < g->nsm; i++) {
        TmSm *sm = g->sm[i];
        if (sm_asleep(g, i)) {
            sm->slept++;
            continue;
        }
        uint64_t own = sm->x.winsns;
        sm->x.winsns = insns, sm->x.budget = g->x->budget;
        emu_exec_init_stop(&sm->x);
        sm->work = tm_sm_tick(sm, g->now);
        g->ticked[g->nticked++] = i;
        uint64_t used = sm->x.winsns - insns;
        insns += used;
        sm->x.winsns = own + used;
    }
}

/* What the SMs' ticks left for the device, SM by SM in SM order, which is the order in
 * which one thread ticking them would have produced it: their global stores and atomics
 * are applied, their requests enter the memory system, the first fault is the lowest
 * SM's, finished CTAs are counted (placement runs next cycle), the grid barrier is
 * released once every CTA that has not finished waits at it, and the budget is checked.
 * Only the SMs that ticked can have left anything. Returns whether anything happened. */
static int gpu_gather(TmGpu *g)
{
    int work = 0, lost = 0;
    for (uint32_t j = 0; j < g->nticked; j++) {
        TmSm *sm = g->sm[g->ticked[j]];
        if (sm->wlog.len)
            lost |= emu_wlog_commit(&sm->wlog) < 0;
        if (g->mem)
            lost |= memsys_take(g->mem, g->ticked[j]) < 0;
        if (sm->status && !g->status)
            g->status = sm->status, g->fw = sm->fw, g->fcta = sm->fcta, g->fx = &sm->x;
        if (sm->ctas_finished) {
            g->ctas_done += sm->ctas_finished, g->cta_finished = 1, sm->ctas_finished = 0;
            g->gpu_done[g->ticked[j] / g->gpu_sms] = g->now;
        }
        if (sm->room)
            g->cta_finished = 1, sm->room = 0; /* placement runs next cycle */
        g->waiting += sm->x.grid_waiting - sm->seen_waiting;
        g->insns += sm->x.winsns - sm->seen_insns;
        sm->seen_waiting = sm->x.grid_waiting, sm->seen_insns = sm->x.winsns;
        work |= sm->work;
        sm->work = 0;
    }
    if (lost && !g->status)
        g->status = EMU_ERR_OUT_OF_MEMORY;
    if (g->waiting && g->waiting + g->ctas_done == g->ncta) {
        for (uint32_t i = 0; i < g->nsm; i++)
            tm_sm_grid_release(g->sm[i], g->now), g->sm[i]->seen_waiting = 0;
        g->waiting = 0;
        work = 1;
    }
    return work;
}

/* One cycle of every unit; returns whether anything happened. */
static int gpu_cycle(TmGpu *g)
{
    if ((g->now == 0 || g->cta_finished) && (g->status = g->place->place(g)))
        return 0;
    g->cta_finished = 0;
    if (g->x->budget - g->insns <= (uint64_t)g->nsm * g->cfg->core_subcores)
        gpu_tick_counted(g);
    else if (g->pool)
        gpu_tick_pool(g);
    else
        gpu_tick_sms(g);
    int work = gpu_gather(g);
    if (g->status)
        return 0;
    if (g->mem)
        work |= memsys_step(g->mem, g->now);
    return work | g->cta_finished;
}

/* Accounts every SM's sleep and its L1's pinned lines, before the counters are read. */
static void gpu_settle(TmGpu *g, Cycle upto)
{
    for (uint32_t i = 0; i < g->nsm; i++) {
        tm_sm_settle(g->sm[i]);
        if (g->sm[i]->ldst)
            ldst_settle(g->sm[i]->ldst, upto);
    }
    for (unsigned i = 0; i < TM_NSLOTS; i++)
        if (g->mech[i].hooks && g->mech[i].hooks->settle)
            g->mech[i].hooks->settle(g, g->mech[i].state, upto);
}

/* The earliest cycle a mechanism's timer names (TM_NEVER: none). */
static Cycle mech_next(const TmGpu *g)
{
    Cycle next = TM_NEVER;
    for (unsigned j = 0; j < g->ntimed; j++) {
        const TmMech *m = &g->mech[g->timed[j]];
        Cycle t = m->hooks->next(g, m->state);
        next = t < next ? t : next;
    }
    return next;
}

/* The timers that the cycle reached fire. */
static void mech_events(TmGpu *g)
{
    for (unsigned j = 0; j < g->ntimed; j++) {
        const TmMech *m = &g->mech[g->timed[j]];
        if (m->hooks->event && g->now >= m->hooks->next(g, m->state))
            m->hooks->event(g, m->state);
    }
}

uint64_t tm_warp_insns(const TmGpu *g)
{
    uint64_t n = g->ctr.warp_insns;
    for (uint32_t i = 0; g->unit && i < g->nsm; i++)
        n += g->unit[i].warp_insns;
    return n;
}

/* *to += *from, counter by counter. */
static void counters_add(TmCounters *to, const TmCounters *from)
{
    uint64_t *o = (uint64_t *)to;
    const uint64_t *v = (const uint64_t *)from;
    for (size_t i = 0; i < sizeof *to / sizeof *o; i++)
        o[i] += v[i];
}

void tm_counters_now(const TmGpu *g, TmCounters *out)
{
    *out = g->ctr;
    for (size_t u = 0; g->unit && u < (size_t)g->nsm + g->nslice + g->nchan + g->nlink; u++)
        counters_add(out, &g->unit[u]);
}

/* The interval series' record at cycle upto. */
static void gpu_interval(TmGpu *g, Cycle upto)
{
    if (!g->d->series)
        return;
    TmCounters now;
    tm_counters_now(g, &now);
    emu_interval_record(g->d, upto, now.warp_insns, &now);
}

static EmuStatus gpu_run(TmGpu *g, EmuFault *fault)
{
    uint64_t interval = g->cfg->emu_interval_cycles, next_rec = interval;
    uint64_t watch = g->cfg->emu_stall_cycles, insns = 0, busy = 0;
    Cycle progress = 0; /* the last cycle a warp instruction issued */
    for (;;) {
        int work = gpu_cycle(g);
        if (g->status)
            return g->status;
        if (gpu_idle(g)) {
            /* a policy that flushes the L2s at kernel boundaries: the launch ends when
             * their write-backs have drained */
            int flushed = !g->flushed && g->mem ? memsys_flush(g->mem, g->now) : 0;
            g->flushed = 1;
            if (flushed < 0)
                return EMU_ERR_OUT_OF_MEMORY;
            if (!flushed || gpu_idle(g))
                return EMU_OK;
            work = 1;
        }
        /* the watchdog counts cycles in which units worked but no warp instruction
         * issued: waiting (idle cycles, skipped or not) is not a livelock */
        uint64_t done = g->insns;
        if (done != insns) {
            insns = done, progress = g->now, busy = 0;
        } else if (work && watch && ++busy >= watch) {
            gpu_dump(g, stderr);
            snprintf(fault->message, sizeof fault->message,
                     "timing model made no progress for %llu busy cycles (emu.stall_cycles): "
                     "no warp instruction issued since cycle %llu, %llu of %llu CTAs done "
                     "(units dumped on stderr)", (unsigned long long)busy,
                     (unsigned long long)progress, (unsigned long long)g->ctas_done,
                     (unsigned long long)g->ncta);
            return EMU_ERR_DEADLOCK;
        }
        Cycle next = g->now + 1;
        if (!work && (next = gpu_next(g)) == TM_NEVER) {
            gpu_dump(g, stderr);
            snprintf(fault->message, sizeof fault->message,
                     "timing model stalled at cycle %llu (units dumped on stderr)",
                     (unsigned long long)g->now);
            return EMU_ERR_LAUNCH_FAILURE;
        }
        if (!g->cfg->emu_skip_idle)
            next = g->now + 1;
        if (interval && next > next_rec) /* stop at the next record */
            next = next_rec;
        Cycle timer = mech_next(g); /* and at a mechanism's timer */
        if (next > timer)
            next = timer;
        for (uint32_t i = 0; i < g->nsm && next > g->now + 1; i++)
            tm_sm_skip(g->sm[i], next - g->now - 1);
        g->now = next;
        if (g->now >= timer)
            mech_events(g);
        if (interval && g->now >= next_rec) {
            gpu_settle(g, g->now);
            gpu_interval(g, g->now);
            next_rec = g->now - g->now % interval + interval;
        }
        if ((g->now & 0x3fff) == 0)
            emu_progress(g->d, g->now, tm_warp_insns(g), g->ctas_done, g->ncta);
    }
}

/* After the loop: the SMs' refusals counted while they slept reach the counters, and the
 * launch's execution context gets what the SMs' counted (instructions, invalid
 * accesses and the first of them, printf bytes). */
static void gpu_sum_exec(TmGpu *g)
{
    EmuExec *x = g->x;
    for (uint32_t i = 0; i < g->nsm; i++) {
        const EmuExec *y = &g->sm[i]->x;
        if (g->mem)
            memsys_take(g->mem, i);
        emu_memcheck_take(x, y);
        x->winsns += y->winsns, x->tinsns += y->tinsns, x->bad_accesses += y->bad_accesses;
        x->pf_bytes += y->pf_bytes, x->pf_dropped += y->pf_dropped;
    }
}

/* Each GPU's counters into the report: its SMs', its slices', its link's and in a NUMA
 * device its zone's channels' (a shared memory side's channels are no GPU's). */
static void gpu_report_gpus(const TmGpu *g, TmReport *rep)
{
    rep->gpu = calloc(g->ngpu, sizeof *rep->gpu);
    rep->gpu_cycles = calloc(g->ngpu, sizeof *rep->gpu_cycles);
    if (!rep->gpu || !rep->gpu_cycles) { /* out of host memory: no breakdown */
        free(rep->gpu), free(rep->gpu_cycles);
        rep->gpu = NULL, rep->gpu_cycles = NULL;
        return;
    }
    int numa = strcmp(g->cfg->system_memory, "numa") == 0;
    uint32_t spg = g->nslice / g->ngpu, cpg = g->nchan / g->ngpu;
    for (uint32_t k = 0; k < g->ngpu; k++) {
        TmCounters *c = &rep->gpu[k];
        for (uint32_t i = 0; i < g->gpu_sms; i++)
            counters_add(c, &g->unit[k * g->gpu_sms + i]);
        for (uint32_t i = 0; i < spg; i++)
            counters_add(c, &g->unit[g->nsm + k * spg + i]);
        for (uint32_t i = 0; numa && i < cpg; i++)
            counters_add(c, &g->unit[g->nsm + g->nslice + k * cpg + i]);
        if (g->nlink)
            counters_add(c, &g->unit[g->nsm + g->nslice + g->nchan + k]);
        rep->gpu_cycles[k] = g->gpu_done[k] + 1;
    }
    rep->ngpu = g->ngpu;
}

/* TmReportEmit: appends a figure to the launch's report. */
static void report_emit(void *ctx, const char *name, uint64_t value)
{
    TmReport *r = ctx;
    if (r->n == r->cap) {
        size_t cap = r->cap ? 2 * r->cap : 16;
        char (*nm)[64] = realloc(r->name, cap * sizeof *nm);
        if (nm)
            r->name = nm;
        uint64_t *v = nm ? realloc(r->value, cap * sizeof *v) : NULL;
        if (!v)
            return; /* out of host memory: the figure is lost, not the launch */
        r->value = v, r->cap = cap;
    }
    snprintf(r->name[r->n], sizeof r->name[r->n], "%s", name);
    r->value[r->n++] = value;
}

EmuStatus tm_launch(EmuDevice *d, EmuModule *m, int kernel, EmuExec *x, EmuFault *fault,
                    uint64_t *cycles, TmCounters *ctr, TmReport *rep)
{
    TmGpu *g = calloc(1, sizeof *g);
    if (!g)
        return EMU_ERR_OUT_OF_MEMORY;
    g->d = d, g->cfg = &d->cfg, g->x = x, g->kc = &m->kcode[kernel];
    x->now = &g->now;
    EmuStatus s = gpu_setup(g, m, kernel, fault->message, sizeof fault->message);
    if (!s) {
        uvm_begin(&d->uvm); /* no page migration is under way at cycle 0 */
        emu_series_begin(d, &g->ctr);
        emu_progress_begin(d, m->bin->kernels[kernel].name, 1);
        unsigned threads = gpu_threads(g);
        if (threads > 1 && gpu_awake_lists(g, threads) == 0)
            g->pool = tm_pool_new(threads, pool_tick, g);
        s = gpu_run(g, fault);
        tm_pool_free(g->pool);
        gpu_awake_free(g, threads);
        g->pool = NULL;
        emu_progress_end(d);
        if (g->mem)
            memsys_end_launch(g->mem, g->now);
        gpu_settle(g, g->now + 1);
        gpu_interval(g, g->now + 1);
    }
    gpu_sum_exec(g);
    if (s && g->fw && g->fx) {
        emu_exec_bind(g->fx, g->fcta);
        emu_fill_fault(fault, g->fx, m, &m->bin->kernels[kernel], g->fw);
    }
    *cycles = g->now + 1;
    tm_counters_now(g, ctr);
    if (g->ngpu > 1 && rep)
        gpu_report_gpus(g, rep);
    if (g->cfg->stats_per_unit && g->unit && rep) { /* the report takes the units over */
        rep->unit = g->unit, g->unit = NULL;
        rep->nsm = g->nsm, rep->nslice = g->nslice, rep->nchan = g->nchan;
    }
    if (g->obs && g->obs->report && g->mech[TM_SLOT_OBSERVER].state && rep)
        g->obs->report(g, g->mech[TM_SLOT_OBSERVER].state, report_emit, rep);
    x->now = NULL;
    gpu_free(g);
    free(g);
    return s;
}
