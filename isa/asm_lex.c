/*
 * asm_lex.c - lexical helpers for the assembler (asm.c) and the quoting of the
 * disassembler (disasm.c). Everything works in place on one line; see asm_lex.h.
 */
#include <ctype.h>
#include <string.h>

#include "asm_lex.h"

char *lex_trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    size_t n = strlen(s);
    while (n && isspace((unsigned char)s[n - 1]))
        s[--n] = '\0';
    return s;
}

char *lex_strip_comment(char *s)
{
    int quoted = 0;
    for (char *p = s; *p; p++) {
        if (quoted && *p == '\\' && p[1])
            p++;
        else if (*p == '"')
            quoted = !quoted;
        else if (!quoted && (*p == '#' || (p[0] == '/' && p[1] == '/'))) {
            *p = '\0';
            break;
        }
    }
    return s;
}

static int name_char(int c, int first)
{
    return isalpha(c) || c == '_' || c == '.' || c == '$' || (!first && isdigit(c));
}

char *lex_label_end(char *s)
{
    char *p = s;
    if (!name_char((unsigned char)*p, 1))
        return NULL;
    while (name_char((unsigned char)*p, 0))
        p++;
    return *p == ':' ? p : NULL;
}

int lex_is_name(const char *s)
{
    if (!name_char((unsigned char)*s, 1))
        return 0;
    while (*++s)
        if (!name_char((unsigned char)*s, 0))
            return 0;
    return 1;
}

char *lex_word(char **s)
{
    char *p = *s;
    while (isspace((unsigned char)*p))
        p++;
    char *w = p;
    while (*p && !isspace((unsigned char)*p))
        p++;
    if (*p)
        *p++ = '\0';
    *s = p;
    return w;
}

int lex_words(char *s, char **w, int max)
{
    int n = 0;
    for (char *x = lex_word(&s); *x; x = lex_word(&s)) {
        if (n == max)
            return -1;
        w[n++] = x;
    }
    return n;
}

int lex_split(char *s, char **ops, int max)
{
    s = lex_trim(s);
    if (!*s)
        return 0;
    int n = 0;
    for (;;) {
        char *comma = strchr(s, ',');
        if (comma)
            *comma = '\0';
        if (n == max)
            return -1;
        ops[n++] = lex_trim(s);
        if (!comma)
            return n;
        s = comma + 1;
    }
}

static int hex_digit(int c)
{
    return isdigit(c) ? c - '0' : isxdigit(c) ? tolower(c) - 'a' + 10 : -1;
}

/* Digits of s in base 10 or 16 into *v; the whole string, no overflow. */
static int digits(const char *s, unsigned base, uint64_t *v)
{
    *v = 0;
    if (!*s)
        return -1;
    for (; *s; s++) {
        int d = base == 16 ? hex_digit((unsigned char)*s) : isdigit((unsigned char)*s) ? *s - '0' : -1;
        if (d < 0 || *v > (UINT64_MAX - (uint64_t)d) / base)
            return -1;
        *v = *v * base + (uint64_t)d;
    }
    return 0;
}

int lex_int(const char *s, int64_t *out)
{
    int neg = *s == '-';
    uint64_t v;
    if (*s == '-' || *s == '+')
        s++;
    if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X' || s[1] == 'f' || s[1] == 'd')) {
        if (strlen(s + 2) > 16 || digits(s + 2, 16, &v))
            return -1;
    } else if (digits(s, 10, &v) || v > (uint64_t)INT64_MAX + (uint64_t)neg) {
        return -1;
    }
    *out = (int64_t)(neg ? 0 - v : v);
    return 0;
}

int lex_uint(const char *s, uint64_t *out, uint64_t max)
{
    int hex = s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
    if (digits(hex ? s + 2 : s, hex ? 16 : 10, out) || *out > max)
        return -1;
    return 0;
}

int lex_uints(char *s, uint64_t *v, int n, uint64_t max)
{
    int k = 0;
    for (char *w = lex_word(&s); *w; w = lex_word(&s))
        if (k == n || lex_uint(w, &v[k++], max))
            return -1;
    return k;
}

int lex_lookup(const char *const *names, int n, const char *s)
{
    for (int i = 0; i < n; i++)
        if (strcmp(names[i], s) == 0)
            return i;
    return -1;
}

uint32_t lex_natural_align(uint64_t size)
{
    uint32_t a = 1;
    while (a < 8 && size && size % (a * 2) == 0)
        a *= 2;
    return a;
}

static int unescape(const char **p, char *c)
{
    const char *s = *p;
    switch (*s) {
    case 'n': *c = '\n'; break;
    case 't': *c = '\t'; break;
    case '\\': case '"': *c = *s; break;
    case 'x': {
        int h = hex_digit((unsigned char)s[1]), l = h < 0 ? -1 : hex_digit((unsigned char)s[2]);
        if (l < 0)
            return -1;
        *c = (char)(h * 16 + l);
        s += 2;
        break;
    }
    default: return -1;
    }
    *p = s + 1;
    return 0;
}

int lex_string(char **s, char *buf, size_t n)
{
    char *p = *s;
    while (isspace((unsigned char)*p))
        p++;
    if (*p != '"') {
        char *w = lex_word(&p);
        if (!*w || strlen(w) >= n)
            return -1;
        strcpy(buf, w);
        *s = p;
        return 0;
    }
    const char *q = p + 1;
    size_t k = 0;
    while (*q != '"') {
        char c = *q;
        if (!c || k + 1 >= n)
            return -1;
        if (c == '\\' ? (q++, unescape(&q, &c)) : (q++, 0))
            return -1;
        buf[k++] = c;
    }
    buf[k] = '\0';
    *s = (char *)q + 1;
    return 0;
}

void lex_quote(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20 || c >= 0x7f)
            fprintf(f, "\\x%02x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}
