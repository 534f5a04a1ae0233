/*
 * gpubin_write.c - the gpubin writer: encodes a module's sections (layout in
 * gpubin_int.h and docs/gpubin.md) and wraps them in an ELF64 relocatable file with
 * libelf; also the fat container that embeds the image in a host object.
 *
 * The module is checked (gb_check) before anything is written, so the writer never
 * produces a file the reader would reject. libelf writes to a file descriptor; the
 * in-memory image is produced through an anonymous temporary file.
 */
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "gpubin_int.h"

/* A growable byte buffer; `bad` records an allocation failure. */
typedef struct Buf {
    uint8_t *p;
    size_t len, cap;
    int bad;
} Buf;

static uint8_t *buf_grow(Buf *b, size_t n)
{
    if (b->bad)
        return NULL;
    if (b->cap - b->len < n) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap - b->len < n)
            cap *= 2;
        uint8_t *p = realloc(b->p, cap);
        if (!p) {
            b->bad = 1;
            return NULL;
        }
        b->p = p;
        b->cap = cap;
    }
    uint8_t *at = b->p + b->len;
    memset(at, 0, n);
    b->len += n;
    return at;
}

static void buf_u32(Buf *b, uint32_t v)
{
    uint8_t *p = buf_grow(b, 4);
    if (p)
        gb_put32(p, v);
}

/* Appends bytes to a pool; returns their offset. */
static uint32_t pool_add(Buf *pool, const void *data, size_t n)
{
    uint32_t off = (uint32_t)pool->len;
    uint8_t *p = buf_grow(pool, n);
    if (p && n)
        memcpy(p, data, n);
    return off;
}

static uint32_t pool_str(Buf *pool, const char *s)
{
    s = s ? s : "";
    return pool_add(pool, s, strlen(s) + 1);
}

/* Starts a section: header with count (size patched by sec_end). */
static void sec_begin(Buf *b, unsigned version, uint32_t count)
{
    uint8_t *p = buf_grow(b, GB_SECHDR_SIZE);
    if (!p)
        return;
    gb_put32(p, XSEC_MAGIC);
    gb_put16(p + 4, (uint16_t)version);
    gb_put32(p + 8, count);
}

static void sec_end(Buf *b, Buf *pool)
{
    if (pool)
        pool_add(b, pool->p, pool->len), b->bad |= pool->bad;
    if (!b->bad && b->len > UINT32_MAX)
        b->bad = 1;
    if (!b->bad)
        gb_put32(b->p + 12, (uint32_t)b->len);
    if (pool)
        free(pool->p);
}

static void enc_info(Buf *b, const XGpubin *g)
{
    Buf pool = {0};
    sec_begin(b, GB_VER_INFO, 1);
    buf_u32(b, XGPUBIN_VERSION);
    buf_u32(b, pool_str(&pool, g->producer));
    buf_u32(b, pool_str(&pool, g->options));
    buf_u32(b, 0); /* the checksum, filled in by seal() */
    sec_end(b, &pool);
}

static void enc_kernels(Buf *b, const XGpubin *g)
{
    Buf pool = {0};
    sec_begin(b, GB_VER_KERNELS, g->nkernels);
    for (uint32_t i = 0; i < g->nkernels; i++) {
        const XKernel *k = &g->kernels[i];
        uint32_t f[10] = {pool_str(&pool, k->name), pool_str(&pool, k->signature),
                          k->code_start, k->code_count, k->nregs, k->shared_bytes,
                          k->local_bytes, k->param_bytes, k->nparams,
                          k->max_threads | k->min_blocks << 16};
        for (int j = 0; j < 10; j++)
            buf_u32(b, f[j]);
    }
    for (uint32_t i = 0; i < g->nkernels; i++)
        for (uint32_t j = 0; j < g->kernels[i].nparams; j++) {
            const XParam *p = &g->kernels[i].params[j];
            buf_u32(b, p->offset);
            buf_u32(b, p->size);
            buf_u32(b, p->align);
        }
    sec_end(b, &pool);
}

static void enc_text(Buf *b, const XGpubin *g)
{
    sec_begin(b, GB_VER_TEXT, g->ntext);
    for (uint32_t i = 0; i < g->ntext; i++) {
        uint8_t *p = buf_grow(b, GB_INSN_SIZE);
        if (p)
            gb_encode_insn(p, &g->text[i]);
    }
    sec_end(b, NULL);
}

static void enc_globals(Buf *b, const XGpubin *g)
{
    Buf pool = {0};
    sec_begin(b, GB_VER_GLOBALS, g->nglobals);
    for (uint32_t i = 0; i < g->nglobals; i++) {
        const XGlobal *v = &g->globals[i];
        uint8_t *p = buf_grow(b, GB_GLOBAL_SIZE);
        int init = v->init != NULL;
        if (init && v->size > UINT32_MAX)
            pool.bad = 1;
        uint32_t name = pool_str(&pool, v->name);
        uint32_t data = init ? pool_add(&pool, v->init, (size_t)v->size) : 0;
        if (!p)
            continue;
        gb_put32(p, name);
        gb_put32(p + 4, v->space);
        gb_put32(p + 8, v->align);
        gb_put32(p + 12, (init ? GB_GLOBAL_HAS_INIT : 0) | (v->managed ? GB_GLOBAL_MANAGED : 0));
        gb_put64(p + 16, v->size);
        gb_put64(p + 24, data);
    }
    sec_end(b, &pool);
}

static void enc_lines(Buf *b, const XGpubin *g)
{
    Buf pool = {0};
    sec_begin(b, GB_VER_LINES, g->nlines);
    buf_u32(b, g->nfiles);
    buf_u32(b, 0);
    for (uint32_t i = 0; i < g->nfiles; i++)
        buf_u32(b, pool_str(&pool, g->files[i]));
    for (uint32_t i = 0; i < g->nlines; i++) {
        buf_u32(b, g->lines[i].pc);
        buf_u32(b, g->lines[i].file);
        buf_u32(b, g->lines[i].line);
    }
    sec_end(b, &pool);
}

static void enc_reuse(Buf *b, const XGpubin *g)
{
    sec_begin(b, GB_VER_REUSE, g->ntext);
    buf_u32(b, g->reuse_rthld);
    buf_u32(b, g->reuse_source);
    uint8_t *p = g->ntext ? buf_grow(b, g->ntext) : NULL;
    if (p)
        memcpy(p, g->reuse, g->ntext);
    sec_end(b, NULL);
}

static void enc_phases(Buf *b, const XGpubin *g)
{
    sec_begin(b, GB_VER_PHASES, g->nphases);
    buf_u32(b, g->phase_delta);
    buf_u32(b, g->phase_gap);
    for (uint32_t i = 0; i < g->nphases; i++) {
        const XPhase *r = &g->phases[i];
        uint32_t f[5] = {r->kernel, r->pc, r->regs, r->shared, r->flags};
        for (int j = 0; j < 5; j++)
            buf_u32(b, f[j]);
    }
    sec_end(b, NULL);
}

/* Records, then each routine's code in record order, then the names. */
static void enc_assist(Buf *b, const XGpubin *g)
{
    Buf pool = {0};
    sec_begin(b, GB_VER_ASSIST, g->nassist);
    for (uint32_t i = 0; i < g->nassist; i++) {
        const XAssist *r = &g->assist[i];
        uint32_t f[6] = {pool_str(&pool, r->name), r->algo, r->dir, r->nregs, r->param_bytes,
                         r->ntext};
        for (int j = 0; j < 6; j++)
            buf_u32(b, f[j]);
    }
    for (uint32_t i = 0; i < g->nassist; i++)
        for (uint32_t pc = 0; pc < g->assist[i].ntext; pc++) {
            uint8_t *p = buf_grow(b, GB_INSN_SIZE);
            if (p)
                gb_encode_insn(p, &g->assist[i].text[pc]);
        }
    sec_end(b, &pool);
}

/* ---- ELF --------------------------------------------------------------------------- */

static const char shstrtab[] = "\0" GB_SEC_INFO "\0" GB_SEC_KERNELS "\0" GB_SEC_TEXT
                               "\0" GB_SEC_GLOBALS "\0" GB_SEC_LINES "\0" GB_SEC_REUSE
                               "\0" GB_SEC_PHASES "\0" GB_SEC_ASSIST "\0.shstrtab";

static size_t shstr_off(const char *name)
{
    for (size_t i = 1; i < sizeof shstrtab; i += strlen(shstrtab + i) + 1)
        if (strcmp(shstrtab + i, name) == 0)
            return i;
    return 0;
}

static int add_section(Elf *e, const char *name, Elf64_Word type, void *data, size_t len)
{
    Elf_Scn *scn = elf_newscn(e);
    Elf_Data *d = scn ? elf_newdata(scn) : NULL;
    GElf_Shdr sh;
    if (!d || !gelf_getshdr(scn, &sh))
        return -1;
    d->d_buf = data;
    d->d_size = len;
    d->d_type = ELF_T_BYTE;
    d->d_align = 8;
    d->d_version = EV_CURRENT;
    sh.sh_name = shstr_off(name);
    sh.sh_type = type;
    sh.sh_addralign = type == SHT_STRTAB ? 1 : 8;
    if (!gelf_update_shdr(scn, &sh))
        return -1;
    return (int)elf_ndxscn(scn);
}

/* Writes the nsecs sections of secs, named by names (the optional ones last). */
static int write_elf(int fd, Buf *secs, const char *const *names, int nsecs, char *err,
                     size_t errlen)
{
    if (elf_version(EV_CURRENT) == EV_NONE)
        return gb_fail(err, errlen, "libelf: %s", elf_errmsg(-1));
    Elf *e = elf_begin(fd, ELF_C_WRITE, NULL);
    GElf_Ehdr eh;
    int rc = -1;
    if (e && gelf_newehdr(e, ELFCLASS64) && gelf_getehdr(e, &eh)) {
        eh.e_ident[EI_DATA] = ELFDATA2LSB;
        eh.e_type = ET_REL;
        eh.e_machine = EM_NONE;
        eh.e_version = EV_CURRENT;
        int ok = gelf_update_ehdr(e, &eh) != 0;
        for (int i = 0; ok && i < nsecs; i++)
            ok = add_section(e, names[i], SHT_PROGBITS, secs[i].p, secs[i].len) > 0;
        int strndx = ok ? add_section(e, ".shstrtab", SHT_STRTAB, (void *)shstrtab,
                                      sizeof shstrtab) : -1;
        eh.e_shstrndx = strndx > 0 ? (Elf64_Half)strndx : 0;
        if (strndx > 0 && gelf_update_ehdr(e, &eh) && elf_update(e, ELF_C_WRITE) >= 0)
            rc = 0;
    }
    if (rc)
        gb_fail(err, errlen, "libelf: %s", elf_errmsg(-1));
    if (e)
        elf_end(e);
    return rc;
}

/* Reads a whole descriptor from its start into a malloc'd buffer. */
static int slurp(int fd, void **buf, size_t *len)
{
    off_t end = lseek(fd, 0, SEEK_END);
    if (end <= 0 || lseek(fd, 0, SEEK_SET) != 0)
        return -1;
    uint8_t *p = malloc((size_t)end);
    size_t got = 0;
    while (p && got < (size_t)end) {
        ssize_t k = read(fd, p + got, (size_t)end - got);
        if (k <= 0)
            break;
        got += (size_t)k;
    }
    if (!p || got != (size_t)end) {
        free(p);
        return -1;
    }
    *buf = p;
    *len = got;
    return 0;
}

/* Stores the image's checksum in its INFO record (found through the ELF section table,
 * wherever libelf placed the section). */
static int seal(uint8_t *img, size_t len, char *err, size_t errlen)
{
    Elf *e = elf_memory((char *)img, len);
    size_t shstrndx, at = 0;
    int found = 0;
    if (e && elf_getshdrstrndx(e, &shstrndx) == 0)
        for (Elf_Scn *scn = elf_nextscn(e, NULL); scn && !found; scn = elf_nextscn(e, scn)) {
            GElf_Shdr sh;
            const char *name = gelf_getshdr(scn, &sh) ? elf_strptr(e, shstrndx, sh.sh_name) : NULL;
            if (name && !strcmp(name, GB_SEC_INFO) && sh.sh_offset + GB_INFO_CHECKSUM_AT + 4 <= len)
                at = (size_t)sh.sh_offset + GB_INFO_CHECKSUM_AT, found = 1;
        }
    if (e)
        elf_end(e);
    if (!found)
        return gb_fail(err, errlen, "libelf: cannot find " GB_SEC_INFO " in the written image");
    gb_put32(img + at, gb_image_crc(img, len, at));
    return 0;
}

int xgpubin_write_mem(const XGpubin *g, void **buf, size_t *len, char *err, size_t errlen)
{
    *buf = NULL;
    *len = 0;
    if (gb_check(g, err, errlen))
        return -1;
    Buf secs[8] = {{0}};
    const char *names[8] = {GB_SEC_INFO, GB_SEC_KERNELS, GB_SEC_TEXT, GB_SEC_GLOBALS,
                            GB_SEC_LINES};
    int nsecs = 5;
    enc_info(&secs[0], g);
    enc_kernels(&secs[1], g);
    enc_text(&secs[2], g);
    enc_globals(&secs[3], g);
    enc_lines(&secs[4], g);
    if (g->reuse)
        names[nsecs] = GB_SEC_REUSE, enc_reuse(&secs[nsecs++], g);
    if (g->phase_delta)
        names[nsecs] = GB_SEC_PHASES, enc_phases(&secs[nsecs++], g);
    if (g->nassist)
        names[nsecs] = GB_SEC_ASSIST, enc_assist(&secs[nsecs++], g);
    int rc = 0;
    for (int i = 0; i < nsecs; i++)
        if (secs[i].bad)
            rc = gb_fail(err, errlen, "module too large or out of memory");
    FILE *tmp = rc ? NULL : tmpfile();
    if (!rc && !tmp)
        rc = gb_fail(err, errlen, "cannot create a temporary file");
    if (!rc)
        rc = write_elf(fileno(tmp), secs, names, nsecs, err, errlen);
    if (!rc && slurp(fileno(tmp), buf, len))
        rc = gb_fail(err, errlen, "cannot read back the ELF image");
    if (!rc && (rc = seal(*buf, *len, err, errlen))) {
        free(*buf);
        *buf = NULL, *len = 0;
    }
    if (tmp)
        fclose(tmp);
    for (int i = 0; i < nsecs; i++)
        free(secs[i].p);
    return rc;
}

static int write_parts(const char *path, const void *head, size_t hlen, const void *body,
                       size_t blen, char *err, size_t errlen)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return gb_fail(err, errlen, "%s: cannot open for writing", path);
    int ok = fwrite(head, 1, hlen, f) == hlen && fwrite(body, 1, blen, f) == blen;
    ok &= fclose(f) == 0;
    return ok ? 0 : gb_fail(err, errlen, "%s: write failed", path);
}

int xgpubin_write_file(const XGpubin *g, const char *path, char *err, size_t errlen)
{
    void *img;
    size_t len;
    if (xgpubin_write_mem(g, &img, &len, err, errlen))
        return -1;
    int rc = write_parts(path, "", 0, img, len, err, errlen);
    free(img);
    return rc;
}

int xgpubin_write_fat(const XGpubin *g, const char *path, char *err, size_t errlen)
{
    void *img;
    size_t len;
    if (xgpubin_write_mem(g, &img, &len, err, errlen))
        return -1;
    uint8_t head[24];
    gb_put64(head, XFAT_MAGIC);
    gb_put32(head + 8, XFAT_VERSION);
    gb_put32(head + 12, 0);
    gb_put64(head + 16, len);
    static const uint8_t zeros[8];
    size_t pad = (8 - (sizeof head + len) % 8) % 8;
    uint8_t *padded = malloc(len + pad);
    int rc = -1;
    if (!padded) {
        gb_fail(err, errlen, "out of memory");
    } else {
        memcpy(padded, img, len);
        memcpy(padded + len, zeros, pad);
        rc = write_parts(path, head, sizeof head, padded, len + pad, err, errlen);
    }
    free(padded);
    free(img);
    return rc;
}
