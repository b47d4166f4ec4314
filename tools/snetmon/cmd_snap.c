/*
 * cmd_snap.c - `snetmon snap DIR`: ask a running flight recorder (a program
 * run with --mon-ring SIZE --mon-dir DIR) to write the window it holds as a
 * trace, DIR/snapshot-K, and print that directory, which every snetmon
 * command reads. The request goes through the monitor's control channel
 * (mon_control_request); SIGUSR1 to the program does the same.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "mon_reader.h"

const char snetmon_summary_snap[] = "write a running flight recorder's window as a trace";

static void snap_usage(FILE *out)
{
    fprintf(out,
            "usage: snetmon snap DIR\n\n"
            "Asks the program running now with --mon-ring SIZE --mon-dir DIR (its flight\n"
            "recorder) to write the window it holds, the last SIZE bytes of each worker's\n"
            "log, as a trace: DIR/snapshot-K (K counts from 1). Prints that directory once\n"
            "it is complete; every snetmon command reads it, taking what came before the\n"
            "window as not recorded (not as loss). Exits 1 when no program runs with DIR\n"
            "or it keeps no flight recorder. SIGUSR1 to the program asks the same.\n\n"
            "options:\n"
            "  -h, --help        this text\n"
            "  --version         the version and git revision\n\n"
            "examples:\n"
            "  snetmon snap trace     while PROGRAM -m A --mon-ring 4M --mon-dir trace runs\n");
}

int snetmon_cmd_snap(int argc, char **argv)
{
    static const struct option longopts[] = {CLI_STANDARD_OPTIONS, {NULL, 0, NULL, 0}};
    cli_parser p;
    cli_begin(&p, "snap", argc, argv);
    for (int c; (c = cli_next(&p, "h", longopts)) != -1;) {
        switch (c) {
        case 'h': snap_usage(stdout); return 0;
        case CLI_VERSION: cli_version(); return 0;
        default: return 2;
        }
    }
    int n = cli_npositional(&p);
    if (n != 1) {
        if (n > 1)
            return cli_usage_error(&p, "one trace directory, not '%s' as well",
                                   cli_positional(&p)[1]);
        snap_usage(stderr);
        return 2;
    }
    const char *dir = cli_positional(&p)[0];
    char reply[4608], err[4608];
    if (mon_control_request(dir, "snap", reply, sizeof reply, err, sizeof err) != 0) {
        fprintf(stderr, "snetmon snap: %s\n", err);
        return 1;
    }
    if (strncmp(reply, "ok ", 3) != 0) {
        fprintf(stderr, "snetmon snap: %s: %s\n", dir, reply);
        return 1;
    }
    printf("%s\n", reply + 3);
    return 0;
}
