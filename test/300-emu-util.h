/*
 * 300-emu-util.h - helpers for the functional-emulator tests (3xx): create a device,
 * assemble and load a snippet, launch with a small parameter block, and evaluate a
 * one-thread snippet to a 64-bit value. Every helper asserts on failure, so tests read
 * as straight-line checks. Devices run in functional mode unless the test (or the timing
 * tests' tm_dev) set XGPU_MODE: the 3xx tests check the functional core, whose warp
 * order and time estimate they rely on.
 */
#ifndef XGPU_TEST_300_EMU_UTIL_H
#define XGPU_TEST_300_EMU_UTIL_H

#include <criterion/criterion.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "xgpu/emu.h"

static inline EmuDevice *t_dev(void)
{
    setenv("XGPU_MODE", "functional", 0);
    EmuDevice *d = NULL;
    char err[256] = "";
    cr_assert_eq(emu_create(&d, err, sizeof err), EMU_OK, "emu_create: %s", err);
    return d;
}

static inline EmuModule *t_load(EmuDevice *d, const char *src)
{
    XGpubin *g = NULL;
    EmuModule *m = NULL;
    char err[256] = "";
    cr_assert_eq(xasm_assemble(src, &g, err, sizeof err), 0, "assemble: %s\n%s", err, src);
    EmuStatus s = emu_load_module(d, g, &m, err, sizeof err);
    cr_assert_eq(s, EMU_OK, "load: %s: %s", emu_status_name(s), err);
    xgpubin_free(g);
    return m;
}

static inline EmuStatus t_launch(EmuDevice *d, EmuModule *m, const char *kernel, EmuDim3 grid,
                                 EmuDim3 block, const void *params, size_t nparams,
                                 EmuFault *f)
{
    int k = emu_kernel(m, kernel);
    cr_assert_geq(k, 0, "no kernel %s", kernel);
    return emu_launch(d, m, k, grid, block, 0, params, nparams, NULL, f);
}

#define DIM(x, y, z) ((EmuDim3){(x), (y), (z)})

/* Runs `body` (printf format) in a one-thread kernel; the body leaves its result in the
 * pair r10:r11, which is returned. */
static inline uint64_t t_eval(EmuDevice *d, const char *fmt, ...)
{
    char body[2048], src[2300];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(body, sizeof body, fmt, ap);
    va_end(ap);
    snprintf(src, sizeof src,
             ".kernel ev\n.param 8\n%s\n  ld.param.u64 r2, [0]\n  st.global.u64 [r2], r10\n"
             "  exit\n", body);
    EmuModule *m = t_load(d, src);
    uint64_t out, v = 0;
    cr_assert_eq(emu_malloc(d, 8, &out), EMU_OK);
    EmuFault f;
    EmuStatus s = t_launch(d, m, "ev", DIM(1, 1, 1), DIM(1, 1, 1), &out, 8, &f);
    cr_assert_eq(s, EMU_OK, "%s: %s\n%s", emu_status_name(s), f.message, src);
    cr_assert_eq(emu_copy_from_device(d, &v, out, 8), EMU_OK);
    emu_free(d, out);
    return v;
}

static inline uint32_t t_fbits(float f)
{
    uint32_t b;
    memcpy(&b, &f, 4);
    return b;
}

static inline uint64_t t_dbits(double f)
{
    uint64_t b;
    memcpy(&b, &f, 8);
    return b;
}

static inline float t_bitsf(uint64_t b)
{
    float f;
    uint32_t w = (uint32_t)b;
    memcpy(&f, &w, 4);
    return f;
}

static inline double t_bitsd(uint64_t b)
{
    double f;
    memcpy(&f, &b, 8);
    return f;
}

#endif
