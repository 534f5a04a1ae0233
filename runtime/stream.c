/*
 * stream.c - streams and events.
 *
 * Every operation runs to completion when issued, so a stream is only a handle (checked
 * by a magic word) and synchronizing reports the sticky error. An event records the host
 * wall-clock time (CLOCK_MONOTONIC) when cudaEventRecord is called; elapsed times are
 * therefore the host time spent emulating, in milliseconds.
 */
#include <stdlib.h>
#include <time.h>

#include "rt.h"

#define RT_STREAM_MAGIC 0x5354524du /* "STRM" */
#define RT_EVENT_MAGIC 0x45564e54u  /* "EVNT" */

struct CUstream_st {
    uint32_t magic;
    unsigned flags;
};

struct CUevent_st {
    uint32_t magic;
    unsigned flags;
    int recorded;
    double ms; /* host time at the record, in milliseconds */
};

static int rt_stream_ok(cudaStream_t s)
{
    return !s || s->magic == RT_STREAM_MAGIC;
}

static int rt_event_ok(cudaEvent_t e)
{
    return e && e->magic == RT_EVENT_MAGIC;
}

cudaError_t cudaStreamCreateWithFlags(cudaStream_t *stream, unsigned int flags)
{
    if (!stream)
        return rt_error(rt_ctx(), cudaErrorInvalidValue);
    cudaStream_t s = calloc(1, sizeof *s);
    if (!s)
        return rt_error(rt_ctx(), cudaErrorMemoryAllocation);
    s->magic = RT_STREAM_MAGIC;
    s->flags = flags;
    *stream = s;
    return cudaSuccess;
}

cudaError_t cudaStreamCreate(cudaStream_t *stream)
{
    return cudaStreamCreateWithFlags(stream, cudaStreamDefault);
}

cudaError_t cudaStreamDestroy(cudaStream_t stream)
{
    if (!stream || !rt_stream_ok(stream))
        return rt_error(rt_ctx(), cudaErrorInvalidResourceHandle);
    stream->magic = 0;
    free(stream);
    return cudaSuccess;
}

cudaError_t cudaStreamSynchronize(cudaStream_t stream)
{
    RtContext *c = rt_ctx();
    if (!rt_stream_ok(stream))
        return rt_error(c, cudaErrorInvalidResourceHandle);
    return rt_error(c, rt_device(c, NULL));
}

cudaError_t cudaStreamQuery(cudaStream_t stream)
{
    return cudaStreamSynchronize(stream); /* always complete */
}

cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int flags)
{
    if (!rt_stream_ok(stream) || !rt_event_ok(event))
        return rt_error(rt_ctx(), cudaErrorInvalidResourceHandle);
    return cudaSuccess;
}

cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int flags)
{
    if (!event)
        return rt_error(rt_ctx(), cudaErrorInvalidValue);
    cudaEvent_t e = calloc(1, sizeof *e);
    if (!e)
        return rt_error(rt_ctx(), cudaErrorMemoryAllocation);
    e->magic = RT_EVENT_MAGIC;
    e->flags = flags;
    *event = e;
    return cudaSuccess;
}

cudaError_t cudaEventCreate(cudaEvent_t *event)
{
    return cudaEventCreateWithFlags(event, cudaEventDefault);
}

static double rt_now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream)
{
    if (!rt_event_ok(event) || !rt_stream_ok(stream))
        return rt_error(rt_ctx(), cudaErrorInvalidResourceHandle);
    event->recorded = 1;
    event->ms = rt_now_ms();
    return cudaSuccess;
}

cudaError_t cudaEventSynchronize(cudaEvent_t event)
{
    RtContext *c = rt_ctx();
    if (!rt_event_ok(event))
        return rt_error(c, cudaErrorInvalidResourceHandle);
    return rt_error(c, rt_device(c, NULL));
}

cudaError_t cudaEventQuery(cudaEvent_t event)
{
    return cudaEventSynchronize(event);
}

cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end)
{
    RtContext *c = rt_ctx();
    if (!ms)
        return rt_error(c, cudaErrorInvalidValue);
    if (!rt_event_ok(start) || !rt_event_ok(end) || !start->recorded || !end->recorded ||
        ((start->flags | end->flags) & cudaEventDisableTiming))
        return rt_error(c, cudaErrorInvalidResourceHandle);
    *ms = (float)(end->ms - start->ms);
    return cudaSuccess;
}

cudaError_t cudaEventDestroy(cudaEvent_t event)
{
    if (!rt_event_ok(event))
        return rt_error(rt_ctx(), cudaErrorInvalidResourceHandle);
    event->magic = 0;
    free(event);
    return cudaSuccess;
}
