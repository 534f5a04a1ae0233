/*
 * rt.h - private to libxgpurt: the process-wide runtime context and the helpers the API
 * group files share.
 *
 * Model. Global constructors register fat binaries, kernels and variables before main
 * runs; registration only records (RtFatbin lists). The first call that needs a device
 * makes the system (emu_system_create, configured from the environment: system.gpus
 * devices) and creates the current device (RtDev, one per device of the system); each
 * fat binary is loaded (emu_load) on a device the first time one of its kernels or
 * symbols is used there. All state lives in one RtContext reached through rt_ctx(), the
 * runtime's only global; what belongs to one device (its emulator device, managed
 * memory, settings, sticky error, statistics file) is in its RtDev, and c->d is the
 * calling thread's current one (set at every entry).
 *
 * Threads. One recursive mutex in the context serialises every entry into the runtime
 * and so every call into the emulator: each API function starts with RT_ENTER(c), which
 * locks and unlocks when the function returns (also from its own API calls, hence
 * recursive). Host callbacks run after the lock is released. What CUDA keeps per host
 * thread lives in RtThread (rt_thread(), thread-local): the last error, the current
 * device and the pending <<<>>> configurations; everything else is the process's.
 *
 * Errors. rt_error() records a failing call's code as the calling thread's last error
 * (cleared by cudaGetLastError). A guest fault, or a device that could not be created,
 * sets that device's `sticky`; a system that could not be made sets `init_error` for
 * every device. rt_device() then returns it from every call that touches the device,
 * until cudaDeviceReset. The runtime never exits or aborts.
 *
 * Handles. Streams, events and pinned host blocks are kept in lists owned by the
 * context; a handle is valid while it is on its list, so a destroyed handle is recognized
 * without reading freed memory. A reset destroys streams and events (as CUDA does) and
 * restores the limits and cache preferences; pinned host memory stays valid.
 *
 * Device printf. The emulator buffers kernels' printf output; rt_sync() writes it to
 * stdout at each point where CUDA flushes it (synchronizing calls, blocking copies, the
 * start of a launch, reset, exit), also once the device has faulted, so that what a
 * kernel printed before an assertion failed appears at the call that reports it.
 *
 * Managed memory (managed.c). A cudaMallocManaged block is a device allocation at a
 * page-aligned address whose bytes are host memory mapped at the same address: one copy,
 * used directly by the host program, by copies and sets, and by kernels. A __managed__
 * variable is a __device__ variable that xgpu-cc marks managed: its host shadow is its
 * host copy, kept current the same way (copied in before each launch, out after, and
 * around symbol copies to it), from the load of its module on.
 */
#ifndef XGPU_RT_H
#define XGPU_RT_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "xgpu/cuda/cuda_runtime_api.h"
#include "xgpu/emu.h"
#include "xgpu/hostsec.h"

typedef struct RtFatbin RtFatbin;

enum { RT_MAX_DEVICES = 16 }; /* system.gpus at most */

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
    EmuModule *mod[RT_MAX_DEVICES];          /* per device: NULL until loaded there */
    cudaError_t load_error[RT_MAX_DEVICES];  /* why loading failed there, or cudaSuccess */
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

/* A cudaMallocHost / cudaHostAlloc block, or a cudaHostRegister range. */
typedef struct RtHostBlock {
    struct RtHostBlock *next;
    void *ptr;
    size_t size;
    unsigned flags;
} RtHostBlock;

/* A cudaMallocManaged block: valid at ptr on the host and on the device. */
/* A __managed__ variable: its host shadow and its device copy. */
typedef struct RtManagedVar {
    struct RtManagedVar *next;
    void *shadow;
    uint64_t dev;
    size_t size;
    int uvm;        /* registered with emu_uvm_add (pages tracked) */
} RtManagedVar;

typedef struct RtManaged {
    struct RtManaged *next;
    uint64_t alloc; /* the device allocation (emu_malloc_mapped): ptr's address */
    uint8_t *ptr;   /* page-aligned; the allocation's bytes, mapped on the host */
    size_t size;    /* bytes asked for */
    size_t mapped;  /* host bytes mapped at ptr: size in whole pages */
} RtManaged;

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

/* A maximal address range mapped to one atom; the list is sorted and disjoint, as the
 * emulator takes it (emu_set_hints). */
typedef EmuAtomRange RtAtomRange;

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

/* One device of the system (cudaSetDevice's numbering): the emulator's device, created
 * on first use, and what the runtime keeps for it. */
typedef struct RtDev {
    EmuDevice *emu;
    int index;
    uint64_t base, limit; /* the device's part of the global window (EmuProps) */
    uint64_t hi;        /* end of the highest range handed out on this device */
    cudaError_t sticky; /* guest fault on this device */
    char *stats_path;   /* where its statistics go (XGPU_STATS, numbered past device 0) */
    RtManaged *managed;
    RtManagedVar *managed_vars; /* __managed__ variables of the modules loaded here */
    RtSettings set;
    uint32_t peers;     /* bit i: cudaDeviceEnablePeerAccess(i) was called on this device */
} RtDev;

typedef struct RtContext {
    pthread_mutex_t lock; /* recursive; held by every API call (RT_ENTER) */
    RtFatbin *fatbins;
    EmuSystem *sys;     /* the environment's system, made on first need */
    cudaError_t init_error; /* the system could not be made: every device call fails */
    int ndevs;          /* system.gpus */
    RtDev devs[RT_MAX_DEVICES];
    RtDev *d;           /* the calling thread's current device (set by rt_enter) */
    int exit_hook;      /* atexit handler installed */
    int launch_blocking; /* CUDA_LAUNCH_BLOCKING=1: printf is flushed after launches too */
    struct CUstream_st *streams;
    struct CUevent_st *events;
    RtHostBlock *host_blocks;
    RtHostBlock *host_regs; /* cudaHostRegister ranges (flags as registered) */
    RtXmem xmem;
    RtLDescs ld;
} RtContext;

/* What CUDA keeps per host thread. */
typedef struct RtThread {
    cudaError_t last; /* last error of a call, for cudaGetLastError */
    int device;       /* cudaSetDevice: an index below the system's device count */
    RtLaunchConfig pending[RT_MAX_PENDING_CONFIGS];
    int npending;
} RtThread;

RtContext *rt_ctx(void);
RtThread *rt_thread(void);

/* RT_ENTER(c) declares c, takes the context's lock and releases it when c goes out of
 * scope (GCC's and clang's cleanup attribute), so every return path unlocks. */
RtContext *rt_enter(void);
void rt_leave(RtContext **c);
#define RT_ENTER(c) RtContext *c __attribute__((cleanup(rt_leave))) = rt_enter()

/* context.c */
cudaError_t rt_device(RtContext *c, EmuDevice **dev);
cudaError_t rt_system(RtContext *c);
cudaError_t rt_valid_device(RtContext *c, int device);
cudaError_t rt_device_at(RtContext *c, int i, EmuDevice **dev);
RtDev *rt_dev_of(RtContext *c, const void *p);
/* The error every call touching the current device returns: the system's, or the
 * device's sticky fault. */
static inline cudaError_t rt_sticky(const RtContext *c)
{
    return c->init_error != cudaSuccess ? c->init_error : c->d->sticky;
}
static inline EmuModule *rt_mod(const RtContext *c, const RtFatbin *fb)
{
    return fb->mod[c->d->index];
}
cudaError_t rt_fatbin_load(RtContext *c, RtFatbin *fb);
int rt_find_func(RtContext *c, const void *stub, RtFatbin **fb, RtFunc **fn);
int rt_find_var(RtContext *c, const void *shadow, RtFatbin **fb, RtVar **var);
void rt_shutdown(RtContext *c);
void rt_reset(RtContext *c);
void rt_sync(RtContext *c);
uint64_t rt_device_time_ns(RtContext *c);
void rt_note_device_range(RtContext *c, uint64_t addr, uint64_t size);

/* fatbin.c */
int rt_fatbin_image(const void *data, const void **elf, size_t *len);

/* stream.c */
int rt_stream_ok(RtContext *c, cudaStream_t s);
void rt_streams_free(RtContext *c);

/* device.c */
void rt_fill_props(struct cudaDeviceProp *d, const EmuProps *p);

cudaError_t rt_error(RtContext *c, cudaError_t e);
cudaError_t rt_from_emu(EmuStatus s);
int rt_is_fault(EmuStatus s);
cudaError_t rt_unsupported(const char *api);

/* memory.c: what a pointer is, for copies and sets. */
typedef enum RtPtrKind {
    RT_PTR_HOST,    /* host memory: trusted, as with CUDA */
    RT_PTR_DEVICE,  /* an emulator address in the device window */
    RT_PTR_MANAGED, /* inside a managed block: host memory at a device address */
} RtPtrKind;
RtPtrKind rt_ptr_kind(RtContext *c, const void *p);
int rt_is_device_ptr(RtContext *c, const void *p);
cudaError_t rt_copy(RtContext *c, void *dst, const void *src, size_t n, enum cudaMemcpyKind kind);
cudaError_t rt_memset(RtContext *c, void *dst, int value, size_t n);

/* managed.c */
RtManaged *rt_managed_of(RtContext *c, const void *p);
int rt_managed_range(RtContext *c, const void *p, size_t n);
cudaError_t rt_managed_free(RtContext *c, void *p);
cudaError_t rt_managed_to_device(RtContext *c);
void rt_managed_to_host(RtContext *c);
/* the __managed__ variables only (around symbol copies) */
cudaError_t rt_managed_vars_to_device(RtContext *c);
void rt_managed_vars_to_host(RtContext *c);
void rt_managed_drop(RtDev *d);
cudaError_t rt_managed_vars_add(RtContext *c, RtFatbin *fb);
int rt_managed_var(RtContext *c, const void *shadow);
/* CUDA functions cuda_runtime_api.h does not declare yet (advice and device as int). */
cudaError_t cudaMemPrefetchAsync(const void *devPtr, size_t count, int dstDevice,
                                 cudaStream_t stream);
cudaError_t cudaMemAdvise(const void *devPtr, size_t count, int advice, int device);

/* hostmem.c */
void rt_host_regs_free(RtContext *c);

/* launch.c */
cudaError_t rt_kernel_of(RtContext *c, const void *func, RtFatbin **fb, RtFunc **fn);
const XKernel *rt_xkernel(const RtContext *c, const RtFatbin *fb, const RtFunc *fn);

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
