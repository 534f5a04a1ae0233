/*
 * jsonw.c - the streaming JSON writer (jsonw.h). Reals are written in the shortest of
 * %.15g..%.17g that reads back as the same double, with ".0" added to a whole number so
 * that it stays a real; a value that is not finite (no JSON form) is null. Strings are
 * escaped as JSON requires (quote, backslash, control characters); other bytes pass
 * through unchanged.
 */
#include "stats/jsonw.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void jw_init(JsonW *w, FILE *f)
{
    memset(w, 0, sizeof *w);
    w->f = f;
}

static void put(JsonW *w, const char *s, size_t len)
{
    if (w->err || !len)
        return;
    errno = 0;
    if (fwrite(s, 1, len, w->f) != len)
        w->err = errno ? errno : EIO;
}

static void puts_(JsonW *w, const char *s)
{
    put(w, s, strlen(s));
}

static void quoted(JsonW *w, const char *s)
{
    puts_(w, "\"");
    const char *run = s;
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch >= 0x20 && ch != '"' && ch != '\\')
            continue;
        put(w, run, (size_t)(s - run));
        char esc[8];
        if (ch == '"' || ch == '\\')
            snprintf(esc, sizeof esc, "\\%c", ch);
        else
            snprintf(esc, sizeof esc, "\\u%04x", ch);
        puts_(w, esc);
        run = s + 1;
    }
    put(w, run, (size_t)(s - run));
    puts_(w, "\"");
}

/* The separator, newline and indent before a value, then its key. */
static void lead(JsonW *w, const char *key)
{
    if (w->depth) {
        puts_(w, w->n[w->depth - 1] ? ",\n" : "\n");
        w->n[w->depth - 1] = 1;
        for (int i = 0; i < w->depth; i++)
            puts_(w, "  ");
    }
    if (key) {
        quoted(w, key);
        puts_(w, ":");
    }
}

static void open_(JsonW *w, const char *key, const char *bracket, char close)
{
    lead(w, key);
    puts_(w, bracket);
    if (w->depth == JW_MAX_DEPTH) { /* the statistics never nest this deep */
        w->err = w->err ? w->err : EINVAL;
        return;
    }
    w->n[w->depth] = 0;
    w->close[w->depth++] = close;
}

void jw_object(JsonW *w, const char *key)
{
    open_(w, key, "{", '}');
}

void jw_array(JsonW *w, const char *key)
{
    open_(w, key, "[", ']');
}

void jw_end(JsonW *w)
{
    if (!w->depth)
        return;
    char close[2] = {w->close[--w->depth], 0};
    puts_(w, "\n");
    for (int i = 0; i < w->depth; i++)
        puts_(w, "  ");
    puts_(w, close);
}

void jw_u64(JsonW *w, const char *key, uint64_t v)
{
    char buf[24];
    lead(w, key);
    snprintf(buf, sizeof buf, "%llu", (unsigned long long)v);
    puts_(w, buf);
}

void jw_real(JsonW *w, const char *key, double v)
{
    if (!isfinite(v)) {
        jw_null(w, key);
        return;
    }
    char buf[40];
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(buf, sizeof buf, "%.*g", prec, v);
        if (strtod(buf, NULL) == v)
            break;
    }
    if (!strpbrk(buf, ".e"))
        strcat(buf, ".0");
    lead(w, key);
    puts_(w, buf);
}

void jw_null(JsonW *w, const char *key)
{
    lead(w, key);
    puts_(w, "null");
}

void jw_bool(JsonW *w, const char *key, int v)
{
    lead(w, key);
    puts_(w, v ? "true" : "false");
}

void jw_str(JsonW *w, const char *key, const char *s)
{
    lead(w, key);
    quoted(w, s);
}

int jw_flush(JsonW *w)
{
    errno = 0;
    if (!w->err && fflush(w->f) != 0)
        w->err = errno ? errno : EIO;
    return w->err;
}

int jw_finish(JsonW *w)
{
    puts_(w, "\n");
    errno = 0;
    if (fflush(w->f) != 0 && !w->err)
        w->err = errno ? errno : EIO;
    return w->err;
}
