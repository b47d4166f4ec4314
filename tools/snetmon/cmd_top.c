/*
 * cmd_top.c - `snetmon top TRACE`: a live view of a run from its trace,
 * while another process is still writing it (or after it finished).
 *
 * Why: performance problems of long runs are found while they run. The
 * monitor publishes each worker's events every flush period; top follows
 * the trace (trace_input_open_follow, reading only what is new at each
 * refresh) and shows per worker the busy, waiting and unaccounted share of
 * the last interval, the waits so far (the paper's WE/WT), the tasks with
 * the most execution time, the inputs so far and the throughput so far.
 * The figures come from live_acc.c; their definitions are docs/METRICS.md
 * section 8. The screen is redrawn with two ANSI sequences (cursor home,
 * clear to the end): that is all a refreshing table needs, and a
 * non-terminal gets plain snapshots one after another instead.
 */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "live.h"
#include "cli.h"
#include "out_file.h"
#include "trace_input.h"

const char snetmon_summary_top[] = "live view of a run from its trace, while it is written";

#define NS 1e-9

static void top_usage(FILE *out)
{
    fprintf(out,
            "usage: snetmon top [-d SECONDS] [--once] [--json] [-n COUNT] [--top N]\n"
            "                   [--partial] TRACE\n\n"
            "Follows the LPEL monitor trace TRACE while its run writes it (run with\n"
            "--mon-flush MS, default 200) and redraws every interval: per worker the busy,\n"
            "waiting and unaccounted share of the last interval and the waits so far (WE:\n"
            "count, WT: time); the tasks with the most execution time in the last interval;\n"
            "the events and inputs read so far and the throughput so far. Each refresh\n"
            "reads only what the run published since the last. On a finished trace it\n"
            "shows the end of the run and exits. A run across MPI ranks (DIR/rank-R/)\n"
            "is followed on rank 0's clock, each rank's times moved by the clock offset\n"
            "it measured at the start (a rank joins once that is in its trace); once\n"
            "every rank has finished, the last snapshot reads the trace again with the\n"
            "full clock alignment, as metrics does. Ctrl-C quits.\n\n"
            "options:\n"
            "  -d, --interval S  refresh period and length of \"the last interval\" in\n"
            "                    seconds (default 1; at least 0.01)\n"
            "      --once        print one snapshot of what is readable now and exit\n"
            "      --json        snapshots as JSON objects, one per line\n"
            "  -n, --iterations N  exit after N snapshots\n"
            "  -t, --top N       tasks to list (default 10; 0: all)\n"
            TRACE_INPUT_HELP
            "  -h, --help        this text\n"
            "  --version         the version and git revision\n"
            "\nEvery figure is defined in docs/METRICS.md (section 8 for this view).\n"
            "\n"
            "examples:\n"
            "  snetmon top -d 1 trace              while PROGRAM -m A --mon-dir trace runs\n"
            "  snetmon top --once --json trace\n");
}

typedef struct top_args {
    const char *trace;
    double interval_s;
    bool once, json, partial;
    unsigned long iterations; /* 0: until the run ends or Ctrl-C */
    unsigned long tasks;
} top_args;

/* ---- arguments ---- */

static int bad_arg(const char *what, const char *val)
{
    fprintf(stderr, "snetmon top: %s, not '%s' (see 'snetmon top --help')\n", what, val);
    return 2;
}

static int parse_count(const char *val, unsigned long *out)
{
    char *end;
    errno = 0;
    unsigned long n = strtoul(val, &end, 10);
    if (errno || end == val || *end || val[0] == '-')
        return -1;
    *out = n;
    return 0;
}

/* 0 to run, 1 after --help or --version, 2 on a usage error (message
 * printed). The conventions are those of every subcommand (cli.h). */
static int parse_args(int argc, char **argv, top_args *a)
{
    enum { OPT_ONCE = CLI_OWN, OPT_TASKS_OLD };
    static const struct option longopts[] = {
        CLI_STANDARD_OPTIONS,
        {"interval", required_argument, NULL, 'd'},
        {"once", no_argument, NULL, OPT_ONCE},
        {"json", no_argument, NULL, CLI_JSON},
        {"iterations", required_argument, NULL, 'n'},
        {"top", required_argument, NULL, 't'},
        {"tasks", required_argument, NULL, OPT_TASKS_OLD},
        {"partial", no_argument, NULL, CLI_PARTIAL},
        {NULL, 0, NULL, 0}};
    *a = (top_args){.interval_s = 1.0, .tasks = 10};
    cli_parser p;
    cli_begin(&p, "top", argc, argv);
    for (int c; (c = cli_next(&p, "hd:n:t:", longopts)) != -1;) {
        char *end;
        switch (c) {
        case 'h': top_usage(stdout); return 1;
        case CLI_VERSION: cli_version(); return 1;
        case 'd':
            errno = 0;
            a->interval_s = strtod(optarg, &end);
            if (errno || end == optarg || *end || !(a->interval_s >= 0.01 && a->interval_s <= 86400))
                return bad_arg("-d/--interval needs seconds from 0.01 to 86400", optarg);
            break;
        case OPT_ONCE: a->once = true; break;
        case CLI_JSON: a->json = true; break;
        case CLI_PARTIAL: a->partial = true; break;
        case 'n':
            if (parse_count(optarg, &a->iterations) || a->iterations == 0)
                return bad_arg("-n/--iterations needs a positive whole number", optarg);
            break;
        case OPT_TASKS_OLD:
            cli_deprecated(&p, "--tasks N", "--top N");
            /* fall through */
        case 't':
            if (parse_count(optarg, &a->tasks))
                return bad_arg("-t/--top needs a whole number", optarg);
            break;
        default: return 2; /* CLI_ERROR: the message is printed */
        }
    }
    int n = cli_npositional(&p);
    char **pos = cli_positional(&p);
    if (n != 1) {
        if (n > 1)
            return cli_usage_error(&p, "one TRACE directory, not '%s' as well", pos[1]);
        top_usage(stderr);
        return 2;
    }
    a->trace = pos[0];
    return 0;
}

/* ---- reading ---- */

static volatile sig_atomic_t stop_requested;

static void on_stop(int sig)
{
    (void)sig;
    stop_requested = 1;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * NS;
}

typedef enum { READ_AGAIN, READ_END, READ_BUDGET, READ_ERROR } read_result;

/* Feed what is readable now; stop at the end of what is published, at the
 * end of the trace, or when budget_s is spent (a run that writes faster
 * than this reads: the view then lags, and says so). */
static read_result read_available(trace_input *in, live_acc *acc, double budget_s)
{
    double until = now_s() + budget_s;
    mon_event ev;
    for (uint64_t n = 1;; n++) {
        int rc = trace_input_next(in, &ev);
        if (rc == TRACE_INPUT_AGAIN)
            return READ_AGAIN;
        if (rc == 0)
            return READ_END;
        if (rc < 0)
            return READ_ERROR;
        if (live_acc_feed(acc, &ev) != 0) {
            fprintf(stderr, "snetmon top: out of memory\n");
            return READ_ERROR;
        }
        if ((n & 0xffff) == 0 && (stop_requested || now_s() > until))
            return READ_BUDGET;
    }
}

/* ---- one snapshot ---- */

typedef struct view {
    const top_args *args;
    const mon_trace *trace;
    live_snapshot snap;
    read_result read;
    bool live;
    bool followed_ranks; /* a multi-rank run was followed while it went on */
    char flags[16]; /* the run's monitoring flags (run.json), "" when unknown */
} view;

/* The run's monitoring flags from its run.json, "" when it says none. */
static void read_flags(view *v)
{
    mon_run_json *r = NULL;
    char err[256];
    if (mon_run_json_read_trace(v->args->trace, &r, err, sizeof err) == 0 && r->flags)
        snprintf(v->flags, sizeof v->flags, "%s", r->flags);
    mon_run_json_free(r);
}

/* Why a figure that needs events of flag letter is missing: the run was
 * recorded without it, or (with it, early in a run) none has been read
 * yet. Only the first says anything about the run. */
static const char *missing_why(const view *v, char letter, const char *event)
{
    static char why[96];
    if (!v->flags[0])
        snprintf(why, sizeof why, "no %s events read", event);
    else if (strchr(v->flags, letter))
        snprintf(why, sizeof why, "no %s read yet", event);
    else
        snprintf(why, sizeof why, "no %s: recorded without the %c flag", event, letter);
    return why;
}

static double share(uint64_t part, uint64_t whole)
{
    return whole ? (double)part / (double)whole : NAN;
}

static double share_signed(int64_t part, uint64_t whole)
{
    return whole ? (double)(part > 0 ? part : 0) / (double)whole : NAN;
}

static const char *run_state(const view *v)
{
    if (v->read == READ_END)
        return "finished";
    return v->read == READ_BUDGET ? "in progress (reading behind)" : "in progress";
}

/* The data's age: how long ago (this host's clock) the latest event was. */
static double data_age_s(const view *v)
{
    uint64_t now = mon_trace_now_ns(v->trace);
    return now > v->snap.latest_ns ? (double)(now - v->snap.latest_ns) * NS : 0.0;
}

static uint64_t window_ns(const live_snapshot *s) { return s->time_ns - s->window_start_ns; }

static size_t tasks_shown(const view *v)
{
    size_t n = v->snap.n_tasks;
    return v->args->tasks && v->args->tasks < n ? v->args->tasks : n;
}

/* The log states that are not plain (complete, or in progress while live). */
static void print_log_states(FILE *out, const mon_trace *t)
{
    for (unsigned i = 0; i < mon_trace_num_workers(t); i++) {
        mon_log_status st;
        mon_trace_log_status(t, i, &st);
        if (st.state != MON_LOG_COMPLETE && st.state != MON_LOG_IN_PROGRESS &&
            st.state != MON_LOG_READING)
            fprintf(out, "log of worker %u: %s\n", st.worker,
                    st.message ? st.message : mon_log_state_name(st.state));
    }
}

/* Why the throughput so far is n/a, NULL when it is not (docs/METRICS.md
 * section 8): no worker span (recorded without W, or none read yet) or no
 * inputs so far. */
static const char *throughput_unknown_why(const view *v)
{
    const live_snapshot *s = &v->snap;
    if (!s->has_span || !s->span_max_ns)
        return missing_why(v, 'W', "worker_start");
    if (!s->inputs || !s->throughput_span_ns)
        return "no inputs so far (no message traces: recorded without M, or no S-Net records)";
    return NULL;
}

static void print_throughput(FILE *out, const view *v)
{
    const live_snapshot *s = &v->snap;
    fprintf(out, "events %llu   inputs %llu   ", (unsigned long long)s->events,
            (unsigned long long)s->inputs);
    const char *why = throughput_unknown_why(v);
    if (why)
        fprintf(out, "throughput so far n/a (%s)\n", why);
    else if (s->runs > 1)
        fprintf(out, "throughput so far %.3f inputs/s (%llu / %.3f s, the longest worker span of "
                     "each run with inputs, added up; %u runs without inputs)\n",
                (double)s->inputs / ((double)s->throughput_span_ns * NS),
                (unsigned long long)s->inputs, (double)s->throughput_span_ns * NS,
                (unsigned)s->runs_without_inputs);
    else
        fprintf(out, "throughput so far %.3f inputs/s (%llu / %.3f s, worker %u)\n",
                (double)s->inputs / ((double)s->span_max_ns * NS), (unsigned long long)s->inputs,
                (double)s->span_max_ns * NS, s->span_worker);
}

static void print_workers(FILE *out, const live_snapshot *s)
{
    fprintf(out, "\nworker state        busy%%  wait%%  unacc%%  waits |     WE     WT [s]   busy [s]"
                 "   span [s] |  ready [s] blocked [s]    CPU [s] off core [s]\n");
    for (size_t i = 0; i < s->n_workers; i++) {
        const live_worker *w = &s->workers[i];
        if (!strcmp(w->state, "not started") && !w->waits && !w->busy_ns)
            continue;
        fprintf(out, "%6u %-11s %6.1f %6.1f", w->worker, w->state,
                100 * share(w->win_busy_ns, w->win_alive_ns),
                100 * share(w->win_wait_ns, w->win_alive_ns));
        if (w->has_span)
            fprintf(out, " %7.1f", 100 * share_signed(w->win_unaccounted_ns, w->win_alive_ns));
        else
            fprintf(out, " %7s", "n/a");
        fprintf(out, " %6llu | %6llu %10.4f %10.4f", (unsigned long long)w->win_waits,
                (unsigned long long)w->waits, (double)w->wait_ns * NS, (double)w->busy_ns * NS);
        if (w->has_span)
            fprintf(out, " %10.4f", (double)w->span_ns * NS);
        else
            fprintf(out, " %10s", "n/a");
        fprintf(out, " | %10.4f %11.4f", (double)w->ready_ns * NS, (double)w->blocked_ns * NS);
        if (w->cpu_known)
            fprintf(out, " %10.4f %12.4f\n", (double)w->cpu_ns * NS, (double)w->preempted_ns * NS);
        else
            fprintf(out, " %10s %12s\n", "n/a", "n/a");
    }
}

static void print_tasks(FILE *out, const view *v)
{
    const live_snapshot *s = &v->snap;
    size_t n = tasks_shown(v);
    fprintf(out, "\ntasks by execution time in the last interval (%zu of %zu):\n", n, s->n_tasks);
    fprintf(out, " exec%% exec [s]  total [s] dispatches worker task\n");
    for (size_t i = 0; i < n; i++) {
        const live_task *t = &s->tasks[i];
        fprintf(out, "%6.1f %8.4f %10.4f %10llu %6u %s%s (run %u, task %llu)\n",
                100 * share(t->win_exec_ns, window_ns(s)), (double)t->win_exec_ns * NS,
                (double)t->exec_ns * NS, (unsigned long long)t->dispatches, t->worker,
                t->name[0] ? t->name : "?", t->running ? " *" : "", (unsigned)t->run,
                (unsigned long long)t->task);
    }
}

/* ---- the clocks of a run across MPI ranks ---- */

/* The largest uncertainty of a rank's offset: half its round trip. */
static double clock_uncertainty_ns(const mon_clock_alignment *a)
{
    double u = 0;
    for (unsigned i = 0; i < a->ranks; i++)
        if (a->rank[i].has_start && a->rank[i].rtt_ns / 2 > u)
            u = a->rank[i].rtt_ns / 2;
    return u;
}

static const char *clock_method(const mon_clock_alignment *a)
{
    return a->provisional ? "start offsets" : "full";
}

/* The alignment in use, for a multi-rank run followed while it went on:
 * provisional, then full for the last snapshot. (A multi-rank trace that
 * had finished when top opened it is aligned as for every command.) */
static const mon_clock_alignment *clocks_to_show(const view *v)
{
    return v->followed_ranks ? mon_trace_clock_alignment(v->trace) : NULL;
}

static void print_clocks(FILE *out, const view *v)
{
    const mon_clock_alignment *a = clocks_to_show(v);
    if (!a)
        return;
    if (a->provisional)
        fprintf(out, "clocks: %u of %u ranks merged on rank 0's clock by their offsets at the "
                     "start (no drift, no causal fix-up while the run goes on), within %.3f us\n",
                a->joined, a->ranks, clock_uncertainty_ns(a) * 1e-3);
    else
        fprintf(out, "clocks: %u ranks on rank 0's clock, fully aligned (offsets, drift, causal "
                     "fix-up); offsets within %.3f us\n",
                a->ranks, clock_uncertainty_ns(a) * 1e-3);
}

static void print_text(FILE *out, const view *v)
{
    const live_snapshot *s = &v->snap;
    fprintf(out, "snetmon top %s: run %s", v->args->trace, run_state(v));
    if (v->read != READ_END && s->events)
        fprintf(out, ", latest event %.2f s ago", data_age_s(v));
    fprintf(out, "\n%.3f s since the first worker started (trace clock %.6f s); runs %u\n",
            (double)(s->time_ns - s->first_ns) * NS, (double)s->time_ns * NS, (unsigned)s->runs);
    print_throughput(out, v);
    fprintf(out, "last interval: %.3f s (%.6f to %.6f s)", (double)window_ns(s) * NS,
            (double)s->window_start_ns * NS, (double)s->time_ns * NS);
    if (!s->has_periods)
        fprintf(out, "; %s: busy is 0", missing_why(v, 'T', "task_dispatch"));
    fputc('\n', out);
    print_clocks(out, v);
    print_log_states(out, v->trace);
    print_workers(out, s);
    print_tasks(out, v);
}

/* ---- JSON ---- */

static json_t *num_or_null(double x) { return isfinite(x) ? json_real(x) : json_null(); }
static json_t *secs(uint64_t ns) { return json_real((double)ns * NS); }
static json_t *secs_signed(int64_t ns) { return json_real((double)ns * NS); }

static json_t *worker_json(const live_worker *w, const mon_trace *t)
{
    const char *log = "none";
    for (unsigned i = 0; i < mon_trace_num_workers(t); i++) {
        mon_log_status st;
        mon_trace_log_status(t, i, &st);
        if (st.worker == w->worker)
            log = mon_log_state_name(st.state);
    }
    json_t *win = json_pack(
        "{s:o, s:o, s:o, s:o, s:I, s:o, s:o, s:o}", "alive_s", secs(w->win_alive_ns), "busy_s",
        secs(w->win_busy_ns), "wait_s", secs(w->win_wait_ns), "unaccounted_s",
        w->has_span ? secs_signed(w->win_unaccounted_ns) : json_null(), "waits",
        (json_int_t)w->win_waits, "busy_share", num_or_null(share(w->win_busy_ns, w->win_alive_ns)),
        "wait_share", num_or_null(share(w->win_wait_ns, w->win_alive_ns)), "unaccounted_share",
        w->has_span ? num_or_null(share_signed(w->win_unaccounted_ns, w->win_alive_ns))
                    : json_null());
    json_t *o = json_pack("{s:i, s:i, s:s, s:s, s:o, s:o, s:o, s:I, s:o, s:o}", "worker",
                          (int)w->worker, "run", (int)w->run, "state", w->state, "log", log,
                          "span_s", w->has_span ? secs(w->span_ns) : json_null(), "busy_s",
                          secs(w->busy_ns), "wait_s", secs(w->wait_ns), "waits",
                          (json_int_t)w->waits, "unaccounted_s",
                          w->has_span ? secs_signed(w->unaccounted_ns) : json_null(), "window",
                          win);
    if (o) {
        json_object_set_new(o, "blocked_s", secs(w->blocked_ns));
        json_object_set_new(o, "ready_s", secs(w->ready_ns));
        json_object_set_new(o, "cpu_s", w->cpu_known ? secs(w->cpu_ns) : json_null());
        json_object_set_new(o, "preempted_s", w->cpu_known ? secs(w->preempted_ns) : json_null());
        json_object_set_new(o, "preemptions",
                            w->cpu_known ? json_integer((json_int_t)w->preemptions) : json_null());
    }
    return o;
}

static json_t *task_json(const live_task *t, uint64_t window)
{
    return json_pack("{s:i, s:I, s:s, s:i, s:o, s:o, s:o, s:I, s:b, s:o, s:o}", "run",
                     (int)t->run, "task", (json_int_t)t->task, "name", t->name, "worker",
                     (int)t->worker, "exec_s", secs(t->exec_ns), "window_exec_s",
                     secs(t->win_exec_ns), "window_share",
                     num_or_null(share(t->win_exec_ns, window)), "dispatches",
                     (json_int_t)t->dispatches, "running", t->running, "blocked_s",
                     secs(t->blocked_ns), "ready_s", secs(t->ready_ns));
}

static json_t *logs_json(const mon_trace *t)
{
    json_t *logs = json_array();
    for (unsigned i = 0; logs && i < mon_trace_num_workers(t); i++) {
        mon_log_status st;
        mon_trace_log_status(t, i, &st);
        json_array_append_new(
            logs, json_pack("{s:i, s:s, s:I, s:I, s:o}", "worker", (int)st.worker, "state",
                            mon_log_state_name(st.state), "events_read", (json_int_t)st.events_read,
                            "bytes_read", (json_int_t)st.bytes_read, "message",
                            st.message ? json_string(st.message) : json_null()));
    }
    return logs;
}

/* The member "clocks" (clocks_to_show). */
static json_t *clocks_json(const mon_clock_alignment *a)
{
    return json_pack("{s:s, s:i, s:i, s:o}", "method", clock_method(a), "ranks", (int)a->ranks,
                     "merged", (int)a->joined, "uncertainty_s",
                     json_real(clock_uncertainty_ns(a) * NS));
}

static json_t *snapshot_json(const view *v)
{
    const live_snapshot *s = &v->snap;
    const char *why = throughput_unknown_why(v);
    json_t *o = json_pack(
        "{s:s, s:s, s:b, s:o, s:o, s:o, s:o, s:I, s:I, s:i, s:o, s:o, s:o, s:o}", "trace",
        v->args->trace, "run", run_state(v), "live", v->live, "time_s", secs(s->time_ns),
        "elapsed_s", secs(s->time_ns - s->first_ns), "data_age_s",
        v->read != READ_END && s->events ? json_real(data_age_s(v)) : json_null(), "interval_s",
        json_real(v->args->interval_s), "events", (json_int_t)s->events, "inputs",
        (json_int_t)s->inputs, "runs", (int)s->runs, "throughput_per_s",
        why ? json_null() : json_real((double)s->inputs / ((double)s->throughput_span_ns * NS)),
        "throughput_unknown_why", why ? json_string(why) : json_null(),
        "span_s", s->has_span ? secs(s->span_max_ns) : json_null(), "span_worker",
        s->has_span ? json_integer(s->span_worker) : json_null());
    json_t *win = json_pack("{s:o, s:o, s:o}", "start_s", secs(s->window_start_ns), "end_s",
                            secs(s->time_ns), "length_s", secs(window_ns(s)));
    json_t *workers = json_array(), *tasks = json_array();
    for (size_t i = 0; workers && i < s->n_workers; i++)
        if (strcmp(s->workers[i].state, "not started") || s->workers[i].waits)
            json_array_append_new(workers, worker_json(&s->workers[i], v->trace));
    for (size_t i = 0; tasks && i < tasks_shown(v); i++)
        json_array_append_new(tasks, task_json(&s->tasks[i], window_ns(s)));
    if (o) {
        json_object_set_new(o, "window", win);
        json_object_set_new(o, "workers", workers);
        json_object_set_new(o, "tasks", tasks);
        json_object_set_new(o, "tasks_total", json_integer((json_int_t)s->n_tasks));
        json_object_set_new(o, "logs", logs_json(v->trace));
        const mon_clock_alignment *clocks = clocks_to_show(v);
        if (clocks)
            json_object_set_new(o, "clocks", clocks_json(clocks));
    }
    return o;
}

static int print_json(FILE *out, const view *v)
{
    json_t *o = snapshot_json(v);
    if (!o) {
        fprintf(stderr, "snetmon top: out of memory\n");
        return -1;
    }
    int rc = json_dumpf(o, out, JSON_COMPACT | JSON_REAL_PRECISION(12));
    json_decref(o);
    fputc('\n', out);
    return rc;
}

/* ---- the loop ---- */

static void sleep_s(double s)
{
    struct timespec ts = {(time_t)s, (long)((s - floor(s)) * 1e9)};
    while (!stop_requested && nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

static void catch_stop_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL); /* no SA_RESTART: the sleep ends at once */
    sigaction(SIGTERM, &sa, NULL);
}

/* Show one snapshot; -1 on failure. */
static int show(view *v, live_acc *acc, bool redraw)
{
    /* A run still going on is counted up to now: an execution (a wait, a
     * span) open at this moment counts up to it, not to the latest event
     * published (docs/METRICS.md section 8). */
    uint64_t at = v->live && v->read != READ_END ? mon_trace_now_ns(v->trace) : 0;
    if (live_acc_snapshot_at(acc, at, &v->snap) != 0) {
        fprintf(stderr, "snetmon top: out of memory\n");
        return -1;
    }
    if (v->args->json)
        return print_json(stdout, v);
    if (redraw)
        fputs("\033[H\033[J", stdout); /* cursor home, clear to the end */
    else if (!v->args->once)
        fputs("\n", stdout);
    print_text(stdout, v);
    return out_stream_check("top", stdout, "-");
}

/* The figures' accumulator for an interval of a->interval_s; NULL when out
 * of memory (said). */
static live_acc *new_acc(const top_args *a)
{
    live_acc *acc = live_acc_new((uint64_t)(a->interval_s * 1e9));
    if (!acc)
        fprintf(stderr, "snetmon top: out of memory\n");
    return acc;
}

/* A followed run across MPI ranks has ended: what was read is on the
 * start offsets alone (mon_clock_alignment.provisional). The trace is read
 * again from its start into a new accumulator, now aligned in full as for
 * every command that reads a finished trace. -1 on failure (said). */
static int read_again_aligned(view *v, trace_input *in, live_acc **acc, double budget)
{
    live_acc *fresh = new_acc(v->args);
    if (!fresh)
        return -1;
    if (trace_input_rewind(in) != 0) {
        live_acc_free(fresh);
        return -1;
    }
    live_acc_free(*acc);
    *acc = fresh;
    v->trace = trace_input_trace(in);
    v->read = read_available(in, fresh, budget);
    return 0;
}

/* Notes a provisional alignment; true when its trace has ended. */
static bool provisional_end(view *v)
{
    const mon_clock_alignment *c = mon_trace_clock_alignment(v->trace);
    if (!c || !c->provisional)
        return false;
    v->followed_ranks = true;
    return v->read == READ_END;
}

static int run_top(const top_args *a, trace_input *in, live_acc **acc)
{
    view v = {.args = a, .trace = trace_input_trace(in)};
    read_flags(&v);
    bool redraw = !a->once && !a->json && isatty(STDOUT_FILENO);
    /* The first read of a long finished trace may take a while; later ones
     * read one interval's worth. */
    double first = 2 * a->interval_s + 1, budget = a->once ? first : a->interval_s / 2;
    for (unsigned long shown = 0;;) {
        v.read = read_available(in, *acc, budget);
        if (v.read != READ_ERROR && provisional_end(&v) &&
            read_again_aligned(&v, in, acc, first) != 0)
            return 1;
        if (v.read == READ_ERROR)
            return 1;
        v.live = mon_trace_live(v.trace);
        if (show(&v, *acc, redraw) != 0)
            return 1;
        if (a->once || v.read == READ_END || ++shown == a->iterations || stop_requested)
            return 0;
        sleep_s(a->interval_s);
        if (stop_requested)
            return 0;
    }
}

int snetmon_cmd_top(int argc, char **argv)
{
    top_args a;
    int rc = parse_args(argc, argv, &a);
    if (rc)
        return rc == 1 ? 0 : rc;
    trace_input *in = trace_input_open_follow("top", a.trace, a.partial);
    if (!in)
        return 1;
    live_acc *acc = new_acc(&a);
    if (!acc) {
        trace_input_close(in);
        return 1;
    }
    stop_requested = 0;
    catch_stop_signals();
    rc = run_top(&a, in, &acc);
    live_acc_free(acc);
    trace_input_close(in);
    return rc;
}
