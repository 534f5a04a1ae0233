/*
 * 948-vector-alignment: a 16-byte vector access (float4, double2, int4) must be 16-byte
 * aligned, as on a GPU, although xgpu performs it as several 8- or 4-byte accesses. A
 * CUDA program loads and stores each type through a char pointer at an aligned offset
 * and at one that is 8-byte but not 16-byte aligned. The aligned accesses move the right
 * bytes; each misaligned one ends its launch with cudaErrorMisalignedAddress (whatever
 * emu.memcheck says) and a report that names the 16-byte requirement. Both modes, -O0
 * and -O2. The program resets the device after each fault and goes on.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xtest.h"

/* For each type and direction, at offsets 0 and 8: one warp copies 32 vectors between a
 * byte buffer (at the offset) and a vector array; prints the synchronization's error and
 * whether the bytes that arrived are the ones sent. */
static const char *src =
    "#include <cstdio>\n"
    "#include <cstring>\n"
    "template <class T> __global__ void ldk(const char *p, T *o, int off) {\n"
    "  o[threadIdx.x] = *(const T *)(p + off + sizeof(T) * threadIdx.x);\n"
    "}\n"
    "template <class T> __global__ void stk(char *p, const T *in, int off) {\n"
    "  *(T *)(p + off + sizeof(T) * threadIdx.x) = in[threadIdx.x];\n"
    "}\n"
    "template <class T> static void run(const char *name, int store, int off) {\n"
    "  const int n = 32 * sizeof(T) + 16;\n"
    "  unsigned char h[n], back[n];\n"
    "  for (int i = 0; i < n; i++) h[i] = (unsigned char)(i * 7 + 1);\n"
    "  char *p; T *v;\n"
    "  cudaMalloc(&p, n); cudaMalloc(&v, n);\n"
    "  cudaMemset(p, 0, n);\n"
    "  cudaMemcpy(store ? (void *)v : (void *)p, h, n, cudaMemcpyHostToDevice);\n"
    "  if (store) stk<T><<<1, 32>>>(p, v, off); else ldk<T><<<1, 32>>>(p, v, off);\n"
    "  cudaError_t e = cudaDeviceSynchronize();\n"
    "  int same = 0;\n"
    "  if (e == cudaSuccess) {\n"
    "    cudaMemcpy(back, store ? (void *)p : (void *)v, n, cudaMemcpyDeviceToHost);\n"
    "    same = store ? !memcmp(back + off, h, 32 * sizeof(T))\n"
    "                 : !memcmp(back, h + off, 32 * sizeof(T));\n"
    "  }\n"
    "  printf(\"%s %s off %d: %s %s\\n\", name, store ? \"st\" : \"ld\", off,\n"
    "         cudaGetErrorName(e), same ? \"same\" : \"differ\");\n"
    "  if (e != cudaSuccess) cudaDeviceReset();\n"
    "  else { cudaFree(p); cudaFree(v); }\n"
    "}\n"
    "int main() {\n"
    "  for (int off = 0; off <= 8; off += 8)\n"
    "    for (int st = 0; st < 2; st++) {\n"
    "      run<float4>(\"float4\", st, off);\n"
    "      run<double2>(\"double2\", st, off);\n"
    "      run<int4>(\"int4\", st, off);\n"
    "    }\n"
    "  printf(\"end\\n\");\n"
    "  return 0;\n"
    "}\n";

static const char *compile(const char *opt)
{
    static char path[2][512];
    char *p = path[opt[2] == '2'];
    const char *cu = xt_tmp("vec.cu");
    cr_assert_eq(xt_write(cu, src), 0);
    snprintf(p, 512, "%s", xt_tmp(opt[2] == '2' ? "vec-O2" : "vec-O0"));
    char *out = NULL;
    int rc = xt_runf(&out, "cd %s && %s/xgpu-cc %s vec.cu -o %s", xt_tmpdir(), XGPU_BIN_DIR,
                     opt, p);
    cr_assert_eq(rc, 0, "xgpu-cc %s: %s", opt, out);
    free(out);
    return p;
}

static void check(const char *exe, const char *opt, const char *mode)
{
    char errf[512], *out = NULL;
    snprintf(errf, sizeof errf, "%s", xt_tmp("stderr.txt"));
    int rc = xt_runf(&out, "XGPU_MODE=%s %s 2>%s", mode, exe, errf);
    char *err = xt_read(errf, NULL);
    cr_assert_eq(rc, 0, "%s %s exited %d:\n%s\n%s", opt, mode, rc, out, err ? err : "");
    static const char *const types[] = {"float4", "double2", "int4"};
    char want[128];
    for (size_t t = 0; t < 3; t++)
        for (int st = 0; st < 2; st++) {
            snprintf(want, sizeof want, "%s %s off 0: cudaSuccess same", types[t],
                     st ? "st" : "ld");
            cr_expect(strstr(out, want), "%s %s: expected '%s' in:\n%s", opt, mode, want, out);
            snprintf(want, sizeof want, "%s %s off 8: cudaErrorMisalignedAddress", types[t],
                     st ? "st" : "ld");
            cr_expect(strstr(out, want), "%s %s: expected '%s' in:\n%s", opt, mode, want, out);
        }
    cr_expect(strstr(out, "end"), "%s %s: the program did not run on:\n%s", opt, mode, out);
    /* one report per misaligned launch, each naming the vector's alignment */
    cr_expect_eq(xt_count(err, "must be 16-byte aligned"), 6, "%s %s: stderr:\n%s", opt, mode,
                 err);
    cr_expect(strstr(err, "misaligned load of ") && strstr(err, "misaligned store of "),
              "%s %s: stderr:\n%s", opt, mode, err);
    free(out);
    free(err);
}

/* One compile per optimization level; the alignment is in the code, where the
 * disassembly shows it on the first part of each vector access. */
static void check_opt(const char *opt)
{
    const char *exe = compile(opt);
    check(exe, opt, "timing");
    check(exe, opt, "functional");
    char *out = NULL;
    int rc = xt_runf(&out, "%s/xgpu-objdump --section text %s", XGPU_BIN_DIR, exe);
    cr_assert_eq(rc, 0, "xgpu-objdump: %s", out);
    cr_expect(strstr(out, ".a16 "), "%s: no .a16 access in:\n%s", opt, out);
    free(out);
}

Test(vector_alignment, both_modes_O0, .timeout = 120) { check_opt("-O0"); }
Test(vector_alignment, both_modes_O2, .timeout = 120) { check_opt("-O2"); }
