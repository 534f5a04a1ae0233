/*
 * uvm.h - where the pages of unified ("managed") memory are, and what a device touch of
 * one costs in timing mode (docs/unified-memory.md).
 *
 * The runtime registers each managed range (emu_uvm_add), tells the device before every
 * launch what the host wrote (emu_uvm_sync_in marks the pages the host changed
 * host-resident), lets it take stock after it (emu_uvm_sync_out) and passes
 * cudaMemPrefetchAsync on (emu_uvm_prefetch). A range whose bytes are the host's own
 * (emu_malloc_mapped, one copy) finds the host's changes by comparing a digest of every
 * UVM_PIECE bytes with the one taken after the last launch; any other range (a
 * __managed__ variable, whose host shadow is a second copy) compares the bytes. A page is
 * in one of three states: NEW (never touched by the device and not written by the host),
 * HOST and DEVICE. In timing mode the LD/ST unit asks uvm_touch about every global access:
 * the first touch of a NEW page costs a fault (um.fault_cycles), of a HOST page a fault
 * plus the copy over the host link (um.page_bytes / um.bytes_per_cycle); both then make
 * the page DEVICE. Faults are served one at a time in the order they are taken; an access
 * to a page whose migration is under way waits for it. Functional mode neither reads nor
 * changes the states.
 */
#ifndef EMU_UVM_H
#define EMU_UVM_H

#include <stdint.h>
#include "config/config.h"
#include "xgpu/emu.h"
#include "timing/timing.h"
#include "func/memory.h"

typedef struct UvmRange {
    uint64_t base, size;  /* device addresses; pages are um.page_bytes-aligned pieces */
    uint64_t first;       /* base / page_bytes */
    uint8_t *state;       /* per page: UVM_NEW, UVM_HOST, UVM_DEVICE */
    uint64_t *seq;        /* per page: the timing launch that started its migration */
    Cycle *ready;         /* per page: the cycle that migration ended (in launch seq) */
    uint64_t *digest;     /* per UVM_PIECE piece when the bytes are the host's, else NULL */
} UvmRange;

/* Pieces of a range for the digests: UVM_PIECE-aligned device addresses (at most
 * um.page_bytes, so a piece lies in one page), clipped to the range. */
enum { UVM_PIECE_SHIFT = 12, UVM_PIECE = 1 << UVM_PIECE_SHIFT };
/* The digest of n bytes: a change confined to one of its four 8-byte lanes (every 32nd
 * byte group, for example one changed word) always changes it. */
uint64_t uvm_digest(const uint8_t *p, size_t n);

enum { UVM_NEW, UVM_HOST, UVM_DEVICE };

typedef struct EmuUvm {
    UvmRange *r;          /* sorted by base, disjoint */
    size_t n, cap;
    size_t last;          /* index of the last range hit */
    unsigned page_shift;  /* log2(um.page_bytes) */
    unsigned fault_cycles, bytes_per_cycle, on;
    uint64_t seq;         /* the timing launch running (uvm_begin) */
    Cycle engine_free;    /* the fault engine takes the next fault from here */
} EmuUvm;

void uvm_init(EmuUvm *u, const EmuConfig *cfg);
void uvm_fini(EmuUvm *u);
/* The ranges, as emu_uvm_* (emu.h) without the device: uvm_add registers a range with
 * every page NEW, uvm_mark_host and uvm_prefetch change the states of a part of one. */
EmuStatus uvm_add(EmuUvm *u, uint64_t addr, uint64_t bytes);
void uvm_remove(EmuUvm *u, uint64_t addr);
EmuStatus uvm_mark_host(EmuUvm *u, uint64_t addr, uint64_t bytes);
EmuStatus uvm_prefetch(EmuUvm *u, uint64_t addr, uint64_t bytes, int to_device);
/* emu_uvm_add, emu_uvm_sync_in and emu_uvm_sync_out (emu.h) on the device's ranges u and
 * its memory mem (device_api.c calls them). */
EmuStatus uvm_register(EmuUvm *u, EmuMem *mem, uint64_t addr, uint64_t bytes);
EmuStatus uvm_sync_in(EmuUvm *u, EmuMem *mem, uint64_t addr, const void *src,
                      uint64_t bytes);
EmuStatus uvm_sync_out(EmuUvm *u, EmuMem *mem, uint64_t addr, void *dst, uint64_t bytes);
/* A timing launch starts: no migration is under way. */
void uvm_begin(EmuUvm *u);
/* Access a (global, const or texture space) issued at cycle now touches managed pages:
 * returns the cycle before which it cannot complete (now when every page it touches is
 * resident) and counts the faults in ctr. */
Cycle uvm_touch(EmuUvm *u, const TmAccess *a, Cycle now, TmCounters *ctr);

#endif
