/*
 * 354-config-read-errors.c - configurations that cannot be read, or that name nothing,
 * or whose keys cannot go together, are refused when the device is created, with a
 * message that says why:
 *   - a line getline() cannot allocate (here under a lowered address-space limit) is
 *     "cannot read configuration file PATH: Cannot allocate memory", never the end of
 *     the file (the keys after it would be silently dropped);
 *   - a character device (/dev/zero: no newline ever) is refused before reading;
 *   - a UTF-8 byte order mark opening a file is skipped, not taken into the first key;
 *   - "=5" says the key name is empty;
 *   - core.resource_mgr = zorua with core.mem_latency > 0 (every launch used to fail)
 *     names both keys;
 *   - gpu.global_mem_bytes past what the address map allows (the device window would
 *     reach the host's own addresses) names the key and the largest value.
 */
#include <stdint.h>
#include <stdlib.h>
#include <sys/resource.h>
#include "300-emu-util.h"
#include "xtest.h"

#define GLOBAL_MAX "70368744177664" /* 64 TiB */

/* emu_create_with(config, set): its status, the message in err, the device destroyed. */
static EmuStatus create(const char *config, const char *set, char *err, size_t n,
                        uint32_t *sms)
{
    EmuDevice *d = NULL;
    err[0] = 0;
    EmuStatus s = emu_create_with(&d, config, set, err, n);
    if (s == EMU_OK && sms)
        *sms = emu_props(d)->sm_count;
    emu_destroy(d);
    return s;
}

Test(config_read, character_devices_are_refused)
{
    char err[256];
    cr_expect_eq(create("/dev/zero", NULL, err, sizeof err, NULL), EMU_ERR_INVALID_CONFIG);
    cr_expect(strstr(err, "cannot read configuration file /dev/zero: ") != NULL, "%s", err);
    cr_expect(strstr(err, "device") != NULL, "%s", err);
}

/* The process's address space now, in bytes (/proc/self/statm: pages). */
static uint64_t vm_bytes(void)
{
    unsigned long pages = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    cr_assert_not_null(f);
    cr_assert_eq(fscanf(f, "%lu", &pages), 1);
    fclose(f);
    return (uint64_t)pages * 4096;
}

/* A 24 MiB comment line, then a key that is wrong. */
static const char *long_line_file(void)
{
    const char *path = xt_tmp("long-line.ini");
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fputc('#', f);
    for (int i = 0; i < 24 << 10; i++)
        fprintf(f, "%1023s", "x");
    fputs("\ngpu.sm_count = 0\n", f);
    cr_assert_eq(fclose(f), 0);
    return path;
}

Test(config_read, a_long_line_is_read_whole)
{
    char err[512];
    cr_expect_eq(create(long_line_file(), NULL, err, sizeof err, NULL), EMU_ERR_INVALID_CONFIG);
    cr_expect(strstr(err, "gpu.sm_count: must be at least 1") != NULL, "%s", err);
}

/* Without room for the line the error must be the line's, never a device made without
 * the keys after it. (A test of its own: a process that once read the line may keep the
 * memory for it.) */
Test(config_read, a_line_that_cannot_be_allocated_is_an_error)
{
    XT_SKIP_UNDER_ASAN();
    const char *path = long_line_file();
    char err[512];
    struct rlimit old, low;
    cr_assert_eq(getrlimit(RLIMIT_AS, &old), 0);
    low = old;
    low.rlim_cur = vm_bytes() + (8u << 20); /* less than getline's buffer needs */
    cr_assert_eq(setrlimit(RLIMIT_AS, &low), 0);
    EmuStatus s = create(path, NULL, err, sizeof err, NULL);
    setrlimit(RLIMIT_AS, &old);
    cr_expect_eq(s, EMU_ERR_INVALID_CONFIG);
    char want[600];
    snprintf(want, sizeof want, "cannot read configuration file %s: Cannot allocate memory",
             path);
    cr_expect(strstr(err, want) != NULL, "%s", err);
}

Test(config_read, a_byte_order_mark_is_skipped)
{
    const char *path = xt_tmp("bom.ini");
    cr_assert_eq(xt_write(path, "\xef\xbb\xbfgpu.sm_count = 4\n"), 0);
    char err[256];
    uint32_t sms = 0;
    cr_expect_eq(create(path, NULL, err, sizeof err, &sms), EMU_OK, "%s", err);
    cr_expect_eq(sms, 4);
    /* a mark anywhere else is part of the key, and the key is unknown */
    cr_assert_eq(xt_write(path, "gpu.name = a\n\xef\xbb\xbfgpu.sm_count = 4\n"), 0);
    cr_expect_eq(create(path, NULL, err, sizeof err, NULL), EMU_ERR_INVALID_CONFIG);
    cr_expect(strstr(err, ":2: ") && strstr(err, "unknown configuration key"), "%s", err);
}

Test(config_read, an_empty_key_name_is_named)
{
    char err[256];
    cr_expect_eq(create(NULL, "=5", err, sizeof err, NULL), EMU_ERR_INVALID_CONFIG);
    cr_expect(strstr(err, "empty key name") != NULL, "%s", err);
    cr_expect_eq(create(NULL, "gpu.sm_count=2; = 5", err, sizeof err, NULL),
                 EMU_ERR_INVALID_CONFIG);
    cr_expect(strstr(err, "XGPU_SET") == NULL && strstr(err, "empty key name"), "%s", err);
    const char *path = xt_tmp("empty-key.ini");
    cr_assert_eq(xt_write(path, "gpu.sm_count = 2\n  = 7\n"), 0);
    cr_expect_eq(create(path, NULL, err, sizeof err, NULL), EMU_ERR_INVALID_CONFIG);
    cr_expect(strstr(err, ":2: empty key name") != NULL, "%s", err);
}

Test(config_read, zorua_needs_the_memory_system)
{
    char err[256];
    cr_expect_eq(create(NULL, "core.resource_mgr=zorua;core.mem_latency=5", err, sizeof err,
                        NULL),
                 EMU_ERR_INVALID_CONFIG);
    cr_expect(strstr(err, "core.mem_latency") && strstr(err, "core.resource_mgr = zorua"),
              "%s", err);
    cr_expect_eq(create(NULL, "core.resource_mgr=zorua", err, sizeof err, NULL), EMU_OK, "%s",
                 err);
    cr_expect_eq(create(NULL, "core.mem_latency=5", err, sizeof err, NULL), EMU_OK, "%s", err);
}

Test(config_read, global_memory_stays_below_host_addresses)
{
    char err[256];
    cr_expect_eq(create(NULL, "gpu.global_mem_bytes=0x800000000000", err, sizeof err, NULL),
                 EMU_ERR_INVALID_CONFIG);
    cr_expect(strstr(err, "gpu.global_mem_bytes") && strstr(err, "at most " GLOBAL_MAX),
              "%s", err);
    cr_expect_eq(create(NULL, "gpu.global_mem_bytes=18446744073709551615", err, sizeof err,
                        NULL),
                 EMU_ERR_INVALID_CONFIG);
    cr_expect(strstr(err, "gpu.global_mem_bytes") && strstr(err, GLOBAL_MAX), "%s", err);
    cr_expect_eq(create(NULL, "gpu.global_mem_bytes=" GLOBAL_MAX, err, sizeof err, NULL),
                 EMU_OK, "%s", err);
    /* one device of four GPUs: four times the memory in one window */
    cr_expect_eq(create(NULL, "system.gpus=4;system.memory=shared;gpu.global_mem_bytes=32768G",
                        err, sizeof err, NULL),
                 EMU_ERR_INVALID_CONFIG);
    cr_expect(strstr(err, "gpu.global_mem_bytes") && strstr(err, "17592186044416"), "%s", err);
}
