/*
 * 720-symbols: __device__ and __constant__ variables through their host shadows.
 * __cudaRegisterVar maps a host shadow's address to a module global; the symbol calls
 * find the global by that address. The globals have initializers, which must be what the
 * device holds before any copy; a kernel reads them with gaddr.
 */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "xgpu/cuda/cuda_runtime_api.h"
#include "xgpu/gpubin.h"
#include "xtest.h"

/* counter = 5; table = {10, 20, 30, 40} (constant); out[0] = counter + table[2]. */
static const char module_src[] =
    ".global counter 4 4 = 5 0 0 0\n"
    ".global table 16 4 const = 10 0 0 0 20 0 0 0 30 0 0 0 40 0 0 0\n"
    ".kernel readsyms\n"
    ".param 8\n"
    "    gaddr r0, counter\n"
    "    ld.global.s32 r2, [r0]\n"
    "    gaddr r4, table+8\n"
    "    ld.global.s32 r3, [r4]\n"
    "    add.s32 r2, r2, r3\n"
    "    ld.param.u64 r6, [0]\n"
    "    st.global.s32 [r6], r2\n"
    "    exit\n";

/* The host shadows clang would emit for the variables. */
static int counter;
static int table[4];
static int unregistered;
static void stub_readsyms(void) {}
static XtFatWrapper wrapper;

static void setup(void)
{
    wrapper = (XtFatWrapper){0x466243b1, 1, xt_fat_from_asm(module_src), NULL};
    void **h = __cudaRegisterFatBinary(&wrapper);
    __cudaRegisterFunction(h, (const void *)stub_readsyms, "readsyms", "readsyms", -1, NULL,
                           NULL, NULL, NULL, NULL);
    __cudaRegisterVar(h, (char *)&counter, "counter", "counter", 0, sizeof counter, 0, 0);
    __cudaRegisterVar(h, (char *)table, "table", "table", 0, sizeof table, 1, 0);
    __cudaRegisterFatBinaryEnd(h);
}

static int run_readsyms(void)
{
    int *out, result = -1;
    cr_assert_eq(cudaMalloc((void **)&out, sizeof(int)), cudaSuccess);
    void *args[] = {&out};
    cr_assert_eq(cudaLaunchKernel((const void *)stub_readsyms, (dim3){1, 1, 1}, (dim3){1, 1, 1},
                                  args, 0, NULL),
                 cudaSuccess);
    cr_assert_eq(cudaMemcpy(&result, out, sizeof result, cudaMemcpyDeviceToHost), cudaSuccess);
    cudaFree(out);
    return result;
}

TestSuite(symbols, .init = setup);

Test(symbols, initializers_are_on_the_device)
{
    int v = 0, t[4] = {0};
    cr_assert_eq(cudaMemcpyFromSymbol(&v, &counter, sizeof v, 0, cudaMemcpyDeviceToHost),
                 cudaSuccess);
    cr_assert_eq(v, 5);
    cr_assert_eq(cudaMemcpyFromSymbol(t, table, sizeof t, 0, cudaMemcpyDeviceToHost), cudaSuccess);
    cr_assert(t[0] == 10 && t[1] == 20 && t[2] == 30 && t[3] == 40);
    cr_assert_eq(run_readsyms(), 5 + 30);
}

Test(symbols, copy_to_symbol_reaches_the_kernel)
{
    int v = 42, three = 7;
    cr_assert_eq(cudaMemcpyToSymbol(&counter, &v, sizeof v, 0, cudaMemcpyHostToDevice),
                 cudaSuccess);
    cr_assert_eq(cudaMemcpyToSymbol(table, &three, sizeof three, 2 * sizeof(int),
                                    cudaMemcpyHostToDevice),
                 cudaSuccess);
    cr_assert_eq(run_readsyms(), 42 + 7);
    int t[4];
    cr_assert_eq(cudaMemcpyFromSymbol(t, table, sizeof t, 0, cudaMemcpyDefault), cudaSuccess);
    cr_assert(t[0] == 10 && t[1] == 20 && t[2] == 7 && t[3] == 40);
    cr_assert_eq(counter, 0, "the host shadow itself is untouched");
}

Test(symbols, symbol_address_and_size)
{
    void *addr = NULL;
    size_t size = 0;
    cr_assert_eq(cudaGetSymbolAddress(&addr, table), cudaSuccess);
    cr_assert_geq((uint64_t)(uintptr_t)addr, XGPU_GLOBAL_BASE);
    cr_assert_eq(cudaGetSymbolSize(&size, table), cudaSuccess);
    cr_assert_eq(size, sizeof table);
    int t[4];
    cr_assert_eq(cudaMemcpy(t, addr, sizeof t, cudaMemcpyDeviceToHost), cudaSuccess);
    cr_assert_eq(t[3], 40);
    int v = 99;
    cr_assert_eq(cudaMemcpy(addr, &v, sizeof v, cudaMemcpyDefault), cudaSuccess);
    cr_assert_eq(cudaMemcpyFromSymbol(t, table, sizeof t, 0, cudaMemcpyDeviceToHost), cudaSuccess);
    cr_assert_eq(t[0], 99);
    /* device-to-device into a symbol */
    void *counter_addr;
    cr_assert_eq(cudaGetSymbolAddress(&counter_addr, &counter), cudaSuccess);
    cr_assert_eq(cudaMemcpyToSymbol(&counter, addr, sizeof(int), 0, cudaMemcpyDeviceToDevice),
                 cudaSuccess);
    cr_assert_eq(run_readsyms(), 99 + 30);
}

Test(symbols, errors)
{
    int v[8] = {0};
    cr_assert_eq(cudaMemcpyToSymbol(&unregistered, v, sizeof(int), 0, cudaMemcpyHostToDevice),
                 cudaErrorInvalidSymbol);
    cr_assert_eq(cudaGetLastError(), cudaErrorInvalidSymbol);
    void *addr;
    cr_assert_eq(cudaGetSymbolAddress(&addr, &unregistered), cudaErrorInvalidSymbol);
    cr_assert_eq(cudaMemcpyToSymbol(table, v, sizeof v, 0, cudaMemcpyHostToDevice),
                 cudaErrorInvalidValue, "past the symbol's end");
    cr_assert_eq(cudaMemcpyToSymbol(table, v, 4, 16, cudaMemcpyHostToDevice),
                 cudaErrorInvalidValue);
    cr_assert_eq(cudaMemcpyToSymbol(table, v, 4, 0, cudaMemcpyDeviceToHost),
                 cudaErrorInvalidMemcpyDirection);
    cr_assert_eq(cudaMemcpyFromSymbol(v, table, 4, 0, cudaMemcpyHostToDevice),
                 cudaErrorInvalidMemcpyDirection);
    cr_assert_eq(cudaGetLastError(), cudaErrorInvalidMemcpyDirection);
    cr_assert_eq(cudaGetLastError(), cudaSuccess);
    int t = 0;
    cr_assert_eq(cudaMemcpyFromSymbol(&t, table, 4, 12, cudaMemcpyDeviceToHost), cudaSuccess);
    cr_assert_eq(t, 40);
}
