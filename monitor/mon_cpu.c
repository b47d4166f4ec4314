/*
 * mon_cpu.c - reading a worker thread's CPU time and involuntary context
 * switches (mon_cpu_internal.h says why at most once per MON_CPU_STEP_NS).
 *
 * getrusage(RUSAGE_THREAD) gives both in one system call (CPU time in
 * microseconds: the kernel's ns figure, rounded down), where
 * clock_gettime(CLOCK_THREAD_CPUTIME_ID) would need a second call for the
 * switches and measured slower on the development VM (3.8 against 2.1 us
 * under load). The readings are differences from the thread's own count
 * at its worker_start, so they are exact to the microsecond however many
 * are taken. (RUSAGE_THREAD is a GNU extension: the build defines
 * _GNU_SOURCE.)
 */
#include "mon_cpu_internal.h"

#include <sys/resource.h>

static bool thread_usage(uint64_t *cpu_ns, uint64_t *switches)
{
    struct rusage ru;
    if (getrusage(RUSAGE_THREAD, &ru) != 0)
        return false;
    uint64_t us = (uint64_t)ru.ru_utime.tv_sec * 1000000u + (uint64_t)ru.ru_utime.tv_usec +
                  (uint64_t)ru.ru_stime.tv_sec * 1000000u + (uint64_t)ru.ru_stime.tv_usec;
    *cpu_ns = us * 1000u;
    *switches = (uint64_t)ru.ru_nivcsw;
    return true;
}

void mon_cpu_start(mon_cpu *c, uint64_t freq, uint64_t now)
{
    /* freq <= 1.8e10 (the clock's bound), so the product fits. */
    c->step_ticks = MON_CPU_STEP_NS * freq / 1000000000u;
    c->last_ticks = now;
    c->ok = thread_usage(&c->base_ns, &c->base_switches);
}

bool mon_cpu_read(mon_cpu *c, uint64_t now, uint64_t *cpu_ns, uint64_t *switches)
{
    uint64_t ns, sw;
    if (!c->ok || !thread_usage(&ns, &sw))
        return false;
    c->last_ticks = now;
    *cpu_ns = ns >= c->base_ns ? ns - c->base_ns : 0;
    *switches = sw >= c->base_switches ? sw - c->base_switches : 0;
    return true;
}
