/*
 * pool.h - the host threads that tick a launch's SMs in timing mode (emu.threads;
 * gpu_cycle.c).
 *
 * The device loop calls tm_pool_run once per cycle whose SMs tick in parallel: every
 * worker, and the calling thread as worker 0, runs fn(ctx, k, n) for its index k of n,
 * and tm_pool_run returns once all have. Between calls the workers spin briefly and then
 * sleep, so a cycle usually costs two exchanges of a cache line, not a system call.
 * Which worker runs which SM never changes a result: each SM touches only its own state
 * during its tick (gpu_cycle.c).
 */
#ifndef EMU_TIMING_POOL_H
#define EMU_TIMING_POOL_H

typedef struct TmPool TmPool;
typedef void (*TmPoolFn)(void *ctx, unsigned k, unsigned n);

/* A pool of n workers in all (n - 1 threads besides the caller), or NULL when n < 2 or
 * the threads cannot be started (the loop then runs alone, with the same results). */
TmPool *tm_pool_new(unsigned n, TmPoolFn fn, void *ctx);
unsigned tm_pool_size(const TmPool *p);
void tm_pool_run(TmPool *p);
void tm_pool_free(TmPool *p);
/* The host's cores (emu.threads = 0). */
unsigned tm_host_cores(void);

#endif
