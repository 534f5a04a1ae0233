/*
 * managed.c - unified ("managed") memory: cudaMallocManaged, cudaMemPrefetchAsync,
 * cudaMemAdvise.
 *
 * Model. A managed block must be valid at the same pointer value on the host and on the
 * device. The emulator's addresses are not host addresses, so the runtime makes one
 * range both: the device allocates it at a page-aligned address (emu_malloc_mapped) and
 * asks the runtime for its bytes, and the runtime maps anonymous host memory at exactly
 * that address (mmap MAP_FIXED_NOREPLACE, so nothing already mapped is ever replaced).
 * There is one copy of the bytes, which the host program and the device's kernels both
 * use; kernels run to completion inside the launch, so the host never sees a kernel half
 * done. Around each launch the device takes stock of the block (emu_uvm_sync_in before
 * it marks the pages the host changed host-resident, which in timing mode makes the first
 * device touch migrate them; emu_uvm_sync_out after it records the device's own writes).
 * A __managed__ variable has two copies (its host shadow and its device copy), copied in
 * before each launch and out after it. cudaFree, cudaDeviceReset and the device going
 * away at exit free the device side and unmap the host side. A block belongs to the
 * device that was current when it was allocated (its address says which): that device's
 * launches keep it current, and only that device's kernels can reach it
 * (docs/multi-device.md).
 *
 * Limits. Every launch reads all managed bytes twice (to find the host's changes and to
 * record the device's); a device access to the rest of the block's last host page is
 * reported as out of bounds, a host access to it is not; the mapping fails, with
 * cudaErrorMemoryAllocation and one line on stderr, where the host already uses the
 * device's addresses (for example the shadow memory of AddressSanitizer). Prefetching
 * moves the pages' residency (docs/unified-memory.md); advice is validated and does
 * nothing.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "rt.h"

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000 /* Linux 4.17; older kernels treat it as a hint */
#endif

/* CUDA's values (cuda_runtime_api.h does not declare them yet). */
enum {
    RT_MEM_ATTACH_GLOBAL = 1, /* cudaMemAttachGlobal */
    RT_MEM_ATTACH_HOST = 2,   /* cudaMemAttachHost */
    RT_CPU_DEVICE_ID = -1,    /* cudaCpuDeviceId */
    RT_ADVISE_FIRST = 1,      /* cudaMemAdviseSetReadMostly */
    RT_ADVISE_LAST = 6,       /* cudaMemAdviseUnsetAccessedBy */
};

static size_t rt_page(void)
{
    long p = sysconf(_SC_PAGESIZE);
    return p > 0 ? (size_t)p : 4096;
}

/* The block containing p, or NULL. */
RtManaged *rt_managed_of(RtContext *c, const void *p)
{
    const uint8_t *b = p;
    RtDev *d = rt_dev_of(c, p);
    for (RtManaged *m = d ? d->managed : NULL; m; m = m->next)
        if (b >= m->ptr && b < m->ptr + m->size)
            return m;
    return NULL;
}

/* Whether [p, p+n) lies inside one managed block. */
int rt_managed_range(RtContext *c, const void *p, size_t n)
{
    RtManaged *m = rt_managed_of(c, p);
    return m && n <= m->size - (size_t)((const uint8_t *)p - m->ptr);
}

/* Maps `len` host bytes at exactly `at`; 0, or -1 with errno set. */
static int rt_map_at(void *at, size_t len)
{
    void *p = mmap(at, len, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
    if (p == MAP_FAILED)
        return -1;
    if (p != at) { /* a kernel without MAP_FIXED_NOREPLACE put it elsewhere */
        munmap(p, len);
        errno = EEXIST;
        return -1;
    }
    return 0;
}

/* What the device's allocator asks of the host (EmuMapFn): `reserved` bytes mapped at
 * exactly addr. */
typedef struct RtMapTry {
    uint64_t at; /* the address tried */
    int err;     /* errno when the mapping failed, else 0 */
} RtMapTry;

static void *rt_map_cb(void *ctx, uint64_t addr, uint64_t reserved)
{
    RtMapTry *t = ctx;
    t->at = addr;
    t->err = rt_map_at(rt_ptr(addr), (size_t)reserved) ? (errno ? errno : EEXIST) : 0;
    return t->err ? NULL : rt_ptr(addr);
}

static cudaError_t rt_managed_new(RtContext *c, EmuDevice *dev, size_t size, void **out)
{
    size_t page = rt_page();
    if (size > SIZE_MAX - 2 * page)
        return cudaErrorMemoryAllocation;
    RtManaged *m = calloc(1, sizeof *m);
    if (!m)
        return cudaErrorMemoryAllocation;
    RtMapTry t = {0};
    if (emu_malloc_mapped(dev, size, page, rt_map_cb, &t, &m->alloc) != EMU_OK) {
        if (t.err)
            fprintf(stderr, "xgpu: cudaMallocManaged: cannot map host memory at 0x%llx (%s)\n",
                    (unsigned long long)t.at, strerror(t.err));
        free(m);
        return cudaErrorMemoryAllocation;
    }
    m->ptr = rt_ptr(m->alloc);
    m->size = size;
    m->mapped = (size + page - 1) / page * page;
    if (emu_uvm_add(dev, m->alloc, size) != EMU_OK) {
        emu_free(dev, m->alloc);
        munmap(m->ptr, m->mapped);
        free(m);
        return cudaErrorMemoryAllocation;
    }
    rt_note_device_range(c, m->alloc, m->mapped);
    m->next = c->d->managed;
    c->d->managed = m;
    *out = m->ptr;
    return cudaSuccess;
}

cudaError_t cudaMallocManaged(void **devPtr, size_t size, unsigned int flags)
{
    RT_ENTER(c);
    EmuDevice *dev;
    if (!devPtr || size == 0 || (flags != RT_MEM_ATTACH_GLOBAL && flags != RT_MEM_ATTACH_HOST))
        return rt_error(c, cudaErrorInvalidValue);
    cudaError_t e = rt_device(c, &dev);
    if (e == cudaSuccess)
        e = rt_managed_new(c, dev, size, devPtr);
    return rt_error(c, e);
}

static void rt_managed_release(RtDev *d, RtManaged *m)
{
    if (d->emu) {
        emu_uvm_remove(d->emu, m->alloc);
        emu_free(d->emu, m->alloc);
    }
    munmap(m->ptr, m->mapped); /* the device no longer uses it */
    free(m);
}

/* cudaFree of a managed pointer (of any device): it must be the block's start. */
cudaError_t rt_managed_free(RtContext *c, void *p)
{
    RtDev *d = rt_dev_of(c, p);
    for (RtManaged **q = d ? &d->managed : NULL; q && *q; q = &(*q)->next)
        if ((*q)->ptr == p) {
            RtManaged *m = *q;
            *q = m->next;
            rt_managed_release(d, m);
            return cudaSuccess;
        }
    return cudaErrorInvalidValue;
}

/* The __managed__ variables' device copies brought up to their host shadows (the pages
 * the host changed become host-resident), or the shadows to the device copies. */
cudaError_t rt_managed_vars_to_device(RtContext *c)
{
    RtDev *d = c->d;
    for (RtManagedVar *v = d->managed_vars; v; v = v->next)
        if ((v->uvm ? emu_uvm_sync_in(d->emu, v->dev, v->shadow, v->size)
                    : emu_copy_to_device(d->emu, v->dev, v->shadow, v->size)) != EMU_OK)
            return cudaErrorUnknown;
    return cudaSuccess;
}

void rt_managed_vars_to_host(RtContext *c)
{
    for (RtManagedVar *v = c->d->managed_vars; v; v = v->next)
        emu_copy_from_device(c->d->emu, v->shadow, v->dev, v->size);
}

/* Before a launch: the pages of the blocks the host changed are host-resident again (in
 * timing mode they migrate on first touch; the bytes are already the device's), and the
 * variables are copied in. */
cudaError_t rt_managed_to_device(RtContext *c)
{
    RtDev *d = c->d;
    for (RtManaged *m = d->managed; m; m = m->next)
        if (emu_uvm_sync_in(d->emu, m->alloc, m->ptr, m->size) != EMU_OK)
            return cudaErrorUnknown;
    return rt_managed_vars_to_device(c);
}

/* After a launch (also a faulting one): the device takes stock of the blocks' bytes (its
 * writes are not the host's), and the variables are copied out. */
void rt_managed_to_host(RtContext *c)
{
    RtDev *d = c->d;
    for (RtManaged *m = d->managed; m; m = m->next)
        emu_uvm_sync_out(d->emu, m->alloc, m->ptr, m->size);
    rt_managed_vars_to_host(c);
}

/* The __managed__ variables of fb's module, just loaded, join the list. */
cudaError_t rt_managed_vars_add(RtContext *c, RtFatbin *fb)
{
    const XGpubin *g = emu_module_bin(rt_mod(c, fb));
    for (uint32_t i = 0; i < g->nglobals; i++) {
        const XGlobal *x = &g->globals[i];
        RtVar *shadow = NULL;
        for (size_t j = 0; x->managed && j < fb->nvars && !shadow; j++)
            shadow = !strcmp(fb->vars[j].name, x->name) ? &fb->vars[j] : NULL;
        if (!shadow)
            continue; /* not managed, or never named by the host (no copy to keep) */
        RtManagedVar *v = calloc(1, sizeof *v);
        uint64_t size = 0;
        if (!v)
            return cudaErrorMemoryAllocation;
        if (emu_symbol(rt_mod(c, fb), x->name, &v->dev, &size) != EMU_OK || size != shadow->size) {
            free(v);
            return cudaErrorInvalidSymbol;
        }
        v->shadow = (void *)shadow->shadow;
        v->size = (size_t)size;
        /* a zero-sized variable has no pages to track */
        v->uvm = size && emu_uvm_add(c->d->emu, v->dev, size) == EMU_OK;
        v->next = c->d->managed_vars;
        c->d->managed_vars = v;
    }
    return cudaSuccess;
}

/* Whether the host variable `shadow` is a __managed__ one's. */
int rt_managed_var(RtContext *c, const void *shadow)
{
    for (RtManagedVar *v = c->d->managed_vars; v; v = v->next)
        if (v->shadow == shadow)
            return 1;
    return 0;
}

/* Device d is going away: every block goes with it. */
void rt_managed_drop(RtDev *d)
{
    while (d->managed) {
        RtManaged *m = d->managed;
        d->managed = m->next;
        rt_managed_release(d, m);
    }
    while (d->managed_vars) {
        RtManagedVar *v = d->managed_vars;
        d->managed_vars = v->next;
        free(v);
    }
}

/* Prefetching and advice need [p, p+count) inside one managed block. */
static cudaError_t rt_managed_hint_range(RtContext *c, const void *p, size_t count)
{
    cudaError_t e = rt_device(c, NULL);
    if (e != cudaSuccess)
        return e;
    return p && count && rt_managed_range(c, p, count) ? cudaSuccess : cudaErrorInvalidValue;
}

cudaError_t cudaMemPrefetchAsync(const void *devPtr, size_t count, int dstDevice,
                                 cudaStream_t stream)
{
    RT_ENTER(c);
    cudaError_t e = rt_managed_hint_range(c, devPtr, count);
    RtDev *d = rt_dev_of(c, devPtr); /* the block's device */
    int to_device = d && dstDevice == d->index;
    if (e == cudaSuccess && !to_device && dstDevice != RT_CPU_DEVICE_ID)
        e = cudaErrorInvalidDevice;
    if (e == cudaSuccess && !rt_stream_ok(c, stream))
        e = cudaErrorInvalidResourceHandle;
    /* To the device: what the host wrote moves now, so the next kernel finds the pages
     * resident; to the host: the next device touch migrates them back. */
    uint64_t at = rt_addr(devPtr);
    if (e == cudaSuccess && to_device &&
        (emu_uvm_sync_in(d->emu, at, devPtr, count) != EMU_OK ||
         emu_uvm_prefetch(d->emu, at, count, 1) != EMU_OK))
        e = cudaErrorUnknown;
    if (e == cudaSuccess && dstDevice == RT_CPU_DEVICE_ID &&
        emu_uvm_prefetch(d->emu, at, count, 0) != EMU_OK)
        e = cudaErrorUnknown;
    return rt_error(c, e);
}

cudaError_t cudaMemAdvise(const void *devPtr, size_t count, int advice, int device)
{
    RT_ENTER(c);
    cudaError_t e = rt_managed_hint_range(c, devPtr, count);
    if (e == cudaSuccess && (advice < RT_ADVISE_FIRST || advice > RT_ADVISE_LAST))
        e = cudaErrorInvalidValue;
    if (e == cudaSuccess && (device < 0 || device >= c->ndevs) && device != RT_CPU_DEVICE_ID)
        e = cudaErrorInvalidDevice;
    return rt_error(c, e);
}
