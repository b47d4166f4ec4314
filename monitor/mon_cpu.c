/*
 * mon_cpu.c - reading a worker thread's CPU time and involuntary context
 * switches (mon_cpu_internal.h says why at most once per MON_CPU_STEP_NS).
 *
 * Two system calls: clock_gettime(CLOCK_THREAD_CPUTIME_ID) for the CPU
 * time, getrusage(RUSAGE_THREAD) for the involuntary switches (ru_nivcsw).
 * getrusage alone would give both, but for the calling thread it reports
 * the CPU time the scheduler last accounted, up to a tick (4 ms at 250 Hz)
 * behind: on the development VM consecutive readings 2.3 ms apart, with the
 * thread running all along, gave the same CPU time. clock_gettime brings
 * the thread's count up to date first (and measured 0.85-1.0 us, getrusage
 * 0.48-0.57 us, under load 19). The readings are differences from the
 * thread's own counts at its worker_start, so they are exact however many
 * are taken. (RUSAGE_THREAD is a GNU extension: the build defines
 * _GNU_SOURCE.)
 */
#include "mon_cpu_internal.h"

#include <sys/resource.h>
#include <time.h>

static bool thread_usage(uint64_t *cpu_ns, uint64_t *switches)
{
    struct timespec ts;
    struct rusage ru;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0 || getrusage(RUSAGE_THREAD, &ru) != 0)
        return false;
    *cpu_ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
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
