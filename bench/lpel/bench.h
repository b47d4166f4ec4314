/*
 * bench.h - shared pieces of lpel-bench: the clocks and the pthreads
 * baselines (bench_pthreads.c).
 */
#ifndef LPEL_BENCH_H
#define LPEL_BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

static inline double bench_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* CPU time of the whole process (all its threads): on a shared machine it
 * leaves out the time the workers waited for a core, which wall time does
 * not. Idle workers sleep, so it is the time spent working. */
static inline double bench_cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* Each returns the elapsed nanoseconds of the measured part. */
double bench_pthreads_ctx(long switches);
double bench_pthreads_ring(long tasks, long rounds);
double bench_pthreads_pipe(long depth, long messages, size_t capacity);
double bench_pthreads_create(long count);

#endif
