/*
 * device.c - device management: the system's devices (cudaGetDeviceCount, the current
 * device per host thread), flags, limits, cache and shared-memory preferences (per
 * device), synchronization, reset, peers and versions.
 *
 * Launches and copies run to completion when called, so synchronizing flushes device
 * printf and reports the sticky error. cudaDeviceReset flushes printf, writes the
 * statistics gathered so far (XGPU_STATS), destroys the current device, the streams and
 * events, restores its limits and preferences and clears its errors; the next call that
 * needs it creates a fresh device (for every thread). Limits other than the printf FIFO
 * are remembered only: the emulator has no device stack limit, device heap or L2
 * persistence to apply them to.
 */
#include <stdio.h>
#include <string.h>

#include "rt.h"
#include "xgpu/cuda/cuda_profiler_api.h"

enum { RT_CUDA_VERSION = 12000 };

/* system.gpus devices: making the system reads the configuration (and fails, naming the
 * problem, when it is bad). */
cudaError_t cudaGetDeviceCount(int *count)
{
    RT_ENTER(c);
    if (!count)
        return rt_error(c, cudaErrorInvalidValue);
    cudaError_t e = rt_system(c);
    *count = e == cudaSuccess ? c->ndevs : 0;
    return rt_error(c, e);
}

/* The current device is per host thread, as in CUDA; the device itself is created by
 * the first call that needs it. */
cudaError_t cudaSetDevice(int device)
{
    RT_ENTER(c);
    cudaError_t e = rt_valid_device(c, device);
    if (e != cudaSuccess)
        return rt_error(c, e);
    rt_thread()->device = device;
    c->d = &c->devs[device];
    return cudaSuccess;
}

cudaError_t cudaGetDevice(int *device)
{
    if (!device)
        return rt_error(rt_ctx(), cudaErrorInvalidValue);
    *device = rt_thread()->device;
    return cudaSuccess;
}

/* Scheduling hints only: the host thread always runs the work itself. */
cudaError_t cudaSetDeviceFlags(unsigned int flags)
{
    RT_ENTER(c);
    if ((flags & ~(unsigned)cudaDeviceMask) ||
        ((flags & cudaDeviceScheduleMask) != 0 && (flags & cudaDeviceScheduleMask) != 1 &&
         (flags & cudaDeviceScheduleMask) != 2 && (flags & cudaDeviceScheduleMask) != 4))
        return rt_error(c, cudaErrorInvalidValue);
    c->d->set.flags = flags;
    return cudaSuccess;
}

cudaError_t cudaGetDeviceFlags(unsigned int *flags)
{
    if (!flags)
        return rt_error(rt_ctx(), cudaErrorInvalidValue);
    RT_ENTER(c);
    *flags = c->d->set.flags;
    return cudaSuccess;
}

cudaError_t cudaDeviceSynchronize(void)
{
    RT_ENTER(c);
    rt_sync(c); /* also after a fault: what the kernel printed first */
    return rt_error(c, rt_device(c, NULL));
}

cudaError_t cudaThreadSynchronize(void)
{
    return cudaDeviceSynchronize();
}

cudaError_t cudaDeviceReset(void)
{
    RT_ENTER(c);
    rt_reset(c);
    return cudaSuccess;
}

cudaError_t cudaThreadExit(void)
{
    return cudaDeviceReset();
}

/* Preferences are remembered and reported back; the cache split and bank width come
 * from the emulator's configuration. */
cudaError_t cudaDeviceSetCacheConfig(enum cudaFuncCache config)
{
    RT_ENTER(c);
    if ((unsigned)config > cudaFuncCachePreferEqual)
        return rt_error(c, cudaErrorInvalidValue);
    c->d->set.cache = config;
    return cudaSuccess;
}

cudaError_t cudaDeviceGetCacheConfig(enum cudaFuncCache *config)
{
    if (!config)
        return rt_error(rt_ctx(), cudaErrorInvalidValue);
    RT_ENTER(c);
    *config = c->d->set.cache;
    return cudaSuccess;
}

cudaError_t cudaDeviceSetSharedMemConfig(enum cudaSharedMemConfig config)
{
    RT_ENTER(c);
    if ((unsigned)config > cudaSharedMemBankSizeEightByte)
        return rt_error(c, cudaErrorInvalidValue);
    c->d->set.shmem = config == cudaSharedMemBankSizeDefault ? cudaSharedMemBankSizeFourByte
                                                           : config;
    return cudaSuccess;
}

cudaError_t cudaDeviceGetSharedMemConfig(enum cudaSharedMemConfig *config)
{
    if (!config)
        return rt_error(rt_ctx(), cudaErrorInvalidValue);
    RT_ENTER(c);
    *config = c->d->set.shmem;
    return cudaSuccess;
}

cudaError_t cudaDeviceSetLimit(enum cudaLimit limit, size_t value)
{
    RT_ENTER(c);
    EmuDevice *dev;
    if ((unsigned)limit >= RT_NLIMITS)
        return rt_error(c, cudaErrorUnsupportedLimit);
    cudaError_t e = rt_device(c, &dev);
    if (e != cudaSuccess)
        return rt_error(c, e);
    if (limit == cudaLimitPrintfFifoSize) {
        e = rt_from_emu(emu_set_printf_fifo(dev, value));
        if (e != cudaSuccess)
            return rt_error(c, e);
    }
    c->d->set.limits[limit] = value;
    return cudaSuccess;
}

cudaError_t cudaDeviceGetLimit(size_t *value, enum cudaLimit limit)
{
    RT_ENTER(c);
    if (!value)
        return rt_error(c, cudaErrorInvalidValue);
    if ((unsigned)limit >= RT_NLIMITS)
        return rt_error(c, cudaErrorUnsupportedLimit);
    *value = c->d->set.limits[limit];
    return cudaSuccess;
}

/* One priority level: streams are all equal (0 is both the least and the greatest). */
cudaError_t cudaDeviceGetStreamPriorityRange(int *leastPriority, int *greatestPriority)
{
    if (leastPriority)
        *leastPriority = 0;
    if (greatestPriority)
        *greatestPriority = 0;
    return cudaSuccess;
}

/* Peer access (docs/multi-device.md): every device of the system may reach every other's
 * memory once the current device enabled it (cudaDeviceEnablePeerAccess), over its link
 * in timing mode; cudaMemcpyPeer copies. */
cudaError_t cudaDeviceCanAccessPeer(int *canAccessPeer, int device, int peerDevice)
{
    RT_ENTER(c);
    if (!canAccessPeer)
        return rt_error(c, cudaErrorInvalidValue);
    cudaError_t e = rt_valid_device(c, device);
    if (e == cudaSuccess)
        e = rt_valid_device(c, peerDevice);
    if (e != cudaSuccess)
        return rt_error(c, e);
    *canAccessPeer = device != peerDevice;
    return cudaSuccess;
}

cudaError_t cudaDeviceEnablePeerAccess(int peerDevice, unsigned int flags)
{
    RT_ENTER(c);
    if (flags)
        return rt_error(c, cudaErrorInvalidValue);
    cudaError_t e = rt_valid_device(c, peerDevice);
    if (e == cudaSuccess && peerDevice == c->d->index)
        e = cudaErrorInvalidDevice;
    if (e == cudaSuccess && (c->d->peers >> peerDevice & 1))
        e = cudaErrorPeerAccessAlreadyEnabled;
    EmuDevice *self = NULL, *peer = NULL;
    if (e == cudaSuccess)
        e = rt_device(c, &self);
    if (e == cudaSuccess)
        e = rt_device_at(c, peerDevice, &peer);
    if (e == cudaSuccess && emu_peer_enable(self, peer) != EMU_OK)
        e = cudaErrorInvalidDevice;
    if (e == cudaSuccess)
        c->d->peers |= 1u << peerDevice;
    return rt_error(c, e);
}

cudaError_t cudaDeviceDisablePeerAccess(int peerDevice)
{
    RT_ENTER(c);
    cudaError_t e = rt_valid_device(c, peerDevice);
    if (e == cudaSuccess && !(c->d->peers >> peerDevice & 1))
        e = cudaErrorPeerAccessNotEnabled;
    if (e == cudaSuccess) {
        emu_peer_disable(c->d->emu, c->devs[peerDevice].emu);
        c->d->peers &= ~(1u << peerDevice);
    }
    return rt_error(c, e);
}

cudaError_t cudaDriverGetVersion(int *version)
{
    if (!version)
        return rt_error(rt_ctx(), cudaErrorInvalidValue);
    *version = RT_CUDA_VERSION;
    return cudaSuccess;
}

cudaError_t cudaRuntimeGetVersion(int *version)
{
    if (!version)
        return rt_error(rt_ctx(), cudaErrorInvalidValue);
    *version = RT_CUDA_VERSION;
    return cudaSuccess;
}

/* The profiler's start and stop marks (cuda_profiler_api.h): there is no profiler to
 * start; the statistics (XGPU_STATS) cover every launch whatever the marks say. */
cudaError_t cudaProfilerStart(void)
{
    return cudaSuccess;
}

cudaError_t cudaProfilerStop(void)
{
    return cudaSuccess;
}
