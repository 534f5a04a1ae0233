/*
 * 947-texture-misuse: texture and surface objects misused by a CUDA program are named for
 * what they are. cudaCreateTextureObject with a resType that is no cudaResourceType
 * returns cudaErrorInvalidValue and says "invalid texture object" (not that mipmapped
 * arrays are unsupported); a kernel fetching through a made-up, zero or destroyed handle
 * faults with a report naming the invalid texture (or surface) object and the kernel
 * argument, not a misaligned load or a freed allocation the program never made, under
 * every emu.memcheck mode; a live object fetches its values without a report.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xtest.h"

static const char *src =
    "#include <cstdio>\n"
    "#include <cstring>\n"
    "__global__ void k(cudaTextureObject_t t, float *o) { o[threadIdx.x] = "
    "tex1Dfetch<float>(t, threadIdx.x); }\n"
    "__global__ void ks(cudaSurfaceObject_t s, float *o) { float v; surf2Dread(&v, s, 4 * "
    "threadIdx.x, 0); o[threadIdx.x] = v; }\n"
    "int main(int argc, char **argv) {\n"
    "  const char *c = argv[1]; float h[32], *f; cudaMalloc((void **)&f, sizeof h);\n"
    "  for (int i = 0; i < 32; i++) h[i] = i + 0.5f;\n"
    "  cudaMemcpy(f, h, sizeof h, cudaMemcpyHostToDevice);\n"
    "  cudaResourceDesc r; memset(&r, 0, sizeof r); cudaTextureDesc td; memset(&td, 0, sizeof td);\n"
    "  r.resType = cudaResourceTypeLinear; r.res.linear.devPtr = f;\n"
    "  r.res.linear.sizeInBytes = sizeof h; r.res.linear.desc = cudaCreateChannelDesc<float>();\n"
    "  cudaTextureObject_t t = 0;\n"
    "  if (!strcmp(c, \"badtype\")) {\n"
    "    r.resType = (cudaResourceType)99;\n"
    "    cudaError_t e = cudaCreateTextureObject(&t, &r, &td, NULL);\n"
    "    printf(\"create %s t %llu\\n\", cudaGetErrorName(e), t); return 0;\n"
    "  }\n"
    "  if (!strcmp(c, \"surface\")) {\n"
    "    cudaArray_t a; cudaChannelFormatDesc cd = cudaCreateChannelDesc<float>();\n"
    "    cudaMallocArray(&a, &cd, 32, 1, cudaArraySurfaceLoadStore);\n"
    "    cudaResourceDesc sr; memset(&sr, 0, sizeof sr); sr.resType = cudaResourceTypeArray;\n"
    "    sr.res.array.array = a; cudaSurfaceObject_t s;\n"
    "    cudaCreateSurfaceObject(&s, &sr); cudaDestroySurfaceObject(s);\n"
    "    ks<<<1, 32>>>(s, f);\n"
    "  } else {\n"
    "    if (!strcmp(c, \"madeup\")) t = 12345;\n"
    "    if (!strcmp(c, \"destroyed\") || !strcmp(c, \"valid\"))\n"
    "      cudaCreateTextureObject(&t, &r, &td, NULL);\n"
    "    if (!strcmp(c, \"destroyed\")) cudaDestroyTextureObject(t);\n"
    "    float *o; cudaMalloc((void **)&o, sizeof h);\n"
    "    k<<<1, 32>>>(t, o);\n"
    "    cudaMemcpy(h, o, sizeof h, cudaMemcpyDeviceToHost);\n"
    "  }\n"
    "  printf(\"sync %s h[31] = %g\\n\", cudaGetErrorName(cudaDeviceSynchronize()), h[31]);\n"
    "  return 0;\n"
    "}\n";

static const char *exe(void)
{
    static char path[512];
    if (path[0])
        return path;
    const char *cu = xt_tmp("texmis.cu");
    cr_assert_eq(xt_write(cu, src), 0);
    snprintf(path, sizeof path, "%s", xt_tmp("texmis"));
    char *out = NULL;
    int rc = xt_runf(&out, "%s/xgpu-cc -O2 %s -o %s", XGPU_BIN_DIR, cu, path);
    cr_assert_eq(rc, 0, "xgpu-cc: %s", out);
    free(out);
    return path;
}

/* Stdout and stderr of case c under XGPU_SET=set, functional mode unless timing. */
static char *run(const char *c, const char *set, int timing)
{
    char *out = NULL;
    int rc = xt_runf(&out, "XGPU_SET='%s' XGPU_MODE=%s %s %s 2>&1", set,
                     timing ? "timing" : "functional", exe(), c);
    cr_assert_eq(rc, 0, "%s: exit %d: %s", c, rc, out);
    return out;
}

Test(texture_misuse, invalid_resource_type_is_an_invalid_value)
{
    char *out = run("badtype", "", 0);
    cr_expect(strstr(out, "xgpu: invalid texture object: resType 99 is not a cudaResourceType\n"),
              "%s", out);
    cr_expect(strstr(out, "create cudaErrorInvalidValue t 0"), "%s", out);
    cr_expect(!strstr(out, "mipmapped"), "%s", out);
    free(out);
}

Test(texture_misuse, made_up_zero_and_destroyed_handles_are_named)
{
    static const struct {
        const char *c, *want;
    } cases[] = {
        {"madeup", "Address 0x3051: invalid texture object 0x3039 (kernel argument 0, "
                   "cudaTextureObject_t t): no texture object has this handle\n"},
        {"zero", "Address 0x18: invalid texture object 0x0 (kernel argument 0, "
                 "cudaTextureObject_t t): no texture object has this handle\n"},
        {"destroyed", "(kernel argument 0, cudaTextureObject_t t): it was destroyed\n"},
        {"surface", "(kernel argument 0, cudaSurfaceObject_t s): it was destroyed\n"},
    };
    const char *sets[] = {"", "emu.memcheck=on", "emu.memcheck=off"};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        for (int m = 0; m < (i == 2 ? 3 : 1); m++) { /* every mode for one case */
            char *out = run(cases[i].c, sets[m], i == 2 && m == 0);
            cr_expect(strstr(out, cases[i].want), "%s '%s': expected '%s' in:\n%s", cases[i].c,
                      sets[m], cases[i].want, out);
            cr_expect(strstr(out, "========= Invalid __global__ read of size 4 bytes\n"), "%s",
                      out);
            cr_expect(strstr(out, "sync cudaErrorIllegalAddress"), "%s", out);
            cr_expect(!strstr(out, "misaligned") && !strstr(out, "freed allocation"), "%s", out);
            free(out);
        }
}

Test(texture_misuse, a_live_object_fetches_without_a_report)
{
    char *out = run("valid", "", 1);
    cr_expect_str_eq(out, "sync cudaSuccess h[31] = 31.5\n");
    free(out);
}
