/*
 * cmd_export.c - `snetmon export`: a trace for the viewers people already
 * use.
 *
 *   --chrome TRACE -o trace.json   Chrome Trace Event Format JSON, which the
 *       Perfetto UI and chrome://tracing open: one track per worker, one
 *       slice per task execution period (dispatch to block, yield or
 *       destroy) named by the task's kind, waiting periods of the worker,
 *       and a flow arrow from each message's write to its read.
 *   --otf2 TRACE -o DIR            an OTF2 archive for Vampir and the
 *       Score-P tools (export_otf2.c).
 *
 * Both read the trace twice through trace_input: first to pair every
 * message's write with its read (msg_pairs.h), then to write. A message
 * written but never read (the network's output) or read but never written
 * (input from outside) has no arrow; how many of each there are goes into
 * the output ("otherData" here), so nothing is left out silently.
 *
 * With --partial, what could not be read goes into "otherData":
 * {"input_loss": {...}} (the object of docs/EVENTS.md).
 *
 * Why complete ("X") events written at the end of each period: the slice's
 * length is known only then, and X events need no matching begin/end pairs
 * that a crash-truncated trace could break.
 *
 * Colours: Perfetto colours a slice by a hash of its name and ignores any
 * colour given in the trace, so slices are named by task kind (the full
 * task name is in args): every replica of a kind gets one colour there.
 * chrome://tracing honours "cname", one of its reserved colour names, which
 * is chosen from the kind's name alone, so a kind keeps its colour from one
 * export to the next.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <dirent.h>

#include "cli.h"
#include "export_otf2.h"
#include "msg_pairs.h"
#include "out_file.h"
#include "trace_input.h"
#include "viz.h"

const char snetmon_summary_export[] =
    "export a trace for other viewers (--chrome: JSON for Perfetto; --otf2: Vampir, Score-P)";

/* Per task: its name and when its current period started (in a mon_key_table). */
typedef struct export_task {
    uint64_t dispatched;
    bool running;
    char *name;
} export_task;

/* Tasks are keyed by run and id: task ids restart with each run. */
static uint64_t task_key(const mon_event *e)
{
    return mon_run_key(e, e->task);
}

static void task_release(void *value)
{
    export_task *t = value;
    free(t->name);
}

static void json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

typedef struct exporter {
    FILE *out;
    mon_key_table tasks;
    msg_pairs *pairs;
    uint64_t t0;      /* time of the first event: the JSON starts at 0 */
    bool have_t0;
    bool first;       /* no comma before the first JSON event */
    uint64_t *wait_since; /* per worker index, 0 = not waiting */
    unsigned nworkers;
} exporter;

static double us(const exporter *x, uint64_t ns) { return (double)(ns - x->t0) / 1000.0; }

static void begin_event(exporter *x)
{
    fputs(x->first ? "\n  " : ",\n  ", x->out);
    x->first = false;
}

/* chrome://tracing's reserved colour names, those far from grey (which
 * means waiting, as in the utilisation image) and from each other. */
static const char *const kind_cnames[] = {
    "thread_state_running", "thread_state_runnable", "thread_state_iowait",
    "thread_state_uninterruptible", "rail_response", "rail_animation", "rail_idle",
    "rail_load", "startup", "good", "bad", "terrible", "yellow", "olive", "generic_work",
};

/* The same name gives the same colour in every export (FNV-1a). */
static const char *kind_cname(const char *kind)
{
    uint32_t h = 2166136261u;
    for (const char *c = kind; *c; c++)
        h = (h ^ (unsigned char)*c) * 16777619u;
    return kind_cnames[h % (sizeof kind_cnames / sizeof kind_cnames[0])];
}

static void task_slice(exporter *x, const mon_event *e, const char *name, uint64_t from,
                       const char *ended)
{
    const char *kind = mon_task_kind(name);
    begin_event(x);
    fprintf(x->out, "{\"ph\":\"X\",\"pid\":1,\"tid\":%u,\"ts\":%.3f,\"dur\":%.3f,\"cat\":\"task\",\"name\":",
            e->worker, us(x, from), (double)(e->time - from) / 1000.0);
    json_string(x->out, kind);
    fprintf(x->out, ",\"cname\":\"%s\",\"args\":{\"task\":%" PRIu64 ",\"task_name\":", kind_cname(kind),
            e->task);
    json_string(x->out, name);
    fprintf(x->out, ",\"run\":%" PRIu32 ",\"ended_by\":\"%s\"}}", e->run, ended);
}

static void wait_slice(exporter *x, unsigned worker, uint64_t from, uint64_t to)
{
    begin_event(x);
    fprintf(x->out,
            "{\"ph\":\"X\",\"pid\":1,\"tid\":%u,\"ts\":%.3f,\"dur\":%.3f,\"cat\":\"worker\","
            "\"name\":\"wait\",\"cname\":\"grey\"}",
            worker, us(x, from), (double)(to - from) / 1000.0);
}

/* Both ends of a message's arrow, written at its first write: the start
 * binds to the writer's enclosing slice, the end ("bp":"e") to the
 * reader's. Flow ids are 1, 2, ... per paired message, so every id has
 * exactly one start and one end, also across runs whose message ids
 * repeat. */
static void message_flow(exporter *x, const msg_pair *m)
{
    begin_event(x);
    fprintf(x->out,
            "{\"ph\":\"s\",\"pid\":1,\"tid\":%u,\"ts\":%.3f,\"cat\":\"msg\",\"name\":\"message\","
            "\"id\":%" PRIu64 ",\"args\":{\"msg\":\"0x%" PRIx64 "\",\"run\":%" PRIu32 "}}",
            m->writer, us(x, m->write_time), m->flow, m->msg, m->run);
    begin_event(x);
    fprintf(x->out,
            "{\"ph\":\"f\",\"bp\":\"e\",\"pid\":1,\"tid\":%u,\"ts\":%.3f,\"cat\":\"msg\","
            "\"name\":\"message\",\"id\":%" PRIu64 "}",
            m->reader, us(x, m->read_time > m->write_time ? m->read_time : m->write_time), m->flow);
}

static void end_period(exporter *x, const mon_event *e, const char *ended)
{
    export_task *t = mon_key_table_get(&x->tasks, task_key(e));
    if (!t || !t->running)
        return;
    char fallback[32];
    snprintf(fallback, sizeof fallback, "task %" PRIu64, e->task);
    task_slice(x, e, t->name ? t->name : fallback, t->dispatched, ended);
    t->running = false;
}

static unsigned worker_index(exporter *x, unsigned worker)
{
    return worker < x->nworkers ? worker : x->nworkers - 1;
}

static void export_event(exporter *x, const mon_event *e)
{
    static const char *const causes[] = {"block input", "block output", "block any"};
    export_task *t;
    switch (e->kind) {
    case MON_EV_TASK_MAP:
        if ((t = mon_key_table_get(&x->tasks, task_key(e))) != NULL) {
            free(t->name);
            t->name = strdup(e->name);
        }
        break;
    case MON_EV_TASK_DISPATCH:
        if ((t = mon_key_table_get(&x->tasks, task_key(e))) != NULL) {
            t->dispatched = e->time;
            t->running = true;
        }
        break;
    case MON_EV_TASK_BLOCK:
        end_period(x, e, causes[e->cause <= 2 ? e->cause : 2]);
        break;
    case MON_EV_TASK_YIELD:
        end_period(x, e, "yield");
        break;
    case MON_EV_TASK_DESTROY:
        end_period(x, e, "destroy");
        break;
    case MON_EV_WORKER_WAIT:
        x->wait_since[worker_index(x, e->worker)] = e->time ? e->time : 1;
        break;
    case MON_EV_WORKER_RESUME: {
        uint64_t *since = &x->wait_since[worker_index(x, e->worker)];
        if (*since)
            wait_slice(x, e->worker, *since, e->time);
        *since = 0;
        break;
    }
    case MON_EV_MESSAGE_WRITTEN: {
        const msg_pair *m = msg_pairs_first(x->pairs, e);
        if (m)
            message_flow(x, m);
        break;
    }
    default:
        break;
    }
}

static void track_names(exporter *x, const mon_trace *t)
{
    begin_event(x);
    fputs("{\"ph\":\"M\",\"pid\":1,\"name\":\"process_name\",\"args\":{\"name\":\"LPEL\"}}", x->out);
    for (unsigned i = 0; i < mon_trace_num_workers(t); i++) {
        unsigned w = mon_trace_worker_id(t, i);
        char label[32], name[64];
        if (mon_trace_num_ranks(t) > 1) /* a multi-rank trace: which rank's worker */
            snprintf(name, sizeof name, "worker %u (%s)", w,
                     mon_trace_worker_label(t, w, label, sizeof label));
        else
            snprintf(name, sizeof name, "worker %u", w);
        begin_event(x);
        fprintf(x->out,
                "{\"ph\":\"M\",\"pid\":1,\"tid\":%u,\"name\":\"thread_name\","
                "\"args\":{\"name\":\"%s\"}}",
                w, name);
    }
}

static void export_usage(FILE *out)
{
    fprintf(out, "usage: snetmon export --chrome [--partial] TRACE [-o FILE]\n"
                 "       snetmon export --otf2 [--partial] TRACE -o DIR\n\n"
                 "--chrome writes the LPEL monitor trace TRACE as Chrome Trace Event Format JSON\n"
                 "(open it in ui.perfetto.dev or chrome://tracing): a track per worker, a slice\n"
                 "per task execution period (dispatch to block/yield/destroy; needs the T flag)\n"
                 "named by the task's kind, worker waiting periods (W), and a flow arrow from\n"
                 "each message's write to its read (M).\n"
                 "--otf2 writes an OTF2 archive DIR/traces.otf2 (open it in Vampir, or read it\n"
                 "with otf2-print): a location per worker, a region per task kind entered and\n"
                 "left at each execution period, a \"waiting\" region for the worker's waits,\n"
                 "and each message as a send on the writer's worker and a receive on the\n"
                 "reader's; times in ns on the trace clock, with its wall-clock offset.\n"
                 "Messages written but never read (output) or read but never written (input)\n"
                 "have no arrow; their numbers are in the output.\n"
                 "  -o, --output F   output: FILE (--chrome; default standard output) or DIR\n"
                 "                   (--otf2: created, or empty); it appears only when the\n"
                 "                   export succeeded\n"
                 TRACE_INPUT_HELP
                 "                   (in \"otherData\": {\"input_loss\": ...}; OTF2: on stderr)\n"
                 "  -h, --help       this text\n"
                 "  --version        the version and git revision\n");
}

static void message_counts(exporter *x)
{
    const msg_pair_counts *c = msg_pairs_counts(x->pairs);
    fprintf(x->out,
            "\"messages\":{\"flows\":%" PRIu64 ",\"written_unread\":%" PRIu64
            ",\"read_unwritten\":%" PRIu64 ",\"repeated\":%" PRIu64 "}",
            c->paired, c->written_unread, c->read_unwritten, c->repeated);
}

/* Stream the trace (second pass) into x; returns the exit code. */
static int export_trace(trace_input *in, exporter *x)
{
    fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[", x->out);
    track_names(x, trace_input_trace(in));
    mon_event ev;
    int rc;
    while ((rc = trace_input_next(in, &ev)) == 1) {
        if (!x->have_t0) {
            x->t0 = ev.time;
            x->have_t0 = true;
        }
        export_event(x, &ev);
    }
    if (rc != 0)
        return 1;
    fputs("\n],\"otherData\":{", x->out);
    if (trace_input_loss(in)) {
        fputs("\"input_loss\":", x->out);
        wfb_report_input_loss(trace_input_loss(in), WFB_OUT_JSON, x->out);
        fputc(',', x->out);
    }
    message_counts(x);
    fputs("}}\n", x->out);
    return 0;
}

static int export_chrome(trace_input *in, msg_pairs *pairs, const char *out_path)
{
    exporter x;
    memset(&x, 0, sizeof x);
    mon_key_table_init(&x.tasks, sizeof(export_task));
    x.first = true;
    x.nworkers = 1;
    x.pairs = pairs;
    const mon_trace *t = trace_input_trace(in);
    for (unsigned i = 0; i < mon_trace_num_workers(t); i++)
        if (mon_trace_worker_id(t, i) + 1 > x.nworkers)
            x.nworkers = mon_trace_worker_id(t, i) + 1;
    x.wait_since = calloc(x.nworkers, sizeof *x.wait_since);
    out_file of;
    int rc = 1;
    if (!x.wait_since)
        fprintf(stderr, "snetmon export: out of memory\n");
    else if ((x.out = out_file_open(&of, "export", out_path)) != NULL) {
        rc = export_trace(in, &x);
        if (out_file_finish(&of, rc == 0) != 0)
            rc = 1;
    }
    free(x.wait_since);
    mon_key_table_free(&x.tasks, task_release);
    return rc;
}

/* The archive's directory must be new or empty: an older archive's
 * per-location directory could not be replaced as a whole. */
static bool usable_dir(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return true;
    DIR *d = S_ISDIR(st.st_mode) ? opendir(path) : NULL;
    bool empty = d != NULL;
    struct dirent *de;
    while (d && (de = readdir(d)) != NULL)
        if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
            empty = false;
    if (d)
        closedir(d);
    if (!empty)
        fprintf(stderr, "snetmon export: %s: %s; give a new or empty directory\n", path,
                S_ISDIR(st.st_mode) ? "exists and is not empty" : "exists and is not a directory");
    return empty;
}

static int export_to_otf2(trace_input *in, msg_pairs *pairs, const char *path)
{
    if (!usable_dir(path))
        return 1;
    out_dir od;
    if (out_dir_open(&od, "export", path) != 0)
        return 1;
    export_otf2_summary sum;
    int rc = export_otf2(in, pairs, od.tmp, "export", &sum);
    if (out_dir_finish(&od, rc == 0) != 0)
        rc = 1;
    if (rc == 0) {
        const msg_pair_counts *c = msg_pairs_counts(pairs);
        printf("%s/traces.otf2: %u locations, %" PRIu64 " regions, %" PRIu64
               " execution periods, %" PRIu64 " waits, %" PRIu64 " messages (send and receive);"
               " not exported: %" PRIu64 " written never read, %" PRIu64 " read never written, %"
               PRIu64 " repeated\n",
               path, sum.locations, sum.regions, sum.periods, sum.waits, c->paired,
               c->written_unread, c->read_unwritten, c->repeated);
    }
    return rc;
}

int snetmon_cmd_export(int argc, char **argv)
{
    enum { OPT_CHROME = CLI_OWN, OPT_OTF2 };
    static const struct option longopts[] = {CLI_STANDARD_OPTIONS,
                                              {"chrome", no_argument, NULL, OPT_CHROME},
                                              {"otf2", no_argument, NULL, OPT_OTF2},
                                              {"partial", no_argument, NULL, CLI_PARTIAL},
                                              {"output", required_argument, NULL, 'o'},
                                              {NULL, 0, NULL, 0}};
    const char *out_path = NULL;
    bool chrome = false, otf2 = false, partial = false;
    cli_parser p;
    cli_begin(&p, "export", argc, argv);
    for (int c; (c = cli_next(&p, "ho:", longopts)) != -1;) {
        switch (c) {
        case 'h':
            export_usage(stdout);
            return 0;
        case CLI_VERSION:
            return cli_version();
        case OPT_CHROME:
            chrome = true;
            break;
        case OPT_OTF2:
            otf2 = true;
            break;
        case CLI_PARTIAL:
            partial = true;
            break;
        case 'o':
            out_path = optarg;
            break;
        default:
            return 2;
        }
    }
    const char *problem = NULL;
    if (chrome == otf2)
        problem = chrome ? "--chrome and --otf2 exclude each other"
                         : "say which format: --chrome or --otf2";
    else if (cli_npositional(&p) != 1)
        problem = cli_npositional(&p) == 0 ? "no trace directory given"
                                           : "more than one trace directory";
    else if (otf2 && (!out_path || !strcmp(out_path, "-")))
        problem = "--otf2 writes a directory: give it with -o DIR";
    if (problem)
        return cli_usage_error(&p, "%s (see 'snetmon export --help')", problem);
    trace_input *in = trace_input_open("export", cli_positional(&p)[0], partial);
    if (!in)
        return 1;
    msg_pairs *pairs = msg_pairs_scan(in, "export");
    int rc = 1;
    if (pairs && trace_input_rewind(in) == 0)
        rc = chrome ? export_chrome(in, pairs, out_path ? out_path : "-")
                    : export_to_otf2(in, pairs, out_path);
    msg_pairs_free(pairs);
    trace_input_close(in);
    return rc;
}
