/*
 * device.c - device management: the single emulated device 0, flags, limits, cache and
 * shared-memory preferences, synchronization, reset, peers and versions.
 *
 * Launches and copies run to completion when called, so synchronizing flushes device
 * printf and reports the sticky error. cudaDeviceReset flushes printf, writes the
 * statistics gathered so far (XGPU_STATS), destroys the device, its streams and events,
 * restores limits and preferences and clears every error; the next call creates a fresh
 * device (for every thread). Limits other than the printf FIFO are remembered only: the emulator has no
 * device stack limit, device heap or L2 persistence to apply them to.
 */
#include <stdio.h>
#include <string.h>

#include "rt.h"

enum { RT_CUDA_VERSION = 12000 };

cudaError_t cudaGetDeviceCount(int *count)
{
    if (!count)
        return rt_error(rt_ctx(), cudaErrorInvalidValue);
    *count = 1;
    return cudaSuccess;
}

/* The current device is per host thread, as in CUDA; device 0 is the only one. */
cudaError_t cudaSetDevice(int device)
{
    if (device != 0)
        return rt_error(rt_ctx(), cudaErrorInvalidDevice);
    rt_thread()->device = device;
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
    c->set.flags = flags;
    return cudaSuccess;
}

cudaError_t cudaGetDeviceFlags(unsigned int *flags)
{
    if (!flags)
        return rt_error(rt_ctx(), cudaErrorInvalidValue);
    RT_ENTER(c);
    *flags = c->set.flags;
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
    c->set.cache = config;
    return cudaSuccess;
}

cudaError_t cudaDeviceGetCacheConfig(enum cudaFuncCache *config)
{
    if (!config)
        return rt_error(rt_ctx(), cudaErrorInvalidValue);
    RT_ENTER(c);
    *config = c->set.cache;
    return cudaSuccess;
}

cudaError_t cudaDeviceSetSharedMemConfig(enum cudaSharedMemConfig config)
{
    RT_ENTER(c);
    if ((unsigned)config > cudaSharedMemBankSizeEightByte)
        return rt_error(c, cudaErrorInvalidValue);
    c->set.shmem = config == cudaSharedMemBankSizeDefault ? cudaSharedMemBankSizeFourByte
                                                           : config;
    return cudaSuccess;
}

cudaError_t cudaDeviceGetSharedMemConfig(enum cudaSharedMemConfig *config)
{
    if (!config)
        return rt_error(rt_ctx(), cudaErrorInvalidValue);
    RT_ENTER(c);
    *config = c->set.shmem;
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
    c->set.limits[limit] = value;
    return cudaSuccess;
}

cudaError_t cudaDeviceGetLimit(size_t *value, enum cudaLimit limit)
{
    RT_ENTER(c);
    if (!value)
        return rt_error(c, cudaErrorInvalidValue);
    if ((unsigned)limit >= RT_NLIMITS)
        return rt_error(c, cudaErrorUnsupportedLimit);
    *value = c->set.limits[limit];
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

/* One device: it has no peers. */
cudaError_t cudaDeviceCanAccessPeer(int *canAccessPeer, int device, int peerDevice)
{
    RT_ENTER(c);
    if (!canAccessPeer)
        return rt_error(c, cudaErrorInvalidValue);
    if (device != 0 || peerDevice != 0)
        return rt_error(c, cudaErrorInvalidDevice);
    *canAccessPeer = 0;
    return cudaSuccess;
}

cudaError_t cudaDeviceEnablePeerAccess(int peerDevice, unsigned int flags)
{
    RT_ENTER(c);
    if (flags)
        return rt_error(c, cudaErrorInvalidValue);
    return rt_error(c, cudaErrorInvalidDevice); /* no other device; not itself either */
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
