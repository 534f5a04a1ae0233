/*
 * sm_atomic_functions.h - CUDA's atomic functions for xgpu (atomicAdd, atomicCAS, ...).
 *
 * They are written with clang's __atomic builtins (relaxed order) and NVVM atomic
 * builtins, which reach the IR as atomicrmw / cmpxchg (and llvm.nvvm.atomic.load.inc/dec
 * for atomicInc/atomicDec); the xgpu compiler turns each into one atom or atomcas
 * instruction on the pointer's address space (global, shared or generic). Every atomic
 * is relaxed and device-scoped on xgpu whatever the builtin's order or scope (the _block
 * and _system variants are the same functions); the lanes of a warp perform theirs one
 * after another in lane order. Outside clang's CUDA mode this header declares nothing.
 */
#ifndef XGPU_CUDA_SM_ATOMIC_FUNCTIONS_H
#define XGPU_CUDA_SM_ATOMIC_FUNCTIONS_H

#include "host_defines.h"

#if defined(__CUDA__) && defined(__cplusplus)

#define XGPU_ADEV static __device__ __forceinline__
#define XGPU_RELAXED __ATOMIC_RELAXED

/* Integer read-modify-write atomics on one type: name, builtin. */
#define XGPU_ATOMIC_RMW(NAME, OP, T)                                                      \
    XGPU_ADEV T NAME(T *p, T v) { return __atomic_fetch_##OP(p, v, XGPU_RELAXED); }       \
    XGPU_ADEV T NAME##_block(T *p, T v) { return NAME(p, v); }                           \
    XGPU_ADEV T NAME##_system(T *p, T v) { return NAME(p, v); }
#define XGPU_ATOMIC_INTS(NAME, OP)                                                        \
    XGPU_ATOMIC_RMW(NAME, OP, int)                                                        \
    XGPU_ATOMIC_RMW(NAME, OP, unsigned int)                                               \
    XGPU_ATOMIC_RMW(NAME, OP, unsigned long long)
XGPU_ATOMIC_INTS(atomicAdd, add)
XGPU_ATOMIC_INTS(atomicAnd, and)
XGPU_ATOMIC_INTS(atomicOr, or)
XGPU_ATOMIC_INTS(atomicXor, xor)
XGPU_ATOMIC_RMW(atomicSub, sub, int)
XGPU_ATOMIC_RMW(atomicSub, sub, unsigned int)
XGPU_ATOMIC_RMW(atomicMin, min, int)
XGPU_ATOMIC_RMW(atomicMin, min, unsigned int)
XGPU_ATOMIC_RMW(atomicMin, min, long long)
XGPU_ATOMIC_RMW(atomicMin, min, unsigned long long)
XGPU_ATOMIC_RMW(atomicMax, max, int)
XGPU_ATOMIC_RMW(atomicMax, max, unsigned int)
XGPU_ATOMIC_RMW(atomicMax, max, long long)
XGPU_ATOMIC_RMW(atomicMax, max, unsigned long long)
#undef XGPU_ATOMIC_INTS
#undef XGPU_ATOMIC_RMW

/* Floating-point add: atomicrmw fadd. */
XGPU_ADEV float atomicAdd(float *p, float v) { return __nvvm_atom_add_gen_f(p, v); }
XGPU_ADEV double atomicAdd(double *p, double v) { return __nvvm_atom_add_gen_d(p, v); }
XGPU_ADEV float atomicAdd_block(float *p, float v) { return atomicAdd(p, v); }
XGPU_ADEV double atomicAdd_block(double *p, double v) { return atomicAdd(p, v); }
XGPU_ADEV float atomicAdd_system(float *p, float v) { return atomicAdd(p, v); }
XGPU_ADEV double atomicAdd_system(double *p, double v) { return atomicAdd(p, v); }

/* Exchange: atomicrmw xchg (floats through their bits). */
#define XGPU_ATOMIC_EXCH(T)                                                               \
    XGPU_ADEV T atomicExch(T *p, T v) { return __atomic_exchange_n(p, v, XGPU_RELAXED); } \
    XGPU_ADEV T atomicExch_block(T *p, T v) { return atomicExch(p, v); }                 \
    XGPU_ADEV T atomicExch_system(T *p, T v) { return atomicExch(p, v); }
XGPU_ATOMIC_EXCH(int)
XGPU_ATOMIC_EXCH(unsigned int)
XGPU_ATOMIC_EXCH(unsigned long long)
#undef XGPU_ATOMIC_EXCH
XGPU_ADEV float atomicExch(float *p, float v)
{
    unsigned old = atomicExch((unsigned *)p, __builtin_bit_cast(unsigned, v));
    return __builtin_bit_cast(float, old);
}
XGPU_ADEV float atomicExch_block(float *p, float v) { return atomicExch(p, v); }
XGPU_ADEV float atomicExch_system(float *p, float v) { return atomicExch(p, v); }

/* Wrapping increment / decrement (unsigned only, as in CUDA). */
XGPU_ADEV unsigned int atomicInc(unsigned int *p, unsigned int v)
{
    return __nvvm_atom_inc_gen_ui(p, v);
}
XGPU_ADEV unsigned int atomicDec(unsigned int *p, unsigned int v)
{
    return __nvvm_atom_dec_gen_ui(p, v);
}
XGPU_ADEV unsigned int atomicInc_block(unsigned int *p, unsigned int v) { return atomicInc(p, v); }
XGPU_ADEV unsigned int atomicDec_block(unsigned int *p, unsigned int v) { return atomicDec(p, v); }
XGPU_ADEV unsigned int atomicInc_system(unsigned int *p, unsigned int v) { return atomicInc(p, v); }
XGPU_ADEV unsigned int atomicDec_system(unsigned int *p, unsigned int v) { return atomicDec(p, v); }

/* Compare and swap: cmpxchg. */
XGPU_ADEV int atomicCAS(int *p, int cmp, int v) { return __nvvm_atom_cas_gen_i(p, cmp, v); }
XGPU_ADEV unsigned int atomicCAS(unsigned int *p, unsigned int cmp, unsigned int v)
{
    return (unsigned int)__nvvm_atom_cas_gen_i((int *)p, (int)cmp, (int)v);
}
XGPU_ADEV unsigned long long atomicCAS(unsigned long long *p, unsigned long long cmp,
                                       unsigned long long v)
{
    return (unsigned long long)__nvvm_atom_cas_gen_ll((long long *)p, (long long)cmp,
                                                      (long long)v);
}
XGPU_ADEV int atomicCAS_block(int *p, int cmp, int v) { return atomicCAS(p, cmp, v); }
XGPU_ADEV unsigned int atomicCAS_block(unsigned int *p, unsigned int cmp, unsigned int v)
{
    return atomicCAS(p, cmp, v);
}
XGPU_ADEV unsigned long long atomicCAS_block(unsigned long long *p, unsigned long long cmp,
                                             unsigned long long v)
{
    return atomicCAS(p, cmp, v);
}
XGPU_ADEV int atomicCAS_system(int *p, int cmp, int v) { return atomicCAS(p, cmp, v); }
XGPU_ADEV unsigned int atomicCAS_system(unsigned int *p, unsigned int cmp, unsigned int v)
{
    return atomicCAS(p, cmp, v);
}
XGPU_ADEV unsigned long long atomicCAS_system(unsigned long long *p, unsigned long long cmp,
                                              unsigned long long v)
{
    return atomicCAS(p, cmp, v);
}

#undef XGPU_ADEV
#undef XGPU_RELAXED
#endif /* __CUDA__ && __cplusplus */

#endif
