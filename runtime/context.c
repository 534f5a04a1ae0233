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
 *
 * Threads. The context's recursive mutex is initialized once (pthread_once), so it
 * works from the first global constructor on; rt_enter/rt_leave take and release it.
 * The per-thread state (RtThread) is thread-local and starts zeroed: no error, device
 * 0, no pending configuration.
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

static RtContext rt_context = {.set = RT_SETTINGS_DEFAULT}; /* the runtime's one global (rt.h) */
static pthread_once_t rt_lock_once = PTHREAD_ONCE_INIT;

RtContext *rt_ctx(void)
{
    return &rt_context;
}

/* CUDA's per-thread state; the only other global, and thread-local. */
RtThread *rt_thread(void)
{
    static _Thread_local RtThread t;
    return &t;
}

static void rt_lock_init(void)
{
    pthread_mutexattr_t a;
    pthread_mutexattr_init(&a);
    pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE);
    pthread_mutex_init(&rt_context.lock, &a);
    pthread_mutexattr_destroy(&a);
}

RtContext *rt_enter(void)
{
    pthread_once(&rt_lock_once, rt_lock_init);
    pthread_mutex_lock(&rt_context.lock);
    return &rt_context;
}

void rt_leave(RtContext **c)
{
    pthread_mutex_unlock(&(*c)->lock);
}

/* Writes what kernels printed so far to stdout (a CUDA printf flush point). */
void rt_sync(RtContext *c)
{
    if (c->dev && emu_printf_flush(c->dev, stdout) > 0)
        fflush(stdout);
}

/* Remembers that [addr, addr+size) is a device range (rt_is_device_ptr). */
void rt_note_device_range(RtContext *c, uint64_t addr, uint64_t size)
{
    if (addr + size > c->dev_hi)
        c->dev_hi = addr + size;
}

/* Emulated device time: advanced by each launch, 0 on a fresh device. */
uint64_t rt_device_time_ns(RtContext *c)
{
    return c->dev ? emu_device_time_ns(c->dev) : 0;
}

static void rt_exit_hook(void)
{
    RT_ENTER(c);
    rt_shutdown(c);
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
    size_t elflen;
    if (rt_fatbin_image(fb->data, &elf, &elflen))
        return fb->load_error = cudaErrorInvalidKernelImage;
    EmuStatus s = emu_load(dev, elf, elflen, &fb->mod, err, sizeof err);
    if (s != EMU_OK) {
        fprintf(stderr, "xgpu: cannot load the device binary: %s\n", err[0] ? err : "error");
        fb->mod = NULL;
        return fb->load_error = s == EMU_ERR_OUT_OF_MEMORY ? cudaErrorMemoryAllocation
                                                           : cudaErrorInvalidKernelImage;
    }
    rt_resolve(fb);
    return rt_managed_vars_add(c, fb);
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

/* Forgets the device: managed blocks, modules, this thread's pending configurations. */
static void rt_drop_device(RtContext *c)
{
    rt_managed_drop(c);
    if (c->dev)
        emu_destroy(c->dev);
    c->dev = NULL;
    c->dev_hi = 0;
    for (RtFatbin *f = c->fatbins; f; f = f->next) {
        f->mod = NULL;
        f->load_error = cudaSuccess;
    }
    rt_thread()->npending = 0;
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
 * streams, events and host registrations are destroyed, managed memory is freed,
 * limits and preferences return to their defaults, Locality Descriptors are dropped
 * (XMem atoms, host state, stay). The sticky error and the calling thread's last error
 * are cleared; other threads keep theirs, as with CUDA. */
void rt_reset(RtContext *c)
{
    rt_shutdown(c);
    rt_streams_free(c);
    rt_host_regs_free(c);
    rt_ldesc_reset(c);
    c->set = (RtSettings)RT_SETTINGS_DEFAULT;
    c->sticky = cudaSuccess;
    rt_thread()->last = cudaSuccess;
}
