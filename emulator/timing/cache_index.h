/*
 * cache_index.h - set-index functions of the caches (the L1, the texture cache, the L2
 * slices), and the same functions used to pick an L2 slice for a line.
 *
 * A function maps a line number (address / line size) to a set among `sets`; it is
 * chosen by name when a cache is set up (l1.index, tex.index, l2.index) and each one
 * says which set counts it is defined for:
 *   linear  line mod sets                                  any set count
 *   xor     the low log2(sets) bits XOR the next log2(sets)  a power of two
 *   fermi   the hash measured on Fermi's L1                  32 or 64
 *   ipoly   line(x) mod P(x), P irreducible of degree log2(sets)  2 to 65536, a power of two
 * cache_index.c gives each definition and its source. Every function except linear is a
 * bijection on each aligned block of `sets` consecutive lines (the low bits are XORed
 * with a value of the higher bits only), so a contiguous footprint fills the sets as
 * evenly as linear does; they differ on strided footprints.
 */
#ifndef EMU_CACHE_INDEX_H
#define EMU_CACHE_INDEX_H

#include <stddef.h>
#include <stdint.h>

typedef struct CacheIndex {
    const char *name;
    unsigned (*set)(uint64_t line, unsigned sets); /* line number -> [0, sets) */
    int (*supports)(unsigned sets);                /* 1 when set() is defined for sets */
    const char *counts;                            /* the supported counts, in words */
} CacheIndex;

/* The names of the functions, '|'-separated in table order (the index keys' choices). */
#define CACHE_INDEX_NAMES "linear|xor|fermi|ipoly"

/* The function called name, or NULL. */
const CacheIndex *cache_index_find(const char *name);
/* The function called name, checked to be defined for sets; NULL with
 * "key: reason" in err when the name is unknown or the count unsupported (key is the
 * configuration key that named it, e.g. "l1.index"; what names the cache). */
const CacheIndex *cache_index_open(const char *key, const char *what, const char *name,
                                   unsigned sets, char *err, size_t n);

/* Slice selection (l2 slices, or any set of n interleaved units): the function of the
 * name applied to the line number over n units. linear is line mod n for any n; xor
 * needs a power of two; ipoly takes any n > 0: for a power of two it is ipoly itself,
 * otherwise ipoly over the next power of two, then mod n (as GPGPU-Sim's IPOLY
 * partition indexing does for a partition count that is not a power of two); fermi is
 * an L1 set hash and is refused. Returns 0, or -1 with "key: reason" in err. */
int cache_index_slice_check(const char *key, const char *name, unsigned n, char *err,
                            size_t errn);
/* The unit (< n) of line number line; ix from cache_index_find, n accepted by
 * cache_index_slice_check. */
unsigned cache_index_slice(const CacheIndex *ix, uint64_t line, unsigned n);

#endif
