/*
 * ldesc.h - Locality Descriptors for host code (docs/annotations.md).
 *
 * A descriptor tells the GPU how one data structure is reused by one kernel: the data
 * (base, bytes, element size), the locality type (INTER_THREAD, INTRA_THREAD, NO_REUSE),
 * the tiles (D-Tile in elements, C-Tile in CTAs, and the compute-data map that ranks the
 * order in which C-Tile dimensions are walked), the sharing type (COACCESSED or NEARBY)
 * with an access pattern and stride, and a priority.
 *
 * The static parts (locality, sharing, pattern, map, priority, element size) are
 * compile-time constants kept in a per-call-site record; xgpu-cc's host pass checks them,
 * gathers them into the versioned `xgpu_ldesc` section, and rewrites the call to name its
 * record. The run-time parts (the kernel, base, bytes, tile dimensions, which may depend
 * on the grid, and the stride) are ordinary arguments. Specify a descriptor after the
 * data is copied to the device and before the launch; it applies to every later launch
 * of that kernel until the same call site specifies it again (the paper, ISCA 2018:
 * re-specified between launches). The runtime records, for each launch, the descriptors that applied to it.
 *
 * The histo example of the paper:
 *     XLDTile tile = {{X_TILE, Y_LEN, 1}, {1, grid.y, 1}};
 *     LocalityDescriptor(histo, d_in, bytes, &tile, 1,
 *                        XLD_INTER_THREAD, XLD_COACCESSED, XLD_REGULAR,
 *                        XLD_MAP(1, 0, 0), 1, sizeof(unsigned));
 * The trailing arguments are, in order: locality, sharing, pattern, map, priority,
 * element size (XLDStatic's field order). docs/annotations.md has the details.
 */
#ifndef XGPU_LDESC_H
#define XGPU_LDESC_H

/* The project's libraries hide every symbol but those declared in its public headers. */
#pragma GCC visibility push(default)

#include <stddef.h>
#include <stdint.h>

#include "cuda/cuda_runtime_api.h"

#ifdef __cplusplus
extern "C" {
#ifndef XGPU_CONSTEXPR
#define XGPU_CONSTEXPR constexpr
#endif
#else
#ifndef XGPU_CONSTEXPR
#define XGPU_CONSTEXPR const
#endif
#endif

enum XLDLocality {
    XLD_INTER_THREAD = 1, /* reused across threads: CTA clustering (+ prefetch/pinning) */
    XLD_INTRA_THREAD = 2, /* reused by the same thread: hard pinning */
    XLD_NO_REUSE = 3,     /* streamed: bypass */
};

enum XLDSharing {
    XLD_SHARING_NONE = 0,
    XLD_COACCESSED = 1, /* the CTAs of a C-Tile access the same data */
    XLD_NEARBY = 2,     /* they access nearby data */
};

enum XLDPattern {
    XLD_PATTERN_NONE = 0,
    XLD_REGULAR = 1, /* with a stride (elements) */
    XLD_IRREGULAR = 2,
};

/* The compute-data map: a ranking (1..3) of C-Tile dimensions, 0 = not walked. */
#define XLD_MAP(x, y, z) {(x), (y), (z)}

/* The static parts of a descriptor (one constant record per call site). */
typedef struct XLDStatic {
    uint8_t locality; /* XLDLocality */
    uint8_t sharing;  /* XLDSharing */
    uint8_t pattern;  /* XLDPattern */
    uint8_t map[3];   /* compute-data map */
    uint8_t priority; /* higher = more important */
    uint32_t elem_size;
} XLDStatic;

#define XLD_SITE_MAGIC 0x53444C58u /* "XLDS" */
typedef struct XLDSite {
    uint32_t magic; /* XLD_SITE_MAGIC */
    XLDStatic s;
    const char *file;
    unsigned line;
    unsigned column; /* where the call's expansion ends (__builtin_COLUMN) */
} XLDSite;

/* D-Tile dimensions in elements, C-Tile dimensions in CTAs. */
typedef struct XLDTile {
    uint32_t dtile[3];
    uint32_t ctile[3];
} XLDTile;

cudaError_t __xgpu_ldesc(const void *record, const void *kernel, const void *base,
                         size_t bytes, const XLDTile *tile, int64_t stride);

#define LocalityDescriptor(kernel, base, bytes, tile, stride, ...)                        \
    (__extension__({                                                                      \
        static XGPU_CONSTEXPR XLDSite xgpu_ld_site_ = {                                   \
            XLD_SITE_MAGIC, {__VA_ARGS__}, __FILE__, __LINE__, __builtin_COLUMN()};       \
        __xgpu_ldesc(&xgpu_ld_site_, (const void *)(kernel), (base), (bytes), (tile),     \
                     (stride));                                                           \
    }))

/* A descriptor as the runtime holds it. */
typedef struct XLDescInfo {
    XLDStatic s;
    const char *file; /* call site */
    unsigned line, column;
    const char *kernel_name; /* the kernel named in the table, "" when not static */
    const void *kernel;      /* host stub */
    uint64_t base, bytes;
    XLDTile tile;
    int64_t stride;
    int site;                /* ordinal of its record among all descriptor tables */
} XLDescInfo;

int xgpuLDescCount(void); /* descriptor records (call sites) in the program */
/* The descriptors that applied to the last launch of kernel: copies up to max of them
 * and returns how many there were, 0 when it was never launched with any, -1 for a
 * kernel the runtime does not know. *launch (may be NULL) receives that launch's number
 * (1 = first launch of the program). */
int xgpuLDescLastLaunch(const void *kernel, XLDescInfo *out, int max, uint64_t *launch);

#ifdef __cplusplus
}
#endif

#pragma GCC visibility pop

#endif
