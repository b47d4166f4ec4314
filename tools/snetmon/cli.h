/*
 * cli.h - the command-line conventions of every snetmon subcommand, and
 * the few helpers that make each of them one line. A new cmd_NAME.c parses
 * its options like this (getopt_long underneath; the positional arguments
 * are argv[optind..argc-1] afterwards, in any order with the options):
 *
 *     static const struct option longopts[] = {
 *         CLI_STANDARD_OPTIONS,                               // -h/--help, --version
 *         {"json", no_argument, NULL, CLI_JSON},
 *         {"csv", no_argument, NULL, CLI_CSV},
 *         {"partial", no_argument, NULL, CLI_PARTIAL},
 *         {"output", required_argument, NULL, 'o'},
 *         {"limit", required_argument, NULL, CLI_OWN + 0},   // own options from CLI_OWN
 *         {NULL, 0, NULL, 0}};
 *     cli_parser p;
 *     cli_begin(&p, "NAME", argc, argv);
 *     for (int c; (c = cli_next(&p, "ho:", longopts)) != -1;) {
 *         switch (c) {
 *         case 'h': usage(stdout); return 0;
 *         case CLI_VERSION: return cli_version();
 *         case 'o': out = optarg; break;
 *         case CLI_JSON: case CLI_CSV: if (cli_format(&p, c, &fmt)) return 2; break;
 *         ...
 *         default: return 2;      // CLI_ERROR: the one-line message is printed
 *         }
 *     }
 *
 * The flags: one meaning each, in every snetmon subcommand and every
 * program of the project (the apps, snetrun, lpel-demo, the benches). A
 * flag that more than one of them takes is in this table, and the
 * conventions test (tests/cli/subcommand_conventions_test.sh) reads it:
 * every long flag two --help texts share must be a row, and every old
 * spelling below must still work, with its one warning line.
 *
 *   flag                 meaning (where)
 *   -h, --help           usage on standard output, exit 0 (all)
 *   --version            "PROG VERSION (git REVISION)", exit 0 (all)
 *   -o, --output PATH    where the output goes: a file, written through
 *                        out_file.h (whole or not at all; "-" is standard
 *                        output where it makes sense), or a directory
 *                        (snetmon, viz-bench; snetrun's -O FILE: output
 *                        records). A directory is new, empty, or holds an
 *                        earlier output of the same command, which the new
 *                        one replaces whole (out_dir, out_file.h); a run
 *                        again with the same -o works
 *   --json, --csv        machine-readable output instead of text; giving
 *                        both is a usage error (snetmon, the benches)
 *   --partial            analyse a damaged, truncated or unfinished trace,
 *                        or an event file whose last line is cut short, as
 *                        far as it can be read, and say what was lost
 *                        (trace_input.h) (snetmon)
 *   --from FORMAT        the input's format, never a time (snetmon; render
 *                        takes a value that is a time as its old --from T,
 *                        with the warning, and --input-format as a synonym)
 *   --start T, --end T   a time window (render)
 *   --event-map FILE     a NetLogger event mapping of an input (snetmon)
 *   --map FILE           a task placement: net-path patterns to workers,
 *                        docs/MAPPING.md (the programs; advise writes one)
 *   --tasks RE           a pcre2 pattern selecting tasks by name (render;
 *                        whatif: the tasks of one question, --task too;
 *                        ctl: the tasks monitored from now on)
 *   --mon-tasks RE       ... the tasks to monitor (the programs)
 *   --mon-dir DIR        the trace directory (the programs)
 *   --mon-flush MS       how often the trace is made readable (the programs)
 *   --mon-ring SIZE      keep only the last SIZE bytes per worker: the flight
 *                        recorder (the programs; snap writes its window)
 *   --classes LETTERS    the event classes recorded from now on, mtWTSMLC or
 *                        +L / -L to add or remove (ctl)
 *   -m FLAGS             what to monitor, mtWTSMLC or A (the programs)
 *   -w, --workers N      workers (the programs, the benches)
 *   --inputs N           the number of input records: to make (the apps),
 *                        or to count (metrics, report)
 *   --check              verify every result, exit 1 if one is wrong (the
 *                        apps, snetrun)
 *   --paper              the paper's sizes (the apps)
 *   --scale BOX=F        box BOX does the fraction F of its work, to time
 *                        what a faster box gains (the apps, snetrun's)
 *   --top N              how many rows of a ranking to list (compare, top,
 *                        whatif)
 *   -n, --iterations N   snapshots before exiting (top)
 *   --rounds N           rounds of a program's loop: laps of the token
 *                        (lpel-bench ring), iterations of the colony (ant)
 *   --to FORMAT          the output's format (convert); render's --to T is
 *                        the old --end T
 *   --depth N            net-path components of a sub-graph (compare)
 *   --stages K           pipeline stages (lpel-demo, lpel-bench)
 *   --messages M         messages to pass (lpel-demo, the benches)
 *   --repeat R           runs to take the median of (the benches)
 *   --full               the sizes of the published figures for the sizes
 *                        not given; the defaults finish in seconds (the
 *                        benches)
 *   --db URL, --where K=V  the repository, a condition on its runs (store,
 *                        runs, compare)
 *   --series KEY         runs along one label (compare)
 *   --subgraph RE        activities matching RE (metrics, compare)
 *   --width N, --height N, --title T  a picture's size and title (render,
 *                        report)
 *   --no-collapse        draw every vertex of a repeated structure (render,
 *                        wcp)
 *   --timeout-pct P      the percentile of the latency timeout (metrics,
 *                        report)
 *   --mpi                run across the ranks of an MPI job (the apps)
 *   --max-memory SIZE    memory for what grows with the trace, the rest in
 *                        temporary files (metrics, wcp)
 *   --in-memory          the whole graph in memory, the reference analysis
 *                        (metrics, wcp)
 *
 * Old spellings, still accepted for one release with one line on standard
 * error, "PROG: warning: OLD is deprecated, use NEW" (where: old -> new):
 *
 *   metrics, wcp, compare, import, store: --map FILE -> --event-map FILE
 *   advise: --tasks -> --list-tasks
 *   top: --tasks N -> --top N
 *   render: --from T -> --start T
 *   render: --to T -> --end T
 *   ant, des, mc, rt, snetrun, lpel-demo, lpel-bench, snet-bench: -o DIR -> --mon-dir DIR
 *   ant: --iterations I -> --rounds I
 *   lpel-bench: --tasks K -> --ring-size K
 *   lpel-bench: --count N -> --creates N
 *   lpel-bench: --depth K -> --stages K
 *   viz-bench: --runs N -> --repeat N
 *   viz-bench: --out DIR -> --output DIR
 *
 * Usage errors are one line, "snetmon NAME: ...", and exit status 2. The
 * parsing itself is the project's one option parser, prog_opt.h
 * (prog_opt/), which every other program uses too.
 */
#ifndef SNETMON_CLI_H
#define SNETMON_CLI_H

#include <stdbool.h>

#include "prog_opt.h"
#include "wfb.h"

/* Values cli_next returns besides the short-option letters. */
enum {
    CLI_ERROR = PROG_OPT_ERROR, /* a usage error; the message has been printed */
    CLI_VERSION = PROG_OPT_VERSION,
    CLI_JSON,
    CLI_CSV,
    CLI_PARTIAL,
    CLI_EVENT_MAP,      /* --event-map FILE */
    CLI_EVENT_MAP_OLD,  /* its old spelling, --map FILE (deprecated) */
    CLI_MAX_MEMORY,     /* --max-memory SIZE */
    CLI_IN_MEMORY,      /* --in-memory */
    CLI_OWN = PROG_OPT_OWN /* a subcommand's own long options: CLI_OWN + n */
};

/* The NetLogger event mapping of an input (--event-map FILE), for the
 * subcommands that read event files; --map FILE said the same until it
 * came to mean a task placement everywhere (the table above). */
#define CLI_EVENT_MAP_OPTIONS                                                                  \
    {"event-map", required_argument, NULL, CLI_EVENT_MAP},                                     \
        {"map", required_argument, NULL, CLI_EVENT_MAP_OLD}
#define CLI_EVENT_MAP_HELP "  --event-map FILE NetLogger event mapping (default: Pegasus stampede)\n"

/* The memory of an analysis of a trace (input_load_graph_bounded): what
 * grows with the trace is held in caches of --max-memory SIZE in all and
 * goes to temporary files beyond; --in-memory builds the whole graph in
 * memory instead (the reference analysis, as before the bounded one). */
#define CLI_MEMORY_OPTIONS                                                                     \
    {"max-memory", required_argument, NULL, CLI_MAX_MEMORY},                                   \
        {"in-memory", no_argument, NULL, CLI_IN_MEMORY}
#define CLI_MEMORY_HELP                                                                        \
    "  --max-memory SIZE  memory for what grows with the trace (default 256M; K, M, G);\n"     \
    "                   the rest goes to temporary files in $TMPDIR\n"                          \
    "  --in-memory      the whole message graph in memory: the reference analysis\n"
/* The default of --max-memory. */
#define CLI_MAX_MEMORY_DEFAULT ((size_t)256 << 20)


#define CLI_STANDARD_OPTIONS PROG_OPT_STANDARD

typedef struct cli_parser {
    prog_opt opt;
    char name[48]; /* "snetmon NAME", for messages */
    bool format_given;
} cli_parser;

/* Start parsing argv (argv[0] = the subcommand's name). */
void cli_begin(cli_parser *p, const char *cmd, int argc, char **argv);

/* The next option as getopt_long returns it (optarg set), -1 after the
 * last, or CLI_ERROR after printing "snetmon CMD: unknown option 'X'" or
 * "snetmon CMD: option 'X' needs a value". */
int cli_next(cli_parser *p, const char *shortopts, const struct option *longopts);

/* Print the version line; returns 0 (the exit status). */
int cli_version(void);

/* A usage error: "snetmon CMD: MESSAGE" (printf-style); returns 2. */
int cli_usage_error(const cli_parser *p, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Record --json or --csv (c: CLI_JSON or CLI_CSV) in *fmt; a second,
 * different one is a usage error (returns 2 with the message), else 0. */
int cli_format(cli_parser *p, int c, wfb_output *fmt);

/* The positional arguments after parsing: how many, and the first. */
int cli_npositional(const cli_parser *p);
char **cli_positional(const cli_parser *p);

/* optarg, for c = CLI_EVENT_MAP, or CLI_EVENT_MAP_OLD after its warning. */
const char *cli_event_map(const cli_parser *p, int c);

/* Record --max-memory SIZE or --in-memory (c: CLI_MAX_MEMORY or
 * CLI_IN_MEMORY) in *bytes, 0 for --in-memory; a usage error returns 2
 * with the message, else 0. */
int cli_memory(const cli_parser *p, int c, size_t *bytes);

/* A deprecated spelling: warns "snetmon CMD: warning: OLD is deprecated,
 * use NEW" once per call. */
void cli_deprecated(const cli_parser *p, const char *old, const char *now);

#endif
