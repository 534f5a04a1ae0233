/*
 * 530-mem-presets.c - every GPU preset builds a valid memory system and LD/ST units, and
 * a cold miss then a hit behave (miss slower than the L1 hit latency, hit exact). Guards
 * the presets' memory keys against combinations the memory units reject.
 */
#include "500-mem-util.h"

static void check_preset(const char *name)
{
    char path[512], err[512] = "";
    snprintf(path, sizeof path, "%s/emulator/config/presets/%s.ini", XGPU_SOURCE_DIR, name);
    EmuConfig c = t_cfg(NULL);
    cr_assert_eq(emu_config_load_file(&c, path, err, sizeof err), 0, "%s", err);
    TmCounters ctr;
    memset(&ctr, 0, sizeof ctr);
    MemSys *m = memsys_new(&c, &ctr, err, sizeof err);
    cr_assert(m, "%s: %s", name, err);
    LdSt *u = ldst_new(&c, 0, &ctr, err, sizeof err);
    cr_assert(u, "%s: %s", name, err);
    ldst_connect(u, m, NULL, &t_gpu0);
    TmAccess a = t_acc(TM_GLOBAL, TM_READ, 4, 0x10000, 4);
    Cycle done[2] = {0, 0}, now = 0;
    for (int i = 0; i < 2; i++) {
        Cycle start = now;
        cr_assert_eq(ldst_issue(u, &a, (uint64_t)i, now), 0);
        uint64_t tag;
        for (;; now++) {
            cr_assert_lt(now, 100000, "%s: stuck", name);
            memsys_tick(m, now);
            ldst_tick(u, now);
            if (ldst_done(u, &tag, now))
                break;
        }
        done[i] = now - start;
        now++;
    }
    cr_expect_gt(done[0], c.l1_hit_latency, "%s: miss %llu", name, (unsigned long long)done[0]);
    cr_expect_eq(done[1], c.l1_hit_latency, "%s", name);
    ldst_free(u);
    memsys_free(m);
}

Test(mem_presets, accelsim_rtx2060) { check_preset("accelsim-rtx2060"); }
Test(mem_presets, gtx480) { check_preset("gtx480"); }
Test(mem_presets, kepler) { check_preset("kepler"); }
Test(mem_presets, maxwell) { check_preset("maxwell"); }
