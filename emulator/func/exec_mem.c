/*
 * exec_mem.c - semantics of ld, st, atom, atomcas, membar and nop, and the per-access
 * memory check.
 *
 * An address is the 64-bit register pair s0 (RZ reads 0) plus imm. Generic addresses are
 * classified by window (shared, local, param, otherwise global); const addresses are
 * global device addresses that may not be stored to. Every access is checked before it
 * happens: alignment (the address must be a multiple of the access size, or of the
 * larger alignment an ld/st carries in sub: the first part of a vector access checks the
 * whole vector's alignment, as a GPU's ld.v4 does), then bounds
 * (a live allocation, the CTA's shared bytes, the thread's local bytes, the parameter
 * buffer), then permission (no stores to param or const, no atomics on local memory).
 * The first failing lane, in lane order, stops the instruction with a fault; lanes
 * before it have completed. Faults are described in memcheck.c.
 *
 * With emu.memcheck = warn or off a failed check is not a fault (memcheck.c): the lane
 * reads zeros and its writes are dropped. The checks themselves, the fast paths, are the
 * same in every mode; only the slow path (emu_mem_bad) looks at the mode. Local accesses
 * raise the CTA's local high-water mark (cta.c zeroes only that much of each frame).
 *
 * Atomics are read-modify-writes done lane by lane in lane order, so contention is
 * deterministic; each lane's d receives the value it found. In timing mode global stores
 * and atomics are applied at the end of the cycle that issued them (the write log,
 * below). The operation is XInsn.sub
 * (XAtom) on the data type: float add/min/max on f32/f64, signed min/max on s32/s64,
 * inc/dec with CUDA's wrap rules.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "device.h"
#include "func/exec.h"

#define AI static inline __attribute__((always_inline))

/* Makes the allocation that holds the `size` bytes at global address a the last one hit
 * (x->gbase): one of the others remembered, moved to the front, or found by emu_mem_lookup
 * (which changes nothing: the SMs of the timing model may call it from several threads).
 * Returns 0 when no allocation holds them. A program that streams several arrays at once
 * (a sparse matrix's row pointers, column indices and values) alternates between a few
 * allocations: they stay remembered. */
static int global_hit(EmuExec *x, uint64_t a, unsigned size)
{
    uint64_t base, bytes;
    uint8_t *host;
    unsigned i = 0;
    while (i < EMU_GHITS - 1 && !(a - x->gprev[i].base < x->gprev[i].size &&
                                  x->gprev[i].size - (a - x->gprev[i].base) >= size))
        i++;
    if (i < EMU_GHITS - 1) {
        base = x->gprev[i].base, bytes = x->gprev[i].size, host = x->gprev[i].host;
    } else {
        const EmuAlloc *al = emu_mem_lookup(x->mem, a, size);
        for (uint32_t p = 0; !al && x->dev && p < x->dev->npeers; p++)
            al = emu_mem_lookup(&x->dev->peers[p]->mem, a, size); /* peer access */
        if (!al)
            return 0;
        base = al->base, bytes = al->size, host = al->host;
        i = EMU_GHITS - 2; /* the least recently hit goes */
    }
    memmove(&x->gprev[1], &x->gprev[0], i * sizeof x->gprev[0]);
    x->gprev[0].base = x->gbase, x->gprev[0].size = x->gsize, x->gprev[0].host = x->ghost;
    x->gbase = base, x->gsize = bytes, x->ghost = host;
    return 1;
}

/* Slow path of a global access that misses the last allocation hit: another allocation,
 * or memcheck.c. */
static uint8_t *global_miss(EmuExec *x, const EmuWarp *w, const EmuInsn *in, unsigned space,
                            uint64_t a, unsigned size, int store, unsigned lane)
{
    if (!global_hit(x, a, size))
        return emu_mem_bad(x, w, in, space, a, size, store, lane);
    return x->ghost + (a - x->gbase);
}

/* The alignment an access of `size` bytes by in must have (xisa_mem_align): ld/st's sub,
 * when set, is the log2 of a larger one; atom's sub is its operation. */
AI unsigned access_align(const EmuInsn *in, unsigned size)
{
    return in->sub && (in->op == XOP_ld || in->op == XOP_st) ? 1u << in->sub : size;
}

/* Host pointer for one lane's access (store: 0 load, 1 store, 2 atomic). Every failed
 * check goes to emu_mem_bad with the address as the program formed it: NULL (a fault)
 * or, with emu.memcheck = warn | off, a scratch buffer. *global: the pointer is into a
 * global allocation (a store or atomic there is deferred in timing mode). */
AI uint8_t *mem_at_in(EmuExec *x, const EmuWarp *w, const EmuInsn *in, unsigned space,
                      uint64_t a, unsigned size, int store, unsigned lane, int *global)
{
    *global = 0;
    const unsigned as = space;
    const uint64_t orig = a;
    if (a & (access_align(in, size) - 1))
        return emu_mem_bad(x, w, in, as, orig, size, store, lane);
    if (space == XS_GENERIC) {
        if (a - XGPU_SHARED_BASE < XGPU_WINDOW_SIZE)
            space = XS_SHARED, a -= XGPU_SHARED_BASE;
        else if (a - XGPU_LOCAL_BASE < XGPU_WINDOW_SIZE)
            space = XS_LOCAL, a -= XGPU_LOCAL_BASE;
        else if (a - XGPU_PARAM_BASE < XGPU_WINDOW_SIZE)
            space = XS_PARAM, a -= XGPU_PARAM_BASE;
        else
            space = XS_GLOBAL;
    }
    switch (space) {
    case XS_SHARED:
        if (a >= x->shared_size || size > x->shared_size - a)
            return emu_mem_bad(x, w, in, as, orig, size, store, lane);
        return x->shared + a;
    case XS_LOCAL:
        if (store == 2 || a >= x->local_size || size > x->local_size - a)
            return emu_mem_bad(x, w, in, as, orig, size, store, lane);
        if (a + size > x->cta->local_hwm)
            x->cta->local_hwm = a + size;
        return x->local + (uint64_t)(w->id * XGPU_WARP_SIZE + lane) * x->local_size + a;
    case XS_PARAM:
        if (store || a >= x->param_size || size > x->param_size - a)
            return emu_mem_bad(x, w, in, as, orig, size, store, lane);
        return (uint8_t *)x->param + a;
    case XS_CONST:
    case XS_TEX:
        if (store)
            return emu_mem_bad(x, w, in, as, orig, size, store, lane);
        /* const data and texels are global memory */
        /* fall through */
    default:
        if (a - x->gbase < x->gsize && x->gsize - (a - x->gbase) >= size) {
            *global = 1;
            return x->ghost + (a - x->gbase);
        }
        uint8_t *p = global_miss(x, w, in, as, a, size, store, lane);
        *global = p && p != x->scratch;
        return p;
    }
}

AI uint8_t *mem_at(EmuExec *x, const EmuWarp *w, const EmuInsn *in, unsigned space,
                   uint64_t a, unsigned size, int store, unsigned lane)
{
    int global;
    return mem_at_in(x, w, in, space, a, size, store, lane, &global);
}

/* --- the write log (timing mode) ------------------------------------------------------
 * In timing mode the SMs of one cycle may run on several host threads, so global memory
 * must not change while they do: a global store or atomic is appended to the SM's log
 * (x->wlog) and applied at the end of the cycle, SM by SM in SM order and in issue order
 * within an SM (emu_wlog_commit, called by timing/gpu_cycle.c). An atomic's old value reaches
 * its destination register then, before any instruction can read it (its scoreboard
 * bit stays set until the memory system answers). So a global write is seen by every
 * load issued in a later cycle, and by none in its own cycle (docs/timing.md,
 * "Parallel simulation"). Shared and local memory belong to one SM and change at once. */

enum { WL_STORE, WL_ATOM, WL_CAS };
/* Atomic operand types, as the atomic handlers name them. */
enum { AT_U32, AT_S32, AT_F32, AT_U64, AT_S64, AT_F64 };

typedef struct EmuWlRec {
    uint8_t *p;          /* host address */
    uint64_t addr;       /* device address */
    uint32_t *dlo, *dhi; /* atomic: its destination register's words (dhi: 64-bit) */
    uint64_t v, cmp;     /* atomic: operand (cas: new value) and cas's compare value */
    uint32_t n;          /* store: bytes after the header */
    uint8_t kind, ty, op;
} EmuWlRec;

static void *wl_reserve(EmuWlog *g, size_t n)
{
    if (g->cap - g->len < n) {
        size_t cap = g->cap ? 2 * g->cap : 4096;
        while (cap - g->len < n)
            cap *= 2;
        uint8_t *b = realloc(g->buf, cap);
        if (!b) {
            g->lost = 1;
            return NULL;
        }
        g->buf = b, g->cap = cap;
    }
    void *r = g->buf + g->len;
    g->len += n;
    return r;
}

static size_t wl_size(uint32_t n)
{
    return sizeof(EmuWlRec) + ((n + 7u) & ~7u);
}

static void wl_store(EmuWlog *g, uint8_t *p, uint64_t addr, const void *src, uint32_t n)
{
    EmuWlRec *r = wl_reserve(g, wl_size(n));
    if (!r)
        return;
    *r = (EmuWlRec){.p = p, .addr = addr, .n = n, .kind = WL_STORE};
    memcpy(r + 1, src, n);
}

static void wl_atom(EmuWlog *g, uint8_t *p, uint64_t addr, unsigned kind, unsigned ty,
                    unsigned op, uint64_t v, uint64_t cmp, uint32_t *dlo, uint32_t *dhi)
{
    EmuWlRec *r = wl_reserve(g, sizeof *r);
    if (r)
        *r = (EmuWlRec){.p = p, .addr = addr, .dlo = dlo, .dhi = dhi, .v = v, .cmp = cmp,
                        .kind = (uint8_t)kind, .ty = (uint8_t)ty, .op = (uint8_t)op};
}

/* The device address of host pointer p into the allocation last hit (every deferred
 * store and atomic is into it: its lookup made it the last hit). */
AI uint64_t hit_addr(const EmuExec *x, const uint8_t *p)
{
    return x->gbase + (uint64_t)(p - x->ghost);
}

/* A store's bytes: at once, or into the log (defer). */
AI void put(EmuExec *x, uint8_t *p, const void *src, unsigned n, int defer)
{
    if (defer)
        wl_store(x->wlog, p, hit_addr(x, p), src, n);
    else
        memcpy(p, src, n);
}

void emu_wlog_free(EmuWlog *g)
{
    free(g->buf);
    memset(g, 0, sizeof *g);
}

/* The fast path of a warp's load or store (store: 0 or 1) of N bytes a lane that must be
 * aligned to A (N, or ld/st's larger alignment). When every
 * active lane's address is aligned and inside one region (the allocation of the last
 * global hit, which the lowest active lane's address may refill; the CTA's shared bytes;
 * for loads, the parameter buffer), it puts every lane's byte offset into that region in
 * off and returns the region's base, with *contiguous telling whether the mask is full
 * and lane l's offset is lane 0's + l * N (the warp's bytes are one block) and *uniform
 * whether it is full and every lane's offset is the same. Otherwise it
 * returns NULL and the handler goes lane by lane (mem_at), which finds the first failing
 * lane in lane order exactly as without this path: nothing is read or written here, so
 * falling back repeats nothing. */
AI uint8_t *warp_region(EmuExec *x, unsigned space, EmuRows R, unsigned s0, int64_t imm,
                        const unsigned N, const unsigned A, int store, uint32_t mask,
                        uint64_t off[XGPU_WARP_SIZE], int *contiguous, int *uniform)
{
    uint64_t bias, size;
    uint8_t *base;
    if (!mask)
        return NULL;
    const uint64_t a0 = rr64(R, s0, (unsigned)__builtin_ctz(mask)) + (uint64_t)imm;
    if (space == XS_GENERIC) {
        if (a0 - XGPU_SHARED_BASE < XGPU_WINDOW_SIZE)
            space = XS_SHARED;
        else if (a0 - XGPU_PARAM_BASE < XGPU_WINDOW_SIZE)
            space = XS_PARAM;
        else if (a0 - XGPU_LOCAL_BASE < XGPU_WINDOW_SIZE)
            return NULL;
        else
            space = XS_GLOBAL;
        bias = space == XS_SHARED ? XGPU_SHARED_BASE : space == XS_PARAM ? XGPU_PARAM_BASE : 0;
    } else {
        bias = 0;
    }
    switch (space) {
    case XS_SHARED:
        base = x->shared, size = x->shared_size;
        break;
    case XS_PARAM:
        if (store)
            return NULL;
        base = (uint8_t *)x->param, size = x->param_size;
        break;
    case XS_LOCAL:
        return NULL;
    case XS_CONST:
    case XS_TEX:
        if (store)
            return NULL;
        /* fall through */
    default:
        if (a0 - x->gbase >= x->gsize && !global_hit(x, a0, N))
            return NULL;
        bias = x->gbase, base = x->ghost, size = x->gsize;
        break;
    }
    if (size < N)
        return NULL;
    const uint64_t last = size - N, delta = (uint64_t)imm - bias;
    const uint64_t first = a0 - bias;
    uint64_t bad = 0, apart = 0, differ = 0;
    if (mask == EMU_FULL_MASK) {
        for (unsigned l = 0; l < XGPU_WARP_SIZE; l++) {
            const uint64_t o = rr64(R, s0, l) + delta;
            off[l] = o;
            bad |= (uint64_t)(o > last) | (o & (A - 1));
            apart |= o ^ (first + (uint64_t)l * N);
            differ |= o ^ first;
        }
    } else {
        for (unsigned l = 0; l < XGPU_WARP_SIZE; l++) {
            const uint64_t o = rr64(R, s0, l) + delta;
            off[l] = o;
            bad |= (uint64_t)((o > last) | ((o & (A - 1)) != 0)) & (mask >> l & 1);
        }
        apart = differ = 1;
    }
    *contiguous = apart == 0;
    *uniform = differ == 0;
    return bad ? NULL : base;
}

/* --- handlers ---------------------------------------------------------------------------- */

/* A lane's global load of n bytes at generic or global address a (v: memory's bytes)
 * through the view: a GPU's stale copy replaces them (timing/stale.h). */
static void view_read(const EmuExec *x, unsigned space, uint64_t a, unsigned n, void *v)
{
    if (space == XS_GLOBAL || (space == XS_GENERIC && a - XGPU_SHARED_BASE >= XGPU_WINDOW_SIZE &&
                               a - XGPU_LOCAL_BASE >= XGPU_WINDOW_SIZE &&
                               a - XGPU_PARAM_BASE >= XGPU_WINDOW_SIZE))
        x->view->read(x->view, a, n, v);
}

#define LDOP(sfx, N, CT, STORE_RESULT)                                                      \
    EMU_HOT static int ld_##sfx(EXEC_ARGS) {                                               \
        OPERANDS;                                                                           \
        uint64_t off[XGPU_WARP_SIZE];                                                       \
        int contig, same;                                                                   \
        if (x->view && *x->view->live) { /* stale copies: lane by lane */                  \
            LANES {                                                                         \
                uint64_t a = rr64(R, s0, l) + (uint64_t)imm;                               \
                uint8_t *p = mem_at(x, w, in, in->mod, a, N, 0, l);                         \
                if (!p) return EXEC_FAULT;                                                  \
                CT v; memcpy(&v, p, N); view_read(x, in->mod, a, N, &v); STORE_RESULT;      \
            }                                                                               \
            return EXEC_NEXT;                                                               \
        }                                                                                   \
        const uint8_t *base =                                                               \
            warp_region(x, in->mod, R, s0, imm, N, access_align(in, N), 0, mask, off,      \
                        &contig, &same);                                                    \
        if (base && N == 4 && contig) {                                                     \
            memcpy(R[d], base + off[0], 4 * XGPU_WARP_SIZE);                                \
            return EXEC_NEXT;                                                               \
        }                                                                                   \
        if (base && same) { /* one address: every lane gets the same value */              \
            CT v; memcpy(&v, base + off[0], N);                                             \
            for (unsigned l = 0; l < XGPU_WARP_SIZE; l++) { STORE_RESULT; }                 \
            return EXEC_NEXT;                                                               \
        }                                                                                   \
        if (base && mask == EMU_FULL_MASK) {                                                \
            CT got[XGPU_WARP_SIZE];                                                         \
            for (unsigned l = 0; l < XGPU_WARP_SIZE; l++)                                   \
                memcpy(&got[l], base + off[l], N);                                          \
            for (unsigned l = 0; l < XGPU_WARP_SIZE; l++) {                                 \
                CT v = got[l]; STORE_RESULT;                                                \
            }                                                                               \
            return EXEC_NEXT;                                                               \
        }                                                                                   \
        if (base) {                                                                         \
            LANES { CT v; memcpy(&v, base + off[l], N); STORE_RESULT; }                    \
            return EXEC_NEXT;                                                               \
        }                                                                                   \
        LANES {                                                                             \
            uint8_t *p = mem_at(x, w, in, in->mod, rr64(R, s0, l) + (uint64_t)imm, N, 0, l); \
            if (!p) return EXEC_FAULT;                                                      \
            CT v; memcpy(&v, p, N); STORE_RESULT;                                           \
        }                                                                                   \
        return EXEC_NEXT; }
LDOP(u8, 1, uint8_t, R[d][l] = v)
LDOP(s8, 1, int8_t, R[d][l] = (uint32_t)(int32_t)v)
LDOP(u16, 2, uint16_t, R[d][l] = v)
LDOP(s16, 2, int16_t, R[d][l] = (uint32_t)(int32_t)v)
LDOP(b32, 4, uint32_t, R[d][l] = v)
LDOP(b64, 8, uint64_t, rw64(R, d, l, v))

/* Stores go in lane order on either path, so of lanes that write one address the
 * highest wins. */
#define STOP(sfx, N, CT, VALUE)                                                             \
    EMU_HOT static int st_##sfx(EXEC_ARGS) {                                               \
        OPERANDS;                                                                           \
        uint64_t off[XGPU_WARP_SIZE];                                                       \
        int contig, same;                                                                   \
        uint8_t *base = warp_region(x, in->mod, R, s0, imm, N, access_align(in, N), 1, mask, \
                                    off, &contig, &same);                                   \
        const int defer = base && x->wlog && base == x->ghost;                              \
        if (base && N == 4 && contig) {                                                     \
            put(x, base + off[0], R[s1], 4 * XGPU_WARP_SIZE, defer);                        \
            return EXEC_NEXT;                                                               \
        }                                                                                   \
        if (base && same) { /* one address: the last lane's value is the one that stays */ \
            const unsigned l = XGPU_WARP_SIZE - 1;                                          \
            CT v = (CT)(VALUE); put(x, base + off[0], &v, N, defer);                        \
            return EXEC_NEXT;                                                               \
        }                                                                                   \
        if (base) {                                                                         \
            LANES { CT v = (CT)(VALUE); put(x, base + off[l], &v, N, defer); }             \
            return EXEC_NEXT;                                                               \
        }                                                                                   \
        LANES {                                                                             \
            int global;                                                                     \
            uint8_t *p = mem_at_in(x, w, in, in->mod, rr64(R, s0, l) + (uint64_t)imm, N, 1, l, \
                                   &global);                                                \
            if (!p) return EXEC_FAULT;                                                      \
            CT v = (CT)(VALUE); put(x, p, &v, N, global && x->wlog);                        \
        }                                                                                   \
        return EXEC_NEXT; }
STOP(b8, 1, uint8_t, R[s1][l])
STOP(b16, 2, uint16_t, R[s1][l])
STOP(b32, 4, uint32_t, R[s1][l])
STOP(b64, 8, uint64_t, rr64(R, s1, l))

static const EmuExecFn ld_tab[XT_COUNT] = {
    [XT_U8] = ld_u8, [XT_S8] = ld_s8, [XT_U16] = ld_u16, [XT_S16] = ld_s16,
    [XT_U32] = ld_b32, [XT_S32] = ld_b32, [XT_F32] = ld_b32,
    [XT_U64] = ld_b64, [XT_S64] = ld_b64, [XT_F64] = ld_b64};
static const EmuExecFn st_tab[XT_COUNT] = {
    [XT_U8] = st_b8, [XT_S8] = st_b8, [XT_U16] = st_b16, [XT_S16] = st_b16,
    [XT_U32] = st_b32, [XT_S32] = st_b32, [XT_F32] = st_b32,
    [XT_U64] = st_b64, [XT_S64] = st_b64, [XT_F64] = st_b64};

/* The immediate of a memory instruction is its offset, whatever XF_IMM says. */
static int pick_mem(const EmuExecFn *tab, const XInsn *xi, EmuInsn *o)
{
    if (xi->type >= XT_COUNT || xi->mod >= XS_COUNT || !tab[xi->type])
        return -1;
    o->fn = tab[xi->type];
    o->kind = EK_PLAIN;
    return 0;
}

int emu_pick_ld(const XInsn *xi, EmuInsn *o) { return pick_mem(ld_tab, xi, o); }
int emu_pick_st(const XInsn *xi, EmuInsn *o) { return pick_mem(st_tab, xi, o); }

/* --- atomics --------------------------------------------------------------------------- */

static inline float bits_f(uint32_t b) { float f; memcpy(&f, &b, 4); return f; }
static inline double bits_d(uint64_t b) { double f; memcpy(&f, &b, 8); return f; }
static inline uint32_t f_bits(float f) { uint32_t b; memcpy(&b, &f, 4); return b; }
static inline uint64_t d_bits(double f) { uint64_t b; memcpy(&b, &f, 8); return b; }

/* New value of an integer atomic on old with operand v (the data type T, unsigned U). */
#define ATOM_INT(T, U)                                                                      \
    switch (op) {                                                                           \
    case XATOM_ADD: return (U)((U)old + (U)v);                                              \
    case XATOM_SUB: return (U)((U)old - (U)v);                                              \
    case XATOM_MIN: return (T)old < (T)v ? old : v;                                         \
    case XATOM_MAX: return (T)old > (T)v ? old : v;                                         \
    case XATOM_INC: return old >= v ? 0 : old + 1;                                          \
    case XATOM_DEC: return old == 0 || old > v ? v : old - 1;                               \
    case XATOM_AND: return old & v;                                                         \
    case XATOM_OR: return old | v;                                                          \
    case XATOM_XOR: return old ^ v;                                                         \
    default: return v; /* exch */                                                           \
    }
static uint32_t atom_u32(unsigned op, uint32_t old, uint32_t v) { ATOM_INT(uint32_t, uint32_t) }
static uint32_t atom_s32(unsigned op, uint32_t old, uint32_t v) { ATOM_INT(int32_t, uint32_t) }
static uint64_t atom_u64(unsigned op, uint64_t old, uint64_t v) { ATOM_INT(uint64_t, uint64_t) }
static uint64_t atom_s64(unsigned op, uint64_t old, uint64_t v) { ATOM_INT(int64_t, uint64_t) }

static uint32_t atom_f32(unsigned op, uint32_t old, uint32_t v)
{
    float a = bits_f(old), b = bits_f(v);
    switch (op) {
    case XATOM_ADD: return f_bits(a + b);
    case XATOM_MIN: return f_bits(fminf(a, b));
    case XATOM_MAX: return f_bits(fmaxf(a, b));
    default: return v; /* exch (the validator allows nothing else) */
    }
}

static uint64_t atom_f64(unsigned op, uint64_t old, uint64_t v)
{
    double a = bits_d(old), b = bits_d(v);
    switch (op) {
    case XATOM_ADD: return d_bits(a + b);
    case XATOM_MIN: return d_bits(fmin(a, b));
    case XATOM_MAX: return d_bits(fmax(a, b));
    default: return v;
    }
}

/* New value of atomic op on old with operand v, for operand type ty (AT_*). */
static uint64_t atom_any(unsigned ty, unsigned op, uint64_t old, uint64_t v)
{
    switch (ty) {
    case AT_U32: return atom_u32(op, (uint32_t)old, (uint32_t)v);
    case AT_S32: return atom_s32(op, (uint32_t)old, (uint32_t)v);
    case AT_F32: return atom_f32(op, (uint32_t)old, (uint32_t)v);
    case AT_U64: return atom_u64(op, old, v);
    case AT_S64: return atom_s64(op, old, v);
    default: return atom_f64(op, old, v);
    }
}

static uint64_t load_n(const uint8_t *p, unsigned n)
{
    if (n == 8) {
        uint64_t v;
        memcpy(&v, p, 8);
        return v;
    }
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

static void store_n(uint8_t *p, uint64_t v, unsigned n)
{
    if (n == 8) {
        memcpy(p, &v, 8);
    } else {
        uint32_t w = (uint32_t)v;
        memcpy(p, &w, 4);
    }
}

/* The read-modify-write of one lane's atomic (kind WL_ATOM, or WL_CAS comparing with
 * cmp) on the 4 or 8 bytes at p that type ty names; the old value goes to dlo (and its
 * high word to dhi for 8 bytes). */
static void atom_apply(uint8_t *p, unsigned kind, unsigned ty, unsigned op, uint64_t v,
                       uint64_t cmp, uint32_t *dlo, uint32_t *dhi)
{
    unsigned n = ty >= AT_U64 ? 8 : 4;
    uint64_t old = load_n(p, n);
    if (kind == WL_ATOM)
        store_n(p, atom_any(ty, op, old, v), n);
    else if (old == cmp)
        store_n(p, v, n);
    *dlo = (uint32_t)old;
    if (dhi)
        *dhi = (uint32_t)(old >> 32);
}

/* One lane l of an atomic at p, the old value going to register row d: at once, or into
 * the log when p is global memory in timing mode. */
static void atom_lane(EmuExec *x, EmuWarp *w, uint8_t *p, int global, unsigned kind,
                      unsigned ty, unsigned op, uint64_t v, uint64_t cmp, unsigned d,
                      unsigned l)
{
    uint32_t *dlo = &w->r[d][l], *dhi = ty >= AT_U64 ? &w->r[d + 1][l] : NULL;
    if (global && x->wlog)
        wl_atom(x->wlog, p, hit_addr(x, p), kind, ty, op, v, cmp, dlo, dhi);
    else
        atom_apply(p, kind, ty, op, v, cmp, dlo, dhi);
}

int emu_wlog_commit(EmuWlog *g)
{
    for (size_t at = 0; at < g->len;) {
        EmuWlRec *r = (EmuWlRec *)(g->buf + at);
        unsigned n = r->kind == WL_STORE ? r->n : r->ty >= AT_U64 ? 8 : 4;
        if (g->watch)
            g->watch(g->watch_ctx, r->addr, n, 0);
        if (r->kind == WL_STORE) {
            memcpy(r->p, r + 1, r->n);
            at += wl_size(r->n);
        } else {
            atom_apply(r->p, r->kind, r->ty, r->op, r->v, r->cmp, r->dlo, r->dhi);
            at += sizeof *r;
        }
        if (g->watch)
            g->watch(g->watch_ctx, r->addr, n, 1);
    }
    int lost = g->lost;
    g->len = 0, g->lost = 0;
    return lost ? -1 : 0;
}

#define ATOMOP(sfx, N, TY)                                                                  \
    static int atom_run_##sfx(EXEC_ARGS) {                                                 \
        LANES {                                                                             \
            int global;                                                                     \
            uint8_t *p = mem_at_in(x, w, in, in->mod, r64(w, in->s0, l) + (uint64_t)in->imm, \
                                   N, 2, l, &global);                                       \
            if (!p) return EXEC_FAULT;                                                      \
            uint64_t v = N == 8 ? r64(w, in->s1, l) : R32(in->s1);                          \
            atom_lane(x, w, p, global, WL_ATOM, TY, in->sub, v, 0, in->d, l);               \
        }                                                                                   \
        return EXEC_NEXT; }
ATOMOP(u32, 4, AT_U32)
ATOMOP(s32, 4, AT_S32)
ATOMOP(f32, 4, AT_F32)
ATOMOP(u64, 8, AT_U64)
ATOMOP(s64, 8, AT_S64)
ATOMOP(f64, 8, AT_F64)

/* Compare and swap compares bit patterns, whatever the type. */
#define CASOP(sfx, N, TY)                                                                   \
    static int cas_run_##sfx(EXEC_ARGS) {                                                  \
        LANES {                                                                             \
            int global;                                                                     \
            uint8_t *p = mem_at_in(x, w, in, in->mod, r64(w, in->s0, l) + (uint64_t)in->imm, \
                                   N, 2, l, &global);                                       \
            if (!p) return EXEC_FAULT;                                                      \
            uint64_t cmp = N == 8 ? r64(w, in->s1, l) : R32(in->s1);                        \
            uint64_t nv = N == 8 ? r64(w, in->s2, l) : R32(in->s2);                         \
            atom_lane(x, w, p, global, WL_CAS, TY, 0, nv, cmp, in->d, l);                   \
        }                                                                                   \
        return EXEC_NEXT; }
CASOP(b32, 4, AT_U32)
CASOP(b64, 8, AT_U64)

static const EmuExecFn atom_tab[XT_COUNT] = {
    [XT_U32] = atom_run_u32, [XT_S32] = atom_run_s32, [XT_F32] = atom_run_f32,
    [XT_U64] = atom_run_u64, [XT_S64] = atom_run_s64, [XT_F64] = atom_run_f64};
static const EmuExecFn cas_tab[XT_COUNT] = {
    [XT_U32] = cas_run_b32, [XT_S32] = cas_run_b32, [XT_F32] = cas_run_b32,
    [XT_U64] = cas_run_b64, [XT_S64] = cas_run_b64, [XT_F64] = cas_run_b64};

/* Atomics reach global and shared memory only (directly or through generic addresses). */
static int pick_atomic(const EmuExecFn *tab, const XInsn *xi, EmuInsn *o)
{
    if (xi->mod != XS_GENERIC && xi->mod != XS_GLOBAL && xi->mod != XS_SHARED)
        return -1;
    return pick_mem(tab, xi, o);
}

int emu_pick_atom(const XInsn *xi, EmuInsn *o)
{
    if (xi->sub >= XATOM_COUNT)
        return -1;
    return pick_atomic(atom_tab, xi, o);
}

int emu_pick_atomcas(const XInsn *xi, EmuInsn *o) { return pick_atomic(cas_tab, xi, o); }

/* --- access for other handlers (exec.h) --------------------------------------------------- */

const uint8_t *emu_exec_span(EmuExec *x, const EmuWarp *w, uint64_t a, unsigned lane,
                             uint64_t *avail)
{
    uint64_t off, size;
    const uint8_t *base;
    if (a - XGPU_SHARED_BASE < XGPU_WINDOW_SIZE)
        off = a - XGPU_SHARED_BASE, size = x->shared_size, base = x->shared;
    else if (a - XGPU_LOCAL_BASE < XGPU_WINDOW_SIZE)
        off = a - XGPU_LOCAL_BASE, size = x->local_size,
        base = x->local + (uint64_t)(w->id * XGPU_WARP_SIZE + lane) * x->local_size;
    else if (a - XGPU_PARAM_BASE < XGPU_WINDOW_SIZE)
        off = a - XGPU_PARAM_BASE, size = x->param_size, base = x->param;
    else {
        const EmuAlloc *al = emu_mem_lookup(x->mem, a, 1);
        if (!al)
            return NULL;
        off = a - al->base, size = al->size, base = al->host;
    }
    if (off >= size)
        return NULL;
    *avail = size - off;
    return base + off;
}

/* Functional mode executes in order: a fence has nothing to wait for. */
static int nop_run(EXEC_ARGS)
{
    (void)x, (void)w, (void)in, (void)mask;
    return EXEC_NEXT;
}

int emu_pick_nop(const XInsn *xi, EmuInsn *o)
{
    (void)xi;
    o->fn = nop_run;
    o->kind = EK_PLAIN;
    return 0;
}

int emu_pick_membar(const XInsn *xi, EmuInsn *o)
{
    if (xi->mod >= XSCOPE_COUNT)
        return -1;
    return emu_pick_nop(xi, o);
}
