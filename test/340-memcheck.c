/*
 * 340-memcheck.c - guest faults: out-of-bounds global/shared/local accesses, misaligned
 * accesses, use after free, stores to param space, trap and runaway kernels. Each case
 * checks the status and the EmuFault fields (kernel, block, thread, pc, address, source
 * line, message), then that the same device still runs a correct launch. The accesses
 * run under emu.memcheck = on, where each is a fault (test 341 has the other modes).
 */
#include <stdint.h>
#include <stdlib.h>
#include "300-emu-util.h"

/* Only thread (5,0,0) of block (2,0,0) does the access at pc 9 (line 42 of bad.cu). */
static const char *fmt =
    ".kernel bad\n.param 8\n.shared 64\n.local 16\n"
    "  s2r r0, %%tid.x\n  s2r r1, %%ctaid.x\n  set.eq.u32 r2, r0, 5\n  set.eq.u32 r3, r1, 2\n"
    "  and.u32 r2, r2, r3\n  brc.not r2, skip, skip\n"
    "  ld.param.u64 r4, [0]\n  mov.u32 r6, 1\n  mov.u64 r8, %s\n"
    ".loc bad.cu 42\n"
    "  %s\n"
    "skip:\n  exit\n";

static const char *good_src =
    ".kernel good\n.param 8\n  ld.param.u64 r4, [0]\n  mov.u32 r6, 99\n"
    "  st.global.u32 [r4], r6\n  exit\n";

typedef struct Case {
    EmuDevice *d;
    uint64_t buf; /* 64-byte allocation */
    EmuFault f;
    EmuStatus s;
} Case;

static Case run_bad(const char *r8, const char *access, int free_first)
{
    setenv("XGPU_SET", "emu.memcheck=on", 1); /* the default lets such accesses through */
    Case c = {.d = t_dev()};
    unsetenv("XGPU_SET");
    char src[1024];
    snprintf(src, sizeof src, fmt, r8, access);
    EmuModule *m = t_load(c.d, src);
    cr_assert_eq(emu_malloc(c.d, 64, &c.buf), EMU_OK);
    if (free_first)
        cr_assert_eq(emu_free(c.d, c.buf), EMU_OK);
    c.s = emu_launch(c.d, m, 0, DIM(4, 1, 1), DIM(32, 1, 1), 0, &c.buf, 8, NULL, &c.f);
    return c;
}

static void expect_fault(Case *c, EmuStatus want, uint64_t addr, const char *text)
{
    cr_expect_eq(c->s, want, "status %s, want %s (%s)", emu_status_name(c->s),
                 emu_status_name(want), c->f.message);
    cr_expect_eq(c->f.status, want);
    cr_expect_str_eq(c->f.kernel, "bad");
    cr_expect_eq(c->f.block.x, 2);
    cr_expect_eq(c->f.thread.x, 5);
    cr_expect_eq(c->f.thread.y, 0);
    cr_expect_eq(c->f.pc, 9);
    cr_expect_eq(c->f.address, addr, "address 0x%llx", (unsigned long long)c->f.address);
    cr_expect_str_eq(c->f.file ? c->f.file : "(null)", "bad.cu");
    cr_expect_eq(c->f.line, 42);
    cr_expect(strstr(c->f.message, text) != NULL, "message '%s' lacks '%s'", c->f.message, text);
    /* the device still works */
    EmuModule *m = t_load(c->d, good_src);
    uint64_t out;
    uint32_t v = 0;
    cr_assert_eq(emu_malloc(c->d, 4, &out), EMU_OK);
    cr_expect_eq(emu_launch(c->d, m, 0, DIM(1, 1, 1), DIM(1, 1, 1), 0, &out, 8, NULL, NULL),
                 EMU_OK);
    emu_copy_from_device(c->d, &v, out, 4);
    cr_expect_eq(v, 99);
    emu_destroy(c->d);
}

Test(memcheck, global_out_of_bounds)
{
    Case c = run_bad("0", "ld.global.u32 r10, [r4+64]", 0);
    expect_fault(&c, EMU_ERR_ILLEGAL_ADDRESS, c.buf + 64, "outside any allocation");
    c = run_bad("0", "st.global.u64 [r4+60], r8", 0);
    expect_fault(&c, EMU_ERR_MISALIGNED, c.buf + 60, "misaligned");
    c = run_bad("0", "ld.global.u32 r10, [r4+0x100000]", 0);
    expect_fault(&c, EMU_ERR_ILLEGAL_ADDRESS, c.buf + 0x100000, "outside any allocation");
}

Test(memcheck, access_running_past_the_end)
{
    Case c = run_bad("0", "ld.global.u64 r10, [r4+64]", 0);
    expect_fault(&c, EMU_ERR_ILLEGAL_ADDRESS, c.buf + 64, "load of 8 bytes");
}

Test(memcheck, null_pointer)
{
    Case c = run_bad("0", "ld.global.u32 r10, [r8]", 0);
    expect_fault(&c, EMU_ERR_ILLEGAL_ADDRESS, 0, "outside any allocation");
}

Test(memcheck, shared_and_local_out_of_bounds)
{
    Case c = run_bad("64", "st.shared.u32 [r8], r6", 0);
    expect_fault(&c, EMU_ERR_ILLEGAL_ADDRESS, 64, "shared");
    c = run_bad("16", "ld.local.u32 r10, [r8]", 0);
    expect_fault(&c, EMU_ERR_ILLEGAL_ADDRESS, 16, "local");
    c = run_bad("0xfe000000fff0", "ld.u32 r10, [r8]", 0);
    expect_fault(&c, EMU_ERR_ILLEGAL_ADDRESS, XGPU_SHARED_BASE + 0xfff0, "shared");
}

Test(memcheck, misaligned)
{
    Case c = run_bad("0", "ld.global.u32 r10, [r4+2]", 0);
    expect_fault(&c, EMU_ERR_MISALIGNED, c.buf + 2, "misaligned load of 4 bytes");
    c = run_bad("6", "st.shared.u64 [r8], r8", 0);
    expect_fault(&c, EMU_ERR_MISALIGNED, 6, "misaligned store");
}

Test(memcheck, use_after_free)
{
    Case c = run_bad("0", "st.global.u32 [r4+8], r6", 1);
    expect_fault(&c, EMU_ERR_ILLEGAL_ADDRESS, c.buf + 8, "freed allocation");
}

Test(memcheck, write_to_param)
{
    Case c = run_bad("0", "st.param.u32 [r8], r6", 0);
    expect_fault(&c, EMU_ERR_ILLEGAL_ADDRESS, 0, "param");
    c = run_bad("0xfc0000000004", "st.u32 [r8], r6", 0);
    expect_fault(&c, EMU_ERR_ILLEGAL_ADDRESS, XGPU_PARAM_BASE + 4, "param");
    c = run_bad("8", "ld.param.u32 r10, [r8]", 0);
    expect_fault(&c, EMU_ERR_ILLEGAL_ADDRESS, 8, "param");
}

/* A load within a descriptor's bytes of a cudaTextureObject_t (or cudaSurfaceObject_t)
 * argument that fails its check names the object, in every emu.memcheck mode; the same
 * load through an ordinary pointer argument is reported as what it is. */
static EmuFault tex_fault(const char *sig, const char *memcheck, int destroyed, EmuStatus *s)
{
    static const char *fmt_tex =
        ".kernel k\n.signature \"%s\"\n.param 8\n.param 8\n"
        "  ld.param.u64 r2, [0]\n  ld.u32 r4, [r2+24]\n  exit\n";
    char src[512], set[64];
    snprintf(src, sizeof src, fmt_tex, sig);
    snprintf(set, sizeof set, "emu.memcheck=%s", memcheck);
    setenv("XGPU_SET", set, 1);
    EmuDevice *d = t_dev();
    unsetenv("XGPU_SET");
    EmuModule *m = t_load(d, src);
    uint64_t p[2] = {12345, 0};
    if (destroyed) {
        cr_assert_eq(emu_malloc(d, 240, &p[0]), EMU_OK);
        cr_assert_eq(emu_free(d, p[0]), EMU_OK);
    }
    EmuFault f;
    *s = emu_launch(d, m, 0, DIM(1, 1, 1), DIM(1, 1, 1), 0, p, 16, NULL, &f);
    emu_destroy(d);
    return f;
}

Test(memcheck, texture_object_arguments)
{
    const char *modes[] = {"on", "warn", "off"};
    EmuStatus s;
    for (int i = 0; i < 3; i++) {
        EmuFault f = tex_fault("void k(cudaTextureObject_t t, float *o)", modes[i], 0, &s);
        cr_expect_eq(s, EMU_ERR_ILLEGAL_ADDRESS, "%s: %s", modes[i], emu_status_name(s));
        cr_expect_eq(f.address, 12345 + 24);
        cr_expect_str_eq(f.message, "invalid texture object 0x3039 (kernel argument 0, "
                         "cudaTextureObject_t t): no texture object has this handle");
        f = tex_fault("void k(const cudaTextureObject_t, float *o)", modes[i], 1, &s);
        cr_expect_eq(s, EMU_ERR_ILLEGAL_ADDRESS, "%s: %s", modes[i], emu_status_name(s));
        cr_expect(strstr(f.message, "(kernel argument 0, cudaTextureObject_t): it was "
                         "destroyed") != NULL, "%s", f.message);
    }
    EmuFault f = tex_fault("void k(cudaSurfaceObject_t s, float *o)", "on", 0, &s);
    cr_expect(strstr(f.message, "invalid surface object 0x3039 (kernel argument 0, "
                     "cudaSurfaceObject_t s)") != NULL, "%s", f.message);
    /* not a texture object: the load's own report */
    f = tex_fault("void k(unsigned long long t, float *o)", "on", 0, &s);
    cr_expect_eq(s, EMU_ERR_MISALIGNED);
    cr_expect(strstr(f.message, "misaligned load of 4 bytes at 0x3051") != NULL, "%s",
              f.message);
    f = tex_fault("void k(myTextureObject_t t, float *o)", "on", 1, &s);
    cr_expect(strstr(f.message, "in freed allocation") != NULL, "%s", f.message);
}

Test(memcheck, trap)
{
    Case c = run_bad("0", "trap", 0);
    expect_fault(&c, EMU_ERR_LAUNCH_FAILURE, 0, "trap");
}

Test(memcheck, runaway_kernel_times_out)
{
    setenv("XGPU_SET", "emu.max_warp_insns=10000", 1);
    EmuDevice *d = t_dev();
    EmuModule *m = t_load(d, ".kernel spin\nloop:\n  bra loop\n  exit\n");
    EmuLaunchStats st;
    EmuFault f;
    EmuStatus s = emu_launch(d, m, 0, DIM(2, 1, 1), DIM(64, 1, 1), 0, NULL, 0, &st, &f);
    cr_expect_eq(s, EMU_ERR_LAUNCH_TIMEOUT);
    cr_expect_eq(st.warp_instructions, 10000);
    cr_expect_eq(st.status, EMU_ERR_LAUNCH_TIMEOUT);
    cr_expect(strstr(f.message, "emu.max_warp_insns") != NULL, "%s", f.message);
    emu_destroy(d);
}

Test(memcheck, launch_validation)
{
    EmuDevice *d = t_dev();
    EmuModule *m = t_load(d, ".kernel k\n.regs 128\n.shared 1024\n  exit\n");
    EmuFault f;
    cr_expect_eq(emu_launch(d, m, 0, DIM(1, 1, 1), DIM(0, 1, 1), 0, NULL, 0, NULL, &f),
                 EMU_ERR_INVALID_CONFIG);
    cr_expect_eq(emu_launch(d, m, 0, DIM(1, 1, 1), DIM(1025, 1, 1), 0, NULL, 0, NULL, &f),
                 EMU_ERR_INVALID_CONFIG);
    cr_expect_eq(emu_launch(d, m, 0, DIM(1, 1, 1), DIM(1, 1, 65), 0, NULL, 0, NULL, &f),
                 EMU_ERR_INVALID_CONFIG);
    cr_expect_eq(emu_launch(d, m, 0, DIM(1, 1, 1), DIM(32, 1, 1), 48 * 1024, NULL, 0, NULL, &f),
                 EMU_ERR_OUT_OF_RESOURCES);
    cr_expect(strstr(f.message, "shared") != NULL, "%s", f.message);
    /* 128 registers x 1024 threads = 131072 > 65536 */
    cr_expect_eq(emu_launch(d, m, 0, DIM(1, 1, 1), DIM(1024, 1, 1), 0, NULL, 0, NULL, &f),
                 EMU_ERR_OUT_OF_RESOURCES);
    cr_expect_eq(emu_launch(d, m, 0, DIM(1, 1, 1), DIM(512, 1, 1), 0, NULL, 0, NULL, &f),
                 EMU_OK);
    cr_expect_eq(emu_launch(d, m, 5, DIM(1, 1, 1), DIM(1, 1, 1), 0, NULL, 0, NULL, &f),
                 EMU_ERR_INVALID_VALUE);
    EmuModule *p = t_load(d, ".kernel k\n.param 8\n  exit\n");
    cr_expect_eq(emu_launch(d, p, 0, DIM(1, 1, 1), DIM(1, 1, 1), 0, NULL, 0, NULL, &f),
                 EMU_ERR_INVALID_VALUE, "missing parameters");
    emu_destroy(d);
}
