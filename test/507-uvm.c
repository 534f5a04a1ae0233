/*
 * 507-uvm.c - managed pages through the LD/ST unit (emulator/uvm.c): the first touch of
 * a page costs um.fault_cycles (NEW) plus um.page_bytes / um.bytes_per_cycle (HOST),
 * faults are served one at a time, an access to a page being migrated waits for it, a
 * resident or prefetched page costs nothing, and addresses outside managed ranges are
 * never held back (the same accesses without managed pages take as long).
 */
#include "500-mem-util.h"
#include "uvm.h"

#define CFG T_SAME_CLOCKS ";um.fault_cycles=1000;um.bytes_per_cycle=16;um.page_bytes=4096"
#define BASE 0x1000000000ull

typedef struct TUvm {
    TMem t;
    EmuUvm uvm;
} TUvm;

static void open_uvm(TUvm *u, uint64_t bytes)
{
    EmuConfig c = t_cfg(CFG);
    uvm_init(&u->uvm, &c);
    cr_assert_eq(uvm_add(&u->uvm, BASE, bytes), EMU_OK);
    uvm_begin(&u->uvm);
    t_mem_open_uvm(&u->t, CFG, &u->uvm);
}

static void close_uvm(TUvm *u)
{
    t_mem_close(&u->t);
    uvm_fini(&u->uvm);
}

static TmAccess line(uint64_t addr)
{
    return t_acc(TM_GLOBAL, TM_READ, 4, addr, 4);
}

Test(uvm, new_page_costs_a_fault_host_page_also_the_copy)
{
    TUvm u;
    open_uvm(&u, 8192);
    cr_assert_eq(uvm_mark_host(&u.uvm, BASE + 4096, 4096), EMU_OK);
    TmAccess a = line(BASE), b = line(BASE + 4096);
    cr_expect_eq(t_latency(&u.t, 0, &a, 1), 1000, "NEW: the fault, the miss hidden under it");
    Cycle c = t_latency(&u.t, 0, &b, 2);
    cr_expect_eq(c, 1000 + 4096 / 16);
    cr_expect_eq(u.t.ctr.um_faults, 2);
    cr_expect_eq(u.t.ctr.um_migrated_pages, 1);
    cr_expect_eq(u.t.ctr.um_migrated_bytes, 4096);
    cr_expect_eq(u.t.ctr.um_fault_waits, 2);
    /* resident now: a hit costs the hit latency */
    cr_expect_eq(t_latency(&u.t, 0, &a, 3), u.t.cfg.l1_hit_latency);
    cr_expect_eq(u.t.ctr.um_faults, 2);
    close_uvm(&u);
}

Test(uvm, faults_are_served_one_at_a_time)
{
    TUvm u;
    open_uvm(&u, 3 * 4096);
    TmAccess a = line(BASE), b = line(BASE + 4096), again = line(BASE + 64);
    Cycle start = u.t.now;
    t_issue(&u.t, 0, &a, 1);
    t_mem_tick(&u.t);
    u.t.now++;
    t_issue(&u.t, 1, &b, 2); /* another SM, one cycle later: waits for the first fault */
    t_mem_tick(&u.t);
    u.t.now++;
    t_issue(&u.t, 2, &again, 3); /* page 0 again, during its migration */
    cr_expect_eq(t_wait(&u.t, 0, 1) - start, 1000);
    cr_expect_eq(t_wait(&u.t, 2, 3) - start, 1000, "did not wait for the migration under way");
    cr_expect_eq(t_wait(&u.t, 1, 2) - start, 2000);
    cr_expect_eq(u.t.ctr.um_faults, 2);
    cr_expect_eq(u.t.ctr.um_fault_waits, 3);
    close_uvm(&u);
}

Test(uvm, prefetched_and_unmanaged_pages_cost_nothing)
{
    TUvm u;
    TMem ref; /* the same accesses without managed pages */
    open_uvm(&u, 8192);
    t_mem_open(&ref, CFG);
    cr_assert_eq(uvm_mark_host(&u.uvm, BASE, 8192), EMU_OK);
    cr_assert_eq(uvm_prefetch(&u.uvm, BASE, 4096, 1), EMU_OK);
    TmAccess a = line(BASE), outside = line(BASE + 0x100000);
    cr_expect_eq(t_latency(&u.t, 0, &a, 1), t_latency(&ref, 0, &a, 1));
    cr_expect_eq(t_latency(&u.t, 0, &outside, 2), t_latency(&ref, 0, &outside, 2));
    cr_expect_eq(u.t.ctr.um_faults, 0);
    /* the second page is still host-resident */
    TmAccess b = line(BASE + 4096);
    cr_expect_eq(t_latency(&u.t, 0, &b, 3), 1000 + 4096 / 16);
    cr_expect_eq(u.t.ctr.um_migrated_pages, 1);
    t_mem_close(&ref);
    close_uvm(&u);
}

Test(uvm, a_new_launch_starts_with_no_migration_under_way)
{
    TUvm u;
    open_uvm(&u, 4096);
    TmAccess a = line(BASE);
    t_latency(&u.t, 0, &a, 1);
    uvm_begin(&u.uvm); /* cycles restart: the page's old ready time must not hold it */
    u.t.now = 0;
    ldst_flush(u.t.u[0]);
    cr_expect_lt(t_latency(&u.t, 0, &a, 2), 1000);
    close_uvm(&u);
}

Test(uvm, ranges_must_not_overlap)
{
    EmuConfig c = t_cfg(CFG);
    EmuUvm u;
    uvm_init(&u, &c);
    cr_expect_eq(uvm_add(&u, BASE, 4096), EMU_OK);
    cr_expect_neq(uvm_add(&u, BASE + 100, 10), EMU_OK);
    cr_expect_neq(uvm_add(&u, BASE - 10, 20), EMU_OK);
    cr_expect_eq(uvm_add(&u, BASE + 4096, 10), EMU_OK);
    cr_expect_neq(uvm_mark_host(&u, BASE + 4000, 200), EMU_OK, "a span across two ranges");
    uvm_remove(&u, BASE);
    cr_expect_eq(uvm_add(&u, BASE + 100, 10), EMU_OK);
    uvm_fini(&u);
}
