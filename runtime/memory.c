/*
 * memory.c - device memory: allocation, copies in every direction, memset, symbols,
 * peer copies (one device: only device 0 to device 0).
 *
 * Device pointers are emulator addresses in the global window (isa.h), handed to the
 * program as void *. cudaMemcpyDefault tells the directions apart by that window: a
 * pointer inside [XGPU_GLOBAL_BASE, base + capacity) is a device address. The emulator
 * checks every device range against live allocations; the host side is trusted, as with
 * CUDA. Async variants run synchronously (every stream executes in issue order) after
 * checking the stream handle. Blocking copies are CUDA printf flush points: they write
 * what kernels printed so far to stdout first.
 */
#include <stdlib.h>
#include <string.h>

#include "rt.h"

int rt_is_device_ptr(RtContext *c, const void *p)
{
    uint64_t used = 0, total = 0;
    if (c->dev)
        emu_mem_info(c->dev, &used, &total);
    if (total < XGPU_WINDOW_SIZE)
        total = XGPU_WINDOW_SIZE;
    uint64_t a = rt_addr(p);
    return a >= XGPU_GLOBAL_BASE && a - XGPU_GLOBAL_BASE < total;
}

cudaError_t cudaMalloc(void **devPtr, size_t size)
{
    RtContext *c = rt_ctx();
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
    *devPtr = rt_ptr(addr);
    return cudaSuccess;
}

cudaError_t cudaFree(void *devPtr)
{
    RtContext *c = rt_ctx();
    EmuDevice *dev;
    cudaError_t e = rt_device(c, &dev);
    if (e != cudaSuccess || !devPtr)
        return rt_error(c, e);
    return rt_error(c, rt_from_emu(emu_free(dev, rt_addr(devPtr))));
}

cudaError_t cudaMallocManaged(void **devPtr, size_t size, unsigned int flags)
{
    return rt_unsupported("cudaMallocManaged");
}

cudaError_t cudaMemGetInfo(size_t *free_bytes, size_t *total)
{
    RtContext *c = rt_ctx();
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

/* Resolves cudaMemcpyDefault from the pointers. */
static enum cudaMemcpyKind rt_infer_kind(RtContext *c, void *dst, const void *src)
{
    int d = rt_is_device_ptr(c, dst), s = rt_is_device_ptr(c, src);
    return d ? (s ? cudaMemcpyDeviceToDevice : cudaMemcpyHostToDevice)
             : (s ? cudaMemcpyDeviceToHost : cudaMemcpyHostToHost);
}

/* A copy of n bytes; the device must exist. Returns the error without recording it. */
cudaError_t rt_copy(RtContext *c, void *dst, const void *src, size_t n, enum cudaMemcpyKind kind)
{
    if (kind == cudaMemcpyDefault)
        kind = rt_infer_kind(c, dst, src);
    if (kind < cudaMemcpyHostToHost || kind > cudaMemcpyDeviceToDevice)
        return cudaErrorInvalidMemcpyDirection;
    if (n == 0)
        return cudaSuccess;
    if (!dst || !src)
        return cudaErrorInvalidValue;
    switch (kind) {
    case cudaMemcpyHostToHost: memmove(dst, src, n); return cudaSuccess;
    case cudaMemcpyHostToDevice:
        return rt_from_emu(emu_copy_to_device(c->dev, rt_addr(dst), src, n));
    case cudaMemcpyDeviceToHost:
        return rt_from_emu(emu_copy_from_device(c->dev, dst, rt_addr(src), n));
    default: return rt_from_emu(emu_copy_device(c->dev, rt_addr(dst), rt_addr(src), n));
    }
}

cudaError_t cudaMemcpy(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind)
{
    RtContext *c = rt_ctx();
    cudaError_t e = rt_device(c, NULL);
    if (e == cudaSuccess) {
        rt_sync(c);
        e = rt_copy(c, dst, src, count, kind);
    }
    return rt_error(c, e);
}

cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind,
                            cudaStream_t stream)
{
    RtContext *c = rt_ctx();
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

/* Sets n bytes of device memory; the device must exist. Returns the error unrecorded. */
cudaError_t rt_memset(RtContext *c, void *dst, int value, size_t n)
{
    return n ? rt_from_emu(emu_memset(c->dev, rt_addr(dst), value, n)) : cudaSuccess;
}

cudaError_t cudaMemset(void *devPtr, int value, size_t count)
{
    RtContext *c = rt_ctx();
    cudaError_t e = rt_device(c, NULL);
    if (e == cudaSuccess)
        e = rt_memset(c, devPtr, value, count);
    return rt_error(c, e);
}

cudaError_t cudaMemsetAsync(void *devPtr, int value, size_t count, cudaStream_t stream)
{
    RtContext *c = rt_ctx();
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
    return emu_symbol(fb->mod, v->name, addr, size) == EMU_OK ? cudaSuccess
                                                              : cudaErrorInvalidSymbol;
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
    if (e == cudaSuccess && kind == cudaMemcpyDefault)
        kind = rt_is_device_ptr(c, src) ? cudaMemcpyDeviceToDevice : cudaMemcpyHostToDevice;
    if (e == cudaSuccess && kind != cudaMemcpyHostToDevice && kind != cudaMemcpyDeviceToDevice)
        e = cudaErrorInvalidMemcpyDirection;
    if (e == cudaSuccess)
        e = rt_copy(c, rt_ptr(at), src, count, kind);
    return e;
}

static cudaError_t rt_from_symbol(RtContext *c, void *dst, const void *symbol, size_t count,
                                  size_t offset, enum cudaMemcpyKind kind)
{
    uint64_t at = 0;
    cudaError_t e = rt_symbol_range(c, symbol, count, offset, &at);
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
    RtContext *c = rt_ctx();
    rt_sync(c);
    return rt_error(c, rt_to_symbol(c, symbol, src, count, offset, kind));
}

cudaError_t cudaMemcpyFromSymbol(void *dst, const void *symbol, size_t count, size_t offset,
                                 enum cudaMemcpyKind kind)
{
    RtContext *c = rt_ctx();
    rt_sync(c);
    return rt_error(c, rt_from_symbol(c, dst, symbol, count, offset, kind));
}

cudaError_t cudaMemcpyToSymbolAsync(const void *symbol, const void *src, size_t count,
                                    size_t offset, enum cudaMemcpyKind kind, cudaStream_t stream)
{
    RtContext *c = rt_ctx();
    if (!rt_stream_ok(c, stream))
        return rt_error(c, cudaErrorInvalidResourceHandle);
    return rt_error(c, rt_to_symbol(c, symbol, src, count, offset, kind));
}

cudaError_t cudaMemcpyFromSymbolAsync(void *dst, const void *symbol, size_t count, size_t offset,
                                      enum cudaMemcpyKind kind, cudaStream_t stream)
{
    RtContext *c = rt_ctx();
    if (!rt_stream_ok(c, stream))
        return rt_error(c, cudaErrorInvalidResourceHandle);
    return rt_error(c, rt_from_symbol(c, dst, symbol, count, offset, kind));
}

cudaError_t cudaGetSymbolAddress(void **devPtr, const void *symbol)
{
    RtContext *c = rt_ctx();
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
    RtContext *c = rt_ctx();
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
