/*
 * vector_types.h - CUDA's built-in vector types (int2, float4, uint3, ...) and dim3.
 *
 * Sizes and alignments follow CUDA: two-component types are aligned to twice their
 * element (at most 16), four-component types to four times (at most 16), one- and
 * three-component types to their element; make_<type>() is in vector_functions.h. dim3
 * holds three unsigned extents; in C++ it has CUDA's constructor with defaults of 1 and
 * converts to and from uint3. In C it is a plain struct (the runtime's
 * tests fill it by hand). The layout is the same either way: the launch ABI passes it
 * by value.
 */
#ifndef XGPU_CUDA_VECTOR_TYPES_H
#define XGPU_CUDA_VECTOR_TYPES_H
#define __VECTOR_TYPES_H__ /* CUDA's own guard: programs test it */

#include "host_defines.h"

/* One row per element type: XGPU_VEC(element, name, align2, align4). */
#define XGPU_VEC(T, N, A2, A4)                                                             \
    typedef struct N##1 { T x; } N##1;                                                     \
    typedef struct __align__(A2) N##2 { T x, y; } N##2;                                    \
    typedef struct N##3 { T x, y, z; } N##3;                                               \
    typedef struct __align__(A4) N##4 { T x, y, z, w; } N##4;

XGPU_VEC(signed char, char, 2, 4)
XGPU_VEC(unsigned char, uchar, 2, 4)
XGPU_VEC(short, short, 4, 8)
XGPU_VEC(unsigned short, ushort, 4, 8)
XGPU_VEC(int, int, 8, 16)
XGPU_VEC(unsigned int, uint, 8, 16)
XGPU_VEC(long, long, 16, 16)
XGPU_VEC(unsigned long, ulong, 16, 16)
XGPU_VEC(long long, longlong, 16, 16)
XGPU_VEC(unsigned long long, ulonglong, 16, 16)
XGPU_VEC(float, float, 8, 16)
XGPU_VEC(double, double, 16, 16)
#undef XGPU_VEC

#if defined(__cplusplus)
struct dim3 {
    unsigned int x, y, z;
    __host__ __device__ constexpr dim3(unsigned int vx = 1, unsigned int vy = 1,
                                       unsigned int vz = 1)
        : x(vx), y(vy), z(vz) {}
    __host__ __device__ constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
    __host__ __device__ constexpr operator uint3() const { return uint3{x, y, z}; }
};
#else
typedef struct dim3 {
    unsigned int x, y, z;
} dim3;
#endif

#endif
