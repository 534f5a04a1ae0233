/*
 * 941-unified-memory-timing: the page-migration cost of managed memory in timing mode
 * (docs/unified-memory.md), end to end through the runtime. test/e2e/um_migration.cu
 * runs four kernels; the statistics must show: host-written pages migrating with their
 * bytes on the first launch and untouched ones populated without a copy; nothing on a
 * relaunch the host did not write in between; nothing after cudaMemPrefetchAsync to the
 * device; x migrating again after a prefetch to the host. um.migration = 0 turns the cost
 * off (fewer cycles, no fault counted) and idle skipping stays exact.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>

#include "xtest.h"

enum { NL = 4 };

typedef struct UmLaunch {
    unsigned long long cycles, faults, pages, bytes, waits;
} UmLaunch;

static void run(const char *set, const char *json, UmLaunch *l)
{
    XT_SKIP_UNDER_ASAN();
    const char *exe = xt_compile_e2e("um_migration", "-O2");
    char *out = NULL;
    int rc = xt_runf(&out,
                     "XGPU_SET='%s' XGPU_STATS=%s %s >/dev/null 2>&1 && python3 -c \""
                     "import json,sys\n"
                     "for l in json.load(open(sys.argv[1]))['launches']:\n"
                     "  t=l['timing']; print(l['cycles'], t['um.faults'], t['um.migrated_pages'],"
                     " t['um.migrated_bytes'], t['um.fault_waits'])\" %s",
                     set, json, exe, json);
    cr_assert_eq(rc, 0, "%s", out);
    const char *p = out;
    for (int i = 0; i < NL; i++) {
        int used = 0;
        cr_assert_eq(sscanf(p, "%llu %llu %llu %llu %llu%n", &l[i].cycles, &l[i].faults,
                            &l[i].pages, &l[i].bytes, &l[i].waits, &used), 5, "%s", out);
        p += used;
    }
    free(out);
}

Test(unified_memory_timing, faults_follow_residency)
{
    UmLaunch l[NL];
    run("um.page_bytes=65536", xt_tmp("um.json"), l);
    /* 1: x (4 pages of 64 KB, host-written) migrates; out faults without a copy */
    cr_expect_gt(l[0].faults, l[0].pages);
    cr_expect_geq(l[0].pages, 4);
    cr_expect_eq(l[0].bytes, l[0].pages * 65536);
    cr_expect_gt(l[0].waits, 0);
    /* 2, 3: resident (3 after a host write and a prefetch to the device) */
    for (int i = 1; i <= 2; i++) {
        cr_expect_eq(l[i].faults, 0, "launch %d faulted", i + 1);
        cr_expect_eq(l[i].waits, 0);
    }
    /* 4: prefetched to the host, x comes back with its bytes; out stays */
    cr_expect_eq(l[3].faults, l[3].pages);
    cr_expect_geq(l[3].pages, 4);
    cr_expect_gt(l[0].cycles, l[1].cycles);
    cr_expect_gt(l[3].cycles, l[2].cycles);
}

Test(unified_memory_timing, cost_is_the_configured_one)
{
    UmLaunch a[NL], b[NL], off[NL];
    run("um.fault_cycles=1000;um.bytes_per_cycle=64", xt_tmp("a.json"), a);
    run("um.fault_cycles=5000;um.bytes_per_cycle=64", xt_tmp("b.json"), b);
    run("um.migration=0", xt_tmp("off.json"), off);
    /* faults are served one after another: 4000 more cycles each */
    cr_expect_eq(a[0].faults, b[0].faults);
    cr_expect_eq(b[0].cycles - a[0].cycles, 4000 * a[0].faults);
    for (int i = 0; i < NL; i++) {
        cr_expect_eq(off[i].faults + off[i].pages + off[i].waits, 0);
        cr_expect_leq(off[i].cycles, a[i].cycles);
    }
    cr_expect_eq(off[1].cycles, a[1].cycles, "a launch without faults changed");
}

Test(unified_memory_timing, idle_skipping_stays_exact)
{
    UmLaunch a[NL], b[NL];
    run("emu.skip_idle=1", xt_tmp("skip.json"), a);
    run("emu.skip_idle=0", xt_tmp("noskip.json"), b);
    for (int i = 0; i < NL; i++) {
        cr_expect_eq(a[i].cycles, b[i].cycles, "launch %d", i + 1);
        cr_expect_eq(a[i].faults, b[i].faults);
    }
}

Test(unified_memory_timing, results_in_both_modes)
{
    XT_SKIP_UNDER_ASAN();
    xt_expect_pass_both_modes("um_migration", "-O2");
}
