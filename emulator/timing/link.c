/*
 * link.c - the links between the GPUs of a device and its memory side (link.h).
 *
 * With o = ceil(bytes / system.link_bytes_per_cycle):
 *     start   = max(now, sender's outgoing port free)       busy [start, start + o)
 *     arrival = max(start + system.link_latency, receiver's incoming port free) + o - 1
 * and the incoming port is busy until arrival, as the crossbar's ports (icnt.c). A packet
 * on idle ports arrives latency + o - 1 cycles after it was sent. The cycles a packet
 * waits for a busy port count as link.wait_cycles of the GPU that sent it.
 */
#include "timing/link.h"

#include <stdlib.h>
#include <string.h>

int link_init(Link *l, const EmuConfig *cfg, unsigned gpus, TmCounters *ctr, char *err,
              size_t n)
{
    memset(l, 0, sizeof *l);
    l->n = gpus, l->bytes = cfg->system_link_bytes, l->latency = cfg->system_link_latency;
    l->header = cfg->system_link_header;
    l->out = calloc(gpus, sizeof *l->out);
    l->in = calloc(gpus, sizeof *l->in);
    l->ctr = calloc(gpus, sizeof *l->ctr);
    if (!l->out || !l->in || !l->ctr) {
        link_free(l);
        snprintf(err, n, "out of host memory");
        return -1;
    }
    link_count_into(l, ctr, NULL);
    return 0;
}

void link_free(Link *l)
{
    free(l->out);
    free(l->in);
    free(l->ctr);
    l->out = l->in = NULL, l->ctr = NULL;
}

void link_count_into(Link *l, TmCounters *ctr, TmCounters *unit)
{
    for (unsigned i = 0; i < l->n; i++)
        l->ctr[i] = unit ? &unit[i] : ctr;
}

void link_next_launch(Link *l)
{
    memset(l->out, 0, l->n * sizeof *l->out);
    memset(l->in, 0, l->n * sizeof *l->in);
}

unsigned link_packet(const Link *l, unsigned data)
{
    return l->header + data;
}

Cycle link_send(Link *l, unsigned from, unsigned to, unsigned bytes, Cycle now)
{
    Cycle o = (bytes + l->bytes - 1) / l->bytes;
    Cycle start = now, head;
    TmCounters *c = l->ctr[from == LINK_MEMORY ? to : from];
    if (from != LINK_MEMORY) {
        start = now > l->out[from] ? now : l->out[from];
        l->out[from] = start + o;
        l->ctr[from]->link_out_bytes += bytes;
        l->ctr[from]->link_busy_cycles += o;
    }
    head = start + l->latency;
    if (to != LINK_MEMORY) {
        head = head > l->in[to] ? head : l->in[to];
        l->in[to] = head + o;
        l->ctr[to]->link_in_bytes += bytes;
        l->ctr[to]->link_busy_cycles += o;
    }
    c->link_wait_cycles += head - now - l->latency;
    return head + o - 1;
}

void link_dump(const Link *l, FILE *f)
{
    fprintf(f, "links: %u, %u bytes/cycle, latency %u\n", l->n, l->bytes, l->latency);
    for (unsigned i = 0; i < l->n; i++)
        fprintf(f, "  gpu %u: out free at %llu, in free at %llu\n", i,
                (unsigned long long)l->out[i], (unsigned long long)l->in[i]);
}
