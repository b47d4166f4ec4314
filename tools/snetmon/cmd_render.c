/*
 * cmd_render.c - "snetmon render": draws the worker-utilisation image, the
 * network graph or a critical-path graph from a run's trace.
 *
 * The pictures themselves are the viz library's; this file only reads
 * options, picks the input reader and reports errors in one line. Inputs:
 * a trace directory (through the monitor's reader, when it is built), the
 * visualiser's text timeline format (--input-format timeline; documented in
 * --help and viz/timeline_text.c) and, for --dag, the small DAG text format.
 */
#include "out_file.h"
#include "trace_input.h"
#include "viz.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

const char snetmon_summary_render[] =
    "draw the worker-utilisation image (PNG/SVG), the network graph or a DAG's critical path";

typedef enum render_mode { MODE_TIMELINE, MODE_GRAPH, MODE_DAG } render_mode;
typedef enum input_format { INPUT_AUTO, INPUT_TRACE, INPUT_TIMELINE } input_format;

typedef struct render_options {
    render_mode mode;
    input_format format;
    const char *input, *output;
    const char *target; /* the file the visualiser writes: output's temporary name */
    viz_timeline_config timeline;
    bool has_from, has_to;
    bool collapse; /* --dag: merge repeated structure */
    bool partial;
} render_options;

static void usage(FILE *out)
{
    fprintf(out,
            "usage: snetmon render INPUT -o FILE.png|FILE.svg [--from T] [--to T]\n"
            "                      [--tasks REGEX] [--width W] [--height H] [--title TEXT]\n"
            "       snetmon render --graph INPUT -o FILE.svg|FILE.png|FILE.dot\n"
            "       snetmon render --dag DAGFILE -o FILE.svg|FILE.png|FILE.dot [--no-collapse]\n"
            "\n"
            "Draws the worker-utilisation image: one column per worker, time running down,\n"
            "task execution periods coloured by kind of task, waiting grey, unaccounted white.\n"
            "Any trace size renders in bounded memory (time is binned per pixel row).\n"
            "A multi-rank trace (DIR/rank-R/, one per MPI rank) is one image on rank 0's\n"
            "clock: one column per (rank, worker), labelled r<rank>.w<worker>.\n"
            "\n"
            "  INPUT                a trace directory, or a text timeline file\n"
            "  --input-format F     trace | timeline (default: directory = trace, file = timeline)\n"
            "  -o, --output FILE    output; the extension chooses the format\n"
            "  --from T, --to T     zoom into [T, T') from the trace start; T like 12ms, 250us, 3s, 40ns\n"
            "  --tasks REGEX        draw only tasks whose name matches (PCRE2); others shown pale\n"
            "  --width W, --height H  image size in pixels (default 1200 x 900)\n"
            "  --title TEXT         title of the image\n"
            "  --graph              draw the network: tasks by worker, streams with message counts\n"
            "  --dag                draw a DAG with its critical path (collapsing repeats)\n"
            "  --partial            draw a damaged or truncated trace as far as it can be read;\n"
            "                       the image's title says what was lost\n"
            "The output file appears only when the command succeeded.\n"
            "\n"
            "Text timeline format (one record per line, each ending in a newline; times in ns):\n"
            "  origin T | worker W [NAME] | task ID WORKER|- NAME [KIND]\n"
            "  run W TASK START END HOW   (HOW: input output any yield destroy open)\n"
            "  wait W START END | read W T [TASK] | write W T [TASK]\n"
            "  dispatch W TASK T | stop W TASK T HOW | waited W T | resumed W T\n"
            "  stream ID WRITER|- READER|- COUNT\n"
            "A last line without newline counts as truncation: the rest renders, with a warning.\n"
            "\n"
            "DAG text format: vertex ID DURATION_NS LABEL... | edge FROM TO | path ID ID ...\n");
}

static int fail_usage(const char *message, const char *arg)
{
    fprintf(stderr, "snetmon render: %s%s%s (see 'snetmon render --help')\n", message,
            arg ? ": " : "", arg ? arg : "");
    return 2;
}

static bool parse_int(const char *s, int *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < 1 || v > 20000)
        return false;
    *out = (int)v;
    return true;
}

/* Returns 0 to go on, or the exit code (help: 0 printed, error: 2). */
static int parse_options(int argc, char **argv, render_options *o, bool *done)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *value = i + 1 < argc ? argv[i + 1] : NULL;
        bool takes_value = !strcmp(a, "-o") || !strcmp(a, "--output") || !strcmp(a, "--from") ||
                           !strcmp(a, "--to") || !strcmp(a, "--tasks") || !strcmp(a, "--width") ||
                           !strcmp(a, "--height") || !strcmp(a, "--title") ||
                           !strcmp(a, "--input-format");
        if (takes_value && !value)
            return fail_usage("option needs a value", a);
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            *done = true;
            return 0;
        } else if (!strcmp(a, "--graph")) {
            o->mode = MODE_GRAPH;
        } else if (!strcmp(a, "--dag")) {
            o->mode = MODE_DAG;
        } else if (!strcmp(a, "--no-collapse")) {
            o->collapse = false;
        } else if (!strcmp(a, "--partial")) {
            o->partial = true;
        } else if (!strcmp(a, "-o") || !strcmp(a, "--output")) {
            o->output = value;
        } else if (!strcmp(a, "--from") || !strcmp(a, "--to")) {
            viz_time t;
            if (!viz_parse_duration(value, &t))
                return fail_usage("bad time (e.g. 12ms, 250us, 3s, 40ns)", value);
            if (a[2] == 'f') {
                o->timeline.from = t;
                o->has_from = true;
            } else {
                o->timeline.to = t;
                o->has_to = true;
            }
        } else if (!strcmp(a, "--tasks")) {
            o->timeline.task_regex = value;
        } else if (!strcmp(a, "--width") || !strcmp(a, "--height")) {
            if (!parse_int(value, a[2] == 'w' ? &o->timeline.width : &o->timeline.height))
                return fail_usage("bad size (1..20000)", value);
        } else if (!strcmp(a, "--title")) {
            o->timeline.title = value;
        } else if (!strcmp(a, "--input-format")) {
            if (!strcmp(value, "trace"))
                o->format = INPUT_TRACE;
            else if (!strcmp(value, "timeline"))
                o->format = INPUT_TIMELINE;
            else
                return fail_usage("unknown input format (trace|timeline)", value);
        } else if (a[0] == '-' && a[1]) {
            return fail_usage("unknown option", a);
        } else if (!o->input) {
            o->input = a;
        } else {
            return fail_usage("more than one input", a);
        }
        if (takes_value)
            i++;
    }
    return 0;
}

/* ---- trace directories: one monitor event -> one viz call ---- */

static viz_period_end block_cause(unsigned cause)
{
    return cause == MON_BLOCK_OUTPUT ? VIZ_END_BLOCKED_OUTPUT
           : cause == MON_BLOCK_ANY  ? VIZ_END_BLOCKED_ANY
                                     : VIZ_END_BLOCKED_INPUT;
}

/* Task and stream ids restart with each run (docs/LOGFORMAT.md): after the
 * first run they are told apart by the run in their high bits. */
static uint64_t run_key(const mon_event *ev, uint64_t id)
{
    return ev->run > 1 && id ? mon_run_key(ev, id) : id;
}

/* The workers of a multi-rank trace named so far (columns "r1.w0"). */
typedef struct named_workers {
    bool *named;
    size_t n;
} named_workers;

static int name_ranked_worker(viz_timeline *tl, named_workers *nw, const mon_event *ev)
{
    if (!ev->ranked || (ev->worker < nw->n && nw->named[ev->worker]))
        return VIZ_OK;
    if (ev->worker >= nw->n) {
        size_t n = (size_t)ev->worker + 1;
        bool *grown = realloc(nw->named, n * sizeof *grown);
        if (!grown)
            return VIZ_ENOMEM;
        memset(grown + nw->n, 0, (n - nw->n) * sizeof *grown);
        nw->named = grown;
        nw->n = n;
    }
    nw->named[ev->worker] = true;
    char label[40];
    snprintf(label, sizeof label, "r%u.w%u", ev->rank, ev->rank_worker);
    return viz_timeline_add_worker(tl, (int)ev->worker, label);
}

static int feed_timeline(viz_timeline *tl, named_workers *nw, const mon_event *ev)
{
    uint64_t task = run_key(ev, ev->task);
    int w = (int)ev->worker;
    int rc = name_ranked_worker(tl, nw, ev);
    if (rc != VIZ_OK)
        return rc;
    viz_time t = (viz_time)ev->time;
    switch (ev->kind) {
    case MON_EV_TASK_MAP:
        return viz_timeline_add_task(tl, task, ev->name && *ev->name ? ev->name : "?", NULL);
    case MON_EV_WORKER_START:
        return viz_timeline_add_worker(tl, w, NULL);
    case MON_EV_TASK_DISPATCH:
        return viz_timeline_dispatch(tl, w, task, t);
    case MON_EV_TASK_BLOCK:
        return viz_timeline_stop(tl, w, task, t, block_cause(ev->cause));
    case MON_EV_TASK_YIELD:
        return viz_timeline_stop(tl, w, task, t, VIZ_END_YIELDED);
    case MON_EV_TASK_DESTROY:
        return viz_timeline_stop(tl, w, task, t, VIZ_END_DESTROYED);
    case MON_EV_WORKER_WAIT:
        return viz_timeline_waited(tl, w, t);
    case MON_EV_WORKER_RESUME:
        return viz_timeline_resumed(tl, w, t);
    case MON_EV_MESSAGE_READ:
        return viz_timeline_add_message(tl, w, t, VIZ_MSG_READ);
    case MON_EV_MESSAGE_WRITTEN:
        return viz_timeline_add_message(tl, w, t, VIZ_MSG_WRITTEN);
    default:
        return VIZ_OK;
    }
}

static int feed_net(viz_net *net, const mon_event *ev)
{
    uint64_t task = run_key(ev, ev->task), stream = run_key(ev, ev->stream);
    switch (ev->kind) {
    case MON_EV_TASK_MAP:
        return viz_net_add_task(net, task, ev->name && *ev->name ? ev->name : "?",
                                (int)ev->worker_mapped);
    case MON_EV_TASK_DISPATCH:
        return viz_net_task_ran_on(net, task, (int)ev->worker);
    case MON_EV_STREAM_OPEN:
        return viz_net_add_stream(net, stream, ev->write_end ? task : VIZ_NO_TASK,
                                  ev->write_end ? VIZ_NO_TASK : task, 0);
    case MON_EV_STREAM_WRITE: /* the writing task is the writer end, opened or not */
        return viz_net_add_stream(net, stream, task, VIZ_NO_TASK, 0) != VIZ_OK
                   ? VIZ_ENOMEM
                   : viz_net_count_traffic(net, stream, 1, 0);
    case MON_EV_STREAM_READ:
        return viz_net_add_stream(net, stream, VIZ_NO_TASK, task, 0) != VIZ_OK
                   ? VIZ_ENOMEM
                   : viz_net_count_traffic(net, stream, 0, 1);
    case MON_EV_CHANNEL_OPEN: { /* a stream between ranks: its two ends' tasks */
        uint64_t channel = UINT64_C(1) << 63 | mon_run_key(ev, ev->channel);
        return viz_net_add_stream(net, channel, ev->write_end ? task : VIZ_NO_TASK,
                                  ev->write_end ? VIZ_NO_TASK : task, 0);
    }
    default:
        return VIZ_OK;
    }
}

/* "partial trace: N events and M bytes lost (worker 0 truncated, ...)" */
static void loss_note(const wfb_input_loss *loss, char *buf, size_t len)
{
    char summary[160];
    wfb_input_loss_summary(loss, summary, sizeof summary);
    size_t used = (size_t)snprintf(buf, len, "partial trace: %s (", summary);
    for (size_t i = 0; i < loss->n_logs && used < len; i++)
        used += (size_t)snprintf(buf + used, len - used, "%sworker %u %s", i ? ", " : "",
                                 (unsigned)loss->logs[i].worker, loss->logs[i].state);
    if (used < len)
        snprintf(buf + used, len - used, ")");
}

/* Feeds the trace into tl and/or net. Returns 0 or an exit code; with
 * --partial, note gets what was lost ("" when nothing). */
static int read_trace_dir(const render_options *o, viz_timeline *tl, viz_net *net, char *note,
                          size_t notelen)
{
    trace_input *in = trace_input_open("render", o->input, o->partial);
    if (!in)
        return 1;
    mon_event ev;
    int r, rc = 0;
    named_workers nw = {NULL, 0};
    while (rc == 0 && (r = trace_input_next(in, &ev)) == 1) {
        if (tl && feed_timeline(tl, &nw, &ev) != VIZ_OK) {
            fprintf(stderr, "snetmon render: %s: %s\n", o->input, viz_timeline_error(tl));
            rc = 1;
        } else if (net && feed_net(net, &ev) != VIZ_OK) {
            fprintf(stderr, "snetmon render: %s: %s\n", o->input, viz_net_error(net));
            rc = 1;
        }
    }
    free(nw.named);
    if (rc == 0 && r != 0)
        rc = 1;
    note[0] = '\0';
    if (rc == 0 && trace_input_loss(in))
        loss_note(trace_input_loss(in), note, notelen);
    trace_input_close(in);
    return rc;
}

static input_format resolve_format(const render_options *o)
{
    if (o->format != INPUT_AUTO)
        return o->format;
    struct stat st;
    return stat(o->input, &st) == 0 && S_ISDIR(st.st_mode) ? INPUT_TRACE : INPUT_TIMELINE;
}

/* Feeds the input into tl and/or net. Returns 0 or an exit code; note as
 * for read_trace_dir. */
static int read_input(const render_options *o, viz_timeline *tl, viz_net *net, char *note,
                      size_t notelen)
{
    char err[512] = "";
    note[0] = '\0';
    if (resolve_format(o) == INPUT_TRACE)
        return read_trace_dir(o, tl, net, note, notelen);
    FILE *in = fopen(o->input, "r");
    if (!in) {
        fprintf(stderr, "snetmon render: %s: %s\n", o->input, strerror(errno));
        return 1;
    }
    bool truncated = false;
    int rc = viz_read_timeline_text(in, o->input, tl, net, &truncated, err, sizeof err);
    fclose(in);
    if (rc != VIZ_OK) {
        fprintf(stderr, "snetmon render: %s\n", err);
        return 1;
    }
    if (truncated)
        fprintf(stderr, "snetmon render: warning: %s\n", err);
    return 0;
}

/* An image that came out blank says why on stderr: too many workers for
 * the width (columns under a pixel), or nothing to draw at all. */
static void warn_if_blank(render_options *o, viz_timeline *tl, const viz_timeline_stats *s)
{
    viz_timeline_geometry g;
    int width = o->timeline.width ? o->timeline.width : 1200;
    if (viz_timeline_get_geometry(tl, &g) == VIZ_OK && g.columns > 0 && g.col_w < 1)
        fprintf(stderr, "snetmon render: warning: %d workers do not fit in the %d-pixel plot: "
                        "their columns are narrower than a pixel and show nothing (use --width "
                        "%d or more)\n",
                g.columns, g.plot_w, width - g.plot_w + g.columns);
    else if (s->periods == 0 && s->waits == 0)
        fprintf(stderr, "snetmon render: warning: %s shows no task periods and no waits: the "
                        "trace has none%s (record with -m including t and T or W)\n",
                o->output, o->timeline.has_window ? " in the --from/--to window" : "");
}

static int render_timeline(render_options *o)
{
    char err[512];
    viz_timeline *tl;
    o->timeline.has_window = o->has_from || o->has_to;
    if (o->has_from && !o->has_to) {
        fprintf(stderr, "snetmon render: --from needs --to (the window's end)\n");
        return 2;
    }
    if (viz_timeline_create(&tl, &o->timeline, err, sizeof err) != VIZ_OK) {
        fprintf(stderr, "snetmon render: %s\n", err);
        return 2;
    }
    char note[600];
    int rc = read_input(o, tl, NULL, note, sizeof note);
    char title[900];
    if (rc == 0 && note[0]) {
        snprintf(title, sizeof title, "%s - %s",
                 o->timeline.title ? o->timeline.title : "Worker utilisation", note);
        if (viz_timeline_set_title(tl, title) != VIZ_OK)
            rc = 1;
    }
    if (rc == 0 && viz_timeline_render(tl, o->target) != VIZ_OK) {
        fprintf(stderr, "snetmon render: %s\n", viz_timeline_error(tl));
        rc = 1;
    }
    if (rc == 0) {
        viz_timeline_stats s;
        viz_timeline_get_stats(tl, &s);
        printf("%s: %d workers, %llu periods, %llu waits, %llu messages\n", o->output, s.workers,
               (unsigned long long)s.periods, (unsigned long long)s.waits,
               (unsigned long long)s.messages);
        warn_if_blank(o, tl, &s);
    }
    viz_timeline_destroy(tl);
    return rc;
}

static int render_graph(const render_options *o)
{
    char err[256];
    viz_net *net;
    if (viz_net_create(&net, err, sizeof err) != VIZ_OK) {
        fprintf(stderr, "snetmon render: %s\n", err);
        return 1;
    }
    char note[600];
    int rc = read_input(o, NULL, net, note, sizeof note);
    if (rc == 0 && viz_net_render(net, o->target) != VIZ_OK) {
        fprintf(stderr, "snetmon render: %s\n", viz_net_error(net));
        rc = 1;
    }
    viz_net_destroy(net);
    return rc;
}

static int render_dag(const render_options *o)
{
    char err[512];
    viz_dag *dag;
    if (viz_dag_create(&dag, err, sizeof err) != VIZ_OK) {
        fprintf(stderr, "snetmon render: %s\n", err);
        return 1;
    }
    FILE *in = fopen(o->input, "r");
    int rc = 0;
    if (!in) {
        fprintf(stderr, "snetmon render: %s: %s\n", o->input, strerror(errno));
        rc = 1;
    } else {
        if (viz_read_dag_text(in, o->input, dag, err, sizeof err) != VIZ_OK) {
            fprintf(stderr, "snetmon render: %s\n", err);
            rc = 1;
        }
        fclose(in);
    }
    viz_dag_config cfg = {.collapse = o->collapse, .title = o->timeline.title};
    if (rc == 0 && viz_dag_render(dag, o->target, &cfg) != VIZ_OK) {
        fprintf(stderr, "snetmon render: %s\n", viz_dag_error(dag));
        rc = 1;
    }
    viz_dag_destroy(dag);
    return rc;
}

int snetmon_cmd_render(int argc, char **argv)
{
    render_options o = {.collapse = true};
    bool done = false;
    int rc = parse_options(argc, argv, &o, &done);
    if (rc != 0 || done)
        return rc;
    if (!o.input)
        return fail_usage("no input given", NULL);
    if (!o.output)
        return fail_usage("no output file given (-o FILE)", NULL);
    out_file of;
    if (!(o.target = out_file_reserve(&of, "render", o.output)))
        return 1;
    switch (o.mode) {
    case MODE_GRAPH:
        rc = render_graph(&o);
        break;
    case MODE_DAG:
        rc = render_dag(&o);
        break;
    default:
        rc = render_timeline(&o);
        viz_release_font_caches(); /* the process is done drawing */
        break;
    }
    if (out_file_finish(&of, rc == 0) != 0 && rc == 0)
        rc = 1;
    return rc;
}
