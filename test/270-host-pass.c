/*
 * 270-host-pass: xgpu-cc's host pass (passes/host.c) on small annotated programs.
 * A CreateAtom call site gets one static ID however often it runs, distinct sites get
 * distinct IDs in call-site order, and IDs continue across translation units in link
 * order (C and C++); the same at -O0 and with -g. The object's xgpu_atoms / xgpu_ldesc
 * sections hold the tables the shared reader parses, with file:line:column of each site.
 * Non-constant attributes are clang's located errors; invalid attribute values are the
 * pass's errors with file:line:col, the source line and a caret.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xgpu/hostsec.h"
#include "xtest.h"

static const char unit_a[] =
    "#include <stdio.h>\n"
    "#include <xgpu/xmem.h>\n"
    "int b_atoms(AtomID *out);\n"
    "int main(void)\n"
    "{\n"
    "    AtomID loop[4], b[2];\n"
    "    for (int i = 0; i < 4; i++)\n"
    "        loop[i] = CreateAtom({XMEM_F32, XMEM_REGULAR, 4, XMEM_READ_ONLY, 1, 2, 4});\n"
    "    AtomID other = CreateAtom(XMEM_ATTRS(XMEM_I8, XMEM_IRREGULAR, 0, XMEM_READ_WRITE,\n"
    "                                         0, 0, 1));\n"
    "    b_atoms(b);\n"
    "    b_atoms(b);\n"
    "    XAtomInfo in;\n"
    "    xgpuAtomQuery(loop[0], &in);\n"
    "    printf(\"loop %d %d %d %d other %d b %d %d count %d site %u:%u\\n\", loop[0],\n"
    "           loop[1], loop[2], loop[3], other, b[0], b[1], xgpuAtomCount(), in.line,\n"
    "           in.column);\n"
    "    xgpuAtomQuery(b[1], &in);\n"
    "    printf(\"b1 stride %lld rw %u\\n\", (long long)in.attrs.stride, in.attrs.rw);\n"
    "    return 0;\n"
    "}\n";

static const char unit_b[] =
    "#include <xgpu/xmem.h>\n"
    "extern \"C\" int b_atoms(AtomID *out)\n"
    "{\n"
    "    constexpr XMemAttrs attrs = XMEM_ATTRS(XMEM_F64, XMEM_NON_DET, 0, XMEM_READ_WRITE,\n"
    "                                           3, 3, 8);\n"
    "    out[0] = CreateAtom(attrs);\n"
    "    out[1] = CreateAtom({XMEM_I64, XMEM_REGULAR, -8, XMEM_WRITE_ONLY, 0, 0, 8});\n"
    "    return 0;\n"
    "}\n";

static const char *const expect_out =
    "loop 0 0 0 0 other 1 b 2 3 count 4 site 8:19\n"
    "b1 stride -8 rw 2\n";

static void build_and_run(const char *opts)
{
    xt_write(xt_tmp("a.c"), unit_a);
    xt_write(xt_tmp("b.cc"), unit_b);
    char *out = NULL;
    int rc = xt_runf(&out, "cd %s && %s/xgpu-cc %s a.c b.cc -o prog 2>&1", xt_tmpdir(),
                     XGPU_BIN_DIR, opts);
    cr_assert_eq(rc, 0, "xgpu-cc %s failed:\n%s", opts, out);
    free(out);
    rc = xt_runf(&out, "%s/prog", xt_tmpdir());
    cr_assert_eq(rc, 0, "%s", out);
    cr_assert_str_eq(out, expect_out);
    free(out);
}

Test(host_pass, ids_are_static_per_site_and_continue_across_units) { build_and_run("-O2"); }
Test(host_pass, ids_at_O0_with_debug_info) { build_and_run("-O0 -g"); }

/* The section's bytes in an object file, through objcopy. */
static uint8_t *section_of(const char *obj, const char *sec, size_t *len)
{
    const char *bin = xt_tmp("sec.bin");
    char *out = NULL;
    int rc = xt_runf(&out, "objcopy -O binary --only-section=%s %s %s 2>&1", sec, obj, bin);
    cr_assert_eq(rc, 0, "objcopy: %s", out);
    free(out);
    uint8_t *b = (uint8_t *)xt_read(bin, len);
    cr_assert_not_null(b);
    return b;
}

Test(host_pass, object_holds_the_atom_table)
{
    xt_write(xt_tmp("a.c"), unit_a);
    char *out = NULL;
    int rc = xt_runf(&out, "cd %s && %s/xgpu-cc -c a.c -o a.o 2>&1", xt_tmpdir(), XGPU_BIN_DIR);
    cr_assert_eq(rc, 0, "%s", out);
    free(out);
    size_t len;
    uint8_t *b = section_of(xt_tmp("a.o"), "xgpu_atoms", &len);
    XHostAtoms a;
    char err[200];
    cr_assert_eq(xhost_atoms_read(b, len, &a, err, sizeof err), 0, "%s", err);
    cr_assert_eq(a.n, 2);
    cr_assert_str_eq(a.v[0].file, "a.c");
    cr_assert_eq(a.v[0].line, 8);
    cr_assert_eq(a.v[0].column, 19);
    cr_assert_eq(a.v[0].attrs.value_props, XMEM_F32);
    cr_assert_eq(a.v[0].attrs.reuse, 2);
    cr_assert_eq(a.v[1].line, 9);
    cr_assert_eq(a.v[1].column, 20);
    cr_assert_eq(a.v[1].attrs.pattern, XMEM_IRREGULAR);
    xhost_atoms_free(&a);
    free(b);
}

static const char unit_ld[] =
    "#include <xgpu/ldesc.h>\n"
    "void kern(void) {}\n"
    "int describe(void *p, const XLDTile *t)\n"
    "{\n"
    "    return LocalityDescriptor(kern, p, 64, t, 4, XLD_INTER_THREAD, XLD_COACCESSED,\n"
    "                              XLD_REGULAR, XLD_MAP(3, 1, 2), 7, 4) +\n"
    "           LocalityDescriptor((void (*)(void))p, p, 64, t, 0, XLD_NO_REUSE, 0, 0,\n"
    "                              XLD_MAP(1, 0, 0), 0, 2);\n"
    "}\n";

Test(host_pass, object_holds_the_descriptor_table)
{
    xt_write(xt_tmp("ld.c"), unit_ld);
    char *out = NULL;
    int rc = xt_runf(&out, "cd %s && %s/xgpu-cc -c ld.c -o ld.o 2>&1", xt_tmpdir(), XGPU_BIN_DIR);
    cr_assert_eq(rc, 0, "%s", out);
    free(out);
    size_t len;
    uint8_t *b = section_of(xt_tmp("ld.o"), "xgpu_ldesc", &len);
    XHostLDescs d;
    char err[200];
    cr_assert_eq(xhost_ldesc_read(b, len, &d, err, sizeof err), 0, "%s", err);
    cr_assert_eq(d.n, 2);
    cr_assert_eq(d.v[0].s.map[0], 3);
    cr_assert_eq(d.v[0].s.map[2], 2);
    cr_assert_eq(d.v[0].s.priority, 7);
    cr_assert_str_eq(d.v[0].kernel, "kern");  /* a static kernel is named */
    cr_assert_str_eq(d.v[1].kernel, "");      /* a run-time one is not */
    cr_assert_eq(d.v[1].s.locality, XLD_NO_REUSE);
    cr_assert_eq(d.v[0].line, 5);
    cr_assert_eq(d.v[0].column, 12);
    xhost_ldesc_free(&d);
    free(b);
}

static char *compile_fails(const char *name, const char *src)
{
    xt_write(xt_tmp(name), src);
    char *out = NULL;
    int rc = xt_runf(&out, "cd %s && %s/xgpu-cc -c %s -o x.o 2>&1", xt_tmpdir(), XGPU_BIN_DIR,
                     name);
    cr_assert_neq(rc, 0, "xgpu-cc accepted %s:\n%s", name, out);
    return out;
}

Test(host_pass, non_constant_attributes_are_located_errors)
{
    static const char c_src[] =
        "#include <xgpu/xmem.h>\n"
        "int main(int argc, char **argv)\n"
        "{\n"
        "    (void)argv;\n"
        "    return CreateAtom({XMEM_F32, XMEM_REGULAR, argc, XMEM_READ_ONLY, 0, 0, 4});\n"
        "}\n";
    char *out = compile_fails("nc.c", c_src);
    cr_assert(strstr(out, "nc.c:5:") && strstr(out, "error:"), "%s", out);
    free(out);
    static const char cc_src[] =
        "#include <xgpu/xmem.h>\n"
        "int f(int n)\n"
        "{\n"
        "    XMemAttrs a = {XMEM_F32, XMEM_REGULAR, n, XMEM_READ_ONLY, 0, 0, 4};\n"
        "    return CreateAtom(a);\n"
        "}\n";
    out = compile_fails("nc.cc", cc_src);
    cr_assert(strstr(out, "nc.cc:5:") && strstr(out, "error:"), "%s", out);
    free(out);
}

Test(host_pass, invalid_values_get_a_caret_diagnostic)
{
    static const char src[] =
        "#include <xgpu/xmem.h>\n"
        "int main(void)\n"
        "{\n"
        "    AtomID a = CreateAtom({XMEM_F32 | XMEM_I32, 0, 0, XMEM_READ_ONLY, 0, 0, 4});\n"
        "    AtomID b = CreateAtom({XMEM_F32, XMEM_REGULAR, 0, XMEM_READ_ONLY, 0, 0, 4});\n"
        "    return a + b + CreateAtom({XMEM_F32, 0, 0, 5, 0, 0, 4});\n"
        "}\n";
    char *out = compile_fails("bad.c", src);
    const char *want =
        "bad.c:4:16: error: CreateAtom: value_props needs exactly one type bit (XMEM_I8 .. "
        "XMEM_CHAR8)\n"
        "    AtomID a = CreateAtom({XMEM_F32 | XMEM_I32, 0, 0, XMEM_READ_ONLY, 0, 0, 4});\n"
        "               ^\n"
        "bad.c:5:16: error: CreateAtom: REGULAR access pattern needs a non-zero stride\n"
        "    AtomID b = CreateAtom({XMEM_F32, XMEM_REGULAR, 0, XMEM_READ_ONLY, 0, 0, 4});\n"
        "               ^\n"
        "bad.c:6:20: error: CreateAtom: rw out of range (READ_ONLY, READ_WRITE, WRITE_ONLY)\n";
    cr_assert(strstr(out, want), "got:\n%s", out);
    free(out);
    static const char ld[] =
        "#include <xgpu/ldesc.h>\n"
        "void kern(void) {}\n"
        "int describe(void *p, const XLDTile *t)\n"
        "{\n"
        "    return LocalityDescriptor(kern, p, 64, t, 4, XLD_INTER_THREAD, XLD_COACCESSED,\n"
        "                              XLD_REGULAR, XLD_MAP(1, 1, 0), 7, 4);\n"
        "}\n";
    out = compile_fails("badld.c", ld);
    cr_assert(strstr(out, "badld.c:5:12: error: LocalityDescriptor: compute-data map must "
                          "rank"), "got:\n%s", out);
    free(out);
}

Test(host_pass, more_than_255_sites_in_a_unit_is_an_error)
{
    size_t cap = 64 * 1024, n = 0;
    char *src = malloc(cap);
    n += (size_t)snprintf(src + n, cap - n, "#include <xgpu/xmem.h>\nint main(void)\n{\n"
                          "    int s = 0;\n");
    for (int i = 0; i < 256; i++)
        n += (size_t)snprintf(src + n, cap - n,
                              "    s += CreateAtom({XMEM_I8, 0, 0, 0, %d, 0, 1});\n", i);
    snprintf(src + n, cap - n, "    return s;\n}\n");
    char *out = compile_fails("many.c", src);
    cr_assert(strstr(out, "many.c: error: too many CreateAtom call sites"), "%s", out);
    free(out);
    free(src);
}
