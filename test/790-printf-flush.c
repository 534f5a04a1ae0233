/*
 * 790-printf-flush: device printf output reaches stdout at CUDA's flush points and
 * interleaves with host output as on a GPU. A kernel (assembled, using vprintf) prints
 * one line per thread into the emulator's FIFO; nothing appears until
 * cudaDeviceSynchronize, cudaStreamSynchronize, cudaEventSynchronize, a blocking
 * cudaMemcpy, the next launch, cudaDeviceReset or process exit; asynchronous copies do
 * not flush. stdout is redirected to a file and compared whole.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "xgpu/cuda/cuda_runtime_api.h"
#include "xgpu/emu.h"
#include "xtest.h"


/* hello(): printf("thread %d\n", threadIdx.x), arguments packed in local memory. */
static const char kernel_src[] =
    ".kernel hello\n"
    ".local 8\n"
    "    s2r r0, %tid.x\n"
    "    st.local.u32 [0], r0\n"
    "    mov.u32 r6, 0\n"
    "    mov.u32 r7, 0\n"
    "    cvta.local r4, r6\n"
    "    gaddr r2, fmt\n"
    "    vprintf r1, r2, r4\n"
    "    exit\n";

static void stub_hello(void) {}
static XtFatWrapper wrapper;

/* The module: the kernel and its format string as a .global with byte initializers. */
static char *module_text(const char *fmt)
{
    size_t n = strlen(fmt) + 1, cap = sizeof kernel_src + 64 + 4 * n;
    char *s = malloc(cap);
    cr_assert_not_null(s);
    int len = snprintf(s, cap, ".global fmt %zu 1 =", n);
    for (size_t i = 0; i < n; i++)
        len += snprintf(s + len, cap - (size_t)len, " %u", (unsigned char)fmt[i]);
    snprintf(s + len, cap - (size_t)len, "\n%s", kernel_src);
    return s;
}

static char capture_path[] = XGPU_BUILD_DIR "/test-790-stdout-XXXXXX";

static void setup(void)
{
    char *src = module_text("thread %d\n");
    wrapper = (XtFatWrapper){XT_FAT_MAGIC, 1, xt_fat_from_asm(src), NULL};
    free(src);
    void **h = __cudaRegisterFatBinary(&wrapper);
    __cudaRegisterFunction(h, (const void *)stub_hello, "hello", "hello", -1, NULL, NULL, NULL,
                           NULL, NULL);
    __cudaRegisterFatBinaryEnd(h);
    int fd = mkstemp(capture_path);
    cr_assert_geq(fd, 0);
    fflush(stdout);
    cr_assert_geq(dup2(fd, 1), 0);
    close(fd);
}

static char *captured(void)
{
    fflush(stdout);
    char *text = xt_read(capture_path, NULL);
    cr_assert_not_null(text);
    return text;
}

static void teardown(void)
{
    remove(capture_path);
}

static void hello(unsigned threads)
{
    cr_assert_eq(cudaLaunchKernel((const void *)stub_hello, (dim3){1, 1, 1},
                                  (dim3){threads, 1, 1}, NULL, 0, 0),
                 cudaSuccess);
}

Test(printf_flush, output_appears_at_device_synchronize, .init = setup, .fini = teardown)
{
    printf("host 1\n");
    hello(3);
    printf("host 2\n");
    cr_assert_eq(cudaDeviceSynchronize(), cudaSuccess);
    printf("host 3\n");
    char *out = captured();
    cr_assert_str_eq(out, "host 1\nhost 2\nthread 0\nthread 1\nthread 2\nhost 3\n");
    free(out);
}

Test(printf_flush, every_synchronization_point_flushes, .init = setup, .fini = teardown)
{
    cudaStream_t s;
    cudaEvent_t e;
    int *d, h = 0;
    cr_assert_eq(cudaStreamCreate(&s), cudaSuccess);
    cr_assert_eq(cudaEventCreate(&e), cudaSuccess);
    cr_assert_eq(cudaMalloc((void **)&d, sizeof h), cudaSuccess);
    hello(1);
    printf("a\n");
    cr_assert_eq(cudaStreamSynchronize(s), cudaSuccess);
    hello(1);
    printf("b\n");
    cr_assert_eq(cudaEventRecord(e, 0), cudaSuccess);
    cr_assert_eq(cudaEventSynchronize(e), cudaSuccess);
    hello(1);
    printf("c\n");
    cr_assert_eq(cudaMemcpyAsync(&h, d, sizeof h, cudaMemcpyDeviceToHost, s), cudaSuccess);
    printf("d\n");
    cr_assert_eq(cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost), cudaSuccess);
    hello(1);
    printf("e\n");
    hello(2); /* the launch flushes what the previous one printed */
    printf("f\n");
    cr_assert_eq(cudaDeviceReset(), cudaSuccess);
    printf("g\n");
    char *out = captured();
    cr_assert_str_eq(out, "a\nthread 0\nb\nthread 0\nc\nd\nthread 0\ne\nthread 0\nf\n"
                          "thread 0\nthread 1\ng\n");
    free(out);
}

Test(printf_flush, output_is_flushed_at_exit, .init = setup, .fini = teardown)
{
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        hello(2);
        printf("host before exit\n");
        exit(0);
    }
    int status = 0;
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    char *out = captured();
    cr_assert_str_eq(out, "host before exit\nthread 0\nthread 1\n");
    free(out);
}

Test(printf_flush, fifo_size_limit, .init = setup, .fini = teardown)
{
    size_t v = 0;
    cr_assert_eq(cudaDeviceSetLimit(cudaLimitPrintfFifoSize, 16), cudaSuccess);
    cr_assert_eq(cudaDeviceGetLimit(&v, cudaLimitPrintfFifoSize), cudaSuccess);
    cr_assert_eq(v, 16u);
    hello(3);
    cr_assert_eq(cudaDeviceSynchronize(), cudaSuccess);
    char *out = captured();
    cr_assert_str_eq(out, "thread 0\n", "whole records that fit in 16 bytes: %s", out);
    free(out);
}
