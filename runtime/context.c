/*
 * context.c - the runtime's process-wide context: lazy device creation, lazy module
 * loading, lookups from host stubs and shadows, statistics at exit, reset.
 *
 * The system (its configuration, and so the number of devices) is made on the first call
 * that needs it, never from a constructor, so the environment (XGPU_CONFIG, XGPU_MODE,
 * XGPU_STATS, ...) is read when main already runs; each device is created on the first
 * call that needs it while it is current, and streams its statistics from then on
 * (XGPU_STATS, rt_stats_path: each launch written as it finishes). Making the system
 * installs an atexit handler that completes every device's statistics and destroys the
 * devices; the last __cudaUnregisterFatBinary does the same, whichever comes first.
 * Modules belong to a device: each device loads a fat binary on its first use there, and
 * a reset forgets them. Kernels' printf output is written to stdout by rt_sync, at
 * CUDA's flush points and before a device goes away.
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

static RtContext rt_context; /* the runtime's one global (rt.h) */
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

/* Once, before the first entry: the lock, and every device slot with its defaults. */
static void rt_lock_init(void)
{
    pthread_mutexattr_t a;
    pthread_mutexattr_init(&a);
    pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE);
    pthread_mutex_init(&rt_context.lock, &a);
    pthread_mutexattr_destroy(&a);
    for (int i = 0; i < RT_MAX_DEVICES; i++) {
        rt_context.devs[i].index = i;
        rt_context.devs[i].set = (RtSettings)RT_SETTINGS_DEFAULT;
    }
}

RtContext *rt_enter(void)
{
    pthread_once(&rt_lock_once, rt_lock_init);
    pthread_mutex_lock(&rt_context.lock);
    rt_context.d = &rt_context.devs[rt_thread()->device];
    return &rt_context;
}

void rt_leave(RtContext **c)
{
    pthread_mutex_unlock(&(*c)->lock);
}

/* Writes what kernels printed so far to stdout (a CUDA printf flush point), every
 * device's in device order. */
void rt_sync(RtContext *c)
{
    int wrote = 0;
    for (int i = 0; i < c->ndevs; i++)
        if (c->devs[i].emu && emu_printf_flush(c->devs[i].emu, stdout) > 0)
            wrote = 1;
    if (wrote)
        fflush(stdout);
}

/* The device whose part of the global window holds p (created or not), or NULL. */
RtDev *rt_dev_of(RtContext *c, const void *p)
{
    uint64_t a = rt_addr(p);
    for (int i = 0; i < c->ndevs; i++)
        if (a >= c->devs[i].base && a < c->devs[i].limit)
            return &c->devs[i];
    return NULL;
}

/* Remembers that [addr, addr+size) is a device range (rt_is_device_ptr). */
void rt_note_device_range(RtContext *c, uint64_t addr, uint64_t size)
{
    RtDev *d = rt_dev_of(c, rt_ptr(addr));
    if (d && addr + size > d->hi)
        d->hi = addr + size;
}

/* Emulated device time of the current device: advanced by each launch, 0 on a fresh
 * device. */
uint64_t rt_device_time_ns(RtContext *c)
{
    return c->d->emu ? emu_device_time_ns(c->d->emu) : 0;
}

static void rt_exit_hook(void)
{
    RT_ENTER(c);
    rt_shutdown(c);
}

/* XGPU_STATS for device i: the path itself for device 0, with ".gpuI" before a ".json"
 * ending (or at the end) for the others. */
static char *rt_stats_path(const char *path, int i)
{
    if (!path || !*path)
        return NULL;
    if (i == 0)
        return strdup(path);
    size_t n = strlen(path), stem = n;
    if (n > 5 && strcmp(path + n - 5, ".json") == 0)
        stem = n - 5;
    char *s = malloc(n + 16);
    if (s)
        snprintf(s, n + 16, "%.*s.gpu%d%s", (int)stem, path, i, path + stem);
    return s;
}

static void rt_read_env(RtContext *c, RtDev *d)
{
    free(d->stats_path);
    d->stats_path = rt_stats_path(getenv("XGPU_STATS"), d->index);
    char err[256] = "";
    if (d->stats_path && emu_stats_stream(d->emu, d->stats_path, err, sizeof err) != EMU_OK)
        fprintf(stderr, "xgpu: cannot write statistics to %s: %s\n", d->stats_path, err);
    const char *reuse = getenv("XGPU_REUSE_PROFILE");
    if (d->index == 0 && reuse && *reuse && emu_reuse_profile_start(d->emu, reuse) != EMU_OK)
        fprintf(stderr, "xgpu: cannot start reuse profiling (out of memory)\n");
    const char *blocking = getenv("CUDA_LAUNCH_BLOCKING");
    c->launch_blocking = blocking && strcmp(blocking, "1") == 0;
}

/* The system the environment configures, made once (it holds the configuration every
 * device is made from); a failure is reported once and returned from then on. */
cudaError_t rt_system(RtContext *c)
{
    if (c->sys || c->init_error != cudaSuccess)
        return c->init_error;
    char err[256] = "";
    if (emu_system_create(&c->sys, err, sizeof err) != EMU_OK) {
        fprintf(stderr, "xgpu: cannot create the device: %s\n", err[0] ? err : "unknown error");
        c->sys = NULL;
        return c->init_error = cudaErrorInitializationError;
    }
    c->ndevs = (int)emu_system_gpus(c->sys);
    for (int i = 0; i < c->ndevs; i++)
        emu_system_range(c->sys, (uint32_t)i, &c->devs[i].base, &c->devs[i].limit);
    if (!c->exit_hook && atexit(rt_exit_hook) == 0)
        c->exit_hook = 1;
    return cudaSuccess;
}

/* Returns the current device, creating it on first use; the sticky error once there is
 * one. */
cudaError_t rt_device(RtContext *c, EmuDevice **dev)
{
    RtDev *d = c->d;
    cudaError_t e = rt_system(c);
    if (e != cudaSuccess || (e = d->sticky) != cudaSuccess)
        return e;
    if (!d->emu) {
        char err[256] = "";
        if (emu_system_device(c->sys, (uint32_t)d->index, &d->emu, err, sizeof err) != EMU_OK) {
            fprintf(stderr, "xgpu: cannot create device %d: %s\n", d->index,
                    err[0] ? err : "unknown error");
            d->emu = NULL;
            return d->sticky = cudaErrorInitializationError;
        }
        rt_read_env(c, d);
    }
    if (dev)
        *dev = d->emu;
    return cudaSuccess;
}

/* The kernels' indices: the same on every device (one image, loaded as it is). */
/* Whether device is one of the system's (the system made first). */
cudaError_t rt_valid_device(RtContext *c, int device)
{
    cudaError_t e = rt_system(c);
    if (e == cudaSuccess && (device < 0 || device >= c->ndevs))
        e = cudaErrorInvalidDevice;
    return e;
}

/* rt_device for device i of the system, current or not. */
cudaError_t rt_device_at(RtContext *c, int i, EmuDevice **dev)
{
    cudaError_t e = rt_valid_device(c, i);
    if (e != cudaSuccess)
        return e;
    RtDev *cur = c->d;
    c->d = &c->devs[i];
    e = rt_device(c, dev);
    c->d = cur;
    return e;
}

static void rt_resolve(RtFatbin *fb, const EmuModule *mod)
{
    for (size_t i = 0; i < fb->nfuncs; i++)
        fb->funcs[i].kernel = emu_kernel(mod, fb->funcs[i].name);
}

/* Loads fb's device binary on the current device (once per device). */
cudaError_t rt_fatbin_load(RtContext *c, RtFatbin *fb)
{
    EmuDevice *dev;
    int i = c->d->index;
    cudaError_t e = rt_device(c, &dev);
    if (e != cudaSuccess || fb->mod[i])
        return e;
    if (fb->load_error[i] != cudaSuccess)
        return fb->load_error[i];
    char err[256] = "";
    const void *elf;
    size_t elflen;
    if (rt_fatbin_image(fb->data, &elf, &elflen))
        return fb->load_error[i] = cudaErrorInvalidKernelImage;
    EmuStatus s = emu_load(dev, elf, elflen, &fb->mod[i], err, sizeof err);
    if (s != EMU_OK) {
        fprintf(stderr, "xgpu: cannot load the device binary: %s\n", err[0] ? err : "error");
        fb->mod[i] = NULL;
        return fb->load_error[i] = s == EMU_ERR_OUT_OF_MEMORY ? cudaErrorMemoryAllocation
                                                              : cudaErrorInvalidKernelImage;
    }
    rt_resolve(fb, fb->mod[i]);
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

/* Completes device d's statistics file (XGPU_STATS): its launches are written as they
 * finish (emu_stats_stream), the totals now. */
static void rt_write_stats(RtDev *d)
{
    char err[256] = "";
    if (d->stats_path && d->emu && emu_stats_stream_end(d->emu, err, sizeof err) != EMU_OK)
        fprintf(stderr, "xgpu: cannot write statistics to %s: %s\n", d->stats_path, err);
}

/* XGPU_REUSE_PROFILE (device 0): the near/far counts gathered so far. */
static void rt_write_reuse_profile(RtDev *d)
{
    char err[512] = "";
    if (d->index == 0 && d->emu && emu_reuse_profile_write(d->emu, err, sizeof err))
        fprintf(stderr, "xgpu: reuse profile: %s\n", err);
}

/* Writes device d's statistics and forgets it: managed blocks, modules, the calling
 * thread's pending configurations. */
static void rt_drop_device(RtContext *c, RtDev *d)
{
    rt_write_stats(d);
    rt_write_reuse_profile(d);
    rt_managed_drop(d);
    if (d->emu)
        emu_destroy(d->emu); /* which ends its peer access both ways */
    d->emu = NULL;
    d->peers = 0;
    for (int i = 0; i < c->ndevs; i++)
        c->devs[i].peers &= ~(1u << d->index);
    d->hi = 0;
    d->sticky = cudaSuccess;
    free(d->stats_path);
    d->stats_path = NULL;
    for (RtFatbin *f = c->fatbins; f; f = f->next) {
        f->mod[d->index] = NULL;
        f->load_error[d->index] = cudaSuccess;
    }
    rt_thread()->npending = 0;
}

/* Writes every device's statistics and destroys the devices and the system (process
 * exit, last module gone). */
void rt_shutdown(RtContext *c)
{
    rt_sync(c);
    for (int i = 0; i < c->ndevs; i++)
        rt_drop_device(c, &c->devs[i]);
    emu_system_destroy(c->sys);
    c->sys = NULL;
    c->ndevs = 0;
}

/* cudaDeviceReset, of the current device: the statistics so far are written, then it
 * starts over: streams, events and host registrations are destroyed, managed memory is
 * freed, limits and preferences return to their defaults, Locality Descriptors are
 * dropped (XMem atoms, host state, stay). Its sticky error and the calling thread's last
 * error are cleared; other threads keep theirs, as with CUDA. A system that could not be
 * made is tried again. */
void rt_reset(RtContext *c)
{
    rt_sync(c);
    if (c->d->index < c->ndevs)
        rt_drop_device(c, c->d);
    rt_streams_free(c);
    rt_host_regs_free(c);
    rt_ldesc_reset(c);
    c->d->set = (RtSettings)RT_SETTINGS_DEFAULT;
    c->init_error = cudaSuccess;
    rt_thread()->last = cudaSuccess;
}
