/*
 * prog_opt.h - option parsing for every program of the project (snetmon,
 * snetrun, the apps, lpel-demo, the benchmarks): getopt_long with one
 * wording for usage errors and one --version, so that no program has its
 * own argv loop and the same mistake reads the same everywhere.
 *
 *     static const struct option longopts[] = {
 *         PROG_OPT_STANDARD,                        // -h/--help, --version
 *         {"workers", required_argument, NULL, 'w'},
 *         {"json", no_argument, NULL, PROG_OPT_OWN + 0},
 *         {NULL, 0, NULL, 0}};
 *     prog_opt p;
 *     prog_opt_begin(&p, "lpel-demo", argc, argv);
 *     for (int c; (c = prog_opt_next(&p, "hw:", longopts)) != -1;)
 *         switch (c) {
 *         case 'h': usage(stdout); return 0;
 *         case PROG_OPT_VERSION: return prog_opt_version(&p);
 *         case 'w': ... optarg ...; break;
 *         default: return 2;           // PROG_OPT_ERROR: message printed
 *         }
 *     // positional arguments: argv[optind..argc-1], in any order with options
 *
 * Usage errors are one line on stderr, "PROG: unknown option 'X'" or
 * "PROG: option 'X' needs a value", and programs exit 2 on them. The
 * monitoring options (-m, -o, --mon-tasks, --mon-flush) are taken out of
 * argv before this runs, by mon_parse_args (mon.h), in every program that
 * has them.
 */
#ifndef PROG_OPT_H
#define PROG_OPT_H

#include <getopt.h>
#include <stdio.h>

enum {
    PROG_OPT_ERROR = '?',
    PROG_OPT_VERSION = 0x100,
    PROG_OPT_OWN = 0x200 /* a program's own long-only options: PROG_OPT_OWN + n */
};

#define PROG_OPT_STANDARD                                                      \
    {"help", no_argument, NULL, 'h'}, {"version", no_argument, NULL, PROG_OPT_VERSION}

typedef struct prog_opt {
    const char *prog; /* for messages: "lpel-demo", "snetmon render" */
    int argc;
    char **argv;
} prog_opt;

/* Start parsing argv (argv[0] is the program or subcommand). */
void prog_opt_begin(prog_opt *p, const char *prog, int argc, char **argv);

/* The next option as getopt_long returns it (optarg set), -1 after the
 * last, or PROG_OPT_ERROR after printing the one-line message. */
int prog_opt_next(prog_opt *p, const char *shortopts, const struct option *longopts);

/* Mode for programs that hand unknown options on (snetrun to a box
 * library's application): like prog_opt_next, but an unknown option
 * returns PROG_OPT_UNKNOWN without a message and sets *at to the index of
 * the argv element that holds it; non-options come back in order as 1
 * with optarg set (getopt's "-" mode). */
enum { PROG_OPT_UNKNOWN = 0x1ff };
int prog_opt_next_in_order(prog_opt *p, const char *shortopts, const struct option *longopts,
                           int *at);

/* Print "PROG VERSION (git REVISION)" (the program's name without a
 * subcommand); returns 0, the exit status. */
int prog_opt_version(const prog_opt *p);

/* An old spelling still accepted for one release (the table of flags in
 * tools/snetmon/cli.h): one line on standard error, "PROG: warning: OLD is
 * deprecated, use NEW". */
void prog_opt_deprecated(const prog_opt *p, const char *old, const char *now);

/* The positional arguments left after parsing. */
int prog_opt_npositional(const prog_opt *p);
char **prog_opt_positional(const prog_opt *p);

#endif
