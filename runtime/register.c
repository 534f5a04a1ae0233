/*
 * register.c - the registration ABI that clang's host code calls from global
 * constructors (and its module destructor at exit).
 *
 * clang emits, per translation unit: h = __cudaRegisterFatBinary(&wrapper), one
 * __cudaRegisterFunction per kernel (host stub -> mangled name), one __cudaRegisterVar
 * per __device__/__constant__ variable (host shadow -> symbol name),
 * __cudaRegisterFatBinaryEnd(h), and at exit __cudaUnregisterFatBinary(h). The wrapper is
 * {int magic = 0x466243b1; int version = 1; const void *data; void *unused}; data points
 * at an XFatHeader followed by the gpubin ELF (parsed only when the module is loaded).
 * Nothing here touches the device. The handle given back is the RtFatbin itself. Each
 * call holds the runtime's lock, so a library loaded by one thread may register while
 * others launch.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt.h"

#define RT_FATBIN_WRAPPER_MAGIC 0x466243b1

typedef struct RtFatbinWrapper {
    int magic;
    int version;
    const void *data;
    void *unused;
} RtFatbinWrapper;

static void rt_oom(const char *what)
{
    fprintf(stderr, "xgpu: out of host memory while registering %s\n", what);
}

/* Grows an array of `size`-byte items so that one more fits. */
static int rt_grow(void **items, size_t *cap, size_t n, size_t size)
{
    if (n < *cap)
        return 0;
    size_t ncap = *cap ? *cap * 2 : 8;
    void *p = realloc(*items, ncap * size);
    if (!p)
        return -1;
    *items = p;
    *cap = ncap;
    return 0;
}

void **__cudaRegisterFatBinary(void *fatCubin)
{
    const RtFatbinWrapper *w = fatCubin;
    RtFatbin *fb = calloc(1, sizeof *fb);
    if (!fb) {
        rt_oom("a device binary");
        return NULL;
    }
    if (!w || w->magic != RT_FATBIN_WRAPPER_MAGIC) {
        fprintf(stderr, "xgpu: unrecognized fat binary wrapper\n");
        for (int i = 0; i < RT_MAX_DEVICES; i++)
            fb->load_error[i] = cudaErrorInvalidKernelImage;
    } else {
        fb->data = w->data;
    }
    RT_ENTER(c);
    fb->next = c->fatbins;
    c->fatbins = fb;
    return (void **)fb;
}

void __cudaRegisterFatBinaryEnd(void **fatCubinHandle)
{
    (void)fatCubinHandle; /* everything is recorded already */
}

static void rt_fatbin_free(RtFatbin *fb)
{
    for (size_t i = 0; i < fb->nfuncs; i++)
        free(fb->funcs[i].name);
    for (size_t i = 0; i < fb->nvars; i++)
        free(fb->vars[i].name);
    free(fb->funcs);
    free(fb->vars);
    free(fb);
}

void __cudaUnregisterFatBinary(void **fatCubinHandle)
{
    RT_ENTER(c);
    RtFatbin *fb = (RtFatbin *)fatCubinHandle;
    for (RtFatbin **p = &c->fatbins; *p; p = &(*p)->next)
        if (*p == fb) {
            *p = fb->next;
            rt_fatbin_free(fb);
            break;
        }
    if (!c->fatbins)
        rt_shutdown(c); /* the last module is gone: the program is exiting */
}

void __cudaRegisterFunction(void **fatCubinHandle, const void *hostFun, char *deviceFun,
                            const char *deviceName, int thread_limit, void *tid, void *bid,
                            void *bDim, void *gDim, int *wSize)
{
    RT_ENTER(c); /* another thread may be looking kernels up */
    RtFatbin *fb = (RtFatbin *)fatCubinHandle;
    const char *name = deviceName ? deviceName : deviceFun;
    if (!fb || !name)
        return;
    if (rt_grow((void **)&fb->funcs, &fb->capfuncs, fb->nfuncs, sizeof *fb->funcs)) {
        rt_oom(name);
        return;
    }
    RtFunc *f = &fb->funcs[fb->nfuncs];
    f->stub = hostFun;
    f->kernel = -1;
    f->max_dyn_shared = -1;
    f->carveout = cudaSharedmemCarveoutDefault;
    f->name = strdup(name);
    if (!f->name) {
        rt_oom(name);
        return;
    }
    fb->nfuncs++;
}

void __cudaRegisterVar(void **fatCubinHandle, char *hostVar, char *deviceAddress,
                       const char *deviceName, int ext, size_t size, int constant, int global)
{
    RT_ENTER(c);
    RtFatbin *fb = (RtFatbin *)fatCubinHandle;
    const char *name = deviceName ? deviceName : deviceAddress;
    if (!fb || !name)
        return;
    if (rt_grow((void **)&fb->vars, &fb->capvars, fb->nvars, sizeof *fb->vars)) {
        rt_oom(name);
        return;
    }
    RtVar *v = &fb->vars[fb->nvars];
    v->shadow = hostVar;
    v->size = size;
    v->constant = constant;
    v->name = strdup(name);
    if (!v->name) {
        rt_oom(name);
        return;
    }
    fb->nvars++;
}
