/*
 * launch.c - emu_launch: launch validation, the CTA loop, the warp scheduler and the warp
 * loop that runs pre-decoded instructions.
 *
 * Functional mode runs one CTA at a time, CTAs in x-fastest order. Within a CTA the
 * warps are visited round-robin; each runs until it reaches a barrier or finishes. When
 * no warp can run, the barrier is released if every unfinished warp waits at the same
 * barrier id with the same kind of barrier (bar, or barred with the same reduction;
 * warps that exited do not count); otherwise nothing can ever progress and the launch
 * ends with EMU_ERR_DEADLOCK, whose message lists the warps (ids, pc, what they wait
 * for). Releasing a barred barrier writes the reduction of the predicates of every
 * thread that arrived into each of them. Shared memory, local memory and registers
 * start zeroed in every CTA, so results never depend on the previous CTA.
 *
 * The warp loop keeps the running SIMT entry's pc, mask and rpc in locals and runs
 * straight-line code with one indirect call per instruction; control instructions and
 * reaching the entry's reconvergence pc go through exec_ctrl.c. The per-launch budget of
 * warp instructions (emu.max_warp_insns) ends runaway kernels with
 * EMU_ERR_LAUNCH_TIMEOUT (the message lists the warps as for a deadlock, so a warp
 * spinning while others wait at a barrier shows). Counters are plain increments: warp
 * instructions, and active lanes summed over instructions (thread instructions). The
 * launch's emulated time is ceil(warp instructions / (gpu.sm_count * gpu.issue_width))
 * cycles of gpu.clock_khz, added to the device's clock.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "device.h"

int emu_exec_fault(EmuExec *x, EmuStatus s, unsigned lane, uint64_t addr, const char *fmt, ...)
{
    va_list ap;
    x->fstatus = s;
    x->flane = lane;
    x->faddr = addr;
    va_start(ap, fmt);
    vsnprintf(x->fmsg, sizeof x->fmsg, fmt, ap);
    va_end(ap);
    return EXEC_FAULT;
}

static unsigned low_lane(uint32_t mask)
{
    return mask ? (unsigned)__builtin_ctz(mask) : 0;
}

/* Records warp w's arrival at the barrier instruction `in` at pc with lanes mask. */
static void bar_arrive(EmuWarp *w, const EmuInsn *in, uint32_t pc, uint32_t mask)
{
    w->bar_id = (uint32_t)in->imm;
    w->bar_pc = pc;
    w->bar_red = in->kind == EK_BARRED ? 1u + in->sub : 0;
    w->bar_mask = mask;
    w->bar_dst = in->d;
    w->bar_count = 0;
    if (w->bar_red)
        for (uint32_t m = mask; m; m &= m - 1)
            w->bar_count += w->r[in->s0][__builtin_ctz(m)] != 0;
}

/* Runs warp w until it waits at a barrier, finishes, or faults (returns the status). */
static EmuStatus warp_run(EmuExec *x, EmuWarp *w)
{
    const EmuInsn *code = x->code;
    const uint32_t count = x->code_count;
    for (;;) {
        EmuSimt *top = &w->stack[w->depth - 1];
        uint32_t pc = top->pc;
        const uint32_t mask = top->mask, rpc = top->rpc;
        const EmuInsn *in = NULL;
        for (;;) {
            if (__builtin_expect(pc >= count, 0))
                return emu_exec_fault(x, EMU_ERR_LAUNCH_FAILURE, low_lane(mask), 0,
                                      "execution ran past the end of the kernel"), x->fstatus;
            if (__builtin_expect(x->winsns == x->budget, 0)) {
                top->pc = pc;
                emu_exec_fault(x, EMU_ERR_LAUNCH_TIMEOUT, low_lane(mask), 0,
                               "budget of %llu warp instructions exhausted (emu.max_warp_insns)",
                               (unsigned long long)x->budget);
                return x->fstatus;
            }
            in = &code[pc];
            x->winsns++;
            w->clock++;
            x->tinsns += (uint32_t)__builtin_popcount(mask);
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
            switch (in->kind) {
            case EK_BRA:
                top->pc = in->target;
                emu_simt_settle(w);
                break;
            case EK_BRC:
                if (emu_simt_brc(w, in))
                    return emu_exec_fault(x, EMU_ERR_LAUNCH_FAILURE, low_lane(mask), 0,
                                          "SIMT stack overflow"), x->fstatus;
                break;
            case EK_EXIT:
                emu_simt_exit(w, mask);
                break;
            case EK_BAR:
            case EK_BARRED:
                bar_arrive(w, in, pc, mask);
                top->pc = pc + 1;
                emu_simt_settle(w);
                w->state = EW_BARRIER;
                if (!w->depth)
                    w->state = EW_DONE;
                return EMU_OK;
            default: /* EK_TRAP */
                return emu_exec_fault(x, EMU_ERR_LAUNCH_FAILURE, low_lane(mask), 0,
                                      "trap executed"), x->fstatus;
            }
        } else {
            emu_simt_settle(w);
        }
        if (!w->depth) {
            w->state = EW_DONE;
            return EMU_OK;
        }
    }
}

/* Per-launch host buffers, reused by every CTA. */
typedef struct EmuCtaBufs {
    EmuWarp *warps;
    uint32_t (*regs)[32];
    size_t reg_bytes;
    uint32_t nthreads, nrows;
} EmuCtaBufs;

static void cta_reset(EmuExec *x, EmuCtaBufs *b)
{
    memset(b->regs, 0, b->reg_bytes);
    if (x->shared_size)
        memset(x->shared, 0, x->shared_size);
    if (x->local_size)
        memset(x->local, 0, (size_t)x->local_size * b->nthreads);
    for (uint32_t i = 0; i < x->nwarps; i++) {
        EmuWarp *w = &b->warps[i];
        uint32_t left = b->nthreads - i * XGPU_WARP_SIZE;
        w->r = b->regs + (size_t)i * b->nrows;
        w->id = i;
        w->state = EW_RUN;
        w->clock = 0;
        w->depth = 0;
        w->stack[w->depth++] = (EmuSimt){0, UINT32_MAX, left >= 32 ? ~0u : (1u << left) - 1};
    }
}

/* Whether the waiting warps disagree on the barrier (id, or bar vs barred and its
 * reduction): nothing can progress then. */
static int barrier_conflict(const EmuExec *x, const EmuCtaBufs *b)
{
    const EmuWarp *a = NULL;
    for (uint32_t i = 0; i < x->nwarps; i++) {
        const EmuWarp *w = &b->warps[i];
        if (w->state != EW_BARRIER)
            continue;
        if (!a)
            a = w;
        else if (w->bar_id != a->bar_id || w->bar_red != a->bar_red)
            return 1;
    }
    return 0;
}

/* Releases the waiting warps; for barred, first writes the reduction to every thread
 * that arrived. */
static void barrier_release(const EmuExec *x, EmuCtaBufs *b)
{
    uint32_t total = 0, count = 0, red = 0;
    for (uint32_t i = 0; i < x->nwarps; i++) {
        const EmuWarp *w = &b->warps[i];
        if (w->state == EW_BARRIER && w->bar_red) {
            red = w->bar_red;
            total += (uint32_t)__builtin_popcount(w->bar_mask);
            count += w->bar_count;
        }
    }
    uint32_t result = red == 1 + XRED_POPC ? count
                      : red == 1 + XRED_AND ? count == total : count != 0;
    for (uint32_t i = 0; i < x->nwarps; i++) {
        EmuWarp *w = &b->warps[i];
        if (w->state != EW_BARRIER)
            continue;
        for (uint32_t m = w->bar_red ? w->bar_mask : 0; m; m &= m - 1)
            w->r[w->bar_dst][__builtin_ctz(m)] = result;
        w->state = EW_RUN;
    }
}

/* What warp w is doing, for deadlock and budget messages. */
static void warp_doing(const EmuWarp *w, const EmuWarp *running, char *buf, size_t n)
{
    if (w->state == EW_BARRIER && w->bar_red)
        snprintf(buf, n, "wait at barred.%s %u", xisa_red_names[(w->bar_red - 1) % XRED_COUNT],
                 w->bar_id);
    else if (w->state == EW_BARRIER)
        snprintf(buf, n, "wait at bar %u", w->bar_id);
    else
        snprintf(buf, n, "%s", w == running ? "ran out of budget" : "ready");
}

static uint32_t warp_pc(const EmuWarp *w)
{
    return w->state == EW_BARRIER ? w->bar_pc : w->depth ? w->stack[w->depth - 1].pc : 0;
}

/* Appends to out the unfinished warps grouped by (pc, activity): "warps 0-2,5 at pc 7
 * wait at bar 0; warp 3 at pc 9 wait at bar 1". */
static void describe_warps(const EmuExec *x, const EmuCtaBufs *b, const EmuWarp *running,
                           char *out, size_t n)
{
    size_t len = strlen(out);
    for (uint32_t i = 0; i < x->nwarps && len + 1 < n; i++) {
        const EmuWarp *w = &b->warps[i];
        char what[64], other[64];
        int seen = 0;
        if (w->state == EW_DONE)
            continue;
        warp_doing(w, running, what, sizeof what);
        for (uint32_t j = 0; j < i && !seen; j++) {
            warp_doing(&b->warps[j], running, other, sizeof other);
            seen = b->warps[j].state != EW_DONE && warp_pc(&b->warps[j]) == warp_pc(w) &&
                   strcmp(what, other) == 0;
        }
        if (seen)
            continue;
        char ids[160] = "";
        uint32_t nids = 0, run_start = UINT32_MAX;
        for (uint32_t j = i; j <= x->nwarps; j++) {
            int same = 0;
            if (j < x->nwarps && b->warps[j].state != EW_DONE &&
                warp_pc(&b->warps[j]) == warp_pc(w)) {
                warp_doing(&b->warps[j], running, other, sizeof other);
                same = strcmp(what, other) == 0;
            }
            if (same && run_start == UINT32_MAX)
                run_start = j, nids++;
            else if (same)
                nids++;
            else if (run_start != UINT32_MAX) {
                size_t k = strlen(ids);
                if (j - 1 > run_start)
                    snprintf(ids + k, sizeof ids - k, "%s%u-%u", k ? "," : "", run_start, j - 1);
                else
                    snprintf(ids + k, sizeof ids - k, "%s%u", k ? "," : "", run_start);
                run_start = UINT32_MAX;
            }
        }
        snprintf(out + len, n - len, "; warp%s %s at pc %u %s", nids > 1 ? "s" : "", ids,
                 warp_pc(w), what);
        len = strlen(out);
    }
}

/* Runs one CTA; on a fault *fw is the faulting warp. */
static EmuStatus cta_run(EmuExec *x, EmuCtaBufs *b, EmuWarp **fw)
{
    cta_reset(x, b);
    for (;;) {
        int ran = 0, waiting = 0;
        for (uint32_t i = 0; i < x->nwarps; i++) {
            EmuWarp *w = &b->warps[i];
            if (w->state == EW_RUN) {
                ran = 1;
                EmuStatus s = warp_run(x, w);
                if (s) {
                    *fw = w;
                    if (s == EMU_ERR_LAUNCH_TIMEOUT)
                        describe_warps(x, b, w, x->fmsg, sizeof x->fmsg);
                    return s;
                }
            }
            waiting += w->state == EW_BARRIER;
        }
        if (ran)
            continue;
        if (!waiting)
            return EMU_OK;
        if (barrier_conflict(x, b)) {
            EmuWarp *last = NULL;
            for (uint32_t i = 0; i < x->nwarps; i++)
                if (b->warps[i].state == EW_BARRIER)
                    last = &b->warps[i];
            *fw = last;
            emu_exec_fault(x, EMU_ERR_DEADLOCK, low_lane(last->bar_mask), 0,
                           "barrier deadlock: warps wait at different barriers");
            describe_warps(x, b, NULL, x->fmsg, sizeof x->fmsg);
            return x->fstatus;
        }
        barrier_release(x, b);
    }
}

/* --- validation and setup ------------------------------------------------------------- */

static EmuStatus launch_check(const EmuDevice *d, const XKernel *k, EmuDim3 g, EmuDim3 b,
                              uint64_t shdyn, char *msg, size_t n)
{
    const EmuProps *p = &d->props;
    uint64_t threads = (uint64_t)b.x * b.y * b.z;
    if (!g.x || !g.y || !g.z || !b.x || !b.y || !b.z) {
        snprintf(msg, n, "grid and block dimensions must be at least 1");
        return EMU_ERR_INVALID_CONFIG;
    }
    if (b.x > p->max_block_dim[0] || b.y > p->max_block_dim[1] || b.z > p->max_block_dim[2] ||
        threads > p->max_threads_per_block) {
        snprintf(msg, n, "block (%u, %u, %u) exceeds the device's limits (%u threads)", b.x, b.y,
                 b.z, p->max_threads_per_block);
        return EMU_ERR_INVALID_CONFIG;
    }
    if (g.x > p->max_grid_dim[0] || g.y > p->max_grid_dim[1] || g.z > p->max_grid_dim[2]) {
        snprintf(msg, n, "grid (%u, %u, %u) exceeds the device's limits", g.x, g.y, g.z);
        return EMU_ERR_INVALID_CONFIG;
    }
    if (k->shared_bytes + shdyn > p->shared_per_block) {
        snprintf(msg, n, "%llu bytes of shared memory (static %u + dynamic %llu) exceed %llu",
                 (unsigned long long)(k->shared_bytes + shdyn), k->shared_bytes,
                 (unsigned long long)shdyn, (unsigned long long)p->shared_per_block);
        return EMU_ERR_OUT_OF_RESOURCES;
    }
    uint64_t regs = (uint64_t)k->nregs * ((threads + 31) / 32 * 32);
    if (regs > p->regs_per_block) {
        snprintf(msg, n, "%llu registers per block (%u per thread) exceed %u",
                 (unsigned long long)regs, k->nregs, p->regs_per_block);
        return EMU_ERR_OUT_OF_RESOURCES;
    }
    return EMU_OK;
}

static void bufs_free(EmuCtaBufs *b, EmuExec *x)
{
    for (uint32_t i = 0; b->warps && i < x->nwarps; i++)
        free(b->warps[i].stack);
    free(b->warps);
    free(b->regs);
    free(x->shared);
    free(x->local);
    free((void *)x->param);
}

static EmuStatus bufs_alloc(EmuCtaBufs *b, EmuExec *x, const EmuKernelCode *kc,
                            const XKernel *k, const void *params)
{
    b->nrows = kc->nrows;
    b->reg_bytes = (size_t)x->nwarps * kc->nrows * sizeof *b->regs;
    b->warps = calloc(x->nwarps, sizeof *b->warps);
    b->regs = malloc(b->reg_bytes);
    x->shared = malloc(x->shared_size ? x->shared_size : 1);
    x->local = malloc(x->local_size ? (size_t)x->local_size * b->nthreads : 1);
    uint8_t *param = malloc(k->param_bytes ? k->param_bytes : 1);
    x->param = param;
    if (!b->warps || !b->regs || !x->shared || !x->local || !param)
        return EMU_ERR_OUT_OF_MEMORY;
    if (k->param_bytes)
        memcpy(param, params, k->param_bytes);
    for (uint32_t i = 0; i < x->nwarps; i++)
        if (emu_simt_push(&b->warps[i], 0, 0, 0))
            return EMU_ERR_OUT_OF_MEMORY;
    return EMU_OK;
}

static void fill_fault(EmuFault *f, const EmuExec *x, const EmuModule *m, const XKernel *k,
                       const EmuWarp *w)
{
    uint32_t t = w->id * XGPU_WARP_SIZE + x->flane;
    f->block = x->ctaid;
    f->thread = (EmuDim3){t % x->block.x, t / x->block.x % x->block.y,
                          t / x->block.x / x->block.y};
    f->pc = w->state == EW_BARRIER ? w->bar_pc : w->depth ? w->stack[w->depth - 1].pc : 0;
    f->address = x->faddr;
    const XLine *ln = xgpubin_line(m->bin, k->code_start + f->pc);
    if (ln && ln->file < m->bin->nfiles) {
        f->file = m->bin->files[ln->file];
        f->line = ln->line;
    }
    snprintf(f->message, sizeof f->message, "%s", x->fmsg);
}

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Functional-mode duration of a launch of winsns warp instructions (see emu.h). */
static uint64_t emulated_ns(const EmuDevice *d, uint64_t winsns)
{
    uint64_t per_cycle = (uint64_t)d->cfg.gpu_sm_count * d->cfg.gpu_issue_width;
    uint64_t khz = d->cfg.gpu_clock_khz;
    if (!per_cycle || !khz)
        return 0;
    uint64_t cycles = winsns / per_cycle + (winsns % per_cycle != 0);
    return (uint64_t)(((unsigned __int128)cycles * 1000000u + khz - 1) / khz);
}

/* Runs every CTA of the grid. */
static EmuStatus grid_run(EmuExec *x, EmuCtaBufs *b, EmuWarp **fw)
{
    for (uint32_t z = 0; z < x->grid.z; z++)
        for (uint32_t y = 0; y < x->grid.y; y++)
            for (uint32_t cx = 0; cx < x->grid.x; cx++) {
                x->ctaid = (EmuDim3){cx, y, z};
                EmuStatus s = cta_run(x, b, fw);
                if (s)
                    return s;
            }
    return EMU_OK;
}

EmuStatus emu_launch(EmuDevice *d, EmuModule *m, int kernel, EmuDim3 grid, EmuDim3 block,
                     uint64_t shared_dynamic, const void *params, size_t param_bytes,
                     EmuLaunchStats *stats, EmuFault *fault)
{
    EmuFault scratch;
    EmuLaunchStats st = {0};
    fault = fault ? fault : &scratch;
    memset(fault, 0, sizeof *fault);
    if (!d || !m || m->dev != d || kernel < 0 || (uint32_t)kernel >= m->bin->nkernels)
        return fault->status = EMU_ERR_INVALID_VALUE;
    const XKernel *k = &m->bin->kernels[kernel];
    snprintf(st.kernel, sizeof st.kernel, "%s", k->name);
    snprintf(fault->kernel, sizeof fault->kernel, "%s", k->name);
    st.grid = grid, st.block = block, st.shared_dynamic = shared_dynamic;
    EmuStatus s = launch_check(d, k, grid, block, shared_dynamic, fault->message,
                               sizeof fault->message);
    if (!s && k->param_bytes && (!params || param_bytes < k->param_bytes)) {
        snprintf(fault->message, sizeof fault->message,
                 "%zu parameter bytes given, the kernel takes %u", param_bytes, k->param_bytes);
        s = EMU_ERR_INVALID_VALUE;
    }
    if (s) {
        st.status = fault->status = s;
        if (stats)
            *stats = st;
        return s;
    }
    EmuExec x = {.mem = &d->mem, .code = m->kcode[kernel].code,
                 .code_count = m->kcode[kernel].count, .param_size = k->param_bytes,
                 .shared_size = k->shared_bytes + shared_dynamic, .local_size = k->local_bytes,
                 .grid = grid, .block = block, .sm_count = d->props.sm_count,
                 .pf = &d->printf_fifo,
                 .budget = d->cfg.emu_max_warp_insns ? d->cfg.emu_max_warp_insns : UINT64_MAX};
    EmuCtaBufs b = {.nthreads = block.x * block.y * block.z};
    x.nwarps = (b.nthreads + XGPU_WARP_SIZE - 1) / XGPU_WARP_SIZE;
    double t0 = now_seconds();
    EmuWarp *fw = NULL;
    s = bufs_alloc(&b, &x, &m->kcode[kernel], k, params);
    if (!s)
        s = grid_run(&x, &b, &fw);
    if (s && fw) {
        fault->status = s;
        fill_fault(fault, &x, m, k, fw);
    }
    bufs_free(&b, &x);
    st.emulated_ns = emulated_ns(d, x.winsns);
    d->time_ns += st.emulated_ns;
    st.printf_bytes = x.pf_bytes;
    st.printf_dropped = x.pf_dropped;
    st.warp_instructions = x.winsns;
    st.thread_instructions = x.tinsns;
    st.host_seconds = now_seconds() - t0;
    st.status = s;
    emu_stats_record(d, &st);
    if (stats)
        *stats = st;
    return s;
}
