/*
 * smem.h - shared-memory bank-conflict model: how many cycles a warp-level shared access
 * occupies the banks. Pure function of the lanes' offsets; the LD/ST unit adds the
 * latency and keeps the banks busy.
 */
#ifndef EMU_SMEM_H
#define EMU_SMEM_H

#include "timing/timing.h"

typedef struct SmemCost {
    unsigned cycles;    /* bank cycles: the most distinct words any one bank serves */
    unsigned conflicts; /* cycles beyond what the access's bandwidth alone needs */
} SmemCost;

/* banks (<= 64) banks of bank_bytes bytes (a power of two). */
SmemCost smem_cost(const TmAccess *a, unsigned banks, unsigned bank_bytes);

#endif
