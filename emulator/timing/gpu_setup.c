/*
 * gpu_setup.c - making and freeing one timing launch (gpu_int.h): what one CTA needs and
 * whether it fits an SM, the kernel's per-pc timing facts (insn_info.c) and phase
 * specifiers, the policy slots and their launch.begin, the memory system (the device's,
 * kept from launch to launch with l2.persist, or the launch's own), where every unit
 * counts, and the SMs. The order is the one docs/architecture.md gives ("Hooks and the
 * order the core calls them"): a slot's launch.begin may read what came before it.
 */
#include <stdlib.h>
#include <string.h>
#include "func/memory.h"
#include "timing/gpu_int.h"
#include "timing/sched.h"
#include "timing/sm.h"

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
    if (!g->unit || !g->gpu_done || tm_rr_init(&g->rr, g->ngpu) < 0) {
        snprintf(err, n, "out of host memory");
        return -1;
    }
    if (g->mem && per_unit)
        memsys_count_into(g->mem, &g->ctr, g->unit + g->nsm_total);
    if (g->mem)
        memsys_count_sms(g->mem, g->unit);
    return 0;
}

/* What one CTA of kernel k needs, and whether it fits an SM. */
static EmuStatus gpu_shape(TmGpu *g, const XKernel *k, char *err, size_t n)
{
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
    return EMU_OK;
}

/* The kernel's timing facts by pc, and the compiler's phase specifiers on them. */
static EmuStatus gpu_code(TmGpu *g, const EmuModule *m, int kernel)
{
    const XKernel *k = &m->bin->kernels[kernel];
    g->info = calloc(g->kc->count ? g->kc->count : 1, sizeof *g->info);
    if (!g->info)
        return EMU_ERR_OUT_OF_MEMORY;
    for (uint32_t pc = 0; pc < g->kc->count; pc++) {
        uint32_t at = k->code_start + pc;
        uint8_t reuse = m->bin->reuse && at < m->bin->ntext ? m->bin->reuse[at] : 0;
        tm_insn_info(g->cfg, &m->bin->text[at], reuse, &g->info[pc]);
    }
    g->code = &m->bin->text[k->code_start];
    for (uint32_t i = 0; i < m->bin->nphases; i++) { /* the compiler's phase specifiers */
        const XPhase *p = &m->bin->phases[i];
        if (p->kernel == (uint32_t)kernel && p->pc < g->kc->count)
            g->info[p->pc].phase = p;
    }
    return EMU_OK;
}

/* The policy slots the configuration names, and their launch hooks. */
static EmuStatus gpu_slots(TmGpu *g, char *err, size_t n)
{
    const EmuConfig *c = g->cfg;
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
    return EMU_OK;
}

/* The memory system, then every slot's launch.begin, then what the assist slot's warps
 * add to a CTA of kernel k. */
static EmuStatus gpu_begin(TmGpu *g, const XKernel *k, char *err, size_t n)
{
    const EmuConfig *c = g->cfg;
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
    return EMU_OK;
}

EmuStatus tm_gpu_setup(TmGpu *g, const EmuModule *m, int kernel, char *err, size_t n)
{
    const XKernel *k = &m->bin->kernels[kernel];
    EmuStatus s;
    if ((s = gpu_shape(g, k, err, n)) || (s = gpu_code(g, m, kernel)) ||
        (s = gpu_slots(g, err, n)) || (s = gpu_begin(g, k, err, n)))
        return s;
    if (g->mem && gpu_bind_memsys(g, err, n))
        return EMU_ERR_INVALID_CONFIG;
    if (gpu_units(g, err, n))
        return EMU_ERR_OUT_OF_MEMORY;
    g->recv_head = g->mem ? memsys_recv_heads(g->mem) : NULL;
    g->sm = calloc(g->nsm_total, sizeof *g->sm);
    g->tick.ticked = calloc(g->nsm_total, sizeof *g->tick.ticked);
    if (!g->sm || !g->tick.ticked)
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

void tm_gpu_free(TmGpu *g)
{
    for (uint32_t i = 0; i < g->nsm; i++)
        tm_sm_free(g->sm[i]);
    free(g->sm);
    free(g->tick.ticked);
    if (g->mem && g->mem_owned)
        memsys_free(g->mem);
    free(g->unit);
    free(g->gpu_done);
    tm_rr_free(&g->rr);
    for (unsigned i = 0; i < TM_NSLOTS; i++)
        if (g->mech[i].hooks && g->mech[i].hooks->end && g->mech[i].state)
            g->mech[i].hooks->end(g, g->mech[i].state);
    free(g->info);
}
