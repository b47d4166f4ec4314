/*
 * cmd_metrics.c - `snetmon metrics`: the analyses of the workflow bridge on a
 * trace or a workflow event file: activity response/waiting/processing,
 * synchronisation delay, load imbalance, slowdown, speedup against another
 * run; message throughput, latency, jitter and lifeline anomalies; per-worker
 * and per-task runtime figures.
 */
#include "cli.h"
#include "out_file.h"
#include "trace_input.h"
#include "wfb.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

const char snetmon_summary_metrics[] = "throughput, latency, jitter, activity and runtime metrics of a trace or event file";

static void metrics_usage(FILE *out)
{
    fprintf(out,
            "usage: snetmon metrics INPUT [--json|--csv] [--from FORMAT] [--event-map FILE] [--partial]\n"
            "                       [--compare OTHER [--subgraph RE]] [--timeout-pct P]\n"
            "                       [--inputs N] [--cpu-time] [--max-memory SIZE|--in-memory]\n"
            "                       [-o FILE]\n\n"
            "INPUT is an event file (jsonl, wfcommons or bp, detected from its content)\n"
            "or an LPEL trace directory, also one of a run across MPI ranks (DIR/rank-R/,\n"
            "read as one trace on rank 0's clock, docs/METRICS.md section 10).\n\n"
            "options:\n"
            "  --json           one JSON object (schema in docs/EVENTS.md)\n"
            "  --csv            per-activity and per-input tables\n"
            "  -o, --output FILE  write the report to FILE instead of standard output\n"
            "                   (it appears only when the command succeeded)\n"
            "  --from FORMAT    jsonl | wfcommons | bp | lpel (skip detection)\n"
            CLI_EVENT_MAP_HELP
            "  --compare OTHER  speedup of INPUT over run OTHER on their common activities\n"
            "                   (event files; for LPEL traces use `snetmon compare`)\n"
            "  --subgraph RE    only the common activities whose id matches RE (pcre2)\n"
            "  --timeout-pct P  latency percentile used as lifeline timeout (default 99)\n"
            "  --inputs N       the input count N of the throughput (eq. 1) of each run,\n"
            "                   instead of the data states without predecessor\n"
            "  --cpu-time       latency (eq. 2) and jitter (eq. 3) over the executions' CPU\n"
            "                   time (the time the OS held the core taken off; needs -m C)\n"
            CLI_MEMORY_HELP
            TRACE_INPUT_HELP
            "  -h, --help       this text\n"
            "  --version        the version and git revision\n"
            "\nEvery figure is defined in docs/METRICS.md.\n"
            "\n"
            "examples:\n"
            "  snetmon metrics trace\n"
            "  snetmon metrics --json trace > metrics.json\n");
}

typedef struct metrics_args {
    const char *input, *map, *compare, *subgraph, *output_path;
    wfb_format format;
    wfb_output output;
    double timeout_pct;
    size_t inputs;
    size_t memory; /* --max-memory, 0: --in-memory */
    bool partial, cpu_time;
} metrics_args;

enum { OPT_FROM = CLI_OWN, OPT_COMPARE, OPT_SUBGRAPH, OPT_INPUTS, OPT_TIMEOUT_PCT, OPT_CPU_TIME };

static int metrics_value(cli_parser *p, metrics_args *a, int opt, const char *val)
{
    char *end;
    switch (opt) {
    case OPT_COMPARE:
        a->compare = val;
        return 0;
    case OPT_SUBGRAPH:
        a->subgraph = val;
        return 0;
    case OPT_INPUTS: {
        errno = 0;
        unsigned long long n = strtoull(val, &end, 10);
        if (errno || end == val || *end || n == 0 || val[0] == '-' || n > SIZE_MAX)
            return cli_usage_error(p, "--inputs needs a positive whole number, not '%s'", val);
        a->inputs = (size_t)n;
        return 0;
    }
    case OPT_TIMEOUT_PCT:
        a->timeout_pct = strtod(val, &end);
        if (end == val || *end || !(a->timeout_pct > 0 && a->timeout_pct <= 100))
            return cli_usage_error(p, "--timeout-pct needs a number in (0, 100]");
        return 0;
    default: /* OPT_FROM */
        if ((a->format = wfb_format_parse(val)) == WFB_FORMAT_UNKNOWN)
            return cli_usage_error(p, "unknown format '%s'", val);
        return 0;
    }
}

/* Returns 0 to run, 1 when help or the version was printed, 2 on a usage
 * error. */
static int metrics_parse(int argc, char **argv, metrics_args *a)
{
    static const struct option longopts[] = {
        CLI_STANDARD_OPTIONS,
        {"json", no_argument, NULL, CLI_JSON},
        {"csv", no_argument, NULL, CLI_CSV},
        {"partial", no_argument, NULL, CLI_PARTIAL},
        {"output", required_argument, NULL, 'o'},
        {"from", required_argument, NULL, OPT_FROM},
        CLI_EVENT_MAP_OPTIONS,
        {"compare", required_argument, NULL, OPT_COMPARE},
        {"subgraph", required_argument, NULL, OPT_SUBGRAPH},
        {"inputs", required_argument, NULL, OPT_INPUTS},
        {"timeout-pct", required_argument, NULL, OPT_TIMEOUT_PCT},
        {"cpu-time", no_argument, NULL, OPT_CPU_TIME},
        CLI_MEMORY_OPTIONS,
        {NULL, 0, NULL, 0}};
    memset(a, 0, sizeof *a);
    a->memory = CLI_MAX_MEMORY_DEFAULT;
    cli_parser p;
    cli_begin(&p, "metrics", argc, argv);
    for (int c; (c = cli_next(&p, "ho:", longopts)) != -1;) {
        switch (c) {
        case 'h':
            metrics_usage(stdout);
            return 1;
        case CLI_VERSION:
            cli_version();
            return 1;
        case CLI_JSON:
        case CLI_CSV:
            if (cli_format(&p, c, &a->output))
                return 2;
            break;
        case CLI_PARTIAL:
            a->partial = true;
            break;
        case OPT_CPU_TIME:
            a->cpu_time = true;
            break;
        case CLI_MAX_MEMORY:
        case CLI_IN_MEMORY:
            if (cli_memory(&p, c, &a->memory))
                return 2;
            break;
        case 'o':
            a->output_path = optarg;
            break;
        case CLI_EVENT_MAP:
        case CLI_EVENT_MAP_OLD:
            a->map = cli_event_map(&p, c);
            break;
        case OPT_FROM:
        case OPT_COMPARE:
        case OPT_SUBGRAPH:
        case OPT_INPUTS:
        case OPT_TIMEOUT_PCT:
            if (metrics_value(&p, a, c, optarg))
                return 2;
            break;
        default:
            return 2;
        }
    }
    if (cli_npositional(&p) > 1)
        return cli_usage_error(&p, "more than one INPUT");
    if (cli_npositional(&p) == 0) {
        metrics_usage(stderr);
        return 2;
    }
    a->input = cli_positional(&p)[0];
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

static int run_metrics(const wfb_graph *g, const metrics_args *a, FILE *out, wfb_error *err)
{
    wfb_activity_report act;
    wfb_message_report msg;
    wfb_metrics_input in = {0};
    if (wfb_activity_metrics_compute(g, &act, err))
        return -1;
    wfb_message_options mo = {.timeout_percentile = a->timeout_pct, .inputs = a->inputs,
                              .cpu_time = a->cpu_time};
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
    if (rc == 0 && wfb_report_metrics(g, &in, a->output, out)) {
        /* A write that failed is said where the stream is closed
         * (out_file_finish, or main for standard output). */
        wfb_error e = {.msg = "error writing the report"};
        if (ferror(out))
            e.msg[0] = '\0';
        *err = e;
        rc = -1;
    }
    free(anomalies);
    wfb_activity_report_free(&act);
    wfb_message_report_free(&msg);
    return rc;
}

static bool is_trace_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* --compare matches activities by id; LPEL traces have none, and their
 * message and task ids mean nothing across runs. `snetmon compare` matches
 * them by net path and entity kind instead: point there rather than print a
 * speedup over "0 common activities". */
static bool compare_needs_compare_command(const metrics_args *a)
{
    if (!a->compare || !(is_trace_dir(a->input) || is_trace_dir(a->compare)))
        return false;
    fprintf(stderr,
            "snetmon metrics: --compare matches workflow activities by id, and an LPEL trace has "
            "none; use 'snetmon compare %s %s', which matches tasks by net path and entity kind\n",
            a->input, a->compare);
    return true;
}

int snetmon_cmd_metrics(int argc, char **argv)
{
    metrics_args a;
    int rc = metrics_parse(argc, argv, &a);
    if (rc)
        return rc == 1 ? 0 : 2;
    if (compare_needs_compare_command(&a))
        return 2;
    wfb_graph *g = input_load_graph_bounded("metrics", a.input, a.format, a.map, a.partial,
                                            a.memory, NULL, 0);
    if (!g)
        return 1;
    wfb_error err;
    out_file report = {0};
    FILE *out = a.output_path ? out_file_open(&report, "metrics", a.output_path) : stdout;
    rc = out ? run_metrics(g, &a, out, &err) : 0;
    if (out && rc && err.msg[0]) {
        fputs("snetmon metrics: ", stderr);
        wfb_error_print(&err, stderr);
    } else if (out) {
        rc = input_graph_check("metrics", g);
    }
    if (!out || (a.output_path && out_file_finish(&report, rc == 0) != 0))
        rc = -1;
    wfb_graph_free(g);
    return rc ? 1 : 0;
}
