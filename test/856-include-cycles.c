/*
 * 856-include-cycles: the emulator's modules (a header, its .c and its private NAME_int.h)
 * form no include cycle of more than two modules (scripts/include_cycles.py;
 * docs/architecture.md, "Layers"): the script finds none in the tree, and it does find
 * the cycle a header that includes its includer makes.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "xtest.h"

#define SCRIPT XGPU_SOURCE_DIR "/scripts/include_cycles.py"

Test(include_cycles, none_of_more_than_two_modules)
{
    char *out = NULL;
    int rc = xt_runf(&out, "python3 '%s' '%s' 2>&1", SCRIPT, XGPU_BUILD_DIR);
    cr_expect_eq(rc, 0, "%s", out ? out : "");
    cr_expect(out && (strstr(out, "largest cycle: 2 modules") || strstr(out, "no include cycle")),
              "%s", out ? out : "");
    free(out);
}

/* A copy of the script pointed at a tree of three modules that include each other. */
Test(include_cycles, finds_a_cycle_of_three)
{
    const char *dir = xt_tmp("tree");
    char *out = NULL;
    int rc = xt_runf(&out,
                     "mkdir -p '%s/emulator/x' '%s/scripts' && cp '%s' '%s/scripts/' && "
                     "printf '#include \"x/b.h\"\\n' > '%s/emulator/x/a.c' && "
                     "printf '#include \"x/c.h\"\\n' > '%s/emulator/x/b.h' && "
                     "printf '#include \"x/a.h\"\\n' > '%s/emulator/x/c.c' && "
                     "printf '\\n' > '%s/emulator/x/a.h' && printf '\\n' > '%s/emulator/x/c.h' && "
                     "python3 '%s/scripts/include_cycles.py' build 2>&1",
                     dir, dir, SCRIPT, dir, dir, dir, dir, dir, dir, dir);
    cr_expect_eq(rc, 1, "exit status %d: %s", rc, out ? out : "");
    cr_expect(out && strstr(out, "largest cycle: 3 modules"), "%s", out ? out : "");
    free(out);
}
