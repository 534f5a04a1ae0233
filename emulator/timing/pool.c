/*
 * pool.c - the SM-ticking threads (pool.h).
 *
 * One generation counter starts a round and one counter of finished workers ends it,
 * both C11 atomics: the caller bumps the generation, the workers see it, run, and count
 * themselves done; the caller waits for all, so everything a worker wrote is visible to
 * the caller afterwards and everything the caller wrote before the round is visible to
 * the workers. A waiting thread spins a little (a round is microseconds apart) and then
 * sleeps on the counter (a Linux futex), so an oversubscribed host, or a long stretch of
 * serial work (the memory system, placement), costs a wake-up, not a spinning core. The
 * sleeper announces itself before its last check, and the waker bumps the counter before
 * it looks for sleepers (both sequentially consistent), so no wake-up is lost.
 */
#define _GNU_SOURCE
#include "timing/pool.h"

#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#define SPINS 1000 /* checks before a waiting thread sleeps */

struct TmPool {
    unsigned n;
    TmPoolFn fn;
    void *ctx;
    pthread_t *th;
    unsigned started;
    _Alignas(64) atomic_uint gen;   /* rounds started (a futex word) */
    atomic_uint sleepers;           /* workers asleep on gen, or about to be */
    atomic_int quit;
    _Alignas(64) atomic_uint done;  /* workers done with this round (a futex word) */
    atomic_uint caller_asleep;      /* the caller sleeps on done, or is about to */
};

typedef struct Worker {
    TmPool *p;
    unsigned k;
} Worker;

static void futex_wait(atomic_uint *word, unsigned expected)
{
    syscall(SYS_futex, (uint32_t *)word, FUTEX_WAIT_PRIVATE, expected, NULL, NULL, 0);
}

static void futex_wake(atomic_uint *word, int n)
{
    syscall(SYS_futex, (uint32_t *)word, FUTEX_WAKE_PRIVATE, n, NULL, NULL, 0);
}

static inline void pause_once(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

static void *worker_main(void *arg)
{
    Worker w = *(Worker *)arg;
    TmPool *p = w.p;
    free(arg);
    unsigned seen = 0;
    for (;;) {
        unsigned spins = 0, g;
        while ((g = atomic_load(&p->gen)) == seen) {
            if (atomic_load(&p->quit))
                return NULL;
            if (spins++ < SPINS) {
                pause_once();
                continue;
            }
            atomic_fetch_add(&p->sleepers, 1);
            if (atomic_load(&p->gen) == seen && !atomic_load(&p->quit))
                futex_wait(&p->gen, seen);
            atomic_fetch_sub(&p->sleepers, 1);
        }
        seen = g;
        if (atomic_load(&p->quit))
            return NULL;
        p->fn(p->ctx, w.k, p->n);
        atomic_fetch_add(&p->done, 1);
        if (atomic_load(&p->caller_asleep))
            futex_wake(&p->done, 1);
    }
}

TmPool *tm_pool_new(unsigned n, TmPoolFn fn, void *ctx)
{
    if (n < 2)
        return NULL;
    TmPool *p = calloc(1, sizeof *p);
    if (!p || !(p->th = calloc(n - 1, sizeof *p->th))) {
        free(p);
        return NULL;
    }
    p->n = n, p->fn = fn, p->ctx = ctx;
    atomic_init(&p->gen, 0);
    atomic_init(&p->sleepers, 0);
    atomic_init(&p->quit, 0);
    atomic_init(&p->done, 0);
    atomic_init(&p->caller_asleep, 0);
    for (unsigned k = 1; k < n; k++) {
        Worker *w = malloc(sizeof *w);
        if (w)
            *w = (Worker){p, k};
        if (!w || pthread_create(&p->th[k - 1], NULL, worker_main, w) != 0) {
            free(w);
            tm_pool_free(p);
            return NULL;
        }
        p->started++;
    }
    return p;
}

unsigned tm_pool_size(const TmPool *p)
{
    return p ? p->n : 1;
}

void tm_pool_run(TmPool *p)
{
    atomic_store(&p->done, 0);
    atomic_fetch_add(&p->gen, 1);
    if (atomic_load(&p->sleepers))
        futex_wake(&p->gen, INT_MAX);
    p->fn(p->ctx, 0, p->n);
    unsigned spins = 0, d;
    while ((d = atomic_load(&p->done)) != p->n - 1) {
        if (spins++ < SPINS) {
            pause_once();
            continue;
        }
        atomic_store(&p->caller_asleep, 1);
        if (atomic_load(&p->done) == d)
            futex_wait(&p->done, d);
        atomic_store(&p->caller_asleep, 0);
    }
}

void tm_pool_free(TmPool *p)
{
    if (!p)
        return;
    atomic_store(&p->quit, 1);
    atomic_fetch_add(&p->gen, 1);
    futex_wake(&p->gen, INT_MAX);
    for (unsigned k = 0; k < p->started; k++)
        pthread_join(p->th[k], NULL);
    free(p->th);
    free(p);
}

unsigned tm_host_cores(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (unsigned)n : 1;
}
