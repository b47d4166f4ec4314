/*
 * cmd_render.c - "snetmon render": draws the worker-utilisation image, the
 * network graph or a critical-path graph from a run's trace.
 *
 * The pictures themselves are the viz library's; this file only reads
 * options, picks the input reader and reports errors in one line. Inputs:
 * a trace directory (through the monitor's reader), the
 * visualiser's text timeline format (--input-format timeline; documented in
 * --help and viz/timeline_text.c) and, for --dag, the small DAG text format.
 */
#include "cli.h"
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
    const out_file *of; /* output's, for messages naming it */
    viz_timeline_config timeline;
    bool has_start, has_end;
    bool collapse; /* --dag: merge repeated structure */
    bool partial;
} render_options;

static void usage(FILE *out)
{
    fprintf(out,
            "usage: snetmon render INPUT -o FILE.png|FILE.svg [--start T] [--end T]\n"
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
            "  --from FORMAT        lpel (a trace; also: trace) | timeline (default: a\n"
            "                       directory is a trace, a file a timeline); --input-format\n"
            "                       FORMAT is the same\n"
            "  -o, --output FILE    output; the extension chooses the format\n"
            "  --start T, --end T   zoom into [T, T') from the trace start; T like 12ms, 250us, 3s, 40ns\n"
            "                       (--from T and --to T: the older, deprecated spelling)\n"
            "  --tasks REGEX        draw only tasks whose name matches (PCRE2); others shown pale\n"
            "  --width W, --height H  image size in pixels (default 1200 x 900)\n"
            "  --title TEXT         title of the image\n"
            "  --graph              draw the network: tasks by worker, streams with message counts\n"
            "  --dag                draw a DAG with its critical path (collapsing repeats)\n"
            "  --partial            draw a damaged or truncated trace as far as it can be read;\n"
            "                       the image's title says what was lost\n"
            "  -h, --help           this text\n"
            "  --version            the version and git revision\n"
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
            "DAG text format: vertex ID DURATION_NS LABEL... | edge FROM TO | path ID ID ...\n"
            "\n"
            "examples:\n"
            "  snetmon render trace -o utilisation.png --start 10ms --end 20ms\n"
            "  snetmon render --graph trace -o network.svg\n");
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

enum {
    OPT_START = CLI_OWN,
    OPT_END,
    OPT_FROM,
    OPT_TO_DEPRECATED,
    OPT_TASKS,
    OPT_WIDTH,
    OPT_HEIGHT,
    OPT_TITLE,
    OPT_INPUT_FORMAT,
    OPT_GRAPH,
    OPT_DAG,
    OPT_NO_COLLAPSE
};

/* One option with a value; 0, or 2 after a usage error. */
static int render_value(const cli_parser *p, render_options *o, int c, const char *value)
{
    viz_time t;
    switch (c) {
    case OPT_START:
    case OPT_END:
        if (!viz_parse_duration(value, &t))
            return fail_usage("bad time (e.g. 12ms, 250us, 3s, 40ns)", value);
        if (c == OPT_START)
            o->timeline.from = t, o->has_start = true;
        else
            o->timeline.to = t, o->has_end = true;
        return 0;
    case OPT_TASKS:
        o->timeline.task_regex = value;
        return 0;
    case OPT_WIDTH:
    case OPT_HEIGHT:
        if (!parse_int(value, c == OPT_WIDTH ? &o->timeline.width : &o->timeline.height))
            return fail_usage("bad size (1..20000)", value);
        return 0;
    case OPT_TITLE:
        o->timeline.title = value;
        return 0;
    default: /* OPT_INPUT_FORMAT */
        if (!strcmp(value, "lpel") || !strcmp(value, "trace"))
            o->format = INPUT_TRACE;
        else if (!strcmp(value, "timeline"))
            o->format = INPUT_TIMELINE;
        else
            return fail_usage("unknown input format (lpel, trace or timeline)", value);
        (void)p;
        return 0;
    }
}

/* --from V: the input's format, as in every subcommand (cli.h); a time
 * there is the old --from T (= --start T), with its warning. */
static int render_from(const cli_parser *p, render_options *o, const char *value)
{
    viz_time t;
    if (!viz_parse_duration(value, &t))
        return render_value(p, o, OPT_INPUT_FORMAT, value);
    cli_deprecated(p, "--from T", "--start T");
    return render_value(p, o, OPT_START, value);
}

/* Returns 0 to go on, or the exit code (help: 0 printed, error: 2). */
static int parse_options(int argc, char **argv, render_options *o, bool *done)
{
    static const struct option longopts[] = {
        CLI_STANDARD_OPTIONS,
        {"output", required_argument, NULL, 'o'},
        {"partial", no_argument, NULL, CLI_PARTIAL},
        {"start", required_argument, NULL, OPT_START},
        {"end", required_argument, NULL, OPT_END},
        {"from", required_argument, NULL, OPT_FROM},
        {"to", required_argument, NULL, OPT_TO_DEPRECATED},
        {"tasks", required_argument, NULL, OPT_TASKS},
        {"width", required_argument, NULL, OPT_WIDTH},
        {"height", required_argument, NULL, OPT_HEIGHT},
        {"title", required_argument, NULL, OPT_TITLE},
        {"input-format", required_argument, NULL, OPT_INPUT_FORMAT},
        {"graph", no_argument, NULL, OPT_GRAPH},
        {"dag", no_argument, NULL, OPT_DAG},
        {"no-collapse", no_argument, NULL, OPT_NO_COLLAPSE},
        {NULL, 0, NULL, 0}};
    cli_parser p;
    cli_begin(&p, "render", argc, argv);
    for (int c; (c = cli_next(&p, "ho:", longopts)) != -1;) {
        switch (c) {
        case 'h':
            usage(stdout);
            *done = true;
            return 0;
        case CLI_VERSION:
            *done = true;
            return cli_version();
        case OPT_GRAPH:
            o->mode = MODE_GRAPH;
            break;
        case OPT_DAG:
            o->mode = MODE_DAG;
            break;
        case OPT_NO_COLLAPSE:
            o->collapse = false;
            break;
        case CLI_PARTIAL:
            o->partial = true;
            break;
        case 'o':
            o->output = optarg;
            break;
        case OPT_FROM:
            if (render_from(&p, o, optarg))
                return 2;
            break;
        case OPT_TO_DEPRECATED:
            /* --to is the output's format elsewhere (convert): one meaning
             * per flag name. */
            cli_deprecated(&p, "--to T", "--end T");
            if (render_value(&p, o, OPT_END, optarg))
                return 2;
            break;
        case OPT_START:
        case OPT_END:
        case OPT_TASKS:
        case OPT_WIDTH:
        case OPT_HEIGHT:
        case OPT_TITLE:
        case OPT_INPUT_FORMAT:
            if (render_value(&p, o, c, optarg))
                return 2;
            break;
        default:
            return 2;
        }
    }
    if (cli_npositional(&p) > 1)
        return fail_usage("more than one input", cli_positional(&p)[1]);
    if (cli_npositional(&p) == 1)
        o->input = cli_positional(&p)[0];
    return 0;
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
    int r = 0, rc = 0;
    viz_trace_feeder *feeder = tl ? viz_trace_feeder_new(tl) : NULL;
    if (tl && !feeder) {
        fprintf(stderr, "snetmon render: out of memory\n");
        rc = 1;
    }
    while (rc == 0 && (r = trace_input_next(in, &ev)) == 1) {
        if (tl && viz_trace_feed(feeder, &ev) != VIZ_OK) {
            fprintf(stderr, "snetmon render: %s: %s\n", o->input, viz_timeline_error(tl));
            rc = 1;
        } else if (net && viz_trace_feed_net(net, &ev) != VIZ_OK) {
            fprintf(stderr, "snetmon render: %s: %s\n", o->input, viz_net_error(net));
            rc = 1;
        }
    }
    if (rc == 0 && r != 0)
        rc = 1;
    if (rc == 0 && feeder && viz_trace_finish(feeder) != VIZ_OK) {
        fprintf(stderr, "snetmon render: %s: %s\n", o->input, viz_timeline_error(tl));
        rc = 1;
    }
    viz_trace_feeder_free(feeder);
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
                o->output, o->timeline.has_window ? " in the --start/--end window" : "");
}

static int render_timeline(render_options *o)
{
    char err[512];
    viz_timeline *tl;
    o->timeline.has_window = o->has_start || o->has_end;
    if (o->has_start && !o->has_end) {
        fprintf(stderr, "snetmon render: --start needs --end (the window's end)\n");
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
        out_file_say(o->of, viz_timeline_error(tl));
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
        out_file_say(o->of, viz_net_error(net));
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
        out_file_say(o->of, viz_dag_error(dag));
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
    o.of = &of;
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
