/*
 * numa.h - what the zone policies (numa.c, ldesc_numa.c) share: the baseline XOR hash
 * that places a line of no placed structure, and the bit count of a power of two.
 */
#ifndef EMU_MECH_NUMA_H
#define EMU_MECH_NUMA_H

#include <stdint.h>

/* ceil(log2(v)): the bits that number v things (0 for v <= 1). */
unsigned numa_log2(uint64_t v);

/* The baseline's zone of line (numa.map = xor): blocks of 2^shift bytes, block number B,
 * zone (B xor B >> bits xor B >> 2 bits ...) mod 2^bits, then mod zones; bits =
 * numa_log2(zones). */
typedef struct NumaXor {
    unsigned zones, bits, shift;
} NumaXor;

NumaXor numa_xor(unsigned zones, uint64_t block_bytes);
unsigned numa_xor_zone(const NumaXor *x, uint64_t line);

#endif
