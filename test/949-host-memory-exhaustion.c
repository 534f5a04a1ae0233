/*
 * 949-host-memory-exhaustion: a launch whose resident blocks' local memory does not fit
 * in host memory fails with cudaErrorMemoryAllocation, and both modes say why on stderr
 * ("out of host memory for N CTAs of T threads (B bytes of local memory per thread)"),
 * the host program going on. test/e2e/big_local.cu asks for 16 blocks of 1024 threads
 * with 400 KB of local memory each (6.4 GB) under a 2 GB address-space limit. Skipped
 * under AddressSanitizer, which reserves far more address space than the limit.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "xtest.h"

Test(host_memory, out_of_host_memory_is_named_in_both_modes)
{
#ifdef XT_ASAN
    cr_skip_test("an address-space limit does not apply under AddressSanitizer");
#endif
    const char *exe = xt_compile_e2e("big_local", "-O2");
    static const char *const modes[] = {"functional", "timing"};
    for (int m = 0; m < 2; m++) {
        char *out = NULL;
        int rc = xt_runf(&out, "ulimit -v 2000000; XGPU_MODE=%s %s 16 2>&1", modes[m], exe);
        cr_expect_eq(rc, 0, "%s mode exited %d:\n%s", modes[m], rc, out);
        cr_expect(out && strstr(out, "out of host memory for") &&
                      strstr(out, "400000 bytes of local memory per thread"),
                  "%s mode does not say why:\n%s", modes[m], out);
        cr_expect(out && strstr(out, "cudaErrorMemoryAllocation"), "%s mode:\n%s", modes[m],
                  out);
        free(out);
    }
}
