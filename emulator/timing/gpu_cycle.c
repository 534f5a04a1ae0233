/*
 * gpu_cycle.c - one cycle of a launch's device (gpu_int.h): CTA placement when it is
 * due, the SMs' ticks, what the device gathers from them, the memory system's step. Who
 * ticks the SMs is TmTicking's (gpu.h): this thread, or the pool's.
 *
 * CTA placement is a policy slot (core.cta_placement, slots.h; the baseline: gpu_place.c),
 * called at the start of the launch's first cycle and at the start of the cycle after a
 * CTA finishes. Then each SM that is awake ticks; an SM whose last tick did nothing and
 * changed nothing sleeps until the earliest cycle it names (sm.c) or a memory response
 * or CTA reaches it, and each cycle it sleeps counts as a repeat of that tick (accounted
 * when it wakes or the counters are read), so the result is the same as ticking it. A
 * tick touches only its SM's own state, so with emu.threads the awake SMs tick on the
 * pool's threads (pool.h) when more than one is awake; then the device gathers what the
 * ticks left, SM by SM in SM order (gpu_gather: the SMs' global stores and atomics,
 * their requests into the memory system, faults, finished CTAs, the grid barrier, the
 * budget), which is the order one thread ticking them would have produced it
 * (docs/timing.md, "Parallel simulation"); then the memory system steps. Near the end of
 * the budget (emu.max_warp_insns) the SMs tick one after the other instead, so that it
 * stops the launch at exactly its last instruction.
 */
#include <stdlib.h>
#include "timing/gpu_int.h"
#include "timing/pool.h"
#include "timing/sm.h"

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
    g->tick.nticked = 0;
    for (uint32_t i = 0; i < g->nsm; i++) {
        TmSm *sm = g->sm[i];
        if (sm_asleep(g, i)) {
            sm->slept++;
        } else {
            sm->work = tm_sm_tick(sm, g->now);
            g->tick.ticked[g->tick.nticked++] = i;
        }
    }
}

/* Ticks the awake SMs of worker `of`'s list that nobody has taken yet; returns when none
 * is left. */
static void pool_take(TmGpu *g, unsigned of)
{
    TmAwake *a = &g->tick.awake[of];
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
    unsigned n = tm_pool_size(g->tick.pool);
    for (unsigned k = 0; k < n; k++)
        g->tick.awake[k].n = 0;
    g->tick.nticked = 0;
    for (uint32_t i = 0; i < g->nsm; i++) {
        TmAwake *a = &g->tick.awake[i % n];
        if (sm_asleep(g, i))
            g->sm[i]->slept++;
        else
            a->sm[a->n++] = i, g->tick.ticked[g->tick.nticked++] = i;
    }
    if (g->tick.nticked < 2) { /* a round on the pool would cost more than it saves */
        for (unsigned j = 0; j < g->tick.nticked; j++)
            g->sm[g->tick.ticked[j]]->work = tm_sm_tick(g->sm[g->tick.ticked[j]], g->now);
        return;
    }
    for (unsigned k = 0; k < n; k++)
        atomic_store_explicit(&g->tick.awake[k].next, 0, memory_order_relaxed);
    tm_pool_run(g->tick.pool);
}

/* The awake lists, one per worker, or -1 (host memory). */
static int gpu_awake_lists(TmGpu *g, unsigned n)
{
    g->tick.nawake = n;
    g->tick.awake = calloc(n, sizeof *g->tick.awake);
    for (unsigned k = 0; g->tick.awake && k < n; k++)
        if (!(g->tick.awake[k].sm = calloc(g->nsm, sizeof *g->tick.awake[k].sm)))
            return -1;
    return g->tick.awake ? 0 : -1;
}

static void gpu_awake_free(TmGpu *g)
{
    for (unsigned k = 0; g->tick.awake && k < g->tick.nawake; k++)
        free(g->tick.awake[k].sm);
    free(g->tick.awake);
    g->tick.awake = NULL;
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

void tm_gpu_pool_begin(TmGpu *g)
{
    unsigned threads = gpu_threads(g);
    if (threads > 1 && gpu_awake_lists(g, threads) == 0)
        g->tick.pool = tm_pool_new(threads, pool_tick, g);
}

void tm_gpu_pool_end(TmGpu *g)
{
    tm_pool_free(g->tick.pool);
    gpu_awake_free(g);
    g->tick.pool = NULL;
}

/* The last cycles before the budget (emu.max_warp_insns) can run out, when fewer warp
 * instructions are left than the SMs could issue in a cycle: the SMs tick one after the
 * other, each with the launch's count so far in its context, so the budget stops the
 * launch at exactly its last instruction, as in functional mode. */
static void gpu_tick_counted(TmGpu *g)
{
    uint64_t insns = g->insns;
    g->tick.nticked = 0;
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
        g->tick.ticked[g->tick.nticked++] = i;
        uint64_t used = sm->x.winsns - insns;
        insns += used;
        sm->x.winsns = own + used;
    }
}

/* The SMs' part of the cycle: on this thread, on the pool, or counted near the budget's
 * end. */
static void gpu_tick(TmGpu *g)
{
    if (g->x->budget - g->insns <= (uint64_t)g->nsm * g->cfg->core_subcores)
        gpu_tick_counted(g);
    else if (g->tick.pool)
        gpu_tick_pool(g);
    else
        gpu_tick_sms(g);
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
    for (uint32_t j = 0; j < g->tick.nticked; j++) {
        TmSm *sm = g->sm[g->tick.ticked[j]];
        if (sm->wlog.len)
            lost |= emu_wlog_commit(&sm->wlog) < 0;
        if (g->mem)
            lost |= memsys_take(g->mem, g->tick.ticked[j]) < 0;
        if (sm->status && !g->status)
            g->status = sm->status, g->fw = sm->fw, g->fcta = sm->fcta, g->fx = &sm->x;
        if (sm->ctas_finished) {
            g->ctas_done += sm->ctas_finished, g->cta_finished = 1, sm->ctas_finished = 0;
            g->gpu_done[g->tick.ticked[j] / g->gpu_sms] = g->now;
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
int tm_gpu_cycle(TmGpu *g)
{
    if ((g->now == 0 || g->cta_finished) && (g->status = g->place->place(g)))
        return 0;
    g->cta_finished = 0;
    gpu_tick(g);
    int work = gpu_gather(g);
    if (g->status)
        return 0;
    if (g->mem)
        work |= memsys_step(g->mem, g->now);
    return work | g->cta_finished;
}
