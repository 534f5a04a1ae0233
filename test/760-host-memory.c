/*
 * 760-host-memory: pinned host memory and asynchronous copies in libxgpurt.
 * cudaMallocHost/cudaHostAlloc give page-aligned host memory the runtime remembers
 * (flags reported back, freeing anything else is cudaErrorInvalidValue, not a crash);
 * registration is accepted; mapped device pointers are not supported. Async copies,
 * sets and symbol copies on a stream complete in issue order; peer copies work on
 * device 0 only.
 */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "xgpu/cuda/cuda_runtime_api.h"
#include "xtest.h"

/* scale(int *a, int n): a[i] *= factor (a __device__ int); plus a 16-byte table. */
static const char module_src[] =
    ".global factor 4 4 = 3\n"
    ".global table 16 4\n"
    ".kernel scale\n"
    ".param 8\n.param 4\n"
    "    s2r r2, %tid.x\n"
    "    ld.param.s32 r4, [8]\n"
    "    set.ge.s32 r5, r2, r4\n"
    "    brc r5, done, done\n"
    "    ld.param.u64 r6, [0]\n"
    "    shl.u32 r10, r2, 2\n"
    "    cvt.u64.u32 r12, r10\n"
    "    add.u64 r6, r6, r12\n"
    "    gaddr r8, factor\n"
    "    ld.global.u32 r3, [r8]\n"
    "    ld.global.u32 r14, [r6]\n"
    "    mul.u32 r14, r14, r3\n"
    "    st.global.u32 [r6], r14\n"
    "done:\n"
    "    exit\n";

static void stub_scale(void) {}
static int shadow_factor, shadow_table[4];
static XtFatWrapper wrapper;

static void setup(void)
{
    wrapper = (XtFatWrapper){XT_FAT_MAGIC, 1, xt_fat_from_asm(module_src), NULL};
    void **h = __cudaRegisterFatBinary(&wrapper);
    __cudaRegisterFunction(h, (const void *)stub_scale, "scale", "scale", -1, NULL, NULL, NULL,
                           NULL, NULL);
    __cudaRegisterVar(h, (char *)&shadow_factor, "factor", "factor", 0, 4, 0, 0);
    __cudaRegisterVar(h, (char *)shadow_table, "table", "table", 0, 16, 0, 0);
    __cudaRegisterFatBinaryEnd(h);
}

Test(host_memory, pinned_alloc_and_free)
{
    int *p = NULL, *q = NULL;
    unsigned flags = 99;
    cr_assert_eq(cudaMallocHost((void **)&p, 1000 * sizeof(int)), cudaSuccess);
    cr_assert_not_null(p);
    cr_assert_eq((uintptr_t)p % 4096, 0, "page aligned");
    for (int i = 0; i < 1000; i++)
        p[i] = i;
    cr_assert_eq(p[999], 999);
    cr_assert_eq(cudaHostGetFlags(&flags, p), cudaSuccess);
    cr_assert_eq(flags, cudaHostAllocDefault);
    cr_assert_eq(cudaHostAlloc((void **)&q, 64, cudaHostAllocPortable | cudaHostAllocMapped),
                 cudaSuccess);
    cr_assert_eq(cudaHostGetFlags(&flags, q), cudaSuccess);
    cr_assert_eq(flags, cudaHostAllocPortable | cudaHostAllocMapped);
    cr_assert_eq(cudaHostAlloc((void **)&q, 64, 0x100), cudaErrorInvalidValue);
    cr_assert_eq(cudaMallocHost(NULL, 64), cudaErrorInvalidValue);

    int local;
    cr_assert_eq(cudaFreeHost(&local), cudaErrorInvalidValue, "not pinned memory");
    cr_assert_eq(cudaHostGetFlags(&flags, &local), cudaErrorInvalidValue);
    cr_assert_eq(cudaFreeHost(p), cudaSuccess);
    cr_assert_eq(cudaFreeHost(p), cudaErrorInvalidValue, "double free");
    cr_assert_eq(cudaFreeHost(NULL), cudaSuccess);
    cr_assert_eq(cudaGetLastError(), cudaErrorInvalidValue);
    cr_assert_eq(cudaGetLastError(), cudaSuccess);

    void *z = &local;
    cr_assert_eq(cudaMallocHost(&z, 0), cudaSuccess);
    cr_assert_null(z);
}

Test(host_memory, register_and_mapping)
{
    static char buf[256];
    void *dp = NULL;
    cr_assert_eq(cudaHostRegister(buf, sizeof buf, cudaHostRegisterDefault), cudaSuccess);
    cr_assert_eq(cudaHostRegister(buf, 0, 0), cudaErrorInvalidValue);
    cr_assert_eq(cudaHostRegister(NULL, 16, 0), cudaErrorInvalidValue);
    cr_assert_eq(cudaHostRegister(buf, sizeof buf, 0x40), cudaErrorInvalidValue);
    cr_assert_eq(cudaHostUnregister(buf), cudaSuccess);
    cr_assert_eq(cudaHostUnregister(NULL), cudaErrorInvalidValue);

    /* The unsupported call prints one line: keep it out of the test log. */
    FILE *devnull = freopen("/dev/null", "w", stderr);
    cr_assert_not_null(devnull);
    cr_assert_eq(cudaHostGetDevicePointer(&dp, buf, 0), cudaErrorNotSupported);
    cr_assert_eq(cudaHostGetDevicePointer(NULL, buf, 0), cudaErrorInvalidValue);
    cr_assert_eq(cudaHostGetDevicePointer(&dp, buf, 1), cudaErrorInvalidValue);
}

Test(host_memory, async_copies_on_a_stream, .init = setup)
{
    enum { N = 64 };
    int *h, *d, *d2;
    cudaStream_t s;
    cr_assert_eq(cudaStreamCreate(&s), cudaSuccess);
    cr_assert_eq(cudaMallocHost((void **)&h, N * sizeof(int)), cudaSuccess);
    cr_assert_eq(cudaMalloc((void **)&d, N * sizeof(int)), cudaSuccess);
    cr_assert_eq(cudaMalloc((void **)&d2, N * sizeof(int)), cudaSuccess);
    for (int i = 0; i < N; i++)
        h[i] = i + 1;
    int f = 5;
    cr_assert_eq(cudaMemcpyToSymbolAsync(&shadow_factor, &f, sizeof f, 0,
                                         cudaMemcpyHostToDevice, s),
                 cudaSuccess);
    cr_assert_eq(cudaMemcpyAsync(d, h, N * sizeof(int), cudaMemcpyHostToDevice, s), cudaSuccess);
    int n = N;
    void *args[] = {&d, &n};
    cr_assert_eq(cudaLaunchKernel((const void *)stub_scale, (dim3){1, 1, 1}, (dim3){N, 1, 1},
                                  args, 0, s),
                 cudaSuccess);
    cr_assert_eq(cudaMemcpyAsync(d2, d, N * sizeof(int), cudaMemcpyDefault, s), cudaSuccess);
    cr_assert_eq(cudaMemsetAsync(d, 0, N * sizeof(int), s), cudaSuccess);
    cr_assert_eq(cudaMemcpyAsync(h, d2, N * sizeof(int), cudaMemcpyDeviceToHost, s), cudaSuccess);
    cr_assert_eq(cudaStreamSynchronize(s), cudaSuccess);
    for (int i = 0; i < N; i++)
        cr_assert_eq(h[i], 5 * (i + 1), "element %d: %d", i, h[i]);
    cr_assert_eq(cudaMemcpyAsync(h, d, N * sizeof(int), cudaMemcpyDeviceToHost, 0), cudaSuccess);
    cr_assert_eq(h[7], 0, "the memset ran after the device-to-device copy");

    int tab[4] = {1, 2, 3, 4}, back[4] = {0};
    cr_assert_eq(cudaMemcpyToSymbolAsync(shadow_table, tab, 8, 8, cudaMemcpyHostToDevice, s),
                 cudaSuccess);
    cr_assert_eq(cudaMemcpyFromSymbolAsync(back, shadow_table, 16, 0, cudaMemcpyDeviceToHost, s),
                 cudaSuccess);
    cr_assert(back[0] == 0 && back[1] == 0 && back[2] == 1 && back[3] == 2);
    cr_assert_eq(cudaMemcpyFromSymbolAsync(back, shadow_table, 16, 4, cudaMemcpyDeviceToHost, s),
                 cudaErrorInvalidValue, "past the symbol's end");
    cr_assert_eq(cudaMemcpyToSymbolAsync(shadow_table, tab, 4, 0, cudaMemcpyDeviceToHost, s),
                 cudaErrorInvalidMemcpyDirection);

    cr_assert_eq(cudaStreamDestroy(s), cudaSuccess);
    cr_assert_eq(cudaMemcpyToSymbolAsync(shadow_table, tab, 4, 0, cudaMemcpyHostToDevice, s),
                 cudaErrorInvalidResourceHandle);
    cr_assert_eq(cudaFreeHost(h), cudaSuccess);
}

Test(host_memory, peer_copies_stay_on_device_0)
{
    int *a, *b, v = 7, w = 0;
    cr_assert_eq(cudaMalloc((void **)&a, sizeof v), cudaSuccess);
    cr_assert_eq(cudaMalloc((void **)&b, sizeof v), cudaSuccess);
    cr_assert_eq(cudaMemcpy(a, &v, sizeof v, cudaMemcpyHostToDevice), cudaSuccess);
    cr_assert_eq(cudaMemcpyPeer(b, 0, a, 0, sizeof v), cudaSuccess);
    cr_assert_eq(cudaMemcpy(&w, b, sizeof w, cudaMemcpyDeviceToHost), cudaSuccess);
    cr_assert_eq(w, 7);
    cr_assert_eq(cudaMemcpyPeer(b, 1, a, 0, sizeof v), cudaErrorInvalidDevice);
    cr_assert_eq(cudaMemcpyPeerAsync(b, 0, a, 0, sizeof v, 0), cudaSuccess);
    int can = -1;
    cr_assert_eq(cudaDeviceCanAccessPeer(&can, 0, 0), cudaSuccess);
    cr_assert_eq(can, 0);
    cr_assert_eq(cudaDeviceEnablePeerAccess(1, 0), cudaErrorInvalidDevice);
}
