/*
 * trace_input.c - reading a trace for any snetmon subcommand: the policy
 * for damaged and incomplete traces, the loss report, and graphs for the
 * analysing commands. See trace_input.h.
 *
 * Why one place: each subcommand used to decide alone what a truncated log
 * meant, and some printed figures of half a trace with exit status 0.
 */
#include "trace_input.h"

#include "export.h"
#include "whatif.h"

#include "progress_bar.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct trace_input {
    const char *cmd;
    char *err;       /* messages go here instead of stderr (nested inputs) */
    size_t errlen;
    char *dir;       /* for trace_input_rewind */
    mon_trace *trace;
    bool partial;
    bool at_end;
    bool warned;     /* the --partial warning was printed (once per command) */
    wfb_input_loss loss;
    wfb_log_loss *logs;
    bool has_loss;
};

/* One line: "snetmon CMD: ..." on stderr, or the text into the caller's
 * buffer. */
static void say(const char *cmd, char *buf, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void say(const char *cmd, char *buf, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (buf) {
        vsnprintf(buf, len, fmt, ap);
    } else {
        fprintf(stderr, "snetmon %s: ", cmd);
        vfprintf(stderr, fmt, ap);
        fputc('\n', stderr);
    }
    va_end(ap);
}

/* A flight recorder's window is a whole trace of a stretch of the run: one
 * line says where it starts and how much came before it (not recorded,
 * which is not a loss). */
static void note_window(const char *cmd, const char *dir, const mon_trace *t)
{
    uint64_t before = 0, start = UINT64_MAX;
    unsigned n = mon_trace_num_workers(t);
    bool window = false;
    for (unsigned i = 0; i < n; i++) {
        mon_log_status st;
        mon_trace_log_status(t, i, &st);
        window |= st.window;
        before += st.events_before;
        if (st.window && st.window_start_ns < start)
            start = st.window_start_ns;
    }
    if (window)
        fprintf(stderr, "snetmon %s: %s is a flight recorder's window from %.6f s on the trace "
                        "clock; %llu earlier events were not recorded (not a loss)\n",
                cmd, dir, start == UINT64_MAX ? 0.0 : (double)start * 1e-9,
                (unsigned long long)before);
}

static trace_input *open_input(const char *cmd, const char *dir, bool partial, bool follow,
                               char *errbuf, size_t errlen)
{
    trace_input *in = calloc(1, sizeof *in);
    if (!in) {
        say(cmd, errbuf, errlen, "out of memory");
        return NULL;
    }
    in->cmd = cmd;
    in->err = errbuf;
    in->errlen = errlen;
    in->partial = partial;
    char err[4608];
    mon_trace_options opt = {.keep_going = partial, .follow = follow};
    if (!(in->dir = strdup(dir))) {
        say(cmd, errbuf, errlen, "out of memory");
        free(in);
        return NULL;
    }
    if (mon_trace_open_with(&in->trace, dir, &opt, err, sizeof err) != 0) {
        say(cmd, errbuf, errlen, "%s", err);
        free(in->dir);
        free(in);
        return NULL;
    }
    /* A run that did not finish (or of which nothing says so) may look
     * whole and lack everything after its last flush, whatever flags it
     * was recorded with: refused before anything is printed. Following a
     * run (snetmon top) is for runs that have not finished. */
    const char *why;
    if (!follow && !partial && mon_trace_run_state(in->trace, &why) != MON_RUN_COMPLETE) {
        say(cmd, errbuf, errlen, "%s; --partial analyses what can be read", why);
        trace_input_close(in);
        return NULL;
    }
    note_window(cmd, dir, in->trace);
    return in;
}

trace_input *trace_input_open(const char *cmd, const char *dir, bool partial)
{
    return open_input(cmd, dir, partial, false, NULL, 0);
}

trace_input *trace_input_open_follow(const char *cmd, const char *dir, bool partial)
{
    return open_input(cmd, dir, partial, true, NULL, 0);
}

/* The loss of every log that has one, from the reader's statuses. */
static int collect_loss(trace_input *in)
{
    unsigned n = mon_trace_num_workers(in->trace);
    in->logs = calloc(n ? n : 1, sizeof *in->logs);
    if (!in->logs)
        return -1;
    wfb_input_loss *loss = &in->loss;
    loss->events_lost_known = 1;
    for (unsigned i = 0; i < n; i++) {
        mon_log_status st;
        mon_trace_log_status(in->trace, i, &st);
        loss->events_read += st.events_read;
        if (st.state == MON_LOG_COMPLETE)
            continue;
        wfb_log_loss *l = &in->logs[loss->n_logs++];
        *l = (wfb_log_loss){st.path,          st.worker,           mon_log_state_name(st.state),
                            st.offset,        st.events_read,      st.events_lost,
                            st.events_discarded, st.bytes_read,    st.bytes_lost,
                            st.message};
        loss->events_lost += st.events_discarded + (st.events_lost > 0 ? (uint64_t)st.events_lost : 0);
        loss->events_lost_known &= st.events_lost >= 0;
        loss->bytes_lost += st.bytes_lost;
    }
    loss->logs = in->logs;
    if (mon_trace_run_state(in->trace, &loss->run) != MON_RUN_COMPLETE)
        loss->events_lost_known = 0; /* what came after the last flush is unknown */
    loss->files_passed = mon_trace_dir_problems(in->trace, &loss->files_first);
    in->has_loss = loss->n_logs > 0 || loss->run || loss->files_passed;
    return 0;
}

/* Without --partial: the first problem in one line, and how to go on. */
static void refuse(const trace_input *in, const char *problem)
{
    unsigned more = 0;
    for (size_t i = 0; i < in->loss.n_logs; i++)
        more += in->loss.logs[i].message && strcmp(in->loss.logs[i].message, problem) != 0;
    char others[80] = "";
    if (more)
        snprintf(others, sizeof others, " (and %u more damaged or incomplete log%s)", more,
                 more == 1 ? "" : "s");
    say(in->cmd, in->err, in->errlen, "%s%s; --partial analyses what can be read", problem,
        others);
}

/* With --partial: one warning, then the loss goes into the output. */
static void warn_loss(const trace_input *in)
{
    const wfb_input_loss *l = &in->loss;
    char summary[200];
    wfb_input_loss_summary(l, summary, sizeof summary);
    const char *first = l->n_logs ? l->logs[0].message : l->run ? l->run : l->files_first;
    char logs[48] = "";
    if (l->n_logs)
        snprintf(logs, sizeof logs, " in %zu log%s", l->n_logs, l->n_logs == 1 ? "" : "s");
    fprintf(stderr, "snetmon %s: warning: partial trace: %s%s (first: %s)\n", in->cmd, summary,
            logs, first ? first : "?");
}

int trace_input_next(trace_input *in, mon_event *ev)
{
    if (in->at_end)
        return 0;
    int rc = mon_trace_next(in->trace, ev);
    if (rc == MON_TRACE_EVENT)
        return 1;
    if (rc == MON_TRACE_AGAIN)
        return TRACE_INPUT_AGAIN;
    in->at_end = true;
    if (collect_loss(in) != 0) {
        say(in->cmd, in->err, in->errlen, "out of memory");
        return -1;
    }
    if (rc == MON_TRACE_END && !in->has_loss)
        return 0;
    if (rc == MON_TRACE_ERROR || !in->partial) {
        /* The end of a clean read is refused only for the run's state
         * (a followed run without run.json). */
        refuse(in, rc == MON_TRACE_END && in->loss.run ? in->loss.run : mon_trace_error(in->trace));
        return -1;
    }
    if (!in->err && !in->warned)
        warn_loss(in);
    in->warned = true;
    return 0;
}

const wfb_input_loss *trace_input_loss(const trace_input *in)
{
    return in->has_loss ? &in->loss : NULL;
}

const mon_trace *trace_input_trace(const trace_input *in) { return in->trace; }

void trace_input_close(trace_input *in)
{
    if (!in)
        return;
    mon_trace_close(in->trace);
    free(in->logs);
    free(in->dir);
    free(in);
}

void trace_input_no_warning(trace_input *in) { in->warned = true; }

int trace_input_rewind(trace_input *in)
{
    char err[4608];
    mon_trace_options opt = {.keep_going = in->partial};
    mon_trace_close(in->trace);
    free(in->logs);
    in->logs = NULL;
    memset(&in->loss, 0, sizeof in->loss);
    in->has_loss = false;
    in->at_end = false;
    if (mon_trace_open_with(&in->trace, in->dir, &opt, err, sizeof err) != 0) {
        in->trace = NULL;
        in->at_end = true;
        say(in->cmd, in->err, in->errlen, "%s", err);
        return -1;
    }
    return 0;
}

static int source_next(void *ctx, mon_event *ev)
{
    int rc = trace_input_next(ctx, ev);
    return rc == TRACE_INPUT_AGAIN ? 0 : rc;
}

static int source_rewind(void *ctx) { return trace_input_rewind(ctx); }

static const wfb_input_loss *source_loss(void *ctx) { return trace_input_loss(ctx); }

static const mon_trace *source_trace(void *ctx) { return trace_input_trace(ctx); }

void trace_input_source(trace_input *in, struct export_source *src)
{
    *src = (export_source){.ctx = in,
                           .next = source_next,
                           .rewind = source_rewind,
                           .loss = source_loss,
                           .trace = source_trace};
}

/* ---- graphs for the analysing commands ---- */

static void print_error(const char *cmd, const wfb_error *err, char *buf, size_t len)
{
    char where[300] = "";
    if (err->file[0] && err->line > 0)
        snprintf(where, sizeof where, "%s:%ld: ", err->file, err->line);
    else if (err->file[0])
        snprintf(where, sizeof where, "%s: ", err->file);
    say(cmd, buf, len, "%s%s", where, err->msg);
}

/* Feeds the whole trace to the lifter; 0, -1 (message printed), or
 * WFB_LIFT_IN_MEMORY (the bounded lifter gave up; nothing printed). A
 * progress bar shows on a terminal for long traces. */
static int feed_trace(const char *cmd, trace_input *in, wfb_lifter *l)
{
    char *buf = in->err;
    size_t len = in->errlen;
    progress_bar bar;
    progress_bar_init(&bar, stderr);
    wfb_error err;
    mon_event ev;
    int rc;
    uint64_t events = 0;
    while ((rc = trace_input_next(in, &ev)) == 1) {
        if ((++events & 0xfffff) == 0)
            progress_bar_update(&bar, events, 0);
        if ((rc = wfb_lifter_feed_mon(l, &ev, &err)) != 0) {
            if (rc != WFB_LIFT_IN_MEMORY)
                print_error(cmd, &err, buf, len);
            rc = rc == WFB_LIFT_IN_MEMORY ? rc : -1;
            break;
        }
    }
    progress_bar_end(&bar);
    return rc;
}

/* A multi-rank trace's clock alignment, as the bridge carries it. */
static int attach_alignment(wfb_graph *g, const mon_trace *t)
{
    const mon_clock_alignment *a = mon_trace_clock_alignment(t);
    if (!a)
        return 0;
    wfb_rank_clock *ranks = calloc(a->ranks ? a->ranks : 1, sizeof *ranks);
    if (!ranks)
        return -1;
    for (unsigned i = 0; i < a->ranks; i++) {
        const mon_rank_clock *r = &a->rank[i];
        ranks[i] = (wfb_rank_clock){r->rank,      r->samples,   r->has_start, r->has_end,
                                    r->offset_ns, r->drift_ppm, r->rtt_ns,    r->shift_max_ns};
    }
    wfb_clock_alignment w = {a->ranks,     ranks, a->messages, a->unmatched, a->raw_violations,
                             a->violations, a->worst_ns, a->fixed, a->latency_ns, a->after};
    int rc = wfb_graph_set_clock_alignment(g, &w);
    free(ranks);
    return rc;
}

int trace_input_report_alignment(const trace_input *in, FILE *out, const char *prefix)
{
    wfb_graph *g = wfb_graph_new();
    if (!g || attach_alignment(g, in->trace) != 0) {
        wfb_graph_free(g);
        return -1;
    }
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    int rc = mem ? wfb_report_clock_alignment(wfb_graph_clock_alignment(g), WFB_OUT_TEXT, mem)
                 : -1;
    if (mem && fclose(mem) != 0)
        rc = -1;
    for (char *line = text ? strtok(text, "\n") : NULL; line; line = strtok(NULL, "\n"))
        fprintf(out, "%s%s\n", prefix, line);
    free(text);
    wfb_graph_free(g);
    return rc;
}

/* A new graph and its lifter: bounded, its spill caches of memory bytes
 * (wfb_graph_set_limits; temporary files in $TMPDIR beyond), or for 0 the
 * graph in memory. */
static wfb_lifter *new_lifter(wfb_graph **g, size_t memory)
{
    wfb_limits limits = {memory, NULL};
    if (!(*g = wfb_graph_new()))
        return NULL;
    if (!memory)
        return wfb_lifter_new(*g);
    return wfb_graph_set_limits(*g, &limits) ? NULL : wfb_lifter_new_bounded(*g);
}

/* The analysis graph of the trace in, its loss attached; NULL after the
 * message, or with *again set (nothing printed) when the bounded lifter
 * met a message graph it cannot analyse as it is read. */
static wfb_graph *lift_once(const char *cmd, trace_input *in, size_t memory, bool *again)
{
    char *buf = in->err;
    size_t len = in->errlen;
    wfb_graph *g;
    wfb_lifter *l = new_lifter(&g, memory);
    int rc = l ? 0 : -1;
    if (rc)
        say(cmd, buf, len, "out of memory");
    else
        wfb_graph_set_source(g, in->dir);
    if (rc == 0)
        rc = feed_trace(cmd, in, l);
    if (rc == 0 && (wfb_graph_set_input_loss(g, trace_input_loss(in)) != 0 ||
                    attach_alignment(g, in->trace) != 0)) {
        say(cmd, buf, len, "out of memory");
        rc = -1;
    }
    wfb_error err;
    if (rc == 0) {
        rc = wfb_lifter_finish(l, &err); /* frees l, also on error */
        if (rc == -1)
            print_error(cmd, &err, buf, len);
    } else {
        wfb_lifter_free(l);
    }
    *again = rc == WFB_LIFT_IN_MEMORY;
    if (rc != 0) {
        wfb_graph_free(g);
        return NULL;
    }
    return g;
}

/* The analysis graph of a trace directory: bounded (memory > 0) when the
 * trace allows, else in memory (a second reading). */
static wfb_graph *lift_trace(const char *cmd, const char *dir, bool partial, size_t memory,
                             char *buf, size_t len)
{
    trace_input *in = open_input(cmd, dir, partial, false, buf, len);
    if (!in)
        return NULL;
    bool again;
    wfb_graph *g = lift_once(cmd, in, memory, &again);
    if (again && trace_input_rewind(in) == 0)
        g = lift_once(cmd, in, 0, &again);
    trace_input_close(in);
    return g;
}

static wfb_graph *load_graph(const char *cmd, const char *path, wfb_format format,
                             const char *bp_map, bool partial, size_t memory, char *errbuf,
                             size_t errlen)
{
    struct stat st;
    if (format == WFB_FORMAT_LPEL_TRACE ||
        (format == WFB_FORMAT_UNKNOWN && stat(path, &st) == 0 && S_ISDIR(st.st_mode)))
        return lift_trace(cmd, path, partial, memory, errbuf, errlen);
    wfb_graph *g;
    wfb_error err;
    progress_bar bar;
    progress_bar_init(&bar, stderr);
    int rc = wfb_load_input(path, format, bp_map, partial, progress_bar_update, &bar, &g, &err);
    progress_bar_end(&bar);
    if (rc != 0) {
        print_error(cmd, &err, errbuf, errlen);
        return NULL;
    }
    return g;
}

wfb_graph *input_load_graph(const char *cmd, const char *path, wfb_format format,
                            const char *bp_map, bool partial, char *errbuf, size_t errlen)
{
    return load_graph(cmd, path, format, bp_map, partial, 0, errbuf, errlen);
}

wfb_graph *input_load_graph_bounded(const char *cmd, const char *path, wfb_format format,
                                    const char *bp_map, bool partial, size_t memory,
                                    char *errbuf, size_t errlen)
{
    return load_graph(cmd, path, format, bp_map, partial, memory, errbuf, errlen);
}

int input_graph_check(const char *cmd, const wfb_graph *g)
{
    int e = wfb_graph_io_error(g);
    if (!e)
        return 0;
    const char *src = wfb_graph_source(g);
    say(cmd, NULL, 0, "%s: the analysis's temporary records: %s", src ? src : "input",
        strerror(e));
    return -1;
}

/* trace_input_next as the whatif library's source of events. */
static int whatif_next(void *in, mon_event *ev)
{
    int rc = trace_input_next(in, ev);
    return rc == 1 ? 1 : rc == 0 ? 0 : -1;
}

whatif_model *input_load_whatif(const char *cmd, const char *dir, bool partial, char *errbuf,
                                size_t errlen)
{
    trace_input *in = open_input(cmd, dir, partial, false, errbuf, errlen);
    if (!in)
        return NULL;
    trace_input_no_warning(in);
    whatif_model *m = NULL;
    wfb_error err;
    if (whatif_model_from_trace(whatif_next, in, &m, &err) != 0 && err.msg[0])
        say(cmd, errbuf, errlen, "%s: %s", dir, err.msg);
    trace_input_close(in);
    return m;
}
