/*
 * hostsec.c - reader, writer, checks and printers of the host-side tables: XMem atoms
 * (`xgpu_atoms`) and Locality Descriptors (`xgpu_ldesc`). The byte layout is in
 * hostsec.h and docs/annotations.md.
 *
 * A section is what the linker made of the tables of every translation unit: tables back
 * to back, each starting 8-aligned, zero bytes between them. The reader walks it table
 * by table; every count, size and string offset is checked against the bytes present
 * before use (64-bit arithmetic), and every record passes the same checks the host pass
 * applies, so a table that parses is one the pass could have written. Errors return -1
 * with one line naming the section and the byte offset; nothing here aborts. The two
 * tables share the walk (hs_walk) and differ in one record decoder each.
 */
#include <json-c/json.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "xgpu/gpubin.h"
#include "xgpu/hostsec.h"

/* ---- little-endian fields ----------------------------------------------------------- */

static uint16_t hs_get16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }
static uint32_t hs_get32(const uint8_t *p) { return hs_get16(p) | (uint32_t)hs_get16(p + 2) << 16; }
static uint64_t hs_get64(const uint8_t *p) { return hs_get32(p) | (uint64_t)hs_get32(p + 4) << 32; }
static void hs_put16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); }

static void hs_put32(uint8_t *p, uint32_t v)
{
    hs_put16(p, (uint16_t)v);
    hs_put16(p + 2, (uint16_t)(v >> 16));
}

static void hs_put64(uint8_t *p, uint64_t v)
{
    hs_put32(p, (uint32_t)v);
    hs_put32(p + 4, (uint32_t)(v >> 32));
}

static int hs_fail(char *err, size_t n, const char *f, ...) __attribute__((format(printf, 3, 4)));
static int hs_fail(char *err, size_t n, const char *f, ...)
{
    if (err && n) {
        va_list ap;
        va_start(ap, f);
        vsnprintf(err, n, f, ap);
        va_end(ap);
    }
    return -1;
}

/* ---- checks ------------------------------------------------------------------------- */

static int hs_msg(char *msg, size_t n, const char *text)
{
    if (msg && n)
        snprintf(msg, n, "%s", text);
    return -1;
}

int xhost_atom_check(const XMemAttrs *a, char *msg, size_t n)
{
    uint32_t type = a->value_props & XMEM_TYPE_MASK;
    if (a->value_props & ~XMEM_PROPS_MASK)
        return hs_msg(msg, n, "unknown value property bits (only bits 0-11 are defined)");
    if (type == 0 || (type & (type - 1)))
        return hs_msg(msg, n, "value_props needs exactly one type bit (XMEM_I8 .. XMEM_CHAR8)");
    if (a->pattern > XMEM_NON_DET)
        return hs_msg(msg, n, "access pattern out of range (NONE, REGULAR, IRREGULAR, NON_DET)");
    if (a->pattern == XMEM_REGULAR && a->stride == 0)
        return hs_msg(msg, n, "REGULAR access pattern needs a non-zero stride");
    if (a->pattern != XMEM_REGULAR && a->stride != 0)
        return hs_msg(msg, n, "a stride is only meaningful with the REGULAR access pattern");
    if (a->rw > XMEM_WRITE_ONLY)
        return hs_msg(msg, n, "rw out of range (READ_ONLY, READ_WRITE, WRITE_ONLY)");
    return 0;
}

/* A compute-data map ranks the walked C-Tile dimensions 1..k, each rank once. */
static int hs_map_ok(const uint8_t m[3])
{
    unsigned seen = 0, k = 0;
    for (int i = 0; i < 3; i++) {
        if (m[i] > 3 || (m[i] && (seen & 1u << m[i])))
            return 0;
        if (m[i]) {
            seen |= 1u << m[i];
            k++;
        }
    }
    return k > 0 && seen == ((1u << (k + 1)) - 2);
}

int xhost_ldesc_check(const XLDStatic *s, char *msg, size_t n)
{
    if (s->locality < XLD_INTER_THREAD || s->locality > XLD_NO_REUSE)
        return hs_msg(msg, n, "locality type out of range (INTER_THREAD, INTRA_THREAD, NO_REUSE)");
    if (s->sharing > XLD_NEARBY)
        return hs_msg(msg, n, "sharing type out of range (NONE, COACCESSED, NEARBY)");
    if (s->pattern > XLD_IRREGULAR)
        return hs_msg(msg, n, "access pattern out of range (NONE, REGULAR, IRREGULAR)");
    if (!hs_map_ok(s->map))
        return hs_msg(msg, n, "compute-data map must rank the walked dimensions 1..k, "
                              "e.g. (1,0,0) or (3,1,2)");
    if (s->elem_size == 0)
        return hs_msg(msg, n, "element size must be non-zero");
    return 0;
}

/* ---- the walk ----------------------------------------------------------------------- */

typedef struct HsTable {
    const uint8_t *base; /* the table's first byte */
    size_t offset;       /* of the table in the section */
    uint32_t count;
    const char *pool;
    size_t poollen;
} HsTable;

typedef int (*HsRecordFn)(const HsTable *t, const uint8_t *rec, size_t off, void *out,
                          char *msg, size_t n);

typedef struct HsKind {
    const char *section;
    uint32_t magic;
    uint16_t version;
    uint32_t recsize;
    HsRecordFn decode;
} HsKind;

/* A string named by a pool offset, NULL when the offset or its terminator is missing. */
static const char *hs_string(const HsTable *t, uint32_t off)
{
    if (off >= t->poollen || !memchr(t->pool + off, 0, t->poollen - off))
        return NULL;
    return t->pool + off;
}

static int hs_header(const HsKind *k, const uint8_t *b, size_t len, size_t off, HsTable *t,
                     char *err, size_t n)
{
    if (len - off < XHOST_HEADER)
        return hs_fail(err, n, "%s: truncated table header at offset %zu", k->section, off);
    const uint8_t *p = b + off;
    if (hs_get32(p) != k->magic)
        return hs_fail(err, n, "%s: bad magic 0x%08x at offset %zu", k->section,
                       hs_get32(p), off);
    if (hs_get16(p + 4) != k->version)
        return hs_fail(err, n, "%s: unsupported version %u at offset %zu (expected %u)",
                       k->section, hs_get16(p + 4), off, k->version);
    uint64_t count = hs_get32(p + 8), size = hs_get32(p + 12);
    uint64_t recs = XHOST_HEADER + count * k->recsize;
    if (size > len - off || size < recs || size % 8)
        return hs_fail(err, n, "%s: table at offset %zu: bad size %llu for %llu records "
                       "(%zu bytes left)", k->section, off, (unsigned long long)size,
                       (unsigned long long)count, len - off);
    *t = (HsTable){p, off, (uint32_t)count, (const char *)p + recs, (size_t)(size - recs)};
    return 0;
}

/* Calls k->decode for every record of every table; returns the record count or -1. */
static long hs_walk(const HsKind *k, const void *buf, size_t len, void **vec, size_t elem,
                    size_t *ntables, char *err, size_t n)
{
    const uint8_t *b = buf;
    size_t off = 0, total = 0, cap = 0;
    *vec = NULL;
    *ntables = 0;
    if (!buf && len)
        return hs_fail(err, n, "%s: no data", k->section);
    while (off < len) {
        if (len - off >= 8 && hs_get64(b + off) == 0) { /* padding between tables */
            off += 8;
            continue;
        }
        HsTable t;
        if (hs_header(k, b, len, off, &t, err, n))
            return -1;
        if (total + t.count > cap) {
            cap = (total + t.count) * 2;
            void *nv = realloc(*vec, cap * elem);
            if (!nv)
                return hs_fail(err, n, "%s: out of memory", k->section);
            *vec = nv;
        }
        for (uint32_t i = 0; i < t.count; i++) {
            size_t roff = off + XHOST_HEADER + (size_t)i * k->recsize;
            char msg[160];
            if (k->decode(&t, b + roff, roff, (char *)*vec + total * elem, msg, sizeof msg))
                return hs_fail(err, n, "%s: record %u of the table at offset %zu: %s",
                               k->section, i, off, msg);
            total++;
        }
        off += hs_get32(t.base + 12);
        (*ntables)++;
    }
    return (long)total;
}

/* ---- atoms -------------------------------------------------------------------------- */

static int hs_atom(const HsTable *t, const uint8_t *r, size_t off, void *out, char *msg,
                   size_t n)
{
    XHostAtom *a = out;
    memset(a, 0, sizeof *a);
    a->attrs.value_props = hs_get32(r);
    a->attrs.pattern = r[4];
    a->attrs.stride = (int64_t)hs_get64(r + 5);
    a->attrs.rw = r[13];
    a->attrs.intensity = r[14];
    a->attrs.reuse = r[15];
    a->attrs.elem_size = hs_get16(r + 16);
    a->version = r[18];
    a->line = hs_get32(r + 24);
    a->column = hs_get32(r + 28);
    a->offset = off;
    if (a->version != XMEM_ATTR_VERSION) {
        snprintf(msg, n, "attribute record version %u (expected %u)", a->version,
                 XMEM_ATTR_VERSION);
        return -1;
    }
    if (r[19])
        return hs_msg(msg, n, "reserved byte is not zero");
    if (!(a->file = hs_string(t, hs_get32(r + 20))))
        return hs_msg(msg, n, "file name outside the string pool");
    return xhost_atom_check(&a->attrs, msg, n);
}

static const HsKind hs_atoms = {XHOST_ATOMS_SECTION, XHOST_ATOMS_MAGIC, XHOST_ATOMS_VERSION,
                                XHOST_ATOM_REC, hs_atom};

int xhost_atoms_read(const void *buf, size_t len, XHostAtoms *out, char *err, size_t errlen)
{
    void *v;
    long n = hs_walk(&hs_atoms, buf, len, &v, sizeof(XHostAtom), &out->ntables, err, errlen);
    if (n < 0) {
        free(v);
        *out = (XHostAtoms){0};
        return -1;
    }
    out->v = v;
    out->n = (size_t)n;
    return 0;
}

void xhost_atoms_free(XHostAtoms *a)
{
    free(a->v);
    *a = (XHostAtoms){0};
}

/* ---- descriptors -------------------------------------------------------------------- */

static int hs_ldesc(const HsTable *t, const uint8_t *r, size_t off, void *out, char *msg,
                    size_t n)
{
    XHostLDesc *d = out;
    memset(d, 0, sizeof *d);
    d->s.locality = r[0];
    d->s.sharing = r[1];
    d->s.pattern = r[2];
    d->s.priority = r[3];
    memcpy(d->s.map, r + 4, 3);
    d->s.elem_size = hs_get32(r + 8);
    d->line = hs_get32(r + 20);
    d->column = hs_get32(r + 24);
    d->offset = off;
    if (r[7] || hs_get32(r + 28))
        return hs_msg(msg, n, "reserved bytes are not zero");
    uint32_t k = hs_get32(r + 12);
    if (!(d->kernel = k == XHOST_NO_STRING ? "" : hs_string(t, k)))
        return hs_msg(msg, n, "kernel name outside the string pool");
    if (!(d->file = hs_string(t, hs_get32(r + 16))))
        return hs_msg(msg, n, "file name outside the string pool");
    return xhost_ldesc_check(&d->s, msg, n);
}

static const HsKind hs_ldescs = {XHOST_LDESC_SECTION, XHOST_LDESC_MAGIC, XHOST_LDESC_VERSION,
                                 XHOST_LDESC_REC, hs_ldesc};

int xhost_ldesc_read(const void *buf, size_t len, XHostLDescs *out, char *err, size_t errlen)
{
    void *v;
    long n = hs_walk(&hs_ldescs, buf, len, &v, sizeof(XHostLDesc), &out->ntables, err,
                     errlen);
    if (n < 0) {
        free(v);
        *out = (XHostLDescs){0};
        return -1;
    }
    out->v = v;
    out->n = (size_t)n;
    return 0;
}

void xhost_ldesc_free(XHostLDescs *d)
{
    free(d->v);
    *d = (XHostLDescs){0};
}

/* ---- writer ------------------------------------------------------------------------- */

/* A string pool under construction: identical strings are stored once. */
typedef struct HsPool {
    char *p;
    size_t len, cap;
} HsPool;

static uint32_t hs_intern(HsPool *pool, const char *s, int *oom)
{
    size_t sl = strlen(s) + 1;
    for (size_t at = 0; at < pool->len; at += strlen(pool->p + at) + 1)
        if (!strcmp(pool->p + at, s))
            return (uint32_t)at;
    if (pool->len + sl > pool->cap) {
        size_t cap = (pool->len + sl) * 2;
        char *np = realloc(pool->p, cap);
        if (!np) {
            *oom = 1;
            return 0;
        }
        pool->p = np;
        pool->cap = cap;
    }
    memcpy(pool->p + pool->len, s, sl);
    pool->len += sl;
    return (uint32_t)(pool->len - sl);
}

/* Header + records (filled by the caller) + pool, padded to 8. */
static int hs_finish(uint32_t magic, uint16_t version, uint8_t *recs, size_t n, size_t recsize,
                     HsPool *pool, uint8_t **buf, size_t *len)
{
    size_t size = (XHOST_HEADER + n * recsize + pool->len + 7) & ~(size_t)7;
    uint8_t *b = size <= UINT32_MAX ? calloc(1, size) : NULL;
    if (!b)
        return -1;
    hs_put32(b, magic);
    hs_put16(b + 4, version);
    hs_put32(b + 8, (uint32_t)n);
    hs_put32(b + 12, (uint32_t)size);
    if (n)
        memcpy(b + XHOST_HEADER, recs, n * recsize);
    if (pool->len)
        memcpy(b + XHOST_HEADER + n * recsize, pool->p, pool->len);
    *buf = b;
    *len = size;
    return 0;
}

int xhost_atoms_write(const XHostAtom *v, size_t n, uint8_t **buf, size_t *len)
{
    uint8_t *recs = calloc(n ? n : 1, XHOST_ATOM_REC);
    HsPool pool = {0};
    int oom = !recs;
    for (size_t i = 0; i < n && !oom; i++) {
        uint8_t *r = recs + i * XHOST_ATOM_REC;
        const XMemAttrs *a = &v[i].attrs;
        hs_put32(r, a->value_props);
        r[4] = a->pattern;
        hs_put64(r + 5, (uint64_t)a->stride);
        r[13] = a->rw;
        r[14] = a->intensity;
        r[15] = a->reuse;
        hs_put16(r + 16, a->elem_size);
        r[18] = XMEM_ATTR_VERSION;
        hs_put32(r + 20, hs_intern(&pool, v[i].file ? v[i].file : "", &oom));
        hs_put32(r + 24, v[i].line);
        hs_put32(r + 28, v[i].column);
    }
    int rc = oom ? -1 : hs_finish(XHOST_ATOMS_MAGIC, XHOST_ATOMS_VERSION, recs, n,
                                  XHOST_ATOM_REC, &pool, buf, len);
    free(recs);
    free(pool.p);
    return rc;
}

int xhost_ldesc_write(const XHostLDesc *v, size_t n, uint8_t **buf, size_t *len)
{
    uint8_t *recs = calloc(n ? n : 1, XHOST_LDESC_REC);
    HsPool pool = {0};
    int oom = !recs;
    for (size_t i = 0; i < n && !oom; i++) {
        uint8_t *r = recs + i * XHOST_LDESC_REC;
        const XLDStatic *s = &v[i].s;
        r[0] = s->locality;
        r[1] = s->sharing;
        r[2] = s->pattern;
        r[3] = s->priority;
        memcpy(r + 4, s->map, 3);
        hs_put32(r + 8, s->elem_size);
        const char *k = v[i].kernel;
        hs_put32(r + 12, k && *k ? hs_intern(&pool, k, &oom) : XHOST_NO_STRING);
        hs_put32(r + 16, hs_intern(&pool, v[i].file ? v[i].file : "", &oom));
        hs_put32(r + 20, v[i].line);
        hs_put32(r + 24, v[i].column);
    }
    int rc = oom ? -1 : hs_finish(XHOST_LDESC_MAGIC, XHOST_LDESC_VERSION, recs, n,
                                  XHOST_LDESC_REC, &pool, buf, len);
    free(recs);
    free(pool.p);
    return rc;
}

/* ---- names -------------------------------------------------------------------------- */

const char *xhost_props_name(uint32_t props, char *buf, size_t n)
{
    static const char *const names[] = {"I8", "I16", "I32", "I64", "F16", "F32", "F64",
                                        "CHAR8", "SPARSE", "APPROX", "POINTER", "INDEX"};
    size_t at = 0;
    buf[0] = 0;
    for (unsigned b = 0; b < 12; b++)
        if (props & 1u << b) {
            int w = snprintf(buf + at, n - at, "%s%s", at ? "|" : "", names[b]);
            if (w < 0 || (size_t)w >= n - at)
                break;
            at += (size_t)w;
        }
    return buf;
}

static const char *hs_name(const char *const *names, unsigned count, unsigned v)
{
    return v < count ? names[v] : "?";
}

const char *xhost_pattern_name(unsigned p)
{
    static const char *const n[] = {"NONE", "REGULAR", "IRREGULAR", "NON_DET"};
    return hs_name(n, 4, p);
}

const char *xhost_rw_name(unsigned rw)
{
    static const char *const n[] = {"READ_ONLY", "READ_WRITE", "WRITE_ONLY"};
    return hs_name(n, 3, rw);
}

const char *xhost_locality_name(unsigned l)
{
    static const char *const n[] = {"?", "INTER_THREAD", "INTRA_THREAD", "NO_REUSE"};
    return hs_name(n, 4, l);
}

const char *xhost_sharing_name(unsigned s)
{
    static const char *const n[] = {"NONE", "COACCESSED", "NEARBY"};
    return hs_name(n, 3, s);
}

const char *xhost_ldpattern_name(unsigned p)
{
    static const char *const n[] = {"NONE", "REGULAR", "IRREGULAR"};
    return hs_name(n, 3, p);
}

/* ---- printers ----------------------------------------------------------------------- */

void xhost_atoms_print(FILE *f, const XHostAtoms *a)
{
    /* id  value props  pattern  stride  rw  intensity  reuse  elem  site */
    fprintf(f, "%-4s %-16s %-9s %8s %-10s %4s %5s %4s  %s\n", "id", "props", "pattern",
            "stride", "rw", "int", "reuse", "elem", "site");
    for (size_t i = 0; i < a->n; i++) {
        const XHostAtom *x = &a->v[i];
        char props[96];
        fprintf(f, "%-4zu %-16s %-9s %8lld %-10s %4u %5u %4u  %s:%u:%u\n", i,
                xhost_props_name(x->attrs.value_props, props, sizeof props),
                xhost_pattern_name(x->attrs.pattern), (long long)x->attrs.stride,
                xhost_rw_name(x->attrs.rw), x->attrs.intensity, x->attrs.reuse,
                x->attrs.elem_size, x->file, x->line, x->column);
    }
}

void xhost_ldesc_print(FILE *f, const XHostLDescs *d)
{
    /* site no  locality  sharing  pattern  map  priority  elem  kernel  site */
    fprintf(f, "%-4s %-12s %-10s %-9s %-7s %4s %4s  %-20s %s\n", "no", "locality", "sharing",
            "pattern", "map", "prio", "elem", "kernel", "site");
    for (size_t i = 0; i < d->n; i++) {
        const XHostLDesc *x = &d->v[i];
        char map[16];
        snprintf(map, sizeof map, "(%u,%u,%u)", x->s.map[0], x->s.map[1], x->s.map[2]);
        fprintf(f, "%-4zu %-12s %-10s %-9s %-7s %4u %4u  %-20s %s:%u:%u\n", i,
                xhost_locality_name(x->s.locality), xhost_sharing_name(x->s.sharing),
                xhost_ldpattern_name(x->s.pattern), map, x->s.priority, x->s.elem_size,
                x->kernel[0] ? x->kernel : "-", x->file, x->line, x->column);
    }
}

static json_object *hs_site_json(json_object *o, const char *file, uint32_t line, uint32_t col)
{
    json_object_object_add(o, "file", json_object_new_string(file));
    json_object_object_add(o, "line", json_object_new_int64(line));
    json_object_object_add(o, "column", json_object_new_int64(col));
    return o;
}

struct json_object *xhost_atoms_json(const XHostAtoms *a)
{
    json_object *arr = json_object_new_array();
    for (size_t i = 0; i < a->n; i++) {
        const XHostAtom *x = &a->v[i];
        json_object *o = json_object_new_object();
        char props[96];
        json_object_object_add(o, "id", json_object_new_int64((int64_t)i));
        json_object_object_add(o, "value_props", json_object_new_int64(x->attrs.value_props));
        json_object_object_add(o, "props", json_object_new_string(
            xhost_props_name(x->attrs.value_props, props, sizeof props)));
        json_object_object_add(o, "pattern",
                               json_object_new_string(xhost_pattern_name(x->attrs.pattern)));
        json_object_object_add(o, "stride", json_object_new_int64(x->attrs.stride));
        json_object_object_add(o, "rw", json_object_new_string(xhost_rw_name(x->attrs.rw)));
        json_object_object_add(o, "intensity", json_object_new_int64(x->attrs.intensity));
        json_object_object_add(o, "reuse", json_object_new_int64(x->attrs.reuse));
        json_object_object_add(o, "elem_size", json_object_new_int64(x->attrs.elem_size));
        json_object_array_add(arr, hs_site_json(o, x->file, x->line, x->column));
    }
    return arr;
}

struct json_object *xhost_ldesc_json(const XHostLDescs *d)
{
    json_object *arr = json_object_new_array();
    for (size_t i = 0; i < d->n; i++) {
        const XHostLDesc *x = &d->v[i];
        json_object *o = json_object_new_object(), *map = json_object_new_array();
        json_object_object_add(o, "site", json_object_new_int64((int64_t)i));
        json_object_object_add(o, "locality",
                               json_object_new_string(xhost_locality_name(x->s.locality)));
        json_object_object_add(o, "sharing",
                               json_object_new_string(xhost_sharing_name(x->s.sharing)));
        json_object_object_add(o, "pattern",
                               json_object_new_string(xhost_ldpattern_name(x->s.pattern)));
        for (int k = 0; k < 3; k++)
            json_object_array_add(map, json_object_new_int(x->s.map[k]));
        json_object_object_add(o, "map", map);
        json_object_object_add(o, "priority", json_object_new_int(x->s.priority));
        json_object_object_add(o, "elem_size", json_object_new_int64(x->s.elem_size));
        json_object_object_add(o, "kernel", json_object_new_string(x->kernel));
        json_object_array_add(arr, hs_site_json(o, x->file, x->line, x->column));
    }
    return arr;
}
