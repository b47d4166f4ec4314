/*
 * wfb.h - the workflow bridge: one analysis model for LPEL traces and
 * workflow activity events, its importers, and its analyses.
 *
 * The model is one directed acyclic graph:
 *   - vertices are data states (Crux) or activities (Grid workflow model);
 *     every vertex has a string id, optional times and a weight (duration);
 *   - edges are mutations (TRANSFER, CONVERT, APPEND, SPLIT, MERGE, DELETE)
 *     between data states, or DEPEND edges between activities; each has a
 *     cost in seconds.
 * Storage is columnar and compact (no allocation per vertex or edge), so a
 * graph of ten million edges fits in about a gigabyte.
 *
 * Errors: functions returning int give 0 on success and -1 on failure, and
 * fill a wfb_error with a one-line message naming file and line.
 * Nothing here keeps global state; every object is owned by its caller.
 */
#ifndef WFB_H
#define WFB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ errors */

typedef struct wfb_error {
    char file[256]; /* input file, "" if none */
    long line;      /* 1-based line, 0 if none */
    char msg[512];  /* what went wrong */
} wfb_error;

/* Writes "file:line: msg" (parts omitted when unknown) and a newline. */
void wfb_error_print(const wfb_error *err, FILE *out);

/* ------------------------------------------------------------------ model */

#define WFB_NONE UINT32_MAX /* "no vertex / no string / no execution" */

typedef enum wfb_vertex_kind {
    WFB_VERTEX_DATA = 0,     /* a data state: message, file, ... */
    WFB_VERTEX_ACTIVITY = 1  /* a workflow activity (job, task) */
} wfb_vertex_kind;

typedef enum wfb_edge_kind {
    WFB_EDGE_DEPEND = 0, /* activity dependency: child starts after parent */
    WFB_EDGE_TRANSFER,
    WFB_EDGE_CONVERT,
    WFB_EDGE_APPEND,
    WFB_EDGE_SPLIT,
    WFB_EDGE_MERGE,
    WFB_EDGE_DELETE,
    WFB_EDGE_KIND_COUNT
} wfb_edge_kind;

/* Times of a vertex. Data states use only AT (the time they came to exist).
 * Activities use SUBMITTED, ACTIVE, COMPLETED or FAILED (one end only). */
typedef enum wfb_time_kind {
    WFB_T_SUBMITTED = 0,
    WFB_T_ACTIVE,
    WFB_T_END, /* completed or failed, see wfb_vertex_failed() */
    WFB_T_KIND_COUNT
} wfb_time_kind;

/* Upper-case name of an edge kind ("CONVERT"); parse returns -1 if unknown. */
const char *wfb_edge_kind_name(wfb_edge_kind kind);
int wfb_edge_kind_parse(const char *name, wfb_edge_kind *out);

typedef struct wfb_graph wfb_graph;

wfb_graph *wfb_graph_new(void);
void wfb_graph_free(wfb_graph *g);

/* The makespan the input states (WfCommons makespanInSeconds), NAN if none;
 * the metrics report it as declared (wfb_metrics makespan_declared). */
void wfb_graph_set_makespan(wfb_graph *g, double seconds);

/* Source name used in error messages (the file being imported). */
void wfb_graph_set_source(wfb_graph *g, const char *file);
const char *wfb_graph_source(const wfb_graph *g);

size_t wfb_vertex_count(const wfb_graph *g);
size_t wfb_edge_count(const wfb_graph *g);

/* Finds or creates the vertex with this id. A vertex created here is only
 * referenced until wfb_vertex_define() is called on it; wfb_graph_check()
 * reports references to vertices never defined. `line` is remembered for
 * error messages. Returns WFB_NONE when out of memory. */
uint32_t wfb_vertex_ref(wfb_graph *g, const char *id, size_t len, long line);
/* Looks a vertex up without creating it (WFB_NONE if absent). */
uint32_t wfb_vertex_find(const wfb_graph *g, const char *id, size_t len);
/* Marks a vertex as defined with this kind and definition line. */
void wfb_vertex_define(wfb_graph *g, uint32_t v, wfb_vertex_kind kind, long line);

/* Setters return -1 only when out of memory. Times are seconds (any epoch). */
int wfb_vertex_set_time(wfb_graph *g, uint32_t v, wfb_time_kind which, double t);
int wfb_vertex_set_failed(wfb_graph *g, uint32_t v, int failed);
int wfb_vertex_set_duration(wfb_graph *g, uint32_t v, double seconds);
int wfb_vertex_set_size(wfb_graph *g, uint32_t v, uint64_t bytes);
/* String attributes: origin (producer), location (worker/host), label
 * (name), resources, trace (nested LPEL trace directory). */
typedef enum wfb_attr {
    WFB_ATTR_ORIGIN = 0,
    WFB_ATTR_LOCATION,
    WFB_ATTR_LABEL,
    WFB_ATTR_RESOURCES,
    WFB_ATTR_TRACE,
    WFB_ATTR_COUNT
} wfb_attr;
int wfb_vertex_set_attr(wfb_graph *g, uint32_t v, wfb_attr attr, const char *value);

const char *wfb_vertex_id(const wfb_graph *g, uint32_t v);
wfb_vertex_kind wfb_vertex_kind_of(const wfb_graph *g, uint32_t v);
int wfb_vertex_defined(const wfb_graph *g, uint32_t v);
/* NAN when the time is unknown. For data states every kind returns AT. */
double wfb_vertex_time(const wfb_graph *g, uint32_t v, wfb_time_kind which);
int wfb_vertex_failed(const wfb_graph *g, uint32_t v);
/* Weight used by the longest path: the explicit duration if one was set,
 * else END - ACTIVE when both are known, else 0. */
double wfb_vertex_weight(const wfb_graph *g, uint32_t v);
/* 0 when unknown. */
uint64_t wfb_vertex_size(const wfb_graph *g, uint32_t v);
/* NULL when unset. */
const char *wfb_vertex_attr(const wfb_graph *g, uint32_t v, wfb_attr attr);
/* Start of the vertex (ACTIVE, or AT for data), end (END, or AT). */
double wfb_vertex_start(const wfb_graph *g, uint32_t v);
double wfb_vertex_end(const wfb_graph *g, uint32_t v);

/* Adds an edge src -> dst with its cost in seconds (`line` is the input line,
 * kept for symmetry with vertices; errors name vertices). Returns the edge
 * index or WFB_NONE when out of memory. Optionally, set_exec groups edges
 * that come from one component execution (counted once in latencies) and
 * set_label names the task that did the mutation. */
uint32_t wfb_edge_add(wfb_graph *g, uint32_t src, uint32_t dst, wfb_edge_kind kind,
                      double cost, long line);
int wfb_edge_set_exec(wfb_graph *g, uint32_t e, uint32_t exec);
int wfb_edge_set_label(wfb_graph *g, uint32_t e, const char *label);

uint32_t wfb_edge_src(const wfb_graph *g, uint32_t e);
uint32_t wfb_edge_dst(const wfb_graph *g, uint32_t e);
wfb_edge_kind wfb_edge_kind_of(const wfb_graph *g, uint32_t e);
double wfb_edge_cost(const wfb_graph *g, uint32_t e);
uint32_t wfb_edge_exec(const wfb_graph *g, uint32_t e);
const char *wfb_edge_label(const wfb_graph *g, uint32_t e);

/* Checks that every referenced vertex was defined (error names the vertex
 * and the line that referenced it), drops duplicate edges, builds the
 * adjacency used by the analyses and checks acyclicity (error names a vertex
 * on the cycle). Must be called after importing and before analysing. */
int wfb_graph_finish(wfb_graph *g, wfb_error *err);
/* Like wfb_graph_finish but turns undefined referenced vertices into
 * activities instead of failing (for logs that mention jobs never run). */
int wfb_graph_finish_lenient(wfb_graph *g, wfb_error *err);

/* After finish: adjacency. Returns the number of edges and sets *edges to
 * edge indices (valid until the graph changes). */
size_t wfb_out_edges(const wfb_graph *g, uint32_t v, const uint32_t **edges);
size_t wfb_in_edges(const wfb_graph *g, uint32_t v, const uint32_t **edges);

/* Where a graph keeps the tables that grow with the trace (its component
 * executions, its as-executed graph, an LPEL trace's message graph read by
 * the bounded lifter): in memory behind caches of at most `memory` bytes in
 * all (0: no bound, everything in memory), the rest in unlinked temporary
 * files under tmp_dir (NULL: $TMPDIR, else /tmp). Set before anything is
 * added. The figures are the same either way. */
typedef struct wfb_limits {
    size_t memory;
    const char *tmp_dir;
} wfb_limits;
int wfb_graph_set_limits(wfb_graph *g, const wfb_limits *limits);
/* The errno of a temporary file that could not be written or read back
 * (ENOSPC: the disk is full), 0 when none failed: what was computed from
 * the graph after that is wrong, so check it before keeping any output. */
int wfb_graph_io_error(const wfb_graph *g);
/* Whether g was lifted bounded (wfb_lifter_new_bounded): its figures and
 * paths are there, its edges are not, nor what needs them again (the
 * what-if factors per execution of wfb_message_options). */
bool wfb_graph_bounded(const wfb_graph *g);

/* Approximate bytes held by the graph (for benchmarks and reports). */
size_t wfb_graph_bytes(const wfb_graph *g);

/* Runtime side tables, filled by the LPEL lifter (empty otherwise). A
 * trace may hold several runs (runtime instances, numbered from 1); task,
 * stream and message ids are unique only within a run, so every row names
 * its run. docs/METRICS.md defines each figure. */
typedef struct wfb_worker_stats {
    uint32_t run;
    uint32_t worker;
    double start_s, end_s; /* worker_start, worker_end; NAN when not recorded */
    double busy_s;         /* sum of dispatch..block intervals */
    double wait_s;         /* idle: sum of worker_wait..worker_resume intervals */
    uint64_t waits;        /* waiting events */
    double first_s, last_s;/* first and last event time on this worker */
    bool ranked;           /* of a multi-rank trace: `worker` is rank_worker on rank */
    uint32_t rank, rank_worker;
    /* The tasks placed on it, not running (docs/METRICS.md section 3):
     * blocked (stream_block to the wake) and ready (the wake to the
     * dispatch: waiting for this worker), over their waits that ended with
     * a dispatch, summed over the tasks (they overlap). */
    double blocked_s, ready_s;
    /* Flag C: its thread's CPU time, the time it was neither idle nor on a
     * core (the OS held it: preempted), its involuntary context switches,
     * its periods charged with preempted time; NAN / 0 without readings. */
    double cpu_s, preempted_s;
    uint64_t preemptions, preempted_periods;
} wfb_worker_stats;

/* How a report names worker `worker` of run: "worker 3 (r1.w0)" in a
 * multi-rank trace, "worker 3" otherwise. Returns buf. */
const char *wfb_worker_name(const wfb_graph *g, uint32_t run, uint32_t worker, char *buf,
                            size_t len);
/* How a report names a task id: "1:5" for task 5 of rank 1 in a multi-rank
 * trace (the rank is in bits 32-47, mon_reader.h), else the number. */
const char *wfb_task_id_text(uint64_t task, char *buf, size_t len);

/* end_s - start_s: the worker's execution time of eq. 1; NAN unknown. */
double wfb_worker_span(const wfb_worker_stats *w);
/* span - busy - waiting; NAN when the span is unknown. */
double wfb_worker_unaccounted(const wfb_worker_stats *w);
/* preempted / span: the share of its span the OS held the worker's core;
 * NAN without CPU readings or span. */
double wfb_worker_preempted_share(const wfb_worker_stats *w);
/* The share above which `metrics` warns that the worker's wall-clock
 * figures hold time the OS took (docs/METRICS.md section 3). */
#define WFB_PREEMPTED_WARN_SHARE 0.05

typedef struct wfb_task_stats {
    uint32_t run;
    uint64_t task;
    const char *name;      /* interned, owned by the graph; may be NULL */
    uint32_t worker;
    double exec_s;         /* sum of dispatch..block intervals */
    uint64_t dispatches;
    uint64_t blocks[4];    /* by cause: input, output, any, other */
    uint64_t executions;   /* component executions */
    double blocked_s;      /* waits ended by a dispatch: stream_block to the wake */
    double ready_s;        /*   and the wake to the dispatch */
    double preempted_s;    /* of its periods, the time the OS held the core (flag C) */
} wfb_task_stats;

size_t wfb_worker_stats_count(const wfb_graph *g);
const wfb_worker_stats *wfb_worker_stats_at(const wfb_graph *g, size_t i);
size_t wfb_task_stats_count(const wfb_graph *g);
const wfb_task_stats *wfb_task_stats_at(const wfb_graph *g, size_t i);

/* Component executions (LPEL): one row per execution. */
typedef struct wfb_exec {
    uint32_t task_index;   /* into the task stats, WFB_NONE if unknown */
    uint32_t worker;
    double begin_s, end_s;
    double cost_s;         /* its execution time: dispatched time (eq. 2) */
    double cpu_s;          /* of it, on a core (flag C: each period's preempted time
                              spread over it in proportion); NAN without readings */
} wfb_exec;
size_t wfb_exec_count(const wfb_graph *g);
/* wfb_exec_at (below) and wfb_period_at point into a cache of rows that
 * may be larger than memory: the row is valid until the next call of the
 * same function on the graph. */

/* Waiting relation W(A,B) over one stream: A blocked on an empty stream
 * written by B (on_empty) or on a full stream read by B (B: the task that
 * woke A, else the stream's other end; 0 when the trace names neither);
 * how often, how long A was blocked (its block until the wake, or until
 * its dispatch when the trace has no wake) and then ready (the wake to its
 * dispatch: waiting for its worker, not for B). Filled by the LPEL lifter. */
typedef struct wfb_wait_relation {
    uint32_t run;
    uint64_t waiter, waited_for, stream;
    int on_empty;
    uint64_t count;
    double total_s;   /* blocked */
    int on_channel; /* `stream` is a channel between ranks (creator << 32 | index) */
    double ready_s;
    uint64_t woken;   /* of count, the waits the trace has the wake of */
} wfb_wait_relation;
size_t wfb_wait_relation_count(const wfb_graph *g);
const wfb_wait_relation *wfb_wait_relation_at(const wfb_graph *g, size_t i);
const wfb_exec *wfb_exec_at(const wfb_graph *g, size_t i);

/* Stream traffic (LPEL traces with flag S): one row per stream of a run,
 * its writer and reader task (from stream_open; 0 when not seen) and the
 * items written to it (stream_write). Filled by the LPEL lifter. */
typedef struct wfb_stream_stats {
    uint32_t run;
    uint64_t stream, writer, reader;
    uint64_t writes;
} wfb_stream_stats;
size_t wfb_stream_stats_count(const wfb_graph *g);
const wfb_stream_stats *wfb_stream_stats_at(const wfb_graph *g, size_t i);

/* LPEL traces: the runs (0 for event files) and the run a vertex belongs
 * to (0: none). */
uint32_t wfb_run_count(const wfb_graph *g);
uint32_t wfb_vertex_run(const wfb_graph *g, uint32_t v);
int wfb_vertex_set_run(wfb_graph *g, uint32_t v, uint32_t run);
/* 1 when a data state was only read, never written by a monitored task
 * (an input from outside them, or a loss in a partial trace). */
int wfb_vertex_only_read(const wfb_graph *g, uint32_t v);
/* 0 when the trace has component executions but no task periods
 * (dispatch/block, flag T) to measure their execution time with: the
 * mutation costs are then unknown, not zero. 1 otherwise. */
int wfb_exec_costs_known(const wfb_graph *g);
/* 1 when the trace has the workers' CPU readings (flag C, format 3.2). */
int wfb_cpu_known(const wfb_graph *g);

/* The as-executed graph of an LPEL trace (docs/METRICS.md section 5): each
 * execution period, and why it began when it did. Filled by the lifter;
 * the as-executed critical path walks it. */
typedef enum wfb_cause {
    WFB_CAUSE_NONE = 0,    /* the trace does not say (its first dispatch) */
    WFB_CAUSE_DATA,        /* woken by the task that wrote to the empty stream it blocked on */
    WFB_CAUSE_BACKPRESSURE,/* woken by the task that read from the full stream it blocked on */
    WFB_CAUSE_CREATED      /* created (ready from then) in a period on its worker */
} wfb_cause;

typedef struct wfb_period {
    uint32_t run, worker;
    uint32_t task;         /* index into the task stats */
    double start_s, end_s; /* its dispatch, its block (yield, destroy) */
    double preempted_s;    /* NAN: no CPU reading ended it */
    wfb_cause cause;
    double ready_s;        /* when the task became ready (the wake, its creation); NAN unknown */
    uint32_t cause_period; /* the period that woke or created it, WFB_NONE */
    uint64_t stream;       /* DATA, BACKPRESSURE: the stream */
    uint32_t worker_prev;  /* the period that ran on its worker before it, WFB_NONE */
    bool idle_before;      /* the worker waited (idle) between worker_prev and it */
    uint32_t vertex;       /* the last data state the task wrote in it, WFB_NONE */
    uint32_t latest_ended; /* the period of its run that ended last at or before its start
                              (ties: the later one), other than itself; WFB_NONE */
} wfb_period;
size_t wfb_period_count(const wfb_graph *g);
const wfb_period *wfb_period_at(const wfb_graph *g, size_t i);

/* --------------------------------------------------------------- import */

typedef enum wfb_format {
    WFB_FORMAT_UNKNOWN = 0,
    WFB_FORMAT_JSONL,
    WFB_FORMAT_WFCOMMONS,
    WFB_FORMAT_BP,
    WFB_FORMAT_LPEL_TRACE
} wfb_format;

/* "jsonl", "wfcommons", "bp", "lpel"; parse returns UNKNOWN if none fits. */
const char *wfb_format_name(wfb_format f);
wfb_format wfb_format_parse(const char *name);
/* Looks at the path (directory = LPEL trace) and the first bytes. */
wfb_format wfb_format_detect(const char *path);

/* Progress callback: called now and then with bytes done and the file size,
 * or, for LPEL traces, events read and total 0. May be NULL. */
typedef void (*wfb_progress_fn)(void *ctx, uint64_t done, uint64_t total);

typedef struct wfb_import_options {
    wfb_progress_fn progress;
    void *progress_ctx;
    const struct wfb_bp_mapping *bp_mapping; /* NULL = built-in Pegasus mapping */
    bool partial; /* a text input whose last line is cut short: leave the line
                     out and attach the loss to the graph, instead of an error */
} wfb_import_options;

/* Each importer adds to g (graph must not be finished yet) and finishes it. */
int wfb_import_jsonl(wfb_graph *g, FILE *in, const char *name,
                     const wfb_import_options *opt, wfb_error *err);
int wfb_import_wfcommons(wfb_graph *g, FILE *in, const char *name, wfb_error *err);
int wfb_import_bp(wfb_graph *g, FILE *in, const char *name,
                  const wfb_import_options *opt, wfb_error *err);
/* Opens path, detects or uses `format`, imports and finishes. */
int wfb_import_path(wfb_graph *g, const char *path, wfb_format format,
                    const wfb_import_options *opt, wfb_error *err);

/* NetLogger BP mapping: rules tried in order, first pattern match wins. */
typedef enum wfb_bp_action {
    WFB_BP_SUBMITTED = 0,
    WFB_BP_ACTIVE,
    WFB_BP_COMPLETED, /* "end": completed, or failed when status field != 0 */
    WFB_BP_FAILED,
    WFB_BP_DEPENDENCY,/* id_field = parent field, child_field = child field */
    WFB_BP_ALIAS,     /* id_field is an alias of child_field's value */
    WFB_BP_DECLARED   /* the job exists (it may never start); a mapping with
                         such a rule makes dependencies on jobs it never
                         names an error */
} wfb_bp_action;

typedef struct wfb_bp_mapping wfb_bp_mapping;
wfb_bp_mapping *wfb_bp_mapping_new(void);
void wfb_bp_mapping_free(wfb_bp_mapping *m);
/* Adds a rule. status_field may be NULL (COMPLETED then never fails). */
int wfb_bp_mapping_add(wfb_bp_mapping *m, const char *event_pattern, wfb_bp_action action,
                       const char *id_field, const char *child_field,
                       const char *status_field, wfb_error *err);
/* The Pegasus stampede mapping. */
wfb_bp_mapping *wfb_bp_mapping_pegasus(wfb_error *err);
/* Reads a mapping file (format in docs/EVENTS.md). */
wfb_bp_mapping *wfb_bp_mapping_load(const char *path, wfb_error *err);


/* --------------------------------------------------------------- emitter */

/* Writes JSON Lines events (schema in docs/EVENTS.md) to a FILE. */
typedef struct wfb_emitter wfb_emitter;
wfb_emitter *wfb_emit_open(FILE *out);
/* Flushes; returns -1 if any write failed. Frees the emitter. */
int wfb_emit_close(wfb_emitter *em);
/* event: "submitted", "active", "completed", "failed". name/resources may
 * be NULL. */
int wfb_emit_activity(wfb_emitter *em, const char *id, const char *event, double time,
                      const char *name, const char *resources);
/* An activity known only by its duration (no times), e.g. from WfCommons. */
int wfb_emit_activity_duration(wfb_emitter *em, const char *id, const char *name,
                               double duration, const char *resources);
int wfb_emit_dependency(wfb_emitter *em, const char *parent, const char *child);
/* time may be NAN (unknown), size 0 (unknown); strings may be NULL. */
int wfb_emit_data(wfb_emitter *em, const char *id, double time, uint64_t size,
                  const char *origin, const char *location, const char *label);
int wfb_emit_mutation(wfb_emitter *em, wfb_edge_kind kind, const char *from, const char *to,
                      double cost, const char *task);
/* Writes a whole finished graph as events. */
int wfb_write_jsonl(const wfb_graph *g, FILE *out);

/* ------------------------------------------------------- critical path */

typedef enum wfb_path_kind {
    WFB_PATH_LONGEST = 0,   /* wfb_longest_path */
    WFB_PATH_AS_EXECUTED    /* wfb_as_executed_path */
} wfb_path_kind;

/* A step of the as-executed path of an LPEL trace (docs/METRICS.md
 * section 5): a stretch of time and what the run did in it on the path. */
typedef enum wfb_step_kind {
    WFB_STEP_RUN = 0, /* a task ran (an execution period, or its part up to the wake it made) */
    WFB_STEP_READY,   /* a task was ready, not yet dispatched; `via` is why the path
                         goes on to the step before it */
    WFB_STEP_IDLE     /* the worker waited for work before `task` was dispatched; the
                         trace does not say what made the task ready */
} wfb_step_kind;

/* The dependency from the step before a READY step to it. */
typedef enum wfb_via {
    WFB_VIA_NONE = 0,
    WFB_VIA_DATA,         /* woken by `other`, which wrote to the empty stream it waited on */
    WFB_VIA_BACKPRESSURE, /* woken by `other`, which read from the full stream its write
                             waited on: the read freed the slot */
    WFB_VIA_CREATED,      /* created by `other` */
    WFB_VIA_OCCUPANCY     /* ready while `other` held its worker */
} wfb_via;

typedef struct wfb_step {
    wfb_step_kind kind;
    wfb_via via;
    uint32_t task;     /* index into the task stats (IDLE: the task dispatched after) */
    uint32_t other;    /* READY: the task of the step before (waker, creator, holder) */
    uint32_t worker;
    uint64_t stream;   /* via DATA or BACKPRESSURE */
    uint32_t vertex;   /* RUN: the last data state the task wrote in it, WFB_NONE */
    double start_s, end_s;
} wfb_step;

typedef struct wfb_path {
    int valid;          /* 0 = not available (e.g. no times) */
    wfb_path_kind kind;
    double length_s;
    size_t n;           /* vertices on the path */
    uint32_t *vertices; /* in path order, n entries */
    uint32_t *edges;    /* n-1 entries: edges[i] joins vertices[i], vertices[i+1] */
    /* The as-executed path of an LPEL trace is steps instead (n = 0):
     * contiguous, adding up to length_s. The run it explains: its span
     * (earliest worker_start to latest worker_end; NAN without W), the
     * time before the path's first step and after its last. */
    size_t n_steps;
    struct kit_spill *step_rows; /* wfb_path_step_at's: as many as the run has periods */
    int *io_err;                 /* its graph's (wfb_graph_io_error) */
    uint32_t run;
    double span_s, start_up_s, tail_s;
} wfb_path;

void wfb_path_free(wfb_path *p);
/* Step i (0 <= i < n_steps) of an as-executed path of steps. Steps are kept
 * like the graph's spilled tables (wfb_graph_set_limits); a step that
 * cannot be read back is all zeros, and the graph's io error says why. */
wfb_step wfb_path_step_at(const wfb_path *p, size_t i);
/* The time the path spends at its i-th vertex, so that the steps of all its
 * vertices add up to length_s (docs/METRICS.md): on the longest path the
 * vertex's weight plus the cost of the edge into it; on the as-executed
 * path its end minus the previous vertex's end (the first vertex: its end
 * minus its start). What the text report and the picture print per vertex. */
double wfb_path_step(const wfb_graph *g, const wfb_path *p, size_t i);
/* "longest path" or "as-executed path". */
const char *wfb_path_kind_name(wfb_path_kind kind);
/* "run", "ready", "idle"; "data", "back-pressure", "created", "occupancy" ("" for NONE). */
const char *wfb_step_kind_name(wfb_step_kind kind);
const char *wfb_via_name(wfb_via via);
/* A step path's time by kind of step, and its ready steps by the edge
 * into them (indexed by wfb_step_kind, wfb_via). */
typedef struct wfb_step_totals {
    double kind_s[3];
    size_t kind_n[3];
    double via_s[5];
    size_t via_n[5];
} wfb_step_totals;
void wfb_path_step_totals(const wfb_path *p, wfb_step_totals *out);

/* Weighted longest path: maximises the sum of vertex weights and edge costs.
 * Ties go to the smaller vertex index (first seen in the input). O(V+E). */
int wfb_longest_path(const wfb_graph *g, wfb_path *out, wfb_error *err);
/* As-executed critical path: from the sink that finished last, walk back
 * choosing at each vertex the predecessor that finished last. Invalid (not
 * an error) when some vertex on the way lacks an end time. Length is end of
 * the last vertex minus start of the first. O(V+E). For an LPEL trace with
 * execution periods: the walk back through the as-executed graph
 * (wfb_period) from the period that ended last, as steps. O(periods). */
int wfb_as_executed_path(const wfb_graph *g, wfb_path *out, wfb_error *err);

/* -------------------------------------------------------------- metrics */

typedef struct wfb_summary {
    size_t n;
    double min, median, p95, p99, max, mean, stddev;
} wfb_summary;

/* Nearest-rank summary of values (the array is sorted in place). */
void wfb_summarise(double *values, size_t n, wfb_summary *out);

/* Activity DAG metrics after the Grid workflow performance analysis of
 * Truong, Dustdar and Fahringer (docs/METRICS.md). NAN where the needed
 * times are missing. */
typedef struct wfb_activity_metrics {
    uint32_t vertex;
    double response_s;   /* end - submitted */
    double waiting_s;    /* active - submitted */
    double processing_s; /* end - active (or the explicit duration) */
    int not_started;     /* declared only (e.g. NetLogger job.info): no event at
                            all, in an input whose other activities have times */
} wfb_activity_metrics;

/* The synchronisation delay of one dependency a_i -> a_j:
 * submitted(a_j) - completed(a_i). */
typedef struct wfb_dependency_metrics {
    uint32_t parent, child;
    double sync_delay_s;
} wfb_dependency_metrics;

/* A fork-join region: the n >= 2 activity children (branches) of one
 * activity, with processing times T_1..T_n. */
typedef struct wfb_fork_metrics {
    uint32_t fork;
    size_t branches;          /* n */
    double max_s, mean_s, min_s;
    double load_imbalance_s;  /* max_i T_i - mean T: the slowest branch's excess */
    double imbalance_pct;     /* variant: (max / mean - 1) * 100 */
    double slowdown_factor;   /* n * max T_i / sum T_i: 1 balanced, n all in one */
} wfb_fork_metrics;

typedef struct wfb_activity_report {
    size_t n_activities;
    wfb_activity_metrics *activities; /* n_activities entries */
    size_t n_dependencies;
    wfb_dependency_metrics *dependencies;
    size_t n_forks;
    wfb_fork_metrics *forks;
    wfb_summary response, waiting, processing;
    wfb_summary sync_delay;            /* over the dependencies */
    wfb_summary load_imbalance, slowdown_factor; /* over the forks */
    size_t n_failed, n_not_started;
    double makespan_s;          /* the input's own (makespan_declared) or measured */
    int makespan_declared;      /* 1: given by the input (WfCommons makespanInSeconds) */
    double makespan_measured_s; /* latest end - earliest submitted (or active) */
} wfb_activity_report;

int wfb_activity_metrics_compute(const wfb_graph *g, wfb_activity_report *out, wfb_error *err);
void wfb_activity_report_free(wfb_activity_report *r);

/* Speedup of run `base` over run `other` on the activities both contain
 * (matched by id): span(base) / span(other), span = max end - min start, or
 * the longest-path length of the common subgraph when times are missing.
 * *common receives the number of activities matched. */
int wfb_speedup(const wfb_graph *base, const wfb_graph *other, double *speedup,
                size_t *common, wfb_error *err);
/* The same over the subgraph of common activities whose id matches the pcre2
 * pattern `id_pattern` (NULL = all). */
int wfb_speedup_subgraph(const wfb_graph *base, const wfb_graph *other, const char *id_pattern,
                         double *speedup, size_t *common, wfb_error *err);

/* A pcre2 pattern over ids or names (metrics --subgraph RE, whatif
 * --tasks RE), unanchored. compile: *out NULL for a NULL pattern (which
 * matches everything); a bad one is "bad WHAT pattern 'P' at N: why" in
 * err. match: NULL text matches only the NULL pattern. */
typedef struct wfb_pattern wfb_pattern;
int wfb_pattern_compile(const char *pattern, const char *what, wfb_pattern **out, wfb_error *err);
bool wfb_pattern_match(const wfb_pattern *p, const char *text);
void wfb_pattern_free(wfb_pattern *p);

/* Message-graph metrics (data states: LPEL messages or data events),
 * defined in docs/METRICS.md: eq. 1 throughput, eq. 2 latency, eq. 3
 * jitter of the monitoring paper, and variants beside them under their own
 * names. */
typedef struct wfb_lifeline {
    uint32_t input;      /* a data state with no predecessor */
    uint32_t run;        /* its run (LPEL traces), 0 otherwise */
    double latency_s;    /* eq. 2: execution time spent on it and its
                            descendants (shared executions split evenly) */
    double end_to_end_s; /* last descendant time - input time (NAN if unknown) */
    size_t descendants;
    int missing_events;  /* descendants lacking their time (never written) */
    int timed_out;       /* latency above the percentile timeout */
} wfb_lifeline;

/* The figures of one run, or of all runs together: one plain struct (no
 * pointers) that can be stored, compared, and printed. NAN = unknown; the
 * reason is in *_unknown_why when the input cannot give the figure. */
typedef struct wfb_run_figures {
    uint32_t run;                 /* 0: the whole input */
    size_t inputs;                /* N_input: counted (data states without
                                     predecessor), or given (--inputs) */
    int inputs_given;             /* 1: inputs is the user's N */
    size_t inputs_only_read;      /* of the counted: read, never written */
    double span_s;                /* eq. 1's denominator: the longest worker
                                     execution time, worker_start to worker_end
                                     (for the whole input: each run's, summed
                                     over the runs with inputs) */
    uint32_t span_worker;
    double throughput_per_s;      /* eq. 1: inputs / span_s */
    double busy_max_s;            /* the largest worker busy time (dispatched) */
    uint32_t busy_worker;
    double throughput_busy_per_s; /* variant: inputs / busy_max_s */
    double exec_s;                /* all task execution time (every worker's busy time) */
    wfb_summary latency;          /* eq. 2 over the inputs */
    wfb_summary end_to_end;       /* variant: last descendant - input time */
    double jitter_s;              /* eq. 3: population standard deviation of latency */
    const char *span_unknown_why;    /* NULL, or why span_s is NAN */
    const char *latency_unknown_why; /* NULL, or why latencies are NAN */
    const char *throughput_unknown_why; /* NULL, or why the throughputs are NAN */
    int cpu_time;                 /* latency and jitter over CPU time (the option) */
    size_t runs_without_inputs;   /* the whole input: runs left out of its span */
} wfb_run_figures;

typedef struct wfb_message_options {
    double timeout_percentile; /* (0,100]; 0 selects 99 */
    size_t inputs;             /* N_input of eq. 1 for each run; 0 = count them */
    int cpu_time;              /* eq. 2 and 3 over the executions' CPU time (wfb_exec
                                   cpu_s) instead of their dispatched time */
    /* Per component execution (wfb_exec_at), a factor on its cost in eq. 2
     * (its execution time, or its CPU time with cpu_time; the what-if
     * profile's "X % faster"); NULL: 1 for all. */
    const double *exec_scale;
} wfb_message_options;

typedef struct wfb_message_report {
    size_t n_inputs;
    struct kit_spill *lifeline_rows; /* wfb_message_lifeline's (as many as inputs) */
    int *io_err;               /* the graph's (wfb_graph_io_error) */
    wfb_run_figures total;     /* the whole input */
    size_t n_runs;             /* LPEL traces: one entry per run, else 0 */
    wfb_run_figures *runs;
    double timeout_percentile; /* e.g. 99 */
    double timeout_s;          /* from the histogram */
    size_t n_missing, n_timed_out;
} wfb_message_report;

/* Lifeline i (0 <= i < n_inputs), in the order of the inputs' vertices.
 * Kept like the graph's spilled tables (wfb_graph_set_limits); one that
 * cannot be read back is all zeros, and the graph's io error says why. */
wfb_lifeline wfb_message_lifeline(const wfb_message_report *r, size_t i);

/* opt may be NULL (defaults). */
int wfb_message_metrics_compute(const wfb_graph *g, const wfb_message_options *opt,
                                wfb_message_report *out, wfb_error *err);
void wfb_message_report_free(wfb_message_report *r);

/* Activity lifeline anomalies: activities missing expected events (e.g.
 * submitted but never active, active but never ended). Returns how many and
 * fills *vertices (malloc'ed, caller frees) with them. */
size_t wfb_activity_anomalies(const wfb_graph *g, uint32_t **vertices);

/* ---------------------------------------------------------- LPEL lifting */

/* The lifter turns a stream of the monitor's trace events into the graph,
 * for a caller that reads the trace itself (snetmon's loader, with its
 * policy for damaged traces); wfb_import_lpel_trace does all of it. */
typedef struct wfb_lifter wfb_lifter;
/* The lifter adds to g (which must not be finished yet). */
wfb_lifter *wfb_lifter_new(wfb_graph *g);
/* The bounded lifter: the message graph is analysed as it is read, in
 * memory bounded by what is live in the trace (open executions, messages in
 * flight, tasks, streams) and the caches of wfb_graph_set_limits, however
 * long the trace. The graph it finishes gives every figure, path and name
 * the one built in memory gives (wfb_message_metrics_compute,
 * wfb_longest_path, wfb_as_executed_path, wfb_vertex_id, ...), but has no
 * adjacency (wfb_in_edges and wfb_out_edges are empty) and cannot be
 * written out whole (wfb_write_dot, wfb_write_jsonl refuse). A trace whose
 * message graph cannot be analysed as it is read (a message read before it
 * was written, or defined twice; a cycle) makes wfb_lifter_feed_mon or
 * wfb_lifter_finish return WFB_LIFT_IN_MEMORY: lift it again with
 * wfb_lifter_new. */
wfb_lifter *wfb_lifter_new_bounded(wfb_graph *g);
#define WFB_LIFT_IN_MEMORY (-2)
/* Feeds one event of the monitor's trace reader (mon_reader.h), in the
 * order mon_trace_next delivers them; events the lifter does not use are
 * skipped. */
struct mon_event;
int wfb_lifter_feed_mon(wfb_lifter *l, const struct mon_event *ev, wfb_error *err);
/* Closes open executions and dispatches at the last event's time, stores the
 * runtime tables in the graph, finishes the graph (wfb_graph_finish) and
 * frees the lifter, also on error. Messages read but never written are
 * inputs from outside the monitored tasks, timed at their first read. */
int wfb_lifter_finish(wfb_lifter *l, wfb_error *err);
void wfb_lifter_free(wfb_lifter *l);

/* Imports an LPEL trace directory (through the monitor's trace reader). */
int wfb_import_lpel_trace(wfb_graph *g, const char *dir, wfb_error *err);


/* -------------------------------------------------------------- reports */

typedef enum wfb_output { WFB_OUT_TEXT = 0, WFB_OUT_JSON, WFB_OUT_CSV } wfb_output;

/* One CSV field to out, quoted as RFC 4180 says when it holds a comma, a
 * quote or a line break: the one CSV writer of every report. */
void wfb_csv_field(FILE *out, const char *s);

/* ----------------------------------------------------------- input loss */

/* What could not be read of one log of an LPEL trace, or of a text input
 * (a last line cut short), that was analysed anyway (snetmon --partial).
 * Figures computed from such a graph cover the events that were read;
 * every report of the graph says what was lost. */
#define WFB_LOSS_NO_WORKER UINT32_MAX /* worker of a text input's loss */
typedef struct wfb_log_loss {
    const char *file;
    uint32_t worker;           /* WFB_LOSS_NO_WORKER: a text input, not a worker's log */
    const char *state;         /* truncated, damaged, unfinished, missing, discarded */
    uint64_t offset;           /* byte offset of the problem in the file */
    uint64_t events_read;
    int64_t events_lost;       /* written but not read; -1 unknown */
    uint64_t events_discarded; /* lost by the writer during the run */
    uint64_t bytes_read;
    uint64_t bytes_lost;
    const char *message;       /* the reader's line: file, offset, problem */
} wfb_log_loss;

typedef struct wfb_input_loss {
    size_t n_logs;             /* the logs with a loss */
    const wfb_log_loss *logs;
    uint64_t events_read;      /* over the whole trace */
    uint64_t events_lost;      /* the known losses, discarded ones included */
    int events_lost_known;     /* 0: some log's loss is unknown, events_lost is
                                  then a lower bound */
    uint64_t bytes_lost;
    const char *run;           /* the run did not finish, or nothing says it did:
                                  why, in one line (docs/LOGFORMAT.md section 6);
                                  NULL when it finished */
    size_t files_passed;       /* files of the trace directory passed over: not of
                                  the run, duplicates, special files */
    const char *files_first;   /* the first of them, in one line; NULL when none */
} wfb_input_loss;

/* Attach a copy of loss to g (NULL: the input is complete); the reports of
 * g then include it in every format. -1 when out of memory. */
int wfb_graph_set_input_loss(wfb_graph *g, const wfb_input_loss *loss);
/* NULL when the input was read completely. */
const wfb_input_loss *wfb_graph_input_loss(const wfb_graph *g);
/* The loss on its own: text lines, one JSON object (docs/EVENTS.md), or a
 * CSV table (log,worker,state,...). */
int wfb_report_input_loss(const wfb_input_loss *loss, wfb_output fmt, FILE *out);
/* "N events and M bytes lost" ("at least N events", "an unknown number of
 * events" when some log cannot tell; "; the run is not known to have
 * finished", "; K files passed over" when so) into buf. */
void wfb_input_loss_summary(const wfb_input_loss *loss, char *buf, size_t len);

/* How the clocks of a multi-rank LPEL trace were aligned (the trace
 * reader's findings, docs/METRICS.md section 10), carried by the graph so
 * that its reports say so: per rank the linear correction, and the check
 * of the messages between ranks (received before sent). */
typedef struct wfb_rank_clock {
    uint32_t rank;
    unsigned samples;
    int has_start, has_end;
    double offset_ns, drift_ppm, rtt_ns, shift_max_ns;
} wfb_rank_clock;

typedef struct wfb_clock_alignment {
    size_t ranks;
    const wfb_rank_clock *rank;
    uint64_t messages, unmatched;
    uint64_t raw_violations; /* on the uncorrected clocks */
    uint64_t violations;     /* after the linear correction */
    double worst_ns;
    uint64_t fixed;          /* receives moved to send + latency_ns */
    double latency_ns;
    uint64_t after;          /* violations left after the fix-up */
} wfb_clock_alignment;

/* Attach a copy (NULL: none, a trace of one process); -1 out of memory. */
int wfb_graph_set_clock_alignment(wfb_graph *g, const wfb_clock_alignment *a);
const wfb_clock_alignment *wfb_graph_clock_alignment(const wfb_graph *g);
/* Text lines or one JSON object (null for NULL). */
int wfb_report_clock_alignment(const wfb_clock_alignment *a, wfb_output fmt, FILE *out);

/* Both critical paths (either may be invalid) as a text report or as the
 * JSON object documented in docs/EVENTS.md. */
int wfb_report_wcp(const wfb_graph *g, const wfb_path *longest, const wfb_path *as_executed,
                   wfb_output fmt, FILE *out);
/* Critical paths of the LPEL traces nested in activities (activities with a
 * `trace` attribute), reported inside their activity's report. */
typedef struct wfb_nested_wcp {
    const char *activity;       /* id of the activity in the outer graph */
    const char *trace;          /* its trace directory */
    const wfb_graph *graph;     /* NULL when the trace could not be read */
    const wfb_path *longest, *as_executed;
    const char *error;          /* why graph is NULL */
} wfb_nested_wcp;

/* wfb_report_wcp plus the nested traces ("nested": [...] in JSON). */
int wfb_report_wcp_nested(const wfb_graph *g, const wfb_path *longest,
                          const wfb_path *as_executed, const wfb_nested_wcp *nested,
                          size_t n_nested, wfb_output fmt, FILE *out);

/* The graph in Graphviz dot; vertices and edges of the longest path red,
 * of the as-executed path blue (both: purple). */
int wfb_write_dot(const wfb_graph *g, const wfb_path *longest, const wfb_path *as_executed,
                  FILE *out);

typedef struct wfb_metrics_input {
    const wfb_activity_report *activities;
    const wfb_message_report *messages;
    const uint32_t *anomalies; /* activity anomalies */
    size_t n_anomalies;
    int has_speedup;           /* --compare given */
    const char *compare_source;
    double speedup;
    size_t speedup_common;
} wfb_metrics_input;

int wfb_report_metrics(const wfb_graph *g, const wfb_metrics_input *in, wfb_output fmt,
                       FILE *out);

/* Everything a command needs to get a finished graph: detects the format
 * (unless given), loads the BP mapping file (NULL = Pegasus), reports
 * progress to `progress` (may be NULL) with ctx; partial as in
 * wfb_import_options. *out is NULL on error. */
int wfb_load_input(const char *path, wfb_format format, const char *bp_map_path, bool partial,
                   wfb_progress_fn progress, void *progress_ctx, wfb_graph **out,
                   wfb_error *err);

#ifdef __cplusplus
}
#endif
#endif
