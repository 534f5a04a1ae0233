/*
 * memsys_port.c - the memory system's side that faces the SMs (memsys_int.h, MsPorts):
 * whether a request may enter, the SMs' outboxes, how what they sent enters the crossbar
 * and the slices' queues, and the responses waiting for their SMs.
 *
 * The SMs send from their own host threads during a cycle (docs/performance.md,
 * "Parallel simulation"), so memsys_send touches only the sending SM's state: it takes
 * the SM's injection port (icnt.c) and parks the request in the SM's outbox. Between the
 * SMs' ticks and the memory system's step, memsys_take moves each SM's outbox, in SM
 * order, across the crossbar (and in a NUMA device across the links to the line's
 * module) into its slice's queue: the order one thread sending them would have made.
 * Back-pressure: memsys_send refuses a request whose slice's queue (the requests
 * crossing to it included) holds l2.queue.
 * A response joins its SM's queue in arrival order; recv_head keeps each queue's first
 * arrival, which the device loop reads to wake a sleeping SM.
 */
#include <assert.h>
#include "timing/memsys_int.h"

int ms_port_init(MsPorts *p, unsigned nsm, const EmuConfig *cfg)
{
    p->slice_queue = cfg->l2_queue;
    p->to_sm = calloc(nsm, sizeof *p->to_sm);
    p->out = calloc(nsm, sizeof *p->out);
    p->recv_head = malloc(nsm * sizeof *p->recv_head);
    if (!p->to_sm || !p->out || !p->recv_head)
        return -1;
    for (unsigned i = 0; i < nsm; i++)
        p->recv_head[i] = TM_NEVER;
    return 0;
}

void ms_port_free(MsPorts *p, unsigned nsm)
{
    for (unsigned i = 0; p->to_sm && i < nsm; i++)
        free(p->to_sm[i].v);
    for (unsigned i = 0; p->out && i < nsm; i++)
        free(p->out[i].v);
    free(p->out);
    free(p->to_sm);
    free(p->recv_head);
}

int memsys_room(const MemSys *m, const TmReq *r)
{
    const MsTopo *t = &m->topo;
    if (t->numa || (t->peers && (r->line & TM_REMOTE_LINE)))
        return 1; /* a zone's mapping may keep state; a peer's line crosses the link */
    unsigned s = t->smpg ? ms_slice((MsTopo *)t, r->sm / t->smpg, r->line) : 0;
    return m->slice[s].in.n < m->port.slice_queue;
}

int memsys_send(MemSys *m, const TmReq *r, Cycle now)
{
    assert(r->sm < m->nsm);
    MsOutbox *o = &m->port.out[r->sm];
    if (!memsys_room(m, r)) {
        (m->port.sm_ctr ? &m->port.sm_ctr[r->sm] : m->ctr)->icnt_slice_full++;
        return -1;
    }
    if (!icnt_can_send(&m->icnt, r->sm, now)) {
        memsys_count_refusals(m, r->sm, 1);
        return -1;
    }
    if (o->n == o->cap) {
        unsigned cap = o->cap ? 2 * o->cap : 16;
        MsItem *v = realloc(o->v, cap * sizeof *v);
        if (!v)
            return -1; /* out of host memory: refused, and the core reports a deadlock */
        o->v = v, o->cap = cap;
    }
    o->v[o->n++] = (MsItem){icnt_inject(&m->icnt, r, now), *r};
    return 0;
}

int memsys_take(MemSys *m, unsigned sm)
{
    MsTopo *t = &m->topo;
    MsOutbox *o = &m->port.out[sm];
    unsigned gpu = sm / t->smpg;
    int ok = 0;
    for (unsigned i = 0; i < o->n; i++) {
        const TmReq *r = &o->v[i].r;
        if (t->peers && (r->line & TM_REMOTE_LINE)) {
            ms_remote(m, r, o->v[i].at);
            m->loop.quiet = 0;
            continue;
        }
        unsigned s = ms_slice(t, gpu, r->line);
        Cycle start = o->v[i].at;
        if (t->numa) { /* another module's slice: over the links */
            unsigned z = s / t->spg;
            TmCounters *c = m->link.ctr[gpu];
            c->numa_local += z == gpu;
            c->numa_remote += z != gpu;
            if (z != gpu)
                start = link_send(&m->link, gpu, z, ms_link_bytes(m, r, 0),
                                  start + m->icnt.latency);
        }
        Cycle at = icnt_to_slice(&m->icnt, r, s, start);
        m->loop.quiet = 0;
        ok |= q_push(&m->slice[s].in, at, r);
        slice_changed(m, s);
    }
    o->n = 0;
    return ok;
}

Cycle memsys_send_at(const MemSys *m, unsigned sm)
{
    return icnt_send_at(&m->icnt, sm);
}

void memsys_count_refusals(MemSys *m, unsigned sm, uint64_t n)
{
    (m->port.sm_ctr ? &m->port.sm_ctr[sm] : m->ctr)->icnt_inject_stalls += n;
}

void memsys_count_sms(MemSys *m, TmCounters *sm)
{
    m->port.sm_ctr = sm;
}

/* Pushes in arrival order: after every item that arrives at or before `at`. */
static int q_push_sorted(MsQueue *q, Cycle at, const TmReq *r)
{
    if (q_push(q, at, r) < 0)
        return -1;
    for (unsigned i = q->n - 1; i > 0; i--) {
        MsItem *a = &q->v[(q->head + i - 1) % q->cap], *b = &q->v[(q->head + i) % q->cap];
        if (a->at <= b->at)
            break;
        MsItem t = *a;
        *a = *b, *b = t;
    }
    return 0;
}

void ms_port_deliver(MsPorts *p, Cycle at, const TmReq *r)
{
    q_push_sorted(&p->to_sm[r->sm], at, r);
    const MsItem *h = q_front(&p->to_sm[r->sm]);
    p->recv_head[r->sm] = h ? h->at : TM_NEVER;
}

int memsys_recv(MemSys *m, unsigned sm, TmReq *r, Cycle now)
{
    MsPorts *p = &m->port;
    const MsItem *h = q_front(&p->to_sm[sm]);
    if (!h || h->at > now)
        return 0;
    *r = h->r;
    q_pop(&p->to_sm[sm]);
    h = q_front(&p->to_sm[sm]);
    p->recv_head[sm] = h ? h->at : TM_NEVER;
    return 1;
}

const Cycle *memsys_recv_heads(const MemSys *m)
{
    return m->port.recv_head;
}
