/*
 * props.c - what the device reports about itself: cudaGetDeviceProperties,
 * cudaDeviceGetAttribute, cudaChooseDevice.
 *
 * Everything the emulator's configuration describes comes from emu_props (name, memory
 * sizes, SM count, thread/block/grid limits, registers, shared memory, clock, compute
 * capability), so XGPU_CONFIG / XGPU_SET overrides show up here. The rest are fixed,
 * documented values (docs/runtime.md) that describe what xgpu does: no overlap of copies
 * and kernels (all work is synchronous), no mapped or managed memory, no textures, no
 * cooperative launch, unified addressing (cudaMemcpyDefault works), one stream priority.
 * Fields the emulator has no notion of (memory clock, bus width, L2 size) are 0.
 *
 * cudaDeviceGetAttribute reads the same filled-in cudaDeviceProp through a table that
 * maps each attribute to its field, so the two can never disagree.
 */
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "rt.h"

static int rt_clamp_int(uint64_t v)
{
    return v > INT_MAX ? INT_MAX : (int)v;
}

/* The values that come from the emulator's configuration. */
static void rt_fill_configured(struct cudaDeviceProp *d, const EmuProps *p)
{
    snprintf(d->name, sizeof d->name, "%s", p->name);
    d->totalGlobalMem = (size_t)p->global_mem_bytes;
    d->sharedMemPerBlock = (size_t)p->shared_per_block;
    d->sharedMemPerBlockOptin = (size_t)p->shared_per_block;
    d->sharedMemPerMultiprocessor = (size_t)p->shared_per_sm;
    d->regsPerBlock = rt_clamp_int(p->regs_per_block);
    d->regsPerMultiprocessor = rt_clamp_int(p->regs_per_sm);
    d->warpSize = (int)p->warp_size;
    d->maxThreadsPerBlock = rt_clamp_int(p->max_threads_per_block);
    d->maxThreadsPerMultiProcessor = rt_clamp_int(p->max_threads_per_sm);
    for (int i = 0; i < 3; i++) {
        d->maxThreadsDim[i] = rt_clamp_int(p->max_block_dim[i]);
        d->maxGridSize[i] = rt_clamp_int(p->max_grid_dim[i]);
    }
    d->clockRate = rt_clamp_int(p->clock_khz);
    d->totalConstMem = (size_t)p->const_mem_bytes;
    d->major = (int)p->cc_major;
    d->minor = (int)p->cc_minor;
    d->multiProcessorCount = (int)p->sm_count;
    d->maxBlocksPerMultiProcessor = rt_clamp_int(p->max_blocks_per_sm);
}

void rt_fill_props(struct cudaDeviceProp *d, const EmuProps *p)
{
    memset(d, 0, sizeof *d);
    rt_fill_configured(d, p);
    char uuid[17];
    snprintf(uuid, sizeof uuid, "xgpu-emulated-%c", "0123456789abcdef"[p->gpu_index & 15]);
    memcpy(d->uuid.bytes, uuid, 16);
    d->pciBusID = (int)p->gpu_index; /* tells the system's devices apart */
    d->memPitch = INT_MAX;
    d->textureAlignment = 512;
    d->texturePitchAlignment = 32;
    d->surfaceAlignment = 512;
    d->deviceOverlap = 0;    /* copies and kernels never overlap */
    d->asyncEngineCount = 0;
    d->concurrentKernels = 0;
    d->kernelExecTimeoutEnabled = 0;
    d->integrated = 0;
    d->canMapHostMemory = 0; /* cudaHostAllocMapped memory cannot be reached by kernels */
    d->computeMode = cudaComputeModeDefault;
    d->unifiedAddressing = 1;
    d->managedMemory = 1;    /* cudaMallocManaged (managed.c) */
    d->globalL1CacheSupported = 1;
    d->localL1CacheSupported = 1;
    d->singleToDoublePrecisionPerfRatio = 1; /* the emulator computes both alike */
    d->streamPrioritiesSupported = 0;
    d->cooperativeLaunch = 1; /* cudaLaunchCooperativeKernel, grid-wide barriers */
    d->hostRegisterSupported = 1; /* accepted as a no-op */
}

cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *prop, int device)
{
    RT_ENTER(c);
    EmuDevice *dev;
    if (!prop)
        return rt_error(c, cudaErrorInvalidValue);
    cudaError_t e = rt_device_at(c, device, &dev);
    if (e != cudaSuccess)
        return rt_error(c, e);
    rt_fill_props(prop, emu_props(dev));
    return cudaSuccess;
}

/* attribute -> the cudaDeviceProp field it reads (an int or a size_t). */
typedef struct RtAttrRow {
    enum cudaDeviceAttr attr;
    size_t offset;
    size_t size;
} RtAttrRow;

#define RT_ATTR(a, field)                                                                  \
    {a, offsetof(struct cudaDeviceProp, field), sizeof(((struct cudaDeviceProp *)0)->field)}

static const RtAttrRow rt_attrs[] = {
    RT_ATTR(cudaDevAttrMaxThreadsPerBlock, maxThreadsPerBlock),
    RT_ATTR(cudaDevAttrMaxBlockDimX, maxThreadsDim[0]),
    RT_ATTR(cudaDevAttrMaxBlockDimY, maxThreadsDim[1]),
    RT_ATTR(cudaDevAttrMaxBlockDimZ, maxThreadsDim[2]),
    RT_ATTR(cudaDevAttrMaxGridDimX, maxGridSize[0]),
    RT_ATTR(cudaDevAttrMaxGridDimY, maxGridSize[1]),
    RT_ATTR(cudaDevAttrMaxGridDimZ, maxGridSize[2]),
    RT_ATTR(cudaDevAttrMaxSharedMemoryPerBlock, sharedMemPerBlock),
    RT_ATTR(cudaDevAttrTotalConstantMemory, totalConstMem),
    RT_ATTR(cudaDevAttrWarpSize, warpSize),
    RT_ATTR(cudaDevAttrMaxPitch, memPitch),
    RT_ATTR(cudaDevAttrMaxRegistersPerBlock, regsPerBlock),
    RT_ATTR(cudaDevAttrClockRate, clockRate),
    RT_ATTR(cudaDevAttrTextureAlignment, textureAlignment),
    RT_ATTR(cudaDevAttrGpuOverlap, deviceOverlap),
    RT_ATTR(cudaDevAttrMultiProcessorCount, multiProcessorCount),
    RT_ATTR(cudaDevAttrKernelExecTimeout, kernelExecTimeoutEnabled),
    RT_ATTR(cudaDevAttrIntegrated, integrated),
    RT_ATTR(cudaDevAttrCanMapHostMemory, canMapHostMemory),
    RT_ATTR(cudaDevAttrComputeMode, computeMode),
    RT_ATTR(cudaDevAttrSurfaceAlignment, surfaceAlignment),
    RT_ATTR(cudaDevAttrConcurrentKernels, concurrentKernels),
    RT_ATTR(cudaDevAttrEccEnabled, ECCEnabled),
    RT_ATTR(cudaDevAttrPciBusId, pciBusID),
    RT_ATTR(cudaDevAttrPciDeviceId, pciDeviceID),
    RT_ATTR(cudaDevAttrTccDriver, tccDriver),
    RT_ATTR(cudaDevAttrMemoryClockRate, memoryClockRate),
    RT_ATTR(cudaDevAttrGlobalMemoryBusWidth, memoryBusWidth),
    RT_ATTR(cudaDevAttrL2CacheSize, l2CacheSize),
    RT_ATTR(cudaDevAttrMaxThreadsPerMultiProcessor, maxThreadsPerMultiProcessor),
    RT_ATTR(cudaDevAttrAsyncEngineCount, asyncEngineCount),
    RT_ATTR(cudaDevAttrUnifiedAddressing, unifiedAddressing),
    RT_ATTR(cudaDevAttrPciDomainId, pciDomainID),
    RT_ATTR(cudaDevAttrTexturePitchAlignment, texturePitchAlignment),
    RT_ATTR(cudaDevAttrComputeCapabilityMajor, major),
    RT_ATTR(cudaDevAttrComputeCapabilityMinor, minor),
    RT_ATTR(cudaDevAttrStreamPrioritiesSupported, streamPrioritiesSupported),
    RT_ATTR(cudaDevAttrGlobalL1CacheSupported, globalL1CacheSupported),
    RT_ATTR(cudaDevAttrLocalL1CacheSupported, localL1CacheSupported),
    RT_ATTR(cudaDevAttrMaxSharedMemoryPerMultiprocessor, sharedMemPerMultiprocessor),
    RT_ATTR(cudaDevAttrMaxRegistersPerMultiprocessor, regsPerMultiprocessor),
    RT_ATTR(cudaDevAttrManagedMemory, managedMemory),
    RT_ATTR(cudaDevAttrIsMultiGpuBoard, isMultiGpuBoard),
    RT_ATTR(cudaDevAttrMultiGpuBoardGroupID, multiGpuBoardGroupID),
    RT_ATTR(cudaDevAttrHostNativeAtomicSupported, hostNativeAtomicSupported),
    RT_ATTR(cudaDevAttrSingleToDoublePrecisionPerfRatio, singleToDoublePrecisionPerfRatio),
    RT_ATTR(cudaDevAttrPageableMemoryAccess, pageableMemoryAccess),
    RT_ATTR(cudaDevAttrConcurrentManagedAccess, concurrentManagedAccess),
    RT_ATTR(cudaDevAttrComputePreemptionSupported, computePreemptionSupported),
    RT_ATTR(cudaDevAttrCanUseHostPointerForRegisteredMem, canUseHostPointerForRegisteredMem),
    RT_ATTR(cudaDevAttrCooperativeLaunch, cooperativeLaunch),
    RT_ATTR(cudaDevAttrCooperativeMultiDeviceLaunch, cooperativeMultiDeviceLaunch),
    RT_ATTR(cudaDevAttrMaxSharedMemoryPerBlockOptin, sharedMemPerBlockOptin),
    RT_ATTR(cudaDevAttrHostRegisterSupported, hostRegisterSupported),
    RT_ATTR(cudaDevAttrPageableMemoryAccessUsesHostPageTables,
            pageableMemoryAccessUsesHostPageTables),
    RT_ATTR(cudaDevAttrDirectManagedMemAccessFromHost, directManagedMemAccessFromHost),
    RT_ATTR(cudaDevAttrMaxBlocksPerMultiprocessor, maxBlocksPerMultiProcessor),
    RT_ATTR(cudaDevAttrMaxPersistingL2CacheSize, persistingL2CacheMaxSize),
    RT_ATTR(cudaDevAttrMaxAccessPolicyWindowSize, accessPolicyMaxWindowSize),
    RT_ATTR(cudaDevAttrReservedSharedMemoryPerBlock, reservedSharedMemPerBlock),
};

static int rt_attr_read(const struct cudaDeviceProp *d, const RtAttrRow *r)
{
    const char *field = (const char *)d + r->offset;
    if (r->size == sizeof(size_t)) {
        size_t v;
        memcpy(&v, field, sizeof v);
        return rt_clamp_int(v);
    }
    int v;
    memcpy(&v, field, sizeof v);
    return v;
}

cudaError_t cudaDeviceGetAttribute(int *value, enum cudaDeviceAttr attr, int device)
{
    RT_ENTER(c);
    EmuDevice *dev;
    if (!value)
        return rt_error(c, cudaErrorInvalidValue);
    cudaError_t e = rt_device_at(c, device, &dev);
    if (e != cudaSuccess)
        return rt_error(c, e);
    for (size_t i = 0; i < sizeof rt_attrs / sizeof rt_attrs[0]; i++)
        if (rt_attrs[i].attr == attr) {
            struct cudaDeviceProp d;
            rt_fill_props(&d, emu_props(dev));
            *value = rt_attr_read(&d, &rt_attrs[i]);
            return cudaSuccess;
        }
    return rt_error(c, cudaErrorInvalidValue);
}

/* The system's devices are alike: device 0 matches any request as well as any other. */
cudaError_t cudaChooseDevice(int *device, const struct cudaDeviceProp *prop)
{
    if (!device || !prop)
        return rt_error(rt_ctx(), cudaErrorInvalidValue);
    *device = 0;
    return cudaSuccess;
}
