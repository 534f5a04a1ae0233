/*
 * 385-printf.c - device printf (vprintf) and the printf FIFO: every conversion, flag,
 * length modifier and * width/precision against the host's snprintf with the same
 * arguments; %s from device memory and NULL; %p; %n; the 32-argument limit; several
 * lanes in lane order; FIFO overflow (dropped and counted); flush empties; bad format
 * pointers fault and leave the device usable.
 */
#include <stdint.h>
#include "300-emu-util.h"

/* Arguments packed as CUDA does: in order, each aligned to its size. */
typedef struct Args {
    uint8_t b[512];
    size_t n;
} Args;

static void put(Args *a, const void *v, size_t size)
{
    a->n = (a->n + size - 1) / size * size;
    memcpy(a->b + a->n, v, size);
    a->n += size;
}
static void a_i32(Args *a, int32_t v) { put(a, &v, 4); }
static void a_i64(Args *a, int64_t v) { put(a, &v, 8); }
static void a_f64(Args *a, double v) { put(a, &v, 8); }

/* A device copy of n bytes; returns its address. */
static uint64_t dev_bytes(EmuDevice *d, const void *p, size_t n)
{
    uint64_t addr;
    cr_assert_eq(emu_malloc(d, n ? n : 1, &addr), EMU_OK);
    if (n && p)
        cr_assert_eq(emu_copy_to_device(d, addr, p, n), EMU_OK);
    return addr;
}

static const char *kernel_src =
    ".kernel k\n.param 8\n.param 8\n.param 8\n"
    "  ld.param.u64 r2, [0]\n  ld.param.u64 r4, [8]\n  vprintf r6, r2, r4\n"
    "  ld.param.u64 r8, [16]\n  st.global.u32 [r8], r6\n  exit\n";

/* Runs printf(fmt_addr, args) on one thread; returns the FIFO's text (malloc'd) and
 * the printf's result in *ret. */
static char *run_addr(EmuDevice *d, uint64_t fmt, const Args *a, int32_t *ret, EmuStatus *st,
                      EmuFault *f)
{
    EmuModule *m = t_load(d, kernel_src);
    uint64_t p[3] = {fmt, a ? dev_bytes(d, a->b, a->n) : 0, 0};
    p[2] = dev_bytes(d, NULL, 4);
    *st = t_launch(d, m, "k", DIM(1, 1, 1), DIM(1, 1, 1), p, 24, f);
    emu_copy_from_device(d, ret, p[2], 4);
    char *text = NULL;
    size_t len = 0;
    FILE *mf = open_memstream(&text, &len);
    int n = emu_printf_flush(d, mf);
    fclose(mf);
    cr_assert_eq((size_t)n, len, "flush returned %d for %zu bytes", n, len);
    return text;
}

static char *run_fmt(EmuDevice *d, const char *fmt, const Args *a, int32_t *ret)
{
    EmuStatus st;
    EmuFault f;
    char *text = run_addr(d, dev_bytes(d, fmt, strlen(fmt) + 1), a, ret, &st, &f);
    cr_assert_eq(st, EMU_OK, "%s: %s (format '%s')", emu_status_name(st), f.message, fmt);
    return text;
}

static void expect_text(EmuDevice *d, const char *fmt, const Args *a, const char *want,
                        int32_t want_ret)
{
    int32_t ret = 0;
    char *got = run_fmt(d, fmt, a, &ret);
    cr_expect_str_eq(got, want, "format '%s'", fmt);
    cr_expect_eq(ret, want_ret, "format '%s': returned %d", fmt, ret);
    free(got);
}

Test(printf, integer_conversions_and_flags)
{
    EmuDevice *d = t_dev();
    Args a = {0};
    const char *fmt = "%d %i %u %x %X %o|%5d|%-5d|%+d|% d|%05d|%#x|%#o|%.3d|%hd|%hhu|%c|%%|%-3c|";
    int v[] = {-42, 17, 3000000000u, 0xbeef, 0xbeef, 8, 42, 42, 7, 7, -7, 255, 8, 5, 70000, 300,
               'A', 'z'};
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
        a_i32(&a, v[i]);
    char want[256];
    snprintf(want, sizeof want, "%d %i %u %x %X %o|%5d|%-5d|%+d|% d|%05d|%#x|%#o|%.3d|%hd|%hhu|%c|%%|%-3c|",
             -42, 17, 3000000000u, 0xbeef, 0xbeef, 8, 42, 42, 7, 7, -7, 255, 8, 5,
             (short)70000, (unsigned char)300, 'A', 'z');
    expect_text(d, fmt, &a, want, 18);
    /* 8-byte integers: l, ll, z, j, t */
    Args b = {0};
    a_i32(&b, 1); /* a 4-byte argument first: the 8-byte ones are realigned */
    a_i64(&b, -5000000000ll);
    a_i64(&b, 123456789012345ll);
    a_i64(&b, (int64_t)0xfedcba9876543210ull);
    a_i64(&b, -1);
    a_i64(&b, 99);
    a_i64(&b, -99);
    snprintf(want, sizeof want, "%d %ld %lld %llx %zd %jd %td", 1, -5000000000l,
             123456789012345ll, 0xfedcba9876543210ull, (ssize_t)-1, (intmax_t)99,
             (ptrdiff_t)-99);
    expect_text(d, "%d %ld %lld %llx %zd %jd %td", &b, want, 7);
    emu_destroy(d);
}

Test(printf, float_conversions)
{
    EmuDevice *d = t_dev();
    Args a = {0};
    double v[] = {3.14159, -2.5, 12345.678, 1e-5, 0.000123, 1e20, 1.0, -0.75, 2.0 / 3, 1e6,
                  0.5, 7.0, 1.0 / 0.0, -0.0};
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
        a_f64(&a, v[i]);
    const char *fmt = "%f %F %e %E %g %G %a %A %.2f|%10.3e|%-10g|%+f|%#g|%f";
    char want[512];
    snprintf(want, sizeof want, "%f %F %e %E %g %G %a %A %.2f|%10.3e|%-10g|%+f|%#g|%f", v[0],
             v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9], v[10], v[11], v[12], v[13]);
    expect_text(d, fmt, &a, want, 14);
    emu_destroy(d);
}

Test(printf, star_width_and_precision)
{
    EmuDevice *d = t_dev();
    uint64_t str = dev_bytes(d, "abcdef", 7);
    Args a = {0};
    a_i32(&a, 6), a_i32(&a, 42);           /* %*d */
    a_i32(&a, -6), a_i32(&a, 42);          /* %*d, negative width = left-justified */
    a_i32(&a, 3), a_f64(&a, 3.14159);      /* %.*f */
    a_i32(&a, 8), a_i32(&a, 2), a_i64(&a, (int64_t)str); /* %*.*s */
    a_i32(&a, -1), a_f64(&a, 1.5);         /* %.*f, negative precision = none */
    char want[256];
    snprintf(want, sizeof want, "%*d|%*d|%.*f|%*.*s|%.*f", 6, 42, -6, 42, 3, 3.14159, 8, 2,
             "abcdef", -1, 1.5);
    expect_text(d, "%*d|%*d|%.*f|%*.*s|%.*f", &a, want, 11);
    emu_destroy(d);
}

Test(printf, strings_pointers_and_odd_conversions)
{
    EmuDevice *d = t_dev();
    uint64_t str = dev_bytes(d, "device", 7);
    Args a = {0};
    a_i64(&a, (int64_t)str), a_i64(&a, (int64_t)str), a_i64(&a, (int64_t)str);
    a_i64(&a, (int64_t)str), a_i64(&a, 0);
    expect_text(d, "%s|%10s|%-10s|%.3s|%s", &a, "device|    device|device    |dev|(null)", 5);
    Args p = {0};
    a_i64(&p, 0x1000000040ll), a_i64(&p, 0), a_i64(&p, 0x1000000040ll);
    expect_text(d, "[%p] [%-5p] [%18p]", &p, "[0x1000000040] [0x0  ] [      0x1000000040]", 3);
    /* %n consumes its pointer and prints nothing; unknown conversions print as written */
    Args n = {0};
    a_i64(&n, 0x1000000040ll), a_i32(&n, 5);
    expect_text(d, "a%nb %d %q %", &n, "ab 5 %q %", 2);
    /* no arguments at all (a NULL argument buffer) */
    expect_text(d, "plain text\n", NULL, "plain text\n", 0);
    emu_destroy(d);
}

Test(printf, at_most_32_arguments)
{
    EmuDevice *d = t_dev();
    Args a = {0};
    char fmt[256] = "", want[512] = "";
    for (int i = 0; i < 34; i++) {
        a_i32(&a, i);
        strcat(fmt, "%d,");
        if (i < 32)
            snprintf(want + strlen(want), sizeof want - strlen(want), "%d,", i);
    }
    strcat(want, "%d,%d,");
    expect_text(d, fmt, &a, want, 32);
    emu_destroy(d);
}

/* 40 threads print "lane <tid>\n" with the argument in local memory. */
static const char *lanes_src =
    ".global fmt 9 1 = 108 97 110 101 32 37 100 10 0\n"
    ".kernel k\n.local 8\n"
    "  s2r r0, %tid.x\n  st.local.u32 [0], r0\n  mov.u64 r4, 0\n  cvta.local r4, r4\n"
    "  gaddr r2, fmt\n  vprintf r6, r2, r4\n  exit\n";

static char *flush_text(EmuDevice *d, int *n)
{
    char *text = NULL;
    size_t len = 0;
    FILE *mf = open_memstream(&text, &len);
    *n = emu_printf_flush(d, mf);
    fclose(mf);
    return text;
}

Test(printf, lanes_print_in_order_and_flush_empties)
{
    EmuDevice *d = t_dev();
    EmuModule *m = t_load(d, lanes_src);
    EmuLaunchStats st;
    EmuFault f;
    cr_assert_eq(emu_launch(d, m, 0, DIM(2, 1, 1), DIM(40, 1, 1), 0, NULL, 0, &st, &f), EMU_OK,
                 "%s", f.message);
    char want[1024] = "";
    for (int c = 0; c < 2; c++)
        for (int t = 0; t < 40; t++)
            snprintf(want + strlen(want), sizeof want - strlen(want), "lane %d\n", t);
    int n;
    char *text = flush_text(d, &n);
    cr_expect_str_eq(text, want);
    cr_expect_eq(n, (int)strlen(want));
    cr_expect_eq(st.printf_bytes, strlen(want));
    cr_expect_eq(st.printf_dropped, 0);
    free(text);
    /* the FIFO is empty now */
    text = flush_text(d, &n);
    cr_expect_eq(n, 0);
    cr_expect_str_eq(text, "");
    free(text);
    /* out == NULL discards */
    cr_assert_eq(emu_launch(d, m, 0, DIM(1, 1, 1), DIM(3, 1, 1), 0, NULL, 0, NULL, &f), EMU_OK);
    cr_expect_eq(emu_printf_flush(d, NULL), 21);
    cr_expect_eq(emu_printf_flush(d, NULL), 0);
    cr_expect_eq(emu_printf_flush(NULL, NULL), -1);
    emu_destroy(d);
}

Test(printf, fifo_overflow_drops_and_counts)
{
    EmuDevice *d = t_dev();
    EmuModule *m = t_load(d, lanes_src);
    cr_expect_eq(emu_set_printf_fifo(d, 0), EMU_ERR_INVALID_VALUE);
    cr_assert_eq(emu_set_printf_fifo(d, 50), EMU_OK);
    EmuLaunchStats st;
    EmuFault f;
    cr_assert_eq(emu_launch(d, m, 0, DIM(1, 1, 1), DIM(12, 1, 1), 0, NULL, 0, &st, &f), EMU_OK);
    /* "lane 0\n".."lane 6\n" are 7 bytes each: 7 fit in 50, whole records only */
    cr_expect_eq(st.printf_bytes, 49);
    cr_expect_eq(st.printf_dropped, 3 * 7 + 2 * 8); /* lanes 7-9 (7 bytes), 10-11 (8) */
    cr_expect_eq(emu_set_printf_fifo(d, 10), EMU_ERR_INVALID_VALUE, "49 bytes are held");
    int n;
    char *text = flush_text(d, &n);
    cr_expect_eq(n, 49);
    cr_expect(strncmp(text, "lane 0\nlane 1\n", 14) == 0, "%s", text);
    cr_expect(strstr(text, "lane 6\n") && !strstr(text, "lane 7"), "%s", text);
    free(text);
    /* the statistics JSON carries the counters */
    char *json = NULL;
    size_t len = 0;
    FILE *mf = open_memstream(&json, &len);
    cr_assert_eq(emu_write_stats_json(d, mf), 0);
    fclose(mf);
    cr_expect(strstr(json, "\"printf_dropped\":37") || strstr(json, "\"printf_dropped\": 37"),
              "%s", json);
    cr_expect(strstr(json, "\"printf_bytes\":49") || strstr(json, "\"printf_bytes\": 49"),
              "%s", json);
    free(json);
    emu_destroy(d);
    /* the configuration key sets the default */
    setenv("XGPU_SET", "emu.printf_fifo_bytes=20", 1);
    d = t_dev();
    unsetenv("XGPU_SET");
    m = t_load(d, lanes_src);
    cr_assert_eq(emu_launch(d, m, 0, DIM(1, 1, 1), DIM(4, 1, 1), 0, NULL, 0, &st, &f), EMU_OK);
    cr_expect_eq(st.printf_bytes, 14);
    cr_expect_eq(st.printf_dropped, 14);
    emu_destroy(d);
}

Test(printf, null_and_bad_formats)
{
    EmuDevice *d = t_dev();
    int32_t ret = 0;
    EmuStatus s;
    EmuFault f;
    char *text = run_addr(d, 0, NULL, &ret, &s, &f);
    cr_expect_eq(s, EMU_OK);
    cr_expect_eq(ret, -1, "NULL format returns -1");
    cr_expect_str_eq(text, "");
    free(text);
    /* unmapped */
    text = run_addr(d, XGPU_GLOBAL_BASE + 0x7000000, NULL, &ret, &s, &f);
    cr_expect_eq(s, EMU_ERR_ILLEGAL_ADDRESS, "%s", emu_status_name(s));
    cr_expect(strstr(f.message, "outside any allocation") != NULL, "%s", f.message);
    cr_expect_eq(f.pc, 2);
    cr_expect_str_eq(text, "");
    free(text);
    /* no terminator before the end of the allocation */
    uint64_t unterminated = dev_bytes(d, "abcdefgh", 8);
    text = run_addr(d, unterminated, NULL, &ret, &s, &f);
    cr_expect_eq(s, EMU_ERR_ILLEGAL_ADDRESS);
    cr_expect(strstr(f.message, "terminator") != NULL, "%s", f.message);
    free(text);
    /* no terminator within 4 KiB */
    static char big[5000];
    memset(big, 'x', sizeof big);
    text = run_addr(d, dev_bytes(d, big, sizeof big), NULL, &ret, &s, &f);
    cr_expect_eq(s, EMU_ERR_ILLEGAL_ADDRESS);
    cr_expect(strstr(f.message, "4096") != NULL, "%s", f.message);
    free(text);
    /* a %s pointer into freed memory */
    uint64_t gone = dev_bytes(d, "bye", 4);
    emu_free(d, gone);
    Args a = {0};
    a_i64(&a, (int64_t)gone);
    text = run_addr(d, dev_bytes(d, "%s\n", 4), &a, &ret, &s, &f);
    cr_expect_eq(s, EMU_ERR_ILLEGAL_ADDRESS);
    cr_expect(strstr(f.message, "freed") != NULL, "%s", f.message);
    free(text);
    /* arguments past the end of their buffer */
    Args one = {0};
    a_i32(&one, 1);
    text = run_addr(d, dev_bytes(d, "%d %d\n", 7), &one, &ret, &s, &f);
    cr_expect_eq(s, EMU_ERR_ILLEGAL_ADDRESS);
    free(text);
    /* the device is still usable */
    expect_text(d, "ok %d\n", &one, "ok 1\n", 1);
    emu_destroy(d);
}
