/*
 * 794-runtime-threads: libxgpurt shared by several host threads.
 *
 *   - Four threads each allocate, launch, copy back, check and free 200 times, in
 *     functional and in timing mode (test/e2e/rt_threads.cu): no wrong result, no failed
 *     call, no heap corruption, every allocation freed.
 *   - The last error is per thread, as in CUDA: a failing call in one thread is not
 *     what cudaGetLastError returns in another. A guest fault (sticky) is the
 *     process's: every thread sees it until cudaDeviceReset.
 *   - The current device is per thread; <<<>>> configurations pushed by one thread are
 *     not popped by another.
 * xgpu-cc must have been built (the whole build does that).
 */
#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xgpu/cuda/cuda_runtime_api.h"
#include "xtest.h"

static void expect_threads_pass(const char *mode)
{
    const char *exe = xt_compile_e2e("rt_threads", "-lpthread");
    char *out = NULL;
    int rc = xt_runf(&out, "XGPU_MODE=%s %s", mode, exe);
    cr_assert_eq(rc, 0, "%s: exit %d:\n%s", mode, rc, out);
    cr_assert(strstr(out, "bad=0\n") && strstr(out, "PASS"), "%s:\n%s", mode, out);
    free(out);
}

Test(threads, four_threads_functional)
{
    expect_threads_pass("functional");
}

Test(threads, four_threads_timing)
{
    expect_threads_pass("timing");
}

/* Two threads in lock step: A fails a call, then B looks at its own last error. */
static pthread_barrier_t step;
static cudaError_t seen_by_b, peeked_by_b;

static void *thread_b(void *arg)
{
    pthread_barrier_wait(&step); /* A has failed a call */
    peeked_by_b = cudaPeekAtLastError();
    seen_by_b = cudaGetLastError();
    pthread_barrier_wait(&step);
    return NULL;
}

Test(threads, last_error_is_per_thread)
{
    pthread_t b;
    pthread_barrier_init(&step, NULL, 2);
    cr_assert_eq(pthread_create(&b, NULL, thread_b, NULL), 0);
    cr_assert_eq(cudaSetDevice(7), cudaErrorInvalidDevice);
    pthread_barrier_wait(&step);
    pthread_barrier_wait(&step); /* B has looked */
    pthread_join(b, NULL);
    cr_assert_eq(peeked_by_b, cudaSuccess);
    cr_assert_eq(seen_by_b, cudaSuccess);
    cr_assert_eq(cudaPeekAtLastError(), cudaErrorInvalidDevice, "A's error stays A's");
    cr_assert_eq(cudaGetLastError(), cudaErrorInvalidDevice);
    cr_assert_eq(cudaGetLastError(), cudaSuccess);
}

/* B makes a failing call of its own and leaves it as its last error; A's last error is
 * untouched. */
static void *thread_fails(void *arg)
{
    *(cudaError_t *)arg = cudaMalloc(NULL, 16);
    return (void *)(long)cudaPeekAtLastError();
}

Test(threads, errors_of_other_threads_do_not_leak_in)
{
    pthread_t b;
    cudaError_t ret = cudaSuccess;
    void *own;
    cr_assert_eq(pthread_create(&b, NULL, thread_fails, &ret), 0);
    pthread_join(b, &own);
    cr_assert_eq(ret, cudaErrorInvalidValue);
    cr_assert_eq((long)own, cudaErrorInvalidValue);
    cr_assert_eq(cudaGetLastError(), cudaSuccess);
}

/* A fault is sticky for the whole process. */
static const char fault_src[] =
    ".kernel wild\n"
    "    mov.u32 r0, 0\n"
    "    mov.u32 r1, 0\n"
    "    mov.u32 r2, 1\n"
    "    st.global.u32 [r0], r2\n"
    "    exit\n";
static void stub_wild(void) {}
static XtFatWrapper wrapper;

static void *thread_sync(void *arg)
{
    *(cudaError_t *)arg = cudaDeviceSynchronize();
    return NULL;
}

Test(threads, sticky_errors_are_the_process_s)
{
    setenv("XGPU_SET", "emu.memcheck=on", 1); /* the wild store is a fault */
    wrapper = (XtFatWrapper){XT_FAT_MAGIC, 1, xt_fat_from_asm(fault_src), NULL};
    void **h = __cudaRegisterFatBinary(&wrapper);
    __cudaRegisterFunction(h, (const void *)stub_wild, "wild", "wild", -1, NULL, NULL, NULL,
                           NULL, NULL);
    __cudaRegisterFatBinaryEnd(h);
    cr_redirect_stderr();
    cr_assert_eq(cudaLaunchKernel((const void *)stub_wild, (dim3){1, 1, 1}, (dim3){1, 1, 1},
                                  NULL, 0, NULL),
                 cudaErrorIllegalAddress);
    pthread_t b;
    cudaError_t other = cudaSuccess;
    cr_assert_eq(pthread_create(&b, NULL, thread_sync, &other), 0);
    pthread_join(b, NULL);
    cr_assert_eq(other, cudaErrorIllegalAddress);
    cr_assert_eq(cudaDeviceReset(), cudaSuccess);
    cr_assert_eq(pthread_create(&b, NULL, thread_sync, &other), 0);
    pthread_join(b, NULL);
    cr_assert_eq(other, cudaSuccess, "reset clears it for everyone");
}

/* Another thread: its current device, and whether it can pop a configuration. */
typedef struct Other {
    int device;
    cudaError_t pop;
} Other;

static void *thread_other(void *arg)
{
    Other *o = arg;
    dim3 g, b;
    size_t shared;
    cudaStream_t s;
    cudaGetDevice(&o->device);
    o->pop = __cudaPopCallConfiguration(&g, &b, &shared, &s);
    return NULL;
}

Test(threads, current_device_and_pending_launches_are_per_thread)
{
    int d = -1;
    cr_assert_eq(cudaSetDevice(0), cudaSuccess);
    cr_assert_eq(cudaGetDevice(&d), cudaSuccess);
    cr_assert_eq(d, 0);
    /* a configuration pushed here is not another thread's to pop */
    cr_assert_eq(__cudaPushCallConfiguration((dim3){2, 1, 1}, (dim3){3, 1, 1}, 0, NULL), 0);
    pthread_t b;
    Other o = {-1, cudaSuccess};
    cr_assert_eq(pthread_create(&b, NULL, thread_other, &o), 0);
    pthread_join(b, NULL);
    cr_assert_eq(o.device, 0);
    cr_assert_eq(o.pop, cudaErrorMissingConfiguration);
    dim3 g, bl;
    size_t shared;
    cudaStream_t s;
    cr_assert_eq(__cudaPopCallConfiguration(&g, &bl, &shared, &s), cudaSuccess);
    cr_assert_eq(g.x, 2);
    cr_assert_eq(bl.x, 3);
    cr_assert_eq(__cudaPopCallConfiguration(&g, &bl, &shared, &s),
                 cudaErrorMissingConfiguration);
}
