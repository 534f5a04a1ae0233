/*
 * sched.c - placeholder: the pass is not written yet and changes nothing.
 */
#include "mir.h"

int mir_sched(MFunc *f, const MSchedOptions *o) { (void)f, (void)o; return 0; }
