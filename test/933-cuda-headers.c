/*
 * 933-cuda-headers: programs written for nvcc compile unmodified against xgpu's CUDA
 * headers.
 *
 * Each test/e2e/hdr_NAME.cu is self-checking and must print PASS: cuda_runtime.h brings
 * in the C library headers NVIDIA's does (hdr_libc), device memcpy/memset, __trap,
 * CUDART_CB and the typed allocation calls (hdr_device), <cuda.h>'s driver types
 * (hdr_cuda_h), the integer and mixed-type math overloads (hdr_math) and half arithmetic
 * on the host and the device (hdr_half). The headers may be included implicitly first
 * and again after system headers. A library xgpu does not provide (thrust, cub) stops
 * the compile with an error that names the including line.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xtest.h"

#define CC XGPU_BIN_DIR "/xgpu-cc"

static void run_pass(const char *name, const char *opt)
{
    xt_expect_pass(xt_compile_e2e(name, opt), "");
}

#define HDR(name, opt, suffix) \
    Test(headers, name##suffix) { run_pass("hdr_" #name, opt); }

HDR(libc, "-O2", _O2)
HDR(device, "-O2", _O2)
HDR(device, "-O0", _O0)
HDR(cuda_h, "-O2", _O2)
HDR(math, "-O2", _O2)
HDR(math, "-O0", _O0)
HDR(half, "-O2", _O2)
HDR(half, "-O0", _O0)

/* cuda_runtime.h included implicitly first (as xgpu-cc and nvcc do), again after C++
 * system headers, and twice: the host and device libraries still resolve. */
Test(headers, include_first_twice_and_after_system_headers)
{
    const char *src = xt_tmp("order.cu"), *bin = xt_tmp("order");
    xt_write(src,
             "#include <vector>\n#include <algorithm>\n#include <cmath>\n#include <iostream>\n"
             "#include <cuda_runtime.h>\n#include <cuda_runtime.h>\n#include <math.h>\n"
             "#include <stdlib.h>\n#include <string>\n#include <complex>\n"
             "__global__ void k(float *p) { float t[2]; memcpy(t, p, sizeof t);\n"
             "  p[2] = sqrtf(t[0]) + std::max(t[1], 1.0f) + pow(t[1], 2); }\n"
             "int main() { std::vector<float> v = {16.0f, 3.0f, 0.0f}; float *d;\n"
             "  cudaMalloc(&d, 3 * sizeof(float));\n"
             "  cudaMemcpy(d, v.data(), 3 * sizeof(float), cudaMemcpyHostToDevice);\n"
             "  k<<<1, 1>>>(d);\n"
             "  cudaMemcpy(v.data(), d, 3 * sizeof(float), cudaMemcpyDeviceToHost);\n"
             "  std::cout << (v[2] == 16.0f ? \"PASS\" : \"FAIL\") << std::endl;\n"
             "  return v[2] != 16.0f; }\n");
    char *out = NULL;
    int rc = xt_runf(&out, CC " -include cuda_runtime.h %s -o %s", src, bin);
    cr_assert_eq(rc, 0, "xgpu-cc failed:\n%s", out);
    free(out);
    xt_expect_pass(bin, "");
}

/* <cuda.h> from plain C: the driver types and codes, no CUDA compilation needed. */
Test(headers, cuda_h_from_c)
{
    const char *src = xt_tmp("driver.c"), *bin = xt_tmp("driver");
    xt_write(src,
             "#include <cuda.h>\n#include <stdio.h>\n"
             "int main(void) { CUresult r = CUDA_ERROR_NO_DEVICE; CUdeviceptr p = 0;\n"
             "  CUcontext c = 0; CUmodule m = 0; CUfunction f = 0; CUstream s = 0;\n"
             "  CUevent e = 0; CUdevice d = 0;\n"
             "  int ok = r == 100 && CUDA_SUCCESS == 0 && CUDA_VERSION == 12000 &&\n"
             "    sizeof p == 8 && !c && !m && !f && !s && !e && !d;\n"
             "  printf(\"%s\\n\", ok ? \"PASS\" : \"FAIL\"); return !ok; }\n");
    char *out = NULL;
    int rc = xt_runf(&out, CC " -Wall -Wextra -Werror -pedantic %s -o %s", src, bin);
    cr_assert_eq(rc, 0, "xgpu-cc failed:\n%s", out);
    free(out);
    xt_expect_pass(bin, "");
}

/* Appends to list every file under dir (relative to base), recursively. */
static int list_headers(const char *base, const char *dir, char names[][256], int n, int max)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", base, dir);
    DIR *d = opendir(path);
    cr_assert(d, "cannot open %s", path);
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char rel[256];
        int k = snprintf(rel, sizeof rel, "%s/%s", dir, e->d_name);
        cr_assert_lt(k, (int)sizeof rel);
        snprintf(path, sizeof path, "%s/%s", base, rel);
        DIR *sub = opendir(path);
        if (sub) {
            closedir(sub);
            n = list_headers(base, rel, names, n, max);
        } else {
            cr_assert_lt(n, max);
            snprintf(names[n++], 256, "%s", rel);
        }
    }
    closedir(d);
    return n;
}

/* Every shipped thrust and cub header stops the compile with "<lib> is not supported by
 * xgpu", located at the user's #include line. */
Test(headers, thrust_and_cub_are_located_errors)
{
    const char *inc = XGPU_SOURCE_DIR "/include/xgpu/cuda";
    static char names[256][256];
    int n = list_headers(inc, "thrust", names, 0, 256);
    int nthrust = n;
    n = list_headers(inc, "cub", names, n, 256);
    cr_assert_geq(nthrust, 14, "thrust headers: %d", nthrust);
    cr_assert_gt(n, nthrust, "no cub headers");

    const char *src = xt_tmp("uses_thrust.cu");
    static char text[65536];
    size_t len = (size_t)snprintf(text, sizeof text, "#include <cuda_runtime.h>\n\n");
    for (int i = 0; i < n; i++) /* header i on line i + 3 */
        len += (size_t)snprintf(text + len, sizeof text - len, "#include <%s>\n", names[i]);
    snprintf(text + len, sizeof text - len, "int main() { return 0; }\n");
    xt_write(src, text);
    char *out = NULL;
    int rc = xt_runf(&out, CC " -ferror-limit=0 -c %s -o %s", src, xt_tmp("uses_thrust.o"));
    cr_assert_neq(rc, 0, "compiled:\n%s", out);
    for (int i = 0; i < n; i++) {
        char at[64], what[256], msg[320];
        snprintf(at, sizeof at, "uses_thrust.cu:%d:\n", i + 3);
        const char *p = strstr(out, at);
        cr_assert(p, "no error located at %s for <%s>:\n%s", at, names[i], out);
        const char *line = p + strlen(at), *end = strchr(line, '\n');
        snprintf(what, sizeof what, "%s", names[i]);
        char *slash = strchr(what, '/');
        *slash = 0; /* the library: thrust or cub */
        snprintf(msg, sizeof msg, "error: \"%s is not supported by xgpu\"", what);
        const char *hit = strstr(line, msg), *file = strstr(line, names[i]);
        cr_assert(hit && file && end && hit < end && file < end,
                  "<%s> at line %d: not the expected error:\n%.300s", names[i], i + 3, line);
    }
    free(out);
}
