/*
 * 710-errors: CUDA's error semantics in libxgpurt. A guest fault (out-of-bounds load) is
 * reported on stderr in compute-sanitizer style and is sticky: every later device call
 * and cudaGetLastError return it until cudaDeviceReset. Call errors (invalid value,
 * bad configuration, bad copy kind, bad free, bad device) are returned once by
 * cudaGetLastError and then cleared. Every defined code has a name and a string.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "xgpu/cuda/cuda_runtime_api.h"
#include "xgpu/gpubin.h"
#include "xtest.h"

/* out[i] = in[i] for i < n, no bounds check beyond n. */
static const char copy_src[] =
    ".kernel copy\n"
    ".param 8\n.param 8\n.param 4\n"
    "    s2r r0, %ctaid.x\n"
    "    s2r r1, %ntid.x\n"
    "    s2r r2, %tid.x\n"
    "    mul.u32 r3, r0, r1\n"
    "    add.u32 r3, r3, r2\n"
    "    ld.param.s32 r4, [16]\n"
    "    set.ge.s32 r5, r3, r4\n"
    "    brc r5, done, done\n"
    "    ld.param.u64 r6, [0]\n"
    "    ld.param.u64 r8, [8]\n"
    "    shl.u32 r10, r3, 2\n"
    "    cvt.u64.u32 r12, r10\n"
    "    add.u64 r6, r6, r12\n"
    "    add.u64 r8, r8, r12\n"
    "    ld.global.u32 r14, [r6]\n"
    "    st.global.u32 [r8], r14\n"
    "done:\n"
    "    exit\n";

static void stub_copy(void) {}
static XtFatWrapper wrapper;

static void setup(void)
{
    setenv("XGPU_SET", "emu.memcheck=on", 1); /* invalid accesses are faults */
    wrapper = (XtFatWrapper){0x466243b1, 1, xt_fat_from_asm(copy_src), NULL};
    void **h = __cudaRegisterFatBinary(&wrapper);
    __cudaRegisterFunction(h, (const void *)stub_copy, "copy", "copy", -1, NULL, NULL, NULL,
                           NULL, NULL);
    __cudaRegisterFatBinaryEnd(h);
}

static cudaError_t launch_copy(dim3 grid, dim3 block, void *in, void *out, int n)
{
    void *args[] = {&in, &out, &n};
    return cudaLaunchKernel((const void *)stub_copy, grid, block, args, 0, NULL);
}

/* Sends stderr to a file; returns its path for read_captured(). */
static char capture_path[] = XGPU_BUILD_DIR "/test-710-stderr-XXXXXX";

static void capture_stderr(void)
{
    int fd = mkstemp(capture_path);
    cr_assert_geq(fd, 0);
    fflush(stderr);
    cr_assert_geq(dup2(fd, 2), 0);
    close(fd);
}

static char *read_captured(void)
{
    fflush(stderr);
    FILE *f = fopen(capture_path, "r");
    cr_assert_not_null(f);
    static char buf[8192];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = 0;
    fclose(f);
    remove(capture_path);
    return buf;
}

Test(errors, out_of_bounds_fault_is_sticky_until_reset, .init = setup)
{
    int *in, *out;
    cr_assert_eq(cudaMalloc((void **)&in, 16 * sizeof(int)), cudaSuccess);
    cr_assert_eq(cudaMalloc((void **)&out, 4096 * sizeof(int)), cudaSuccess);
    capture_stderr();
    cudaError_t e = launch_copy((dim3){16, 1, 1}, (dim3){256, 1, 1}, in, out, 4096);
    char *log = read_captured();
    cr_assert_eq(e, cudaErrorIllegalAddress, "%s", cudaGetErrorName(e));
    cr_assert_not_null(strstr(log, "========= Invalid __global__ read"), "%s", log);
    cr_assert_not_null(strstr(log, "=========     at copy+pc "), "%s", log);
    cr_assert_not_null(strstr(log, "=========     by thread ("), "%s", log);
    cr_assert_not_null(strstr(log, "=========     Address 0x"), "%s", log);

    cr_assert_eq(cudaGetLastError(), cudaErrorIllegalAddress);
    cr_assert_eq(cudaGetLastError(), cudaErrorIllegalAddress, "sticky: not cleared");
    cr_assert_eq(cudaPeekAtLastError(), cudaErrorIllegalAddress);
    cr_assert_eq(cudaDeviceSynchronize(), cudaErrorIllegalAddress);
    void *p;
    cr_assert_eq(cudaMalloc(&p, 64), cudaErrorIllegalAddress);
    int host[4];
    cr_assert_eq(cudaMemcpy(host, in, sizeof host, cudaMemcpyDeviceToHost),
                 cudaErrorIllegalAddress);
    cr_assert_eq(launch_copy((dim3){1, 1, 1}, (dim3){4, 1, 1}, in, out, 4),
                 cudaErrorIllegalAddress);

    cr_assert_eq(cudaDeviceReset(), cudaSuccess);
    cr_assert_eq(cudaGetLastError(), cudaSuccess);
    cr_assert_eq(cudaMalloc((void **)&in, 16), cudaSuccess);
    cr_assert_eq(cudaMalloc((void **)&out, 16), cudaSuccess);
    cr_assert_eq(launch_copy((dim3){1, 1, 1}, (dim3){4, 1, 1}, in, out, 4), cudaSuccess,
                 "the module is reloaded on the fresh device");
}

Test(errors, invalid_value_is_not_sticky)
{
    cr_assert_eq(cudaMalloc(NULL, 16), cudaErrorInvalidValue);
    cr_assert_eq(cudaPeekAtLastError(), cudaErrorInvalidValue);
    cr_assert_eq(cudaGetLastError(), cudaErrorInvalidValue);
    cr_assert_eq(cudaGetLastError(), cudaSuccess);
    void *p;
    cr_assert_eq(cudaMalloc(&p, 16), cudaSuccess);
    cr_assert_eq(cudaDeviceSynchronize(), cudaSuccess);
}

Test(errors, bad_launch_configuration_is_not_sticky, .init = setup)
{
    int *in, *out;
    cr_assert_eq(cudaMalloc((void **)&in, 64 * sizeof(int)), cudaSuccess);
    cr_assert_eq(cudaMalloc((void **)&out, 64 * sizeof(int)), cudaSuccess);
    cr_assert_eq(launch_copy((dim3){1, 1, 1}, (dim3){0, 1, 1}, in, out, 64),
                 cudaErrorInvalidConfiguration);
    cr_assert_eq(launch_copy((dim3){0, 1, 1}, (dim3){32, 1, 1}, in, out, 64),
                 cudaErrorInvalidConfiguration);
    cr_assert_eq(launch_copy((dim3){1, 1, 1}, (dim3){4096, 1, 1}, in, out, 64),
                 cudaErrorInvalidConfiguration);
    cr_assert_eq(cudaGetLastError(), cudaErrorInvalidConfiguration);
    cr_assert_eq(cudaGetLastError(), cudaSuccess);
    cr_assert_eq(launch_copy((dim3){2, 1, 1}, (dim3){32, 1, 1}, in, out, 64), cudaSuccess);
    cr_assert_eq(cudaDeviceSynchronize(), cudaSuccess);
}

Test(errors, every_code_has_a_name_and_a_string)
{
    static const struct {
        cudaError_t code;
        const char *name;
    } codes[] = {
#define XCUDA_ERROR(name, value, text) {name, #name},
#include "xgpu/cuda/cuda_error_list.h"
    };
    size_t n = sizeof codes / sizeof codes[0];
    cr_assert_gt(n, 30u);
    for (size_t i = 0; i < n; i++) {
        const char *s = cudaGetErrorString(codes[i].code);
        cr_assert_not_null(s);
        cr_assert_str_neq(s, "unrecognized error code", "%s", codes[i].name);
        cr_assert_str_eq(cudaGetErrorName(codes[i].code), codes[i].name);
    }
    cr_assert_str_eq(cudaGetErrorString(cudaSuccess), "no error");
    cr_assert_str_eq(cudaGetErrorString(cudaErrorIllegalAddress),
                     "an illegal memory access was encountered");
    cr_assert_str_eq(cudaGetErrorString((cudaError_t)12345), "unrecognized error code");
    cr_assert_eq((int)cudaErrorLaunchFailure, 719);
    cr_assert_eq((int)cudaErrorInvalidDeviceFunction, 98);
    cr_assert_eq((int)cudaErrorNotSupported, 801);
}

Test(errors, device_selection)
{
    int n = 0, d = -1;
    cr_assert_eq(cudaGetDeviceCount(&n), cudaSuccess);
    cr_assert_eq(n, 1);
    cr_assert_eq(cudaSetDevice(1), cudaErrorInvalidDevice);
    cr_assert_eq(cudaGetLastError(), cudaErrorInvalidDevice);
    cr_assert_eq(cudaSetDevice(0), cudaSuccess);
    cr_assert_eq(cudaGetDevice(&d), cudaSuccess);
    cr_assert_eq(d, 0);
    struct cudaDeviceProp prop;
    cr_assert_eq(cudaGetDeviceProperties(&prop, 1), cudaErrorInvalidDevice);
    cr_assert_eq(cudaGetDeviceProperties(&prop, 0), cudaSuccess);
    cr_assert_eq(prop.warpSize, 32);
    cr_assert_gt(prop.multiProcessorCount, 0);
    cr_assert_gt(prop.maxThreadsPerBlock, 0);
    cr_assert_gt(prop.totalGlobalMem, 0u);
    cr_assert_neq(prop.name[0], '\0');
    int v = 0;
    cr_assert_eq(cudaRuntimeGetVersion(&v), cudaSuccess);
    cr_assert_eq(v, 12000);
    cr_assert_eq(cudaDriverGetVersion(&v), cudaSuccess);
    cr_assert_geq(v, 12000);
}

Test(errors, bad_memcpy_kind)
{
    int h[4] = {0};
    void *d;
    cr_assert_eq(cudaMalloc(&d, sizeof h), cudaSuccess);
    cr_assert_eq(cudaMemcpy(d, h, sizeof h, (enum cudaMemcpyKind)7),
                 cudaErrorInvalidMemcpyDirection);
    cr_assert_eq(cudaGetLastError(), cudaErrorInvalidMemcpyDirection);
    cr_assert_eq(cudaGetLastError(), cudaSuccess);
    cr_assert_eq(cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice), cudaSuccess);
}

Test(errors, copy_past_an_allocation)
{
    int h[64] = {0};
    void *d;
    cr_assert_eq(cudaMalloc(&d, 16), cudaSuccess);
    cr_assert_eq(cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice), cudaErrorInvalidValue);
    cr_assert_eq(cudaGetLastError(), cudaErrorInvalidValue);
    cr_assert_eq(cudaMemcpy(h, d, 16, cudaMemcpyDeviceToHost), cudaSuccess, "not sticky");
}

Test(errors, free_of_a_pointer_never_allocated)
{
    void *d;
    cr_assert_eq(cudaFree(NULL), cudaSuccess);
    cr_assert_eq(cudaMalloc(&d, 64), cudaSuccess);
    cr_assert_eq(cudaFree((char *)d + 8), cudaErrorInvalidValue);
    cr_assert_eq(cudaGetLastError(), cudaErrorInvalidValue);
    cr_assert_eq(cudaFree(d), cudaSuccess);
    cr_assert_eq(cudaFree(d), cudaErrorInvalidValue, "double free");
    int local;
    cr_assert_eq(cudaFree(&local), cudaErrorInvalidValue);
}

Test(errors, unsupported_call)
{
    capture_stderr();
    void *p, *host = malloc(64);
    cr_assert_eq(cudaHostGetDevicePointer(&p, host, 0), cudaErrorNotSupported);
    free(host);
    char *log = read_captured();
    cr_assert_not_null(strstr(log, "cudaHostGetDevicePointer"), "%s", log);
    cr_assert_eq(cudaGetLastError(), cudaErrorNotSupported);
}

Test(errors, streams_and_events)
{
    cudaStream_t s;
    cudaEvent_t a, b;
    cr_assert_eq(cudaStreamCreate(&s), cudaSuccess);
    cr_assert_eq(cudaEventCreate(&a), cudaSuccess);
    cr_assert_eq(cudaEventCreate(&b), cudaSuccess);
    float ms = -1;
    cr_assert_eq(cudaEventElapsedTime(&ms, a, b), cudaErrorInvalidResourceHandle);
    cr_assert_eq(cudaEventRecord(a, s), cudaSuccess);
    cr_assert_eq(cudaStreamSynchronize(s), cudaSuccess);
    cr_assert_eq(cudaEventRecord(b, 0), cudaSuccess);
    cr_assert_eq(cudaEventSynchronize(b), cudaSuccess);
    cr_assert_eq(cudaEventElapsedTime(&ms, a, b), cudaSuccess);
    cr_assert_geq(ms, 0.0f);
    cr_assert_eq(cudaEventDestroy(a), cudaSuccess);
    cr_assert_eq(cudaEventDestroy(b), cudaSuccess);
    cr_assert_eq(cudaStreamDestroy(s), cudaSuccess);
}
