/*
 * hintcount.c - the hints observer (mem.observer = hints): counts the line requests the
 * LD/ST units make, and the 32-byte sectors they ask for, per XMem atom and per Locality
 * Descriptor, from the hints every request carries (TmReq.atom, TmReq.desc; emu_set_hints);
 * what became of their reads at the L1 and the L2 (hits, misses, MSHR merges); and the
 * working set of each SM, the distinct lines its requests touched. It changes no timing.
 * Its figures, in each launch's "observed" statistics:
 *   hints.atom.ID.requests / .sectors              requests in atom ID (0..254)
 *   hints.atom.ID.l1_hits / l1_misses / l1_merges  its demand reads at the L1s
 *   hints.atom.ID.l2_hits / l2_misses / l2_merges  its reads at the L2 (the L1s' misses
 *                                                  and prefetches)
 *   hints.descriptor.SITE.*                        the same for the descriptor of that site
 *   hints.none.requests                            requests in no atom and no descriptor
 *   hints.working_set.lines                        distinct lines per SM, summed over SMs
 *   hints.working_set.sms                          SMs that touched any line
 *   hints.working_set.max                          the most lines one SM touched
 * where SITE is the descriptor's record among the program's descriptor tables (the mean
 * working set of an SM is lines / sms).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mech/mech.h"
#include "timing/gpu.h"
#include "mech/registry.h"

enum { N_REQ, N_SEC, N_L1 /* + TmOutcome */, N_L2 = N_L1 + 3, N_FIGURES = N_L2 + 3 };
static const char *const figure[N_FIGURES] = {"requests", "sectors", "l1_hits", "l1_misses",
                                              "l1_merges", "l2_hits", "l2_misses",
                                              "l2_merges"};

/* A set of line addresses (open addressing, linear probing; 0 is free: no line request
 * is at address 0, the null page). */
typedef struct LineSet {
    uint64_t *v;
    size_t cap, n;
} LineSet;

/* Puts line into table v of cap slots (a power of two, never full): 1 when it was new. */
static int set_put(uint64_t *v, size_t cap, uint64_t line)
{
    for (size_t k = (line * 0x9E3779B97F4A7C15ull) >> 20;; k++) {
        uint64_t *slot = &v[k & (cap - 1)];
        if (*slot == line)
            return 0;
        if (!*slot) {
            *slot = line;
            return 1;
        }
    }
}

static int set_add(LineSet *s, uint64_t line)
{
    if (2 * (s->n + 1) > s->cap) { /* at most half full */
        size_t cap = s->cap ? 2 * s->cap : 1024;
        uint64_t *v = calloc(cap, sizeof *v);
        if (!v)
            return -1;
        for (size_t i = 0; i < s->cap; i++)
            if (s->v[i])
                set_put(v, cap, s->v[i]);
        free(s->v);
        s->v = v, s->cap = cap;
    }
    s->n += (size_t)set_put(s->v, s->cap, line);
    return 0;
}

typedef struct HintCount {
    uint64_t atom[TM_NO_ATOM][N_FIGURES];
    uint64_t (*desc)[N_FIGURES]; /* [ndesc] */
    size_t ndesc;
    const EmuDescRange *descs;
    uint64_t none;
    LineSet *sm;                 /* [nsm] */
    uint32_t nsm;
    int oom;                     /* a working set ran out of host memory: not reported */
} HintCount;

static int hc_begin(TmGpu *g, void **state, char *err, size_t n)
{
    HintCount *h = calloc(1, sizeof *h);
    const EmuHintTable *t = &g->d->hints;
    if (h) {
        h->ndesc = t->ndescs, h->descs = t->descs, h->nsm = g->nsm_total;
        h->desc = t->ndescs ? calloc(t->ndescs, sizeof *h->desc) : NULL;
        h->sm = calloc(h->nsm, sizeof *h->sm);
    }
    if (!h || (t->ndescs && !h->desc) || !h->sm) {
        if (h)
            free(h->desc), free(h->sm);
        free(h);
        snprintf(err, n, "out of host memory");
        return -1;
    }
    *state = h;
    return 0;
}

static void hc_end(TmGpu *g, void *state)
{
    (void)g;
    HintCount *h = state;
    for (uint32_t i = 0; i < h->nsm; i++)
        free(h->sm[i].v);
    free(h->sm);
    free(h->desc);
    free(h);
}

/* The figures of r's atom and descriptor get add at index k. */
static void count(HintCount *h, const TmReq *r, unsigned k, uint64_t add)
{
    if (r->atom != TM_NO_ATOM)
        h->atom[r->atom][k] += add;
    if (r->desc && r->desc <= h->ndesc)
        h->desc[r->desc - 1][k] += add;
}

static void hc_request(void *state, const TmReq *r)
{
    HintCount *h = state;
    count(h, r, N_REQ, 1);
    count(h, r, N_SEC, tm_nsectors(r->sectors));
    h->none += r->atom == TM_NO_ATOM && !r->desc;
    if (r->sm < h->nsm && !h->oom && set_add(&h->sm[r->sm], r->line) < 0)
        h->oom = 1;
}

static void hc_outcome(void *state, const TmReq *r, unsigned level, TmOutcome out)
{
    count(state, r, (level == 1 ? N_L1 : N_L2) + (unsigned)out, 1);
}

static void emit_figures(const char *what, unsigned id, const uint64_t *v, TmReportEmit emit,
                         void *ctx)
{
    char name[80];
    for (unsigned k = 0; k < N_FIGURES; k++) {
        snprintf(name, sizeof name, "hints.%s.%u.%s", what, id, figure[k]);
        emit(ctx, name, v[k]);
    }
}

static void hc_report(const TmGpu *g, void *state, TmReportEmit emit, void *ctx)
{
    (void)g;
    const HintCount *h = state;
    for (unsigned a = 0; a < TM_NO_ATOM; a++)
        if (h->atom[a][N_REQ])
            emit_figures("atom", a, h->atom[a], emit, ctx);
    for (size_t i = 0; i < h->ndesc; i++)
        if (h->desc[i][N_REQ])
            emit_figures("descriptor", h->descs[i].id, h->desc[i], emit, ctx);
    emit(ctx, "hints.none.requests", h->none);
    if (h->oom)
        return;
    uint64_t lines = 0, sms = 0, most = 0;
    for (uint32_t i = 0; i < h->nsm; i++) {
        lines += h->sm[i].n, sms += h->sm[i].n > 0;
        most = h->sm[i].n > most ? h->sm[i].n : most;
    }
    emit(ctx, "hints.working_set.lines", lines);
    emit(ctx, "hints.working_set.sms", sms);
    emit(ctx, "hints.working_set.max", most);
}

const TmObserverOps tm_obs_hints = {
    .name = "hints",
    .launch = {.begin = hc_begin, .end = hc_end},
    .request = hc_request,
    .outcome = hc_outcome,
    .report = hc_report,
};

const EmuMech emu_mech_hints = {.name = "hints"};
