/*
 * texture_fetch_functions.h - texture and surface references and objects, and the device
 * functions that read and write them.
 *
 * Every fetch reads the texture's XgpuTexDesc (texture_types.h) with ordinary loads and
 * then its texels with texture-space loads (__xgpu_tex_ld), following the CUDA C
 * Programming Guide's appendix on texture fetching:
 *   - normalized coordinates are scaled by the size after the address mode: wrap keeps
 *     the fraction, mirror reflects every other period; with unnormalized coordinates
 *     wrap and mirror act as clamp (CUDA supports them only with normalized ones);
 *   - point filtering takes texel floor(x); linear filtering takes x - 0.5, its floor i
 *     and the fraction a, which it quantizes to 8 fractional bits as the hardware does,
 *     and blends texels i and i + 1 (bilinear in 2D, trilinear in 3D) in float;
 *   - out of range texels: clamp repeats the edge, wrap and mirror continue the pattern,
 *     border reads the border colour (0 for texture references);
 *   - cudaReadModeNormalizedFloat maps 8- and 16-bit integers to [0, 1] (unsigned) or
 *     [-1, 1] (signed); element reads return the stored value, and linear filtering
 *     applies only where the result is floating point;
 *   - tex1Dfetch reads linear memory at an integer index, without filtering; an index
 *     outside the bound size reads 0.
 * Surfaces take x in bytes, as CUDA's do; the boundary mode decides what an access
 * outside the array does (trap ends the kernel with a launch failure, zero reads 0 and
 * drops writes, clamp moves to the nearest element).
 *
 * texture<T, dim, mode> and surface<T, dim> carry clang's device_builtin attributes, so a
 * variable of either type is an 8-byte device variable (the descriptor's address, which
 * cudaBindTexture* writes) and clang's host code registers it (__cudaRegisterTexture).
 */
#ifndef XGPU_CUDA_TEXTURE_FETCH_FUNCTIONS_H
#define XGPU_CUDA_TEXTURE_FETCH_FUNCTIONS_H
#define __TEXTURE_FETCH_FUNCTIONS_H__ /* CUDA's own guard: programs test it */

#include "texture_types.h"
#include "vector_types.h"

#if defined(__cplusplus)

/* ---- channel formats ----------------------------------------------------------------- */

template <class T> struct __xgpu_chan; /* bits and kind of each texel type */
#define XGPU_CHAN(T, n, bits, kind)                                                        \
    template <> struct __xgpu_chan<T> {                                                    \
        enum { channels = n, size = bits };                                                \
        static const enum cudaChannelFormatKind f = kind;                                  \
    };
#define XGPU_CHAN_VEC(base, T, bits, kind)                                                 \
    XGPU_CHAN(base, 1, bits, kind) XGPU_CHAN(T##1, 1, bits, kind)                          \
    XGPU_CHAN(T##2, 2, bits, kind) XGPU_CHAN(T##4, 4, bits, kind)
XGPU_CHAN(char, 1, 8, cudaChannelFormatKindSigned)
XGPU_CHAN_VEC(signed char, char, 8, cudaChannelFormatKindSigned)
XGPU_CHAN_VEC(unsigned char, uchar, 8, cudaChannelFormatKindUnsigned)
XGPU_CHAN_VEC(short, short, 16, cudaChannelFormatKindSigned)
XGPU_CHAN_VEC(unsigned short, ushort, 16, cudaChannelFormatKindUnsigned)
XGPU_CHAN_VEC(int, int, 32, cudaChannelFormatKindSigned)
XGPU_CHAN_VEC(unsigned int, uint, 32, cudaChannelFormatKindUnsigned)
XGPU_CHAN_VEC(float, float, 32, cudaChannelFormatKindFloat)
#undef XGPU_CHAN_VEC
#undef XGPU_CHAN

template <class T> static __inline__ __host__ __device__ struct cudaChannelFormatDesc
cudaCreateChannelDesc(void)
{
    const int n = __xgpu_chan<T>::channels, b = __xgpu_chan<T>::size;
    struct cudaChannelFormatDesc d = {b, n > 1 ? b : 0, n > 2 ? b : 0, n > 3 ? b : 0,
                                      __xgpu_chan<T>::f};
    return d;
}

/* ---- references ---------------------------------------------------------------------- */

template <class T, int texType = cudaTextureType1D,
          enum cudaTextureReadMode mode = cudaReadModeElementType>
struct __attribute__((device_builtin_texture_type)) texture : public textureReference {
    __host__ texture(int norm = 0, enum cudaTextureFilterMode fMode = cudaFilterModePoint,
                     enum cudaTextureAddressMode aMode = cudaAddressModeClamp)
    {
        init(norm, fMode, aMode, cudaCreateChannelDesc<T>());
    }
    __host__ texture(int norm, enum cudaTextureFilterMode fMode,
                     enum cudaTextureAddressMode aMode, struct cudaChannelFormatDesc desc)
    {
        init(norm, fMode, aMode, desc);
    }

private:
    __host__ void init(int norm, enum cudaTextureFilterMode fMode,
                       enum cudaTextureAddressMode aMode, struct cudaChannelFormatDesc desc)
    {
        normalized = norm;
        filterMode = fMode;
        addressMode[0] = addressMode[1] = addressMode[2] = aMode;
        channelDesc = desc;
        sRGB = 0;
        maxAnisotropy = 0;
        mipmapFilterMode = cudaFilterModePoint;
        mipmapLevelBias = minMipmapLevelClamp = maxMipmapLevelClamp = 0;
        for (int i = 0; i < 15; i++)
            __cudaReserved[i] = 0;
    }
};

template <class T, int dim = 1>
struct __attribute__((device_builtin_surface_type)) surface : public surfaceReference {
    __host__ surface(void) { channelDesc = cudaCreateChannelDesc<T>(); }
    __host__ surface(struct cudaChannelFormatDesc desc) { channelDesc = desc; }
};
template <int dim> struct __attribute__((device_builtin_surface_type)) surface<void, dim>
    : public surfaceReference {
    __host__ surface(void) { channelDesc = cudaCreateChannelDesc(0, 0, 0, 0, cudaChannelFormatKindNone); }
};

/* Host-side C++ forms of the binding calls, taking the reference itself. */
template <class T, int dim, enum cudaTextureReadMode mode>
static __inline__ __host__ cudaError_t cudaBindTexture(size_t *offset,
                                                       const struct texture<T, dim, mode> &tex,
                                                       const void *devPtr,
                                                       size_t size = ~(size_t)0)
{
    return cudaBindTexture(offset, &tex, devPtr, &tex.channelDesc, size);
}
template <class T, int dim, enum cudaTextureReadMode mode>
static __inline__ __host__ cudaError_t cudaBindTexture(size_t *offset,
                                                       const struct texture<T, dim, mode> &tex,
                                                       const void *devPtr,
                                                       const struct cudaChannelFormatDesc &desc,
                                                       size_t size = ~(size_t)0)
{
    return cudaBindTexture(offset, &tex, devPtr, &desc, size);
}
template <class T, int dim, enum cudaTextureReadMode mode>
static __inline__ __host__ cudaError_t
cudaBindTexture2D(size_t *offset, const struct texture<T, dim, mode> &tex, const void *devPtr,
                  size_t width, size_t height, size_t pitch)
{
    return cudaBindTexture2D(offset, &tex, devPtr, &tex.channelDesc, width, height, pitch);
}
template <class T, int dim, enum cudaTextureReadMode mode>
static __inline__ __host__ cudaError_t
cudaBindTexture2D(size_t *offset, const struct texture<T, dim, mode> &tex, const void *devPtr,
                  const struct cudaChannelFormatDesc &desc, size_t width, size_t height,
                  size_t pitch)
{
    return cudaBindTexture2D(offset, &tex, devPtr, &desc, width, height, pitch);
}
template <class T, int dim, enum cudaTextureReadMode mode>
static __inline__ __host__ cudaError_t
cudaBindTextureToArray(const struct texture<T, dim, mode> &tex, cudaArray_const_t array)
{
    struct cudaChannelFormatDesc desc;
    cudaError_t e = cudaGetChannelDesc(&desc, array);
    return e != cudaSuccess ? e : cudaBindTextureToArray(&tex, array, &desc);
}
template <class T, int dim, enum cudaTextureReadMode mode>
static __inline__ __host__ cudaError_t
cudaBindTextureToArray(const struct texture<T, dim, mode> &tex, cudaArray_const_t array,
                       const struct cudaChannelFormatDesc &desc)
{
    return cudaBindTextureToArray(&tex, array, &desc);
}
template <class T, int dim, enum cudaTextureReadMode mode>
static __inline__ __host__ cudaError_t cudaUnbindTexture(const struct texture<T, dim, mode> &tex)
{
    return cudaUnbindTexture(&tex);
}
template <class T, int dim>
static __inline__ __host__ cudaError_t cudaBindSurfaceToArray(const struct surface<T, dim> &surf,
                                                              cudaArray_const_t array)
{
    struct cudaChannelFormatDesc desc;
    cudaError_t e = cudaGetChannelDesc(&desc, array);
    return e != cudaSuccess ? e : cudaBindSurfaceToArray(&surf, array, &desc);
}

#if defined(__CUDA__)

#define XGPU_TDEV static __device__ __forceinline__

/* ---- fetching ------------------------------------------------------------------------ */

/* A texel load; every texture read goes through here. Address space 200 is xgpu's
 * texture space: xgpu-cc selects ld.tex for it, which the timing model sends through
 * the SM's texture cache instead of the L1 (docs/textures.md). */
template <class T> XGPU_TDEV T __xgpu_tex_ld(unsigned long long addr)
{
    return *(const __attribute__((address_space(200))) T *)addr;
}

/* A fetched element: each channel as float (filtered, normalized) and as its stored bits
 * (sign-extended), for element reads of integer formats. */
struct __xgpu_texel {
    float f[4];
    int i[4];
};

XGPU_TDEV int __xgpu_tex_raw(const XgpuTexDesc *d, unsigned long long at, unsigned c)
{
    int signed_kind = d->kind == cudaChannelFormatKindSigned;
    if (d->chan_bytes == 1) {
        unsigned v = __xgpu_tex_ld<unsigned char>(at + c);
        return signed_kind ? (int)(signed char)v : (int)v;
    }
    if (d->chan_bytes == 2) {
        unsigned v = __xgpu_tex_ld<unsigned short>(at + 2 * c);
        return signed_kind ? (int)(short)v : (int)v;
    }
    return __xgpu_tex_ld<int>(at + 4 * c);
}

/* IEEE binary16 bits to float (cudaChannelFormatKindFloat with 16-bit channels). */
XGPU_TDEV float __xgpu_tex_half(unsigned h)
{
    unsigned s = (h >> 15) & 1, e = (h >> 10) & 31, m = h & 1023;
    float v = e == 0 ? ldexpf((float)m, -24) : e == 31 ? (m ? __int_as_float(0x7fc00000)
                                                              : __int_as_float(0x7f800000))
                                                        : ldexpf((float)(m | 1024), (int)e - 25);
    return s ? -v : v;
}

/* A channel as float under read mode rm (a reference's template argument, an object's
 * texture descriptor). */
XGPU_TDEV float __xgpu_tex_float(const XgpuTexDesc *d, int raw, unsigned rm)
{
    if (d->kind == cudaChannelFormatKindFloat)
        return d->chan_bytes == 4 ? __int_as_float(raw) : __xgpu_tex_half((unsigned)raw & 0xffff);
    if (rm == cudaReadModeNormalizedFloat && d->chan_bytes < 4) {
        int bits = 8 * (int)d->chan_bytes;
        if (d->kind == cudaChannelFormatKindUnsigned)
            return (float)raw / (float)((1 << bits) - 1);
        float v = (float)raw / (float)((1 << (bits - 1)) - 1);
        return v < -1.0f ? -1.0f : v;
    }
    return d->kind == cudaChannelFormatKindUnsigned ? (float)(unsigned)raw : (float)raw;
}

/* Element (x, y, z) of the texture, or the border colour (x < 0). */
XGPU_TDEV struct __xgpu_texel __xgpu_tex_element(const XgpuTexDesc *d, int x, int y, int z,
                                                 unsigned rm)
{
    struct __xgpu_texel t;
    if (x < 0 || y < 0 || z < 0) {
        for (int c = 0; c < 4; c++)
            t.f[c] = d->border[c], t.i[c] = 0;
        return t;
    }
    unsigned long long at = d->base + (unsigned long long)z * d->slice +
                            (unsigned long long)y * d->pitch +
                            (unsigned long long)x * d->nchan * d->chan_bytes;
    for (unsigned c = 0; c < 4; c++) {
        t.i[c] = c < d->nchan ? __xgpu_tex_raw(d, at, c) : 0;
        t.f[c] = c < d->nchan ? __xgpu_tex_float(d, t.i[c], rm) : 0.0f;
    }
    return t;
}

/* An element index along a dimension of n elements under address mode am; -1 = border. */
XGPU_TDEV int __xgpu_tex_index(int i, int n, unsigned am, unsigned normalized)
{
    if (i >= 0 && i < n)
        return i;
    if (am == cudaAddressModeBorder)
        return -1;
    if (normalized && am == cudaAddressModeWrap)
        return ((i % n) + n) % n;
    if (normalized && am == cudaAddressModeMirror) {
        int p = ((i % (2 * n)) + 2 * n) % (2 * n);
        return p < n ? p : 2 * n - 1 - p;
    }
    return i < 0 ? 0 : n - 1;
}

/* A coordinate in elements, after the address mode of normalized coordinates. */
XGPU_TDEV float __xgpu_tex_coord(float u, int n, unsigned am, unsigned normalized)
{
    if (!normalized)
        return u;
    if (am == cudaAddressModeWrap)
        u -= floorf(u);
    else if (am == cudaAddressModeMirror) {
        float t = floorf(u);
        u = ((long long)t & 1) ? 1.0f - (u - t) : u - t;
    }
    return u * (float)n;
}

/* The fetch at coordinates (u, v, w); dims coordinates are used, the rest are 0. */
XGPU_TDEV struct __xgpu_texel __xgpu_tex_sample(const XgpuTexDesc *d, float u, float v, float w,
                                                int floating, unsigned rm)
{
    float c[3] = {u, v, w};
    int n[3] = {(int)d->width, (int)d->height, (int)d->depth}, i0[3] = {0, 0, 0},
        i1[3] = {0, 0, 0};
    float a[3] = {0, 0, 0};
    int linear = floating && d->filter == cudaFilterModeLinear;
    for (unsigned k = 0; k < 3; k++) {
        if (k >= d->dims)
            continue;
        float x = __xgpu_tex_coord(c[k], n[k], d->address[k], d->normalized);
        if (linear) {
            x -= 0.5f;
            float f = floorf(x);
            a[k] = rintf((x - f) * 256.0f) / 256.0f; /* 8 fractional bits */
            i0[k] = __xgpu_tex_index((int)f, n[k], d->address[k], d->normalized);
            i1[k] = __xgpu_tex_index((int)f + 1, n[k], d->address[k], d->normalized);
        } else {
            i0[k] = i1[k] = __xgpu_tex_index((int)floorf(x), n[k], d->address[k], d->normalized);
        }
    }
    int border = i0[0] < 0 || i0[1] < 0 || i0[2] < 0;
    if (!linear)
        return __xgpu_tex_element(d, border ? -1 : i0[0], i0[1], i0[2], rm);
    struct __xgpu_texel r;
    for (int ch = 0; ch < 4; ch++)
        r.f[ch] = 0.0f, r.i[ch] = 0;
    for (int corner = 0; corner < 8; corner++) {
        float wgt = 1.0f;
        int at[3];
        for (unsigned k = 0; k < 3; k++) {
            int hi = (corner >> k) & 1;
            if (k >= d->dims && hi) {
                wgt = 0.0f;
                break;
            }
            at[k] = hi ? i1[k] : i0[k];
            wgt *= k >= d->dims ? 1.0f : hi ? a[k] : 1.0f - a[k];
        }
        if (wgt == 0.0f)
            continue;
        int out = at[0] < 0 || at[1] < 0 || at[2] < 0;
        struct __xgpu_texel e = __xgpu_tex_element(d, out ? -1 : at[0], at[1], at[2], rm);
        for (int ch = 0; ch < 4; ch++)
            r.f[ch] += wgt * e.f[ch];
    }
    return r;
}

XGPU_TDEV struct __xgpu_texel __xgpu_tex_fetch_index(const XgpuTexDesc *d, int x, unsigned rm)
{
    if (x >= 0 && (unsigned)x < d->width)
        return __xgpu_tex_element(d, x, 0, 0, rm);
    struct __xgpu_texel zero;
    for (int c = 0; c < 4; c++)
        zero.f[c] = 0.0f, zero.i[c] = 0;
    return zero;
}

/* ---- results --------------------------------------------------------------------------- */

/* The fetched element as T, with the channels as floats (isf) or stored values. */
template <class T> struct __xgpu_tex_ret {
    XGPU_TDEV T make(const struct __xgpu_texel &t)
    {
        return __xgpu_chan<T>::f == cudaChannelFormatKindFloat ? (T)t.f[0] : (T)t.i[0];
    }
};
#define XGPU_TEX_RET_VEC(V, S)                                                             \
    template <> struct __xgpu_tex_ret<V##1> {                                              \
        XGPU_TDEV V##1 make(const struct __xgpu_texel &t)                                  \
        {                                                                                  \
            V##1 r;                                                                        \
            r.x = __xgpu_tex_ret<S>::make(t);                                              \
            return r;                                                                      \
        }                                                                                  \
    };                                                                                     \
    template <> struct __xgpu_tex_ret<V##2> {                                              \
        XGPU_TDEV V##2 make(const struct __xgpu_texel &t)                                  \
        {                                                                                  \
            struct __xgpu_texel u = t;                                                     \
            V##2 r;                                                                        \
            r.x = __xgpu_tex_ret<S>::make(u);                                              \
            u.f[0] = t.f[1], u.i[0] = t.i[1];                                              \
            r.y = __xgpu_tex_ret<S>::make(u);                                              \
            return r;                                                                      \
        }                                                                                  \
    };                                                                                     \
    template <> struct __xgpu_tex_ret<V##4> {                                              \
        XGPU_TDEV V##4 make(const struct __xgpu_texel &t)                                  \
        {                                                                                  \
            S c[4];                                                                        \
            for (int k = 0; k < 4; k++) {                                                  \
                struct __xgpu_texel u = t;                                                 \
                u.f[0] = t.f[k], u.i[0] = t.i[k];                                          \
                c[k] = __xgpu_tex_ret<S>::make(u);                                         \
            }                                                                              \
            V##4 r;                                                                        \
            r.x = c[0], r.y = c[1], r.z = c[2], r.w = c[3];                                \
            return r;                                                                      \
        }                                                                                  \
    };
XGPU_TEX_RET_VEC(char, signed char)
XGPU_TEX_RET_VEC(uchar, unsigned char)
XGPU_TEX_RET_VEC(short, short)
XGPU_TEX_RET_VEC(ushort, unsigned short)
XGPU_TEX_RET_VEC(int, int)
XGPU_TEX_RET_VEC(uint, unsigned int)
XGPU_TEX_RET_VEC(float, float)
#undef XGPU_TEX_RET_VEC

/* What a reference of element type T returns in each read mode. */
template <class T, enum cudaTextureReadMode mode> struct __xgpu_tex_type { typedef T type; };
#define XGPU_TEX_NORM(T, F)                                                                \
    template <> struct __xgpu_tex_type<T, cudaReadModeNormalizedFloat> { typedef F type; };
#define XGPU_TEX_NORM_VEC(S, V)                                                            \
    XGPU_TEX_NORM(S, float) XGPU_TEX_NORM(V##1, float1) XGPU_TEX_NORM(V##2, float2)       \
    XGPU_TEX_NORM(V##4, float4)
XGPU_TEX_NORM(char, float)
XGPU_TEX_NORM_VEC(signed char, char)
XGPU_TEX_NORM_VEC(unsigned char, uchar)
XGPU_TEX_NORM_VEC(short, short)
XGPU_TEX_NORM_VEC(unsigned short, ushort)
#undef XGPU_TEX_NORM_VEC
#undef XGPU_TEX_NORM

template <class R> struct __xgpu_tex_is_float {
    enum { value = __xgpu_chan<R>::f == cudaChannelFormatKindFloat };
};

template <class T, int dim, enum cudaTextureReadMode mode>
XGPU_TDEV const XgpuTexDesc *__xgpu_texref_desc(const texture<T, dim, mode> &t)
{
    return (const XgpuTexDesc *)*(const unsigned long long *)&t;
}
#define XGPU_TEXREF_RET typename __xgpu_tex_type<T, mode>::type

/* Texture references. */
template <class T, enum cudaTextureReadMode mode>
XGPU_TDEV XGPU_TEXREF_RET tex1Dfetch(const texture<T, cudaTextureType1D, mode> &t, int x)
{
    return __xgpu_tex_ret<XGPU_TEXREF_RET>::make(
        __xgpu_tex_fetch_index(__xgpu_texref_desc(t), x, mode));
}
template <class T, enum cudaTextureReadMode mode>
XGPU_TDEV XGPU_TEXREF_RET tex1D(const texture<T, cudaTextureType1D, mode> &t, float x)
{
    typedef XGPU_TEXREF_RET R;
    return __xgpu_tex_ret<R>::make(
        __xgpu_tex_sample(__xgpu_texref_desc(t), x, 0, 0, __xgpu_tex_is_float<R>::value, mode));
}
template <class T, enum cudaTextureReadMode mode>
XGPU_TDEV XGPU_TEXREF_RET tex2D(const texture<T, cudaTextureType2D, mode> &t, float x, float y)
{
    typedef XGPU_TEXREF_RET R;
    return __xgpu_tex_ret<R>::make(
        __xgpu_tex_sample(__xgpu_texref_desc(t), x, y, 0, __xgpu_tex_is_float<R>::value, mode));
}
template <class T, enum cudaTextureReadMode mode>
XGPU_TDEV XGPU_TEXREF_RET tex3D(const texture<T, cudaTextureType3D, mode> &t, float x, float y,
                                float z)
{
    typedef XGPU_TEXREF_RET R;
    return __xgpu_tex_ret<R>::make(
        __xgpu_tex_sample(__xgpu_texref_desc(t), x, y, z, __xgpu_tex_is_float<R>::value, mode));
}
#undef XGPU_TEXREF_RET

/* Texture objects: T is the result type the program asks for. */
#define XGPU_TEXOBJ(o) ((const XgpuTexDesc *)(o))
template <class T> XGPU_TDEV T tex1Dfetch(cudaTextureObject_t o, int x)
{
    return __xgpu_tex_ret<T>::make(
        __xgpu_tex_fetch_index(XGPU_TEXOBJ(o), x, XGPU_TEXOBJ(o)->read_mode));
}
template <class T> XGPU_TDEV void tex1Dfetch(T *r, cudaTextureObject_t o, int x)
{
    *r = tex1Dfetch<T>(o, x);
}
template <class T> XGPU_TDEV T tex1D(cudaTextureObject_t o, float x)
{
    return __xgpu_tex_ret<T>::make(
        __xgpu_tex_sample(XGPU_TEXOBJ(o), x, 0, 0, __xgpu_tex_is_float<T>::value,
                          XGPU_TEXOBJ(o)->read_mode));
}
template <class T> XGPU_TDEV T tex2D(cudaTextureObject_t o, float x, float y)
{
    return __xgpu_tex_ret<T>::make(
        __xgpu_tex_sample(XGPU_TEXOBJ(o), x, y, 0, __xgpu_tex_is_float<T>::value,
                          XGPU_TEXOBJ(o)->read_mode));
}
template <class T> XGPU_TDEV void tex2D(T *r, cudaTextureObject_t o, float x, float y)
{
    *r = tex2D<T>(o, x, y);
}
template <class T> XGPU_TDEV T tex3D(cudaTextureObject_t o, float x, float y, float z)
{
    return __xgpu_tex_ret<T>::make(
        __xgpu_tex_sample(XGPU_TEXOBJ(o), x, y, z, __xgpu_tex_is_float<T>::value,
                          XGPU_TEXOBJ(o)->read_mode));
}
/* Level of detail: arrays have one level, so every level reads level 0. */
template <class T> XGPU_TDEV T tex1DLod(cudaTextureObject_t o, float x, float)
{
    return tex1D<T>(o, x);
}
template <class T> XGPU_TDEV T tex2DLod(cudaTextureObject_t o, float x, float y, float)
{
    return tex2D<T>(o, x, y);
}
template <class T> XGPU_TDEV T tex3DLod(cudaTextureObject_t o, float x, float y, float z, float)
{
    return tex3D<T>(o, x, y, z);
}

/* ---- surfaces ---------------------------------------------------------------------------- */

/* The address of the element at byte x, row y, slice z, or 0 for none (zero mode). */
XGPU_TDEV unsigned long long __xgpu_surf_at(const XgpuTexDesc *d, int x, int y, int z,
                                            unsigned size, enum cudaSurfaceBoundaryMode m)
{
    long long row = (long long)d->width * d->nchan * d->chan_bytes;
    long long ny = d->dims >= 2 ? d->height : 1, nz = d->dims >= 3 ? d->depth : 1;
    int out = x < 0 || (long long)x + size > row || y < 0 || y >= ny || z < 0 || z >= nz;
    if (out && m == cudaBoundaryModeTrap)
        __builtin_trap();
    if (out && m == cudaBoundaryModeZero)
        return 0;
    if (out) {
        long long lx = x < 0 ? 0 : (long long)x + size > row ? row - size : x;
        x = (int)lx;
        y = y < 0 ? 0 : y >= ny ? (int)ny - 1 : y;
        z = z < 0 ? 0 : z >= nz ? (int)nz - 1 : z;
    }
    return d->base + (unsigned long long)z * d->slice + (unsigned long long)y * d->pitch +
           (unsigned long long)x;
}

template <class T>
XGPU_TDEV T __xgpu_surf_read(const XgpuTexDesc *d, int x, int y, int z,
                             enum cudaSurfaceBoundaryMode m)
{
    unsigned long long at = __xgpu_surf_at(d, x, y, z, sizeof(T), m);
    T v;
    if (at)
        __builtin_memcpy(&v, (const void *)at, sizeof v);
    else
        __builtin_memset(&v, 0, sizeof v);
    return v;
}

template <class T>
XGPU_TDEV void __xgpu_surf_write(const XgpuTexDesc *d, T v, int x, int y, int z,
                                 enum cudaSurfaceBoundaryMode m)
{
    unsigned long long at = __xgpu_surf_at(d, x, y, z, sizeof(T), m);
    if (at)
        __builtin_memcpy((void *)at, &v, sizeof v);
}

template <int dim>
XGPU_TDEV const XgpuTexDesc *__xgpu_surfref_desc(const surface<void, dim> &s)
{
    return (const XgpuTexDesc *)*(const unsigned long long *)&s;
}

#define XGPU_SURF_MODE enum cudaSurfaceBoundaryMode m = cudaBoundaryModeTrap
template <class T> XGPU_TDEV T surf1Dread(cudaSurfaceObject_t s, int x, XGPU_SURF_MODE)
{
    return __xgpu_surf_read<T>(XGPU_TEXOBJ(s), x, 0, 0, m);
}
template <class T> XGPU_TDEV void surf1Dread(T *r, cudaSurfaceObject_t s, int x, XGPU_SURF_MODE)
{
    *r = surf1Dread<T>(s, x, m);
}
template <class T> XGPU_TDEV T surf2Dread(cudaSurfaceObject_t s, int x, int y, XGPU_SURF_MODE)
{
    return __xgpu_surf_read<T>(XGPU_TEXOBJ(s), x, y, 0, m);
}
template <class T>
XGPU_TDEV void surf2Dread(T *r, cudaSurfaceObject_t s, int x, int y, XGPU_SURF_MODE)
{
    *r = surf2Dread<T>(s, x, y, m);
}
template <class T>
XGPU_TDEV T surf3Dread(cudaSurfaceObject_t s, int x, int y, int z, XGPU_SURF_MODE)
{
    return __xgpu_surf_read<T>(XGPU_TEXOBJ(s), x, y, z, m);
}
template <class T> XGPU_TDEV void surf1Dwrite(T v, cudaSurfaceObject_t s, int x, XGPU_SURF_MODE)
{
    __xgpu_surf_write(XGPU_TEXOBJ(s), v, x, 0, 0, m);
}
template <class T>
XGPU_TDEV void surf2Dwrite(T v, cudaSurfaceObject_t s, int x, int y, XGPU_SURF_MODE)
{
    __xgpu_surf_write(XGPU_TEXOBJ(s), v, x, y, 0, m);
}
template <class T>
XGPU_TDEV void surf3Dwrite(T v, cudaSurfaceObject_t s, int x, int y, int z, XGPU_SURF_MODE)
{
    __xgpu_surf_write(XGPU_TEXOBJ(s), v, x, y, z, m);
}
/* Surface references. */
template <class T>
XGPU_TDEV void surf1Dread(T *r, const surface<void, 1> &s, int x, XGPU_SURF_MODE)
{
    *r = __xgpu_surf_read<T>(__xgpu_surfref_desc(s), x, 0, 0, m);
}
template <class T>
XGPU_TDEV void surf2Dread(T *r, const surface<void, 2> &s, int x, int y, XGPU_SURF_MODE)
{
    *r = __xgpu_surf_read<T>(__xgpu_surfref_desc(s), x, y, 0, m);
}
template <class T>
XGPU_TDEV void surf1Dwrite(T v, const surface<void, 1> &s, int x, XGPU_SURF_MODE)
{
    __xgpu_surf_write(__xgpu_surfref_desc(s), v, x, 0, 0, m);
}
template <class T>
XGPU_TDEV void surf2Dwrite(T v, const surface<void, 2> &s, int x, int y, XGPU_SURF_MODE)
{
    __xgpu_surf_write(__xgpu_surfref_desc(s), v, x, y, 0, m);
}
#undef XGPU_SURF_MODE
#undef XGPU_TEXOBJ
#undef XGPU_TDEV

#endif /* __CUDA__ */
#endif /* __cplusplus */
#endif
