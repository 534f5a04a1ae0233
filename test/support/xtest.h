/*
 * xtest.h - helpers shared by the test programs: running a command and capturing its
 * output, temporary files, reading files. Paths of the build come from the compile
 * definitions XGPU_SOURCE_DIR, XGPU_BUILD_DIR and XGPU_BIN_DIR.
 */
#ifndef XGPU_XTEST_H
#define XGPU_XTEST_H

#include <stddef.h>

/* Runs `cmd` through /bin/sh with stdout and stderr captured together into *out
 * (malloc'd, NUL-terminated; may be NULL). Returns the exit status, or 128+signal. */
int xt_run(const char *cmd, char **out);

/* printf-style command builder + xt_run. */
int xt_runf(char **out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A fresh temporary directory for this test process (created once, removed at exit). */
const char *xt_tmpdir(void);

/* Path inside xt_tmpdir(): a static buffer per call slot (8 slots, round robin). */
const char *xt_tmp(const char *name);

/* Writes / reads a whole file. xt_read returns malloc'd bytes (NUL-terminated) or NULL. */
int xt_write(const char *path, const char *text);
char *xt_read(const char *path, size_t *len);

/* How many times needle occurs in hay (non-overlapping). */
int xt_count(const char *hay, const char *needle);

/* Compiles XGPU_SOURCE_DIR/test/e2e/NAME.cu with xgpu-cc and the options opt into a
 * binary in xt_tmpdir() and returns its path; fails the test if xgpu-cc fails. */
const char *xt_compile_e2e(const char *name, const char *opt);

/* The sanitizer tier (XGPU_TEST_TIER=sanitize, set by scripts/test.sh --sanitize;
 * docs/testing.md): tests that run every sample run one in XT_SAMPLE_STRIDE of them
 * there. xt_sample_skip_name says whether to skip the sample called name in the test
 * numbered salt (by the sum of the name's bytes, so a different share per test); it is
 * 0 outside the tier. */
#define XT_SAMPLE_STRIDE 5
int xt_sanitize_tier(void);
int xt_sample_skip_name(const char *name, unsigned salt);

/* Runs the program at path (with args, may be "") and fails the test unless it exits 0
 * and prints PASS. */
void xt_expect_pass(const char *path, const char *args);

/* Compiles test/e2e/NAME.cu with opt (xt_compile_e2e) and expects PASS from it in the
 * default (timing) mode and with XGPU_MODE=functional. */
void xt_expect_pass_both_modes(const char *name, const char *opt);

/* Managed blocks need the device's addresses on the host, which AddressSanitizer's shadow
 * memory covers (docs/runtime.md): tests of them skip themselves in the sanitizer build. */
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define XT_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define XT_ASAN 1
#endif
#ifdef XT_ASAN
#define XT_SKIP_UNDER_ASAN() \
    cr_skip_test("AddressSanitizer's shadow memory covers the device's addresses")
#else
#define XT_SKIP_UNDER_ASAN() ((void)0)
#endif

/* clang's wrapper around an embedded fat binary, as __cudaRegisterFatBinary receives it. */
typedef struct XtFatWrapper {
    int magic, version; /* 0x466243b1, 1 */
    const void *data;   /* XFatHeader + gpubin */
    void *unused;
} XtFatWrapper;
#define XT_FAT_MAGIC 0x466243b1

/* Assembles `src` (the text form of isa.h) into a fat container in memory (malloc'd; the
 * caller keeps it alive as long as the runtime may read it). Fails the test on error. */
void *xt_fat_from_asm(const char *src);

#endif
