/*
 * cmd_wcp.c - `snetmon wcp`: the workflow critical path of a trace or a
 * workflow event file, both definitions (longest path by durations and the
 * as-executed path), as text, JSON, and optionally Graphviz dot.
 */
#include "cli.h"
#include "out_file.h"
#include "trace_input.h"
#include "viz_wfb.h"
#include "wfb.h"

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
            "                   [--no-collapse] [--event-map FILE] [--nested] [--partial] [-o FILE]\n"
            "                   [--max-memory SIZE|--in-memory]\n\n"
            "Computes the workflow critical path of INPUT exactly, in O(V+E):\n"
            "  longest path   the path with the largest sum of durations and costs\n"
            "  as-executed    from the last-finishing sink back through the predecessor\n"
            "                 that finished last (null without start/end times); of an\n"
            "                 LPEL trace, from the period that ended last back through\n"
            "                 what each period waited for: the period holding its worker\n"
            "                 (occupancy), else the one that woke it (data, back-pressure)\n"
            "                 or created it, as steps (docs/METRICS.md section 5)\n\n"
            "INPUT is an event file (jsonl, wfcommons or bp, detected from its content)\n"
            "or an LPEL trace directory, also one of a run across MPI ranks (DIR/rank-R/,\n"
            "read as one trace on rank 0's clock, docs/METRICS.md section 10).\n\n"
            "options:\n"
            "  --from FORMAT  jsonl | wfcommons | bp | lpel (skip detection)\n"
            "  --json         print one JSON object (schema in docs/EVENTS.md)\n"
            "  -o, --output FILE  write the report to FILE instead of standard output\n"
            "  --dot FILE     also write the graph with both paths in Graphviz dot\n"
            "  --render FILE  draw the graph with the critical path highlighted in context\n"
            "                 (.svg, .png or .dot; the as-executed path where there is\n"
            "                 one, else the longest path); repeated structure collapses\n"
            "                 into 'label xN' nodes so large graphs stay readable\n"
            "  --no-collapse  with --render: draw every vertex\n"
            CLI_EVENT_MAP_HELP
            "  --nested       also analyse the LPEL traces of activities on the paths\n"
            "                 (the activity's \"trace\"; relative to INPUT's directory)\n"
            CLI_MEMORY_HELP
            "                   (--dot and --render keep the graph in memory)\n"
            TRACE_INPUT_HELP
            "  -h, --help     this text\n"
            "  --version      the version and git revision\n"
            "Files (-o, --dot, --render) appear only when the command succeeded.\n"
            "\n"
            "examples:\n"
            "  snetmon wcp trace\n"
            "  snetmon wcp trace --render critical-path.svg\n");
}

typedef struct wcp_args {
    const char *input, *dot, *render, *map, *output;
    wfb_format format;
    wfb_output report;
    int nested, no_collapse, partial;
    size_t memory; /* --max-memory, 0: --in-memory */
} wcp_args;

enum { OPT_FROM = CLI_OWN, OPT_DOT, OPT_RENDER, OPT_NESTED, OPT_NO_COLLAPSE };

/* Returns 0 to run, 1 when help or the version was printed, 2 on a usage
 * error. */
static int wcp_parse(int argc, char **argv, wcp_args *a)
{
    static const struct option longopts[] = {
        CLI_STANDARD_OPTIONS,
        {"json", no_argument, NULL, CLI_JSON},
        {"partial", no_argument, NULL, CLI_PARTIAL},
        {"output", required_argument, NULL, 'o'},
        {"from", required_argument, NULL, OPT_FROM},
        {"dot", required_argument, NULL, OPT_DOT},
        {"render", required_argument, NULL, OPT_RENDER},
        CLI_EVENT_MAP_OPTIONS,
        {"nested", no_argument, NULL, OPT_NESTED},
        {"no-collapse", no_argument, NULL, OPT_NO_COLLAPSE},
        CLI_MEMORY_OPTIONS,
        {NULL, 0, NULL, 0}};
    memset(a, 0, sizeof *a);
    a->memory = CLI_MAX_MEMORY_DEFAULT;
    cli_parser p;
    cli_begin(&p, "wcp", argc, argv);
    for (int c; (c = cli_next(&p, "ho:", longopts)) != -1;) {
        switch (c) {
        case 'h':
            wcp_usage(stdout);
            return 1;
        case CLI_VERSION:
            cli_version();
            return 1;
        case CLI_JSON:
            if (cli_format(&p, c, &a->report))
                return 2;
            break;
        case CLI_PARTIAL:
            a->partial = 1;
            break;
        case 'o':
            a->output = optarg;
            break;
        case OPT_FROM:
            if ((a->format = wfb_format_parse(optarg)) == WFB_FORMAT_UNKNOWN)
                return cli_usage_error(&p, "unknown format '%s'", optarg);
            break;
        case OPT_DOT:
            a->dot = optarg;
            break;
        case OPT_RENDER:
            a->render = optarg;
            break;
        case CLI_EVENT_MAP:
        case CLI_EVENT_MAP_OLD:
            a->map = cli_event_map(&p, c);
            break;
        case OPT_NESTED:
            a->nested = 1;
            break;
        case OPT_NO_COLLAPSE:
            a->no_collapse = 1;
            break;
        case CLI_MAX_MEMORY:
        case CLI_IN_MEMORY:
            if (cli_memory(&p, c, &a->memory))
                return 2;
            break;
        default:
            return 2;
        }
    }
    if (cli_npositional(&p) > 1)
        return cli_usage_error(&p, "more than one INPUT");
    if (cli_npositional(&p) == 0) {
        wcp_usage(stderr);
        return 2;
    }
    a->input = cli_positional(&p)[0];
    return 0;
}

static int write_dot_file(const wfb_graph *g, const wfb_path *lp, const wfb_path *ae,
                          out_file *of, const char *path)
{
    FILE *f = out_file_open(of, "wcp", path);
    if (!f)
        return -1;
    if (wfb_write_dot(g, lp, ae, f) != 0) {
        if (!ferror(f)) /* a write that failed is said by out_file_finish */
            fprintf(stderr, "snetmon wcp: cannot write %s\n", path);
        return -1;
    }
    return 0;
}

/* Draw g with path highlighted (the viz library does the drawing). */
static int render_path(const wfb_graph *g, const wfb_path *path, out_file *of, const char *out,
                       const char *input, bool collapse)
{
    const char *tmp = out_file_reserve(of, "wcp", out);
    if (!tmp)
        return -1;
    char msg[512];
    char title[600];
    snprintf(title, sizeof title, "Critical path of %s", input);
    if (viz_wfb_render(g, path, tmp, title, collapse, msg, sizeof msg) != VIZ_OK) {
        out_file_say(of, msg);
        return -1;
    }
    return 0;
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

static void analyse_nested(const wcp_args *a, const wfb_graph *g, uint32_t v, nested_run *r)
{
    memset(r, 0, sizeof *r);
    r->report.activity = wfb_vertex_id(g, v);
    r->trace_path = resolve_trace(a->input, wfb_vertex_attr(g, v, WFB_ATTR_TRACE));
    r->report.trace = r->trace_path ? r->trace_path : "?";
    if (r->trace_path)
        r->graph = input_load_graph_bounded("wcp", r->trace_path, WFB_FORMAT_UNKNOWN, NULL,
                                            a->partial, a->memory, r->err.msg,
                                            sizeof r->err.msg);
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
static int report_with_nested(const wcp_args *a, const wfb_graph *g, const wfb_path *lp,
                              const wfb_path *ae, FILE *out)
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
                analyse_nested(a, g, paths[p]->vertices[i], &runs[n++]);
    for (size_t i = 0; i < n; i++)
        reports[i] = runs[i].report;
    int rc = wfb_report_wcp_nested(g, lp, ae, reports, n, a->report, out);
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
    /* --dot and --render draw the graph's edges: it is built in memory */
    wfb_graph *g = a.dot || a.render
                       ? input_load_graph("wcp", a.input, a.format, a.map, a.partial, NULL, 0)
                       : input_load_graph_bounded("wcp", a.input, a.format, a.map, a.partial,
                                                  a.memory, NULL, 0);
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
    out_file dot = {0}, picture = {0}, report = {0};
    FILE *out = a.output ? out_file_open(&report, "wcp", a.output) : stdout;
    rc = out ? 0 : -1;
    if (!rc && a.dot)
        rc = write_dot_file(g, &lp, &ae, &dot, a.dot);
    if (!rc && a.render)
        rc = render_path(g, ae.valid ? &ae : &lp, &picture, a.render, a.input, !a.no_collapse);
    if (!rc && (a.nested ? report_with_nested(&a, g, &lp, &ae, out)
                         : wfb_report_wcp(g, &lp, &ae, a.report, out))) {
        /* A write that failed is said where the stream is closed
         * (out_file_finish, or main for standard output), in one line. */
        if (!ferror(out))
            fputs("snetmon wcp: error writing the report (out of memory)\n", stderr);
        rc = -1;
    }
    if (!rc)
        rc = input_graph_check("wcp", g);
    if (a.output && out && out_file_finish(&report, rc == 0) != 0)
        rc = -1;
    if (a.dot && out_file_finish(&dot, rc == 0) != 0)
        rc = -1;
    if (a.render && out_file_finish(&picture, rc == 0) != 0)
        rc = -1;
    wfb_path_free(&lp);
    wfb_path_free(&ae);
    wfb_graph_free(g);
    return rc ? 1 : 0;
}
