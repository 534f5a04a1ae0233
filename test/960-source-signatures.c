/*
 * 960-source-signatures: xgpu-cc's front end records each kernel's source signature in
 * .xgpu.kernels. A .cu with plain, extern "C", namespaced, class-scope, macro-made and
 * template kernels is compiled with --cuda-device-only; the fat container is read back
 * and every kernel's signature compared with the exact expected string (overloaded
 * kernel templates get none, by design). Also: user -D
 * flags reach the parse, device IR inputs carry no signatures, and a source with errors
 * gets clang's diagnostics once.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xgpu/gpubin.h"
#include "xtest.h"

#define CC XGPU_BIN_DIR "/xgpu-cc"

static const char *source =
    "#include <cuda_runtime.h>\n"
    "typedef unsigned int u32;\n"
    "struct Pair { int a; float b; };\n"
    "__global__ void saxpy(int n, float a, const float *x, float *y) { }\n"
    "extern \"C\" __global__ void plain_c(int *out, int) { }\n"
    "extern \"C\" { __global__ void in_block(const Pair *p, Pair q) { } }\n"
    "namespace geo { struct Vec { float x, y; };\n"
    "namespace inner {\n"
    "__global__ void move(geo::Vec v, Vec *out, u32 *__restrict__ q, float arr[],\n"
    "                     void (*fp)(int)) { }\n"
    "} }\n"
    "namespace { __global__ void hidden(double d) { } }\n"
    "struct Holder { __global__ static void member(long k) { } };\n"
    "__global__ void redeclared(int first);\n"
    "__global__ void redeclared(int second) { }\n"
    "#define MAKE(name) __global__ void name(short s) { }\n"
    "MAKE(from_macro)\n"
    "template <typename T, int N> __global__ void tk(T *x, const T &r, int n) { }\n"
    "template <> __global__ void tk<char, 1>(char *c, const char &r, int n) { }\n"
    "namespace alg { template <typename T> __global__ void fill(T *x, T v) { } }\n"
    "template <bool B, int N> __global__ void flag(int x) { }\n"
    "template <> __global__ void flag<true, -2>(int x) { }\n"
    "template <typename T> __global__ void ov(T *v) { }\n"
    "template <typename T> __global__ void ov(T *v, int n) { }\n"
    "void host(float *f, int *i) {\n"
    "    tk<float, 4><<<1, 1>>>(f, 1.0f, 3);\n"
    "    alg::fill<<<1, 1>>>(i, 7);\n"
    "    Holder::member<<<1, 1>>>(5);\n"
    "    ov<<<1, 1>>>(f);\n"
    "    ov<<<1, 1>>>(f, 2);\n"
    "}\n";

static XGpubin *compile(const char *name, const char *text, const char *flags)
{
    char src[256], fat[256], err[256];
    snprintf(src, sizeof src, "%s", text ? xt_tmp(name) : name);
    snprintf(fat, sizeof fat, "%s.fatbin", xt_tmp(text ? name : "ir"));
    if (text)
        cr_assert_eq(xt_write(src, text), 0);
    char *out = NULL;
    int rc = xt_runf(&out, CC " --cuda-device-only %s %s -o %s", flags, src, fat);
    cr_assert_eq(rc, 0, "xgpu-cc exited %d:\n%s", rc, out);
    free(out);
    size_t len = 0;
    char *buf = xt_read(fat, &len);
    cr_assert(buf, "no %s", fat);
    const void *elf;
    size_t elflen, next;
    XGpubin *g = NULL;
    cr_assert_eq(xfat_parse(buf, len, &elf, &elflen, &next, err, sizeof err), 0, "%s", err);
    cr_assert_eq(xgpubin_read(elf, elflen, &g, err, sizeof err), 0, "%s", err);
    free(buf);
    return g;
}

static void expect_sig(const XGpubin *g, const char *kernel, const char *want)
{
    int k = xgpubin_find_kernel(g, kernel);
    cr_assert_geq(k, 0, "no kernel %s", kernel);
    cr_expect_str_eq(g->kernels[k].signature, want, "kernel %s", kernel);
}

Test(signatures, every_kind_of_kernel)
{
    XGpubin *g = compile("sigs.cu", source, "");
    expect_sig(g, "_Z5saxpyifPKfPf", "void saxpy(int n, float a, const float *x, float *y)");
    expect_sig(g, "plain_c", "void plain_c(int *out, int)");
    expect_sig(g, "in_block", "void in_block(const Pair *p, Pair q)");
    expect_sig(g, "_ZN3geo5inner4moveENS_3VecEPS1_PjPfPFviE",
               "void geo::inner::move(geo::Vec v, Vec *out, u32 *__restrict q, float arr[], "
               "void (*fp)(int))");
    expect_sig(g, "_ZN12_GLOBAL__N_16hiddenEd", "void (anonymous namespace)::hidden(double d)");
    expect_sig(g, "_ZN6Holder6memberEl", "void Holder::member(long k)");
    expect_sig(g, "_Z10redeclaredi", "void redeclared(int second)");
    expect_sig(g, "_Z10from_macros", "void from_macro(short s)");
    /* an explicit specialization is a function of its own */
    expect_sig(g, "_Z2tkIcLi1EEvPT_RKS0_i", "void tk<char, 1>(char *c, const char &r, int n)");
    /* implicit instantiations carry their template's declaration */
    expect_sig(g, "_Z2tkIfLi4EEvPT_RKS0_i",
               "template <typename T, int N> void tk(T *x, const T &r, int n)");
    expect_sig(g, "_ZN3alg4fillIiEEvPT_S1_", "template <typename T> void alg::fill(T *x, T v)");
    expect_sig(g, "_Z4flagILb1ELin2EEvi", "void flag<true, -2>(int x)");
    /* overloaded templates: their instantiations cannot be told apart by name prefix */
    expect_sig(g, "_Z2ovIfEvPT_", "");
    expect_sig(g, "_Z2ovIfEvPT_i", "");
    cr_expect_eq(g->nkernels, 14);
    xgpubin_free(g);
}

/* The parse sees the same macros as the device compile. */
Test(signatures, user_defines_reach_the_parse)
{
    static const char *text = "#include <cuda_runtime.h>\n"
                              "#ifdef WITH_COUNT\n"
                              "__global__ void k(int count) { }\n"
                              "#else\n"
                              "__global__ void k(float scale) { }\n"
                              "#endif\n";
    XGpubin *g = compile("defs.cu", text, "-DWITH_COUNT");
    expect_sig(g, "_Z1ki", "void k(int count)");
    xgpubin_free(g);
    g = compile("defs2.cu", text, "");
    expect_sig(g, "_Z1kf", "void k(float scale)");
    xgpubin_free(g);
}

/* Device IR has no source: its kernels carry no signature. */
Test(signatures, device_ir_has_none)
{
    XGpubin *g = compile(XGPU_SOURCE_DIR "/test/golden/byval.ll", NULL, "");
    cr_assert_gt(g->nkernels, 0);
    for (uint32_t i = 0; i < g->nkernels; i++)
        cr_expect_str_eq(g->kernels[i].signature, "", "kernel %s", g->kernels[i].name);
    xgpubin_free(g);
}

/* Errors are clang's, printed once: the front end adds nothing. */
Test(signatures, errors_reported_once)
{
    const char *src = xt_tmp("bad.cu");
    cr_assert_eq(xt_write(src, "#include <cuda_runtime.h>\n"
                               "__global__ void k(int n) { undeclared_thing(n); }\n"), 0);
    char *out = NULL;
    int rc = xt_runf(&out, CC " --cuda-device-only %s -o %s.fatbin", src, src);
    cr_assert_neq(rc, 0);
    const char *first = strstr(out, "undeclared_thing");
    cr_assert(first, "%s", out);
    cr_expect_null(strstr(strstr(out, "error:") + 1, "error:"), "%s", out);
    free(out);
}
