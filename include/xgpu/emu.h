/*
 * emu.h - the emulator's device API (libxgpuemu).
 *
 * A small C interface in the spirit of a driver API: create a device, load gpubin
 * modules, allocate and copy device memory, launch kernels, read statistics. The CUDA
 * runtime (libxgpurt) is a thin layer over it, and tests drive it directly. The
 * emulator never calls back into its user and never exits the process: every call
 * returns an EmuStatus, and guest faults are reported as data (EmuFault) and a status.
 *
 * Device addresses are 64-bit values in the device's own address space (see isa.h for
 * the global/shared/local/param windows); they are not host pointers.
 */
#ifndef XGPU_EMU_H
#define XGPU_EMU_H

/* The project's libraries hide every symbol but those declared in its public headers. */
#pragma GCC visibility push(default)

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "xgpu/gpubin.h"

typedef enum EmuStatus {
    EMU_OK = 0,
    EMU_ERR_INVALID_VALUE,     /* bad argument (size, pointer, dimension) */
    EMU_ERR_OUT_OF_MEMORY,     /* device allocation failed */
    EMU_ERR_INVALID_IMAGE,     /* malformed gpubin */
    EMU_ERR_NOT_FOUND,         /* no such kernel / symbol */
    EMU_ERR_INVALID_CONFIG,    /* launch configuration exceeds the device's limits */
    EMU_ERR_ILLEGAL_ADDRESS,   /* guest fault: bad address (sticky) */
    EMU_ERR_MISALIGNED,        /* guest fault: misaligned access (sticky) */
    EMU_ERR_LAUNCH_FAILURE,    /* guest fault: trap, bad instruction (sticky) */
    EMU_ERR_LAUNCH_TIMEOUT,    /* instruction budget exhausted (sticky) */
    EMU_ERR_DEADLOCK,          /* barrier deadlock (sticky) */
    EMU_ERR_OUT_OF_RESOURCES,  /* too many registers/shared bytes for one SM */
} EmuStatus;

const char *emu_status_name(EmuStatus s);

typedef struct EmuDevice EmuDevice;
typedef struct EmuModule EmuModule;

typedef struct EmuDim3 {
    uint32_t x, y, z;
} EmuDim3;

/* What the device looks like (filled from the configuration). */
typedef struct EmuProps {
    char name[64];
    uint32_t sm_count;
    uint32_t warp_size;
    uint32_t max_threads_per_block;
    uint32_t max_threads_per_sm;
    uint32_t max_blocks_per_sm; /* resident CTAs per SM (core.max_ctas_per_sm) */
    uint32_t max_block_dim[3];
    uint32_t max_grid_dim[3];
    uint32_t regs_per_sm;
    uint32_t regs_per_block;
    uint64_t shared_per_block;
    uint64_t shared_per_sm;
    uint64_t global_mem_bytes;
    uint64_t const_mem_bytes;
    uint32_t clock_khz;
    uint32_t cc_major, cc_minor; /* compute capability reported to programs */
    /* Which device of its system it is (0 .. gpus - 1), and its part of the global
     * window: its allocations lie in [global_base, global_limit), disjoint from every
     * other device's, so an address names its device. */
    uint32_t gpu_index, gpus;
    /* The GPUs (or GPU modules) the device is made of: 1, or system.gpus with
     * system.memory = shared or numa (docs/multi-gpu.md); sm_count counts all their SMs
     * and global_mem_bytes all their memory. */
    uint32_t device_gpus;
    uint64_t global_base, global_limit;
} EmuProps;

/* The memory space and kind of access of a memory fault (EmuFault.space, .access). */
typedef enum EmuSpace {
    EMU_SPACE_NONE = 0, /* not a memory fault */
    EMU_SPACE_GLOBAL,
    EMU_SPACE_SHARED,
    EMU_SPACE_LOCAL,
    EMU_SPACE_PARAM,
    EMU_SPACE_CONST,
} EmuSpace;

typedef enum EmuAccess {
    EMU_ACCESS_NONE = 0,
    EMU_ACCESS_READ,
    EMU_ACCESS_WRITE,
    EMU_ACCESS_ATOMIC,
} EmuAccess;

/* A guest fault, as much as is known. */
typedef struct EmuFault {
    EmuStatus status;
    char kernel[128];
    EmuDim3 block, thread;
    uint32_t pc;          /* kernel-relative */
    uint64_t address;     /* faulting address, when one is involved */
    const char *file;     /* source file (from .xgpu.lines), or NULL */
    uint32_t line;        /* source line, or 0 */
    char message[256];    /* one line, e.g. "load of 4 bytes at 0x... outside any allocation" */
    /* Memory faults: the space the address resolved to (a generic address is classified
     * by window), the access and its size in bytes; EMU_SPACE_NONE, EMU_ACCESS_NONE and
     * 0 for other faults. */
    EmuSpace space;
    EmuAccess access;
    uint32_t size;
} EmuFault;

/* The compute-sanitizer style title of a fault, e.g. "Invalid __shared__ read of size 4
 * bytes" for memory faults (from space, access and size; "__global__" also for const),
 * "Kernel timed out (instruction budget exhausted)", "Barrier deadlock" or "Launch
 * failure". Returns buf. */
const char *emu_fault_title(const EmuFault *f, char *buf, size_t n);
/* Writes the fault to out as compute-sanitizer does: the title (after `prefix`, e.g.
 * "Warning: ", may be NULL), the kernel and pc (with file:line when known), the thread
 * and block, the address and message; every line starts with "=========". */
void emu_fault_print(FILE *out, const EmuFault *f, const char *prefix);

/* Per-launch statistics (functional mode). */
typedef struct EmuLaunchStats {
    char kernel[128];
    EmuDim3 grid, block;
    uint64_t shared_dynamic;
    uint64_t warp_instructions;   /* warp-level instructions issued */
    uint64_t thread_instructions; /* sum over issued instructions of active lanes */
    double host_seconds;          /* wall time spent emulating this launch */
    double host_cpu_seconds;      /* CPU time of the process spent emulating it (every
                                   * thread's; what a loaded machine does not inflate) */
    EmuStatus status;
    uint64_t emulated_ns;         /* emulated duration (see emu_device_time_ns) */
    uint64_t printf_bytes;        /* device printf output appended to the FIFO */
    uint64_t printf_dropped;      /* device printf output dropped: the FIFO was full */
    uint64_t cycles;              /* timing mode: core cycles the launch took; 0 in
                                   * functional mode */
    uint64_t invalid_accesses;    /* emu.memcheck = warn or off: accesses (one per lane)
                                   * that failed the memory check and were let through
                                   * (reads returned 0, writes dropped); 0 with on */
} EmuLaunchStats;

/* Creation. The device reads its configuration from the environment (XGPU_CONFIG,
 * XGPU_SET, XGPU_MODE, ...); a bad value fails with EMU_ERR_INVALID_CONFIG and a
 * message naming the key. */
EmuStatus emu_create(EmuDevice **out, char *err, size_t errlen);
/* A device configured by config (a preset name or file, as XGPU_CONFIG; NULL: none) and
 * set ("key=value;...", as XGPU_SET; NULL: none) alone: the environment is not read, so
 * one process can hold devices of different configurations. Devices share nothing: each
 * has its own memory, modules, statistics and memory system. */
EmuStatus emu_create_with(EmuDevice **out, const char *config, const char *set, char *err,
                          size_t errlen);
void emu_destroy(EmuDevice *d);
const EmuProps *emu_props(const EmuDevice *d);

/* A system: the GPUs one configuration describes (system.gpus, docs/multi-device.md;
 * with system.memory = shared or numa they form one device, docs/multi-gpu.md),
 * read once from the environment (emu_system_create) or from config and set as
 * emu_create_with takes them. emu_system_device makes GPU i of it, a device like any
 * other (its own memory, in its own part of the global window, modules, statistics and
 * memory system), which the caller destroys with emu_destroy, before the system.
 * emu_create is GPU 0 of the environment's system. */
typedef struct EmuSystem EmuSystem;
EmuStatus emu_system_create(EmuSystem **out, char *err, size_t errlen);
EmuStatus emu_system_create_with(EmuSystem **out, const char *config, const char *set,
                                 char *err, size_t errlen);
/* The devices the system shows: system.gpus, or 1 when its GPUs form one device. */
uint32_t emu_system_gpus(const EmuSystem *s);
/* GPU i's part of the global window, before the device exists (EmuProps.global_base,
 * .global_limit of the device emu_system_device makes). */
void emu_system_range(const EmuSystem *s, uint32_t i, uint64_t *base, uint64_t *limit);
EmuStatus emu_system_device(EmuSystem *s, uint32_t i, EmuDevice **out, char *err,
                            size_t errlen);
void emu_system_destroy(EmuSystem *s);
/* Peer access between separate devices (docs/multi-device.md): from now on d's kernels
 * reach peer's memory as their own (functionally; in timing mode over d's link,
 * system.link_*, system.peer_latency). EMU_ERR_INVALID_VALUE when d is peer or either
 * is NULL; enabling twice is harmless. disable undoes it; destroying either device does
 * too. */
EmuStatus emu_peer_enable(EmuDevice *d, EmuDevice *peer);
void emu_peer_disable(EmuDevice *d, EmuDevice *peer);

/* Memento reuse profiling (docs/hints.md; XGPU_REUSE_PROFILE=FILE in the runtime): from
 * now on the first warps of each kernel (emu.reuse_profile_warps) record the dynamic
 * reuse distance of every operand; emu_reuse_profile_write writes the near/far counts
 * to path (format: emulator/func/reuse_prof.c), which xgpu-cc --reuse-profile reads.
 * write returns 0 (also when not profiling), or -1 with a message in err. */
EmuStatus emu_reuse_profile_start(EmuDevice *d, const char *path);
int emu_reuse_profile_write(EmuDevice *d, char *err, size_t errlen);

/* Modules. The image is a gpubin ELF; globals are allocated and initialized here. */
EmuStatus emu_load(EmuDevice *d, const void *image, size_t len, EmuModule **out, char *err,
                   size_t errlen);
/* Loads a module the caller has in memory (e.g. from xasm_assemble), copying everything
 * it needs: g may be freed afterwards. Same checks and effects as emu_load. */
EmuStatus emu_load_module(EmuDevice *d, const XGpubin *g, EmuModule **out, char *err,
                          size_t errlen);
const XGpubin *emu_module_bin(const EmuModule *m);
/* Finds a kernel by name: returns its index in emu_module_bin(m)->kernels, or -1. */
int emu_kernel(const EmuModule *m, const char *name);
/* Whether kernel k has a grid-wide barrier (gsync: cooperative groups' grid sync), so that
 * every block of a launch must be resident at once. */
int emu_kernel_grid_sync(const EmuModule *m, int k);
/* Device address and size of a __device__/__constant__ symbol. */
EmuStatus emu_symbol(const EmuModule *m, const char *name, uint64_t *addr, uint64_t *size);

/* Memory. emu_free of an address that is not the start of a live allocation fails with
 * EMU_ERR_INVALID_VALUE. Copies check both ends against live allocations. */
EmuStatus emu_malloc(EmuDevice *d, uint64_t bytes, uint64_t *addr);
/* An allocation whose bytes are host memory the caller provides (managed memory: the
 * host program uses the same addresses, so there is one copy). The address is aligned to
 * `align` (a power of two, at least 256); map(ctx, addr, reserved) must return `reserved`
 * bytes (bytes rounded up to align) of host memory for it, or NULL to fail the allocation
 * (EMU_ERR_OUT_OF_MEMORY). No other allocation's addresses fall inside [addr, addr +
 * reserved). The device never frees that memory: the caller releases it after emu_free
 * (or after the device is destroyed). */
typedef void *(*EmuMapFn)(void *ctx, uint64_t addr, uint64_t reserved);
EmuStatus emu_malloc_mapped(EmuDevice *d, uint64_t bytes, uint64_t align, EmuMapFn map,
                            void *ctx, uint64_t *addr);
EmuStatus emu_free(EmuDevice *d, uint64_t addr);
EmuStatus emu_copy_to_device(EmuDevice *d, uint64_t dst, const void *src, uint64_t bytes);
EmuStatus emu_copy_from_device(EmuDevice *d, void *dst, uint64_t src, uint64_t bytes);
EmuStatus emu_copy_device(EmuDevice *d, uint64_t dst, uint64_t src, uint64_t bytes);
EmuStatus emu_memset(EmuDevice *d, uint64_t dst, int value, uint64_t bytes);
/* Bytes allocated now, and the device's capacity. */
void emu_mem_info(const EmuDevice *d, uint64_t *used, uint64_t *total);

/* Unified memory (docs/unified-memory.md): where managed pages are, for timing mode's
 * migration cost. emu_uvm_add registers [addr, addr+bytes) (inside an allocation,
 * overlapping no registered range) with every page not yet touched; emu_uvm_remove
 * forgets the range starting at addr. Before a launch, emu_uvm_sync_in brings the device
 * up to date with the host's bytes at src and marks the pages the host changed
 * host-resident; after it, emu_uvm_sync_out gives the host the device's bytes. For a
 * range in an allocation from emu_malloc_mapped, src and dst must be the allocation's own
 * host memory (one copy): sync_in finds the host's changes by a 64-bit digest of every
 * 4 KiB piece, taken by sync_out (and emu_uvm_add); otherwise sync_in copies the bytes that
 * differ from the device's copy and sync_out copies the range out. emu_uvm_prefetch makes
 * the pages of a part of a registered range resident on the device (to_device) or, when
 * they are, on the host. */
EmuStatus emu_uvm_add(EmuDevice *d, uint64_t addr, uint64_t bytes);
void emu_uvm_remove(EmuDevice *d, uint64_t addr);
EmuStatus emu_uvm_sync_in(EmuDevice *d, uint64_t addr, const void *src, uint64_t bytes);
EmuStatus emu_uvm_sync_out(EmuDevice *d, uint64_t addr, void *dst, uint64_t bytes);
EmuStatus emu_uvm_prefetch(EmuDevice *d, uint64_t addr, uint64_t bytes, int to_device);

/* Hints the runtime holds, for the launches that follow (docs/architecture.md, "Hints
 * on the data path"): the XMem atoms' address ranges with the Atom Status Table, and the
 * Locality Descriptors in force for the next launch. Every memory request of the timing
 * model carries the atom and the descriptor its address falls in. emu_set_hints copies
 * what it is given and replaces what the device held; NULL clears everything. */
typedef struct EmuAtomRange {
    uint64_t lo, hi;  /* [lo, hi), disjoint, sorted by lo */
    uint8_t atom;     /* 0..254 */
} EmuAtomRange;
typedef struct EmuDescRange {
    uint64_t base, bytes; /* the descriptor's data structure */
    uint32_t id;          /* the descriptor's site: its record among all descriptor tables */
    /* the rest of the descriptor (<xgpu/ldesc.h>; 0 where not given) */
    uint8_t locality, sharing, pattern, priority; /* XLDLocality, XLDSharing, XLDPattern */
    uint8_t map[3];       /* compute-data map */
    uint32_t elem_size;   /* bytes */
    uint32_t dtile[3];    /* D-Tile, in elements */
    uint32_t ctile[3];    /* C-Tile, in CTAs */
    int64_t stride;       /* elements */
} EmuDescRange;
/* An atom's attributes (<xgpu/xmem.h>'s XMemAttrs: the Global Attribute Table's record),
 * from which the hardware fills its private attribute tables. */
typedef struct EmuAtomAttr {
    uint32_t value_props;
    uint8_t pattern;    /* XMemPattern: 0 none, 1 REGULAR, 2 IRREGULAR, 3 NON_DET */
    uint8_t rw;         /* XMemRW: 0 read only, 1 read-write, 2 write only */
    uint8_t intensity;  /* 0 = coldest */
    uint8_t reuse;
    uint16_t elem_size; /* bytes, 0 = unknown */
    int64_t stride;     /* bytes */
} EmuAtomAttr;
typedef struct EmuHints {
    const EmuAtomRange *atoms;
    size_t natoms;
    uint8_t active[32];       /* bit i: atom i is active (AtomActivate) */
    const EmuAtomAttr *attrs; /* [nattrs]: atom i's attributes (NULL: none known) */
    size_t nattrs;
    const EmuDescRange *descs;
    size_t ndescs;
} EmuHints;
EmuStatus emu_set_hints(EmuDevice *d, const EmuHints *h);

/* Runs kernel `kernel` of module m to completion. params points to param_bytes bytes laid
 * out as the kernel's XParam table says. On a guest fault returns its status and fills
 * *fault (if non-NULL); stats (if non-NULL) receive this launch's figures either way. */
EmuStatus emu_launch(EmuDevice *d, EmuModule *m, int kernel, EmuDim3 grid, EmuDim3 block,
                     uint64_t shared_dynamic, const void *params, size_t param_bytes,
                     EmuLaunchStats *stats, EmuFault *fault);

/* Device printf. Kernels append formatted output to a FIFO of `emu.printf_fifo_bytes`
 * (CUDA's cudaLimitPrintfFifoSize; output past it is dropped and counted); the host
 * side decides when to flush it (CUDA flushes at synchronization points).
 * emu_printf_flush writes what is buffered to out and empties the FIFO; it returns the
 * number of bytes taken out (out == NULL discards them), or -1 when d is NULL or the
 * write failed (the FIFO is emptied either way). emu_set_printf_fifo changes the limit
 * (bytes >= 1); it fails with EMU_ERR_INVALID_VALUE when more is buffered than fits. */
int emu_printf_flush(EmuDevice *d, FILE *out);
EmuStatus emu_set_printf_fifo(EmuDevice *d, uint64_t bytes);

/* Emulated device time in nanoseconds since the device was created: the sum over launches
 * of each launch's emulated duration. In functional mode a launch lasts
 * ceil(warp_instructions / (gpu.sm_count * gpu.issue_width)) cycles of gpu.clock_khz (an
 * estimate, documented in docs/emulator.md); the timing model replaces it with cycles. */
uint64_t emu_device_time_ns(const EmuDevice *d);

/* Statistics over the device's lifetime: every launch in order, and totals, as JSON
 * (schema in docs/stats.md). */
size_t emu_launch_count(const EmuDevice *d);
/* Timing mode: counter `name` (as in the stats JSON, e.g. "rf.bank_conflicts") of launch
 * i. EMU_ERR_NOT_FOUND when the name is not a counter or launch i has no timing
 * counters (functional mode); EMU_ERR_INVALID_VALUE for a bad d or i. */
EmuStatus emu_launch_counter(const EmuDevice *d, size_t i, const char *name, uint64_t *value);
const EmuLaunchStats *emu_launch_stats(const EmuDevice *d, size_t i);
/* The whole log as one document; 0, or -1 when writing failed or a stream has the
 * launches (emu_stats_stream). */
int emu_write_stats_json(const EmuDevice *d, FILE *f);

/* Statistics as the program runs (XGPU_STATS): the same document, written to path one
 * launch record as each launch finishes and completed by emu_stats_stream_end (or
 * emu_destroy); until then path keeps what it held (the document is written beside it,
 * to path.PID.part, and renamed). With a stream the device keeps no log: memory does
 * not grow with the launches, emu_launch_count still counts them all, and
 * emu_launch_stats / emu_launch_counter answer for the latest launch only. Both return
 * EMU_OK, or an error with its reason in err (errno's text: "Permission denied", ...);
 * a failed write does not affect the launches. */
EmuStatus emu_stats_stream(EmuDevice *d, const char *path, char *err, size_t errlen);
EmuStatus emu_stats_stream_end(EmuDevice *d, char *err, size_t errlen);

#pragma GCC visibility pop

#endif
