/*
 * fault.c - a guest fault, from where an instruction handler describes it
 * (emu_exec_fault: status, lane, address, message) to the EmuFault a launch returns
 * (emu_fill_fault: kernel, block, thread, pc, the source line from .xgpu.lines).
 */
#include <stdarg.h>
#include <stdio.h>
#include "device.h"

int emu_exec_fault(EmuExec *x, EmuStatus s, unsigned lane, uint64_t addr, const char *fmt, ...)
{
    va_list ap;
    x->fstatus = s;
    x->flane = lane;
    x->faddr = addr;
    x->fspace = EMU_SPACE_NONE, x->faccess = EMU_ACCESS_NONE, x->fsize = 0;
    va_start(ap, fmt);
    vsnprintf(x->fmsg, sizeof x->fmsg, fmt, ap);
    va_end(ap);
    return EXEC_FAULT;
}

void emu_fill_fault(EmuFault *f, const EmuExec *x, const EmuModule *m, const XKernel *k,
                    const EmuWarp *w)
{
    emu_fill_fault_at(f, x, m, k, w,
                      w->state == EW_BARRIER ? w->bar_pc : w->depth ? w->stack[w->depth - 1].pc
                                                                    : 0);
}

void emu_fill_fault_at(EmuFault *f, const EmuExec *x, const EmuModule *m, const XKernel *k,
                       const EmuWarp *w, uint32_t pc)
{
    f->status = x->fstatus;
    snprintf(f->kernel, sizeof f->kernel, "%s", k->name);
    uint32_t t = w->id * XGPU_WARP_SIZE + x->flane;
    f->block = x->ctaid;
    f->thread = (EmuDim3){t % x->block.x, t / x->block.x % x->block.y,
                          t / x->block.x / x->block.y};
    f->pc = pc;
    f->address = x->faddr;
    f->space = (EmuSpace)x->fspace;
    f->access = (EmuAccess)x->faccess;
    f->size = x->fsize;
    f->file = NULL;
    f->line = 0;
    const XLine *ln = xgpubin_line(m->bin, k->code_start + f->pc);
    if (ln && ln->file < m->bin->nfiles) {
        f->file = m->bin->files[ln->file];
        f->line = ln->line;
    }
    snprintf(f->message, sizeof f->message, "%s", x->fmsg);
}
