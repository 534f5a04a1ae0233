/*
 * 535-multi-gpu-memsys.c - the memory system of a device made of several GPUs
 * (system.memory = shared | numa; docs/multi-gpu.md), through memsys_send / memsys_recv:
 * in a shared system each GPU's own L2 slices serve its SMs and what they send to DRAM
 * crosses the GPU's link both ways (exact latency, one port per GPU and direction, its
 * counters); every GPU maps a line to the same DRAM location. In a NUMA system a line's
 * zone (numa.map: the XOR hash, first touch) picks the module whose slices and channels
 * hold it, and a request from another module crosses the links both ways.
 */
#include "500-mem-util.h"

/* Two GPUs of two SMs, mod slice hash: line L is in slice L mod 8 of each GPU. */
#define SHARED T_SAME_CLOCKS ";l2.slice_hash=mod;gpu.sm_count=2;system.gpus=2;system.memory=shared"
#define NUMA T_SAME_CLOCKS ";gpu.sm_count=2;system.gpus=2;system.memory=numa"

static TmReq rd(uint64_t line, unsigned sm)
{
    return (TmReq){.line = line, .sectors = 0xf, .kind = TM_READ, .sm = (uint16_t)sm};
}

/* Sends r at cycle at and ticks every cycle until its SM receives the response: the
 * latency, checked not to be one cycle shorter. */
static Cycle latency(TMemSys *s, TmReq r, Cycle at)
{
    cr_assert_eq(memsys_send(s->m, &r, at), 0);
    TmReq got;
    for (Cycle now = at; now < at + 100000; now++) {
        memsys_tick(s->m, now);
        if (memsys_recv(s->m, r.sm, &got, now)) {
            cr_assert_eq(got.line, r.line);
            return now - at;
        }
    }
    cr_assert_fail("no response");
    return 0;
}

/* The same cold miss on one GPU (the default system). */
static Cycle one_gpu_miss(const char *sets)
{
    TMemSys s;
    t_memsys_open(&s, sets);
    Cycle t = latency(&s, rd(0x100000, 0), 50);
    memsys_free(s.m);
    return t;
}

Test(multi_gpu_memsys, shared_each_gpu_has_its_own_l2_behind_its_link)
{
    TMemSys s;
    t_memsys_open(&s, SHARED);
    const EmuConfig *c = &s.cfg;
    /* GPU 0 (SMs 0, 1) and GPU 1 (SMs 2, 3) map a line to their own slices */
    for (uint64_t l = 0; l < 64; l++) {
        cr_expect_eq(memsys_slice(s.m, 0, l * 128), l % 8);
        cr_expect_eq(memsys_slice(s.m, 1, l * 128), 8 + l % 8);
    }
    /* a cold miss: + the link's latency each way, and a 16-byte request and a 144-byte
     * response at 64 bytes a cycle take 1 and 3 cycles of the port */
    Cycle base = one_gpu_miss(T_SAME_CLOCKS ";l2.slice_hash=mod;gpu.sm_count=2");
    Cycle miss = latency(&s, rd(0x100000, 0), 50);
    cr_expect_eq(miss, base + 2 * c->system_link_latency + 2, "miss %llu, one GPU %llu",
                 (unsigned long long)miss, (unsigned long long)base);
    cr_expect_eq(s.ctr.link_out_bytes, 16);
    cr_expect_eq(s.ctr.link_in_bytes, 144);
    cr_expect_eq(s.ctr.link_busy_cycles, 4);
    cr_expect_eq(s.ctr.link_wait_cycles, 0);
    /* GPU 1 misses in its own L2 (the same DRAM row, now open), then hits there */
    Cycle other = latency(&s, rd(0x100000, 2), 5000);
    cr_expect_eq(other, miss - c->dram_trcd);
    cr_expect_eq(s.ctr.l2_misses, 2);
    cr_expect_eq(s.ctr.dram_reads, 2);
    cr_expect_eq(latency(&s, rd(0x100000, 3), 10000), 2 * c->icnt_latency + c->l2_latency + 3);
    cr_expect_eq(s.ctr.l2_hits, 1);
    cr_expect_eq(s.ctr.link_in_bytes, 288, "a hit crosses no link");
    memsys_free(s.m);
}

/* Two misses from two SMs of GPU 0 in the same cycle to two lines of two slices and two
 * channels: their responses leave DRAM a cycle apart and share the GPU's incoming port.
 * Returns the second response's cycle minus the first's. */
static Cycle two_misses(const char *sets, TmCounters *out)
{
    TMemSys s;
    t_memsys_open(&s, sets);
    TmReq a = rd(0, 0), b = rd(128, 1);
    cr_assert_eq(memsys_send(s.m, &a, 50), 0);
    cr_assert_eq(memsys_send(s.m, &b, 50), 0);
    Cycle got[2] = {0, 0};
    for (Cycle now = 50; now < 100000 && (!got[0] || !got[1]); now++) {
        memsys_tick(s.m, now);
        TmReq r;
        for (unsigned sm = 0; sm < 2; sm++)
            if (memsys_recv(s.m, sm, &r, now))
                got[sm] = now;
    }
    *out = s.ctr;
    memsys_free(s.m);
    return got[1] - got[0];
}

Test(multi_gpu_memsys, shared_a_gpus_link_serializes_its_packets)
{
    TmCounters wide, narrow;
    cr_expect_eq(two_misses(SHARED ";system.link_bytes_per_cycle=4096", &wide), 1);
    /* 16 bytes a cycle: the second request waits a cycle for the outgoing port, the second
     * response for the 9 cycles the first takes on the incoming port */
    cr_expect_eq(two_misses(SHARED ";system.link_bytes_per_cycle=16", &narrow), 9);
    cr_expect_eq(narrow.link_wait_cycles, 1 + 8);
    cr_expect_eq(narrow.link_busy_cycles, 2 * 1 + 2 * 9);
    cr_expect_eq(wide.link_wait_cycles, 1, "a port starts one packet a cycle");
}

Test(multi_gpu_memsys, shared_gpus_see_one_memory_side)
{
    /* GPU 1's write-back and GPU 0's read of the same line reach the same DRAM bank and
     * row: the read after the write finds the row open */
    TMemSys s;
    t_memsys_open(&s, SHARED ";l2.sets=1;l2.ways=1");
    TmReq w = {.line = 0, .sectors = 0xf, .kind = TM_WRITE, .sm = 2};
    cr_assert_eq(memsys_send(s.m, &w, 10), 0);
    TmReq evict = rd(8 * 128, 2); /* slice 8 again: evicts the dirty line */
    latency(&s, evict, 20);
    for (Cycle now = 2000; now < 3000; now++)
        memsys_tick(s.m, now);
    cr_assert_eq(s.ctr.dram_writes, 1);
    uint64_t conflicts = s.ctr.dram_row_conflicts, hits = s.ctr.dram_row_hits;
    latency(&s, rd(0, 0), 3000);
    cr_expect_eq(s.ctr.dram_row_hits, hits + 1, "GPU 0's read finds GPU 1's row open");
    cr_expect_eq(s.ctr.dram_row_conflicts, conflicts);
    memsys_free(s.m);
}

Test(multi_gpu_memsys, numa_xor_zones_and_remote_requests)
{
    TMemSys s;
    t_memsys_open(&s, NUMA);
    const EmuConfig *c = &s.cfg;
    /* 4 KB blocks: block b in zone (b xor b >> 1 xor ...) mod 2, the parity of b's bits */
    for (uint64_t b = 0; b < 64; b++) {
        unsigned zone = __builtin_popcountll(b) & 1;
        for (unsigned gpu = 0; gpu < 2; gpu++) {
            unsigned sl = memsys_slice(s.m, gpu, b * 4096 + 384);
            cr_expect_eq(sl / 8, zone, "block %llu in slice %u", (unsigned long long)b, sl);
        }
    }
    /* block 0 is zone 0, block 1 zone 1: from SM 0 (module 0) one is local, one remote,
     * both cold; the remote one crosses both crossbars and the links both ways (a
     * 16-byte request: 1 port cycle; a 144-byte response at 64 a cycle: 3) */
    Cycle local = latency(&s, rd(0, 0), 50);
    Cycle remote = latency(&s, rd(4096, 0), 5000);
    cr_expect_eq(remote, local + 2 * c->icnt_latency + 2 * c->system_link_latency + 2,
                 "local %llu, remote %llu", (unsigned long long)local,
                 (unsigned long long)remote);
    cr_expect_eq(s.ctr.numa_local, 1);
    cr_expect_eq(s.ctr.numa_remote, 1);
    cr_expect_eq(s.ctr.link_out_bytes, 16 + 144);
    /* module 1 hits the line module 0 brought into zone 1's L2 (memory-side) */
    cr_expect_eq(latency(&s, rd(4096, 2), 9000), 2 * c->icnt_latency + c->l2_latency + 3);
    cr_expect_eq(s.ctr.l2_hits, 1);
    memsys_free(s.m);
}

Test(multi_gpu_memsys, numa_first_touch_places_a_page_where_it_is_first_used)
{
    TMemSys s;
    t_memsys_open(&s, NUMA ";numa.map=first-touch");
    /* module 1 touches page 3 first, module 0 page 5; later requests keep the placement,
     * and every line of a 64 KB page goes with it */
    cr_expect_eq(memsys_slice(s.m, 1, 3 * 65536 + 128) / 8, 1);
    cr_expect_eq(memsys_slice(s.m, 0, 5 * 65536) / 8, 0);
    cr_expect_eq(memsys_slice(s.m, 0, 3 * 65536 + 4096) / 8, 1);
    cr_expect_eq(memsys_slice(s.m, 1, 5 * 65536 + 65535) / 8, 0);
    cr_expect_eq(memsys_slice(s.m, 0, 6 * 65536) / 8, 0);
    memsys_free(s.m);
}

Test(multi_gpu_memsys, zone_keys_are_checked)
{
    EmuConfig c = t_cfg("numa.interleave_bytes=64");
    char err[256] = "";
    cr_expect_eq(emu_config_check(&c, err, sizeof err), -1);
    cr_expect(strstr(err, "numa.interleave_bytes"), "%s", err);
    c = t_cfg("numa.page_bytes=3000");
    cr_expect_eq(emu_config_check(&c, err, sizeof err), -1);
    cr_expect(strstr(err, "numa.page_bytes"), "%s", err);
    c = t_cfg("system.gpus=16;system.memory=shared;gpu.sm_count=512");
    cr_expect_eq(emu_config_check(&c, err, sizeof err), -1);
    cr_expect(strstr(err, "gpu.sm_count"), "%s", err);
}
