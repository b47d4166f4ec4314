/*
 * timeline_text.c - reader for the visualiser's own text timeline format.
 *
 * Why it exists: it lets the visualiser be driven (by tests, by hand, by
 * other tools) without the monitor's binary trace format, and it streams, so
 * a file of 10^8 lines renders in bounded memory just like a trace.
 *
 * Format: one record per line, fields separated by blanks, every line ending
 * in a newline; '#' starts a comment line. Times are integer nanoseconds.
 *
 *   origin T                       time origin of the axis (before events)
 *   worker W [NAME...]             names worker W (0..65535)
 *   task ID WORKER NAME [KIND]     declares a task; WORKER '-' if unknown;
 *                                  KIND defaults to the last ':' component
 *   run W TASK START END HOW       an execution period on worker W
 *   wait W START END               worker W waited
 *   read W T [TASK]                a message read at T
 *   write W T [TASK]               a message written at T
 *   dispatch W TASK T              event style: TASK starts running on W
 *   stop W TASK T HOW              event style: it stops (HOW not open)
 *   waited W T / resumed W T       event style: W waits / resumes
 *   stream ID WRITER READER COUNT  stream from task WRITER to task READER
 *                                  ('-' = outside the network), COUNT msgs
 *
 * HOW is input | output | any | yield | destroy | open. A last line without a
 * newline is taken as a truncated file: it is ignored and reading stops
 * there successfully, so a trace cut short renders up to the cut.
 *
 * The event-style records are the trace's events (times >= 0) and become
 * periods as a trace's do: through the trace reader's period layer
 * (viz_trace_feed, trace_feed.c); a period or wait still open at the
 * end of the file ends at the latest time read, drawn open.
 */
#include "viz_internal.h"

#include "mon_reader.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FIELDS 8

typedef struct reader {
    const char *name;
    unsigned long line;
    viz_timeline *tl;
    viz_net *net;
    char *err;
    size_t errlen;
    viz_trace_feeder *events; /* the event-style records, made at the first */
} reader;

static int bad(reader *r, const char *fmt, const char *detail)
{
    char message[200];
    snprintf(message, sizeof message, fmt, detail);
    viz_set_error(r->err, r->errlen, "%s:%lu: %s", r->name, r->line, message);
    return VIZ_EFORMAT;
}

static bool parse_i64(const char *s, int64_t *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || end == s || *end)
        return false;
    *out = v;
    return true;
}

static bool parse_u64(const char *s, uint64_t *out)
{
    char *end;
    errno = 0;
    if (*s == '-')
        return false;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s || *end)
        return false;
    *out = v;
    return true;
}

static bool parse_worker(const char *s, int *out)
{
    int64_t v;
    if (!parse_i64(s, &v) || v < 0 || v >= VIZ_MAX_WORKERS)
        return false;
    *out = (int)v;
    return true;
}

/* A task id or '-' (VIZ_NO_TASK). */
static bool parse_task_or_none(const char *s, uint64_t *out)
{
    if (!strcmp(s, "-")) {
        *out = VIZ_NO_TASK;
        return true;
    }
    return parse_u64(s, out);
}

/* A model call failed: report its message at this line. */
static int model_error(reader *r, int rc, const char *message)
{
    if (rc == VIZ_OK)
        return VIZ_OK;
    viz_set_error(r->err, r->errlen, "%s:%lu: %s", r->name, r->line, message);
    return rc;
}

static int timeline_call(reader *r, int rc) { return model_error(r, rc, viz_timeline_error(r->tl)); }
static int net_call(reader *r, int rc) { return model_error(r, rc, viz_net_error(r->net)); }

/* Records: f[0] is the keyword, n the number of fields. */

static int read_worker(reader *r, char **f, int n, const char *rest)
{
    int w;
    if (n < 2 || !parse_worker(f[1], &w))
        return bad(r, "expected 'worker W [NAME]'%s", "");
    return r->tl ? timeline_call(r, viz_timeline_add_worker(r->tl, w, n > 2 ? rest : NULL))
                 : VIZ_OK;
}

static int read_task(reader *r, char **f, int n)
{
    uint64_t id;
    int w = -1;
    if (n < 4 || n > 5 || !parse_u64(f[1], &id) || (strcmp(f[2], "-") && !parse_worker(f[2], &w)))
        return bad(r, "expected 'task ID WORKER NAME [KIND]'%s", "");
    if (r->tl) {
        int rc = timeline_call(r, viz_timeline_add_task(r->tl, id, f[3], n == 5 ? f[4] : NULL));
        if (rc != VIZ_OK)
            return rc;
    }
    return r->net ? net_call(r, viz_net_add_task(r->net, id, f[3], w)) : VIZ_OK;
}

static int read_run(reader *r, char **f, int n)
{
    int w;
    uint64_t task;
    viz_time start, end;
    viz_period_end how;
    if (n != 6 || !parse_worker(f[1], &w) || !parse_u64(f[2], &task) || !parse_i64(f[3], &start) ||
        !parse_i64(f[4], &end))
        return bad(r, "expected 'run W TASK START END HOW'%s", "");
    if (!viz_period_end_parse(f[5], &how))
        return bad(r, "unknown period end '%s' (input|output|any|yield|destroy|open)", f[5]);
    if (end < start)
        return bad(r, "period ends before it starts%s", "");
    if (r->net) {
        int rc = net_call(r, viz_net_task_ran_on(r->net, task, w));
        if (rc != VIZ_OK)
            return rc;
    }
    return r->tl ? timeline_call(r, viz_timeline_add_period(r->tl, w, task, start, end, how))
                 : VIZ_OK;
}

static int read_wait(reader *r, char **f, int n)
{
    int w;
    viz_time start, end;
    if (n != 4 || !parse_worker(f[1], &w) || !parse_i64(f[2], &start) || !parse_i64(f[3], &end))
        return bad(r, "expected 'wait W START END'%s", "");
    if (end < start)
        return bad(r, "wait ends before it starts%s", "");
    return r->tl ? timeline_call(r, viz_timeline_add_wait(r->tl, w, start, end)) : VIZ_OK;
}

static int read_message(reader *r, char **f, int n, viz_message_dir dir)
{
    int w;
    viz_time t;
    uint64_t task;
    if (n < 3 || n > 4 || !parse_worker(f[1], &w) || !parse_i64(f[2], &t) ||
        (n == 4 && !parse_u64(f[3], &task)))
        return bad(r, "expected 'read|write W T [TASK]'%s", "");
    return r->tl ? timeline_call(r, viz_timeline_add_message(r->tl, w, t, dir)) : VIZ_OK;
}

/* An event-style record as the trace event it stands for (run 1). */
static int feed_event(reader *r, mon_event_kind kind, int w, uint64_t task, viz_time t,
                      unsigned cause)
{
    if (!r->tl)
        return VIZ_OK;
    if (t < 0)
        return bad(r, "event-style records need times >= 0%s", "");
    if (!r->events && !(r->events = viz_trace_feeder_new(r->tl)))
        return model_error(r, VIZ_ENOMEM, "out of memory");
    mon_event ev = {.kind = kind, .run = 1, .worker = (unsigned)w, .task = task,
                    .time = (uint64_t)t, .cause = cause};
    return timeline_call(r, viz_trace_feed(r->events, &ev));
}

static int read_dispatch(reader *r, char **f, int n)
{
    int w;
    uint64_t task;
    viz_time t;
    if (n != 4 || !parse_worker(f[1], &w) || !parse_u64(f[2], &task) || !parse_i64(f[3], &t))
        return bad(r, "expected 'dispatch W TASK T'%s", "");
    if (r->net) {
        int rc = net_call(r, viz_net_task_ran_on(r->net, task, w));
        if (rc != VIZ_OK)
            return rc;
    }
    return feed_event(r, MON_EV_TASK_DISPATCH, w, task, t, 0);
}

static int read_stop(reader *r, char **f, int n)
{
    static const struct {
        const char *token;
        mon_event_kind kind;
        unsigned cause;
    } stops[] = {{"input", MON_EV_TASK_BLOCK, MON_BLOCK_INPUT},
                 {"output", MON_EV_TASK_BLOCK, MON_BLOCK_OUTPUT},
                 {"any", MON_EV_TASK_BLOCK, MON_BLOCK_ANY},
                 {"yield", MON_EV_TASK_YIELD, 0},
                 {"destroy", MON_EV_TASK_DESTROY, 0}};
    int w;
    uint64_t task;
    viz_time t;
    if (n != 5 || !parse_worker(f[1], &w) || !parse_u64(f[2], &task) || !parse_i64(f[3], &t))
        return bad(r, "expected 'stop W TASK T HOW'%s", "");
    for (size_t i = 0; i < sizeof stops / sizeof stops[0]; i++)
        if (!strcmp(f[4], stops[i].token))
            return feed_event(r, stops[i].kind, w, task, t, stops[i].cause);
    return bad(r, "unknown end of a stop '%s' (input|output|any|yield|destroy)", f[4]);
}

static int read_worker_state(reader *r, char **f, int n, bool waited)
{
    int w;
    viz_time t;
    if (n != 3 || !parse_worker(f[1], &w) || !parse_i64(f[2], &t))
        return bad(r, "expected 'waited|resumed W T'%s", "");
    return feed_event(r, waited ? MON_EV_WORKER_WAIT : MON_EV_WORKER_RESUME, w, 0, t, 0);
}

static int read_stream(reader *r, char **f, int n)
{
    uint64_t id, writer, reader_task, count;
    if (n != 5 || !parse_u64(f[1], &id) || !parse_task_or_none(f[2], &writer) ||
        !parse_task_or_none(f[3], &reader_task) || !parse_u64(f[4], &count))
        return bad(r, "expected 'stream ID WRITER READER COUNT'%s", "");
    return r->net ? net_call(r, viz_net_add_stream(r->net, id, writer, reader_task, count))
                  : VIZ_OK;
}

static int read_origin(reader *r, char **f, int n)
{
    viz_time t;
    if (n != 2 || !parse_i64(f[1], &t))
        return bad(r, "expected 'origin T'%s", "");
    return r->tl ? timeline_call(r, viz_timeline_set_origin(r->tl, t)) : VIZ_OK;
}

/* Splits line into at most MAX_FIELDS fields. Returns the count, or
 * MAX_FIELDS + 1 if there are more. */
static int split_fields(char *line, char **f)
{
    int n = 0;
    char *save = NULL;
    for (char *tok = strtok_r(line, " \t\r\n", &save); tok; tok = strtok_r(NULL, " \t\r\n", &save)) {
        if (n == MAX_FIELDS)
            return MAX_FIELDS + 1;
        f[n++] = tok;
    }
    return n;
}

static int read_record(reader *r, char *line)
{
    char *f[MAX_FIELDS] = {NULL};
    char rest_copy[256] = "";
    const char *p = line + strspn(line, " \t");
    if (*p == '#' || *p == '\n' || *p == '\r' || !*p)
        return VIZ_OK;
    /* worker names may contain blanks: take them before tokenising */
    if (!strncmp(p, "worker", 6) && (p[6] == ' ' || p[6] == '\t')) {
        const char *q = p + 6 + strspn(p + 6, " \t");
        q += strcspn(q, " \t\r\n");
        q += strspn(q, " \t");
        snprintf(rest_copy, sizeof rest_copy, "%s", q);
        rest_copy[strcspn(rest_copy, "\r\n")] = '\0';
    }
    int n = split_fields(line, f);
    if (n == 0)
        return VIZ_OK;
    if (n > MAX_FIELDS && strcmp(f[0], "worker"))
        return bad(r, "too many fields%s", "");
    const char *k = f[0];
    if (!strcmp(k, "run")) return read_run(r, f, n);
    if (!strcmp(k, "wait")) return read_wait(r, f, n);
    if (!strcmp(k, "read")) return read_message(r, f, n, VIZ_MSG_READ);
    if (!strcmp(k, "write")) return read_message(r, f, n, VIZ_MSG_WRITTEN);
    if (!strcmp(k, "dispatch")) return read_dispatch(r, f, n);
    if (!strcmp(k, "stop")) return read_stop(r, f, n);
    if (!strcmp(k, "waited")) return read_worker_state(r, f, n, true);
    if (!strcmp(k, "resumed")) return read_worker_state(r, f, n, false);
    if (!strcmp(k, "task")) return read_task(r, f, n);
    if (!strcmp(k, "worker")) return read_worker(r, f, n > MAX_FIELDS ? 3 : n, rest_copy);
    if (!strcmp(k, "stream")) return read_stream(r, f, n);
    if (!strcmp(k, "origin")) return read_origin(r, f, n);
    return bad(r, "unknown record '%s'", k);
}

int viz_read_timeline_text(FILE *in, const char *name, viz_timeline *tl, viz_net *net,
                           bool *truncated, char *err, size_t errlen)
{
    reader r = {name ? name : "input", 0, tl, net, err, errlen, NULL};
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    int rc = VIZ_OK;
    if (truncated)
        *truncated = false;
    while (rc == VIZ_OK && (len = getline(&line, &cap, in)) > 0) {
        r.line++;
        if (line[len - 1] != '\n') {
            viz_set_error(err, errlen, "%s:%lu: truncated (no newline); read up to line %lu",
                          r.name, r.line, r.line - 1);
            if (truncated)
                *truncated = true;
            break;
        }
        rc = read_record(&r, line);
    }
    if (rc == VIZ_OK && ferror(in)) {
        viz_set_error(err, errlen, "%s: read error after line %lu", r.name, r.line);
        rc = VIZ_EIO;
    }
    if (rc == VIZ_OK && r.events)
        rc = timeline_call(&r, viz_trace_finish(r.events));
    viz_trace_feeder_free(r.events);
    free(line);
    return rc;
}
