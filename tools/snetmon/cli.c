/*
 * cli.c - the option helpers every snetmon subcommand uses (cli.h): one
 * wording for usage errors (prog_opt), one --version, one rule for
 * --json/--csv.
 */
#include "cli.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

void cli_begin(cli_parser *p, const char *cmd, int argc, char **argv)
{
    snprintf(p->name, sizeof p->name, "snetmon %s", cmd);
    p->format_given = false;
    prog_opt_begin(&p->opt, p->name, argc, argv);
}

int cli_next(cli_parser *p, const char *shortopts, const struct option *longopts)
{
    return prog_opt_next(&p->opt, shortopts, longopts);
}

int cli_version(void)
{
    prog_opt snetmon = {"snetmon", 0, NULL};
    return prog_opt_version(&snetmon);
}

int cli_usage_error(const cli_parser *p, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s: ", p->name);
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

int cli_npositional(const cli_parser *p) { return prog_opt_npositional(&p->opt); }

char **cli_positional(const cli_parser *p) { return prog_opt_positional(&p->opt); }

const char *cli_event_map(const cli_parser *p, int c)
{
    if (c == CLI_EVENT_MAP_OLD)
        cli_deprecated(p, "--map FILE", "--event-map FILE");
    return optarg;
}

int cli_memory(const cli_parser *p, int c, size_t *bytes)
{
    if (c == CLI_IN_MEMORY) {
        *bytes = 0;
        return 0;
    }
    char *end;
    errno = 0;
    unsigned long long n = strtoull(optarg, &end, 10);
    unsigned shift = *end == 'K' || *end == 'k' ? 10 : *end == 'M' || *end == 'm' ? 20
                     : *end == 'G' || *end == 'g' ? 30 : 0;
    if (shift)
        end++;
    if (errno || end == optarg || *end || optarg[0] == '-' || n == 0 ||
        n > (SIZE_MAX >> shift))
        return cli_usage_error(p, "--max-memory needs a positive size (bytes, or with K, M or G), "
                                  "not '%s'", optarg);
    *bytes = (size_t)n << shift;
    return 0;
}

void cli_deprecated(const cli_parser *p, const char *old, const char *now)
{
    prog_opt_deprecated(&p->opt, old, now);
}
