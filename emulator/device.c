/*
 * device.c - device creation and teardown, derived properties, status names.
 *
 * A system (EmuSystem) holds one finished configuration, read from the environment or
 * given; each GPU of it is a device made from a copy of that configuration, in its own
 * part of the global window. The properties programs see (EmuProps) are derived from the
 * configuration here and never change afterwards. With
 * emu.summary (XGPU_SUMMARY=1) emu_destroy prints the statistics summary on stderr.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "device.h"

const char *emu_status_name(EmuStatus s)
{
    static const char *const names[] = {
        [EMU_OK] = "ok",
        [EMU_ERR_INVALID_VALUE] = "invalid value",
        [EMU_ERR_OUT_OF_MEMORY] = "out of memory",
        [EMU_ERR_INVALID_IMAGE] = "invalid image",
        [EMU_ERR_NOT_FOUND] = "not found",
        [EMU_ERR_INVALID_CONFIG] = "invalid configuration",
        [EMU_ERR_ILLEGAL_ADDRESS] = "illegal address",
        [EMU_ERR_MISALIGNED] = "misaligned address",
        [EMU_ERR_LAUNCH_FAILURE] = "launch failure",
        [EMU_ERR_LAUNCH_TIMEOUT] = "launch timeout",
        [EMU_ERR_DEADLOCK] = "barrier deadlock",
        [EMU_ERR_OUT_OF_RESOURCES] = "out of resources",
    };
    if ((unsigned)s >= sizeof names / sizeof names[0] || !names[s])
        return "unknown status";
    return names[s];
}

static void derive_props(const EmuConfig *c, EmuProps *p)
{
    memset(p, 0, sizeof *p);
    snprintf(p->name, sizeof p->name, "%s", c->gpu_name);
    p->sm_count = c->gpu_sm_count * emu_config_device_gpus(c);
    p->warp_size = XGPU_WARP_SIZE;
    p->max_threads_per_block = c->gpu_max_threads_per_block;
    p->max_threads_per_sm = c->gpu_max_threads_per_sm;
    p->max_blocks_per_sm = c->core_max_ctas_per_sm;
    p->max_block_dim[0] = p->max_block_dim[1] = c->gpu_max_threads_per_block;
    p->max_block_dim[2] = c->gpu_max_threads_per_block < 64 ? c->gpu_max_threads_per_block : 64;
    p->max_grid_dim[0] = 0x7fffffffu;
    p->max_grid_dim[1] = p->max_grid_dim[2] = 65535;
    p->regs_per_sm = c->gpu_regs_per_sm;
    p->regs_per_block = c->gpu_regs_per_sm;
    p->shared_per_block = c->gpu_shared_per_block;
    p->shared_per_sm = c->gpu_shared_per_sm;
    p->global_mem_bytes = c->gpu_global_mem_bytes * emu_config_device_gpus(c);
    p->const_mem_bytes = c->gpu_const_mem_bytes;
    p->clock_khz = c->gpu_clock_khz;
    p->cc_major = c->gpu_cc_major;
    p->cc_minor = c->gpu_cc_minor;
}

/* The part of the global window device index of a system of emu_config_devices(cfg)
 * allocates from (isa.h): one XGPU_GPU_SPAN each, the last one's up to the window's end. */
static void gpu_range(const EmuConfig *cfg, uint32_t index, uint64_t *base, uint64_t *limit)
{
    *base = XGPU_GLOBAL_BASE + XGPU_GPU_SPAN * index;
    *limit = index + 1 == emu_config_devices(cfg) ? XGPU_PARAM_BASE : *base + XGPU_GPU_SPAN;
}

/* GPU index of the system cfg (a finished, checked configuration) describes. */
static EmuStatus device_new(EmuDevice **out, const EmuConfig *cfg, uint32_t index, char *err,
                            size_t errlen)
{
    char dummy[8];
    if (!err)
        err = dummy, errlen = sizeof dummy;
    if (!out) {
        snprintf(err, errlen, "emu_create: no output pointer");
        return EMU_ERR_INVALID_VALUE;
    }
    *out = NULL;
    if (index >= emu_config_devices(cfg)) {
        snprintf(err, errlen, "no GPU %u: the system has %u device%s (system.gpus = %u, "
                 "system.memory = %s)", index, emu_config_devices(cfg),
                 emu_config_devices(cfg) == 1 ? "" : "s", cfg->system_gpus, cfg->system_memory);
        return EMU_ERR_INVALID_VALUE;
    }
    EmuDevice *d = calloc(1, sizeof *d);
    if (!d) {
        snprintf(err, errlen, "out of host memory");
        return EMU_ERR_OUT_OF_MEMORY;
    }
    d->cfg = *cfg;
    derive_props(&d->cfg, &d->props);
    d->props.gpu_index = index;
    d->props.gpus = emu_config_devices(cfg);
    d->props.device_gpus = emu_config_device_gpus(cfg);
    gpu_range(cfg, index, &d->props.global_base, &d->props.global_limit);
    emu_mem_init(&d->mem, d->props.global_mem_bytes, d->props.global_base,
                 d->props.global_limit);
    uvm_init(&d->uvm, &d->cfg);
    d->printf_fifo.limit = d->cfg.emu_printf_fifo_bytes;
    *out = d;
    return EMU_OK;
}

struct EmuSystem {
    EmuConfig cfg;
};

/* A system from the environment (env) or from config and set. */
static EmuStatus system_new(EmuSystem **out, int env, const char *config, const char *set,
                            char *err, size_t errlen)
{
    char dummy[8];
    if (!err)
        err = dummy, errlen = sizeof dummy;
    if (!out) {
        snprintf(err, errlen, "emu_system_create: no output pointer");
        return EMU_ERR_INVALID_VALUE;
    }
    *out = NULL;
    EmuSystem *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(err, errlen, "out of host memory");
        return EMU_ERR_OUT_OF_MEMORY;
    }
    if (env ? emu_config_from_env(&s->cfg, err, errlen)
            : emu_config_from(&s->cfg, config, set, err, errlen)) {
        free(s);
        return EMU_ERR_INVALID_CONFIG;
    }
    *out = s;
    return EMU_OK;
}

EmuStatus emu_system_create(EmuSystem **out, char *err, size_t errlen)
{
    return system_new(out, 1, NULL, NULL, err, errlen);
}

EmuStatus emu_system_create_with(EmuSystem **out, const char *config, const char *set,
                                 char *err, size_t errlen)
{
    return system_new(out, 0, config, set, err, errlen);
}

uint32_t emu_system_gpus(const EmuSystem *s)
{
    return s ? emu_config_devices(&s->cfg) : 0;
}

void emu_system_range(const EmuSystem *s, uint32_t i, uint64_t *base, uint64_t *limit)
{
    gpu_range(&s->cfg, i, base, limit);
}

EmuStatus emu_system_device(EmuSystem *s, uint32_t i, EmuDevice **out, char *err, size_t errlen)
{
    if (!s) {
        if (err && errlen)
            snprintf(err, errlen, "emu_system_device: no system");
        return EMU_ERR_INVALID_VALUE;
    }
    return device_new(out, &s->cfg, i, err, errlen);
}

void emu_system_destroy(EmuSystem *s)
{
    free(s);
}

/* GPU 0 of a system made for the occasion (made: its status). */
static EmuStatus first_gpu(EmuStatus made, EmuSystem *s, EmuDevice **out, char *err,
                           size_t errlen)
{
    if (made == EMU_OK)
        made = emu_system_device(s, 0, out, err, errlen);
    else if (out)
        *out = NULL;
    emu_system_destroy(s);
    return made;
}

EmuStatus emu_create(EmuDevice **out, char *err, size_t errlen)
{
    EmuSystem *s = NULL;
    EmuStatus made = emu_system_create(&s, err, errlen);
    return first_gpu(made, s, out, err, errlen);
}

EmuStatus emu_create_with(EmuDevice **out, const char *config, const char *set, char *err,
                          size_t errlen)
{
    EmuSystem *s = NULL;
    EmuStatus made = emu_system_create_with(&s, config, set, err, errlen);
    return first_gpu(made, s, out, err, errlen);
}

/* Removes x from list[*n]. */
static void peer_drop(EmuDevice **list, uint32_t *n, const EmuDevice *x)
{
    for (uint32_t i = 0; i < *n; i++)
        if (list[i] == x) {
            list[i] = list[--*n];
            return;
        }
}

EmuStatus emu_peer_enable(EmuDevice *d, EmuDevice *peer)
{
    if (!d || !peer || d == peer)
        return EMU_ERR_INVALID_VALUE;
    for (uint32_t i = 0; i < d->npeers; i++)
        if (d->peers[i] == peer)
            return EMU_OK;
    if (d->npeers == 16 || peer->npeered_by == 16)
        return EMU_ERR_INVALID_VALUE;
    d->peers[d->npeers++] = peer;
    peer->peered_by[peer->npeered_by++] = d;
    return EMU_OK;
}

void emu_peer_disable(EmuDevice *d, EmuDevice *peer)
{
    if (!d || !peer)
        return;
    peer_drop(d->peers, &d->npeers, peer);
    peer_drop(peer->peered_by, &peer->npeered_by, d);
}

const EmuProps *emu_props(const EmuDevice *d)
{
    return d ? &d->props : NULL;
}

uint64_t emu_device_time_ns(const EmuDevice *d)
{
    return d ? d->time_ns : 0;
}
