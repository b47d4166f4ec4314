/*
 * cmd_import.c - `snetmon import`: converts a WfCommons instance, a NetLogger
 * log or a JSON Lines file into the bridge's JSON Lines events, so that all
 * workflow inputs can be kept and exchanged in one documented form.
 */
#include "cli.h"
#include "out_file.h"
#include "trace_input.h"
#include "wfb.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

const char snetmon_summary_import[] = "convert WfCommons / NetLogger / JSONL workflow events to JSONL";

static void import_usage(FILE *out)
{
    fprintf(out,
            "usage: snetmon import --from wfcommons|bp|jsonl FILE -o EVENTS.jsonl [--event-map FILE]\n"
            "                      [--partial]\n\n"
            "Reads FILE, checks it (references, cycles) and writes the bridge's JSON Lines\n"
            "events (schema in docs/EVENTS.md). '-o -' writes to standard output; a file\n"
            "appears only when the import succeeded. A FILE whose last line is cut short\n"
            "(no newline, no whole record) is refused, naming the line.\n\n"
            "options:\n"
            "  --from FORMAT  wfcommons | bp | jsonl (required)\n"
            "  -o, --output FILE  output file (required)\n"
            CLI_EVENT_MAP_HELP
            "  --partial      import the lines before a last line cut short, with a\n"
            "                 warning naming what was left out (the events written\n"
            "                 cannot say it)\n"
            "  -h, --help     this text\n"
            "  --version      the version and git revision\n"
            "\n"
            "examples:\n"
            "  snetmon import --from wfcommons workflow.json -o events.jsonl\n");
}

typedef struct import_args {
    const char *input, *output, *map;
    wfb_format format;
    bool partial;
} import_args;

static int import_parse(int argc, char **argv, import_args *a)
{
    static const struct option longopts[] = {CLI_STANDARD_OPTIONS,
                                              {"from", required_argument, NULL, CLI_OWN},
                                              {"output", required_argument, NULL, 'o'},
                                              {"partial", no_argument, NULL, CLI_PARTIAL},
                                              CLI_EVENT_MAP_OPTIONS,
                                              {NULL, 0, NULL, 0}};
    memset(a, 0, sizeof *a);
    cli_parser p;
    cli_begin(&p, "import", argc, argv);
    for (int c; (c = cli_next(&p, "ho:", longopts)) != -1;) {
        switch (c) {
        case 'h':
            import_usage(stdout);
            return 1;
        case CLI_VERSION:
            cli_version();
            return 1;
        case 'o':
            a->output = optarg;
            break;
        case CLI_PARTIAL:
            a->partial = true;
            break;
        case CLI_EVENT_MAP:
        case CLI_EVENT_MAP_OLD:
            a->map = cli_event_map(&p, c);
            break;
        case CLI_OWN:
            if ((a->format = wfb_format_parse(optarg)) == WFB_FORMAT_UNKNOWN ||
                a->format == WFB_FORMAT_LPEL_TRACE)
                return cli_usage_error(&p, "--from must be wfcommons, bp or jsonl");
            break;
        default:
            return 2;
        }
    }
    if (cli_npositional(&p) > 1)
        return cli_usage_error(&p, "more than one FILE");
    a->input = cli_npositional(&p) ? cli_positional(&p)[0] : NULL;
    if (!a->input || !a->output || a->format == WFB_FORMAT_UNKNOWN) {
        import_usage(stderr);
        return 2;
    }
    return 0;
}

int snetmon_cmd_import(int argc, char **argv)
{
    import_args a;
    int rc = import_parse(argc, argv, &a);
    if (rc)
        return rc == 1 ? 0 : 2;
    wfb_graph *g = input_load_graph("import", a.input, a.format, a.map, a.partial, NULL, 0);
    if (!g)
        return 1;
    const wfb_input_loss *loss = wfb_graph_input_loss(g);
    if (loss) {
        char what[256];
        wfb_input_loss_summary(loss, what, sizeof what);
        fprintf(stderr, "snetmon import: warning: partial input: %s (%s)\n", what,
                loss->n_logs ? loss->logs[0].message : "?");
    }
    out_file of;
    FILE *out = out_file_open(&of, "import", a.output);
    if (!out) {
        wfb_graph_free(g);
        return 1;
    }
    rc = wfb_write_jsonl(g, out);
    /* A write that failed is reported by out_file_finish. */
    if (out_file_finish(&of, rc == 0) != 0)
        rc = -1;
    else if (rc)
        fprintf(stderr, "snetmon import: error writing %s\n", a.output);
    wfb_graph_free(g);
    return rc ? 1 : 0;
}
