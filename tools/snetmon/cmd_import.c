/*
 * cmd_import.c - `snetmon import`: converts a WfCommons instance, a NetLogger
 * log or a JSON Lines file into the bridge's JSON Lines events, so that all
 * workflow inputs can be kept and exchanged in one documented form.
 */
#include "out_file.h"
#include "trace_input.h"
#include "wfb.h"

#include <stdio.h>
#include <string.h>

const char snetmon_summary_import[] = "convert WfCommons / NetLogger / JSONL workflow events to JSONL";

static void import_usage(FILE *out)
{
    fprintf(out,
            "usage: snetmon import --from wfcommons|bp|jsonl FILE -o EVENTS.jsonl [--map FILE]\n\n"
            "Reads FILE, checks it (references, cycles) and writes the bridge's JSON Lines\n"
            "events (schema in docs/EVENTS.md). '-o -' writes to standard output; a file\n"
            "appears only when the import succeeded.\n\n"
            "options:\n"
            "  --from FORMAT  wfcommons | bp | jsonl (required)\n"
            "  -o FILE        output file (required)\n"
            "  --map FILE     NetLogger event mapping (default: Pegasus stampede)\n"
            "  -h, --help     this text\n");
}

typedef struct import_args {
    const char *input, *output, *map;
    wfb_format format;
} import_args;

static int import_parse(int argc, char **argv, import_args *a)
{
    memset(a, 0, sizeof *a);
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
            import_usage(stdout);
            return 1;
        } else if ((!strcmp(arg, "--from") || !strcmp(arg, "-o") || !strcmp(arg, "--map")) &&
                   i + 1 < argc) {
            const char *val = argv[++i];
            if (!strcmp(arg, "-o"))
                a->output = val;
            else if (!strcmp(arg, "--map"))
                a->map = val;
            else if ((a->format = wfb_format_parse(val)) == WFB_FORMAT_UNKNOWN ||
                     a->format == WFB_FORMAT_LPEL_TRACE) {
                fprintf(stderr, "snetmon import: --from must be wfcommons, bp or jsonl\n");
                return 2;
            }
        } else if (arg[0] == '-' && arg[1]) {
            fprintf(stderr, "snetmon import: unknown or incomplete option '%s'\n", arg);
            return 2;
        } else if (!a->input) {
            a->input = arg;
        } else {
            fprintf(stderr, "snetmon import: more than one FILE\n");
            return 2;
        }
    }
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
    wfb_graph *g = input_load_graph("import", a.input, a.format, a.map, false, NULL, 0);
    if (!g)
        return 1;
    out_file of;
    FILE *out = out_file_open(&of, "import", a.output);
    if (!out) {
        wfb_graph_free(g);
        return 1;
    }
    rc = wfb_write_jsonl(g, out);
    if (rc)
        fprintf(stderr, "snetmon import: error writing %s\n", a.output);
    if (out_file_finish(&of, rc == 0) != 0)
        rc = -1;
    wfb_graph_free(g);
    return rc ? 1 : 0;
}
