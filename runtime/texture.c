/*
 * texture.c - CUDA arrays, texture and surface references and objects.
 *
 * Everything here sits on the public memory API (cudaMalloc, cudaMemcpy*, the symbol
 * copies), so it inherits its checks and its locking. A texture or surface is an
 * XgpuTexDesc in device memory (texture_types.h):
 *   - an object's handle is the device address of its descriptor, which is followed by a
 *     trailer holding the resource and texture descriptions the program gave (for the
 *     cudaGet*Desc calls) and a magic word that tells a handle from any other address;
 *   - a reference is an 8-byte device variable registered like a __device__ one
 *     (__cudaRegisterTexture / __cudaRegisterSurface); binding writes a descriptor and
 *     stores its address there. A reference that already holds a descriptor reuses it,
 *     so rebinding allocates nothing; unbinding stores 0. The reference's attributes
 *     (normalized, filterMode, addressMode) are read when it is bound; its read mode is
 *     a template argument that the device code applies.
 * A CUDA array is a host struct around device memory holding its elements row by row,
 * without padding: pitch = width x element size, slice = pitch x height. Offsets of the
 * array copies are in bytes along x and in rows along y, as CUDA's are.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt.h"
#include "xgpu/cuda/texture_types.h"

#define RT_ARRAY_MAGIC 0x59415252u /* "RRAY" */
#define RT_TEXOBJ_MAGIC 0x4a424f54u /* "TOBJ" */

struct cudaArray {
    uint32_t magic;
    struct cudaChannelFormatDesc desc;
    size_t width, height, depth; /* elements; height and depth at least 1 */
    unsigned dims;               /* 1, 2 or 3 */
    unsigned flags;
    size_t elem;                 /* bytes per element */
    char *dev;                   /* device memory */
};

/* What follows an object's descriptor in device memory. */
typedef struct RtTexTrailer {
    struct cudaResourceDesc res;
    struct cudaTextureDesc tex;
    uint32_t magic;
    uint32_t surface;
} RtTexTrailer;

typedef struct RtTexObject {
    XgpuTexDesc d;
    RtTexTrailer t;
} RtTexObject;

struct cudaChannelFormatDesc cudaCreateChannelDesc(int x, int y, int z, int w,
                                                   enum cudaChannelFormatKind f)
{
    struct cudaChannelFormatDesc d = {x, y, z, w, f};
    return d;
}

/* Channels and bytes per channel of a format: 1..4 channels of equal width, packed from
 * x on, 8, 16 or 32 bits (16 or 32 for float). */
static cudaError_t rt_format(const struct cudaChannelFormatDesc *f, unsigned *nchan,
                             unsigned *bytes)
{
    if (!f)
        return cudaErrorInvalidValue;
    int bits[4] = {f->x, f->y, f->z, f->w}, n = 0;
    while (n < 4 && bits[n])
        n++;
    for (int i = n; i < 4; i++)
        if (bits[i])
            return cudaErrorInvalidChannelDescriptor;
    for (int i = 1; i < n; i++)
        if (bits[i] != bits[0])
            return cudaErrorInvalidChannelDescriptor;
    int ok_bits = bits[0] == 8 || bits[0] == 16 || bits[0] == 32;
    int ok_kind = f->f == cudaChannelFormatKindSigned || f->f == cudaChannelFormatKindUnsigned ||
                  (f->f == cudaChannelFormatKindFloat && bits[0] >= 16);
    if (n == 0 || n == 3 || !ok_bits || !ok_kind)
        return cudaErrorInvalidChannelDescriptor;
    *nchan = (unsigned)n;
    *bytes = (unsigned)bits[0] / 8;
    return cudaSuccess;
}

static int rt_array_ok(const struct cudaArray *a)
{
    return a && a->magic == RT_ARRAY_MAGIC;
}

/* ---- arrays ---------------------------------------------------------------------------- */

static cudaError_t rt_array_new(cudaArray_t *out, const struct cudaChannelFormatDesc *desc,
                                size_t w, size_t h, size_t d, unsigned dims, unsigned flags)
{
    unsigned nchan, bytes;
    if (!out || !w)
        return cudaErrorInvalidValue;
    cudaError_t e = rt_format(desc, &nchan, &bytes);
    if (e != cudaSuccess)
        return e;
    struct cudaArray *a = calloc(1, sizeof *a);
    if (!a)
        return cudaErrorMemoryAllocation;
    *a = (struct cudaArray){RT_ARRAY_MAGIC, *desc, w, h ? h : 1, d ? d : 1, dims, flags,
                            (size_t)nchan * bytes, NULL};
    size_t total = a->elem * a->width;
    if (total / a->elem != a->width || total * a->height / a->height != total ||
        total * a->height * a->depth / a->depth != total * a->height) {
        free(a);
        return cudaErrorMemoryAllocation;
    }
    e = cudaMalloc((void **)&a->dev, total * a->height * a->depth);
    if (e == cudaSuccess)
        e = cudaMemset(a->dev, 0, total * a->height * a->depth);
    if (e != cudaSuccess) {
        free(a);
        return e;
    }
    *out = a;
    return cudaSuccess;
}

static cudaError_t tx_MallocArray(cudaArray_t *array, const struct cudaChannelFormatDesc *desc,
                            size_t width, size_t height, unsigned int flags)
{
    return rt_array_new(array, desc, width, height, 1, height ? 2 : 1, flags);
}

static cudaError_t tx_Malloc3DArray(cudaArray_t *array, const struct cudaChannelFormatDesc *desc,
                              struct cudaExtent extent, unsigned int flags)
{
    if (flags & cudaArrayLayered) {
        return rt_unsupported("cudaMalloc3DArray with cudaArrayLayered");
    }
    unsigned dims = extent.depth ? 3 : extent.height ? 2 : 1;
    if (extent.depth && !extent.height)
        return cudaErrorInvalidValue;
    return rt_array_new(array, desc, extent.width, extent.height, extent.depth, dims, flags);
}

static cudaError_t tx_FreeArray(cudaArray_t array)
{
    if (!array)
        return cudaSuccess;
    if (!rt_array_ok(array))
        return cudaErrorInvalidResourceHandle;
    cudaError_t e = cudaFree(array->dev);
    array->magic = 0;
    free(array);
    return e;
}

static cudaError_t tx_GetChannelDesc(struct cudaChannelFormatDesc *desc, cudaArray_const_t array)
{
    if (!desc)
        return cudaErrorInvalidValue;
    if (!rt_array_ok(array))
        return cudaErrorInvalidResourceHandle;
    *desc = array->desc;
    return cudaSuccess;
}

static cudaError_t tx_ArrayGetInfo(struct cudaChannelFormatDesc *desc, struct cudaExtent *extent,
                             unsigned int *flags, cudaArray_t array)
{
    if (!rt_array_ok(array))
        return cudaErrorInvalidResourceHandle;
    if (desc)
        *desc = array->desc;
    if (extent)
        *extent = (struct cudaExtent){array->width, array->dims >= 2 ? array->height : 0,
                                      array->dims >= 3 ? array->depth : 0};
    if (flags)
        *flags = array->flags;
    return cudaSuccess;
}

/* The device address of byte x of row y of slice z of a, when [x, x + bytes) fits. */
static cudaError_t rt_array_at(const struct cudaArray *a, size_t x, size_t y, size_t z,
                               size_t bytes, char **at)
{
    size_t row = a->width * a->elem;
    if (!rt_array_ok(a))
        return cudaErrorInvalidResourceHandle;
    if (x > row || bytes > row - x || y >= a->height || z >= a->depth)
        return cudaErrorInvalidValue;
    *at = a->dev + (z * a->height + y) * row + x;
    return cudaSuccess;
}

/* The memory side of an array copy: device for the array, kind's other side for the rest. */
static enum cudaMemcpyKind rt_to_array(enum cudaMemcpyKind kind)
{
    return kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice ||
                   kind == cudaMemcpyDefault ? kind : (enum cudaMemcpyKind)-1;
}

static enum cudaMemcpyKind rt_from_array(enum cudaMemcpyKind kind)
{
    return kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice ||
                   kind == cudaMemcpyDefault ? kind : (enum cudaMemcpyKind)-1;
}

static cudaError_t tx_Memcpy2DToArray(cudaArray_t dst, size_t wOffset, size_t hOffset,
                                const void *src, size_t spitch, size_t width, size_t height,
                                enum cudaMemcpyKind kind)
{
    char *at;
    cudaError_t e = rt_array_at(dst, wOffset, hOffset, 0, width, &at);
    if (e == cudaSuccess && height && hOffset + height > dst->height)
        e = cudaErrorInvalidValue;
    if (e == cudaSuccess && (int)rt_to_array(kind) < 0)
        e = cudaErrorInvalidMemcpyDirection;
    return e != cudaSuccess ? e
                            : cudaMemcpy2D(at, dst->width * dst->elem, src, spitch, width, height,
                                           kind);
}

static cudaError_t tx_Memcpy2DToArrayAsync(cudaArray_t dst, size_t wOffset, size_t hOffset,
                                     const void *src, size_t spitch, size_t width,
                                     size_t height, enum cudaMemcpyKind kind,
                                     cudaStream_t stream)
{
    (void)stream; /* streams run in order, synchronously */
    return tx_Memcpy2DToArray(dst, wOffset, hOffset, src, spitch, width, height, kind);
}

static cudaError_t tx_Memcpy2DFromArray(void *dst, size_t dpitch, cudaArray_const_t src,
                                  size_t wOffset, size_t hOffset, size_t width, size_t height,
                                  enum cudaMemcpyKind kind)
{
    char *at;
    cudaError_t e = rt_array_at(src, wOffset, hOffset, 0, width, &at);
    if (e == cudaSuccess && height && hOffset + height > src->height)
        e = cudaErrorInvalidValue;
    if (e == cudaSuccess && (int)rt_from_array(kind) < 0)
        e = cudaErrorInvalidMemcpyDirection;
    return e != cudaSuccess ? e
                            : cudaMemcpy2D(dst, dpitch, at, src->width * src->elem, width, height,
                                           kind);
}

/* A linear copy from (wOffset, hOffset) on: rows are unpadded, so it is contiguous. */
static cudaError_t rt_array_span(const struct cudaArray *a, size_t wOffset, size_t hOffset,
                                 size_t count, char **at)
{
    if (!rt_array_ok(a))
        return cudaErrorInvalidResourceHandle;
    size_t row = a->width * a->elem, total = row * a->height * a->depth;
    size_t start = hOffset * row + wOffset;
    if (wOffset > row || hOffset >= a->height * a->depth || start > total ||
        count > total - start)
        return cudaErrorInvalidValue;
    *at = a->dev + start;
    return cudaSuccess;
}

static cudaError_t tx_MemcpyToArray(cudaArray_t dst, size_t wOffset, size_t hOffset, const void *src,
                              size_t count, enum cudaMemcpyKind kind)
{
    char *at;
    cudaError_t e = rt_array_span(dst, wOffset, hOffset, count, &at);
    if (e == cudaSuccess && (int)rt_to_array(kind) < 0)
        e = cudaErrorInvalidMemcpyDirection;
    return e != cudaSuccess ? e : cudaMemcpy(at, src, count, kind);
}

static cudaError_t tx_MemcpyFromArray(void *dst, cudaArray_const_t src, size_t wOffset,
                                size_t hOffset, size_t count, enum cudaMemcpyKind kind)
{
    char *at;
    cudaError_t e = rt_array_span(src, wOffset, hOffset, count, &at);
    if (e == cudaSuccess && (int)rt_from_array(kind) < 0)
        e = cudaErrorInvalidMemcpyDirection;
    return e != cudaSuccess ? e : cudaMemcpy(dst, at, count, kind);
}

/* One side of a 3D copy: where (x in bytes, y, z) is, and its pitches. */
typedef struct RtSide {
    char *base;
    size_t pitch, slice, elem;
} RtSide;

static cudaError_t rt_side(cudaArray_t a, struct cudaPos pos, struct cudaPitchedPtr p,
                           RtSide *s)
{
    if (a) {
        if (!rt_array_ok(a))
            return cudaErrorInvalidResourceHandle;
        s->elem = a->elem;
        s->pitch = a->width * a->elem;
        s->slice = s->pitch * a->height;
        s->base = a->dev + pos.z * s->slice + pos.y * s->pitch + pos.x * a->elem;
        return cudaSuccess;
    }
    if (!p.ptr)
        return cudaErrorInvalidValue;
    s->elem = 1;
    s->pitch = p.pitch;
    s->slice = p.pitch * p.ysize;
    s->base = (char *)p.ptr + pos.z * s->slice + pos.y * s->pitch + pos.x;
    return cudaSuccess;
}

static cudaError_t tx_Memcpy3D(const struct cudaMemcpy3DParms *p)
{
    if (!p || (p->srcArray && p->srcPtr.ptr) || (p->dstArray && p->dstPtr.ptr))
        return cudaErrorInvalidValue;
    RtSide src, dst;
    cudaError_t e = rt_side(p->srcArray, p->srcPos, p->srcPtr, &src);
    if (e == cudaSuccess)
        e = rt_side(p->dstArray, p->dstPos, p->dstPtr, &dst);
    if (e != cudaSuccess)
        return e;
    /* extent.width counts elements when an array takes part, bytes otherwise */
    size_t elem = p->srcArray ? src.elem : p->dstArray ? dst.elem : 1;
    size_t width = p->extent.width * elem, h = p->extent.height ? p->extent.height : 1;
    size_t depth = p->extent.depth ? p->extent.depth : 1;
    if (p->srcArray && (src.base - p->srcArray->dev) + (depth - 1) * src.slice +
                               (h - 1) * src.pitch + width >
                           p->srcArray->height * p->srcArray->depth * src.pitch)
        return cudaErrorInvalidValue;
    if (p->dstArray && (dst.base - p->dstArray->dev) + (depth - 1) * dst.slice +
                               (h - 1) * dst.pitch + width >
                           p->dstArray->height * p->dstArray->depth * dst.pitch)
        return cudaErrorInvalidValue;
    for (size_t z = 0; z < depth && e == cudaSuccess; z++)
        e = cudaMemcpy2D(dst.base + z * dst.slice, dst.pitch, src.base + z * src.slice, src.pitch,
                         width, h, p->kind);
    return e;
}

static cudaError_t tx_Memcpy3DAsync(const struct cudaMemcpy3DParms *p, cudaStream_t stream)
{
    (void)stream;
    return tx_Memcpy3D(p);
}

static cudaError_t tx_Malloc3D(struct cudaPitchedPtr *pitchedDevPtr, struct cudaExtent extent)
{
    if (!pitchedDevPtr)
        return cudaErrorInvalidValue;
    size_t pitch = 0, rows = (extent.height ? extent.height : 1) * (extent.depth ? extent.depth : 1);
    void *p = NULL;
    cudaError_t e = cudaMallocPitch(&p, &pitch, extent.width, rows);
    if (e == cudaSuccess)
        *pitchedDevPtr = (struct cudaPitchedPtr){p, pitch, extent.width, extent.height};
    return e;
}

/* ---- descriptors ------------------------------------------------------------------------ */

/* The descriptor of a resource: its memory, layout and format; filtering left at 0. */
static cudaError_t rt_resource(const struct cudaResourceDesc *r, XgpuTexDesc *d)
{
    const struct cudaChannelFormatDesc *f;
    memset(d, 0, sizeof *d);
    switch (r->resType) {
    case cudaResourceTypeArray: {
        const struct cudaArray *a = r->res.array.array;
        if (!rt_array_ok(a))
            return cudaErrorInvalidResourceHandle;
        f = &a->desc;
        d->base = (uintptr_t)a->dev;
        d->width = (unsigned)a->width, d->height = (unsigned)a->height;
        d->depth = (unsigned)a->depth, d->dims = a->dims;
        d->pitch = a->width * a->elem, d->slice = d->pitch * a->height;
        break;
    }
    case cudaResourceTypeLinear:
        f = &r->res.linear.desc;
        d->base = (uintptr_t)r->res.linear.devPtr;
        d->dims = 0;
        d->height = d->depth = 1;
        break;
    case cudaResourceTypePitch2D:
        f = &r->res.pitch2D.desc;
        d->base = (uintptr_t)r->res.pitch2D.devPtr;
        d->width = (unsigned)r->res.pitch2D.width, d->height = (unsigned)r->res.pitch2D.height;
        d->depth = 1, d->dims = 2;
        d->pitch = r->res.pitch2D.pitchInBytes, d->slice = d->pitch * d->height;
        if (d->width == 0 || d->height == 0 || d->pitch < d->width)
            return cudaErrorInvalidValue;
        break;
    case cudaResourceTypeMipmappedArray:
        return rt_unsupported("mipmapped arrays");
    default: /* rt_object_new has refused it */
        return cudaErrorInvalidValue;
    }
    cudaError_t e = rt_format(f, &d->nchan, &d->chan_bytes);
    if (e != cudaSuccess)
        return e;
    d->kind = (unsigned)f->f;
    if (r->resType == cudaResourceTypeLinear) {
        size_t n = r->res.linear.sizeInBytes / (d->nchan * d->chan_bytes);
        d->width = n > UINT32_MAX ? UINT32_MAX : (unsigned)n;
    }
    if (r->resType == cudaResourceTypePitch2D && d->pitch < (uint64_t)d->width * d->nchan * d->chan_bytes)
        return cudaErrorInvalidPitchValue;
    if (!d->base)
        return cudaErrorInvalidValue;
    return cudaSuccess;
}

/* Filtering, addressing and read mode of a texture description. Linear filtering needs
 * a result in floating point (CUDA's rule). */
static cudaError_t rt_sampling(const struct cudaTextureDesc *t, XgpuTexDesc *d)
{
    for (int i = 0; i < 3; i++) {
        if (t->addressMode[i] > cudaAddressModeBorder)
            return cudaErrorInvalidValue;
        d->address[i] = (unsigned)t->addressMode[i];
    }
    if (t->filterMode > cudaFilterModeLinear || t->readMode > cudaReadModeNormalizedFloat)
        return cudaErrorInvalidValue;
    int floating = d->kind == cudaChannelFormatKindFloat ||
                   (t->readMode == cudaReadModeNormalizedFloat && d->chan_bytes < 4);
    if (t->filterMode == cudaFilterModeLinear && !floating)
        return cudaErrorInvalidFilterSetting;
    if (t->readMode == cudaReadModeNormalizedFloat && d->chan_bytes == 4 &&
        d->kind != cudaChannelFormatKindFloat)
        return cudaErrorInvalidNormSetting;
    d->filter = (unsigned)t->filterMode;
    d->read_mode = (unsigned)t->readMode;
    d->normalized = t->normalizedCoords != 0;
    memcpy(d->border, t->borderColor, sizeof d->border);
    return cudaSuccess;
}

static cudaError_t rt_object_new(unsigned long long *out, const struct cudaResourceDesc *res,
                                 const struct cudaTextureDesc *tex, int surface)
{
    RtTexObject o;
    memset(&o, 0, sizeof o);
    if (!out || !res)
        return cudaErrorInvalidValue;
    if ((unsigned)res->resType > cudaResourceTypePitch2D) {
        fprintf(stderr, "xgpu: invalid %s object: resType %d is not a cudaResourceType\n",
                surface ? "surface" : "texture", (int)res->resType);
        return cudaErrorInvalidValue;
    }
    cudaError_t e = rt_resource(res, &o.d);
    if (e == cudaSuccess && tex)
        e = rt_sampling(tex, &o.d);
    if (e == cudaSuccess && surface && res->resType != cudaResourceTypeArray)
        e = cudaErrorInvalidValue; /* surfaces are on arrays */
    if (e != cudaSuccess)
        return e;
    o.t.res = *res;
    if (tex)
        o.t.tex = *tex;
    o.t.magic = RT_TEXOBJ_MAGIC;
    o.t.surface = (uint32_t)surface;
    void *dev = NULL;
    e = cudaMalloc(&dev, sizeof o);
    if (e == cudaSuccess && (e = cudaMemcpy(dev, &o, sizeof o, cudaMemcpyHostToDevice)))
        cudaFree(dev);
    if (e == cudaSuccess)
        *out = (uintptr_t)dev;
    return e;
}

/* Reads back an object, checking that the handle is one (of the right kind). */
static cudaError_t rt_object(unsigned long long h, int surface, RtTexObject *o)
{
    if (!h || cudaMemcpy(o, (const void *)(uintptr_t)h, sizeof *o, cudaMemcpyDeviceToHost) ||
        o->t.magic != RT_TEXOBJ_MAGIC || o->t.surface != (uint32_t)surface) {
        cudaGetLastError(); /* a bad handle is not the copy's error */
        return cudaErrorInvalidResourceHandle;
    }
    return cudaSuccess;
}

static cudaError_t tx_CreateTextureObject(cudaTextureObject_t *tex, const struct cudaResourceDesc *res,
                                    const struct cudaTextureDesc *texDesc,
                                    const struct cudaResourceViewDesc *view)
{
    if (view) {
        return rt_unsupported("cudaCreateTextureObject with a resource view");
    }
    return texDesc ? rt_object_new(tex, res, texDesc, 0) : cudaErrorInvalidValue;
}

static cudaError_t tx_DestroyTextureObject(cudaTextureObject_t tex)
{
    RtTexObject o;
    cudaError_t e = rt_object(tex, 0, &o);
    return e != cudaSuccess ? e : cudaFree((void *)(uintptr_t)tex);
}

static cudaError_t tx_GetTextureObjectResourceDesc(struct cudaResourceDesc *res, cudaTextureObject_t tex)
{
    RtTexObject o;
    cudaError_t e = res ? rt_object(tex, 0, &o) : cudaErrorInvalidValue;
    if (e == cudaSuccess)
        *res = o.t.res;
    return e;
}

static cudaError_t tx_GetTextureObjectTextureDesc(struct cudaTextureDesc *desc, cudaTextureObject_t tex)
{
    RtTexObject o;
    cudaError_t e = desc ? rt_object(tex, 0, &o) : cudaErrorInvalidValue;
    if (e == cudaSuccess)
        *desc = o.t.tex;
    return e;
}

static cudaError_t tx_CreateSurfaceObject(cudaSurfaceObject_t *surf, const struct cudaResourceDesc *res)
{
    return rt_object_new(surf, res, NULL, 1);
}

static cudaError_t tx_DestroySurfaceObject(cudaSurfaceObject_t surf)
{
    RtTexObject o;
    cudaError_t e = rt_object(surf, 1, &o);
    return e != cudaSuccess ? e : cudaFree((void *)(uintptr_t)surf);
}

/* ---- references -------------------------------------------------------------------------- */

void __cudaRegisterTexture(void **fatCubinHandle, const void *hostVar, const void *deviceAddress,
                           const char *deviceName, int dim, int norm, int ext)
{
    (void)dim, (void)norm;
    __cudaRegisterVar(fatCubinHandle, (char *)hostVar, (char *)deviceAddress, deviceName, ext,
                      sizeof(unsigned long long), 0, 0);
}

void __cudaRegisterSurface(void **fatCubinHandle, const void *hostVar, const void *deviceAddress,
                           const char *deviceName, int dim, int ext)
{
    (void)dim;
    __cudaRegisterVar(fatCubinHandle, (char *)hostVar, (char *)deviceAddress, deviceName, ext,
                      sizeof(unsigned long long), 0, 0);
}

/* Stores descriptor d in the reference whose host variable is ref. */
static cudaError_t rt_bind(const void *ref, const XgpuTexDesc *d)
{
    unsigned long long h = 0;
    cudaError_t e = cudaMemcpyFromSymbol(&h, ref, sizeof h, 0, cudaMemcpyDeviceToHost);
    if (e == cudaErrorInvalidSymbol)
        return cudaErrorInvalidTexture; /* not a registered texture or surface reference */
    if (e != cudaSuccess)
        return e;
    if (!h) {
        void *dev = NULL;
        if ((e = cudaMalloc(&dev, sizeof *d)) != cudaSuccess)
            return e;
        h = (uintptr_t)dev;
    }
    e = cudaMemcpy((void *)(uintptr_t)h, d, sizeof *d, cudaMemcpyHostToDevice);
    return e != cudaSuccess ? e : cudaMemcpyToSymbol(ref, &h, sizeof h, 0, cudaMemcpyHostToDevice);
}

/* A reference's attributes as a texture description (the read mode is applied by the
 * device code; here it only decides whether linear filtering is allowed). */
static struct cudaTextureDesc rt_ref_sampling(const struct textureReference *t)
{
    struct cudaTextureDesc s;
    memset(&s, 0, sizeof s);
    for (int i = 0; i < 3; i++)
        s.addressMode[i] = t->addressMode[i];
    s.filterMode = t->filterMode;
    s.readMode = t->filterMode == cudaFilterModeLinear ? cudaReadModeNormalizedFloat
                                                       : cudaReadModeElementType;
    s.normalizedCoords = t->normalized;
    return s;
}

static cudaError_t rt_bind_resource(const struct textureReference *texref,
                                    const struct cudaResourceDesc *r)
{
    if (!texref)
        return cudaErrorInvalidValue;
    XgpuTexDesc d;
    struct cudaTextureDesc s = rt_ref_sampling(texref);
    cudaError_t e = rt_resource(r, &d);
    if (e == cudaSuccess)
        e = rt_sampling(&s, &d);
    return e != cudaSuccess ? e : rt_bind(texref, &d);
}

static cudaError_t tx_BindTexture(size_t *offset, const struct textureReference *texref,
                            const void *devPtr, const struct cudaChannelFormatDesc *desc,
                            size_t size)
{
    if (offset)
        *offset = 0; /* no alignment is required, so the whole range is addressable */
    struct cudaResourceDesc r;
    memset(&r, 0, sizeof r);
    r.resType = cudaResourceTypeLinear;
    r.res.linear.devPtr = (void *)devPtr;
    r.res.linear.desc = desc ? *desc : (texref ? texref->channelDesc : r.res.linear.desc);
    r.res.linear.sizeInBytes = size;
    return rt_bind_resource(texref, &r);
}

static cudaError_t tx_BindTexture2D(size_t *offset, const struct textureReference *texref,
                              const void *devPtr, const struct cudaChannelFormatDesc *desc,
                              size_t width, size_t height, size_t pitch)
{
    if (offset)
        *offset = 0;
    struct cudaResourceDesc r;
    memset(&r, 0, sizeof r);
    r.resType = cudaResourceTypePitch2D;
    r.res.pitch2D.devPtr = (void *)devPtr;
    r.res.pitch2D.desc = desc ? *desc : (texref ? texref->channelDesc : r.res.pitch2D.desc);
    r.res.pitch2D.width = width, r.res.pitch2D.height = height, r.res.pitch2D.pitchInBytes = pitch;
    return rt_bind_resource(texref, &r);
}

static cudaError_t tx_BindTextureToArray(const struct textureReference *texref, cudaArray_const_t array,
                                   const struct cudaChannelFormatDesc *desc)
{
    (void)desc; /* the array's own format is what its memory holds */
    struct cudaResourceDesc r;
    memset(&r, 0, sizeof r);
    r.resType = cudaResourceTypeArray;
    r.res.array.array = (cudaArray_t)array;
    return rt_bind_resource(texref, &r);
}

static cudaError_t tx_UnbindTexture(const struct textureReference *texref)
{
    unsigned long long zero = 0;
    if (!texref)
        return cudaErrorInvalidValue;
    cudaError_t e = cudaMemcpyToSymbol(texref, &zero, sizeof zero, 0, cudaMemcpyHostToDevice);
    return e == cudaErrorInvalidSymbol ? cudaErrorInvalidTexture : e;
}

static cudaError_t tx_GetTextureAlignmentOffset(size_t *offset, const struct textureReference *texref)
{
    if (!offset || !texref)
        return cudaErrorInvalidValue;
    *offset = 0;
    return cudaSuccess;
}

static cudaError_t tx_BindSurfaceToArray(const struct surfaceReference *surfref, cudaArray_const_t array,
                                   const struct cudaChannelFormatDesc *desc)
{
    (void)desc;
    struct cudaResourceDesc r;
    memset(&r, 0, sizeof r);
    r.resType = cudaResourceTypeArray;
    r.res.array.array = (cudaArray_t)array;
    XgpuTexDesc d;
    cudaError_t e = surfref ? rt_resource(&r, &d) : cudaErrorInvalidValue;
    return e != cudaSuccess ? e : rt_bind(surfref, &d);
}

/* ---- the API: each call under the runtime's lock, its error recorded ------------------ */

#define RT_LOCKED(call)                                                                    \
    {                                                                                      \
        RT_ENTER(c);                                                                       \
        return rt_error(c, call);                                                          \
    }

cudaError_t cudaMallocArray(cudaArray_t *array, const struct cudaChannelFormatDesc *desc,
                            size_t width, size_t height, unsigned int flags)
RT_LOCKED(tx_MallocArray(array, desc, width, height, flags))

cudaError_t cudaMalloc3DArray(cudaArray_t *array, const struct cudaChannelFormatDesc *desc,
                              struct cudaExtent extent, unsigned int flags)
RT_LOCKED(tx_Malloc3DArray(array, desc, extent, flags))

cudaError_t cudaFreeArray(cudaArray_t array)
RT_LOCKED(tx_FreeArray(array))

cudaError_t cudaGetChannelDesc(struct cudaChannelFormatDesc *desc, cudaArray_const_t array)
RT_LOCKED(tx_GetChannelDesc(desc, array))

cudaError_t cudaArrayGetInfo(struct cudaChannelFormatDesc *desc, struct cudaExtent *extent,
                             unsigned int *flags, cudaArray_t array)
RT_LOCKED(tx_ArrayGetInfo(desc, extent, flags, array))

cudaError_t cudaMemcpy2DToArray(cudaArray_t dst, size_t wOffset, size_t hOffset,
                                const void *src, size_t spitch, size_t width, size_t height,
                                enum cudaMemcpyKind kind)
RT_LOCKED(tx_Memcpy2DToArray(dst, wOffset, hOffset, src, spitch, width, height, kind))

cudaError_t cudaMemcpy2DToArrayAsync(cudaArray_t dst, size_t wOffset, size_t hOffset,
                                     const void *src, size_t spitch, size_t width,
                                     size_t height, enum cudaMemcpyKind kind,
                                     cudaStream_t stream)
RT_LOCKED(tx_Memcpy2DToArrayAsync(dst, wOffset, hOffset, src, spitch, width, height, kind, stream))

cudaError_t cudaMemcpy2DFromArray(void *dst, size_t dpitch, cudaArray_const_t src,
                                  size_t wOffset, size_t hOffset, size_t width, size_t height,
                                  enum cudaMemcpyKind kind)
RT_LOCKED(tx_Memcpy2DFromArray(dst, dpitch, src, wOffset, hOffset, width, height, kind))

cudaError_t cudaMemcpyToArray(cudaArray_t dst, size_t wOffset, size_t hOffset, const void *src,
                              size_t count, enum cudaMemcpyKind kind)
RT_LOCKED(tx_MemcpyToArray(dst, wOffset, hOffset, src, count, kind))

cudaError_t cudaMemcpyFromArray(void *dst, cudaArray_const_t src, size_t wOffset,
                                size_t hOffset, size_t count, enum cudaMemcpyKind kind)
RT_LOCKED(tx_MemcpyFromArray(dst, src, wOffset, hOffset, count, kind))

cudaError_t cudaMemcpy3D(const struct cudaMemcpy3DParms *p)
RT_LOCKED(tx_Memcpy3D(p))

cudaError_t cudaMemcpy3DAsync(const struct cudaMemcpy3DParms *p, cudaStream_t stream)
RT_LOCKED(tx_Memcpy3DAsync(p, stream))

cudaError_t cudaMalloc3D(struct cudaPitchedPtr *pitchedDevPtr, struct cudaExtent extent)
RT_LOCKED(tx_Malloc3D(pitchedDevPtr, extent))

cudaError_t cudaCreateTextureObject(cudaTextureObject_t *tex, const struct cudaResourceDesc *res,
                                    const struct cudaTextureDesc *texDesc,
                                    const struct cudaResourceViewDesc *view)
RT_LOCKED(tx_CreateTextureObject(tex, res, texDesc, view))

cudaError_t cudaDestroyTextureObject(cudaTextureObject_t tex)
RT_LOCKED(tx_DestroyTextureObject(tex))

cudaError_t cudaGetTextureObjectResourceDesc(struct cudaResourceDesc *res, cudaTextureObject_t tex)
RT_LOCKED(tx_GetTextureObjectResourceDesc(res, tex))

cudaError_t cudaGetTextureObjectTextureDesc(struct cudaTextureDesc *desc, cudaTextureObject_t tex)
RT_LOCKED(tx_GetTextureObjectTextureDesc(desc, tex))

cudaError_t cudaCreateSurfaceObject(cudaSurfaceObject_t *surf, const struct cudaResourceDesc *res)
RT_LOCKED(tx_CreateSurfaceObject(surf, res))

cudaError_t cudaDestroySurfaceObject(cudaSurfaceObject_t surf)
RT_LOCKED(tx_DestroySurfaceObject(surf))

cudaError_t cudaBindTexture(size_t *offset, const struct textureReference *texref,
                            const void *devPtr, const struct cudaChannelFormatDesc *desc,
                            size_t size)
RT_LOCKED(tx_BindTexture(offset, texref, devPtr, desc, size))

cudaError_t cudaBindTexture2D(size_t *offset, const struct textureReference *texref,
                              const void *devPtr, const struct cudaChannelFormatDesc *desc,
                              size_t width, size_t height, size_t pitch)
RT_LOCKED(tx_BindTexture2D(offset, texref, devPtr, desc, width, height, pitch))

cudaError_t cudaBindTextureToArray(const struct textureReference *texref, cudaArray_const_t array,
                                   const struct cudaChannelFormatDesc *desc)
RT_LOCKED(tx_BindTextureToArray(texref, array, desc))

cudaError_t cudaUnbindTexture(const struct textureReference *texref)
RT_LOCKED(tx_UnbindTexture(texref))

cudaError_t cudaGetTextureAlignmentOffset(size_t *offset, const struct textureReference *texref)
RT_LOCKED(tx_GetTextureAlignmentOffset(offset, texref))

cudaError_t cudaBindSurfaceToArray(const struct surfaceReference *surfref, cudaArray_const_t array,
                                   const struct cudaChannelFormatDesc *desc)
RT_LOCKED(tx_BindSurfaceToArray(surfref, array, desc))
