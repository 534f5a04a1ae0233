/*
 * 350-config.c - the configuration: defaults, XGPU_SET and XGPU_CONFIG overrides,
 * XGPU_MODE, and errors that name the key (and FILE:LINE for files). Criterion runs each
 * test in its own process, so setenv here does not leak into other tests.
 */
#include <stdint.h>
#include <stdlib.h>
#include "300-emu-util.h"
#include "xtest.h"

static EmuStatus create(EmuDevice **d, char *err, size_t n)
{
    err[0] = 0;
    return emu_create(d, err, n);
}

Test(config, defaults)
{
    unsetenv("XGPU_SET");
    unsetenv("XGPU_CONFIG");
    unsetenv("XGPU_MODE");
    EmuDevice *d = t_dev();
    const EmuProps *p = emu_props(d);
    cr_expect_str_eq(p->name, "xgpu-default");
    cr_expect_eq(p->sm_count, 10);
    cr_expect_eq(p->warp_size, 32);
    cr_expect_eq(p->max_threads_per_block, 1024);
    cr_expect_eq(p->regs_per_sm, 65536);
    cr_expect_eq(p->shared_per_block, 49152);
    cr_expect_eq(p->const_mem_bytes, 65536);
    cr_expect_eq(p->global_mem_bytes, 4ull << 30);
    cr_expect_eq(p->cc_major, 7);
    cr_expect_eq(p->cc_minor, 5);
    cr_expect_eq(p->max_block_dim[2], 64);
    emu_destroy(d);
}

Test(config, xgpu_set_overrides)
{
    setenv("XGPU_SET", " gpu.sm_count=4; gpu.name = tiny ;gpu.global_mem_bytes=1M;"
                       "gpu.max_threads_per_block=256;", 1);
    EmuDevice *d = t_dev();
    const EmuProps *p = emu_props(d);
    cr_expect_eq(p->sm_count, 4);
    cr_expect_str_eq(p->name, "tiny");
    cr_expect_eq(p->global_mem_bytes, 1u << 20);
    uint64_t a;
    cr_expect_eq(emu_malloc(d, 2u << 20, &a), EMU_ERR_OUT_OF_MEMORY, "capacity follows config");
    EmuModule *m = t_load(d, ".kernel k\n  exit\n");
    cr_expect_eq(emu_launch(d, m, 0, DIM(1, 1, 1), DIM(512, 1, 1), 0, NULL, 0, NULL, NULL),
                 EMU_ERR_INVALID_CONFIG, "block limit follows config");
    emu_destroy(d);
}

Test(config, config_file_then_set)
{
    const char *path = xt_tmp("350-config.ini");
    FILE *f = fopen(path, "w");
    cr_assert(f);
    fputs("# a preset\ngpu.name = filegpu\n\ngpu.sm_count = 20   # comment\n", f);
    fclose(f);
    setenv("XGPU_CONFIG", path, 1);
    setenv("XGPU_SET", "gpu.sm_count=30", 1);
    EmuDevice *d = t_dev();
    cr_expect_str_eq(emu_props(d)->name, "filegpu");
    cr_expect_eq(emu_props(d)->sm_count, 30, "XGPU_SET wins over the file");
    emu_destroy(d);
}

Test(config, config_file_error_names_file_line_and_key)
{
    const char *path = xt_tmp("350-config-bad.ini");
    FILE *f = fopen(path, "w");
    cr_assert(f);
    fputs("gpu.sm_count = 2\n# fine\ngpu.regs_per_sm = lots\n", f);
    fclose(f);
    setenv("XGPU_CONFIG", path, 1);
    EmuDevice *d = NULL;
    char err[256];
    cr_expect_eq(create(&d, err, sizeof err), EMU_ERR_INVALID_CONFIG);
    cr_expect_null(d);
    cr_expect(strstr(err, "350-config-bad.ini:3:") != NULL, "%s", err);
    cr_expect(strstr(err, "gpu.regs_per_sm") != NULL, "%s", err);
}

Test(config, unknown_key_is_an_error)
{
    setenv("XGPU_SET", "gpu.sm_count=2;gpu.warp_count=3", 1);
    EmuDevice *d = NULL;
    char err[256];
    cr_expect_eq(create(&d, err, sizeof err), EMU_ERR_INVALID_CONFIG);
    cr_expect(strstr(err, "gpu.warp_count") != NULL, "%s", err);
    cr_expect(strstr(err, "unknown") != NULL, "%s", err);
}

Test(config, bad_values_name_the_key)
{
    const char *cases[][2] = {
        {"gpu.sm_count=ten", "gpu.sm_count"},
        {"gpu.sm_count=-1", "gpu.sm_count"},
        {"gpu.sm_count=0", "gpu.sm_count"},
        {"gpu.regs_per_sm=99999999999", "gpu.regs_per_sm"},
        {"gpu.shared_per_block=12X", "gpu.shared_per_block"},
        {"emu.mode=fast", "emu.mode"},
        {"gpu.sm_count", "gpu.sm_count"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        setenv("XGPU_SET", cases[i][0], 1);
        EmuDevice *d = NULL;
        char err[256];
        cr_expect_eq(create(&d, err, sizeof err), EMU_ERR_INVALID_CONFIG, "%s", cases[i][0]);
        cr_expect(strstr(err, cases[i][1]) != NULL, "'%s' -> '%s'", cases[i][0], err);
        emu_destroy(d);
    }
}

Test(config, xgpu_mode)
{
    EmuDevice *d = NULL;
    char err[256];
    setenv("XGPU_MODE", "fast", 1);
    cr_expect_eq(create(&d, err, sizeof err), EMU_ERR_INVALID_CONFIG);
    cr_expect(strstr(err, "XGPU_MODE") && strstr(err, "emu.mode"), "%s", err);
    setenv("XGPU_SET", "emu.mode=timing", 1);
    setenv("XGPU_MODE", "functional", 1);
    cr_expect_eq(create(&d, err, sizeof err), EMU_OK, "XGPU_MODE overrides emu.mode: %s", err);
    emu_destroy(d);
}
