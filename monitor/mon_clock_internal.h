/*
 * mon_clock_internal.h - the trace clock: which clock stamps the events,
 * how fast it runs, and how its ticks map to wall-clock time.
 *
 * Why a TSC clock: on the ring benchmark clock_gettime(CLOCK_MONOTONIC) was
 * two thirds of the monitoring cost (~22 ns a call on the development VM,
 * rdtsc ~9.5 ns). Where the TSC is invariant (constant rate, never stops)
 * the events carry raw TSC ticks and the metadata declares the clock's
 * frequency and offset, so babeltrace2 and our reader convert to time; no
 * event pays for a conversion. CLOCK_MONOTONIC (ticks = ns) stays as the
 * fallback: no invariant TSC, not x86, a kernel that distrusts its TSC,
 * an implausible calibration, or MON_CLOCK=monotonic in the environment.
 */
#ifndef MON_CLOCK_INTERNAL_H
#define MON_CLOCK_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define MON_HAVE_TSC 1
#else
#define MON_HAVE_TSC 0
#endif

/* The environment variable choosing the clock: "monotonic" forces
 * CLOCK_MONOTONIC, "tsc" or unset/empty means the TSC where it is usable. */
#define MON_CLOCK_ENV "MON_CLOCK"

/* Calibration at open: two (TSC, CLOCK_MONOTONIC) readings at least this
 * far apart (~5 ppm on the development VM). Short, because every monitored
 * program waits for it; mon_close measures again over the whole run (at
 * least MON_CLOCK_REFINE_NS), and a time's error is the frequency's error
 * times the run's length, so a short run needs no better. */
#define MON_CLOCK_CALIBRATION_NS UINT64_C(5000000)
#define MON_CLOCK_REFINE_NS UINT64_C(20000000)

/* A calibrated frequency outside this range is taken as a broken TSC. */
#define MON_TSC_FREQ_MIN UINT64_C(100000000)
#define MON_TSC_FREQ_MAX UINT64_C(20000000000)

typedef struct mon_clock {
    bool tsc;                  /* ticks are TSC cycles, else CLOCK_MONOTONIC ns */
    uint64_t freq;             /* ticks per second */
    uint64_t start_ticks;      /* the trace clock at open */
    uint64_t wall_start_ns;    /* CLOCK_REALTIME at open */
    uint64_t mono_start_ns;    /* CLOCK_MONOTONIC at open */
    /* The CTF clock offset: wall time = offset_s + (offset_ticks + t) / freq
     * seconds for an event at tick t; offset_ticks < freq. */
    uint64_t offset_s;
    uint64_t offset_ticks;
    uint64_t offset_ns;        /* the same offset in ns (wall = ns(t) + offset_ns) */
    uint64_t resolution_ns;    /* clock_getres of CLOCK_MONOTONIC, or 1 for the TSC */
    uint64_t precision_ticks;  /* uncertainty of the offset, in ticks */
    /* The TSC calibration against CLOCK_MONOTONIC (zeros without TSC). */
    uint64_t cal_interval_ns;  /* CLOCK_MONOTONIC between the two readings */
    uint64_t cal_ticks;        /* TSC ticks between them */
    uint64_t cal_uncertainty_ns; /* half the widths of the two bracketing windows */
    uint64_t cal_first_ticks;  /* the first calibration reading, kept so that */
    uint64_t cal_first_ns;     /* mon_clock_refine can span the whole run */
    uint64_t cal_first_width_ns;
    bool refined;              /* the frequency spans the run (mon_clock_refine) */
    char why[160];             /* why this clock: shown in run.json */
} mon_clock;

/* The current TSC (0 where there is none). Not serialising: events of one
 * worker are clamped to never go back (mon_writer.c), which absorbs the
 * few cycles an unfenced read may move, and a fence would cost more than
 * the read itself. */
static inline uint64_t mon_tsc_read(void)
{
#if MON_HAVE_TSC
    return __rdtsc();
#else
    return 0;
#endif
}

static inline uint64_t mon_clock_ns(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* CLOCK_MONOTONIC as the trace clock (ticks = ns). */
void mon_clock_init_monotonic(mon_clock *c, const char *why);

/* The best clock available: the TSC when it is invariant and trusted,
 * calibrated now (takes ~MON_CLOCK_CALIBRATION_NS), else CLOCK_MONOTONIC.
 * env is the value of MON_CLOCK (NULL if unset). */
void mon_clock_init(mon_clock *c, const char *env);

/* At the end of a run of at least MON_CLOCK_REFINE_NS: calibrate the TSC
 * frequency again over the whole run (first calibration reading to now),
 * more exact than at open the longer the run, and recompute the offset
 * for it. Returns true if c changed (the metadata must then be written
 * again). No-op for CLOCK_MONOTONIC. */
bool mon_clock_refine(mon_clock *c);

/* Set the offset fields for a clock whose tick count was start_ticks when
 * CLOCK_REALTIME read wall_ns (c->freq set). */
void mon_clock_set_offset(mon_clock *c, uint64_t wall_ns, uint64_t start_ticks);

/* The clock-skew test hook (MON_CLOCK_SKEW in mon.h): a process whose
 * clock is off by offset_ticks at base and runs (1 + drift) times as fast
 * records t + offset_ticks + drift * (t - base) for a reading t. */
typedef struct mon_skew {
    int64_t offset_ticks;
    double drift;
    uint64_t base;
} mon_skew;

static inline uint64_t mon_skew_apply(const mon_skew *s, uint64_t t)
{
    double d = s->drift * (double)(int64_t)(t - s->base);
    int64_t v = (int64_t)t + s->offset_ticks + (int64_t)d;
    return v < 0 ? 0 : (uint64_t)v;
}

/* Parse MON_CLOCK_SKEW's value for the process of rank `rank` of clock c
 * (now: its reading at the start). Returns 1 and fills *s when it applies
 * to this rank, 0 when it does not (or env is NULL/empty), -1 with a
 * message when the value is malformed. */
int mon_skew_parse(const char *env, int rank, const mon_clock *c, uint64_t now, mon_skew *s,
                   char *err, size_t errlen);

/* True if the CPU reports an invariant TSC (CPUID 0x80000007 EDX bit 8). */
bool mon_cpu_has_invariant_tsc(void);

#endif /* MON_CLOCK_INTERNAL_H */
