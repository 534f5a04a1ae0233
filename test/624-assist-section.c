/*
 * 624-assist-section.c - the CABA assist routines as a module carries them (.xgpu.assist)
 * and as the emulator's loader keeps them.
 *
 * The built-in table (xgpu/assist.h, generated at build time) is exactly what assembling
 * each file of emulator/mech/caba/assist/ gives: one routine per (algo, dir), its registers,
 * parameter bytes and instructions. A module assembled from text with the table attached
 * and loaded, from memory (emu_load_module, which deep-copies it) or from its written
 * image (emu_load, through the reader), has all six decoded: emu_module_assist finds each
 * by (algo, dir), with its record, a kernel record for it and the code the decoder makes
 * of the same file loaded as a kernel. A module without the section has none, and the
 * lookups refuse what is not there.
 */
#include <stdio.h>
#include <stdlib.h>

#include "300-emu-util.h"
#include "device.h"
#include "xgpu/assist.h"
#include "xtest.h"

#define ASSIST_DIR XGPU_SOURCE_DIR "/emulator/mech/caba/assist/"

static EmuDevice *dev;

static void setup(void) { dev = t_dev(); }
static void teardown(void) { emu_destroy(dev); }

TestSuite(assist_section, .init = setup, .fini = teardown);

static const char plain[] =
    ".kernel k\n"
    ".param 8\n"
    "    ld.param.u64 r2, [0]\n"
    "    mov.u32 r4, 7\n"
    "    st.global.u32 [r2], r4\n"
    "    exit\n";

/* The file of routine (algo, dir), assembled: its one kernel. */
static XGpubin *assemble_file(unsigned algo, unsigned dir)
{
    char path[512], err[512] = "";
    snprintf(path, sizeof path, "%s%s_%s.s", ASSIST_DIR, xgpu_assist_algo_name(algo),
             xgpu_assist_dir_name(dir));
    char *src = xt_read(path, NULL);
    cr_assert(src, "cannot read %s", path);
    XGpubin *g = NULL;
    cr_assert_eq(xasm_assemble_named(path, src, &g, err, sizeof err), 0, "%s", err);
    free(src);
    cr_assert_eq(g->nkernels, 1, "%s", path);
    return g;
}

static XGpubin *plain_with_builtin(void)
{
    XGpubin *g = NULL;
    char err[256] = "";
    cr_assert_eq(xasm_assemble(plain, &g, err, sizeof err), 0, "%s", err);
    g->assist = (XAssist *)xgpu_assist_builtin(&g->nassist); /* the static table */
    return g;
}

Test(assist_section, builtin_table_is_the_assembled_files)
{
    uint32_t n = 0;
    const XAssist *t = xgpu_assist_builtin(&n);
    cr_assert_eq(n, XASSIST_NALGO * XASSIST_NDIR);
    for (unsigned algo = 0; algo < XASSIST_NALGO; algo++)
        for (unsigned dir = 0; dir < XASSIST_NDIR; dir++) {
            const XAssist *a = xgpu_assist_find(t, n, algo, dir);
            cr_assert_not_null(a, "no routine for %u, %u", algo, dir);
            cr_assert_eq(a - t, algo * XASSIST_NDIR + dir, "the table is sorted by (algo, dir)");
            XGpubin *g = assemble_file(algo, dir);
            const XKernel *k = &g->kernels[0];
            cr_expect_str_eq(a->name, k->name);
            cr_expect_eq(a->nregs, k->nregs, "%s: nregs", a->name);
            cr_expect_eq(a->param_bytes, k->param_bytes, "%s: param_bytes", a->name);
            cr_assert_eq(a->ntext, k->code_count, "%s: ntext", a->name);
            cr_expect_eq(memcmp(a->text, g->text + k->code_start, a->ntext * sizeof(XInsn)), 0,
                         "%s: the instructions differ from its file's", a->name);
            xgpubin_free(g);
        }
    cr_assert_null(xgpu_assist_find(t, n, XASSIST_NALGO, 0));
    cr_assert_null(xgpu_assist_find(t, n, 0, XASSIST_NDIR));
    cr_assert_null(xgpu_assist_find(NULL, 0, 0, 0));
    cr_assert_str_eq(xgpu_assist_algo_name(XASSIST_CPACK), "cpack");
    cr_assert_str_eq(xgpu_assist_dir_name(XASSIST_COMP), "comp");
    cr_assert_null(xgpu_assist_algo_name(XASSIST_NALGO));
    cr_assert_null(xgpu_assist_dir_name(XASSIST_NDIR));
}

/* All six routines of m, as the built-in table has them, decoded as their files are. */
static void expect_all_six(const EmuModule *m)
{
    uint32_t n;
    const XAssist *t = xgpu_assist_builtin(&n);
    for (unsigned algo = 0; algo < XASSIST_NALGO; algo++)
        for (unsigned dir = 0; dir < XASSIST_NDIR; dir++) {
            const XAssist *want = xgpu_assist_find(t, n, algo, dir);
            const EmuAssistCode *c = emu_module_assist(m, algo, dir);
            cr_assert_not_null(c, "%s: not in the module", want->name);
            cr_assert_str_eq(c->a->name, want->name);
            cr_assert_eq(c->a->algo, algo);
            cr_assert_eq(c->a->dir, dir);
            cr_expect_eq(c->a->nregs, want->nregs, "%s: nregs", want->name);
            cr_expect_eq(c->a->param_bytes, want->param_bytes, "%s: param_bytes", want->name);
            cr_expect_eq(c->a->ntext, want->ntext, "%s: ntext", want->name);
            cr_expect_str_eq(c->k.name, want->name);
            cr_expect_eq(c->k.nregs, want->nregs);
            cr_expect_eq(c->k.param_bytes, want->param_bytes);
            cr_expect_eq(c->k.code_count, want->ntext);
            cr_expect_eq(c->k.code_start, 0);
            XGpubin *g = assemble_file(algo, dir); /* the same code loaded as a kernel */
            EmuModule *as_kernel = NULL;
            char err[256] = "";
            cr_assert_eq(emu_load_module(dev, g, &as_kernel, err, sizeof err), EMU_OK, "%s", err);
            const EmuKernelCode *kc = &as_kernel->kcode[0];
            cr_assert_eq(c->code.count, kc->count, "%s: decoded count", want->name);
            cr_expect_eq(c->code.nrows, kc->nrows, "%s: register rows", want->name);
            cr_expect_eq(memcmp(c->code.code, kc->code, kc->count * sizeof *kc->code), 0,
                         "%s: decoded differently from its file", want->name);
            xgpubin_free(g);
        }
}

Test(assist_section, loaded_from_memory)
{
    XGpubin *g = plain_with_builtin();
    EmuModule *m = NULL;
    char err[256] = "";
    cr_assert_eq(emu_load_module(dev, g, &m, err, sizeof err), EMU_OK, "%s", err);
    g->assist = NULL, g->nassist = 0; /* the module keeps its own copy */
    xgpubin_free(g);
    cr_assert_eq(emu_module_bin(m)->nassist, 6);
    cr_assert_neq(emu_module_bin(m)->assist, (XAssist *)xgpu_assist_builtin(NULL));
    expect_all_six(m);
    cr_assert_null(emu_module_assist(m, XASSIST_NALGO, XASSIST_DECOMP));
    cr_assert_null(emu_module_assist(m, XASSIST_BDI, XASSIST_NDIR));
}

Test(assist_section, loaded_from_its_image)
{
    XGpubin *g = plain_with_builtin();
    void *img = NULL;
    size_t len = 0;
    char err[256] = "";
    cr_assert_eq(xgpubin_write_mem(g, &img, &len, err, sizeof err), 0, "%s", err);
    xgpubin_free(g);
    EmuModule *m = NULL;
    cr_assert_eq(emu_load(dev, img, len, &m, err, sizeof err), EMU_OK, "%s", err);
    free(img);
    expect_all_six(m);
    cr_assert_eq(emu_kernel(m, "k"), 0, "the kernels are as they were");
    cr_assert_eq(emu_kernel(m, "caba_bdi_decomp"), -1, "a routine is no kernel");
}

Test(assist_section, module_without_the_section)
{
    EmuModule *m = t_load(dev, plain);
    cr_assert_eq(emu_module_bin(m)->nassist, 0);
    cr_assert_null(emu_module_bin(m)->assist);
    for (unsigned algo = 0; algo < XASSIST_NALGO; algo++)
        for (unsigned dir = 0; dir < XASSIST_NDIR; dir++)
            cr_assert_null(emu_module_assist(m, algo, dir));
    cr_assert_null(emu_module_assist(NULL, XASSIST_BDI, XASSIST_DECOMP));
}
