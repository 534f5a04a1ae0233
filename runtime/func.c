/*
 * func.c - per-kernel queries and settings: cudaFuncGetAttributes, cudaFuncSetAttribute,
 * cache and shared-memory preferences, and the occupancy calculator.
 *
 * Figures come from the kernel table of the device binary (.xgpu.kernels: registers per
 * thread, static shared and local bytes) and from the device's configuration (emu_props);
 * the module is loaded on first use like for a launch. Occupancy is the number of blocks
 * of the given size that fit on one SM at once, the minimum over four limits: resident
 * threads (in whole warps), resident blocks (cudaDevAttrMaxBlocksPerMultiprocessor),
 * registers (nregs per thread, per whole warp, no allocation granularity) and shared
 * memory (static + dynamic). A configuration that cannot launch at all gives 0 blocks.
 * The cache and bank-size preferences are accepted and have no effect: the emulator's
 * configuration fixes both.
 */
#include <string.h>

#include "rt.h"

/* The largest dynamic shared memory a launch of fn may ask for: what the block limit
 * leaves after static shared memory, or less if the program lowered it. */
uint64_t rt_max_dynamic_shared(const EmuProps *p, const XKernel *k, const RtFunc *fn)
{
    uint64_t room = p->shared_per_block > k->shared_bytes ? p->shared_per_block - k->shared_bytes
                                                          : 0;
    return fn->max_dyn_shared >= 0 && (uint64_t)fn->max_dyn_shared < room
               ? (uint64_t)fn->max_dyn_shared
               : room;
}

/* Bytes of __constant__ data in the kernel's module. */
static size_t rt_const_bytes(const XGpubin *g)
{
    size_t n = 0;
    for (uint32_t i = 0; i < g->nglobals; i++)
        if (g->globals[i].space == XG_CONST)
            n += (size_t)g->globals[i].size;
    return n;
}

/* The largest block the kernel's registers allow, in whole warps, and no more than its
 * __launch_bounds__. */
static uint64_t rt_max_threads(const EmuProps *p, const XKernel *k)
{
    uint64_t by_regs = k->nregs && p->warp_size
                           ? p->regs_per_block / k->nregs / p->warp_size * p->warp_size
                           : p->max_threads_per_block;
    uint64_t m = by_regs < p->max_threads_per_block ? by_regs : p->max_threads_per_block;
    return k->max_threads && k->max_threads < m ? k->max_threads : m;
}

/* The device, module and kernel behind a host stub, for the calls below. */
static cudaError_t rt_func(RtContext *c, const void *func, EmuDevice **dev, RtFatbin **fb,
                           RtFunc **fn)
{
    cudaError_t e = rt_device(c, dev);
    return e != cudaSuccess ? e : rt_kernel_of(c, func, fb, fn);
}

cudaError_t cudaFuncGetAttributes(struct cudaFuncAttributes *attr, const void *func)
{
    RT_ENTER(c);
    EmuDevice *dev;
    RtFatbin *fb;
    RtFunc *fn;
    if (!attr)
        return rt_error(c, cudaErrorInvalidValue);
    cudaError_t e = rt_func(c, func, &dev, &fb, &fn);
    if (e != cudaSuccess)
        return rt_error(c, e);
    const XKernel *k = rt_xkernel(c, fb, fn);
    const EmuProps *p = emu_props(dev);
    memset(attr, 0, sizeof *attr);
    attr->sharedSizeBytes = k->shared_bytes;
    attr->localSizeBytes = k->local_bytes;
    attr->constSizeBytes = rt_const_bytes(emu_module_bin(rt_mod(c, fb)));
    attr->numRegs = (int)k->nregs;
    attr->maxThreadsPerBlock = (int)rt_max_threads(p, k);
    attr->ptxVersion = attr->binaryVersion = (int)(p->cc_major * 10 + p->cc_minor);
    attr->maxDynamicSharedSizeBytes = (int)rt_max_dynamic_shared(p, k, fn);
    attr->preferredShmemCarveout = fn->carveout;
    return cudaSuccess;
}

cudaError_t cudaFuncSetAttribute(const void *func, enum cudaFuncAttribute attr, int value)
{
    RT_ENTER(c);
    EmuDevice *dev;
    RtFatbin *fb;
    RtFunc *fn;
    cudaError_t e = rt_func(c, func, &dev, &fb, &fn);
    if (e != cudaSuccess)
        return rt_error(c, e);
    const XKernel *k = rt_xkernel(c, fb, fn);
    const EmuProps *p = emu_props(dev);
    switch (attr) {
    case cudaFuncAttributeMaxDynamicSharedMemorySize:
        if (value < 0 || (uint64_t)value + k->shared_bytes > p->shared_per_block)
            return rt_error(c, cudaErrorInvalidValue);
        fn->max_dyn_shared = value;
        return cudaSuccess;
    case cudaFuncAttributePreferredSharedMemoryCarveout:
        if (value < cudaSharedmemCarveoutDefault || value > cudaSharedmemCarveoutMaxShared)
            return rt_error(c, cudaErrorInvalidValue);
        fn->carveout = value;
        return cudaSuccess;
    default: return rt_error(c, cudaErrorInvalidValue);
    }
}

/* A preference for a kernel that must exist; the value itself changes nothing. */
static cudaError_t rt_func_hint(const void *func, int ok)
{
    RT_ENTER(c);
    RtFatbin *fb;
    RtFunc *fn;
    if (!func || !rt_find_func(c, func, &fb, &fn))
        return rt_error(c, cudaErrorInvalidDeviceFunction);
    return ok ? cudaSuccess : rt_error(c, cudaErrorInvalidValue);
}

cudaError_t cudaFuncSetCacheConfig(const void *func, enum cudaFuncCache config)
{
    return rt_func_hint(func, (unsigned)config <= cudaFuncCachePreferEqual);
}

cudaError_t cudaFuncSetSharedMemConfig(const void *func, enum cudaSharedMemConfig config)
{
    return rt_func_hint(func, (unsigned)config <= cudaSharedMemBankSizeEightByte);
}

static uint64_t rt_min(uint64_t a, uint64_t b)
{
    return a < b ? a : b;
}

/* Blocks of `threads` threads of kernel k that one SM holds at once. */
static uint64_t rt_blocks_per_sm(const EmuProps *p, const XKernel *k, uint64_t threads,
                                 uint64_t shared)
{
    uint64_t warp = p->warp_size ? p->warp_size : 1;
    uint64_t lanes = (threads + warp - 1) / warp * warp; /* threads in whole warps */
    uint64_t regs = (uint64_t)k->nregs * lanes;
    if (threads > p->max_threads_per_block || regs > p->regs_per_block ||
        k->shared_bytes + shared > p->shared_per_block)
        return 0;
    uint64_t n = rt_min(p->max_threads_per_sm / lanes, p->max_blocks_per_sm);
    if (regs)
        n = rt_min(n, p->regs_per_sm / regs);
    if (k->shared_bytes + shared)
        n = rt_min(n, p->shared_per_sm / (k->shared_bytes + shared));
    return n;
}

cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int *numBlocks,
                                                                   const void *func,
                                                                   int blockSize,
                                                                   size_t dynamicSMemSize,
                                                                   unsigned int flags)
{
    RT_ENTER(c);
    EmuDevice *dev;
    RtFatbin *fb;
    RtFunc *fn;
    if (!numBlocks || blockSize <= 0 || (flags & ~(unsigned)cudaOccupancyDisableCachingOverride))
        return rt_error(c, cudaErrorInvalidValue);
    cudaError_t e = rt_func(c, func, &dev, &fb, &fn);
    if (e != cudaSuccess)
        return rt_error(c, e);
    const XKernel *k = rt_xkernel(c, fb, fn);
    const EmuProps *p = emu_props(dev);
    uint64_t n = dynamicSMemSize > rt_max_dynamic_shared(p, k, fn)
                     ? 0
                     : rt_blocks_per_sm(p, k, (uint64_t)blockSize, dynamicSMemSize);
    *numBlocks = (int)rt_min(n, 0x7fffffff);
    return cudaSuccess;
}

cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *numBlocks, const void *func,
                                                          int blockSize,
                                                          size_t dynamicSMemSize)
{
    return cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
        numBlocks, func, blockSize, dynamicSMemSize, cudaOccupancyDefault);
}

/* The most dynamic shared memory each of numBlocks blocks of blockSize threads may take
 * with all of them resident on one SM at once: the SM's shared memory divided among them,
 * less the kernel's static shared memory, within the per-block limit. 0 when the threads,
 * blocks or registers alone do not let numBlocks blocks be resident. */
cudaError_t cudaOccupancyAvailableDynamicSMemPerBlock(size_t *dynamicSmemSize, const void *func,
                                                     int numBlocks, int blockSize)
{
    RT_ENTER(c);
    EmuDevice *dev;
    RtFatbin *fb;
    RtFunc *fn;
    if (!dynamicSmemSize || numBlocks <= 0 || blockSize <= 0)
        return rt_error(c, cudaErrorInvalidValue);
    cudaError_t e = rt_func(c, func, &dev, &fb, &fn);
    if (e != cudaSuccess)
        return rt_error(c, e);
    const XKernel *k = rt_xkernel(c, fb, fn);
    const EmuProps *p = emu_props(dev);
    uint64_t share = p->shared_per_sm / (uint64_t)numBlocks, dyn = 0;
    if (rt_blocks_per_sm(p, k, (uint64_t)blockSize, 0) >= (uint64_t)numBlocks &&
        share > k->shared_bytes)
        dyn = rt_min(share - k->shared_bytes, rt_max_dynamic_shared(p, k, fn));
    *dynamicSmemSize = (size_t)dyn;
    return cudaSuccess;
}
