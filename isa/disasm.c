/*
 * disasm.c - prints a whole module in the assembler's text form (xgpubin_disassemble).
 *
 * The output reassembles to the same module for every module whose kernels tile the
 * text in table order (what the compiler and the assembler produce): module strings,
 * files and globals first (so gaddr names resolve), then each kernel's directives,
 * labels L<pc> at every branch target and reconvergence point (one past the last
 * instruction included), and `.loc` lines before the instruction each record starts at;
 * phase specifiers as `.phase` lines (after the `.loc` lines) before their instruction,
 * with `.phases DELTA GAP` among the module directives. The CABA assist routines
 * (.xgpu.assist) are not printed: the assembler has no form for them, and their text is
 * their source files (emulator/mech/caba/assist/).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "gpubin_int.h"
#include "asm_lex.h"

static void print_global(FILE *f, const XGlobal *v)
{
    fprintf(f, ".global %s %" PRIu64 " %u%s%s", v->name, v->size, v->align,
            v->space == XG_CONST ? " const" : "", v->managed ? " managed" : "");
    if (v->init) {
        fprintf(f, " =");
        for (uint64_t i = 0; i < v->size; i++)
            fprintf(f, " %u", v->init[i]);
    }
    fputc('\n', f);
}

static void print_header(FILE *f, const XKernel *k)
{
    fprintf(f, "\n.kernel %s\n", k->name);
    if (k->signature && k->signature[0]) {
        fprintf(f, ".signature ");
        lex_quote(f, k->signature);
        fputc('\n', f);
    }
    fprintf(f, ".regs %u\n", k->nregs);
    if (k->shared_bytes)
        fprintf(f, ".shared %u\n", k->shared_bytes);
    if (k->local_bytes)
        fprintf(f, ".local %u\n", k->local_bytes);
    if (k->max_threads)
        fprintf(f, k->min_blocks ? ".launch_bounds %u %u\n" : ".launch_bounds %u\n",
                k->max_threads, k->min_blocks);
    uint64_t end = 0;
    for (uint32_t j = 0; j < k->nparams; j++) {
        const XParam *p = &k->params[j];
        uint64_t natural = (end + p->align - 1) / p->align * p->align;
        fprintf(f, ".param %u %u", p->size, p->align);
        if (p->offset != natural)
            fprintf(f, " %u", p->offset);
        fputc('\n', f);
        if (p->offset + (uint64_t)p->size > end)
            end = p->offset + (uint64_t)p->size;
    }
    if (k->param_bytes != end)
        fprintf(f, ".parambytes %u\n", k->param_bytes);
}

/* Marks the kernel-relative pcs that need a label (size code_count + 1). */
static uint8_t *find_labels(const XGpubin *g, const XKernel *k)
{
    uint8_t *mark = calloc((size_t)k->code_count + 1, 1);
    for (uint32_t pc = 0; mark && pc < k->code_count; pc++) {
        const XInsn *in = &g->text[k->code_start + pc];
        if (in->op == XOP_bra || in->op == XOP_brc)
            mark[in->target <= k->code_count ? in->target : k->code_count] = 1;
        if (in->op == XOP_brc)
            mark[in->reconv <= k->code_count ? in->reconv : k->code_count] = 1;
    }
    return mark;
}

/* `.phase` of record *ph when it belongs to (kernel ki, pc); advances *ph past it. */
static void print_phase(FILE *f, const XGpubin *g, uint32_t ki, uint32_t pc, uint32_t *ph)
{
    while (*ph < g->nphases && (g->phases[*ph].kernel < ki ||
                                (g->phases[*ph].kernel == ki && g->phases[*ph].pc < pc)))
        (*ph)++;
    if (*ph >= g->nphases || g->phases[*ph].kernel != ki || g->phases[*ph].pc != pc)
        return;
    const XPhase *p = &g->phases[(*ph)++];
    fprintf(f, "    .phase %u %u%s%s%s\n", p->regs, p->shared,
            p->flags & XPHASE_ENTRY ? " entry" : "", p->flags & XPHASE_BARRIER ? " barrier" : "",
            p->flags & XPHASE_DYNAMIC ? " dynamic" : "");
}

static void print_kernel(FILE *f, const XGpubin *g, uint32_t ki, const char **syms,
                         uint32_t *line)
{
    const XKernel *k = &g->kernels[ki];
    uint32_t ph = 0;
    char buf[256];
    uint8_t *mark = find_labels(g, k);
    print_header(f, k);
    for (uint32_t pc = 0; pc <= k->code_count; pc++) {
        if (mark && mark[pc])
            fprintf(f, "L%u:\n", pc);
        if (pc == k->code_count)
            break;
        uint32_t abs = k->code_start + pc;
        while (*line < g->nlines && g->lines[*line].pc < abs)
            (*line)++;
        for (; *line < g->nlines && g->lines[*line].pc == abs; (*line)++) {
            fprintf(f, "    .loc ");
            lex_quote(f, g->files[g->lines[*line].file]);
            fprintf(f, " %u\n", g->lines[*line].line);
        }
        print_phase(f, g, ki, pc, &ph);
        xisa_format(&g->text[abs], syms, g->nglobals, buf, sizeof buf);
        fprintf(f, "    %s\n", buf);
    }
    free(mark);
}

int xgpubin_disassemble(const XGpubin *g, void *file)
{
    FILE *f = file;
    const char **syms = calloc(g->nglobals ? g->nglobals : 1, sizeof *syms);
    if (!syms)
        return -1;
    fprintf(f, "# gpubin version %u\n.producer ", XGPUBIN_VERSION);
    lex_quote(f, g->producer ? g->producer : "");
    fprintf(f, "\n.options ");
    lex_quote(f, g->options ? g->options : "");
    fputc('\n', f);
    if (g->phase_delta)
        fprintf(f, ".phases %u %u\n", g->phase_delta, g->phase_gap);
    for (uint32_t i = 0; i < g->nfiles; i++) {
        fprintf(f, ".file ");
        lex_quote(f, g->files[i]);
        fputc('\n', f);
    }
    for (uint32_t i = 0; i < g->nglobals; i++) {
        /* gaddr names a global by name when the name reads back as one, else as @N */
        syms[i] = lex_is_name(g->globals[i].name) ? g->globals[i].name : NULL;
        print_global(f, &g->globals[i]);
    }
    uint32_t line = 0;
    for (uint32_t i = 0; i < g->nkernels; i++)
        print_kernel(f, g, i, syms, &line);
    free(syms);
    return ferror(f) ? -1 : 0;
}
