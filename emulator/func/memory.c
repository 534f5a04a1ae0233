/*
 * memory.c - the device memory allocator and the host-side copy API of emu.h.
 *
 * See memory.h for the model. Every copy checks both ends against the live table; a
 * range must lie inside one allocation. Nothing here trusts a device address.
 */
#include "func/memory.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void emu_mem_init(EmuMem *m, uint64_t capacity, uint64_t base, uint64_t limit)
{
    memset(m, 0, sizeof *m);
    m->next = base;
    m->limit = limit;
    m->capacity = capacity;
}

void emu_mem_fini(EmuMem *m)
{
    for (size_t i = 0; i < m->nlive; i++)
        if (!m->live[i].mapped)
            free(m->live[i].host);
    free(m->live);
    memset(m, 0, sizeof *m);
}

/* Room for an allocation of `bytes` at the next address aligned to align, reserving
 * `reserved` ≥ bytes addresses for it: its base, or 0 when the capacity, the device's
 * address range or the table is exhausted. */
static uint64_t mem_room(EmuMem *m, uint64_t bytes, uint64_t reserved, uint64_t align)
{
    uint64_t base = (m->next + align - 1) & ~(align - 1);
    if (bytes > m->capacity - m->used || base < m->next || base > m->limit ||
        reserved > m->limit - base ||
        m->limit - base - reserved < EMU_ALLOC_GAP + EMU_ALLOC_ALIGN)
        return 0; /* the device's range is exhausted (addresses are never reused) */
    if (m->nlive == m->cap) {
        size_t cap = m->cap ? m->cap * 2 : 64;
        EmuAlloc *p = realloc(m->live, cap * sizeof *p);
        if (!p)
            return 0;
        m->live = p;
        m->cap = cap;
    }
    return base;
}

/* Enters [base, base+bytes) backed by host; the next allocation starts after the gap
 * that follows [base, base+reserved). */
static void mem_enter(EmuMem *m, uint64_t base, uint64_t bytes, uint64_t reserved,
                      uint8_t *host, int mapped)
{
    EmuAlloc *a = &m->live[m->nlive++];
    *a = (EmuAlloc){.base = base, .size = bytes, .host = host, .mapped = mapped};
    uint64_t end = base + reserved + EMU_ALLOC_GAP;
    m->next = (end + EMU_ALLOC_ALIGN - 1) & ~(uint64_t)(EMU_ALLOC_ALIGN - 1);
    m->used += bytes;
}

EmuStatus emu_mem_alloc(EmuMem *m, uint64_t bytes, uint64_t *addr)
{
    uint64_t base = mem_room(m, bytes, bytes, EMU_ALLOC_ALIGN);
    if (!base)
        return EMU_ERR_OUT_OF_MEMORY;
    uint8_t *host = calloc(1, bytes ? bytes : 1);
    if (!host)
        return EMU_ERR_OUT_OF_MEMORY;
    mem_enter(m, base, bytes, bytes, host, 0);
    *addr = base;
    return EMU_OK;
}

EmuStatus emu_mem_alloc_mapped(EmuMem *m, uint64_t bytes, uint64_t align, EmuMapFn map,
                               void *ctx, uint64_t *addr)
{
    if (!map || !bytes || align < EMU_ALLOC_ALIGN || (align & (align - 1)))
        return EMU_ERR_INVALID_VALUE;
    if (bytes > UINT64_MAX - align)
        return EMU_ERR_OUT_OF_MEMORY;
    uint64_t reserved = (bytes + align - 1) & ~(align - 1);
    uint64_t base = mem_room(m, bytes, reserved, align);
    if (!base)
        return EMU_ERR_OUT_OF_MEMORY;
    uint8_t *host = map(ctx, base, reserved);
    if (!host) {
        m->next = base + reserved + EMU_ALLOC_GAP; /* never handed out */
        return EMU_ERR_OUT_OF_MEMORY;
    }
    mem_enter(m, base, bytes, reserved, host, 1);
    *addr = base;
    return EMU_OK;
}

/* Index of the live allocation containing addr, or -1 (binary search). */
static long mem_index(const EmuMem *m, uint64_t addr)
{
    size_t lo = 0, hi = m->nlive;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const EmuAlloc *a = &m->live[mid];
        if (addr < a->base)
            hi = mid;
        else if (addr - a->base >= a->size && !(a->size == 0 && addr == a->base))
            lo = mid + 1;
        else
            return (long)mid;
    }
    return -1;
}

EmuStatus emu_mem_release(EmuMem *m, uint64_t addr)
{
    long i = mem_index(m, addr);
    if (i < 0 || m->live[i].base != addr)
        return EMU_ERR_INVALID_VALUE;
    EmuAlloc a = m->live[i];
    if (!a.mapped)
        free(a.host);
    memmove(&m->live[i], &m->live[i + 1], (m->nlive - (size_t)i - 1) * sizeof a);
    m->nlive--;
    m->last = 0;
    m->used -= a.size;
    m->freed[m->nfreed++ % EMU_FREED_KEEP] = (EmuRange){a.base, a.size};
    return EMU_OK;
}

const EmuAlloc *emu_mem_find(EmuMem *m, uint64_t addr, uint64_t bytes)
{
    const EmuAlloc *a = m->last < m->nlive ? &m->live[m->last] : NULL;
    if (!a || addr < a->base || addr - a->base >= a->size) {
        long i = mem_index(m, addr);
        if (i < 0)
            return NULL;
        m->last = (size_t)i;
        a = &m->live[i];
    }
    if (bytes > a->size - (addr - a->base))
        return NULL;
    return a;
}

const EmuAlloc *emu_mem_lookup(const EmuMem *m, uint64_t addr, uint64_t bytes)
{
    long i = mem_index(m, addr);
    if (i < 0 || bytes > m->live[i].size - (addr - m->live[i].base))
        return NULL;
    return &m->live[i];
}

const EmuRange *emu_mem_freed(const EmuMem *m, uint64_t addr)
{
    size_t kept = m->nfreed < EMU_FREED_KEEP ? m->nfreed : EMU_FREED_KEEP;
    for (size_t k = 0; k < kept; k++) {
        const EmuRange *r = &m->freed[(m->nfreed - 1 - k) % EMU_FREED_KEEP];
        if (addr >= r->base && addr - r->base < (r->size ? r->size : 1))
            return r;
    }
    return NULL;
}

/* The live allocations nearest to addr: the last one based below it and the first one
 * based at it or above (the table is sorted); NULL where there is none. */
static void nearest(const EmuMem *m, uint64_t addr, const EmuAlloc **below,
                    const EmuAlloc **above)
{
    size_t lo = 0, hi = m->nlive;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (m->live[mid].base < addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    *above = lo < m->nlive ? &m->live[lo] : NULL;
    *below = lo ? &m->live[lo - 1] : NULL;
}

int emu_mem_mapped(const EmuMem *m, uint64_t addr, uint64_t bytes)
{
    const EmuAlloc *below, *above;
    nearest(m, addr, &below, &above);
    return (above && above->base - addr < EMU_MAP_BYTES) ||
           (below && addr + bytes - below->base <= below->size + (uint64_t)EMU_MAP_BYTES);
}

void emu_mem_explain(const EmuMem *m, uint64_t addr, uint64_t bytes, char *buf, size_t n)
{
    long i = mem_index(m, addr);
    if (i >= 0) {
        const EmuAlloc *a = &m->live[i];
        snprintf(buf, n, "runs past the end of allocation [0x%llx, +%llu)",
                 (unsigned long long)a->base, (unsigned long long)a->size);
        return;
    }
    const EmuRange *r = emu_mem_freed(m, addr);
    if (r) {
        snprintf(buf, n, "in freed allocation [0x%llx, +%llu)", (unsigned long long)r->base,
                 (unsigned long long)r->size);
        return;
    }
    (void)bytes;
    const EmuAlloc *below, *above;
    nearest(m, addr, &below, &above);
    if (above && above->base - addr <= EMU_NEAR_BYTES)
        snprintf(buf, n, "outside any allocation (%llu bytes before [0x%llx, +%llu))",
                 (unsigned long long)(above->base - addr), (unsigned long long)above->base,
                 (unsigned long long)above->size);
    else if (below && addr - (below->base + below->size) < EMU_NEAR_BYTES)
        snprintf(buf, n, "outside any allocation (%llu bytes after the end of [0x%llx, +%llu))",
                 (unsigned long long)(addr - below->base - below->size),
                 (unsigned long long)below->base, (unsigned long long)below->size);
    else
        snprintf(buf, n, "outside any allocation");
}
