/*
 * memory.c - device memory: allocation, copies in every direction, memset, symbols,
 * peer copies between the system's devices.
 *
 * Device pointers are emulator addresses in the global window (isa.h), handed to the
 * program as void *; each device of the system has its own part of the window, so a
 * pointer names its device (as with CUDA's unified addressing: copies, sets and frees
 * go to the device that holds the pointer, whichever is current). A pointer inside
 * [its device's base, base + the larger of the capacity and the highest range handed
 * out) is a device address, unless it lies in a
 * managed block, which is host memory at a device address (managed.c). Each side of a
 * copy is checked against the direction the call names: a host side that is a device
 * address, or a device side that is not one, is cudaErrorInvalidValue (a device address
 * is never dereferenced on the host); managed memory may be either side, and
 * cudaMemcpyDefault takes each side for what it is. The emulator checks every device
 * range against live allocations and the runtime every managed range against its
 * block; other host memory is trusted, as with CUDA. Async variants run synchronously
 * (every stream executes in issue order) after checking the stream handle. Blocking
 * copies are CUDA printf flush points: they write what kernels printed so far to stdout
 * first, also when the device has faulted.
 */
#include <stdlib.h>
#include <string.h>

#include "rt.h"

/* In the used part of a device's range (managed blocks included). */
int rt_is_device_ptr(RtContext *c, const void *p)
{
    RtDev *d = rt_dev_of(c, p);
    if (!d)
        return 0;
    uint64_t used = 0, total = 0;
    if (d->emu)
        emu_mem_info(d->emu, &used, &total);
    if (total < XGPU_WINDOW_SIZE)
        total = XGPU_WINDOW_SIZE;
    if (d->hi > d->base && d->hi - d->base > total)
        total = d->hi - d->base;
    return rt_addr(p) - d->base < total;
}

/* The created device holding device address p (rt_is_device_ptr), or NULL. */
static EmuDevice *rt_emu_of(RtContext *c, const void *p)
{
    RtDev *d = rt_dev_of(c, p);
    return d ? d->emu : NULL;
}

RtPtrKind rt_ptr_kind(RtContext *c, const void *p)
{
    if (!rt_is_device_ptr(c, p))
        return RT_PTR_HOST;
    return rt_managed_of(c, p) ? RT_PTR_MANAGED : RT_PTR_DEVICE;
}

cudaError_t cudaMalloc(void **devPtr, size_t size)
{
    RT_ENTER(c);
    EmuDevice *dev;
    if (!devPtr)
        return rt_error(c, cudaErrorInvalidValue);
    cudaError_t e = rt_device(c, &dev);
    if (e != cudaSuccess)
        return rt_error(c, e);
    *devPtr = NULL;
    if (size == 0)
        return cudaSuccess;
    uint64_t addr;
    EmuStatus s = emu_malloc(dev, size, &addr);
    if (s != EMU_OK)
        return rt_error(c, s == EMU_ERR_INVALID_VALUE ? cudaErrorInvalidValue
                                                      : cudaErrorMemoryAllocation);
    rt_note_device_range(c, addr, size);
    *devPtr = rt_ptr(addr);
    return cudaSuccess;
}

cudaError_t cudaFree(void *devPtr)
{
    RT_ENTER(c);
    EmuDevice *dev;
    cudaError_t e = rt_device(c, &dev);
    if (e != cudaSuccess || !devPtr)
        return rt_error(c, e);
    if (rt_managed_of(c, devPtr))
        return rt_error(c, rt_managed_free(c, devPtr));
    EmuDevice *owner = rt_emu_of(c, devPtr); /* any device's pointer, as with CUDA's UVA */
    return rt_error(c, rt_from_emu(emu_free(owner ? owner : dev, rt_addr(devPtr))));
}

cudaError_t cudaMemGetInfo(size_t *free_bytes, size_t *total)
{
    RT_ENTER(c);
    EmuDevice *dev;
    if (!free_bytes || !total)
        return rt_error(c, cudaErrorInvalidValue);
    cudaError_t e = rt_device(c, &dev);
    if (e != cudaSuccess)
        return rt_error(c, e);
    uint64_t used, cap;
    emu_mem_info(dev, &used, &cap);
    *free_bytes = (size_t)(cap > used ? cap - used : 0);
    *total = (size_t)cap;
    return cudaSuccess;
}

/* Whether a side of n bytes at p may be what the copy's direction says (device or
 * host); a managed side must stay inside its block. */
static int rt_side_ok(RtContext *c, RtPtrKind k, int device, const void *p, size_t n)
{
    if (k == RT_PTR_MANAGED)
        return rt_managed_range(c, p, n);
    return device ? k == RT_PTR_DEVICE : k == RT_PTR_HOST;
}

/* n bytes from device sd to device dd, through the host in pieces (the devices'
 * memories are separate, docs/multi-device.md). */
static cudaError_t rt_copy_peer(EmuDevice *dd, uint64_t dst, EmuDevice *sd, uint64_t src,
                                size_t n)
{
    enum { PIECE = 1 << 20 };
    uint8_t *buf = malloc(n < PIECE ? n : PIECE);
    if (!buf)
        return cudaErrorMemoryAllocation;
    EmuStatus s = EMU_OK;
    for (size_t off = 0; off < n && s == EMU_OK; off += PIECE) {
        size_t k = n - off < PIECE ? n - off : PIECE;
        s = emu_copy_from_device(sd, buf, src + off, k);
        if (s == EMU_OK)
            s = emu_copy_to_device(dd, dst + off, buf, k);
    }
    free(buf);
    return rt_from_emu(s);
}

/* A copy of n bytes, each device side on the device whose range holds it; the current
 * device must exist. Returns the error without recording it. */
cudaError_t rt_copy(RtContext *c, void *dst, const void *src, size_t n, enum cudaMemcpyKind kind)
{
    if (kind < cudaMemcpyHostToHost || kind > cudaMemcpyDefault)
        return cudaErrorInvalidMemcpyDirection;
    if (n == 0)
        return cudaSuccess;
    if (!dst || !src)
        return cudaErrorInvalidValue;
    RtPtrKind dk = rt_ptr_kind(c, dst), sk = rt_ptr_kind(c, src);
    int ddev = kind == cudaMemcpyDefault ? dk == RT_PTR_DEVICE : (kind & 1) != 0;
    int sdev = kind == cudaMemcpyDefault ? sk == RT_PTR_DEVICE : (kind & 2) != 0;
    if (!rt_side_ok(c, dk, ddev, dst, n) || !rt_side_ok(c, sk, sdev, src, n))
        return cudaErrorInvalidValue;
    /* managed memory is host memory here: its host copy is the current one */
    EmuDevice *dd = dk == RT_PTR_DEVICE ? rt_emu_of(c, dst) : NULL;
    EmuDevice *sd = sk == RT_PTR_DEVICE ? rt_emu_of(c, src) : NULL;
    if ((dk == RT_PTR_DEVICE && !dd) || (sk == RT_PTR_DEVICE && !sd))
        return cudaErrorInvalidValue; /* a device never created holds nothing */
    if (dd && sd && dd != sd)
        return rt_copy_peer(dd, rt_addr(dst), sd, rt_addr(src), n);
    if (dd && sd)
        return rt_from_emu(emu_copy_device(dd, rt_addr(dst), rt_addr(src), n));
    if (dd)
        return rt_from_emu(emu_copy_to_device(dd, rt_addr(dst), src, n));
    if (sd)
        return rt_from_emu(emu_copy_from_device(sd, dst, rt_addr(src), n));
    memmove(dst, src, n);
    return cudaSuccess;
}

cudaError_t cudaMemcpy(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind)
{
    RT_ENTER(c);
    rt_sync(c);
    cudaError_t e = rt_device(c, NULL);
    if (e == cudaSuccess)
        e = rt_copy(c, dst, src, count, kind);
    return rt_error(c, e);
}

cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind,
                            cudaStream_t stream)
{
    RT_ENTER(c);
    cudaError_t e = rt_device(c, NULL);
    if (e == cudaSuccess && !rt_stream_ok(c, stream))
        e = cudaErrorInvalidResourceHandle;
    if (e == cudaSuccess)
        e = rt_copy(c, dst, src, count, kind);
    return rt_error(c, e);
}

/* Whether the device side p of n bytes lies on device i of the system. */
static cudaError_t rt_peer_side(RtContext *c, int i, const void *p, size_t n)
{
    if (i < 0 || i >= c->ndevs)
        return cudaErrorInvalidDevice;
    if (n && (!p || rt_dev_of(c, p) != &c->devs[i]))
        return cudaErrorInvalidValue;
    return cudaSuccess;
}

/* A peer copy's check: both devices exist and each side lies on the device it names. */
static cudaError_t rt_peer_check(RtContext *c, const void *dst, int dstDevice,
                                 const void *src, int srcDevice, size_t count)
{
    cudaError_t e = rt_device(c, NULL);
    if (e == cudaSuccess)
        e = rt_peer_side(c, dstDevice, dst, count);
    if (e == cudaSuccess)
        e = rt_peer_side(c, srcDevice, src, count);
    return e;
}

/* A device-to-device copy whose sides name their devices (the addresses must be on
 * them). */
cudaError_t cudaMemcpyPeer(void *dst, int dstDevice, const void *src, int srcDevice,
                           size_t count)
{
    RT_ENTER(c);
    cudaError_t e = rt_peer_check(c, dst, dstDevice, src, srcDevice, count);
    if (e != cudaSuccess)
        return rt_error(c, e);
    return cudaMemcpy(dst, src, count, cudaMemcpyDeviceToDevice);
}

cudaError_t cudaMemcpyPeerAsync(void *dst, int dstDevice, const void *src, int srcDevice,
                                size_t count, cudaStream_t stream)
{
    RT_ENTER(c);
    cudaError_t e = rt_peer_check(c, dst, dstDevice, src, srcDevice, count);
    if (e != cudaSuccess)
        return rt_error(c, e);
    return cudaMemcpyAsync(dst, src, count, cudaMemcpyDeviceToDevice, stream);
}

/* Sets n bytes of device (or managed) memory; the device must exist. Returns the error
 * unrecorded. */
cudaError_t rt_memset(RtContext *c, void *dst, int value, size_t n)
{
    if (!n)
        return cudaSuccess;
    if (rt_managed_of(c, dst)) {
        if (!rt_managed_range(c, dst, n))
            return cudaErrorInvalidValue;
        memset(dst, value, n);
        return cudaSuccess;
    }
    EmuDevice *dd = rt_emu_of(c, dst);
    return rt_from_emu(emu_memset(dd ? dd : c->d->emu, rt_addr(dst), value, n));
}

cudaError_t cudaMemset(void *devPtr, int value, size_t count)
{
    RT_ENTER(c);
    cudaError_t e = rt_device(c, NULL);
    if (e == cudaSuccess)
        e = rt_memset(c, devPtr, value, count);
    return rt_error(c, e);
}

cudaError_t cudaMemsetAsync(void *devPtr, int value, size_t count, cudaStream_t stream)
{
    RT_ENTER(c);
    cudaError_t e = rt_device(c, NULL);
    if (e == cudaSuccess && !rt_stream_ok(c, stream))
        e = cudaErrorInvalidResourceHandle;
    if (e == cudaSuccess)
        e = rt_memset(c, devPtr, value, count);
    return rt_error(c, e);
}

/* The device address of the variable whose host shadow is `symbol`. */
static cudaError_t rt_symbol(RtContext *c, const void *symbol, uint64_t *addr, uint64_t *size)
{
    RtFatbin *fb;
    RtVar *v;
    if (!symbol || !rt_find_var(c, symbol, &fb, &v))
        return cudaErrorInvalidSymbol;
    cudaError_t e = rt_fatbin_load(c, fb);
    if (e != cudaSuccess)
        return e;
    if (emu_symbol(rt_mod(c, fb), v->name, addr, size) != EMU_OK)
        return cudaErrorInvalidSymbol;
    rt_note_device_range(c, *addr, *size);
    return cudaSuccess;
}

/* Device range [addr+offset, +count) of a symbol, checked against its size. */
static cudaError_t rt_symbol_range(RtContext *c, const void *symbol, size_t count, size_t offset,
                                   uint64_t *at)
{
    uint64_t addr = 0, size = 0;
    cudaError_t e = rt_device(c, NULL);
    if (e == cudaSuccess)
        e = rt_symbol(c, symbol, &addr, &size);
    if (e == cudaSuccess && (offset > size || count > size - offset))
        e = cudaErrorInvalidValue;
    *at = addr + offset;
    return e;
}

static cudaError_t rt_to_symbol(RtContext *c, const void *symbol, const void *src, size_t count,
                                size_t offset, enum cudaMemcpyKind kind)
{
    uint64_t at = 0;
    cudaError_t e = rt_symbol_range(c, symbol, count, offset, &at);
    int managed = e == cudaSuccess && rt_managed_var(c, symbol);
    if (managed) /* the host copy is current: bring the device's up to it first */
        e = rt_managed_vars_to_device(c);
    if (e == cudaSuccess && kind == cudaMemcpyDefault)
        kind = rt_is_device_ptr(c, src) ? cudaMemcpyDeviceToDevice : cudaMemcpyHostToDevice;
    if (e == cudaSuccess && kind != cudaMemcpyHostToDevice && kind != cudaMemcpyDeviceToDevice)
        e = cudaErrorInvalidMemcpyDirection;
    if (e == cudaSuccess)
        e = rt_copy(c, rt_ptr(at), src, count, kind);
    if (managed)
        rt_managed_vars_to_host(c);
    return e;
}

static cudaError_t rt_from_symbol(RtContext *c, void *dst, const void *symbol, size_t count,
                                  size_t offset, enum cudaMemcpyKind kind)
{
    uint64_t at = 0;
    cudaError_t e = rt_symbol_range(c, symbol, count, offset, &at);
    if (e == cudaSuccess && rt_managed_var(c, symbol))
        e = rt_managed_vars_to_device(c);
    if (e == cudaSuccess && kind == cudaMemcpyDefault)
        kind = rt_is_device_ptr(c, dst) ? cudaMemcpyDeviceToDevice : cudaMemcpyDeviceToHost;
    if (e == cudaSuccess && kind != cudaMemcpyDeviceToHost && kind != cudaMemcpyDeviceToDevice)
        e = cudaErrorInvalidMemcpyDirection;
    if (e == cudaSuccess)
        e = rt_copy(c, dst, rt_ptr(at), count, kind);
    return e;
}

cudaError_t cudaMemcpyToSymbol(const void *symbol, const void *src, size_t count, size_t offset,
                               enum cudaMemcpyKind kind)
{
    RT_ENTER(c);
    rt_sync(c);
    return rt_error(c, rt_to_symbol(c, symbol, src, count, offset, kind));
}

cudaError_t cudaMemcpyFromSymbol(void *dst, const void *symbol, size_t count, size_t offset,
                                 enum cudaMemcpyKind kind)
{
    RT_ENTER(c);
    rt_sync(c);
    return rt_error(c, rt_from_symbol(c, dst, symbol, count, offset, kind));
}

cudaError_t cudaMemcpyToSymbolAsync(const void *symbol, const void *src, size_t count,
                                    size_t offset, enum cudaMemcpyKind kind, cudaStream_t stream)
{
    RT_ENTER(c);
    if (!rt_stream_ok(c, stream))
        return rt_error(c, cudaErrorInvalidResourceHandle);
    return rt_error(c, rt_to_symbol(c, symbol, src, count, offset, kind));
}

cudaError_t cudaMemcpyFromSymbolAsync(void *dst, const void *symbol, size_t count, size_t offset,
                                      enum cudaMemcpyKind kind, cudaStream_t stream)
{
    RT_ENTER(c);
    if (!rt_stream_ok(c, stream))
        return rt_error(c, cudaErrorInvalidResourceHandle);
    return rt_error(c, rt_from_symbol(c, dst, symbol, count, offset, kind));
}

cudaError_t cudaGetSymbolAddress(void **devPtr, const void *symbol)
{
    RT_ENTER(c);
    uint64_t addr = 0, size;
    if (!devPtr)
        return rt_error(c, cudaErrorInvalidValue);
    cudaError_t e = rt_device(c, NULL);
    if (e == cudaSuccess)
        e = rt_symbol(c, symbol, &addr, &size);
    if (e == cudaSuccess)
        *devPtr = rt_ptr(addr);
    return rt_error(c, e);
}

cudaError_t cudaGetSymbolSize(size_t *size, const void *symbol)
{
    RT_ENTER(c);
    uint64_t addr, sz = 0;
    if (!size)
        return rt_error(c, cudaErrorInvalidValue);
    cudaError_t e = rt_device(c, NULL);
    if (e == cudaSuccess)
        e = rt_symbol(c, symbol, &addr, &sz);
    if (e == cudaSuccess)
        *size = (size_t)sz;
    return rt_error(c, e);
}
