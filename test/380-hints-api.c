/*
 * 380-hints-api.c - emu_set_hints refuses what it cannot use (empty, overlapping or
 * unsorted atom ranges, the no-atom ID, a count without an array) and leaves what the
 * device held in place then; NULL clears.
 */
#include "300-emu-util.h"

Test(hints_api, bad_tables_are_refused)
{
    EmuDevice *d = t_dev();
    EmuAtomRange ok[2] = {{0x1000, 0x2000, 1}, {0x2000, 0x3000, 2}};
    EmuHints h = {.atoms = ok, .natoms = 2};
    cr_expect_eq(emu_set_hints(d, &h), EMU_OK);
    const EmuAtomRange bad[][2] = {
        {{0x1000, 0x1000, 1}, {0x2000, 0x3000, 2}}, /* empty */
        {{0x1000, 0x2001, 1}, {0x2000, 0x3000, 2}}, /* overlapping */
        {{0x2000, 0x3000, 1}, {0x1000, 0x1800, 2}}, /* unsorted */
        {{0x1000, 0x2000, 0xFF}, {0x2000, 0x3000, 2}}, /* the no-atom ID */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        EmuHints b = {.atoms = bad[i], .natoms = 2};
        cr_expect_eq(emu_set_hints(d, &b), EMU_ERR_INVALID_VALUE, "table %zu accepted", i);
    }
    EmuHints none = {.natoms = 3};
    cr_expect_eq(emu_set_hints(d, &none), EMU_ERR_INVALID_VALUE);
    EmuHints nodesc = {.ndescs = 1};
    cr_expect_eq(emu_set_hints(d, &nodesc), EMU_ERR_INVALID_VALUE);
    cr_expect_eq(emu_set_hints(d, NULL), EMU_OK);
    cr_expect_eq(emu_set_hints(NULL, &h), EMU_ERR_INVALID_VALUE);
    emu_destroy(d);
}
