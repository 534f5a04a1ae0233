/*
 * module.c - loading gpubin modules onto a device.
 *
 * emu_load parses an ELF image with xgpubin_read; emu_load_module deep-copies a module
 * the caller already has in memory (e.g. from the assembler). Either way the module then
 * owns its XGpubin, allocates and initializes its globals in device memory (so gaddr can
 * be resolved to absolute addresses), and decodes every kernel and every CABA assist
 * routine of its .xgpu.assist section (each as the one kernel of a module of its own: a
 * routine has its own code and no globals). A module lives until emu_destroy.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "device.h"

/* --- deep copy of a caller's module -------------------------------------------------- */

static char *dup_str(const char *s)
{
    return strdup(s ? s : "");
}

static void *dup_mem(const void *p, size_t n)
{
    void *q = malloc(n ? n : 1);
    if (q && n)
        memcpy(q, p, n);
    return q;
}

static void clone_free(XGpubin *g)
{
    if (!g)
        return;
    for (uint32_t i = 0; i < g->nkernels && g->kernels; i++) {
        free((char *)g->kernels[i].name);
        free((char *)g->kernels[i].signature);
        free(g->kernels[i].params);
    }
    for (uint32_t i = 0; i < g->nglobals && g->globals; i++) {
        free((char *)g->globals[i].name);
        free((uint8_t *)g->globals[i].init);
    }
    for (uint32_t i = 0; i < g->nfiles && g->files; i++)
        free((char *)g->files[i]);
    for (uint32_t i = 0; i < g->nassist && g->assist; i++) {
        free((char *)g->assist[i].name);
        free((XInsn *)g->assist[i].text);
    }
    free(g->assist);
    free((char *)g->producer);
    free((char *)g->options);
    free(g->kernels);
    free(g->text);
    free(g->globals);
    free(g->files);
    free(g->lines);
    free((uint8_t *)g->reuse);
    free(g->phases);
    free(g);
}

/* The CABA assist routines (the timing model's assist warps). */
static int clone_assist(XGpubin *g, const XGpubin *s)
{
    if (!s->nassist)
        return 0;
    if (!(g->assist = calloc(s->nassist, sizeof *g->assist)))
        return -1;
    int bad = 0;
    for (g->nassist = 0; g->nassist < s->nassist; g->nassist++) {
        XAssist *a = &g->assist[g->nassist];
        *a = s->assist[g->nassist];
        a->name = dup_str(a->name);
        a->text = dup_mem(a->text, (size_t)a->ntext * sizeof *a->text);
        bad |= !a->name || !a->text;
    }
    return bad ? -1 : 0;
}

/* Copies the tables of s into g (arrays first, so clone_free can always run). */
static int clone_tables(XGpubin *g, const XGpubin *s)
{
    g->kernels = calloc(s->nkernels ? s->nkernels : 1, sizeof *g->kernels);
    g->globals = calloc(s->nglobals ? s->nglobals : 1, sizeof *g->globals);
    g->files = calloc(s->nfiles ? s->nfiles : 1, sizeof *g->files);
    g->text = dup_mem(s->text, (size_t)s->ntext * sizeof *s->text);
    g->lines = dup_mem(s->lines, (size_t)s->nlines * sizeof *s->lines);
    g->producer = dup_str(s->producer);
    g->options = dup_str(s->options);
    if (!g->kernels || !g->globals || !g->files || !g->text || !g->lines || !g->producer ||
        !g->options)
        return -1;
    int bad = 0;
    for (g->nkernels = 0; g->nkernels < s->nkernels; g->nkernels++) {
        XKernel *k = &g->kernels[g->nkernels];
        *k = s->kernels[g->nkernels];
        k->name = dup_str(k->name);
        k->signature = dup_str(k->signature);
        k->params = dup_mem(k->params, (size_t)k->nparams * sizeof *k->params);
        bad |= !k->name || !k->signature || !k->params;
    }
    for (g->nglobals = 0; g->nglobals < s->nglobals; g->nglobals++) {
        XGlobal *v = &g->globals[g->nglobals];
        *v = s->globals[g->nglobals];
        v->name = dup_str(v->name);
        if (v->init && !(v->init = dup_mem(v->init, v->size)))
            bad = 1;
        bad |= !v->name;
    }
    for (g->nfiles = 0; g->nfiles < s->nfiles; g->nfiles++)
        bad |= !(g->files[g->nfiles] = dup_str(s->files[g->nfiles]));
    g->ntext = s->ntext;
    g->nlines = s->nlines;
    if (s->reuse && !(g->reuse = dup_mem(s->reuse, s->ntext)))
        bad = 1; /* the Memento reuse bits (the timing model's collectors) */
    g->reuse_rthld = s->reuse_rthld;
    g->reuse_source = s->reuse_source;
    /* the phase specifiers (the timing model's resource manager) */
    if (s->nphases && !(g->phases = dup_mem(s->phases, (size_t)s->nphases * sizeof *s->phases)))
        bad = 1;
    g->nphases = g->phases ? s->nphases : 0;
    g->phase_delta = s->phase_delta, g->phase_gap = s->phase_gap;
    return bad || clone_assist(g, s) ? -1 : 0;
}

/* --- loading ---------------------------------------------------------------------------- */

void emu_module_free(EmuModule *m)
{
    if (!m)
        return;
    for (uint32_t k = 0; m->kcode && k < m->bin->nkernels; k++)
        emu_code_free(&m->kcode[k]);
    free(m->kcode);
    for (uint32_t i = 0; m->assist && i < m->bin->nassist; i++)
        emu_code_free(&m->assist[i].code);
    free(m->assist);
    free(m->gaddr);
    if (m->bin_from_reader)
        xgpubin_free(m->bin);
    else
        clone_free(m->bin);
    free(m);
}

/* Allocates and initializes the module's globals. */
static EmuStatus load_globals(EmuDevice *d, EmuModule *m, char *err, size_t n)
{
    const XGpubin *g = m->bin;
    m->gaddr = calloc(g->nglobals ? g->nglobals : 1, sizeof *m->gaddr);
    if (!m->gaddr)
        return EMU_ERR_OUT_OF_MEMORY;
    for (uint32_t i = 0; i < g->nglobals; i++) {
        const XGlobal *v = &g->globals[i];
        EmuStatus s = emu_mem_alloc(&d->mem, v->size, &m->gaddr[i]);
        if (s) {
            snprintf(err, n, "global %s: cannot allocate %llu bytes", v->name,
                     (unsigned long long)v->size);
            return s;
        }
        if (v->init && v->size)
            emu_copy_to_device(d, m->gaddr[i], v->init, v->size);
    }
    return EMU_OK;
}

static EmuStatus load_kernels(EmuModule *m, char *err, size_t n)
{
    const XGpubin *g = m->bin;
    m->kcode = calloc(g->nkernels ? g->nkernels : 1, sizeof *m->kcode);
    if (!m->kcode)
        return EMU_ERR_OUT_OF_MEMORY;
    for (uint32_t k = 0; k < g->nkernels; k++)
        if (emu_decode_kernel(g, k, m->gaddr, &m->kcode[k], err, n))
            return EMU_ERR_INVALID_IMAGE;
    return EMU_OK;
}

/* Decodes each assist routine as the one kernel of a module that holds only its code. */
static EmuStatus load_assist(EmuModule *m, char *err, size_t n)
{
    const XGpubin *g = m->bin;
    if (!g->nassist)
        return EMU_OK;
    m->assist = calloc(g->nassist, sizeof *m->assist);
    if (!m->assist)
        return EMU_ERR_OUT_OF_MEMORY;
    for (uint32_t i = 0; i < g->nassist; i++) {
        EmuAssistCode *c = &m->assist[i];
        const XAssist *a = &g->assist[i];
        c->a = a;
        c->k = (XKernel){.name = a->name, .code_count = a->ntext, .nregs = a->nregs,
                         .param_bytes = a->param_bytes, .signature = ""};
        XGpubin one = {.kernels = &c->k, .nkernels = 1, .text = (XInsn *)a->text,
                       .ntext = a->ntext};
        char msg[256];
        if (emu_decode_kernel(&one, 0, NULL, &c->code, msg, sizeof msg)) {
            snprintf(err, n, ".xgpu.assist: %s", msg);
            return EMU_ERR_INVALID_IMAGE;
        }
        if (c->code.nkonst) { /* an assist warp's parameters are written after its start */
            snprintf(err, n, ".xgpu.assist: routine %s reads the constant bank", a->name);
            return EMU_ERR_INVALID_IMAGE;
        }
    }
    return EMU_OK;
}

/* Takes ownership of bin (freed on failure too). */
static EmuStatus load_owned(EmuDevice *d, XGpubin *bin, int from_reader, EmuModule **out,
                            char *err, size_t n)
{
    EmuModule *m = calloc(1, sizeof *m);
    EmuModule **mods = realloc(d->mods, (d->nmods + 1) * sizeof *mods);
    if (mods)
        d->mods = mods;
    if (!m || !mods) {
        free(m);
        from_reader ? xgpubin_free(bin) : clone_free(bin);
        snprintf(err, n, "out of host memory");
        return EMU_ERR_OUT_OF_MEMORY;
    }
    m->dev = d;
    m->bin = bin;
    m->bin_from_reader = from_reader;
    EmuStatus s = load_globals(d, m, err, n);
    if (!s)
        s = load_kernels(m, err, n);
    if (!s)
        s = load_assist(m, err, n);
    if (s) {
        for (uint32_t i = 0; m->gaddr && i < bin->nglobals; i++)
            if (m->gaddr[i])
                emu_mem_release(&d->mem, m->gaddr[i]);
        emu_module_free(m);
        return s;
    }
    d->mods[d->nmods++] = m;
    *out = m;
    return EMU_OK;
}

EmuStatus emu_load(EmuDevice *d, const void *image, size_t len, EmuModule **out, char *err,
                   size_t errlen)
{
    char dummy[8];
    if (!err)
        err = dummy, errlen = sizeof dummy;
    if (!d || !image || !out) {
        snprintf(err, errlen, "emu_load: missing argument");
        return EMU_ERR_INVALID_VALUE;
    }
    XGpubin *bin = NULL;
    if (xgpubin_read(image, len, &bin, err, errlen))
        return EMU_ERR_INVALID_IMAGE;
    return load_owned(d, bin, 1, out, err, errlen);
}

EmuStatus emu_load_module(EmuDevice *d, const XGpubin *g, EmuModule **out, char *err,
                          size_t errlen)
{
    char dummy[8];
    if (!err)
        err = dummy, errlen = sizeof dummy;
    if (!d || !g || !out) {
        snprintf(err, errlen, "emu_load_module: missing argument");
        return EMU_ERR_INVALID_VALUE;
    }
    XGpubin *c = calloc(1, sizeof *c);
    if (!c || clone_tables(c, g)) {
        clone_free(c);
        snprintf(err, errlen, "out of host memory");
        return EMU_ERR_OUT_OF_MEMORY;
    }
    return load_owned(d, c, 0, out, err, errlen);
}

const XGpubin *emu_module_bin(const EmuModule *m)
{
    return m ? m->bin : NULL;
}

int emu_kernel(const EmuModule *m, const char *name)
{
    if (!m || !name)
        return -1;
    for (uint32_t k = 0; k < m->bin->nkernels; k++)
        if (strcmp(m->bin->kernels[k].name, name) == 0)
            return (int)k;
    return -1;
}

const EmuAssistCode *emu_module_assist(const EmuModule *m, unsigned algo, unsigned dir)
{
    for (uint32_t i = 0; m && m->assist && i < m->bin->nassist; i++)
        if (m->assist[i].a->algo == algo && m->assist[i].a->dir == dir)
            return &m->assist[i];
    return NULL;
}

int emu_kernel_grid_sync(const EmuModule *m, int k)
{
    return m && k >= 0 && (uint32_t)k < m->bin->nkernels && m->kcode[k].grid_sync;
}

EmuStatus emu_symbol(const EmuModule *m, const char *name, uint64_t *addr, uint64_t *size)
{
    if (!m || !name)
        return EMU_ERR_INVALID_VALUE;
    for (uint32_t i = 0; i < m->bin->nglobals; i++)
        if (strcmp(m->bin->globals[i].name, name) == 0) {
            if (addr)
                *addr = m->gaddr[i];
            if (size)
                *size = m->bin->globals[i].size;
            return EMU_OK;
        }
    return EMU_ERR_NOT_FOUND;
}
