/*
 * 940-reuse-profile-e2e: the profile-guided reuse flow of docs/hints.md with the real
 * tools, shaped like clang's -fprofile-generate / -fprofile-use:
 *   xgpu-cc app.cu -o app; XGPU_REUSE_PROFILE=p ./app (or xgpu-run --profile-reuse p);
 *   xgpu-cc --reuse-profile=p app.cu -o app2
 * app2 carries profile-derived bits (xgpu-objdump says so) and still runs correctly; a
 * profile of other code is ignored with a warning; a profile recorded with another
 * RTHLD, or a damaged one, is an error naming the file (and line).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xtest.h"

#define CC XGPU_BIN_DIR "/xgpu-cc"
#define SRC XGPU_SOURCE_DIR "/test/e2e/control_flow.cu"

Test(reuse_profile_e2e, record_and_recompile, .timeout = 300)
{
    const char *app = xt_compile_e2e("control_flow", "-O2");
    const char *prof = xt_tmp("cf.prof"), *prof2 = xt_tmp("cf2.prof");
    char *out = NULL;
    int rc = xt_runf(&out, "XGPU_REUSE_PROFILE=%s %s", prof, app);
    cr_assert(rc == 0 && out && strstr(out, "PASS"), "%s", out ? out : "");
    free(out);
    rc = xt_runf(&out, "%s/xgpu-run --mode functional --profile-reuse %s -- %s", XGPU_BIN_DIR,
                 prof2, app);
    cr_assert(rc == 0 && out && strstr(out, "PASS"), "%s", out ? out : "");
    free(out);
    char *a = xt_read(prof, NULL), *b = xt_read(prof2, NULL);
    cr_assert(a && b);
    cr_expect(strncmp(a, "xgpu-reuse-profile 1\nrthld 12\nkernel ", 37) == 0, "%s", a);
    cr_expect_str_eq(a, b, "timing and functional mode record the same warps");
    free(a);
    free(b);
    const char *app2 = xt_tmp("cf2");
    rc = xt_runf(&out, "%s -O2 --reuse-profile=%s %s -o %s", CC, prof, SRC, app2);
    cr_assert_eq(rc, 0, "%s", out ? out : "");
    cr_expect(!out || !strstr(out, "warning"), "%s", out);
    free(out);
    rc = xt_runf(&out, "%s/xgpu-objdump %s", XGPU_BIN_DIR, app2);
    cr_assert_eq(rc, 0);
    cr_expect(strstr(out, "reuse bits: RTHLD 12, from a profile"), "%s", out);
    free(out);
    xt_expect_pass(app2, "");
    /* the profile applied to other code (-O0) is ignored, kernel by kernel */
    rc = xt_runf(&out, "%s -O0 --reuse-profile=%s %s -o %s", CC, prof, SRC, xt_tmp("cf0"));
    cr_expect_eq(rc, 0, "%s", out ? out : "");
    cr_expect(out && strstr(out, "warning") && strstr(out, "reuse bits stay static"), "%s",
              out ? out : "");
    free(out);
    /* another threshold */
    rc = xt_runf(&out, "%s --rthld=8 --reuse-profile=%s %s -o %s", CC, prof, SRC,
                 xt_tmp("cf8"));
    cr_expect_neq(rc, 0);
    cr_expect(out && strstr(out, "RTHLD 12") && strstr(out, ":2:"), "%s", out ? out : "");
    free(out);
    /* damaged */
    const char *bad = xt_tmp("bad.prof");
    xt_write(bad, "xgpu-reuse-profile 1\nrthld 12\nthis is not a record\n");
    rc = xt_runf(&out, "%s --reuse-profile=%s %s -o %s", CC, bad, SRC, xt_tmp("cfb"));
    cr_expect_neq(rc, 0);
    cr_expect(out && strstr(out, "bad.prof:3:"), "%s", out ? out : "");
    free(out);
}
