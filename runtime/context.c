/*
 * context.c - the runtime's process-wide context: lazy device creation, lazy module
 * loading, lookups from host stubs and shadows, statistics at exit, reset.
 *
 * The device is created on the first call that needs it, never from a constructor, so
 * the environment (XGPU_CONFIG, XGPU_MODE, XGPU_STATS, ...) is read when main already
 * runs. Creating it installs an atexit handler that writes XGPU_STATS and destroys the
 * device; the last __cudaUnregisterFatBinary does the same, whichever comes first.
 * Modules belong to the device: a reset forgets them and they are loaded again on use.
 * Kernels' printf output is written to stdout by rt_sync, at CUDA's flush points and
 * before the device goes away.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt.h"

/* CUDA's defaults: 1 KiB stack, 1 MiB printf FIFO, 8 MiB heap, sync depth 2, 2048
 * pending launches, 32-byte L2 fetch granularity, no persisting L2. */
#define RT_SETTINGS_DEFAULT                                                                \
    {                                                                                      \
        .limits = {1024, 1u << 20, 8u << 20, 2, 2048, 32, 0},                              \
        .cache = cudaFuncCachePreferNone, .shmem = cudaSharedMemBankSizeFourByte, .flags = 0 \
    }

RtContext *rt_ctx(void)
{
    static RtContext ctx = {.set = RT_SETTINGS_DEFAULT}; /* the one global (STYLE.md 5) */
    return &ctx;
}

/* Writes what kernels printed so far to stdout (a CUDA printf flush point). */
void rt_sync(RtContext *c)
{
    if (c->dev && emu_printf_flush(c->dev, stdout) > 0)
        fflush(stdout);
}

/* Emulated device time: advanced by each launch, 0 on a fresh device. */
uint64_t rt_device_time_ns(RtContext *c)
{
    return c->dev ? emu_device_time_ns(c->dev) : 0;
}

static void rt_exit_hook(void)
{
    rt_shutdown(rt_ctx());
}

static void rt_read_env(RtContext *c)
{
    const char *stats = getenv("XGPU_STATS");
    free(c->stats_path);
    c->stats_path = stats && *stats ? strdup(stats) : NULL;
    const char *reuse = getenv("XGPU_REUSE_PROFILE");
    if (reuse && *reuse && c->dev && emu_reuse_profile_start(c->dev, reuse) != EMU_OK)
        fprintf(stderr, "xgpu: cannot start reuse profiling (out of memory)\n");
    const char *blocking = getenv("CUDA_LAUNCH_BLOCKING");
    c->launch_blocking = blocking && strcmp(blocking, "1") == 0;
}

/* Returns the device, creating it on first use; the sticky error once there is one. */
cudaError_t rt_device(RtContext *c, EmuDevice **dev)
{
    if (c->sticky != cudaSuccess)
        return c->sticky;
    if (!c->dev) {
        char err[256] = "";
        if (emu_create(&c->dev, err, sizeof err) != EMU_OK) {
            fprintf(stderr, "xgpu: cannot create the device: %s\n",
                    err[0] ? err : "unknown error");
            c->dev = NULL;
            c->sticky = cudaErrorInitializationError;
            return c->sticky;
        }
        rt_read_env(c);
        if (!c->exit_hook && atexit(rt_exit_hook) == 0)
            c->exit_hook = 1;
    }
    if (dev)
        *dev = c->dev;
    return cudaSuccess;
}

static void rt_resolve(RtFatbin *fb)
{
    for (size_t i = 0; i < fb->nfuncs; i++)
        fb->funcs[i].kernel = emu_kernel(fb->mod, fb->funcs[i].name);
}

/* Loads fb's device binary on the current device (once). */
cudaError_t rt_fatbin_load(RtContext *c, RtFatbin *fb)
{
    EmuDevice *dev;
    cudaError_t e = rt_device(c, &dev);
    if (e != cudaSuccess || fb->mod)
        return e;
    if (fb->load_error != cudaSuccess)
        return fb->load_error;
    char err[256] = "";
    const void *elf;
    size_t elflen, next;
    if (!fb->data || xfat_parse(fb->data, SIZE_MAX, &elf, &elflen, &next, err, sizeof err)) {
        fprintf(stderr, "xgpu: bad device binary container: %s\n", err[0] ? err : "no data");
        return fb->load_error = cudaErrorInvalidKernelImage;
    }
    EmuStatus s = emu_load(dev, elf, elflen, &fb->mod, err, sizeof err);
    if (s != EMU_OK) {
        fprintf(stderr, "xgpu: cannot load the device binary: %s\n", err[0] ? err : "error");
        fb->mod = NULL;
        return fb->load_error = s == EMU_ERR_OUT_OF_MEMORY ? cudaErrorMemoryAllocation
                                                           : cudaErrorInvalidKernelImage;
    }
    rt_resolve(fb);
    return cudaSuccess;
}

int rt_find_func(RtContext *c, const void *stub, RtFatbin **fb, RtFunc **fn)
{
    for (RtFatbin *f = c->fatbins; f; f = f->next)
        for (size_t i = 0; i < f->nfuncs; i++)
            if (f->funcs[i].stub == stub) {
                *fb = f;
                *fn = &f->funcs[i];
                return 1;
            }
    return 0;
}

int rt_find_var(RtContext *c, const void *shadow, RtFatbin **fb, RtVar **var)
{
    for (RtFatbin *f = c->fatbins; f; f = f->next)
        for (size_t i = 0; i < f->nvars; i++)
            if (f->vars[i].shadow == shadow) {
                *fb = f;
                *var = &f->vars[i];
                return 1;
            }
    return 0;
}

static void rt_write_stats(RtContext *c)
{
    if (!c->stats_path || !c->dev)
        return;
    FILE *f = fopen(c->stats_path, "w");
    if (!f) {
        fprintf(stderr, "xgpu: cannot write statistics to %s: %s\n", c->stats_path,
                strerror(errno));
        return;
    }
    int bad = emu_write_stats_json(c->dev, f) != 0;
    if (fclose(f) != 0 || bad)
        fprintf(stderr, "xgpu: cannot write statistics to %s\n", c->stats_path);
}

/* XGPU_REUSE_PROFILE: the near/far counts gathered so far. */
static void rt_write_reuse_profile(RtContext *c)
{
    char err[512] = "";
    if (c->dev && emu_reuse_profile_write(c->dev, err, sizeof err))
        fprintf(stderr, "xgpu: reuse profile: %s\n", err);
}

/* Forgets the device: modules, pending configurations, errors. */
static void rt_drop_device(RtContext *c)
{
    if (c->dev)
        emu_destroy(c->dev);
    c->dev = NULL;
    for (RtFatbin *f = c->fatbins; f; f = f->next) {
        f->mod = NULL;
        f->load_error = cudaSuccess;
    }
    c->npending = 0;
}

/* Writes the statistics and destroys the device (process exit, last module gone). */
void rt_shutdown(RtContext *c)
{
    rt_sync(c);
    rt_write_stats(c);
    rt_write_reuse_profile(c);
    rt_drop_device(c);
    free(c->stats_path);
    c->stats_path = NULL;
}

/* cudaDeviceReset: the statistics so far are written, then everything starts over:
 * streams and events are destroyed, limits and preferences return to their defaults,
 * Locality Descriptors are dropped (XMem atoms, host state, stay). */
void rt_reset(RtContext *c)
{
    rt_shutdown(c);
    rt_streams_free(c);
    rt_ldesc_reset(c);
    c->set = (RtSettings)RT_SETTINGS_DEFAULT;
    c->sticky = cudaSuccess;
    c->last = cudaSuccess;
}
