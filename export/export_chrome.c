/*
 * export_chrome.c - a trace as Chrome Trace Event Format JSON, which the
 * Perfetto UI and chrome://tracing open (export.h): one track per worker,
 * one slice per task execution period named by the task's kind, the
 * worker's waits, and a flow arrow from each message's write to its read.
 *
 * The periods and waits are the trace reader's (mon_periods): a slice is
 * written when its period ends, as a complete ("X") event, because its
 * length is known only then and X events need no matching begin/end pairs
 * that a truncated trace could break. A period whose end the trace lacks
 * still gets its slice, its `ended_by` saying so ("lost", "end of trace").
 *
 * A message written but never read (the network's output) or read but
 * never written (input from outside) has no arrow; how many of each there
 * are goes into "otherData", with what could not be read (input_loss), so
 * nothing is left out silently.
 *
 * Colours: Perfetto colours a slice by a hash of its name and ignores any
 * colour given in the trace, so slices are named by task kind (the full
 * task name is in args): every replica of a kind gets one colour there.
 * chrome://tracing honours "cname", one of its reserved colour names, which
 * is chosen from the kind's name alone, so a kind keeps its colour from one
 * export to the next.
 */
#include "export_internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct chrome {
    FILE *out;
    mon_key_table names; /* char * by mon_run_id_key(run, task): the task_map names */
    export_pairs *pairs;
    mon_periods *periods;
    uint64_t t0;      /* time of the first event: the JSON starts at 0 */
    bool have_t0;
    bool first;       /* no comma before the first JSON event */
    export_summary *sum;
} chrome;

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

static double us(const chrome *x, uint64_t ns) { return (double)(ns - x->t0) / 1000.0; }

static void begin_event(chrome *x)
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

static void task_slice(chrome *x, const mon_interval *iv)
{
    char **known = mon_key_table_find(&x->names, mon_run_id_key(iv->run, iv->task));
    char fallback[32];
    snprintf(fallback, sizeof fallback, "task %" PRIu64, iv->task);
    const char *name = known && *known ? *known : fallback;
    const char *kind = mon_task_kind(name);
    begin_event(x);
    fprintf(x->out,
            "{\"ph\":\"X\",\"pid\":1,\"tid\":%u,\"ts\":%.3f,\"dur\":%.3f,\"cat\":\"task\",\"name\":",
            iv->worker, us(x, iv->start), (double)(iv->end - iv->start) / 1000.0);
    json_string(x->out, kind);
    fprintf(x->out, ",\"cname\":\"%s\",\"args\":{\"task\":%" PRIu64 ",\"task_name\":",
            kind_cname(kind), iv->task);
    json_string(x->out, name);
    fprintf(x->out, ",\"run\":%" PRIu32 ",\"ended_by\":\"%s\"", iv->run,
            mon_interval_end_name(iv->how));
    if (iv->cpu_known) /* a CPU reading ended it (flag C): the time the OS held the core */
        fprintf(x->out, ",\"off_core_us\":%.3f", (double)iv->preempted / 1000.0);
    fputs("}}", x->out);
    x->sum->periods++;
}

static void wait_slice(chrome *x, const mon_interval *iv)
{
    begin_event(x);
    fprintf(x->out,
            "{\"ph\":\"X\",\"pid\":1,\"tid\":%u,\"ts\":%.3f,\"dur\":%.3f,\"cat\":\"worker\","
            "\"name\":\"wait\",\"cname\":\"grey\"}",
            iv->worker, us(x, iv->start), (double)(iv->end - iv->start) / 1000.0);
    x->sum->waits++;
}

static int on_interval(void *ctx, const mon_interval *iv)
{
    chrome *x = ctx;
    if (iv->kind == MON_INTERVAL_EXEC)
        task_slice(x, iv);
    else if (iv->kind == MON_INTERVAL_IDLE)
        wait_slice(x, iv);
    return 0;
}

/* Both ends of a message's arrow, written at its first write: the start
 * binds to the writer's enclosing slice, the end ("bp":"e") to the
 * reader's. Flow ids are 1, 2, ... per paired message, so every id has
 * exactly one start and one end, also across runs whose message ids
 * repeat. */
static void message_flow(chrome *x, const export_pair *m)
{
    char id[40];
    begin_event(x);
    fprintf(x->out,
            "{\"ph\":\"s\",\"pid\":1,\"tid\":%u,\"ts\":%.3f,\"cat\":\"msg\",\"name\":\"message\","
            "\"id\":%" PRIu64 ",\"args\":{\"msg\":\"m%s\",\"run\":%" PRIu32 "}}",
            m->writer, us(x, m->write_time), m->flow, mon_msg_id_format(m->msg, id, sizeof id),
            m->run);
    begin_event(x);
    fprintf(x->out,
            "{\"ph\":\"f\",\"bp\":\"e\",\"pid\":1,\"tid\":%u,\"ts\":%.3f,\"cat\":\"msg\","
            "\"name\":\"message\",\"id\":%" PRIu64 "}",
            m->reader, us(x, m->read_time > m->write_time ? m->read_time : m->write_time), m->flow);
}

/* task_map: the task's name (a task mapped again is renamed). */
static int name_task(chrome *x, const mon_event *e)
{
    char **name = mon_key_table_get(&x->names, mon_run_key(e, e->task));
    if (!name)
        return -1;
    free(*name);
    *name = strdup(e->name ? e->name : "");
    return *name ? 0 : -1;
}

static int export_event(chrome *x, const mon_event *e)
{
    if (e->kind == MON_EV_TASK_MAP)
        return name_task(x, e);
    if (e->kind == MON_EV_MESSAGE_WRITTEN) {
        const export_pair *m = export_pairs_first(x->pairs, e);
        if (m)
            message_flow(x, m);
    }
    return mon_periods_feed(x->periods, e);
}

static void track_names(chrome *x, const mon_trace *t)
{
    begin_event(x);
    fputs("{\"ph\":\"M\",\"pid\":1,\"name\":\"process_name\",\"args\":{\"name\":\"LPEL\"}}", x->out);
    x->sum->locations = mon_trace_num_workers(t);
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

static void other_data(chrome *x, const export_source *src)
{
    fputs("\n],\"otherData\":{", x->out);
    const wfb_input_loss *loss = src->loss ? src->loss(src->ctx) : NULL;
    if (loss) {
        fputs("\"input_loss\":", x->out);
        wfb_report_input_loss(loss, WFB_OUT_JSON, x->out);
        fputc(',', x->out);
    }
    const export_message_counts *c = export_pairs_counts(x->pairs);
    x->sum->messages = *c;
    fprintf(x->out,
            "\"messages\":{\"flows\":%" PRIu64 ",\"written_unread\":%" PRIu64
            ",\"read_unwritten\":%" PRIu64 ",\"repeated\":%" PRIu64 "}",
            c->paired, c->written_unread, c->read_unwritten, c->repeated);
    fputs("}}\n", x->out);
}

/* The second pass: every event into the JSON; 0, or -1 (err set). */
static int write_trace(chrome *x, const export_source *src, char *err, size_t errlen)
{
    fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[", x->out);
    track_names(x, src->trace(src->ctx));
    mon_event ev;
    int rc;
    uint64_t last = 0;
    while ((rc = src->next(src->ctx, &ev)) == 1) {
        if (!x->have_t0) {
            x->t0 = ev.time;
            x->have_t0 = true;
        }
        last = ev.time > last ? ev.time : last;
        if (export_event(x, &ev) != 0) {
            snprintf(err, errlen, "out of memory");
            return -1;
        }
    }
    if (rc != 0)
        return -1; /* the source has said why */
    if (mon_periods_finish(x->periods, last) != 0) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    other_data(x, src);
    return 0;
}

static void free_name(void *value) { free(*(char **)value); }

int export_chrome(const export_source *src, FILE *out, export_summary *summary, char *err,
                  size_t errlen)
{
    chrome x = {.out = out, .first = true, .sum = summary};
    memset(summary, 0, sizeof *summary);
    mon_key_table_init(&x.names, sizeof(char *));
    mon_period_sink sink = {.ctx = &x, .close = on_interval};
    int rc = -1;
    err[0] = '\0';
    if (!(x.periods = mon_periods_new(&sink)))
        snprintf(err, errlen, "out of memory");
    else if ((x.pairs = export_pairs_scan(src, err, errlen)) != NULL)
        rc = write_trace(&x, src, err, errlen);
    export_pairs_free(x.pairs);
    mon_periods_free(x.periods);
    mon_key_table_free(&x.names, free_name);
    return rc;
}
