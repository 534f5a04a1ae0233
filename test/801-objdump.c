/*
 * 801-objdump.c - xgpu-objdump on fat files, raw gpubins and host objects.
 *
 * Runs the built tool (XGPU_BIN_DIR/xgpu-objdump): the text output names the kernels,
 * their resources, the disassembly with pcs, labels and source lines, and the
 * globals; --json parses (json-c) with the right kernels and instruction counts; a
 * host object whose .nv_fatbin holds two containers shows both modules; garbage gives
 * exit status 1 and exactly one line on stderr.
 */
#include <criterion/criterion.h>
#include <gelf.h>
#include <json-c/json.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <fcntl.h>

#include "xgpu/gpubin.h"
#include "xtest.h"

#define OBJDUMP XGPU_BIN_DIR "/xgpu-objdump"

static const char module_a[] =
    ".global table 8 4 = 1 2 3 4 5 6 7 8\n"
    ".kernel _Z4scalePfi\n"
    ".param 8\n"
    ".param 4\n"
    "    .loc \"scale.cu\" 3\n"
    "    s2r r0, %tid.x\n"
    "    ld.param.u32 r1, [8]\n"
    "    set.ge.u32 r3, r0, r1\n"
    "    brc r3, done, done\n"
    "    .loc \"scale.cu\" 4\n"
    "    ld.param.u64 r4, [0]\n"
    "    gaddr r6, table\n"
    "done:\n"
    "    exit\n"
    ".kernel tail\n"
    "    exit\n";

static const char module_b[] = ".kernel other\n    nop\n    exit\n";

typedef struct Run {
    int status;
    char out[65536], err[4096];
} Run;

static void read_all(const char *path, char *buf, size_t n)
{
    FILE *f = fopen(path, "r");
    size_t k = f ? fread(buf, 1, n - 1, f) : 0;
    buf[k] = '\0';
    if (f)
        fclose(f);
}

static void run_tool(Run *r, const char *args)
{
    char cmd[2304];
    char out[512], err[512];
    snprintf(out, sizeof out, "%s", xt_tmp("objdump.out"));
    snprintf(err, sizeof err, "%s", xt_tmp("objdump.err"));
    snprintf(cmd, sizeof cmd, "%s %s >%s 2>%s", OBJDUMP, args, out, err);
    int st = system(cmd);
    cr_assert(WIFEXITED(st), "%s did not exit", cmd);
    r->status = WEXITSTATUS(st);
    read_all(out, r->out, sizeof r->out);
    unlink(out);
    read_all(err, r->err, sizeof r->err);
    unlink(err);
}

/* Writes the fat container of a listing to a fresh temp file; returns its path. */
static char *fat_file(const char *listing, char *path /* 512 bytes */)
{
    XGpubin *g = NULL;
    char err[256] = "";
    snprintf(path, 512, "%s/fat-XXXXXX", xt_tmpdir());
    close(mkstemp(path));
    cr_assert_eq(xasm_assemble(listing, &g, err, sizeof err), 0, "%s", err);
    cr_assert_eq(xgpubin_write_fat(g, path, err, sizeof err), 0, "%s", err);
    xgpubin_free(g);
    return path;
}

static size_t slurp(const char *path, uint8_t *buf, size_t n)
{
    FILE *f = fopen(path, "rb");
    cr_assert(f);
    size_t k = fread(buf, 1, n, f);
    fclose(f);
    return k;
}

Test(objdump, text_output)
{
    char path[512];
    Run *r = malloc(sizeof *r);
    fat_file(module_a, path);
    run_tool(r, path);
    unlink(path);
    cr_assert_eq(r->status, 0, "stderr: %s", r->err);
    cr_assert_str_empty(r->err);
    const char *want[] = {
        "kernel _Z4scalePfi: regs 8, shared 0, local 0, params 12 bytes, code [0, 7)",
        "param 1: offset 8, size 4, align 4",
        "s2r r0, %tid.x",
        "// scale.cu:3",
        "// scale.cu:4",
        "brc r3, L6, L6",
        "  L6:\n",
        "      6:  exit",
        "kernel tail:",
        "gaddr r6, table",
        "global table: global, size 8, align 4, init 01 02 03 04 05 06 07 08",
    };
    for (size_t i = 0; i < sizeof want / sizeof *want; i++)
        cr_expect(strstr(r->out, want[i]), "missing '%s' in:\n%s", want[i], r->out);
    free(r);
}

static json_object *get(json_object *o, const char *key)
{
    json_object *v = NULL;
    cr_assert(json_object_object_get_ex(o, key, &v), "no key %s", key);
    return v;
}

Test(objdump, json_output)
{
    char path[512], args[640];
    Run *r = malloc(sizeof *r);
    fat_file(module_a, path);
    snprintf(args, sizeof args, "--json %s", path);
    run_tool(r, args);
    unlink(path);
    cr_assert_eq(r->status, 0, "stderr: %s", r->err);
    json_object *doc = json_tokener_parse(r->out);
    cr_assert(doc, "not JSON:\n%s", r->out);
    json_object *mods = get(json_object_array_get_idx(get(doc, "inputs"), 0), "modules");
    cr_assert_eq(json_object_array_length(mods), 1);
    json_object *ks = get(json_object_array_get_idx(mods, 0), "kernels");
    cr_assert_eq(json_object_array_length(ks), 2);
    static const char *names[] = {"_Z4scalePfi", "tail"};
    static const size_t counts[] = {7, 1};
    for (size_t i = 0; i < 2; i++) {
        json_object *k = json_object_array_get_idx(ks, i);
        cr_expect_str_eq(json_object_get_string(get(k, "name")), names[i]);
        cr_expect_eq(json_object_array_length(get(k, "instructions")), counts[i]);
        cr_expect_eq(json_object_get_int(get(k, "code_count")), (int)counts[i]);
    }
    json_object *first = json_object_array_get_idx(get(json_object_array_get_idx(ks, 0),
                                                       "instructions"), 0);
    cr_expect_str_eq(json_object_get_string(get(first, "text")), "s2r r0, %tid.x");
    cr_expect_eq(json_object_get_int(get(first, "line")), 3);
    json_object *gl = json_object_array_get_idx(get(json_object_array_get_idx(mods, 0),
                                                    "globals"), 0);
    cr_expect_str_eq(json_object_get_string(get(gl, "init")), "0102030405060708");
    json_object_put(doc);
    free(r);
}

/* A host object (ELF relocatable) whose .nv_fatbin holds the given bytes. */
static void host_object(const char *path, const uint8_t *data, size_t len)
{
    static const char shstr[] = "\0.nv_fatbin\0.shstrtab";
    cr_assert_neq(elf_version(EV_CURRENT), EV_NONE);
    int fd = open(path, O_RDWR | O_TRUNC | O_CREAT, 0600);
    Elf *e = elf_begin(fd, ELF_C_WRITE, NULL);
    GElf_Ehdr eh;
    cr_assert(e && gelf_newehdr(e, ELFCLASS64) && gelf_getehdr(e, &eh));
    eh.e_ident[EI_DATA] = ELFDATA2LSB;
    eh.e_type = ET_REL;
    eh.e_machine = EM_X86_64;
    eh.e_version = EV_CURRENT;
    const void *bufs[2] = {data, shstr};
    size_t lens[2] = {len, sizeof shstr}, names[2] = {1, 12};
    for (int i = 0; i < 2; i++) {
        Elf_Scn *s = elf_newscn(e);
        Elf_Data *d = elf_newdata(s);
        GElf_Shdr sh;
        d->d_buf = (void *)bufs[i], d->d_size = lens[i], d->d_type = ELF_T_BYTE, d->d_align = 8;
        gelf_getshdr(s, &sh);
        sh.sh_name = names[i];
        sh.sh_type = i ? SHT_STRTAB : SHT_PROGBITS;
        sh.sh_addralign = 8;
        gelf_update_shdr(s, &sh);
    }
    eh.e_shstrndx = 2;
    gelf_update_ehdr(e, &eh);
    cr_assert_geq(elf_update(e, ELF_C_WRITE), 0, "%s", elf_errmsg(-1));
    elf_end(e);
    close(fd);
}

Test(objdump, host_object_with_two_containers)
{
    char pa[512], pb[512], obj[512];
    snprintf(obj, sizeof obj, "%s/obj-XXXXXX", xt_tmpdir());
    static uint8_t both[65536];
    fat_file(module_a, pa);
    fat_file(module_b, pb);
    size_t la = slurp(pa, both, sizeof both);
    size_t lb = slurp(pb, both + la, sizeof both - la);
    unlink(pa);
    unlink(pb);
    close(mkstemp(obj));
    host_object(obj, both, la + lb);
    Run *r = malloc(sizeof *r);
    run_tool(r, obj);
    unlink(obj);
    cr_assert_eq(r->status, 0, "stderr: %s", r->err);
    cr_expect(strstr(r->out, "gpubin #0") && strstr(r->out, "gpubin #1"), "%s", r->out);
    cr_expect(strstr(r->out, "kernel tail:") && strstr(r->out, "kernel other:"), "%s", r->out);
    free(r);
}

Test(objdump, garbage_gives_one_line_and_status_1)
{
    char path[512];
    snprintf(path, sizeof path, "%s/bad-XXXXXX", xt_tmpdir());
    int fd = mkstemp(path);
    cr_assert_eq(write(fd, "this is not a binary\n", 21), 21);
    close(fd);
    Run *r = malloc(sizeof *r);
    run_tool(r, path);
    cr_assert_eq(r->status, 1);
    cr_assert_str_empty(r->out);
    char *nl = strchr(r->err, '\n');
    cr_assert(nl && nl[1] == '\0', "want exactly one line, got '%s'", r->err);
    char prefix[640];
    snprintf(prefix, sizeof prefix, "xgpu-objdump: %s: ", path);
    cr_assert_eq(strncmp(r->err, prefix, strlen(prefix)), 0, "%s", r->err);

    /* A damaged fat file: also one line. */
    char fat[512];
    fat_file(module_b, fat);
    uint8_t buf[8192];
    size_t n = slurp(fat, buf, sizeof buf);
    buf[n - 40] ^= 0xff; /* inside the ELF section header table */
    buf[100] ^= 0xff;
    FILE *f = fopen(fat, "wb");
    fwrite(buf, 1, n / 2, f); /* and truncated */
    fclose(f);
    run_tool(r, fat);
    unlink(fat);
    unlink(path);
    cr_assert_eq(r->status, 1);
    nl = strchr(r->err, '\n');
    cr_assert(nl && nl[1] == '\0', "want exactly one line, got '%s'", r->err);
    free(r);
}

/* With .xgpu.reuse, every register operand is marked near (.n) or far (.f), and --json
 * carries each instruction's bits. */
Test(objdump, reuse_bits)
{
    XGpubin *g = NULL;
    char err[256] = "", path[512], args[640];
    cr_assert_eq(xasm_assemble(".kernel k\n  s2r r0, %tid.x\n  add.u32 r1, r0, 1\n"
                               "  mov.u32 r2, r1\n  exit\n", &g, err, sizeof err), 0, "%s", err);
    uint8_t bits[4];
    cr_assert_eq(xisa_reuse_static(g->text, g->ntext, 12, bits), 0);
    g->reuse = bits, g->reuse_rthld = 12, g->reuse_source = XREUSE_STATIC;
    snprintf(path, sizeof path, "%s/reuse-XXXXXX", xt_tmpdir());
    close(mkstemp(path));
    cr_assert_eq(xgpubin_write_fat(g, path, err, sizeof err), 0, "%s", err);
    g->reuse = NULL;
    xgpubin_free(g);
    Run *r = malloc(sizeof *r);
    run_tool(r, path);
    cr_assert_eq(r->status, 0, "stderr: %s", r->err);
    cr_expect(strstr(r->out, "s2r r0.n, %tid.x"), "%s", r->out);
    cr_expect(strstr(r->out, "add.u32 r1.n, r0.f, 1"), "%s", r->out);
    cr_expect(strstr(r->out, "mov.u32 r2.f, r1.f"), "%s", r->out);
    snprintf(args, sizeof args, "--json %s", path);
    run_tool(r, args);
    json_object *root = json_tokener_parse(r->out);
    cr_assert_not_null(root, "%s", r->out);
    json_object *in = json_object_array_get_idx(
        get(json_object_array_get_idx(get(json_object_array_get_idx(
                                              get(json_object_array_get_idx(get(root, "inputs"), 0),
                                                  "modules"), 0), "kernels"), 0),
            "instructions"), 1);
    cr_expect_eq(json_object_get_int(get(in, "reuse")), XREUSE_DST(0));
    json_object_put(root);
    /* --section reuse: the raw table, in text and JSON */
    snprintf(args, sizeof args, "--section reuse %s", path);
    run_tool(r, args);
    cr_expect_eq(r->status, 0);
    cr_expect(strstr(r->out, "reuse: pc 0 0x40\nreuse: pc 1 0x40\nreuse: pc 2 0x00\n"), "%s",
              r->out);
    cr_expect(!strstr(r->out, "code:"), "only the section asked for:\n%s", r->out);
    snprintf(args, sizeof args, "--json --section reuse %s", path);
    run_tool(r, args);
    root = json_tokener_parse(r->out);
    cr_assert_not_null(root, "%s", r->out);
    json_object *rs = get(json_object_array_get_idx(
                              get(json_object_array_get_idx(get(root, "inputs"), 0), "modules"), 0),
                          "reuse");
    cr_expect_eq(json_object_get_int(get(rs, "rthld")), 12);
    cr_expect_str_eq(json_object_get_string(get(rs, "source")), "static");
    cr_expect_eq(json_object_array_length(get(rs, "bits")), 4);
    json_object_put(root);
    unlink(path);
    free(r);
}
