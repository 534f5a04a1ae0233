/*
 * diag.c - located diagnostics (diag.h): one writer for a stream and for a buffer, so
 * that a message reads the same whether it is printed at once or handed to a caller.
 */
#include <string.h>

#include "xgpu/diag.h"

/* A stream, or a buffer that takes what fits and always stays NUL-terminated. */
typedef struct Sink {
    FILE *f;
    char *buf;
    size_t cap, len;
} Sink;

static void sink_v(Sink *s, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));
static void sink_v(Sink *s, const char *fmt, va_list ap)
{
    if (s->f) {
        vfprintf(s->f, fmt, ap);
        return;
    }
    if (s->len + 1 >= s->cap)
        return;
    int k = vsnprintf(s->buf + s->len, s->cap - s->len, fmt, ap);
    if (k > 0)
        s->len = s->len + (size_t)k < s->cap ? s->len + (size_t)k : s->cap - 1;
}

static void sink(Sink *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sink(Sink *s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sink_v(s, fmt, ap);
    va_end(ap);
}

long xdiag_source_line(const char *file, unsigned line, char *buf, size_t n)
{
    FILE *f = file && *file && line && n ? fopen(file, "r") : NULL;
    if (!f)
        return -1;
    int c = 0;
    for (unsigned at = 1; at < line && c != EOF;)
        if ((c = getc(f)) == '\n')
            at++;
    long len = 0;
    while (c != EOF && (c = getc(f)) != EOF && c != '\n') {
        if ((size_t)len + 1 < n)
            buf[len] = (char)c;
        len++;
    }
    fclose(f);
    if (len && (size_t)len < n && buf[len - 1] == '\r')
        len--;
    buf[(size_t)len < n ? (size_t)len : n - 1] = '\0';
    return len || c == '\n' ? len : -1; /* an empty last "line" after the final newline */
}

/* The source line and a caret under col, when the line can be shown up to col. */
static void excerpt(Sink *s, const char *file, unsigned line, unsigned col)
{
    char text[XDIAG_LINE_MAX + 1], indent[XDIAG_LINE_MAX + 1];
    long len = xdiag_source_line(file, line, text, sizeof text);
    size_t shown = strlen(text);
    if (len < 0 || ((size_t)len > shown && col > shown))
        return;
    size_t k = 0;
    for (size_t i = 0; i + 1 < col && i < shown; i++)
        if (((unsigned char)text[i] & 0xC0) != 0x80) /* not a UTF-8 continuation byte */
            indent[k++] = text[i] == '\t' ? '\t' : ' ';
    indent[k] = '\0';
    sink(s, "\n%s\n%s^", text, indent);
}

static void write_diag(Sink *s, XDiagKind kind, const char *file, unsigned line,
                       unsigned col, const char *fmt, va_list ap)
{
    static const char *const names[] = {"error", "warning", "note"};
    if (file && line && col)
        sink(s, "%s:%u:%u: ", file, line, col);
    else if (file && line)
        sink(s, "%s:%u: ", file, line);
    else if (file)
        sink(s, "%s: ", file);
    sink(s, "%s: ", names[kind]);
    sink_v(s, fmt, ap);
    if (file && line && col)
        excerpt(s, file, line, col);
}

int xdiag_v(XDiag *d, XDiagKind kind, const char *file, unsigned line, unsigned col,
            const char *fmt, va_list ap)
{
    Sink s = {.f = d ? d->out : stderr};
    write_diag(&s, kind, file, line, col, fmt, ap);
    fputc('\n', s.f);
    if (d && kind == XDIAG_ERROR)
        d->errors++;
    return -1;
}

int xdiag(XDiag *d, XDiagKind kind, const char *file, unsigned line, unsigned col,
          const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    xdiag_v(d, kind, file, line, col, fmt, ap);
    va_end(ap);
    return -1;
}

int xdiag_vformat(char *buf, size_t n, XDiagKind kind, const char *file, unsigned line,
                  unsigned col, const char *fmt, va_list ap)
{
    if (!buf || !n)
        return -1;
    Sink s = {.buf = buf, .cap = n};
    buf[0] = '\0';
    write_diag(&s, kind, file, line, col, fmt, ap);
    return -1;
}

int xdiag_format(char *buf, size_t n, XDiagKind kind, const char *file, unsigned line,
                 unsigned col, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    xdiag_vformat(buf, n, kind, file, line, col, fmt, ap);
    va_end(ap);
    return -1;
}
