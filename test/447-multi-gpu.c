/*
 * 447-multi-gpu.c - one device made of several GPUs (system.memory = shared | numa;
 * docs/multi-gpu.md) in the timing model: the device shows all their SMs and memory;
 * a launch's CTAs are divided among the GPUs (system.cta_split: contiguous chunks of the
 * grid, or interleaved) and round robin over each GPU's SMs; the report breaks the
 * counters down by GPU; a one-GPU "shared" system is exactly the plain GPU; results are
 * functional mode's, and the statistics are the same with and without idle skipping
 * and on two host threads.
 */
#include "400-timing-util.h"
#include "stats/log.h"

static const char *smid_src = TM_SMID_SRC; /* 400-timing-util.h */

#define TWO_BY_TWO "gpu.sm_count=2;system.gpus=2;system.memory=shared;"

Test(multi_gpu, the_device_shows_every_gpus_sms_and_memory)
{
    EmuSystem *s = NULL;
    char err[256] = "";
    cr_assert_eq(emu_system_create_with(&s, NULL, "gpu.sm_count=3;system.gpus=4;"
                                        "system.memory=numa", err, sizeof err), EMU_OK, "%s", err);
    cr_expect_eq(emu_system_gpus(s), 1, "the program sees one device");
    EmuDevice *d = NULL;
    cr_assert_eq(emu_system_device(s, 0, &d, err, sizeof err), EMU_OK, "%s", err);
    const EmuProps *p = emu_props(d);
    cr_expect_eq(p->sm_count, 12);
    cr_expect_eq(p->device_gpus, 4);
    cr_expect_eq(p->gpus, 1);
    cr_expect_eq(p->global_mem_bytes, 4 * 4294967296ull);
    EmuDevice *e = NULL;
    cr_expect_eq(emu_system_device(s, 1, &e, err, sizeof err), EMU_ERR_INVALID_VALUE);
    cr_expect(strstr(err, "system.memory = numa"), "%s", err);
    emu_destroy(d);
    emu_system_destroy(s);
}

static void smids(const char *set, unsigned n, uint32_t *sm)
{
    TmRun r;
    tm_run(&r, set, smid_src, DIM(n, 1, 1), DIM(32, 1, 1), n);
    cr_assert_eq(r.status, EMU_OK, "%s", r.fault.message);
    memcpy(sm, r.out, 4 * n);
    tm_done(&r);
}

Test(multi_gpu, ctas_go_to_their_gpus_share_of_the_grid)
{
    uint32_t sm[10];
    /* chunks: GPU 0 (SMs 0, 1) takes CTAs 0..4, GPU 1 (SMs 2, 3) CTAs 5..9, each round
     * robin over its SMs */
    smids(TWO_BY_TWO, 10, sm);
    for (unsigned i = 0; i < 10; i++)
        cr_expect_eq(sm[i], (i < 5 ? 0 : 2) + (i < 5 ? i : i - 5) % 2, "CTA %u on SM %u", i,
                     sm[i]);
    smids(TWO_BY_TWO "system.cta_split=interleave", 10, sm);
    for (unsigned i = 0; i < 10; i++)
        cr_expect_eq(sm[i], 2 * (i % 2) + i / 2 % 2, "CTA %u on SM %u", i, sm[i]);
    /* an odd split: 7 CTAs over 2 GPUs in chunks of 3 and 4 */
    smids(TWO_BY_TWO, 7, sm);
    for (unsigned i = 0; i < 7; i++)
        cr_expect_eq(sm[i] / 2, i < 3 ? 0 : 1, "CTA %u on SM %u", i, sm[i]);
}

/* The gather kernel (400-timing-util.h) over 2048 threads: its counters and results. */
typedef struct Gather {
    TmCounters ctr;
    uint64_t cycles;
    uint32_t out[2048];
    TmCounters gpu[4];
    uint64_t gpu_cycles[4];
    uint32_t ngpu;
} Gather;

static void gather(const char *set, Gather *g)
{
    TmRun r;
    tm_run(&r, set, TM_GATHER_SRC, DIM(8, 1, 1), DIM(256, 1, 1), 2048 + 4096);
    cr_assert_eq(r.status, EMU_OK, "%s", r.fault.message);
    memset(g, 0, sizeof *g);
    g->ctr = *emu_launch_counters(r.d, 0);
    g->cycles = r.st.cycles;
    memcpy(g->out, r.out, sizeof g->out);
    const TmReport *rep = emu_launch_report(r.d, 0);
    if (rep && rep->gpu) {
        g->ngpu = rep->ngpu;
        memcpy(g->gpu, rep->gpu, rep->ngpu * sizeof *rep->gpu);
        memcpy(g->gpu_cycles, rep->gpu_cycles, rep->ngpu * sizeof *rep->gpu_cycles);
    }
    tm_done(&r);
}

Test(multi_gpu, one_gpu_is_the_plain_gpu)
{
    static Gather plain, shared, numa;
    gather("gpu.sm_count=4", &plain);
    gather("gpu.sm_count=4;system.memory=shared", &shared);
    gather("gpu.sm_count=4;system.memory=numa", &numa);
    cr_expect_eq(shared.cycles, plain.cycles);
    cr_expect_eq(numa.cycles, plain.cycles);
    cr_expect_eq(memcmp(&shared.ctr, &plain.ctr, sizeof plain.ctr), 0);
    cr_expect_eq(memcmp(&numa.ctr, &plain.ctr, sizeof plain.ctr), 0);
    cr_expect_eq(plain.ngpu, 0, "no breakdown for one GPU");
}

Test(multi_gpu, per_gpu_counters_add_up)
{
    static Gather g, f;
    gather(TWO_BY_TWO "stats.per_unit=true", &g);
    gather(TWO_BY_TWO "emu.mode=functional", &f);
    cr_expect_eq(memcmp(g.out, f.out, sizeof g.out), 0, "functional mode's results");
    cr_assert_eq(g.ngpu, 2);
    uint64_t ctas = 0, insns = 0, l2 = 0, out = 0;
    for (unsigned k = 0; k < 2; k++) {
        ctas += g.gpu[k].ctas, insns += g.gpu[k].warp_insns;
        l2 += g.gpu[k].l2_hits + g.gpu[k].l2_misses + g.gpu[k].l2_mshr_merges;
        out += g.gpu[k].link_out_bytes;
        cr_expect_eq(g.gpu[k].ctas, 4, "GPU %u ran its 4 CTAs", k);
        cr_expect(g.gpu_cycles[k] > 0 && g.gpu_cycles[k] <= g.cycles);
        cr_expect(g.gpu[k].link_in_bytes > 0, "GPU %u's L2 misses crossed its link", k);
    }
    cr_expect_eq(ctas, g.ctr.ctas);
    cr_expect_eq(insns, g.ctr.warp_insns);
    cr_expect_eq(l2, g.ctr.l2_hits + g.ctr.l2_misses + g.ctr.l2_mshr_merges);
    cr_expect_eq(out, g.ctr.link_out_bytes);
}

/* The same statistics with every cycle ticked, and on two host threads. */
static void same_three_ways(const char *set)
{
    static Gather a, b, c;
    char s[512];
    gather(set, &a);
    snprintf(s, sizeof s, "%s;emu.skip_idle=false", set);
    gather(s, &b);
    snprintf(s, sizeof s, "%s;emu.threads=2", set);
    gather(s, &c);
    cr_expect_eq(a.cycles, b.cycles, "%s: skipping", set);
    cr_expect_eq(a.cycles, c.cycles, "%s: threads", set);
    cr_expect_eq(memcmp(&a.ctr, &b.ctr, sizeof a.ctr), 0, "%s: skipping", set);
    cr_expect_eq(memcmp(&a.ctr, &c.ctr, sizeof a.ctr), 0, "%s: threads", set);
    cr_expect_eq(memcmp(a.gpu, c.gpu, sizeof a.gpu), 0, "%s: per GPU", set);
    cr_expect_eq(memcmp(a.out, c.out, sizeof a.out), 0);
}

Test(multi_gpu, deterministic_shared)
{
    same_three_ways(TWO_BY_TWO "system.link_bytes_per_cycle=16");
}

Test(multi_gpu, deterministic_numa)
{
    same_three_ways("gpu.sm_count=2;system.gpus=4;system.memory=numa;numa.map=first-touch");
}
