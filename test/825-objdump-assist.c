/*
 * 825-objdump-assist.c - the CABA assist routines in what xgpu-cc writes and what
 * xgpu-objdump shows of them.
 *
 * A sample program as the build compiled it carries the six built-in routines in its
 * device binary's .xgpu.assist section: the default output names them on the info line;
 * --section assist prints each routine's record (algorithm, direction, registers,
 * parameter bytes, instructions) and disassembly; --json --section assist has them with
 * every instruction. xgpu-cc --no-assist leaves the section out ("assist: none", JSON
 * null), and the kernels are the same either way.
 */
#include <criterion/criterion.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xgpu/assist.h"
#include "xgpu/gpubin.h"
#include "xtest.h"

#define OBJDUMP XGPU_BIN_DIR "/xgpu-objdump"
#define SAMPLE XGPU_BUILD_DIR "/samples/vecadd"

static char *objdump(const char *args, const char *path)
{
    char *out = NULL;
    int rc = xt_runf(&out, "%s %s %s 2>&1", OBJDUMP, args, path);
    cr_assert_eq(rc, 0, "xgpu-objdump %s %s: %s", args, path, out);
    return out;
}

static XGpubin *read_fat(const char *path)
{
    size_t len, elflen, next;
    char *buf = xt_read(path, &len), err[256];
    const void *elf;
    XGpubin *g = NULL;
    cr_assert_not_null(buf, "cannot read %s", path);
    cr_assert_eq(xfat_parse(buf, len, &elf, &elflen, &next, err, sizeof err), 0, "%s", err);
    cr_assert_eq(xgpubin_read(elf, elflen, &g, err, sizeof err), 0, "%s", err);
    free(buf);
    return g;
}

Test(objdump_assist, sample_carries_the_six_routines)
{
    uint32_t n;
    const XAssist *t = xgpu_assist_builtin(&n);
    char *out = objdump("--section assist", SAMPLE);
    cr_assert_eq(xt_count(out, "\nassist caba_"), 6, "%s", out);
    for (uint32_t i = 0; i < n; i++) {
        char line[160];
        snprintf(line, sizeof line, "assist %s: %s %s, regs %u, params %u bytes, %u "
                 "instructions\n  code:\n", t[i].name, xgpu_assist_algo_name(t[i].algo),
                 xgpu_assist_dir_name(t[i].dir), t[i].nregs, t[i].param_bytes, t[i].ntext);
        cr_expect(strstr(out, line), "no '%s' in the output", line);
    }
    cr_expect(strstr(out, "      0:  s2r r0, %laneid\n"), "disassembled like a kernel");
    cr_expect(!strstr(out, "\nkernel "), "--section assist alone shows no kernel");
    free(out);
    out = objdump("", SAMPLE); /* the default: named on the info line */
    cr_expect(strstr(out, "assist routines: caba_bdi_decomp, caba_bdi_comp, caba_fpc_decomp, "
                          "caba_fpc_comp, caba_cpack_decomp, caba_cpack_comp\n"), "%s", out);
    cr_expect(!strstr(out, "\nassist caba_"), "the routines' code only when asked");
    free(out);
}

Test(objdump_assist, json)
{
    char *out = objdump("--json --section assist", SAMPLE);
    json_object *doc = json_tokener_parse(out), *in, *mods, *mod, *rs;
    cr_assert_not_null(doc, "%s", out);
    cr_assert(json_object_object_get_ex(doc, "inputs", &in));
    cr_assert(json_object_object_get_ex(json_object_array_get_idx(in, 0), "modules", &mods));
    mod = json_object_array_get_idx(mods, 0);
    cr_assert(json_object_object_get_ex(mod, "assist", &rs) && rs, "no assist array");
    cr_assert_eq(json_object_array_length(rs), 6);
    uint32_t n;
    const XAssist *t = xgpu_assist_builtin(&n);
    for (uint32_t i = 0; i < n; i++) {
        json_object *r = json_object_array_get_idx(rs, i), *v;
        cr_assert(json_object_object_get_ex(r, "name", &v));
        cr_expect_str_eq(json_object_get_string(v), t[i].name);
        cr_assert(json_object_object_get_ex(r, "algo", &v));
        cr_expect_str_eq(json_object_get_string(v), xgpu_assist_algo_name(t[i].algo));
        cr_assert(json_object_object_get_ex(r, "dir", &v));
        cr_expect_str_eq(json_object_get_string(v), xgpu_assist_dir_name(t[i].dir));
        cr_assert(json_object_object_get_ex(r, "regs", &v));
        cr_expect_eq(json_object_get_int(v), (int)t[i].nregs);
        cr_assert(json_object_object_get_ex(r, "param_bytes", &v));
        cr_expect_eq(json_object_get_int(v), (int)t[i].param_bytes);
        cr_assert(json_object_object_get_ex(r, "instructions", &v));
        cr_expect_eq(json_object_array_length(v), t[i].ntext, "%s", t[i].name);
    }
    json_object_put(doc);
    free(out);
}

Test(objdump_assist, no_assist_leaves_the_section_out)
{
    const char *with = xt_tmp("with.fat"), *without = xt_tmp("without.fat");
    char *out = NULL;
    int rc = xt_runf(&out, "%s/xgpu-cc --cuda-device-only %s/samples/vecadd.cu -o %s && "
                     "%s/xgpu-cc --no-assist --cuda-device-only %s/samples/vecadd.cu -o %s",
                     XGPU_BIN_DIR, XGPU_SOURCE_DIR, with, XGPU_BIN_DIR, XGPU_SOURCE_DIR, without);
    cr_assert_eq(rc, 0, "%s", out);
    free(out);
    XGpubin *a = read_fat(with), *b = read_fat(without);
    cr_assert_eq(a->nassist, 6);
    cr_assert_eq(b->nassist, 0);
    cr_assert_null(b->assist);
    cr_assert_eq(a->nkernels, b->nkernels);
    cr_assert_eq(a->ntext, b->ntext);
    cr_assert_eq(memcmp(a->text, b->text, a->ntext * sizeof(XInsn)), 0, "the same kernels");
    xgpubin_free(a);
    xgpubin_free(b);
    out = objdump("--section assist", without);
    cr_expect(strstr(out, "assist: none\n"), "%s", out);
    free(out);
    out = objdump("--json --section assist", without);
    cr_expect(strstr(out, "\"assist\":null"), "%s", out);
    free(out);
}
