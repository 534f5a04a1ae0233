/*
 * registry.h - what the core knows of each mechanism beyond its policy-slot choices
 * (mech.h): its cross-key checks and the figures it adds to the statistics. One EmuMech
 * per row of registry.def, defined in the mechanism's folder as emu_mech_NAME; the
 * configuration's check (config/check.c) and the statistics document (stats/doc.c) walk
 * them, so neither names a mechanism.
 */
#ifndef EMU_MECH_REGISTRY_H
#define EMU_MECH_REGISTRY_H

#include <stddef.h>
#include <stdint.h>
#include "config/config.h"

struct JsonW;
struct EmuStatView;

typedef struct EmuMech {
    const char *name; /* its folder, emulator/mech/NAME/ */
    /* The rules between its keys and the others' on the finished configuration (its
     * keys' ranges and mode implications are rows of its keys.def): 0, or -1 with
     * "key: reason" in err. NULL: none. */
    int (*check)(const EmuConfig *c, char *err, size_t n);
    /* Figures of its own in one interval of the statistics ("intervals", docs/stats.md),
     * written as members of the interval's object: v holds the interval's counters (its
     * cycles are not 0), nsm is the SMs of the device. NULL: none. */
    void (*interval)(struct JsonW *w, const struct EmuStatView *v, const EmuConfig *c,
                     uint32_t nsm);
} EmuMech;

#define MECH(name) extern const EmuMech emu_mech_##name;
#include "mech/registry.def"
#undef MECH

/* Every mechanism, in registry.def's order. */
extern const EmuMech *const emu_mechs[];
extern const size_t emu_nmechs;

/* Every mechanism's check, in order: 0, or -1 with the first failure's "key: reason". */
int emu_mech_check(const EmuConfig *c, char *err, size_t n);

#endif
