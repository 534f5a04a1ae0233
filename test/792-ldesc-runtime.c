/*
 * 792-ldesc-runtime: the runtime's Locality Descriptor records driven directly. A kernel
 * assembled from text is registered as clang's host code would register it, descriptor
 * tables written with the shared writer are registered like a program's xgpu_ldesc
 * section, and records are passed to __xgpu_ldesc with their run-time parts. Checks that
 * each launch records the descriptors in force for its kernel, that re-specifying one
 * call site replaces its descriptor while other sites accumulate, that other kernels and
 * cudaDeviceReset are handled, and that bad run-time parts are rejected with an error.
 */
#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <stdlib.h>
#include <string.h>

#include "xgpu/cuda/cuda_runtime_api.h"
#include "xgpu/hostsec.h"
#include "xgpu/ldesc.h"
#include "xtest.h"

static const char kernels_src[] =
    ".kernel touch\n"
    ".param 8\n"
    "    exit\n"
    ".kernel other\n"
    ".param 8\n"
    "    exit\n";

static void stub_touch(void) {}
static void stub_other(void) {}

static uint8_t *table;

/* Registers the module and a descriptor table: site 0 names "touch" statically and is
 * REGULAR, site 1 names no kernel and is IRREGULAR. */
static void setup(void)
{
    static XtFatWrapper w;
    w = (XtFatWrapper){XT_FAT_MAGIC, 1, xt_fat_from_asm(kernels_src), NULL};
    void **h = __cudaRegisterFatBinary(&w);
    __cudaRegisterFunction(h, (const void *)stub_touch, "touch", "touch", -1, NULL, NULL, NULL,
                           NULL, NULL);
    __cudaRegisterFunction(h, (const void *)stub_other, "other", "other", -1, NULL, NULL, NULL,
                           NULL, NULL);
    __cudaRegisterFatBinaryEnd(h);
    XHostLDesc d[2] = {
        {.s = {XLD_INTER_THREAD, XLD_COACCESSED, XLD_REGULAR, {1, 0, 0}, 2, 4},
         .kernel = "touch", .file = "histo.cu", .line = 30, .column = 5},
        {.s = {XLD_NO_REUSE, XLD_SHARING_NONE, XLD_IRREGULAR, {1, 2, 3}, 1, 8},
         .kernel = "", .file = "histo.cu", .line = 40, .column = 9},
    };
    size_t len;
    cr_assert_eq(xhost_ldesc_write(d, 2, &table, &len), 0);
    __xgpu_register_host(NULL, NULL, table, table + len);
}

static const void *site(int i) { return table + XHOST_HEADER + i * XHOST_LDESC_REC; }

static void launch(void (*stub)(void), void *arg)
{
    void *args[] = {&arg};
    cr_assert_eq(cudaLaunchKernel((const void *)stub, (dim3){1, 1, 1}, (dim3){32, 1, 1}, args,
                                  0, NULL), cudaSuccess);
}

Test(ldesc, launches_record_the_descriptors_in_force, .init = setup)
{
    cr_assert_eq(xgpuLDescCount(), 2);
    void *buf;
    cr_assert_eq(cudaMalloc(&buf, 4096), cudaSuccess);
    XLDTile tile = {{64, 16, 1}, {1, 4, 1}};
    cr_assert_eq(__xgpu_ldesc(site(0), (const void *)stub_touch, buf, 4096, &tile, 64),
                 cudaSuccess);
    XLDescInfo d[4];
    uint64_t no;
    cr_assert_eq(xgpuLDescLastLaunch((const void *)stub_touch, d, 4, &no), 0);
    launch(stub_touch, buf);
    cr_assert_eq(xgpuLDescLastLaunch((const void *)stub_touch, d, 4, &no), 1);
    cr_assert_eq(no, 1);
    cr_assert_eq(d[0].s.locality, XLD_INTER_THREAD);
    cr_assert_eq(d[0].s.map[0], 1);
    cr_assert_eq(d[0].base, (uint64_t)(uintptr_t)buf);
    cr_assert_eq(d[0].bytes, 4096);
    cr_assert_eq(d[0].tile.dtile[0], 64);
    cr_assert_eq(d[0].tile.ctile[1], 4);
    cr_assert_eq(d[0].stride, 64);
    cr_assert_str_eq(d[0].kernel_name, "touch");
    cr_assert_str_eq(d[0].file, "histo.cu");
    cr_assert_eq(d[0].line, 30);
    cr_assert_eq(d[0].site, 0);

    /* the descriptor stays in force; re-specifying the site replaces it */
    launch(stub_touch, buf);
    cr_assert_eq(xgpuLDescLastLaunch((const void *)stub_touch, d, 4, &no), 1);
    cr_assert_eq(no, 2);
    tile.ctile[1] = 8;
    cr_assert_eq(__xgpu_ldesc(site(0), (const void *)stub_touch, buf, 2048, &tile, 32),
                 cudaSuccess);
    cr_assert_eq(__xgpu_ldesc(site(1), (const void *)stub_touch, buf, 512, &tile, 0),
                 cudaSuccess);
    launch(stub_other, buf); /* launch 3: another kernel, no descriptors */
    cr_assert_eq(xgpuLDescLastLaunch((const void *)stub_other, d, 4, &no), 0);
    launch(stub_touch, buf);
    cr_assert_eq(xgpuLDescLastLaunch((const void *)stub_touch, d, 4, &no), 2);
    cr_assert_eq(no, 4);
    cr_assert_eq(d[0].bytes, 2048);
    cr_assert_eq(d[0].tile.ctile[1], 8);
    cr_assert_eq(d[0].stride, 32);
    cr_assert_eq(d[1].site, 1);
    cr_assert_eq(d[1].s.locality, XLD_NO_REUSE);
    cr_assert_str_eq(d[1].kernel_name, "");
    /* max limits the copy, not the count */
    cr_assert_eq(xgpuLDescLastLaunch((const void *)stub_touch, d, 1, NULL), 2);

    cr_assert_eq(cudaDeviceReset(), cudaSuccess);
    cr_assert_eq(xgpuLDescLastLaunch((const void *)stub_touch, d, 4, &no), 0);
}

Test(ldesc, bad_run_time_parts_are_rejected, .init = setup)
{
    cr_redirect_stderr();
    void *buf;
    int host;
    cr_assert_eq(cudaMalloc(&buf, 256), cudaSuccess);
    XLDTile tile = {{64, 1, 1}, {1, 1, 1}}, flat = {{64, 0, 1}, {1, 1, 1}};
    const void *touch = (const void *)stub_touch;
    cr_assert_eq(__xgpu_ldesc(site(0), (const void *)setup, buf, 256, &tile, 4),
                 cudaErrorInvalidDeviceFunction);
    cr_assert_eq(__xgpu_ldesc(site(0), (const void *)stub_other, buf, 256, &tile, 4),
                 cudaErrorInvalidValue); /* the table names "touch" */
    cr_assert_eq(__xgpu_ldesc(site(0), touch, &host, 4, &tile, 4), cudaErrorInvalidValue);
    cr_assert_eq(__xgpu_ldesc(site(0), touch, buf, 0, &tile, 4), cudaErrorInvalidValue);
    cr_assert_eq(__xgpu_ldesc(site(0), touch, buf, 256, &flat, 4), cudaErrorInvalidValue);
    cr_assert_eq(__xgpu_ldesc(site(0), touch, buf, 256, NULL, 4), cudaErrorInvalidValue);
    cr_assert_eq(__xgpu_ldesc(site(0), touch, buf, 256, &tile, 0), cudaErrorInvalidValue);
    cr_assert_eq(__xgpu_ldesc(table, touch, buf, 256, &tile, 4), cudaErrorInvalidValue);
    cr_assert_eq(xgpuLDescLastLaunch((const void *)setup, NULL, 0, NULL), -1);
    launch(stub_touch, buf);
    cr_assert_eq(xgpuLDescLastLaunch(touch, NULL, 0, NULL), 0);
    fflush(stderr);
    cr_assert_stderr_neq_str("");
}

Test(ldesc, site_not_in_a_table_is_named, .init = cr_redirect_stderr)
{
    static const XLDSite s = {XLD_SITE_MAGIC, {XLD_INTER_THREAD, 0, 0, {1, 0, 0}, 0, 4},
                              "plain.cu", 12, 3};
    XLDTile tile = {{1, 1, 1}, {1, 1, 1}};
    cr_assert_eq(__xgpu_ldesc(&s, NULL, NULL, 0, &tile, 0), cudaErrorInvalidValue);
    fflush(stderr);
    cr_assert_stderr_eq_str("xgpu: plain.cu:12: LocalityDescriptor: the call site is in no "
                            "descriptor table (compile the file with xgpu-cc)\n");
}
