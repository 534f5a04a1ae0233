/*
 * host_defines.h - CUDA's declaration qualifiers for xgpu.
 *
 * Under clang's CUDA mode (__CUDA__, both the host and the device compilation) the
 * qualifiers map onto clang's own attributes; included from plain C or C++ (the runtime's
 * tests, host-only tools) they expand to nothing, so the API headers stay usable there.
 * `__noinline__` is a keyword in clang's CUDA mode and is therefore only defined outside it.
 */
#ifndef XGPU_CUDA_HOST_DEFINES_H
#define XGPU_CUDA_HOST_DEFINES_H
#define __HOST_DEFINES_H__ /* CUDA's own guard: programs test it */

#if defined(__CUDA__)
#define __host__ __attribute__((host))
#define __device__ __attribute__((device))
#define __global__ __attribute__((global))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
/* clang implements managed memory for HIP only: a __managed__ variable is a __device__
 * one that xgpu-cc marks (annotate) and the runtime keeps in step with its host copy
 * (docs/runtime.md). */
#define __managed__ __attribute__((device)) __attribute__((annotate("xgpu.managed")))
#define __launch_bounds__(...) __attribute__((launch_bounds(__VA_ARGS__)))
#else
#define __host__
#define __device__
#define __global__
#define __shared__
#define __constant__
#define __managed__
#define __launch_bounds__(...)
#define __noinline__ __attribute__((noinline))
#endif

#define __forceinline__ __inline__ __attribute__((always_inline))
#define __align__(n) __attribute__((aligned(n)))
#define __thread__ __thread
#define __builtin_align__(n) __align__(n)
#define CUDARTAPI
#define CUDART_CB /* calling convention of stream callbacks: the default one */
#define __cudart_builtin__

#if defined(__cplusplus)
#define XGPU_CUDA_EXTERN_C extern "C"
#define XGPU_CUDA_BEGIN_C extern "C" {
#define XGPU_CUDA_END_C }
#define XGPU_CUDA_DEFAULT(v) = v
#else
#define XGPU_CUDA_EXTERN_C extern
#define XGPU_CUDA_BEGIN_C
#define XGPU_CUDA_END_C
#define XGPU_CUDA_DEFAULT(v)
#endif

#endif
