/*
 * cmd_ctl.c - `snetmon ctl DIR`: change what a running program records,
 * without restarting it: the event classes (-m's letters) and the tasks
 * (--mon-tasks), through the control channel of the monitor writing DIR
 * (mon_control_request, docs/LOGFORMAT.md section 10). Each worker applies
 * the change at its next task switch and marks it in its log
 * (monitor_control), so the analysis knows which stretch had which events.
 *
 * Why: on-line measurement tools (G-PM on OCM-G, LTTng's enable-event on a
 * running session) look at something else without a restart; a long run
 * should not have to choose everything it may want to see at its start.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "mon_reader.h"

const char snetmon_summary_ctl[] = "change what a running program records (classes, tasks)";

static void ctl_usage(FILE *out)
{
    fprintf(out,
            "usage: snetmon ctl [--classes LETTERS] [--tasks RE | --all-tasks] DIR\n\n"
            "Changes what the program running now with trace directory DIR (-m FLAGS\n"
            "--mon-dir DIR) records, while it runs. Each worker applies the change at\n"
            "its next task switch and marks it in its log (monitor_control), so that the\n"
            "analysis knows which stretch of the run had which events. Without options,\n"
            "prints what is recorded now. Prints the monitor's answer; exits 1 when no\n"
            "program runs with DIR or the monitor refuses the change.\n\n"
            "options:\n"
            "  --classes LETTERS  the event classes from now on: letters of mtWTSMLC\n"
            "                    (A = all), or +LETTERS / -LETTERS to add or remove\n"
            "                    some; t cannot change while the program runs\n"
            "  --tasks RE        monitor only the tasks whose name matches RE (pcre2)\n"
            "  --all-tasks       monitor every task again\n"
            "  -h, --help        this text\n"
            "  --version         the version and git revision\n"
            "\nThe control channel: docs/LOGFORMAT.md section 10. A flight recorder's\n"
            "window is written by 'snetmon snap DIR'.\n\n"
            "examples:\n"
            "  snetmon ctl --classes -T trace       while PROGRAM -m A --mon-dir trace runs\n"
            "  snetmon ctl --tasks 'mc\\.acc' trace\n");
}

typedef struct ctl_args {
    const char *dir, *classes, *tasks;
    bool all_tasks;
} ctl_args;

static int parse_args(int argc, char **argv, ctl_args *a)
{
    enum { OPT_CLASSES = CLI_OWN, OPT_TASKS, OPT_ALL_TASKS };
    static const struct option longopts[] = {CLI_STANDARD_OPTIONS,
                                             {"classes", required_argument, NULL, OPT_CLASSES},
                                             {"tasks", required_argument, NULL, OPT_TASKS},
                                             {"all-tasks", no_argument, NULL, OPT_ALL_TASKS},
                                             {NULL, 0, NULL, 0}};
    *a = (ctl_args){0};
    cli_parser p;
    cli_begin(&p, "ctl", argc, argv);
    for (int c; (c = cli_next(&p, "h", longopts)) != -1;) {
        switch (c) {
        case 'h': ctl_usage(stdout); return 1;
        case CLI_VERSION: cli_version(); return 1;
        case OPT_CLASSES: a->classes = optarg; break;
        case OPT_TASKS: a->tasks = optarg; break;
        case OPT_ALL_TASKS: a->all_tasks = true; break;
        default: return 2;
        }
    }
    if (a->tasks && a->all_tasks)
        return cli_usage_error(&p, "--tasks RE and --all-tasks together: give one");
    if (a->tasks && !*a->tasks)
        return cli_usage_error(&p, "--tasks needs a pattern (--all-tasks for every task)");
    int n = cli_npositional(&p);
    if (n != 1) {
        if (n > 1)
            return cli_usage_error(&p, "one trace directory, not '%s' as well",
                                   cli_positional(&p)[1]);
        ctl_usage(stderr);
        return 2;
    }
    a->dir = cli_positional(&p)[0];
    return 0;
}

/* One request; its answer printed. 0, or 1 on "error ..." or no answer. */
static int ask(const char *dir, const char *request)
{
    char reply[4608], err[4608];
    if (mon_control_request(dir, request, reply, sizeof reply, err, sizeof err) != 0) {
        fprintf(stderr, "snetmon ctl: %s\n", err);
        return 1;
    }
    if (strncmp(reply, "ok", 2) != 0) {
        fprintf(stderr, "snetmon ctl: %s: %s\n", dir, reply);
        return 1;
    }
    printf("%s\n", reply);
    return 0;
}

int snetmon_cmd_ctl(int argc, char **argv)
{
    ctl_args a;
    int rc = parse_args(argc, argv, &a);
    if (rc)
        return rc == 1 ? 0 : rc;
    char request[1100];
    if (a.classes) {
        snprintf(request, sizeof request, "classes %s", a.classes);
        if ((rc = ask(a.dir, request)) != 0)
            return rc;
    }
    if (a.tasks || a.all_tasks) {
        if (snprintf(request, sizeof request, "tasks %s", a.tasks ? a.tasks : "") >=
            (int)sizeof request) {
            fprintf(stderr, "snetmon ctl: --tasks: a pattern of at most 1000 bytes\n");
            return 2;
        }
        if ((rc = ask(a.dir, a.all_tasks ? "tasks" : request)) != 0)
            return rc;
    }
    return a.classes || a.tasks || a.all_tasks ? 0 : ask(a.dir, "status");
}
