/*
 * cmd_dump.c - `snetmon dump DIR`: print every event of a trace, one line
 * each, in time order.
 *
 * The readable view of a trace, and the count that tests compare with what
 * babeltrace2 prints for the same directory (one line per event).
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "mon_reader.h"

const char snetmon_summary_dump[] = "print every event of a trace directory, one line each";

static void dump_usage(FILE *out)
{
    fprintf(out, "usage: snetmon dump [--count] DIR\n\n"
                 "Prints the events of the LPEL monitor trace in DIR merged in time order, one line\n"
                 "per event: <time ns> w<worker> <event> field=value ...\n"
                 "Exits 1 with a one-line message (file and byte offset) if a log is corrupt or\n"
                 "truncated; the events before that point are printed.\n"
                 "  --count   print only the number of events (reads the whole trace)\n");
}

int snetmon_cmd_dump(int argc, char **argv)
{
    const char *dir = NULL;
    bool count_only = false;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            dump_usage(stdout);
            return 0;
        }
        if (!strcmp(argv[i], "--count")) {
            count_only = true;
            continue;
        }
        if (argv[i][0] == '-' || dir) {
            fprintf(stderr, "snetmon dump: unexpected argument '%s' (see 'snetmon dump --help')\n",
                    argv[i]);
            return 2;
        }
        dir = argv[i];
    }
    if (!dir) {
        dump_usage(stderr);
        return 2;
    }
    char err[4608];
    mon_trace *t;
    if (mon_trace_open(&t, dir, err, sizeof err) != 0) {
        fprintf(stderr, "snetmon dump: %s\n", err);
        return 1;
    }
    mon_event ev;
    char line[512];
    int rc;
    unsigned long long n = 0;
    while ((rc = mon_trace_next(t, &ev)) == MON_TRACE_EVENT) {
        n++;
        if (count_only)
            continue;
        mon_event_format(&ev, line, sizeof line);
        puts(line);
    }
    if (count_only)
        printf("%llu\n", n);
    if (rc != MON_TRACE_END)
        fprintf(stderr, "snetmon dump: %s\n", mon_trace_error(t));
    uint64_t lost = mon_trace_events_discarded(t);
    if (lost)
        fprintf(stderr, "snetmon dump: warning: the writer lost %llu events\n", (unsigned long long)lost);
    mon_trace_close(t);
    if (fflush(stdout) != 0)
        return 1;
    return rc == MON_TRACE_END ? 0 : 1;
}
