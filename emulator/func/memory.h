/*
 * memory.h - device memory: the table of live global allocations and the record of
 * freed ones.
 *
 * Allocations are carved upward from the device's base (EmuProps.global_base: each GPU of
 * a system has its own part of the global window), 256-byte aligned, with a 256-byte
 * unmapped gap after each one so that running off the end faults instead of landing in a
 * neighbour. Addresses are never reused, so a stale pointer can always be recognised:
 * the last EMU_FREED_KEEP freed ranges are remembered to name them in fault messages.
 * Each allocation has its own zero-filled host block, or one its creator provides
 * (emu_mem_alloc_mapped: managed memory, whose bytes the host program reads and writes at
 * the same addresses, so there is one copy of them). The live table is sorted by base
 * (allocation order is address order); lookups cache the last hit.
 */
#ifndef EMU_MEMORY_H
#define EMU_MEMORY_H

#include <stddef.h>
#include <stdint.h>
#include "xgpu/emu.h"

#define EMU_FREED_KEEP 256
#define EMU_ALLOC_ALIGN 256u
#define EMU_ALLOC_GAP 256u

typedef struct EmuAlloc {
    uint64_t base, size;
    uint8_t *host;
    int mapped; /* host is its creator's (emu_mem_alloc_mapped): never freed here */
} EmuAlloc;

typedef struct EmuRange {
    uint64_t base, size;
} EmuRange;

typedef struct EmuMem {
    EmuAlloc *live; /* sorted by base */
    size_t nlive, cap;
    size_t last;    /* index of the last hit */
    EmuRange freed[EMU_FREED_KEEP]; /* ring */
    size_t nfreed;  /* total ever freed */
    uint64_t next;  /* next base to hand out */
    uint64_t limit; /* end of the device's address range */
    uint64_t used, capacity;
} EmuMem;

void emu_mem_init(EmuMem *m, uint64_t capacity, uint64_t base, uint64_t limit);
void emu_mem_fini(EmuMem *m);
EmuStatus emu_mem_alloc(EmuMem *m, uint64_t bytes, uint64_t *addr);
/* An allocation of `bytes` at an address aligned to `align` (a power of two) whose bytes
 * are the host memory map(ctx, addr, reserved) returns: `reserved` is bytes rounded up to
 * align, and no other allocation's addresses fall inside [addr, addr + reserved). NULL
 * from map fails the allocation (EMU_ERR_OUT_OF_MEMORY; the addresses stay unused). */
EmuStatus emu_mem_alloc_mapped(EmuMem *m, uint64_t bytes, uint64_t align, EmuMapFn map,
                               void *ctx, uint64_t *addr);
EmuStatus emu_mem_release(EmuMem *m, uint64_t addr);
/* The live allocation holding all of [addr, addr+bytes), or NULL. emu_mem_find remembers
 * the last one found; emu_mem_lookup changes nothing (safe from several threads). */
const EmuAlloc *emu_mem_find(EmuMem *m, uint64_t addr, uint64_t bytes);
const EmuAlloc *emu_mem_lookup(const EmuMem *m, uint64_t addr, uint64_t bytes);
/* Why [addr, addr+bytes) is not accessible: "outside any allocation" (with the distance
 * to a live allocation within EMU_NEAR_BYTES: "(64 bytes before [0x..., +256))"), "in
 * freed allocation [...]" or "past the end of allocation [...]". */
#define EMU_NEAR_BYTES 4096u
void emu_mem_explain(const EmuMem *m, uint64_t addr, uint64_t bytes, char *buf, size_t n);
/* Whether [addr, addr+bytes) lies within EMU_MAP_BYTES of a live allocation: memory a GPU
 * would have mapped, as it maps device memory in 2 MiB pages around its allocations
 * (emu.memcheck = warn serves such accesses; farther ones fault, as on a GPU). */
#define EMU_MAP_BYTES (2u << 20)
int emu_mem_mapped(const EmuMem *m, uint64_t addr, uint64_t bytes);
/* The remembered freed allocation that held addr (the most recent), or NULL. */
const EmuRange *emu_mem_freed(const EmuMem *m, uint64_t addr);

#endif
