/*
 * icnt.h - the crossbar between the SMs and the L2 slices, one network per direction.
 * Every SM and every slice has an injection and an ejection port; a packet occupies each
 * port it passes for ceil(flits / icnt.port_flits) cycles.
 */
#ifndef EMU_ICNT_H
#define EMU_ICNT_H

#include "config/config.h"
#include "timing/timing.h"

typedef struct Icnt {
    unsigned latency, flit_bytes, port_flits, queue, sector, nsm, nslice;
    Cycle *sm_inject, *sm_eject;       /* [nsm] first cycle each port is free */
    Cycle *slice_inject, *slice_eject; /* [nslice] */
    TmCounters *ctr;
} Icnt;

int icnt_init(Icnt *x, const EmuConfig *cfg, unsigned nsm, unsigned nslice, TmCounters *ctr,
              char *err, size_t n);
void icnt_free(Icnt *x);
/* Flits of r as a request (response = 0) or as its response (1). */
unsigned icnt_flits(const Icnt *x, const TmReq *r, int response);
/* Whether SM sm's injection port takes another request at cycle now, and the first cycle
 * it does (until a send from that SM moves it later). */
int icnt_can_send(const Icnt *x, unsigned sm, Cycle now);
Cycle icnt_send_at(const Icnt *x, unsigned sm);
/* Sends request r from its SM to slice in two halves: icnt_inject reserves the SM's
 * injection port at cycle now (the SM's own state) and returns the cycle the packet
 * starts; icnt_to_slice, given that cycle, reserves the slice's ejection port and returns
 * the cycle the last flit arrives. Requests must reach icnt_to_slice in the order they
 * were injected (by cycle, then SM). */
Cycle icnt_inject(Icnt *x, const TmReq *r, Cycle now);
Cycle icnt_to_slice(Icnt *x, const TmReq *r, unsigned slice, Cycle start);
/* Sends response r from slice back to its SM at cycle now: the arrival cycle. */
Cycle icnt_to_sm(Icnt *x, const TmReq *r, unsigned slice, Cycle now);
void icnt_dump(const Icnt *x, FILE *f);

#endif
