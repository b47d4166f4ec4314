/*
 * cmd_convert.c - `snetmon convert --to snet-logformat DIR -o OUT`: rewrite
 * a trace in the text format of the original S-Net/LPEL monitoring ("Log
 * format version 2.2"), so that tools written for that runtime read our
 * runs too. The conversion is the export library's (export_logformat,
 * export/export.h); docs/LOGFORMAT.md section 7.1 describes the output.
 * With --partial, a damaged or incomplete trace is converted as far as it
 * can be read and OUT/partial.txt says what was lost.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "export.h"
#include "out_file.h"
#include "trace_input.h"

const char snetmon_summary_convert[] =
    "convert a trace to another format (--to snet-logformat: S-Net LOGFORMAT 2.2 text)";

static void convert_usage(FILE *out)
{
    fprintf(out,
            "usage: snetmon convert --to snet-logformat [--partial] DIR -o OUT\n"
            "       snetmon convert --to snet-logformat [--partial] DIR OUT\n\n"
            "Rewrites the LPEL monitor trace in DIR as the original S-Net LOGFORMAT 2.2 text in\n"
            "directory OUT: mon_n00_tasks.map (<tid> <worker> <name>#) and one\n"
            "mon_n00_worker<NN>.log per worker of '#'-terminated entries (see docs/LOGFORMAT.md).\n"
            "The files appear only when the whole conversion succeeded.\n"
            "  --to FORMAT      the output format: snet-logformat\n"
            "  -o, --output OUT the output directory: new, empty, or an earlier\n"
            "                   conversion's, which is replaced (its files the new one\n"
            "                   lacks removed; other files are left alone)\n"
            TRACE_INPUT_HELP
            "                   (OUT/partial.txt then says what was lost)\n"
            "  -h, --help       this text\n"
            "  --version        the version and git revision\n"
            "\n"
            "examples:\n"
            "  snetmon convert --to snet-logformat trace -o trace-logformat\n");
}

static int run_convert(const char *dir, const char *out, bool partial)
{
    trace_input *in = trace_input_open("convert", dir, partial);
    if (!in)
        return 1;
    /* The files export_logformat writes (export.h). */
    static const char *const own[] = {"mon_n*_tasks.map", "mon_n*_worker*.log", "partial.txt",
                                      NULL};
    out_dir od;
    if (out_dir_open(&od, "convert", out, own) != 0) {
        trace_input_close(in);
        return 1;
    }
    export_source src;
    trace_input_source(in, &src);
    char err[4400];
    int rc = export_logformat(&src, od.tmp, err, sizeof err) == 0 ? 0 : 1;
    if (rc && err[0])
        fprintf(stderr, "snetmon convert: %s\n", err);
    if (out_dir_finish(&od, rc == 0) != 0)
        rc = 1;
    trace_input_close(in);
    return rc;
}

int snetmon_cmd_convert(int argc, char **argv)
{
    enum { OPT_TO = CLI_OWN };
    static const struct option longopts[] = {CLI_STANDARD_OPTIONS,
                                              {"to", required_argument, NULL, OPT_TO},
                                              {"output", required_argument, NULL, 'o'},
                                              {"partial", no_argument, NULL, CLI_PARTIAL},
                                              {NULL, 0, NULL, 0}};
    const char *to = NULL, *out = NULL;
    bool partial = false;
    cli_parser p;
    cli_begin(&p, "convert", argc, argv);
    for (int c; (c = cli_next(&p, "ho:", longopts)) != -1;) {
        switch (c) {
        case 'h':
            convert_usage(stdout);
            return 0;
        case CLI_VERSION:
            return cli_version();
        case OPT_TO:
            to = optarg;
            break;
        case 'o':
            out = optarg;
            break;
        case CLI_PARTIAL:
            partial = true;
            break;
        default:
            return 2;
        }
    }
    if (!to || strcmp(to, "snet-logformat") != 0)
        return cli_usage_error(&p, "%s (known: --to snet-logformat)",
                               to ? "unknown target format" : "say which format with --to");
    int n = cli_npositional(&p);
    char **args = cli_positional(&p);
    if (!out && n == 2)
        out = args[1], n = 1; /* the older form: DIR OUT */
    if (n != 1 || !out)
        return cli_usage_error(&p, "need a trace directory and an output directory "
                                   "(see 'snetmon convert --help')");
    return run_convert(args[0], out, partial);
}
