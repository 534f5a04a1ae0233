/*
 * device_api.c - the calls of the device API (emu.h) that reach across the device's
 * parts: destroying a device, which ends its statistics first; its memory; the hints of
 * its launches; its managed ranges. Each is a thin layer over the part that does the
 * work (func/memory.c, hints.c, uvm.c, stats/), so that those parts know nothing of the
 * device and the device's own header (device.h) is the only thing they share with it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "device.h"
#include "stats/log.h"
#include "stats/stats.h"

void emu_destroy(EmuDevice *d)
{
    if (!d)
        return;
    while (d->npeers)
        emu_peer_disable(d, d->peers[0]);
    while (d->npeered_by)
        emu_peer_disable(d->peered_by[0], d);
    emu_stats_stream_end(d, NULL, 0); /* its caller reports errors: end it first */
    if (d->cfg.emu_summary)
        emu_stats_print_summary(d, stderr);
    emu_series_free(d);
    emu_progress_free(d);
    tm_device_free(d);
    emu_reuse_profile_free(d);
    for (size_t i = 0; i < d->nmods; i++)
        emu_module_free(d->mods[i]);
    free(d->mods);
    emu_mem_fini(&d->mem);
    uvm_fini(&d->uvm);
    emu_hints_free(&d->hints);
    free(d->launches);
    free(d->printf_fifo.buf);
    free(d);
}

/* --- memory ------------------------------------------------------------------------- */

EmuStatus emu_malloc(EmuDevice *d, uint64_t bytes, uint64_t *addr)
{
    if (!d || !addr)
        return EMU_ERR_INVALID_VALUE;
    return emu_mem_alloc(&d->mem, bytes, addr);
}

EmuStatus emu_malloc_mapped(EmuDevice *d, uint64_t bytes, uint64_t align, EmuMapFn map,
                            void *ctx, uint64_t *addr)
{
    if (!d || !addr)
        return EMU_ERR_INVALID_VALUE;
    return emu_mem_alloc_mapped(&d->mem, bytes, align, map, ctx, addr);
}

EmuStatus emu_free(EmuDevice *d, uint64_t addr)
{
    if (!d)
        return EMU_ERR_INVALID_VALUE;
    if (addr == 0)
        return EMU_OK; /* like free(NULL) */
    return emu_mem_release(&d->mem, addr);
}

/* Host pointer for a whole device range, or NULL. */
static uint8_t *mem_host(EmuDevice *d, uint64_t addr, uint64_t bytes)
{
    const EmuAlloc *a = emu_mem_find(&d->mem, addr, bytes);
    return a ? a->host + (addr - a->base) : NULL;
}

EmuStatus emu_copy_to_device(EmuDevice *d, uint64_t dst, const void *src, uint64_t bytes)
{
    if (!d || (!src && bytes))
        return EMU_ERR_INVALID_VALUE;
    if (!bytes)
        return EMU_OK;
    uint8_t *p = mem_host(d, dst, bytes);
    if (!p)
        return EMU_ERR_INVALID_VALUE;
    memcpy(p, src, bytes);
    return EMU_OK;
}

EmuStatus emu_copy_from_device(EmuDevice *d, void *dst, uint64_t src, uint64_t bytes)
{
    if (!d || (!dst && bytes))
        return EMU_ERR_INVALID_VALUE;
    if (!bytes)
        return EMU_OK;
    uint8_t *p = mem_host(d, src, bytes);
    if (!p)
        return EMU_ERR_INVALID_VALUE;
    memcpy(dst, p, bytes);
    return EMU_OK;
}

EmuStatus emu_copy_device(EmuDevice *d, uint64_t dst, uint64_t src, uint64_t bytes)
{
    if (!d)
        return EMU_ERR_INVALID_VALUE;
    if (!bytes)
        return EMU_OK;
    uint8_t *s = mem_host(d, src, bytes);
    uint8_t *t = mem_host(d, dst, bytes);
    if (!s || !t)
        return EMU_ERR_INVALID_VALUE;
    memmove(t, s, bytes);
    return EMU_OK;
}

EmuStatus emu_memset(EmuDevice *d, uint64_t dst, int value, uint64_t bytes)
{
    if (!d)
        return EMU_ERR_INVALID_VALUE;
    if (!bytes)
        return EMU_OK;
    uint8_t *p = mem_host(d, dst, bytes);
    if (!p)
        return EMU_ERR_INVALID_VALUE;
    memset(p, value, bytes);
    return EMU_OK;
}

void emu_mem_info(const EmuDevice *d, uint64_t *used, uint64_t *total)
{
    if (used)
        *used = d ? d->mem.used : 0;
    if (total)
        *total = d ? d->mem.capacity : 0;
}

/* --- hints and managed memory ------------------------------------------------------- */

EmuStatus emu_set_hints(EmuDevice *d, const EmuHints *h)
{
    if (!d)
        return EMU_ERR_INVALID_VALUE;
    EmuHintTable t;
    EmuStatus s = emu_hints_copy(&t, h);
    if (s != EMU_OK)
        return s;
    emu_hints_free(&d->hints);
    d->hints = t;
    return EMU_OK;
}

EmuStatus emu_uvm_add(EmuDevice *d, uint64_t addr, uint64_t bytes)
{
    return uvm_register(&d->uvm, &d->mem, addr, bytes);
}

void emu_uvm_remove(EmuDevice *d, uint64_t addr)
{
    uvm_remove(&d->uvm, addr);
}

EmuStatus emu_uvm_prefetch(EmuDevice *d, uint64_t addr, uint64_t bytes, int to_device)
{
    return uvm_prefetch(&d->uvm, addr, bytes, to_device);
}

EmuStatus emu_uvm_sync_in(EmuDevice *d, uint64_t addr, const void *src, uint64_t bytes)
{
    return uvm_sync_in(&d->uvm, &d->mem, addr, src, bytes);
}

EmuStatus emu_uvm_sync_out(EmuDevice *d, uint64_t addr, void *dst, uint64_t bytes)
{
    return uvm_sync_out(&d->uvm, &d->mem, addr, dst, bytes);
}
