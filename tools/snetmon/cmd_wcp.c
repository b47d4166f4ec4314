/*
 * cmd_wcp.c - `snetmon wcp`: the workflow critical path of a trace or a
 * workflow event file, both definitions (longest path by durations and the
 * as-executed path), as text, JSON, and optionally Graphviz dot.
 */
#include "out_file.h"
#include "trace_input.h"
#include "wfb.h"
#ifdef VIZ_HAVE_WFB
#include "viz_wfb.h"
#endif

#include <libgen.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char snetmon_summary_wcp[] = "workflow critical path (longest and as-executed) of a trace or event file";

static void wcp_usage(FILE *out)
{
    fprintf(out,
            "usage: snetmon wcp INPUT [--from FORMAT] [--json] [--dot FILE] [--render FILE]\n"
            "                   [--no-collapse] [--map FILE] [--nested] [--partial]\n\n"
            "Computes the workflow critical path of INPUT exactly, in O(V+E):\n"
            "  longest path   the path with the largest sum of durations and costs\n"
            "  as-executed    from the last-finishing sink back through the predecessor\n"
            "                 that finished last (null without start/end times)\n\n"
            "INPUT is an event file (jsonl, wfcommons or bp, detected from its content)\n"
            "or an LPEL trace directory, also one of a run across MPI ranks (DIR/rank-R/,\n"
            "read as one trace on rank 0's clock, docs/METRICS.md section 7).\n\n"
            "options:\n"
            "  --from FORMAT  jsonl | wfcommons | bp | lpel (skip detection)\n"
            "  --json         print one JSON object (schema in docs/EVENTS.md)\n"
            "  --dot FILE     also write the graph with both paths in Graphviz dot\n"
            "  --render FILE  draw the graph with the critical path highlighted in context\n"
            "                 (.svg, .png or .dot; the as-executed path where there is\n"
            "                 one, else the longest path); repeated structure collapses\n"
            "                 into 'label xN' nodes so large graphs stay readable\n"
            "  --no-collapse  with --render: draw every vertex\n"
            "  --map FILE     NetLogger event mapping (default: Pegasus stampede)\n"
            "  --nested       also analyse the LPEL traces of activities on the paths\n"
            "                 (the activity's \"trace\"; relative to INPUT's directory)\n"
            TRACE_INPUT_HELP
            "  -h, --help     this text\n"
            "Files (--dot, --render) appear only when the command succeeded.\n");
}

typedef struct wcp_args {
    const char *input, *dot, *render, *map;
    wfb_format format;
    int json, nested, no_collapse, partial;
} wcp_args;

/* Returns 0 to run, 1 when help was printed, 2 on a usage error. */
static int wcp_parse(int argc, char **argv, wcp_args *a)
{
    memset(a, 0, sizeof *a);
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
            wcp_usage(stdout);
            return 1;
        } else if (!strcmp(arg, "--json")) {
            a->json = 1;
        } else if (!strcmp(arg, "--nested")) {
            a->nested = 1;
        } else if (!strcmp(arg, "--no-collapse")) {
            a->no_collapse = 1;
        } else if (!strcmp(arg, "--partial")) {
            a->partial = 1;
        } else if ((!strcmp(arg, "--dot") || !strcmp(arg, "--from") || !strcmp(arg, "--map") ||
                    !strcmp(arg, "--render")) &&
                   i + 1 < argc) {
            const char *val = argv[++i];
            if (!strcmp(arg, "--dot"))
                a->dot = val;
            else if (!strcmp(arg, "--render"))
                a->render = val;
            else if (!strcmp(arg, "--map"))
                a->map = val;
            else if ((a->format = wfb_format_parse(val)) == WFB_FORMAT_UNKNOWN) {
                fprintf(stderr, "snetmon wcp: unknown format '%s'\n", val);
                return 2;
            }
        } else if (arg[0] == '-' && arg[1]) {
            fprintf(stderr, "snetmon wcp: unknown or incomplete option '%s'\n", arg);
            return 2;
        } else if (!a->input) {
            a->input = arg;
        } else {
            fprintf(stderr, "snetmon wcp: more than one INPUT\n");
            return 2;
        }
    }
    if (!a->input) {
        wcp_usage(stderr);
        return 2;
    }
    return 0;
}

static int write_dot_file(const wfb_graph *g, const wfb_path *lp, const wfb_path *ae,
                          out_file *of, const char *path)
{
    FILE *f = out_file_open(of, "wcp", path);
    if (!f)
        return -1;
    if (wfb_write_dot(g, lp, ae, f) != 0) {
        fprintf(stderr, "snetmon wcp: cannot write %s\n", path);
        return -1;
    }
    return 0;
}

/* Draw g with path highlighted (the viz library does the drawing). */
static int render_path(const wfb_graph *g, const wfb_path *path, out_file *of, const char *out,
                       const char *input, bool collapse)
{
#ifdef VIZ_HAVE_WFB
    const char *tmp = out_file_reserve(of, "wcp", out);
    if (!tmp)
        return -1;
    char msg[512];
    char title[600];
    snprintf(title, sizeof title, "Critical path of %s", input);
    if (viz_wfb_render(g, path, tmp, title, collapse, msg, sizeof msg) != VIZ_OK) {
        fprintf(stderr, "snetmon wcp: %s\n", msg);
        return -1;
    }
    return 0;
#else
    (void)g, (void)path, (void)of, (void)input, (void)collapse;
    fprintf(stderr, "snetmon wcp: cannot write %s: built without the visualiser\n", out);
    return -1;
#endif
}

/* One nested analysis and what it owns. */
typedef struct nested_run {
    wfb_nested_wcp report;
    wfb_graph *graph;
    wfb_path longest, as_executed;
    char *trace_path;
    wfb_error err;
} nested_run;

/* The trace path as given, or relative to the input file's directory. */
static char *resolve_trace(const char *input, const char *trace)
{
    if (trace[0] == '/')
        return strdup(trace);
    char *copy = strdup(input);
    if (!copy)
        return NULL;
    const char *dir = dirname(copy);
    size_t n = strlen(dir) + strlen(trace) + 2;
    char *path = malloc(n);
    if (path)
        snprintf(path, n, "%s/%s", dir, trace);
    free(copy);
    return path;
}

static void analyse_nested(const char *input, const wfb_graph *g, uint32_t v, bool partial,
                           nested_run *r)
{
    memset(r, 0, sizeof *r);
    r->report.activity = wfb_vertex_id(g, v);
    r->trace_path = resolve_trace(input, wfb_vertex_attr(g, v, WFB_ATTR_TRACE));
    r->report.trace = r->trace_path ? r->trace_path : "?";
    if (r->trace_path)
        r->graph = input_load_graph("wcp", r->trace_path, WFB_FORMAT_UNKNOWN, NULL, partial,
                                    r->err.msg, sizeof r->err.msg);
    if (!r->trace_path || !r->graph ||
        wfb_longest_path(r->graph, &r->longest, &r->err) ||
        wfb_as_executed_path(r->graph, &r->as_executed, &r->err)) {
        if (!r->trace_path)
            snprintf(r->err.msg, sizeof r->err.msg, "out of memory");
        wfb_graph_free(r->graph);
        r->graph = NULL;
        r->report.error = r->err.msg;
        return;
    }
    r->report.graph = r->graph;
    r->report.longest = &r->longest;
    r->report.as_executed = &r->as_executed;
}

static bool wants_nested(const wfb_graph *g, uint32_t v, const nested_run *runs, size_t n)
{
    if (wfb_vertex_kind_of(g, v) != WFB_VERTEX_ACTIVITY || !wfb_vertex_attr(g, v, WFB_ATTR_TRACE))
        return false;
    for (size_t i = 0; i < n; i++)
        if (!strcmp(runs[i].report.activity, wfb_vertex_id(g, v)))
            return false; /* on both paths: once is enough */
    return true;
}

/* Analyses the traces of activities on either path, then reports all. */
static int report_with_nested(const char *input, const wfb_graph *g, const wfb_path *lp,
                              const wfb_path *ae, int json, bool partial)
{
    size_t cap = lp->n + ae->n, n = 0;
    nested_run *runs = calloc(cap ? cap : 1, sizeof *runs);
    wfb_nested_wcp *reports = calloc(cap ? cap : 1, sizeof *reports);
    if (!runs || !reports) {
        free(runs), free(reports);
        return -1;
    }
    const wfb_path *paths[2] = {lp, ae};
    for (int p = 0; p < 2; p++)
        for (size_t i = 0; paths[p]->valid && i < paths[p]->n; i++)
            if (wants_nested(g, paths[p]->vertices[i], runs, n))
                analyse_nested(input, g, paths[p]->vertices[i], partial, &runs[n++]);
    for (size_t i = 0; i < n; i++)
        reports[i] = runs[i].report;
    int rc = wfb_report_wcp_nested(g, lp, ae, reports, n, json ? WFB_OUT_JSON : WFB_OUT_TEXT,
                                   stdout);
    for (size_t i = 0; i < n; i++) {
        wfb_path_free(&runs[i].longest);
        wfb_path_free(&runs[i].as_executed);
        wfb_graph_free(runs[i].graph);
        free(runs[i].trace_path);
    }
    free(runs), free(reports);
    return rc;
}

int snetmon_cmd_wcp(int argc, char **argv)
{
    wcp_args a;
    int rc = wcp_parse(argc, argv, &a);
    if (rc)
        return rc == 1 ? 0 : 2;
    wfb_graph *g = input_load_graph("wcp", a.input, a.format, a.map, a.partial, NULL, 0);
    if (!g)
        return 1;
    wfb_error err;
    wfb_path lp, ae;
    if (wfb_longest_path(g, &lp, &err) || wfb_as_executed_path(g, &ae, &err)) {
        fputs("snetmon wcp: ", stderr);
        wfb_error_print(&err, stderr);
        wfb_path_free(&lp);
        wfb_graph_free(g);
        return 1;
    }
    /* The files first, under temporary names: the report goes out only
     * when they could be made, and they appear only with it. */
    out_file dot = {0}, picture = {0};
    rc = 0;
    if (a.dot)
        rc = write_dot_file(g, &lp, &ae, &dot, a.dot);
    if (!rc && a.render)
        rc = render_path(g, ae.valid ? &ae : &lp, &picture, a.render, a.input, !a.no_collapse);
    if (!rc && a.nested)
        rc = report_with_nested(a.input, g, &lp, &ae, a.json, a.partial);
    else if (!rc)
        rc = wfb_report_wcp(g, &lp, &ae, a.json ? WFB_OUT_JSON : WFB_OUT_TEXT, stdout);
    if (a.dot && out_file_finish(&dot, rc == 0) != 0)
        rc = -1;
    if (a.render && out_file_finish(&picture, rc == 0) != 0)
        rc = -1;
    wfb_path_free(&lp);
    wfb_path_free(&ae);
    wfb_graph_free(g);
    return rc ? 1 : 0;
}
