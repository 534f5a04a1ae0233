/*
 * 357-config-keys: every configuration key, walked from the table: it has a description,
 * its default (as config.def writes it) parses back as a value of its type and gives the
 * value the defaults hold, and an ENUM lists its choices with the default among them.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "../emulator/config/config.h"

Test(config_keys, every_key_is_described_and_its_default_parses)
{
    EmuConfig defaults;
    emu_config_defaults(&defaults);
    for (size_t i = 0; i < emu_cfg_nkeys; i++) {
        const EmuCfgKey *k = &emu_cfg_keys[i];
        cr_expect(k->desc && strlen(k->desc) > 10, "%s: no description", k->key);
        char def[128] = "";
        if (k->def[0] == '"')
            sscanf(k->def, "\"%127[^\"]", def);
        else
            snprintf(def, sizeof def, "%s", k->def);
        EmuConfig c;
        char err[256] = "";
        emu_config_defaults(&c);
        cr_expect_eq(emu_config_set(&c, k->key, def, err, sizeof err), 0, "%s = %s: %s", k->key,
                     def, err);
        char a[128], b[128];
        emu_config_format(&c, k, a, sizeof a);
        emu_config_format(&defaults, k, b, sizeof b);
        cr_expect_str_eq(a, b, "%s: its default text gives %s, the defaults hold %s", k->key, a,
                         b);
        if (k->type == EMU_CFG_ENUM) {
            cr_expect(k->unit && k->unit[0] && k->unit[0] != '|', "%s: no choices", k->key);
            cr_expect(strstr(k->unit, def), "%s: default %s not among %s", k->key, def, k->unit);
        }
    }
}
