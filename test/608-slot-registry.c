/*
 * 608-slot-registry: the policy slots' registries (emulator/mech/registry.def: issue
 * order, collector, L1 and L2 prefetch, request observer, resource manager, CTA
 * placement, L1 and L2 insertion, memory-side transform, coherence, hint lookup, DRAM
 * mapping, NUMA zones) agree with the configuration: every entry's name is a valid value
 * of its key (the key's list of choices is generated from the registry, so the two
 * cannot drift), its ops carry the same name and the hooks the core calls
 * unconditionally, and every choice of the keys resolves to a pair of slots or to an
 * error that names the key.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "config/config.h"
#include "mech/mech.h"
#include "mech/registry.h"

static const EmuCfgKey *key(const char *name)
{
    for (size_t i = 0; i < emu_cfg_nkeys; i++)
        if (strcmp(emu_cfg_keys[i].key, name) == 0)
            return &emu_cfg_keys[i];
    cr_assert_fail("no key %s", name);
    return NULL;
}

/* Whether name is one of the '|'-separated choices. */
static int is_choice(const char *choices, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = choices; p; p = strchr(p, '|') ? strchr(p, '|') + 1 : NULL)
        if (strncmp(p, name, n) == 0 && (p[n] == '|' || p[n] == '\0'))
            return 1;
    return 0;
}

static size_t count_choices(const char *choices)
{
    size_t n = 1;
    for (const char *p = choices; *p; p++)
        n += *p == '|';
    return n;
}

Test(slots, issue_registry_matches_core_sched)
{
    const EmuCfgKey *k = key("core.sched");
    cr_assert_eq(k->type, EMU_CFG_ENUM);
    size_t i = 0;
    for (const TmSchedOps *o; (o = tm_issue_entry(i)); i++) {
        cr_expect(is_choice(k->unit, o->name), "%s not a choice of core.sched (%s)", o->name,
                  k->unit);
        cr_expect(o->order && o->issued, "%s lacks order or issued", o->name);
        cr_expect_eq(tm_sched_find(o->name), o);
    }
    cr_expect_eq(i, count_choices(k->unit), "core.sched has choices without an entry");
    cr_expect(k->unit[0] != '|' && k->unit[strlen(k->unit) - 1] != '|', "%s", k->unit);
}

Test(slots, collector_registry_matches_rf_collector)
{
    const EmuCfgKey *k = key("rf.collector");
    size_t i = 0;
    for (const TmCollectorOps *o; (o = tm_collector_entry(i)); i++) {
        cr_expect(is_choice(k->unit, o->name), "%s not a choice of rf.collector", o->name);
        cr_expect(o->fill, "%s lacks fill", o->name);
    }
    cr_expect_eq(i, count_choices(k->unit));
    for (i = 0; tm_issue_entry(i); i++) { /* collectors an issue policy brings */
        const TmCollectorOps *b = tm_issue_entry(i)->brings;
        cr_expect(!b || b->fill, "%s brings a collector without fill", tm_issue_entry(i)->name);
    }
}

Test(slots, prefetch_registry_matches_l1_prefetch)
{
    const EmuCfgKey *k = key("l1.prefetch");
    size_t i = 0;
    for (const TmPrefetchOps *o; (o = tm_prefetch_entry(i)); i++) {
        cr_expect(is_choice(k->unit, o->name), "%s not a choice of l1.prefetch", o->name);
        cr_expect_eq(tm_prefetch_find(o->name), o);
        cr_expect(!o->observe || (o->init && o->free), "%s: state hooks missing", o->name);
    }
    cr_expect_eq(i, count_choices(k->unit));
    char def[32] = ""; /* the default, as config.def quotes it */
    sscanf(k->def, "\"%31[^\"]", def);
    cr_expect(is_choice(k->unit, def), "default %s", k->def);
}

Test(slots, observer_registry_matches_mem_observer)
{
    const EmuCfgKey *k = key("mem.observer");
    size_t i = 0;
    for (const TmObserverOps *o; (o = tm_observer_entry(i)); i++) {
        cr_expect(is_choice(k->unit, o->name), "%s not a choice of mem.observer", o->name);
        cr_expect_eq(tm_observer_find(o->name), o);
        cr_expect(!o->request || (o->launch.begin && o->launch.end && o->report),
                  "%s: observes without state or report", o->name);
    }
    cr_expect_eq(i, count_choices(k->unit));
}

Test(slots, resource_and_placement_registries_match_their_keys)
{
    const EmuCfgKey *r = key("core.resource_mgr"), *p = key("core.cta_placement");
    size_t i = 0;
    for (const TmResourceOps *o; (o = tm_resource_entry(i)); i++) {
        cr_expect(is_choice(r->unit, o->name), "%s not a choice of core.resource_mgr", o->name);
        cr_expect(o->fits && o->cta_start && o->cta_done, "%s lacks a hook", o->name);
        cr_expect_eq(tm_resource_find(o->name), o);
    }
    cr_expect_eq(i, count_choices(r->unit));
    for (i = 0; tm_placement_entry(i); i++) {
        const TmPlacementOps *o = tm_placement_entry(i);
        cr_expect(is_choice(p->unit, o->name), "%s not a choice of core.cta_placement", o->name);
        cr_expect(o->place, "%s lacks place", o->name);
        cr_expect_eq(tm_placement_find(o->name), o);
    }
    cr_expect_eq(i, count_choices(p->unit));
}

/* The memory-side slots: every entry of prefix's registry is a choice of key, found by
 * its name, with its state hooks in pairs (pair: the two hooks that go together); the
 * key has exactly the registry's choices and defaults to the baseline. */
#define CHECK_MEMORY_SLOT(type, prefix, keyname, baseline, pair_a, pair_b)                  \
    do {                                                                                   \
        const EmuCfgKey *k = key(keyname);                                                 \
        size_t i = 0;                                                                      \
        for (const type *o; (o = prefix##_entry(i)); i++) {                                \
            cr_expect(is_choice(k->unit, o->name), "%s not a choice of %s", o->name,       \
                      keyname);                                                            \
            cr_expect_eq(prefix##_find(o->name), o);                                       \
            cr_expect(!o->pair_a == !o->pair_b, "%s: %s without %s", o->name, #pair_a,     \
                      #pair_b);                                                            \
        }                                                                                  \
        cr_expect_eq(i, count_choices(k->unit), "%s", keyname);                            \
        cr_expect(strstr(k->def, baseline), "%s defaults to %s", keyname, k->def);          \
    } while (0)

Test(slots, memory_side_registries_match_their_keys)
{
    CHECK_MEMORY_SLOT(TmInsertionOps, tm_insertion, "l1.insertion", "mru", init, free);
    CHECK_MEMORY_SLOT(TmInsertionOps, tm_insertion, "l2.insertion", "mru", init, free);
    CHECK_MEMORY_SLOT(TmL2PrefetchOps, tm_l2_prefetch, "l2.prefetch", "none", init, free);
    CHECK_MEMORY_SLOT(TmTransformOps, tm_transform, "mem.transform", "none", init, free);
    CHECK_MEMORY_SLOT(TmCoherenceOps, tm_coherence, "coherence", "none", launch.begin,
                      launch.end);
    CHECK_MEMORY_SLOT(TmLookupOps, tm_lookup, "mem.hint_lookup", "exact", init, free);
    CHECK_MEMORY_SLOT(TmMappingOps, tm_mapping, "dram.mapping", "interleave", init, free);
    CHECK_MEMORY_SLOT(TmZoneOps, tm_zone, "numa.map", "xor", init, free);
}

Test(slots, every_pair_resolves_or_names_the_key)
{
    for (size_t i = 0; tm_issue_entry(i); i++)
        for (size_t j = 0; tm_collector_entry(j); j++) {
            EmuConfig c;
            char err[256] = "";
            const TmSchedOps *is;
            const TmCollectorOps *co;
            emu_config_defaults(&c);
            strcpy(c.core_sched, tm_issue_entry(i)->name);
            strcpy(c.rf_collector, tm_collector_entry(j)->name);
            int rc = tm_slots_resolve(&c, &is, &co, err, sizeof err);
            const char *needs = tm_issue_entry(i)->needs;
            if (needs && strcmp(needs, c.rf_collector) != 0) {
                cr_expect_neq(rc, 0, "%s with %s", c.core_sched, c.rf_collector);
                cr_expect(strstr(err, "core.sched") && strstr(err, "rf.collector"), "%s", err);
                continue;
            }
            cr_expect_eq(rc, 0, "%s with %s: %s", c.core_sched, c.rf_collector, err);
            cr_expect_eq(is, tm_issue_entry(i));
            cr_expect_eq(co, is->brings ? is->brings : tm_collector_entry(j));
        }
}

Test(slots, unknown_names_are_refused)
{
    EmuConfig c;
    char err[256] = "";
    const TmSchedOps *is;
    const TmCollectorOps *co;
    emu_config_defaults(&c);
    strcpy(c.core_sched, "nope");
    cr_expect_neq(tm_slots_resolve(&c, &is, &co, err, sizeof err), 0);
    cr_expect(strstr(err, "core.sched") && strstr(err, "nope"), "%s", err);
}

/* Every row of registry.def has its description, named as its row, once. */
Test(registry, every_mechanism_is_described_once)
{
    cr_assert_gt(emu_nmechs, 1);
    for (size_t i = 0; i < emu_nmechs; i++) {
        cr_assert(emu_mechs[i] && emu_mechs[i]->name, "row %zu", i);
        for (size_t j = 0; j < i; j++)
            cr_expect_str_neq(emu_mechs[i]->name, emu_mechs[j]->name);
    }
    cr_expect_str_eq(emu_mechs[0]->name, "base", "the baselines come first");
}
