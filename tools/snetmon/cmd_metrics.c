/*
 * cmd_metrics.c - `snetmon metrics`: the analyses of the workflow bridge on a
 * trace or a workflow event file: activity response/waiting/processing,
 * synchronisation delay, load imbalance, slowdown, speedup against another
 * run; message throughput, latency, jitter and lifeline anomalies; per-worker
 * and per-task runtime figures.
 */
#include "trace_input.h"
#include "wfb.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char snetmon_summary_metrics[] = "throughput, latency, jitter, activity and runtime metrics of a trace or event file";

static void metrics_usage(FILE *out)
{
    fprintf(out,
            "usage: snetmon metrics INPUT [--json|--csv] [--from FORMAT] [--map FILE] [--partial]\n"
            "                       [--compare OTHER [--subgraph RE]] [--timeout-pct P]\n"
            "                       [--inputs N]\n\n"
            "INPUT is an event file (jsonl, wfcommons or bp, detected from its content)\n"
            "or an LPEL trace directory, also one of a run across MPI ranks (DIR/rank-R/,\n"
            "read as one trace on rank 0's clock, docs/METRICS.md section 7).\n\n"
            "options:\n"
            "  --json           one JSON object (schema in docs/EVENTS.md)\n"
            "  --csv            per-activity and per-input tables\n"
            "  --from FORMAT    jsonl | wfcommons | bp | lpel (skip detection)\n"
            "  --map FILE       NetLogger event mapping (default: Pegasus stampede)\n"
            "  --compare OTHER  speedup of INPUT over run OTHER on their common activities\n"
            "  --subgraph RE    only the common activities whose id matches RE (pcre2)\n"
            "  --timeout-pct P  latency percentile used as lifeline timeout (default 99)\n"
            "  --inputs N       the input count N of the throughput (eq. 1) of each run,\n"
            "                   instead of the data states without predecessor\n"
            TRACE_INPUT_HELP
            "  -h, --help       this text\n"
            "\nEvery figure is defined in docs/METRICS.md.\n");
}

typedef struct metrics_args {
    const char *input, *map, *compare, *subgraph;
    wfb_format format;
    wfb_output output;
    double timeout_pct;
    size_t inputs;
    bool partial;
} metrics_args;

static int metrics_option(metrics_args *a, const char *opt, const char *val)
{
    if (!strcmp(opt, "--map")) {
        a->map = val;
    } else if (!strcmp(opt, "--compare")) {
        a->compare = val;
    } else if (!strcmp(opt, "--subgraph")) {
        a->subgraph = val;
    } else if (!strcmp(opt, "--inputs")) {
        char *end;
        errno = 0;
        unsigned long long n = strtoull(val, &end, 10);
        if (errno || end == val || *end || n == 0 || val[0] == '-' || n > SIZE_MAX) {
            fprintf(stderr, "snetmon metrics: --inputs needs a positive whole number, not '%s'\n",
                    val);
            return 2;
        }
        a->inputs = (size_t)n;
    } else if (!strcmp(opt, "--timeout-pct")) {
        char *end;
        a->timeout_pct = strtod(val, &end);
        if (*end || !(a->timeout_pct > 0 && a->timeout_pct <= 100)) {
            fprintf(stderr, "snetmon metrics: --timeout-pct needs a number in (0, 100]\n");
            return 2;
        }
    } else if ((a->format = wfb_format_parse(val)) == WFB_FORMAT_UNKNOWN) {
        fprintf(stderr, "snetmon metrics: unknown format '%s'\n", val);
        return 2;
    }
    return 0;
}

static int metrics_parse(int argc, char **argv, metrics_args *a)
{
    memset(a, 0, sizeof *a);
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
            metrics_usage(stdout);
            return 1;
        } else if (!strcmp(arg, "--json")) {
            a->output = WFB_OUT_JSON;
        } else if (!strcmp(arg, "--csv")) {
            a->output = WFB_OUT_CSV;
        } else if (!strcmp(arg, "--partial")) {
            a->partial = true;
        } else if ((!strcmp(arg, "--from") || !strcmp(arg, "--map") ||
                    !strcmp(arg, "--compare") || !strcmp(arg, "--subgraph") ||
                    !strcmp(arg, "--timeout-pct") || !strcmp(arg, "--inputs")) &&
                   i + 1 < argc) {
            int rc = metrics_option(a, arg, argv[++i]);
            if (rc)
                return rc;
        } else if (arg[0] == '-' && arg[1]) {
            fprintf(stderr, "snetmon metrics: unknown or incomplete option '%s'\n", arg);
            return 2;
        } else if (!a->input) {
            a->input = arg;
        } else {
            fprintf(stderr, "snetmon metrics: more than one INPUT\n");
            return 2;
        }
    }
    if (!a->input) {
        metrics_usage(stderr);
        return 2;
    }
    return 0;
}

/* Loads OTHER (same format options) and computes the speedup. */
static int compare_runs(const wfb_graph *g, const metrics_args *a, wfb_metrics_input *in,
                        wfb_error *err)
{
    wfb_graph *other = input_load_graph("metrics", a->compare, WFB_FORMAT_UNKNOWN, a->map,
                                        a->partial, err->msg, sizeof err->msg);
    if (!other) {
        err->file[0] = '\0';
        err->line = 0;
        return -1;
    }
    int rc = wfb_speedup_subgraph(g, other, a->subgraph, &in->speedup, &in->speedup_common, err);
    in->has_speedup = rc == 0;
    in->compare_source = a->compare;
    wfb_graph_free(other);
    return rc;
}

static int run_metrics(const wfb_graph *g, const metrics_args *a, wfb_error *err)
{
    wfb_activity_report act;
    wfb_message_report msg;
    wfb_metrics_input in = {0};
    if (wfb_activity_metrics_compute(g, &act, err))
        return -1;
    wfb_message_options mo = {a->timeout_pct, a->inputs};
    if (wfb_message_metrics_compute(g, &mo, &msg, err)) {
        wfb_activity_report_free(&act);
        return -1;
    }
    uint32_t *anomalies = NULL;
    in.activities = &act;
    in.messages = &msg;
    in.n_anomalies = wfb_activity_anomalies(g, &anomalies);
    in.anomalies = anomalies;
    int rc = a->compare ? compare_runs(g, a, &in, err) : 0;
    if (rc == 0 && wfb_report_metrics(g, &in, a->output, stdout)) {
        wfb_error e = {.msg = "error writing the report"};
        *err = e;
        rc = -1;
    }
    free(anomalies);
    wfb_activity_report_free(&act);
    wfb_message_report_free(&msg);
    return rc;
}

int snetmon_cmd_metrics(int argc, char **argv)
{
    metrics_args a;
    int rc = metrics_parse(argc, argv, &a);
    if (rc)
        return rc == 1 ? 0 : 2;
    wfb_graph *g = input_load_graph("metrics", a.input, a.format, a.map, a.partial, NULL, 0);
    if (!g)
        return 1;
    wfb_error err;
    rc = run_metrics(g, &a, &err);
    if (rc) {
        fputs("snetmon metrics: ", stderr);
        wfb_error_print(&err, stderr);
    }
    wfb_graph_free(g);
    return rc ? 1 : 0;
}
