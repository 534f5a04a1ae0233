/*
 * exec_pending.c - opcodes declared in isa.def whose executors are not written yet: the
 * loader rejects a module that uses them (decode fails), so nothing runs half-emulated.
 */
#include "exec.h"

#define PENDING(name)                                                                      \
    int emu_pick_##name(const XInsn *xi, EmuInsn *o)                                       \
    {                                                                                      \
        (void)xi, (void)o;                                                                 \
        return -1;                                                                         \
    }

PENDING(atom)
PENDING(atomcas)
PENDING(shfl)
PENDING(vote)
PENDING(actmask)
PENDING(barred)
PENDING(prmt)
PENDING(math1)
PENDING(math2)
PENDING(vprintf)
