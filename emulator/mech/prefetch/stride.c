/*
 * stride.c - a per-warp stride prefetcher at the L1 (l1.prefetch = stride): the
 * walk-through mechanism of docs/architecture.md.
 *
 * GPU threads of one warp run a loop whose every iteration makes one access per load
 * instruction, and that access moves by the same distance each iteration (a grid-stride
 * or row loop). The prefetcher keeps a table of stride.entries entries indexed by
 * (pc, warp slot) (direct-mapped: (pc * 31 + warp) mod entries, a different owner takes
 * the entry over). Per demand read access it takes the lowest line the access touches:
 * the difference from the entry's last one is the candidate stride. When the same non-zero
 * stride is seen twice in a row the entry is confident and, from then on, every access
 * asks for the lines of its next stride.degree accesses: each of its line requests moved
 * by k x stride, k = 1 .. degree. A different stride resets the confidence. This is the
 * per-warp stride detection of many-thread-aware GPU prefetching (Lee et al., MICRO
 * 2010), without its throttling.
 */
#include <stdlib.h>
#include "mech/mech.h"
#include "mech/registry.h"

typedef struct StrideEntry {
    uint32_t pc, warp;
    uint64_t last;    /* line of the previous access */
    int64_t stride;   /* bytes between the last two accesses */
    uint8_t valid, confident;
} StrideEntry;

typedef struct Stride {
    StrideEntry *e;
    uint32_t n, degree;
} Stride;

static void *stride_init(const EmuConfig *cfg)
{
    Stride *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->n = cfg->stride_entries, s->degree = cfg->stride_degree;
    s->e = calloc(s->n, sizeof *s->e);
    if (!s->e) {
        free(s);
        return NULL;
    }
    return s;
}

static void stride_free(void *state)
{
    Stride *s = state;
    if (s)
        free(s->e);
    free(s);
}

static void stride_observe(void *state, const TmAccess *a, const TmReq *r, unsigned n,
                           TmPrefetchEmit emit, void *ctx)
{
    Stride *s = state;
    if (!n)
        return;
    uint64_t base = r[0].line;
    for (unsigned i = 1; i < n; i++)
        base = r[i].line < base ? r[i].line : base;
    StrideEntry *e = &s->e[((uint64_t)a->pc * 31 + a->warp) % s->n];
    if (!e->valid || e->pc != a->pc || e->warp != a->warp) {
        *e = (StrideEntry){.pc = a->pc, .warp = a->warp, .last = base, .valid = 1};
        return;
    }
    int64_t d = (int64_t)(base - e->last);
    e->confident = d != 0 && d == e->stride;
    e->stride = d;
    e->last = base;
    if (!e->confident)
        return;
    for (uint32_t k = 1; k <= s->degree; k++)
        for (unsigned i = 0; i < n; i++)
            emit(ctx, r[i].line + (uint64_t)((int64_t)k * d));
}

const TmPrefetchOps tm_pf_stride = {
    .name = "stride",
    .init = stride_init,
    .free = stride_free,
    .observe = stride_observe,
};

const EmuMech emu_mech_prefetch = {.name = "prefetch"};
