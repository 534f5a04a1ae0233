/*
 * link.h - the links of a device made of several GPUs or GPU modules (docs/multi-gpu.md):
 * every GPU has one link with a port each way (system.link_bytes_per_cycle,
 * system.link_latency). In a shared system the links join the GPUs to the memory side, in
 * a NUMA system the modules to each other. A packet occupies the sender's outgoing port
 * and the receiver's incoming port for ceil(bytes / bandwidth) cycles each; the memory
 * side's ports are as wide as all the GPUs' links together and never wait.
 */
#ifndef EMU_LINK_H
#define EMU_LINK_H

#include "config/config.h"
#include "timing/timing.h"

/* The memory side of a shared system, as a link endpoint. */
#define LINK_MEMORY UINT32_MAX

typedef struct Link {
    unsigned n, bytes, latency, header;
    Cycle *out, *in;   /* [n] first cycle each GPU's outgoing and incoming port is free */
    TmCounters **ctr;  /* [n] where each GPU's link counts (link_count_into) */
} Link;

int link_init(Link *l, const EmuConfig *cfg, unsigned gpus, TmCounters *ctr, char *err,
              size_t n);
void link_free(Link *l);
/* Every GPU's link counts into ctr, or with unit into unit[gpu]. */
void link_count_into(Link *l, TmCounters *ctr, TmCounters *unit);
/* A new launch: every port is free from cycle 0. */
void link_next_launch(Link *l);
/* Bytes of a packet carrying data bytes of data (0: a header alone). */
unsigned link_packet(const Link *l, unsigned data);
/* Sends a packet of `bytes` from `from` to `to` (a GPU, or LINK_MEMORY) at cycle now:
 * the cycle its last byte arrives. Packets must be sent in the order of now. */
Cycle link_send(Link *l, unsigned from, unsigned to, unsigned bytes, Cycle now);
void link_dump(const Link *l, FILE *f);

#endif
