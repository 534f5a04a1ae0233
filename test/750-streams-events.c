/*
 * 750-streams-events: streams and events in libxgpurt. Work on any stream runs in issue
 * order (a kernel on one stream is visible to a copy on another issued after it); events
 * measure emulated device time: with one SM issuing one warp instruction per cycle at
 * 1 GHz, a launch of one warp lasts exactly its warp instruction count in nanoseconds,
 * so elapsed times of kernels with known instruction counts are checked exactly.
 * Queries, synchronization, host functions, destroyed handles and reset are covered too.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>

#include "xgpu/cuda/cuda_runtime_api.h"
#include "xgpu/emu.h"
#include "xtest.h"


/* add1(int *a, int n): a[i] += 1 for i < n. 13 warp instructions for a full warp. */
static const char kernels_src[] =
    ".kernel add1\n"
    ".param 8\n.param 4\n"
    "    s2r r0, %ctaid.x\n"
    "    s2r r1, %ntid.x\n"
    "    s2r r2, %tid.x\n"
    "    mul.u32 r3, r0, r1\n"
    "    add.u32 r3, r3, r2\n"
    "    ld.param.s32 r4, [8]\n"
    "    set.ge.s32 r5, r3, r4\n"
    "    brc r5, done, done\n"
    "    ld.param.u64 r6, [0]\n"
    "    shl.u32 r10, r3, 2\n"
    "    cvt.u64.u32 r12, r10\n"
    "    add.u64 r6, r6, r12\n"
    "    ld.global.u32 r14, [r6]\n"
    "    add.u32 r14, r14, 1\n"
    "    st.global.u32 [r6], r14\n"
    "done:\n"
    "    exit\n"
    /* short: 3 instructions */
    ".kernel short\n"
    "    mov.u32 r0, 1\n"
    "    mov.u32 r1, 2\n"
    "    exit\n"
    /* long: 10 instructions */
    ".kernel long\n"
    "    mov.u32 r0, 1\n"
    "    mov.u32 r1, 2\n"
    "    add.u32 r2, r0, r1\n"
    "    add.u32 r2, r2, r1\n"
    "    add.u32 r2, r2, r1\n"
    "    add.u32 r2, r2, r1\n"
    "    add.u32 r2, r2, r1\n"
    "    add.u32 r2, r2, r1\n"
    "    add.u32 r2, r2, r1\n"
    "    exit\n";

static void stub_add1(void) {}
static void stub_short(void) {}
static void stub_long(void) {}
static XtFatWrapper wrapper;

static void reg(void **h, void (*stub)(void), const char *name)
{
    __cudaRegisterFunction(h, (const void *)stub, (char *)name, name, -1, NULL, NULL, NULL,
                           NULL, NULL);
}

static void setup(void)
{
    /* One warp instruction per cycle on one SM at 1 GHz: 1 warp instruction = 1 ns. */
    setenv("XGPU_SET", "gpu.sm_count=1;gpu.issue_width=1;gpu.clock_khz=1000000", 1);
    setenv("XGPU_MODE", "functional", 1);
    wrapper = (XtFatWrapper){XT_FAT_MAGIC, 1, xt_fat_from_asm(kernels_src), NULL};
    void **h = __cudaRegisterFatBinary(&wrapper);
    reg(h, stub_add1, "add1");
    reg(h, stub_short, "short");
    reg(h, stub_long, "long");
    __cudaRegisterFatBinaryEnd(h);
}

static cudaError_t add1(int *a, int n, cudaStream_t s)
{
    void *args[] = {&a, &n};
    return cudaLaunchKernel((const void *)stub_add1, (dim3){(unsigned)(n + 31) / 32, 1, 1},
                            (dim3){32, 1, 1}, args, 0, s);
}

static cudaError_t run(void (*stub)(void), unsigned blocks, cudaStream_t s)
{
    return cudaLaunchKernel((const void *)stub, (dim3){blocks, 1, 1}, (dim3){32, 1, 1}, NULL,
                            0, s);
}

/* Elapsed emulated time of `blocks` blocks of one warp of stub, in whole nanoseconds. */
static long elapsed_ns(void (*stub)(void), unsigned blocks, cudaStream_t s)
{
    cudaEvent_t a, b;
    float ms = -1;
    cr_assert_eq(cudaEventCreate(&a), cudaSuccess);
    cr_assert_eq(cudaEventCreate(&b), cudaSuccess);
    cr_assert_eq(cudaEventRecord(a, s), cudaSuccess);
    cr_assert_eq(run(stub, blocks, s), cudaSuccess);
    cr_assert_eq(cudaEventRecord(b, s), cudaSuccess);
    cr_assert_eq(cudaEventSynchronize(b), cudaSuccess);
    cr_assert_eq(cudaEventElapsedTime(&ms, a, b), cudaSuccess);
    cr_assert_eq(cudaEventDestroy(a), cudaSuccess);
    cr_assert_eq(cudaEventDestroy(b), cudaSuccess);
    return lround(ms * 1e6);
}

Test(streams, work_runs_in_issue_order_across_streams, .init = setup)
{
    enum { N = 100 };
    int host[N], *d;
    cudaStream_t s1, s2;
    for (int i = 0; i < N; i++)
        host[i] = i;
    cr_assert_eq(cudaStreamCreate(&s1), cudaSuccess);
    cr_assert_eq(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking), cudaSuccess);
    cr_assert_eq(cudaMalloc((void **)&d, sizeof host), cudaSuccess);
    cr_assert_eq(cudaMemcpyAsync(d, host, sizeof host, cudaMemcpyHostToDevice, s1), cudaSuccess);
    cr_assert_eq(add1(d, N, s2), cudaSuccess);
    cr_assert_eq(add1(d, N, s1), cudaSuccess);
    cr_assert_eq(add1(d, N, cudaStreamLegacy), cudaSuccess);
    cr_assert_eq(add1(d, N, cudaStreamPerThread), cudaSuccess);
    cr_assert_eq(add1(d, N, 0), cudaSuccess);
    cr_assert_eq(cudaMemcpyAsync(host, d, sizeof host, cudaMemcpyDeviceToHost, s2), cudaSuccess);
    cr_assert_eq(cudaStreamSynchronize(s2), cudaSuccess);
    for (int i = 0; i < N; i++)
        cr_assert_eq(host[i], i + 5, "element %d: %d", i, host[i]);
    unsigned flags = 99;
    cr_assert_eq(cudaStreamGetFlags(s2, &flags), cudaSuccess);
    cr_assert_eq(flags, cudaStreamNonBlocking);
    cr_assert_eq(cudaStreamGetFlags(0, &flags), cudaSuccess);
    cr_assert_eq(flags, cudaStreamDefault);
    int prio = 5, lo = 5, hi = 5;
    cr_assert_eq(cudaStreamGetPriority(s1, &prio), cudaSuccess);
    cr_assert_eq(cudaDeviceGetStreamPriorityRange(&lo, &hi), cudaSuccess);
    cr_assert(prio == 0 && lo == 0 && hi == 0);
    cr_assert_eq(cudaStreamDestroy(s1), cudaSuccess);
    cr_assert_eq(cudaStreamDestroy(s2), cudaSuccess);
}

Test(events, elapsed_time_is_emulated_device_time, .init = setup)
{
    cudaStream_t s;
    cr_assert_eq(cudaStreamCreate(&s), cudaSuccess);
    long t_short = elapsed_ns(stub_short, 1, s);
    long t_long = elapsed_ns(stub_long, 1, 0);
    cr_assert_gt(t_short, 0);
    cr_assert_eq(t_long - t_short, 7, "long has 7 more instructions: %ld vs %ld", t_long,
                 t_short);
    cr_assert_eq(elapsed_ns(stub_short, 4, s), 4 * t_short, "one SM runs 4 warps in turn");
    cr_assert_eq(elapsed_ns(stub_long, 1, s), t_long, "the same launch takes the same time");

    /* Events around several launches on different streams add their durations up. */
    cudaEvent_t a, b;
    float ms = 0;
    cr_assert_eq(cudaEventCreateWithFlags(&a, cudaEventBlockingSync), cudaSuccess);
    cr_assert_eq(cudaEventCreate(&b), cudaSuccess);
    cr_assert_eq(cudaEventRecord(a, 0), cudaSuccess);
    cr_assert_eq(run(stub_short, 1, s), cudaSuccess);
    cr_assert_eq(run(stub_long, 1, 0), cudaSuccess);
    cr_assert_eq(cudaEventRecord(b, s), cudaSuccess);
    cr_assert_eq(cudaEventElapsedTime(&ms, a, b), cudaSuccess);
    cr_assert_eq(lround(ms * 1e6), t_short + t_long);
    cr_assert_eq(cudaEventElapsedTime(&ms, b, a), cudaSuccess);
    cr_assert_eq(lround(ms * 1e6), -(t_short + t_long), "reversed events: negative");
    /* Copies take no emulated time. */
    int *d, h[4] = {0};
    cr_assert_eq(cudaMalloc((void **)&d, sizeof h), cudaSuccess);
    cr_assert_eq(cudaEventRecord(a, 0), cudaSuccess);
    cr_assert_eq(cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice), cudaSuccess);
    cr_assert_eq(cudaEventRecord(b, 0), cudaSuccess);
    cr_assert_eq(cudaEventElapsedTime(&ms, a, b), cudaSuccess);
    cr_assert_eq(ms, 0.0f);
}

Test(events, unrecorded_and_untimed_events)
{
    cudaEvent_t a, b, n;
    float ms = -1;
    cr_assert_eq(cudaEventCreate(&a), cudaSuccess);
    cr_assert_eq(cudaEventCreate(&b), cudaSuccess);
    cr_assert_eq(cudaEventCreateWithFlags(&n, cudaEventDisableTiming), cudaSuccess);
    cr_assert_eq(cudaEventQuery(a), cudaSuccess, "an unrecorded event is complete");
    cr_assert_eq(cudaEventSynchronize(a), cudaSuccess);
    cr_assert_eq(cudaEventElapsedTime(&ms, a, b), cudaErrorInvalidResourceHandle);
    cr_assert_eq(cudaEventRecord(a, 0), cudaSuccess);
    cr_assert_eq(cudaEventElapsedTime(&ms, a, b), cudaErrorInvalidResourceHandle);
    cr_assert_eq(cudaEventRecord(b, 0), cudaSuccess);
    cr_assert_eq(cudaEventRecord(n, 0), cudaSuccess);
    cr_assert_eq(cudaEventElapsedTime(&ms, a, n), cudaErrorInvalidResourceHandle);
    cr_assert_eq(cudaEventElapsedTime(NULL, a, b), cudaErrorInvalidValue);
    cr_assert_eq(cudaEventElapsedTime(&ms, a, b), cudaSuccess);
    cr_assert_geq(ms, 0.0f);
    cr_assert_eq(cudaEventCreateWithFlags(&n, 0x80), cudaErrorInvalidValue);
    cr_assert_eq(cudaGetLastError(), cudaErrorInvalidValue, "not sticky");
    cr_assert_eq(cudaGetLastError(), cudaSuccess);
}

static void host_fn(void *p)
{
    int *v = p;
    *v = *v * 10;
}

static void host_callback(cudaStream_t s, cudaError_t status, void *p)
{
    int *v = p;
    *v = status == cudaSuccess ? *v + 1 : -1;
}

Test(streams, query_wait_and_host_functions, .init = setup)
{
    cudaStream_t s;
    cudaEvent_t e;
    cr_assert_eq(cudaStreamCreate(&s), cudaSuccess);
    cr_assert_eq(cudaEventCreate(&e), cudaSuccess);
    cr_assert_eq(run(stub_short, 1, s), cudaSuccess);
    cr_assert_eq(cudaStreamQuery(s), cudaSuccess);
    cr_assert_eq(cudaStreamQuery(0), cudaSuccess);
    cr_assert_eq(cudaEventRecord(e, s), cudaSuccess);
    cr_assert_eq(cudaEventQuery(e), cudaSuccess);
    cr_assert_eq(cudaStreamWaitEvent(0, e, 0), cudaSuccess);
    cr_assert_eq(cudaStreamWaitEvent(s, e, 0x10), cudaErrorInvalidValue);

    /* Host work queued on a stream runs in order with the device work around it. */
    int *d, v = 41;
    cr_assert_eq(cudaMalloc((void **)&d, sizeof v), cudaSuccess);
    cr_assert_eq(cudaMemcpy(d, &v, sizeof v, cudaMemcpyHostToDevice), cudaSuccess);
    cr_assert_eq(add1(d, 1, s), cudaSuccess);
    cr_assert_eq(cudaMemcpyAsync(&v, d, sizeof v, cudaMemcpyDeviceToHost, s), cudaSuccess);
    cr_assert_eq(cudaLaunchHostFunc(s, host_fn, &v), cudaSuccess);
    cr_assert_eq(cudaStreamAddCallback(s, host_callback, &v, 0), cudaSuccess);
    cr_assert_eq(cudaMemcpyAsync(d, &v, sizeof v, cudaMemcpyHostToDevice, s), cudaSuccess);
    cr_assert_eq(add1(d, 1, s), cudaSuccess);
    cr_assert_eq(cudaMemcpyAsync(&v, d, sizeof v, cudaMemcpyDeviceToHost, s), cudaSuccess);
    cr_assert_eq(cudaStreamSynchronize(s), cudaSuccess);
    cr_assert_eq(v, 422, "(41 + 1) * 10 + 1 + 1: %d", v);
    cr_assert_eq(cudaLaunchHostFunc(s, NULL, &v), cudaErrorInvalidValue);
    cr_assert_eq(cudaDeviceSynchronize(), cudaSuccess);
}

Test(streams, destroyed_handles_are_invalid, .init = setup)
{
    cudaStream_t s;
    cudaEvent_t e;
    int *d, h = 0;
    float ms;
    cr_assert_eq(cudaMalloc((void **)&d, sizeof h), cudaSuccess);
    cr_assert_eq(cudaStreamCreate(&s), cudaSuccess);
    cr_assert_eq(cudaEventCreate(&e), cudaSuccess);
    cr_assert_eq(cudaStreamDestroy(s), cudaSuccess);
    cr_assert_eq(cudaEventDestroy(e), cudaSuccess);

    cr_assert_eq(cudaStreamSynchronize(s), cudaErrorInvalidResourceHandle);
    cr_assert_eq(cudaStreamQuery(s), cudaErrorInvalidResourceHandle);
    cr_assert_eq(cudaStreamDestroy(s), cudaErrorInvalidResourceHandle);
    cr_assert_eq(add1(d, 1, s), cudaErrorInvalidResourceHandle);
    cr_assert_eq(cudaMemcpyAsync(&h, d, sizeof h, cudaMemcpyDeviceToHost, s),
                 cudaErrorInvalidResourceHandle);
    cr_assert_eq(cudaMemsetAsync(d, 0, sizeof h, s), cudaErrorInvalidResourceHandle);
    cr_assert_eq(cudaEventRecord(e, 0), cudaErrorInvalidResourceHandle);
    cr_assert_eq(cudaEventSynchronize(e), cudaErrorInvalidResourceHandle);
    cr_assert_eq(cudaEventQuery(e), cudaErrorInvalidResourceHandle);
    cr_assert_eq(cudaEventElapsedTime(&ms, e, e), cudaErrorInvalidResourceHandle);
    cr_assert_eq(cudaEventDestroy(e), cudaErrorInvalidResourceHandle);
    cr_assert_eq(cudaStreamDestroy(0), cudaErrorInvalidResourceHandle);
    cr_assert_eq(cudaGetLastError(), cudaErrorInvalidResourceHandle);
    cr_assert_eq(cudaGetLastError(), cudaSuccess, "handle errors are not sticky");
    cr_assert_eq(add1(d, 1, 0), cudaSuccess);

    /* A reset destroys every stream and event. */
    cr_assert_eq(cudaStreamCreate(&s), cudaSuccess);
    cr_assert_eq(cudaEventCreate(&e), cudaSuccess);
    cr_assert_eq(cudaDeviceReset(), cudaSuccess);
    cr_assert_eq(cudaStreamSynchronize(s), cudaErrorInvalidResourceHandle);
    cr_assert_eq(cudaEventRecord(e, 0), cudaErrorInvalidResourceHandle);
}
