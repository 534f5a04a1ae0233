/*
 * 935-textures: texture references and objects, CUDA arrays and surfaces, end to end.
 * test/e2e/tex_reference.cu and tex_object.cu check every fetch against values worked
 * out by hand (addressing, point, bilinear and trilinear filtering with the 8-bit
 * fraction, read modes, surfaces and their boundary modes); each must print PASS at -O2
 * and -O0, in timing and in functional mode.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "xtest.h"

Test(textures, references_O2) { xt_expect_pass_both_modes("tex_reference", "-O2"); }
Test(textures, references_O0) { xt_expect_pass_both_modes("tex_reference", "-O0"); }
Test(textures, objects_arrays_surfaces_O2) { xt_expect_pass_both_modes("tex_object", "-O2"); }
Test(textures, objects_arrays_surfaces_O0) { xt_expect_pass_both_modes("tex_object", "-O0"); }
