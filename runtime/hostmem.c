/*
 * hostmem.c - page-locked ("pinned") host memory: cudaMallocHost, cudaHostAlloc,
 * cudaFreeHost, cudaHostRegister and friends.
 *
 * The emulator copies from any host memory at the same speed, so pinned memory is
 * ordinary page-aligned host memory. The runtime remembers each block (a list on the
 * context) so that cudaFreeHost of anything else is cudaErrorInvalidValue instead of a
 * crash in free(), and cudaHostGetFlags can answer. Blocks survive cudaDeviceReset (CUDA
 * would free them; keeping them turns a use after reset into a harmless one).
 * cudaHostRegister records the range (nothing else is needed: every host range copies
 * alike): a range that overlaps a registered one or a pinned block is
 * cudaErrorHostMemoryAlreadyRegistered, and cudaHostUnregister of anything but the start
 * of a registered range is cudaErrorHostMemoryNotRegistered, as with CUDA. A reset forgets
 * the registrations (they belong to the device, as CUDA's belong to its context). Mapped
 * memory (cudaHostGetDevicePointer) would need the device to reach host memory: not
 * supported; cudaMallocManaged (managed.c) gives memory both sides reach.
 */
#include <stdlib.h>

#include "rt.h"

enum { RT_HOST_ALIGN = 4096 };

cudaError_t cudaHostAlloc(void **ptr, size_t size, unsigned int flags)
{
    RT_ENTER(c);
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
    b->size = size;
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
    RT_ENTER(c);
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
    RT_ENTER(c);
    if (!pFlags)
        return rt_error(c, cudaErrorInvalidValue);
    for (RtHostBlock *b = c->host_blocks; b; b = b->next)
        if (b->ptr == pHost) {
            *pFlags = b->flags;
            return cudaSuccess;
        }
    return rt_error(c, cudaErrorInvalidValue);
}

/* Whether [p, p+n) overlaps a block of the list. */
static int rt_host_overlaps(const RtHostBlock *b, const void *p, size_t n)
{
    uintptr_t lo = (uintptr_t)p, hi = lo + n;
    for (; b; b = b->next)
        if (lo < (uintptr_t)b->ptr + b->size && (uintptr_t)b->ptr < hi)
            return 1;
    return 0;
}

cudaError_t cudaHostRegister(void *ptr, size_t size, unsigned int flags)
{
    RT_ENTER(c);
    unsigned known = cudaHostRegisterPortable | cudaHostRegisterMapped |
                     cudaHostRegisterIoMemory | cudaHostRegisterReadOnly;
    if (!ptr || !size || (flags & ~known) || size > UINTPTR_MAX - (uintptr_t)ptr ||
        rt_is_device_ptr(c, ptr))
        return rt_error(c, cudaErrorInvalidValue);
    if (rt_host_overlaps(c->host_regs, ptr, size) || rt_host_overlaps(c->host_blocks, ptr, size))
        return rt_error(c, cudaErrorHostMemoryAlreadyRegistered);
    RtHostBlock *b = malloc(sizeof *b);
    if (!b)
        return rt_error(c, cudaErrorMemoryAllocation);
    *b = (RtHostBlock){.next = c->host_regs, .ptr = ptr, .size = size, .flags = flags};
    c->host_regs = b;
    return cudaSuccess;
}

cudaError_t cudaHostUnregister(void *ptr)
{
    RT_ENTER(c);
    if (!ptr)
        return rt_error(c, cudaErrorInvalidValue);
    for (RtHostBlock **p = &c->host_regs; *p; p = &(*p)->next)
        if ((*p)->ptr == ptr) {
            RtHostBlock *b = *p;
            *p = b->next;
            free(b);
            return cudaSuccess;
        }
    return rt_error(c, cudaErrorHostMemoryNotRegistered);
}

/* cudaDeviceReset: registrations end with the device. */
void rt_host_regs_free(RtContext *c)
{
    while (c->host_regs) {
        RtHostBlock *b = c->host_regs;
        c->host_regs = b->next;
        free(b);
    }
}

cudaError_t cudaHostGetDevicePointer(void **pDevice, void *pHost, unsigned int flags)
{
    if (!pDevice || !pHost || flags)
        return rt_error(rt_ctx(), cudaErrorInvalidValue);
    return rt_unsupported("cudaHostGetDevicePointer (mapped host memory)");
}
