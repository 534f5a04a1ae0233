/*
 * launch.c - emu_launch: launch validation, the CTA loop, the warp scheduler and the warp
 * loop that runs pre-decoded instructions.
 *
 * Functional mode runs one CTA at a time, CTAs in x-fastest order. Within a CTA the
 * warps are visited round-robin; each runs until it reaches a barrier or finishes. When
 * no warp can run, the barrier is released if every unfinished warp waits at the same
 * barrier id (warps that exited do not count); if they wait at different ids nothing can
 * ever progress and the launch ends with EMU_ERR_DEADLOCK. Shared memory, local memory
 * and registers start zeroed in every CTA, so results never depend on the previous CTA.
 *
 * The warp loop keeps the running SIMT entry's pc, mask and rpc in locals and runs
 * straight-line code with one indirect call per instruction; control instructions and
 * reaching the entry's reconvergence pc go through exec_ctrl.c. The per-launch budget of
 * warp instructions (emu.max_warp_insns) ends runaway kernels with
 * EMU_ERR_LAUNCH_TIMEOUT. Counters are plain increments: warp instructions, and active
 * lanes summed over instructions (thread instructions).
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
                top->pc = pc + 1;
                emu_simt_settle(w);
                w->state = EW_BARRIER;
                w->bar_id = (uint32_t)in->imm;
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

/* Whether the waiting warps disagree on the barrier id: sets *a and *b to two warps
 * that wait at different barriers. */
static int barrier_conflict(const EmuExec *x, const EmuCtaBufs *b, EmuWarp **a, EmuWarp **c)
{
    *a = NULL;
    for (uint32_t i = 0; i < x->nwarps; i++) {
        EmuWarp *w = &b->warps[i];
        if (w->state != EW_BARRIER)
            continue;
        if (!*a)
            *a = w;
        else if (w->bar_id != (*a)->bar_id) {
            *c = w;
            return 1;
        }
    }
    return 0;
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
                    return s;
                }
            }
            waiting += w->state == EW_BARRIER;
        }
        if (ran)
            continue;
        if (!waiting)
            return EMU_OK;
        EmuWarp *wa, *wb;
        if (barrier_conflict(x, b, &wa, &wb)) {
            *fw = wb;
            emu_exec_fault(x, EMU_ERR_DEADLOCK, low_lane(wb->stack[wb->depth - 1].mask), 0,
                           "barrier deadlock: warp %u waits at barrier %u, warp %u at barrier %u",
                           wa->id, wa->bar_id, wb->id, wb->bar_id);
            return x->fstatus;
        }
        for (uint32_t i = 0; i < x->nwarps; i++)
            if (b->warps[i].state == EW_BARRIER)
                b->warps[i].state = EW_RUN;
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
    f->pc = w->depth ? w->stack[w->depth - 1].pc : 0;
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
    st.warp_instructions = x.winsns;
    st.thread_instructions = x.tinsns;
    st.host_seconds = now_seconds() - t0;
    st.status = s;
    emu_stats_record(d, &st);
    if (stats)
        *stats = st;
    return s;
}
