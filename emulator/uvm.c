/*
 * uvm.c - residency of managed pages and the cost of migrating them (uvm.h).
 */
#include "uvm.h"

#include <stdlib.h>
#include <string.h>
#include "func/memory.h"

void uvm_init(EmuUvm *u, const EmuConfig *cfg)
{
    memset(u, 0, sizeof *u);
    u->page_shift = (unsigned)__builtin_ctz(cfg->um_page_bytes);
    u->fault_cycles = cfg->um_fault_cycles;
    u->bytes_per_cycle = cfg->um_bytes_per_cycle;
    u->on = cfg->um_migration;
}

static void range_free(UvmRange *r)
{
    free(r->state);
    free(r->seq);
    free(r->ready);
    free(r->digest);
}

void uvm_fini(EmuUvm *u)
{
    for (size_t i = 0; i < u->n; i++)
        range_free(&u->r[i]);
    free(u->r);
    memset(u, 0, sizeof *u);
}

void uvm_begin(EmuUvm *u)
{
    u->seq++;
    u->engine_free = 0;
}

/* The range holding addr, or NULL (the last hit first, then a binary search). */
static UvmRange *range_of(EmuUvm *u, uint64_t addr)
{
    if (u->last < u->n && addr - u->r[u->last].base < u->r[u->last].size)
        return &u->r[u->last];
    size_t lo = 0, hi = u->n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (addr < u->r[mid].base)
            hi = mid;
        else if (addr - u->r[mid].base >= u->r[mid].size)
            lo = mid + 1;
        else
            return &u->r[u->last = mid];
    }
    return NULL;
}

static uint64_t npages(const EmuUvm *u, const UvmRange *r)
{
    return ((r->base + r->size - 1) >> u->page_shift) - r->first + 1;
}

/* Page p (absolute page number) of r is touched at cycle now: the cycle it is ready. */
static Cycle page_touch(EmuUvm *u, UvmRange *r, uint64_t p, Cycle now, TmCounters *ctr)
{
    uint64_t i = p - r->first;
    if (r->state[i] == UVM_DEVICE)
        return r->seq[i] == u->seq && r->ready[i] > now ? r->ready[i] : now;
    Cycle start = now > u->engine_free ? now : u->engine_free;
    Cycle cost = u->fault_cycles;
    ctr->um_faults++;
    if (r->state[i] == UVM_HOST) {
        uint64_t bytes = 1ull << u->page_shift;
        cost += (bytes + u->bytes_per_cycle - 1) / u->bytes_per_cycle;
        ctr->um_migrated_pages++;
        ctr->um_migrated_bytes += bytes;
    }
    r->state[i] = UVM_DEVICE;
    r->seq[i] = u->seq;
    r->ready[i] = u->engine_free = start + cost;
    return r->ready[i];
}

Cycle uvm_touch(EmuUvm *u, const TmAccess *a, Cycle now, TmCounters *ctr)
{
    Cycle until = now;
    uint64_t prev = UINT64_MAX;
    const UvmRange *prev_r = NULL;
    for (uint32_t m = a->mask; m; m &= m - 1) {
        uint64_t addr = a->addr[__builtin_ctz(m)];
        for (uint64_t p = addr >> u->page_shift; p <= (addr + a->size - 1) >> u->page_shift;
             p++) {
            /* the first byte the lane touches in page p */
            UvmRange *r = range_of(u, p << u->page_shift > addr ? p << u->page_shift : addr);
            if (!r || (p == prev && r == prev_r))
                continue;
            prev = p, prev_r = r;
            Cycle t = page_touch(u, r, p, now, ctr);
            if (t > until)
                until = t;
        }
    }
    if (until > now)
        ctr->um_fault_waits++;
    return until;
}

/* ---- the ranges ------------------------------------------------------------------- */

EmuStatus uvm_add(EmuUvm *u, uint64_t addr, uint64_t bytes)
{
    if (!bytes || addr + bytes < addr)
        return EMU_ERR_INVALID_VALUE;
    size_t at = 0;
    while (at < u->n && u->r[at].base < addr)
        at++;
    if ((at > 0 && u->r[at - 1].base + u->r[at - 1].size > addr) ||
        (at < u->n && addr + bytes > u->r[at].base))
        return EMU_ERR_INVALID_VALUE; /* overlaps a registered range */
    if (u->n == u->cap) {
        size_t cap = u->cap ? 2 * u->cap : 8;
        UvmRange *nr = realloc(u->r, cap * sizeof *nr);
        if (!nr)
            return EMU_ERR_OUT_OF_MEMORY;
        u->r = nr, u->cap = cap;
    }
    UvmRange r = {.base = addr, .size = bytes, .first = addr >> u->page_shift};
    uint64_t n = npages(u, &r);
    r.state = calloc(n, 1);
    r.seq = calloc(n, sizeof *r.seq);
    r.ready = calloc(n, sizeof *r.ready);
    if (!r.state || !r.seq || !r.ready) {
        range_free(&r);
        return EMU_ERR_OUT_OF_MEMORY;
    }
    memmove(&u->r[at + 1], &u->r[at], (u->n - at) * sizeof *u->r);
    u->r[at] = r;
    u->n++;
    u->last = 0;
    return EMU_OK;
}

void uvm_remove(EmuUvm *u, uint64_t addr)
{
    for (size_t i = 0; i < u->n; i++)
        if (u->r[i].base == addr) {
            range_free(&u->r[i]);
            memmove(&u->r[i], &u->r[i + 1], (u->n - i - 1) * sizeof *u->r);
            u->n--;
            u->last = 0;
            return;
        }
}

/* The registered range that starts at addr and holds bytes, or NULL. */
static UvmRange *range_at(EmuUvm *u, uint64_t addr, uint64_t bytes)
{
    UvmRange *r = range_of(u, addr);
    return r && bytes <= r->size - (addr - r->base) ? r : NULL;
}

EmuStatus uvm_mark_host(EmuUvm *u, uint64_t addr, uint64_t bytes)
{
    UvmRange *r = range_at(u, addr, bytes);
    if (!r || !bytes)
        return EMU_ERR_INVALID_VALUE;
    for (uint64_t p = addr >> u->page_shift; p <= (addr + bytes - 1) >> u->page_shift; p++)
        r->state[p - r->first] = UVM_HOST;
    return EMU_OK;
}

EmuStatus uvm_prefetch(EmuUvm *u, uint64_t addr, uint64_t bytes, int to_device)
{
    UvmRange *r = range_at(u, addr, bytes);
    if (!r || !bytes)
        return EMU_ERR_INVALID_VALUE;
    for (uint64_t p = addr >> u->page_shift; p <= (addr + bytes - 1) >> u->page_shift; p++) {
        uint8_t *s = &r->state[p - r->first];
        if (to_device)
            *s = UVM_DEVICE, r->seq[p - r->first] = 0;
        else if (*s == UVM_DEVICE)
            *s = UVM_HOST;
    }
    return EMU_OK;
}

/* ---- the host's changes, for a range whose bytes are the host's ---------------------- */

static inline uint64_t rotl64(uint64_t x, unsigned k)
{
    return x << k | x >> (64 - k);
}

/* Each round, for a fixed 8-byte word, is a bijection of the lane (add, rotate, multiply
 * by an odd constant), and so is each step that folds a lane into the result: a lane
 * that changed changes the digest. Changes spread over several lanes collide with a
 * chance of about 2^-64 (docs/unified-memory.md). */
uint64_t uvm_digest(const uint8_t *p, size_t n)
{
    const uint64_t k1 = 0x9E3779B185EBCA87ull, k2 = 0xC2B2AE3D27D4EB4Full;
    uint64_t h[4] = {k1, k2, ~k1, ~k2};
    size_t i = 0;
    uint64_t w[4];
    for (; i + sizeof w <= n; i += sizeof w) {
        memcpy(w, p + i, sizeof w);
        for (int j = 0; j < 4; j++)
            h[j] = rotl64(h[j] + w[j] * k2, 31) * k1;
    }
    if (i < n) { /* the tail, zero-padded (the length below tells the padding apart) */
        memset(w, 0, sizeof w);
        memcpy(w, p + i, n - i);
        for (int j = 0; j < 4; j++)
            h[j] = rotl64(h[j] + w[j] * k2, 31) * k1;
    }
    uint64_t d = n;
    for (int j = 0; j < 4; j++)
        d = (d ^ rotl64(h[j], (unsigned)(8 * j + 1))) * k1;
    d ^= d >> 33;
    d *= k2;
    return d ^ d >> 29;
}

static uint64_t piece_first(const UvmRange *r)
{
    return r->base >> UVM_PIECE_SHIFT;
}

/* The bytes of piece q (absolute piece number) inside r: *len of them at device address
 * *at. */
static void piece_span(const UvmRange *r, uint64_t q, uint64_t *at, uint64_t *len)
{
    uint64_t lo = q << UVM_PIECE_SHIFT, hi = lo + UVM_PIECE;
    if (lo < r->base)
        lo = r->base;
    if (hi > r->base + r->size)
        hi = r->base + r->size;
    *at = lo, *len = hi - lo;
}

/* Walks the pieces of r that [addr, addr+bytes) touches, with host the bytes of r's
 * base: takes their digests (mark = 0) or compares them, marking the pages of the pieces
 * that changed host-resident (mark = 1). */
static void range_digests(const EmuUvm *u, UvmRange *r, const uint8_t *host, uint64_t addr,
                          uint64_t bytes, int mark)
{
    for (uint64_t q = addr >> UVM_PIECE_SHIFT; q <= (addr + bytes - 1) >> UVM_PIECE_SHIFT;
         q++) {
        uint64_t at, len;
        piece_span(r, q, &at, &len);
        uint64_t dg = uvm_digest(host + (at - r->base), len);
        uint64_t *slot = &r->digest[q - piece_first(r)];
        if (mark && *slot != dg)
            r->state[(at >> u->page_shift) - r->first] = UVM_HOST;
        *slot = dg;
    }
}

/* ---- the device's API (emu.h), on the device's ranges u and memory mem ------------- */

EmuStatus uvm_register(EmuUvm *u, EmuMem *mem, uint64_t addr, uint64_t bytes)
{
    const EmuAlloc *al = emu_mem_find(mem, addr, bytes);
    if (!al)
        return EMU_ERR_INVALID_VALUE;
    EmuStatus s = uvm_add(u, addr, bytes);
    if (s != EMU_OK || !al->mapped)
        return s;
    UvmRange *r = range_of(u, addr);
    uint64_t n = ((addr + bytes - 1) >> UVM_PIECE_SHIFT) - piece_first(r) + 1;
    r->digest = malloc(n * sizeof *r->digest);
    if (!r->digest) {
        uvm_remove(u, addr);
        return EMU_ERR_OUT_OF_MEMORY;
    }
    range_digests(u, r, al->host + (addr - al->base), addr, bytes, 0);
    return EMU_OK;
}

/* The registered range and allocation holding [addr, addr+bytes), and the allocation's
 * host bytes at addr; NULL when either is missing. */
static uint8_t *sync_range(EmuUvm *u, EmuMem *mem, uint64_t addr, uint64_t bytes,
                           UvmRange **r)
{
    *r = range_at(u, addr, bytes);
    const EmuAlloc *al = emu_mem_find(mem, addr, bytes);
    return *r && al ? al->host + (addr - al->base) : NULL;
}

EmuStatus uvm_sync_in(EmuUvm *u, EmuMem *mem, uint64_t addr, const void *src,
                      uint64_t bytes)
{
    UvmRange *r;
    uint8_t *dev = sync_range(u, mem, addr, bytes, &r);
    if (!dev || (!src && bytes) || (r->digest && bytes && src != dev))
        return EMU_ERR_INVALID_VALUE;
    if (r->digest && bytes) { /* one copy: what changed since the digests were taken */
        range_digests(u, r, dev - (addr - r->base), addr, bytes, 1);
        return EMU_OK;
    }
    const uint8_t *host = src;
    for (uint64_t off = 0; off < bytes;) {
        uint64_t p = (addr + off) >> u->page_shift;
        uint64_t end = ((p + 1) << u->page_shift) - addr; /* the page's end, as an offset */
        uint64_t len = (end < bytes ? end : bytes) - off;
        if (memcmp(dev + off, host + off, len)) {
            memcpy(dev + off, host + off, len);
            r->state[p - r->first] = UVM_HOST;
        }
        off += len;
    }
    return EMU_OK;
}

EmuStatus uvm_sync_out(EmuUvm *u, EmuMem *mem, uint64_t addr, void *dst, uint64_t bytes)
{
    UvmRange *r;
    uint8_t *dev = sync_range(u, mem, addr, bytes, &r);
    if (!dev || (!dst && bytes) || (r->digest && bytes && dst != dev))
        return EMU_ERR_INVALID_VALUE;
    if (!bytes)
        return EMU_OK;
    if (r->digest) /* one copy: the device's writes are not the host's */
        range_digests(u, r, dev - (addr - r->base), addr, bytes, 0);
    else
        memcpy(dst, dev, bytes);
    return EMU_OK;
}
