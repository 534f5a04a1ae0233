/*
 * exec_printf.c - device printf (vprintf) and the device's printf FIFO.
 *
 * vprintf d, s0, s1: for each active lane in lane order, the NUL-terminated format at
 * generic address s0 is read from device memory (bounded: no terminator within
 * PF_MAX_STR bytes, or a string running into unmapped memory, is a memcheck fault of
 * the launch), and formatted with CUDA's argument rules: the buffer at generic address
 * s1 holds the arguments packed in order, each aligned (from the buffer's start) to its
 * own size; int/char/short are 4 bytes, the l/ll/z/j/t length modifiers 8, floats are
 * doubles (8), %s and %p take an 8-byte pointer, %n takes a pointer and prints nothing.
 * At most PF_MAX_ARGS arguments are consumed; a conversion that would need more, or one
 * that is not understood, is copied to the output as written. An argument that cannot be
 * read (the buffer ends, or the call passed none) is a fault naming printf, the format
 * and the conversion that lacks its argument; a format or %s string that cannot be read
 * is one too, whatever emu.memcheck says. d = the number of
 * arguments consumed, or -1 for a NULL format (nothing is printed).
 *
 * The device's format string never reaches the host's printf: each conversion is parsed
 * here into a spec rebuilt from validated parts (flags "-+ #0", width and precision
 * clamped to PF_MAX_WIDTH, the host length modifier chosen here) and formatted with
 * snprintf. One lane's output is one FIFO record, appended whole or dropped whole.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "device.h"

#define PF_MAX_STR 4096u   /* longest format or %s string read from the device */
#define PF_MAX_ARGS 32u    /* arguments one printf may consume (CUDA's limit) */
#define PF_MAX_WIDTH 4096  /* widths and precisions are clamped to this */

/* Growable output text of one lane. */
typedef struct PfBuf {
    char *p;
    size_t len, cap;
    int oom;
} PfBuf;

static void pf_put(PfBuf *b, const char *s, size_t n)
{
    if (b->oom || !n)
        return;
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->len + n)
            cap *= 2;
        char *p = realloc(b->p, cap);
        if (!p) {
            b->oom = 1;
            return;
        }
        b->p = p, b->cap = cap;
    }
    memcpy(b->p + b->len, s, n);
    b->len += n;
}

/* Formats with a spec this file built (never a device string). */
static void pf_fmt(PfBuf *b, const char *spec, ...)
{
    char small[256];
    va_list ap, aq;
    va_start(ap, spec);
    va_copy(aq, ap);
    int n = vsnprintf(small, sizeof small, spec, ap);
    va_end(ap);
    if (n >= 0 && (size_t)n < sizeof small) {
        pf_put(b, small, (size_t)n);
    } else if (n > 0) {
        char *big = malloc((size_t)n + 1);
        if (big && vsnprintf(big, (size_t)n + 1, spec, aq) == n)
            pf_put(b, big, (size_t)n);
        else
            b->oom = 1;
        free(big);
    }
    va_end(aq);
}

/* Where a lane reads: the launch context, the lane, its argument buffer, and the
 * conversion being formatted (for fault messages). */
typedef struct PfCtx {
    EmuExec *x;
    const EmuWarp *w;
    unsigned lane;
    uint64_t args, off; /* buffer address, next offset */
    unsigned used;      /* arguments consumed */
    const char *fmt;    /* the format (in device memory) and its length */
    size_t fmt_len;
    const char *conv;   /* the conversion, "%d", its length and number (1-based) */
    size_t conv_len;
    unsigned conv_no;
} PfCtx;

/* Up to 40 bytes of s[0..n) as a C string literal's contents ("...\n"), "..." after. */
static void pf_excerpt(const char *s, size_t n, char *out, size_t outn)
{
    size_t k = 0, i = 0;
    for (; i < n && i < 40 && k + 5 < outn; i++) {
        unsigned char ch = (unsigned char)s[i];
        const char *esc = ch == '\n' ? "\\n" : ch == '\t' ? "\\t" : ch == '"' ? "\\\""
                          : ch == '\\' ? "\\\\" : NULL;
        if (esc)
            k += (size_t)snprintf(out + k, outn - k, "%s", esc);
        else if (ch < 32 || ch >= 127)
            k += (size_t)snprintf(out + k, outn - k, "\\x%02x", ch);
        else
            out[k++] = (char)ch;
    }
    out[k] = 0;
    if (i < n && k + 4 < outn)
        strcpy(out + k, "...");
}

/* "printf "FMT": conversion N (%d)" */
static void pf_where(const PfCtx *c, char *out, size_t n) /* n >= 240 */
{
    char f[180], conv[24];
    pf_excerpt(c->fmt, c->fmt_len, f, sizeof f);
    pf_excerpt(c->conv, c->conv_len, conv, sizeof conv);
    snprintf(out, n, "printf \"%s\": conversion %u (%s)", f, c->conv_no, conv);
}

/* The argument of `size` bytes at a, which cannot be read: a missing argument. */
static int pf_missing(PfCtx *c, uint64_t a, unsigned size)
{
    char what[240];
    pf_where(c, what, sizeof what);
    if (!c->args)
        return emu_exec_fault(c->x, EMU_ERR_ILLEGAL_ADDRESS, c->lane, a,
                              "%.200s has no argument: the call passed none", what), -1;
    size_t len = strlen(what);
    snprintf(what + len, sizeof what - len, " has no argument");
    return emu_mem_fault(c->x, c->w, a, size, c->lane, what), -1;
}

/* Reads the argument of size bytes at generic address a (no alignment rule); -1 after a
 * fault. */
static int pf_read(PfCtx *c, uint64_t a, unsigned size, void *out)
{
    uint64_t avail;
    const uint8_t *p = emu_exec_span(c->x, c->w, a, c->lane, &avail);
    if (!p || avail < size)
        return pf_missing(c, a, size);
    memcpy(out, p, size);
    return 0;
}

/* The next argument of `size` bytes (4 or 8), zero-extended. */
static int pf_arg(PfCtx *c, unsigned size, uint64_t *v)
{
    uint32_t v32;
    c->off = (c->off + size - 1) & ~(uint64_t)(size - 1);
    int rc = size == 8 ? pf_read(c, c->args + c->off, 8, v) : pf_read(c, c->args + c->off, 4, &v32);
    if (size != 8)
        *v = v32;
    c->off += size;
    c->used++;
    return rc;
}

/* A NUL-terminated device string at a, at most `limit` bytes (a limit below PF_MAX_STR
 * is a precision: the string may end there unterminated): the format (c->fmt not set
 * yet) or a %s argument. *s points into device memory. */
static int pf_string(PfCtx *c, uint64_t a, size_t limit, const char **s, size_t *len)
{
    char what[240];
    if (c->fmt) {
        pf_where(c, what, sizeof what);
        size_t k = strlen(what);
        snprintf(what + k, sizeof what - k, ": its string");
    } else {
        snprintf(what, sizeof what, "printf format string");
    }
    uint64_t avail;
    const uint8_t *p = emu_exec_span(c->x, c->w, a, c->lane, &avail);
    if (!p)
        return emu_mem_fault(c->x, c->w, a, 1, c->lane, what), -1;
    size_t n = avail < limit ? (size_t)avail : limit;
    const uint8_t *z = memchr(p, 0, n);
    if (!z && n < limit)
        return emu_exec_fault(c->x, EMU_ERR_ILLEGAL_ADDRESS, c->lane, a,
                              "%s at 0x%llx runs past the end of its memory without a "
                              "terminator", what, (unsigned long long)a), -1;
    if (!z && limit == PF_MAX_STR)
        return emu_exec_fault(c->x, EMU_ERR_ILLEGAL_ADDRESS, c->lane, a,
                              "%s at 0x%llx has no terminator within %u bytes", what,
                              (unsigned long long)a, PF_MAX_STR), -1;
    *s = (const char *)p;
    *len = z ? (size_t)(z - p) : n;
    return 0;
}

/* One parsed conversion. */
typedef struct PfSpec {
    char flags[8];
    int width, prec;  /* -1: none; after * resolution */
    int wstar, pstar; /* taken from the arguments */
    int len8;         /* l, ll, z, j, t: an 8-byte integer */
    int half;         /* 1: h, 2: hh */
    char conv;
} PfSpec;

/* Parses the conversion after '%' at f; returns its length, conv = 0 when invalid. */
static size_t pf_parse(const char *f, PfSpec *s)
{
    const char *p = f;
    memset(s, 0, sizeof *s);
    s->width = s->prec = -1;
    size_t nf = 0;
    for (; *p && strchr("-+ #0", *p); p++)
        if (nf + 1 < sizeof s->flags && !memchr(s->flags, *p, nf))
            s->flags[nf++] = *p;
    if (*p == '*')
        s->wstar = 1, p++;
    else
        for (s->width = *p >= '0' && *p <= '9' ? 0 : -1; *p >= '0' && *p <= '9'; p++)
            s->width = s->width > PF_MAX_WIDTH ? s->width : s->width * 10 + (*p - '0');
    if (*p == '.') {
        p++;
        if (*p == '*')
            s->pstar = 1, p++;
        else
            for (s->prec = 0; *p >= '0' && *p <= '9'; p++)
                s->prec = s->prec > PF_MAX_WIDTH ? s->prec : s->prec * 10 + (*p - '0');
    }
    if (*p == 'h')
        s->half = 1 + (p[1] == 'h'), p += s->half;
    else if (*p == 'l')
        s->len8 = 1, p += 1 + (p[1] == 'l');
    else if (*p == 'z' || *p == 'j' || *p == 't')
        s->len8 = 1, p++;
    else if (*p == 'L')
        p++;
    if (*p && strchr("diuoxXcspfFeEgGaAn%", *p))
        s->conv = *p++;
    else if (*p)
        p++; /* the unknown character is part of what is copied as written */
    return (size_t)(p - f);
}

/* Host spec "%<flags><width><.prec><len><conv>" (len is a host length modifier). */
static void pf_spec(char *out, size_t n, const PfSpec *s, const char *len, char conv)
{
    int k = snprintf(out, n, "%%%s", s->flags);
    if (s->width >= 0)
        k += snprintf(out + k, n - (size_t)k, "%d", s->width > PF_MAX_WIDTH ? PF_MAX_WIDTH : s->width);
    if (s->prec >= 0)
        k += snprintf(out + k, n - (size_t)k, ".%d", s->prec > PF_MAX_WIDTH ? PF_MAX_WIDTH : s->prec);
    snprintf(out + k, n - (size_t)k, "%s%c", len, conv);
}

/* Resolves * width and precision from the arguments. */
static int pf_stars(PfCtx *c, PfSpec *s)
{
    uint64_t v;
    if (s->wstar) {
        if (pf_arg(c, 4, &v))
            return -1;
        int wv = (int32_t)(uint32_t)v;
        if (wv < 0 && !strchr(s->flags, '-') && strlen(s->flags) + 1 < sizeof s->flags)
            s->flags[strlen(s->flags)] = '-';
        s->width = wv < 0 ? (wv == INT32_MIN ? PF_MAX_WIDTH : -wv) : wv;
    }
    if (s->pstar) {
        if (pf_arg(c, 4, &v))
            return -1;
        int pv = (int32_t)(uint32_t)v;
        s->prec = pv < 0 ? -1 : pv;
    }
    return 0;
}

/* Formats one valid conversion (arguments counted by the caller). */
static int pf_convert(PfCtx *c, PfBuf *b, PfSpec *s)
{
    char spec[64];
    uint64_t v = 0;
    if (pf_stars(c, s))
        return -1;
    int is_int = strchr("diuoxXc", s->conv) != NULL;
    if (s->conv != '%' && pf_arg(c, is_int && !s->len8 ? 4 : 8, &v))
        return -1;
    switch (s->conv) {
    case '%': pf_put(b, "%", 1); return 0;
    case 'n': return 0;
    case 'd': case 'i': {
        long long sv = s->len8 ? (long long)v : (long long)(int32_t)(uint32_t)v;
        sv = s->half == 2 ? (signed char)sv : s->half == 1 ? (short)sv : sv;
        pf_spec(spec, sizeof spec, s, "ll", s->conv);
        pf_fmt(b, spec, sv);
        return 0;
    }
    case 'u': case 'o': case 'x': case 'X': {
        unsigned long long uv = s->len8 ? v : (uint32_t)v;
        uv = s->half == 2 ? (unsigned char)uv : s->half == 1 ? (unsigned short)uv : uv;
        pf_spec(spec, sizeof spec, s, "ll", s->conv);
        pf_fmt(b, spec, uv);
        return 0;
    }
    case 'c':
        s->prec = -1;
        pf_spec(spec, sizeof spec, s, "", 'c');
        pf_fmt(b, spec, (int)(unsigned char)v);
        return 0;
    case 'p': {
        char text[24];
        snprintf(text, sizeof text, "0x%llx", (unsigned long long)v);
        PfSpec ps = *s;
        ps.prec = -1;
        snprintf(ps.flags, sizeof ps.flags, "%s", strchr(s->flags, '-') ? "-" : "");
        pf_spec(spec, sizeof spec, &ps, "", 's');
        pf_fmt(b, spec, text);
        return 0;
    }
    case 's': {
        const char *str = "(null)";
        size_t len = 6;
        if (v) {
            size_t limit = s->prec >= 0 && (unsigned)s->prec < PF_MAX_STR ? (size_t)s->prec
                                                                          : PF_MAX_STR;
            if (pf_string(c, v, limit, &str, &len))
                return -1;
        }
        char *copy = malloc(len + 1);
        if (!copy) {
            b->oom = 1;
            return 0;
        }
        memcpy(copy, str, len);
        copy[len] = '\0';
        pf_spec(spec, sizeof spec, s, "", 's');
        pf_fmt(b, spec, copy);
        free(copy);
        return 0;
    }
    default: { /* f F e E g G a A */
        double dv;
        memcpy(&dv, &v, 8);
        pf_spec(spec, sizeof spec, s, "", s->conv);
        pf_fmt(b, spec, dv);
        return 0;
    }
    }
}

/* Arguments a conversion consumes. */
static unsigned pf_need(const PfSpec *s)
{
    return s->conv == '%' ? 0u : 1u + (unsigned)s->wstar + (unsigned)s->pstar;
}

/* Formats one lane's printf into b; -1 after a fault. */
static int pf_lane(PfCtx *c, const char *f, size_t n, PfBuf *b)
{
    size_t i = 0;
    while (i < n) {
        const char *pct = memchr(f + i, '%', n - i);
        size_t lit = pct ? (size_t)(pct - (f + i)) : n - i;
        pf_put(b, f + i, lit);
        i += lit;
        if (i >= n)
            break;
        PfSpec s;
        size_t len = pf_parse(f + i + 1, &s) + 1;
        c->conv = f + i, c->conv_len = len, c->conv_no++;
        if (!s.conv || c->used + pf_need(&s) > PF_MAX_ARGS)
            pf_put(b, f + i, len); /* copied as written */
        else if (pf_convert(c, b, &s))
            return -1;
        i += len;
    }
    return 0;
}

static int vprintf_run(EXEC_ARGS)
{
    LANES {
        uint64_t fmt = r64(w, in->s0, l);
        PfCtx c = {.x = x, .w = w, .lane = l,
                   .args = (in->flags & XF_IMM) ? (uint64_t)in->imm : r64(w, in->s1, l)};
        if (!fmt) {
            R32(in->d) = UINT32_MAX; /* -1 */
            continue;
        }
        const char *f;
        size_t n;
        if (pf_string(&c, fmt, PF_MAX_STR, &f, &n))
            return EXEC_FAULT;
        PfBuf b = {0};
        c.fmt = f, c.fmt_len = n;
        int rc = pf_lane(&c, f, n, &b);
        if (!rc && !b.oom)
            emu_printf_append(x, b.p, b.len);
        free(b.p);
        if (rc)
            return EXEC_FAULT;
        R32(in->d) = c.used;
    }
    return EXEC_NEXT;
}

int emu_pick_vprintf(const XInsn *xi, EmuInsn *o)
{
    (void)xi;
    o->fn = vprintf_run;
    o->kind = EK_PLAIN;
    return 0;
}

/* --- the FIFO ----------------------------------------------------------------------------- */

void emu_printf_append(EmuExec *x, const char *s, size_t n)
{
    EmuPrintf *pf = x->pf;
    if (!n)
        return;
    if (!pf || n > pf->limit - pf->len) {
        x->pf_dropped += n;
        return;
    }
    if (pf->len + n > pf->cap) {
        uint64_t cap = pf->cap ? pf->cap : 4096;
        while (cap < pf->len + n)
            cap *= 2;
        cap = cap > pf->limit ? pf->limit : cap;
        char *p = realloc(pf->buf, (size_t)cap);
        if (!p) {
            x->pf_dropped += n;
            return;
        }
        pf->buf = p, pf->cap = cap;
    }
    memcpy(pf->buf + pf->len, s, n);
    pf->len += n;
    x->pf_bytes += n;
}

int emu_printf_flush(EmuDevice *d, FILE *out)
{
    if (!d)
        return -1;
    EmuPrintf *pf = &d->printf_fifo;
    size_t n = (size_t)pf->len;
    int bad = out && n && (fwrite(pf->buf, 1, n, out) != n || fflush(out) != 0);
    pf->len = 0;
    return bad ? -1 : (int)(n > (size_t)INT32_MAX ? INT32_MAX : n);
}

EmuStatus emu_set_printf_fifo(EmuDevice *d, uint64_t bytes)
{
    if (!d || bytes == 0 || bytes < d->printf_fifo.len)
        return EMU_ERR_INVALID_VALUE;
    d->printf_fifo.limit = bytes;
    return EMU_OK;
}
