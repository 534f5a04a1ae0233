/*
 * 701-registration: the registration and launch ABI exactly as clang's host code calls
 * it. A module assembled from text is written as a fat container, read back as the bytes
 * that would sit in .nv_fatbin, wrapped in clang's {magic, version, data, unused} struct
 * and registered; a dummy host function stands in for the kernel stub. Launches go
 * through __cudaPushCallConfiguration / __cudaPopCallConfiguration / cudaLaunchKernel.
 * Each test runs in its own process (Criterion's default), so each gets a fresh runtime.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "xgpu/cuda/cuda_runtime_api.h"
#include "xgpu/gpubin.h"
#include "xtest.h"

static const char vecadd_src[] =
    ".kernel vecadd\n"
    ".param 8\n.param 8\n.param 8\n.param 4\n"
    "    s2r r0, %ctaid.x\n"
    "    s2r r1, %ntid.x\n"
    "    s2r r2, %tid.x\n"
    "    mul.u32 r3, r0, r1\n"
    "    add.u32 r3, r3, r2\n"
    "    ld.param.s32 r4, [24]\n"
    "    set.ge.s32 r5, r3, r4\n"
    "    brc r5, done, done\n"
    "    ld.param.u64 r6, [0]\n"
    "    ld.param.u64 r8, [8]\n"
    "    ld.param.u64 r10, [16]\n"
    "    shl.u32 r12, r3, 2\n"
    "    cvt.u64.u32 r14, r12\n"
    "    add.u64 r6, r6, r14\n"
    "    add.u64 r8, r8, r14\n"
    "    add.u64 r10, r10, r14\n"
    "    ld.global.f32 r16, [r6]\n"
    "    ld.global.f32 r17, [r8]\n"
    "    fadd.f32 r16, r16, r17\n"
    "    st.global.f32 [r10], r16\n"
    "done:\n"
    "    exit\n";

/* c[i] = a[i] * 3 for i < n (the second module). */
static const char triple_src[] =
    ".kernel triple\n"
    ".param 8\n.param 8\n.param 4\n"
    "    s2r r0, %tid.x\n"
    "    ld.param.s32 r1, [16]\n"
    "    set.ge.s32 r2, r0, r1\n"
    "    brc r2, done, done\n"
    "    ld.param.u64 r4, [0]\n"
    "    ld.param.u64 r6, [8]\n"
    "    shl.u32 r8, r0, 2\n"
    "    cvt.u64.u32 r10, r8\n"
    "    add.u64 r4, r4, r10\n"
    "    add.u64 r6, r6, r10\n"
    "    ld.global.s32 r12, [r4]\n"
    "    mul.s32 r12, r12, 3\n"
    "    st.global.s32 [r6], r12\n"
    "done:\n"
    "    exit\n";

static void stub_vecadd(void) {}
static void stub_triple(void) {}
static void stub_missing(void) {}
static void stub_unregistered(void) {}

/* Assembles src, writes it as a fat container and returns the container's bytes. */
static void **register_module(XtFatWrapper *w, const char *src)
{
    w->magic = 0x466243b1;
    w->version = 1;
    w->data = xt_fat_from_asm(src);
    w->unused = NULL;
    void **h = __cudaRegisterFatBinary(w);
    cr_assert_not_null(h);
    return h;
}

static void register_kernel(void **h, void (*stub)(void), const char *name)
{
    __cudaRegisterFunction(h, (const void *)stub, (char *)name, name, -1, NULL, NULL, NULL,
                           NULL, NULL);
}

static void **setup_vecadd(XtFatWrapper *w)
{
    void **h = register_module(w, vecadd_src);
    register_kernel(h, stub_vecadd, "vecadd");
    register_kernel(h, stub_missing, "not_in_module");
    __cudaRegisterFatBinaryEnd(h);
    return h;
}

/* What clang's stub does: pop the configuration, then launch. */
static cudaError_t stub_launch(void (*stub)(void), void **args)
{
    dim3 grid, block;
    size_t shared;
    cudaStream_t stream;
    cudaError_t e = __cudaPopCallConfiguration(&grid, &block, &shared, &stream);
    if (e != cudaSuccess)
        return e;
    return cudaLaunchKernel((const void *)stub, grid, block, args, shared, stream);
}

static cudaError_t launch_vecadd(void (*stub)(void), dim3 grid, dim3 block, float *a, float *b,
                                 float *c, int n)
{
    void *args[] = {&a, &b, &c, &n};
    cr_assert_eq(__cudaPushCallConfiguration(grid, block, 0, NULL), 0u);
    return stub_launch(stub, args);
}

/* Allocates and fills a, b; returns c = a + b for n elements through the runtime. */
static void run_vecadd(int n, dim3 grid, dim3 block, float *out, cudaError_t *status)
{
    size_t bytes = (size_t)n * sizeof(float);
    float *ha = malloc(bytes), *hb = malloc(bytes);
    for (int i = 0; i < n; i++) {
        ha[i] = (float)i * 0.5f;
        hb[i] = 1000.0f - (float)i;
    }
    float *da, *db, *dc;
    cr_assert_eq(cudaMalloc((void **)&da, bytes), cudaSuccess);
    cr_assert_eq(cudaMalloc((void **)&db, bytes), cudaSuccess);
    cr_assert_eq(cudaMalloc((void **)&dc, bytes), cudaSuccess);
    cr_assert_eq(cudaMemcpy(da, ha, bytes, cudaMemcpyHostToDevice), cudaSuccess);
    cr_assert_eq(cudaMemcpy(db, hb, bytes, cudaMemcpyDefault), cudaSuccess);
    cr_assert_eq(cudaMemset(dc, 0, bytes), cudaSuccess);
    *status = launch_vecadd(stub_vecadd, grid, block, da, db, dc, n);
    cr_assert_eq(cudaMemcpy(out, dc, bytes, cudaMemcpyDeviceToHost), cudaSuccess);
    free(ha);
    free(hb);
}

Test(registration, vecadd_through_push_pop_launch)
{
    XtFatWrapper w;
    setup_vecadd(&w);
    enum { N = 1000 };
    static float c[N];
    cudaError_t e;
    run_vecadd(N, (dim3){4, 1, 1}, (dim3){256, 1, 1}, c, &e);
    cr_assert_eq(e, cudaSuccess, "%s", cudaGetErrorName(e));
    for (int i = 0; i < N; i++)
        cr_assert_float_eq(c[i], (float)i * 0.5f + 1000.0f - (float)i, 1e-6, "c[%d] = %g", i, c[i]);
    cr_assert_eq(cudaGetLastError(), cudaSuccess);
    cr_assert_eq(cudaDeviceSynchronize(), cudaSuccess);
}

Test(registration, guarded_tail_is_not_written)
{
    XtFatWrapper w;
    setup_vecadd(&w);
    enum { N = 300 };
    static float c[N + 20];
    cudaError_t e;
    run_vecadd(N, (dim3){2, 1, 1}, (dim3){160, 1, 1}, c, &e); /* 320 threads for 300 items */
    cr_assert_eq(e, cudaSuccess, "%s", cudaGetErrorName(e));
    cr_assert_float_eq(c[N - 1], (float)(N - 1) * 0.5f + 1000.0f - (float)(N - 1), 1e-6);
}

Test(registration, device_to_device_and_host_to_host_copies)
{
    XtFatWrapper w;
    setup_vecadd(&w);
    int src[64], dst[64] = {0}, back[64] = {0};
    for (int i = 0; i < 64; i++)
        src[i] = i * i;
    int *d1, *d2;
    cr_assert_eq(cudaMalloc((void **)&d1, sizeof src), cudaSuccess);
    cr_assert_eq(cudaMalloc((void **)&d2, sizeof src), cudaSuccess);
    cr_assert_eq(cudaMemcpy(d1, src, sizeof src, cudaMemcpyHostToDevice), cudaSuccess);
    cr_assert_eq(cudaMemcpy(d2, d1, sizeof src, cudaMemcpyDeviceToDevice), cudaSuccess);
    cr_assert_eq(cudaMemcpy(back, d2, sizeof src, cudaMemcpyDefault), cudaSuccess);
    cr_assert_eq(cudaMemcpy(dst, back, sizeof src, cudaMemcpyHostToHost), cudaSuccess);
    for (int i = 0; i < 64; i++)
        cr_assert_eq(dst[i], i * i);
    cr_assert_eq(cudaFree(d1), cudaSuccess);
    cr_assert_eq(cudaFree(d2), cudaSuccess);
}

Test(registration, two_fat_binaries)
{
    XtFatWrapper w1, w2;
    setup_vecadd(&w1);
    void **h2 = register_module(&w2, triple_src);
    register_kernel(h2, stub_triple, "triple");
    __cudaRegisterFatBinaryEnd(h2);

    int in[32], out[32];
    for (int i = 0; i < 32; i++)
        in[i] = i - 7;
    int *din, *dout;
    cr_assert_eq(cudaMalloc((void **)&din, sizeof in), cudaSuccess);
    cr_assert_eq(cudaMalloc((void **)&dout, sizeof in), cudaSuccess);
    cr_assert_eq(cudaMemcpy(din, in, sizeof in, cudaMemcpyHostToDevice), cudaSuccess);
    int n = 32;
    void *args[] = {&din, &dout, &n};
    cr_assert_eq(__cudaPushCallConfiguration((dim3){1, 1, 1}, (dim3){32, 1, 1}, 0, NULL), 0u);
    cr_assert_eq(stub_launch(stub_triple, args), cudaSuccess);
    cr_assert_eq(cudaMemcpy(out, dout, sizeof out, cudaMemcpyDeviceToHost), cudaSuccess);
    for (int i = 0; i < 32; i++)
        cr_assert_eq(out[i], 3 * (i - 7));

    static float c[64];
    cudaError_t e;
    run_vecadd(64, (dim3){1, 1, 1}, (dim3){64, 1, 1}, c, &e);
    cr_assert_eq(e, cudaSuccess);
    cr_assert_float_eq(c[10], 5.0f + 990.0f, 1e-6);
}

Test(registration, unknown_stub_and_missing_kernel)
{
    XtFatWrapper w;
    setup_vecadd(&w);
    int n = 0;
    void *p = NULL;
    void *args[] = {&p, &p, &p, &n};
    cr_assert_eq(cudaLaunchKernel((const void *)stub_unregistered, (dim3){1, 1, 1},
                                  (dim3){1, 1, 1}, args, 0, NULL),
                 cudaErrorInvalidDeviceFunction);
    cr_assert_eq(cudaGetLastError(), cudaErrorInvalidDeviceFunction);
    cr_assert_eq(cudaLaunchKernel((const void *)stub_missing, (dim3){1, 1, 1}, (dim3){1, 1, 1},
                                  args, 0, NULL),
                 cudaErrorInvalidDeviceFunction);
    cr_assert_eq(cudaGetLastError(), cudaErrorInvalidDeviceFunction);
    cr_assert_eq(cudaGetLastError(), cudaSuccess, "not sticky");
}

Test(registration, pop_without_push)
{
    dim3 g, b;
    size_t s;
    cudaStream_t st;
    cr_assert_eq(__cudaPopCallConfiguration(&g, &b, &s, &st), cudaErrorMissingConfiguration);
}

Test(registration, push_pop_carries_the_configuration)
{
    int dummy;
    cudaStream_t stream = (cudaStream_t)&dummy;
    cr_assert_eq(__cudaPushCallConfiguration((dim3){7, 8, 9}, (dim3){1, 2, 3}, 96, stream), 0u);
    dim3 g, b;
    size_t s;
    cudaStream_t st;
    cr_assert_eq(__cudaPopCallConfiguration(&g, &b, &s, &st), cudaSuccess);
    cr_assert(g.x == 7 && g.y == 8 && g.z == 9 && b.x == 1 && b.y == 2 && b.z == 3);
    cr_assert_eq(s, 96u);
    cr_assert_eq(st, stream);
}

Test(registration, bad_wrapper_magic)
{
    XtFatWrapper w = {0x12345678, 1, "junk", NULL};
    void **h = __cudaRegisterFatBinary(&w);
    register_kernel(h, stub_vecadd, "vecadd");
    int n = 0;
    void *p = NULL;
    void *args[] = {&p, &p, &p, &n};
    cr_assert_eq(cudaLaunchKernel((const void *)stub_vecadd, (dim3){1, 1, 1}, (dim3){1, 1, 1},
                                  args, 0, NULL),
                 cudaErrorInvalidKernelImage);
}

Test(registration, bad_container_bytes)
{
    static const unsigned char junk[64] = {1, 2, 3};
    XtFatWrapper w = {0x466243b1, 1, junk, NULL};
    void **h = __cudaRegisterFatBinary(&w);
    register_kernel(h, stub_vecadd, "vecadd");
    int n = 0;
    void *p = NULL;
    void *args[] = {&p, &p, &p, &n};
    cr_assert_eq(cudaLaunchKernel((const void *)stub_vecadd, (dim3){1, 1, 1}, (dim3){1, 1, 1},
                                  args, 0, NULL),
                 cudaErrorInvalidKernelImage);
    cr_assert_eq(cudaMalloc(&p, 16), cudaSuccess, "a bad image is not sticky");
}

Test(registration, unregister_all_then_exit_cleanly)
{
    XtFatWrapper w;
    void **h = setup_vecadd(&w);
    static float c[32];
    cudaError_t e;
    run_vecadd(32, (dim3){1, 1, 1}, (dim3){32, 1, 1}, c, &e);
    cr_assert_eq(e, cudaSuccess);
    __cudaUnregisterFatBinary(h);
    free((void *)w.data); /* the runtime no longer points at it */
    int n = 0;
    void *p = NULL;
    void *args[] = {&p, &p, &p, &n};
    cr_assert_eq(cudaLaunchKernel((const void *)stub_vecadd, (dim3){1, 1, 1}, (dim3){1, 1, 1},
                                  args, 0, NULL),
                 cudaErrorInvalidDeviceFunction);
}
