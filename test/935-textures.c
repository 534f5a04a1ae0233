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

static void both_modes(const char *name, const char *opt)
{
    const char *exe = xt_compile_e2e(name, opt);
    xt_expect_pass(exe, "");
    char *out = NULL;
    int rc = xt_runf(&out, "XGPU_MODE=functional %s", exe);
    cr_assert_eq(rc, 0, "%s %s, functional mode, exited %d:\n%s", name, opt, rc, out);
    cr_expect(strstr(out, "PASS"), "%s %s, functional mode:\n%s", name, opt, out);
    free(out);
}

Test(textures, references_O2) { both_modes("tex_reference", "-O2"); }
Test(textures, references_O0) { both_modes("tex_reference", "-O0"); }
Test(textures, objects_arrays_surfaces_O2) { both_modes("tex_object", "-O2"); }
Test(textures, objects_arrays_surfaces_O0) { both_modes("tex_object", "-O0"); }
