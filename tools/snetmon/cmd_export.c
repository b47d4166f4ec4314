/*
 * cmd_export.c - `snetmon export --chrome DIR -o trace.json`: a trace as
 * Chrome Trace Event Format JSON, which the Perfetto UI and chrome://tracing
 * open: one track per worker, one slice per task execution period (dispatch
 * to block, yield or destroy), waiting periods of the worker, and flow
 * arrows from each message-written to the message-read of the same id.
 *
 * With --partial, what could not be read goes into "otherData":
 * {"input_loss": {...}} (the object of docs/EVENTS.md).
 *
 * Why complete ("X") events written at the end of each period: the trace
 * is streamed once, the slice's length is known only then, and X events
 * need no matching begin/end pairs that a crash-truncated trace could break.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "out_file.h"
#include "trace_input.h"

const char snetmon_summary_export[] =
    "export a trace for other viewers (--chrome: Chrome Trace Event JSON for Perfetto)";

/* Per task: its name and when its current period started. */
typedef struct export_task {
    uint64_t id; /* 0: empty slot */
    uint64_t dispatched;
    bool running;
    char *name;
} export_task;

typedef struct task_table {
    export_task *slots;
    size_t cap, used;
} task_table;

static export_task *table_find(task_table *t, uint64_t id)
{
    if (t->used * 2 >= t->cap) {
        size_t ncap = t->cap ? t->cap * 2 : 256;
        export_task *n = calloc(ncap, sizeof *n);
        if (!n)
            return NULL;
        for (size_t i = 0; i < t->cap; i++) {
            if (!t->slots[i].id)
                continue;
            size_t j = t->slots[i].id & (ncap - 1);
            while (n[j].id)
                j = (j + 1) & (ncap - 1);
            n[j] = t->slots[i];
        }
        free(t->slots);
        t->slots = n;
        t->cap = ncap;
    }
    size_t j = id & (t->cap - 1);
    while (t->slots[j].id && t->slots[j].id != id)
        j = (j + 1) & (t->cap - 1);
    if (!t->slots[j].id) {
        t->slots[j].id = id;
        t->used++;
    }
    return &t->slots[j];
}

/* Tasks are keyed by run and id: task ids restart with each run. */
static uint64_t task_key(const mon_event *e)
{
    return mon_run_key(e, e->task);
}

static void table_free(task_table *t)
{
    for (size_t i = 0; i < t->cap; i++)
        free(t->slots[i].name);
    free(t->slots);
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
    task_table tasks;
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

static void slice(exporter *x, unsigned worker, const char *name, uint64_t task, uint64_t from,
                  uint64_t to, const char *ended)
{
    begin_event(x);
    fputs("{\"ph\":\"X\",\"pid\":1,\"tid\":", x->out);
    fprintf(x->out, "%u,\"ts\":%.3f,\"dur\":%.3f,\"cat\":\"%s\",\"name\":", worker, us(x, from),
            (double)(to - from) / 1000.0, task ? "task" : "worker");
    json_string(x->out, name);
    if (task)
        fprintf(x->out, ",\"args\":{\"task\":%" PRIu64 ",\"ended_by\":\"%s\"}", task, ended);
    fputc('}', x->out);
}

static void flow(exporter *x, const mon_event *e, bool start)
{
    begin_event(x);
    fprintf(x->out,
            "{\"ph\":\"%s\",\"pid\":1,\"tid\":%u,\"ts\":%.3f,\"cat\":\"msg\",\"name\":\"message\","
            "\"id\":\"0x%" PRIx64 "\"%s}",
            start ? "s" : "f", e->worker, us(x, e->time), e->msg, start ? "" : ",\"bp\":\"e\"");
}

static void end_period(exporter *x, const mon_event *e, const char *ended)
{
    export_task *t = table_find(&x->tasks, task_key(e));
    if (!t || !t->running)
        return;
    char fallback[32];
    snprintf(fallback, sizeof fallback, "task %" PRIu64, e->task);
    slice(x, e->worker, t->name ? t->name : fallback, e->task, t->dispatched, e->time, ended);
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
        if ((t = table_find(&x->tasks, task_key(e))) != NULL) {
            free(t->name);
            t->name = strdup(e->name);
        }
        break;
    case MON_EV_TASK_DISPATCH:
        if ((t = table_find(&x->tasks, task_key(e))) != NULL) {
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
            slice(x, e->worker, "wait", 0, *since, e->time, NULL);
        *since = 0;
        break;
    }
    case MON_EV_MESSAGE_WRITTEN:
        flow(x, e, true);
        break;
    case MON_EV_MESSAGE_READ:
        flow(x, e, false);
        break;
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
        begin_event(x);
        fprintf(x->out,
                "{\"ph\":\"M\",\"pid\":1,\"tid\":%u,\"name\":\"thread_name\","
                "\"args\":{\"name\":\"worker %u\"}}",
                w, w);
    }
}

static void export_usage(FILE *out)
{
    fprintf(out, "usage: snetmon export --chrome [--partial] DIR [-o FILE]\n\n"
                 "Writes the LPEL monitor trace in DIR as Chrome Trace Event Format JSON (open it\n"
                 "in ui.perfetto.dev or chrome://tracing): a track per worker, a slice per task\n"
                 "execution period (dispatch to block/yield/destroy; needs the T flag), worker\n"
                 "waiting periods (W), and flow arrows from message-written to message-read (M).\n"
                 "  -o FILE          output file (default: standard output); it appears only\n"
                 "                   when the export succeeded\n"
                 TRACE_INPUT_HELP
                 "                   (in \"otherData\": {\"input_loss\": ...})\n");
}

/* Stream the trace into x; returns the exit code. */
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
    fputs("\n]", x->out);
    if (trace_input_loss(in)) {
        fputs(",\"otherData\":{\"input_loss\":", x->out);
        wfb_report_input_loss(trace_input_loss(in), WFB_OUT_JSON, x->out);
        fputc('}', x->out);
    }
    fputs("}\n", x->out);
    return 0;
}

int snetmon_cmd_export(int argc, char **argv)
{
    const char *dir = NULL, *out_path = "-";
    bool chrome = false, partial = false;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            export_usage(stdout);
            return 0;
        } else if (!strcmp(argv[i], "--chrome")) {
            chrome = true;
        } else if (!strcmp(argv[i], "--partial")) {
            partial = true;
        } else if (!strcmp(argv[i], "-o") && i + 1 < argc) {
            out_path = argv[++i];
        } else if (argv[i][0] == '-' || dir) {
            fprintf(stderr, "snetmon export: unexpected argument '%s' (see 'snetmon export --help')\n",
                    argv[i]);
            return 2;
        } else {
            dir = argv[i];
        }
    }
    if (!chrome || !dir) {
        fprintf(stderr, "snetmon export: %s (see 'snetmon export --help')\n",
                !chrome ? "say which format: --chrome" : "no trace directory given");
        return 2;
    }
    trace_input *in = trace_input_open("export", dir, partial);
    if (!in)
        return 1;
    exporter x;
    memset(&x, 0, sizeof x);
    x.first = true;
    x.nworkers = 1;
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
    table_free(&x.tasks);
    trace_input_close(in);
    return rc;
}
