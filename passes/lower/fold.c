/*
 * fold.c - placeholder: the pass is not written yet and changes nothing.
 */
#include "mir.h"

int mir_fold(MFunc *f) { (void)f; return 0; }
