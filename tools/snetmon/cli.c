/*
 * cli.c - the option helpers every snetmon subcommand uses (cli.h): one
 * wording for usage errors, one --version, one rule for --json/--csv.
 */
#include "cli.h"

#include <snet_version.h>

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void cli_begin(cli_parser *p, const char *cmd, int argc, char **argv)
{
    p->cmd = cmd;
    p->argc = argc;
    p->argv = argv;
    p->format_given = false;
    optind = 0; /* GNU: full reinitialisation, also of the scan state */
    opterr = 0; /* the messages are ours */
}

int cli_next(cli_parser *p, const char *shortopts, const struct option *longopts)
{
    /* A leading ':' makes a missing value ':' instead of '?'. */
    char opts[64];
    snprintf(opts, sizeof opts, ":%s", shortopts);
    int at = optind ? optind : 1;
    int c = getopt_long(p->argc, p->argv, opts, longopts, NULL);
    if (c != '?' && c != ':')
        return c;
    /* The offending element: where the scan was (optind has moved past a
     * whole word, not past one letter of a cluster). */
    const char *word = at < p->argc ? p->argv[at] : "";
    if (optind > at && optind - 1 < p->argc)
        word = p->argv[optind - 1];
    char shortname[3] = {'-', (char)optopt, '\0'};
    bool long_word = word[0] == '-' && word[1] == '-';
    const char *name = !long_word && optopt && optopt < 0x100 ? shortname : word;
    if (c == ':')
        fprintf(stderr, "snetmon %s: option '%s' needs a value\n", p->cmd, name);
    else
        fprintf(stderr, "snetmon %s: unknown option '%s'\n", p->cmd, name);
    return CLI_ERROR;
}

int cli_version(void)
{
    snet_version_print(stdout, "snetmon");
    return 0;
}

int cli_usage_error(const cli_parser *p, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "snetmon %s: ", p->cmd);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return 2;
}

int cli_format(cli_parser *p, int c, wfb_output *fmt)
{
    wfb_output want = c == CLI_JSON ? WFB_OUT_JSON : WFB_OUT_CSV;
    if (p->format_given && *fmt != want)
        return cli_usage_error(p, "--json and --csv exclude each other");
    p->format_given = true;
    *fmt = want;
    return 0;
}

int cli_npositional(const cli_parser *p) { return p->argc - optind; }

char **cli_positional(const cli_parser *p) { return p->argv + optind; }

void cli_deprecated(const cli_parser *p, const char *old, const char *now)
{
    fprintf(stderr, "snetmon %s: warning: %s is deprecated, use %s\n", p->cmd, old, now);
}
