/*
 * launches.c - launches written with spaces inside the chevrons.
 *
 * nvcc reads `k << < grid, block >> > (args)` as a launch; clang's lexer makes `<<` and
 * `<` of it, which no grammar rule accepts. The driver compiles such a source through a
 * copy in which each launch is rewritten here. A small lexer skips comments, string,
 * character and raw string literals and numbers (with digit separators), so only
 * punctuators are looked at. An opener is `<<`, blanks, `<` (not `<<`, `<=`), unless it
 * follows the keyword `operator` (`operator<< <T>(...)` names a template specialization);
 * its closer is the first `>>` + blanks + `>` (or `>>>`) outside parentheses, brackets and
 * braces, followed by `(`; a `;`, `{` or `}` before that means no launch. The rewrite
 * moves the third chevron next to the other two and leaves a blank where it was, so every
 * later character keeps its line and column and diagnostics point at the user's file.
 */
#include "launches.h"

#include <string.h>

typedef enum TokKind { TK_EOF, TK_IDENT, TK_OTHER, TK_PUNCT } TokKind;

typedef struct Tok {
    TokKind kind;
    size_t at, len; /* where the token starts in the text, its length */
} Tok;

typedef struct Lex {
    const char *t;
    size_t n, i;
} Lex;

static int is_ident_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '_' || c == '$' || (unsigned char)c >= 0x80;
}

/* Skips blanks, newlines and comments (a `//` comment goes on after a backslash-newline). */
static void lex_space(Lex *x)
{
    while (x->i < x->n) {
        const char *t = x->t;
        if (strchr(" \t\r\n\f\v", t[x->i]) && t[x->i]) {
            x->i++;
        } else if (t[x->i] == '\\' && x->i + 1 < x->n && t[x->i + 1] == '\n') {
            x->i += 2;
        } else if (t[x->i] == '/' && x->i + 1 < x->n && t[x->i + 1] == '/') {
            while (x->i < x->n && t[x->i] != '\n')
                x->i += t[x->i] == '\\' && x->i + 1 < x->n ? 2 : 1;
        } else if (t[x->i] == '/' && x->i + 1 < x->n && t[x->i + 1] == '*') {
            x->i += 2;
            while (x->i < x->n && !(t[x->i] == '*' && x->i + 1 < x->n && t[x->i + 1] == '/'))
                x->i++;
            x->i = x->i + 2 < x->n ? x->i + 2 : x->n;
        } else {
            return;
        }
    }
}

/* A quoted literal from its opening quote: to the closing quote, or the end of the line
 * when it is not closed (clang reports that). */
static void lex_quoted(Lex *x)
{
    char q = x->t[x->i++];
    while (x->i < x->n && x->t[x->i] != q && x->t[x->i] != '\n')
        x->i += x->t[x->i] == '\\' && x->i + 1 < x->n ? 2 : 1;
    if (x->i < x->n && x->t[x->i] == q)
        x->i++;
}

/* A raw string literal from its opening quote: R"delim( ... )delim". */
static void lex_raw(Lex *x)
{
    size_t d = ++x->i;
    while (x->i < x->n && x->i - d < 16 && x->t[x->i] != '(' && !strchr(" \\)\n", x->t[x->i]))
        x->i++;
    if (x->i >= x->n || x->t[x->i] != '(')
        return; /* not a raw string after all: clang reports it */
    size_t dlen = x->i - d;
    for (x->i++; x->i < x->n; x->i++)
        if (x->t[x->i] == ')' && x->i + dlen + 1 < x->n &&
            !memcmp(x->t + x->i + 1, x->t + d, dlen) && x->t[x->i + 1 + dlen] == '"') {
            x->i += dlen + 2;
            return;
        }
}

/* A pp-number: digits, letters, '.', exponent signs and digit separators. */
static void lex_number(Lex *x)
{
    const char *t = x->t;
    while (x->i < x->n) {
        char c = t[x->i];
        if ((c == '+' || c == '-') && strchr("eEpP", t[x->i - 1]))
            x->i++;
        else if (c == '\'' && x->i + 1 < x->n && is_ident_char(t[x->i + 1]))
            x->i += 2;
        else if (is_ident_char(c) || c == '.')
            x->i++;
        else
            break;
    }
}

static int string_prefix(const char *s, size_t n, int *raw)
{
    static const char *const prefixes[] = {"L", "u", "U", "u8", "R", "LR", "uR", "UR", "u8R"};
    for (size_t i = 0; i < sizeof prefixes / sizeof *prefixes; i++)
        if (strlen(prefixes[i]) == n && !memcmp(prefixes[i], s, n)) {
            *raw = s[n - 1] == 'R';
            return 1;
        }
    return 0;
}

static Tok lex_next(Lex *x)
{
    lex_space(x);
    Tok k = {TK_EOF, x->i, 0};
    if (x->i >= x->n)
        return k;
    const char *t = x->t;
    char c = t[x->i];
    int raw = 0;
    if (c == '"' || c == '\'') {
        lex_quoted(x);
        k.kind = TK_OTHER;
    } else if ((c >= '0' && c <= '9') ||
               (c == '.' && x->i + 1 < x->n && t[x->i + 1] >= '0' && t[x->i + 1] <= '9')) {
        x->i++;
        lex_number(x);
        k.kind = TK_OTHER;
    } else if (is_ident_char(c)) {
        while (x->i < x->n && is_ident_char(t[x->i]))
            x->i++;
        k.kind = TK_IDENT;
        if (x->i < x->n && (t[x->i] == '"' || t[x->i] == '\'') &&
            string_prefix(t + k.at, x->i - k.at, &raw)) {
            if (raw && t[x->i] == '"')
                lex_raw(x);
            else
                lex_quoted(x);
            k.kind = TK_OTHER;
        }
    } else {
        x->i++;
        k.kind = TK_PUNCT;
    }
    k.len = x->i - k.at;
    return k;
}

static int is_punct(const Lex *x, Tok k, char c)
{
    return k.kind == TK_PUNCT && x->t[k.at] == c;
}

/* Whether only blanks (no newline, no comment) lie between two tokens. */
static int blanks_between(const Lex *x, Tok a, Tok b)
{
    for (size_t i = a.at + a.len; i < b.at; i++)
        if (x->t[i] != ' ' && x->t[i] != '\t')
            return 0;
    return b.at > a.at + a.len;
}

/* Given the chevron tokens c[0..3) (`<<` `<` or `>>` `>`): whether they are written with
 * blanks before the third one and nothing adjacent after it (`<<<`, `<=` ...). */
static int spaced_chevrons(const Lex *x, const Tok c[3], char ch, Tok after)
{
    for (int i = 0; i < 3; i++)
        if (!is_punct(x, c[i], ch))
            return 0;
    int adjacent_after = after.kind == TK_PUNCT && after.at == c[2].at + 1 &&
                         (x->t[after.at] == ch || x->t[after.at] == '=');
    return c[1].at == c[0].at + 1 && blanks_between(x, c[1], c[2]) && !adjacent_after;
}

/* From just after an opener: the closer's first token (kind TK_EOF when there is no
 * launch); *spaced says whether it needs rewriting. */
static Tok find_closer(Lex *x, int *spaced)
{
    int depth = 0;
    Tok c[3] = {lex_next(x), lex_next(x), lex_next(x)};
    for (;;) {
        Tok k = c[0];
        if (k.kind == TK_EOF || (depth == 0 && (is_punct(x, k, ';') || is_punct(x, k, '{') ||
                                                is_punct(x, k, '}'))))
            return (Tok){TK_EOF, 0, 0};
        if (k.kind == TK_PUNCT && strchr("([{", x->t[k.at]))
            depth++;
        else if (k.kind == TK_PUNCT && strchr(")]}", x->t[k.at]) && --depth < 0)
            return (Tok){TK_EOF, 0, 0};
        else if (depth == 0 && is_punct(x, k, '>') && is_punct(x, c[1], '>') &&
                 c[1].at == k.at + 1 && is_punct(x, c[2], '>')) {
            Tok after = lex_next(x);
            *spaced = spaced_chevrons(x, c, '>', after);
            if ((*spaced || c[2].at == k.at + 2) && is_punct(x, after, '('))
                return k;
        }
        c[0] = c[1], c[1] = c[2], c[2] = lex_next(x);
    }
}

/* `<< <` or `>> >` from its first token: `<<<` and one blank where the third was. */
static void join_chevrons(char *t, const Tok c[3])
{
    t[c[2].at] = ' ';
    t[c[1].at + 1] = t[c[0].at];
}

unsigned xgpu_fix_launches(char *text, size_t n)
{
    Lex x = {text, n, 0};
    unsigned fixed = 0;
    Tok prev = {TK_EOF, 0, 0}, c[3] = {lex_next(&x), lex_next(&x), lex_next(&x)};
    while (c[0].kind != TK_EOF) {
        int after_operator = prev.kind == TK_IDENT && prev.len == 8 &&
                             !memcmp(text + prev.at, "operator", 8);
        int prev_chevron = is_punct(&x, prev, '<') && prev.at + 1 == c[0].at;
        if (!after_operator && !prev_chevron && is_punct(&x, c[2], '<')) {
            Lex probe = x; /* x stands just after c[2] */
            Tok after = lex_next(&probe), closer[3];
            probe = x;
            int spaced = 0;
            if (spaced_chevrons(&x, c, '<', after) &&
                (closer[0] = find_closer(&probe, &spaced)).kind != TK_EOF) {
                join_chevrons(text, c);
                if (spaced) {
                    Lex again = {text, n, closer[0].at};
                    closer[0] = lex_next(&again), closer[1] = lex_next(&again);
                    closer[2] = lex_next(&again);
                    join_chevrons(text, closer);
                }
                fixed++;
            }
        }
        prev = c[0];
        c[0] = c[1], c[1] = c[2], c[2] = lex_next(&x);
    }
    return fixed;
}
