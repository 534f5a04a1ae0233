/*
 * 271-hostsec-tables: the host-side table format (hostsec.h). Written tables read back
 * field for field, alone and concatenated with padding as the linker lays them out; the
 * text and JSON printers show every field; malformed bytes (truncation, bad magic,
 * version, size, string offsets, reserved bytes, invalid attribute values) are rejected
 * with one line naming the section, never a crash; the checks shared with the host pass
 * accept and refuse what docs/annotations.md says.
 */
#include <criterion/criterion.h>
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

#include "xgpu/hostsec.h"

static const XHostAtom atoms[3] = {
    {.attrs = {XMEM_F32, XMEM_REGULAR, 256, XMEM_READ_ONLY, 200, 255, 4}, .file = "a.cu",
     .line = 12, .column = 18},
    {.attrs = {XMEM_I32 | XMEM_INDEX, XMEM_IRREGULAR, 0, XMEM_READ_WRITE, 10, 0, 4},
     .file = "a.cu", .line = 13, .column = 5},
    {.attrs = {XMEM_CHAR8 | XMEM_SPARSE, XMEM_REGULAR, -8, XMEM_WRITE_ONLY, 0, 1, 1},
     .file = "b.c", .line = 7, .column = 0},
};

static const XHostLDesc descs[2] = {
    {.s = {XLD_INTER_THREAD, XLD_COACCESSED, XLD_REGULAR, {1, 0, 0}, 2, 1}, .kernel = "_Z5histo",
     .file = "h.cu", .line = 50, .column = 15},
    {.s = {XLD_INTRA_THREAD, XLD_NEARBY, XLD_IRREGULAR, {3, 1, 2}, 0, 8}, .kernel = "",
     .file = "h.cu", .line = 60, .column = 3},
};

static uint8_t *write_atoms(size_t n, size_t *len)
{
    uint8_t *b;
    cr_assert_eq(xhost_atoms_write(atoms, n, &b, len), 0);
    cr_assert_eq(*len % 8, 0);
    return b;
}

static void same_atom(const XHostAtom *got, const XHostAtom *want)
{
    cr_assert_eq(got->attrs.value_props, want->attrs.value_props);
    cr_assert_eq(got->attrs.pattern, want->attrs.pattern);
    cr_assert_eq(got->attrs.stride, want->attrs.stride);
    cr_assert_eq(got->attrs.rw, want->attrs.rw);
    cr_assert_eq(got->attrs.intensity, want->attrs.intensity);
    cr_assert_eq(got->attrs.reuse, want->attrs.reuse);
    cr_assert_eq(got->attrs.elem_size, want->attrs.elem_size);
    cr_assert_eq(got->version, XMEM_ATTR_VERSION);
    cr_assert_str_eq(got->file, want->file);
    cr_assert_eq(got->line, want->line);
    cr_assert_eq(got->column, want->column);
}

Test(hostsec, atoms_round_trip_with_the_19_byte_record)
{
    size_t len;
    uint8_t *b = write_atoms(3, &len);
    /* the attribute record's layout (docs/annotations.md): stride at byte 5, elem_size at 16, version at 18 */
    const uint8_t *r = b + XHOST_HEADER;
    cr_assert_eq(r[4], XMEM_REGULAR);
    cr_assert_eq(r[5], 0x00);
    cr_assert_eq(r[6], 0x01); /* 256 little-endian */
    cr_assert_eq(r[16], 4);
    cr_assert_eq(r[18], XMEM_ATTR_VERSION);
    XHostAtoms a;
    char err[200];
    cr_assert_eq(xhost_atoms_read(b, len, &a, err, sizeof err), 0, "%s", err);
    cr_assert_eq(a.n, 3);
    cr_assert_eq(a.ntables, 1);
    for (int i = 0; i < 3; i++) {
        same_atom(&a.v[i], &atoms[i]);
        cr_assert_eq(a.v[i].offset, XHOST_HEADER + i * XHOST_ATOM_REC);
    }
    xhost_atoms_free(&a);
    free(b);
}

Test(hostsec, concatenated_tables_with_padding)
{
    size_t l1, l2;
    uint8_t *t1 = write_atoms(2, &l1), *t2 = write_atoms(3, &l2);
    size_t len = l1 + 24 + l2;
    uint8_t *sec = calloc(1, len);
    memcpy(sec, t1, l1);
    memcpy(sec + l1 + 24, t2, l2);
    XHostAtoms a;
    char err[200];
    cr_assert_eq(xhost_atoms_read(sec, len, &a, err, sizeof err), 0, "%s", err);
    cr_assert_eq(a.n, 5);
    cr_assert_eq(a.ntables, 2);
    same_atom(&a.v[4], &atoms[2]);
    cr_assert_eq(a.v[2].offset, l1 + 24 + XHOST_HEADER);
    xhost_atoms_free(&a);
    cr_assert_eq(xhost_atoms_read(NULL, 0, &a, err, sizeof err), 0); /* empty section */
    cr_assert_eq(a.n, 0);
    free(sec);
    free(t1);
    free(t2);
}

Test(hostsec, descriptors_round_trip)
{
    uint8_t *b;
    size_t len;
    cr_assert_eq(xhost_ldesc_write(descs, 2, &b, &len), 0);
    XHostLDescs d;
    char err[200];
    cr_assert_eq(xhost_ldesc_read(b, len, &d, err, sizeof err), 0, "%s", err);
    cr_assert_eq(d.n, 2);
    for (int i = 0; i < 2; i++) {
        cr_assert_eq(memcmp(&d.v[i].s, &descs[i].s, sizeof d.v[i].s), 0);
        cr_assert_str_eq(d.v[i].kernel, descs[i].kernel);
        cr_assert_str_eq(d.v[i].file, descs[i].file);
        cr_assert_eq(d.v[i].line, descs[i].line);
        cr_assert_eq(d.v[i].column, descs[i].column);
    }
    xhost_ldesc_free(&d);
    free(b);
}

/* Reads bytes that must fail, and returns the message. */
static char *atoms_error(const uint8_t *b, size_t len)
{
    static char err[300];
    XHostAtoms a = {0};
    err[0] = 0;
    cr_assert_neq(xhost_atoms_read(b, len, &a, err, sizeof err), 0);
    cr_assert_eq(a.n, 0);
    cr_assert_null(a.v);
    cr_assert(strncmp(err, "xgpu_atoms: ", 12) == 0, "%s", err);
    cr_assert_null(strchr(err, '\n'));
    return err;
}

Test(hostsec, malformed_atom_tables)
{
    size_t len;
    uint8_t *b = write_atoms(2, &len), *c = malloc(len);
    cr_assert(strstr(atoms_error(b, 8), "truncated"));
#define MUTATE(off, val, text)                                                             \
    do {                                                                                   \
        memcpy(c, b, len);                                                                 \
        c[off] = (uint8_t)(val);                                                           \
        char *e = atoms_error(c, len);                                                     \
        cr_assert(strstr(e, text), "byte %d: %s", off, e);                                 \
    } while (0)
    MUTATE(0, 'Y', "bad magic");
    MUTATE(4, 2, "unsupported version 2");
    MUTATE(8, 200, "bad size");             /* count past the end */
    MUTATE(12, 8, "bad size");              /* size smaller than the records */
    MUTATE(13, 0x10, "bad size");           /* size past the end */
    MUTATE(16 + 0, 0x21, "exactly one type bit");
    MUTATE(16 + 1, 0x10, "unknown value property bits");
    MUTATE(16 + 4, 7, "pattern out of range");
    MUTATE(16 + 4, XMEM_IRREGULAR, "only meaningful with the REGULAR");
    MUTATE(16 + 13, 3, "rw out of range");
    MUTATE(16 + 18, 2, "record version 2");
    MUTATE(16 + 19, 1, "reserved byte");
    MUTATE(16 + 20, 0xF0, "file name outside the string pool");
    cr_assert(strstr(atoms_error(b, len - 8), "bad size")); /* truncated pool */
    /* a pool whose last string has lost its terminator */
    memcpy(c, b, len);
    memset(c + 16 + 2 * 32, 'x', len - 16 - 2 * 32);
    cr_assert(strstr(atoms_error(c, len), "outside the string pool"));
    /* zero stride with REGULAR: stride bytes 5..12 cleared */
    memcpy(c, b, len);
    memset(c + 16 + 5, 0, 8);
    cr_assert(strstr(atoms_error(c, len), "non-zero stride"));
    free(b);
    free(c);
}

Test(hostsec, malformed_descriptor_tables)
{
    uint8_t *b, *c;
    size_t len;
    cr_assert_eq(xhost_ldesc_write(descs, 2, &b, &len), 0);
    c = malloc(len);
    struct { int off, val; const char *text; } cases[] = {
        {0, 0, "bad magic"}, {16 + 0, 0, "locality type"}, {16 + 1, 5, "sharing type"},
        {16 + 2, 3, "access pattern"}, {16 + 5, 1, "compute-data map"},
        {16 + 4, 0, "compute-data map"}, {16 + 7, 1, "reserved"},
        {16 + 12, 0x7F, "kernel name outside"}, {16 + 8, 0, "element size"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        memcpy(c, b, len);
        c[cases[i].off] = (uint8_t)cases[i].val;
        if (cases[i].off == 16 + 8)
            memset(c + 16 + 8, 0, 4);
        XHostLDescs d;
        char err[300] = "";
        cr_assert_neq(xhost_ldesc_read(c, len, &d, err, sizeof err), 0, "case %zu", i);
        cr_assert(strstr(err, cases[i].text) && !strncmp(err, "xgpu_ldesc: ", 12),
                  "case %zu: %s", i, err);
    }
    free(b);
    free(c);
}

Test(hostsec, checks_accept_valid_maps_and_refuse_invalid_ones)
{
    char msg[160];
    XLDStatic s = {XLD_INTER_THREAD, XLD_COACCESSED, XLD_REGULAR, {1, 0, 0}, 1, 4};
    static const uint8_t good[][3] = {{1, 0, 0}, {0, 1, 0}, {2, 1, 0}, {3, 1, 2}, {0, 2, 1}};
    static const uint8_t bad[][3] = {{0, 0, 0}, {2, 0, 0}, {1, 1, 0}, {1, 3, 0}, {4, 1, 2}};
    for (int i = 0; i < 5; i++) {
        memcpy(s.map, good[i], 3);
        cr_assert_eq(xhost_ldesc_check(&s, msg, sizeof msg), 0, "good map %d: %s", i, msg);
        memcpy(s.map, bad[i], 3);
        cr_assert_neq(xhost_ldesc_check(&s, msg, sizeof msg), 0, "bad map %d", i);
    }
    XMemAttrs a = {XMEM_F64 | XMEM_APPROX | XMEM_POINTER, XMEM_NON_DET, 0, XMEM_READ_WRITE, 0,
                   0, 8};
    cr_assert_eq(xhost_atom_check(&a, msg, sizeof msg), 0, "%s", msg);
    a.value_props = XMEM_SPARSE; /* no type */
    cr_assert_neq(xhost_atom_check(&a, msg, sizeof msg), 0);
}

Test(hostsec, text_and_json_printers)
{
    size_t len;
    uint8_t *b = write_atoms(3, &len);
    XHostAtoms a;
    cr_assert_eq(xhost_atoms_read(b, len, &a, NULL, 0), 0);
    char *text = NULL;
    size_t tl = 0;
    FILE *f = open_memstream(&text, &tl);
    xhost_atoms_print(f, &a);
    fclose(f);
    cr_assert(strstr(text, "I32|INDEX"), "%s", text);
    cr_assert(strstr(text, "CHAR8|SPARSE"), "%s", text);
    cr_assert(strstr(text, "IRREGULAR"), "%s", text);
    cr_assert(strstr(text, "WRITE_ONLY"), "%s", text);
    cr_assert(strstr(text, "a.cu:12:18"), "%s", text);
    json_object *j = xhost_atoms_json(&a);
    cr_assert_eq(json_object_array_length(j), 3);
    json_object *o = json_object_array_get_idx(j, 2), *v;
    cr_assert(json_object_object_get_ex(o, "stride", &v));
    cr_assert_eq(json_object_get_int64(v), -8);
    cr_assert(json_object_object_get_ex(o, "file", &v));
    cr_assert_str_eq(json_object_get_string(v), "b.c");
    json_object_put(j);
    free(text);
    xhost_atoms_free(&a);
    free(b);

    cr_assert_eq(xhost_ldesc_write(descs, 2, &b, &len), 0);
    XHostLDescs d;
    cr_assert_eq(xhost_ldesc_read(b, len, &d, NULL, 0), 0);
    f = open_memstream(&text, &tl);
    xhost_ldesc_print(f, &d);
    fclose(f);
    cr_assert(strstr(text, "INTER_THREAD") && strstr(text, "COACCESSED") &&
              strstr(text, "(3,1,2)") && strstr(text, "_Z5histo"), "%s", text);
    j = xhost_ldesc_json(&d);
    o = json_object_array_get_idx(j, 1);
    cr_assert(json_object_object_get_ex(o, "map", &v));
    cr_assert_eq(json_object_get_int(json_object_array_get_idx(v, 0)), 3);
    json_object_put(j);
    free(text);
    xhost_ldesc_free(&d);
    free(b);
}
