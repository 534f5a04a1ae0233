/*
 * 970-wmma-e2e: CUDA warp matrix programs (mma.h) end to end.
 *
 * test/e2e/wmma_cases.cu checks every accepted combination of layouts and accumulator
 * formats bit for bit against the documented arithmetic, in global and shared memory,
 * and that a wmma reached by half a warp fails the launch; it must print PASS at -O2 and
 * -O0, in functional and timing mode, and with registers so few that fragments spill.
 * The wmma samples must pass in both modes with the same number of warp instructions
 * (the timing model decides only when tensor steps run). An unsupported use of the API
 * (saturation) is a located compile error.
 */
#include <criterion/criterion.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xtest.h"

static void run_cases(const char *opt, const char *mode)
{
    const char *bin = xt_compile_e2e("wmma_cases", opt);
    char *out = NULL;
    int rc = xt_runf(&out, "XGPU_MODE=%s %s", mode, bin);
    cr_assert_eq(rc, 0, "wmma_cases %s %s exited %d:\n%s", opt, mode, rc, out);
    cr_assert(out && strstr(out, "wmma_cases: PASS"), "%s", out);
    cr_expect(strstr(out, "hmma with inactive lanes"), "no fault report:\n%s", out);
    free(out);
}

Test(wmma, cases_O2_functional) { run_cases("-O2", "functional"); }
Test(wmma, cases_O2_timing) { run_cases("-O2", "timing"); }
Test(wmma, cases_O0_functional) { run_cases("-O0", "functional"); }
/* 16 registers: fragments spill to local memory around the tensor steps */
Test(wmma, cases_spilled_functional) { run_cases("-O2 --max-regs=16", "functional"); }

/* Total warp instructions of a sample's run in mode; -1 unless it passed. */
static long long warp_insns(const char *name, const char *mode)
{
    char file[200];
    snprintf(file, sizeof file, "970-%s-%s.json", name, mode);
    const char *stats = xt_tmp(file);
    char *out = NULL;
    int rc = xt_runf(&out, "XGPU_MODE=%s XGPU_STATS=%s %s/samples/%s", mode, stats,
                     XGPU_BUILD_DIR, name);
    int ok = rc == 0 && out && strstr(out, "PASS");
    cr_expect(ok, "%s in %s mode:\n%s", name, mode, out);
    free(out);
    json_object *root = json_object_from_file(stats), *launches, *v;
    long long n = 0;
    if (!ok || !root || !json_object_object_get_ex(root, "launches", &launches))
        n = -1;
    for (size_t i = 0; n >= 0 && i < json_object_array_length(launches); i++)
        if (json_object_object_get_ex(json_object_array_get_idx(launches, i),
                                      "warp_instructions", &v))
            n += json_object_get_int64(v);
    json_object_put(root);
    return n;
}

static void sample_both_modes(const char *name)
{
    long long f = warp_insns(name, "functional"), t = warp_insns(name, "timing");
    cr_expect_gt(f, 0, "%s: no warp instructions", name);
    cr_expect_eq(f, t, "%s: %lld warp instructions functional, %lld timing", name, f, t);
}

Test(wmma, gemm_sample_both_modes) { sample_both_modes("wmma_gemm"); }
Test(wmma, conv_sample_both_modes) { sample_both_modes("wmma_conv"); }
Test(wmma, rnn_sample_both_modes) { sample_both_modes("wmma_rnn"); }

Test(wmma, saturation_is_a_located_error)
{
    const char *src = xt_tmp("wmma_satf.cu");
    xt_write(src,
             "#include <cuda_runtime.h>\n#include <mma.h>\n"
             "__global__ void k(const half *a, float *d) {\n"
             "  int fa[8], fb[8]; float fc[8], fd[8];\n"
             "  __hmma_m16n16k16_ld_a(fa, (const int *)a, 16, 0);\n"
             "  __hmma_m16n16k16_ld_b(fb, (const int *)a, 16, 0);\n"
             "  __hmma_m16n16k16_ld_c_f32(fc, d, 16, 0);\n"
             "  __hmma_m16n16k16_mma_f32f32(fd, fa, fb, fc, 0, 1);\n"
             "  __hmma_m16n16k16_st_c_f32(d, fd, 16, 0);\n}\n"
             "int main() { return 0; }\n");
    char *out = NULL;
    int rc = xt_runf(&out, "%s/bin/xgpu-cc -g %s -o %s 2>&1", XGPU_BUILD_DIR, src,
                     xt_tmp("wmma_satf"));
    cr_expect_neq(rc, 0, "compiled:\n%s", out);
    cr_expect(out && strstr(out, "wmma_satf.cu:8:3: error:"), "not located:\n%s", out);
    cr_expect(out && strstr(out, "satfinite"), "%s", out);
    free(out);
}
