/*
 * cmd_dump.c - `snetmon dump DIR`: print every event of a trace, one line
 * each, in time order.
 *
 * The readable view of a trace, and the count that tests compare with what
 * babeltrace2 prints for the same directory (one line per event).
 *
 * A message_written line also names the message's parents: the messages
 * its task read since its last component_begin (ARCHITECTURE.md, MIG). The
 * trace records reads and writes, not the relation, so it is derived here
 * with a small table of open component executions per task.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "out_file.h"
#include "trace_input.h"

const char snetmon_summary_dump[] = "print every event of a trace directory, one line each";

static void dump_usage(FILE *out)
{
    fprintf(out, "usage: snetmon dump [--count] [--partial] DIR\n\n"
                 "Prints the events of the LPEL monitor trace in DIR merged in time order, one line\n"
                 "per event: <time ns> w<worker> <event> field=value ...\n"
                 "A message_written line ends with parents=ID,... (the messages its task read\n"
                 "in the same component execution) or parents=none (a record from outside).\n"
                 "Exits 1 with a one-line message (file and byte offset) if a log is corrupt,\n"
                 "truncated or incomplete; the events before that point are printed. A trace\n"
                 "whose run did not finish, or holding files the run did not write, is\n"
                 "refused before any event is printed.\n"
                 "With --partial every readable event is printed, then the loss as lines\n"
                 "starting with '# '.\n"
                 "DIR may be a multi-rank trace (DIR/rank-R/, one per MPI rank): its events are\n"
                 "merged on rank 0's clock, workers shown as r<rank>.w<worker>, message ids of\n"
                 "rank R > 0 as R:W.S, and the clock alignment follows as '# ' lines.\n"
                 "  --count          print only the number of events (reads the whole trace)\n"
                 TRACE_INPUT_HELP
                 "  -h, --help       this text\n"
                 "  --version        the version and git revision\n"
                 "\n"
                 "examples:\n"
                 "  snetmon dump trace > trace.txt\n"
                 "  snetmon dump --count trace\n");
}

/* The reads of one task's open component execution, in a mon_key_table by
 * mon_run_key of the task (task ids restart with each run). */
typedef struct open_execution {
    uint64_t *reads;
    size_t n, cap;
    bool open;
} open_execution;

static void execution_release(void *value)
{
    open_execution *e = value;
    free(e->reads);
}

static void print_msg_id(uint64_t id)
{
    char buf[48];
    fputs(mon_msg_id_format(id, buf, sizeof buf), stdout);
}

/* Track component executions; print the parents of a written message.
 * Returns -1 when out of memory. */
static int note_message_event(mon_key_table *tb, const mon_event *ev, bool print)
{
    if (ev->kind != MON_EV_COMPONENT_BEGIN && ev->kind != MON_EV_COMPONENT_END &&
        ev->kind != MON_EV_MESSAGE_READ && ev->kind != MON_EV_MESSAGE_WRITTEN)
        return 0;
    open_execution *e = mon_key_table_get(tb, mon_run_key(ev, ev->task));
    if (!e)
        return -1;
    if (ev->kind == MON_EV_COMPONENT_BEGIN || ev->kind == MON_EV_COMPONENT_END) {
        e->n = 0;
        e->open = ev->kind == MON_EV_COMPONENT_BEGIN;
    } else if (ev->kind == MON_EV_MESSAGE_READ) {
        if (e->n == e->cap) {
            size_t cap = e->cap ? e->cap * 2 : 4;
            uint64_t *reads = realloc(e->reads, cap * sizeof *reads);
            if (!reads)
                return -1;
            e->reads = reads;
            e->cap = cap;
        }
        e->reads[e->n++] = ev->msg;
    } else if (print) {
        fputs(e->open && e->n ? " parents=" : " parents=none", stdout);
        for (size_t i = 0; e->open && i < e->n; i++) {
            if (i)
                putchar(',');
            print_msg_id(e->reads[i]);
        }
    }
    return 0;
}

/* With --partial, the loss as "# " lines after the events. */
static void print_loss(const wfb_input_loss *loss)
{
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    if (!mem)
        return;
    wfb_report_input_loss(loss, WFB_OUT_TEXT, mem);
    fclose(mem);
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n"))
        printf("# %s\n", line);
    free(text);
}

/* Prints the trace; 0, or 1 when it could not be read. */
static int dump_trace(trace_input *in, bool count_only)
{
    mon_event ev;
    char line[512];
    int rc;
    unsigned long long n = 0;
    mon_key_table executions;
    mon_key_table_init(&executions, sizeof(open_execution));
    while ((rc = trace_input_next(in, &ev)) == 1) {
        n++;
        if (count_only)
            continue;
        int len = mon_event_format(&ev, line, sizeof line);
        fwrite(line, 1, len < (int)sizeof line ? (size_t)len : sizeof line - 1, stdout);
        if (note_message_event(&executions, &ev, true) != 0) {
            fprintf(stderr, "snetmon dump: out of memory tracking component executions\n");
            rc = -1;
            break;
        }
        putchar('\n');
    }
    mon_key_table_free(&executions, execution_release);
    if (rc != 0)
        return 1;
    if (count_only)
        printf("%llu\n", n);
    if (trace_input_loss(in))
        print_loss(trace_input_loss(in));
    if (!count_only && trace_input_report_alignment(in, stdout, "# ") != 0) {
        fprintf(stderr, "snetmon dump: out of memory\n");
        return 1;
    }
    return 0;
}

int snetmon_cmd_dump(int argc, char **argv)
{
    enum { OPT_COUNT = CLI_OWN };
    static const struct option longopts[] = {CLI_STANDARD_OPTIONS,
                                              {"count", no_argument, NULL, OPT_COUNT},
                                              {"partial", no_argument, NULL, CLI_PARTIAL},
                                              {NULL, 0, NULL, 0}};
    bool count_only = false, partial = false;
    cli_parser p;
    cli_begin(&p, "dump", argc, argv);
    for (int c; (c = cli_next(&p, "h", longopts)) != -1;) {
        switch (c) {
        case 'h':
            dump_usage(stdout);
            return 0;
        case CLI_VERSION:
            return cli_version();
        case OPT_COUNT:
            count_only = true;
            break;
        case CLI_PARTIAL:
            partial = true;
            break;
        default:
            return 2;
        }
    }
    if (cli_npositional(&p) > 1)
        return cli_usage_error(&p, "unexpected argument '%s' (see 'snetmon dump --help')",
                               cli_positional(&p)[1]);
    if (cli_npositional(&p) == 0) {
        dump_usage(stderr);
        return 2;
    }
    const char *dir = cli_positional(&p)[0];
    trace_input *in = trace_input_open("dump", dir, partial);
    if (!in)
        return 1;
    int rc = dump_trace(in, count_only);
    trace_input_close(in);
    if (out_stream_check("dump", stdout, "-") != 0)
        return 1;
    return rc;
}
