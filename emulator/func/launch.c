/*
 * launch.c - functional mode's grid (emu_func_run, called by the device's emu_launch in
 * emulator/launch.c): the CTA loop, the warp scheduler and the warp loop that runs
 * pre-decoded instructions. In timing mode the launch goes to the timing model
 * (timing/gpu.c) instead, which steps warps one instruction at a time (step.c) through
 * the same handlers.
 *
 * Functional mode, emu.quantum = 0 (the default): one CTA at a time, CTAs in x-fastest
 * order; within a CTA the warps are visited round-robin, each runs until it reaches a
 * barrier or finishes. emu.quantum = q > 0: as many CTAs as the device holds (per SM as
 * the timing model's CTA scheduler counts, times gpu.sm_count) are resident in slots;
 * the slots take turns in slot order, and in its CTA's turn each running warp runs q
 * warp instructions (or until it blocks), so racy programs interleave as on a GPU; a
 * finished CTA's slot takes the next CTA of the grid. Either way, when no warp of a CTA
 * can run, its barrier is released or a deadlock reported (cta.c), and the order is
 * fixed: the same launch gives the same results.
 * Shared memory, local memory and registers start zeroed in every CTA.
 *
 * The warp loop keeps the running SIMT entry's pc, mask and rpc in locals and runs
 * straight-line code with one indirect call per instruction; control instructions and
 * reaching the entry's reconvergence pc go through exec_ctrl.c. One compare per
 * instruction, winsns == stop, serves the budget, the end of a quantum and the progress
 * line (emu_exec_checkpoint). The per-launch budget of
 * warp instructions (emu.max_warp_insns) ends runaway kernels with
 * EMU_ERR_LAUNCH_TIMEOUT (the message lists the warps as for a deadlock, so a warp
 * spinning while others wait at a barrier shows). Counters are plain increments: warp
 * instructions, and active lanes summed over instructions (thread instructions). The
 * launch's emulated time is ceil(warp instructions / (gpu.sm_count * gpu.issue_width))
 * cycles of gpu.clock_khz, added to the device's clock.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "device.h"
#include "stats/stats.h"

/* The next checkpoint after winsns: the budget, the end of the running warp's quantum,
 * the next progress call; each of them is > winsns when this is called. */
static uint64_t next_stop(const EmuExec *x)
{
    uint64_t stop = x->budget;
    if (x->slice_end > x->winsns && x->slice_end < stop)
        stop = x->slice_end;
    if (x->progress && x->next_progress < stop)
        stop = x->next_progress;
    return stop;
}

void emu_exec_init_stop(EmuExec *x)
{
    x->stop = next_stop(x);
}

int emu_exec_checkpoint(EmuExec *x)
{
    if (x->winsns >= x->budget)
        return 1;
    if (x->progress && x->winsns >= x->next_progress) {
        emu_progress(x->dev, 0, x->winsns, x->ctas_done, x->ctas);
        x->next_progress = x->winsns + EMU_PROGRESS_STEP;
    }
    if (x->winsns >= x->slice_end)
        x->yield = 1;
    x->stop = next_stop(x);
    return 0;
}

/* The running warp gets emu.quantum warp instructions (functional mode; 0: unlimited). */
static void slice_begin(EmuExec *x)
{
    x->yield = 0;
    x->slice_end = x->quantum ? x->winsns + x->quantum : UINT64_MAX;
    x->stop = next_stop(x);
}

void emu_exec_timeout(EmuExec *x, unsigned lane)
{
    int is_auto = x->dev && x->dev->cfg.emu_max_warp_insns == EMU_CFG_AUTO;
    emu_exec_fault(x, EMU_ERR_LAUNCH_TIMEOUT, lane, 0,
                   "kernel %.80s exceeded emu.max_warp_insns = %llu warp instructions%s; raise "
                   "it with --set emu.max_warp_insns=N (0: no limit)",
                   x->kern ? x->kern->name : "?", (unsigned long long)x->budget,
                   is_auto ? (x->now ? " (auto, timing mode)" : " (auto, functional mode)") : "");
}

static unsigned low_lane(uint32_t mask)
{
    return mask ? (unsigned)__builtin_ctz(mask) : 0;
}

/* warp_run for a warp being reuse-profiled: one emu_warp_step at a time. */
static EmuStatus warp_run_profiled(EmuExec *x, EmuCta *c, EmuWarp *w)
{
    EmuStep st;
    for (;;) {
        EmuStatus s = emu_warp_step(x, c, w, 0, &st);
        if (s || w->state != EW_RUN || x->yield)
            return s;
    }
}

/* Runs warp w until it waits at a barrier, finishes, faults (returns the status) or its
 * quantum ends (x->yield; still EW_RUN, its pc saved). */
EMU_HOT static EmuStatus warp_run(EmuExec *x, EmuCta *c, EmuWarp *w)
{
    if (__builtin_expect(w->prof != NULL, 0))
        return warp_run_profiled(x, c, w);
    const EmuInsn *code = x->code;
    const uint32_t count = x->code_count;
    for (;;) {
        EmuSimt *top = &w->stack[w->depth - 1];
        uint32_t pc = top->pc;
        const uint32_t mask = top->mask, rpc = top->rpc;
        const uint32_t lanes = (uint32_t)__builtin_popcount(mask);
        const EmuInsn *in = NULL;
        for (;;) {
            if (__builtin_expect(pc >= count, 0))
                return emu_exec_fault(x, EMU_ERR_LAUNCH_FAILURE, low_lane(mask), 0,
                                      "execution ran past the end of the kernel"), x->fstatus;
            if (__builtin_expect(x->winsns == x->stop, 0)) {
                int budget = emu_exec_checkpoint(x);
                if (budget || x->yield) {
                    top->pc = pc;
                    if (budget)
                        emu_exec_timeout(x, low_lane(mask));
                    return budget ? x->fstatus : EMU_OK;
                }
            }
            in = &code[pc];
            x->winsns++;
            w->clock++;
            x->tinsns += lanes;
            if (in->kind != EK_PLAIN)
                break;
            if (__builtin_expect(in->fn(x, w, in, mask), 0)) {
                top->pc = pc;
                return x->fstatus;
            }
            if (__builtin_expect(++pc == rpc, 0)) {
                in = NULL;
                break;
            }
        }
        top->pc = pc;
        if (in) {
            EmuStatus s = emu_exec_ctrl(x, w, in, pc, mask);
            if (s || in->kind == EK_BAR || in->kind == EK_BARRED)
                return s;
        } else {
            emu_simt_settle(w);
        }
        if (!w->depth) {
            w->state = EW_DONE;
            return EMU_OK;
        }
    }
}

/* One turn of a resident CTA: each running warp runs its quantum (or until it blocks);
 * when none could run, the CTA's barrier is released or a deadlock reported. *finished:
 * every warp has exited. On a fault *fw is the faulting warp. */
static EmuStatus cta_turn(EmuExec *x, EmuCta *c, EmuWarp **fw, int *finished)
{
    int ran = 0, released;
    *finished = 0;
    emu_exec_bind(x, c);
    for (uint32_t i = 0; i < x->nwarps; i++) {
        EmuWarp *w = &c->warps[i];
        if (w->state != EW_RUN)
            continue;
        ran = 1;
        slice_begin(x);
        EmuStatus s = warp_run(x, c, w);
        if (s) {
            *fw = w;
            if (s == EMU_ERR_LAUNCH_TIMEOUT)
                emu_cta_describe(x, c, w, x->fmsg, sizeof x->fmsg);
            return s;
        }
    }
    if (ran)
        return EMU_OK;
    EmuStatus s = emu_cta_sync(x, c, fw, &released);
    *finished = !s && !released && !c->grid_wait;
    return s;
}

/* --- validation and setup ------------------------------------------------------------- */

static EmuDim3 cta_id(const EmuExec *x, uint64_t i)
{
    return (EmuDim3){(uint32_t)(i % x->grid.x), (uint32_t)(i / x->grid.x % x->grid.y),
                     (uint32_t)(i / x->grid.x / x->grid.y)};
}

uint64_t emu_grid_capacity(const EmuDevice *d, const XKernel *k, uint32_t nwarps,
                           uint64_t shared)
{
    const EmuConfig *c = &d->cfg;
    uint64_t per_sm = c->core_max_ctas_per_sm, threads = (uint64_t)nwarps * XGPU_WARP_SIZE;
    uint64_t regs = (uint64_t)k->nregs * threads;
    if (c->gpu_max_threads_per_sm / threads < per_sm)
        per_sm = c->gpu_max_threads_per_sm / threads;
    if (regs && c->gpu_regs_per_sm / regs < per_sm)
        per_sm = c->gpu_regs_per_sm / regs;
    if (shared && c->gpu_shared_per_sm / shared < per_sm)
        per_sm = c->gpu_shared_per_sm / shared;
    return (per_sm ? per_sm : 1) * c->gpu_sm_count * emu_config_device_gpus(c);
}

/* CTAs resident at once with emu.quantum > 0, or in a kernel with a grid barrier: what
 * the device holds (emu_grid_capacity); one otherwise. */
static uint64_t resident_ctas(const EmuDevice *d, const XKernel *k, const EmuExec *x)
{
    if (!x->quantum && !x->grid_sync)
        return 1;
    uint64_t n = emu_grid_capacity(d, k, x->nwarps, x->shared_size);
    return n < x->ctas ? n : x->ctas;
}

void emu_oom_message(const EmuExec *x, uint64_t nctas, char *buf, size_t n)
{
    snprintf(buf, n, "out of host memory for %llu CTAs of %u threads (%llu bytes of local "
             "memory per thread)", (unsigned long long)nctas, x->nwarps * XGPU_WARP_SIZE,
             (unsigned long long)x->local_size);
}

/* The grid barrier, once every live CTA waits at it: all are released. */
static void grid_release(EmuExec *x, EmuCta *res, uint64_t nres, uint64_t live)
{
    if (!live || x->grid_waiting != live)
        return;
    for (uint64_t i = 0; i < nres; i++)
        if (res[i].warps)
            emu_grid_release(x, &res[i]);
}

/* Runs the grid: up to resident_ctas CTAs at once, in slots that take the next CTA in
 * grid order (x fastest) when theirs finishes; the slots take turns in slot order. Fills
 * *fault. */
EmuStatus emu_func_run(EmuExec *x, const EmuModule *m, const XKernel *k, uint32_t nrows,
                       EmuFault *fault)
{
    uint64_t nres = resident_ctas(m->dev, k, x), next = 0, live = 0;
    EmuCta *res = calloc(nres, sizeof *res);
    EmuWarp *fw = NULL;
    EmuStatus s = res ? EMU_OK : EMU_ERR_OUT_OF_MEMORY;
    for (uint64_t i = 0; i < nres && !s; i++, next++, live++)
        if (!(s = emu_cta_alloc(&res[i], x, nrows)))
            emu_cta_start(x, &res[i], cta_id(x, next));
    if (s)
        emu_oom_message(x, nres, fault->message, sizeof fault->message);
    while (!s && live) {
        for (uint64_t i = 0; i < nres && !s; i++) {
            EmuCta *c = &res[i];
            int finished;
            if (!c->warps || (s = cta_turn(x, c, &fw, &finished)) || !finished)
                continue;
            x->ctas_done++;
            if (next < x->ctas) {
                emu_cta_start(x, c, cta_id(x, next++));
            } else {
                emu_cta_free(c, x);
                live--;
            }
        }
        if (!s)
            grid_release(x, res, nres, live); /* every CTA is resident (emu_launch checks) */
    }
    if (s && fw)
        emu_fill_fault(fault, x, m, k, fw);
    for (uint64_t i = 0; res && i < nres; i++)
        emu_cta_free(&res[i], x);
    free(res);
    return s;
}

