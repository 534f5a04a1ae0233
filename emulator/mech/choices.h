/*
 * choices.h - the lists of choices of the policy slots' keys, '|'-separated, generated
 * from registry.def (config.c's key table points at them, one past the leading '|').
 */
#ifndef EMU_MECH_CHOICES_H
#define EMU_MECH_CHOICES_H

#define ISSUE(name, ops) "|" name
#define COLLECTOR(name, ops)
#define PREFETCH(name, ops)
#define OBSERVER(name, ops)
#define RESOURCE(name, ops)
#define PLACEMENT(name, ops)
static const char emu_issue_choices[] =
#include "mech/registry.def"
    ;
#undef ISSUE
#undef COLLECTOR
#undef PREFETCH
#undef OBSERVER
#undef RESOURCE
#undef PLACEMENT
#define ISSUE(name, ops)
#define COLLECTOR(name, ops) "|" name
#define PREFETCH(name, ops)
#define OBSERVER(name, ops)
#define RESOURCE(name, ops)
#define PLACEMENT(name, ops)
static const char emu_collector_choices[] =
#include "mech/registry.def"
    ;
#undef ISSUE
#undef COLLECTOR
#undef PREFETCH
#undef OBSERVER
#undef RESOURCE
#undef PLACEMENT
#define ISSUE(name, ops)
#define COLLECTOR(name, ops)
#define PREFETCH(name, ops) "|" name
#define OBSERVER(name, ops)
#define RESOURCE(name, ops)
#define PLACEMENT(name, ops)
static const char emu_prefetch_choices[] =
#include "mech/registry.def"
    ;
#undef ISSUE
#undef COLLECTOR
#undef PREFETCH
#undef OBSERVER
#undef RESOURCE
#undef PLACEMENT
#define ISSUE(name, ops)
#define COLLECTOR(name, ops)
#define PREFETCH(name, ops)
#define OBSERVER(name, ops) "|" name
#define RESOURCE(name, ops)
#define PLACEMENT(name, ops)
static const char emu_observer_choices[] =
#include "mech/registry.def"
    ;
#undef ISSUE
#undef COLLECTOR
#undef PREFETCH
#undef OBSERVER
#undef RESOURCE
#undef PLACEMENT
#define ISSUE(name, ops)
#define COLLECTOR(name, ops)
#define PREFETCH(name, ops)
#define OBSERVER(name, ops)
#define RESOURCE(name, ops) "|" name
#define PLACEMENT(name, ops)
static const char emu_resource_choices[] =
#include "mech/registry.def"
    ;
#undef ISSUE
#undef COLLECTOR
#undef PREFETCH
#undef OBSERVER
#undef RESOURCE
#undef PLACEMENT
#define ISSUE(name, ops)
#define COLLECTOR(name, ops)
#define PREFETCH(name, ops)
#define OBSERVER(name, ops)
#define RESOURCE(name, ops)
#define PLACEMENT(name, ops) "|" name
static const char emu_placement_choices[] =
#include "mech/registry.def"
    ;
#undef ISSUE
#undef COLLECTOR
#undef PREFETCH
#undef OBSERVER
#undef RESOURCE
#undef PLACEMENT

#define EMU_ISSUE_CHOICES (emu_issue_choices + 1)
#define EMU_COLLECTOR_CHOICES (emu_collector_choices + 1)
#define EMU_PREFETCH_CHOICES (emu_prefetch_choices + 1)
#define EMU_OBSERVER_CHOICES (emu_observer_choices + 1)
#define EMU_RESOURCE_CHOICES (emu_resource_choices + 1)
#define EMU_PLACEMENT_CHOICES (emu_placement_choices + 1)

#endif
