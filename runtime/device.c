/*
 * device.c - device management: the single emulated device 0, its properties (from the
 * emulator's configuration), synchronization, reset and versions.
 *
 * Launches and copies run to completion when called, so synchronizing only reports the
 * sticky error. cudaDeviceReset writes the statistics gathered so far (XGPU_STATS),
 * destroys the device and clears every error; the next call creates a fresh device.
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

cudaError_t cudaSetDevice(int device)
{
    return device == 0 ? cudaSuccess : rt_error(rt_ctx(), cudaErrorInvalidDevice);
}

cudaError_t cudaGetDevice(int *device)
{
    if (!device)
        return rt_error(rt_ctx(), cudaErrorInvalidValue);
    *device = 0;
    return cudaSuccess;
}

cudaError_t cudaSetDeviceFlags(unsigned int flags)
{
    (void)flags; /* scheduling hints: the host thread always waits */
    return cudaSuccess;
}

static void rt_fill_props(struct cudaDeviceProp *d, const EmuProps *p)
{
    memset(d, 0, sizeof *d);
    snprintf(d->name, sizeof d->name, "%s", p->name);
    d->totalGlobalMem = (size_t)p->global_mem_bytes;
    d->sharedMemPerBlock = (size_t)p->shared_per_block;
    d->sharedMemPerBlockOptin = (size_t)p->shared_per_block;
    d->regsPerBlock = (int)p->regs_per_block;
    d->warpSize = (int)p->warp_size;
    d->memPitch = 0x7fffffff;
    d->maxThreadsPerBlock = (int)p->max_threads_per_block;
    for (int i = 0; i < 3; i++) {
        d->maxThreadsDim[i] = (int)p->max_block_dim[i];
        uint32_t g = p->max_grid_dim[i];
        d->maxGridSize[i] = (int)(g > 0x7fffffffu ? 0x7fffffffu : g);
    }
    d->clockRate = (int)p->clock_khz;
    d->totalConstMem = (size_t)p->const_mem_bytes;
    d->major = (int)p->cc_major;
    d->minor = (int)p->cc_minor;
    d->textureAlignment = 512;
    d->texturePitchAlignment = 32;
    d->multiProcessorCount = (int)p->sm_count;
    d->maxThreadsPerMultiProcessor = (int)p->max_threads_per_sm;
    d->sharedMemPerMultiprocessor = (size_t)p->shared_per_sm;
    d->regsPerMultiprocessor = (int)p->regs_per_sm;
    d->maxBlocksPerMultiProcessor = p->warp_size ? (int)(p->max_threads_per_sm / p->warp_size) : 0;
    d->globalL1CacheSupported = 1;
    d->localL1CacheSupported = 1;
    d->computeMode = cudaComputeModeDefault;
}

cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *prop, int device)
{
    RtContext *c = rt_ctx();
    EmuDevice *dev;
    if (!prop)
        return rt_error(c, cudaErrorInvalidValue);
    if (device != 0)
        return rt_error(c, cudaErrorInvalidDevice);
    cudaError_t e = rt_device(c, &dev);
    if (e != cudaSuccess)
        return rt_error(c, e);
    rt_fill_props(prop, emu_props(dev));
    return cudaSuccess;
}

cudaError_t cudaDeviceSynchronize(void)
{
    RtContext *c = rt_ctx();
    return rt_error(c, rt_device(c, NULL));
}

cudaError_t cudaThreadSynchronize(void)
{
    return cudaDeviceSynchronize();
}

cudaError_t cudaDeviceReset(void)
{
    rt_reset(rt_ctx());
    return cudaSuccess;
}

cudaError_t cudaThreadExit(void)
{
    return cudaDeviceReset();
}

cudaError_t cudaDeviceSetCacheConfig(enum cudaFuncCache config)
{
    (void)config; /* a hint; the cache split comes from the emulator's configuration */
    return cudaSuccess;
}

cudaError_t cudaDeviceSetSharedMemConfig(enum cudaSharedMemConfig config)
{
    (void)config;
    return cudaSuccess;
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
