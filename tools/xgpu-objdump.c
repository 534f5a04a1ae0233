/*
 * xgpu-objdump - shows the device code a program carries.
 *
 *   xgpu-objdump [--json | --asm] [--source] [--section NAME]... FILE...
 *
 * FILE is a host executable or object (its .nv_fatbin section holds one or more fat
 * containers back to back, each padded to 8 bytes), a fat container file, or a raw
 * gpubin. For every gpubin found it prints the module info, each kernel's table entry
 * and disassembly (labels L<pc>, one instruction per line with its pc, `// file:line`
 * where the source line changes, `-- phase` lines where a Zorua phase specifier starts),
 * the globals and, when asked, the line table, reuse bits, phase records or CABA assist
 * routines (each with its record and its disassembly; the info names them by default).
 * --json prints the same as one JSON document (schema in docs/gpubin.md); --json and
 * --asm together are refused (exit status 2), as is any unknown option. --section
 * limits the output to info, kernels, text, globals, lines, reuse, phases or assist (with
 * or without the .xgpu. prefix). --source puts the text of each new source line above its
 * instructions (read from the file the line table names; when it cannot be read, a note
 * says so once and the listing falls back to `// file:line`). --asm prints each module as
 * an assembler listing (xgpubin_disassemble) that the assembler reads back to the same
 * module, less its assist routines (their text form: the files of emulator/mech/caba/assist/).
 *
 * A host executable or object may also carry the host tables of hostsec.h: the XMem atom
 * table (section xgpu_atoms) and the Locality Descriptor table (xgpu_ldesc). They are
 * printed after the modules (sections `atoms` and `ldesc`, shown by default when present;
 * in JSON, the input's "atoms" and "ldesc" arrays). An object with host tables and no
 * device code is fine.
 *
 * All parsing goes through the library's bounds-checked reader; malformed input gives
 * one line `xgpu-objdump: FILE: message` on stderr and exit status 1.
 */
#include <errno.h>
#include <gelf.h>
#include <json-c/json.h>
#include <libelf.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "xgpu/assist.h"
#include "xgpu/gpubin.h"
#include "xgpu/hostsec.h"

enum { SEC_INFO = 1, SEC_KERNELS = 2, SEC_TEXT = 4, SEC_GLOBALS = 8, SEC_LINES = 16,
       SEC_REUSE = 32, SEC_PHASES = 64, SEC_ATOMS = 128, SEC_LDESC = 256, SEC_ASSIST = 512,
       SEC_DEFAULT = SEC_INFO | SEC_KERNELS | SEC_TEXT | SEC_GLOBALS | SEC_ATOMS | SEC_LDESC };

static const char *const section_names[] = {"info",  "kernels", "text",  "globals", "lines",
                                            "reuse", "phases",  "atoms", "ldesc",
                                            "assist"};

/* One source file's text split into lines, loaded on first use (--source). */
typedef struct SrcFile {
    int state;    /* 0 not tried, 1 loaded, -1 unreadable (noted once) */
    char *text;
    char **lines; /* lines[i] is line i + 1, without its newline */
    uint32_t nlines;
} SrcFile;

/* What the printers need besides the module: the --source cache, by file index. */
typedef struct View {
    int source;   /* --source */
    SrcFile *src; /* g->nfiles entries, or NULL */
    const char *input; /* the file being shown: relative source names are also tried
                        * next to it */
} View;

typedef struct Input {
    const char *path;
    uint8_t *buf; /* the file's bytes: the host tables' strings point into them */
    XGpubin **mods;
    size_t nmods;
    XHostAtoms atoms;  /* the host tables of a host ELF (hostsec.h), when present */
    XHostLDescs ldesc;
    int has_atoms, has_ldesc;
    char err[256];
} Input;

/* ---- finding the modules ------------------------------------------------------------ */

static int add_module(Input *in, const void *elf, size_t len)
{
    XGpubin *g, **m = realloc(in->mods, (in->nmods + 1) * sizeof *m);
    if (!m)
        return snprintf(in->err, sizeof in->err, "out of memory"), -1;
    in->mods = m;
    char why[200];
    if (xgpubin_read(elf, len, &g, why, sizeof why)) {
        snprintf(in->err, sizeof in->err, "gpubin #%zu: %s", in->nmods, why);
        return -1;
    }
    in->mods[in->nmods++] = g;
    return 0;
}

/* Fat containers back to back; zero padding between them is skipped. */
static int add_fat(Input *in, const uint8_t *p, size_t len)
{
    size_t off = 0;
    while (off < len) {
        if (len - off >= 8 && !memcmp(p + off, "\0\0\0\0\0\0\0\0", 8)) {
            off += 8;
            continue;
        }
        const void *elf;
        size_t elflen, next;
        char why[200];
        if (xfat_parse(p + off, len - off, &elf, &elflen, &next, why, sizeof why)) {
            snprintf(in->err, sizeof in->err, "at offset %zu: %s", off, why);
            return -1;
        }
        if (add_module(in, elf, elflen))
            return -1;
        off += next;
    }
    if (!in->nmods)
        return snprintf(in->err, sizeof in->err, "no gpubin in the fat data"), -1;
    return 0;
}

/* A host table section (xgpu_atoms or xgpu_ldesc) of a host ELF. */
static int add_table(Input *in, const char *name, const Elf_Data *d)
{
    char why[200];
    int rc = strcmp(name, XHOST_ATOMS_SECTION) == 0
                 ? (in->has_atoms = 1, xhost_atoms_read(d->d_buf, d->d_size, &in->atoms, why,
                                                        sizeof why))
                 : (in->has_ldesc = 1, xhost_ldesc_read(d->d_buf, d->d_size, &in->ldesc, why,
                                                        sizeof why));
    if (rc)
        snprintf(in->err, sizeof in->err, "%s", why);
    return rc ? -1 : 0;
}

static Elf_Data *section_data(Elf_Scn *s, const GElf_Shdr *sh, size_t len)
{
    int ok = sh->sh_type == SHT_PROGBITS && sh->sh_offset <= len &&
             sh->sh_size <= len - sh->sh_offset;
    Elf_Data *d = ok ? elf_getdata(s, NULL) : NULL;
    return d && d->d_buf ? d : NULL;
}

/* A host ELF: the .nv_fatbin section and the host tables. Returns 1 when it has none of
 * them (maybe a raw gpubin). */
static int add_host(Input *in, uint8_t *buf, size_t len)
{
    Elf *e = elf_memory((char *)buf, len);
    size_t shstrndx;
    int rc = 1, found = 0;
    if (!e || elf_kind(e) != ELF_K_ELF || elf_getshdrstrndx(e, &shstrndx) != 0) {
        snprintf(in->err, sizeof in->err, "bad ELF file: %s", elf_errmsg(-1));
        rc = -1;
    }
    for (Elf_Scn *s = rc < 0 ? NULL : elf_nextscn(e, NULL); s && rc >= 0; s = elf_nextscn(e, s)) {
        GElf_Shdr sh;
        const char *name = gelf_getshdr(s, &sh) ? elf_strptr(e, shstrndx, sh.sh_name) : NULL;
        int fat = name && strcmp(name, ".nv_fatbin") == 0;
        if (!fat && (!name || (strcmp(name, XHOST_ATOMS_SECTION) != 0 &&
                               strcmp(name, XHOST_LDESC_SECTION) != 0)))
            continue;
        Elf_Data *d = section_data(s, &sh, len);
        found = 1;
        if (!d)
            rc = (snprintf(in->err, sizeof in->err, "%s: unreadable section", name), -1);
        else
            rc = fat ? add_fat(in, d->d_buf, d->d_size) : add_table(in, name, d);
    }
    if (e)
        elf_end(e);
    return rc < 0 ? rc : !found;
}

/* An ELF64 file whose section table lies past its end was cut short (the table is
 * written last). */
static int truncated(Input *in, const uint8_t *buf, size_t len)
{
    if (len < sizeof(Elf64_Ehdr) || buf[EI_CLASS] != ELFCLASS64)
        return len < sizeof(Elf64_Ehdr) ? (snprintf(in->err, sizeof in->err,
                                                    "truncated ELF file (%zu bytes)", len), 1)
                                        : 0;
    Elf64_Ehdr eh;
    memcpy(&eh, buf, sizeof eh);
    uint64_t end = eh.e_shoff + (uint64_t)eh.e_shnum * eh.e_shentsize;
    if (eh.e_shoff <= len && end <= len)
        return 0;
    snprintf(in->err, sizeof in->err, "truncated ELF file: its section table ends at byte %llu, "
             "the file has %zu bytes", (unsigned long long)end, len);
    return 1;
}

static int load_input(Input *in, uint8_t *buf, size_t len)
{
    static const uint8_t fat_magic[8] = {'X', 'G', 'P', 'U', 'F', 'A', 'T', 0};
    if (len >= 8 && !memcmp(buf, fat_magic, 8))
        return add_fat(in, buf, len);
    if (len < 4 || memcmp(buf, ELFMAG, SELFMAG) != 0)
        return snprintf(in->err, sizeof in->err,
                        "not a gpubin, fat container or ELF file"), -1;
    if (truncated(in, buf, len))
        return -1;
    int rc = add_host(in, buf, len);
    if (rc <= 0)
        return rc;
    Elf64_Half machine; /* a gpubin is for no machine; a host file for its CPU */
    memcpy(&machine, buf + offsetof(Elf64_Ehdr, e_machine), sizeof machine);
    if (machine != EM_NONE)
        return snprintf(in->err, sizeof in->err, "no device code: no .nv_fatbin section (a "
                        "program or object not compiled by xgpu-cc, or one without kernels)"),
               -1;
    return add_module(in, buf, len);
}

/* Inputs are read whole; a larger one is no program of ours (and a device such as
 * /dev/zero never ends). */
#define MAX_INPUT ((size_t)1 << 29)

static uint8_t *read_file(const char *path, size_t *len, char *err, size_t n)
{
    struct stat st;
    if (!stat(path, &st) && S_ISDIR(st.st_mode)) {
        snprintf(err, n, "is a directory");
        return NULL;
    }
    FILE *f = fopen(path, "rb");
    int why = errno; /* fopen's reason, kept for the message */
    uint8_t *buf = NULL;
    size_t cap = 0, got = 0;
    int bad = !f;
    while (!bad) {
        if (got >= MAX_INPUT) {
            fclose(f);
            free(buf);
            snprintf(err, n, "more than %zu MiB: not a file xgpu-objdump reads", MAX_INPUT >> 20);
            return NULL;
        }
        if (got == cap) {
            uint8_t *p = realloc(buf, cap = cap ? cap * 2 : 65536);
            if (!(bad = !p))
                buf = p;
            else
                why = ENOMEM;
            continue;
        }
        errno = 0;
        size_t k = fread(buf + got, 1, cap - got, f);
        why = errno;
        got += k;
        if (k == 0)
            break;
    }
    bad |= f && ferror(f);
    if (f)
        fclose(f);
    if (bad || got == 0) {
        if (bad)
            snprintf(err, n, "%s: %s", !f ? "cannot open" : "read error",
                     strerror(why ? why : EIO));
        else
            snprintf(err, n, "empty file");
        free(buf);
        return NULL;
    }
    *len = got;
    return buf;
}

/* ---- source lines (--source) ------------------------------------------------------- */

/* Reads path as named or, when relative, next to the input file. */
static uint8_t *src_read(const char *path, const char *input, size_t *len)
{
    char why[64], alt[4096];
    uint8_t *buf = read_file(path, len, why, sizeof why);
    const char *slash = strrchr(input, '/');
    if (buf || path[0] == '/' || !slash)
        return buf;
    snprintf(alt, sizeof alt, "%.*s/%s", (int)(slash - input), input, path);
    return read_file(alt, len, why, sizeof why);
}

static void src_load(SrcFile *sf, const char *path, const char *input)
{
    size_t len;
    uint8_t *buf = src_read(path, input, &len);
    char *t = buf ? realloc(buf, len + 1) : NULL;
    if (!t) {
        free(buf);
        sf->state = -1;
        fprintf(stderr, "xgpu-objdump: note: %s: source not found; lines shown as "
                        "// file:line\n", path);
        return;
    }
    t[len] = '\0';
    uint32_t n = 1;
    for (size_t i = 0; i < len; i++)
        n += t[i] == '\n';
    sf->lines = calloc(n, sizeof *sf->lines);
    for (char *p = t; sf->lines && p && sf->nlines < n; sf->nlines++) {
        sf->lines[sf->nlines] = p;
        p = strchr(p, '\n');
        if (p)
            *p++ = '\0';
    }
    sf->text = t;
    sf->state = sf->lines ? 1 : -1;
}

/* The text of file:line, or NULL when the file cannot be read or is shorter. */
static const char *src_line(const View *v, const XGpubin *g, const XLine *l)
{
    if (!v->src || l->file >= g->nfiles)
        return NULL;
    SrcFile *sf = &v->src[l->file];
    if (sf->state == 0)
        src_load(sf, g->files[l->file], v->input);
    if (sf->state < 0 || l->line == 0 || l->line > sf->nlines)
        return NULL;
    return sf->lines[l->line - 1];
}

static View view_new(const XGpubin *g, int source, const char *input)
{
    View v = {.source = source, .input = input};
    if (source)
        v.src = calloc(g->nfiles ? g->nfiles : 1, sizeof *v.src);
    return v;
}

static void view_free(View *v, const XGpubin *g)
{
    for (uint32_t i = 0; v->src && i < g->nfiles; i++) {
        free(v->src[i].text);
        free(v->src[i].lines);
    }
    free(v->src);
}

/* ---- phase records ------------------------------------------------------------------- */

/* The record starting a phase at kernel ki's pc, or NULL (records are sorted). */
static const XPhase *phase_at(const XGpubin *g, uint32_t ki, uint32_t pc)
{
    uint32_t lo = 0, hi = g->nphases;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        const XPhase *p = &g->phases[mid];
        if (p->kernel < ki || (p->kernel == ki && p->pc < pc))
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < g->nphases && g->phases[lo].kernel == ki && g->phases[lo].pc == pc)
        return &g->phases[lo];
    return NULL;
}

static const char *const phase_flag_names[] = {"barrier", "entry", "dynamic"};

static void print_phase_flags(uint32_t flags)
{
    for (unsigned i = 0; i < 3; i++)
        if (flags >> i & 1)
            printf(", %s", phase_flag_names[i]);
}

/* ---- text output ------------------------------------------------------------------- */

static const char **symbol_names(const XGpubin *g)
{
    const char **s = calloc(g->nglobals ? g->nglobals : 1, sizeof *s);
    for (uint32_t i = 0; s && i < g->nglobals; i++)
        s[i] = g->globals[i].name;
    return s;
}

static void print_kernel_entry(const XKernel *k)
{
    printf("kernel %s: regs %u, shared %u, local %u, params %u bytes, code [%u, %u)\n",
           k->name, k->nregs, k->shared_bytes, k->local_bytes, k->param_bytes, k->code_start,
           k->code_start + k->code_count);
    if (k->signature && k->signature[0])
        printf("  signature: %s\n", k->signature);
    if (k->max_threads)
        printf("  launch bounds: %u threads per block, %u blocks per SM at least\n",
               k->max_threads, k->min_blocks);
    for (uint32_t j = 0; j < k->nparams; j++)
        printf("  param %u: offset %u, size %u, align %u\n", j, k->params[j].offset,
               k->params[j].size, k->params[j].align);
}

static int is_label(const XGpubin *g, const XKernel *k, uint32_t pc)
{
    for (uint32_t i = 0; i < k->code_count; i++) {
        const XInsn *in = &g->text[k->code_start + i];
        if ((in->op == XOP_bra || in->op == XOP_brc) && in->target == pc)
            return 1;
        if (in->op == XOP_brc && in->reconv == pc)
            return 1;
    }
    return 0;
}

/* --source: the new source line above its instructions. */
static void print_source(const View *v, const XGpubin *g, const XLine *l)
{
    const char *text = src_line(v, g, l);
    if (text)
        printf("  %s:%u: %s\n", g->files[l->file], l->line, text);
    else
        printf("  // %s:%u\n", g->files[l->file], l->line);
}

static void print_code(const XGpubin *g, uint32_t ki, const char **syms, const View *v)
{
    const XKernel *k = &g->kernels[ki];
    const XLine *last = NULL;
    char buf[256];
    printf("  code:\n");
    for (uint32_t pc = 0; pc <= k->code_count; pc++) {
        if (is_label(g, k, pc))
            printf("  L%u:\n", pc);
        if (pc == k->code_count)
            break;
        uint32_t abs = k->code_start + pc;
        const XPhase *ph = phase_at(g, ki, pc);
        if (ph) {
            printf("  -- phase: %u regs, %u shared bytes", ph->regs, ph->shared);
            print_phase_flags(ph->flags);
            printf("\n");
        }
        xisa_format_reuse(&g->text[abs], syms, g->nglobals, g->reuse ? g->reuse[abs] : -1,
                          buf, sizeof buf);
        const XLine *l = xgpubin_line(g, k->code_start + pc);
        int fresh = l && l->line && (!last || last->line != l->line || last->file != l->file);
        if (fresh && v->source)
            print_source(v, g, l);
        if (fresh && !v->source)
            printf("  %5u:  %-40s // %s:%u\n", pc, buf, g->files[l->file], l->line);
        else
            printf("  %5u:  %s\n", pc, buf);
        last = l;
    }
}

static void print_phases(const XGpubin *g)
{
    if (!g->phase_delta) {
        printf("phases: none\n");
        return;
    }
    for (uint32_t i = 0; i < g->nphases; i++) { /* kernel-relative pcs */
        const XPhase *p = &g->phases[i];
        printf("phase: kernel %s pc %u: %u regs, %u shared bytes",
               g->kernels[p->kernel].name, p->pc, p->regs, p->shared);
        print_phase_flags(p->flags);
        printf("\n");
    }
}

/* An assist routine as the one kernel of a module that holds only its code, so that it
 * prints (and converts to JSON) like a kernel: no globals, lines, reuse bits or phases. */
typedef struct AssistView {
    XKernel k;
    XGpubin g;
} AssistView;

static void assist_view(AssistView *av, const XAssist *a)
{
    av->k = (XKernel){.name = a->name, .code_count = a->ntext, .nregs = a->nregs,
                      .param_bytes = a->param_bytes, .signature = ""};
    av->g = (XGpubin){.producer = "", .options = "", .kernels = &av->k, .nkernels = 1,
                      .text = (XInsn *)a->text, .ntext = a->ntext};
}

static void print_assist(const XGpubin *g)
{
    if (!g->nassist)
        printf("assist: none\n");
    for (uint32_t i = 0; i < g->nassist; i++) {
        const XAssist *a = &g->assist[i];
        AssistView av;
        View none = {0};
        assist_view(&av, a);
        printf("\nassist %s: %s %s, regs %u, params %u bytes, %u instructions\n", a->name,
               xgpu_assist_algo_name(a->algo), xgpu_assist_dir_name(a->dir), a->nregs,
               a->param_bytes, a->ntext);
        print_code(&av.g, 0, NULL, &none);
    }
}

static void print_global(const XGlobal *v)
{
    printf("global %s: %s, size %llu, align %u", v->name,
           v->space == XG_CONST ? "const" : "global", (unsigned long long)v->size, v->align);
    if (v->init) {
        printf(", init");
        for (uint64_t i = 0; i < v->size && i < 32; i++)
            printf(" %02x", v->init[i]);
        if (v->size > 32)
            printf(" ...");
    }
    printf("\n");
}

static void print_module(const char *path, size_t idx, const XGpubin *g, unsigned sec,
                         const View *v)
{
    const char **syms = symbol_names(g);
    printf("%s: gpubin #%zu\n", path, idx);
    if (sec & SEC_INFO)
        printf("producer: %s\noptions: %s\nkernels: %u, instructions: %u, globals: %u\n",
               g->producer, g->options, g->nkernels, g->ntext, g->nglobals);
    if ((sec & SEC_INFO) && g->reuse)
        printf("reuse bits: RTHLD %u, %s\n", g->reuse_rthld,
               g->reuse_source == XREUSE_PROFILE ? "from a profile" : "static estimate");
    if ((sec & SEC_INFO) && g->phase_delta)
        printf("phases: %u records (delta %u%%, gap %u)\n", g->nphases, g->phase_delta,
               g->phase_gap);
    for (uint32_t i = 0; (sec & SEC_INFO) && i < g->nassist; i++)
        printf("%s%s%s", i ? ", " : "assist routines: ", g->assist[i].name,
               i + 1 < g->nassist ? "" : "\n");
    for (uint32_t i = 0; i < g->nkernels && (sec & (SEC_KERNELS | SEC_TEXT)); i++) {
        printf("\n");
        if (sec & SEC_KERNELS)
            print_kernel_entry(&g->kernels[i]);
        else
            printf("kernel %s:\n", g->kernels[i].name);
        if (sec & SEC_TEXT)
            print_code(g, i, syms, v);
    }
    if ((sec & SEC_GLOBALS) && g->nglobals)
        printf("\n");
    for (uint32_t i = 0; (sec & SEC_GLOBALS) && i < g->nglobals; i++)
        print_global(&g->globals[i]);
    for (uint32_t i = 0; (sec & SEC_LINES) && i < g->nlines; i++)
        printf("line: pc %u %s:%u\n", g->lines[i].pc, g->files[g->lines[i].file],
               g->lines[i].line);
    if ((sec & SEC_REUSE) && !g->reuse)
        printf("reuse: none\n");
    for (uint32_t pc = 0; (sec & SEC_REUSE) && g->reuse && pc < g->ntext; pc++)
        printf("reuse: pc %u 0x%02x\n", pc, g->reuse[pc]); /* absolute pc, XREUSE_* bits */
    if (sec & SEC_PHASES)
        print_phases(g);
    if (sec & SEC_ASSIST)
        print_assist(g);
    free(syms);
}

/* ---- JSON output ------------------------------------------------------------------- */

#define JADD(o, k, v) json_object_object_add((o), (k), (v))

static json_object *json_phase_flags(uint32_t flags)
{
    json_object *a = json_object_new_array();
    for (unsigned i = 0; i < 3; i++)
        if (flags >> i & 1)
            json_object_array_add(a, json_object_new_string(phase_flag_names[i]));
    return a;
}

/* {"regs", "shared", "flags"} of a record, plus kernel and pc when whole. */
static json_object *json_phase(const XPhase *p, int whole)
{
    json_object *o = json_object_new_object();
    if (whole) {
        JADD(o, "kernel", json_object_new_int64(p->kernel));
        JADD(o, "pc", json_object_new_int64(p->pc));
    }
    JADD(o, "regs", json_object_new_int64(p->regs));
    JADD(o, "shared", json_object_new_int64(p->shared));
    JADD(o, "flags", json_phase_flags(p->flags));
    return o;
}

/* One instruction of kernel ki at pc. */
static json_object *json_insn(const XGpubin *g, uint32_t ki, uint32_t pc, const char **syms,
                              const View *v)
{
    const XKernel *k = &g->kernels[ki];
    json_object *in = json_object_new_object();
    const XInsn *x = &g->text[k->code_start + pc];
    char buf[256];
    xisa_format(x, syms, g->nglobals, buf, sizeof buf);
    JADD(in, "pc", json_object_new_int64(pc));
    JADD(in, "op", json_object_new_string(xisa_ops[x->op].name));
    JADD(in, "text", json_object_new_string(buf));
    if (g->reuse) /* XREUSE_* bits: 0-5 sources, 6-7 destinations; set = near */
        JADD(in, "reuse", json_object_new_int64(g->reuse[k->code_start + pc]));
    const XPhase *ph = phase_at(g, ki, pc);
    if (ph)
        JADD(in, "phase", json_phase(ph, 0));
    const XLine *l = xgpubin_line(g, k->code_start + pc);
    if (l && l->line) {
        JADD(in, "file", json_object_new_string(g->files[l->file]));
        JADD(in, "line", json_object_new_int64(l->line));
        const char *text = v->source ? src_line(v, g, l) : NULL;
        if (text)
            JADD(in, "source", json_object_new_string(text));
    }
    return in;
}

static json_object *json_kernel(const XGpubin *g, uint32_t ki, const char **syms,
                                unsigned sec, const View *v)
{
    const XKernel *k = &g->kernels[ki];
    json_object *o = json_object_new_object(), *ps = json_object_new_array();
    JADD(o, "name", json_object_new_string(k->name));
    if (sec & SEC_KERNELS) {
        JADD(o, "signature", json_object_new_string(k->signature ? k->signature : ""));
        JADD(o, "regs", json_object_new_int64(k->nregs));
        JADD(o, "shared_bytes", json_object_new_int64(k->shared_bytes));
        JADD(o, "local_bytes", json_object_new_int64(k->local_bytes));
        JADD(o, "max_threads", json_object_new_int64(k->max_threads));
        JADD(o, "min_blocks", json_object_new_int64(k->min_blocks));
        JADD(o, "param_bytes", json_object_new_int64(k->param_bytes));
        JADD(o, "code_start", json_object_new_int64(k->code_start));
        JADD(o, "code_count", json_object_new_int64(k->code_count));
        for (uint32_t j = 0; j < k->nparams; j++) {
            json_object *p = json_object_new_object();
            JADD(p, "offset", json_object_new_int64(k->params[j].offset));
            JADD(p, "size", json_object_new_int64(k->params[j].size));
            JADD(p, "align", json_object_new_int64(k->params[j].align));
            json_object_array_add(ps, p);
        }
    }
    JADD(o, "params", ps);
    if (!(sec & SEC_TEXT))
        return o;
    json_object *code = json_object_new_array();
    for (uint32_t pc = 0; pc < k->code_count; pc++)
        json_object_array_add(code, json_insn(g, ki, pc, syms, v));
    JADD(o, "instructions", code);
    return o;
}

static json_object *json_global(const XGlobal *v)
{
    json_object *o = json_object_new_object();
    JADD(o, "name", json_object_new_string(v->name));
    JADD(o, "space", json_object_new_string(v->space == XG_CONST ? "const" : "global"));
    JADD(o, "size", json_object_new_int64((int64_t)v->size));
    JADD(o, "align", json_object_new_int64(v->align));
    if (!v->init) {
        JADD(o, "init", NULL);
        return o;
    }
    char *hex = malloc((size_t)v->size * 2 + 1);
    for (uint64_t i = 0; hex && i < v->size; i++)
        snprintf(hex + 2 * i, 3, "%02x", v->init[i]);
    if (hex)
        hex[v->size * 2] = '\0';
    JADD(o, "init", hex ? json_object_new_string(hex) : NULL);
    free(hex);
    return o;
}

static json_object *json_phases(const XGpubin *g)
{
    json_object *o = json_object_new_object(), *rs = json_object_new_array();
    JADD(o, "delta", json_object_new_int64(g->phase_delta));
    JADD(o, "gap", json_object_new_int64(g->phase_gap));
    for (uint32_t i = 0; i < g->nphases; i++)
        json_object_array_add(rs, json_phase(&g->phases[i], 1));
    JADD(o, "records", rs);
    return o;
}

/* The routines with their records and instructions; null without any. */
static json_object *json_assist(const XGpubin *g)
{
    if (!g->nassist)
        return NULL;
    json_object *rs = json_object_new_array();
    for (uint32_t i = 0; i < g->nassist; i++) {
        const XAssist *a = &g->assist[i];
        json_object *o = json_object_new_object(), *code = json_object_new_array();
        AssistView av;
        View none = {0};
        assist_view(&av, a);
        JADD(o, "name", json_object_new_string(a->name));
        JADD(o, "algo", json_object_new_string(xgpu_assist_algo_name(a->algo)));
        JADD(o, "dir", json_object_new_string(xgpu_assist_dir_name(a->dir)));
        JADD(o, "regs", json_object_new_int64(a->nregs));
        JADD(o, "param_bytes", json_object_new_int64(a->param_bytes));
        JADD(o, "code_count", json_object_new_int64(a->ntext));
        for (uint32_t pc = 0; pc < a->ntext; pc++)
            json_object_array_add(code, json_insn(&av.g, 0, pc, NULL, &none));
        JADD(o, "instructions", code);
        json_object_array_add(rs, o);
    }
    return rs;
}

static json_object *json_module(const XGpubin *g, unsigned sec, const View *v)
{
    json_object *o = json_object_new_object();
    const char **syms = symbol_names(g);
    JADD(o, "version", json_object_new_int(XGPUBIN_VERSION));
    if (sec & SEC_INFO) {
        JADD(o, "producer", json_object_new_string(g->producer));
        JADD(o, "options", json_object_new_string(g->options));
    }
    if (sec & (SEC_KERNELS | SEC_TEXT)) {
        json_object *ks = json_object_new_array();
        for (uint32_t i = 0; i < g->nkernels; i++)
            json_object_array_add(ks, json_kernel(g, i, syms, sec, v));
        JADD(o, "kernels", ks);
    }
    if (sec & SEC_GLOBALS) {
        json_object *gs = json_object_new_array();
        for (uint32_t i = 0; i < g->nglobals; i++)
            json_object_array_add(gs, json_global(&g->globals[i]));
        JADD(o, "globals", gs);
    }
    if (sec & SEC_LINES) {
        json_object *fs = json_object_new_array(), *ls = json_object_new_array();
        for (uint32_t i = 0; i < g->nfiles; i++)
            json_object_array_add(fs, json_object_new_string(g->files[i]));
        for (uint32_t i = 0; i < g->nlines; i++) {
            json_object *l = json_object_new_object();
            JADD(l, "pc", json_object_new_int64(g->lines[i].pc));
            JADD(l, "file", json_object_new_int64(g->lines[i].file));
            JADD(l, "line", json_object_new_int64(g->lines[i].line));
            json_object_array_add(ls, l);
        }
        JADD(o, "files", fs);
        JADD(o, "lines", ls);
    }
    if ((sec & SEC_REUSE) && g->reuse) {
        json_object *r = json_object_new_object(), *bits = json_object_new_array();
        JADD(r, "rthld", json_object_new_int64(g->reuse_rthld));
        JADD(r, "source", json_object_new_string(g->reuse_source == XREUSE_PROFILE ? "profile"
                                                                                   : "static"));
        for (uint32_t pc = 0; pc < g->ntext; pc++)
            json_object_array_add(bits, json_object_new_int64(g->reuse[pc]));
        JADD(r, "bits", bits);
        JADD(o, "reuse", r);
    }
    if (sec & SEC_PHASES)
        JADD(o, "phases", g->phase_delta ? json_phases(g) : NULL);
    if (sec & SEC_ASSIST)
        JADD(o, "assist", json_assist(g));
    free(syms);
    return o;
}

/* ---- driver ------------------------------------------------------------------------ */

static int parse_section(const char *s, unsigned *sec)
{
    if (strncmp(s, ".xgpu.", 6) == 0)
        s += 6;
    else if (strncmp(s, "xgpu_", 5) == 0) /* the host tables' section names */
        s += 5;
    for (unsigned i = 0; i < sizeof section_names / sizeof section_names[0]; i++)
        if (strcmp(s, section_names[i]) == 0) {
            *sec |= 1u << i;
            return 0;
        }
    return -1;
}

static void usage(FILE *f)
{
    fprintf(f, "usage: xgpu-objdump [--json | --asm] [--source] "
               "[--section info|kernels|text|globals|lines|reuse|phases|assist|atoms|ldesc]... "
               "FILE...\n"
               "  --json     one JSON document (schema in docs/gpubin.md)\n"
               "  --asm      assembler listing of each module, which xasm_assemble reads back\n"
               "             (less its assist routines)\n"
               "  --source   the source text of each new line above its instructions\n");
}

typedef enum Format { FMT_TEXT, FMT_JSON, FMT_ASM } Format;

/* The host tables (XMem atoms, Locality Descriptors) after the modules; an atom's id is
 * its position in the linked table, as the runtime numbers it. */
static void print_host_tables(const Input *in, unsigned sec)
{
    if ((sec & SEC_ATOMS) && in->has_atoms) {
        printf("\n%s: XMem atom table (xgpu_atoms), %zu atoms in %zu tables\n", in->path,
               in->atoms.n, in->atoms.ntables);
        xhost_atoms_print(stdout, &in->atoms);
    }
    if ((sec & SEC_LDESC) && in->has_ldesc) {
        printf("\n%s: Locality Descriptor table (xgpu_ldesc), %zu descriptors in %zu tables\n",
               in->path, in->ldesc.n, in->ldesc.ntables);
        xhost_ldesc_print(stdout, &in->ldesc);
    }
}

static int process(Input *in, Format fmt, unsigned sec, int source, json_object *all)
{
    size_t len;
    in->buf = read_file(in->path, &len, in->err, sizeof in->err);
    int rc = in->buf ? load_input(in, in->buf, len) : -1;
    if (rc) {
        fprintf(stderr, "xgpu-objdump: %s: %s\n", in->path, in->err);
        return -1;
    }
    int json = fmt == FMT_JSON;
    json_object *mods = json ? json_object_new_array() : NULL;
    int modsec = (sec & ~(unsigned)(SEC_ATOMS | SEC_LDESC)) != 0;
    for (size_t i = 0; i < in->nmods && (modsec || fmt == FMT_ASM); i++) {
        View v = view_new(in->mods[i], source, in->path);
        if (json)
            json_object_array_add(mods, json_module(in->mods[i], sec, &v));
        else if (fmt == FMT_ASM)
            xgpubin_disassemble(in->mods[i], stdout);
        else
            print_module(in->path, i, in->mods[i], sec, &v);
        view_free(&v, in->mods[i]);
    }
    if (json) {
        json_object *o = json_object_new_object();
        JADD(o, "path", json_object_new_string(in->path));
        JADD(o, "modules", mods);
        if ((sec & SEC_ATOMS) && in->has_atoms)
            JADD(o, "atoms", xhost_atoms_json(&in->atoms));
        if ((sec & SEC_LDESC) && in->has_ldesc)
            JADD(o, "ldesc", xhost_ldesc_json(&in->ldesc));
        json_object_array_add(all, o);
    } else if (fmt == FMT_TEXT) {
        print_host_tables(in, sec);
    }
    return 0;
}

static void input_free(Input *in)
{
    for (size_t j = 0; j < in->nmods; j++)
        xgpubin_free(in->mods[j]);
    free(in->mods);
    if (in->has_atoms)
        xhost_atoms_free(&in->atoms);
    if (in->has_ldesc)
        xhost_ldesc_free(&in->ldesc);
    free(in->buf);
}

int main(int argc, char **argv)
{
    Format fmt = FMT_TEXT;
    int status = 0, nfiles = 0, source = 0;
    unsigned sec = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--json") == 0 || strcmp(argv[i], "--asm") == 0) {
            Format want = argv[i][2] == 'j' ? FMT_JSON : FMT_ASM;
            if (fmt != FMT_TEXT && fmt != want)
                return fprintf(stderr, "xgpu-objdump: --json and --asm cannot be combined "
                                       "(each is a whole output format)\n"), 2;
            fmt = want;
        } else if (strcmp(argv[i], "--source") == 0) {
            source = 1;
        } else if (strcmp(argv[i], "--section") == 0 && i + 1 < argc) {
            if (parse_section(argv[++i], &sec))
                return fprintf(stderr, "xgpu-objdump: unknown section '%s'\n", argv[i]), 2;
        } else if (strcmp(argv[i], "--help") == 0) {
            return usage(stdout), 0;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            return usage(stderr), 2;
        } else {
            argv[++nfiles] = argv[i]; /* compact the file names at argv[1..] */
        }
    }
    if (!nfiles)
        return usage(stderr), 2;
    if (!sec)
        sec = SEC_DEFAULT;
    elf_version(EV_CURRENT);
    int json = fmt == FMT_JSON;
    json_object *all = json ? json_object_new_array() : NULL;
    for (int i = 1; i <= nfiles; i++) {
        Input in = {.path = argv[i]};
        if (process(&in, fmt, sec, source, all))
            status = 1;
        if (fmt == FMT_TEXT && i < nfiles)
            printf("\n");
        input_free(&in);
    }
    if (json) {
        json_object *doc = json_object_new_object();
        JADD(doc, "inputs", all);
        printf("%s\n", json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PRETTY |
                                                               JSON_C_TO_STRING_NOSLASHESCAPE));
        json_object_put(doc);
    }
    return status;
}
