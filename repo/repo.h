/*
 * repo.h - the experiment repository and the comparison of runs: the whole
 * interface of the repository library (repo/, prefix repo_), used by
 * `snetmon store`, `runs`, `compare` and `report`, its tests and bench/repo.
 *
 * Three parts, in this order:
 *
 *  1. Run records: everything the repository keeps of one run, in memory:
 *     its metadata (run.json, labels), and the figures the workflow bridge
 *     computed for it (wfb.h: run figures, workers, tasks, per-input
 *     latencies, waiting relations, critical paths, activities). Why a
 *     record: `snetmon compare` must give the same answer whether a run
 *     comes out of the repository or straight from a trace directory. Both
 *     ways end in this structure (repo_run_from_graph for a trace or event
 *     file, repo_load for a stored run), and the comparison reads only it.
 *     No figure is computed here: each is copied from the bridge's
 *     analyses, so docs/METRICS.md's definitions hold for stored runs
 *     unchanged.
 *
 *  2. The repository: runs remembered after their trace directories are
 *     gone. An SQLite file (the default, no server) or a PostgreSQL
 *     database (a team's), with one schema, documented in
 *     docs/REPOSITORY.md and versioned: opening an older repository
 *     migrates it, a newer one is refused. Which database it is is decided
 *     here, from the URL; the backends are behind repo_internal.h. Every
 *     store is one transaction under the repository's writer lock: two
 *     stores at once queue, and a store interrupted half-way leaves
 *     nothing. Runs get the ids 1, 2, ... in the order they were stored.
 *
 *  3. Comparing runs: two runs side by side (`snetmon compare A B`), and a
 *     series of runs along one label (`snetmon compare --series`). Both
 *     work on run records, so a stored run and a trace directory compare
 *     alike. Matching between runs never uses message or task ids, which
 *     mean nothing across runs: LPEL tasks are matched by net path
 *     (S2:I3:R0:S1:P0:mc.vcall), by its prefixes (sub-graphs) and by
 *     entity kind (mon_task_kind: mc.vcall, sync, filter); activities by
 *     id. Every figure is defined in docs/METRICS.md, section 7.
 */
#ifndef REPO_H
#define REPO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "wfb.h"

/* ---- 1. run records ---- */

typedef struct repo_label {
    char *key, *value;
} repo_label;

/* How the run was made. Strings are NULL when unknown. */
typedef struct repo_meta {
    int64_t id;           /* repository id (1, 2, ...); 0: not stored */
    char *stored_at;      /* UTC, ISO 8601 */
    char *source;         /* the trace directory or event file, absolute */
    char *format;         /* wfb_format_name: lpel, jsonl, wfcommons, bp */
    char *program;        /* run.json command_line[0], base name */
    char *command_line;   /* run.json command_line, as a JSON array */
    int64_t workers;      /* run.json workers; -1 unknown */
    char *flags;          /* run.json flags (mtWTSMLC) */
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
    repo_label *labels;
} repo_meta;

/* One run figures row: instance 0 is the whole input. */
typedef struct repo_figures {
    wfb_run_figures f;    /* the why strings point into the record */
    double timeout_s;     /* whole input only, else NAN */
    int64_t timed_out, missing_events; /* whole input only, else -1 */
} repo_figures;

typedef struct repo_task {
    uint32_t instance;
    uint64_t task;
    char *name;           /* net path; NULL when the trace has no mapping event */
    uint32_t worker;
    double exec_s;
    uint64_t dispatches, executions;
    uint64_t blocks[4];   /* input, output, any, other */
    double first_s, last_s; /* first execution begins, last one ends; NAN none */
    double wait_s;        /* total_s of its waiting relations as waiter: blocked
                             (block to wake; runs stored before schema 2: block to
                             dispatch) */
    uint64_t waits;       /* their count */
    double ready_s;       /* ready_s of those relations (wake to dispatch); NAN for
                             runs stored before schema 2 */
    double preempted_s;   /* of its execution time, off its core (flag C); NAN unknown */
} repo_task;

typedef struct repo_input {
    uint32_t instance;
    char *input;          /* the input's data state id */
    double latency_s, end_to_end_s;
    uint64_t descendants;
    int missing_events, timed_out;
} repo_input;

typedef struct repo_wait {
    wfb_wait_relation w;
    char *waiter_name, *waited_for_name; /* NULL when unknown */
} repo_wait;

typedef struct repo_step {
    char *vertex;         /* vertex id */
    char *task;           /* the task whose mutation led to it (LPEL), or
                             the activity's label; NULL unknown */
    double step_s;        /* wfb_path_step */
} repo_step;

typedef struct repo_path {
    int valid;
    wfb_path_kind kind;
    double length_s;
    size_t n;
    repo_step *steps;
} repo_path;

typedef struct repo_activity {
    char *id, *label, *resources;
    double submitted_s, active_s, end_s, duration_s;
    double response_s, waiting_s, processing_s;
    int failed, not_started;
} repo_activity;

typedef struct repo_dependency {
    char *parent, *child;
    double sync_delay_s;
} repo_dependency;

typedef struct repo_fork {
    char *fork;
    uint64_t branches;
    double max_s, mean_s, min_s, load_imbalance_s, imbalance_pct, slowdown_factor;
} repo_fork;

typedef struct repo_activity_figures {
    uint64_t activities, failed, not_started;
    double makespan_s, makespan_measured_s;
    int makespan_declared;
    wfb_summary response, waiting, processing, sync_delay, load_imbalance, slowdown_factor;
} repo_activity_figures;

typedef struct repo_run {
    repo_meta meta;
    size_t n_figures;
    repo_figures *figures;   /* [0] is instance 0, the whole input */
    size_t n_workers;
    wfb_worker_stats *workers;
    size_t n_tasks;
    repo_task *tasks;
    size_t n_inputs;
    repo_input *inputs;      /* not read back by repo_load unless asked */
    size_t n_waits;
    repo_wait *waits;
    repo_path paths[2];      /* [WFB_PATH_LONGEST], [WFB_PATH_AS_EXECUTED] */
    repo_activity_figures activity;
    size_t n_activities;
    repo_activity *activities;
    size_t n_dependencies;
    repo_dependency *dependencies;
    size_t n_forks;
    repo_fork *forks;
    struct repo_arena *arena; /* every string and array above */
} repo_run;

/* Options of repo_run_from_graph. */
typedef struct repo_options {
    const char *source;        /* the path given */
    wfb_format format;         /* as given (--from); UNKNOWN: detected */
    const char *git_revision;  /* NULL: run.json's, if any */
    size_t n_labels;
    const repo_label *labels;    /* copied */
} repo_options;

/* The record of a finished graph and, for a trace directory, its run.json.
 * 0, or -1 with one line in err. */
int repo_run_from_graph(repo_run *rec, const wfb_graph *g, const repo_options *opt, char *err,
                          size_t errlen);

/* An empty record, ready for repo_load. */
void repo_run_init(repo_run *rec);
void repo_run_free(repo_run *rec);

/* Memory of the record (repo_load fills records through these). */
void *repo_alloc(repo_run *rec, size_t bytes); /* zeroed; NULL when out of memory */
char *repo_strdup(repo_run *rec, const char *s); /* NULL stays NULL */

/* The figures row of an instance, NULL if absent. */
const repo_figures *repo_figures_of(const repo_run *rec, uint32_t instance);

/* The record's label or run field named key ("workers", "git", "program",
 * "host", "format", "flags"), as text into buf; NULL when the run lacks it. */
const char *repo_field(const repo_run *rec, const char *key, char *buf, size_t len);
/* 1 when key names a run field rather than a user label. */
bool repo_is_field(const char *key);

/* ---- 2. the repository ---- */

/* The schema version this snetmon writes and reads (docs/REPOSITORY.md). */
#define REPO_SCHEMA_VERSION 2

typedef struct repo repo;

/* The repository used without --db: $SNETMON_DB, else
 * $XDG_DATA_HOME/snetmon/runs.sqlite, else ~/.local/share/snetmon/runs.sqlite.
 * Into buf; NULL when none can be named (no HOME). */
const char *repo_default_url(char *buf, size_t len);

/* The text for --help describing --db and the default. */
#define REPO_DB_HELP                                                                           \
    "  --db URL         the repository: a file path or sqlite:PATH (SQLite), or\n"             \
    "                   postgresql://[user[:password]@][host][:port]/dbname[?param=value]\n"  \
    "                   (default: $SNETMON_DB, else $XDG_DATA_HOME/snetmon/runs.sqlite,\n"   \
    "                   else ~/.local/share/snetmon/runs.sqlite; docs/REPOSITORY.md)\n"

/* Opens the repository at url (NULL: the default). create: make it (and
 * its directory, for SQLite) when missing (store); otherwise a missing
 * SQLite file is an error. The schema is created or migrated here.
 * 0, or -1 with one line in err (a malformed URL, a server that cannot
 * be reached, a file that is not a repository, a newer schema). */
int repo_open(repo **out, const char *url, bool create, char *err, size_t errlen);
void repo_close(repo *r);
/* "sqlite:/path" or the PostgreSQL URL without its password. */
const char *repo_name(const repo *r);

/* Stores rec as one new run; *id receives its id. 0, or -1 with one line
 * in err (nothing of the run is then in the repository). */
int repo_store(repo *r, const repo_run *rec, int64_t *id, char *err, size_t errlen);

/* A condition of `runs --where KEY=VALUE`: a user label or a run field
 * (repo_is_field: workers, git, program, host, format, flags). */
typedef struct repo_where {
    const char *key, *value;
} repo_where;

/* The runs meeting every condition, in store order: each record holds
 * its metadata, labels, whole-input figures (figures[0]) and workers.
 * *out is an array of *n records; free with repo_list_free. */
int repo_list(repo *r, const repo_where *where, size_t n_where, repo_run **out, size_t *n,
              char *err, size_t errlen);
void repo_list_free(repo_run *recs, size_t n);

/* The whole record of run id (per-input latencies only when with_inputs).
 * 0; 1 when there is no such run; -1 with one line in err. */
int repo_load(repo *r, int64_t id, bool with_inputs, repo_run *rec, char *err, size_t errlen);

/* The schema version found when opening (before migrating). */
int repo_found_version(const repo *r);

/* ---- 3. comparing runs ---- */

typedef struct repo_compare_options {
    int depth;  /* sub-graphs: net-path prefixes of at most this many components (default 2) */
    size_t top; /* tasks listed as gaining or losing most (default 5) */
    const char *subgraph; /* activities: also the speedup over the common
                             activities whose id matches this pcre2 pattern */
} repo_compare_options;

/* The comparison of run A (the baseline) with run B, as text, one JSON
 * object or CSV rows (section,name,figure,a,b,repo_ratio). 0, or -1 with one
 * line in err. */
int repo_compare_write(const repo_run *a, const repo_run *b, const repo_compare_options *opt,
                      wfb_output fmt, FILE *out, char *err, size_t errlen);

/* One point of a series: the runs whose label has one value. Each figure
 * is the median over those runs (docs/METRICS.md). */
typedef struct repo_series_point {
    char value[256];          /* the label's value */
    size_t runs;
    long long first_id, last_id;
    double throughput_per_s;  /* eq. 1 */
    double latency_median_s, latency_p95_s, latency_p99_s; /* eq. 2 percentiles */
    double wait_s;            /* waiting time of all workers */
    double span_s;
} repo_series_point;

/* The points of recs along label key (a user label or a run field), in
 * order of the values: numerically when every value is a number, else in
 * the order each value was first stored. Runs without the label are left
 * out. *points is malloc'ed. 0, or -1 with one line in err. */
int repo_series(const repo_run *recs, size_t n, const char *key, repo_series_point **points,
               size_t *n_points, char *err, size_t errlen);

/* The series as a table (text, JSON, CSV). */
int repo_series_write(const repo_series_point *p, size_t n, const char *key, wfb_output fmt, FILE *out);

#endif /* REPO_H */
