/*
 * mech.h - the ops tables of every mechanism (registry.def), for the registry and the
 * tests; and the choice lists config.c gives the slots' keys.
 */
#ifndef EMU_MECH_MECH_H
#define EMU_MECH_MECH_H

#include "timing/sched.h"

#define ISSUE(name, ops) extern const TmSchedOps ops;
#define COLLECTOR(name, ops) extern const TmCollectorOps ops;
#define PREFETCH(name, ops) extern const TmPrefetchOps ops;
#define OBSERVER(name, ops) extern const TmObserverOps ops;
#define RESOURCE(name, ops) extern const TmResourceOps ops;
#define PLACEMENT(name, ops) extern const TmPlacementOps ops;
#define INSERTION(name, ops) extern const TmInsertionOps ops;
#define TRANSFORM(name, ops) extern const TmTransformOps ops;
#define COHERENCE(name, ops) extern const TmCoherenceOps ops;
#define L2PREFETCH(name, ops) extern const TmL2PrefetchOps ops;
#define ASSIST(name, ops) extern const TmAssistOps ops;
#define LOOKUP(name, ops) extern const TmLookupOps ops;
#define MAPPING(name, ops) extern const TmMappingOps ops;
#define ZONE(name, ops) extern const TmZoneOps ops;
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

#endif
