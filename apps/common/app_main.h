/*
 * app_main.h - what every application's main() shares: the monitoring
 * options (-m, -o, --mon-tasks) cut out of argv, the app's own options
 * parsed, the monitor opened around the run and closed after it, and the
 * exit codes (0 success, 1 failure, 2 usage error).
 */
#ifndef APP_MAIN_H
#define APP_MAIN_H

#include <lpel.h>

/* Parse the app's own options into app: 0 ok, 1 help printed, -1 usage
 * error (message printed). */
typedef int (*app_parse_fn)(int argc, char **argv, void *app);

/* Run the app with these hooks (NULL when monitoring is off): the exit
 * status, 0 for success. */
typedef int (*app_run_fn)(void *app, const lpel_hooks *hooks);

int app_main(const char *prog, int argc, char **argv, void *app, app_parse_fn parse,
             app_run_fn run);

/* Parse value of option flag as a whole number in [min, max] into *out;
 * on error print "PROG: FLAG expects ..." and return -1. */
int app_parse_long(const char *prog, const char *flag, const char *value, long min, long max,
                   long *out);

#endif
