/*
 * stats.c - the device's launch log and its JSON form (schema: docs/stats.md).
 *
 * The functional core counts with plain uint64 increments into its launch context;
 * emu_launch hands the finished EmuLaunchStats here, where it is appended to the log.
 * Totals are sums over the log, computed when printed. The "config" object is generated
 * from the config.def key table, so every key appears with its effective value.
 */
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>
#include "device.h"

void emu_stats_record(EmuDevice *d, const EmuLaunchStats *s)
{
    if (d->nlaunches == d->caplaunches) {
        size_t cap = d->caplaunches ? d->caplaunches * 2 : 16;
        EmuLaunchStats *p = realloc(d->launches, cap * sizeof *p);
        if (!p)
            return; /* the log is best effort; the launch itself already happened */
        d->launches = p;
        d->caplaunches = cap;
    }
    d->launches[d->nlaunches++] = *s;
}

size_t emu_launch_count(const EmuDevice *d)
{
    return d ? d->nlaunches : 0;
}

const EmuLaunchStats *emu_launch_stats(const EmuDevice *d, size_t i)
{
    return d && i < d->nlaunches ? &d->launches[i] : NULL;
}

static json_object *dim3_json(EmuDim3 v)
{
    json_object *a = json_object_new_array();
    json_object_array_add(a, json_object_new_int64(v.x));
    json_object_array_add(a, json_object_new_int64(v.y));
    json_object_array_add(a, json_object_new_int64(v.z));
    return a;
}

static json_object *config_json(const EmuConfig *c)
{
    json_object *o = json_object_new_object();
    for (size_t i = 0; i < emu_cfg_nkeys; i++) {
        const EmuCfgKey *k = &emu_cfg_keys[i];
        const char *field = (const char *)c + k->offset;
        json_object *v;
        char buf[80];
        switch (k->type) {
        case EMU_CFG_U32:
            v = json_object_new_int64(*(const uint32_t *)field);
            break;
        case EMU_CFG_U64:
            v = json_object_new_uint64(*(const uint64_t *)field);
            break;
        default:
            emu_config_format(c, k, buf, sizeof buf);
            v = json_object_new_string(buf);
            break;
        }
        json_object_object_add(o, k->key, v);
    }
    return o;
}

static json_object *launch_json(const EmuLaunchStats *s)
{
    json_object *o = json_object_new_object();
    json_object_object_add(o, "name", json_object_new_string(s->kernel));
    json_object_object_add(o, "grid", dim3_json(s->grid));
    json_object_object_add(o, "block", dim3_json(s->block));
    json_object_object_add(o, "shared_dynamic", json_object_new_uint64(s->shared_dynamic));
    json_object_object_add(o, "warp_instructions", json_object_new_uint64(s->warp_instructions));
    json_object_object_add(o, "thread_instructions",
                           json_object_new_uint64(s->thread_instructions));
    json_object_object_add(o, "host_seconds", json_object_new_double(s->host_seconds));
    json_object_object_add(o, "emulated_ns", json_object_new_uint64(s->emulated_ns));
    json_object_object_add(o, "printf_bytes", json_object_new_uint64(s->printf_bytes));
    json_object_object_add(o, "printf_dropped", json_object_new_uint64(s->printf_dropped));
    json_object_object_add(o, "status", json_object_new_string(emu_status_name(s->status)));
    return o;
}

int emu_write_stats_json(const EmuDevice *d, FILE *f)
{
    if (!d || !f)
        return -1;
    json_object *root = json_object_new_object();
    json_object *launches = json_object_new_array();
    uint64_t winsns = 0, tinsns = 0, ns = 0, pbytes = 0, pdropped = 0;
    double secs = 0;
    for (size_t i = 0; i < d->nlaunches; i++) {
        const EmuLaunchStats *s = &d->launches[i];
        json_object_array_add(launches, launch_json(s));
        winsns += s->warp_instructions;
        tinsns += s->thread_instructions;
        secs += s->host_seconds;
        ns += s->emulated_ns;
        pbytes += s->printf_bytes;
        pdropped += s->printf_dropped;
    }
    json_object *totals = json_object_new_object();
    json_object_object_add(totals, "launches", json_object_new_uint64(d->nlaunches));
    json_object_object_add(totals, "warp_instructions", json_object_new_uint64(winsns));
    json_object_object_add(totals, "thread_instructions", json_object_new_uint64(tinsns));
    json_object_object_add(totals, "host_seconds", json_object_new_double(secs));
    json_object_object_add(totals, "emulated_ns", json_object_new_uint64(ns));
    json_object_object_add(totals, "printf_bytes", json_object_new_uint64(pbytes));
    json_object_object_add(totals, "printf_dropped", json_object_new_uint64(pdropped));
    json_object_object_add(root, "device", json_object_new_string(d->props.name));
    json_object_object_add(root, "config", config_json(&d->cfg));
    json_object_object_add(root, "launches", launches);
    json_object_object_add(root, "totals", totals);
    const char *text = json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY |
                                                                JSON_C_TO_STRING_NOSLASHESCAPE);
    int rc = fprintf(f, "%s\n", text) < 0 ? -1 : 0;
    json_object_put(root);
    return rc;
}
