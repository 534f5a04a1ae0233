/*
 * stale.c - stale copies of lines, per GPU (stale.h): an open-addressing table keyed by
 * (line, GPU), each entry a line's bytes. Copies are taken and dropped only in the
 * serial part of a cycle (the write log's commit, the memory system's steps), so the SMs
 * may read them from several host threads.
 */
#include "timing/stale.h"

#include <stdlib.h>
#include <string.h>

typedef struct StaleEntry {
    uint64_t key;  /* (line | gpu) + 1; 0: empty; UINT64_MAX: deleted */
    uint8_t *bytes;
} StaleEntry;

struct Stale {
    unsigned gpus, line;
    StaleRead read;
    StaleHolds holds;
    void *ctx;
    StaleEntry *e;
    size_t cap, used, live; /* used: live + deleted slots */
};

#define DELETED UINT64_MAX

Stale *stale_new(unsigned gpus, unsigned line, StaleRead read, StaleHolds holds, void *ctx)
{
    Stale *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->gpus = gpus, s->line = line, s->read = read, s->holds = holds, s->ctx = ctx;
    return s;
}

void stale_free(Stale *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->cap; i++)
        if (s->e[i].key && s->e[i].key != DELETED)
            free(s->e[i].bytes);
    free(s->e);
    free(s);
}

/* Lines are aligned to at least 16 bytes, so the GPU fits in the key's low bits. */
static uint64_t key(uint64_t line, unsigned gpu)
{
    return (line | gpu) + 1;
}

static size_t slot(const Stale *s, uint64_t k)
{
    return (size_t)((k * 0x9E3779B97F4A7C15ull) >> 17) & (s->cap - 1);
}

static StaleEntry *find(const Stale *s, uint64_t k)
{
    if (!s->live)
        return NULL;
    for (size_t i = slot(s, k);; i = (i + 1) & (s->cap - 1)) {
        if (!s->e[i].key)
            return NULL;
        if (s->e[i].key == k)
            return &s->e[i];
    }
}

static int grow(Stale *s)
{
    size_t cap = s->cap && 4 * s->live < s->cap ? s->cap : s->cap ? 2 * s->cap : 64;
    StaleEntry *e = calloc(cap, sizeof *e);
    if (!e)
        return -1;
    for (size_t i = 0; i < s->cap; i++) {
        uint64_t k = s->e[i].key;
        if (!k || k == DELETED)
            continue;
        size_t j = (size_t)((k * 0x9E3779B97F4A7C15ull) >> 17) & (cap - 1);
        while (e[j].key)
            j = (j + 1) & (cap - 1);
        e[j] = s->e[i];
    }
    free(s->e);
    s->e = e, s->cap = cap, s->used = s->live;
    return 0;
}

/* Keeps GPU gpu's copy of line: its bytes as memory has them now. 1 kept, 0 not device
 * memory (nothing to keep), -1 out of host memory. */
static int keep(Stale *s, unsigned gpu, uint64_t line)
{
    if (2 * (s->used + 1) > s->cap && grow(s) < 0)
        return -1;
    uint8_t *b = malloc(s->line);
    if (!b || s->read(s->ctx, line, b, s->line) < 0) {
        free(b);
        return b ? 0 : -1;
    }
    uint64_t k = key(line, gpu);
    size_t i = slot(s, k);
    while (s->e[i].key && s->e[i].key != DELETED)
        i = (i + 1) & (s->cap - 1);
    s->used += !s->e[i].key;
    s->e[i] = (StaleEntry){k, b};
    s->live++;
    return 1;
}

unsigned stale_write_before(Stale *s, unsigned gpu, uint64_t addr, unsigned n, unsigned *lost)
{
    unsigned kept = 0;
    uint64_t first = addr & ~(uint64_t)(s->line - 1);
    for (uint64_t l = first; l < addr + n; l += s->line)
        for (unsigned h = 0; h < s->gpus; h++)
            if (h != gpu && !find(s, key(l, h)) && s->holds(s->ctx, h, l)) {
                int k = keep(s, h, l);
                kept += k > 0;
                *lost += k < 0;
            }
    return kept;
}

void stale_write_after(Stale *s, unsigned gpu, uint64_t addr, unsigned n)
{
    if (!s->live)
        return;
    uint64_t first = addr & ~(uint64_t)(s->line - 1);
    for (uint64_t l = first; l < addr + n; l += s->line) {
        StaleEntry *e = find(s, key(l, gpu));
        if (!e)
            continue;
        uint64_t lo = addr > l ? addr : l, hi = addr + n < l + s->line ? addr + n : l + s->line;
        s->read(s->ctx, lo, e->bytes + (lo - l), (unsigned)(hi - lo));
    }
}

int stale_read(const Stale *s, unsigned gpu, uint64_t addr, unsigned n, void *out)
{
    uint64_t l = addr & ~(uint64_t)(s->line - 1);
    const StaleEntry *e = find(s, key(l, gpu));
    if (!e)
        return 0;
    memcpy(out, e->bytes + (addr - l), n);
    return 1;
}

void stale_drop(Stale *s, unsigned gpu, uint64_t line)
{
    if (!s->live)
        return;
    for (size_t i = 0; line == UINT64_MAX && i < s->cap; i++) {
        uint64_t k = s->e[i].key;
        if (k && k != DELETED && ((k - 1) & (s->line - 1)) == gpu) {
            free(s->e[i].bytes);
            s->e[i].key = DELETED;
            s->live--;
        }
    }
    if (line == UINT64_MAX)
        return;
    StaleEntry *e = find(s, key(line, gpu));
    if (e) {
        free(e->bytes);
        e->key = DELETED;
        s->live--;
    }
}

const size_t *stale_live(const Stale *s)
{
    return &s->live;
}
