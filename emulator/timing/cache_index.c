/*
 * cache_index.c - the caches' set-index functions (cache_index.h), a table chosen by
 * name. Each maps a line number L (address / line size; an L2 slice passes the line
 * number divided by the slice count) to a set s among S sets. Bit i of L is L_i.
 *
 * linear  s = L mod S. Every cache's index until a hash is chosen; GPGPU-Sim's 'L'.
 *
 * xor     s = (L XOR (L >> log2 S)) mod S: the next log2(S) bits above the index are
 *         XORed into it. GPGPU-Sim's BITWISE_XORING_FUNCTION ('X'), which is
 *         index XOR (higher bits AND (S - 1)). S a power of two.
 *
 * fermi   the L1 set hash that Nugteren et al. measured on Fermi with 128-byte lines
 *         ("A detailed GPU cache model based on reuse distance theory", HPCA 2014), as
 *         GPGPU-Sim's FERMI_HASH_SET_FUNCTION ('H', the set index of its SM2_GTX480
 *         L1) writes it: address bits 7-11 XOR address bits 13, 14, 15, 17, 19, and for
 *         64 sets (the 48 KB L1) address bit 12 on top. In line-number bits (128-byte
 *         lines, L_i = address bit i + 7):
 *             s_k = L_k XOR U_k (k = 0..4),  U = (L_6, L_7, L_8, L_10, L_12)
 *             s_5 = L_5                        (S = 64 only)
 *         The same line-number bits are used whatever the line size. S = 32 or 64.
 *
 * ipoly   Rau's pseudo-random interleaving ("Pseudo-randomly interleaved memory", ISCA
 *         1991): the line number read as a polynomial over GF(2), L(x) = sum L_i x^i,
 *         reduced modulo an irreducible polynomial P(x) of degree n = log2 S; the
 *         remainder's coefficients are the set. Since x^i mod P = x^i for i < n, this is
 *         the low n bits XOR, for each higher bit L_i set, the bits of x^i mod P.
 *         Lines 2^k apart, S of them, land in S different sets for every k (x^k is
 *         invertible modulo P). GPGPU-Sim 4 / Accel-Sim use it for the L2 ('P' in their
 *         Kepler, Pascal, Volta and Turing configurations) and for partition indexing,
 *         with P = x^4+x+1 (16), x^5+x^2+1 (32), x^6+x+1 (64) written out as XOR
 *         equations over a fixed number of address bits; here every bit of L takes part
 *         (the same sets for line numbers below 2^17, 2^20 and 2^25 respectively).
 *         S a power of two from 2 to 65536 (S = 1: set 0).
 */
#include "timing/cache_index.h"

#include <stdio.h>
#include <string.h>

static int is_pow2(unsigned v)
{
    return v && !(v & (v - 1));
}

static unsigned log2u(unsigned v)
{
    return (unsigned)__builtin_ctz(v);
}

static unsigned linear_set(uint64_t line, unsigned sets)
{
    return (unsigned)(is_pow2(sets) ? line & (sets - 1) : line % sets);
}

static int linear_supports(unsigned sets)
{
    return sets > 0;
}

static unsigned xor_set(uint64_t line, unsigned sets)
{
    return (unsigned)((line ^ line >> log2u(sets)) & (sets - 1));
}

static int pow2_supports(unsigned sets)
{
    return is_pow2(sets);
}

static unsigned fermi_set(uint64_t line, unsigned sets)
{
    unsigned upper = (unsigned)((line >> 6 & 7)          /* address bits 13, 14, 15 */
                                | (line >> 10 & 1) << 3  /* address bit 17 */
                                | (line >> 12 & 1) << 4); /* address bit 19 */
    unsigned s = ((unsigned)line & 31) ^ upper;           /* address bits 7-11 */
    if (sets == 64)
        s |= (unsigned)(line >> 5 & 1) << 5;              /* address bit 12 */
    return s;
}

static int fermi_supports(unsigned sets)
{
    return sets == 32 || sets == 64;
}

/* Irreducible polynomials over GF(2), by degree (bit i: the coefficient of x^i). Degrees
 * 4, 5, 6 are those of GPGPU-Sim's IPOLY equations; the others are standard primitive
 * polynomials of their degree. */
static const uint32_t ipoly_poly[17] = {
    [1] = 0x3,      /* x+1 */
    [2] = 0x7,      /* x^2+x+1 */
    [3] = 0xB,      /* x^3+x+1 */
    [4] = 0x13,     /* x^4+x+1 */
    [5] = 0x25,     /* x^5+x^2+1 */
    [6] = 0x43,     /* x^6+x+1 */
    [7] = 0x83,     /* x^7+x+1 */
    [8] = 0x11D,    /* x^8+x^4+x^3+x^2+1 */
    [9] = 0x211,    /* x^9+x^4+1 */
    [10] = 0x409,   /* x^10+x^3+1 */
    [11] = 0x805,   /* x^11+x^2+1 */
    [12] = 0x1053,  /* x^12+x^6+x^4+x+1 */
    [13] = 0x201B,  /* x^13+x^4+x^3+x+1 */
    [14] = 0x4443,  /* x^14+x^10+x^6+x+1 */
    [15] = 0x8003,  /* x^15+x+1 */
    [16] = 0x1100B, /* x^16+x^12+x^3+x+1 */
};

/* L(x) mod P(x): clears the highest term of degree >= n with a shifted P until none is
 * left (one step per such term, at most 64 - n). */
static unsigned ipoly_set(uint64_t line, unsigned sets)
{
    unsigned n = log2u(sets);
    if (n == 0)
        return 0;
    uint64_t p = ipoly_poly[n];
    while (line >> n) {
        unsigned top = 63u - (unsigned)__builtin_clzll(line);
        line ^= p << (top - n);
    }
    return (unsigned)line;
}

static int ipoly_supports(unsigned sets)
{
    return is_pow2(sets) && sets <= 65536;
}

static const CacheIndex cache_indexes[] = {
    /* name     set         supports         counts */
    {"linear", linear_set, linear_supports, "any number of sets"},
    {"xor",    xor_set,    pow2_supports,   "a power of two"},
    {"fermi",  fermi_set,  fermi_supports,  "32 or 64"},
    {"ipoly",  ipoly_set,  ipoly_supports,  "a power of two up to 65536"},
};

const CacheIndex *cache_index_find(const char *name)
{
    for (size_t i = 0; i < sizeof cache_indexes / sizeof cache_indexes[0]; i++)
        if (strcmp(cache_indexes[i].name, name) == 0)
            return &cache_indexes[i];
    return NULL;
}

const CacheIndex *cache_index_open(const char *key, const char *what, const char *name,
                                   unsigned sets, char *err, size_t n)
{
    const CacheIndex *ix = cache_index_find(name);
    if (!ix) {
        snprintf(err, n, "%s: unknown set-index function '%s' (%s)", key, name,
                 CACHE_INDEX_NAMES);
        return NULL;
    }
    if (!ix->supports(sets)) {
        snprintf(err, n, "%s: %s needs %s sets, and the %s has %u", key, name, ix->counts,
                 what, sets);
        return NULL;
    }
    return ix;
}

/* The smallest power of two >= v (v <= 2^31). */
static unsigned pow2_ceil(unsigned v)
{
    return v <= 1 ? 1 : 1u << (32 - __builtin_clz(v - 1));
}

int cache_index_slice_check(const char *key, const char *name, unsigned n, char *err,
                            size_t errn)
{
    const CacheIndex *ix = cache_index_find(name);
    if (!ix || ix->set == fermi_set) {
        snprintf(err, errn, "%s: '%s' cannot choose a slice (linear, xor, ipoly)", key, name);
        return -1;
    }
    if (n == 0 || n > 65536 || (ix->set == xor_set && !is_pow2(n))) {
        snprintf(err, errn, "%s: %s cannot spread lines over %u slices (%s)", key, name, n,
                 ix->set == xor_set ? "xor needs a power of two" : "1 to 65536");
        return -1;
    }
    return 0;
}

unsigned cache_index_slice(const CacheIndex *ix, uint64_t line, unsigned n)
{
    if (ix->set == ipoly_set && !is_pow2(n))
        return ipoly_set(line, pow2_ceil(n)) % n;
    return ix->set(line, n);
}
