/*
 * reuse_prof.c - Memento's profile-guided reuse distances (docs/hints.md): the dynamic
 * reuse distance of every operand over the first warps of each kernel.
 *
 * Per profiled warp, a trace walk keeps, for every register, the last operand that
 * touched it (pc, operand bits, dynamic instruction number). When an instruction reads
 * the register, that operand's distance is the difference of the numbers: near when at
 * most RTHLD, else far; when an instruction writes it first, the last operand's value
 * was never read again: far. Whatever is left when the warp exits is far. Counts
 * accumulate per kernel (by name) over launches until the kernel has had its quota of
 * warps: emu.reuse_profile_warps, or with 0 about 0.01% of a launch's warps (at least
 * 2). Profiled warps are those with the lowest global warp numbers (CTA in grid order,
 * then warp in the CTA). A 64-bit operand is tracked by its first register, as the
 * static estimate (isa/reuse.c) does: reading or writing either register of a pair
 * counts for the operands those registers belong to.
 *
 * The file (xisa_reuse_profile_read parses it):
 *     xgpu-reuse-profile 1
 *     rthld R
 *     kernel NAME HASH INSNS WARPS      (HASH: xisa_code_hash of the kernel's code)
 *     PC SLOT NEAR FAR                  (only operands with a count; SLOT 0-5 sources,
 *     ...                                6-7 destinations)
 */
#include <stdlib.h>
#include <string.h>

#include "device.h"
#include "func/exec.h"

typedef struct RpKernel {
    char *name;
    uint64_t hash;
    uint32_t n;            /* instructions */
    uint64_t warps;        /* warps profiled so far */
    uint32_t (*cnt)[2];    /* [n * 8]: near, far */
} RpKernel;

typedef struct EmuReuseProf {
    char *path;
    unsigned rthld;
    RpKernel *k;
    size_t nk, capk;
} EmuReuseProf;

typedef struct RpLast {
    uint64_t ip;
    uint32_t pc;
    uint8_t bits, valid;
} RpLast;

struct EmuReuseTrack {
    uint64_t ip;
    RpLast last[256]; /* by register number (a pair at r254 reaches 255) */
};

struct EmuReuseRun {
    RpKernel *k;
    const XInsn *code;
    unsigned rthld;
    uint64_t limit;            /* warps with a global number below this are profiled */
    struct EmuReuseTrack *track; /* [limit] */
};

EmuStatus emu_reuse_profile_start(EmuDevice *d, const char *path)
{
    if (!d || !path || !*path)
        return EMU_ERR_INVALID_VALUE;
    EmuReuseProf *p = d->reuse_prof ? d->reuse_prof : calloc(1, sizeof *p);
    if (!p)
        return EMU_ERR_OUT_OF_MEMORY;
    free(p->path);
    if (!(p->path = strdup(path))) {
        if (!d->reuse_prof)
            free(p);
        return EMU_ERR_OUT_OF_MEMORY;
    }
    d->reuse_prof = p;
    return EMU_OK;
}

static RpKernel *kernel_entry(EmuReuseProf *p, const char *name, const XInsn *code, uint32_t n)
{
    uint64_t hash = xisa_code_hash(code, n);
    for (size_t i = 0; i < p->nk; i++)
        if (!strcmp(p->k[i].name, name) && p->k[i].hash == hash)
            return &p->k[i];
    if (p->nk == p->capk) {
        size_t cap = p->capk ? 2 * p->capk : 8;
        RpKernel *k = realloc(p->k, cap * sizeof *k);
        if (!k)
            return NULL;
        p->k = k, p->capk = cap;
    }
    RpKernel *k = &p->k[p->nk];
    *k = (RpKernel){.name = strdup(name), .hash = hash, .n = n,
                    .cnt = calloc((size_t)(n ? n : 1) * 8, sizeof *k->cnt)};
    if (!k->name || !k->cnt) {
        free(k->name);
        free(k->cnt);
        return NULL;
    }
    p->nk++;
    return k;
}

EmuReuseRun *emu_reuse_begin(EmuDevice *d, const EmuModule *m, int kernel, EmuDim3 grid,
                             uint32_t nwarps)
{
    EmuReuseProf *p = d->reuse_prof;
    if (!p)
        return NULL;
    const XGpubin *g = m->bin;
    const XKernel *xk = &g->kernels[kernel];
    const XInsn *code = &g->text[xk->code_start];
    p->rthld = g->reuse ? g->reuse_rthld : XREUSE_RTHLD_DEFAULT;
    RpKernel *k = kernel_entry(p, xk->name, code, xk->code_count);
    uint64_t total = (uint64_t)grid.x * grid.y * grid.z * nwarps;
    uint64_t quota = d->cfg.emu_reuse_profile_warps, share = (total + 9999) / 10000;
    if (!quota)
        quota = share > 2 ? share : 2;
    if (!k || k->warps >= quota)
        return NULL;
    uint64_t limit = quota - k->warps < total ? quota - k->warps : total;
    EmuReuseRun *r = calloc(1, sizeof *r);
    if (r)
        r->track = calloc(limit, sizeof *r->track);
    if (!r || !r->track) {
        free(r);
        return NULL; /* out of memory: this launch is not profiled */
    }
    r->k = k, r->code = code, r->rthld = p->rthld, r->limit = limit;
    return r;
}

EmuReuseTrack *emu_reuse_track(EmuExec *x, EmuDim3 ctaid, uint32_t warp)
{
    EmuReuseRun *r = x->reuse;
    uint64_t cta = ctaid.x + (uint64_t)x->grid.x * (ctaid.y + (uint64_t)x->grid.y * ctaid.z);
    uint64_t gw = cta * x->nwarps + warp;
    return gw < r->limit ? &r->track[gw] : NULL;
}

static void count(EmuReuseRun *r, const RpLast *l, int near)
{
    for (unsigned b = 0; b < 8; b++)
        if (l->bits >> b & 1)
            r->k->cnt[(size_t)l->pc * 8 + b][near ? 0 : 1]++;
}

void emu_reuse_note(EmuExec *x, EmuWarp *w, uint32_t pc)
{
    EmuReuseRun *r = x->reuse;
    EmuReuseTrack *t = w->prof;
    if (pc >= r->k->n)
        return;
    const XInsn *in = &r->code[pc];
    uint64_t ip = ++t->ip;
    /* Every register a source covers is read: the operand that last touched it gets its
     * distance. Then the operand becomes the last of its first register (a pair is
     * tracked by its first register) and its other registers forget theirs. */
    uint8_t regs[12], bits[12];
    unsigned nr = 0;
    for (unsigned i = 0; i < 6; i++) {
        unsigned k = xisa_operand_regs(in, 0, i);
        for (unsigned j = 0; j < k && in->src[i] != XREG_RZ; j++) {
            unsigned m = 0, reg = in->src[i] + j;
            while (m < nr && regs[m] != reg)
                m++;
            if (m == nr)
                regs[nr] = (uint8_t)reg, bits[nr++] = 0;
            if (j == 0)
                bits[m] |= (uint8_t)XREUSE_SRC(i);
        }
    }
    for (unsigned m = 0; m < nr; m++) {
        RpLast *l = &t->last[regs[m]];
        if (l->valid)
            count(r, l, ip - l->ip <= r->rthld);
        *l = (RpLast){ip, pc, bits[m], bits[m] != 0};
    }
    for (unsigned i = 0; i < 2; i++) {
        unsigned k = xisa_operand_regs(in, 1, i);
        for (unsigned j = 0; j < k && in->dst[i] != XREG_RZ; j++) {
            RpLast *l = &t->last[in->dst[i] + j];
            if (l->valid)
                count(r, l, 0); /* overwritten before any read */
            *l = (RpLast){ip, pc, (uint8_t)XREUSE_DST(i), j == 0};
        }
    }
}

void emu_reuse_warp_done(EmuExec *x, EmuWarp *w)
{
    EmuReuseTrack *t = w->prof;
    for (unsigned reg = 0; reg < 256; reg++)
        if (t->last[reg].valid) {
            count(x->reuse, &t->last[reg], 0);
            t->last[reg].valid = 0;
        }
    w->prof = NULL;
}

void emu_reuse_end(EmuReuseRun *r)
{
    if (!r)
        return;
    uint64_t done = 0;
    for (uint64_t i = 0; i < r->limit; i++)
        done += r->track[i].ip != 0;
    r->k->warps += done;
    free(r->track);
    free(r);
}

int emu_reuse_profile_write(EmuDevice *d, char *err, size_t n)
{
    EmuReuseProf *p = d ? d->reuse_prof : NULL;
    if (!p)
        return 0;
    FILE *f = fopen(p->path, "w");
    if (!f) {
        snprintf(err, n, "%s: cannot open for writing", p->path);
        return -1;
    }
    fprintf(f, "xgpu-reuse-profile 1\nrthld %u\n", p->rthld ? p->rthld : XREUSE_RTHLD_DEFAULT);
    for (size_t i = 0; i < p->nk; i++) {
        const RpKernel *k = &p->k[i];
        fprintf(f, "kernel %s %016llx %u %llu\n", k->name, (unsigned long long)k->hash, k->n,
                (unsigned long long)k->warps);
        for (size_t s = 0; s < (size_t)k->n * 8; s++)
            if (k->cnt[s][0] || k->cnt[s][1])
                fprintf(f, "%zu %zu %u %u\n", s / 8, s % 8, k->cnt[s][0], k->cnt[s][1]);
    }
    if (fclose(f) != 0) {
        snprintf(err, n, "%s: write failed", p->path);
        return -1;
    }
    return 0;
}

void emu_reuse_profile_free(EmuDevice *d)
{
    EmuReuseProf *p = d->reuse_prof;
    if (!p)
        return;
    for (size_t i = 0; i < p->nk; i++) {
        free(p->k[i].name);
        free(p->k[i].cnt);
    }
    free(p->k);
    free(p->path);
    free(p);
    d->reuse_prof = NULL;
}
