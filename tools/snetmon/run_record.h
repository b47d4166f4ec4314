/*
 * run_record.h - everything the repository keeps of one run, in memory:
 * its metadata (run.json, labels), and the figures the workflow bridge
 * computed for it (wfb.h: run figures, workers, tasks, per-input latencies,
 * waiting relations, critical paths, activities).
 *
 * Why a record: `snetmon compare` must give the same answer whether a run
 * comes out of the repository or straight from a trace directory. Both
 * ways end in this structure (run_record_from_graph for a trace or event
 * file, repo_load for a stored run), and the comparison reads only it. No
 * figure is computed here: each is copied from the bridge's analyses, so
 * docs/METRICS.md's definitions hold for stored runs unchanged.
 */
#ifndef SNETMON_RUN_RECORD_H
#define SNETMON_RUN_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "wfb.h"

typedef struct rr_label {
    char *key, *value;
} rr_label;

/* How the run was made. Strings are NULL when unknown. */
typedef struct rr_meta {
    int64_t id;           /* repository id (1, 2, ...); 0: not stored */
    char *stored_at;      /* UTC, ISO 8601 */
    char *source;         /* the trace directory or event file, absolute */
    char *format;         /* wfb_format_name: lpel, jsonl, wfcommons, bp */
    char *program;        /* run.json command_line[0], base name */
    char *command_line;   /* run.json command_line, as a JSON array */
    int64_t workers;      /* run.json workers; -1 unknown */
    char *flags;          /* run.json flags (mtWTSML) */
    char *task_filter;    /* --mon-tasks */
    char *host;
    char *start_time;     /* run.json wall_clock_start_ns as UTC ISO 8601 */
    int64_t start_ns;     /* the same in ns since the epoch; 0 unknown */
    char *git_revision;   /* store --git, or run.json git_revision */
    int complete;         /* run.json complete: 1, 0; -1 unknown */
    char *loss;           /* the --partial loss summary, NULL when whole */
    int64_t instances;    /* runtime instances in the trace (wfb_run_count) */
    int64_t vertices, edges;
    size_t n_labels;
    rr_label *labels;
} rr_meta;

/* One run figures row: instance 0 is the whole input. */
typedef struct rr_figures {
    wfb_run_figures f;    /* the why strings point into the record */
    double timeout_s;     /* whole input only, else NAN */
    int64_t timed_out, missing_events; /* whole input only, else -1 */
} rr_figures;

typedef struct rr_task {
    uint32_t instance;
    uint64_t task;
    char *name;           /* net path; NULL when the trace has no mapping event */
    uint32_t worker;
    double exec_s;
    uint64_t dispatches, executions;
    uint64_t blocks[4];   /* input, output, any, other */
    double first_s, last_s; /* first execution begins, last one ends; NAN none */
    double wait_s;        /* total_s of its waiting relations as waiter */
    uint64_t waits;       /* their count */
} rr_task;

typedef struct rr_input {
    uint32_t instance;
    char *input;          /* the input's data state id */
    double latency_s, end_to_end_s;
    uint64_t descendants;
    int missing_events, timed_out;
} rr_input;

typedef struct rr_wait {
    wfb_wait_relation w;
    char *waiter_name, *waited_for_name; /* NULL when unknown */
} rr_wait;

typedef struct rr_step {
    char *vertex;         /* vertex id */
    char *task;           /* the task whose mutation led to it (LPEL), or
                             the activity's label; NULL unknown */
    double step_s;        /* wfb_path_step */
} rr_step;

typedef struct rr_path {
    int valid;
    wfb_path_kind kind;
    double length_s;
    size_t n;
    rr_step *steps;
} rr_path;

typedef struct rr_activity {
    char *id, *label, *resources;
    double submitted_s, active_s, end_s, duration_s;
    double response_s, waiting_s, processing_s;
    int failed, not_started;
} rr_activity;

typedef struct rr_dependency {
    char *parent, *child;
    double sync_delay_s;
} rr_dependency;

typedef struct rr_fork {
    char *fork;
    uint64_t branches;
    double max_s, mean_s, min_s, load_imbalance_s, imbalance_pct, slowdown_factor;
} rr_fork;

typedef struct rr_activity_figures {
    uint64_t activities, failed, not_started;
    double makespan_s, makespan_measured_s;
    int makespan_declared;
    wfb_summary response, waiting, processing, sync_delay, load_imbalance, slowdown_factor;
} rr_activity_figures;

typedef struct run_record {
    rr_meta meta;
    size_t n_figures;
    rr_figures *figures;   /* [0] is instance 0, the whole input */
    size_t n_workers;
    wfb_worker_stats *workers;
    size_t n_tasks;
    rr_task *tasks;
    size_t n_inputs;
    rr_input *inputs;      /* not read back by repo_load unless asked */
    size_t n_waits;
    rr_wait *waits;
    rr_path paths[2];      /* [WFB_PATH_LONGEST], [WFB_PATH_AS_EXECUTED] */
    rr_activity_figures activity;
    size_t n_activities;
    rr_activity *activities;
    size_t n_dependencies;
    rr_dependency *dependencies;
    size_t n_forks;
    rr_fork *forks;
    struct rr_arena *arena; /* every string and array above */
} run_record;

/* Options of run_record_from_graph. */
typedef struct rr_options {
    const char *source;        /* the path given */
    wfb_format format;         /* as given (--from); UNKNOWN: detected */
    const char *git_revision;  /* NULL: run.json's, if any */
    size_t n_labels;
    const rr_label *labels;    /* copied */
} rr_options;

/* The record of a finished graph and, for a trace directory, its run.json.
 * 0, or -1 with one line in err. */
int run_record_from_graph(run_record *rec, const wfb_graph *g, const rr_options *opt, char *err,
                          size_t errlen);

/* An empty record, ready for repo_load. */
void run_record_init(run_record *rec);
void run_record_free(run_record *rec);

/* Memory of the record (repo_load fills records through these). */
void *rr_alloc(run_record *rec, size_t bytes); /* zeroed; NULL when out of memory */
char *rr_strdup(run_record *rec, const char *s); /* NULL stays NULL */

/* The figures row of an instance, NULL if absent. */
const rr_figures *rr_figures_of(const run_record *rec, uint32_t instance);

/* The record's label or run field named key ("workers", "git", "program",
 * "host", "format", "flags"), as text into buf; NULL when the run lacks it. */
const char *rr_field(const run_record *rec, const char *key, char *buf, size_t len);
/* 1 when key names a run field rather than a user label. */
bool rr_is_field(const char *key);

#endif
