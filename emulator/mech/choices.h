/*
 * choices.h - the lists of choices of the policy slots' keys, '|'-separated, generated
 * from registry.def (config.c's key table points at them, one past the leading '|').
 * Every slot's macro expands to nothing but the one whose list is being built.
 */
#ifndef EMU_MECH_CHOICES_H
#define EMU_MECH_CHOICES_H

#define ISSUE(name, ops)
#define COLLECTOR(name, ops)
#define PREFETCH(name, ops)
#define OBSERVER(name, ops)
#define RESOURCE(name, ops)
#define PLACEMENT(name, ops)
#define INSERTION(name, ops)
#define TRANSFORM(name, ops)
#define COHERENCE(name, ops)
#define L2PREFETCH(name, ops)
#define ASSIST(name, ops)
#define LOOKUP(name, ops)
#define MAPPING(name, ops)
#define ZONE(name, ops)

#undef ISSUE
#define ISSUE(name, ops) "|" name
static const char emu_issue_choices[] =
#include "mech_slots.def"
    ;
#undef ISSUE
#define ISSUE(name, ops)

#undef COLLECTOR
#define COLLECTOR(name, ops) "|" name
static const char emu_collector_choices[] =
#include "mech_slots.def"
    ;
#undef COLLECTOR
#define COLLECTOR(name, ops)

#undef PREFETCH
#define PREFETCH(name, ops) "|" name
static const char emu_prefetch_choices[] =
#include "mech_slots.def"
    ;
#undef PREFETCH
#define PREFETCH(name, ops)

#undef OBSERVER
#define OBSERVER(name, ops) "|" name
static const char emu_observer_choices[] =
#include "mech_slots.def"
    ;
#undef OBSERVER
#define OBSERVER(name, ops)

#undef RESOURCE
#define RESOURCE(name, ops) "|" name
static const char emu_resource_choices[] =
#include "mech_slots.def"
    ;
#undef RESOURCE
#define RESOURCE(name, ops)

#undef PLACEMENT
#define PLACEMENT(name, ops) "|" name
static const char emu_placement_choices[] =
#include "mech_slots.def"
    ;
#undef PLACEMENT
#define PLACEMENT(name, ops)

#undef INSERTION
#define INSERTION(name, ops) "|" name
static const char emu_insertion_choices[] =
#include "mech_slots.def"
    ;
#undef INSERTION
#define INSERTION(name, ops)

#undef TRANSFORM
#define TRANSFORM(name, ops) "|" name
static const char emu_transform_choices[] =
#include "mech_slots.def"
    ;
#undef TRANSFORM
#define TRANSFORM(name, ops)

#undef COHERENCE
#define COHERENCE(name, ops) "|" name
static const char emu_coherence_choices[] =
#include "mech_slots.def"
    ;
#undef COHERENCE
#define COHERENCE(name, ops)

#undef L2PREFETCH
#define L2PREFETCH(name, ops) "|" name
static const char emu_l2_prefetch_choices[] =
#include "mech_slots.def"
    ;
#undef L2PREFETCH
#define L2PREFETCH(name, ops)

#undef ASSIST
#define ASSIST(name, ops) "|" name
static const char emu_assist_choices[] =
#include "mech_slots.def"
    ;
#undef ASSIST
#define ASSIST(name, ops)

#undef LOOKUP
#define LOOKUP(name, ops) "|" name
static const char emu_lookup_choices[] =
#include "mech_slots.def"
    ;
#undef LOOKUP
#define LOOKUP(name, ops)

#undef MAPPING
#define MAPPING(name, ops) "|" name
static const char emu_mapping_choices[] =
#include "mech_slots.def"
    ;
#undef MAPPING
#define MAPPING(name, ops)

#undef ZONE
#define ZONE(name, ops) "|" name
static const char emu_zone_choices[] =
#include "mech_slots.def"
    ;

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

#define EMU_ISSUE_CHOICES (emu_issue_choices + 1)
#define EMU_COLLECTOR_CHOICES (emu_collector_choices + 1)
#define EMU_PREFETCH_CHOICES (emu_prefetch_choices + 1)
#define EMU_OBSERVER_CHOICES (emu_observer_choices + 1)
#define EMU_RESOURCE_CHOICES (emu_resource_choices + 1)
#define EMU_PLACEMENT_CHOICES (emu_placement_choices + 1)
#define EMU_INSERTION_CHOICES (emu_insertion_choices + 1)
#define EMU_TRANSFORM_CHOICES (emu_transform_choices + 1)
#define EMU_COHERENCE_CHOICES (emu_coherence_choices + 1)
#define EMU_L2_PREFETCH_CHOICES (emu_l2_prefetch_choices + 1)
#define EMU_ASSIST_CHOICES (emu_assist_choices + 1)
#define EMU_LOOKUP_CHOICES (emu_lookup_choices + 1)
#define EMU_MAPPING_CHOICES (emu_mapping_choices + 1)
#define EMU_ZONE_CHOICES (emu_zone_choices + 1)

#endif
