/*
 * cmd_convert.c - `snetmon convert --to snet-logformat DIR OUT`: rewrite a
 * trace in the text format of the original S-Net/LPEL monitoring
 * ("Log format version 2.2"), so that tools written for that runtime read
 * our runs too. docs/LOGFORMAT.md describes the output.
 *
 * Output, in directory OUT:
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
 *   messages: <ts><R|W><node>.<seq>; per message read or written
 * Times are ns since the first event of the trace. With --partial, a
 * damaged or incomplete trace is converted as far as it can be read and
 * OUT/partial.txt says what was lost.
 *
 * Why per-task state: the old format writes one entry when a task stops,
 * summarising its whole execution period, whereas our trace has one event
 * per action. The conversion collects a period's actions and writes them
 * at its end, like the original monitor did.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "out_file.h"
#include "trace_input.h"

const char snetmon_summary_convert[] =
    "convert a trace to another format (--to snet-logformat: S-Net LOGFORMAT 2.2 text)";

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
    uint64_t dispatched;
    bool running;
    conv_stream *streams;
    size_t nstreams, cap_streams;
    char *msgs; /* message entries of the period */
    size_t msgs_len, msgs_cap;
} conv_task;

typedef struct converter {
    mon_key_table tasks; /* conv_task by mon_run_key of the task */
    FILE **logs; /* per worker number */
    unsigned nlogs;
    FILE *map;
    uint64_t t0;
    bool have_t0;
    uint64_t *wait_since; /* per worker */
    const char *out_dir;
    bool failed;
} converter;

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
    if (t->nstreams == t->cap_streams) {
        size_t ncap = t->cap_streams ? t->cap_streams * 2 : 4;
        conv_stream *n = realloc(t->streams, ncap * sizeof *n);
        if (!n)
            return NULL;
        t->streams = n;
        t->cap_streams = ncap;
    }
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
    if (t->msgs_len + n + 1 > t->msgs_cap) {
        size_t ncap = (t->msgs_len + n + 1) * 2;
        char *m = realloc(t->msgs, ncap);
        if (!m)
            return false;
        t->msgs = m;
        t->msgs_cap = ncap;
    }
    memcpy(t->msgs + t->msgs_len, text, n + 1);
    t->msgs_len += n;
    return true;
}

static uint64_t rel(const converter *c, uint64_t ts) { return ts - c->t0; }

static FILE *log_of(converter *c, unsigned worker)
{
    return worker < c->nlogs ? c->logs[worker] : NULL;
}

/* Write the entry for a task that stops running, and reset its period. */
static void task_stop(converter *c, const mon_event *e, char state)
{
    conv_task *t = find_task(c, task_key(e));
    FILE *f = log_of(c, e->worker);
    if (!t || !f)
        return;
    uint64_t exec = t->running ? e->time - t->dispatched : 0;
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
    t->running = false;
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
        c->failed = true;
}

static void worker_event(converter *c, const mon_event *e)
{
    FILE *f = log_of(c, e->worker);
    if (!f)
        return;
    uint64_t *since = &c->wait_since[e->worker];
    switch (e->kind) {
    case MON_EV_WORKER_START:
        fprintf(f, "%" PRIu64 "S#", rel(c, e->time));
        break;
    case MON_EV_WORKER_END:
        fprintf(f, "%" PRIu64 "E#", rel(c, e->time));
        break;
    case MON_EV_WORKER_WAIT:
        *since = e->time;
        break;
    case MON_EV_WORKER_RESUME:
        fprintf(f, "%" PRIu64 "W%" PRIu64 "#", rel(c, e->time), e->time - *since);
        break;
    default:
        break;
    }
}

static void convert_event(converter *c, const mon_event *e)
{
    static const char block_state[] = {'I', 'O', 'A'};
    conv_task *t;
    switch (e->kind) {
    case MON_EV_TASK_MAP:
        fprintf(c->map, "%" PRIu64 " %u %s#", e->task, e->worker_mapped, e->name);
        break;
    case MON_EV_TASK_CREATE:
        if ((t = find_task(c, task_key(e))) != NULL)
            t->created = e->time;
        break;
    case MON_EV_TASK_DISPATCH:
        if ((t = find_task(c, task_key(e))) != NULL) {
            t->dispatched = e->time;
            t->running = true;
        }
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
    case MON_EV_WORKER_WAIT:
    case MON_EV_WORKER_RESUME:
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

static FILE *create_file(const char *dir, const char *name)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (!f)
        fprintf(stderr, "snetmon convert: %s: cannot create: %s\n", path, strerror(errno));
    else
        fprintf(f, "%s#", LOG_FORMAT_VERSION);
    return f;
}

static int open_outputs(converter *c, const mon_trace *t)
{
    c->map = create_file(c->out_dir, "mon_n00_tasks.map");
    if (!c->map)
        return -1;
    for (unsigned i = 0; i < mon_trace_num_workers(t); i++)
        if (mon_trace_worker_id(t, i) + 1 > c->nlogs)
            c->nlogs = mon_trace_worker_id(t, i) + 1;
    c->logs = calloc(c->nlogs ? c->nlogs : 1, sizeof *c->logs);
    c->wait_since = calloc(c->nlogs ? c->nlogs : 1, sizeof *c->wait_since);
    if (!c->logs || !c->wait_since) {
        fprintf(stderr, "snetmon convert: out of memory\n");
        return -1;
    }
    for (unsigned i = 0; i < mon_trace_num_workers(t); i++) {
        unsigned w = mon_trace_worker_id(t, i);
        char name[64];
        snprintf(name, sizeof name, "mon_n00_worker%02u.log", w);
        if (!(c->logs[w] = create_file(c->out_dir, name)))
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
        fprintf(stderr, "snetmon convert: %s: write error\n", c->out_dir);
    return rc;
}

static void free_converter(converter *c)
{
    mon_key_table_free(&c->tasks, task_release);
    free(c->logs);
    free(c->wait_since);
}

static void convert_usage(FILE *out)
{
    fprintf(out,
            "usage: snetmon convert --to snet-logformat [--partial] DIR -o OUT\n"
            "       snetmon convert --to snet-logformat [--partial] DIR OUT\n\n"
            "Rewrites the LPEL monitor trace in DIR as the original S-Net LOGFORMAT 2.2 text in\n"
            "directory OUT: mon_n00_tasks.map (<tid> <worker> <name>#) and one\n"
            "mon_n00_worker<NN>.log per worker of '#'-terminated entries (see docs/LOGFORMAT.md).\n"
            "The files appear only when the whole conversion succeeded.\n"
            "  --to FORMAT      the output format: snet-logformat\n"
            "  -o, --output OUT the output directory\n"
            TRACE_INPUT_HELP
            "                   (OUT/partial.txt then says what was lost)\n"
            "  -h, --help       this text\n"
            "  --version        the version and git revision\n");
}

/* With --partial: what was lost, in a text file beside the logs. */
static int write_loss(const converter *c, const wfb_input_loss *loss)
{
    if (!loss)
        return 0;
    char path[4200];
    snprintf(path, sizeof path, "%s/partial.txt", c->out_dir);
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "snetmon convert: %s: cannot create: %s\n", path, strerror(errno));
        return -1;
    }
    int rc = wfb_report_input_loss(loss, WFB_OUT_TEXT, f);
    if (fclose(f) != 0 || rc != 0) {
        fprintf(stderr, "snetmon convert: %s: write error\n", path);
        return -1;
    }
    return 0;
}

static int run_convert(const char *dir, const char *out, bool partial)
{
    trace_input *in = trace_input_open("convert", dir, partial);
    if (!in)
        return 1;
    out_dir od;
    if (out_dir_open(&od, "convert", out) != 0) {
        trace_input_close(in);
        return 1;
    }
    converter c;
    memset(&c, 0, sizeof c);
    mon_key_table_init(&c.tasks, sizeof(conv_task));
    c.out_dir = od.tmp;
    int rc = 1;
    if (open_outputs(&c, trace_input_trace(in)) == 0) {
        mon_event ev;
        int st;
        while ((st = trace_input_next(in, &ev)) == 1) {
            if (!c.have_t0) {
                c.t0 = ev.time;
                c.have_t0 = true;
            }
            convert_event(&c, &ev);
        }
        if (st == 0 && c.failed)
            fprintf(stderr, "snetmon convert: out of memory\n");
        else if (st == 0)
            rc = write_loss(&c, trace_input_loss(in)) == 0 ? 0 : 1;
    }
    if (close_outputs(&c) != 0)
        rc = 1;
    if (out_dir_finish(&od, rc == 0) != 0)
        rc = 1;
    free_converter(&c);
    trace_input_close(in);
    return rc;
}

int snetmon_cmd_convert(int argc, char **argv)
{
    enum { OPT_TO = CLI_OWN };
    static const struct option longopts[] = {CLI_STANDARD_OPTIONS,
                                              {"to", required_argument, NULL, OPT_TO},
                                              {"output", required_argument, NULL, 'o'},
                                              {"partial", no_argument, NULL, CLI_PARTIAL},
                                              {NULL, 0, NULL, 0}};
    const char *to = NULL, *out = NULL;
    bool partial = false;
    cli_parser p;
    cli_begin(&p, "convert", argc, argv);
    for (int c; (c = cli_next(&p, "ho:", longopts)) != -1;) {
        switch (c) {
        case 'h':
            convert_usage(stdout);
            return 0;
        case CLI_VERSION:
            return cli_version();
        case OPT_TO:
            to = optarg;
            break;
        case 'o':
            out = optarg;
            break;
        case CLI_PARTIAL:
            partial = true;
            break;
        default:
            return 2;
        }
    }
    if (!to || strcmp(to, "snet-logformat") != 0)
        return cli_usage_error(&p, "%s (known: --to snet-logformat)",
                               to ? "unknown target format" : "say which format with --to");
    int n = cli_npositional(&p);
    char **args = cli_positional(&p);
    if (!out && n == 2)
        out = args[1], n = 1; /* the older form: DIR OUT */
    if (n != 1 || !out)
        return cli_usage_error(&p, "need a trace directory and an output directory "
                                   "(see 'snetmon convert --help')");
    return run_convert(args[0], out, partial);
}
