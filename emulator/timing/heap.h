/*
 * heap.h - a binary min-heap of (cycle, sequence number, index) for the units that
 * take their ready entries oldest first: write-back (by ready cycle, then issue order),
 * the LD/ST unit's completed accesses (by completion cycle, then issue order) and the
 * memory system's timed events (by cycle, then creation order).
 * Sequence numbers are unique per heap, so the order is total and deterministic.
 */
#ifndef EMU_TIMING_HEAP_H
#define EMU_TIMING_HEAP_H

#include <stdlib.h>
#include "timing/timing.h"

typedef struct TmHeapItem {
    Cycle at;
    uint64_t seq;
    uint32_t idx;
} TmHeapItem;

typedef struct TmHeap {
    TmHeapItem *v;
    uint32_t n, cap;
} TmHeap;

static inline int tm_heap_less(const TmHeapItem *a, const TmHeapItem *b)
{
    return a->at != b->at ? a->at < b->at : a->seq < b->seq;
}

/* Returns -1 when out of host memory (the item is not queued). */
static inline int tm_heap_push(TmHeap *h, Cycle at, uint64_t seq, uint32_t idx)
{
    if (h->n == h->cap) {
        uint32_t cap = h->cap ? 2 * h->cap : 64;
        TmHeapItem *v = realloc(h->v, cap * sizeof *v);
        if (!v)
            return -1;
        h->v = v, h->cap = cap;
    }
    TmHeapItem e = {at, seq, idx};
    uint32_t i = h->n++;
    while (i && tm_heap_less(&e, &h->v[(i - 1) / 2])) {
        h->v[i] = h->v[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    h->v[i] = e;
    return 0;
}

/* The smallest item's cycle, or TM_NEVER when empty. */
static inline Cycle tm_heap_min(const TmHeap *h)
{
    return h->n ? h->v[0].at : TM_NEVER;
}

/* Removes and returns the smallest item (the heap must not be empty). */
static inline TmHeapItem tm_heap_pop(TmHeap *h)
{
    TmHeapItem top = h->v[0], last = h->v[--h->n];
    uint32_t i = 0;
    for (;;) {
        uint32_t c = 2 * i + 1;
        if (c >= h->n)
            break;
        if (c + 1 < h->n && tm_heap_less(&h->v[c + 1], &h->v[c]))
            c++;
        if (!tm_heap_less(&h->v[c], &last))
            break;
        h->v[i] = h->v[c];
        i = c;
    }
    if (h->n)
        h->v[i] = last;
    return top;
}

static inline void tm_heap_free(TmHeap *h)
{
    free(h->v);
    h->v = NULL, h->n = h->cap = 0;
}

#endif
