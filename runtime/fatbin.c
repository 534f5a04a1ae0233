/*
 * fatbin.c - bounds for an embedded device binary before anything reads it.
 *
 * clang's wrapper gives the runtime only a pointer: to an XFatHeader whose size field
 * says how many bytes of gpubin ELF follow. A corrupt size must not be trusted, so the
 * image is bounded twice before the gpubin reader sees it:
 *
 *   1. by the memory it lives in: the loaded segment (PT_LOAD) of the executable or
 *      shared library that holds the container (dl_iterate_phdr); the header's size
 *      must fit in what is left of that segment. A container built at run time (in no
 *      loaded object) has no such bound.
 *   2. by the ELF structure itself: the ELF header, the section and program header
 *      tables and every section's bytes give the image's extent. Each table is read
 *      only once its claimed end lies inside both the header's size and the segment.
 *      The header's size must equal that extent.
 *
 * A container that fails either check is reported once on stderr, naming the object
 * and the container's file offset, and its kernels and symbols give
 * cudaErrorInvalidKernelImage. Nothing here allocates or trusts a size it has not
 * checked.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <link.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "rt.h"

/* Where a container lies: the loaded object and segment holding it, if any. */
typedef struct RtWhere {
    const uint8_t *p;
    const char *object; /* path, "" for the main program; NULL: in no loaded object */
    size_t avail;       /* bytes from p to the end of its segment, SIZE_MAX if unknown */
    size_t file_off;    /* p's offset in the object's file */
} RtWhere;

static int rt_find_segment(struct dl_phdr_info *info, size_t size, void *arg)
{
    RtWhere *w = arg;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr, p = (uintptr_t)w->p;
        if (ph->p_type != PT_LOAD || p < lo || p - lo >= ph->p_memsz)
            continue;
        w->object = info->dlpi_name ? info->dlpi_name : "";
        w->avail = (size_t)(ph->p_memsz - (p - lo));
        w->file_off = (size_t)(ph->p_offset + (p - lo));
        return 1;
    }
    return 0;
}

static uint64_t rt_max64(uint64_t a, uint64_t b)
{
    return a > b ? a : b;
}

/* The end of a table of n entries of entsize bytes at off, checked against limit;
 * what (e.g. "section header table") names it in the message. */
static int rt_table_end(uint64_t off, uint64_t n, uint64_t entsize, uint64_t limit,
                        const char *what, uint64_t *end, char *why, size_t len)
{
    if (n && entsize > (UINT64_MAX - off) / n) {
        snprintf(why, len, "%s size overflows", what);
        return -1;
    }
    *end = off + n * entsize;
    if (*end > limit) {
        snprintf(why, len, "%s ends at byte %llu, past the %llu bytes available", what,
                 (unsigned long long)*end, (unsigned long long)limit);
        return -1;
    }
    return 0;
}

/* The extent of the ELF image at elf, reading no byte at or past limit. */
static int rt_elf_extent(const uint8_t *elf, uint64_t limit, uint64_t *extent, char *why,
                         size_t len)
{
    Elf64_Ehdr eh;
    if (limit < sizeof eh) {
        snprintf(why, len, "%llu bytes cannot hold an ELF header", (unsigned long long)limit);
        return -1;
    }
    memcpy(&eh, elf, sizeof eh);
    if (memcmp(eh.e_ident, ELFMAG, SELFMAG) || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
        eh.e_ident[EI_DATA] != ELFDATA2LSB || eh.e_ehsize != sizeof eh) {
        snprintf(why, len, "the image is not a 64-bit little-endian ELF file");
        return -1;
    }
    if ((eh.e_shnum && eh.e_shentsize != sizeof(Elf64_Shdr)) ||
        (eh.e_phnum && eh.e_phentsize != sizeof(Elf64_Phdr)) || (!eh.e_shnum && eh.e_shoff)) {
        snprintf(why, len, "bad ELF header (table entry sizes or section count)");
        return -1;
    }
    uint64_t shend, phend;
    if (rt_table_end(eh.e_shoff, eh.e_shnum, sizeof(Elf64_Shdr), limit, "section header table",
                     &shend, why, len) ||
        rt_table_end(eh.e_phoff, eh.e_phnum, sizeof(Elf64_Phdr), limit, "program header table",
                     &phend, why, len))
        return -1;
    *extent = rt_max64(sizeof eh, rt_max64(shend, phend));
    for (unsigned i = 0; i < eh.e_shnum; i++) {
        Elf64_Shdr sh;
        memcpy(&sh, elf + eh.e_shoff + (uint64_t)i * sizeof sh, sizeof sh);
        if (sh.sh_type == SHT_NULL || sh.sh_type == SHT_NOBITS)
            continue;
        char what[32];
        snprintf(what, sizeof what, "section %u", i);
        uint64_t end;
        if (rt_table_end(sh.sh_offset, 1, sh.sh_size, limit, what, &end, why, len))
            return -1;
        *extent = rt_max64(*extent, end);
    }
    return 0;
}

static void rt_corrupt(const RtWhere *w, const char *why)
{
    const char *obj = w->object && w->object[0] ? w->object : program_invocation_name;
    if (w->object)
        fprintf(stderr, "xgpu: %s: corrupt device binary: %s (container at file offset 0x%zx)\n",
                obj, why, w->file_off);
    else
        fprintf(stderr, "xgpu: %s: corrupt device binary: %s (container built in memory)\n",
                obj, why);
}

/* The gpubin image of the container at data: 0, or -1 after one line on stderr. */
int rt_fatbin_image(const void *data, const void **elf, size_t *len)
{
    RtWhere w = {.p = data, .avail = SIZE_MAX};
    char err[256] = "", why[320];
    if (!data) {
        rt_corrupt(&w, "no data");
        return -1;
    }
    dl_iterate_phdr(rt_find_segment, &w);
    size_t claimed, next;
    if (xfat_parse(data, w.avail, elf, &claimed, &next, err, sizeof err)) {
        rt_corrupt(&w, err[0] ? err : "bad fat container");
        return -1;
    }
    uint64_t extent = 0;
    if (rt_elf_extent(*elf, claimed, &extent, err, sizeof err)) {
        snprintf(why, sizeof why, "%s (the header gives %zu bytes)", err, claimed);
        rt_corrupt(&w, why);
        return -1;
    }
    if (extent != claimed) {
        snprintf(why, sizeof why, "the header gives %zu bytes, the ELF image has %llu", claimed,
                 (unsigned long long)extent);
        rt_corrupt(&w, why);
        return -1;
    }
    *len = claimed;
    return 0;
}
