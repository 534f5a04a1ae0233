/*
 * device.h - the emulator's internal device and module structs, shared by the files of
 * libxgpuemu (not installed).
 *
 * A device owns its configuration, derived properties, the memory table, every loaded
 * module (freed by emu_destroy: emu.h has no unload), the log of launches, the printf
 * FIFO and the emulated clock.
 */
#ifndef EMU_DEVICE_H
#define EMU_DEVICE_H

#include "xgpu/emu.h"
#include "config/config.h"
#include "func/exec.h"
#include "func/memory.h"
#include "hints.h"
#include "uvm.h"

/* One CABA assist routine of a module's .xgpu.assist section, decoded. */
typedef struct EmuAssistCode {
    const XAssist *a;   /* its record (name, algo, dir, nregs, param_bytes) */
    EmuKernelCode code; /* decoded like a kernel; code.nrows as for a kernel with a->nregs */
    XKernel k;          /* a kernel record for it (name, nregs, param_bytes, code_count), for
                         * execution contexts */
} EmuAssistCode;

struct EmuModule {
    EmuDevice *dev;
    XGpubin *bin;
    int bin_from_reader;  /* 1: free with xgpubin_free, 0: our deep copy */
    uint64_t *gaddr;      /* device address of each global */
    EmuKernelCode *kcode; /* per kernel */
    EmuAssistCode *assist; /* per assist routine of bin (bin->nassist), or NULL */
};

struct EmuDevice {
    EmuConfig cfg;
    EmuProps props;
    EmuMem mem;
    EmuUvm uvm;            /* managed pages (uvm.c) */
    EmuHintTable hints;    /* atoms and descriptors for the launches (hints.c) */
    EmuModule **mods;
    size_t nmods;
    EmuLaunchStats *launches;
    size_t nlaunches, caplaunches;
    EmuPrintf printf_fifo; /* device printf output waiting for emu_printf_flush */
    uint64_t time_ns;      /* emulated time, the sum of the launches' emulated_ns */
    struct EmuSeries *series; /* stats/series.c: interval series (or NULL) */
    struct EmuProgress *progress; /* stats/progress.c: progress line state (or NULL) */
    struct TmLog *tm_log;  /* timing/gpu.c: each timing launch's counters (or NULL) */
    struct MemSys *tm_mem; /* timing/gpu_setup.c: the memory system kept between launches */
    struct EmuReuseProf *reuse_prof; /* func/reuse_prof.c: reuse profiling (or NULL) */
    /* peer access (emu_peer_enable): the devices whose memory this one's kernels reach,
     * and those whose kernels reach this one's */
    struct EmuDevice *peers[16], *peered_by[16];
    uint32_t npeers, npeered_by;
};

/* func/reuse_prof.c */
void emu_reuse_profile_free(EmuDevice *d);

/* decode.c */
int emu_decode_kernel(const XGpubin *g, uint32_t k, const uint64_t *gaddr, EmuKernelCode *out,
                      char *err, size_t n);
void emu_code_free(EmuKernelCode *c);

/* launch.c: fills *f from the fault x reports in warp w (x bound to w's CTA), at the pc
 * of w's running entry (or barrier); _at names the pc. */
void emu_fill_fault(EmuFault *f, const EmuExec *x, const EmuModule *m, const XKernel *k,
                    const EmuWarp *w);
void emu_fill_fault_at(EmuFault *f, const EmuExec *x, const EmuModule *m, const XKernel *k,
                       const EmuWarp *w, uint32_t pc);

/* module.c */
void emu_module_free(EmuModule *m);
/* The module's routine for (algo, dir), or NULL when its binary has none. */
const EmuAssistCode *emu_module_assist(const EmuModule *m, unsigned algo, unsigned dir);

/* stats.c */
void emu_stats_record(EmuDevice *d, const EmuLaunchStats *s);

#endif
