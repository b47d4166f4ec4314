/*
 * cmd_whatif.c - `snetmon whatif INPUT`: which task to make faster, and
 * what the run gains: for every task kind and net path (or the tasks
 * --tasks selects) the predicted throughput (eq. 1), latency (eq. 2) and
 * speedup if its executions took X % less time, from a replay of the
 * recorded run (docs/METRICS.md section 11).
 *
 * The profile is the whatif library's (whatif_profile_compute, whatif.h);
 * this file is the command line around it: the shared loader reads the
 * trace into the bridge's graph (inputs, eq. 2) and once more into the
 * replay model (every task's stream operations), or an activity DAG's
 * file into the graph the model is made of, and the report goes out whole
 * or not at all (out_file).
 */
#include "cli.h"
#include "out_file.h"
#include "trace_input.h"
#include "whatif.h"
#include "wfb.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

const char snetmon_summary_whatif[] =
    "predict what the run gains if a task were X % faster (a causal profile of every task)";

static void whatif_usage(FILE *out)
{
    fprintf(out,
            "usage: snetmon whatif INPUT [--faster X[,X...]] [--tasks RE] [--top N]\n"
            "                      [--json | --csv] [-o FILE] [--from FORMAT]\n"
            "                      [--event-map FILE] [--partial]\n\n"
            "A causal profile: for each task kind and each net path (the most telling --top\n"
            "of them), the predicted speedup of the run, its throughput (eq. 1) and latency\n"
            "(eq. 2, mean and p95) if that task's executions took X %% less time, ranked,\n"
            "beside the figures of the run as recorded. The model replays the recorded\n"
            "run with those executions shortened: every stream item read after it was\n"
            "written, written once a slot of the stream was free, each task on the worker\n"
            "it ran on, one task at a time per worker. With --tasks RE, one question about\n"
            "the tasks whose name (net path) matches the pcre2 pattern RE.\n\n"
            "INPUT is a trace directory of one run (recorded with -m mtTSWM; -m A adds flag\n"
            "C, whose readings on a loaded machine make the gains come out low: METRICS.md\n"
            "section 11), or an activity DAG (WfCommons, NetLogger, JSONL): there the\n"
            "profile is over activities (by name and each one), the dependencies and each\n"
            "host's slots replayed, and the speedup is the makespan's.\n\n"
            "options:\n"
            "  --faster X[,X...]  how much less time, in %% (default 10,25,50,100; 100: free;\n"
            "                     negative: slower); repeatable, at most %d values\n"
            "  --tasks RE         one question: the tasks whose name matches RE\n"
            "  --top N            net paths listed (default %d)\n"
            "  --json, --csv      machine-readable (the JSON of one question with one X has\n"
            "                     the predicted speedup as \"speedup\")\n"
            "  -o, --output FILE  write the report to FILE instead of standard output\n"
            "  --from FORMAT      jsonl | wfcommons | bp | lpel (skip detection)\n"
            CLI_EVENT_MAP_HELP
            TRACE_INPUT_HELP
            "  -h, --help         this text\n"
            "  --version          the version and git revision\n\n"
            "Exit status: 0 when the profile was printed, 1 when the input cannot be used,\n"
            "2 for a usage error. Every figure is defined in docs/METRICS.md, section 11.\n"
            "\n"
            "examples:\n"
            "  snetmon whatif trace\n"
            "  snetmon whatif trace --tasks 'mc\\.vcall$' --faster 50 --json\n",
            WHATIF_MAX_FACTORS, WHATIF_TOP);
}

typedef struct whatif_args {
    const char *input, *output, *map;
    wfb_format format;
    wfb_output fmt;
    bool partial;
    whatif_options opt;
} whatif_args;

/* "X[,X...]" into the options' factors: each a number up to 100 and above
 * -1000 (ten times slower); a usage error names the bad one. */
static int parse_faster(cli_parser *p, const char *val, whatif_options *o)
{
    const char *s = val;
    for (;;) {
        char *end;
        errno = 0;
        double x = strtod(s, &end);
        if (errno || end == s || (*end && *end != ',') || !(x <= 100 && x > -1000))
            return cli_usage_error(p, "--faster needs percentages from -999 to 100, not '%s'",
                                   val);
        if (o->n_faster == WHATIF_MAX_FACTORS)
            return cli_usage_error(p, "--faster: at most %d values", WHATIF_MAX_FACTORS);
        o->faster_pct[o->n_faster++] = x;
        if (!*end)
            return 0;
        s = end + 1;
    }
}

static int parse_top(cli_parser *p, const char *val, size_t *out)
{
    char *end;
    errno = 0;
    long v = strtol(val, &end, 10);
    if (errno || end == val || *end || v < 1 || v > 100000)
        return cli_usage_error(p, "--top needs a whole number from 1 to 100000, not '%s'", val);
    *out = (size_t)v;
    return 0;
}

/* 0: run; 1: help or version printed; 2: usage error. */
static int whatif_parse(int argc, char **argv, whatif_args *a)
{
    enum { OPT_FASTER = CLI_OWN, OPT_TASKS, OPT_TOP, OPT_FROM };
    static const struct option longopts[] = {
        CLI_STANDARD_OPTIONS,
        {"json", no_argument, NULL, CLI_JSON},
        {"csv", no_argument, NULL, CLI_CSV},
        {"partial", no_argument, NULL, CLI_PARTIAL},
        {"output", required_argument, NULL, 'o'},
        {"faster", required_argument, NULL, OPT_FASTER},
        {"tasks", required_argument, NULL, OPT_TASKS},
        {"top", required_argument, NULL, OPT_TOP},
        {"from", required_argument, NULL, OPT_FROM},
        CLI_EVENT_MAP_OPTIONS,
        {NULL, 0, NULL, 0}};
    memset(a, 0, sizeof *a);
    cli_parser p;
    cli_begin(&p, "whatif", argc, argv);
    for (int c; (c = cli_next(&p, "ho:", longopts)) != -1;) {
        switch (c) {
        case 'h': whatif_usage(stdout); return 1;
        case CLI_VERSION: cli_version(); return 1;
        case CLI_JSON:
        case CLI_CSV:
            if (cli_format(&p, c, &a->fmt))
                return 2;
            break;
        case CLI_PARTIAL: a->partial = true; break;
        case 'o': a->output = optarg; break;
        case OPT_FASTER:
            if (parse_faster(&p, optarg, &a->opt))
                return 2;
            break;
        case OPT_TASKS: a->opt.tasks_pattern = optarg; break;
        case OPT_TOP:
            if (parse_top(&p, optarg, &a->opt.top))
                return 2;
            break;
        case OPT_FROM:
            if ((a->format = wfb_format_parse(optarg)) == WFB_FORMAT_UNKNOWN)
                return cli_usage_error(&p, "unknown format '%s'", optarg);
            break;
        case CLI_EVENT_MAP:
        case CLI_EVENT_MAP_OLD: a->map = cli_event_map(&p, c); break;
        default: return 2;
        }
    }
    int n = cli_npositional(&p);
    if (n != 1) {
        if (n == 0)
            whatif_usage(stderr);
        else
            cli_usage_error(&p, "one INPUT, not %d arguments", n);
        return 2;
    }
    a->input = cli_positional(&p)[0];
    return 0;
}

static bool is_trace(const whatif_args *a)
{
    struct stat st;
    return a->format == WFB_FORMAT_LPEL_TRACE ||
           (a->format == WFB_FORMAT_UNKNOWN && stat(a->input, &st) == 0 && S_ISDIR(st.st_mode));
}

/* The replay model: the trace read once more, or the DAG in g. NULL after
 * the message. */
static whatif_model *load_model(const whatif_args *a, const wfb_graph *g)
{
    if (is_trace(a))
        return input_load_whatif("whatif", a->input, a->partial, NULL, 0);
    whatif_model *m = NULL;
    wfb_error err;
    if (whatif_model_from_activities(g, &m, &err) != 0)
        fprintf(stderr, "snetmon whatif: %s: %s\n", a->input, err.msg);
    return m;
}

int snetmon_cmd_whatif(int argc, char **argv)
{
    whatif_args a;
    int rc = whatif_parse(argc, argv, &a);
    if (rc)
        return rc == 1 ? 0 : 2;
    wfb_graph *g = input_load_graph("whatif", a.input, a.format, a.map, a.partial, NULL, 0);
    if (!g)
        return 1;
    whatif_model *m = load_model(&a, g);
    whatif_profile p;
    wfb_error err;
    rc = 1;
    if (m && whatif_profile_compute(m, g, &a.opt, &p, &err) != 0) {
        fprintf(stderr, "snetmon whatif: %s: %s\n", a.input, err.msg);
    } else if (m) { /* the report whole or not at all (out_file: "-" is standard output) */
        out_file of;
        FILE *out = out_file_open(&of, "whatif", a.output ? a.output : "-");
        bool ok = out && whatif_profile_print(&p, a.input, a.fmt, out) == 0;
        if (out && out_file_finish(&of, ok) != 0)
            ok = false;
        if (out && !ok && !a.output)
            fprintf(stderr, "snetmon whatif: error writing the report\n");
        rc = ok ? 0 : 1;
        whatif_profile_free(&p);
    }
    whatif_model_free(m);
    wfb_graph_free(g);
    return rc;
}
