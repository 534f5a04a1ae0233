/*
 * registry.c - the mechanisms (registry.def): their descriptions (registry.h) and the
 * policy slots' choices they declare (each folder's slots.def), the lookups of both, and
 * the resolution of a configuration into the issue and collector slots of the SM
 * pipeline.
 *
 * Resolution: the issue policy is core.sched's entry. The collector is rf.collector's,
 * unless the issue policy brings its own (the two-level register-file-cache schedulers
 * come with their cache); a policy that needs a particular rf.collector refuses any
 * other with a message naming both keys.
 */
#include <stdio.h>
#include <string.h>
#include "mech/mech.h"
#include "mech/registry.h"

const EmuMech *const emu_mechs[] = {
#define MECH(name) &emu_mech_##name,
#include "mech/registry.def"
#undef MECH
};
const size_t emu_nmechs = sizeof emu_mechs / sizeof emu_mechs[0];

int emu_mech_check(const EmuConfig *c, char *err, size_t n)
{
    for (size_t i = 0; i < emu_nmechs; i++)
        if (emu_mechs[i]->check && emu_mechs[i]->check(c, err, n))
            return -1;
    return 0;
}

/* Every choice of every slot (the folders' slots.def), with its slot. Every ops table starts with its name, so one
 * lookup serves all slots. */
enum { K_ISSUE, K_COLLECTOR, K_PREFETCH, K_OBSERVER, K_RESOURCE, K_PLACEMENT, K_INSERTION,
       K_TRANSFORM, K_COHERENCE, K_L2PREFETCH, K_ASSIST, K_LOOKUP, K_MAPPING, K_ZONE };

typedef struct MechEntry {
    int kind;
    const void *ops; /* its first member is the name */
} MechEntry;

static const MechEntry registry[] = {
#define ISSUE(name, ops) {K_ISSUE, &ops},
#define COLLECTOR(name, ops) {K_COLLECTOR, &ops},
#define PREFETCH(name, ops) {K_PREFETCH, &ops},
#define OBSERVER(name, ops) {K_OBSERVER, &ops},
#define RESOURCE(name, ops) {K_RESOURCE, &ops},
#define PLACEMENT(name, ops) {K_PLACEMENT, &ops},
#define INSERTION(name, ops) {K_INSERTION, &ops},
#define TRANSFORM(name, ops) {K_TRANSFORM, &ops},
#define COHERENCE(name, ops) {K_COHERENCE, &ops},
#define L2PREFETCH(name, ops) {K_L2PREFETCH, &ops},
#define ASSIST(name, ops) {K_ASSIST, &ops},
#define LOOKUP(name, ops) {K_LOOKUP, &ops},
#define MAPPING(name, ops) {K_MAPPING, &ops},
#define ZONE(name, ops) {K_ZONE, &ops},
#include "mech_slots.def"
#undef ISSUE
#undef COLLECTOR
#undef PREFETCH
#undef OBSERVER
#undef RESOURCE
#undef PLACEMENT
#undef INSERTION
#undef TRANSFORM
#undef COHERENCE
#undef L2PREFETCH
#undef ASSIST
#undef LOOKUP
#undef MAPPING
#undef ZONE
};

#define NREGISTRY (sizeof registry / sizeof registry[0])

static const char *entry_name(const MechEntry *e)
{
    return *(const char *const *)e->ops;
}

/* The ops of slot kind named name, or NULL. */
static const void *find(int kind, const char *name)
{
    for (size_t i = 0; i < NREGISTRY; i++)
        if (registry[i].kind == kind && strcmp(entry_name(&registry[i]), name) == 0)
            return registry[i].ops;
    return NULL;
}

/* Entry i of slot kind, or NULL past its end. */
static const void *entry(int kind, size_t i)
{
    for (size_t k = 0; k < NREGISTRY; k++)
        if (registry[k].kind == kind && i-- == 0)
            return registry[k].ops;
    return NULL;
}

const TmSchedOps *tm_sched_find(const char *name)
{
    return find(K_ISSUE, name);
}

const TmSchedOps *tm_issue_entry(size_t i)
{
    return entry(K_ISSUE, i);
}

const TmCollectorOps *tm_collector_entry(size_t i)
{
    return entry(K_COLLECTOR, i);
}

/* Each slot's lookups (slots.h): by name, and the i-th entry. */
#define LOOKUPS(type, prefix, kind)                                                        \
    const type *prefix##_find(const char *name) { return find(kind, name); }               \
    const type *prefix##_entry(size_t i) { return entry(kind, i); }
LOOKUPS(TmPrefetchOps, tm_prefetch, K_PREFETCH)
LOOKUPS(TmObserverOps, tm_observer, K_OBSERVER)
LOOKUPS(TmResourceOps, tm_resource, K_RESOURCE)
LOOKUPS(TmPlacementOps, tm_placement, K_PLACEMENT)
LOOKUPS(TmInsertionOps, tm_insertion, K_INSERTION)
LOOKUPS(TmTransformOps, tm_transform, K_TRANSFORM)
LOOKUPS(TmCoherenceOps, tm_coherence, K_COHERENCE)
LOOKUPS(TmL2PrefetchOps, tm_l2_prefetch, K_L2PREFETCH)
LOOKUPS(TmAssistOps, tm_assist, K_ASSIST)
LOOKUPS(TmLookupOps, tm_lookup, K_LOOKUP)
LOOKUPS(TmMappingOps, tm_mapping, K_MAPPING)
LOOKUPS(TmZoneOps, tm_zone, K_ZONE)
#undef LOOKUPS

int tm_insertion_open(const TmInsertionOps **ops, void **state, const EmuConfig *cfg,
                      int level, char *err, size_t n)
{
    const char *key = level == 1 ? "l1.insertion" : "l2.insertion";
    const char *name = level == 1 ? cfg->l1_insertion : cfg->l2_insertion;
    *state = NULL;
    if (!(*ops = tm_insertion_find(name))) {
        snprintf(err, n, "%s: unknown policy '%s'", key, name);
        return -1;
    }
    if ((*ops)->init && !(*state = (*ops)->init(cfg, level))) {
        snprintf(err, n, "%s: out of host memory", key);
        return -1;
    }
    return 0;
}

int tm_slots_resolve(const EmuConfig *cfg, const TmSchedOps **issue,
                     const TmCollectorOps **coll, char *err, size_t n)
{
    const TmSchedOps *is = tm_sched_find(cfg->core_sched);
    const TmCollectorOps *co = find(K_COLLECTOR, cfg->rf_collector);
    if (!is || !co) {
        snprintf(err, n, "%s: unknown policy '%s'", is ? "rf.collector" : "core.sched",
                 is ? cfg->rf_collector : cfg->core_sched);
        return -1;
    }
    if (is->needs && strcmp(is->needs, cfg->rf_collector) != 0) {
        snprintf(err, n, "core.sched: %s needs rf.collector = %s", cfg->core_sched,
                 is->needs);
        return -1;
    }
    *issue = is;
    *coll = is->brings ? is->brings : co;
    return 0;
}
