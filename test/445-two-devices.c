/*
 * 445-two-devices.c - one process, several devices (emu_create_with): devices of
 * different configurations, created without the environment, run the same kernel with
 * launches interleaved; each keeps its own memory, statistics and memory system, so each
 * gives exactly what it gives alone, and an address of one is unknown to the other.
 * The GPUs of one system (emu_system_*) are such devices, in disjoint address ranges.
 */
#include "400-timing-util.h"

static const char *src = TM_GATHER_SRC; /* 400-timing-util.h */

#define NT 2048

typedef struct Dev {
    EmuDevice *d;
    EmuModule *m;
    uint64_t buf;
    uint32_t out[NT];
    uint64_t cycles[3];
} Dev;

static void dev_open(Dev *v, const char *config, const char *set)
{
    char err[256] = "";
    memset(v, 0, sizeof *v);
    cr_assert_eq(emu_create_with(&v->d, config, set, err, sizeof err), EMU_OK, "%s", err);
    v->m = t_load(v->d, src);
    static uint32_t in[NT + 4096];
    for (uint32_t i = 0; i < NT + 4096; i++)
        in[i] = i * 2654435761u >> 20;
    cr_assert_eq(emu_malloc(v->d, sizeof in, &v->buf), EMU_OK);
    cr_assert_eq(emu_copy_to_device(v->d, v->buf, in, sizeof in), EMU_OK);
}

static void dev_launch(Dev *v, int i)
{
    EmuLaunchStats st;
    EmuFault f;
    EmuStatus s = emu_launch(v->d, v->m, 0, DIM(NT / 256, 1, 1), DIM(256, 1, 1), 0, &v->buf,
                             8, &st, &f);
    cr_assert_eq(s, EMU_OK, "%s", f.message);
    v->cycles[i] = st.cycles;
    cr_assert_eq(emu_copy_from_device(v->d, v->out, v->buf, sizeof v->out), EMU_OK);
}

Test(two_devices, interleaved_launches_match_each_device_alone)
{
    setenv("XGPU_SET", "gpu.sm_count=not-a-number", 1); /* never read by emu_create_with */
    static Dev a, b, alone_a, alone_b;
    dev_open(&a, "accelsim-rtx2060", "emu.mode=timing");
    dev_open(&b, "gtx480", "emu.mode=timing;gpu.sm_count=3");
    for (int i = 0; i < 3; i++) {
        dev_launch(&a, i);
        dev_launch(&b, i);
    }
    dev_open(&alone_a, "accelsim-rtx2060", "emu.mode=timing");
    for (int i = 0; i < 3; i++)
        dev_launch(&alone_a, i);
    dev_open(&alone_b, "gtx480", "emu.mode=timing;gpu.sm_count=3");
    for (int i = 0; i < 3; i++)
        dev_launch(&alone_b, i);
    for (int i = 0; i < 3; i++) {
        cr_expect_eq(a.cycles[i], alone_a.cycles[i], "launch %d on a", i);
        cr_expect_eq(b.cycles[i], alone_b.cycles[i], "launch %d on b", i);
    }
    cr_expect_neq(a.cycles[0], b.cycles[0], "two configurations, one timing");
    cr_expect_eq(memcmp(a.out, b.out, sizeof a.out), 0);
    cr_expect_eq(emu_launch_count(a.d), 3);
    cr_expect_eq(emu_props(b.d)->sm_count, 3);
    cr_expect_eq(emu_props(a.d)->sm_count, 10);
    uint32_t w;
    /* both devices hand out the same first address, but the allocations are separate */
    cr_expect_eq(a.buf, b.buf);
    cr_assert_eq(emu_copy_to_device(a.d, a.buf, &(uint32_t){7}, 4), EMU_OK);
    cr_assert_eq(emu_copy_from_device(b.d, &w, b.buf, 4), EMU_OK);
    cr_expect_neq(w, 7, "a write to one device reached the other");
    emu_destroy(a.d);
    emu_destroy(b.d);
    emu_destroy(alone_a.d);
    emu_destroy(alone_b.d);
    unsetenv("XGPU_SET");
}

Test(two_devices, bad_settings_name_the_key)
{
    EmuDevice *d = NULL;
    char err[256] = "";
    cr_expect_eq(emu_create_with(&d, NULL, "l1.ways=lots", err, sizeof err),
                 EMU_ERR_INVALID_CONFIG);
    cr_expect(strstr(err, "l1.ways"), "%s", err);
    cr_expect_null(d);
    cr_expect_eq(emu_create_with(&d, "no-such-preset", NULL, err, sizeof err),
                 EMU_ERR_INVALID_CONFIG);
    cr_expect(strstr(err, "no-such-preset"), "%s", err);
}

/* A system of three GPUs: each device made from it has its own part of the global
 * window (an address names its GPU), runs the kernel with exactly the timing of GPU 0,
 * and a fourth GPU is refused by name. */
Test(two_devices, gpus_of_one_system)
{
    EmuSystem *s = NULL;
    char err[256] = "";
    cr_assert_eq(emu_system_create_with(&s, "accelsim-rtx2060", "emu.mode=timing;system.gpus=3", err,
                                        sizeof err), EMU_OK, "%s", err);
    cr_assert_eq(emu_system_gpus(s), 3);
    static Dev g[3];
    static uint32_t in[NT + 4096];
    for (uint32_t i = 0; i < NT + 4096; i++)
        in[i] = i * 2654435761u >> 20;
    for (uint32_t i = 0; i < 3; i++) {
        memset(&g[i], 0, sizeof g[i]);
        cr_assert_eq(emu_system_device(s, i, &g[i].d, err, sizeof err), EMU_OK, "%s", err);
        const EmuProps *p = emu_props(g[i].d);
        cr_expect_eq(p->gpu_index, i);
        cr_expect_eq(p->gpus, 3);
        cr_expect_eq(p->global_base, XGPU_GLOBAL_BASE + i * XGPU_GPU_SPAN);
        cr_expect_eq(p->global_limit, i == 2 ? XGPU_PARAM_BASE : p->global_base + XGPU_GPU_SPAN);
        g[i].m = t_load(g[i].d, src);
        cr_assert_eq(emu_malloc(g[i].d, sizeof in, &g[i].buf), EMU_OK);
        cr_expect_eq(g[i].buf, p->global_base, "GPU %u's first allocation", i);
        cr_assert_eq(emu_copy_to_device(g[i].d, g[i].buf, in, sizeof in), EMU_OK);
        dev_launch(&g[i], 0);
    }
    for (int i = 1; i < 3; i++) {
        cr_expect_eq(g[i].cycles[0], g[0].cycles[0], "GPU %d's timing", i);
        cr_expect_eq(memcmp(g[i].out, g[0].out, sizeof g[0].out), 0, "GPU %d's results", i);
    }
    uint32_t w;
    cr_expect_neq(emu_copy_from_device(g[0].d, &w, g[1].buf, 4), EMU_OK,
                  "GPU 0 read GPU 1's memory");
    EmuDevice *d = NULL;
    cr_expect_eq(emu_system_device(s, 3, &d, err, sizeof err), EMU_ERR_INVALID_VALUE);
    cr_expect(strstr(err, "system.gpus"), "%s", err);
    cr_expect_null(d);
    for (int i = 0; i < 3; i++)
        emu_destroy(g[i].d);
    emu_system_destroy(s);
    cr_expect_eq(emu_system_create_with(&s, NULL, "system.gpus=17", err, sizeof err),
                 EMU_ERR_INVALID_CONFIG);
    cr_expect(strstr(err, "system.gpus"), "%s", err);
    cr_expect_eq(emu_system_create_with(&s, NULL, "system.gpus=2;gpu.global_mem_bytes=2048G",
                                        err, sizeof err), EMU_ERR_INVALID_CONFIG);
    cr_expect(strstr(err, "gpu.global_mem_bytes") && strstr(err, "address space"), "%s", err);
}
