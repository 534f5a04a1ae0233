/*
 * 507-uvm.c - managed pages through the LD/ST unit (emulator/uvm.c): the first touch of
 * a page costs um.fault_cycles (NEW) plus um.page_bytes / um.bytes_per_cycle (HOST),
 * faults are served one at a time, an access to a page being migrated waits for it, a
 * resident or prefetched page costs nothing, and addresses outside managed ranges are
 * never held back (the same accesses without managed pages take as long).
 */
#include "500-mem-util.h"
#include <stdlib.h>
#include "device.h"
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

/* ---- one copy: the host's changes found from digests -------------------------------- */

static void *map_buf(void *ctx, uint64_t addr, uint64_t reserved)
{
    (void)addr;
    uint8_t **mem = ctx;
    *mem = aligned_alloc(4096, (size_t)reserved);
    if (*mem)
        memset(*mem, 0, (size_t)reserved);
    return *mem;
}

Test(uvm, a_mapped_range_finds_the_hosts_changes_by_piece)
{
    setenv("XGPU_MODE", "functional", 1);
    setenv("XGPU_SET", "um.page_bytes=4096", 1);
    EmuDevice *d = NULL;
    char err[256] = "";
    cr_assert_eq(emu_create(&d, err, sizeof err), EMU_OK, "%s", err);
    unsetenv("XGPU_SET");
    enum { SIZE = 5 * 4096 + 100 };
    uint8_t *mem = NULL;
    uint64_t a;
    cr_assert_eq(emu_malloc_mapped(d, SIZE, 4096, map_buf, &mem, &a), EMU_OK);
    cr_assert_eq(emu_uvm_add(d, a, SIZE), EMU_OK);
    const UvmRange *r = &d->uvm.r[0];
    cr_assert_not_null(r->digest, "a mapped range keeps digests");
    uint8_t other[SIZE];
    cr_expect_eq(emu_uvm_sync_in(d, a, other, SIZE), EMU_ERR_INVALID_VALUE,
                 "one copy: the source must be the allocation's own bytes");
    cr_expect_eq(emu_uvm_sync_out(d, a, other, SIZE), EMU_ERR_INVALID_VALUE);
    cr_expect_eq(emu_uvm_sync_in(d, a, mem, SIZE), EMU_OK);
    for (int p = 0; p < 6; p++)
        cr_expect_eq(r->state[p], UVM_NEW, "page %d: nothing written yet", p);
    mem[4096 + 17] ^= 0x80;                         /* page 1 */
    mem[SIZE - 1] = 1;                              /* page 5, the short tail */
    uint64_t w;
    memcpy(&w, mem + 3 * 4096 + 8, 8);              /* page 3: the same bytes again */
    memcpy(mem + 3 * 4096 + 8, &w, 8);
    cr_expect_eq(emu_uvm_sync_in(d, a, mem, SIZE), EMU_OK);
    static const int host[6] = {0, 1, 0, 0, 0, 1};
    for (int p = 0; p < 6; p++)
        cr_expect_eq(r->state[p], host[p] ? UVM_HOST : UVM_NEW, "page %d", p);
    /* the device's writes (here through the copy API, as a kernel's stores would land)
     * are taken stock of after the launch, so the next launch does not see them as the
     * host's */
    cr_assert_eq(uvm_prefetch(&d->uvm, a, SIZE, 1), EMU_OK);
    cr_expect_eq(emu_memset(d, a + 2 * 4096, 9, 4), EMU_OK);
    cr_expect_eq(emu_uvm_sync_out(d, a, mem, SIZE), EMU_OK);
    cr_expect_eq(emu_uvm_sync_in(d, a, mem, SIZE), EMU_OK);
    cr_expect_eq(r->state[2], UVM_DEVICE);
    /* a prefetch's sync of part of the range: only the pieces it touches */
    mem[0] = 5, mem[4 * 4096] = 5;
    cr_expect_eq(emu_uvm_sync_in(d, a + 4 * 4096 + 10, mem + 4 * 4096 + 10, 20), EMU_OK);
    cr_expect_eq(r->state[4], UVM_HOST);
    cr_expect_eq(r->state[0], UVM_DEVICE, "not synced yet");
    cr_expect_eq(emu_uvm_sync_in(d, a, mem, SIZE), EMU_OK);
    cr_expect_eq(r->state[0], UVM_HOST);
    emu_uvm_remove(d, a);
    cr_expect_eq(emu_free(d, a), EMU_OK);
    emu_destroy(d);
    free(mem);
}

Test(uvm, a_digest_changes_with_any_one_word)
{
    uint8_t buf[4096 + 20];
    uint64_t x = 12345;
    for (size_t i = 0; i < sizeof buf; i++)
        buf[i] = (uint8_t)(t_next(&x) >> 24);
    for (size_t n = 4096; n <= sizeof buf; n += 20) {
        uint64_t d0 = uvm_digest(buf, n);
        for (size_t i = 0; i < n; i++)
            for (int bit = 0; bit < 8; bit += 7) {
                buf[i] ^= (uint8_t)(1u << bit);
                cr_assert_neq(uvm_digest(buf, n), d0, "byte %zu bit %d of %zu", i, bit, n);
                buf[i] ^= (uint8_t)(1u << bit);
            }
    }
    /* the sign bits of two words of one lane (32 bytes apart), and of every pair of
     * neighbouring floats: changes that a digest without rotation would miss */
    uint64_t d0 = uvm_digest(buf, 4096);
    for (size_t i = 7; i + 32 < 4096; i += 8) {
        buf[i] ^= 0x80, buf[i + 32] ^= 0x80;
        cr_assert_neq(uvm_digest(buf, 4096), d0, "sign bits at %zu and %zu", i, i + 32);
        buf[i] ^= 0x80, buf[i + 32] ^= 0x80;
        buf[i - 4] ^= 0x80, buf[i] ^= 0x80;
        cr_assert_neq(uvm_digest(buf, 4096), d0, "sign bits at %zu and %zu", i - 4, i);
        buf[i - 4] ^= 0x80, buf[i] ^= 0x80;
    }
    uint8_t zero[100] = {0};
    cr_expect_neq(uvm_digest(zero, 99), uvm_digest(zero, 100), "the length counts");
}
