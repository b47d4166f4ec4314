/*
 * prog_opt.c - getopt_long with the project's messages (prog_opt.h).
 */
#include "prog_opt.h"

#include <snet_version.h>

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

void prog_opt_begin(prog_opt *p, const char *prog, int argc, char **argv)
{
    p->prog = prog;
    p->argc = argc;
    p->argv = argv;
    optind = 0; /* GNU: a full restart, scan state included */
    opterr = 0; /* the messages are ours */
}

/* The argv element an error is about: the word getopt has just passed, or
 * the one it is inside (a cluster of short options). */
static const char *offending(const prog_opt *p, int at)
{
    if (optind > at && optind - 1 < p->argc)
        return p->argv[optind - 1];
    return at < p->argc ? p->argv[at] : "";
}

static int next(prog_opt *p, const char *prefix, const char *shortopts,
                const struct option *longopts, int *at_out, bool quiet_unknown)
{
    /* ':' makes a missing value ':' instead of '?'. */
    char opts[96];
    snprintf(opts, sizeof opts, "%s:%s", prefix, shortopts);
    int at = optind ? optind : 1;
    int c = getopt_long(p->argc, p->argv, opts, longopts, NULL);
    if (c != '?' && c != ':')
        return c;
    const char *word = offending(p, at);
    if (c == '?' && quiet_unknown) {
        *at_out = optind > at ? optind - 1 : at;
        return PROG_OPT_UNKNOWN;
    }
    char letter[3] = {'-', (char)optopt, '\0'};
    bool long_word = word[0] == '-' && word[1] == '-';
    const char *name = !long_word && optopt > 0 && optopt < 0x100 ? letter : word;
    if (c == ':')
        fprintf(stderr, "%s: option '%s' needs a value\n", p->prog, name);
    else
        fprintf(stderr, "%s: unknown option '%s'\n", p->prog, name);
    return PROG_OPT_ERROR;
}

int prog_opt_next(prog_opt *p, const char *shortopts, const struct option *longopts)
{
    return next(p, "", shortopts, longopts, NULL, false);
}

int prog_opt_next_in_order(prog_opt *p, const char *shortopts, const struct option *longopts,
                           int *at)
{
    return next(p, "-", shortopts, longopts, at, true);
}

int prog_opt_version(const prog_opt *p)
{
    char name[64];
    snprintf(name, sizeof name, "%s", p->prog);
    name[strcspn(name, " ")] = '\0'; /* "snetmon render" -> "snetmon" */
    snet_version_print(stdout, name);
    return 0;
}

void prog_opt_deprecated(const prog_opt *p, const char *old, const char *now)
{
    fprintf(stderr, "%s: warning: %s is deprecated, use %s\n", p->prog, old, now);
}

int prog_opt_npositional(const prog_opt *p) { return p->argc - optind; }

char **prog_opt_positional(const prog_opt *p) { return p->argv + optind; }
