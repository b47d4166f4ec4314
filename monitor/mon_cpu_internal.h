/*
 * mon_cpu_internal.h - the worker thread's CPU time and involuntary
 * context switches, read for the cpu_time event (flag C, docs/LOGFORMAT.md
 * section 5).
 *
 * Why a reading is rate-limited: the kernel gives a thread's CPU time only
 * through system calls (two, about 1.5 us together on the development VM,
 * against about 10 ns for a whole event: mon_cpu.c), so reading it at every
 * task switch would cost more than the rest of the monitor. A reading is
 * taken at a task switch only when at least MON_CPU_STEP_NS of trace time
 * have passed since the worker's previous one, which bounds its cost at
 * one reading per MON_CPU_STEP_NS per worker (about 0.15 %). Nothing is lost
 * by that: the readings are cumulative, so the CPU time between any two of
 * them is exact, and a period the OS took the core from is at least a
 * timeslice (milliseconds) long, so a reading ends it (the reader's period
 * layer charges the time the worker was off its core to the period a
 * reading ends, within the step: docs/METRICS.md section 3).
 */
#ifndef MON_CPU_INTERNAL_H
#define MON_CPU_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

/* The least trace time between two readings of one worker. */
#define MON_CPU_STEP_NS UINT64_C(1000000)

typedef struct mon_cpu {
    uint64_t step_ticks;  /* MON_CPU_STEP_NS in ticks of the trace clock */
    uint64_t last_ticks;  /* trace clock at the last reading */
    uint64_t base_ns;     /* the thread's CPU time at mon_cpu_start */
    uint64_t base_switches; /* and its involuntary context switches */
    bool ok;              /* the system tells a thread's CPU time */
} mon_cpu;

/* Start counting on the calling (worker) thread at trace time `now`
 * (ticks of a clock of `freq` per second). */
void mon_cpu_start(mon_cpu *c, uint64_t freq, uint64_t now);

/* Whether a reading is due at `now`: the step has passed since the last. */
static inline bool mon_cpu_due(const mon_cpu *c, uint64_t now)
{
    return c->ok && now - c->last_ticks >= c->step_ticks;
}

/* The calling thread's CPU time (ns) and involuntary context switches
 * since mon_cpu_start, read at trace time `now`; false when the system
 * cannot tell (then nothing is recorded). */
bool mon_cpu_read(mon_cpu *c, uint64_t now, uint64_t *cpu_ns, uint64_t *switches);

#endif /* MON_CPU_INTERNAL_H */
