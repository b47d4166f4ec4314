/*
 * cmd_report.c - `snetmon report TRACE -o report.html`: one self-contained
 * HTML file to look at a run in, instead of a thousand lines of text.
 *
 * This file only gathers: the analysis graph through the one trace loader
 * (input_load_graph: same errors, same --partial), the bridge's message
 * metrics and critical path (the figures `metrics` and `wcp` print), the
 * utilisation timeline fed from a second reading of the trace (the adapter
 * `render` uses), and the run's facts from run.json. The page itself is
 * the visualiser's (viz_report, viz_wfb_report_add); the file appears only
 * when all of it worked (out_file).
 *
 * --advice FILE puts a text (e.g. what `snetmon advise` says) into the
 * report's advice section, which is left out without it. The what-if
 * section is the whatif library's profile (whatif.h) of a third reading of
 * the trace, drawn as a plot and a table.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "cli.h"
#include "out_file.h"
#include "repo.h"
#include "trace_input.h"
#include "viz.h"
#include "viz_wfb.h"
#include "wfb.h"
#include "whatif.h"

const char snetmon_summary_report[] =
    "write a self-contained HTML report of a trace (figures, timeline, critical path, tasks)";

typedef struct report_args {
    const char *trace, *output, *advice, *title;
    int width, height;
    bool partial;
    wfb_message_options metrics;
} report_args;

static void report_usage(FILE *out)
{
    fprintf(out,
            "usage: snetmon report TRACE -o FILE.html [--partial] [--advice FILE]\n"
            "                      [--width W] [--height H] [--title TEXT]\n"
            "                      [--timeout-pct P] [--inputs N]\n\n"
            "Writes one HTML file that opens offline in any browser (no network fetches;\n"
            "style, script and pictures inline): the run's facts (command line, host, clock),\n"
            "the figures of `snetmon metrics`, the worker-utilisation timeline of\n"
            "`snetmon render` (same colours) to zoom and pan, with the critical path of\n"
            "`snetmon wcp` drawn over it (the as-executed path, else the longest), the waits\n"
            "per worker, the path's steps, and tables of tasks and waiting relations that\n"
            "sort by any column, and what the run would gain if a kind of task or a net path\n"
            "were faster (the profile of `snetmon whatif`, as a plot and a table). Every\n"
            "figure is defined in docs/METRICS.md.\n\n"
            "  -o, --output FILE  the report; it appears only when the command succeeded\n"
            "  --advice FILE      a text for the report's advice section (left out without)\n"
            "  --width W, --height H  size of the timeline picture (default 1200 x 900)\n"
            "  --title TEXT       the report's title (default: Report of TRACE)\n"
            "  --timeout-pct P    latency percentile used as lifeline timeout (default 99)\n"
            "  --inputs N         the input count N of the throughput (eq. 1) of each run\n"
            TRACE_INPUT_HELP
            "  -h, --help         this text\n"
            "  --version          the version and git revision\n"
            "\n"
            "examples:\n"
            "  snetmon report trace -o report.html\n"
            "  snetmon report trace -o report.html --advice advice.txt\n");
}

static int usage_error(const char *what, const char *arg)
{
    fprintf(stderr, "snetmon report: %s%s%s (see 'snetmon report --help')\n", what,
            arg ? ": " : "", arg ? arg : "");
    return 2;
}

static bool whole_number(const char *s, long lo, long hi, long *out)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (end == s || *end || v < lo || v > hi)
        return false;
    *out = v;
    return true;
}

/* 0: go on; 1: help or version printed; 2: usage error printed. */
static int parse_args(int argc, char **argv, report_args *a)
{
    enum { OPT_ADVICE = CLI_OWN, OPT_WIDTH, OPT_HEIGHT, OPT_TITLE, OPT_TIMEOUT, OPT_INPUTS };
    static const struct option longopts[] = {
        CLI_STANDARD_OPTIONS,
        {"output", required_argument, NULL, 'o'},      {"advice", required_argument, NULL, OPT_ADVICE},
        {"width", required_argument, NULL, OPT_WIDTH},  {"height", required_argument, NULL, OPT_HEIGHT},
        {"title", required_argument, NULL, OPT_TITLE},  {"partial", no_argument, NULL, CLI_PARTIAL},
        {"timeout-pct", required_argument, NULL, OPT_TIMEOUT},
        {"inputs", required_argument, NULL, OPT_INPUTS},
        {NULL, 0, NULL, 0},
    };
    long v;
    char *end;
    cli_parser p;
    cli_begin(&p, "report", argc, argv);
    for (int c; (c = cli_next(&p, "ho:", longopts)) != -1;) {
        switch (c) {
        case 'h': report_usage(stdout); return 1;
        case CLI_VERSION: cli_version(); return 1;
        case 'o': a->output = optarg; break;
        case OPT_ADVICE: a->advice = optarg; break;
        case OPT_TITLE: a->title = optarg; break;
        case CLI_PARTIAL: a->partial = true; break;
        case OPT_WIDTH:
        case OPT_HEIGHT:
            if (!whole_number(optarg, 1, 20000, &v))
                return usage_error("bad size (1..20000)", optarg);
            *(c == OPT_WIDTH ? &a->width : &a->height) = (int)v;
            break;
        case OPT_TIMEOUT:
            a->metrics.timeout_percentile = strtod(optarg, &end);
            if (*end || !(a->metrics.timeout_percentile > 0 && a->metrics.timeout_percentile <= 100))
                return usage_error("--timeout-pct needs a percentile in (0, 100]", optarg);
            break;
        case OPT_INPUTS:
            if (!whole_number(optarg, 1, 2000000000L, &v))
                return usage_error("--inputs needs a positive whole number", optarg);
            a->metrics.inputs = (size_t)v;
            break;
        default: return 2; /* CLI_ERROR: the message is printed */
        }
    }
    if (cli_npositional(&p) == 0)
        return usage_error("no trace directory given", NULL);
    if (cli_npositional(&p) > 1)
        return usage_error("more than one trace directory", cli_positional(&p)[1]);
    a->trace = cli_positional(&p)[0];
    if (!a->output)
        return usage_error("no output file given (-o FILE.html)", NULL);
    struct stat st;
    if (stat(a->trace, &st) != 0 || !S_ISDIR(st.st_mode)) {
        fprintf(stderr, "snetmon report: %s: not a trace directory\n", a->trace);
        return 2;
    }
    return 0;
}

/* ---- the run's facts ---- */

static void meta(viz_report *r, const char *key, const char *value, int *rc)
{
    if (*rc == VIZ_OK && value && *value)
        *rc = viz_report_add_meta(r, key, value);
}

/* What run.json says about the run (nothing when it cannot be read: the
 * figures do not depend on it). */
static int add_run_facts(viz_report *r, const char *trace, int rc)
{
    char buf[2048];
    mon_run_json *run;
    if (mon_run_json_read_trace(trace, &run, buf, sizeof buf) != 0)
        return rc;
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < run->argc && used < sizeof buf; i++)
        used += (size_t)snprintf(buf + used, sizeof buf - used, "%s%s", i ? " " : "",
                                 run->argv[i]);
    meta(r, "command line", buf, &rc);
    if (run->ranks > 1) {
        snprintf(buf, sizeof buf,
                 "%" PRId64 " (a trace per rank, merged on rank 0's clock; "
                 "host and clock below are rank 0's)",
                 run->ranks);
        meta(r, "MPI ranks", buf, &rc);
    }
    meta(r, "host", run->host, &rc);
    meta(r, "monitoring flags", run->flags, &rc);
    if (run->wall_clock_start_ns) {
        time_t secs = (time_t)(run->wall_clock_start_ns / 1000000000);
        struct tm tm;
        if (gmtime_r(&secs, &tm) && strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S UTC", &tm))
            meta(r, "started", buf, &rc);
    }
    if (run->clock_source || run->clock_frequency_hz) {
        snprintf(buf, sizeof buf, "%s, %" PRIu64 " ticks/s",
                 run->clock_source ? run->clock_source : "?", run->clock_frequency_hz);
        meta(r, "trace clock", buf, &rc);
    }
    if (!run->complete && run->ended_by)
        snprintf(buf, sizeof buf, "no: it ended on %s (run.json)", run->ended_by);
    meta(r, "run finished",
         run->complete ? "yes (run.json complete)"
         : run->ended_by ? buf
                         : "no: run.json is not complete",
         &rc);
    mon_run_json_free(run);
    return rc;
}

static int add_facts(viz_report *r, const report_args *a, const wfb_graph *g)
{
    char buf[256];
    int rc = viz_report_add_meta(r, "trace", a->trace);
    rc = add_run_facts(r, a->trace, rc);
    snprintf(buf, sizeof buf, "%zu run%s, %zu tasks; analysis graph of %zu vertices and %zu edges",
             (size_t)wfb_run_count(g), wfb_run_count(g) == 1 ? "" : "s", wfb_task_stats_count(g),
             wfb_vertex_count(g), wfb_edge_count(g));
    meta(r, "analysed", buf, &rc);
    if (wfb_graph_input_loss(g)) {
        wfb_input_loss_summary(wfb_graph_input_loss(g), buf, sizeof buf);
        meta(r, "partial trace", buf, &rc);
    }
    return rc;
}

static char *read_text(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    int c;
    while (mem && (c = fgetc(f)) != EOF)
        fputc(c, mem);
    bool bad = ferror(f);
    fclose(f);
    if (mem)
        fclose(mem);
    if (bad) {
        free(text);
        return NULL;
    }
    return text;
}

/* ---- the pieces ---- */

/* The utilisation timeline from a second reading of the trace. */
static viz_timeline *load_timeline(const report_args *a, const wfb_graph *g)
{
    viz_timeline_config cfg = {.width = a->width, .height = a->height};
    char err[512], title[400];
    viz_timeline *tl;
    if (viz_timeline_create(&tl, &cfg, err, sizeof err) != VIZ_OK) {
        fprintf(stderr, "snetmon report: %s\n", err);
        return NULL;
    }
    trace_input *in = trace_input_open("report", a->trace, a->partial);
    if (!in) {
        viz_timeline_destroy(tl);
        return NULL;
    }
    trace_input_no_warning(in); /* the graph's reading has warned */
    mon_event ev;
    int more = 0, rc = VIZ_OK;
    viz_trace_feeder *feeder = viz_trace_feeder_new(tl);
    if (!feeder)
        rc = VIZ_ENOMEM;
    while (rc == VIZ_OK && (more = trace_input_next(in, &ev)) == 1)
        rc = viz_trace_feed(feeder, &ev);
    if (rc == VIZ_OK && more == 0)
        rc = viz_trace_finish(feeder);
    viz_trace_feeder_free(feeder);
    if (rc != VIZ_OK)
        fprintf(stderr, "snetmon report: %s: %s\n", a->trace, viz_timeline_error(tl));
    trace_input_close(in);
    if (rc != VIZ_OK || more != 0) {
        viz_timeline_destroy(tl);
        return NULL;
    }
    if (wfb_graph_input_loss(g)) {
        char summary[200];
        wfb_input_loss_summary(wfb_graph_input_loss(g), summary, sizeof summary);
        snprintf(title, sizeof title, "Worker utilisation - partial trace: %s", summary);
        viz_timeline_set_title(tl, title);
    }
    return tl;
}

/* The as-executed path, else the longest (as `wcp --render` draws). */
static void critical_path(const wfb_graph *g, wfb_path *path)
{
    wfb_error err;
    memset(path, 0, sizeof *path);
    if (wfb_as_executed_path(g, path, &err) == 0 && path->valid)
        return;
    wfb_path_free(path);
    memset(path, 0, sizeof *path);
    if (wfb_longest_path(g, path, &err) != 0)
        path->valid = 0;
}

/* ---- what if a task were faster ---- */

enum { WHATIF_PLOT_LINES = 8 };

/* The profile's rows as a table: the speedup at each X. */
static int whatif_table(viz_report *r, const whatif_profile *p)
{
    viz_report_column cols[3 + WHATIF_MAX_FACTORS] = {
        {"tasks", false}, {"group", false}, {"work [s]", true}};
    char titles[WHATIF_MAX_FACTORS][32];
    for (size_t f = 0; f < p->n_faster; f++) {
        snprintf(titles[f], sizeof titles[f], "%g %% faster", p->faster_pct[f]);
        cols[3 + f] = (viz_report_column){titles[f], true};
    }
    int rc = viz_report_add_table(r, "whatif-table", cols, 3 + p->n_faster, true);
    for (size_t i = 0; rc == VIZ_OK && i < p->n_rows; i++) {
        const whatif_row *w = &p->rows[i];
        char text[3 + WHATIF_MAX_FACTORS][48];
        viz_report_cell cells[3 + WHATIF_MAX_FACTORS] = {
            {w->label, NAN}, {i < p->n_kinds ? "kind" : "net path", NAN}, {text[2], w->work_s}};
        snprintf(text[2], sizeof text[2], "%.4g", w->work_s);
        for (size_t f = 0; f < p->n_faster; f++) {
            snprintf(text[3 + f], sizeof text[3 + f], "%.3fx", w->at[f].speedup);
            cells[3 + f] = (viz_report_cell){text[3 + f], w->at[f].speedup};
        }
        rc = viz_report_add_row(r, cells, false);
    }
    return rc;
}

/* The profile as a plot: a line per group (the first kinds and net paths
 * of the ranking), the predicted speedup over X. */
static int whatif_plot(viz_report *r, const whatif_profile *p)
{
    size_t n = p->n_rows < WHATIF_PLOT_LINES ? p->n_rows : WHATIF_PLOT_LINES;
    double values[WHATIF_PLOT_LINES][WHATIF_MAX_FACTORS];
    char labels[WHATIF_MAX_FACTORS][32], names[WHATIF_PLOT_LINES][80];
    const char *x_labels[WHATIF_MAX_FACTORS];
    viz_series_line lines[WHATIF_PLOT_LINES];
    for (size_t f = 0; f < p->n_faster; f++) {
        snprintf(labels[f], sizeof labels[f], "%g %%", p->faster_pct[f]);
        x_labels[f] = labels[f];
    }
    for (size_t i = 0; i < n; i++) {
        snprintf(names[i], sizeof names[i], "%s", p->rows[i].label);
        for (size_t f = 0; f < p->n_faster; f++)
            values[i][f] = p->rows[i].at[f].speedup;
        lines[i] = (viz_series_line){names[i], values[i]};
    }
    viz_series_panel panel = {"predicted speedup of the run (eq. 1)", n, lines};
    viz_series_plot plot = {.title = "If the tasks' executions took X % less time",
                            .x_title = "X",
                            .n_points = p->n_faster,
                            .x_labels = x_labels,
                            .n_panels = 1,
                            .panels = &panel};
    return viz_report_add_plot(r, &plot);
}

/* The what-if profile (docs/METRICS.md section 11): what the run would
 * gain if a kind of task or a net path were faster, as `snetmon whatif`
 * prints it; or why the trace cannot be replayed (the rest of the report
 * does not need it). Its latency predictions walk the lifelines again with
 * factors per execution, which a graph lifted bounded cannot: then the
 * trace is lifted once more, in memory, for this section alone. */
static int add_whatif(viz_report *r, const report_args *a, const wfb_graph *g)
{
    char text[1200];
    int rc = viz_report_add_heading(r, "whatif", "What if a task were faster");
    whatif_model *m = rc == VIZ_OK ? input_load_whatif("report", a->trace, a->partial, text,
                                                      sizeof text)
                                   : NULL;
    wfb_graph *own = m && wfb_graph_bounded(g)
                         ? input_load_graph("report", a->trace, WFB_FORMAT_LPEL_TRACE, NULL,
                                            a->partial, text, sizeof text)
                         : NULL;
    if (own)
        g = own;
    else if (m && wfb_graph_bounded(g)) {
        whatif_model_free(m);
        m = NULL;
    }
    whatif_profile p;
    wfb_error err;
    whatif_options o = {.top = 5};
    if (rc != VIZ_OK || !m) {
        if (rc == VIZ_OK)
            rc = viz_report_add_text(r, text);
    } else if (whatif_profile_compute(m, g, &o, &p, &err) != 0) {
        rc = viz_report_add_text(r, err.msg);
    } else {
        snprintf(text, sizeof text,
                 "The run replayed with a group of tasks' work X %% smaller (docs/METRICS.md "
                 "section 11): each stream item read after it was written and written once a "
                 "slot was free, every task on its worker, one at a time. The replay of the run "
                 "as recorded takes %.4g s of the %.4g s span; the rest, %.4g s, it does not "
                 "see and adds to every prediction. The kinds, then the %zu net paths that "
                 "gain most (of %zu):",
                 p.replay_s, p.span_s, p.unexplained_s, p.n_rows - p.n_kinds,
                 p.n_rows - p.n_kinds + p.paths_skipped);
        rc = viz_report_add_text(r, text);
        if (rc == VIZ_OK)
            rc = whatif_plot(r, &p);
        if (rc == VIZ_OK)
            rc = whatif_table(r, &p);
        whatif_profile_free(&p);
    }
    whatif_model_free(m);
    wfb_graph_free(own);
    return rc;
}

static int write_report(const report_args *a, viz_report *r)
{
    out_file of;
    FILE *out = out_file_open(&of, "report", a->output);
    if (!out)
        return 1;
    int rc = viz_report_write(r, out) == VIZ_OK ? 0 : 1;
    /* A write that failed is said by out_file_finish. */
    bool write_failed = ferror(out) != 0;
    if (out_file_finish(&of, rc == 0) != 0)
        rc = 1;
    else if (rc && !write_failed)
        fprintf(stderr, "snetmon report: %s: %s\n", a->output, viz_report_error(r));
    return rc;
}

static int build_report(const report_args *a, const wfb_graph *g, const wfb_message_report *m,
                        const wfb_path *path, viz_timeline *tl, const char *advice)
{
    char title[4200], err[512];
    snprintf(title, sizeof title, "%s%s", a->title ? "" : "Report of ", a->title ? a->title : a->trace);
    viz_report *r;
    if (viz_report_create(&r, title, err, sizeof err) != VIZ_OK) {
        fprintf(stderr, "snetmon report: %s\n", err);
        return 1;
    }
    int rc = add_facts(r, a, g);
    if (rc == VIZ_OK && viz_wfb_report_add(r, g, m, path, tl, err, sizeof err) != VIZ_OK)
        rc = VIZ_ENOMEM;
    if (rc == VIZ_OK)
        rc = add_whatif(r, a, g);
    if (rc == VIZ_OK && advice)
        rc = viz_report_set_advice(r, advice);
    if (rc != VIZ_OK)
        fprintf(stderr, "snetmon report: %s\n", err[0] ? err : viz_report_error(r));
    else
        rc = write_report(a, r);
    viz_report_destroy(r);
    return rc == VIZ_OK ? 0 : 1;
}

int snetmon_cmd_report(int argc, char **argv)
{
    report_args a = {0};
    int rc = parse_args(argc, argv, &a);
    if (rc)
        return rc == 1 ? 0 : rc;
    char *advice = NULL;
    if (a.advice && !(advice = read_text(a.advice))) {
        fprintf(stderr, "snetmon report: %s: cannot read the advice\n", a.advice);
        return 1;
    }
    wfb_graph *g = input_load_graph_bounded("report", a.trace, WFB_FORMAT_LPEL_TRACE, NULL,
                                            a.partial, CLI_MAX_MEMORY_DEFAULT, NULL, 0);
    wfb_message_report m;
    memset(&m, 0, sizeof m);
    wfb_path path = {0};
    viz_timeline *tl = NULL;
    wfb_error err;
    rc = 1;
    if (g && wfb_message_metrics_compute(g, &a.metrics, &m, &err) != 0)
        fprintf(stderr, "snetmon report: %s: %s\n", a.trace, err.msg);
    else if (g && (critical_path(g, &path), tl = load_timeline(&a, g)) != NULL)
        rc = build_report(&a, g, &m, &path, tl, advice);
    if (rc == 0) {
        viz_timeline_stats s;
        viz_timeline_get_stats(tl, &s);
        printf("%s: %d workers, %zu tasks, critical path of %zu steps\n", a.output, s.workers,
               wfb_task_stats_count(g), path.valid ? (path.n_steps ? path.n_steps : path.n) : 0);
    }
    viz_timeline_destroy(tl);
    viz_release_font_caches();
    wfb_path_free(&path);
    wfb_message_report_free(&m);
    wfb_graph_free(g);
    free(advice);
    return rc;
}
