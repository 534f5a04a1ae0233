/*
 * cuda_runtime.h - what a CUDA program includes to build with xgpu-cc.
 *
 * Works in both of clang's CUDA compilations (-x cuda -nocudainc -nocudalib; host with
 * __CUDA__, device with __CUDA_ARCH__ as well) and from plain C/C++. It brings in the
 * qualifiers (host_defines.h), the vector types, their make_ functions and dim3, the
 * runtime API with CUDA's C++ conveniences (symbol and kernel templates), the built-in
 * variables, and the device library: __syncthreads (a clang builtin), min/max overloads,
 * device_functions.h (fences, warp shuffles and votes, bit and integer intrinsics,
 * printf, assert), sm_atomic_functions.h (atomics) and math_functions.h (the math API).
 *
 * Like NVIDIA's, it also brings in the C library headers CUDA programs rely on without
 * including them (memcpy, time, rand, malloc, printf, sqrt, INT_MAX, offsetof), and <new>
 * in C++. Every header it includes is guarded, so it may come first (xgpu-cc includes it
 * implicitly in every CUDA source, as nvcc does), twice, or after any system header.
 */
#ifndef XGPU_CUDA_RUNTIME_H
#define XGPU_CUDA_RUNTIME_H
#define __CUDA_RUNTIME_H__ /* CUDA's own guard: programs test it */

#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#if defined(__cplusplus)
#include <new>
#endif

#include "host_defines.h"
#include "vector_types.h"
#include "driver_types.h"
#include "cuda_runtime_api.h"
#include "texture_types.h"
#include "device_launch_parameters.h"
#include "vector_functions.h"
#include "device_functions.h"
#include "sm_atomic_functions.h"
#include "math_functions.h"
#include "texture_fetch_functions.h"

#if defined(__CUDA__)
/* The SDK version a CUDA source sees without including cuda.h, as clang's own CUDA
 * wrapper provides it. */
#ifndef CUDA_VERSION
#define CUDA_VERSION 12000
#endif
#endif

#if defined(__CUDA__) && defined(__cplusplus)
/* Host malloc/free, and their device-side declarations, which clang's <new> wrapper (used
 * by the C++ standard headers in CUDA mode) calls from its device operator new. Device
 * printf: clang rewrites calls into vprintf(format, packed arguments). */
#include <stdlib.h>
extern "C" {
__device__ int vprintf(const char *format, const char *args);
__device__ int printf(const char *format, ...);
__device__ void *malloc(size_t size) __attribute__((nothrow)) __attribute__((malloc));
__device__ void free(void *ptr) __attribute__((nothrow));
}
#endif

#if defined(__cplusplus)

/* Symbols may be named by the variable itself, as with CUDA. */
template <class T>
static __inline__ cudaError_t cudaMemcpyToSymbol(const T &symbol, const void *src,
                                                 size_t count, size_t offset = 0,
                                                 enum cudaMemcpyKind kind = cudaMemcpyHostToDevice)
{
    return ::cudaMemcpyToSymbol((const void *)&symbol, src, count, offset, kind);
}

template <class T>
static __inline__ cudaError_t cudaMemcpyFromSymbol(
    void *dst, const T &symbol, size_t count, size_t offset = 0,
    enum cudaMemcpyKind kind = cudaMemcpyDeviceToHost)
{
    return ::cudaMemcpyFromSymbol(dst, (const void *)&symbol, count, offset, kind);
}

template <class T>
static __inline__ cudaError_t cudaMemcpyToSymbolAsync(
    const T &symbol, const void *src, size_t count, size_t offset = 0,
    enum cudaMemcpyKind kind = cudaMemcpyHostToDevice, cudaStream_t stream = 0)
{
    return ::cudaMemcpyToSymbolAsync((const void *)&symbol, src, count, offset, kind, stream);
}

template <class T>
static __inline__ cudaError_t cudaMemcpyFromSymbolAsync(
    void *dst, const T &symbol, size_t count, size_t offset = 0,
    enum cudaMemcpyKind kind = cudaMemcpyDeviceToHost, cudaStream_t stream = 0)
{
    return ::cudaMemcpyFromSymbolAsync(dst, (const void *)&symbol, count, offset, kind, stream);
}

template <class T>
static __inline__ cudaError_t cudaGetSymbolAddress(void **devPtr, const T &symbol)
{
    return ::cudaGetSymbolAddress(devPtr, (const void *)&symbol);
}

template <class T>
static __inline__ cudaError_t cudaGetSymbolSize(size_t *size, const T &symbol)
{
    return ::cudaGetSymbolSize(size, (const void *)&symbol);
}

/* Typed device allocation: cudaMalloc(&float_ptr, bytes). */
template <class T>
static __inline__ cudaError_t cudaMalloc(T **devPtr, size_t size)
{
    return ::cudaMalloc((void **)(void *)devPtr, size);
}

template <class T>
static __inline__ cudaError_t cudaMallocHost(T **ptr, size_t size)
{
    return ::cudaMallocHost((void **)(void *)ptr, size);
}

/* cudaMallocHost with flags is cudaHostAlloc, as in CUDA's C++ API. */
static __inline__ cudaError_t cudaMallocHost(void **ptr, size_t size, unsigned int flags)
{
    return ::cudaHostAlloc(ptr, size, flags);
}

template <class T>
static __inline__ cudaError_t cudaMallocHost(T **ptr, size_t size, unsigned int flags)
{
    return ::cudaHostAlloc((void **)(void *)ptr, size, flags);
}

template <class T>
static __inline__ cudaError_t cudaMallocManaged(T **devPtr, size_t size,
                                                unsigned int flags = cudaMemAttachGlobal)
{
    return ::cudaMallocManaged((void **)(void *)devPtr, size, flags);
}

template <class T>
static __inline__ cudaError_t cudaMallocPitch(T **devPtr, size_t *pitch, size_t width,
                                              size_t height)
{
    return ::cudaMallocPitch((void **)(void *)devPtr, pitch, width, height);
}

/* cudaEventCreate with flags is cudaEventCreateWithFlags. */
static __inline__ cudaError_t cudaEventCreate(cudaEvent_t *event, unsigned int flags)
{
    return ::cudaEventCreateWithFlags(event, flags);
}

/* Kernels named by their function. */
template <class T>
static __inline__ cudaError_t cudaFuncGetAttributes(struct cudaFuncAttributes *attr, T *entry)
{
    return ::cudaFuncGetAttributes(attr, (const void *)entry);
}

template <class T>
static __inline__ cudaError_t cudaFuncSetCacheConfig(T *entry, enum cudaFuncCache config)
{
    return ::cudaFuncSetCacheConfig((const void *)entry, config);
}

template <class T>
static __inline__ cudaError_t cudaFuncSetAttribute(T *entry, enum cudaFuncAttribute attr,
                                                   int value)
{
    return ::cudaFuncSetAttribute((const void *)entry, attr, value);
}

template <class T>
static __inline__ cudaError_t cudaFuncSetSharedMemConfig(T *entry,
                                                         enum cudaSharedMemConfig config)
{
    return ::cudaFuncSetSharedMemConfig((const void *)entry, config);
}

template <class T>
static __inline__ cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(
    int *numBlocks, T *func, int blockSize, size_t dynamicSMemSize)
{
    return ::cudaOccupancyMaxActiveBlocksPerMultiprocessor(numBlocks, (const void *)func,
                                                           blockSize, dynamicSMemSize);
}

template <class T>
static __inline__ cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
    int *numBlocks, T *func, int blockSize, size_t dynamicSMemSize, unsigned int flags)
{
    return ::cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
        numBlocks, (const void *)func, blockSize, dynamicSMemSize, flags);
}

template <class T>
static __inline__ cudaError_t cudaOccupancyAvailableDynamicSMemPerBlock(size_t *dynamicSmemSize,
                                                                       T *func, int numBlocks,
                                                                       int blockSize)
{
    return ::cudaOccupancyAvailableDynamicSMemPerBlock(dynamicSmemSize, (const void *)func,
                                                       numBlocks, blockSize);
}

/* The occupancy calculator's block-size search, as CUDA's cuda_runtime.h defines it: the
 * block size giving the most resident threads per SM, trying every size from the largest
 * the kernel and the device allow (and blockSizeLimit, when not 0) down to one warp, in
 * steps of a warp; the larger size wins a tie. The dynamic shared memory for a block size
 * comes from the functor. minGridSize is the grid that fills every SM at that occupancy. */
template <class UnaryFunction, class T>
static __inline__ cudaError_t cudaOccupancyMaxPotentialBlockSizeVariableSMemWithFlags(
    int *minGridSize, int *blockSize, T func, UnaryFunction blockSizeToDynamicSMemSize,
    int blockSizeLimit = 0, unsigned int flags = cudaOccupancyDefault)
{
    if (!minGridSize || !blockSize || !func || blockSizeLimit < 0)
        return cudaErrorInvalidValue;
    int dev, maxBlock, warp, smThreads, sms;
    struct cudaFuncAttributes attr;
    cudaError_t e = ::cudaGetDevice(&dev);
    if (e == cudaSuccess)
        e = ::cudaDeviceGetAttribute(&maxBlock, cudaDevAttrMaxThreadsPerBlock, dev);
    if (e == cudaSuccess)
        e = ::cudaDeviceGetAttribute(&warp, cudaDevAttrWarpSize, dev);
    if (e == cudaSuccess)
        e = ::cudaDeviceGetAttribute(&smThreads, cudaDevAttrMaxThreadsPerMultiProcessor, dev);
    if (e == cudaSuccess)
        e = ::cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
    if (e == cudaSuccess)
        e = ::cudaFuncGetAttributes(&attr, (const void *)func);
    if (e != cudaSuccess)
        return e;
    if (attr.maxThreadsPerBlock < maxBlock)
        maxBlock = attr.maxThreadsPerBlock;
    if (blockSizeLimit > 0 && blockSizeLimit < maxBlock)
        maxBlock = blockSizeLimit;
    int bestBlock = 0, bestBlocks = 0, bestThreads = 0;
    for (int aligned = (maxBlock + warp - 1) / warp * warp; aligned > 0; aligned -= warp) {
        int size = aligned < maxBlock ? aligned : maxBlock, blocks = 0;
        e = ::cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
            &blocks, (const void *)func, size, (size_t)blockSizeToDynamicSMemSize(size), flags);
        if (e != cudaSuccess)
            return e;
        if (blocks * size > bestThreads) {
            bestBlock = size;
            bestBlocks = blocks;
            bestThreads = blocks * size;
        }
        if (bestThreads == smThreads)
            break;
    }
    *minGridSize = bestBlocks * sms;
    *blockSize = bestBlock;
    return cudaSuccess;
}

template <class UnaryFunction, class T>
static __inline__ cudaError_t cudaOccupancyMaxPotentialBlockSizeVariableSMem(
    int *minGridSize, int *blockSize, T func, UnaryFunction blockSizeToDynamicSMemSize,
    int blockSizeLimit = 0)
{
    return cudaOccupancyMaxPotentialBlockSizeVariableSMemWithFlags(
        minGridSize, blockSize, func, blockSizeToDynamicSMemSize, blockSizeLimit,
        cudaOccupancyDefault);
}

/* The same search with the same dynamic shared memory for every block size. */
struct __xgpu_occupancy_smem {
    size_t n;
    __host__ size_t operator()(int) const { return n; }
};

template <class T>
static __inline__ cudaError_t cudaOccupancyMaxPotentialBlockSizeWithFlags(
    int *minGridSize, int *blockSize, T func, size_t dynamicSMemSize = 0, int blockSizeLimit = 0,
    unsigned int flags = cudaOccupancyDefault)
{
    struct __xgpu_occupancy_smem smem = {dynamicSMemSize};
    return cudaOccupancyMaxPotentialBlockSizeVariableSMemWithFlags(minGridSize, blockSize, func,
                                                                   smem, blockSizeLimit, flags);
}

template <class T>
static __inline__ cudaError_t cudaOccupancyMaxPotentialBlockSize(int *minGridSize,
                                                                 int *blockSize, T func,
                                                                 size_t dynamicSMemSize = 0,
                                                                 int blockSizeLimit = 0)
{
    return cudaOccupancyMaxPotentialBlockSizeWithFlags(minGridSize, blockSize, func,
                                                       dynamicSMemSize, blockSizeLimit,
                                                       cudaOccupancyDefault);
}

template <class T>
static __inline__ cudaError_t cudaLaunchCooperativeKernel(T *func, dim3 gridDim, dim3 blockDim,
                                                          void **args, size_t sharedMem = 0,
                                                          cudaStream_t stream = 0)
{
    return ::cudaLaunchCooperativeKernel((const void *)func, gridDim, blockDim, args, sharedMem,
                                         stream);
}

template <class T>
static __inline__ cudaError_t cudaHostAlloc(T **ptr, size_t size, unsigned int flags)
{
    return ::cudaHostAlloc((void **)(void *)ptr, size, flags);
}

template <class T>
static __inline__ cudaError_t cudaLaunchKernel(T *func, dim3 gridDim, dim3 blockDim, void **args,
                                               size_t sharedMem = 0, cudaStream_t stream = 0)
{
    return ::cudaLaunchKernel((const void *)func, gridDim, blockDim, args, sharedMem, stream);
}

/* min/max for the integer and floating types, on host and device. */
#define XGPU_MINMAX(R, A, B)                                                               \
    static __inline__ __host__ __device__ R min(A a, B b) { return (R)a < (R)b ? (R)a : (R)b; } \
    static __inline__ __host__ __device__ R max(A a, B b) { return (R)a > (R)b ? (R)a : (R)b; }
XGPU_MINMAX(int, int, int)
XGPU_MINMAX(unsigned int, unsigned int, unsigned int)
XGPU_MINMAX(unsigned int, int, unsigned int)
XGPU_MINMAX(unsigned int, unsigned int, int)
XGPU_MINMAX(long, long, long)
XGPU_MINMAX(unsigned long, unsigned long, unsigned long)
XGPU_MINMAX(long long, long long, long long)
XGPU_MINMAX(unsigned long long, unsigned long long, unsigned long long)
XGPU_MINMAX(unsigned long long, long long, unsigned long long)
XGPU_MINMAX(unsigned long long, unsigned long long, long long)
XGPU_MINMAX(float, float, float)
XGPU_MINMAX(double, double, double)
XGPU_MINMAX(double, float, double)
XGPU_MINMAX(double, double, float)
#undef XGPU_MINMAX

#endif /* __cplusplus */

#endif
