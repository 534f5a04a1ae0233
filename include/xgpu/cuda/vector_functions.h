/*
 * vector_functions.h - make_<type>() constructors of CUDA's vector types (make_int2,
 * make_float4, ...), usable on host and device, in C and C++.
 */
#ifndef XGPU_CUDA_VECTOR_FUNCTIONS_H
#define XGPU_CUDA_VECTOR_FUNCTIONS_H
#define __VECTOR_FUNCTIONS_H__ /* CUDA's own guard: programs test it */

#include "host_defines.h"
#include "vector_types.h"

/* One row per vector family: XGPU_MAKE(element, name). */
#define XGPU_MAKE(T, N)                                                                    \
    static __inline__ __host__ __device__ N##1 make_##N##1(T x)                            \
    {                                                                                      \
        N##1 v; v.x = x; return v;                                                         \
    }                                                                                      \
    static __inline__ __host__ __device__ N##2 make_##N##2(T x, T y)                       \
    {                                                                                      \
        N##2 v; v.x = x; v.y = y; return v;                                                \
    }                                                                                      \
    static __inline__ __host__ __device__ N##3 make_##N##3(T x, T y, T z)                  \
    {                                                                                      \
        N##3 v; v.x = x; v.y = y; v.z = z; return v;                                       \
    }                                                                                      \
    static __inline__ __host__ __device__ N##4 make_##N##4(T x, T y, T z, T w)             \
    {                                                                                      \
        N##4 v; v.x = x; v.y = y; v.z = z; v.w = w; return v;                              \
    }

XGPU_MAKE(signed char, char)
XGPU_MAKE(unsigned char, uchar)
XGPU_MAKE(short, short)
XGPU_MAKE(unsigned short, ushort)
XGPU_MAKE(int, int)
XGPU_MAKE(unsigned int, uint)
XGPU_MAKE(long, long)
XGPU_MAKE(unsigned long, ulong)
XGPU_MAKE(long long, longlong)
XGPU_MAKE(unsigned long long, ulonglong)
XGPU_MAKE(float, float)
XGPU_MAKE(double, double)
#undef XGPU_MAKE

#endif
