/*
 * device_launch_parameters.h - threadIdx, blockIdx, blockDim, gridDim and warpSize.
 *
 * They come from clang's own <__clang_cuda_builtin_vars.h> (in its resource directory),
 * which reads the special registers through NVVM builtins; the conversions of those
 * variables to dim3/uint3 that clang leaves undefined are defined here, after the vector
 * types exist. Outside clang's CUDA mode this header declares nothing.
 */
#ifndef XGPU_CUDA_DEVICE_LAUNCH_PARAMETERS_H
#define XGPU_CUDA_DEVICE_LAUNCH_PARAMETERS_H
#define __DEVICE_LAUNCH_PARAMETERS_H__ /* CUDA's own guard: programs test it */

#include "vector_types.h"

#if defined(__CUDA__)
#include <__clang_cuda_builtin_vars.h>

#define XGPU_BUILTIN_CONVERSIONS(T)                                                        \
    __device__ inline T::operator dim3() const { return dim3(x, y, z); }                   \
    __device__ inline T::operator uint3() const { return uint3{x, y, z}; }
XGPU_BUILTIN_CONVERSIONS(__cuda_builtin_threadIdx_t)
XGPU_BUILTIN_CONVERSIONS(__cuda_builtin_blockIdx_t)
XGPU_BUILTIN_CONVERSIONS(__cuda_builtin_blockDim_t)
XGPU_BUILTIN_CONVERSIONS(__cuda_builtin_gridDim_t)
#undef XGPU_BUILTIN_CONVERSIONS
#endif

#endif
