/*
 * pitch.c - two-dimensional device memory: cudaMallocPitch, cudaMemcpy2D(Async),
 * cudaMemset2D(Async).
 *
 * Pitch. cudaMallocPitch rounds the row width up to RT_PITCH_ALIGN (512) bytes, the
 * alignment real GPUs use and the textureAlignment the device reports; a zero width or
 * height allocates nothing (NULL, as cudaMalloc of 0 bytes) and still reports the pitch.
 * 2D copies and sets work row by row on any pitched layout (pitches need not come from
 * cudaMallocPitch); a row width larger than a pitch is cudaErrorInvalidPitchValue for
 * copies and cudaErrorInvalidValue for sets (CUDA's codes). Rows are checked by the
 * emulator as they are copied, so a range that leaves its allocation fails at the first
 * bad row, with the rows before it already written.
 */
#include "rt.h"

enum { RT_PITCH_ALIGN = 512 };

cudaError_t cudaMallocPitch(void **devPtr, size_t *pitch, size_t width, size_t height)
{
    RT_ENTER(c);
    if (!devPtr || !pitch)
        return rt_error(c, cudaErrorInvalidValue);
    if (width > SIZE_MAX - RT_PITCH_ALIGN)
        return rt_error(c, cudaErrorMemoryAllocation);
    size_t p = (width + RT_PITCH_ALIGN - 1) / RT_PITCH_ALIGN * RT_PITCH_ALIGN;
    if (height && p > SIZE_MAX / height)
        return rt_error(c, cudaErrorMemoryAllocation);
    cudaError_t e = cudaMalloc(devPtr, p * height);
    if (e == cudaSuccess)
        *pitch = p;
    return e;
}

/* height rows of width bytes; the device must exist. Returns the error unrecorded. */
static cudaError_t rt_copy2d(RtContext *c, void *dst, size_t dpitch, const void *src,
                             size_t spitch, size_t width, size_t height,
                             enum cudaMemcpyKind kind)
{
    if (width > dpitch || width > spitch)
        return cudaErrorInvalidPitchValue;
    if (width == 0 || height == 0)
        return rt_copy(c, dst, src, 0, kind); /* still checks the direction */
    if (width == dpitch && width == spitch && height <= SIZE_MAX / width)
        return rt_copy(c, dst, src, width * height, kind);
    cudaError_t e = cudaSuccess;
    for (size_t r = 0; r < height && e == cudaSuccess; r++)
        e = rt_copy(c, (char *)dst + r * dpitch, (const char *)src + r * spitch, width, kind);
    return e;
}

cudaError_t cudaMemcpy2D(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                         size_t height, enum cudaMemcpyKind kind)
{
    RT_ENTER(c);
    rt_sync(c);
    cudaError_t e = rt_device(c, NULL);
    if (e == cudaSuccess)
        e = rt_copy2d(c, dst, dpitch, src, spitch, width, height, kind);
    return rt_error(c, e);
}

cudaError_t cudaMemcpy2DAsync(void *dst, size_t dpitch, const void *src, size_t spitch,
                              size_t width, size_t height, enum cudaMemcpyKind kind,
                              cudaStream_t stream)
{
    RT_ENTER(c);
    cudaError_t e = rt_device(c, NULL);
    if (e == cudaSuccess && !rt_stream_ok(c, stream))
        e = cudaErrorInvalidResourceHandle;
    if (e == cudaSuccess)
        e = rt_copy2d(c, dst, dpitch, src, spitch, width, height, kind);
    return rt_error(c, e);
}

static cudaError_t rt_set2d(RtContext *c, void *dst, size_t pitch, int value, size_t width,
                            size_t height)
{
    if (height > 1 && width > pitch)
        return cudaErrorInvalidValue;
    if (width == pitch && height <= SIZE_MAX / (width ? width : 1))
        return rt_memset(c, dst, value, width * height);
    cudaError_t e = cudaSuccess;
    for (size_t r = 0; r < height && e == cudaSuccess; r++)
        e = rt_memset(c, (char *)dst + r * pitch, value, width);
    return e;
}

cudaError_t cudaMemset2D(void *devPtr, size_t pitch, int value, size_t width, size_t height)
{
    RT_ENTER(c);
    cudaError_t e = rt_device(c, NULL);
    if (e == cudaSuccess)
        e = rt_set2d(c, devPtr, pitch, value, width, height);
    return rt_error(c, e);
}

cudaError_t cudaMemset2DAsync(void *devPtr, size_t pitch, int value, size_t width,
                              size_t height, cudaStream_t stream)
{
    RT_ENTER(c);
    cudaError_t e = rt_device(c, NULL);
    if (e == cudaSuccess && !rt_stream_ok(c, stream))
        e = cudaErrorInvalidResourceHandle;
    if (e == cudaSuccess)
        e = rt_set2d(c, devPtr, pitch, value, width, height);
    return rt_error(c, e);
}
