/*
 * texture_types.h - textures, surfaces and CUDA arrays: their types and runtime calls.
 *
 * Model (docs/textures.md). A texture or surface is read through a descriptor, an
 * XgpuTexDesc in device memory that the runtime writes:
 *   - a texture object (cudaTextureObject_t) or surface object is the descriptor's
 *     device address;
 *   - a texture reference (texture<T, dim, mode> at namespace scope) is an 8-byte device
 *     variable that holds the descriptor's address; cudaBindTexture* writes it.
 * The fetch functions (texture_fetch_functions.h) are ordinary device code over the
 * descriptor: coordinates, address modes, point and linear filtering, read modes. A CUDA
 * array is a runtime handle around a block of device memory laid out row by row
 * (width x element size bytes per row, height rows per slice).
 *
 * Enumerator values are CUDA's public ones; structure layouts are xgpu's own.
 */
#ifndef XGPU_CUDA_TEXTURE_TYPES_H
#define XGPU_CUDA_TEXTURE_TYPES_H
#define __TEXTURE_TYPES_H__ /* CUDA's own guard: programs test it */

/* The project's libraries hide every symbol but those declared in its public headers. */
#pragma GCC visibility push(default)

#include <stddef.h>
#include "driver_types.h"

enum cudaChannelFormatKind {
    cudaChannelFormatKindSigned = 0,
    cudaChannelFormatKindUnsigned = 1,
    cudaChannelFormatKindFloat = 2,
    cudaChannelFormatKindNone = 3,
};

struct cudaChannelFormatDesc {
    int x, y, z, w; /* bits per channel; 0 = absent */
    enum cudaChannelFormatKind f;
};

enum cudaTextureAddressMode {
    cudaAddressModeWrap = 0,
    cudaAddressModeClamp = 1,
    cudaAddressModeMirror = 2,
    cudaAddressModeBorder = 3,
};

enum cudaTextureFilterMode {
    cudaFilterModePoint = 0,
    cudaFilterModeLinear = 1,
};

enum cudaTextureReadMode {
    cudaReadModeElementType = 0,
    cudaReadModeNormalizedFloat = 1,
};

enum cudaSurfaceBoundaryMode {
    cudaBoundaryModeZero = 0,
    cudaBoundaryModeClamp = 1,
    cudaBoundaryModeTrap = 2,
};

#define cudaTextureType1D 0x01
#define cudaTextureType2D 0x02
#define cudaTextureType3D 0x03
#define cudaSurfaceType1D 0x01
#define cudaSurfaceType2D 0x02
#define cudaSurfaceType3D 0x03

#define cudaArrayDefault 0x00
#define cudaArrayLayered 0x01
#define cudaArraySurfaceLoadStore 0x02

/* A CUDA array: opaque to programs. */
typedef struct cudaArray *cudaArray_t;
typedef const struct cudaArray *cudaArray_const_t;
typedef struct cudaMipmappedArray *cudaMipmappedArray_t;

typedef unsigned long long cudaTextureObject_t;
typedef unsigned long long cudaSurfaceObject_t;

/* The host half of a texture reference: the program sets these fields before binding. */
struct textureReference {
    int normalized;                        /* coordinates in [0, 1) */
    enum cudaTextureFilterMode filterMode;
    enum cudaTextureAddressMode addressMode[3];
    struct cudaChannelFormatDesc channelDesc;
    int sRGB;
    unsigned int maxAnisotropy;
    enum cudaTextureFilterMode mipmapFilterMode;
    float mipmapLevelBias, minMipmapLevelClamp, maxMipmapLevelClamp;
    int __cudaReserved[15];
};

struct surfaceReference {
    struct cudaChannelFormatDesc channelDesc;
};

enum cudaResourceType {
    cudaResourceTypeArray = 0,
    cudaResourceTypeMipmappedArray = 1,
    cudaResourceTypeLinear = 2,
    cudaResourceTypePitch2D = 3,
};

struct cudaResourceDesc {
    enum cudaResourceType resType;
    union {
        struct { cudaArray_t array; } array;
        struct { cudaMipmappedArray_t mipmap; } mipmap;
        struct {
            void *devPtr;
            struct cudaChannelFormatDesc desc;
            size_t sizeInBytes;
        } linear;
        struct {
            void *devPtr;
            struct cudaChannelFormatDesc desc;
            size_t width, height, pitchInBytes;
        } pitch2D;
    } res;
};

struct cudaTextureDesc {
    enum cudaTextureAddressMode addressMode[3];
    enum cudaTextureFilterMode filterMode;
    enum cudaTextureReadMode readMode;
    int sRGB;
    float borderColor[4];
    int normalizedCoords;
    unsigned int maxAnisotropy;
    enum cudaTextureFilterMode mipmapFilterMode;
    float mipmapLevelBias, minMipmapLevelClamp, maxMipmapLevelClamp;
    int disableTrilinearOptimization;
    int seamlessCubemap;
};

struct cudaResourceViewDesc; /* resource views are not supported */

/* 3D extents, positions and copies (widths in bytes for linear memory, in elements for
 * arrays, as CUDA defines them). */
struct cudaExtent { size_t width, height, depth; };
struct cudaPos { size_t x, y, z; };
struct cudaPitchedPtr { void *ptr; size_t pitch, xsize, ysize; };

struct cudaMemcpy3DParms {
    cudaArray_t srcArray;
    struct cudaPos srcPos;
    struct cudaPitchedPtr srcPtr;
    cudaArray_t dstArray;
    struct cudaPos dstPos;
    struct cudaPitchedPtr dstPtr;
    struct cudaExtent extent;
    enum cudaMemcpyKind kind;
};

/* The descriptor the fetch functions read (device memory, written by the runtime). */
typedef struct XgpuTexDesc {
    unsigned long long base;  /* device address of element (0, 0, 0) */
    unsigned long long pitch; /* bytes from one row to the next */
    unsigned long long slice; /* bytes from one 2D slice to the next */
    unsigned int width, height, depth; /* in elements */
    unsigned int dims;        /* 1, 2 or 3; 0 for linear memory (tex1Dfetch) */
    unsigned int nchan;       /* channels per element, 1..4 */
    unsigned int chan_bytes;  /* bytes per channel: 1, 2 or 4 */
    unsigned int kind;        /* enum cudaChannelFormatKind */
    unsigned int read_mode;   /* enum cudaTextureReadMode (objects; a reference's is its
                                 template argument) */
    unsigned int filter;      /* enum cudaTextureFilterMode */
    unsigned int normalized;  /* normalized coordinates */
    unsigned int address[3];  /* enum cudaTextureAddressMode per dimension */
    float border[4];          /* border colour (cudaAddressModeBorder) */
} XgpuTexDesc;

XGPU_CUDA_BEGIN_C

struct cudaChannelFormatDesc cudaCreateChannelDesc(int x, int y, int z, int w,
                                                   enum cudaChannelFormatKind f);
cudaError_t cudaGetChannelDesc(struct cudaChannelFormatDesc *desc, cudaArray_const_t array);

cudaError_t cudaMallocArray(cudaArray_t *array, const struct cudaChannelFormatDesc *desc,
                            size_t width, size_t height XGPU_CUDA_DEFAULT(0),
                            unsigned int flags XGPU_CUDA_DEFAULT(0));
cudaError_t cudaMalloc3DArray(cudaArray_t *array, const struct cudaChannelFormatDesc *desc,
                              struct cudaExtent extent, unsigned int flags XGPU_CUDA_DEFAULT(0));
cudaError_t cudaFreeArray(cudaArray_t array);
cudaError_t cudaArrayGetInfo(struct cudaChannelFormatDesc *desc, struct cudaExtent *extent,
                             unsigned int *flags, cudaArray_t array);
cudaError_t cudaMemcpyToArray(cudaArray_t dst, size_t wOffset, size_t hOffset, const void *src,
                              size_t count, enum cudaMemcpyKind kind);
cudaError_t cudaMemcpyFromArray(void *dst, cudaArray_const_t src, size_t wOffset,
                                size_t hOffset, size_t count, enum cudaMemcpyKind kind);
cudaError_t cudaMemcpy2DToArray(cudaArray_t dst, size_t wOffset, size_t hOffset,
                                const void *src, size_t spitch, size_t width, size_t height,
                                enum cudaMemcpyKind kind);
cudaError_t cudaMemcpy2DFromArray(void *dst, size_t dpitch, cudaArray_const_t src,
                                  size_t wOffset, size_t hOffset, size_t width, size_t height,
                                  enum cudaMemcpyKind kind);
cudaError_t cudaMemcpy2DToArrayAsync(cudaArray_t dst, size_t wOffset, size_t hOffset,
                                     const void *src, size_t spitch, size_t width,
                                     size_t height, enum cudaMemcpyKind kind,
                                     cudaStream_t stream XGPU_CUDA_DEFAULT(0));
cudaError_t cudaMemcpy3D(const struct cudaMemcpy3DParms *p);
cudaError_t cudaMemcpy3DAsync(const struct cudaMemcpy3DParms *p,
                              cudaStream_t stream XGPU_CUDA_DEFAULT(0));
cudaError_t cudaMalloc3D(struct cudaPitchedPtr *pitchedDevPtr, struct cudaExtent extent);

cudaError_t cudaBindTexture(size_t *offset, const struct textureReference *texref,
                            const void *devPtr, const struct cudaChannelFormatDesc *desc,
                            size_t size XGPU_CUDA_DEFAULT(~(size_t)0));
cudaError_t cudaBindTexture2D(size_t *offset, const struct textureReference *texref,
                              const void *devPtr, const struct cudaChannelFormatDesc *desc,
                              size_t width, size_t height, size_t pitch);
cudaError_t cudaBindTextureToArray(const struct textureReference *texref, cudaArray_const_t array,
                                   const struct cudaChannelFormatDesc *desc);
cudaError_t cudaUnbindTexture(const struct textureReference *texref);
cudaError_t cudaGetTextureAlignmentOffset(size_t *offset, const struct textureReference *texref);
cudaError_t cudaBindSurfaceToArray(const struct surfaceReference *surfref, cudaArray_const_t array,
                                   const struct cudaChannelFormatDesc *desc);

cudaError_t cudaCreateTextureObject(cudaTextureObject_t *tex, const struct cudaResourceDesc *res,
                                    const struct cudaTextureDesc *texDesc,
                                    const struct cudaResourceViewDesc *view);
cudaError_t cudaDestroyTextureObject(cudaTextureObject_t tex);
cudaError_t cudaGetTextureObjectResourceDesc(struct cudaResourceDesc *res, cudaTextureObject_t tex);
cudaError_t cudaGetTextureObjectTextureDesc(struct cudaTextureDesc *desc, cudaTextureObject_t tex);
cudaError_t cudaCreateSurfaceObject(cudaSurfaceObject_t *surf, const struct cudaResourceDesc *res);
cudaError_t cudaDestroySurfaceObject(cudaSurfaceObject_t surf);

/* Registration of texture and surface references (clang's host code calls these). */
void __cudaRegisterTexture(void **fatCubinHandle, const void *hostVar, const void *deviceAddress,
                           const char *deviceName, int dim, int norm, int ext);
void __cudaRegisterSurface(void **fatCubinHandle, const void *hostVar, const void *deviceAddress,
                           const char *deviceName, int dim, int ext);

XGPU_CUDA_END_C

#ifdef __cplusplus
static __inline__ struct cudaExtent make_cudaExtent(size_t w, size_t h, size_t d)
{
    struct cudaExtent e = {w, h, d};
    return e;
}
static __inline__ struct cudaPos make_cudaPos(size_t x, size_t y, size_t z)
{
    struct cudaPos p = {x, y, z};
    return p;
}
static __inline__ struct cudaPitchedPtr make_cudaPitchedPtr(void *d, size_t p, size_t xsz,
                                                            size_t ysz)
{
    struct cudaPitchedPtr s = {d, p, xsz, ysz};
    return s;
}
#endif

#pragma GCC visibility pop

#endif
