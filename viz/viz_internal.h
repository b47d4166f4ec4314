/*
 * viz_internal.h - what the visualiser's source files share and users never
 * see: the timeline model's layout (filled by timeline.c, drawn by
 * timeline_draw.c), the palette, the time-axis helpers and small utilities.
 */
#ifndef VIZ_INTERNAL_H
#define VIZ_INTERNAL_H

#include "viz.h"

#include "mon_reader.h"
#include "wfb.h" /* wfb_pattern: the task regex, as every command matches names */
#include "kit.h" /* growing arrays (KIT_GROW_ZEROED), id -> index maps (kit_id_map) */

#include <cairo.h>
#include <stdarg.h>


#define VIZ_ERR_LEN 256
#define VIZ_MAX_WORKERS 65536
#define VIZ_MAX_REAL_KINDS 32 /* more kinds share one "other kinds" colour */

/* ---- small utilities (util.c) ---- */

/* printf into a fixed buffer, truncating; buf may be NULL when len is 0. */
void viz_set_error(char *buf, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
char *viz_strdup(const char *s);
/* Output format from the path's extension. */
typedef enum viz_format { VIZ_FMT_UNKNOWN, VIZ_FMT_PNG, VIZ_FMT_SVG, VIZ_FMT_DOT } viz_format;
viz_format viz_format_from_path(const char *path);
/* cairo's write function for a FILE (closure): an SVG drawn into memory
 * (open_memstream) by the report's pictures. */
cairo_status_t viz_cairo_write_file(void *closure, const unsigned char *data, unsigned int length);
/* "1.25 ms", "830 ns", "2 s": a duration in a readable unit. */
void viz_format_duration(viz_time ns, char *buf, size_t len);

/* ---- colours (palette.c) ---- */

typedef struct viz_rgb {
    double r, g, b;
} viz_rgb;

/* Colours for n names, stable for a name whatever else is in the set as far
 * as the palette allows: each name hashes to a preferred palette slot and
 * takes the next free one on collision (names visited in sorted order). */
void viz_palette_assign(const char *const *names, size_t n, viz_rgb *out);
viz_rgb viz_palette_worker(int worker);
viz_rgb viz_colour_waiting(void);
viz_rgb viz_colour_filtered(void);
viz_rgb viz_colour_other(void);
/* Black or white, whichever reads better on background. */
viz_rgb viz_text_colour_on(viz_rgb background);
/* "#rrggbb" */
void viz_rgb_hex(viz_rgb c, char buf[8]);

/* ---- time axis (axis.c) ---- */

typedef struct viz_axis_unit {
    const char *name; /* "ns", "µs", "ms", "s" */
    double ns;        /* nanoseconds per unit */
} viz_axis_unit;

/* A "nice" tick step (1, 2 or 5 times a power of ten, in ns) so that span
 * gets at most about max_ticks ticks. */
viz_time viz_axis_step(viz_time span, int max_ticks);
/* The unit to print values up to magnitude ns in (values stay below 1000). */
viz_axis_unit viz_axis_unit_for(viz_time magnitude);
/* Tick label of value (ns) in unit, with as many decimals as step needs. */
void viz_axis_label(viz_time value, viz_time step, viz_axis_unit unit, char *buf, size_t len);

/* ---- the timeline model (timeline.c) ---- */

typedef struct viz_kind {
    char *name;
    bool pseudo; /* "(filtered out)" or "(other kinds)" */
} viz_kind;

typedef struct viz_task {
    uint64_t id;
    char *name;
    int kind; /* index into viz_timeline.kinds */
    bool used;
} viz_task;

/* A period kept for drawing as a box: at least one bin long. */
typedef struct viz_kept_period {
    viz_time start, end; /* as reported (not clipped to the window) */
    uint32_t task;       /* index into viz_timeline.tasks */
    uint8_t how;         /* viz_period_end */
} viz_kept_period;

typedef struct viz_worker {
    bool present;
    char *name;          /* NULL = "worker N" */
    double **busy;       /* [kind] -> bin array (ns busy per bin), lazily */
    size_t busy_cap;
    double *wait;        /* ns waiting per bin */
    uint32_t *reads;     /* messages read per bin */
    uint32_t *writes;    /* messages written per bin */
    viz_kept_period *kept;
    size_t kept_len, kept_cap;
} viz_worker;

/* Time bins shared by all workers: bin i covers [origin + i*width, +width). */
typedef struct viz_bins {
    int count;       /* even */
    viz_time origin;
    viz_time width;
    bool started;
    bool fixed;      /* a window was given: never rescaled */
} viz_bins;

struct viz_timeline {
    int width, height;
    bool has_window;
    viz_time from, to; /* relative to origin */
    char *title;
    char *task_regex;
    wfb_pattern *task_pattern; /* compiled task_regex, NULL: all tasks */

    bool origin_set;
    viz_time origin;

    viz_worker *workers; /* indexed by worker id */
    size_t workers_cap;

    viz_task *tasks;
    size_t tasks_len, tasks_cap;
    kit_index_map task_index; /* task id -> index into tasks */

    viz_kind *kinds;
    size_t kinds_len, kinds_cap;
    int kind_filtered, kind_other; /* -1 until needed */

    viz_bins bins;
    bool any_time;
    viz_time first, last;
    uint64_t periods, waits, messages;

    char error[VIZ_ERR_LEN];
};

/* Absolute window bounds (only meaningful with has_window and an origin). */
viz_time viz_timeline_window_start(const viz_timeline *tl);
viz_time viz_timeline_window_end(const viz_timeline *tl);
/* The time range the image shows, and the origin the axis counts from.
 * Returns false if there is nothing to show. */
bool viz_timeline_range(const viz_timeline *tl, viz_time *start, viz_time *end,
                        viz_time *axis_origin);
/* Drawing (timeline_draw.c). */
int viz_timeline_draw(viz_timeline *tl, const char *path, viz_format format);
/* The SVG document exactly as viz_timeline_render writes it, in memory
 * (malloc'ed; the HTML report embeds it). */
int viz_timeline_svg_document(viz_timeline *tl, char **doc, size_t *len);
/* The series plot as an SVG document in memory (malloc'ed), *width x
 * *height; VIZ_OK or an error in err. */
int viz_series_svg_document(const viz_series_plot *plot, char **doc, size_t *len, int *width,
                            int *height, char *err, size_t errlen);

/* ---- Graphviz output (gv_output.c) ---- */

/* Lays out (unless .dot) and writes graph g to path, the layout contained in
 * a child process and the file renamed into place only on success. Returns
 * VIZ_OK or sets err. graph is an Agraph_t* (void here so users need not see
 * Graphviz headers). */
int viz_gv_write(void *graph, const char *path, char *err, size_t errlen);
/* A new directed graph (an Agraph_t *) whose subgraphs come out in the
 * same order on any heap (gv_output.c says why); NULL when out of memory. */
void *viz_gv_open(const char *name);

#endif /* VIZ_INTERNAL_H */
