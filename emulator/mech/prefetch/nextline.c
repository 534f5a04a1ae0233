/*
 * nextline.c - the `next-line` L2 prefetcher (l2.prefetch; timing/slots.h): a demand read
 * that misses in an L2 slice prefetches the l2.prefetch_degree lines that follow it, each
 * from the slice that owns it. The classic sequential prefetcher (one-block lookahead,
 * Smith, "Sequential Program Prefetching in Memory Hierarchies", IEEE Computer 1978),
 * placed at the memory side as GPUs' L2s are shared by every SM; prefetching on misses
 * only keeps it from running ahead of streams the L2 already holds.
 */
#include <stdlib.h>
#include "mech/mech.h"

typedef struct NextLine {
    uint64_t line;   /* l1.line: the line size */
    unsigned degree; /* l2.prefetch_degree */
} NextLine;

static void *next_init(const EmuConfig *cfg)
{
    NextLine *s = malloc(sizeof *s);
    if (s)
        s->line = cfg->l1_line, s->degree = cfg->l2_prefetch_degree;
    return s;
}

static void next_observe(void *state, const TmReq *r, int miss, TmPrefetchEmit emit, void *ctx)
{
    const NextLine *s = state;
    if (!miss || r->kind != TM_READ)
        return;
    for (unsigned k = 1; k <= s->degree; k++)
        emit(ctx, r->line + k * s->line);
}

const TmL2PrefetchOps tm_l2pf_next_line = {.name = "next-line", .init = next_init,
                                           .free = free, .observe = next_observe};
