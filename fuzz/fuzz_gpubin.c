/*
 * fuzz_gpubin.c - libFuzzer target for the binary readers.
 *
 * Every input goes to every reader in the table below: the gpubin reader on the raw
 * bytes (an ELF image), the fat-container walk that the runtime does on a host
 * program's .nv_fatbin (xfat_parse, then xgpubin_read on each embedded image), and the
 * host-table readers (hostsec.h: the xgpu_atoms and xgpu_ldesc sections). A reader
 * may reject its input, which is the expected outcome for almost every mutation; what
 * the fuzzer looks for is a crash, a sanitizer report, a leak or a hang. A module the
 * reader accepts must also survive what its users do next: the line, kernel and assist
 * routine lookups, the disassembler, and a write and re-read (the writer checks the
 * module again, so a module the reader accepts but the writer refuses is a reader bug and
 * aborts).
 *
 * Adding a reader: write `static void fuzz_NAME(const uint8_t *p, size_t n)` that parses
 * and frees, and add one row to `readers`.
 */
#define _GNU_SOURCE /* open_memstream */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "xgpu/assist.h"
#include "xgpu/gpubin.h"
#include "xgpu/hostsec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fail(const char *what, const char *err)
{
    fprintf(stderr, "fuzz_gpubin: %s: %s\n", what, err);
    abort();
}

/* What the runtime and xgpu-objdump do with a module after reading it. */
static void use_module(const XGpubin *g)
{
    for (uint32_t pc = 0; pc <= g->ntext; pc++)
        (void)xgpubin_line(g, pc);
    for (uint32_t i = 0; i < g->nkernels; i++)
        if (xgpubin_find_kernel(g, g->kernels[i].name) < 0)
            fail("find_kernel", g->kernels[i].name);
    for (uint32_t i = 0; i < g->nassist; i++) /* one routine per (algo, dir) */
        if (xgpu_assist_find(g->assist, g->nassist, g->assist[i].algo, g->assist[i].dir) !=
            &g->assist[i])
            fail("assist_find", g->assist[i].name);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (f) {
        xgpubin_disassemble(g, f);
        fclose(f);
    }
    free(text);
}

/* The writer must take back what the reader accepted, and the reader its output. */
static void round_trip(const XGpubin *g)
{
    void *img = NULL;
    size_t len = 0;
    char err[256];
    XGpubin *again = NULL;
    if (xgpubin_write_mem(g, &img, &len, err, sizeof err))
        fail("write of an accepted module", err);
    if (xgpubin_read(img, len, &again, err, sizeof err))
        fail("re-read of a written module", err);
    if (again->nkernels != g->nkernels || again->ntext != g->ntext ||
        again->nassist != g->nassist)
        fail("re-read", "the module changed");
    xgpubin_free(again);
    free(img);
}

static void fuzz_gpubin(const uint8_t *p, size_t n)
{
    XGpubin *g = NULL;
    char err[256];
    if (xgpubin_read(p, n, &g, err, sizeof err))
        return;
    use_module(g);
    round_trip(g);
    xgpubin_free(g);
}

/* A chain of fat containers, as the linker concatenates them. */
static void fuzz_fat(const uint8_t *p, size_t n)
{
    char err[256];
    for (size_t off = 0; off < n;) {
        const void *elf;
        size_t elflen, next = 0;
        if (xfat_parse(p + off, n - off, &elf, &elflen, &next, err, sizeof err))
            return;
        if (next == 0 || next > n - off)
            fail("xfat_parse", "bad container length");
        /* the image in a buffer of exactly its size, so ASan sees any overread */
        uint8_t *copy = malloc(elflen);
        if (!copy)
            return;
        memcpy(copy, elf, elflen);
        fuzz_gpubin(copy, elflen);
        free(copy);
        off += next;
    }
}

/* Host tables: what the runtime and xgpu-objdump do with an accepted section (print it,
 * build its JSON), and the writer must take back every record the reader accepted. */
static void fuzz_atoms(const uint8_t *p, size_t n)
{
    XHostAtoms a;
    char err[256];
    if (xhost_atoms_read(p, n, &a, err, sizeof err))
        return;
    FILE *f = fopen("/dev/null", "w");
    if (f) {
        xhost_atoms_print(f, &a);
        fclose(f);
    }
    json_object_put(xhost_atoms_json(&a));
    uint8_t *buf = NULL;
    size_t len = 0;
    XHostAtoms again;
    if (xhost_atoms_write(a.v, a.n, &buf, &len) == 0) {
        if (xhost_atoms_read(buf, len, &again, err, sizeof err))
            fail("re-read of written atoms", err);
        if (again.n != a.n)
            fail("atoms re-read", "the record count changed");
        xhost_atoms_free(&again);
    }
    free(buf);
    xhost_atoms_free(&a);
}

static void fuzz_ldesc(const uint8_t *p, size_t n)
{
    XHostLDescs d;
    char err[256];
    if (xhost_ldesc_read(p, n, &d, err, sizeof err))
        return;
    FILE *f = fopen("/dev/null", "w");
    if (f) {
        xhost_ldesc_print(f, &d);
        fclose(f);
    }
    json_object_put(xhost_ldesc_json(&d));
    uint8_t *buf = NULL;
    size_t len = 0;
    XHostLDescs again;
    if (xhost_ldesc_write(d.v, d.n, &buf, &len) == 0) {
        if (xhost_ldesc_read(buf, len, &again, err, sizeof err))
            fail("re-read of written descriptors", err);
        if (again.n != d.n)
            fail("descriptors re-read", "the record count changed");
        xhost_ldesc_free(&again);
    }
    free(buf);
    xhost_ldesc_free(&d);
}

static const struct {
    const char *name;
    void (*fn)(const uint8_t *p, size_t n);
} readers[] = {
    {"gpubin", fuzz_gpubin},
    {"fat", fuzz_fat},
    {"atoms", fuzz_atoms},
    {"ldesc", fuzz_ldesc},
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    for (size_t i = 0; i < sizeof readers / sizeof readers[0]; i++)
        readers[i].fn(data, size);
    return 0;
}
