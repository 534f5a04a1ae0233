/*
 * 840-objdump-json: the JSON that xgpu-objdump prints describes the module exactly.
 *
 * Two samples (one with shared memory and barriers, one with atomics and globals) are
 * compiled with -g into fat containers. The module is read back with the library's
 * reader, and every field of `xgpu-objdump --json` with all sections selected is
 * compared with it: kernel table entries and parameter tables, every instruction's pc,
 * opcode, reuse bits, phase record and line, the globals with their initial bytes, the
 * line table, the reuse table and the phase records. Any field the tool drops, invents or
 * misnumbers fails the test.
 */
#include <criterion/criterion.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xgpu/gpubin.h"
#include "xtest.h"

#define ALL_SECTIONS                                                                       \
    "--section info --section kernels --section text --section globals --section lines " \
    "--section reuse --section phases"

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

static const char *str(json_object *o, const char *key)
{
    return json_object_get_string(get(o, key));
}

static XGpubin *compile(const char *sample, const char **fat_path)
{
    const char *fat = xt_tmp(sample);
    char *out = NULL;
    int rc = xt_runf(&out, "%s/xgpu-cc -g --cuda-device-only %s/samples/%s.cu -o %s",
                     XGPU_BIN_DIR, XGPU_SOURCE_DIR, sample, fat);
    cr_assert_eq(rc, 0, "%s", out);
    free(out);
    size_t len, elflen, next;
    char *buf = xt_read(fat, &len), err[256];
    const void *elf;
    XGpubin *g = NULL;
    cr_assert_not_null(buf);
    cr_assert_eq(xfat_parse(buf, len, &elf, &elflen, &next, err, sizeof err), 0, "%s", err);
    cr_assert_eq(xgpubin_read(elf, elflen, &g, err, sizeof err), 0, "%s", err);
    free(buf);
    *fat_path = fat;
    return g;
}

static const XPhase *phase_at(const XGpubin *g, uint32_t ki, uint32_t pc)
{
    for (uint32_t i = 0; i < g->nphases; i++)
        if (g->phases[i].kernel == ki && g->phases[i].pc == pc)
            return &g->phases[i];
    return NULL;
}

static void check_insn(const XGpubin *g, uint32_t ki, uint32_t pc, json_object *in)
{
    const XKernel *k = &g->kernels[ki];
    uint32_t abs = k->code_start + pc;
    cr_expect_eq(num(in, "pc"), pc);
    cr_expect_str_eq(str(in, "op"), xisa_ops[g->text[abs].op].name, "%s pc %u", k->name, pc);
    json_object *v;
    cr_expect_eq(json_object_object_get_ex(in, "reuse", &v), g->reuse != NULL);
    if (g->reuse)
        cr_expect_eq(json_object_get_int64(v), g->reuse[abs], "%s pc %u", k->name, pc);
    const XPhase *ph = phase_at(g, ki, pc);
    cr_expect_eq(json_object_object_get_ex(in, "phase", &v), ph != NULL, "%s pc %u", k->name,
                 pc);
    if (ph) {
        cr_expect_eq(num(v, "regs"), ph->regs);
        cr_expect_eq(num(v, "shared"), ph->shared);
    }
    const XLine *l = xgpubin_line(g, abs);
    if (l && l->line) {
        cr_expect_str_eq(str(in, "file"), g->files[l->file]);
        cr_expect_eq(num(in, "line"), l->line, "%s pc %u", k->name, pc);
    }
}

static void check_kernel(const XGpubin *g, uint32_t ki, json_object *jk)
{
    const XKernel *k = &g->kernels[ki];
    cr_expect_str_eq(str(jk, "name"), k->name);
    cr_expect_str_eq(str(jk, "signature"), k->signature ? k->signature : "");
    cr_expect_eq(num(jk, "regs"), k->nregs);
    cr_expect_eq(num(jk, "shared_bytes"), k->shared_bytes);
    cr_expect_eq(num(jk, "local_bytes"), k->local_bytes);
    cr_expect_eq(num(jk, "param_bytes"), k->param_bytes);
    cr_expect_eq(num(jk, "code_start"), k->code_start);
    cr_expect_eq(num(jk, "code_count"), k->code_count);
    json_object *ps = get(jk, "params"), *code = get(jk, "instructions");
    cr_assert_eq(json_object_array_length(ps), k->nparams);
    for (uint32_t i = 0; i < k->nparams; i++) {
        json_object *p = json_object_array_get_idx(ps, i);
        cr_expect_eq(num(p, "offset"), k->params[i].offset);
        cr_expect_eq(num(p, "size"), k->params[i].size);
        cr_expect_eq(num(p, "align"), k->params[i].align);
    }
    cr_assert_eq(json_object_array_length(code), k->code_count);
    for (uint32_t pc = 0; pc < k->code_count; pc++)
        check_insn(g, ki, pc, json_object_array_get_idx(code, pc));
}

static void check_globals(const XGpubin *g, json_object *gs)
{
    cr_assert_eq(json_object_array_length(gs), g->nglobals);
    for (uint32_t i = 0; i < g->nglobals; i++) {
        json_object *o = json_object_array_get_idx(gs, i);
        const XGlobal *v = &g->globals[i];
        cr_expect_str_eq(str(o, "name"), v->name);
        cr_expect_str_eq(str(o, "space"), v->space == XG_CONST ? "const" : "global");
        cr_expect_eq(num(o, "size"), (int64_t)v->size);
        cr_expect_eq(num(o, "align"), v->align);
        const char *hex = json_object_get_string(get(o, "init"));
        cr_expect_eq(hex != NULL, v->init != NULL, "%s", v->name);
        for (uint64_t b = 0; hex && v->init && b < v->size; b++) {
            unsigned byte;
            cr_assert_eq(sscanf(hex + 2 * b, "%2x", &byte), 1);
            cr_expect_eq(byte, v->init[b], "%s byte %llu", v->name, (unsigned long long)b);
        }
    }
}

static void check_tables(const XGpubin *g, json_object *m)
{
    json_object *fs = get(m, "files"), *ls = get(m, "lines");
    cr_assert_eq(json_object_array_length(fs), g->nfiles);
    for (uint32_t i = 0; i < g->nfiles; i++)
        cr_expect_str_eq(json_object_get_string(json_object_array_get_idx(fs, i)), g->files[i]);
    cr_assert_eq(json_object_array_length(ls), g->nlines);
    for (uint32_t i = 0; i < g->nlines; i++) {
        json_object *l = json_object_array_get_idx(ls, i);
        cr_expect_eq(num(l, "pc"), g->lines[i].pc);
        cr_expect_eq(num(l, "file"), g->lines[i].file);
        cr_expect_eq(num(l, "line"), g->lines[i].line);
    }
    json_object *r = get(m, "reuse"), *bits = get(r, "bits");
    cr_expect_eq(num(r, "rthld"), g->reuse_rthld);
    cr_expect_str_eq(str(r, "source"), "static");
    cr_assert_eq(json_object_array_length(bits), g->ntext);
    for (uint32_t pc = 0; pc < g->ntext; pc++)
        cr_expect_eq(json_object_get_int64(json_object_array_get_idx(bits, pc)), g->reuse[pc]);
    json_object *ph = get(m, "phases"), *rs = get(ph, "records");
    cr_expect_eq(num(ph, "delta"), g->phase_delta);
    cr_expect_eq(num(ph, "gap"), g->phase_gap);
    cr_assert_eq(json_object_array_length(rs), g->nphases);
    for (uint32_t i = 0; i < g->nphases; i++) {
        json_object *p = json_object_array_get_idx(rs, i);
        cr_expect_eq(num(p, "kernel"), g->phases[i].kernel);
        cr_expect_eq(num(p, "pc"), g->phases[i].pc);
        cr_expect_eq(num(p, "regs"), g->phases[i].regs);
        cr_expect_eq(num(p, "shared"), g->phases[i].shared);
    }
}

static void check_sample(const char *sample)
{
    const char *fat;
    XGpubin *g = compile(sample, &fat);
    cr_assert(g->reuse && g->nphases && g->nlines, "%s: expected reuse, phases and lines",
              sample);
    char *out = NULL;
    int rc = xt_runf(&out, "%s/xgpu-objdump --json " ALL_SECTIONS " %s", XGPU_BIN_DIR, fat);
    cr_assert_eq(rc, 0, "%s", out);
    json_object *doc = json_tokener_parse(out);
    cr_assert_not_null(doc, "not JSON:\n%.2000s", out);
    json_object *mods = get(json_object_array_get_idx(get(doc, "inputs"), 0), "modules");
    cr_assert_eq(json_object_array_length(mods), 1);
    json_object *m = json_object_array_get_idx(mods, 0), *ks = get(m, "kernels");
    cr_expect_eq(num(m, "version"), XGPUBIN_VERSION);
    cr_expect_str_eq(str(m, "producer"), g->producer);
    cr_expect_str_eq(str(m, "options"), g->options);
    cr_assert_eq(json_object_array_length(ks), g->nkernels);
    for (uint32_t i = 0; i < g->nkernels; i++)
        check_kernel(g, i, json_object_array_get_idx(ks, i));
    check_globals(g, get(m, "globals"));
    check_tables(g, m);
    json_object_put(doc);
    free(out);
    xgpubin_free(g);
}

Test(objdump_json, matmul_shared_and_barriers) { check_sample("matmul"); }
Test(objdump_json, histogram_atomics) { check_sample("histogram"); }
Test(objdump_json, nbody_globals) { check_sample("nbody"); }
