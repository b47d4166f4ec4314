/*
 * report_wfb.c - the workflow bridge's analysis of a trace as sections of
 * the HTML report (viz_wfb.h): the same figures `snetmon metrics` and
 * `snetmon wcp` print, taken from the bridge's structures as they are,
 * never computed again. Each section names where docs/METRICS.md defines
 * its figures.
 *
 * Nothing is summed here: a task's blocked and ready time are its rows'
 * own (docs/METRICS.md, section 3), the path's totals the bridge's
 * (wfb_path_step_totals).
 */
#include "viz_internal.h"
#include "viz_wfb.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NUM(v) {NULL, (v)}

typedef struct report_ctx {
    viz_report *r;
    const wfb_graph *g;
    int rc;
} report_ctx;

static void seconds_text(double s, char *buf, size_t len)
{
    if (!isfinite(s))
        snprintf(buf, len, "n/a");
    else
        viz_format_duration((viz_time)llround(s * 1e9), buf, len);
}

/* A duration cell: readable text, sorted by the seconds. */
typedef struct dur_cell {
    char text[32];
} dur_cell;

static viz_report_cell dur(dur_cell *c, double s)
{
    seconds_text(s, c->text, sizeof c->text);
    return (viz_report_cell){c->text, isfinite(s) ? s : NAN};
}

static viz_report_cell count(char *buf, size_t len, double v)
{
    snprintf(buf, len, "%.0f", v);
    return (viz_report_cell){buf, v};
}

static void heading(report_ctx *x, const char *id, const char *title, const char *text)
{
    if (x->rc == VIZ_OK)
        x->rc = viz_report_add_heading(x->r, id, title);
    if (x->rc == VIZ_OK && text)
        x->rc = viz_report_add_text(x->r, text);
}

static void table(report_ctx *x, const char *id, const viz_report_column *cols, size_t n,
                  bool sortable)
{
    if (x->rc == VIZ_OK)
        x->rc = viz_report_add_table(x->r, id, cols, n, sortable);
}

static void row(report_ctx *x, const viz_report_cell *cells, bool highlight)
{
    if (x->rc == VIZ_OK)
        x->rc = viz_report_add_row(x->r, cells, highlight);
}

/* ---------------------------------------------------------------- figures */

static void figure(report_ctx *x, const char *name, const char *value, const char *defined)
{
    viz_report_cell cells[] = {{name, NAN}, {value, NAN}, {defined, NAN}};
    row(x, cells, false);
}

static void throughput_text(double per_s, size_t inputs, double over_s, const char *what,
                            uint32_t worker, const char *why, char *buf, size_t len)
{
    char t[32];
    seconds_text(over_s, t, sizeof t);
    if (!isfinite(per_s))
        snprintf(buf, len, "n/a%s%s", why ? ": " : "", why ? why : "");
    else
        snprintf(buf, len, "%.4g inputs/s = %zu / %s (%s, worker %u)", per_s, inputs, t, what,
                 (unsigned)worker);
}

static void add_figures(report_ctx *x, const wfb_message_report *m)
{
    const wfb_run_figures *f = &m->total;
    static const viz_report_column cols[] = {{"figure", false}, {"value", false},
                                             {"docs/METRICS.md", false}};
    char buf[256], a[32], b[32];
    heading(x, "figures", "Figures", "The figures of `snetmon metrics`, over the whole trace.");
    table(x, "figures-table", cols, 3, false);
    snprintf(buf, sizeof buf, "%zu%s%s", f->inputs, f->inputs_given ? " (given with --inputs)" : "",
             f->inputs_only_read ? " (some read, never written)" : "");
    figure(x, "inputs", buf, "2, Inputs");
    throughput_text(f->throughput_per_s, f->inputs, f->span_s, "the longest worker span",
                    f->span_worker, f->span_unknown_why, buf, sizeof buf);
    figure(x, "throughput (eq. 1)", buf, "2, Throughput (eq. 1)");
    throughput_text(f->throughput_busy_per_s, f->inputs, f->busy_max_s, "the largest busy time",
                    f->busy_worker, NULL, buf, sizeof buf);
    figure(x, "throughput (busy time)", buf, "2, Busy-time throughput");
    seconds_text(f->exec_s, a, sizeof a);
    figure(x, "task execution time, all workers", a, "2, Execution period");
    seconds_text(f->latency.median, a, sizeof a);
    seconds_text(f->latency.max, b, sizeof b);
    if (f->latency_unknown_why)
        snprintf(buf, sizeof buf, "n/a: %s", f->latency_unknown_why);
    else
        snprintf(buf, sizeof buf, "median %s, max %s over %zu inputs (table below)", a, b,
                 f->latency.n);
    figure(x, "latency (eq. 2)", buf, "2, Latency (eq. 2)");
    seconds_text(f->jitter_s, a, sizeof a);
    figure(x, "jitter (eq. 3)", a, "2, Jitter (eq. 3)");
    seconds_text(m->timeout_s, a, sizeof a);
    snprintf(buf, sizeof buf, "p%g = %s: %zu timed out, %zu with missing events",
             m->timeout_percentile, a, m->n_timed_out, m->n_missing);
    figure(x, "lifeline timeout", buf, "2, Lifeline anomalies");
}

static void latency_row(report_ctx *x, const char *stat, double eq2, double e2e)
{
    dur_cell a, b;
    viz_report_cell cells[] = {{stat, NAN}, dur(&a, eq2), dur(&b, e2e)};
    row(x, cells, false);
}

static void add_latency(report_ctx *x, const wfb_run_figures *f)
{
    static const viz_report_column cols[] = {
        {"statistic", false}, {"latency (eq. 2)", true}, {"end-to-end latency", true}};
    char n[32];
    table(x, "latency-table", cols, 3, false);
    snprintf(n, sizeof n, "%zu", f->latency.n);
    viz_report_cell cells[] = {{"inputs", NAN}, {n, (double)f->latency.n}, {n, (double)f->latency.n}};
    row(x, cells, false);
    latency_row(x, "min", f->latency.min, f->end_to_end.min);
    latency_row(x, "median", f->latency.median, f->end_to_end.median);
    latency_row(x, "p95", f->latency.p95, f->end_to_end.p95);
    latency_row(x, "p99", f->latency.p99, f->end_to_end.p99);
    latency_row(x, "max", f->latency.max, f->end_to_end.max);
    latency_row(x, "mean", f->latency.mean, f->end_to_end.mean);
}

static void add_runs(report_ctx *x, const wfb_message_report *m)
{
    if (m->n_runs < 2)
        return;
    static const viz_report_column cols[] = {
        {"run", true},  {"inputs", true},         {"throughput (eq. 1) [inputs/s]", true},
        {"span", true}, {"latency median", true}, {"jitter (eq. 3)", true}};
    heading(x, "runs", "Runs", "Each runtime instance of the trace on its own (docs/METRICS.md, 1).");
    table(x, "runs-table", cols, 6, true);
    for (size_t i = 0; i < m->n_runs; i++) {
        const wfb_run_figures *f = &m->runs[i];
        char run[16], in[32], tp[32];
        dur_cell a, b, c;
        snprintf(tp, sizeof tp, "%.4g", f->throughput_per_s);
        viz_report_cell cells[] = {count(run, sizeof run, f->run), count(in, sizeof in, (double)f->inputs),
                                   {tp, f->throughput_per_s}, dur(&a, f->span_s),
                                   dur(&b, f->latency.median), dur(&c, f->jitter_s)};
        row(x, cells, false);
    }
}

/* ---------------------------------------------------------------- workers */

static void add_workers(report_ctx *x)
{
    static const viz_report_column cols[] = {
        {"run", true},         {"worker", true},      {"span", true},    {"busy", true},
        {"CPU", true},         {"off its core", true}, {"idle", true},   {"waits", true},
        {"unaccounted", true}, {"tasks blocked", true}, {"tasks ready", true}};
    heading(x, "workers", "Time per worker",
            "Per worker: its span (worker_start to worker_end); the time it ran tasks (busy), of "
            "it the CPU time its thread got and the time the OS held its core (off its core; "
            "n/a when recorded without C); the time and number of its waits for work (idle); the "
            "rest (unaccounted); and its tasks' not-running time: blocked (on a stream, until "
            "the other end woke them) and ready (woken, waiting for this worker), summed over "
            "its tasks (docs/METRICS.md, 3).");
    table(x, "workers-table", cols, 11, true);
    for (size_t i = 0; i < wfb_worker_stats_count(x->g); i++) {
        const wfb_worker_stats *w = wfb_worker_stats_at(x->g, i);
        char run[16], worker[48], waits[32];
        dur_cell a, b, c, d, e, f, h, k;
        viz_report_cell who = count(worker, sizeof worker, w->worker);
        if (w->ranked) /* a multi-rank trace: the column's label too */
            snprintf(worker, sizeof worker, "%" PRIu32 " (r%" PRIu32 ".w%" PRIu32 ")", w->worker,
                     w->rank, w->rank_worker);
        viz_report_cell cells[] = {count(run, sizeof run, w->run),
                                   who,
                                   dur(&a, wfb_worker_span(w)),
                                   dur(&b, w->busy_s),
                                   dur(&e, w->cpu_s),
                                   dur(&f, w->preempted_s),
                                   dur(&c, w->wait_s),
                                   count(waits, sizeof waits, (double)w->waits),
                                   dur(&d, wfb_worker_unaccounted(w)),
                                   dur(&h, w->blocked_s),
                                   dur(&k, w->ready_s)};
        row(x, cells, false);
    }
}

/* ------------------------------------------------------------- the path */

/* The timeline column of a location: "w3" -> 3; in a multi-rank trace
 * "r1.w0" -> the worker number of rank 1's worker 0 (the graph's worker
 * rows say which); -1 when the location is not a worker. */
static int location_worker(const wfb_graph *g, uint32_t v)
{
    const char *loc = wfb_vertex_attr(g, v, WFB_ATTR_LOCATION);
    unsigned w, rank;
    char end;
    if (loc && sscanf(loc, "w%u%c", &w, &end) == 1)
        return w < VIZ_MAX_WORKERS ? (int)w : -1;
    if (!loc || sscanf(loc, "r%u.w%u%c", &rank, &w, &end) != 2)
        return -1;
    for (size_t i = 0; i < wfb_worker_stats_count(g); i++) {
        const wfb_worker_stats *ws = wfb_worker_stats_at(g, i);
        if (ws->ranked && ws->rank == rank && ws->rank_worker == w)
            return ws->worker < VIZ_MAX_WORKERS ? (int)ws->worker : -1;
    }
    return -1;
}

/* The task that made vertex i of the path (the label of the edge into it). */
static const char *step_task(const wfb_graph *g, const wfb_path *p, size_t i)
{
    const char *label = i > 0 ? wfb_edge_label(g, p->edges[i - 1]) : NULL;
    if (!label || !*label)
        label = wfb_vertex_attr(g, p->vertices[i], WFB_ATTR_ORIGIN);
    return label && *label ? label : "";
}

/* A path of steps over the timeline: a point where it starts, each time
 * it goes to another worker, and where it ends (on one worker it runs
 * straight down its column). */
static void add_step_points(report_ctx *x, const wfb_path *p)
{
    uint32_t worker_before = 0;
    for (size_t i = 0; i < p->n_steps && x->rc == VIZ_OK; i++) {
        wfb_step step_i = wfb_path_step_at(p, i);
        const wfb_step *s = &step_i;
        bool moves = i == 0 || s->worker != worker_before;
        worker_before = s->worker;
        if (!moves || s->worker >= VIZ_MAX_WORKERS)
            continue;
        char label[400], name[300], step[32];
        const wfb_task_stats *t = s->task < wfb_task_stats_count(x->g)
                                      ? wfb_task_stats_at(x->g, s->task) : NULL;
        snprintf(name, sizeof name, "%s", t && t->name ? t->name : "?");
        seconds_text(s->end_s - s->start_s, step, sizeof step);
        snprintf(label, sizeof label, "%zu: %s %s%s%s on worker %" PRIu32 ", %s", i + 1,
                 wfb_step_kind_name(s->kind), s->kind == WFB_STEP_READY ? wfb_via_name(s->via) : "",
                 s->kind == WFB_STEP_READY ? " " : "", name, s->worker, step);
        x->rc = viz_report_add_path_point(x->r, (int)s->worker, (viz_time)llround(s->start_s * 1e9),
                                          label);
    }
    wfb_step last = p->n_steps ? wfb_path_step_at(p, p->n_steps - 1) : (wfb_step){0};
    if (p->n_steps && x->rc == VIZ_OK && last.worker < VIZ_MAX_WORKERS) {
        const wfb_step *s = &last;
        x->rc = viz_report_add_path_point(x->r, (int)s->worker, (viz_time)llround(s->end_s * 1e9),
                                          "the path's end");
    }
}

static void add_path_points(report_ctx *x, const wfb_path *p)
{
    if (p->n_steps) {
        add_step_points(x, p);
        return;
    }
    for (size_t i = 0; i < p->n && x->rc == VIZ_OK; i++) {
        uint32_t v = p->vertices[i];
        double t = wfb_vertex_end(x->g, v);
        int worker = location_worker(x->g, v);
        if (worker < 0 || !isfinite(t))
            continue;
        char label[400], step[32];
        seconds_text(wfb_path_step(x->g, p, i), step, sizeof step);
        snprintf(label, sizeof label, "%zu: %s on worker %d, %s%s(step %s)", i + 1,
                 wfb_vertex_id(x->g, v), worker, step_task(x->g, p, i),
                 *step_task(x->g, p, i) ? " " : "", step);
        x->rc = viz_report_add_path_point(x->r, worker, (viz_time)llround(t * 1e9), label);
    }
}

/* The as-executed path of steps: where its time went, and the steps that
 * go to another task's dependency (the text of `snetmon wcp`; every step
 * is in `wcp --json`). */
static void add_steps(report_ctx *x, const wfb_path *p)
{
    char text[700], len[32], span[32], su[32], tail[32];
    seconds_text(p->length_s, len, sizeof len);
    seconds_text(p->span_s, span, sizeof span);
    seconds_text(p->start_up_s, su, sizeof su);
    seconds_text(p->tail_s, tail, sizeof tail);
    wfb_step_totals t;
    wfb_path_step_totals(p, &t);
    snprintf(text, sizeof text,
             "The as-executed path as `snetmon wcp` prints it: what each moment of run %" PRIu32
             " waited for, back from the period that ended last: %zu steps, length %s, %.1f%% of "
             "the run's span %s (%s of start-up before it, %s after it); drawn in red over the "
             "timeline, its tasks marked in the task table. Its ready steps by the edge into "
             "them below; the occupancy steps (a ready task waiting for the period that held its "
             "worker) are in `wcp --json` (docs/METRICS.md, 5).",
             p->run, p->n_steps, len, p->span_s > 0 ? 100 * p->length_s / p->span_s : 0.0, span,
             su, tail);
    heading(x, "critical-path", "Critical path", text);
    static const viz_report_column cols[] = {{"kind", false}, {"steps", true},
                                             {"time on the path", true}, {"share", true}};
    table(x, "path-table", cols, 4, false);
    for (int k = 0; k < 3 + 4; k++) {
        bool is_via = k >= 3;
        const char *name = is_via ? wfb_via_name((wfb_via)(k - 2)) : wfb_step_kind_name((wfb_step_kind)k);
        double s = is_via ? t.via_s[k - 2] : t.kind_s[k];
        size_t n = is_via ? t.via_n[k - 2] : t.kind_n[k];
        char label[64], nb[32], share[16];
        snprintf(label, sizeof label, "%s%s", is_via ? "ready after " : "", name);
        snprintf(share, sizeof share, "%.1f%%", p->length_s > 0 ? 100.0 * s / p->length_s : 0.0);
        dur_cell d;
        viz_report_cell cells[] = {{label, NAN}, count(nb, sizeof nb, (double)n), dur(&d, s),
                                   {share, p->length_s > 0 ? s / p->length_s : NAN}};
        row(x, cells, false);
    }
}

static void add_path(report_ctx *x, const wfb_path *p)
{
    char text[400], len[32];
    if (!p || !p->valid) {
        heading(x, "critical-path", "Critical path",
                "No critical path: the trace has no times or no messages (docs/METRICS.md, 5).");
        return;
    }
    if (p->n_steps) {
        add_steps(x, p);
        return;
    }
    seconds_text(p->length_s, len, sizeof len);
    snprintf(text, sizeof text,
             "The %s as `snetmon wcp` prints it: %zu vertices, length %s; drawn in red over the "
             "timeline, its tasks marked in the task table (docs/METRICS.md, 5).",
             wfb_path_kind_name(p->kind), p->n, len);
    heading(x, "critical-path", "Critical path", text);
    static const viz_report_column cols[] = {
        {"step", true}, {"vertex", false}, {"worker", true}, {"task", false},
        {"time on the path", true}, {"share", true}};
    table(x, "path-table", cols, 6, false);
    for (size_t i = 0; i < p->n; i++) {
        uint32_t v = p->vertices[i];
        double s = wfb_path_step(x->g, p, i);
        int worker = location_worker(x->g, v);
        char n[16], w[16] = "", share[16] = "";
        dur_cell d;
        if (p->length_s > 0 && isfinite(s))
            snprintf(share, sizeof share, "%.1f%%", 100.0 * s / p->length_s);
        if (worker >= 0)
            snprintf(w, sizeof w, "%d", worker);
        viz_report_cell cells[] = {count(n, sizeof n, (double)(i + 1)),
                                   {wfb_vertex_id(x->g, v), NAN},
                                   {w, worker >= 0 ? worker : NAN},
                                   {step_task(x->g, p, i), NAN},
                                   dur(&d, s),
                                   {share, p->length_s > 0 ? s / p->length_s : NAN}};
        row(x, cells, true);
    }
}

/* ---------------------------------------------------------------- tasks */

typedef struct task_ref {
    uint32_t run;
    uint64_t task;
    size_t index;
} task_ref;

static int compare_refs(const void *a, const void *b)
{
    const task_ref *x = a, *y = b;
    if (x->run != y->run)
        return x->run < y->run ? -1 : 1;
    return x->task < y->task ? -1 : x->task > y->task;
}

static const wfb_task_stats *find_task(const wfb_graph *g, const task_ref *refs, size_t n,
                                       uint32_t run, uint64_t task)
{
    task_ref key = {run, task, 0};
    const task_ref *r = bsearch(&key, refs, n, sizeof *refs, compare_refs);
    return r ? wfb_task_stats_at(g, r->index) : NULL;
}

static bool on_path(const wfb_graph *g, const wfb_path *p, const char *name)
{
    for (size_t i = 0; p && p->valid && name && i < p->n_steps; i++) {
        wfb_step step_i = wfb_path_step_at(p, i);
        const wfb_step *s = &step_i;
        if (s->kind == WFB_STEP_RUN && s->task < wfb_task_stats_count(g) &&
            wfb_task_stats_at(g, s->task)->name && !strcmp(wfb_task_stats_at(g, s->task)->name, name))
            return true;
    }
    for (size_t i = 1; p && p->valid && name && i < p->n; i++) {
        const char *label = wfb_edge_label(g, p->edges[i - 1]);
        if (label && !strcmp(label, name))
            return true;
    }
    return false;
}

static void task_row(report_ctx *x, const wfb_task_stats *t, bool critical)
{
    char run[16], id[32], worker[16], disp[32], execs[32], blocked[32];
    dur_cell e, w, r;
    const char *name = t->name ? t->name : "";
    double blocks = (double)(t->blocks[0] + t->blocks[1] + t->blocks[2]);
    viz_report_cell cells[] = {count(run, sizeof run, t->run),
                               count(id, sizeof id, (double)t->task),
                               {name, NAN},
                               {mon_task_kind(name), NAN},
                               count(worker, sizeof worker, t->worker),
                               dur(&e, t->exec_s),
                               count(disp, sizeof disp, (double)t->dispatches),
                               count(execs, sizeof execs, (double)t->executions),
                               count(blocked, sizeof blocked, blocks),
                               dur(&w, t->blocked_s),
                               dur(&r, t->ready_s),
                               {critical ? "yes" : "", critical ? 1 : 0}};
    row(x, cells, critical);
}

static void add_tasks(report_ctx *x, const wfb_path *p, const task_ref *refs)
{
    static const viz_report_column cols[] = {
        {"run", true},        {"task", true},   {"name", false},    {"kind", false},
        {"worker", true},     {"execution time", true}, {"dispatches", true},
        {"executions", true}, {"blocks", true}, {"blocked", true},  {"ready", true},
        {"critical path", true}};
    heading(x, "tasks", "Tasks",
            "Every task: its execution time, dispatches, component executions, how often it "
            "blocked on a stream, and, of its waits, the time it was blocked (until the other "
            "end woke it) and then ready (waiting for its worker). Click a column to sort by it "
            "(docs/METRICS.md, 3).");
    table(x, "tasks-table", cols, 12, true);
    size_t n = wfb_task_stats_count(x->g);
    for (size_t i = 0; i < n; i++) {
        const wfb_task_stats *t = wfb_task_stats_at(x->g, refs[i].index);
        task_row(x, t, on_path(x->g, p, t->name));
    }
}

static void add_relations(report_ctx *x, const task_ref *refs, size_t ntasks)
{
    static const viz_report_column cols[] = {
        {"run", true},         {"task", false},  {"waits for", false}, {"stream", true},
        {"stream was", false}, {"times", true},  {"blocked", true},    {"then ready", true}};
    heading(x, "waits", "Waiting relations",
            "W(A, B): task A blocked on a stream whose other end, task B, woke it: how often, "
            "how long A was blocked (until the wake) and then ready (until its dispatch: waiting "
            "for its worker, not for B) (docs/METRICS.md, 3).");
    table(x, "waits-table", cols, 8, true);
    for (size_t i = 0; i < wfb_wait_relation_count(x->g); i++) {
        const wfb_wait_relation *w = wfb_wait_relation_at(x->g, i);
        const wfb_task_stats *a = find_task(x->g, refs, ntasks, w->run, w->waiter);
        const wfb_task_stats *b = find_task(x->g, refs, ntasks, w->run, w->waited_for);
        char run[16], stream[32], times[32], an[300], bn[300];
        dur_cell d, e;
        snprintf(an, sizeof an, "%s (%llu)", a && a->name ? a->name : "?",
                 (unsigned long long)w->waiter);
        if (w->waited_for)
            snprintf(bn, sizeof bn, "%s (%llu)", b && b->name ? b->name : "unnamed",
                     (unsigned long long)w->waited_for);
        else
            snprintf(bn, sizeof bn, "unknown (no wake, no stream_open of the other end)");
        viz_report_cell cells[] = {count(run, sizeof run, w->run),
                                   {an, NAN},
                                   {bn, NAN},
                                   count(stream, sizeof stream, (double)w->stream),
                                   {w->on_empty ? "empty" : "full", NAN},
                                   count(times, sizeof times, (double)w->count),
                                   dur(&d, w->total_s),
                                   dur(&e, w->ready_s)};
        row(x, cells, false);
    }
}

static void add_loss(report_ctx *x)
{
    const wfb_input_loss *loss = wfb_graph_input_loss(x->g);
    if (!loss)
        return;
    char summary[200], text[400];
    wfb_input_loss_summary(loss, summary, sizeof summary);
    snprintf(text, sizeof text,
             "This trace was read with --partial: %s. Every figure covers the events that could "
             "be read (docs/METRICS.md, 6).",
             summary);
    heading(x, "loss", "What could not be read", text);
    static const viz_report_column cols[] = {{"worker", true}, {"state", false},
                                             {"events read", true}, {"problem", false}};
    table(x, "loss-table", cols, 4, false);
    for (size_t i = 0; i < loss->n_logs; i++) {
        const wfb_log_loss *l = &loss->logs[i];
        char w[16], n[32];
        viz_report_cell cells[] = {count(w, sizeof w, l->worker), {l->state, NAN},
                                   count(n, sizeof n, (double)l->events_read), {l->message, NAN}};
        row(x, cells, false);
    }
}

/* A multi-rank trace: how its ranks' clocks were put on rank 0's
 * (docs/METRICS.md, 10). */
static void add_clocks(report_ctx *x)
{
    const wfb_clock_alignment *a = wfb_graph_clock_alignment(x->g);
    if (!a)
        return;
    char text[600], title[64];
    snprintf(title, sizeof title, "Clock alignment of %zu ranks", a->ranks);
    snprintf(text, sizeof text,
             "Each rank's events were put on rank 0's clock by its offset measurements, then "
             "checked against the %" PRIu64 " messages between ranks: %" PRIu64
             " received before sent on the recorded clocks, %" PRIu64
             " after the linear correction (worst %.0f ns), %" PRIu64
             " receives moved to their send plus %.0f ns, %" PRIu64
             " left; %" PRIu64 " receives without their send (docs/METRICS.md, 10).",
             a->messages, a->raw_violations, a->violations, a->worst_ns, a->fixed, a->latency_ns,
             a->after, a->unmatched);
    heading(x, "clocks", title, text);
    static const viz_report_column cols[] = {{"rank", true},      {"samples", true},
                                             {"offset (ns)", true}, {"drift (ppm)", true},
                                             {"round trip (ns)", true}, {"largest shift (ns)", true}};
    table(x, "clocks-table", cols, 6, false);
    for (size_t i = 0; i < a->ranks; i++) {
        const wfb_rank_clock *c = &a->rank[i];
        char rank[16], samples[16], off[32], drift[32], rtt[32], shift[32];
        snprintf(off, sizeof off, "%.0f", c->offset_ns);
        snprintf(drift, sizeof drift, "%.3f", c->drift_ppm);
        snprintf(rtt, sizeof rtt, "%.0f", c->rtt_ns);
        snprintf(shift, sizeof shift, "%.0f", c->shift_max_ns);
        viz_report_cell cells[] = {count(rank, sizeof rank, c->rank),
                                   count(samples, sizeof samples, c->samples),
                                   {off, c->offset_ns},
                                   {drift, c->drift_ppm},
                                   {rtt, c->rtt_ns},
                                   {shift, c->shift_max_ns}};
        row(x, cells, false);
    }
}

int viz_wfb_report_add(viz_report *r, const wfb_graph *g, const wfb_message_report *m,
                       const wfb_path *path, viz_timeline *tl, char *err, size_t errlen)
{
    report_ctx x = {r, g, VIZ_OK};
    size_t ntasks = wfb_task_stats_count(g);
    task_ref *refs = malloc((ntasks ? ntasks : 1) * sizeof *refs);
    if (!refs) {
        viz_set_error(err, errlen, "out of memory");
        return VIZ_ENOMEM;
    }
    for (size_t i = 0; i < ntasks; i++) {
        const wfb_task_stats *t = wfb_task_stats_at(g, i);
        refs[i] = (task_ref){t->run, t->task, i};
    }
    qsort(refs, ntasks, sizeof *refs, compare_refs);
    add_loss(&x);
    add_clocks(&x);
    add_figures(&x, m);
    add_latency(&x, &m->total);
    add_runs(&x, m);
    if (tl) {
        heading(&x, "utilisation", "Worker utilisation",
                "The image `snetmon render` draws, with the critical path in red: one column "
                "per worker, time running down, task periods coloured by kind, waiting grey, "
                "unaccounted white.");
        if (x.rc == VIZ_OK)
            x.rc = viz_report_add_timeline(r, tl);
        if (path && path->valid)
            add_path_points(&x, path);
    }
    add_workers(&x);
    add_path(&x, path);
    add_tasks(&x, path, refs);
    add_relations(&x, refs, ntasks);
    free(refs);
    if (x.rc != VIZ_OK)
        viz_set_error(err, errlen, "%s", viz_report_error(r));
    return x.rc;
}
