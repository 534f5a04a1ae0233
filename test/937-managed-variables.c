/*
 * 937-managed-variables: __managed__ variables end to end (test/e2e/rt_managed_vars.cu):
 * their initializers are visible on the host before any launch, host writes reach the
 * next kernel, kernel writes are visible after it, and symbol copies keep both copies in
 * step; in timing and in functional mode, at -O2 and -O0. Also: the device binary marks
 * them (objdump's assembly says `managed`).
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "xtest.h"

Test(managed_vars, end_to_end_O2) { xt_expect_pass_both_modes("rt_managed_vars", "-O2"); }
Test(managed_vars, end_to_end_O0) { xt_expect_pass_both_modes("rt_managed_vars", "-O0"); }

Test(managed_vars, marked_in_the_device_binary)
{
    const char *exe = xt_compile_e2e("rt_managed_vars", "-O2");
    char *out = NULL;
    int rc = xt_runf(&out, XGPU_BIN_DIR "/xgpu-objdump --asm %s", exe);
    cr_assert_eq(rc, 0, "%s", out);
    cr_expect(strstr(out, ".global counter 4 4 managed"), "%s", out);
    cr_expect(strstr(out, ".global table 256 4 managed ="), "%s", out);
    free(out);
}
