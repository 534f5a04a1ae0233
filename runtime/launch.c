/*
 * launch.c - kernel launches: the <<<>>> configuration stack, cudaLaunchKernel, and the
 * compute-sanitizer-style report of a guest fault.
 *
 * A launch maps the host stub to its (module, kernel), checks the stream handle and the
 * configuration against the device's limits, copies each argument (args[i] points at the
 * i-th value) into a parameter buffer at the offsets of the kernel's XParam table, and
 * runs the kernel to completion with emu_launch, whatever the stream. Configuration
 * errors use CUDA's codes and are not sticky: a zero or too large grid or block is
 * cudaErrorInvalidConfiguration, more dynamic shared memory than the kernel may use
 * (cudaFuncAttributeMaxDynamicSharedMemorySize) is cudaErrorInvalidValue, too many
 * registers for the block, or more threads than the kernel's __launch_bounds__, is
 * cudaErrorLaunchOutOfResources. A guest fault is printed on
 * stderr and becomes the sticky error. Device printf is flushed at the start of each
 * launch, as CUDA does, and after it too when CUDA_LAUNCH_BLOCKING=1. Each launch of a
 * known kernel records the Locality Descriptors in force for it (ldesc.c). Managed
 * blocks are copied to the device before the kernel runs and back after (managed.c).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt.h"

unsigned __cudaPushCallConfiguration(dim3 gridDim, dim3 blockDim, size_t sharedMem,
                                     cudaStream_t stream)
{
    RtThread *t = rt_thread(); /* per thread: another thread may launch in between */
    if (t->npending == RT_MAX_PENDING_CONFIGS) {
        rt_error(rt_ctx(), cudaErrorInvalidConfiguration);
        return 1; /* non-zero: clang's caller skips the launch */
    }
    RtLaunchConfig *p = &t->pending[t->npending++];
    p->grid = gridDim;
    p->block = blockDim;
    p->shared = sharedMem;
    p->stream = stream;
    return 0;
}

cudaError_t __cudaPopCallConfiguration(dim3 *gridDim, dim3 *blockDim, size_t *sharedMem,
                                       void *stream)
{
    RtThread *t = rt_thread();
    if (t->npending == 0)
        return rt_error(rt_ctx(), cudaErrorMissingConfiguration);
    RtLaunchConfig *p = &t->pending[--t->npending];
    *gridDim = p->grid;
    *blockDim = p->block;
    *sharedMem = p->shared;
    if (stream)
        *(cudaStream_t *)stream = p->stream;
    return cudaSuccess;
}

/* Finds the module and kernel of a host stub, loading the module if needed. */
cudaError_t rt_kernel_of(RtContext *c, const void *func, RtFatbin **fb, RtFunc **fn)
{
    if (!func || !rt_find_func(c, func, fb, fn))
        return cudaErrorInvalidDeviceFunction;
    cudaError_t e = rt_fatbin_load(c, *fb);
    if (e != cudaSuccess)
        return e;
    if ((*fn)->kernel < 0) {
        fprintf(stderr, "xgpu: kernel %s is not in the device binary\n", (*fn)->name);
        return cudaErrorInvalidDeviceFunction;
    }
    return cudaSuccess;
}

const XKernel *rt_xkernel(const RtContext *c, const RtFatbin *fb, const RtFunc *fn)
{
    return &emu_module_bin(rt_mod(c, fb))->kernels[fn->kernel];
}

static int rt_dim_ok(dim3 d, const uint32_t max[3])
{
    return d.x >= 1 && d.y >= 1 && d.z >= 1 && d.x <= max[0] && d.y <= max[1] && d.z <= max[2];
}

static cudaError_t rt_check_config(const EmuProps *p, const XKernel *k, const RtFunc *fn,
                                   dim3 grid, dim3 block, size_t shared)
{
    if (!rt_dim_ok(grid, p->max_grid_dim) || !rt_dim_ok(block, p->max_block_dim))
        return cudaErrorInvalidConfiguration;
    uint64_t threads = (uint64_t)block.x * block.y * block.z;
    if (threads > p->max_threads_per_block)
        return cudaErrorInvalidConfiguration;
    if (k->max_threads && threads > k->max_threads) {
        fprintf(stderr, "xgpu: kernel %s: a block of %" PRIu64 " threads exceeds its "
                "__launch_bounds__ of %u\n", k->name, threads, k->max_threads);
        return cudaErrorLaunchOutOfResources;
    }
    uint64_t room = rt_max_dynamic_shared(p, k, fn);
    if (shared > room) {
        fprintf(stderr, "xgpu: kernel %s: %" PRIu64 " bytes of dynamic shared memory exceed "
                "the %" PRIu64 " it may use (static %u of %" PRIu64 " per block; "
                "cudaFuncAttributeMaxDynamicSharedMemorySize)\n", k->name, (uint64_t)shared,
                room, k->shared_bytes, (uint64_t)p->shared_per_block);
        return cudaErrorInvalidValue;
    }
    return cudaSuccess;
}

/* Lays the argument values out as the kernel's parameter table says. */
static cudaError_t rt_marshal(const XKernel *k, void **args, uint8_t *buf)
{
    if (k->nparams && !args)
        return cudaErrorInvalidValue;
    for (uint32_t i = 0; i < k->nparams; i++) {
        const XParam *p = &k->params[i];
        if ((uint64_t)p->offset + p->size > k->param_bytes || !args[i])
            return cudaErrorInvalidValue;
        memcpy(buf + p->offset, args[i], p->size);
    }
    return cudaSuccess;
}

/* A guest fault on stderr in the style of compute-sanitizer (the emulator writes the
 * report, naming the memory space and the access), then the API call that reports it. */
static void rt_report_fault(const EmuFault *f, cudaError_t e)
{
    emu_fault_print(stderr, f, NULL);
    fprintf(stderr, "========= Program hit %s (error %d) due to \"%s\" on CUDA API call to "
            "cudaLaunchKernel.\n", cudaGetErrorName(e), (int)e, cudaGetErrorString(e));
}

static cudaError_t rt_run(RtContext *c, EmuDevice *dev, RtFatbin *fb, RtFunc *fn, dim3 grid,
                          dim3 block, void **args, size_t shared)
{
    const XKernel *k = rt_xkernel(c, fb, fn);
    cudaError_t e = rt_check_config(emu_props(dev), k, fn, grid, block, shared);
    if (e != cudaSuccess)
        return e;
    uint8_t *buf = calloc(1, k->param_bytes ? k->param_bytes : 1);
    if (!buf)
        return cudaErrorMemoryAllocation;
    e = rt_marshal(k, args, buf);
    EmuFault fault;
    memset(&fault, 0, sizeof fault);
    EmuStatus s = EMU_OK;
    if (e == cudaSuccess) {
        rt_sync(c);
        e = rt_managed_to_device(c);
    }
    if (e == cudaSuccess) {
        s = emu_launch(dev, rt_mod(c, fb), fn->kernel, (EmuDim3){grid.x, grid.y, grid.z},
                       (EmuDim3){block.x, block.y, block.z}, shared, buf, k->param_bytes,
                       NULL, &fault);
        rt_managed_to_host(c);
        if (c->launch_blocking)
            rt_sync(c);
    }
    free(buf);
    if (e != cudaSuccess || s == EMU_OK)
        return e;
    e = rt_from_emu(s);
    if (rt_is_fault(s)) {
        fault.status = s;
        if (!fault.kernel[0])
            snprintf(fault.kernel, sizeof fault.kernel, "%s", fn->name);
        rt_report_fault(&fault, e);
        c->d->sticky = e;
    } else if (fault.message[0]) { /* a launch the emulator refused, and why */
        fprintf(stderr, "xgpu: kernel %s: %s\n", fn->name, fault.message);
    }
    return e;
}

/* Hands the device what the runtime holds for this launch of stub: the atoms' ranges and
 * status (xmem.c) and the Locality Descriptors in force for the kernel (ldesc.c), so
 * that the timing model's requests carry them. Out of host memory, the launch runs
 * without them. */
static void rt_hints(RtContext *c, EmuDevice *dev, const void *stub)
{
    const RtXmem *x = &c->xmem;
    const RtLDescLaunch *k = NULL;
    for (size_t i = 0; i < c->ld.nkernels; i++)
        if (c->ld.kernels[i].stub == stub && c->ld.kernels[i].launch == c->ld.launches)
            k = &c->ld.kernels[i];
    EmuHints h = {.atoms = x->ranges, .natoms = x->nranges, .ndescs = k ? k->n : 0};
    EmuDescRange *dr = h.ndescs ? malloc(h.ndescs * sizeof *dr) : NULL;
    if (h.ndescs && !dr)
        h.ndescs = 0;
    size_t na = x->ngat < XMEM_NO_ATOM ? x->ngat : XMEM_NO_ATOM; /* IDs 0..254 */
    EmuAtomAttr *at = na ? malloc(na * sizeof *at) : NULL;
    for (size_t i = 0; at && i < na; i++) {
        const XMemAttrs *a = &x->gat[i].attrs;
        at[i] = (EmuAtomAttr){.value_props = a->value_props, .pattern = a->pattern,
                              .rw = a->rw, .intensity = a->intensity, .reuse = a->reuse,
                              .elem_size = a->elem_size, .stride = a->stride};
    }
    h.attrs = at, h.nattrs = at ? na : 0;
    for (size_t i = 0; i < h.ndescs; i++) {
        const XLDescInfo *v = &k->v[i];
        dr[i] = (EmuDescRange){.base = v->base, .bytes = v->bytes, .id = (uint32_t)v->site,
                               .locality = v->s.locality, .sharing = v->s.sharing,
                               .pattern = v->s.pattern, .priority = v->s.priority,
                               .map = {v->s.map[0], v->s.map[1], v->s.map[2]},
                               .elem_size = v->s.elem_size, .stride = v->stride};
        memcpy(dr[i].dtile, v->tile.dtile, sizeof dr[i].dtile);
        memcpy(dr[i].ctile, v->tile.ctile, sizeof dr[i].ctile);
    }
    h.descs = dr;
    memcpy(h.active, x->ast, sizeof h.active);
    emu_set_hints(dev, &h);
    free(dr);
    free(at);
}

/* A launch of the kernel behind host stub func (the caller holds the lock). *fn is the
 * kernel when it was found. */
static cudaError_t rt_launch(RtContext *c, const void *func, dim3 grid, dim3 block, void **args,
                             size_t shared, cudaStream_t stream, RtFatbin **fb, RtFunc **fn)
{
    EmuDevice *dev;
    cudaError_t e = rt_device(c, &dev);
    if (e == cudaSuccess && !rt_stream_ok(c, stream))
        e = cudaErrorInvalidResourceHandle;
    if (e == cudaSuccess)
        e = rt_kernel_of(c, func, fb, fn);
    if (e == cudaSuccess) {
        rt_ldesc_launch(c, func);
        rt_hints(c, dev, func);
    }
    if (e == cudaSuccess)
        e = rt_run(c, dev, *fb, *fn, grid, block, args, shared);
    return e;
}

cudaError_t cudaLaunchKernel(const void *func, dim3 gridDim, dim3 blockDim, void **args,
                             size_t sharedMem, cudaStream_t stream)
{
    RT_ENTER(c);
    RtFatbin *fb = NULL;
    RtFunc *fn = NULL;
    return rt_error(c, rt_launch(c, func, gridDim, blockDim, args, sharedMem, stream, &fb, &fn));
}

/* A launch whose blocks may synchronize grid-wide (cooperative groups' this_grid().sync(),
 * the gsync instruction): every block must be resident at once. The emulator checks that
 * for every kernel with a grid barrier; here its refusal is CUDA's
 * cudaErrorCooperativeLaunchTooLarge (a plain launch reports it as
 * cudaErrorLaunchOutOfResources). */
cudaError_t cudaLaunchCooperativeKernel(const void *func, dim3 gridDim, dim3 blockDim,
                                        void **args, size_t sharedMem, cudaStream_t stream)
{
    RT_ENTER(c);
    RtFatbin *fb = NULL;
    RtFunc *fn = NULL;
    cudaError_t e = rt_launch(c, func, gridDim, blockDim, args, sharedMem, stream, &fb, &fn);
    if (e == cudaErrorLaunchOutOfResources && fn && emu_kernel_grid_sync(rt_mod(c, fb), fn->kernel))
        e = cudaErrorCooperativeLaunchTooLarge;
    return rt_error(c, e);
}
