/*
 * app_main.c - the main() the four applications share (see app_main.h), so
 * that each app's own file holds only its network, options and check.
 */
#include "app_main.h"

#include <errno.h>
#include <limits.h>
#include <mon.h>
#include <stdio.h>
#include <stdlib.h>

int app_main(const char *prog, int argc, char **argv, void *app, app_parse_fn parse,
             app_run_fn run)
{
    mon_options mo;
    char err[512];
    if (mon_parse_args(&argc, argv, &mo, err, sizeof err) != 0) {
        fprintf(stderr, "%s: %s\n", prog, err);
        return 2;
    }
    int parsed = parse(argc, argv, app);
    if (parsed != 0)
        return parsed > 0 ? 0 : 2;
    mon *m = NULL;
    lpel_hooks hooks;
    if (mon_open(&m, &mo, argc, argv, &hooks, err, sizeof err) != 0) {
        fprintf(stderr, "%s: %s\n", prog, err);
        return 1;
    }
    int status = run(app, mon_lpel_hooks(m));
    if (mon_close(m) != 0 && status == 0)
        status = 1;
    return status;
}

int app_parse_long(const char *prog, const char *flag, const char *value, long min, long max,
                   long *out)
{
    char *end;
    errno = 0;
    long n = value ? strtol(value, &end, 10) : 0;
    if (!value || errno || *end || n < min || n > max) {
        if (max == LONG_MAX)
            fprintf(stderr, "%s: %s expects a whole number >= %ld, got '%s'\n", prog, flag, min,
                    value ? value : "(nothing)");
        else
            fprintf(stderr, "%s: %s expects a whole number from %ld to %ld, got '%s'\n", prog,
                    flag, min, max, value ? value : "(nothing)");
        return -1;
    }
    *out = n;
    return 0;
}
