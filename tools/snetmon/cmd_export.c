/*
 * cmd_export.c - `snetmon export`: a trace for the viewers people already
 * use, through the export library (export/export.h).
 *
 *   --chrome TRACE -o trace.json   Chrome Trace Event Format JSON, which the
 *       Perfetto UI and chrome://tracing open: one track per worker, one
 *       slice per task execution period (dispatch to block, yield or
 *       destroy) named by the task's kind, waiting periods of the worker,
 *       and a flow arrow from each message's write to its read.
 *   --otf2 TRACE -o DIR            an OTF2 archive for Vampir and the
 *       Score-P tools. DIR is new, empty, or holds an earlier archive,
 *       which the new one replaces (out_dir's one rule, out_file.h, as
 *       for convert's -o DIR).
 *
 * On success one line says what was written (on standard error when the
 * JSON itself goes to standard output).
 *
 * A message written but never read (the network's output) or read but
 * never written (input from outside) has no arrow; how many of each there
 * are goes into the output, so nothing is left out silently. With
 * --partial, what could not be read goes there too ("otherData":
 * {"input_loss": {...}}, the object of docs/EVENTS.md; OTF2: on stderr).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "export.h"
#include "out_file.h"
#include "trace_input.h"

const char snetmon_summary_export[] =
    "export a trace for other viewers (--chrome: JSON for Perfetto; --otf2: Vampir, Score-P)";

static void export_usage(FILE *out)
{
    fprintf(out, "usage: snetmon export --chrome [--partial] TRACE [-o FILE]\n"
                 "       snetmon export --otf2 [--partial] TRACE -o DIR\n\n"
                 "--chrome writes the LPEL monitor trace TRACE as Chrome Trace Event Format JSON\n"
                 "(open it in ui.perfetto.dev or chrome://tracing): a track per worker, a slice\n"
                 "per task execution period (dispatch to block/yield/destroy; needs the T flag)\n"
                 "named by the task's kind, worker waiting periods (W), and a flow arrow from\n"
                 "each message's write to its read (M).\n"
                 "--otf2 writes an OTF2 archive DIR/traces.otf2 (open it in Vampir, or read it\n"
                 "with otf2-print): a location per worker, a region per task kind entered and\n"
                 "left at each execution period, a \"waiting\" region for the worker's waits,\n"
                 "and each message as a send on the writer's worker and a receive on the\n"
                 "reader's; times in ns on the trace clock, with its wall-clock offset.\n"
                 "Messages written but never read (output) or read but never written (input)\n"
                 "have no arrow; their numbers are in the output.\n"
                 "One line says what was written (tracks or locations, execution periods,\n"
                 "waits, messages); on standard error when the JSON goes to standard output.\n"
                 "  -o, --output F   output: FILE (--chrome; default standard output) or DIR\n"
                 "                   (--otf2: created, empty, or an earlier archive, which is\n"
                 "                   replaced); it appears only when the export succeeded\n"
                 TRACE_INPUT_HELP
                 "                   (in \"otherData\": {\"input_loss\": ...}; OTF2: on stderr)\n"
                 "  -h, --help       this text\n"
                 "  --version        the version and git revision\n"
                 "\n"
                 "examples:\n"
                 "  snetmon export --chrome trace -o trace.json     then open it in ui.perfetto.dev\n"
                 "  snetmon export --otf2 trace -o trace-otf2       Vampir: trace-otf2/traces.otf2\n");
}

/* "WHAT: 2 tracks, ... ; not exported: ..." - the one line of a success. */
static void print_summary(FILE *out, const char *what, bool otf2, const export_summary *s)
{
    const export_message_counts *c = &s->messages;
    fprintf(out, "%s: %u %s", what, s->locations, otf2 ? "locations" : "tracks");
    if (otf2)
        fprintf(out, ", %" PRIu64 " regions", s->regions);
    fprintf(out,
            ", %" PRIu64 " execution periods, %" PRIu64 " waits, %" PRIu64 " messages (%s);"
            " not exported: %" PRIu64 " written never read, %" PRIu64 " read never written, %"
            PRIu64 " repeated\n",
            s->periods, s->waits, c->paired, otf2 ? "send and receive" : "flow arrows",
            c->written_unread, c->read_unwritten, c->repeated);
}

static int export_to_chrome(const export_source *src, const char *out_path)
{
    out_file of;
    FILE *out = out_file_open(&of, "export", out_path);
    if (!out)
        return 1;
    char err[4400];
    export_summary sum;
    int rc = export_chrome(src, out, &sum, err, sizeof err) == 0 ? 0 : 1;
    if (rc && err[0])
        fprintf(stderr, "snetmon export: %s\n", err);
    if (out_file_finish(&of, rc == 0) != 0)
        rc = 1;
    bool to_stdout = !strcmp(out_path, "-");
    if (rc == 0)
        print_summary(to_stdout ? stderr : stdout, to_stdout ? "standard output" : out_path,
                      false, &sum);
    return rc;
}

static int export_to_otf2(const export_source *src, const char *path)
{
    /* What an OTF2 archive is made of (export.h). */
    static const char *const own[] = {"traces.otf2", "traces.def", "traces", NULL};
    out_dir od;
    if (out_dir_open(&od, "export", path, own) != 0)
        return 1;
    export_summary sum;
    char err[4400];
    int rc = export_otf2(src, od.tmp, &sum, err, sizeof err) == 0 ? 0 : 1;
    if (rc && err[0])
        fprintf(stderr, "snetmon export: %s\n", err);
    if (out_dir_finish(&od, rc == 0) != 0)
        rc = 1;
    if (rc == 0) {
        size_t n = strlen(path) + sizeof "/traces.otf2";
        char *what = malloc(n);
        if (what)
            snprintf(what, n, "%s/traces.otf2", path);
        print_summary(stdout, what ? what : path, true, &sum);
        free(what);
    }
    return rc;
}

int snetmon_cmd_export(int argc, char **argv)
{
    enum { OPT_CHROME = CLI_OWN, OPT_OTF2 };
    static const struct option longopts[] = {CLI_STANDARD_OPTIONS,
                                              {"chrome", no_argument, NULL, OPT_CHROME},
                                              {"otf2", no_argument, NULL, OPT_OTF2},
                                              {"partial", no_argument, NULL, CLI_PARTIAL},
                                              {"output", required_argument, NULL, 'o'},
                                              {NULL, 0, NULL, 0}};
    const char *out_path = NULL;
    bool chrome = false, otf2 = false, partial = false;
    cli_parser p;
    cli_begin(&p, "export", argc, argv);
    for (int c; (c = cli_next(&p, "ho:", longopts)) != -1;) {
        switch (c) {
        case 'h':
            export_usage(stdout);
            return 0;
        case CLI_VERSION:
            return cli_version();
        case OPT_CHROME:
            chrome = true;
            break;
        case OPT_OTF2:
            otf2 = true;
            break;
        case CLI_PARTIAL:
            partial = true;
            break;
        case 'o':
            out_path = optarg;
            break;
        default:
            return 2;
        }
    }
    const char *problem = NULL;
    if (chrome == otf2)
        problem = chrome ? "--chrome and --otf2 exclude each other"
                         : "say which format: --chrome or --otf2";
    else if (cli_npositional(&p) != 1)
        problem = cli_npositional(&p) == 0 ? "no trace directory given"
                                           : "more than one trace directory";
    else if (otf2 && (!out_path || !strcmp(out_path, "-")))
        problem = "--otf2 writes a directory: give it with -o DIR";
    if (problem)
        return cli_usage_error(&p, "%s (see 'snetmon export --help')", problem);
    trace_input *in = trace_input_open("export", cli_positional(&p)[0], partial);
    if (!in)
        return 1;
    export_source src;
    trace_input_source(in, &src);
    int rc = chrome ? export_to_chrome(&src, out_path ? out_path : "-")
                    : export_to_otf2(&src, out_path);
    trace_input_close(in);
    return rc;
}
