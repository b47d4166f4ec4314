/*
 * advice.h - mapping advice (`snetmon advise`): the whole interface of the
 * advice library (advice/, prefix advice_). Every figure is defined in
 * docs/METRICS.md, section 9.
 *
 * From one run of an LPEL trace, analysed by the workflow bridge (wfb.h):
 * the evidence of how its mapping performed, a prediction model of the run
 * time of a mapping, and a mapping of task names to workers that the METIS
 * graph partitioner balances over the run's workers (tasks weighted by
 * execution time, streams by items). The advice changes the mapping only
 * when the model predicts the new one faster by more than min_gain.
 *
 * A library of its own so that METIS is linked only by what advises: the
 * bridge, the pictures and the other commands do not need it.
 */
#ifndef ADVICE_H
#define ADVICE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "wfb.h"

typedef struct advice_options {
    double message_cost_s; /* c: the model's cost of one item crossing workers;
                              negative: the default, ADVICE_MESSAGE_COST_S */
    double min_gain;       /* the predicted gain (fraction) below which the
                              mapping is kept; negative: ADVICE_MIN_GAIN */
    unsigned cores;        /* the cores the run's workers shared, worker w on core
                              w mod cores (as LPEL pins them); 0: one per worker */
} advice_options;
#define ADVICE_MESSAGE_COST_S 1e-7
#define ADVICE_MIN_GAIN 0.05

/* One task name. A mapping line places names, so the tasks sharing one
 * (a parallel dispatcher and its collector) are placed together. */
typedef struct advice_group {
    const char *name;       /* interned in the graph */
    size_t tasks;           /* tasks of the run with this name */
    double exec_s;          /* their execution time */
    uint32_t worker_now;    /* the worker with most of that time */
    int split_now;          /* 1: its tasks ran on more than one worker */
    uint32_t worker_advised;
} advice_group;

typedef struct advice_worker {
    double span_s, busy_s, wait_s; /* measured (section 3); NAN unknown */
    uint64_t waits;
    double blocked_s, ready_s;  /* its tasks' waits: blocked, then ready (waiting for it) */
    double cpu_s, preempted_s;  /* its CPU time, the time the OS held its core; NAN without C */
    double load_now_s, load_advised_s; /* the model's load of the worker */
    uint64_t cross_now, cross_advised; /* items with exactly one end here */
} advice_worker;

/* A waiting relation W(A,B) of the run, with names and workers. */
typedef struct advice_wait {
    const char *waiter, *waited_for; /* NULL: unnamed or unknown task */
    uint32_t waiter_worker, waited_worker;
    int on_empty;
    uint64_t count;
    double total_s;   /* blocked: what a faster B removes */
    double ready_s;   /* then ready: what a less busy worker for A removes */
} advice_wait;

#define ADVICE_TOP_WAITS 5
#define ADVICE_TOP_GROUPS 5

typedef struct advice_result {
    uint32_t run;
    unsigned workers;
    unsigned cores;              /* min(workers, the option's cores) */
    double message_cost_s;       /* c used: the option's, or less where the measured
                                    span shows items cannot have cost that much */
    double message_cost_given_s; /* the option's c */
    double min_gain;
    size_t n_tasks;              /* tasks of the run */
    size_t n_groups;
    advice_group *groups;    /* sorted by name */
    size_t n_unnamed;            /* tasks without a name: they stay where they ran */
    double unnamed_exec_s;
    advice_worker *per_worker; /* `workers` entries */
    double *waited_s;            /* workers x workers: [a * workers + b] = seconds
                                    tasks on worker a waited for tasks on worker b */
    size_t n_top_waits;          /* the largest W(A,B), by total_s */
    advice_wait top_waits[ADVICE_TOP_WAITS];
    size_t n_top_groups;         /* indices of the heaviest names, by exec_s */
    size_t top_groups[ADVICE_TOP_GROUPS];
    double exec_s;               /* all execution time of the run */
    uint64_t items;              /* stream items (writes) of the run */
    size_t n_streams;
    uint64_t cross_now, cross_advised; /* items whose ends are on two workers */
    int streams_known;           /* 0: no stream events (flag S): no traffic */
    double critical_path_s;      /* L: the longest path of the message graph */
    double replay_now_s;         /* S: the run's component executions replayed on the
                                    current mapping (NAN: no executions) */
    double replay_advised_s;     /* S on the best mapping found */
    double measured_span_s;      /* the longest worker span (eq. 1); NAN unknown */
    double predicted_now_s;      /* the model on the current mapping */
    double predicted_advised_s;  /* the model on the best mapping found (adopted
                                    only when `change`) */
    double unexplained_s;        /* measured span - predicted_now_s (>= 0; 0 when the
                                    span is unknown): time the model does not see,
                                    taken to be the same under any mapping */
    int change;                  /* 1: the advised mapping differs and is
                                    predicted faster by more than min_gain */
    size_t moved_groups;         /* names whose worker changes */
    double moved_exec_s;
    char partitioner[96];        /* what produced the advised placement */
} advice_result;

/* The predicted span of the current and of the best mapping found:
 * model time plus the time the model does not explain. */
double advice_span_now(const advice_result *a);
double advice_span_advised(const advice_result *a);

/* Computes the advice for the one run of g (an LPEL trace; a trace of
 * several runs is refused: the advice is for one run; so is a trace of a
 * run across MPI ranks: the model places tasks on one process's workers).
 * opt may be NULL. */
int advice_compute(const wfb_graph *g, const advice_options *opt, advice_result *out,
               wfb_error *err);
void advice_free(advice_result *a);
/* The evidence, the problem in words, the prediction and the verdict, as
 * text. source names the trace. */
int advice_report(const advice_result *a, const char *source, FILE *out);
/* The advised mapping in the format of docs/MAPPING.md: exact task names,
 * a name with ":**" where every task below it goes to one worker, and
 * "NAME:R*:**"-style lines where a whole family of replicas does.
 * *lines receives the number of placement lines (may be NULL). */
int advice_write_mapping(const advice_result *a, const char *source, FILE *out,
                             size_t *lines);

#endif /* ADVICE_H */
