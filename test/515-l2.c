/*
 * 515-l2.c - the L2 slices through memsys_send / memsys_recv: exact hit and miss
 * latencies (ready at the latency, not one cycle before), slice mapping (mod and xor),
 * one lookup per slice per cycle, MSHR merging across SMs, write-allocate and write-back
 * of dirty lines on eviction.
 */
#include "500-mem-util.h"

#define CFG T_SAME_CLOCKS

typedef struct TSys {
    EmuConfig cfg;
    TmCounters ctr;
    MemSys *m;
} TSys;

static void open_sys(TSys *s, const char *sets)
{
    char err[256] = "";
    memset(s, 0, sizeof *s);
    s->cfg = t_cfg(sets);
    s->m = memsys_new(&s->cfg, &s->ctr, err, sizeof err);
    cr_assert(s->m, "%s", err);
}

static TmReq rd(uint64_t line, unsigned sm)
{
    return (TmReq){.line = line, .sectors = 0xf, .kind = TM_READ, .sm = (uint16_t)sm};
}

/* Ticks every cycle from `from` until SM sm receives a response; returns its cycle and
 * checks it was not there one cycle earlier. */
static Cycle recv_at(TSys *s, unsigned sm, Cycle from)
{
    TmReq r;
    for (Cycle now = from; now < from + 100000; now++) {
        memsys_tick(s->m, now);
        if (memsys_recv(s->m, sm, &r, now))
            return now;
    }
    cr_assert_fail("no response");
    return 0;
}

static void drain(TSys *s, Cycle from)
{
    for (Cycle now = from; !memsys_idle(s->m); now++) {
        memsys_tick(s->m, now);
        TmReq r;
        for (unsigned i = 0; i < s->cfg.gpu_sm_count; i++)
            while (memsys_recv(s->m, i, &r, now))
                ;
        cr_assert(now < from + 100000);
    }
}

Test(l2, miss_then_hit_exact_latency)
{
    TSys s;
    open_sys(&s, CFG);
    const EmuConfig *c = &s.cfg;
    TmReq r = rd(0x100000, 2);
    cr_assert_eq(memsys_send(s.m, &r, 50), 0);
    Cycle miss = 2 * c->icnt_latency + c->l2_latency + c->dram_trcd + c->dram_tcl +
                 4 * c->dram_burst_cycles + c->dram_latency + 3;
    cr_expect_eq(recv_at(&s, 2, 50), 50 + miss);
    cr_assert_eq(memsys_send(s.m, &r, 1000), 0);
    Cycle hit = 2 * c->icnt_latency + c->l2_latency + 3;
    TmReq got;
    for (Cycle now = 1000; now < 1000 + hit; now++) {
        memsys_tick(s.m, now);
        cr_assert_eq(memsys_recv(s.m, 2, &got, now), 0, "hit back early at %llu",
                     (unsigned long long)now);
    }
    memsys_tick(s.m, 1000 + hit);
    cr_assert_eq(memsys_recv(s.m, 2, &got, 1000 + hit), 1);
    cr_expect_eq(got.line, 0x100000);
    cr_expect_eq(got.sectors, 0xf);
    cr_expect_eq(s.ctr.l2_hits, 1);
    cr_expect_eq(s.ctr.l2_misses, 1);
    cr_expect_eq(s.ctr.dram_reads, 1);
    cr_expect_eq(s.ctr.dram_bytes, 128);
    cr_expect(memsys_idle(s.m));
    memsys_free(s.m);
}

Test(l2, slice_mapping)
{
    TSys s;
    open_sys(&s, CFG ";l2.slice_hash=mod");
    for (unsigned l = 0; l < 32; l++)
        cr_expect_eq(memsys_slice(s.m, 0, l * 128ull + 5), l % 8);
    memsys_free(s.m);
    open_sys(&s, CFG ";l2.slice_hash=xor");
    /* slice = (L ^ L >> 3 ^ L >> 6) & 7 */
    cr_expect_eq(memsys_slice(s.m, 0, 0 * 128), 0);
    cr_expect_eq(memsys_slice(s.m, 0, 1 * 128), 1);
    cr_expect_eq(memsys_slice(s.m, 0, 8 * 128), 1);
    cr_expect_eq(memsys_slice(s.m, 0, 9 * 128), 0);
    cr_expect_eq(memsys_slice(s.m, 0, 64 * 128), 1);
    unsigned count[8] = {0};
    for (unsigned l = 0; l < 4096; l++)
        count[memsys_slice(s.m, 0, l * 128ull)]++;
    for (unsigned i = 0; i < 8; i++)
        cr_expect_eq(count[i], 512, "xor hash balances consecutive lines");
    memsys_free(s.m);
    /* any slice count: 6 slices (gtx480) */
    open_sys(&s, CFG ";l2.slices=6;l2.slice_hash=xor");
    unsigned six[6] = {0};
    for (unsigned l = 0; l < 6000; l++)
        six[memsys_slice(s.m, 0, l * 128ull)]++;
    for (unsigned i = 0; i < 6; i++)
        cr_expect(six[i] > 800 && six[i] < 1200, "slice %u: %u lines", i, six[i]);
    memsys_free(s.m);
    char err[256];
    EmuConfig c = t_cfg("l2.slice_hash=crc");
    TmCounters k;
    cr_expect_null(memsys_new(&c, &k, err, sizeof err));
    cr_expect(strstr(err, "l2.slice_hash"), "%s", err);
}

/* Two SMs read two warm lines at cycle 1000; returns the second response's cycle. */
static Cycle two_hits(uint64_t a, uint64_t b)
{
    TSys s;
    open_sys(&s, CFG ";l2.slice_hash=mod");
    TmReq ra = rd(a, 0), rb = rd(b, 1);
    memsys_send(s.m, &ra, 0);
    memsys_send(s.m, &rb, 0);
    drain(&s, 0);
    memsys_send(s.m, &ra, 1000);
    memsys_send(s.m, &rb, 1000);
    Cycle first = recv_at(&s, 0, 1000);
    Cycle second = recv_at(&s, 1, first);
    cr_expect_eq(first, 1000 + 2 * s.cfg.icnt_latency + s.cfg.l2_latency + 3);
    memsys_free(s.m);
    return second;
}

Test(l2, requests_to_one_slice_share_its_ports)
{
    Cycle hit = 2 * 10 + 160 + 3;
    cr_expect_eq(two_hits(0, 128), 1000 + hit, "different slices work in parallel");
    /* same slice: arrives a cycle later (ejection port), and its 4-flit response waits
     * for the first one's 4 flits on the slice's injection port */
    cr_expect_eq(two_hits(0, 8 * 128), 1000 + hit + 4);
}

Test(l2, misses_from_two_sms_merge)
{
    TSys s;
    open_sys(&s, CFG);
    TmReq a = rd(0x3000, 0), b = rd(0x3000, 1);
    memsys_send(s.m, &a, 0);
    memsys_send(s.m, &b, 0);
    Cycle t0 = recv_at(&s, 0, 0);
    cr_expect_eq(recv_at(&s, 1, t0), t0 + 4, "answered by the same fill, 4 flits later");
    cr_expect_eq(s.ctr.l2_misses, 1);
    cr_expect_eq(s.ctr.l2_mshr_merges, 1);
    cr_expect_eq(s.ctr.dram_reads, 1);
    memsys_free(s.m);
}

Test(l2, dirty_lines_are_written_back_on_eviction)
{
    TSys s;
    open_sys(&s, CFG ";l2.slices=1;l2.slice_hash=mod;l2.sets=1;l2.ways=1");
    TmReq w = {.line = 0x0, .sectors = 0x3, .kind = TM_WRITE, .sm = 0};
    cr_assert_eq(memsys_send(s.m, &w, 0), 0);
    drain(&s, 0);
    cr_expect_eq(s.ctr.l2_writes, 1);
    cr_expect_eq(s.ctr.dram_reads + s.ctr.dram_writes, 0, "write-allocate without a fetch");
    TmReq r = rd(0x0, 0);
    r.sectors = 0x3;
    memsys_send(s.m, &r, 100);
    cr_expect_eq(recv_at(&s, 0, 100), 100 + 2 * 10 + 160 + 1, "written sectors hit");
    TmReq y = rd(0x80, 0); /* same (only) set: evicts the dirty line */
    memsys_send(s.m, &y, 1000);
    drain(&s, 1000);
    cr_expect_eq(s.ctr.l2_writebacks, 1);
    cr_expect_eq(s.ctr.dram_writes, 1);
    cr_expect_eq(s.ctr.dram_reads, 1);
    cr_expect_eq(s.ctr.dram_bytes, 2 * 32 + 4 * 32);
    r.sectors = 0xf;
    memsys_send(s.m, &r, 5000); /* evicts the clean line: no write-back */
    drain(&s, 5000);
    cr_expect_eq(s.ctr.l2_writebacks, 1);
    cr_expect_eq(s.ctr.dram_writes, 1);
    cr_expect_eq(s.ctr.dram_reads, 2);
    cr_expect_eq(s.ctr.l2_misses, 2);
    cr_expect_eq(s.ctr.l2_hits, 1);
    memsys_free(s.m);
}
