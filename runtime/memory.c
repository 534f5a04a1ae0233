/*
 * memory.c - device memory: allocation, copies in every direction, memset, symbols,
 * peer copies (one device: only device 0 to device 0).
 *
 * Device pointers are emulator addresses in the global window (isa.h), handed to the
 * program as void *. A pointer inside [XGPU_GLOBAL_BASE, base + the larger of the
 * capacity and the highest range handed out) is a device address, unless it lies in a
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

/* In the device window (managed blocks included). */
int rt_is_device_ptr(RtContext *c, const void *p)
{
    uint64_t used = 0, total = 0;
    if (c->dev)
        emu_mem_info(c->dev, &used, &total);
    if (total < XGPU_WINDOW_SIZE)
        total = XGPU_WINDOW_SIZE;
    if (c->dev_hi > XGPU_GLOBAL_BASE && c->dev_hi - XGPU_GLOBAL_BASE > total)
        total = c->dev_hi - XGPU_GLOBAL_BASE;
    uint64_t a = rt_addr(p);
    return a >= XGPU_GLOBAL_BASE && a - XGPU_GLOBAL_BASE < total;
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
    return rt_error(c, rt_from_emu(emu_free(dev, rt_addr(devPtr))));
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

/* A copy of n bytes; the device must exist. Returns the error without recording it. */
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
    ddev = dk == RT_PTR_DEVICE;
    sdev = sk == RT_PTR_DEVICE;
    if (ddev && sdev)
        return rt_from_emu(emu_copy_device(c->dev, rt_addr(dst), rt_addr(src), n));
    if (ddev)
        return rt_from_emu(emu_copy_to_device(c->dev, rt_addr(dst), src, n));
    if (sdev)
        return rt_from_emu(emu_copy_from_device(c->dev, dst, rt_addr(src), n));
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

/* One device: a peer copy is a device-to-device copy on device 0. */
cudaError_t cudaMemcpyPeer(void *dst, int dstDevice, const void *src, int srcDevice,
                           size_t count)
{
    if (dstDevice != 0 || srcDevice != 0)
        return rt_error(rt_ctx(), cudaErrorInvalidDevice);
    return cudaMemcpy(dst, src, count, cudaMemcpyDeviceToDevice);
}

cudaError_t cudaMemcpyPeerAsync(void *dst, int dstDevice, const void *src, int srcDevice,
                                size_t count, cudaStream_t stream)
{
    if (dstDevice != 0 || srcDevice != 0)
        return rt_error(rt_ctx(), cudaErrorInvalidDevice);
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
    return rt_from_emu(emu_memset(c->dev, rt_addr(dst), value, n));
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
    if (emu_symbol(fb->mod, v->name, addr, size) != EMU_OK)
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
        e = rt_managed_to_device(c);
    if (e == cudaSuccess && kind == cudaMemcpyDefault)
        kind = rt_is_device_ptr(c, src) ? cudaMemcpyDeviceToDevice : cudaMemcpyHostToDevice;
    if (e == cudaSuccess && kind != cudaMemcpyHostToDevice && kind != cudaMemcpyDeviceToDevice)
        e = cudaErrorInvalidMemcpyDirection;
    if (e == cudaSuccess)
        e = rt_copy(c, rt_ptr(at), src, count, kind);
    if (managed)
        rt_managed_to_host(c);
    return e;
}

static cudaError_t rt_from_symbol(RtContext *c, void *dst, const void *symbol, size_t count,
                                  size_t offset, enum cudaMemcpyKind kind)
{
    uint64_t at = 0;
    cudaError_t e = rt_symbol_range(c, symbol, count, offset, &at);
    if (e == cudaSuccess && rt_managed_var(c, symbol))
        e = rt_managed_to_device(c);
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
