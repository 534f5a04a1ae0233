/*
 * hintcount.c - the hints observer (mem.observer = hints): counts the line requests the
 * LD/ST units make, and the 32-byte sectors they ask for, per XMem atom and per Locality
 * Descriptor, from the hints every request carries (TmReq.atom, TmReq.desc; emu_set_hints).
 * It changes no timing. Its figures, in each launch's "observed" statistics:
 *   hints.atom.ID.requests / .sectors              requests in atom ID (0..254)
 *   hints.descriptor.SITE.requests / .sectors      requests in the descriptor of that site
 *   hints.none.requests                            requests in no atom and no descriptor
 * where SITE is the descriptor's record among the program's descriptor tables.
 */
#include <stdio.h>
#include <stdlib.h>
#include "mech/mech.h"
#include "timing/gpu.h"

typedef struct HintCount {
    uint64_t atom_req[TM_NO_ATOM], atom_sec[TM_NO_ATOM];
    uint64_t *desc_req, *desc_sec; /* [ndesc] */
    size_t ndesc;
    const EmuDescRange *descs;
    uint64_t none;
} HintCount;

static int hc_begin(TmGpu *g, void **state, char *err, size_t n)
{
    HintCount *h = calloc(1, sizeof *h);
    const EmuHintTable *t = &g->d->hints;
    if (h && t->ndescs) {
        h->desc_req = calloc(t->ndescs, sizeof *h->desc_req);
        h->desc_sec = calloc(t->ndescs, sizeof *h->desc_sec);
        h->ndesc = t->ndescs, h->descs = t->descs;
    }
    if (!h || (t->ndescs && (!h->desc_req || !h->desc_sec))) {
        if (h)
            free(h->desc_req), free(h->desc_sec);
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
    free(h->desc_req);
    free(h->desc_sec);
    free(h);
}

static void hc_request(void *state, const TmReq *r)
{
    HintCount *h = state;
    unsigned sectors = tm_nsectors(r->sectors);
    if (r->atom != TM_NO_ATOM)
        h->atom_req[r->atom]++, h->atom_sec[r->atom] += sectors;
    if (r->desc && r->desc <= h->ndesc)
        h->desc_req[r->desc - 1]++, h->desc_sec[r->desc - 1] += sectors;
    h->none += r->atom == TM_NO_ATOM && !r->desc;
}

static void hc_report(const TmGpu *g, void *state, TmReportEmit emit, void *ctx)
{
    (void)g;
    const HintCount *h = state;
    char name[64];
    for (unsigned a = 0; a < TM_NO_ATOM; a++) {
        if (!h->atom_req[a])
            continue;
        snprintf(name, sizeof name, "hints.atom.%u.requests", a);
        emit(ctx, name, h->atom_req[a]);
        snprintf(name, sizeof name, "hints.atom.%u.sectors", a);
        emit(ctx, name, h->atom_sec[a]);
    }
    for (size_t i = 0; i < h->ndesc; i++) {
        if (!h->desc_req[i])
            continue;
        snprintf(name, sizeof name, "hints.descriptor.%u.requests", (unsigned)h->descs[i].id);
        emit(ctx, name, h->desc_req[i]);
        snprintf(name, sizeof name, "hints.descriptor.%u.sectors", (unsigned)h->descs[i].id);
        emit(ctx, name, h->desc_sec[i]);
    }
    emit(ctx, "hints.none.requests", h->none);
}

const TmObserverOps tm_obs_hints = {
    .name = "hints",
    .launch = {.begin = hc_begin, .end = hc_end},
    .request = hc_request,
    .report = hc_report,
};
