/*
 * 820-objdump-phases: what xgpu-objdump shows of phase specifiers, source lines and
 * kernel signatures.
 *
 * Phase records appear inline in the disassembly (a `-- phase:` line right above the
 * instruction that starts the phase), as raw records with --section phases, and in
 * JSON (module "phases" object, an instruction's "phase"); --source prints each new
 * source line's text above its instructions, finding a relative file name next to the
 * binary too, and falls back to `// file:line` with one note when the file is gone; a
 * non-empty kernel signature is shown in the kernels section, text and JSON.
 */
#include <criterion/criterion.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xgpu/gpubin.h"
#include "xtest.h"

#define OBJDUMP XGPU_BIN_DIR "/xgpu-objdump"

static const char source[] =
    "#include <cuda_runtime.h>\n"
    "__global__ void scale(float *v, float k)\n"
    "{\n"
    "    __shared__ float buf[128];\n"
    "    unsigned t = threadIdx.x;\n"
    "    buf[t] = v[t] * k;\n"
    "    __syncthreads();\n"
    "    v[t] = buf[127 - t] + 1.0f;\n"
    "}\n";

/* Compiles source with -g in the temporary directory under a relative name. */
static const char *compile(const char *name)
{
    char cu[64];
    snprintf(cu, sizeof cu, "%s.cu", name);
    cr_assert_eq(xt_write(xt_tmp(cu), source), 0);
    const char *fat = xt_tmp(name); /* the fat container, named like the source */
    char *out = NULL;
    int rc = xt_runf(&out, "cd %s && %s/xgpu-cc -g --cuda-device-only %s -o %s", xt_tmpdir(),
                     XGPU_BIN_DIR, cu, fat);
    cr_assert_eq(rc, 0, "%s", out);
    free(out);
    return fat;
}

static XGpubin *read_fat(const char *path)
{
    size_t len, elflen, next;
    char *buf = xt_read(path, &len), err[256];
    const void *elf;
    XGpubin *g = NULL;
    cr_assert_not_null(buf);
    cr_assert_eq(xfat_parse(buf, len, &elf, &elflen, &next, err, sizeof err), 0, "%s", err);
    cr_assert_eq(xgpubin_read(elf, elflen, &g, err, sizeof err), 0, "%s", err);
    free(buf);
    return g;
}

static char *objdump(const char *args, const char *path)
{
    char *out = NULL;
    int rc = xt_runf(&out, "%s %s %s", OBJDUMP, args, path);
    cr_assert_eq(rc, 0, "%s", out);
    return out;
}

static void phase_text(const XPhase *p, char *buf, size_t n)
{
    snprintf(buf, n, "-- phase: %u regs, %u shared bytes%s%s%s", p->regs, p->shared,
             p->flags & XPHASE_BARRIER ? ", barrier" : "", p->flags & XPHASE_ENTRY ? ", entry" : "",
             p->flags & XPHASE_DYNAMIC ? ", dynamic" : "");
}

Test(objdump_phases, inline_and_section)
{
    const char *fat = compile("inl");
    XGpubin *g = read_fat(fat);
    cr_assert_geq(g->nphases, 2, "want an entry and a barrier record");
    char *text = objdump("", fat);
    for (uint32_t i = 0; i < g->nphases; i++) {
        char want[160], line[200];
        phase_text(&g->phases[i], want, sizeof want);
        snprintf(line, sizeof line, "  %s\n  %5u:  ", want, g->phases[i].pc);
        cr_expect(strstr(text, line) != NULL, "missing '%s' above pc %u in\n%s", want,
                  g->phases[i].pc, text);
    }
    cr_expect(strstr(text, ", barrier\n") != NULL && strstr(text, ", entry\n") != NULL);
    char *pbar = strstr(text, ", barrier\n");
    cr_expect(pbar && strncmp(pbar + 10 + 10, "bar ", 4) == 0,
              "the barrier record is not right above the bar instruction:\n%s", text);
    free(text);

    char info[80];
    snprintf(info, sizeof info, "phases: %u records (delta 25%%, gap 10)\n", g->nphases);
    text = objdump("--section info --section .xgpu.phases", fat);
    cr_expect(strstr(text, info) != NULL, "%s", text);
    unsigned n = 0;
    for (const char *p = text; (p = strstr(p, "\nphase: kernel _Z5scalePff pc ")); p++)
        n++;
    cr_expect_eq(n, g->nphases, "%s", text);
    cr_expect(strstr(text, "phase: kernel _Z5scalePff pc 0: ") != NULL, "%s", text);
    free(text);
    xgpubin_free(g);
}

Test(objdump_phases, json)
{
    const char *fat = compile("js");
    XGpubin *g = read_fat(fat);
    char *text = objdump("--json --section text --section phases", fat);
    json_object *doc = json_tokener_parse(text), *mod, *ph, *recs, *code;
    cr_assert_not_null(doc, "not JSON: %s", text);
    mod = json_object_array_get_idx(json_object_object_get(
              json_object_array_get_idx(json_object_object_get(doc, "inputs"), 0), "modules"), 0);
    cr_assert(json_object_object_get_ex(mod, "phases", &ph));
    cr_expect_eq(json_object_get_int(json_object_object_get(ph, "delta")), 25);
    cr_expect_eq(json_object_get_int(json_object_object_get(ph, "gap")), 10);
    recs = json_object_object_get(ph, "records");
    cr_assert_eq(json_object_array_length(recs), g->nphases);
    code = json_object_object_get(json_object_array_get_idx(
               json_object_object_get(mod, "kernels"), 0), "instructions");
    for (uint32_t i = 0; i < g->nphases; i++) {
        const XPhase *p = &g->phases[i];
        json_object *r = json_object_array_get_idx(recs, (size_t)i);
        cr_expect_eq(json_object_get_int(json_object_object_get(r, "kernel")), (int)p->kernel);
        cr_expect_eq(json_object_get_int(json_object_object_get(r, "pc")), (int)p->pc);
        cr_expect_eq(json_object_get_int(json_object_object_get(r, "regs")), (int)p->regs);
        cr_expect_eq(json_object_get_int(json_object_object_get(r, "shared")), (int)p->shared);
        json_object *fl = json_object_object_get(r, "flags");
        cr_expect_eq(json_object_array_length(fl), (size_t)__builtin_popcount(p->flags));
        json_object *in = json_object_array_get_idx(code, p->pc), *iph;
        cr_assert(json_object_object_get_ex(in, "phase", &iph), "pc %u has no phase", p->pc);
        cr_expect_eq(json_object_get_int(json_object_object_get(iph, "regs")), (int)p->regs);
    }
    unsigned with_phase = 0;
    for (size_t i = 0; i < json_object_array_length(code); i++)
        with_phase += json_object_object_get_ex(json_object_array_get_idx(code, i), "phase",
                                                NULL);
    cr_expect_eq(with_phase, g->nphases);
    json_object_put(doc);
    free(text);
    xgpubin_free(g);
}

Test(objdump_phases, source_lines)
{
    const char *fat = compile("src");
    /* the line table names "src.cu", relative: found next to the binary */
    char *text = objdump("--source", fat);
    cr_expect(strstr(text, "  src.cu:6:     buf[t] = v[t] * k;\n") != NULL, "%s", text);
    cr_expect(strstr(text, "  src.cu:7:     __syncthreads();\n") != NULL, "%s", text);
    cr_expect(strstr(text, "note:") == NULL, "%s", text);
    cr_expect(strstr(text, "// src.cu:") == NULL, "%s", text);
    free(text);
    text = objdump("--json --source --section text", fat);
    cr_expect(strstr(text, "\"source\":\"    v[t] = buf[127 - t] + 1.0f;\"") != NULL, "%s", text);
    free(text);
    /* the source gone: one note, then file:line comments */
    cr_assert_eq(remove(xt_tmp("src.cu")), 0);
    text = objdump("--source", fat);
    const char *note = strstr(text, "xgpu-objdump: note: src.cu: source not found");
    cr_expect(note != NULL, "%s", text);
    cr_expect(note && strstr(note + 20, "note:") == NULL, "more than one note:\n%s", text);
    cr_expect(strstr(text, "  // src.cu:6\n") != NULL, "%s", text);
    cr_expect(strstr(text, "  // src.cu:8\n") != NULL, "%s", text);
    free(text);
}

Test(objdump_phases, kernel_signature)
{
    XGpubin *g = NULL;
    char err[256];
    cr_assert_eq(xasm_assemble(".kernel k\n.signature \"void k(int *p, float x)\"\n"
                               ".param 8\n.param 4\n  exit\n.kernel plain\n  exit\n",
                               &g, err, sizeof err), 0, "%s", err);
    const char *bin = xt_tmp("sig.gpubin");
    cr_assert_eq(xgpubin_write_file(g, bin, err, sizeof err), 0, "%s", err);
    xgpubin_free(g);
    char *text = objdump("--section kernels", bin);
    cr_expect(strstr(text, "kernel k: regs 0, shared 0, local 0, params 12 bytes, code [0, 1)\n"
                           "  signature: void k(int *p, float x)\n") != NULL, "%s", text);
    cr_expect(strstr(text, "kernel plain: regs 0, shared 0, local 0, params 0 bytes, code [1, 2)"
                           "\n") != NULL, "%s", text);
    unsigned n = 0;
    for (const char *p = text; (p = strstr(p, "signature:")); p++)
        n++;
    cr_expect_eq(n, 1, "only the kernel with a signature shows one:\n%s", text);
    free(text);
    text = objdump("--json --section kernels", bin);
    cr_expect(strstr(text, "\"signature\":\"void k(int *p, float x)\"") != NULL, "%s", text);
    cr_expect(strstr(text, "\"signature\":\"\"") != NULL, "%s", text);
    free(text);
}
