/*
 * 950-annotations-e2e: annotated CUDA programs end to end. The two annotated samples
 * (xmem_tiled, ldesc_histo) pass at -O2 (as the build compiles them) and at -O0, which
 * checks the runtime's atom and descriptor tables from inside the running program. A
 * program of a .cu and a .c file numbers its atoms across both and records its
 * descriptors per launch. A program compiled by plain clang, without the host pass, gets
 * one-line errors from the runtime and keeps running.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xtest.h"

static void expect_pass(const char *path)
{
    char *out = NULL;
    int rc = xt_runf(&out, "%s", path);
    cr_assert_eq(rc, 0, "%s exited %d:\n%s", path, rc, out);
    cr_assert(strstr(out, "PASS") && !strstr(out, "FAIL"), "%s:\n%s", path, out);
    free(out);
}

Test(annotations, samples_pass_as_built)
{
    expect_pass(XGPU_BUILD_DIR "/samples/xmem_tiled");
    expect_pass(XGPU_BUILD_DIR "/samples/ldesc_histo");
}

static const char *compile(const char *opts, const char *srcs, const char *exe)
{
    char *out = NULL;
    int rc = xt_runf(&out, "cd %s && %s/xgpu-cc %s %s -o %s 2>&1", xt_tmpdir(), XGPU_BIN_DIR,
                     opts, srcs, exe);
    cr_assert_eq(rc, 0, "xgpu-cc %s %s:\n%s", opts, srcs, out);
    free(out);
    return xt_tmp(exe);
}

Test(annotations, samples_pass_at_O0)
{
    expect_pass(compile("-O0", XGPU_SOURCE_DIR "/samples/xmem_tiled.cu", "xmem_O0"));
    expect_pass(compile("-O0", XGPU_SOURCE_DIR "/samples/ldesc_histo.cu", "ldesc_O0"));
}

static const char main_cu[] =
    "#include <cuda_runtime.h>\n"
    "#include <stdio.h>\n"
    "#include <xgpu/ldesc.h>\n"
    "#include <xgpu/xmem.h>\n"
    "extern \"C\" AtomID helper_atom(void);\n"
    "__global__ void scale(float *p) { p[threadIdx.x] *= 2.0f; }\n"
    "int main(void)\n"
    "{\n"
    "    float *d;\n"
    "    cudaMalloc((void **)&d, 32 * sizeof(float));\n"
    "    AtomID a = CreateAtom({XMEM_F32, XMEM_REGULAR, 4, XMEM_READ_WRITE, 9, 9, 4});\n"
    "    AtomID h = helper_atom();\n"
    "    XLDTile t = {{32, 1, 1}, {1, 1, 1}};\n"
    "    for (int i = 0; i < 3; i++) {\n"
    "        t.dtile[0] = 32 - i;\n"
    "        LocalityDescriptor(scale, d, 128, &t, 1, XLD_INTRA_THREAD, XLD_NEARBY,\n"
    "                           XLD_REGULAR, XLD_MAP(1, 0, 0), 3, 4);\n"
    "        scale<<<1, 32>>>(d);\n"
    "    }\n"
    "    XLDescInfo info[2];\n"
    "    unsigned long long no;\n"
    "    int n = xgpuLDescLastLaunch((const void *)scale, info, 2, (uint64_t *)&no);\n"
    "    printf(\"atoms %d %d of %d; %d descriptor at launch %llu dtile %u kernel %s\\n\",\n"
    "           a, h, xgpuAtomCount(), n, no, info[0].tile.dtile[0], info[0].kernel_name);\n"
    "    return cudaDeviceSynchronize();\n"
    "}\n";

static const char helper_c[] =
    "#include <xgpu/xmem.h>\n"
    "AtomID helper_atom(void)\n"
    "{\n"
    "    return CreateAtom({XMEM_I32, XMEM_IRREGULAR, 0, XMEM_READ_ONLY, 0, 0, 4});\n"
    "}\n";

Test(annotations, cuda_and_c_units_share_the_tables)
{
    xt_write(xt_tmp("main.cu"), main_cu);
    xt_write(xt_tmp("helper.c"), helper_c);
    const char *exe = compile("-O2", "main.cu helper.c", "mixed");
    char *out = NULL;
    int rc = xt_runf(&out, "%s", exe);
    cr_assert_eq(rc, 0, "%s", out);
    cr_assert_str_eq(out, "atoms 0 1 of 2; 1 descriptor at launch 3 dtile 30 kernel "
                          "_Z5scalePf\n");
    free(out);
}

Test(annotations, plain_clang_build_gets_errors_not_a_crash)
{
    xt_write(xt_tmp("helper.c"), helper_c);
    xt_write(xt_tmp("plain.c"),
             "#include <stdio.h>\n"
             "#include <xgpu/xmem.h>\n"
             "AtomID helper_atom(void);\n"
             "int main(void)\n"
             "{\n"
             "    AtomID a = helper_atom();\n"
             "    printf(\"id %d map %d count %d\\n\", a, (int)AtomMap(a, &a, 1, 1),\n"
             "           xgpuAtomCount());\n"
             "    return 0;\n"
             "}\n");
    const char *clang = getenv("XGPU_CLANG");
    char *out = NULL;
    int rc = xt_runf(&out, "cd %s && %s -I%s/include plain.c helper.c -o plain -L%s/lib "
                     "-Wl,-rpath,%s/lib -lxgpurt %s 2>&1 && ./plain", xt_tmpdir(),
                     clang && *clang ? clang : "clang-19", XGPU_SOURCE_DIR, XGPU_BUILD_DIR,
                     XGPU_BUILD_DIR, XGPU_TEST_LINK_FLAGS);
    cr_assert_eq(rc, 0, "%s", out);
    cr_assert(strstr(out, "xgpu: helper.c:4: CreateAtom: the call site is in no atom table"),
              "%s", out);
    cr_assert(strstr(out, "xgpu: AtomMap: no atom 255"), "%s", out);
    cr_assert(strstr(out, "id 255 map 1 count 0"), "%s", out);
    free(out);
}
