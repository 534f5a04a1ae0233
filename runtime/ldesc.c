/*
 * ldesc.c - Locality Descriptors at run time (docs/annotations.md): the static table,
 * the descriptors in force, and the record of which ones applied to each launch.
 *
 * A LocalityDescriptor call names its call site's record in a registered xgpu_ldesc
 * table (the static parts) and passes the run-time parts: kernel (its host stub), base,
 * bytes, D-Tile and C-Tile dimensions, stride. The runtime checks them and puts the
 * descriptor in force for that kernel: it applies to every later launch of the kernel
 * until the same call site specifies it again for the same kernel, which replaces it
 * (the Locality Descriptor paper, ISCA 2018: descriptors "can be re-specified between
 * kernel launches"); descriptors from different call sites accumulate. Each launch takes
 * a snapshot of the descriptors in force for its kernel; the snapshot of a kernel's last
 * launch is what xgpuLDescLastLaunch returns. cudaDeviceReset drops the descriptors
 * (their addresses are gone) and the snapshots.
 *
 * launch.c hands each launch's descriptors to the device as hints (emu_set_hints), where
 * the Locality Descriptor's hardware acts on them (ldesc.mode; docs/ldesc.md). Errors
 * return cudaErrorInvalidValue (or cudaErrorInvalidDeviceFunction for an unknown kernel)
 * with one line on stderr.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt.h"

void rt_ldesc_register(RtContext *c, const void *begin, const void *end)
{
    RtLDescs *d = &c->ld;
    if (rt_hostsec_known(d->secs, d->nsecs, begin))
        return;
    XHostLDescs t;
    char err[256];
    size_t len = (size_t)((const uint8_t *)end - (const uint8_t *)begin);
    if (d->nsecs == RT_MAX_HOST_SECS) {
        fprintf(stderr, "xgpu: too many descriptor tables (at most %d images)\n",
                RT_MAX_HOST_SECS);
        return;
    }
    if (xhost_ldesc_read(begin, len, &t, err, sizeof err)) {
        fprintf(stderr, "xgpu: cannot load the locality descriptor table: %s\n", err);
        return;
    }
    XHostLDesc *tab = realloc(d->table, (d->ntable + t.n + 1) * sizeof *tab);
    if (!tab) {
        fprintf(stderr, "xgpu: cannot load the locality descriptor table: out of memory\n");
        xhost_ldesc_free(&t);
        return;
    }
    if (t.n)
        memcpy(tab + d->ntable, t.v, t.n * sizeof *tab);
    d->table = tab;
    d->secs[d->nsecs++] = (RtHostSec){begin, end, d->ntable, t.n};
    d->ntable += t.n;
    xhost_ldesc_free(&t);
}

/* The table index of a record address, or -1. */
static long ld_ordinal(const RtLDescs *d, const void *rec)
{
    int s = rt_hostsec_of(d->secs, d->nsecs, rec);
    if (s < 0)
        return -1;
    size_t off = (size_t)((const uint8_t *)rec - d->secs[s].begin);
    for (size_t i = d->secs[s].first; i < d->secs[s].first + d->secs[s].count; i++)
        if (d->table[i].offset == off)
            return (long)i;
    return -1;
}

static cudaError_t ld_bad(const XHostLDesc *t, const char *what)
{
    fprintf(stderr, "xgpu: %s:%u: LocalityDescriptor: %s\n", t->file, t->line, what);
    return cudaErrorInvalidValue;
}

static cudaError_t ld_unknown_site(const void *record)
{
    const XLDSite *s = record;
    if (s && s->magic == XLD_SITE_MAGIC && s->file)
        fprintf(stderr, "xgpu: %s:%u: LocalityDescriptor: the call site is in no descriptor "
                "table (compile the file with xgpu-cc)\n", s->file, s->line);
    else
        fprintf(stderr, "xgpu: LocalityDescriptor: not a call-site record\n");
    return cudaErrorInvalidValue;
}

/* Checks the run-time parts against the static ones. */
static cudaError_t ld_check(RtContext *c, const XHostLDesc *t, const void *kernel,
                            const void *base, size_t bytes, const XLDTile *tile, int64_t stride)
{
    RtFatbin *fb;
    RtFunc *fn;
    if (!kernel || !rt_find_func(c, kernel, &fb, &fn)) {
        ld_bad(t, "the kernel is not a registered __global__ function");
        return cudaErrorInvalidDeviceFunction;
    }
    if (t->kernel[0] && strcmp(t->kernel, fn->name))
        return ld_bad(t, "the kernel differs from the one in the descriptor table");
    if (!base || !bytes)
        return ld_bad(t, "the data structure needs a base address and a non-zero size");
    if (!rt_is_device_ptr(c, base))
        return ld_bad(t, "the base address is not device memory");
    if (!tile)
        return ld_bad(t, "null tile");
    for (int i = 0; i < 3; i++)
        if (!tile->dtile[i] || !tile->ctile[i])
            return ld_bad(t, "D-Tile and C-Tile dimensions must be at least 1");
    if (t->s.pattern == XLD_REGULAR && stride == 0)
        return ld_bad(t, "REGULAR access pattern needs a non-zero stride");
    return cudaSuccess;
}

cudaError_t __xgpu_ldesc(const void *record, const void *kernel, const void *base,
                         size_t bytes, const XLDTile *tile, int64_t stride)
{
    RT_ENTER(c);
    RtLDescs *d = &c->ld;
    long site = record ? ld_ordinal(d, record) : -1;
    if (site < 0)
        return ld_unknown_site(record);
    const XHostLDesc *t = &d->table[site];
    cudaError_t e = ld_check(c, t, kernel, base, bytes, tile, stride);
    if (e != cudaSuccess)
        return e;
    XLDescInfo info = {t->s, t->file, t->line, t->column, t->kernel, kernel,
                       rt_addr(base), bytes, *tile, stride, (int)site};
    for (size_t i = 0; i < d->nactive; i++)
        if (d->active[i].site == site && d->active[i].kernel == kernel) {
            d->active[i] = info; /* re-specified */
            return cudaSuccess;
        }
    XLDescInfo *na = realloc(d->active, (d->nactive + 1) * sizeof *na);
    if (!na)
        return ld_bad(t, "out of memory");
    na[d->nactive++] = info;
    d->active = na;
    return cudaSuccess;
}

static RtLDescLaunch *ld_kernel(RtLDescs *d, const void *stub)
{
    for (size_t i = 0; i < d->nkernels; i++)
        if (d->kernels[i].stub == stub)
            return &d->kernels[i];
    return NULL;
}

/* A launch of stub: snapshot the descriptors in force for it. */
void rt_ldesc_launch(RtContext *c, const void *stub)
{
    RtLDescs *d = &c->ld;
    uint64_t no = ++d->launches;
    size_t n = 0;
    for (size_t i = 0; i < d->nactive; i++)
        n += d->active[i].kernel == stub;
    RtLDescLaunch *k = ld_kernel(d, stub);
    if (!k && !n)
        return;
    if (!k) {
        RtLDescLaunch *nk = realloc(d->kernels, (d->nkernels + 1) * sizeof *nk);
        if (!nk)
            return;
        d->kernels = nk;
        k = &nk[d->nkernels++];
        *k = (RtLDescLaunch){stub, 0, NULL, 0};
    }
    XLDescInfo *v = n ? malloc(n * sizeof *v) : NULL;
    if (n && !v)
        return;
    size_t j = 0;
    for (size_t i = 0; i < d->nactive; i++)
        if (d->active[i].kernel == stub)
            v[j++] = d->active[i];
    free(k->v);
    *k = (RtLDescLaunch){stub, no, v, n};
}

void rt_ldesc_reset(RtContext *c)
{
    RtLDescs *d = &c->ld;
    for (size_t i = 0; i < d->nkernels; i++)
        free(d->kernels[i].v);
    free(d->kernels);
    free(d->active);
    d->kernels = NULL;
    d->active = NULL;
    d->nkernels = d->nactive = 0;
}

int xgpuLDescCount(void)
{
    RT_ENTER(c);
    return (int)c->ld.ntable;
}

int xgpuLDescLastLaunch(const void *kernel, XLDescInfo *out, int max, uint64_t *launch)
{
    RT_ENTER(c);
    RtFatbin *fb;
    RtFunc *fn;
    if (launch)
        *launch = 0;
    if (!kernel || !rt_find_func(c, kernel, &fb, &fn))
        return -1;
    RtLDescLaunch *k = ld_kernel(&c->ld, kernel);
    if (!k)
        return 0;
    for (size_t i = 0; out && i < k->n && (int)i < max; i++)
        out[i] = k->v[i];
    if (launch)
        *launch = k->launch;
    return (int)k->n;
}
