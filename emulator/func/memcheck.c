/*
 * memcheck.c - what happens to a memory access that fails a check of exec_mem.c: its
 * description, and the fault or warning emu.memcheck asks for.
 *
 * The description names the space the address resolved to (a generic address is
 * classified by window, as mem_at does; a generic address up to one window below the
 * local or shared window counts as below that window: a negative index off a local or
 * shared array) and says why: misaligned (naming the alignment when the access is the
 * first part of a vector access, which needs the vector's); outside the CTA's shared
 * bytes; below or above the thread's local frame; outside the parameter buffer; a store
 * to param or const space; an atomic on local memory; global addresses as memory.c
 * explains them. The space, the access and its size also go to
 * EmuFault.space/access/size.
 *
 * emu.memcheck = warn (the default): the access does not stop the program, as on a GPU,
 * which serves a read just outside an allocation from whatever memory is mapped there:
 * the lane reads zeros and its writes are dropped (x->scratch). The first such access
 * of a launch is reported on stderr when the launch ends, as compute-sanitizer would
 * report it but marked "Warning:", with the number of the others and how to make them
 * an error. on: the access is a fault that ends the launch (EMU_ERR_MISALIGNED or
 * EMU_ERR_ILLEGAL_ADDRESS). off: as warn, without the report. A misaligned access is a
 * fault in every mode (GPUs fault on those, sanitizer or not), and so is a global access
 * farther than 2 MiB from every live allocation of the device (emu_mem_mapped: no page a
 * GPU would have mapped there; another device's memory without peer access), and a load that
 * reads the descriptor of a texture or surface object that is not one (below). Nothing
 * here touches memory outside the emulator's own buffers.
 *
 * A texture or surface object is the device address of its descriptor (XgpuTexDesc,
 * texture_types.h), which the fetch functions read with ordinary loads. A load that
 * fails its check within a descriptor's bytes of a kernel argument whose source type is
 * cudaTextureObject_t or cudaSurfaceObject_t (the kernel's recorded signature) is named
 * for what it is: an invalid texture object, destroyed or never created, rather than a
 * misaligned load or a read of a freed allocation the program never made.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "device.h"

/* Indexed by the `store` argument of mem_at: 0 load, 1 store, 2 atomic. */
static const char *const access_names[3] = {"load", "store", "atomic"};

static const uint8_t space_of[XS_COUNT] = {
    [XS_GENERIC] = EMU_SPACE_GLOBAL, [XS_GLOBAL] = EMU_SPACE_GLOBAL,
    [XS_SHARED] = EMU_SPACE_SHARED,  [XS_LOCAL] = EMU_SPACE_LOCAL,
    [XS_CONST] = EMU_SPACE_CONST,    [XS_PARAM] = EMU_SPACE_PARAM,
    [XS_TEX] = EMU_SPACE_GLOBAL,
};

/* A window, and where an address falls relative to it. */
typedef struct Where {
    unsigned space;  /* XSpace resolved (never XS_GENERIC) */
    uint64_t off;    /* offset in the window (shared, local, param) */
    int below;       /* the address lies below the window: off is the distance */
    char at[64];     /* "0x..." or "shared offset 0x..." or "0x... (shared offset 0x...)" */
} Where;

static const char *window_name(unsigned space)
{
    return space == XS_SHARED ? "shared" : space == XS_LOCAL ? "local" : "param";
}

/* Classifies address a of space `space` the way mem_at does, plus "just below". */
static void where_of(unsigned space, uint64_t a, Where *wh)
{
    static const struct { unsigned space; uint64_t base; } windows[] = {
        {XS_SHARED, XGPU_SHARED_BASE}, {XS_LOCAL, XGPU_LOCAL_BASE}, {XS_PARAM, XGPU_PARAM_BASE}};
    memset(wh, 0, sizeof *wh);
    wh->space = space == XS_GENERIC || space == XS_TEX ? XS_GLOBAL : space; /* texels are global */
    wh->off = a;
    if (space == XS_GENERIC)
        for (size_t i = 0; i < sizeof windows / sizeof windows[0]; i++) {
            if (a - windows[i].base < XGPU_WINDOW_SIZE) {
                wh->space = windows[i].space, wh->off = a - windows[i].base;
                break;
            }
            if (windows[i].space != XS_PARAM && windows[i].base - a <= XGPU_WINDOW_SIZE) {
                wh->space = windows[i].space, wh->off = windows[i].base - a, wh->below = 1;
                break;
            }
        }
    else if ((space == XS_SHARED || space == XS_LOCAL) && (int64_t)a < 0)
        wh->off = -a, wh->below = 1; /* a negative offset */
    unsigned long long ua = a, uo = wh->off;
    if (wh->space == XS_GLOBAL || wh->space == XS_CONST)
        snprintf(wh->at, sizeof wh->at, "0x%llx", ua);
    else if (space != XS_GENERIC)
        snprintf(wh->at, sizeof wh->at, "%s offset %s0x%llx", window_name(wh->space),
                 wh->below ? "-" : "", uo);
    else if (!wh->below)
        snprintf(wh->at, sizeof wh->at, "0x%llx (%s offset 0x%llx)", ua,
                 window_name(wh->space), uo);
    else
        snprintf(wh->at, sizeof wh->at, "0x%llx", ua);
}

/* Why an in-window access at wh fails its bounds or permission check. */
static void why_window(const EmuExec *x, const Where *wh, unsigned size, int store,
                       char *out, size_t n)
{
    unsigned long long off = wh->off;
    if (wh->space == XS_LOCAL) {
        unsigned long long frame = x->local_size;
        if (store == 2)
            snprintf(out, n, "an atomic on local memory");
        else if (!frame)
            snprintf(out, n, "the kernel has no local memory");
        else if (wh->below)
            snprintf(out, n, "%llu bytes below the thread's %llu-byte local frame", off, frame);
        else
            snprintf(out, n, "%s the end of the thread's %llu-byte local frame",
                     off < frame ? "running past" : "above", frame);
    } else if (wh->space == XS_SHARED) {
        unsigned long long win = x->shared_size;
        if (wh->below)
            snprintf(out, n, "%llu bytes below the %llu-byte shared window", off, win);
        else
            snprintf(out, n, "outside the %llu-byte shared window", win);
    } else if (store) {
        snprintf(out, n, "in read-only param space");
    } else {
        snprintf(out, n, "outside the %llu-byte param window",
                 (unsigned long long)x->param_size);
    }
    (void)size;
}

/* --- texture and surface objects --------------------------------------------------- */

#define TEXDESC_BYTES 96u /* sizeof(XgpuTexDesc): the bytes a fetch reads at a handle */

typedef struct TexArg {
    uint32_t index;     /* the kernel argument */
    int surface;        /* cudaSurfaceObject_t, else cudaTextureObject_t */
    uint64_t handle;    /* its value */
    char name[48];      /* its name in the signature, or "" */
} TexArg;

static int ident_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '_';
}

/* Parameter i of signature sig ("void k(cudaTextureObject_t t, float *o)"): its text at
 * *at, *len bytes. The list is the parenthesised group that ends the signature; its
 * parameters are split at commas outside (), <>, [] and {}. Returns 0 when it has no
 * parameter i. */
static int sig_param(const char *sig, uint32_t i, const char **at, size_t *len)
{
    const char *end = strrchr(sig, ')'), *p = end;
    int depth = 0;
    for (; p && p >= sig; p--) { /* back to the '(' that opens the list */
        depth += *p == ')' ? 1 : *p == '(' ? -1 : 0;
        if (!depth)
            break;
    }
    if (!p || p < sig)
        return 0;
    const char *start = ++p;
    uint32_t n = 0;
    for (depth = 0; p <= end; p++) {
        if (p == end || (*p == ',' && !depth)) {
            if (n++ == i) {
                *at = start, *len = (size_t)(p - start);
                return 1;
            }
            start = p + 1;
        }
        depth += strchr("(<[{", *p) ? 1 : strchr(")>]}", *p) ? -1 : 0;
    }
    return 0;
}

/* Whether the n bytes at s hold identifier word, whole. */
static int has_word(const char *s, size_t n, const char *word)
{
    size_t w = strlen(word);
    for (size_t k = 0; k + w <= n; k++)
        if (!memcmp(s + k, word, w) && (k == 0 || !ident_char(s[k - 1])) &&
            (k + w == n || !ident_char(s[k + w])))
            return 1;
    return 0;
}

/* Whether address a lies within a descriptor's bytes of a texture or surface object
 * argument of the kernel (*t: which). */
static int tex_arg(const EmuExec *x, uint64_t a, TexArg *t)
{
    const XKernel *k = x->kern;
    if (!k || !x->param || !k->signature || !k->signature[0])
        return 0;
    for (uint32_t i = 0; i < k->nparams; i++) {
        const XParam *p = &k->params[i];
        uint64_t v;
        if (p->size != 8 || (uint64_t)p->offset + 8 > x->param_size)
            continue;
        memcpy(&v, x->param + p->offset, 8);
        const char *at;
        size_t len;
        if (a - v >= TEXDESC_BYTES || !sig_param(k->signature, i, &at, &len))
            continue;
        int tex = has_word(at, len, "cudaTextureObject_t");
        if (!tex && !has_word(at, len, "cudaSurfaceObject_t"))
            continue;
        size_t e = len, b;
        while (e && !ident_char(at[e - 1]))
            e--;
        for (b = e; b && ident_char(at[b - 1]); b--)
            ;
        *t = (TexArg){.index = i, .surface = !tex, .handle = v};
        if (e > b && !has_word(at + b, e - b, tex ? "cudaTextureObject_t" : "cudaSurfaceObject_t"))
            snprintf(t->name, sizeof t->name, " %.*s", (int)(e - b), at + b);
        return 1;
    }
    return 0;
}

/* The fault of a load through texture or surface object argument t. */
static void tex_fault(EmuExec *x, const TexArg *t, uint64_t a, unsigned lane)
{
    const char *what = t->surface ? "surface" : "texture";
    emu_exec_fault(x, EMU_ERR_ILLEGAL_ADDRESS, lane, a, "invalid %s object 0x%llx (kernel "
                   "argument %u, cuda%sObject_t%s): %s", what, (unsigned long long)t->handle,
                   t->index, t->surface ? "Surface" : "Texture", t->name,
                   emu_mem_freed(x->mem, t->handle) ? "it was destroyed"
                   : t->surface ? "no surface object has this handle"
                                : "no texture object has this handle");
}

/* --- describing an access --------------------------------------------------------------- */

/* Describes the failed access into x's fault fields; returns its status, and in *fatal
 * whether it faults whatever emu.memcheck says (misaligned; an invalid texture object).
 * align: the alignment the access needs, size or more (the first part of a vector access
 * needs the vector's), or 0 for none (printf's reads). */
static EmuStatus describe(EmuExec *x, unsigned space, uint64_t a, unsigned size, int store,
                          unsigned lane, unsigned align, int *fatal)
{
    Where wh;
    TexArg t;
    char why[160];
    EmuStatus s = EMU_ERR_ILLEGAL_ADDRESS;
    where_of(space, a, &wh);
    const char *sp = wh.space == XS_SHARED || wh.space == XS_LOCAL || wh.space == XS_PARAM
                         ? window_name(wh.space) : "";
    *fatal = 0;
    if (!store && space != XS_TEX && wh.space == XS_GLOBAL && !wh.below && tex_arg(x, a, &t)) {
        tex_fault(x, &t, a, lane);
        *fatal = 1;
    } else if (align && (a & (align - 1))) {
        *fatal = 1;
        s = EMU_ERR_MISALIGNED;
        char vec[96] = "";
        if (align > size)
            snprintf(vec, sizeof vec, ", part of a vector access that must be %u-byte aligned",
                     align);
        emu_exec_fault(x, s, lane, a, "misaligned %s of %u bytes at %s%s%s%s%s",
                       access_names[store], size, wh.at, wh.below ? " (below the " : "",
                       wh.below ? sp : "", wh.below ? " window)" : "", vec);
    } else if (wh.space == XS_CONST || (wh.space == XS_GLOBAL && !wh.below)) {
        /* far from every allocation of the device (another device's memory without peer
         * access, a wild pointer): no page a GPU would have mapped, a fault in every mode */
        *fatal = wh.space == XS_GLOBAL && !emu_mem_mapped(x->mem, a, size);
        if (wh.space == XS_CONST && store)
            snprintf(why, sizeof why, "in read-only const space");
        else
            emu_mem_explain(x->mem, a, size, why, sizeof why);
        emu_exec_fault(x, s, lane, a, "%s of %u bytes at 0x%llx %s", access_names[store], size,
                       (unsigned long long)a, why);
    } else {
        why_window(x, &wh, size, store, why, sizeof why);
        emu_exec_fault(x, s, lane, a, "%s %s of %u bytes at %s, %s", sp, access_names[store],
                       size, wh.at, why);
    }
    x->fspace = space_of[wh.space];
    x->faccess = store == 0 ? EMU_ACCESS_READ : store == 1 ? EMU_ACCESS_WRITE : EMU_ACCESS_ATOMIC;
    x->fsize = size;
    return s;
}

/* Keeps the first invalid access this context lets through (emu.memcheck = warn), and
 * the cycle, for the report at the end of the launch. */
static void note_first(EmuExec *x, const EmuWarp *w, const EmuInsn *in, int store)
{
    EmuFault *f = &x->bad_first;
    memset(f, 0, sizeof *f);
    emu_fill_fault_at(f, x, x->mod, x->kern, w, (uint32_t)(in - x->code));
    size_t len = strlen(f->message);
    snprintf(f->message + len, sizeof f->message - len, " (emu.memcheck = warn: %s)",
             store == 0 ? "the load reads 0" : store == 1 ? "the store is dropped"
                        : "the atomic reads 0 and its store is dropped");
    x->bad_cycle = x->now ? *x->now : 0;
}

uint8_t *emu_mem_bad(EmuExec *x, const EmuWarp *w, const EmuInsn *in, unsigned space,
                     uint64_t a, unsigned size, int store, unsigned lane)
{
    int fatal;
    /* as exec_mem.c's access_align: ld/st's sub, when set, is a larger alignment */
    unsigned align = in->sub && (in->op == XOP_ld || in->op == XOP_st) ? 1u << in->sub : size;
    describe(x, space, a, size, store, lane, align, &fatal);
    if (x->memcheck == EMU_MEMCHECK_ON || fatal || size > sizeof x->scratch)
        return NULL;
    if (x->memcheck == EMU_MEMCHECK_WARN && x->bad_accesses == 0)
        note_first(x, w, in, store);
    x->bad_accesses++;
    x->fstatus = EMU_OK;
    memset(x->scratch, 0, sizeof x->scratch);
    return x->scratch;
}

int emu_mem_fault(EmuExec *x, const EmuWarp *w, uint64_t a, unsigned size, unsigned lane,
                  const char *what)
{
    (void)w;
    int fatal;
    describe(x, XS_GENERIC, a, size, 0, lane, 0, &fatal);
    char why[sizeof x->fmsg];
    memcpy(why, x->fmsg, sizeof why);
    int len = snprintf(x->fmsg, sizeof x->fmsg, "%s: ", what);
    if (len > 0 && (size_t)len < sizeof x->fmsg) { /* the rest of why that fits */
        size_t room = sizeof x->fmsg - (size_t)len - 1, k = strnlen(why, room);
        memcpy(x->fmsg + len, why, k);
        x->fmsg[(size_t)len + k] = '\0';
    }
    return EXEC_FAULT;
}

void emu_memcheck_take(EmuExec *x, const EmuExec *y)
{
    if (y->bad_first.kernel[0] && (!x->bad_first.kernel[0] || y->bad_cycle < x->bad_cycle)) {
        x->bad_first = y->bad_first;
        x->bad_cycle = y->bad_cycle;
    }
}

void emu_memcheck_end(const EmuExec *x)
{
    if (x->memcheck != EMU_MEMCHECK_WARN || !x->bad_accesses || !x->bad_first.kernel[0])
        return;
    emu_fault_print(stderr, &x->bad_first, "Warning: ");
    if (x->bad_accesses > 1)
        fprintf(stderr, "========= Warning: %" PRIu64 " more invalid accesses in kernel %s "
                "(emu.memcheck = warn: reads returned 0, writes were dropped)\n",
                x->bad_accesses - 1, x->bad_first.kernel);
    fprintf(stderr, "=========     The launch went on; emu.memcheck = on makes an invalid access "
            "an error that ends it (XGPU_SET=emu.memcheck=on, or xgpu-run --set "
            "emu.memcheck=on)\n");
}

/* --- reports (emu.h) ------------------------------------------------------------------ */

const char *emu_fault_title(const EmuFault *f, char *buf, size_t n)
{
    static const char *const spaces[] = {"", "__global__", "__shared__", "__local__",
                                         "__param__", "__global__"};
    static const char *const accesses[] = {"access", "read", "write", "atomic"};
    if (!f || !buf || !n)
        return buf;
    switch (f->status) {
    case EMU_ERR_ILLEGAL_ADDRESS:
    case EMU_ERR_MISALIGNED:
        if (f->space > EMU_SPACE_NONE && f->space <= EMU_SPACE_CONST && f->access <= 3)
            snprintf(buf, n, "Invalid %s %s of size %u bytes", spaces[f->space],
                     accesses[f->access], f->size);
        else
            snprintf(buf, n, "Invalid address access");
        break;
    case EMU_ERR_LAUNCH_TIMEOUT:
        snprintf(buf, n, "Kernel timed out (instruction budget exhausted)");
        break;
    case EMU_ERR_DEADLOCK: snprintf(buf, n, "Barrier deadlock"); break;
    default: snprintf(buf, n, "Launch failure"); break;
    }
    return buf;
}

void emu_fault_print(FILE *out, const EmuFault *f, const char *prefix)
{
    char title[160];
    if (!out || !f)
        return;
    emu_fault_title(f, title, sizeof title);
    fprintf(out, "========= %s%s\n", prefix ? prefix : "", title);
    if (f->file && f->line)
        fprintf(out, "=========     at %s+pc %" PRIu32 " (%s:%" PRIu32 ")\n", f->kernel, f->pc,
                f->file, f->line);
    else
        fprintf(out, "=========     at %s+pc %" PRIu32 "\n", f->kernel, f->pc);
    fprintf(out, "=========     by thread (%u,%u,%u) in block (%u,%u,%u)\n", f->thread.x,
            f->thread.y, f->thread.z, f->block.x, f->block.y, f->block.z);
    if (f->space != EMU_SPACE_NONE)
        fprintf(out, "=========     Address 0x%" PRIx64 ": %s\n", f->address, f->message);
    else if (f->message[0])
        fprintf(out, "=========     %s\n", f->message);
}
