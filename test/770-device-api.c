/*
 * 770-device-api: what libxgpurt reports about the device and its kernels.
 * cudaGetDeviceProperties follows the emulator's configuration, overrides (XGPU_SET)
 * included; cudaDeviceGetAttribute agrees with it; limits, cache and bank preferences and
 * device flags are remembered until cudaDeviceReset; kernel attributes come from the
 * kernel table (registers, static shared, local and constant bytes); the occupancy
 * calculator applies the thread, block, register and shared-memory limits; launch
 * resource errors use CUDA's codes and are not sticky; cudaMemGetInfo follows
 * allocations and reset frees them.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xgpu/cuda/cuda_runtime_api.h"
#include "xtest.h"

static const char module_src[] =
    ".global cdata 100 4 const\n"
    ".global other 8 8\n"
    ".kernel fat\n"
    ".regs 128\n.shared 1024\n.local 16\n"
    "    exit\n"
    ".kernel thin\n"
    ".regs 8\n"
    "    exit\n";

static void stub_fat(void) {}
static void stub_thin(void) {}
static void stub_unregistered(void) {}
static XtFatWrapper wrapper;

#define OVERRIDES                                                                          \
    "gpu.name=testgpu;gpu.sm_count=7;gpu.clock_khz=1234000;gpu.cc_major=8;gpu.cc_minor=6;"  \
    "gpu.global_mem_bytes=268435456;gpu.const_mem_bytes=32768;gpu.max_threads_per_sm=1536"

static void setup(void)
{
    unsetenv("XGPU_CONFIG");
    unsetenv("XGPU_SET");
    wrapper = (XtFatWrapper){XT_FAT_MAGIC, 1, xt_fat_from_asm(module_src), NULL};
    void **h = __cudaRegisterFatBinary(&wrapper);
    __cudaRegisterFunction(h, (const void *)stub_fat, "fat", "fat", -1, NULL, NULL, NULL, NULL,
                           NULL);
    __cudaRegisterFunction(h, (const void *)stub_thin, "thin", "thin", -1, NULL, NULL, NULL,
                           NULL, NULL);
    __cudaRegisterFatBinaryEnd(h);
}

static void setup_overrides(void)
{
    setup();
    setenv("XGPU_SET", OVERRIDES, 1);
}

Test(device_api, properties_follow_the_configuration, .init = setup_overrides)
{
    struct cudaDeviceProp p;
    cr_assert_eq(cudaGetDeviceProperties(&p, 0), cudaSuccess);
    cr_assert_str_eq(p.name, "testgpu");
    cr_assert_eq(p.multiProcessorCount, 7);
    cr_assert_eq(p.clockRate, 1234000);
    cr_assert_eq(p.major, 8);
    cr_assert_eq(p.minor, 6);
    cr_assert_eq(p.totalGlobalMem, 268435456u);
    cr_assert_eq(p.totalConstMem, 32768u);
    cr_assert_eq(p.maxThreadsPerMultiProcessor, 1536);
    cr_assert_eq(p.maxBlocksPerMultiProcessor, 32); /* core.max_ctas_per_sm's default */
    /* defaults of the keys not overridden */
    cr_assert_eq(p.warpSize, 32);
    cr_assert_eq(p.maxThreadsPerBlock, 1024);
    cr_assert_eq(p.sharedMemPerBlock, 49152u);
    cr_assert_eq(p.sharedMemPerBlockOptin, 49152u);
    cr_assert_eq(p.sharedMemPerMultiprocessor, 98304u);
    cr_assert_eq(p.regsPerMultiprocessor, 65536);
    cr_assert_eq(p.regsPerBlock, 65536);
    cr_assert(p.maxThreadsDim[0] >= 1024 && p.maxGridSize[0] > 65535);
    /* documented fixed values */
    cr_assert_eq(p.memPitch, 0x7fffffffu);
    cr_assert_eq(p.textureAlignment, 512u);
    cr_assert_eq(p.unifiedAddressing, 1);
    cr_assert_eq(p.canMapHostMemory, 0);
    cr_assert_eq(p.concurrentKernels, 0);
    cr_assert_eq(p.asyncEngineCount, 0);
    cr_assert_eq(p.cooperativeLaunch, 1);
    cr_assert_eq(p.managedMemory, 1);
    cr_assert_eq(p.l2CacheSize, 0);
    cr_assert_eq(cudaGetDeviceProperties(NULL, 0), cudaErrorInvalidValue);
    int dev = -1;
    cr_assert_eq(cudaChooseDevice(&dev, &p), cudaSuccess);
    cr_assert_eq(dev, 0);
}

Test(device_api, attributes_agree_with_properties, .init = setup_overrides)
{
    struct cudaDeviceProp p;
    cr_assert_eq(cudaGetDeviceProperties(&p, 0), cudaSuccess);
    const struct {
        enum cudaDeviceAttr attr;
        long want;
    } rows[] = {
        {cudaDevAttrMaxThreadsPerBlock, p.maxThreadsPerBlock},
        {cudaDevAttrMaxBlockDimX, p.maxThreadsDim[0]},
        {cudaDevAttrMaxBlockDimZ, p.maxThreadsDim[2]},
        {cudaDevAttrMaxGridDimX, p.maxGridSize[0]},
        {cudaDevAttrMaxGridDimY, p.maxGridSize[1]},
        {cudaDevAttrMaxSharedMemoryPerBlock, (long)p.sharedMemPerBlock},
        {cudaDevAttrTotalConstantMemory, 32768},
        {cudaDevAttrWarpSize, 32},
        {cudaDevAttrMaxRegistersPerBlock, p.regsPerBlock},
        {cudaDevAttrClockRate, 1234000},
        {cudaDevAttrMultiProcessorCount, 7},
        {cudaDevAttrComputeCapabilityMajor, 8},
        {cudaDevAttrComputeCapabilityMinor, 6},
        {cudaDevAttrMaxThreadsPerMultiProcessor, 1536},
        {cudaDevAttrMaxSharedMemoryPerMultiprocessor, (long)p.sharedMemPerMultiprocessor},
        {cudaDevAttrMaxRegistersPerMultiprocessor, p.regsPerMultiprocessor},
        {cudaDevAttrMaxSharedMemoryPerBlockOptin, (long)p.sharedMemPerBlockOptin},
        {cudaDevAttrMaxBlocksPerMultiprocessor, p.maxBlocksPerMultiProcessor},
        {cudaDevAttrUnifiedAddressing, 1},
        {cudaDevAttrConcurrentKernels, 0},
        {cudaDevAttrMaxPitch, 0x7fffffff},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        int v = -12345;
        cr_assert_eq(cudaDeviceGetAttribute(&v, rows[i].attr, 0), cudaSuccess, "attr %d",
                     (int)rows[i].attr);
        cr_assert_eq(v, rows[i].want, "attr %d: %d, want %ld", (int)rows[i].attr, v,
                     rows[i].want);
    }
    int v;
    cr_assert_eq(cudaDeviceGetAttribute(&v, (enum cudaDeviceAttr)9999, 0), cudaErrorInvalidValue);
    cr_assert_eq(cudaDeviceGetAttribute(&v, cudaDevAttrWarpSize, 1), cudaErrorInvalidDevice);
    cr_assert_eq(cudaDeviceGetAttribute(NULL, cudaDevAttrWarpSize, 0), cudaErrorInvalidValue);
    cr_assert_eq(cudaGetLastError(), cudaErrorInvalidValue);
    cr_assert_eq(cudaGetLastError(), cudaSuccess);
}

Test(device_api, limits_preferences_and_flags_until_reset, .init = setup)
{
    size_t v = 0;
    cr_assert_eq(cudaDeviceGetLimit(&v, cudaLimitStackSize), cudaSuccess);
    cr_assert_eq(v, 1024u);
    cr_assert_eq(cudaDeviceGetLimit(&v, cudaLimitPrintfFifoSize), cudaSuccess);
    cr_assert_eq(v, 1u << 20);
    cr_assert_eq(cudaDeviceGetLimit(&v, cudaLimitMallocHeapSize), cudaSuccess);
    cr_assert_eq(v, 8u << 20);
    cr_assert_eq(cudaDeviceSetLimit(cudaLimitStackSize, 4096), cudaSuccess);
    cr_assert_eq(cudaDeviceSetLimit(cudaLimitMallocHeapSize, 1u << 26), cudaSuccess);
    cr_assert_eq(cudaDeviceSetLimit(cudaLimitPrintfFifoSize, 1u << 16), cudaSuccess);
    cr_assert_eq(cudaDeviceGetLimit(&v, cudaLimitStackSize), cudaSuccess);
    cr_assert_eq(v, 4096u);
    cr_assert_eq(cudaDeviceGetLimit(&v, cudaLimitMallocHeapSize), cudaSuccess);
    cr_assert_eq(v, 1u << 26);
    cr_assert_eq(cudaDeviceGetLimit(&v, cudaLimitPrintfFifoSize), cudaSuccess);
    cr_assert_eq(v, 1u << 16);
    cr_assert_eq(cudaDeviceSetLimit((enum cudaLimit)42, 1), cudaErrorUnsupportedLimit);
    cr_assert_eq(cudaDeviceGetLimit(&v, (enum cudaLimit)42), cudaErrorUnsupportedLimit);
    cr_assert_eq(cudaDeviceGetLimit(NULL, cudaLimitStackSize), cudaErrorInvalidValue);

    enum cudaFuncCache cache = cudaFuncCachePreferNone;
    enum cudaSharedMemConfig bank = cudaSharedMemBankSizeDefault;
    cr_assert_eq(cudaDeviceGetCacheConfig(&cache), cudaSuccess);
    cr_assert_eq(cache, cudaFuncCachePreferNone);
    cr_assert_eq(cudaDeviceSetCacheConfig(cudaFuncCachePreferShared), cudaSuccess);
    cr_assert_eq(cudaDeviceGetCacheConfig(&cache), cudaSuccess);
    cr_assert_eq(cache, cudaFuncCachePreferShared);
    cr_assert_eq(cudaDeviceSetCacheConfig((enum cudaFuncCache)9), cudaErrorInvalidValue);
    cr_assert_eq(cudaDeviceSetSharedMemConfig(cudaSharedMemBankSizeEightByte), cudaSuccess);
    cr_assert_eq(cudaDeviceGetSharedMemConfig(&bank), cudaSuccess);
    cr_assert_eq(bank, cudaSharedMemBankSizeEightByte);
    cr_assert_eq(cudaFuncSetCacheConfig((const void *)stub_fat, cudaFuncCachePreferL1),
                 cudaSuccess);
    cr_assert_eq(cudaFuncSetSharedMemConfig((const void *)stub_fat,
                                            cudaSharedMemBankSizeFourByte),
                 cudaSuccess);
    cr_assert_eq(cudaFuncSetCacheConfig((const void *)stub_unregistered, cudaFuncCachePreferL1),
                 cudaErrorInvalidDeviceFunction);

    unsigned flags = 99;
    cr_assert_eq(cudaGetDeviceFlags(&flags), cudaSuccess);
    cr_assert_eq(flags, 0u);
    cr_assert_eq(cudaSetDeviceFlags(cudaDeviceScheduleBlockingSync | cudaDeviceMapHost),
                 cudaSuccess);
    cr_assert_eq(cudaGetDeviceFlags(&flags), cudaSuccess);
    cr_assert_eq(flags, (unsigned)(cudaDeviceScheduleBlockingSync | cudaDeviceMapHost));
    cr_assert_eq(cudaSetDeviceFlags(0x100), cudaErrorInvalidValue);
    cr_assert_eq(cudaSetDeviceFlags(cudaDeviceScheduleSpin | cudaDeviceScheduleYield),
                 cudaErrorInvalidValue);

    cr_assert_eq(cudaDeviceReset(), cudaSuccess);
    cr_assert_eq(cudaDeviceGetLimit(&v, cudaLimitStackSize), cudaSuccess);
    cr_assert_eq(v, 1024u);
    cr_assert_eq(cudaDeviceGetLimit(&v, cudaLimitPrintfFifoSize), cudaSuccess);
    cr_assert_eq(v, 1u << 20);
    cr_assert_eq(cudaDeviceGetCacheConfig(&cache), cudaSuccess);
    cr_assert_eq(cache, cudaFuncCachePreferNone);
    cr_assert_eq(cudaGetDeviceFlags(&flags), cudaSuccess);
    cr_assert_eq(flags, 0u);
}

Test(device_api, function_attributes_from_the_kernel_table, .init = setup)
{
    struct cudaFuncAttributes a;
    cr_assert_eq(cudaFuncGetAttributes(&a, (const void *)stub_fat), cudaSuccess);
    cr_assert_eq(a.numRegs, 128);
    cr_assert_eq(a.sharedSizeBytes, 1024u);
    cr_assert_eq(a.localSizeBytes, 16u);
    cr_assert_eq(a.constSizeBytes, 100u);
    cr_assert_eq(a.maxThreadsPerBlock, 512, "65536 registers / 128 per thread");
    cr_assert_eq(a.ptxVersion, 75);
    cr_assert_eq(a.binaryVersion, 75);
    cr_assert_eq(a.maxDynamicSharedSizeBytes, 49152 - 1024);
    cr_assert_eq(a.preferredShmemCarveout, -1);
    cr_assert_eq(cudaFuncGetAttributes(&a, (const void *)stub_thin), cudaSuccess);
    cr_assert_eq(a.numRegs, 8);
    cr_assert_eq(a.maxThreadsPerBlock, 1024);
    cr_assert_eq(cudaFuncGetAttributes(&a, (const void *)stub_unregistered),
                 cudaErrorInvalidDeviceFunction);
    cr_assert_eq(cudaFuncGetAttributes(NULL, (const void *)stub_thin), cudaErrorInvalidValue);

    cr_assert_eq(cudaFuncSetAttribute((const void *)stub_fat,
                                      cudaFuncAttributeMaxDynamicSharedMemorySize, 1000),
                 cudaSuccess);
    cr_assert_eq(cudaFuncSetAttribute((const void *)stub_fat,
                                      cudaFuncAttributePreferredSharedMemoryCarveout, 50),
                 cudaSuccess);
    cr_assert_eq(cudaFuncGetAttributes(&a, (const void *)stub_fat), cudaSuccess);
    cr_assert_eq(a.maxDynamicSharedSizeBytes, 1000);
    cr_assert_eq(a.preferredShmemCarveout, 50);
    cr_assert_eq(cudaFuncSetAttribute((const void *)stub_fat,
                                      cudaFuncAttributeMaxDynamicSharedMemorySize, 48129),
                 cudaErrorInvalidValue, "more than the block limit leaves");
    cr_assert_eq(cudaFuncSetAttribute((const void *)stub_fat,
                                      cudaFuncAttributePreferredSharedMemoryCarveout, 101),
                 cudaErrorInvalidValue);
    cr_assert_eq(cudaFuncSetAttribute((const void *)stub_fat, (enum cudaFuncAttribute)3, 1),
                 cudaErrorInvalidValue);
}

static cudaError_t launch(void (*stub)(void), unsigned grid, unsigned block, size_t shared)
{
    return cudaLaunchKernel((const void *)stub, (dim3){grid, 1, 1}, (dim3){block, 1, 1}, NULL,
                            shared, 0);
}

Test(device_api, launch_resource_errors_are_not_sticky, .init = setup)
{
    cr_assert_eq(launch(stub_fat, 1, 512, 48128), cudaSuccess);
    cr_assert_eq(launch(stub_fat, 1, 512, 48129), cudaErrorInvalidValue,
                 "dynamic shared memory beyond the block limit");
    cr_assert_eq(launch(stub_fat, 1, 1024, 0), cudaErrorLaunchOutOfResources,
                 "1024 threads x 128 registers");
    cr_assert_eq(launch(stub_thin, 1, 1025, 0), cudaErrorInvalidConfiguration);
    cr_assert_eq(launch(stub_thin, 0, 32, 0), cudaErrorInvalidConfiguration);
    cr_assert_eq(cudaLaunchKernel((const void *)stub_thin, (dim3){1, 0, 1}, (dim3){32, 1, 1},
                                  NULL, 0, 0),
                 cudaErrorInvalidConfiguration);
    cr_assert_eq(cudaFuncSetAttribute((const void *)stub_fat,
                                      cudaFuncAttributeMaxDynamicSharedMemorySize, 256),
                 cudaSuccess);
    cr_assert_eq(launch(stub_fat, 1, 32, 512), cudaErrorInvalidValue, "above the attribute");
    cr_assert_eq(launch(stub_fat, 1, 32, 256), cudaSuccess);
    /* a cooperative launch checks its configuration like any other */
    cr_assert_eq(cudaLaunchCooperativeKernel((const void *)stub_thin, (dim3){1, 1, 1},
                                             (dim3){2048, 1, 1}, NULL, 0, 0),
                 cudaErrorInvalidConfiguration);
    cr_assert_eq(cudaGetLastError(), cudaErrorInvalidConfiguration);
    cr_assert_eq(cudaGetLastError(), cudaSuccess);
    cr_assert_eq(cudaLaunchCooperativeKernel((const void *)stub_thin, (dim3){2, 1, 1},
                                             (dim3){32, 1, 1}, NULL, 0, 0),
                 cudaSuccess);
    cr_assert_eq(launch(stub_thin, 4, 64, 0), cudaSuccess);
    cr_assert_eq(cudaDeviceSynchronize(), cudaSuccess);
}

Test(device_api, occupancy, .init = setup)
{
    int n = -1;
    const void *fat = (const void *)stub_fat, *thin = (const void *)stub_thin;
    /* default device: 2048 threads, 32 blocks, 65536 registers, 96 KiB shared per SM, 48 KiB
     * per block */
    cr_assert_eq(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, thin, 32, 0), cudaSuccess);
    cr_assert_eq(n, 32, "block limit (core.max_ctas_per_sm): %d", n);
    cr_assert_eq(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, thin, 256, 0), cudaSuccess);
    cr_assert_eq(n, 8);
    cr_assert_eq(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, fat, 128, 0), cudaSuccess);
    cr_assert_eq(n, 4, "registers: 65536 / (128 x 128): %d", n);
    cr_assert_eq(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, fat, 32, 30000), cudaSuccess);
    cr_assert_eq(n, 3, "shared memory: 98304 / 31024: %d", n);
    cr_assert_eq(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, fat, 33, 0), cudaSuccess);
    cr_assert_eq(n, 8, "33 threads take two warps: 65536 / (128 x 64): %d", n);
    cr_assert_eq(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, fat, 1024, 0), cudaSuccess);
    cr_assert_eq(n, 0, "cannot launch");
    cr_assert_eq(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, thin, 32, 49153), cudaSuccess);
    cr_assert_eq(n, 0);
    cr_assert_eq(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, thin, 0, 0),
                 cudaErrorInvalidValue);
    cr_assert_eq(cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
                     &n, thin, 64, 0, cudaOccupancyDisableCachingOverride),
                 cudaSuccess);
    cr_assert_eq(n, 32);
    cr_assert_eq(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
                     &n, (const void *)stub_unregistered, 32, 0),
                 cudaErrorInvalidDeviceFunction);
}

Test(device_api, memory_info_and_reset, .init = setup)
{
    size_t free0, total, free1, free2;
    cr_assert_eq(cudaMemGetInfo(&free0, &total), cudaSuccess);
    cr_assert_eq(total, 4294967296u, "gpu.global_mem_bytes");
    cr_assert_leq(free0, total);
    void *a, *b;
    cr_assert_eq(cudaMalloc(&a, 1 << 20), cudaSuccess);
    cr_assert_eq(cudaMalloc(&b, 3 << 20), cudaSuccess);
    cr_assert_eq(cudaMemGetInfo(&free1, &total), cudaSuccess);
    cr_assert_geq(free0 - free1, 4u << 20, "%zu -> %zu", free0, free1);
    cr_assert_eq(cudaFree(b), cudaSuccess);
    cr_assert_eq(cudaMemGetInfo(&free2, &total), cudaSuccess);
    cr_assert_geq(free2 - free1, 3u << 20);
    cr_assert_eq(cudaMemGetInfo(NULL, &total), cudaErrorInvalidValue);

    cr_assert_eq(cudaDeviceReset(), cudaSuccess);
    cr_assert_eq(cudaMemGetInfo(&free2, &total), cudaSuccess);
    cr_assert_eq(free2, free0, "the reset freed every allocation");
    cr_assert_eq(cudaFree(a), cudaErrorInvalidValue, "a belonged to the old device");
    cr_assert_eq(launch(stub_thin, 1, 32, 0), cudaSuccess, "modules are loaded again");
}
