/*
 * live.h - the live figures of a run (what `snetmon top` shows), fed one
 * trace event at a time, so that a run in progress is followed without
 * reading its trace twice. The library's whole interface (live/, prefix
 * live_; it needs only the trace reader, mon_reader).
 *
 * Why not the workflow bridge's lifter: its per-worker and per-task tables
 * are only readable once the whole trace is lifted (wfb_lifter_finish), and
 * the lifter builds the message graph, which grows with every message of a
 * long run. This accumulator keeps only a fixed amount per worker and per
 * task (and the messages written but not read yet), and applies the same
 * definitions (docs/METRICS.md section 3) up to any moment T; on a finished
 * trace its figures are those of `snetmon metrics`. The windowed figures
 * ("over the last interval", docs/METRICS.md section 8) come from time bins
 * of a tenth of the interval.
 */
#ifndef LIVE_H
#define LIVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mon_reader.h"

typedef struct live_acc live_acc;

/* interval_ns: the length of "the last interval" (> 0). NULL when out of
 * memory. */
live_acc *live_acc_new(uint64_t interval_ns);
void live_acc_free(live_acc *a);

/* Take one event (in the reader's time order). 0, or -1 out of memory. */
int live_acc_feed(live_acc *a, const mon_event *ev);

/* A worker's figures at the snapshot's time T. Times in ns. */
typedef struct live_worker {
    unsigned worker;
    uint32_t run;          /* the run its latest events belong to */
    const char *state;     /* "running", "waiting", "scheduling", "ended", "not started" */
    bool has_span;         /* worker_start seen (the W flag) */
    /* So far (every run). */
    uint64_t span_ns;      /* worker_start to worker_end, or to T when still going */
    uint64_t busy_ns;      /* execution periods, the current one to T */
    uint64_t wait_ns;      /* worker_wait to worker_resume, the current one to T */
    uint64_t waits;        /* worker_wait events (WE) */
    int64_t unaccounted_ns;/* span - busy - wait (has_span) */
    uint64_t blocked_ns;   /* its tasks' waits ended by a dispatch: blocked (to the wake) */
    uint64_t ready_ns;     /*   and ready (the wake to the dispatch: waiting for it) */
    bool cpu_known;        /* CPU readings (flag C), up to the latest: */
    uint64_t cpu_ns;       /*   its thread's CPU time */
    uint64_t preempted_ns; /*   the time it was neither idle nor on a core */
    uint64_t preemptions;  /*   involuntary context switches */
    /* Over the last interval [window_start, T]. */
    uint64_t win_alive_ns; /* the part of the window within its span (the
                              window's length without has_span) */
    uint64_t win_busy_ns, win_wait_ns;
    int64_t win_unaccounted_ns; /* alive - busy - wait (has_span) */
    uint64_t win_waits;    /* worker_wait events in the window */
} live_worker;

typedef struct live_task {
    uint32_t run;
    uint64_t task;
    const char *name;      /* "" before its task_map */
    unsigned worker;
    uint64_t exec_ns;      /* execution periods so far, the current one to T */
    uint64_t win_exec_ns;  /* ... within the last interval */
    uint64_t dispatches;
    bool running;
    uint64_t blocked_ns, ready_ns; /* its waits ended by a dispatch, split at the wake */
} live_task;

typedef struct live_snapshot {
    uint64_t time_ns;       /* T: the moment of the figures, live_acc_snapshot_at's */
    uint64_t latest_ns;     /* the latest event read (<= T) */
    uint64_t first_ns;      /* the earliest worker_start (else the first event) */
    uint64_t window_start_ns;
    uint64_t events;        /* events read */
    uint64_t inputs;        /* N_input so far */
    uint32_t runs;          /* the highest run number seen */
    bool has_span;          /* some worker has worker_start */
    uint64_t span_max_ns;   /* the longest worker execution time so far */
    unsigned span_worker;
    /* Eq. 1's denominator (docs/METRICS.md section 2): the longest worker
     * span of each run with inputs, added up (span_max_ns when one run). */
    uint64_t throughput_span_ns;
    uint32_t runs_without_inputs;
    bool has_periods;       /* some task_dispatch (the T flag) */
    size_t n_workers;
    live_worker *workers;    /* by worker number */
    size_t n_tasks;
    live_task *tasks;        /* by execution time in the window, then so far */
} live_snapshot;

/* The figures at T = the latest event fed; the snapshot's arrays belong to
 * a and are valid until the next feed or snapshot. 0, or -1 out of
 * memory. */
int live_acc_snapshot(live_acc *a, live_snapshot *out);

/* The same at T = at (ns on the trace clock), or the latest event when
 * that is later: a run still going on is counted up to the moment of the
 * refresh, so an execution, a wait or a worker's span still open then is
 * counted up to it (the G-PM rule for a measurement that falls inside a
 * call: a long box shows busy, not idle, while it runs). The caller gives
 * `at` only for a run that is still going on and whose events up to `at`
 * have been fed (as far as they are published). */
int live_acc_snapshot_at(live_acc *a, uint64_t at, live_snapshot *out);

#endif
