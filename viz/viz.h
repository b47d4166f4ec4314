/*
 * viz.h - the visualiser's whole public interface.
 *
 * Three independent pictures, each fed through a small neutral input model so
 * that any source (the monitor's trace reader, the workflow bridge, the text
 * timeline format below, a test) can drive it:
 *
 *  1. viz_timeline: the worker-utilisation image (one column per worker, time
 *     running downwards). Fed incrementally; memory stays bounded because
 *     busy/waiting time is accumulated into a fixed number of time bins per
 *     worker (at most a few per pixel row) and only periods at least one bin
 *     long are kept for drawing as labelled boxes. Renders to PNG or SVG
 *     through cairo, chosen by the output file's extension.
 *  2. viz_net: the network as run (tasks coloured by worker, streams labelled
 *     with message counts) through Graphviz; .svg, .png or .dot.
 *  3. viz_dag: a DAG with its critical path highlighted in context, repeated
 *     structure collapsed into "label ×N" nodes; .svg, .png or .dot.
 *  4. viz_report: one self-contained HTML file (inline CSS, JS and SVG, no
 *     network fetches): tables that sort by any column, and the utilisation
 *     timeline (1) as an SVG to zoom and pan, with a path drawn over it.
 *
 * Times are nanoseconds (int64). Every function returning int returns VIZ_OK
 * (0) or a negative viz_status; a one-line message is then available from the
 * object's *_error() function (or in the err buffer for constructors).
 */
#ifndef VIZ_H
#define VIZ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef int64_t viz_time; /* nanoseconds */

typedef enum viz_status {
    VIZ_OK = 0,
    VIZ_EINVAL = -1,  /* bad argument or inconsistent event */
    VIZ_ENOMEM = -2,
    VIZ_EIO = -3,     /* output file could not be written */
    VIZ_EFORMAT = -4, /* bad input text */
    VIZ_ERENDER = -5  /* cairo or graphviz failed */
} viz_status;

/* How a task execution period ended. */
typedef enum viz_period_end {
    VIZ_END_BLOCKED_INPUT = 0, /* read on an empty stream */
    VIZ_END_BLOCKED_OUTPUT,    /* write on a full stream */
    VIZ_END_BLOCKED_ANY,       /* poll on a set of empty streams */
    VIZ_END_YIELDED,
    VIZ_END_DESTROYED,
    VIZ_END_OPEN, /* the trace ended (or was truncated) while it ran */
    VIZ_END_COUNT
} viz_period_end;

/* Short human name ("blocked in", ...) and the token used in the text format
 * ("input", "output", "any", "yield", "destroy", "open"). */
const char *viz_period_end_label(viz_period_end how);
const char *viz_period_end_token(viz_period_end how);
/* Parses a token as above; returns false if unknown. */
bool viz_period_end_parse(const char *token, viz_period_end *how);


/* ------------------------------------------------------------------------ */
/* 1. Worker-utilisation timeline                                            */
/* ------------------------------------------------------------------------ */

typedef struct viz_timeline viz_timeline;

typedef enum viz_message_dir { VIZ_MSG_READ = 0, VIZ_MSG_WRITTEN = 1 } viz_message_dir;

typedef struct viz_timeline_config {
    int width, height;      /* image size in pixels; 0 = default 1200 x 900 */
    bool has_window;        /* zoom: only [from, to) is drawn, in full detail */
    viz_time from, to;      /* relative to the time origin (see below) */
    const char *task_regex; /* PCRE2; NULL = all tasks. Time of the others
                               is drawn pale, as kind "(filtered out)". */
    const char *title;      /* NULL = "Worker utilisation" */
} viz_timeline_config;

/* Creates an empty timeline. The config strings are copied. */
int viz_timeline_create(viz_timeline **out, const viz_timeline_config *config, char *err,
                        size_t errlen);
void viz_timeline_destroy(viz_timeline *tl);
/* Replaces the title (e.g. once the input says it was only partly read). */
int viz_timeline_set_title(viz_timeline *tl, const char *title);
/* The message of the last failed call on tl. */
const char *viz_timeline_error(const viz_timeline *tl);

/* The time origin: the axis shows times relative to it and --start/--end are
 * relative to it. Must be set before the first event if at all; without it
 * the origin is the first event's time (with a window) or the earliest time
 * seen (without). */
int viz_timeline_set_origin(viz_timeline *tl, viz_time origin);

/* Workers are numbered 0..65535; naming one is optional (default "worker N"),
 * and a worker appears in the image once named or once it has an event. */
int viz_timeline_add_worker(viz_timeline *tl, int worker, const char *name);
/* Declares a task (mapping event). kind NULL = derived from the name. A task
 * used by a period before being declared is called "task <id>". Redeclaring
 * renames it only if it has not been used yet. */
int viz_timeline_add_task(viz_timeline *tl, uint64_t task, const char *name, const char *kind);

/* A complete execution period / waiting period / mark. Order does not
 * matter (the bins accept any order). */
int viz_timeline_add_period(viz_timeline *tl, int worker, uint64_t task, viz_time start,
                            viz_time end, viz_period_end how);
int viz_timeline_add_wait(viz_timeline *tl, int worker, viz_time start, viz_time end);
int viz_timeline_add_message(viz_timeline *tl, int worker, viz_time when, viz_message_dir dir);

/* A monitor trace (mon_reader.h) into a timeline: the trace's events go
 * in one at a time, in the reader's order; task names, worker columns
 * ("r1.w0" for a worker of a multi-rank trace, named by its first event)
 * and message marks come from the events, the execution periods and waits
 * from the reader's period layer (mon_periods), so they are the periods
 * every other consumer of the trace sees. viz_trace_finish ends what is
 * still open at the latest time seen (drawn VIZ_END_OPEN), which is how a
 * truncated trace renders. */
struct mon_event;
typedef struct viz_trace_feeder viz_trace_feeder;
viz_trace_feeder *viz_trace_feeder_new(viz_timeline *tl); /* NULL: out of memory */
int viz_trace_feed(viz_trace_feeder *f, const struct mon_event *ev);
int viz_trace_finish(viz_trace_feeder *f);
void viz_trace_feeder_free(viz_trace_feeder *f);
/* The id a task or stream of run `run` has in the pictures: the id itself
 * in run 1, after it mon_run_id_key (ids restart with each run). */
uint64_t viz_trace_id(uint32_t run, uint64_t id);

/* Draws the image to path: ".png" or ".svg" (case-insensitive). Can be
 * called more than once. */
int viz_timeline_render(viz_timeline *tl, const char *path);

/* Where the next render puts things, for tests and tools that annotate the
 * image: worker column c spans x in [plot_x + c*(col_w+col_gap), +col_w),
 * time t is at y = plot_y + (t - start) * plot_h / (end - start). */
typedef struct viz_timeline_geometry {
    int plot_x, plot_y, plot_w, plot_h;
    int col_w, col_gap;
    int columns;        /* workers shown, in increasing worker id */
    viz_time start, end; /* time range shown (absolute) */
    viz_time axis_origin;
} viz_timeline_geometry;
int viz_timeline_get_geometry(viz_timeline *tl, viz_timeline_geometry *geometry);
/* The colour (0..255 each) used for a kind, or for "(waiting)",
 * "(unaccounted)", "(filtered out)", "(other kinds)". */
int viz_timeline_colour(viz_timeline *tl, const char *kind, unsigned char rgb[3]);

/* Counters, for tests and the CLI's summary line. */
typedef struct viz_timeline_stats {
    uint64_t periods;         /* accepted (inside the window) */
    uint64_t periods_kept;    /* kept for detailed drawing right now */
    uint64_t waits, messages; /* accepted */
    int workers, kinds;
    viz_time bin_width;       /* current ns per bin */
    viz_time first, last;     /* earliest and latest time seen */
} viz_timeline_stats;
void viz_timeline_get_stats(const viz_timeline *tl, viz_timeline_stats *stats);

/* Frees the font caches that drawing text leaves in cairo and fontconfig for
 * the life of the process. Without this, LeakSanitizer reports them at exit
 * (about 1 KiB in 12 blocks: fontconfig links its pattern elements by
 * offset, which a leak checker cannot follow). Call it when the program is
 * done drawing: every viz object destroyed, no other thread using cairo.
 * Drawing again afterwards works (the caches are built anew). */
void viz_release_font_caches(void);

/* ------------------------------------------------------------------------ */
/* 2. Network graph                                                          */
/* ------------------------------------------------------------------------ */

typedef struct viz_net viz_net;

#define VIZ_NO_TASK UINT64_MAX /* a stream end outside the network */

int viz_net_create(viz_net **out, char *err, size_t errlen);
void viz_net_destroy(viz_net *net);
const char *viz_net_error(const viz_net *net);
/* worker < 0: unknown (yet). Redeclaring updates name and worker. */
int viz_net_add_task(viz_net *net, uint64_t task, const char *name, int worker);
/* Sets the task's worker if still unknown (e.g. from its first dispatch). */
int viz_net_task_ran_on(viz_net *net, uint64_t task, int worker);
/* A stream from writer to reader (VIZ_NO_TASK: outside the network, or not
 * known yet). Given again, the same stream id adds messages and sets the
 * ends that are given. */
int viz_net_add_stream(viz_net *net, uint64_t stream, uint64_t writer, uint64_t reader,
                       uint64_t messages);
/* Per-message counting for readers of event traces: the edge label is the
 * explicit count plus the larger of messages written and read (a stream
 * from outside has only reads, one to outside only writes). */
int viz_net_count_traffic(viz_net *net, uint64_t stream, uint64_t written, uint64_t read);
/* One event of a monitor trace (mon_reader.h) into the network: task_map
 * names a task and its worker, task_dispatch where it ran, stream and
 * channel events the streams and their traffic (trace_feed.c). VIZ_OK or
 * the viz status. */
int viz_trace_feed_net(viz_net *net, const struct mon_event *ev);
/* ".svg", ".png" or ".dot" */
int viz_net_render(viz_net *net, const char *path);

/* ------------------------------------------------------------------------ */
/* 3. DAG with critical path                                                 */
/* ------------------------------------------------------------------------ */

typedef struct viz_dag viz_dag;

typedef struct viz_dag_config {
    bool collapse;       /* merge repeated structure (default in the CLI) */
    const char *title;   /* NULL = none */
    const char *path_summary; /* the title's line about the path; NULL = "critical
                                 path (red): N vertices, <sum of their durations>" */
} viz_dag_config;

int viz_dag_create(viz_dag **out, char *err, size_t errlen);
void viz_dag_destroy(viz_dag *dag);
const char *viz_dag_error(const viz_dag *dag);
/* duration in ns (< 0: unknown) */
int viz_dag_add_vertex(viz_dag *dag, uint64_t id, const char *label, viz_time duration);
int viz_dag_add_edge(viz_dag *dag, uint64_t from, uint64_t to);
/* The critical path, from first to last vertex. Replaces any earlier one. */
int viz_dag_set_critical_path(viz_dag *dag, const uint64_t *ids, size_t count);
/* Number of nodes the picture would have after collapsing. */
int viz_dag_collapsed_size(viz_dag *dag, size_t *nodes);
/* ".svg", ".png" or ".dot"; config NULL = collapse on. */
int viz_dag_render(viz_dag *dag, const char *path, const viz_dag_config *config);

/* ------------------------------------------------------------------------ */
/* 4. HTML report                                                            */
/* ------------------------------------------------------------------------ */

/* A report is a title, a table of facts about the run, then blocks in the
 * order they are added (headings, paragraphs, tables, the timeline), and
 * last an advice section, present only when advice was set. Strings are
 * copied; every text is escaped when written. */
typedef struct viz_report viz_report;

int viz_report_create(viz_report **out, const char *title, char *err, size_t errlen);
void viz_report_destroy(viz_report *r);
const char *viz_report_error(const viz_report *r);

/* One line of the run's facts at the top ("trace", "/tmp/t"). */
int viz_report_add_meta(viz_report *r, const char *key, const char *value);
/* A section heading; id is its anchor in the page's table of contents. */
int viz_report_add_heading(viz_report *r, const char *id, const char *title);
int viz_report_add_text(viz_report *r, const char *text);

typedef struct viz_report_column {
    const char *title;
    bool numeric; /* sorts by the cells' values, right-aligned */
} viz_report_column;

typedef struct viz_report_cell {
    const char *text; /* shown; NULL = empty */
    double value;     /* numeric columns sort by it (NAN: last) */
} viz_report_cell;

/* A table; rows go to the last table added. sortable: clicking a column's
 * title sorts the rows by it (again: the other way). id may be NULL. */
int viz_report_add_table(viz_report *r, const char *id, const viz_report_column *columns,
                         size_t ncolumns, bool sortable);
/* ncolumns cells; highlight marks the row (e.g. a step of the critical path). */
int viz_report_add_row(viz_report *r, const viz_report_cell *cells, bool highlight);

/* The utilisation timeline, drawn when the report is written exactly as
 * viz_timeline_render draws the SVG (same colours as the PNG), with one lane
 * per worker column to hover, zoom (wheel, buttons) and pan (drag). tl must
 * live until viz_report_write. */
int viz_report_add_timeline(viz_report *r, viz_timeline *tl);
/* A point of the path drawn over the timeline (red line through the
 * points, in the order added): on worker's column at time when (the same
 * clock as the timeline's events); label shows on hover. */
int viz_report_add_path_point(viz_report *r, int worker, viz_time when, const char *label);
/* A series plot (part 5), drawn now as the SVG viz_series_render would
 * write; the report shows it inline at the page's width. */
struct viz_series_plot;
int viz_report_add_plot(viz_report *r, const struct viz_series_plot *plot);
/* The advice section's text, shown as it is (preformatted). */
int viz_report_set_advice(viz_report *r, const char *text);

/* Writes the whole HTML document to out. */
int viz_report_write(viz_report *r, FILE *out);

/* ------------------------------------------------------------------------ */
/* 5. Series plot: figures of many runs along one label                      */
/* ------------------------------------------------------------------------ */

/* One line of a panel: n_points values (NAN: missing, the line breaks). */
typedef struct viz_series_line {
    const char *name;
    const double *values;
} viz_series_line;

/* One panel: its own y axis from 0, its lines in palette colours. */
typedef struct viz_series_panel {
    const char *title; /* with the unit, e.g. "latency [s]" */
    size_t n_lines;
    const viz_series_line *lines;
} viz_series_panel;

/* Panels stacked above one categorical x axis (x_labels, in order). */
typedef struct viz_series_plot {
    const char *title;
    const char *x_title;
    size_t n_points;
    const char *const *x_labels;
    size_t n_panels;
    const viz_series_panel *panels;
    int width, height; /* 0 = default 900 x 300 per panel */
} viz_series_plot;

/* Draws the plot to path, ".png" or ".svg" (cairo). VIZ_OK or an error with
 * one line in err. */
int viz_series_render(const viz_series_plot *plot, const char *path, char *err, size_t errlen);

/* ------------------------------------------------------------------------ */
/* Text timeline format (see docs in viz/timeline_text.c and --help)         */
/* ------------------------------------------------------------------------ */

/* Reads a text timeline from in, feeding tl and/or net (either may be NULL).
 * name is used in messages ("NAME:LINE: ..."). A last line without newline
 * is taken as truncation: it is ignored, *truncated is set, and the result is
 * still VIZ_OK. err gets the first error or the truncation warning. */
int viz_read_timeline_text(FILE *in, const char *name, viz_timeline *tl, viz_net *net,
                           bool *truncated, char *err, size_t errlen);

/* Reads the DAG text format (see viz/dag_text.c) into dag. Errors name
 * "NAME:LINE". */
int viz_read_dag_text(FILE *in, const char *name, viz_dag *dag, char *err, size_t errlen);

/* Parses "12", "1.5ms", "200us", "3s", "40ns" into nanoseconds. */
bool viz_parse_duration(const char *text, viz_time *out);

#ifdef __cplusplus
}
#endif

#endif /* VIZ_H */
