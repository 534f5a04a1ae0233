/*
 * gpubin_read.c - the gpubin reader: fat container parsing, ELF section lookup with
 * libelf, decoding of the project's sections, and the module checks.
 *
 * This file is the trust boundary: its input comes from files and host executables.
 * Every offset, count and size is checked against the bytes that really exist before
 * it is used (64-bit arithmetic, no overflow), strings must be NUL-terminated inside
 * their section's pool, and the decoded module then passes gb_check, which also
 * validates every instruction. Any failure returns -1 with one line in err; nothing
 * here aborts. On success the module owns copies of everything (its arena), so the
 * caller may free the input. The reader is kept in this one file so that it can be
 * fuzzed on its own.
 */
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>

#include "gpubin_int.h"

/* ---- fat container ----------------------------------------------------------------- */

int xfat_parse(const void *p, size_t avail, const void **elf, size_t *elflen, size_t *next,
               char *err, size_t errlen)
{
    const uint8_t *b = p;
    if (!p)
        return gb_fail(err, errlen, "fat container: null pointer");
    if (avail < 24)
        return gb_fail(err, errlen, "fat container: truncated header (%zu bytes)", avail);
    if (gb_get64(b) != XFAT_MAGIC)
        return gb_fail(err, errlen, "fat container: bad magic");
    if (gb_get32(b + 8) != XFAT_VERSION)
        return gb_fail(err, errlen, "fat container: unsupported version %u", gb_get32(b + 8));
    if (gb_get32(b + 12) != 0)
        return gb_fail(err, errlen, "fat container: unknown flags 0x%x", gb_get32(b + 12));
    uint64_t size = gb_get64(b + 16);
    if (size < 64 || size > (uint64_t)(SIZE_MAX / 2))
        return gb_fail(err, errlen, "fat container: bad image size %llu",
                       (unsigned long long)size);
    if (avail != SIZE_MAX && size > avail - 24)
        return gb_fail(err, errlen, "fat container: image of %llu bytes past the end (%zu)",
                       (unsigned long long)size, avail - 24);
    if (memcmp(b + 24, ELFMAG, SELFMAG) != 0)
        return gb_fail(err, errlen, "fat container: the image is not an ELF file");
    size_t used = 24 + (size_t)size, padded = (used + 7) & ~(size_t)7;
    if (avail != SIZE_MAX && padded > avail)
        padded = avail;
    *elf = b + 24;
    *elflen = (size_t)size;
    if (next)
        *next = padded;
    return 0;
}

/* ---- sections ---------------------------------------------------------------------- */

typedef struct Sec {
    const uint8_t *p; /* whole section, header included; NULL when absent */
    size_t size;
    uint32_t count;
    const uint8_t *body; /* after the header */
    size_t body_size;
} Sec;

typedef struct Reader {
    GbArena *arena;
    XGpubin *g;
    Sec info, kernels, text, globals, lines, reuse, phases, assist;
    uint64_t info_offset; /* of .xgpu.info in the image, for the checksum */
    char *err;
    size_t errlen;
} Reader;

static int open_section(Reader *r, Sec *s, const char *name, unsigned version)
{
    if (s->size < GB_SECHDR_SIZE)
        return gb_fail(r->err, r->errlen, "%s: section too small (%zu bytes)", name, s->size);
    if (gb_get32(s->p) != XSEC_MAGIC)
        return gb_fail(r->err, r->errlen, "%s: bad section magic", name);
    if (gb_get16(s->p + 6) != 0)
        return gb_fail(r->err, r->errlen, "%s: reserved header field is not zero", name);
    if (gb_get16(s->p + 4) != version)
        return gb_fail(r->err, r->errlen, "%s: unsupported section version %u", name,
                       gb_get16(s->p + 4));
    if (gb_get32(s->p + 12) != s->size)
        return gb_fail(r->err, r->errlen, "%s: header size %u but section has %zu bytes",
                       name, gb_get32(s->p + 12), s->size);
    s->count = gb_get32(s->p + 8);
    s->body = s->p + GB_SECHDR_SIZE;
    s->body_size = s->size - GB_SECHDR_SIZE;
    return 0;
}

/* Reserves n records of size sz at *off inside s's body. */
static int take(Reader *r, const Sec *s, const char *name, size_t *off, uint64_t n, size_t sz)
{
    uint64_t need = n * (uint64_t)sz;
    if (n > UINT32_MAX || need > s->body_size - *off)
        return gb_fail(r->err, r->errlen, "%s: %llu records do not fit in the section", name,
                       (unsigned long long)n);
    *off += (size_t)need;
    return 0;
}

/* A section's pool. Pools are canonical: the writer stores each referenced string or
 * data block once, in record order, with nothing in between, so every reference must
 * sit at `next` and the references must cover the pool exactly. */
typedef struct Pool {
    const uint8_t *p;
    size_t size, next;
} Pool;

/* Copies the string at pool offset off into the arena. */
static int get_str(Reader *r, Pool *pl, uint32_t off, const char *what, const char **out)
{
    const uint8_t *end = off < pl->size ? memchr(pl->p + off, 0, pl->size - off) : NULL;
    if (!end)
        return gb_fail(r->err, r->errlen, "%s: string offset %u outside its pool", what, off);
    if (off != pl->next)
        return gb_fail(r->err, r->errlen, "%s: string at %u, expected at %zu", what, off,
                       pl->next);
    pl->next = (size_t)(end - pl->p) + 1;
    if (!(*out = gb_arena_strdup(r->arena, (const char *)pl->p + off)))
        return gb_fail(r->err, r->errlen, "out of memory");
    return 0;
}

static int pool_done(Reader *r, const Pool *pl, const char *what)
{
    if (pl->next != pl->size)
        return gb_fail(r->err, r->errlen, "%s: %zu unreferenced pool bytes", what,
                       pl->size - pl->next);
    return 0;
}

static void *alloc_n(Reader *r, uint64_t n, size_t sz)
{
    return gb_arena_alloc(r->arena, (size_t)(n ? n : 1) * sz);
}

static int read_info(Reader *r)
{
    Sec *s = &r->info;
    size_t off = 0;
    if (open_section(r, s, GB_SEC_INFO, GB_VER_INFO))
        return -1;
    if (s->count != 1)
        return gb_fail(r->err, r->errlen, GB_SEC_INFO ": %u records, expected 1", s->count);
    if (take(r, s, GB_SEC_INFO, &off, 1, GB_INFO_SIZE))
        return -1;
    if (gb_get32(s->body) != XGPUBIN_VERSION)
        return gb_fail(r->err, r->errlen, "unsupported gpubin version %u (this reader: %u)",
                       gb_get32(s->body), XGPUBIN_VERSION);
    Pool pl = {s->body + off, s->body_size - off, 0};
    return get_str(r, &pl, gb_get32(s->body + 4), GB_SEC_INFO, &r->g->producer) ||
           get_str(r, &pl, gb_get32(s->body + 8), GB_SEC_INFO, &r->g->options) ||
           pool_done(r, &pl, GB_SEC_INFO);
}

static int read_params(Reader *r, XKernel *k, const uint8_t *p)
{
    if (!(k->params = alloc_n(r, k->nparams, sizeof(XParam))))
        return gb_fail(r->err, r->errlen, "out of memory");
    for (uint32_t j = 0; j < k->nparams; j++, p += GB_PARAM_SIZE) {
        k->params[j].offset = gb_get32(p);
        k->params[j].size = gb_get32(p + 4);
        k->params[j].align = gb_get32(p + 8);
    }
    return 0;
}

static int read_kernels(Reader *r)
{
    Sec *s = &r->kernels;
    size_t off = 0;
    if (open_section(r, s, GB_SEC_KERNELS, GB_VER_KERNELS) ||
        take(r, s, GB_SEC_KERNELS, &off, s->count, GB_KERNEL_SIZE))
        return -1;
    uint64_t nparams = 0;
    for (uint32_t i = 0; i < s->count; i++)
        nparams += gb_get32(s->body + (size_t)i * GB_KERNEL_SIZE + 32);
    size_t params_off = off;
    if (take(r, s, GB_SEC_KERNELS, &off, nparams, GB_PARAM_SIZE))
        return -1;
    Pool pl = {s->body + off, s->body_size - off, 0};
    XGpubin *g = r->g;
    if (!(g->kernels = alloc_n(r, s->count, sizeof(XKernel))))
        return gb_fail(r->err, r->errlen, "out of memory");
    g->nkernels = s->count;
    for (uint32_t i = 0; i < s->count; i++) {
        const uint8_t *p = s->body + (size_t)i * GB_KERNEL_SIZE;
        XKernel *k = &g->kernels[i];
        if (get_str(r, &pl, gb_get32(p), GB_SEC_KERNELS, &k->name) ||
            get_str(r, &pl, gb_get32(p + 4), GB_SEC_KERNELS, &k->signature))
            return -1;
        k->code_start = gb_get32(p + 8);
        k->code_count = gb_get32(p + 12);
        k->nregs = gb_get32(p + 16);
        k->shared_bytes = gb_get32(p + 20);
        k->local_bytes = gb_get32(p + 24);
        k->param_bytes = gb_get32(p + 28);
        k->nparams = gb_get32(p + 32);
        k->max_threads = gb_get16(p + 36);
        k->min_blocks = gb_get16(p + 38);
        if (read_params(r, k, s->body + params_off))
            return -1;
        params_off += (size_t)k->nparams * GB_PARAM_SIZE;
    }
    return pool_done(r, &pl, GB_SEC_KERNELS);
}

static int read_text(Reader *r)
{
    Sec *s = &r->text;
    if (open_section(r, s, GB_SEC_TEXT, GB_VER_TEXT))
        return -1;
    if ((uint64_t)s->count * GB_INSN_SIZE != s->body_size)
        return gb_fail(r->err, r->errlen, GB_SEC_TEXT ": %u instructions but %zu bytes",
                       s->count, s->body_size);
    if (!(r->g->text = alloc_n(r, s->count, sizeof(XInsn))))
        return gb_fail(r->err, r->errlen, "out of memory");
    r->g->ntext = s->count;
    for (uint32_t i = 0; i < s->count; i++)
        gb_decode_insn(&r->g->text[i], s->body + (size_t)i * GB_INSN_SIZE);
    return 0;
}

static int read_global(Reader *r, XGlobal *v, const uint8_t *p, Pool *pl)
{
    if (get_str(r, pl, gb_get32(p), GB_SEC_GLOBALS, &v->name))
        return -1;
    v->space = gb_get32(p + 4);
    v->align = gb_get32(p + 8);
    uint32_t flags = gb_get32(p + 12);
    v->size = gb_get64(p + 16);
    uint64_t init = gb_get64(p + 24);
    if (flags & ~(GB_GLOBAL_HAS_INIT | GB_GLOBAL_MANAGED))
        return gb_fail(r->err, r->errlen, "global %s: unknown flags 0x%x", v->name, flags);
    v->managed = (flags & GB_GLOBAL_MANAGED) != 0;
    if (!(flags & GB_GLOBAL_HAS_INIT))
        return init ? gb_fail(r->err, r->errlen, "global %s: stray init offset", v->name) : 0;
    if (init != pl->next || v->size > pl->size - init)
        return gb_fail(r->err, r->errlen, "global %s: initializer outside its place",
                       v->name);
    pl->next += (size_t)v->size;
    uint8_t *bytes = alloc_n(r, v->size, 1);
    if (!bytes)
        return gb_fail(r->err, r->errlen, "out of memory");
    memcpy(bytes, pl->p + init, (size_t)v->size);
    v->init = bytes;
    return 0;
}

static int read_globals(Reader *r)
{
    Sec *s = &r->globals;
    size_t off = 0;
    if (!s->p)
        return 0;
    if (open_section(r, s, GB_SEC_GLOBALS, GB_VER_GLOBALS) ||
        take(r, s, GB_SEC_GLOBALS, &off, s->count, GB_GLOBAL_SIZE))
        return -1;
    if (!(r->g->globals = alloc_n(r, s->count, sizeof(XGlobal))))
        return gb_fail(r->err, r->errlen, "out of memory");
    r->g->nglobals = s->count;
    Pool pl = {s->body + off, s->body_size - off, 0};
    for (uint32_t i = 0; i < s->count; i++)
        if (read_global(r, &r->g->globals[i], s->body + (size_t)i * GB_GLOBAL_SIZE, &pl))
            return -1;
    return pool_done(r, &pl, GB_SEC_GLOBALS);
}

static int read_lines(Reader *r)
{
    Sec *s = &r->lines;
    size_t off = 0;
    if (!s->p)
        return 0;
    if (open_section(r, s, GB_SEC_LINES, GB_VER_LINES) ||
        take(r, s, GB_SEC_LINES, &off, 2, 4))
        return -1;
    uint32_t nfiles = gb_get32(s->body);
    if (gb_get32(s->body + 4) != 0)
        return gb_fail(r->err, r->errlen, GB_SEC_LINES ": reserved field is not zero");
    size_t files_off = off, lines_off;
    if (take(r, s, GB_SEC_LINES, &off, nfiles, 4))
        return -1;
    lines_off = off;
    if (take(r, s, GB_SEC_LINES, &off, s->count, GB_LINE_SIZE))
        return -1;
    XGpubin *g = r->g;
    if (!(g->files = alloc_n(r, nfiles, sizeof(char *))) ||
        !(g->lines = alloc_n(r, s->count, sizeof(XLine))))
        return gb_fail(r->err, r->errlen, "out of memory");
    g->nfiles = nfiles;
    g->nlines = s->count;
    Pool pl = {s->body + off, s->body_size - off, 0};
    for (uint32_t i = 0; i < nfiles; i++)
        if (get_str(r, &pl, gb_get32(s->body + files_off + 4 * (size_t)i), GB_SEC_LINES,
                    &g->files[i]))
            return -1;
    for (uint32_t i = 0; i < s->count; i++) {
        const uint8_t *p = s->body + lines_off + (size_t)i * GB_LINE_SIZE;
        g->lines[i] = (XLine){gb_get32(p), gb_get32(p + 4), gb_get32(p + 8)};
    }
    return pool_done(r, &pl, GB_SEC_LINES);
}

/* The optional reuse bits: one byte per instruction of .xgpu.text. */
static int read_reuse(Reader *r)
{
    Sec *s = &r->reuse;
    if (!s->p)
        return 0;
    if (open_section(r, s, GB_SEC_REUSE, GB_VER_REUSE))
        return -1;
    if (s->count != r->g->ntext || s->body_size != 8 + (size_t)s->count)
        return gb_fail(r->err, r->errlen, GB_SEC_REUSE ": %u entries in %zu bytes for %u "
                       "instructions", s->count, s->body_size, r->g->ntext);
    uint32_t rthld = gb_get32(s->body), source = gb_get32(s->body + 4);
    if (rthld == 0 || rthld > 255 || source > XREUSE_PROFILE)
        return gb_fail(r->err, r->errlen, GB_SEC_REUSE ": bad threshold %u or source %u",
                       rthld, source);
    uint8_t *bits = alloc_n(r, s->count, 1);
    if (!bits)
        return gb_fail(r->err, r->errlen, "out of memory");
    memcpy(bits, s->body + 8, s->count);
    r->g->reuse = bits, r->g->reuse_rthld = rthld, r->g->reuse_source = source;
    return 0;
}

/* The optional phase specifiers: thresholds, then records (checked by gb_check). */
static int read_phases(Reader *r)
{
    Sec *s = &r->phases;
    size_t off = 0;
    if (!s->p)
        return 0;
    if (open_section(r, s, GB_SEC_PHASES, GB_VER_PHASES) ||
        take(r, s, GB_SEC_PHASES, &off, 2, 4) ||
        take(r, s, GB_SEC_PHASES, &off, s->count, GB_PHASE_SIZE))
        return -1;
    if (off != s->body_size)
        return gb_fail(r->err, r->errlen, GB_SEC_PHASES ": %zu stray bytes after %u records",
                       s->body_size - off, s->count);
    XGpubin *g = r->g;
    g->phase_delta = gb_get32(s->body);
    g->phase_gap = gb_get32(s->body + 4);
    if (g->phase_delta == 0)
        return gb_fail(r->err, r->errlen, GB_SEC_PHASES ": threshold of 0%%");
    if (!(g->phases = alloc_n(r, s->count, sizeof(XPhase))))
        return gb_fail(r->err, r->errlen, "out of memory");
    g->nphases = s->count;
    for (uint32_t i = 0; i < s->count; i++) {
        const uint8_t *p = s->body + 8 + (size_t)i * GB_PHASE_SIZE;
        g->phases[i] = (XPhase){gb_get32(p), gb_get32(p + 4), gb_get32(p + 8),
                                gb_get32(p + 12), gb_get32(p + 16)};
    }
    return 0;
}

/* The optional assist routines: records, then their code in record order, then the
 * pool of names. Fields and instructions are checked by gb_check. */
static int read_assist(Reader *r)
{
    Sec *s = &r->assist;
    size_t off = 0;
    if (!s->p)
        return 0;
    if (open_section(r, s, GB_SEC_ASSIST, GB_VER_ASSIST))
        return -1;
    if (s->count == 0) /* the writer leaves the section out instead */
        return gb_fail(r->err, r->errlen, GB_SEC_ASSIST ": a section without routines");
    if (take(r, s, GB_SEC_ASSIST, &off, s->count, GB_ASSIST_SIZE))
        return -1;
    uint64_t ninsns = 0;
    for (uint32_t i = 0; i < s->count; i++)
        ninsns += gb_get32(s->body + (size_t)i * GB_ASSIST_SIZE + 20);
    size_t code_off = off;
    if (take(r, s, GB_SEC_ASSIST, &off, ninsns, GB_INSN_SIZE))
        return -1;
    Pool pl = {s->body + off, s->body_size - off, 0};
    XGpubin *g = r->g;
    if (!(g->assist = alloc_n(r, s->count, sizeof(XAssist))))
        return gb_fail(r->err, r->errlen, "out of memory");
    g->nassist = s->count;
    for (uint32_t i = 0; i < s->count; i++) {
        const uint8_t *p = s->body + (size_t)i * GB_ASSIST_SIZE;
        XAssist *a = &g->assist[i];
        if (get_str(r, &pl, gb_get32(p), GB_SEC_ASSIST, &a->name))
            return -1;
        a->algo = gb_get32(p + 4), a->dir = gb_get32(p + 8);
        a->nregs = gb_get32(p + 12), a->param_bytes = gb_get32(p + 16);
        a->ntext = gb_get32(p + 20);
        XInsn *code = alloc_n(r, a->ntext, sizeof(XInsn));
        if (!code)
            return gb_fail(r->err, r->errlen, "out of memory");
        for (uint32_t pc = 0; pc < a->ntext; pc++, code_off += GB_INSN_SIZE)
            gb_decode_insn(&code[pc], s->body + code_off);
        a->text = code;
    }
    return pool_done(r, &pl, GB_SEC_ASSIST);
}

/* ---- ELF --------------------------------------------------------------------------- */

static Sec *section_slot(Reader *r, const char *name)
{
    static const struct { const char *name; size_t off; } slots[] = {
        {GB_SEC_INFO, offsetof(Reader, info)},       {GB_SEC_KERNELS, offsetof(Reader, kernels)},
        {GB_SEC_TEXT, offsetof(Reader, text)},       {GB_SEC_GLOBALS, offsetof(Reader, globals)},
        {GB_SEC_LINES, offsetof(Reader, lines)},     {GB_SEC_REUSE, offsetof(Reader, reuse)},
        {GB_SEC_PHASES, offsetof(Reader, phases)},   {GB_SEC_ASSIST, offsetof(Reader, assist)},
    };
    for (size_t i = 0; i < sizeof slots / sizeof slots[0]; i++)
        if (strcmp(name, slots[i].name) == 0)
            return (Sec *)((char *)r + slots[i].off);
    return NULL;
}

static int find_section(Reader *r, Elf *e, Elf_Scn *scn, size_t shstrndx, size_t len)
{
    GElf_Shdr sh;
    if (!gelf_getshdr(scn, &sh))
        return gb_fail(r->err, r->errlen, "bad ELF section header: %s", elf_errmsg(-1));
    const char *name = elf_strptr(e, shstrndx, sh.sh_name);
    Sec *s = name ? section_slot(r, name) : NULL;
    if (!s)
        return 0; /* not ours: other tools' sections are allowed */
    if (s->p)
        return gb_fail(r->err, r->errlen, "%s: duplicate section", name);
    if (sh.sh_type != SHT_PROGBITS || sh.sh_offset > len || sh.sh_size > len - sh.sh_offset)
        return gb_fail(r->err, r->errlen, "%s: section outside the file", name);
    Elf_Data *d = elf_getdata(scn, NULL);
    if (!d || d->d_size != sh.sh_size || (d->d_size && !d->d_buf))
        return gb_fail(r->err, r->errlen, "%s: unreadable section", name);
    s->p = d->d_buf;
    s->size = d->d_size;
    if (s == &r->info)
        r->info_offset = sh.sh_offset;
    if (!s->p) /* an empty section: too small, reported by open_section */
        s->p = (const uint8_t *)"";
    return 0;
}

static int find_sections(Reader *r, Elf *e, size_t len)
{
    GElf_Ehdr eh;
    size_t shstrndx;
    if (elf_kind(e) != ELF_K_ELF || !gelf_getehdr(e, &eh))
        return gb_fail(r->err, r->errlen, "not an ELF file");
    if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_ident[EI_DATA] != ELFDATA2LSB)
        return gb_fail(r->err, r->errlen, "not a little-endian ELF64 file");
    if (elf_getshdrstrndx(e, &shstrndx) != 0)
        return gb_fail(r->err, r->errlen, "ELF: no section name table: %s", elf_errmsg(-1));
    for (Elf_Scn *scn = elf_nextscn(e, NULL); scn; scn = elf_nextscn(e, scn))
        if (find_section(r, e, scn, shstrndx, len))
            return -1;
    if (!r->info.p || !r->kernels.p || !r->text.p)
        return gb_fail(r->err, r->errlen, "not a gpubin: missing %s section",
                       !r->info.p ? GB_SEC_INFO : !r->kernels.p ? GB_SEC_KERNELS : GB_SEC_TEXT);
    return 0;
}

/* Last, so that a damaged structure is still reported (and fuzzed) as such: the
 * checksum catches what is well formed but not what the compiler wrote, e.g. one changed
 * register number or immediate. Fuzzing builds skip it, so that mutated inputs reach the
 * module checks and the reader's users. */
static int verify_checksum(Reader *r, const uint8_t *img, size_t len)
{
#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
    (void)r, (void)img, (void)len;
    return 0;
#else
    uint64_t at = r->info_offset + GB_INFO_CHECKSUM_AT;
    if (at + 4 > len)
        return gb_fail(r->err, r->errlen, GB_SEC_INFO ": checksum outside the image");
    uint32_t stored = gb_get32(img + at), actual = gb_image_crc(img, len, (size_t)at);
    if (stored != actual)
        return gb_fail(r->err, r->errlen, "device binary is damaged: checksum %08x, "
                       "expected %08x (recompile the program)", actual, stored);
    return 0;
#endif
}

static int parse_image(Reader *r, void *copy, size_t len)
{
    if (elf_version(EV_CURRENT) == EV_NONE)
        return gb_fail(r->err, r->errlen, "libelf: %s", elf_errmsg(-1));
    Elf *e = elf_memory(copy, len);
    if (!e)
        return gb_fail(r->err, r->errlen, "not an ELF file: %s", elf_errmsg(-1));
    int rc = find_sections(r, e, len);
    if (!rc)
        rc = read_info(r) || read_kernels(r) || read_text(r) || read_globals(r) ||
             read_lines(r) || read_reuse(r) || read_phases(r) || read_assist(r) ||
             gb_check(r->g, r->err, r->errlen) || verify_checksum(r, copy, len);
    elf_end(e);
    return rc ? -1 : 0;
}

int xgpubin_read(const void *buf, size_t len, XGpubin **out, char *err, size_t errlen)
{
    *out = NULL;
    if (!buf || len < 64 || memcmp(buf, ELFMAG, SELFMAG) != 0)
        return gb_fail(err, errlen, "not an ELF file");
    Reader r = {.err = err, .errlen = errlen};
    void *copy = malloc(len); /* libelf wants a writable, aligned image */
    r.arena = gb_arena_new();
    r.g = r.arena ? gb_arena_alloc(r.arena, sizeof(XGpubin)) : NULL;
    int rc = -1;
    if (!copy || !r.g) {
        gb_fail(err, errlen, "out of memory");
    } else {
        memcpy(copy, buf, len);
        r.g->arena = r.arena;
        rc = parse_image(&r, copy, len);
    }
    free(copy);
    if (rc) {
        gb_arena_free(r.arena);
        return -1;
    }
    *out = r.g;
    return 0;
}

/* ---- module checks ----------------------------------------------------------------- */

static int is_pow2(uint64_t v) { return v && !(v & (v - 1)); }

static int check_params(const XKernel *k, char *err, size_t n)
{
    if (k->nparams && !k->params)
        return gb_fail(err, n, "kernel %s: missing parameter table", k->name);
    for (uint32_t j = 0; j < k->nparams; j++) {
        const XParam *p = &k->params[j];
        if (!is_pow2(p->align) || p->offset % p->align)
            return gb_fail(err, n, "kernel %s: parameter %u badly aligned", k->name, j);
        if ((uint64_t)p->offset + p->size > k->param_bytes)
            return gb_fail(err, n, "kernel %s: parameter %u outside the %u parameter bytes",
                           k->name, j, k->param_bytes);
    }
    return 0;
}

/* Code checked the same way whether a kernel's or an assist routine's: its kind and name
 * for messages, its instructions, its register count. */
typedef struct Code {
    const char *kind, *noun; /* "kernel", "kernel" or ".xgpu.assist routine", "routine" */
    const char *name;
    const XInsn *code;
    uint32_t count, nregs;
    int routine; /* an assist routine: no gaddr */
} Code;

static int check_insn(const XGpubin *g, const Code *c, uint32_t pc, char *err, size_t n)
{
    const XInsn *in = &c->code[pc];
    char why[160];
    if (xisa_validate(in, c->count, why, sizeof why))
        return gb_fail(err, n, "%s %s, pc %u: %s", c->kind, c->name, pc, why);
    if (in->op == XOP_gaddr && c->routine) /* it serves every module, whatever its globals */
        return gb_fail(err, n, "%s %s, pc %u: gaddr in a routine", c->kind, c->name, pc);
    if (in->op == XOP_gaddr && in->target >= g->nglobals)
        return gb_fail(err, n, "%s %s, pc %u: gaddr of symbol %u, module has %u", c->kind,
                       c->name, pc, in->target, g->nglobals);
    for (unsigned d = 0; d < 2; d++)
        for (unsigned i = 0; i < (d ? 2u : 6u); i++) {
            unsigned w = xisa_operand_regs(in, (int)d, i), reg = d ? in->dst[i] : in->src[i];
            if (w && reg != XREG_RZ && reg + w > c->nregs)
                return gb_fail(err, n, "%s %s, pc %u: r%u beyond the %s's %u registers",
                               c->kind, c->name, pc, reg, c->noun, c->nregs);
        }
    return 0;
}

static int check_kernel(const XGpubin *g, const XKernel *k, char *err, size_t n)
{
    if (!k->name || !k->name[0])
        return gb_fail(err, n, "kernel without a name");
    if (k->code_count == 0 || (uint64_t)k->code_start + k->code_count > g->ntext)
        return gb_fail(err, n, "kernel %s: code range %u+%u outside the text (%u instructions)",
                       k->name, k->code_start, k->code_count, g->ntext);
    if (k->nregs > XREG_MAX)
        return gb_fail(err, n, "kernel %s: %u registers, at most %u", k->name, k->nregs,
                       XREG_MAX);
    if (k->max_threads > XKERNEL_MAX_THREADS || k->min_blocks > XKERNEL_MAX_MIN_BLOCKS ||
        (k->min_blocks && !k->max_threads))
        return gb_fail(err, n, "kernel %s: launch bounds (%u threads, %u blocks) out of range",
                       k->name, k->max_threads, k->min_blocks);
    if (check_params(k, err, n))
        return -1;
    Code c = {"kernel", "kernel", k->name, g->text + k->code_start, k->code_count, k->nregs, 0};
    for (uint32_t pc = 0; pc < k->code_count; pc++)
        if (check_insn(g, &c, pc, err, n))
            return -1;
    return 0;
}

/* Assist routine i; *seen collects the (algo, dir) pairs of the routines before it. */
static int check_assist(const XGpubin *g, uint32_t i, unsigned *seen, char *err, size_t n)
{
    const XAssist *a = &g->assist[i];
    if (!a->name || !a->name[0])
        return gb_fail(err, n, GB_SEC_ASSIST " record %u: a routine without a name", i);
    if (a->algo >= XASSIST_NALGO || a->dir >= XASSIST_NDIR)
        return gb_fail(err, n, GB_SEC_ASSIST " routine %s: algorithm %u, direction %u out of "
                       "range (0..%u, 0..%u)", a->name, a->algo, a->dir, XASSIST_NALGO - 1,
                       XASSIST_NDIR - 1);
    unsigned bit = 1u << (a->algo * XASSIST_NDIR + a->dir);
    if (*seen & bit)
        return gb_fail(err, n, GB_SEC_ASSIST " routine %s: a second routine for algorithm %u, "
                       "direction %u", a->name, a->algo, a->dir);
    *seen |= bit;
    if (a->nregs > XREG_MAX)
        return gb_fail(err, n, GB_SEC_ASSIST " routine %s: %u registers, at most %u", a->name,
                       a->nregs, XREG_MAX);
    if (a->ntext == 0 || !a->text)
        return gb_fail(err, n, GB_SEC_ASSIST " routine %s: no instructions", a->name);
    Code c = {GB_SEC_ASSIST " routine", "routine", a->name, a->text, a->ntext, a->nregs, 1};
    for (uint32_t pc = 0; pc < a->ntext; pc++)
        if (check_insn(g, &c, pc, err, n))
            return -1;
    return 0;
}

static int check_global(const XGlobal *v, char *err, size_t n)
{
    if (!v->name || !v->name[0])
        return gb_fail(err, n, "global without a name");
    if (v->space != XG_GLOBAL && v->space != XG_CONST)
        return gb_fail(err, n, "global %s: bad space %u", v->name, v->space);
    if (v->managed && v->space != XG_GLOBAL)
        return gb_fail(err, n, "global %s: managed but not in the global space", v->name);
    if (!is_pow2(v->align))
        return gb_fail(err, n, "global %s: alignment %u is not a power of two", v->name,
                       v->align);
    return 0;
}

static int check_lines(const XGpubin *g, char *err, size_t n)
{
    for (uint32_t i = 0; i < g->nfiles; i++)
        if (!g->files || !g->files[i])
            return gb_fail(err, n, "line table: file %u has no name", i);
    for (uint32_t i = 0; i < g->nlines; i++) {
        const XLine *l = &g->lines[i];
        if (l->file >= g->nfiles)
            return gb_fail(err, n, "line record %u: file %u of %u", i, l->file, g->nfiles);
        if (l->pc >= g->ntext)
            return gb_fail(err, n, "line record %u: pc %u past the text", i, l->pc);
        if (i && l->pc < g->lines[i - 1].pc)
            return gb_fail(err, n, "line record %u: not sorted by pc", i);
    }
    return 0;
}

static int check_phase(const XGpubin *g, uint32_t i, char *err, size_t n)
{
    const XPhase *p = &g->phases[i], *q = i ? &g->phases[i - 1] : NULL;
    if (p->kernel >= g->nkernels)
        return gb_fail(err, n, GB_SEC_PHASES " record %u: kernel %u of %u", i, p->kernel,
                       g->nkernels);
    const XKernel *k = &g->kernels[p->kernel];
    if (p->pc >= k->code_count)
        return gb_fail(err, n, GB_SEC_PHASES " record %u: kernel %s, pc %u past its %u "
                       "instructions", i, k->name, p->pc, k->code_count);
    if (q && (q->kernel > p->kernel || (q->kernel == p->kernel && q->pc >= p->pc)))
        return gb_fail(err, n, GB_SEC_PHASES " record %u: kernel %s, pc %u not sorted after "
                       "the previous record", i, k->name, p->pc);
    if (p->regs > k->nregs || p->shared > k->shared_bytes)
        return gb_fail(err, n, GB_SEC_PHASES " record %u: kernel %s, pc %u: %u registers, %u "
                       "shared bytes exceed the kernel's %u, %u", i, k->name, p->pc, p->regs,
                       p->shared, k->nregs, k->shared_bytes);
    if (p->flags & ~(uint32_t)XPHASE_ALL)
        return gb_fail(err, n, GB_SEC_PHASES " record %u: kernel %s, pc %u: unknown flags "
                       "0x%x", i, k->name, p->pc, p->flags);
    if (((p->flags & XPHASE_ENTRY) != 0) != (p->pc == 0))
        return gb_fail(err, n, GB_SEC_PHASES " record %u: kernel %s, pc %u: the entry flag "
                       "belongs to pc 0 and only there", i, k->name, p->pc);
    return 0;
}

static int check_phases(const XGpubin *g, char *err, size_t n)
{
    if (!g->phase_delta)
        return g->nphases ? gb_fail(err, n, GB_SEC_PHASES ": records without thresholds") : 0;
    if (g->phase_delta > XPHASE_DELTA_MAX || g->phase_gap == 0 ||
        g->phase_gap > XPHASE_GAP_MAX)
        return gb_fail(err, n, GB_SEC_PHASES ": thresholds %u%% and %u instructions out of "
                       "range (1..%u, 1..%u)", g->phase_delta, g->phase_gap, XPHASE_DELTA_MAX,
                       XPHASE_GAP_MAX);
    if (g->nphases && !g->phases)
        return gb_fail(err, n, "module: a non-empty table without storage");
    for (uint32_t i = 0; i < g->nphases; i++)
        if (check_phase(g, i, err, n))
            return -1;
    return 0;
}

int gb_check(const XGpubin *g, char *err, size_t errlen)
{
    char why[160];
    if ((g->nkernels && !g->kernels) || (g->ntext && !g->text) ||
        (g->nglobals && !g->globals) || (g->nlines && !g->lines) ||
        (g->nassist && !g->assist))
        return gb_fail(err, errlen, "module: a non-empty table without storage");
    for (uint32_t i = 0; i < g->ntext; i++)
        if (xisa_validate(&g->text[i], g->ntext, why, sizeof why))
            return gb_fail(err, errlen, "text %u: %s", i, why);
    for (uint32_t i = 0; i < g->nkernels; i++)
        if (check_kernel(g, &g->kernels[i], err, errlen))
            return -1;
    for (uint32_t i = 0; i < g->nglobals; i++)
        if (check_global(&g->globals[i], err, errlen))
            return -1;
    unsigned seen = 0;
    for (uint32_t i = 0; i < g->nassist; i++)
        if (check_assist(g, i, &seen, err, errlen))
            return -1;
    return check_lines(g, err, errlen) || check_phases(g, err, errlen) ? -1 : 0;
}
