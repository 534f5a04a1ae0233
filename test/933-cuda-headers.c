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
