/*
 * stream.c - streams, events and host work queued on streams.
 *
 * Every operation runs to completion when it is issued, so each stream (and the default
 * stream 0, cudaStreamLegacy, cudaStreamPerThread) executes its work in issue order and
 * work on different streams executes in issue order as well: a correct program cannot
 * tell this from a GPU. A stream is a handle on the context's list; synchronizing one
 * flushes device printf and reports the sticky error.
 *
 * Events record the emulated device time (emu_device_time_ns) at cudaEventRecord, which
 * every launch advances by its emulated duration; cudaEventElapsedTime is the difference
 * in milliseconds, independent of how long the host took to emulate. An event that was
 * never recorded, or was created with cudaEventDisableTiming, makes ElapsedTime fail with
 * cudaErrorInvalidResourceHandle, as CUDA documents.
 */
#include <stdlib.h>

#include "rt.h"

/* The default stream's names; any other handle must be on the context's list. */
static int rt_is_default_stream(cudaStream_t s)
{
    return !s || s == cudaStreamLegacy || s == cudaStreamPerThread;
}

int rt_stream_ok(RtContext *c, cudaStream_t s)
{
    if (rt_is_default_stream(s))
        return 1;
    for (struct CUstream_st *p = c->streams; p; p = p->next)
        if (p == s)
            return 1;
    return 0;
}

static int rt_event_ok(RtContext *c, cudaEvent_t e)
{
    for (struct CUevent_st *p = c->events; p && e; p = p->next)
        if (p == e)
            return 1;
    return 0;
}

/* cudaDeviceReset: every stream and event handle becomes invalid. */
void rt_streams_free(RtContext *c)
{
    while (c->streams) {
        struct CUstream_st *s = c->streams;
        c->streams = s->next;
        free(s);
    }
    while (c->events) {
        struct CUevent_st *e = c->events;
        c->events = e->next;
        free(e);
    }
}

cudaError_t cudaStreamCreateWithPriority(cudaStream_t *stream, unsigned int flags, int priority)
{
    RT_ENTER(c);
    if (!stream || (flags & ~(unsigned)cudaStreamNonBlocking))
        return rt_error(c, cudaErrorInvalidValue);
    cudaError_t e = rt_device(c, NULL);
    if (e != cudaSuccess)
        return rt_error(c, e);
    struct CUstream_st *s = calloc(1, sizeof *s);
    if (!s)
        return rt_error(c, cudaErrorMemoryAllocation);
    s->flags = flags;
    s->priority = 0; /* one priority level: cudaDeviceGetStreamPriorityRange gives 0, 0 */
    s->next = c->streams;
    c->streams = s;
    *stream = s;
    return cudaSuccess;
}

cudaError_t cudaStreamCreateWithFlags(cudaStream_t *stream, unsigned int flags)
{
    return cudaStreamCreateWithPriority(stream, flags, 0);
}

cudaError_t cudaStreamCreate(cudaStream_t *stream)
{
    return cudaStreamCreateWithPriority(stream, cudaStreamDefault, 0);
}

cudaError_t cudaStreamDestroy(cudaStream_t stream)
{
    RT_ENTER(c);
    if (rt_is_default_stream(stream))
        return rt_error(c, cudaErrorInvalidResourceHandle);
    for (struct CUstream_st **p = &c->streams; *p; p = &(*p)->next)
        if (*p == stream) {
            *p = stream->next;
            free(stream);
            return cudaSuccess;
        }
    return rt_error(c, cudaErrorInvalidResourceHandle);
}

cudaError_t cudaStreamGetFlags(cudaStream_t stream, unsigned int *flags)
{
    RT_ENTER(c);
    if (!flags)
        return rt_error(c, cudaErrorInvalidValue);
    if (!rt_stream_ok(c, stream))
        return rt_error(c, cudaErrorInvalidResourceHandle);
    *flags = rt_is_default_stream(stream) ? cudaStreamDefault : stream->flags;
    return cudaSuccess;
}

cudaError_t cudaStreamGetPriority(cudaStream_t stream, int *priority)
{
    RT_ENTER(c);
    if (!priority)
        return rt_error(c, cudaErrorInvalidValue);
    if (!rt_stream_ok(c, stream))
        return rt_error(c, cudaErrorInvalidResourceHandle);
    *priority = rt_is_default_stream(stream) ? 0 : stream->priority;
    return cudaSuccess;
}

/* What a synchronizing call on a valid handle returns: flush printf (also after a
 * fault: what a kernel printed before it, such as a failed assertion, comes first),
 * report faults. */
static cudaError_t rt_sync_point(RtContext *c)
{
    rt_sync(c);
    return rt_error(c, rt_device(c, NULL));
}

cudaError_t cudaStreamSynchronize(cudaStream_t stream)
{
    RT_ENTER(c);
    if (!rt_stream_ok(c, stream))
        return rt_error(c, cudaErrorInvalidResourceHandle);
    return rt_sync_point(c);
}

/* Work is always complete, so the query succeeds (or reports the sticky fault). */
cudaError_t cudaStreamQuery(cudaStream_t stream)
{
    RT_ENTER(c);
    if (!rt_stream_ok(c, stream))
        return rt_error(c, cudaErrorInvalidResourceHandle);
    return rt_error(c, rt_device(c, NULL));
}

cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int flags)
{
    RT_ENTER(c);
    if (!rt_stream_ok(c, stream) || !rt_event_ok(c, event))
        return rt_error(c, cudaErrorInvalidResourceHandle);
    return flags & ~1u ? rt_error(c, cudaErrorInvalidValue) : cudaSuccess; /* 1: external */
}

/* Host work queued on a stream, checked under the lock; the caller runs it after the
 * lock is released (a callback may block on other threads). Sets *status to the status
 * the callback is told; printf is flushed first, as CUDA does before a callback. */
static cudaError_t rt_host_work(cudaStream_t stream, int ok, cudaError_t *status)
{
    RT_ENTER(c);
    if (!ok)
        return rt_error(c, cudaErrorInvalidValue);
    if (!rt_stream_ok(c, stream))
        return rt_error(c, cudaErrorInvalidResourceHandle);
    rt_sync(c);
    *status = rt_device(c, NULL);
    return cudaSuccess;
}

/* Host callbacks run at once, in the calling thread, outside the runtime's lock. */
cudaError_t cudaStreamAddCallback(cudaStream_t stream, cudaStreamCallback_t callback,
                                  void *userData, unsigned int flags)
{
    cudaError_t status, e = rt_host_work(stream, callback && !flags, &status);
    if (e == cudaSuccess)
        callback(stream, status, userData);
    return e;
}

cudaError_t cudaLaunchHostFunc(cudaStream_t stream, cudaHostFn_t fn, void *userData)
{
    cudaError_t status, e = rt_host_work(stream, fn != NULL, &status);
    if (e == cudaSuccess && status != cudaSuccess)
        return rt_error(rt_ctx(), status);
    if (e == cudaSuccess)
        fn(userData);
    return e;
}

cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int flags)
{
    RT_ENTER(c);
    unsigned known = cudaEventBlockingSync | cudaEventDisableTiming | cudaEventInterprocess;
    if (!event || (flags & ~known))
        return rt_error(c, cudaErrorInvalidValue);
    cudaError_t err = rt_device(c, NULL);
    if (err != cudaSuccess)
        return rt_error(c, err);
    struct CUevent_st *e = calloc(1, sizeof *e);
    if (!e)
        return rt_error(c, cudaErrorMemoryAllocation);
    e->flags = flags;
    e->next = c->events;
    c->events = e;
    *event = e;
    return cudaSuccess;
}

cudaError_t cudaEventCreate(cudaEvent_t *event)
{
    return cudaEventCreateWithFlags(event, cudaEventDefault);
}

cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream)
{
    RT_ENTER(c);
    if (!rt_event_ok(c, event) || !rt_stream_ok(c, stream))
        return rt_error(c, cudaErrorInvalidResourceHandle);
    cudaError_t e = rt_device(c, NULL);
    if (e != cudaSuccess)
        return rt_error(c, e);
    event->recorded = 1;
    event->ns = rt_device_time_ns(c);
    return cudaSuccess;
}

cudaError_t cudaEventSynchronize(cudaEvent_t event)
{
    RT_ENTER(c);
    if (!rt_event_ok(c, event))
        return rt_error(c, cudaErrorInvalidResourceHandle);
    return rt_sync_point(c);
}

/* Recorded work is always complete; an event never recorded is complete too (CUDA). */
cudaError_t cudaEventQuery(cudaEvent_t event)
{
    RT_ENTER(c);
    if (!rt_event_ok(c, event))
        return rt_error(c, cudaErrorInvalidResourceHandle);
    return rt_error(c, rt_device(c, NULL));
}

cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end)
{
    RT_ENTER(c);
    if (!ms)
        return rt_error(c, cudaErrorInvalidValue);
    if (!rt_event_ok(c, start) || !rt_event_ok(c, end) || !start->recorded ||
        !end->recorded || ((start->flags | end->flags) & cudaEventDisableTiming))
        return rt_error(c, cudaErrorInvalidResourceHandle);
    cudaError_t e = rt_device(c, NULL);
    if (e != cudaSuccess)
        return rt_error(c, e);
    *ms = (float)(((double)end->ns - (double)start->ns) / 1e6);
    return cudaSuccess;
}

cudaError_t cudaEventDestroy(cudaEvent_t event)
{
    RT_ENTER(c);
    for (struct CUevent_st **p = &c->events; *p && event; p = &(*p)->next)
        if (*p == event) {
            *p = event->next;
            free(event);
            return cudaSuccess;
        }
    return rt_error(c, cudaErrorInvalidResourceHandle);
}
