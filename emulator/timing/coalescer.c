/*
 * coalescer.c - warp access -> line requests (coalescer.h).
 *
 * Every active lane contributes the bytes [addr, addr + size); each byte range is cut at
 * sector boundaries and the sectors are ORed into the request of their line. Requests
 * appear in the order of the lowest lane touching them, so the split is deterministic.
 *
 * Local memory (docs/timing.md): a thread's local offset off becomes
 *     LOCAL_BIT | sm << 44 | warp << 34 | ((off / 4) * 32 + lane) * 4 + off % 4
 * i.e. 4-byte words are interleaved across the warp's 32 lanes inside a region private
 * to (SM, warp slot). An 8- or 16-byte local access is split into its words, each mapped
 * separately. The region holds 512 MiB of local memory per thread.
 *
 * Atomics: each line request also says how many operations its line takes at the L2
 * (CoalAtomic, in the request's meta): its lanes, their distinct addresses, and the most
 * lanes on one address, which the L2 must perform one after the other. A lane belongs to
 * the line of its first byte (an atomic is aligned, so it lies in one line).
 */
#include "timing/coalescer.h"

#define LOCAL_BIT (1ull << 63)

uint64_t coal_local_addr(unsigned sm, unsigned warp, unsigned lane, uint64_t off)
{
    return LOCAL_BIT | (uint64_t)sm << 44 | (uint64_t)warp << 34 |
           (((off / 4) * 32 + lane) * 4 + off % 4);
}

/* Requests are found by line through a small open-addressing index (slot = request
 * number + 1), after a check of the request the previous bytes went to. */
#define COAL_HASH 256 /* > 2 x COAL_MAX */

typedef struct CoalOut {
    TmReq *req;
    unsigned n, line, sector_shift, last;
    uint8_t index[COAL_HASH];
} CoalOut;

static unsigned coal_find(CoalOut *o, uint64_t line)
{
    if (o->n && o->req[o->last].line == line)
        return o->last;
    unsigned h = (unsigned)((line * 0x9e3779b97f4a7c15ull) >> 56) % COAL_HASH;
    for (;; h = (h + 1) % COAL_HASH) {
        unsigned k = o->index[h];
        if (!k) {
            if (o->n == COAL_MAX)
                return COAL_MAX; /* cannot happen for sizes <= 16 */
            o->req[o->n] = (TmReq){.line = line};
            o->index[h] = (uint8_t)++o->n;
            return o->last = o->n - 1;
        }
        if (o->req[k - 1].line == line)
            return o->last = k - 1;
    }
}

/* Adds bytes [addr, addr + len) to the request list. */
static void coal_bytes(CoalOut *o, uint64_t addr, unsigned len)
{
    uint64_t end = addr + len;
    while (addr < end) {
        uint64_t line = addr & ~(uint64_t)(o->line - 1);
        uint64_t stop = line + o->line < end ? line + o->line : end;
        unsigned first = (unsigned)((addr - line) >> o->sector_shift);
        unsigned last = (unsigned)((stop - 1 - line) >> o->sector_shift);
        uint8_t sectors = (uint8_t)(((1u << (last + 1)) - 1) & ~((1u << first) - 1));
        unsigned i = coal_find(o, line);
        if (i == COAL_MAX)
            return;
        o->req[i].sectors |= sectors;
        addr = stop;
    }
}

static void coal_lane(CoalOut *o, const TmAccess *a, unsigned sm, unsigned lane)
{
    unsigned size = a->size ? a->size : 1;
    uint64_t addr = a->addr[lane];
    if (a->space != TM_LOCAL && !(size & (size - 1)) && !(addr & (size - 1)) &&
        size <= (1u << o->sector_shift)) {
        /* an aligned access no larger than a sector lies in one sector of one line */
        uint64_t line = addr & ~(uint64_t)(o->line - 1);
        unsigned i = coal_find(o, line);
        if (i != COAL_MAX)
            o->req[i].sectors |= (uint8_t)(1u << ((addr - line) >> o->sector_shift));
        return;
    }
    if (a->space != TM_LOCAL) {
        coal_bytes(o, a->addr[lane], size);
        return;
    }
    uint64_t off = a->addr[lane], end = off + size;
    while (off < end) { /* word by word: each word has its own interleaved slot */
        uint64_t word_end = (off & ~3ull) + 4;
        unsigned len = (unsigned)((word_end < end ? word_end : end) - off);
        coal_bytes(o, coal_local_addr(sm, a->warp, lane, off), len);
        off += len;
    }
}

/* The usual access, which coal_lane would split the same way: every lane's bytes lie in
 * one sector (a global, constant or texture access of a power-of-two size at most a
 * sector, aligned), so a lane adds one sector bit to one line's request. The lines are
 * found through a small index kept on the stack, after a check of the previous lane's
 * line. Returns the number of requests, or -1 when a lane is not like that. */
static int coal_sectors(const TmAccess *a, unsigned line, unsigned sector_shift, TmReq *out)
{
    enum { HASH = 64 }; /* > 2 x 32 requests */
    unsigned size = a->size ? a->size : 1;
    if (a->space == TM_LOCAL || (size & (size - 1)) || size > (1u << sector_shift))
        return -1;
    uint64_t lines[32], prev = 0;
    uint8_t sectors[32] = {0}, index[HASH] = {0};
    unsigned n = 0, k = 0;
    for (uint32_t m = a->mask; m; m &= m - 1) {
        uint64_t addr = a->addr[__builtin_ctz(m)], l = addr & ~(uint64_t)(line - 1);
        if (addr & (size - 1))
            return -1;
        if (!n || l != prev) {
            unsigned h = (unsigned)((l * 0x9e3779b97f4a7c15ull) >> 58);
            while (index[h] && lines[index[h] - 1] != l)
                h = (h + 1) % HASH;
            if (!index[h])
                lines[n] = l, index[h] = (uint8_t)++n;
            k = index[h] - 1u, prev = l;
        }
        sectors[k] |= (uint8_t)(1u << ((addr - l) >> sector_shift));
    }
    for (unsigned i = 0; i < n; i++)
        out[i] = (TmReq){.line = lines[i], .sectors = sectors[i]};
    return (int)n;
}

/* Counts each atomic request's operations (CoalAtomic) into its meta. A lane is counted
 * once, at the first lane of its address, with every later lane on that address. */
static void coal_atomics(const TmAccess *a, unsigned line, TmReq *out, unsigned n)
{
    CoalAtomic c[32] = {{0}};
    uint32_t seen = 0;
    for (uint32_t m = a->mask; m; m &= m - 1) {
        unsigned i = (unsigned)__builtin_ctz(m);
        if (seen >> i & 1)
            continue;
        uint64_t l = a->addr[i] & ~(uint64_t)(line - 1);
        unsigned k = 0;
        while (k < n && out[k].line != l)
            k++;
        unsigned same = 1;
        for (uint32_t rest = m & (m - 1); rest; rest &= rest - 1) {
            unsigned j = (unsigned)__builtin_ctz(rest);
            if (a->addr[j] == a->addr[i])
                same++, seen |= 1u << j;
        }
        if (k >= n || k >= 32)
            continue; /* cannot happen: every lane's line has its request */
        c[k].lanes += same, c[k].addrs++;
        c[k].serial = same > c[k].serial ? same : c[k].serial;
    }
    for (unsigned k = 0; k < n && k < 32; k++)
        out[k].meta = coal_atomic_pack(c[k]);
}

unsigned coal_split(const TmAccess *a, unsigned sm, unsigned line, unsigned sector, TmReq *out)
{
    unsigned shift = 0;
    while ((1u << shift) < sector)
        shift++;
    int n = coal_sectors(a, line, shift, out);
    if (n < 0) {
        CoalOut o = {.req = out, .line = line, .sector_shift = shift};
        for (unsigned lane = 0; lane < 32; lane++)
            if (a->mask >> lane & 1)
                coal_lane(&o, a, sm, lane);
        n = (int)o.n;
    }
    for (int i = 0; i < n; i++) {
        out[i].kind = a->kind;
        out[i].sm = (uint16_t)sm;
        out[i].warp = (uint16_t)a->warp;
        out[i].pc = a->pc;
        out[i].atom = TM_NO_ATOM; /* the LD/ST unit looks the hints up */
    }
    if (a->kind == TM_ATOMIC && a->space != TM_LOCAL)
        coal_atomics(a, line, out, (unsigned)n);
    return (unsigned)n;
}
