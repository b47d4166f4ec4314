/*
 * cmd_advise.c - `snetmon advise TRACE [-o FILE]`: reads a trace of one
 * run, says in words how its mapping of tasks onto workers performed and
 * what limits it, and writes a mapping file (docs/MAPPING.md) that the
 * prediction model of docs/METRICS.md expects to run faster, or says why
 * the current mapping is already good and writes nothing.
 *
 * The analysis is the advice library (advice_compute, advice/advice.h);
 * this file is the command line around it: the shared trace loader, the
 * report, and the mapping file written whole or not at all (out_file).
 */
#include "advice.h"
#include "cli.h"
#include "out_file.h"
#include "trace_input.h"
#include "wfb.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char snetmon_summary_advise[] =
    "advise a mapping of tasks onto workers from a trace (writes a --map file)";

static void advise_usage(FILE *out)
{
    fprintf(out,
            "usage: snetmon advise TRACE [-o FILE] [--list-tasks] [--message-cost S]\n"
            "                      [--min-gain F] [--cores N] [--partial]\n\n"
            "Reads the trace of one run (recorded with -m A, or at least -m mtTWS), says how\n"
            "its mapping of tasks onto workers performed (work and waiting per worker, the\n"
            "heaviest tasks, traffic between workers, who waits for whom) and what limits it,\n"
            "and predicts the run time of the current mapping and of the best mapping found\n"
            "(METIS partitions of the communication graph; every placement when the task\n"
            "names are few). When that one is predicted faster by more than the\n"
            "minimum gain, -o FILE receives it as a mapping file (docs/MAPPING.md) for the\n"
            "same program: PROGRAM -w N --map FILE. Otherwise the current mapping is already\n"
            "good, the report says why, and no file is written.\n\n"
            "options:\n"
            "  -o, --output FILE   write the advised mapping to FILE ('-': standard output,\n"
            "                      the report then goes to standard error)\n"
            "  --list-tasks        list every task name with its execution time, its worker\n"
            "                      now and the advised one\n"
            "  --message-cost S    the model's cost of one stream item crossing workers, in\n"
            "                      seconds (default %g)\n"
            "  --min-gain F        the predicted gain worth a change, a fraction (default %g)\n"
            "  --cores N           the run's workers shared N cores (worker w on core w mod N,\n"
            "                      as LPEL pins them); default: a core per worker\n"
            TRACE_INPUT_HELP
            "  -h, --help          this text\n"
            "  --version           the version and git revision\n\n"
            "Exit status: 0 when the advice was given (a change or none), 1 when the trace\n"
            "cannot be used, 2 for a usage error. The model and every figure printed are\n"
            "defined in docs/METRICS.md, section \"Mapping advice\".\n"
            "\n"
            "examples:\n"
            "  snetmon advise trace -o mapping.txt   then: PROGRAM -w N --map mapping.txt\n"
            "  snetmon advise trace --list-tasks\n",
            ADVICE_MESSAGE_COST_S, ADVICE_MIN_GAIN);
}

typedef struct advise_args {
    const char *trace, *output;
    bool tasks, partial;
    advice_options opt;
} advise_args;

/* A non-negative number, or a usage error naming the option. */
static int parse_fraction(const char *opt, const char *val, double max, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(val, &end);
    if (errno || end == val || *end || !(v >= 0 && v <= max)) {
        fprintf(stderr, "snetmon advise: %s needs a number from 0 to %g, not '%s'\n", opt, max,
                val);
        return -1;
    }
    *out = v;
    return 0;
}

/* A whole number from 1 to 4096, or a usage error naming the option. */
static int parse_count(const char *opt, const char *val, unsigned *out)
{
    char *end;
    errno = 0;
    long v = strtol(val, &end, 10);
    if (errno || end == val || *end || v < 1 || v > 4096) {
        fprintf(stderr, "snetmon advise: %s needs a whole number from 1 to 4096, not '%s'\n", opt,
                val);
        return -1;
    }
    *out = (unsigned)v;
    return 0;
}

/* 0: run; 1: help or version printed; 2: usage error. The conventions are
 * those of every subcommand (cli.h). */
static int advise_parse(int argc, char **argv, advise_args *a)
{
    enum { OPT_LIST_TASKS = CLI_OWN, OPT_TASKS_OLD, OPT_MESSAGE_COST, OPT_MIN_GAIN, OPT_CORES };
    static const struct option longopts[] = {
        CLI_STANDARD_OPTIONS,
        {"output", required_argument, NULL, 'o'},
        {"list-tasks", no_argument, NULL, OPT_LIST_TASKS},
        {"tasks", no_argument, NULL, OPT_TASKS_OLD}, /* until --tasks means a pattern here too */
        {"message-cost", required_argument, NULL, OPT_MESSAGE_COST},
        {"min-gain", required_argument, NULL, OPT_MIN_GAIN},
        {"partial", no_argument, NULL, CLI_PARTIAL},
        {"cores", required_argument, NULL, OPT_CORES},
        {NULL, 0, NULL, 0}};
    memset(a, 0, sizeof *a);
    a->opt.message_cost_s = -1;
    a->opt.min_gain = -1;
    cli_parser p;
    cli_begin(&p, "advise", argc, argv);
    for (int c; (c = cli_next(&p, "ho:", longopts)) != -1;) {
        switch (c) {
        case 'h': advise_usage(stdout); return 1;
        case CLI_VERSION: cli_version(); return 1;
        case 'o': a->output = optarg; break;
        case OPT_TASKS_OLD:
            cli_deprecated(&p, "--tasks", "--list-tasks");
            /* fall through */
        case OPT_LIST_TASKS: a->tasks = true; break;
        case CLI_PARTIAL: a->partial = true; break;
        case OPT_MESSAGE_COST:
            if (parse_fraction("--message-cost", optarg, 1.0, &a->opt.message_cost_s))
                return 2;
            break;
        case OPT_MIN_GAIN:
            if (parse_fraction("--min-gain", optarg, 0.99, &a->opt.min_gain))
                return 2;
            break;
        case OPT_CORES:
            if (parse_count("--cores", optarg, &a->opt.cores))
                return 2;
            break;
        default: return 2; /* CLI_ERROR: the message is printed */
        }
    }
    int n = cli_npositional(&p);
    if (n != 1) {
        if (n == 0)
            advise_usage(stderr);
        else
            cli_usage_error(&p, "one TRACE, not %d arguments", n);
        return 2;
    }
    a->trace = cli_positional(&p)[0];
    return 0;
}

static void list_tasks(const advice_result *a, FILE *out)
{
    fprintf(out, "\nTask names (execution time, worker now -> advised)\n");
    for (size_t i = 0; i < a->n_groups; i++) {
        const advice_group *g = &a->groups[i];
        fprintf(out, "  %-48s %10.6f s  %u%s -> %u\n", g->name, g->exec_s, g->worker_now,
                g->split_now ? "+" : "", g->worker_advised);
    }
}

/* Writes the mapping through out_file (whole or not at all). */
static int write_mapping(const advise_args *args, const advice_result *a, FILE *report)
{
    out_file of;
    FILE *f = out_file_open(&of, "advise", args->output);
    if (!f)
        return -1;
    size_t lines = 0;
    bool ok = advice_write_mapping(a, args->trace, f, &lines) == 0;
    if (out_file_finish(&of, ok) != 0)
        return -1;
    if (!ok) {
        fprintf(stderr, "snetmon advise: could not write the mapping to %s\n", args->output);
        return -1;
    }
    if (strcmp(args->output, "-") != 0)
        fprintf(report, "  wrote %s (%zu placements); rerun with -w %u --map %s\n", args->output,
                lines, a->workers, args->output);
    return 0;
}

int snetmon_cmd_advise(int argc, char **argv)
{
    advise_args args;
    int rc = advise_parse(argc, argv, &args);
    if (rc)
        return rc == 1 ? 0 : 2;
    wfb_graph *g = input_load_graph("advise", args.trace, WFB_FORMAT_LPEL_TRACE, NULL,
                                    args.partial, NULL, 0);
    if (!g)
        return 1;
    advice_result a;
    wfb_error err;
    if (advice_compute(g, &args.opt, &a, &err) != 0) {
        fputs("snetmon advise: ", stderr);
        wfb_error_print(&err, stderr);
        wfb_graph_free(g);
        return 1;
    }
    FILE *report = args.output && !strcmp(args.output, "-") ? stderr : stdout;
    const wfb_input_loss *loss = wfb_graph_input_loss(g);
    if (loss) {
        char what[256];
        wfb_input_loss_summary(loss, what, sizeof what);
        fprintf(report, "partial trace: %s; the advice rests on what was read\n", what);
    }
    advice_report(&a, args.trace, report);
    rc = 0;
    if (args.output && a.change)
        rc = write_mapping(&args, &a, report) ? 1 : 0;
    else if (args.output)
        fprintf(report, "  no mapping written to %s: keep the current one\n", args.output);
    if (args.tasks)
        list_tasks(&a, report);
    if (out_stream_check("advise", report, "standard error") != 0)
        rc = 1;
    advice_free(&a);
    wfb_graph_free(g);
    return rc;
}
