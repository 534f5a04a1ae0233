/*
 * 830-objdump-host-tables: xgpu-objdump shows the host tables a program carries.
 *
 * The annotated samples as the build compiled them: xmem_tiled holds three atom call
 * sites, ldesc_histo two descriptor call sites. The atom table is printed with the ids
 * the runtime gives (position in the linked table), each atom's attributes and its call
 * site; the descriptor table with its static semantics and kernel; both in text and
 * JSON, by default and with --section. A host table with a damaged header gives one
 * line on stderr and exit status 1.
 */
#include <criterion/criterion.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xgpu/hostsec.h"
#include "xtest.h"

#define OBJDUMP XGPU_BIN_DIR "/xgpu-objdump"
#define XMEM_SAMPLE XGPU_BUILD_DIR "/samples/xmem_tiled"
#define LDESC_SAMPLE XGPU_BUILD_DIR "/samples/ldesc_histo"

static char *objdump(const char *args, const char *file, int want_rc)
{
    char *out = NULL;
    int rc = xt_runf(&out, "%s %s %s", OBJDUMP, args, file);
    cr_assert_eq(rc, want_rc, "xgpu-objdump %s %s exited %d:\n%s", args, file, rc, out);
    return out;
}

/* The line of out that starts with prefix, as a string (static buffer). */
static const char *line_of(const char *out, const char *prefix)
{
    static char buf[512];
    for (const char *p = out; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
        if (strncmp(p, prefix, strlen(prefix)) == 0) {
            size_t n = strcspn(p, "\n");
            snprintf(buf, sizeof buf, "%.*s", (int)(n < sizeof buf ? n : sizeof buf - 1), p);
            return buf;
        }
    cr_assert_fail("no line starting with '%s' in:\n%s", prefix, out);
    return NULL;
}

static void expect_words(const char *line, const char *const *words)
{
    for (; *words; words++)
        cr_expect(strstr(line, *words), "'%s' not in: %s", *words, line);
}

Test(objdump_host, atom_table_text)
{
    char *out = objdump("--section atoms", XMEM_SAMPLE, 0);
    cr_expect(strstr(out, "XMem atom table (xgpu_atoms), 3 atoms in 1 tables"), "%s", out);
    cr_expect(!strstr(out, "gpubin #"), "--section atoms printed the modules:\n%s", out);
    expect_words(line_of(out, "0 "), (const char *const[]){"F32", "REGULAR", "256",
                 "READ_ONLY", "200", "255", "xmem_tiled.cu:87:", NULL});
    expect_words(line_of(out, "1 "), (const char *const[]){"WRITE_ONLY", " 50 ",
                 "xmem_tiled.cu:89:", NULL});
    expect_words(line_of(out, "2 "), (const char *const[]){"READ_ONLY", "255", "128",
                 "xmem_tiled.cu:98:", NULL});
    free(out);

    out = objdump("", XMEM_SAMPLE, 0); /* shown by default, after the device code */
    char *mod = strstr(out, "gpubin #0"), *tab = strstr(out, "xgpu_atoms");
    cr_expect(mod && tab && mod < tab, "default output:\n%s", out);
    free(out);
}

Test(objdump_host, descriptor_table_text)
{
    char *out = objdump("--section ldesc", LDESC_SAMPLE, 0);
    cr_expect(strstr(out, "(xgpu_ldesc), 2 descriptors in 1 tables"), "%s", out);
    expect_words(line_of(out, "0 "), (const char *const[]){"INTER_THREAD", "COACCESSED",
                 "REGULAR", "(1,0,0)", "_Z5histoPKhiiPj", "ldesc_histo.cu:", NULL});
    expect_words(line_of(out, "1 "), (const char *const[]){"IRREGULAR", "(1,2,0)", NULL});
    cr_expect(!strstr(out, "xgpu_atoms"), "no atom table in this program:\n%s", out);
    free(out);
}

Test(objdump_host, tables_in_json)
{
    char *out = objdump("--json --section atoms --section xgpu_ldesc", XMEM_SAMPLE, 0);
    json_object *doc = json_tokener_parse(out), *in, *atoms, *a;
    cr_assert(doc, "not JSON:\n%s", out);
    in = json_object_array_get_idx(json_object_object_get(doc, "inputs"), 0);
    cr_assert(json_object_object_get_ex(in, "atoms", &atoms), "%s", out);
    cr_assert_eq(json_object_array_length(atoms), 3);
    a = json_object_array_get_idx(atoms, 2);
    cr_expect_eq(json_object_get_int(json_object_object_get(a, "id")), 2);
    cr_expect_str_eq(json_object_get_string(json_object_object_get(a, "rw")), "READ_ONLY");
    cr_expect_eq(json_object_get_int(json_object_object_get(a, "reuse")), 128);
    cr_expect_eq(json_object_get_int(json_object_object_get(a, "line")), 98);
    cr_expect(!json_object_object_get_ex(in, "ldesc", NULL), "xmem_tiled has no descriptors");
    json_object_put(doc);
    free(out);
}

/* A copy of the sample whose first atom table header carries version 99. */
Test(objdump_host, damaged_table_is_one_line_error)
{
    size_t len;
    char *bytes = xt_read(XMEM_SAMPLE, &len);
    cr_assert(bytes);
    const uint32_t magic = XHOST_ATOMS_MAGIC;
    size_t off = 0;
    while (off + 16 <= len && (memcmp(bytes + off, &magic, 4) || bytes[off + 4] != 1))
        off++;
    cr_assert(off + 16 <= len, "no atom table header in the sample");
    bytes[off + 4] = 99;
    const char *bad = xt_tmp("xmem_damaged");
    FILE *f = fopen(bad, "wb");
    cr_assert(f && fwrite(bytes, 1, len, f) == len && fclose(f) == 0);
    free(bytes);

    char *out = objdump("--section atoms", bad, 1);
    cr_expect(strstr(out, "xgpu-objdump: ") && strstr(out, "version"), "%s", out);
    cr_expect_eq(strchr(out, '\n'), out + strlen(out) - 1, "more than one line:\n%s", out);
    free(out);
}
