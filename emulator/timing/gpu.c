/*
 * gpu.c - the timing model's device loop for one launch (gpu.h): the launch from setup to
 * report, and the loop over its cycles, which skips idle ones, honours the mechanisms'
 * timers and interval records, and watches for a stall. Its parts: setup and teardown
 * (gpu_setup.c), the baseline CTA placement (gpu_place.c), one cycle of every unit
 * (gpu_cycle.c), the report (gpu_report.c).
 *
 * Execute-at-issue (docs/timing.md): the functional core computes every result when an SM
 * issues the instruction (emu_warp_step); the units here only decide when. Results are
 * therefore those of functional mode, CTA placement and warp interleaving aside (which
 * only matter for racy programs).
 *
 * The loop: every cycle (tm_gpu_cycle) CTAs are placed when due, each SM ticks (sleeping
 * SMs count the cycle as a repeat of their last tick), the device gathers what the ticks
 * left, SM by SM in SM order, then the memory system ticks (docs/timing.md, "Parallel
 * simulation"). When nothing happened in a cycle, nothing can happen before the earliest
 * cycle some unit names (an SM's wake cycle, memsys_next), so the loop jumps there, or to
 * the next interval record if that comes first, and accounts the skipped cycles as
 * repeats of the idle one. With emu.skip_idle = false every unit ticks every cycle
 * instead; the statistics must be the same (test 903 checks it on every sample). The
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
#include <stdlib.h>
#include "stats/log.h"
#include "stats/stats.h"
#include "timing/gpu_int.h"
#include "timing/sm.h"

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
        int work = tm_gpu_cycle(g);
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

EmuStatus tm_launch(EmuDevice *d, EmuModule *m, int kernel, EmuExec *x, EmuFault *fault,
                    uint64_t *cycles, TmCounters *ctr, TmReport *rep)
{
    TmGpu *g = calloc(1, sizeof *g);
    if (!g)
        return EMU_ERR_OUT_OF_MEMORY;
    g->d = d, g->cfg = &d->cfg, g->x = x, g->kc = &m->kcode[kernel];
    x->now = &g->now;
    EmuStatus s = tm_gpu_setup(g, m, kernel, fault->message, sizeof fault->message);
    if (!s) {
        uvm_begin(&d->uvm); /* no page migration is under way at cycle 0 */
        emu_series_begin(d, &g->ctr);
        emu_progress_begin(d, m->bin->kernels[kernel].name, 1);
        tm_gpu_pool_begin(g);
        s = gpu_run(g, fault);
        tm_gpu_pool_end(g);
        emu_progress_end(d);
        if (g->mem)
            memsys_end_launch(g->mem, g->now);
        gpu_settle(g, g->now + 1);
        gpu_interval(g, g->now + 1);
    }
    tm_gpu_sum_exec(g);
    if (s && g->fw && g->fx) {
        emu_exec_bind(g->fx, g->fcta);
        emu_fill_fault(fault, g->fx, m, &m->bin->kernels[kernel], g->fw);
    }
    *cycles = g->now + 1;
    tm_counters_now(g, ctr);
    tm_gpu_report(g, rep);
    x->now = NULL;
    tm_gpu_free(g);
    free(g);
    return s;
}
