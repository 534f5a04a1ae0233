/*
 * 935-textures: texture references and objects, CUDA arrays and surfaces, end to end.
 * test/e2e/tex_reference.cu and tex_object.cu check every fetch against values worked
 * out by hand (addressing, point, bilinear and trilinear filtering with the 8-bit
 * fraction, read modes, surfaces and their boundary modes); each must print PASS at -O2
 * and -O0, in timing and in functional mode.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xtest.h"

Test(textures, references_O2) { xt_expect_pass_both_modes("tex_reference", "-O2"); }
Test(textures, references_O0) { xt_expect_pass_both_modes("tex_reference", "-O0"); }
Test(textures, objects_arrays_surfaces_O2) { xt_expect_pass_both_modes("tex_object", "-O2"); }
Test(textures, objects_arrays_surfaces_O0) { xt_expect_pass_both_modes("tex_object", "-O0"); }

/* In timing mode the texel loads go through the texture cache: its counters move, the
 * fetches hit in it (the samples reread texels), and xgpu-objdump --asm shows ld.tex. Idle
 * skipping stays exact with texture traffic. */
static char *tex_counters(const char *exe, const char *set, const char *json)
{
    char *out = NULL;
    int rc = xt_runf(&out,
                     "XGPU_SET='%s' XGPU_STATS=%s %s >/dev/null 2>&1 && python3 -c \""
                     "import json,sys; d=json.load(open(sys.argv[1])); "
                     "t=[l['timing'] for l in d['launches']]; "
                     "print(*[sum(x[k] for x in t) for k in ('tex.accesses','tex.hits',"
                     "'tex.misses')], sum(l['cycles'] for l in d['launches']))\" %s",
                     set, json, exe, json);
    cr_assert_eq(rc, 0, "%s", out);
    return out;
}

Test(textures, texel_loads_use_the_texture_cache)
{
    const char *exe = xt_compile_e2e("tex_reference", "-O2");
    char *dis = NULL;
    cr_assert_eq(xt_runf(&dis, "%s/xgpu-objdump --asm %s | grep -c 'ld\\.tex'", XGPU_BIN_DIR, exe),
                 0, "%s", dis);
    cr_expect_gt(atoi(dis), 0);
    char *a = tex_counters(exe, "emu.skip_idle=1", xt_tmp("tex1.json"));
    char *b = tex_counters(exe, "emu.skip_idle=0", xt_tmp("tex0.json"));
    unsigned long long acc, hits, misses, cycles;
    cr_assert_eq(sscanf(a, "%llu %llu %llu %llu", &acc, &hits, &misses, &cycles), 4, "%s", a);
    cr_expect_gt(acc, 0);
    cr_expect_gt(hits, 0);
    cr_expect_gt(misses, 0);
    cr_expect_str_eq(a, b, "idle skipping changed the texture run:\n%s\n%s", a, b);
    free(dis);
    free(a);
    free(b);
}
