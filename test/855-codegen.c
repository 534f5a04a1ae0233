/*
 * 855-codegen: bench/codegen.py, which sets xgpu-cc's device code beside ptxas's, at its
 * smallest and without a CUDA toolkit (--no-ptxas). Its xgpu columns must be what
 * xgpu-objdump and the statistics of a functional run say: a kernel's static instruction
 * count and registers are the kernel table's, its class follows from its branches (a
 * grid-stride loop is a loop, a bounds check is not), and warp instructions per launch
 * are the launch's own. The ptxas instruction count is checked on a cubin built here by
 * hand: ptxas's padding (the branch to itself and the NOPs after it) is left out, any
 * other branch is kept. A missing input and an existing output file are refused in one
 * line.
 */
#include <criterion/criterion.h>
#include <json-c/json.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xtest.h"

#define CODEGEN "python3 " XGPU_SOURCE_DIR "/bench/codegen.py --build " XGPU_BUILD_DIR

static json_object *get(json_object *o, const char *key)
{
    json_object *v = NULL;
    cr_assert(json_object_object_get_ex(o, key, &v), "no \"%s\" in %s", key,
              json_object_to_json_string(o));
    return v;
}

static int64_t num(json_object *o, const char *key)
{
    return json_object_get_int64(get(o, key));
}

/* The element of array arr whose field key is the string value. */
static json_object *find(json_object *arr, const char *key, const char *value)
{
    for (size_t i = 0; i < json_object_array_length(arr); i++) {
        json_object *e = json_object_array_get_idx(arr, i);
        json_object *v;
        if (json_object_object_get_ex(e, key, &v) && !strcmp(json_object_get_string(v), value))
            return e;
    }
    cr_assert_fail("no element with %s = %s in %s", key, value, json_object_to_json_string(arr));
    return NULL;
}

/* The kernel table entry of a sample, from xgpu-objdump --json. */
static json_object *objdump_kernel(json_object **doc, const char *sample, const char *kernel)
{
    char *out = NULL;
    int rc = xt_runf(&out, "%s/xgpu-objdump --json --section kernels --section text %s/samples/%s",
                     XGPU_BIN_DIR, XGPU_BUILD_DIR, sample);
    cr_assert_eq(rc, 0, "%s", out);
    *doc = json_tokener_parse(out);
    cr_assert_not_null(*doc, "%s", out);
    free(out);
    json_object *mod = json_object_array_get_idx(
        get(json_object_array_get_idx(get(*doc, "inputs"), 0), "modules"), 0);
    return find(get(mod, "kernels"), "name", kernel);
}

/* Warp instructions of a sample's first launch of kernel, in its own functional run. */
static int64_t launch_warp_insns(const char *sample, const char *kernel)
{
    const char *stats = xt_tmp("direct.json");
    char *out = NULL;
    int rc = xt_runf(&out, "XGPU_MODE=functional XGPU_STATS=%s %s/samples/%s", stats,
                     XGPU_BUILD_DIR, sample);
    cr_assert_eq(rc, 0, "%s", out);
    free(out);
    json_object *doc = json_object_from_file(stats);
    cr_assert_not_null(doc);
    int64_t n = num(find(get(doc, "launches"), "name", kernel), "warp_instructions");
    json_object_put(doc);
    return n;
}

Test(codegen, xgpu_columns_are_objdumps_and_the_runs)
{
    const char *json = xt_tmp("codegen.json");
    char *out = NULL;
    int rc = xt_runf(&out, CODEGEN " --no-ptxas --samples vecadd,reduction --json %s 2>&1",
                     json);
    cr_assert_eq(rc, 0, "%s", out);
    cr_expect(strncmp(out, "program ", 8) == 0, "%s", out);
    cr_expect_null(strstr(out, "ptxas insns"), "no ptxas column with --no-ptxas:\n%s", out);
    cr_expect_null(strstr(out, "geometric mean"), "no ratio without ptxas:\n%s", out);
    cr_expect(strstr(out, "\nvecadd   "), "%s", out);
    free(out);
    json_object *doc = json_object_from_file(json), *od;
    cr_assert_not_null(doc);
    json_object *rows = get(doc, "kernels");

    json_object *vec = find(rows, "kernel", "_Z6vecaddPKfS0_Pfi");
    json_object *k = objdump_kernel(&od, "vecadd", "_Z6vecaddPKfS0_Pfi");
    cr_expect_eq(num(vec, "xgpu_insns"), num(k, "code_count"));
    cr_expect_eq(num(vec, "xgpu_regs"), num(k, "regs"));
    /* vecadd reads its parameters as constant-bank operands: no parameter copies */
    json_object *ldp = get(get(vec, "patterns"), "param");
    cr_expect_eq(json_object_get_int64(json_object_array_get_idx(ldp, 0)), 0);
    json_object_put(od);
    cr_expect_str_eq(json_object_get_string(get(vec, "class")), "straight");
    cr_expect(json_object_is_type(get(vec, "ptxas_insns"), json_type_null));
    cr_expect_eq(num(vec, "launches"), 1);
    cr_expect_eq(num(vec, "warp_insns_per_launch"),
                 launch_warp_insns("vecadd", "_Z6vecaddPKfS0_Pfi"));

    json_object *red = find(rows, "kernel", "_Z6reducePKiPxi");
    k = objdump_kernel(&od, "reduction", "_Z6reducePKiPxi");
    cr_expect_eq(num(red, "xgpu_insns"), num(k, "code_count"));
    json_object_put(od);
    /* the param pattern counts a kernel's parameter copies: ld.param, mov from c[] */
    json_object *part = find(rows, "kernel", "_Z15reduce_partialsPxi");
    k = objdump_kernel(&od, "reduction", "_Z15reduce_partialsPxi");
    json_object *code = get(k, "instructions");
    int params = 0;
    for (size_t i = 0; i < json_object_array_length(code); i++) {
        const char *t = json_object_get_string(get(json_object_array_get_idx(code, i), "text"));
        params += !strncmp(t, "ld.param", 8) || (!strncmp(t, "mov.", 4) && strstr(t, ", c["));
    }
    cr_expect_gt(params, 0);
    json_object *pp = get(get(part, "patterns"), "param");
    cr_expect_eq(json_object_get_int64(json_object_array_get_idx(pp, 0)), params);
    json_object_put(od);
    cr_expect_str_eq(json_object_get_string(get(red, "class")), "loop", "a grid-stride loop");
    json_object_put(doc);
}

Test(codegen, missing_input_and_existing_output_are_one_line_errors)
{
    char *out = NULL;
    int rc = xt_runf(&out, CODEGEN " --no-ptxas --samples none %s 2>&1", xt_tmp("gone.cu"));
    cr_expect_eq(rc, 1, "%s", out);
    cr_expect(strstr(out, "codegen.py: error: ") && strstr(out, "gone.cu: No such file"), "%s",
              out);
    cr_expect_eq(xt_count(out, "\n"), 1, "one line:\n%s", out);
    free(out);
    rc = xt_runf(&out, CODEGEN " --no-ptxas --samples no_such_sample 2>&1");
    cr_expect_eq(rc, 1, "%s", out);
    cr_expect(strstr(out, "no sample 'no_such_sample'"), "%s", out);
    cr_expect_eq(xt_count(out, "\n"), 1, "one line:\n%s", out);
    free(out);
    const char *keep = xt_tmp("keep.json");
    xt_write(keep, "mine\n");
    rc = xt_runf(&out, CODEGEN " --no-ptxas --samples vecadd --json %s 2>&1", keep);
    cr_expect_eq(rc, 1, "%s", out);
    cr_expect(strstr(out, "keep.json: exists (--force replaces it)"), "%s", out);
    cr_expect_eq(xt_count(out, "\n"), 1, "one line:\n%s", out);
    free(out);
    char *kept = xt_read(keep, NULL);
    cr_expect_str_eq(kept, "mine\n", "the existing file is left as it was");
    free(kept);
}

/* A 64-bit little-endian ELF file with a section-name table and one code section per
 * function, as a cubin lays them out: names[i]'s code is words[i] (the first 64-bit word
 * of each 16-byte instruction; the second is 0), its sh_info regs[i] << 24. */
static void write_cubin(const char *path, int n, const char *const names[],
                        const uint64_t *const words[], const int counts[], const int regs[])
{
    unsigned char buf[4096] = {0};
    char strtab[512] = "\0.shstrtab";
    size_t strlen_ = 11, off = 64, name_at[8];
    for (int i = 0; i < n; i++) {
        name_at[i] = strlen_;
        strlen_ += (size_t)sprintf(strtab + strlen_, ".text.%s", names[i]) + 1;
    }
    size_t str_off = off, code_off[8];
    memcpy(buf + off, strtab, strlen_);
    off = (off + strlen_ + 15) & ~(size_t)15;
    for (int i = 0; i < n; i++) {
        code_off[i] = off;
        for (int j = 0; j < counts[i]; j++, off += 16)
            memcpy(buf + off, &words[i][j], 8);
    }
    size_t shoff = off;
    memcpy(buf, "\x7f" "ELF\x02\x01\x01", 7);
    uint16_t shentsize = 64, shnum = (uint16_t)(n + 2), shstrndx = 1;
    memcpy(buf + 0x28, &shoff, 8);
    memcpy(buf + 0x3a, &shentsize, 2);
    memcpy(buf + 0x3c, &shnum, 2);
    memcpy(buf + 0x3e, &shstrndx, 2);
    for (int s = 1; s < shnum; s++) { /* section 0 stays the null section */
        unsigned char *h = buf + shoff + 64 * (size_t)s;
        uint32_t name = s == 1 ? 1 : (uint32_t)name_at[s - 2], type = s == 1 ? 3 : 1;
        uint64_t at = s == 1 ? str_off : code_off[s - 2];
        uint64_t size = s == 1 ? strlen_ : 16 * (uint64_t)counts[s - 2];
        uint32_t info = s == 1 ? 0 : (uint32_t)regs[s - 2] << 24;
        memcpy(h, &name, 4);
        memcpy(h + 4, &type, 4);
        memcpy(h + 24, &at, 8);
        memcpy(h + 32, &size, 8);
        memcpy(h + 44, &info, 4);
    }
    FILE *f = fopen(path, "wb");
    cr_assert_not_null(f);
    fwrite(buf, 1, shoff + 64 * (size_t)shnum, f);
    fclose(f);
}

Test(codegen, ptxas_padding_is_left_out_of_the_count)
{
    /* sm_75 opcodes: MOV 0xa02, S2R 0x919, EXIT 0x94d, BRA 0x947 (offset in bits 32-63,
     * -16: itself), NOP 0x918 */
    const uint64_t self = 0xfffffff000007947ull, back = 0xffffffd000007947ull;
    const uint64_t straight[] = {0xa02, 0x919, 0x919, 0x794d, self, 0x7918, 0x7918, 0x7918};
    const uint64_t looping[] = {0xa02, 0x919, back, self, 0x7918, 0x7918, 0x7918, 0x7918};
    const char *const names[] = {"_Z1kPi", "_Z1jv"};
    const uint64_t *const words[] = {straight, looping};
    const int counts[] = {8, 8}, regs[] = {12, 40};
    const char *cubin = xt_tmp("k.cubin");
    write_cubin(cubin, 2, names, words, counts, regs);
    char *out = NULL;
    int rc = xt_runf(&out, CODEGEN " --cubin %s 2>&1", cubin);
    cr_assert_eq(rc, 0, "%s", out);
    cr_expect(strstr(out, "_Z1kPi 4 12\n"), "4 instructions before the padding:\n%s", out);
    cr_expect(strstr(out, "_Z1jv 3 40\n"), "a branch back is an instruction:\n%s", out);
    free(out);
    rc = xt_runf(&out, CODEGEN " --cubin %s 2>&1", XGPU_SOURCE_DIR "/bench/codegen.py");
    cr_expect_eq(rc, 1, "%s", out);
    cr_expect(strstr(out, "codegen.py: error: ") && strstr(out, "not a 64-bit"), "%s", out);
    cr_expect_eq(xt_count(out, "\n"), 1, "one line:\n%s", out);
    free(out);
}
