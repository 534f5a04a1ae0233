/*
 * jsonw.h - a JSON writer that streams straight into a FILE: the statistics document is
 * written a value at a time, never built in memory, so writing it allocates nothing
 * (a launch log of any length costs no memory to print, and running out of memory
 * cannot stop it half way). The layout is json-c's pretty form ("key":value, two spaces
 * per level, one value a line), which the statistics had before.
 *
 * Every value takes the key it has in its object, or NULL inside an array. A write
 * error is remembered (err, the first errno) and every later call does nothing.
 */
#ifndef EMU_STATS_JSONW_H
#define EMU_STATS_JSONW_H

#include <stdint.h>
#include <stdio.h>

#define JW_MAX_DEPTH 16

typedef struct JsonW {
    FILE *f;
    int depth;                   /* open objects and arrays */
    unsigned char n[JW_MAX_DEPTH]; /* per level: 0 before its first value, 1 after */
    char close[JW_MAX_DEPTH];    /* per level: '}' or ']' */
    int err;                     /* errno of the first failed write, or 0 */
} JsonW;

void jw_init(JsonW *w, FILE *f);
void jw_object(JsonW *w, const char *key); /* opens an object */
void jw_array(JsonW *w, const char *key);  /* opens an array */
void jw_end(JsonW *w);                     /* closes the innermost object or array */
void jw_u64(JsonW *w, const char *key, uint64_t v);
void jw_real(JsonW *w, const char *key, double v); /* null unless finite */
void jw_null(JsonW *w, const char *key);
void jw_bool(JsonW *w, const char *key, int v);
void jw_str(JsonW *w, const char *key, const char *s);
/* Flushes what is written so far: 0, or the errno of the first failure. */
int jw_flush(JsonW *w);
/* Ends the document (a newline) and flushes: 0, or the errno of the first failure. */
int jw_finish(JsonW *w);

#endif
