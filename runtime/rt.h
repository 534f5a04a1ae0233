/*
 * rt.h - private to libxgpurt: the process-wide runtime context and the helpers the API
 * group files share.
 *
 * Model. Global constructors register fat binaries, kernels and variables before main
 * runs; registration only records (RtFatbin lists). The first call that needs the device
 * creates it (emu_create, configured from the environment) and each fat binary is loaded
 * (emu_load) the first time one of its kernels or symbols is used. All state lives in
 * one RtContext reached through rt_ctx(), the runtime's only global.
 *
 * Errors. rt_error() records a failing call's code as the last error (cleared by
 * cudaGetLastError). A guest fault, or a device that could not be created, sets
 * `sticky`: rt_device() then returns it from every call that touches the device, until
 * cudaDeviceReset. The runtime is meant for one host thread; it never exits or aborts.
 *
 * Handles. Streams, events and pinned host blocks are kept in lists owned by the
 * context; a handle is valid while it is on its list, so a destroyed handle is recognized
 * without reading freed memory. A reset destroys streams and events (as CUDA does) and
 * restores the limits and cache preferences; pinned host memory stays valid.
 *
 * Device printf. The emulator buffers kernels' printf output; rt_sync() writes it to
 * stdout at each point where CUDA flushes it (synchronizing calls, blocking copies, the
 * start of a launch, reset, exit).
 */
#ifndef XGPU_RT_H
#define XGPU_RT_H

#include <stddef.h>
#include <stdint.h>

#include "xgpu/cuda/cuda_runtime_api.h"
#include "xgpu/emu.h"
#include "xgpu/hostsec.h"

typedef struct RtFatbin RtFatbin;

/* A __global__ function: host stub -> kernel name (index resolved at load). */
typedef struct RtFunc {
    const void *stub;
    char *name;
    int kernel;          /* index in the module, -1 when absent */
    int max_dyn_shared;  /* cudaFuncAttributeMaxDynamicSharedMemorySize, -1 = default */
    int carveout;        /* cudaFuncAttributePreferredSharedMemoryCarveout */
} RtFunc;

/* A __device__/__constant__ variable: host shadow -> device symbol. */
typedef struct RtVar {
    const void *shadow;
    char *name;
    size_t size;
    int constant;
} RtVar;

struct RtFatbin {
    const void *data;        /* the XFatHeader clang's wrapper points at */
    RtFunc *funcs;
    size_t nfuncs, capfuncs;
    RtVar *vars;
    size_t nvars, capvars;
    EmuModule *mod;          /* NULL until loaded on the current device */
    cudaError_t load_error;  /* why loading failed, cudaSuccess when it did not */
    RtFatbin *next;
};

/* One pending <<<>>> configuration (pushed by the caller, popped by the stub). */
typedef struct RtLaunchConfig {
    dim3 grid, block;
    size_t shared;
    cudaStream_t stream;
} RtLaunchConfig;

enum { RT_MAX_PENDING_CONFIGS = 16 };

struct CUstream_st {
    struct CUstream_st *next;
    unsigned flags;
    int priority;
};

struct CUevent_st {
    struct CUevent_st *next;
    unsigned flags;
    int recorded;
    uint64_t ns; /* emulated device time at the record */
};

/* A cudaMallocHost / cudaHostAlloc block. */
typedef struct RtHostBlock {
    struct RtHostBlock *next;
    void *ptr;
    unsigned flags;
} RtHostBlock;

enum { RT_NLIMITS = 7 }; /* cudaLimitStackSize .. cudaLimitPersistingL2CacheSize */

/* What a program may set on the device; cudaDeviceReset restores the defaults. */
typedef struct RtSettings {
    size_t limits[RT_NLIMITS];
    enum cudaFuncCache cache;
    enum cudaSharedMemConfig shmem;
    unsigned flags; /* cudaSetDeviceFlags */
} RtSettings;

/* One registered host section (xgpu_atoms or xgpu_ldesc of one linked image): its
 * bytes, and where its records start among all records of that kind. */
typedef struct RtHostSec {
    const uint8_t *begin, *end;
    size_t first, count;
} RtHostSec;

enum { RT_MAX_HOST_SECS = 16 };

/* A maximal address range mapped to one atom; the list is sorted and disjoint. */
typedef struct RtAtomRange {
    uint64_t lo, hi;
    uint8_t atom;
} RtAtomRange;

/* XMem: the Global Attribute Table, the mapping (what the AAM holds), the AST. */
typedef struct RtXmem {
    RtHostSec secs[RT_MAX_HOST_SECS];
    int nsecs;
    XHostAtom *gat;       /* every atom record, IDs are indices */
    size_t ngat;
    uint8_t created[32];  /* bit i: CreateAtom of atom i has run */
    uint8_t ast[32];      /* Atom Status Table: bit i = atom i active */
    RtAtomRange *ranges;
    size_t nranges, capranges;
} RtXmem;

/* The descriptors that applied to the last launch of one kernel. */
typedef struct RtLDescLaunch {
    const void *stub;
    uint64_t launch;
    XLDescInfo *v;
    size_t n;
} RtLDescLaunch;

/* Locality Descriptors: the static table, the descriptors in force, per-launch records. */
typedef struct RtLDescs {
    RtHostSec secs[RT_MAX_HOST_SECS];
    int nsecs;
    XHostLDesc *table;
    size_t ntable;
    XLDescInfo *active;     /* in force: one per (site, kernel), in specification order */
    size_t nactive;
    RtLDescLaunch *kernels; /* one per kernel launched with descriptors */
    size_t nkernels;
    uint64_t launches;      /* launches so far */
} RtLDescs;

typedef struct RtContext {
    RtFatbin *fatbins;
    EmuDevice *dev;
    cudaError_t sticky; /* guest fault or failed device creation */
    cudaError_t last;   /* last error of a call, for cudaGetLastError */
    RtLaunchConfig pending[RT_MAX_PENDING_CONFIGS];
    int npending;
    char *stats_path;   /* XGPU_STATS at device creation, or NULL */
    int exit_hook;      /* atexit handler installed */
    int launch_blocking; /* CUDA_LAUNCH_BLOCKING=1: printf is flushed after launches too */
    struct CUstream_st *streams;
    struct CUevent_st *events;
    RtHostBlock *host_blocks;
    RtSettings set;
    RtXmem xmem;
    RtLDescs ld;
} RtContext;

RtContext *rt_ctx(void);

/* context.c */
cudaError_t rt_device(RtContext *c, EmuDevice **dev);
cudaError_t rt_fatbin_load(RtContext *c, RtFatbin *fb);
int rt_find_func(RtContext *c, const void *stub, RtFatbin **fb, RtFunc **fn);
int rt_find_var(RtContext *c, const void *shadow, RtFatbin **fb, RtVar **var);
void rt_shutdown(RtContext *c);
void rt_reset(RtContext *c);
void rt_sync(RtContext *c);
uint64_t rt_device_time_ns(RtContext *c);

/* stream.c */
int rt_stream_ok(RtContext *c, cudaStream_t s);
void rt_streams_free(RtContext *c);

/* device.c */
void rt_fill_props(struct cudaDeviceProp *d, const EmuProps *p);

/* error.c */
cudaError_t rt_error(RtContext *c, cudaError_t e);
cudaError_t rt_from_emu(EmuStatus s);
int rt_is_fault(EmuStatus s);
cudaError_t rt_unsupported(const char *api);

/* memory.c */
int rt_is_device_ptr(RtContext *c, const void *p);
cudaError_t rt_copy(RtContext *c, void *dst, const void *src, size_t n, enum cudaMemcpyKind kind);
cudaError_t rt_memset(RtContext *c, void *dst, int value, size_t n);

/* launch.c */
cudaError_t rt_kernel_of(RtContext *c, const void *func, RtFatbin **fb, RtFunc **fn);
const XKernel *rt_xkernel(const RtFatbin *fb, const RtFunc *fn);

/* hosttab.c */
int rt_hostsec_of(const RtHostSec *secs, int n, const void *p);
int rt_hostsec_known(const RtHostSec *secs, int n, const void *begin);

/* xmem.c */
void rt_xmem_register(RtContext *c, const void *begin, const void *end);

/* ldesc.c */
void rt_ldesc_register(RtContext *c, const void *begin, const void *end);
void rt_ldesc_launch(RtContext *c, const void *stub);
void rt_ldesc_reset(RtContext *c);

/* func.c */
uint64_t rt_max_dynamic_shared(const EmuProps *p, const XKernel *k, const RtFunc *fn);

/* Device addresses travel through the API as void *. */
static inline uint64_t rt_addr(const void *p) { return (uint64_t)(uintptr_t)p; }
static inline void *rt_ptr(uint64_t a) { return (void *)(uintptr_t)a; }

#endif
