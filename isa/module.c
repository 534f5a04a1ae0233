/*
 * module.c - ownership and queries of an in-memory gpubin module (XGpubin).
 *
 * A module produced by the reader or the assembler owns all its storage through one
 * arena (XGpubin.arena), and the XGpubin struct itself lives in that arena:
 * xgpubin_free releases everything at once. Caller-built modules (arena == NULL) are
 * the caller's business and xgpubin_free leaves them alone.
 *
 * Also here: the XInsn byte encoding used by the text section, and the lookups.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <zlib.h>

#include "gpubin_int.h"

/* ---- arena ------------------------------------------------------------------------- */

typedef struct GbBlock {
    struct GbBlock *next;
    size_t used, cap;
    _Alignas(16) unsigned char data[];
} GbBlock;

struct GbArena {
    GbBlock *head;
};

enum { GB_BLOCK_MIN = 16384 };

GbArena *gb_arena_new(void) { return calloc(1, sizeof(GbArena)); }

void *gb_arena_alloc(GbArena *a, size_t size)
{
    size = (size + 15) & ~(size_t)15;
    if (size == 0)
        size = 16;
    GbBlock *b = a->head;
    if (!b || b->cap - b->used < size) {
        size_t cap = size > GB_BLOCK_MIN ? size : GB_BLOCK_MIN;
        if (cap > SIZE_MAX - sizeof(GbBlock))
            return NULL;
        b = malloc(sizeof(GbBlock) + cap);
        if (!b)
            return NULL;
        b->used = 0;
        b->cap = cap;
        b->next = a->head;
        a->head = b;
    }
    void *p = b->data + b->used;
    b->used += size;
    memset(p, 0, size);
    return p;
}

char *gb_arena_strdup(GbArena *a, const char *s)
{
    size_t n = strlen(s ? s : "") + 1;
    char *p = gb_arena_alloc(a, n);
    if (p)
        memcpy(p, s ? s : "", n);
    return p;
}

void gb_arena_free(GbArena *a)
{
    if (!a)
        return;
    for (GbBlock *b = a->head, *next; b; b = next) {
        next = b->next;
        free(b);
    }
    free(a);
}

void xgpubin_free(XGpubin *g)
{
    if (g && g->arena)
        gb_arena_free(g->arena); /* g itself lives in the arena */
}

int gb_fail(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (err && errlen)
        vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return -1;
}

/* ---- deep copy --------------------------------------------------------------------- */

static void *dup_array(GbArena *a, const void *src, size_t n, size_t size, int *oom)
{
    if (n == 0 || !src)
        return NULL;
    void *p = gb_arena_alloc(a, n * size);
    if (!p)
        *oom = 1;
    else
        memcpy(p, src, n * size);
    return p;
}

static void clone_kernels(GbArena *a, XGpubin *c, const XGpubin *g, int *oom)
{
    c->kernels = dup_array(a, g->kernels, g->nkernels, sizeof(XKernel), oom);
    for (uint32_t i = 0; c->kernels && i < g->nkernels; i++) {
        XKernel *k = &c->kernels[i];
        k->name = gb_arena_strdup(a, g->kernels[i].name);
        k->signature = gb_arena_strdup(a, g->kernels[i].signature);
        k->params = dup_array(a, g->kernels[i].params, k->nparams, sizeof(XParam), oom);
        if (!k->name || !k->signature)
            *oom = 1;
    }
}

static void clone_globals(GbArena *a, XGpubin *c, const XGpubin *g, int *oom)
{
    c->globals = dup_array(a, g->globals, g->nglobals, sizeof(XGlobal), oom);
    for (uint32_t i = 0; c->globals && i < g->nglobals; i++) {
        XGlobal *v = &c->globals[i];
        v->name = gb_arena_strdup(a, g->globals[i].name);
        if (!v->name)
            *oom = 1;
        if (g->globals[i].init && v->size)
            v->init = dup_array(a, g->globals[i].init, v->size, 1, oom);
        else
            v->init = NULL;
    }
}

static void clone_assist(GbArena *a, XGpubin *c, const XGpubin *g, int *oom)
{
    c->assist = dup_array(a, g->assist, g->nassist, sizeof(XAssist), oom);
    for (uint32_t i = 0; c->assist && i < g->nassist; i++) {
        XAssist *r = &c->assist[i];
        r->name = gb_arena_strdup(a, g->assist[i].name);
        r->text = dup_array(a, g->assist[i].text, r->ntext, sizeof(XInsn), oom);
        if (!r->name)
            *oom = 1;
    }
}

XGpubin *gb_clone(const XGpubin *g)
{
    GbArena *a = gb_arena_new();
    if (!a)
        return NULL;
    XGpubin *c = gb_arena_alloc(a, sizeof *c);
    int oom = !c;
    if (c) {
        *c = *g;
        c->arena = a;
        c->producer = gb_arena_strdup(a, g->producer);
        c->options = gb_arena_strdup(a, g->options);
        oom |= !c->producer || !c->options;
        clone_kernels(a, c, g, &oom);
        c->text = dup_array(a, g->text, g->ntext, sizeof(XInsn), &oom);
        clone_globals(a, c, g, &oom);
        c->files = dup_array(a, g->files, g->nfiles, sizeof(char *), &oom);
        for (uint32_t i = 0; c->files && i < g->nfiles; i++)
            if (!(c->files[i] = gb_arena_strdup(a, g->files[i])))
                oom = 1;
        c->lines = dup_array(a, g->lines, g->nlines, sizeof(XLine), &oom);
        c->phases = dup_array(a, g->phases, g->nphases, sizeof(XPhase), &oom);
        clone_assist(a, c, g, &oom);
    }
    if (oom) {
        gb_arena_free(a);
        return NULL;
    }
    return c;
}

/* ---- instruction encoding ---------------------------------------------------------- */

uint32_t gb_image_crc(const uint8_t *img, size_t len, size_t field)
{
    static const uint8_t zero[4];
    uLong c = crc32(0L, Z_NULL, 0);
    c = crc32_z(c, img, field);
    c = crc32_z(c, zero, 4);
    return (uint32_t)crc32_z(c, img + field + 4, len - field - 4);
}

void gb_encode_insn(uint8_t *p, const XInsn *in)
{
    gb_put16(p, in->op);
    p[2] = in->type;
    p[3] = in->type2;
    p[4] = in->mod;
    p[5] = in->flags;
    memcpy(p + 6, in->dst, 2);
    memcpy(p + 8, in->src, 6);
    p[14] = in->sub;
    p[15] = in->csrc;
    gb_put64(p + 16, (uint64_t)in->imm);
    gb_put32(p + 24, in->target);
    gb_put32(p + 28, in->reconv);
}

void gb_decode_insn(XInsn *in, const uint8_t *p)
{
    in->op = gb_get16(p);
    in->type = p[2];
    in->type2 = p[3];
    in->mod = p[4];
    in->flags = p[5];
    memcpy(in->dst, p + 6, 2);
    memcpy(in->src, p + 8, 6);
    in->sub = p[14];
    in->csrc = p[15];
    in->imm = (int64_t)gb_get64(p + 16);
    in->target = gb_get32(p + 24);
    in->reconv = gb_get32(p + 28);
}

/* ---- lookups ----------------------------------------------------------------------- */

const XLine *xgpubin_line(const XGpubin *g, uint32_t pc)
{
    if (!g || !g->nlines || g->lines[0].pc > pc)
        return NULL;
    uint32_t lo = 0, hi = g->nlines; /* the answer is the last record with .pc <= pc */
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (g->lines[mid].pc <= pc)
            lo = mid;
        else
            hi = mid;
    }
    return &g->lines[lo];
}

int xgpubin_find_kernel(const XGpubin *g, const char *name)
{
    for (uint32_t i = 0; g && name && i < g->nkernels; i++)
        if (g->kernels[i].name && strcmp(g->kernels[i].name, name) == 0)
            return (int)i;
    return -1;
}
