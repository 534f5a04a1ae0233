/*
 * 310-memory.c - loads and stores in every space and width, generic addresses through
 * the shared/local/param windows, parameter reads, module globals with initializers and
 * emu_symbol, loading from an ELF image, and the host-side memory API.
 */
#include <stdint.h>
#include "300-emu-util.h"

static EmuDevice *dev;

static void setup(void) { dev = t_dev(); }
static void teardown(void) { emu_destroy(dev); }

TestSuite(memory, .init = setup, .fini = teardown);

Test(memory, global_widths_and_extension)
{
    EmuModule *m = t_load(dev,
        ".kernel k\n.param 8\n.param 8\n"
        "  ld.param.u64 r2, [0]\n  ld.param.u64 r4, [8]\n"
        "  ld.global.u8 r6, [r2+1]\n   st.global.u32 [r4], r6\n"
        "  ld.global.s8 r6, [r2+1]\n   st.global.u32 [r4+4], r6\n"
        "  ld.global.u16 r6, [r2+2]\n  st.global.u32 [r4+8], r6\n"
        "  ld.global.s16 r6, [r2+2]\n  st.global.u32 [r4+12], r6\n"
        "  ld.global.u32 r6, [r2+4]\n  st.global.u32 [r4+16], r6\n"
        "  ld.global.u64 r6, [r2+8]\n  st.global.u64 [r4+24], r6\n"
        "  mov.u32 r8, 0x1234abcd\n"
        "  st.global.u8 [r4+32], r8\n  st.global.u16 [r4+34], r8\n"
        "  st.global.f32 [r4+36], r8\n  exit\n");
    uint8_t in[16] = {0, 0x80, 0xfe, 0xff, 1, 2, 3, 4, 8, 7, 6, 5, 4, 3, 2, 1};
    uint64_t p[2];
    emu_malloc(dev, 16, &p[0]);
    emu_malloc(dev, 40, &p[1]);
    emu_copy_to_device(dev, p[0], in, 16);
    emu_memset(dev, p[1], 0x55, 40);
    cr_assert_eq(t_launch(dev, m, "k", DIM(1, 1, 1), DIM(1, 1, 1), p, 16, NULL), EMU_OK);
    uint32_t out[10];
    emu_copy_from_device(dev, out, p[1], 40);
    cr_expect_eq(out[0], 0x80);
    cr_expect_eq(out[1], 0xffffff80u);
    cr_expect_eq(out[2], 0xfffe);
    cr_expect_eq(out[3], 0xfffffffeu);
    cr_expect_eq(out[4], 0x04030201u);
    cr_expect_eq(((uint64_t)out[7] << 32 | out[6]), 0x0102030405060708ull);
    cr_expect_eq(out[8], 0xabcd55cdu, "u8 and u16 stores write only their bytes: 0x%x", out[8]);
    cr_expect_eq(out[9], 0x1234abcdu);
}

Test(memory, shared_local_and_generic_windows)
{
    /* each thread writes through the space, reads back through a generic pointer
     * (cvta), and the other way round */
    EmuModule *m = t_load(dev,
        ".kernel k\n.param 8\n.shared 256\n.local 16\n"
        "  s2r r0, %tid.x\n  shl.u32 r1, r0, 2\n  cvt.u64.u32 r2, r1\n"
        "  add.u32 r20, r0, 100\n  st.shared.u32 [r2], r20\n"
        "  cvta.shared r4, r2\n  ld.u32 r6, [r4]\n"
        "  add.u32 r20, r0, 200\n  st.local.u32 [8], r20\n"
        "  mov.u64 r8, 8\n  cvta.local r8, r8\n  ld.u32 r7, [r8]\n"
        "  add.u32 r20, r0, 300\n  st.u32 [r8+4], r20\n  ld.local.u32 r21, [12]\n"
        "  cvta.to.local r12, r8\n"
        "  ld.param.u64 r10, [0]\n  cvt.u64.u32 r14, r0\n  shl.u64 r14, r14, 4\n"
        "  add.u64 r10, r10, r14\n"
        "  st.global.u32 [r10], r6\n  st.global.u32 [r10+4], r7\n"
        "  st.global.u32 [r10+8], r21\n  st.global.u32 [r10+12], r12\n  exit\n");
    uint64_t out;
    emu_malloc(dev, 64 * 16, &out);
    EmuFault f;
    EmuStatus s = t_launch(dev, m, "k", DIM(1, 1, 1), DIM(64, 1, 1), &out, 8, &f);
    cr_assert_eq(s, EMU_OK, "%s: pc %u: %s", emu_status_name(s), f.pc, f.message);
    uint32_t v[64 * 4];
    emu_copy_from_device(dev, v, out, sizeof v);
    for (uint32_t t = 0; t < 64; t++) {
        cr_expect_eq(v[t * 4], t + 100, "shared through generic, thread %u", t);
        cr_expect_eq(v[t * 4 + 1], t + 200, "local through generic, thread %u", t);
        cr_expect_eq(v[t * 4 + 2], t + 300, "generic store to local, thread %u", t);
        cr_expect_eq(v[t * 4 + 3], 8, "cvta.to.local gives the offset back");
    }
}

Test(memory, param_reads_and_generic_param)
{
    EmuModule *m = t_load(dev,
        ".kernel k\n.param 8\n.param 1\n.param 2\n.param 4\n.param 8\n"
        "  ld.param.u64 r2, [0]\n"
        "  ld.param.s8 r4, [8]\n     st.global.u32 [r2], r4\n"
        "  ld.param.u16 r4, [10]\n   st.global.u32 [r2+4], r4\n"
        "  ld.param.f32 r4, [12]\n   st.global.u32 [r2+8], r4\n"
        "  ld.param.u64 r4, [16]\n   st.global.u64 [r2+16], r4\n"
        "  mov.u64 r6, 12\n  cvta.param r6, r6\n  ld.u32 r4, [r6]\n"
        "  st.global.u32 [r2+12], r4\n  exit\n");
    const XGpubin *g = emu_module_bin(m);
    cr_assert_eq(g->kernels[0].nparams, 5);
    cr_assert_eq(g->kernels[0].param_bytes, 24);
    uint64_t out;
    emu_malloc(dev, 24, &out);
    uint8_t p[24] = {0};
    memcpy(p, &out, 8);
    p[8] = 0xf0;
    uint16_t h = 0xbeef;
    memcpy(p + 10, &h, 2);
    float f = 2.5f;
    memcpy(p + 12, &f, 4);
    uint64_t q = 0x1122334455667788ull;
    memcpy(p + 16, &q, 8);
    cr_assert_eq(t_launch(dev, m, "k", DIM(1, 1, 1), DIM(1, 1, 1), p, 24, NULL), EMU_OK);
    uint32_t v[6];
    emu_copy_from_device(dev, v, out, 24);
    cr_expect_eq(v[0], 0xfffffff0u);
    cr_expect_eq(v[1], 0xbeef);
    cr_expect_eq(v[2], t_fbits(2.5f));
    cr_expect_eq(v[3], t_fbits(2.5f));
    cr_expect_eq((uint64_t)v[5] << 32 | v[4], q);
}

static const char *globals_src =
    ".global table 8 4 = 1 0 0 0 2 0 0 0\n"
    ".global coef 4 4 const = 0 0 192 63\n"
    ".global zeros 16 8\n"
    ".kernel k\n.param 8\n"
    "  ld.param.u64 r2, [0]\n"
    "  gaddr r4, table+4\n  ld.global.u32 r6, [r4]\n  st.global.u32 [r2], r6\n"
    "  gaddr r4, coef\n  ld.const.f32 r6, [r4]\n  st.global.u32 [r2+4], r6\n"
    "  gaddr r4, zeros\n  ld.global.u64 r6, [r4+8]\n  st.global.u64 [r2+8], r6\n"
    "  gaddr r4, table\n  mov.u32 r6, 77\n  st.global.u32 [r4], r6\n  exit\n";

static void check_globals(EmuModule *m)
{
    uint64_t out, addr, size;
    emu_malloc(dev, 16, &out);
    cr_assert_eq(t_launch(dev, m, "k", DIM(1, 1, 1), DIM(1, 1, 1), &out, 8, NULL), EMU_OK);
    uint32_t v[4];
    emu_copy_from_device(dev, v, out, 16);
    cr_expect_eq(v[0], 2);
    cr_expect_eq(v[1], t_fbits(1.5f));
    cr_expect_eq(v[2], 0);
    cr_expect_eq(v[3], 0);
    cr_assert_eq(emu_symbol(m, "table", &addr, &size), EMU_OK);
    cr_expect_eq(size, 8);
    cr_expect_eq(emu_copy_from_device(dev, v, addr, 8), EMU_OK);
    cr_expect_eq(v[0], 77, "the kernel's store reached the symbol");
    cr_expect_eq(v[1], 2);
    cr_expect_eq(emu_symbol(m, "coef", &addr, &size), EMU_OK);
    cr_expect_eq(size, 4);
    cr_expect_eq(emu_symbol(m, "nope", &addr, &size), EMU_ERR_NOT_FOUND);
}

Test(memory, globals_with_initializers)
{
    check_globals(t_load(dev, globals_src));
}

Test(memory, load_from_elf_image)
{
    XGpubin *g;
    char err[256];
    void *buf;
    size_t len;
    cr_assert_eq(xasm_assemble(globals_src, &g, err, sizeof err), 0, "%s", err);
    cr_assert_eq(xgpubin_write_mem(g, &buf, &len, err, sizeof err), 0, "%s", err);
    xgpubin_free(g);
    EmuModule *m;
    cr_assert_eq(emu_load(dev, buf, len, &m, err, sizeof err), EMU_OK, "%s", err);
    ((uint8_t *)buf)[0] ^= 0xff; /* the module must not depend on the image */
    check_globals(m);
    cr_expect_eq(emu_load(dev, buf, len, &m, err, sizeof err), EMU_ERR_INVALID_IMAGE);
    cr_expect_neq(err[0], 0);
    free(buf);
}

Test(memory, host_api_checks_ranges)
{
    uint64_t a, b, used, total;
    cr_assert_eq(emu_malloc(dev, 100, &a), EMU_OK);
    cr_assert_eq(emu_malloc(dev, 100, &b), EMU_OK);
    cr_expect_geq(a, XGPU_GLOBAL_BASE);
    cr_expect_eq(a % 256, 0);
    cr_expect_eq(b % 256, 0);
    cr_expect_gt(b, a + 100);
    emu_mem_info(dev, &used, &total);
    cr_expect_eq(used, 200);
    cr_expect_eq(total, 4ull << 30);
    char buf[128] = {0};
    cr_expect_eq(emu_copy_to_device(dev, a, buf, 100), EMU_OK);
    cr_expect_eq(emu_copy_to_device(dev, a, buf, 101), EMU_ERR_INVALID_VALUE);
    cr_expect_eq(emu_copy_from_device(dev, buf, a + 50, 60), EMU_ERR_INVALID_VALUE);
    cr_expect_eq(emu_memset(dev, b, 7, 100), EMU_OK);
    cr_expect_eq(emu_copy_device(dev, a, b, 100), EMU_OK);
    cr_expect_eq(emu_copy_from_device(dev, buf, a, 100), EMU_OK);
    cr_expect_eq(buf[99], 7);
    cr_expect_eq(emu_free(dev, a + 4), EMU_ERR_INVALID_VALUE);
    cr_expect_eq(emu_free(dev, a), EMU_OK);
    cr_expect_eq(emu_free(dev, a), EMU_ERR_INVALID_VALUE);
    cr_expect_eq(emu_copy_to_device(dev, a, buf, 4), EMU_ERR_INVALID_VALUE);
    uint64_t c;
    cr_assert_eq(emu_malloc(dev, 100, &c), EMU_OK);
    cr_expect_gt(c, b, "addresses are never reused");
    cr_expect_eq(emu_malloc(dev, 8ull << 30, &c), EMU_ERR_OUT_OF_MEMORY);
    emu_mem_info(dev, &used, &total);
    cr_expect_eq(used, 200);
}

/* Host memory handed to emu_malloc_mapped (a stand-in for the runtime's mapping). */
typedef struct MapBuf {
    uint8_t *mem;
    uint64_t addr, reserved;
    int calls, refuse;
} MapBuf;

static void *map_buf(void *ctx, uint64_t addr, uint64_t reserved)
{
    MapBuf *b = ctx;
    b->calls++;
    if (b->refuse)
        return NULL;
    b->addr = addr, b->reserved = reserved;
    b->mem = aligned_alloc(4096, (size_t)reserved);
    if (b->mem)
        memset(b->mem, 0, (size_t)reserved);
    return b->mem;
}

Test(memory, mapped_allocation_uses_the_callers_bytes)
{
    MapBuf b = {0};
    uint64_t a, next, used;
    cr_assert_eq(emu_malloc(dev, 100, &next), EMU_OK); /* leaves next unaligned to 4 KiB */
    cr_assert_eq(emu_malloc_mapped(dev, 5000, 4096, map_buf, &b, &a), EMU_OK);
    cr_expect_eq(b.calls, 1);
    cr_expect_eq(a % 4096, 0);
    cr_expect_eq(b.addr, a);
    cr_expect_eq(b.reserved, 8192, "rounded up to the alignment");
    emu_mem_info(dev, &used, NULL);
    cr_expect_eq(used, 5100);
    /* one copy: the device's bytes are the caller's */
    b.mem[4999] = 42;
    uint8_t v = 0;
    cr_expect_eq(emu_copy_from_device(dev, &v, a + 4999, 1), EMU_OK);
    cr_expect_eq(v, 42);
    cr_expect_eq(emu_memset(dev, a, 7, 10), EMU_OK);
    cr_expect_eq(b.mem[9], 7);
    cr_expect_eq(emu_memset(dev, a + 5000, 0, 1), EMU_ERR_INVALID_VALUE,
                 "the rest of the last page is not the allocation's");
    cr_assert_eq(emu_malloc(dev, 16, &next), EMU_OK);
    cr_expect_geq(next, a + 8192, "nothing else inside the reserved range");
    /* freeing leaves the caller's memory alone */
    cr_expect_eq(emu_free(dev, a), EMU_OK);
    cr_expect_eq(b.mem[9], 7);
    free(b.mem);
    /* a refused mapping fails the allocation and leaves nothing behind */
    MapBuf no = {.refuse = 1};
    emu_mem_info(dev, &used, NULL);
    cr_expect_eq(emu_malloc_mapped(dev, 4096, 4096, map_buf, &no, &a), EMU_ERR_OUT_OF_MEMORY);
    cr_expect_eq(no.calls, 1);
    uint64_t after;
    emu_mem_info(dev, &after, NULL);
    cr_expect_eq(after, used);
    cr_expect_eq(emu_malloc_mapped(dev, 4096, 1000, map_buf, &b, &a), EMU_ERR_INVALID_VALUE,
                 "alignment not a power of two");
    cr_expect_eq(emu_malloc_mapped(dev, 0, 4096, map_buf, &b, &a), EMU_ERR_INVALID_VALUE);
}
