/*
 * hostmem.c - page-locked ("pinned") host memory: cudaMallocHost, cudaHostAlloc,
 * cudaFreeHost, cudaHostRegister and friends.
 *
 * The emulator copies from any host memory at the same speed, so pinned memory is
 * ordinary page-aligned host memory. The runtime remembers each block (a list on the
 * context) so that cudaFreeHost of anything else is cudaErrorInvalidValue instead of a
 * crash in free(), and cudaHostGetFlags can answer. Blocks survive cudaDeviceReset (CUDA
 * would free them; keeping them turns a use after reset into a harmless one).
 * Registration of existing memory is accepted and does nothing. Mapped memory
 * (cudaHostGetDevicePointer) would need the device to reach host memory: not supported.
 */
#include <stdlib.h>

#include "rt.h"

enum { RT_HOST_ALIGN = 4096 };

cudaError_t cudaHostAlloc(void **ptr, size_t size, unsigned int flags)
{
    RtContext *c = rt_ctx();
    unsigned known = cudaHostAllocPortable | cudaHostAllocMapped | cudaHostAllocWriteCombined;
    if (!ptr || (flags & ~known))
        return rt_error(c, cudaErrorInvalidValue);
    cudaError_t e = rt_device(c, NULL);
    if (e != cudaSuccess)
        return rt_error(c, e);
    *ptr = NULL;
    if (size == 0)
        return cudaSuccess;
    if (size > SIZE_MAX - RT_HOST_ALIGN)
        return rt_error(c, cudaErrorMemoryAllocation);
    RtHostBlock *b = malloc(sizeof *b);
    void *p = aligned_alloc(RT_HOST_ALIGN, (size + RT_HOST_ALIGN - 1) / RT_HOST_ALIGN *
                                               RT_HOST_ALIGN);
    if (!b || !p) {
        free(b);
        free(p);
        return rt_error(c, cudaErrorMemoryAllocation);
    }
    b->ptr = p;
    b->flags = flags;
    b->next = c->host_blocks;
    c->host_blocks = b;
    *ptr = p;
    return cudaSuccess;
}

cudaError_t cudaMallocHost(void **ptr, size_t size)
{
    return cudaHostAlloc(ptr, size, cudaHostAllocDefault);
}

cudaError_t cudaFreeHost(void *ptr)
{
    RtContext *c = rt_ctx();
    if (!ptr)
        return cudaSuccess;
    for (RtHostBlock **p = &c->host_blocks; *p; p = &(*p)->next)
        if ((*p)->ptr == ptr) {
            RtHostBlock *b = *p;
            *p = b->next;
            free(b->ptr);
            free(b);
            return cudaSuccess;
        }
    return rt_error(c, cudaErrorInvalidValue);
}

cudaError_t cudaHostGetFlags(unsigned int *pFlags, void *pHost)
{
    RtContext *c = rt_ctx();
    if (!pFlags)
        return rt_error(c, cudaErrorInvalidValue);
    for (RtHostBlock *b = c->host_blocks; b; b = b->next)
        if (b->ptr == pHost) {
            *pFlags = b->flags;
            return cudaSuccess;
        }
    return rt_error(c, cudaErrorInvalidValue);
}

cudaError_t cudaHostRegister(void *ptr, size_t size, unsigned int flags)
{
    unsigned known = cudaHostRegisterPortable | cudaHostRegisterMapped |
                     cudaHostRegisterIoMemory | cudaHostRegisterReadOnly;
    if (!ptr || !size || (flags & ~known))
        return rt_error(rt_ctx(), cudaErrorInvalidValue);
    return cudaSuccess;
}

cudaError_t cudaHostUnregister(void *ptr)
{
    return ptr ? cudaSuccess : rt_error(rt_ctx(), cudaErrorInvalidValue);
}

cudaError_t cudaHostGetDevicePointer(void **pDevice, void *pHost, unsigned int flags)
{
    if (!pDevice || !pHost || flags)
        return rt_error(rt_ctx(), cudaErrorInvalidValue);
    return rt_unsupported("cudaHostGetDevicePointer (mapped host memory)");
}
