/*
 * launch.c - emu_launch, the device's launch: it checks the launch against the device
 * and the kernel, copies the parameters, runs the grid in the mode the configuration
 * names (functional: func/launch.c; timing: timing/gpu.c), and records the launch's
 * statistics and, in timing mode, its counters and the observer's report (stats/log.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "device.h"
#include "stats/log.h"
#include "stats/stats.h"
#include "timing/gpu.h"

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
    if (k->local_bytes > EMU_LOCAL_MAX) {
        snprintf(msg, n, "kernel %.80s needs %u bytes of local memory per thread, more than "
                 "the %u bytes CUDA allows", k->name, k->local_bytes, EMU_LOCAL_MAX);
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

static EmuStatus param_copy(EmuExec *x, const XKernel *k, const void *params)
{
    uint8_t *param = malloc(k->param_bytes ? k->param_bytes : 1);
    x->param = param;
    if (!param)
        return EMU_ERR_OUT_OF_MEMORY;
    if (k->param_bytes)
        memcpy(param, params, k->param_bytes);
    return EMU_OK;
}

static uint32_t memcheck_mode(const EmuConfig *c)
{
    return strcmp(c->emu_memcheck, "warn") == 0  ? EMU_MEMCHECK_WARN
           : strcmp(c->emu_memcheck, "off") == 0 ? EMU_MEMCHECK_OFF
                                                 : EMU_MEMCHECK_ON;
}

/* Seconds on clock id (CLOCK_MONOTONIC: wall time; CLOCK_PROCESS_CPUTIME_ID: CPU time). */
static double clock_seconds(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Duration of `cycles` cycles of gpu.clock_khz, rounded up. */
static uint64_t cycles_ns(const EmuDevice *d, uint64_t cycles)
{
    uint64_t khz = d->cfg.gpu_clock_khz;
    return khz ? (uint64_t)(((unsigned __int128)cycles * 1000000u + khz - 1) / khz) : 0;
}

/* Functional-mode duration of a launch of winsns warp instructions (see emu.h). */
static uint64_t emulated_ns(const EmuDevice *d, uint64_t winsns)
{
    uint64_t per_cycle = (uint64_t)d->props.sm_count * d->cfg.gpu_issue_width;
    uint64_t khz = d->cfg.gpu_clock_khz;
    if (!per_cycle || !khz)
        return 0;
    uint64_t cycles = winsns / per_cycle + (winsns % per_cycle != 0);
    return (uint64_t)(((unsigned __int128)cycles * 1000000u + khz - 1) / khz);
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
    int timing = d->cfg.emu_mode == EMU_MODE_TIMING;
    EmuExec x = {.dev = d, .mod = m, .kern = k, .mem = &d->mem, .code = m->kcode[kernel].code,
                 .code_count = m->kcode[kernel].count, .param_size = k->param_bytes,
                 .konst = m->kcode[kernel].konst, .nkonst = m->kcode[kernel].nkonst,
                 .krow = m->kcode[kernel].nrows - m->kcode[kernel].nkonst,
                 .shared_size = k->shared_bytes + shared_dynamic, .local_size = k->local_bytes,
                 .grid = grid, .block = block, .sm_count = d->props.sm_count,
                 .pf = &d->printf_fifo, .budget = emu_config_budget(&d->cfg),
                 .memcheck = memcheck_mode(&d->cfg), .grid_sync = m->kcode[kernel].grid_sync,
                 .its_spin = strcmp(d->cfg.emu_simt, "its") ? 0 : (uint32_t)d->cfg.emu_its_spin,
                 .ctas = (uint64_t)grid.x * grid.y * grid.z,
                 .progress = !timing && emu_progress_wanted(d),
                 .next_progress = EMU_PROGRESS_STEP, .slice_end = UINT64_MAX,
                 .quantum = timing ? 0 : d->cfg.emu_quantum};
    emu_exec_init_stop(&x);
    uint32_t nthreads = block.x * block.y * block.z;
    x.nwarps = (nthreads + XGPU_WARP_SIZE - 1) / XGPU_WARP_SIZE;
    uint64_t cap = emu_grid_capacity(d, k, x.nwarps, x.shared_size);
    if (x.grid_sync && x.ctas > cap) {
        snprintf(fault->message, sizeof fault->message, "its grid-wide barrier needs all %llu "
                 "blocks resident at once, and at most %llu fit (a cooperative launch's limit)",
                 (unsigned long long)x.ctas, (unsigned long long)cap);
        st.status = fault->status = EMU_ERR_OUT_OF_RESOURCES;
        if (stats)
            *stats = st;
        return EMU_ERR_OUT_OF_RESOURCES;
    }
    x.reuse = emu_reuse_begin(d, m, kernel, grid, x.nwarps);
    double t0 = clock_seconds(CLOCK_MONOTONIC), c0 = clock_seconds(CLOCK_PROCESS_CPUTIME_ID);
    TmCounters ctr;
    TmReport rep = {0};
    memset(&ctr, 0, sizeof ctr); /* a launch refused before it ran records zeros */
    s = param_copy(&x, k, params);
    if (!s && timing) {
        s = tm_launch(d, m, kernel, &x, fault, &st.cycles, &ctr, &rep);
        if (s == EMU_ERR_OUT_OF_MEMORY && !fault->message[0]) /* as functional mode says */
            emu_oom_message(&x, cap < x.ctas ? cap : x.ctas, fault->message,
                            sizeof fault->message);
    } else if (!s) {
        if (x.progress)
            emu_progress_begin(d, k->name, 0);
        s = emu_func_run(&x, m, k, m->kcode[kernel].nrows, fault);
        if (x.progress)
            emu_progress_end(d);
    }
    free((void *)x.param);
    emu_reuse_end(x.reuse);
    emu_memcheck_end(&x);
    st.invalid_accesses = x.bad_accesses;
    st.emulated_ns = d->cfg.emu_mode == EMU_MODE_TIMING ? cycles_ns(d, st.cycles)
                                                          : emulated_ns(d, x.winsns);
    d->time_ns += st.emulated_ns;
    st.printf_bytes = x.pf_bytes;
    st.printf_dropped = x.pf_dropped;
    st.warp_instructions = x.winsns;
    st.thread_instructions = x.tinsns;
    st.host_seconds = clock_seconds(CLOCK_MONOTONIC) - t0;
    st.host_cpu_seconds = clock_seconds(CLOCK_PROCESS_CPUTIME_ID) - c0;
    st.status = s;
    emu_stats_record(d, &st);
    if (d->cfg.emu_mode == EMU_MODE_TIMING)
        tm_record(d, d->nlaunches - 1, &ctr, &rep);
    tm_report_free(&rep);
    if (stats)
        *stats = st;
    return s;
}
