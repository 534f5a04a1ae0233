/*
 * 938-guest-faults: bad accesses (out of bounds on every space, misaligned, freed, null,
 * below a local array), traps and asserts, bad launch configurations and bad allocations
 * (test/e2e/rel_faults.cu, one case per run). Each is reported with CUDA's code at the
 * call CUDA reports it (a guest fault at the synchronization, sticky until reset; a bad
 * configuration at cudaGetLastError, not sticky), and the host program always runs on:
 * after cudaDeviceReset a kernel runs and its result reads back.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xtest.h"

typedef struct Case {
    const char *name;
    /* the codes cudaGetLastError (right after the launch) and cudaDeviceSynchronize return;
     * launches run to completion, so a fault is known to both */
    const char *last, *sync;
} Case;

static const Case cases[] = {
    {"oob_read", "700 cudaErrorIllegalAddress", "700 cudaErrorIllegalAddress"},
    {"oob_read_far", "700 cudaErrorIllegalAddress", "700 cudaErrorIllegalAddress"},
    {"oob_write", "700 cudaErrorIllegalAddress", "700 cudaErrorIllegalAddress"},
    {"oob_write_neg", "700 cudaErrorIllegalAddress", "700 cudaErrorIllegalAddress"},
    {"oob_shared", "700 cudaErrorIllegalAddress", "700 cudaErrorIllegalAddress"},
    {"misal4", "716 cudaErrorMisalignedAddress", "716 cudaErrorMisalignedAddress"},
    {"misal8", "716 cudaErrorMisalignedAddress", "716 cudaErrorMisalignedAddress"},
    {"uaf", "700 cudaErrorIllegalAddress", "700 cudaErrorIllegalAddress"},
    {"null", "700 cudaErrorIllegalAddress", "700 cudaErrorIllegalAddress"},
    {"nullwrite", "700 cudaErrorIllegalAddress", "700 cudaErrorIllegalAddress"},
    {"trap", "719 cudaErrorLaunchFailure", "719 cudaErrorLaunchFailure"},
    {"assert", "719 cudaErrorLaunchFailure", "719 cudaErrorLaunchFailure"},
    {"localoob", "700 cudaErrorIllegalAddress", "700 cudaErrorIllegalAddress"},
    {"localoobw", "700 cudaErrorIllegalAddress", "700 cudaErrorIllegalAddress"},
    {"bigstack", "700 cudaErrorIllegalAddress", "700 cudaErrorIllegalAddress"},
    {"divzero", "0 cudaSuccess", "0 cudaSuccess"},
    {"zerogrid", "9 cudaErrorInvalidConfiguration", "0 cudaSuccess"},
    {"zeroblock", "9 cudaErrorInvalidConfiguration", "0 cudaSuccess"},
    {"block1025", "9 cudaErrorInvalidConfiguration", "0 cudaSuccess"},
    {"blockz65", "9 cudaErrorInvalidConfiguration", "0 cudaSuccess"},
    {"hugegrid_y", "9 cudaErrorInvalidConfiguration", "0 cudaSuccess"},
    {"dynsh_big", "1 cudaErrorInvalidValue", "0 cudaSuccess"},
    {"dynsh_huge", "1 cudaErrorInvalidValue", "0 cudaSuccess"},
    {"dynsh_48k", "0 cudaSuccess", "0 cudaSuccess"},
};

static void check(const char *exe, const Case *k)
{
    char *out = NULL, want[128];
    int rc = xt_runf(&out, "%s %s 2>/dev/null", exe, k->name);
    cr_assert_eq(rc, 0, "%s exited %d:\n%s", k->name, rc, out);
    snprintf(want, sizeof want, "%-28s -> %s", "cudaGetLastError", k->last);
    cr_expect(strstr(out, want), "%s: expected '%s' in:\n%s", k->name, want, out);
    snprintf(want, sizeof want, "%-28s -> %s", "cudaDeviceSynchronize", k->sync);
    cr_expect(strstr(out, want), "%s: expected '%s' in:\n%s", k->name, want, out);
    snprintf(want, sizeof want, "%-28s -> 0 cudaSuccess", "sync post-reset");
    cr_expect(strstr(out, want), "%s: the device did not work after the reset:\n%s", k->name, out);
    cr_expect(strstr(out, "hh[31]=31 (expect 31)") && strstr(out, "host still running: end"),
              "%s: the program did not run on after the fault:\n%s", k->name, out);
    free(out);
}

Test(guest_faults, every_case_reported_and_survived, .timeout = 300)
{
    const char *exe = xt_compile_e2e("rel_faults", "-g");
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        check(exe, &cases[i]);
}

Test(guest_faults, bad_frees_and_allocations)
{
    const char *exe = xt_compile_e2e("rel_faults", "-O2");
    char *out = NULL;
    int rc = xt_runf(&out, "%s doublefree 2>/dev/null; %s malloc1tb 2>/dev/null", exe, exe);
    cr_assert_eq(rc, 0, "%s", out);
    const char *want[] = {"cudaFree 1                   -> 0 cudaSuccess",
                          "cudaFree 2                   -> 1 cudaErrorInvalidValue",
                          "cudaFree(d+1)                -> 1 cudaErrorInvalidValue",
                          "cudaFree(host ptr)           -> 1 cudaErrorInvalidValue",
                          "cudaMalloc 1TB               -> 2 cudaErrorMemoryAllocation",
                          "cudaMalloc SIZE_MAX          -> 2 cudaErrorMemoryAllocation",
                          "cudaMalloc(NULL,16)          -> 1 cudaErrorInvalidValue",
                          "p=(nil)"};
    for (size_t i = 0; i < sizeof want / sizeof *want; i++)
        cr_expect(strstr(out, want[i]), "expected '%s' in:\n%s", want[i], out);
    free(out);
}
