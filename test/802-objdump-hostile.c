/*
 * 802-objdump-hostile: inputs that are not device binaries get one clear line and exit
 * status 1, never an unbounded read or a crash: a file that cannot be opened (with the
 * system's reason), an endless device (/dev/zero), a directory, a host program without
 * device code, an ELF file cut short, and a device binary with one byte changed (the
 * checksum). --json with --asm is refused with exit status 2.
 */
#define _GNU_SOURCE /* memmem */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xtest.h"

#define OBJDUMP XGPU_BIN_DIR "/xgpu-objdump"

/* Runs objdump on path; it must fail with exactly one line on stderr containing what. */
static void expect_one_line(const char *path, const char *what)
{
    char *out = NULL;
    /* (timeout: an unbounded read of /dev/zero would never end; no ulimit -v, which the
     * sanitizers' shadow memory cannot live with) */
    int rc = xt_runf(&out, "timeout 120 " OBJDUMP " %s 2>&1 >/dev/null", path);
    cr_assert_eq(rc, 1, "%s: exit status %d:\n%s", path, rc, out);
    cr_expect(strstr(out, what), "%s: expected '%s' in:\n%s", path, what, out);
    const char *nl = strchr(out, '\n');
    cr_expect(nl && nl[1] == '\0', "%s: more than one line:\n%s", path, out);
    free(out);
}

Test(objdump_hostile, endless_input_is_bounded)
{
    expect_one_line("/dev/zero", "not a file xgpu-objdump reads");
}

/* A file that cannot be opened: the reason, from the system. */
Test(objdump_hostile, unopenable_files_say_why)
{
    expect_one_line("/nonexistent-802", "/nonexistent-802: cannot open: No such file or directory");
    char *out = NULL;
    cr_assert_eq(xt_runf(&out, "cd %s && ln -sf loop2 loop1 && ln -sf loop1 loop2", xt_tmpdir()),
                 0, "%s", out);
    free(out);
    expect_one_line(xt_tmp("loop1"), "cannot open: Too many levels of symbolic links");
}

/* --json and --asm are two whole output formats: asking for both is refused. */
Test(objdump_hostile, json_and_asm_together_are_refused)
{
    char *out = NULL;
    int rc = xt_runf(&out, OBJDUMP " --json --asm %s", XGPU_BIN_DIR "/xgpu-objdump");
    cr_expect_eq(rc, 2, "%s", out);
    cr_expect_str_eq(out, "xgpu-objdump: --json and --asm cannot be combined (each is a whole "
                          "output format)\n");
    free(out);
    rc = xt_runf(&out, OBJDUMP " --asm --json %s", XGPU_BIN_DIR "/xgpu-objdump");
    cr_expect_eq(rc, 2, "%s", out);
    free(out);
}

Test(objdump_hostile, directory)
{
    expect_one_line(xt_tmpdir(), "is a directory");
}

Test(objdump_hostile, host_program_without_device_code)
{
    expect_one_line(XGPU_BIN_DIR "/xgpu-objdump", "no device code: no .nv_fatbin section");
}

/* A copy of `len` leading bytes of src at dst. */
static void copy_prefix(const char *src, const char *dst, size_t len)
{
    size_t n;
    char *buf = xt_read(src, &n);
    cr_assert_not_null(buf);
    FILE *f = fopen(dst, "wb");
    cr_assert_not_null(f);
    fwrite(buf, 1, len < n ? len : n, f);
    fclose(f);
    free(buf);
}

Test(objdump_hostile, truncated_program)
{
    const char *exe = xt_compile_e2e("compat_no_include", "-O2");
    copy_prefix(exe, xt_tmp("cut"), 4096);
    expect_one_line(xt_tmp("cut"), "truncated ELF file: its section table ends at byte");
}

/* The device-only output of xgpu-cc is a fat container; one changed byte in its code is
 * well formed but not what the compiler wrote. */
Test(objdump_hostile, damaged_device_binary)
{
    const char *fat = xt_tmp("k.fat");
    char *out = NULL;
    int rc = xt_runf(&out, XGPU_BIN_DIR "/xgpu-cc --cuda-device-only "
                     XGPU_SOURCE_DIR "/test/e2e/compat_no_include.cu -o %s", fat);
    cr_assert_eq(rc, 0, "%s", out);
    free(out);
    rc = xt_runf(&out, OBJDUMP " %s", fat);
    cr_assert_eq(rc, 0, "the intact binary: %s", out);
    free(out);
    size_t n;
    unsigned char *buf = (unsigned char *)xt_read(fat, &n);
    cr_assert_not_null(buf);
    /* .xgpu.text's 32-byte records follow its 16-byte header */
    unsigned char *text = memmem(buf, n, "XSEC", 4);
    for (int i = 0; text && i < 2; i++) /* .xgpu.info, .xgpu.kernels, then .xgpu.text */
        text = memmem(text + 4, n - (size_t)(text + 4 - buf), "XSEC", 4);
    cr_assert_not_null(text, "no third section");
    text[16 + 32 + 24] ^= 0x08; /* instruction 1 (lea of c[0]) reads another parameter */
    FILE *f = fopen(fat, "wb");
    fwrite(buf, 1, n, f);
    fclose(f);
    free(buf);
    expect_one_line(fat, "damaged");
}
