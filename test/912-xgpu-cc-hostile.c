/*
 * 912-xgpu-cc-hostile: the driver under hostile or broken input. An included character
 * device is refused at its #include line (the front end would read it to its end) and the
 * compile fails; a fatal signal removes the temporary directory and ends the driver by
 * that signal; an XGPU_HOME without xgpu's headers, device malloc, __int128 and a
 * __device__ array the host program cannot hold each get one error that names the cause
 * (and the kernel, variable or line where there is one) instead of a consequence.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xtest.h"

#define CC XGPU_BIN_DIR "/xgpu-cc"

/* Writes text to NAME.cu in the test's directory and compiles it there with opt;
 * returns xgpu-cc's exit status, its output in *out. */
static int build(const char *name, const char *text, const char *opt, char **out)
{
    char src[256];
    snprintf(src, sizeof src, "%s.cu", name);
    cr_assert_eq(xt_write(xt_tmp(src), text), 0);
    return xt_runf(out, "cd %s && " CC " %s %s.cu -o %s", xt_tmpdir(), opt, name, name);
}

static void expect_error(const char *name, const char *text, const char *opt, const char *want)
{
    char *out = NULL;
    int rc = build(name, text, opt, &out);
    cr_assert(rc != 0 && rc < 128, "%s: exit %d:\n%s", name, rc, out);
    cr_expect(strstr(out, want), "%s: no '%s' in:\n%s", name, want, out);
    free(out);
}

/* Under an address-space limit, so that reading the device whole would fail fast rather
 * than take the machine's memory (under AddressSanitizer, which reserves more address
 * space than any such limit, under a time limit instead). */
#ifdef XT_ASAN
#define BOUNDED "timeout 120 "
#else
#define BOUNDED "ulimit -v 4000000 && "
#endif
Test(hostile, included_character_device_is_a_located_error)
{
    cr_assert_eq(xt_write(xt_tmp("dev.cu"), "#include \"/dev/zero\"\n"
                                            "__global__ void kern(int *o) { o[0] = 1; }\n"
                                            "int main() {}\n"), 0);
    char *out = NULL;
    int rc = xt_runf(&out, "cd %s && " BOUNDED CC " dev.cu -o dev", xt_tmpdir());
    cr_assert(rc != 0 && rc < 128, "exit %d:\n%s", rc, out);
    cr_expect(strstr(out, "dev.cu:1:10: error: included file '/dev/zero' is a character "
                          "device, not a regular file"), "%s", out);
    cr_expect(!strstr(out, "crash"), "%s", out);
    free(out);
}

/* Each signal ends xgpu-cc with that signal (128 + N from the shell) and leaves nothing
 * in TMPDIR; the compile is stopped while it runs. */
Test(hostile, fatal_signals_remove_the_temporary_directory)
{
    cr_assert_eq(xt_write(xt_tmp("sig.cu"), "__global__ void k(int *p) { *p = 1; }\n"
                                            "int main() { return 0; }\n"), 0);
    static const struct {
        const char *name;
        int status;
    } sigs[] = {{"TERM", 143}, {"HUP", 129}, {"PIPE", 141}};
    for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++) {
        char *out = NULL;
        xt_runf(&out, "cd %s && rm -rf t && mkdir t && (TMPDIR=$PWD/t " CC " sig.cu -o sig "
                "2>/dev/null & p=$!; sleep 0.4; kill -%s $p; wait $p; echo \"status=$?\"); "
                "ls t", xt_tmpdir(), sigs[i].name);
        char want[32];
        snprintf(want, sizeof want, "status=%d\n", sigs[i].status);
        cr_expect(strstr(out, want), "SIG%s: no %s in:\n%s", sigs[i].name, want, out);
        cr_expect(!strstr(out, "xgpu-cc-"), "SIG%s left a temporary directory:\n%s",
                  sigs[i].name, out);
        free(out);
    }
}

Test(hostile, xgpu_home_without_headers_is_named)
{
    char *out = NULL;
    cr_assert_eq(xt_write(xt_tmp("home.cu"), "__global__ void k() {}\nint main() {}\n"), 0);
    int rc = xt_runf(&out, "XGPU_HOME=%s/none " CC " %s -o %s", xt_tmpdir(), xt_tmp("home.cu"),
                     xt_tmp("home"));
    cr_assert_eq(rc, 1, "%s", out);
    cr_expect(strstr(out, "xgpu-cc: error: XGPU_HOME=") && strstr(out, "xgpu's headers are not "
              "found under it"), "%s", out);
    cr_expect(!strstr(out, "blockIdx") && !strstr(out, "cuda_runtime.h' file not found"), "%s",
              out);
    free(out);
}

Test(hostile, device_malloc_is_named_as_unsupported)
{
    expect_error("heap", "__global__ void k(int *o) {\n"
                         "  int *p = (int *)malloc(8); *o = (int)(long)p; free(p); }\n"
                         "int main() {}\n",
                 "-O0 -g", "heap.cu:2:19: error: call to external function 'malloc' is not "
                           "supported: xgpu has no device heap");
}

Test(hostile, int128_names_the_kernel_and_line)
{
    expect_error("wide", "__global__ void k(unsigned long long *o, unsigned long long a) {\n"
                         "  o[0] = (unsigned long long)(((unsigned __int128)a * a) >> 64); }\n"
                         "int main() {}\n",
                 "-g", "wide.cu:2:51: error: in kernel 'void k(unsigned long long *o, unsigned "
                       "long long a)': 128-bit integers (__int128) are not supported by xgpu");
}

Test(hostile, oversized_device_array_is_named_before_the_link)
{
    char *out = NULL;
    int rc = build("big", "__device__ char big[1ull << 31];\n"
                          "__global__ void k() { big[threadIdx.x] = 1; }\n"
                          "int main() {}\n", "", &out);
    cr_assert(rc != 0 && rc < 128, "exit %d:\n%s", rc, out);
    cr_expect(strstr(out, "big.cu: error: __device__ variable 'big' is 2147483648 bytes, more "
                          "than xgpu's limit of 2080374784 bytes"), "%s", out);
    cr_expect(!strstr(out, "relocation truncated"), "%s", out);
    free(out);
}
