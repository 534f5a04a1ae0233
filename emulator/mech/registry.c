/*
 * registry.c - the policy slots' registries (registry.def) and the resolution of a
 * configuration into the two slots of the SM pipeline; the baseline collector and the
 * baseline (no) prefetcher.
 *
 * Resolution: the issue policy is core.sched's entry. The collector is rf.collector's,
 * unless the issue policy brings its own (the two-level register-file-cache schedulers
 * come with their cache); a policy that needs a particular rf.collector refuses any
 * other with a message naming both keys.
 */
#include <stdio.h>
#include <string.h>
#include "mech/mech.h"

/* The baseline: operand collectors that read every source from the banks. */
const TmCollectorOps tm_coll_ocu = {.name = "ocu", .fill = tm_fill_banks};

typedef struct IssueEntry {
    const char *name;
    const TmSchedOps *ops;
} IssueEntry;

static const IssueEntry issue_registry[] = {
#define ISSUE(name, ops) {name, &ops},
#define COLLECTOR(name, ops)
#define PREFETCH(name, ops)
#define OBSERVER(name, ops)
#define RESOURCE(name, ops)
#define PLACEMENT(name, ops)
#include "mech/registry.def"
#undef ISSUE
#undef COLLECTOR
#undef PREFETCH
#undef OBSERVER
#undef RESOURCE
#undef PLACEMENT
};

typedef struct CollectorEntry {
    const char *name;
    const TmCollectorOps *ops;
} CollectorEntry;

static const CollectorEntry collector_registry[] = {
#define ISSUE(name, ops)
#define COLLECTOR(name, ops) {name, &ops},
#define PREFETCH(name, ops)
#define OBSERVER(name, ops)
#define RESOURCE(name, ops)
#define PLACEMENT(name, ops)
#include "mech/registry.def"
#undef ISSUE
#undef COLLECTOR
#undef PREFETCH
#undef OBSERVER
#undef RESOURCE
#undef PLACEMENT
};

typedef struct PrefetchEntry {
    const char *name;
    const TmPrefetchOps *ops;
} PrefetchEntry;

static const PrefetchEntry prefetch_registry[] = {
#define ISSUE(name, ops)
#define COLLECTOR(name, ops)
#define PREFETCH(name, ops) {name, &ops},
#define OBSERVER(name, ops)
#define RESOURCE(name, ops)
#define PLACEMENT(name, ops)
#include "mech/registry.def"
#undef ISSUE
#undef COLLECTOR
#undef PREFETCH
#undef OBSERVER
#undef RESOURCE
#undef PLACEMENT
};

typedef struct ObserverEntry {
    const char *name;
    const TmObserverOps *ops;
} ObserverEntry;

static const ObserverEntry observer_registry[] = {
#define ISSUE(name, ops)
#define COLLECTOR(name, ops)
#define PREFETCH(name, ops)
#define OBSERVER(name, ops) {name, &ops},
#define RESOURCE(name, ops)
#define PLACEMENT(name, ops)
#include "mech/registry.def"
#undef ISSUE
#undef COLLECTOR
#undef PREFETCH
#undef OBSERVER
#undef RESOURCE
#undef PLACEMENT
};

typedef struct ResourceEntry {
    const char *name;
    const TmResourceOps *ops;
} ResourceEntry;

static const ResourceEntry resource_registry[] = {
#define ISSUE(name, ops)
#define COLLECTOR(name, ops)
#define PREFETCH(name, ops)
#define OBSERVER(name, ops)
#define RESOURCE(name, ops) {name, &ops},
#define PLACEMENT(name, ops)
#include "mech/registry.def"
#undef ISSUE
#undef COLLECTOR
#undef PREFETCH
#undef OBSERVER
#undef RESOURCE
#undef PLACEMENT
};

typedef struct PlacementEntry {
    const char *name;
    const TmPlacementOps *ops;
} PlacementEntry;

static const PlacementEntry placement_registry[] = {
#define ISSUE(name, ops)
#define COLLECTOR(name, ops)
#define PREFETCH(name, ops)
#define OBSERVER(name, ops)
#define RESOURCE(name, ops)
#define PLACEMENT(name, ops) {name, &ops},
#include "mech/registry.def"
#undef ISSUE
#undef COLLECTOR
#undef PREFETCH
#undef OBSERVER
#undef RESOURCE
#undef PLACEMENT
};

#define NISSUE (sizeof issue_registry / sizeof issue_registry[0])
#define NCOLLECTOR (sizeof collector_registry / sizeof collector_registry[0])
#define NPREFETCH (sizeof prefetch_registry / sizeof prefetch_registry[0])
#define NOBSERVER (sizeof observer_registry / sizeof observer_registry[0])
#define NRESOURCE (sizeof resource_registry / sizeof resource_registry[0])
#define NPLACEMENT (sizeof placement_registry / sizeof placement_registry[0])

const TmResourceOps *tm_resource_find(const char *name)
{
    for (size_t i = 0; i < NRESOURCE; i++)
        if (strcmp(resource_registry[i].name, name) == 0)
            return resource_registry[i].ops;
    return NULL;
}

const TmResourceOps *tm_resource_entry(size_t i)
{
    return i < NRESOURCE ? resource_registry[i].ops : NULL;
}

const TmPlacementOps *tm_placement_find(const char *name)
{
    for (size_t i = 0; i < NPLACEMENT; i++)
        if (strcmp(placement_registry[i].name, name) == 0)
            return placement_registry[i].ops;
    return NULL;
}

const TmPlacementOps *tm_placement_entry(size_t i)
{
    return i < NPLACEMENT ? placement_registry[i].ops : NULL;
}

/* Nothing observed. */
const TmObserverOps tm_obs_none = {.name = "none"};

const TmObserverOps *tm_observer_find(const char *name)
{
    for (size_t i = 0; i < NOBSERVER; i++)
        if (strcmp(observer_registry[i].name, name) == 0)
            return observer_registry[i].ops;
    return NULL;
}

const TmObserverOps *tm_observer_entry(size_t i)
{
    return i < NOBSERVER ? observer_registry[i].ops : NULL;
}

/* No prefetching: the L1 fetches what demand requests miss, nothing more. */
const TmPrefetchOps tm_pf_none = {.name = "none"};

const TmPrefetchOps *tm_prefetch_find(const char *name)
{
    for (size_t i = 0; i < NPREFETCH; i++)
        if (strcmp(prefetch_registry[i].name, name) == 0)
            return prefetch_registry[i].ops;
    return NULL;
}

const TmPrefetchOps *tm_prefetch_entry(size_t i)
{
    return i < NPREFETCH ? prefetch_registry[i].ops : NULL;
}

const TmSchedOps *tm_sched_find(const char *name)
{
    for (size_t i = 0; i < NISSUE; i++)
        if (strcmp(issue_registry[i].name, name) == 0)
            return issue_registry[i].ops;
    return NULL;
}

static const TmCollectorOps *collector_find(const char *name)
{
    for (size_t i = 0; i < NCOLLECTOR; i++)
        if (strcmp(collector_registry[i].name, name) == 0)
            return collector_registry[i].ops;
    return NULL;
}

const TmSchedOps *tm_issue_entry(size_t i)
{
    return i < NISSUE ? issue_registry[i].ops : NULL;
}

const TmCollectorOps *tm_collector_entry(size_t i)
{
    return i < NCOLLECTOR ? collector_registry[i].ops : NULL;
}

int tm_slots_resolve(const EmuConfig *cfg, const TmSchedOps **issue,
                     const TmCollectorOps **coll, char *err, size_t n)
{
    const TmSchedOps *is = tm_sched_find(cfg->core_sched);
    const TmCollectorOps *co = collector_find(cfg->rf_collector);
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
