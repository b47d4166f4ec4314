/*
 * export_logformat.c - a trace in the text format of the original
 * S-Net/LPEL monitoring ("Log format version 2.2"), so that tools written
 * for that runtime read our runs too (export.h; docs/LOGFORMAT.md section
 * 7.1 describes the output).
 *
 * In directory OUT:
 *   mon_n00_tasks.map         one entry per task: <tid> <worker> <name>#
 *   mon_n00_worker<NN>.log    per worker, '#'-terminated entries:
 *       <ts>S#                       worker started
 *       <ts>W<wait ns>#              worker resumed after waiting that long
 *       <ts>E#                       worker ended
 *       <ts><st><tid> <exec ns> [<creat ts> ]<streams>|<messages>#
 *                                    a task stopped: st = I/O/A blocked on
 *                                    input/output/any, R yielded, Z ended
 *   streams:  <sid><r|w><O|I|C><count><?|-><!|-><*|-> per stream used in
 *             the period (opened/in use/closed, items moved, blocked on it,
 *             woke the other side through it, moved anything)
 *   messages: <ts><R|W><id>; per message read or written, the id as dump
 *             prints it (worker.seq, rank:worker.seq above rank 0)
 *   partial.txt               what could not be read, when something was
 * Times are ns since the first event of the trace.
 *
 * Why per-task state: the old format writes one entry when a task stops,
 * summarising its whole execution period, whereas our trace has one event
 * per action. The conversion collects a period's actions and writes them
 * at its end, like the original monitor did. The period itself, and each
 * wait of a worker, come from the trace reader's period layer (mon_periods);
 * a period whose end the trace lacks has no entry of its own (the format
 * has no letter for it): its actions go into the task's next entry.
 */
#include "export_internal.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LOG_FORMAT_VERSION "Log format version 2.2 (since 05/03/2012)"

/* One stream touched in the current period of a task. */
typedef struct conv_stream {
    uint64_t sid;
    bool write_end;
    char state; /* 'O' opened, 'I' in use, 'C' closed */
    uint64_t count;
    bool blocked, woke, moved;
} conv_stream;

typedef struct conv_task {
    uint64_t created;
    conv_stream *streams;
    size_t nstreams, cap_streams;
    char *msgs; /* message entries of the period */
    size_t msgs_len, msgs_cap;
} conv_task;

typedef struct converter {
    mon_key_table tasks; /* conv_task by mon_run_key of the task */
    mon_periods *periods;
    FILE **logs; /* per worker number */
    unsigned nlogs;
    FILE *map;
    uint64_t t0, last;
    bool have_t0;
    /* The execution period the current stop event ended (mon_periods). */
    bool stopped;
    mon_interval stop;
    const char *out_dir;
    char *err;
    size_t errlen;
    bool failed; /* err says why */
} converter;

static void fail(converter *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail(converter *c, const char *fmt, ...)
{
    if (c->failed)
        return;
    c->failed = true;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->err, c->errlen, fmt, ap);
    va_end(ap);
}

static conv_task *find_task(converter *c, uint64_t id) { return mon_key_table_get(&c->tasks, id); }

static void task_release(void *value)
{
    conv_task *t = value;
    free(t->streams);
    free(t->msgs);
}

/* The period's record of stream sid (write end or read end) of task t. */
static conv_stream *touch_stream(conv_task *t, uint64_t sid, bool write_end)
{
    for (size_t i = 0; i < t->nstreams; i++)
        if (t->streams[i].sid == sid && t->streams[i].write_end == write_end)
            return &t->streams[i];
    if (KIT_GROW(t->streams, t->cap_streams, t->nstreams + 1))
        return NULL;
    conv_stream *s = &t->streams[t->nstreams++];
    memset(s, 0, sizeof *s);
    s->sid = sid;
    s->write_end = write_end;
    s->state = 'I';
    return s;
}

/* Tasks are keyed by run and id: task ids restart with each run. */
static uint64_t task_key(const mon_event *e)
{
    return mon_run_key(e, e->task);
}

static bool append_msg(conv_task *t, const char *text)
{
    size_t n = strlen(text);
    if (KIT_GROW(t->msgs, t->msgs_cap, t->msgs_len + n + 1))
        return false;
    memcpy(t->msgs + t->msgs_len, text, n + 1);
    t->msgs_len += n;
    return true;
}

static uint64_t rel(const converter *c, uint64_t ts) { return ts - c->t0; }

static FILE *log_of(converter *c, unsigned worker)
{
    return worker < c->nlogs ? c->logs[worker] : NULL;
}

/* Write the entry for a task that stops running, and reset its period:
 * its execution time is that of the period the stop ended, 0 when it ended
 * none (the trace began within it). */
static void task_stop(converter *c, const mon_event *e, char state)
{
    conv_task *t = find_task(c, task_key(e));
    FILE *f = log_of(c, e->worker);
    bool ended = c->stopped && c->stop.task == e->task && c->stop.run == e->run;
    c->stopped = false;
    if (!t || !f)
        return;
    uint64_t exec = ended ? c->stop.end - c->stop.start : 0;
    fprintf(f, "%" PRIu64 "%c%" PRIu64 " %" PRIu64 " ", rel(c, e->time), state, e->task, exec);
    if (state == 'Z')
        fprintf(f, "%" PRIu64 " ", rel(c, t->created));
    for (size_t i = 0; i < t->nstreams; i++) {
        const conv_stream *s = &t->streams[i];
        fprintf(f, "%" PRIu64 "%c%c%" PRIu64 "%c%c%c", s->sid, s->write_end ? 'w' : 'r', s->state,
                s->count, s->blocked ? '?' : '-', s->woke ? '!' : '-', s->moved ? '*' : '-');
    }
    fprintf(f, "|%s#", t->msgs ? t->msgs : "");
    /* The old format lists only the streams used in a period. */
    t->nstreams = 0;
    t->msgs_len = 0;
    if (t->msgs)
        t->msgs[0] = '\0';
}

static void stream_event(converter *c, const mon_event *e)
{
    conv_task *t = find_task(c, task_key(e));
    if (!t)
        return;
    bool write_end = e->kind == MON_EV_STREAM_WRITE ||
                     ((e->kind == MON_EV_STREAM_OPEN || e->kind == MON_EV_STREAM_CLOSE) &&
                      e->write_end) ||
                     (e->kind == MON_EV_STREAM_BLOCK && !e->empty);
    if (e->kind == MON_EV_STREAM_WAKE) {
        /* The waker moved data through its own end of the stream: whichever
         * end it already used in this period, else the one opposite the
         * woken task's, which we cannot know: take the write end. */
        conv_stream *s = NULL;
        for (size_t i = 0; i < t->nstreams && !s; i++)
            if (t->streams[i].sid == e->stream)
                s = &t->streams[i];
        if (!s)
            s = touch_stream(t, e->stream, true);
        if (s)
            s->woke = true;
        return;
    }
    conv_stream *s = touch_stream(t, e->stream, write_end);
    if (!s)
        return;
    switch (e->kind) {
    case MON_EV_STREAM_OPEN:
        s->state = 'O';
        break;
    case MON_EV_STREAM_CLOSE:
        s->state = 'C';
        break;
    case MON_EV_STREAM_READ:
    case MON_EV_STREAM_WRITE:
        s->count++;
        s->moved = true;
        break;
    case MON_EV_STREAM_BLOCK:
        s->blocked = true;
        break;
    default:
        break;
    }
}

static void message_event(converter *c, const mon_event *e)
{
    conv_task *t = find_task(c, task_key(e));
    if (!t)
        return;
    char buf[96], id[48];
    snprintf(buf, sizeof buf, "%" PRIu64 "%c%s;", rel(c, e->time),
             e->kind == MON_EV_MESSAGE_READ ? 'R' : 'W', mon_msg_id_format(e->msg, id, sizeof id));
    if (!append_msg(t, buf))
        fail(c, "out of memory");
}

static void worker_event(converter *c, const mon_event *e)
{
    FILE *f = log_of(c, e->worker);
    if (f && e->kind == MON_EV_WORKER_START)
        fprintf(f, "%" PRIu64 "S#", rel(c, e->time));
    else if (f && e->kind == MON_EV_WORKER_END)
        fprintf(f, "%" PRIu64 "E#", rel(c, e->time));
}

/* From the period layer: a worker's wait is one entry where it ends; an
 * execution period ended by a stop is kept for that stop's entry. */
static int on_interval(void *ctx, const mon_interval *iv)
{
    converter *c = ctx;
    if (iv->kind == MON_INTERVAL_IDLE) {
        FILE *f = log_of(c, iv->worker);
        if (f)
            fprintf(f, "%" PRIu64 "W%" PRIu64 "#", rel(c, iv->end), iv->end - iv->start);
    } else if (iv->kind == MON_INTERVAL_EXEC && iv->how != MON_END_LOST &&
               iv->how != MON_END_TRACE) {
        c->stopped = true;
        c->stop = *iv;
    }
    return 0;
}

static void convert_event(converter *c, const mon_event *e)
{
    static const char block_state[] = {'I', 'O', 'A'};
    if (mon_periods_feed(c->periods, e) != 0) {
        fail(c, "out of memory");
        return;
    }
    conv_task *t;
    switch (e->kind) {
    case MON_EV_TASK_MAP:
        fprintf(c->map, "%" PRIu64 " %u %s#", e->task, e->worker_mapped, e->name);
        break;
    case MON_EV_TASK_CREATE:
        if ((t = find_task(c, task_key(e))) != NULL)
            t->created = e->time;
        break;
    case MON_EV_TASK_BLOCK:
        task_stop(c, e, block_state[e->cause <= 2 ? e->cause : 2]);
        break;
    case MON_EV_TASK_YIELD:
        task_stop(c, e, 'R');
        break;
    case MON_EV_TASK_DESTROY:
        task_stop(c, e, 'Z');
        break;
    case MON_EV_WORKER_START:
    case MON_EV_WORKER_END:
        worker_event(c, e);
        break;
    case MON_EV_STREAM_OPEN:
    case MON_EV_STREAM_CLOSE:
    case MON_EV_STREAM_READ:
    case MON_EV_STREAM_WRITE:
    case MON_EV_STREAM_BLOCK:
    case MON_EV_STREAM_WAKE:
        stream_event(c, e);
        break;
    case MON_EV_MESSAGE_READ:
    case MON_EV_MESSAGE_WRITTEN:
        message_event(c, e);
        break;
    default:
        break; /* component bounds and load summaries have no 2.2 form */
    }
}

static FILE *create_file(converter *c, const char *name)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", c->out_dir, name);
    FILE *f = fopen(path, "w");
    if (!f)
        fail(c, "%s: cannot create: %s", path, strerror(errno));
    else
        fprintf(f, "%s#", LOG_FORMAT_VERSION);
    return f;
}

static int open_outputs(converter *c, const mon_trace *t)
{
    c->map = create_file(c, "mon_n00_tasks.map");
    if (!c->map)
        return -1;
    for (unsigned i = 0; i < mon_trace_num_workers(t); i++)
        if (mon_trace_worker_id(t, i) + 1 > c->nlogs)
            c->nlogs = mon_trace_worker_id(t, i) + 1;
    c->logs = calloc(c->nlogs ? c->nlogs : 1, sizeof *c->logs);
    if (!c->logs) {
        fail(c, "out of memory");
        return -1;
    }
    for (unsigned i = 0; i < mon_trace_num_workers(t); i++) {
        unsigned w = mon_trace_worker_id(t, i);
        char name[64];
        snprintf(name, sizeof name, "mon_n00_worker%02u.log", w);
        if (!(c->logs[w] = create_file(c, name)))
            return -1;
    }
    return 0;
}

/* Close every output; -1 if any write failed. */
static int close_outputs(converter *c)
{
    int rc = 0;
    if (c->map && fclose(c->map) != 0)
        rc = -1;
    for (unsigned i = 0; i < c->nlogs; i++)
        if (c->logs && c->logs[i] && fclose(c->logs[i]) != 0)
            rc = -1;
    if (rc)
        fail(c, "%s: write error", c->out_dir);
    return rc;
}

/* What was lost, in a text file beside the logs. */
static int write_loss(converter *c, const wfb_input_loss *loss)
{
    if (!loss)
        return 0;
    char path[4200];
    snprintf(path, sizeof path, "%s/partial.txt", c->out_dir);
    FILE *f = fopen(path, "w");
    if (!f) {
        fail(c, "%s: cannot create: %s", path, strerror(errno));
        return -1;
    }
    int rc = wfb_report_input_loss(loss, WFB_OUT_TEXT, f);
    if (fclose(f) != 0 || rc != 0) {
        fail(c, "%s: write error", path);
        return -1;
    }
    return 0;
}

/* Every event into the files; 0, or -1 (err, or the source, says why). */
static int convert_all(converter *c, const export_source *src)
{
    mon_event ev;
    int st;
    while (!c->failed && (st = src->next(src->ctx, &ev)) == 1) {
        if (!c->have_t0) {
            c->t0 = ev.time;
            c->have_t0 = true;
        }
        c->last = ev.time;
        convert_event(c, &ev);
    }
    if (c->failed || st != 0)
        return -1;
    /* What is still open ends with the trace: a wait gets its entry. */
    if (mon_periods_finish(c->periods, c->last) != 0) {
        fail(c, "out of memory");
        return -1;
    }
    return write_loss(c, src->loss ? src->loss(src->ctx) : NULL);
}

int export_logformat(const export_source *src, const char *dir, char *err, size_t errlen)
{
    converter c = {.out_dir = dir, .err = err, .errlen = errlen};
    mon_key_table_init(&c.tasks, sizeof(conv_task));
    err[0] = '\0';
    mon_period_sink sink = {.ctx = &c, .close = on_interval};
    int rc = -1;
    if (!(c.periods = mon_periods_new(&sink)))
        fail(&c, "out of memory");
    else if (open_outputs(&c, src->trace(src->ctx)) == 0)
        rc = convert_all(&c, src);
    if (close_outputs(&c) != 0)
        rc = -1;
    mon_key_table_free(&c.tasks, task_release);
    mon_periods_free(c.periods);
    free(c.logs);
    return rc;
}
