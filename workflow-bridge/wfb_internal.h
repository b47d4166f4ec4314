/*
 * wfb_internal.h - what the bridge's source files share and its users never
 * see: the string table, the graph's columns and small helpers.
 */
#ifndef WFB_INTERNAL_H
#define WFB_INTERNAL_H

#include "wfb.h"
#include "kit.h"
#include "mon_reader.h" /* mon_key_table */

#include <stdarg.h>
#include <stdbool.h>

/* Interned strings: index i names the i-th distinct string. Strings live in
 * one arena (NUL-terminated); the kit's index map (kit.h) finds text's index. */
typedef struct wfb_strtab {
    char *arena;
    size_t arena_len, arena_cap;
    uint32_t *offset; /* per string: start in the arena */
    uint32_t *hash;   /* per string: its hash, so growing never rehashes text */
    size_t count, cap;
    kit_index_map map;
} wfb_strtab;

void wfb_strtab_free(wfb_strtab *t);
/* Returns the index, adding the string when new; WFB_NONE when out of memory.
 * *added (may be NULL) tells whether it was new. */
uint32_t wfb_strtab_intern(wfb_strtab *t, const char *s, size_t len, bool *added);
uint32_t wfb_strtab_find(const wfb_strtab *t, const char *s, size_t len);
static inline const char *wfb_strtab_get(const wfb_strtab *t, uint32_t i)
{
    return i == WFB_NONE ? NULL : t->arena + t->offset[i];
}
size_t wfb_strtab_bytes(const wfb_strtab *t);

enum {
    WFB_VF_ACTIVITY = 1u << 0,
    WFB_VF_DEFINED = 1u << 1,
    WFB_VF_FAILED = 1u << 2,
    WFB_VF_ONLY_READ = 1u << 3, /* LPEL: read, never written by a monitored task */
};

struct wfb_graph {
    char *source;
    wfb_strtab ids;  /* vertex ids; string index == vertex index */
    wfb_strtab strs; /* every other string (labels, locations, ...) */

    size_t cap_v;    /* capacity of every vertex column */
    uint8_t *v_flags;
    uint32_t *v_line;
    /* Columns allocated on first use (NULL = all default). */
    double *v_time[WFB_T_KIND_COUNT]; /* NAN = unknown */
    double *v_duration;               /* NAN = not given */
    uint64_t *v_size;
    uint32_t *v_run;                  /* LPEL run of each vertex */
    uint32_t *v_attr[WFB_ATTR_COUNT]; /* index into strs, WFB_NONE = unset */

    size_t ne, cap_e;
    uint32_t *e_src, *e_dst;
    uint8_t *e_kind;
    double *e_cost;
    uint32_t *e_exec;  /* lazy */
    uint32_t *e_label; /* lazy, index into strs */

    bool finished;
    uint32_t *out_off, *out_list, *in_off, *in_list, *topo;

    wfb_worker_stats *workers;
    size_t n_workers;
    wfb_task_stats *tasks;
    size_t n_tasks;
    kit_spill *execs;          /* wfb_exec rows, one per component execution */
    size_t n_execs;
    wfb_wait_relation *waits;
    size_t n_waits;
    wfb_stream_stats *streams; /* wfb_streams.c */
    size_t n_streams;
    kit_spill *periods;        /* wfb_period rows: the as-executed graph (wfb_execgraph.c) */
    size_t n_periods;
    wfb_limits limits;         /* the caches of the spilled tables (wfb_graph_set_limits) */
    char *tmp_dir;             /* limits.tmp_dir's copy */
    int io_err;                /* errno of a temporary file that failed, 0 */
    wfb_exec exec_lost;        /* wfb_graph_exec_mut's row after such a failure */
    struct wfb_online *online; /* an LPEL trace lifted bounded: its message graph's
                                  vertices are there, not in the columns above */
    char name_ring[8][128];    /* wfb_vertex_id/attr of an online graph: the last 8 */
    unsigned name_at;
    bool cpu_known;            /* the trace has CPU readings (flag C) */
    struct wfb_loss_copy *loss; /* what the input lacked; NULL when complete */
    wfb_clock_alignment *clocks; /* a multi-rank trace's clock alignment, or NULL */
    uint32_t n_runs;            /* LPEL runs (0: not a trace) */
    double makespan_s;          /* stated by the input, NAN when not */
    bool exec_costs_unknown;    /* executions without task periods to measure */
};

/* A spill array for one of g's tables (kit.h) whose cache may take
 * `share` of g's memory limit (all of it: 1; no limit: unbounded). NULL when
 * out of memory. */
kit_spill *wfb_graph_spill(const wfb_graph *g, size_t rec_size, double share);
/* Record i of a spilled table, to change; NULL with g's io_err set when its
 * temporary file failed. */
void *wfb_graph_spill_at(const wfb_graph *g, kit_spill *s, uint64_t i);
/* The same to read: on failure a record of zero bytes (io_err set, which
 * the commands check before they keep their output). */
const void *wfb_graph_spill_get(const wfb_graph *g, kit_spill *s, uint64_t i);
/* A component execution's row, to change (the lifter's CPU shares). */
wfb_exec *wfb_graph_exec_mut(wfb_graph *g, uint32_t x);

/* Formats an error message; file from `file` (may be NULL). */
void wfb_set_error(wfb_error *err, const char *file, long line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Interns an arbitrary string into the graph's string table. */
uint32_t wfb_graph_string(wfb_graph *g, const char *s);

/* Reads one line of any length into *buf (grown as needed); returns its
 * length without the newline, or -1 at end of input. `line` (may be NULL)
 * gets what a text importer needs to tell a whole last line from one cut
 * short: the bytes read from the stream and whether a newline ended them. */
typedef struct wfb_line_info {
    size_t bytes;    /* consumed from the stream, newline included */
    bool terminated; /* ended by a newline (else by the end of the input) */
} wfb_line_info;
long wfb_read_line(FILE *in, char **buf, size_t *cap, wfb_line_info *line);

/* Where a text importer stands: the file, the line being read and the
 * byte it starts at, the lines read before it. */
typedef struct wfb_text_pos {
    const char *file;
    long line;
    uint64_t offset;
    uint64_t lines_read;
} wfb_text_pos;

/* The last line of a text input has no newline and is no whole record (a
 * copy cut short, a writer killed in mid-line): an error naming it, or
 * with `partial` 0 after attaching its loss to g (the line is left out;
 * reports say so). len: its bytes. */
int wfb_text_cut_short(wfb_graph *g, const wfb_text_pos *at, size_t len, bool partial,
                       wfb_error *err);

/* One JSON Lines event as flat members (see wfb_jsonl_record.c). Strings
 * point into the line buffer or into the JSON value they came from. */
typedef enum wfb_jv_type {
    WFB_JV_NULL = 0,
    WFB_JV_STRING,
    WFB_JV_NUMBER,
    WFB_JV_BOOL,
    WFB_JV_STRINGS, /* an array of strings */
    WFB_JV_OTHER    /* anything else (nested objects, mixed arrays) */
} wfb_jv_type;

typedef struct wfb_jv {
    wfb_jv_type type;
    const char *str;
    double num;
    const char **items;
    size_t n_items;
} wfb_jv;

#define WFB_RECORD_MAX_FIELDS 32
typedef struct wfb_record {
    int n;
    const char *keys[WFB_RECORD_MAX_FIELDS];
    wfb_jv values[WFB_RECORD_MAX_FIELDS];
    /* storage for string arrays */
    const char **items;
    size_t n_items_used, cap_items;
    void *json; /* the jansson value behind the strings, when parsed by it */
} wfb_record;

/* Parses one line into rec. Flat objects of plain strings, numbers,
 * booleans, null and arrays of strings are parsed in place (the line is
 * modified); anything else goes through jansson, which also produces the
 * error text. Returns 0, -1 on bad JSON (message in msg), -2 when the line
 * is JSON but not an object. */
int wfb_record_parse(wfb_record *rec, char *line, size_t len, char *msg, size_t msglen);
/* NULL when absent. */
const wfb_jv *wfb_record_get(const wfb_record *rec, const char *key);
/* Releases what one parse held (call before the next parse and at the end). */
void wfb_record_clear(wfb_record *rec);
void wfb_record_free(wfb_record *rec);

/* wfb_import_lpel_trace with a progress callback (done = events read,
 * total = 0: the number of events is not known in advance). */
int wfb_import_lpel_trace_opt(wfb_graph *g, const char *dir, const wfb_import_options *opt,
                              wfb_error *err);

/* Report helpers (wfb_report.c): a number (null when NAN or infinite), a
 * string (null when NULL), an RFC 4180 CSV field, and JSON documents.
 *
 * A document is built into one wfb_json_doc (zero-initialised, on the
 * stack of the report that writes it; nothing of it is shared between
 * documents or threads): every member goes in through wfb_json_set and
 * wfb_json_append (jansson's json_object_set_new and
 * json_array_append_new, which take a NULL value for a failed
 * constructor), which note in the document that one could not be added;
 * wfb_json_dump writes the document with stable key order, or refuses
 * (-1, nothing written) when that happened, and frees root and the
 * document's state. */
struct json_t;
struct wfb_json_deferred;
typedef struct wfb_json_doc {
    bool failed; /* a member could not be added: memory ran out (or jansson
                    refused a string that is not UTF-8) */
    struct wfb_json_deferred *deferred; /* wfb_json_deferred_array's */
    size_t n_deferred, cap_deferred;
} wfb_json_doc;
struct json_t *wfb_json_num(double x);
struct json_t *wfb_json_str(const char *s);
int wfb_json_set(wfb_json_doc *d, struct json_t *o, const char *key, struct json_t *v);
int wfb_json_append(wfb_json_doc *d, struct json_t *a, struct json_t *v);
int wfb_json_dump(wfb_json_doc *d, struct json_t *root, FILE *out);
/* An array of n items made one at a time as wfb_json_dump writes d
 * (item(d, a, b, i) returns item i, NULL when out of memory): for arrays
 * as long as the trace. */
typedef struct json_t *(*wfb_json_item)(wfb_json_doc *d, const void *a, const void *b, size_t i);
struct json_t *wfb_json_deferred_array(wfb_json_doc *d, wfb_json_item item, const void *a,
                                       const void *b, size_t n);

/* An as-executed path of steps (wfb_report_steps.c): its text lines
 * after the title, and its JSON object. */
void wfb_steps_text(const wfb_graph *g, const wfb_path *p, FILE *out);
struct json_t *wfb_steps_json(wfb_json_doc *d, const wfb_graph *g, const wfb_path *p);

/* The input loss as a JSON object (jansson), for the reports. */
struct json_t *wfb_input_loss_json(wfb_json_doc *d, const wfb_input_loss *loss);
void wfb_loss_free(struct wfb_loss_copy *copy);
/* The clock alignment as a JSON object (null for NULL), and freeing the
 * graph's copy. */
struct json_t *wfb_clock_alignment_json(wfb_json_doc *d, const wfb_clock_alignment *a);
void wfb_clock_alignment_free(wfb_clock_alignment *a);

/* One event of an activity's life, checked against the others: submitted
 * <= active <= end. An active time at or after the current end begins a
 * new attempt (the end is forgotten until the attempt ends). Returns 0, -1
 * when out of memory, or -2 with why set when the time goes backwards. */
int wfb_activity_event(wfb_graph *g, uint32_t v, wfb_time_kind kind, double t, char *why,
                       size_t whylen);

/* Why a task stopped running: the index into wfb_task_stats.blocks. */
typedef enum wfb_block_cause {
    WFB_BLOCK_INPUT = 0,
    WFB_BLOCK_OUTPUT,
    WFB_BLOCK_ANY,
    WFB_BLOCK_OTHER /* exit, yield */
} wfb_block_cause;

/* The lifter's stream table (wfb_streams.c): rows keyed by (run, stream). */
typedef struct wfb_stream_table {
    wfb_stream_stats *rows;
    size_t n, cap;
    kit_index_map index; /* (run, stream) -> row */
} wfb_stream_table;
struct mon_event;
/* Records a STREAM_OPEN or STREAM_WRITE event; -1 when out of memory. */
int wfb_stream_table_feed(wfb_stream_table *t, uint32_t run, const struct mon_event *ev);
/* Moves the rows into g (the table is emptied); -1 when out of memory. */
int wfb_stream_table_store(wfb_stream_table *t, wfb_graph *g);
void wfb_stream_table_free(wfb_stream_table *t);

/* The as-executed graph as the lifter records it (wfb_execgraph.c): the
 * periods in the order they began, what each task and worker is in. */
struct mon_interval;
typedef struct wfb_execgraph {
    const wfb_graph *g;         /* whose limits its rows spill within */
    kit_spill *rows;            /* wfb_period */
    size_t n;
    struct aeg_latest *latest;  /* per run: the period that ended last so far */
    size_t cap_latest;
    uint32_t *asking;           /* periods opened at time asking_s, whose latest_ended */
    size_t n_asking, cap_asking;/* a period ending at that same time may still change */
    double asking_s;
    struct aeg_task *tasks;     /* by task index */
    size_t cap_tasks;
    struct aeg_worker *workers; /* by worker number */
    size_t cap_workers;
    mon_key_table sent;         /* records sent to another rank, by message id */
} wfb_execgraph;
/* An EXEC interval of task (its index) opens / closes; -1 out of memory. */
int wfb_execgraph_open(wfb_execgraph *a, uint32_t run, uint32_t task,
                       const struct mon_interval *iv);
void wfb_execgraph_close(wfb_execgraph *a, uint32_t task, const struct mon_interval *iv);
/* A worker's IDLE interval closed: it waited between two periods. */
void wfb_execgraph_idle(wfb_execgraph *a, uint32_t run, const struct mon_interval *iv);
/* The task's BLOCKED interval closed (at its dispatch): the cause of its
 * next period. */
void wfb_execgraph_blocked(wfb_execgraph *a, uint32_t task, const struct mon_interval *iv);
/* stream_wake at time `at`: task waker (running) woke task woken. */
void wfb_execgraph_wake(wfb_execgraph *a, uint32_t waker, uint32_t woken, double at);
/* task_create of task on worker at time `at` (ready from then). */
void wfb_execgraph_created(wfb_execgraph *a, uint32_t run, uint32_t task, unsigned worker,
                           double at);
/* message_sent of msg by task at `at` (its running period sent it);
 * message_received of msg by task: when the task's running period followed
 * a wait at a channel, the sending period is its cause (data, across
 * ranks). -1 out of memory. */
int wfb_execgraph_sent(wfb_execgraph *a, uint32_t run, uint32_t task, uint64_t msg, double at);
void wfb_execgraph_received(wfb_execgraph *a, uint32_t run, uint32_t task, uint64_t msg);
/* The task wrote data state vertex (in its running period). */
void wfb_execgraph_wrote(wfb_execgraph *a, uint32_t task, uint32_t vertex);
/* Moves the periods into g. */
int wfb_execgraph_store(wfb_execgraph *a, wfb_graph *g);
void wfb_execgraph_free(wfb_execgraph *a);

/* Where the longest path ends, of n vertices with these distances
 * (wfb_wcp.c). */
uint32_t wfb_path_last(const double *dist, size_t n);

/* ---- the bounded lifter's message graph (wfb_online.c) ---- */

/* The kinds of data state the lifter makes of a message, and their ids:
 *   PLAIN      m<id>, r<run>.m<id> after run 1: as written (or first read)
 *   MOVED      ...@w<worker>: as read on another worker than it was written on
 *   DEPARTURE  ...>rank<q>: leaving for rank q
 *   ARRIVAL    ...@rank<r>: arrived on rank r
 *   DELETED    x<exec>.deleted: what an execution consumed without output */
typedef enum wfb_mv_kind {
    WFB_MV_PLAIN = 0,
    WFB_MV_MOVED,
    WFB_MV_DEPARTURE,
    WFB_MV_ARRIVAL,
    WFB_MV_DELETED
} wfb_mv_kind;

/* The label attribute a data state may have. */
typedef enum wfb_mv_label { WFB_MV_NO_LABEL = 0, WFB_MV_EXTERNAL, WFB_MV_DELETED_LABEL } wfb_mv_label;

/* The one way the lifter names a data state (aux: the worker or rank;
 * msg: the execution of a DELETED one). */
void wfb_mv_name(char *buf, size_t len, wfb_mv_kind kind, uint32_t run, uint64_t msg,
                 uint32_t aux);
/* "external input", "deleted", NULL. */
const char *wfb_mv_label_text(wfb_mv_label label);

typedef struct wfb_online wfb_online;

wfb_online *wfb_online_new(wfb_graph *g);
void wfb_online_free(wfb_online *o);
/* The vertex of a message's data state, WFB_NONE when there is none (or on
 * failure); ref creates it, numbered in the order of creation as the
 * graph numbers vertices. */
uint32_t wfb_online_find(wfb_online *o, wfb_mv_kind kind, uint32_t run, uint64_t msg, uint32_t aux);
uint32_t wfb_online_ref(wfb_online *o, wfb_mv_kind kind, uint32_t run, uint64_t msg, uint32_t aux);
/* A new DELETED state of execution exec. */
uint32_t wfb_online_deleted(wfb_online *o, uint32_t run, uint32_t exec);
bool wfb_online_defined(wfb_online *o, uint32_t v);
/* Where v is (the lifter's writer worker), WFB_NONE. */
uint32_t wfb_online_worker(wfb_online *o, uint32_t v);

typedef struct wfb_mv_define {
    double time;
    uint32_t worker;     /* its location */
    uint32_t origin;     /* the writing task's name in g->strs, WFB_NONE */
    wfb_mv_label label;
    bool only_read;      /* an input from outside the monitored tasks */
    bool pending;        /* its in-edges come with a batch (written in an open
                            execution, or the end of a transfer); else an input */
} wfb_mv_define;
int wfb_online_define(wfb_online *o, uint32_t v, const wfb_mv_define *d);

/* The edges of one execution (kind CONVERT, SPLIT, MERGE: every read to
 * every write; DELETE: to the one write, its DELETED state), or of one
 * transfer (TRANSFER, exec WFB_NONE, one read and one write). An execution
 * without reads makes its writes inputs. label: the task's name (g->strs). */
typedef struct wfb_mv_batch {
    uint32_t exec, label;
    wfb_edge_kind kind;
    double cost;
    const uint32_t *reads, *writes;
    uint32_t n_reads, n_writes;
} wfb_mv_batch;
int wfb_online_batch(wfb_online *o, const wfb_mv_batch *b);
/* Execution exec's CPU time will change after it ends (the lifter spreads
 * its period's time off the core when the period ends), and now it is
 * final. */
void wfb_online_exec_cpu_pending(wfb_online *o, uint32_t exec);
void wfb_online_exec_cpu_final(wfb_online *o, uint32_t exec);
/* The end of the trace: 0, or -1 when out of memory or a temporary file
 * failed. Afterwards wfb_online_irregular says whether the trace could be
 * analysed this way at all. */
int wfb_online_finish(wfb_online *o);
/* Why the trace's message graph cannot be analysed as it is read (the
 * lifter must build it in memory), NULL when it can. */
const char *wfb_online_irregular(const wfb_online *o);

uint32_t wfb_online_vertex_count(const wfb_online *o);
uint64_t wfb_online_edge_count(const wfb_online *o);
uint32_t wfb_online_input_count(const wfb_online *o);

typedef struct wfb_mv_info {
    wfb_mv_kind kind;
    uint32_t run;
    uint64_t msg;
    uint32_t aux;
    double time;
    uint32_t worker, origin;
    wfb_mv_label label;
    bool only_read, has_out;
    double dist;
} wfb_mv_info;
int wfb_online_vertex(wfb_online *o, uint32_t v, wfb_mv_info *out);

/* A final vertex's in-edges: the longest path's and the latest-ending
 * source, and what they share. */
typedef struct wfb_mv_back {
    uint32_t dp_src, ae_src, exec, label;
    double cost;
    wfb_edge_kind kind;
    bool untimed;
} wfb_mv_back;
int wfb_online_back(wfb_online *o, uint32_t v, wfb_mv_back *out);

/* Input k's lifeline (inputs numbered as they became final). */
typedef struct wfb_mv_input {
    uint32_t vertex, run;
    double end_to_end_s;
    uint64_t descendants;
    bool missing, only_read;
    double latency_s, latency_cpu_s;
} wfb_mv_input;
int wfb_online_input(wfb_online *o, uint32_t k, wfb_mv_input *out);
/* The vertex the longest path ends at (wfb_path_last's rule). */
uint32_t wfb_online_path_end(const wfb_online *o);

/* An edge of a graph lifted bounded that a path goes along, kept in the
 * graph's edge columns so that the wfb_edge_* functions tell of it (the
 * graph's edges are counted, not kept). Its index, WFB_NONE when out of
 * memory. */
uint32_t wfb_graph_path_edge(const wfb_graph *g, const wfb_mv_back *b, uint32_t src, uint32_t dst);

/* Appends one execution; returns its index or WFB_NONE. */
uint32_t wfb_graph_add_exec(wfb_graph *g, const wfb_exec *x);

/* NetLogger BP lines (wfb_netlogger.c; tested on their own). */
/* One parsed BP line: pairs point into the caller's buffer (modified). */
typedef struct wfb_bp_pair {
    const char *key;
    const char *value;
} wfb_bp_pair;
/* Splits `line` in place into pairs (quotes removed, \" unescaped).
 * Returns the number of pairs or -1 on a syntax error. */
int wfb_bp_parse_line(char *line, wfb_bp_pair *pairs, int max_pairs);
/* ISO-8601 "2012-03-13T12:35:36.000000Z" (or a number) -> seconds since the
 * epoch; -1 on failure. */
int wfb_parse_time(const char *s, double *out);

/* An exact sum of doubles (wfb_metrics.c): the result is the exact sum
 * rounded once, so it does not depend on the order of the terms. Eq. 2
 * adds each input's execution times with it, so that a lifeline summed as
 * the graph is walked and one summed as the trace is read (the bounded
 * analysis) are the same number. Zero-initialised is zero. */
typedef struct wfb_xsum {
    uint64_t limb[3]; /* two's complement, lowest bit 2^-128 */
    double odd;       /* terms outside [2^-128, 2^62), added as doubles */
} wfb_xsum;
void wfb_xsum_add(wfb_xsum *x, double d);
double wfb_xsum_value(const wfb_xsum *x);

/* Percentile timeouts of the message metrics (wfb_messages.c). */
/* Fixed-memory log-scale histogram for percentile timeouts. Relative error
 * of a bucket is below 1/WFB_HIST_SUB. */
#define WFB_HIST_SUB 64
#define WFB_HIST_OCTAVES 64
typedef struct wfb_histogram {
    double unit;          /* smallest resolved value */
    uint64_t count;
    uint64_t zero;        /* values below unit */
    uint64_t buckets[WFB_HIST_OCTAVES * WFB_HIST_SUB];
} wfb_histogram;
void wfb_histogram_init(wfb_histogram *h, double unit);
void wfb_histogram_add(wfb_histogram *h, double value);
/* Upper bound of the bucket holding the p-th percentile (0 < p <= 100). */
double wfb_histogram_percentile(const wfb_histogram *h, double p);

#endif
