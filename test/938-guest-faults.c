/*
 * 938-guest-faults: bad accesses (out of bounds on every space, misaligned, freed, null,
 * below a local array), traps and asserts, bad launch configurations and bad allocations
 * (test/e2e/rel_faults.cu, one case per run). Under emu.memcheck = on each is reported
 * with CUDA's code at the call CUDA reports it (a guest fault at the synchronization,
 * sticky until reset; a bad configuration at cudaGetLastError, not sticky), and the host
 * program always runs on: after cudaDeviceReset a kernel runs and its result reads back.
 * Under the default (emu.memcheck = warn) the out-of-bounds accesses run as on a GPU and
 * are reported as warnings; misaligned accesses, traps and asserts still fault.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xtest.h"

typedef struct Case {
    const char *name;
    /* the codes cudaGetLastError (right after the launch) and cudaDeviceSynchronize return
     * under emu.memcheck = on; launches run to completion, so a fault is known to both */
    const char *last, *sync;
    /* under the default (warn): "0 cudaSuccess" for both where the access is let through
     * (and reported as a warning), NULL where it is as under on */
    const char *warn;
} Case;

#define OK0 "0 cudaSuccess"
static const Case cases[] = {
    {"oob_read", "700 cudaErrorIllegalAddress", "700 cudaErrorIllegalAddress", OK0},
    /* 1 GiB past the allocation, null: no page a GPU would have mapped, faults as under on */
    {"oob_read_far", "700 cudaErrorIllegalAddress", "700 cudaErrorIllegalAddress", NULL},
    {"oob_write", "700 cudaErrorIllegalAddress", "700 cudaErrorIllegalAddress", OK0},
    {"oob_write_neg", "700 cudaErrorIllegalAddress", "700 cudaErrorIllegalAddress", OK0},
    {"oob_shared", "700 cudaErrorIllegalAddress", "700 cudaErrorIllegalAddress", OK0},
    {"misal4", "716 cudaErrorMisalignedAddress", "716 cudaErrorMisalignedAddress", NULL},
    {"misal8", "716 cudaErrorMisalignedAddress", "716 cudaErrorMisalignedAddress", NULL},
    {"uaf", "700 cudaErrorIllegalAddress", "700 cudaErrorIllegalAddress", OK0},
    {"null", "700 cudaErrorIllegalAddress", "700 cudaErrorIllegalAddress", NULL},
    {"nullwrite", "700 cudaErrorIllegalAddress", "700 cudaErrorIllegalAddress", NULL},
    {"trap", "719 cudaErrorLaunchFailure", "719 cudaErrorLaunchFailure", NULL},
    {"assert", "719 cudaErrorLaunchFailure", "719 cudaErrorLaunchFailure", NULL},
    {"localoob", "700 cudaErrorIllegalAddress", "700 cudaErrorIllegalAddress", OK0},
    {"localoobw", "700 cudaErrorIllegalAddress", "700 cudaErrorIllegalAddress", OK0},
    {"bigstack", "700 cudaErrorIllegalAddress", "700 cudaErrorIllegalAddress", OK0},
    {"divzero", OK0, OK0, NULL},
    {"zerogrid", "9 cudaErrorInvalidConfiguration", OK0, NULL},
    {"zeroblock", "9 cudaErrorInvalidConfiguration", OK0, NULL},
    {"block1025", "9 cudaErrorInvalidConfiguration", OK0, NULL},
    {"blockz65", "9 cudaErrorInvalidConfiguration", OK0, NULL},
    {"hugegrid_y", "9 cudaErrorInvalidConfiguration", OK0, NULL},
    {"dynsh_big", "1 cudaErrorInvalidValue", OK0, NULL},
    {"dynsh_huge", "1 cudaErrorInvalidValue", OK0, NULL},
    {"dynsh_48k", OK0, OK0, NULL},
};

/* Runs case k with emu.memcheck = on (on) or the default, expecting last and sync. */
static void check(const char *exe, const Case *k, int on, const char *last, const char *sync)
{
    char *out = NULL, want[128], errf[512];
    snprintf(errf, sizeof errf, "%s", xt_tmp("stderr.txt"));
    int rc = xt_runf(&out, "XGPU_SET=%s %s %s 2>%s", on ? "emu.memcheck=on" : "", exe, k->name,
                     errf);
    const char *mode = on ? "emu.memcheck = on" : "the default";
    cr_assert_eq(rc, 0, "%s (%s) exited %d:\n%s", k->name, mode, rc, out);
    snprintf(want, sizeof want, "%-28s -> %s", "cudaGetLastError", last);
    cr_expect(strstr(out, want), "%s (%s): expected '%s' in:\n%s", k->name, mode, want, out);
    snprintf(want, sizeof want, "%-28s -> %s", "cudaDeviceSynchronize", sync);
    cr_expect(strstr(out, want), "%s (%s): expected '%s' in:\n%s", k->name, mode, want, out);
    snprintf(want, sizeof want, "%-28s -> 0 cudaSuccess", "sync post-reset");
    cr_expect(strstr(out, want), "%s: the device did not work after the reset:\n%s", k->name, out);
    cr_expect(strstr(out, "hh[31]=31 (expect 31)") && strstr(out, "host still running: end"),
              "%s: the program did not run on after the fault:\n%s", k->name, out);
    free(out);
    if (!on && k->warn) { /* let through, and said so on stderr */
        char *err = xt_read(errf, NULL);
        cr_expect(err && strstr(err, "========= Warning: Invalid ") &&
                      strstr(err, "emu.memcheck = on makes an invalid access an error"),
                  "%s: no warning on stderr:\n%s", k->name, err ? err : "");
        free(err);
    }
}

Test(guest_faults, every_case_reported_and_survived, .timeout = 300)
{
    char exe[512]; /* xt_tmp's buffers are reused */
    snprintf(exe, sizeof exe, "%s", xt_compile_e2e("rel_faults", "-g"));
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const Case *k = &cases[i];
        check(exe, k, 1, k->last, k->sync);
        if (k->warn || !strncmp(k->name, "misal", 5)) /* the others do not depend on it */
            check(exe, k, 0, k->warn ? k->warn : k->last, k->warn ? k->warn : k->sync);
    }
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
