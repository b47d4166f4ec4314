/*
 * whatif.h - what a run would gain if a task were faster (`snetmon whatif`),
 * and the replay of a recorded run under changed execution times or another
 * placement that answers it and the mapping advice's model alike: the whole
 * interface of the whatif library (whatif/, prefix whatif_). Every figure is
 * defined in docs/METRICS.md, section 11 (the replay's model in section 9
 * too).
 *
 * Three parts:
 *
 *   the model   a recorded run reduced to units of work and the events that
 *               order them (whatif_model_from_trace: every task's stream
 *               reads and writes, so messages, stream capacity and
 *               back-pressure, the mapping and the workers' occupancy;
 *               whatif_model_from_executions: the component executions and
 *               the messages between them, for the mapping advice;
 *               whatif_model_from_activities: an activity DAG, its
 *               dependencies and its hosts' slots);
 *   the replay  the model run again with some tasks' work scaled, or the
 *               tasks placed elsewhere (whatif_replay): the one replay of
 *               the project, which `advise` uses too;
 *   the profile for every task kind and net path (or the tasks a pattern
 *               selects), the predicted throughput (eq. 1), latency (eq. 2)
 *               and speedup if its executions took X % less time
 *               (whatif_profile_compute), and its text, JSON and CSV.
 *
 * Why a library of its own: the profile, the advice and the report's
 * section share one replay, and the replay needs nothing of METIS, which
 * only the advice links.
 */
#ifndef WHATIF_H
#define WHATIF_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "mon_reader.h"
#include "wfb.h"

/* ---- the model ------------------------------------------------------------ */

typedef struct whatif_model whatif_model;

/* Where a model came from. */
typedef enum whatif_source {
    WHATIF_SOURCE_STREAMS = 0, /* an LPEL trace's stream events (flags tTS, m names) */
    WHATIF_SOURCE_EXECUTIONS,  /* an LPEL trace's component executions and messages */
    WHATIF_SOURCE_ACTIVITIES   /* an activity DAG (WfCommons, NetLogger, JSONL) */
} whatif_source;

/* How a worker picks among its ready units: the one that became ready first
 * (LPEL's FIFO ready queue), or the one whose next event came first in the
 * recorded run (the order the recorded scheduler chose). */
typedef enum whatif_order {
    WHATIF_ORDER_FIFO = 0,
    WHATIF_ORDER_RECORDED
} whatif_order;

/* The next event of a trace, in the reader's order: 1 with *ev set, 0 at
 * the end, -1 on an error the source has reported. */
typedef int (*whatif_next_fn)(void *ctx, mon_event *ev);

/* The model of the one run of an LPEL trace from its events. Needs the
 * flags t, T and S (m for names, W for the measured span); a trace of
 * several runs, or of a run across MPI ranks, is refused. 0, or -1 with err
 * set (the source's own errors: err's message is empty). */
int whatif_model_from_trace(whatif_next_fn next, void *ctx, whatif_model **out, wfb_error *err);

/* The model of an activity DAG (a finished graph whose vertices are
 * activities with DEPEND edges): each activity one unit of its duration,
 * started once its parents have ended, on its host (the resources
 * attribute) with as many slots as the host ran activities at once in the
 * recorded run (one host of unlimited slots when none is recorded). 0, or
 * -1 with err set. */
int whatif_model_from_activities(const wfb_graph *g, whatif_model **out, wfb_error *err);

/* The model the mapping advice replays (docs/METRICS.md section 9): the
 * component executions of run `run` of g, each a unit of its execution
 * time that waits for the executions that wrote the messages it read.
 * task_of maps the graph's task index (wfb_task_stats_at) to the caller's
 * task, 0 .. n_tasks - 1 (WFB_NONE: another run); an execution of no known
 * task belongs to task 0's worker. Workers pick by the recorded order.
 * NULL when out of memory. */
whatif_model *whatif_model_from_executions(const wfb_graph *g, const uint32_t *task_of,
                                           size_t n_tasks);

void whatif_model_free(whatif_model *m);

/* The model's tasks (an LPEL task, an activity; the caller's tasks for
 * whatif_model_from_executions): name (NULL when unnamed), id in the trace
 * (the vertex of an activity), worker in the recorded run, execution time
 * and the part of it a factor scales (a task's component executions where
 * it has any, else all of it; docs/METRICS.md section 11). */
size_t whatif_model_task_count(const whatif_model *m);
const char *whatif_model_task_name(const whatif_model *m, size_t task);
uint64_t whatif_model_task_id(const whatif_model *m, size_t task);
uint32_t whatif_model_task_worker(const whatif_model *m, size_t task);
double whatif_model_task_exec(const whatif_model *m, size_t task);
double whatif_model_task_work(const whatif_model *m, size_t task);
unsigned whatif_model_workers(const whatif_model *m);
whatif_source whatif_model_source(const whatif_model *m);
/* The recorded run's span (eq. 1's denominator; a DAG's makespan), NAN
 * unknown, with why. */
double whatif_model_measured_span(const whatif_model *m, const char **why);
/* Steps and dependencies: what one replay costs. */
size_t whatif_model_size(const whatif_model *m);

/* ---- the replay --------------------------------------------------------- */

typedef struct whatif_scenario {
    const double *factor;  /* per task: its scalable work times this; NULL: all 1 */
    const uint32_t *where; /* per task: its worker; NULL: where it ran */
    unsigned cores;        /* workers sharing cores, worker w on core w mod cores
                              (as LPEL pins them); 0: a core per worker */
    double message_cost_s; /* added to an item that crosses workers */
} whatif_scenario;

/* The model run again: each unit on its task's worker's core, one unit at
 * a time per core slot (not preempted: it runs until it waits for an event
 * of another unit, yields or ends), its work scaled by its task's factor,
 * every event once the events it depends on have happened (plus the
 * message cost across workers). Returns the time the last unit ended (all
 * start at 0), -1 when out of memory, or -2 when some unit waited for ever
 * (a model whose dependencies the recorded run could not have had; the
 * builders add none that goes back in the run's order). s may be NULL (the
 * recorded run).
 * Not thread-safe: the model keeps the replay's scratch space. */
double whatif_replay(whatif_model *m, const whatif_scenario *s);

/* ---- the causal profile ---------------------------------------------------- */

#define WHATIF_MAX_FACTORS 16
#define WHATIF_TOP 10   /* net paths listed */
#define WHATIF_KINDS 32 /* kinds listed at least */

typedef struct whatif_options {
    double faster_pct[WHATIF_MAX_FACTORS]; /* X: executions take X % less time
                                              (100: free; negative: slower) */
    size_t n_faster;            /* 0: 10, 25, 50, 100 */
    const char *tasks_pattern;  /* pcre2 over task names: one question about the
                                   tasks it matches; NULL: the whole profile */
    size_t top;                 /* net paths listed (0: WHATIF_TOP) */
} whatif_options;

typedef enum whatif_group_kind {
    WHATIF_GROUP_KIND = 0, /* the tasks of one kind (mon_task_kind), or one activity name */
    WHATIF_GROUP_PATH,     /* the tasks of one net path (name); an activity */
    WHATIF_GROUP_PATTERN   /* the tasks --tasks matched */
} whatif_group_kind;

/* The predicted figures of the run with a group X % faster. */
typedef struct whatif_prediction {
    double faster_pct;
    double replay_s;         /* the replay with the group's work scaled */
    double span_s;           /* predicted span: replay + the time the model does not see */
    double throughput_per_s; /* eq. 1: inputs / span; NAN without inputs */
    double speedup;          /* current span / predicted span */
    double latency_mean_s;   /* eq. 2 over the inputs; NAN unknown */
    double latency_p95_s;
} whatif_prediction;

typedef struct whatif_row {
    whatif_group_kind kind;
    char *label;             /* the kind, net path, activity or pattern */
    size_t tasks;
    double exec_s, work_s;   /* their execution time, the scalable part */
    int replayed;            /* 0: below the bound, not replayed (gain at most work_s) */
    whatif_prediction *at;   /* n_faster entries */
} whatif_row;

typedef struct whatif_profile {
    whatif_source source;
    size_t n_faster;
    double faster_pct[WHATIF_MAX_FACTORS];
    /* the run as recorded */
    size_t inputs;              /* N_input (eq. 1); 0 for a DAG */
    double span_s;              /* measured span (eq. 1's denominator; a DAG's makespan);
                                   the replay's when unknown: */
    const char *span_unknown_why;
    double throughput_per_s;    /* eq. 1; NAN unknown */
    double latency_mean_s, latency_p95_s; /* eq. 2; NAN unknown */
    const char *throughput_unknown_why, *latency_unknown_why;
    double replay_s;            /* the replay of the model unchanged */
    double unexplained_s;       /* span - replay (>= 0): added to every prediction */
    double stretch;             /* > 1 when the replay exceeds the span: predictions
                                   scaled by span / replay instead */
    size_t tasks;               /* tasks in the model */
    double exec_s;              /* all their execution time */
    size_t replays;             /* replays run */
    /* one question (tasks_pattern): rows[0]; else the kinds (n_kinds), then
       the top net paths, each part by the predicted effect at the largest X
       (a DAG whose activities have names of their own: its activities only) */
    size_t n_rows, n_kinds;
    whatif_row *rows;
    size_t kinds_skipped, paths_skipped; /* groups not listed */
} whatif_profile;

/* The profile of the model m, with the eq. 2 latencies from g (the same
 * trace analysed by the bridge, lifted in memory, not wfb_graph_bounded;
 * NULL or a graph without messages: n/a) and
 * the inputs from its message metrics. 0, or -1 with err set (a bad
 * pattern, a pattern matching no task, out of memory). */
int whatif_profile_compute(whatif_model *m, const wfb_graph *g, const whatif_options *opt,
                           whatif_profile *out, wfb_error *err);
void whatif_profile_free(whatif_profile *p);

/* The profile as a ranked table with the current figures, as CSV (one row
 * per group and X), or as JSON (one question's object carries the
 * predicted throughput speedup as `speedup`). 0, or -1 when writing
 * failed. */
int whatif_profile_print(const whatif_profile *p, const char *source, wfb_output fmt, FILE *out);

#endif /* WHATIF_H */
