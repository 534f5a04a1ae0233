/*
 * icnt.c - a fixed-latency crossbar with port bandwidth (icnt.h).
 *
 * A packet is 1 flit when it carries no data (a read request) and otherwise
 * ceil(sectors x sector bytes / icnt.flit_bytes) flits (write and atomic requests, read and
 * atomic responses; stores get no response). With o = ceil(flits / icnt.port_flits):
 *     start   = max(now, source port free)          source port busy [start, start + o)
 *     arrival = max(start + icnt.latency, destination port free) + o - 1
 * and the destination port is busy until arrival. A one-flit packet on idle ports arrives
 * exactly icnt.latency cycles after it was sent. Ports are reserved in the order packets
 * are sent (the memory system sends in time order), so arrivals at any one port are in
 * order. An SM's injection port refuses a request while its backlog (source port free -
 * now) exceeds icnt.inject_queue cycles; the slices' injection ports never refuse.
 */
#include "timing/icnt.h"

#include <stdlib.h>
#include <string.h>

int icnt_init(Icnt *x, const EmuConfig *cfg, unsigned nsm, unsigned nslice, TmCounters *ctr,
              char *err, size_t n)
{
    memset(x, 0, sizeof *x);
    if (!cfg->icnt_latency || !cfg->icnt_flit_bytes || !cfg->icnt_port_flits) {
        snprintf(err, n, "icnt.latency, icnt.flit_bytes and icnt.port_flits must be positive");
        return -1;
    }
    x->latency = cfg->icnt_latency, x->flit_bytes = cfg->icnt_flit_bytes;
    x->port_flits = cfg->icnt_port_flits, x->queue = cfg->icnt_inject_queue;
    x->sector = cfg->l1_sector, x->nsm = nsm, x->nslice = nslice, x->ctr = ctr;
    x->sm_inject = calloc(nsm, sizeof *x->sm_inject);
    x->sm_eject = calloc(nsm, sizeof *x->sm_eject);
    x->slice_inject = calloc(nslice, sizeof *x->slice_inject);
    x->slice_eject = calloc(nslice, sizeof *x->slice_eject);
    if (!x->sm_inject || !x->sm_eject || !x->slice_inject || !x->slice_eject) {
        icnt_free(x);
        snprintf(err, n, "out of memory");
        return -1;
    }
    return 0;
}

void icnt_free(Icnt *x)
{
    free(x->sm_inject);
    free(x->sm_eject);
    free(x->slice_inject);
    free(x->slice_eject);
    x->sm_inject = x->sm_eject = x->slice_inject = x->slice_eject = NULL;
}

unsigned icnt_flits(const Icnt *x, const TmReq *r, int response)
{
    int data = response ? r->kind != TM_WRITE : r->kind != TM_READ;
    if (!data)
        return 1;
    unsigned bytes = r->xbytes ? r->xbytes : tm_nsectors(r->sectors) * x->sector;
    unsigned f = (bytes + x->flit_bytes - 1) / x->flit_bytes;
    return f ? f : 1;
}

int icnt_can_send(const Icnt *x, unsigned sm, Cycle now)
{
    return x->sm_inject[sm] <= now + x->queue;
}

Cycle icnt_send_at(const Icnt *x, unsigned sm)
{
    return x->sm_inject[sm] > x->queue ? x->sm_inject[sm] - x->queue : 0;
}

/* A packet of `flits` takes its source port from max(now, free) (returned) for
 * ceil(flits / port_flits) cycles; then its destination port (arrival, returned by
 * cross_dst). The two halves are separate because an SM's request takes its injection port
 * while the SM ticks and the slice's ejection port when the memory system takes the
 * request in (memsys_take, memsys_port.c). */
static Cycle cross_src(const Icnt *x, Cycle *src, unsigned flits, Cycle now)
{
    Cycle o = (flits + x->port_flits - 1) / x->port_flits;
    Cycle start = now > *src ? now : *src;
    *src = start + o;
    return start;
}

static Cycle cross_dst(const Icnt *x, Cycle *dst, unsigned flits, Cycle start)
{
    Cycle o = (flits + x->port_flits - 1) / x->port_flits;
    Cycle head = start + x->latency > *dst ? start + x->latency : *dst;
    Cycle arrival = head + o - 1;
    *dst = arrival + 1;
    return arrival;
}

Cycle icnt_inject(Icnt *x, const TmReq *r, Cycle now)
{
    return cross_src(x, &x->sm_inject[r->sm], icnt_flits(x, r, 0), now);
}

Cycle icnt_to_slice(Icnt *x, const TmReq *r, unsigned slice, Cycle start)
{
    unsigned f = icnt_flits(x, r, 0);
    x->ctr->icnt_req_flits += f;
    return cross_dst(x, &x->slice_eject[slice], f, start);
}

Cycle icnt_to_sm(Icnt *x, const TmReq *r, unsigned slice, Cycle now)
{
    unsigned f = icnt_flits(x, r, 1);
    x->ctr->icnt_resp_flits += f;
    return cross_dst(x, &x->sm_eject[r->sm], f, cross_src(x, &x->slice_inject[slice], f, now));
}

void icnt_dump(const Icnt *x, FILE *f)
{
    fprintf(f, "icnt: latency %u, %u flit(s)/cycle per port\n", x->latency, x->port_flits);
    for (unsigned i = 0; i < x->nsm; i++)
        fprintf(f, "  sm %u: inject free at %llu, eject free at %llu\n", i,
                (unsigned long long)x->sm_inject[i], (unsigned long long)x->sm_eject[i]);
    for (unsigned i = 0; i < x->nslice; i++)
        fprintf(f, "  slice %u: inject free at %llu, eject free at %llu\n", i,
                (unsigned long long)x->slice_inject[i], (unsigned long long)x->slice_eject[i]);
}
