/*
 * bench.h - shared pieces of lpel-bench: the clock and the pthreads
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

/* Each returns the elapsed nanoseconds of the measured part. */
double bench_pthreads_ctx(long switches);
double bench_pthreads_ring(long tasks, long rounds);
double bench_pthreads_pipe(long depth, long messages, size_t capacity);
double bench_pthreads_create(long count);

#endif
