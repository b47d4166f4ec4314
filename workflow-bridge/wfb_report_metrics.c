/*
 * wfb_report_metrics.c - `snetmon metrics` reports: the activity, message
 * and runtime figures as readable text, stable JSON (docs/EVENTS.md) or
 * CSV tables. Every figure printed is defined in docs/METRICS.md, under the
 * name printed here; a figure the input cannot give is printed as n/a (JSON
 * null) with the reason, never as a number.
 */
#include "wfb_internal.h"

#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define num wfb_json_num
#define str_or_null wfb_json_str

/* Why a worker's CPU figures are n/a. */
#define CPU_UNKNOWN_WHY "no CPU readings: record with -m C (trace format 3.2)"

/* ---- JSON ---- */

static json_t *summary_json(wfb_json_doc *d, const wfb_summary *s)
{
    json_t *o = json_object();
    wfb_json_set(d, o, "n", json_integer((json_int_t)s->n));
    wfb_json_set(d, o, "min", num(s->min));
    wfb_json_set(d, o, "median", num(s->median));
    wfb_json_set(d, o, "p95", num(s->p95));
    wfb_json_set(d, o, "p99", num(s->p99));
    wfb_json_set(d, o, "max", num(s->max));
    wfb_json_set(d, o, "mean", num(s->mean));
    wfb_json_set(d, o, "stddev", num(s->stddev));
    return o;
}

static json_t *forks_json(wfb_json_doc *d, const wfb_graph *g, const wfb_activity_report *r)
{
    json_t *forks = json_array();
    for (size_t i = 0; i < r->n_forks; i++) {
        const wfb_fork_metrics *f = &r->forks[i];
        json_t *fj = json_object();
        wfb_json_set(d, fj, "fork", json_string(wfb_vertex_id(g, f->fork)));
        wfb_json_set(d, fj, "branches", json_integer((json_int_t)f->branches));
        wfb_json_set(d, fj, "max_s", num(f->max_s));
        wfb_json_set(d, fj, "mean_s", num(f->mean_s));
        wfb_json_set(d, fj, "min_s", num(f->min_s));
        wfb_json_set(d, fj, "load_imbalance_s", num(f->load_imbalance_s));
        wfb_json_set(d, fj, "imbalance_pct", num(f->imbalance_pct));
        wfb_json_set(d, fj, "slowdown_factor", num(f->slowdown_factor));
        wfb_json_append(d, forks, fj);
    }
    return forks;
}

static json_t *activities_json(wfb_json_doc *d, const wfb_graph *g, const wfb_activity_report *r)
{
    json_t *o = json_object(), *deps = json_array(), *per = json_array();
    wfb_json_set(d, o, "count", json_integer((json_int_t)r->n_activities));
    wfb_json_set(d, o, "failed", json_integer((json_int_t)r->n_failed));
    wfb_json_set(d, o, "not_started", json_integer((json_int_t)r->n_not_started));
    wfb_json_set(d, o, "makespan_s", num(r->makespan_s));
    wfb_json_set(d, o, "makespan_declared", json_boolean(r->makespan_declared));
    wfb_json_set(d, o, "makespan_measured_s", num(r->makespan_measured_s));
    wfb_json_set(d, o, "response_s", summary_json(d, &r->response));
    wfb_json_set(d, o, "waiting_s", summary_json(d, &r->waiting));
    wfb_json_set(d, o, "processing_s", summary_json(d, &r->processing));
    wfb_json_set(d, o, "sync_delay_s", summary_json(d, &r->sync_delay));
    wfb_json_set(d, o, "load_imbalance_s", summary_json(d, &r->load_imbalance));
    wfb_json_set(d, o, "slowdown_factor", summary_json(d, &r->slowdown_factor));
    wfb_json_set(d, o, "forks", forks_json(d, g, r));
    for (size_t i = 0; i < r->n_dependencies; i++) {
        const wfb_dependency_metrics *dep = &r->dependencies[i];
        json_t *dj = json_object();
        wfb_json_set(d, dj, "parent", json_string(wfb_vertex_id(g, dep->parent)));
        wfb_json_set(d, dj, "child", json_string(wfb_vertex_id(g, dep->child)));
        wfb_json_set(d, dj, "sync_delay_s", num(dep->sync_delay_s));
        wfb_json_append(d, deps, dj);
    }
    wfb_json_set(d, o, "dependencies", deps);
    for (size_t i = 0; i < r->n_activities; i++) {
        const wfb_activity_metrics *m = &r->activities[i];
        json_t *aj = json_object();
        wfb_json_set(d, aj, "id", json_string(wfb_vertex_id(g, m->vertex)));
        wfb_json_set(d, aj, "response_s", num(m->response_s));
        wfb_json_set(d, aj, "waiting_s", num(m->waiting_s));
        wfb_json_set(d, aj, "processing_s", num(m->processing_s));
        wfb_json_set(d, aj, "failed", json_boolean(wfb_vertex_failed(g, m->vertex)));
        wfb_json_set(d, aj, "not_started", json_boolean(m->not_started));
        wfb_json_append(d, per, aj);
    }
    wfb_json_set(d, o, "per_activity", per);
    return o;
}

/* The figures of a run (or of all runs: run 0) as JSON members of o. */
static void figures_json(wfb_json_doc *d, json_t *o, const wfb_run_figures *f)
{
    wfb_json_set(d, o, "inputs", json_integer((json_int_t)f->inputs));
    wfb_json_set(d, o, "inputs_given", json_boolean(f->inputs_given));
    wfb_json_set(d, o, "inputs_only_read", json_integer((json_int_t)f->inputs_only_read));
    wfb_json_set(d, o, "throughput_per_s", num(f->throughput_per_s));
    wfb_json_set(d, o, "span_s", num(f->span_s));
    wfb_json_set(d, o, "span_worker", isnan(f->span_s) || f->span_worker == WFB_NONE
                                          ? json_null()
                                          : json_integer(f->span_worker));
    wfb_json_set(d, o, "span_unknown_why", str_or_null(f->span_unknown_why));
    wfb_json_set(d, o, "throughput_unknown_why", str_or_null(f->throughput_unknown_why));
    wfb_json_set(d, o, "throughput_busy_per_s", num(f->throughput_busy_per_s));
    wfb_json_set(d, o, "busy_max_s", num(f->busy_max_s));
    wfb_json_set(d, o, "exec_s", num(f->exec_s));
    wfb_json_set(d, o, "latency_s", summary_json(d, &f->latency));
    wfb_json_set(d, o, "latency_basis", json_string(f->cpu_time ? "cpu" : "dispatched"));
    wfb_json_set(d, o, "latency_unknown_why", str_or_null(f->latency_unknown_why));
    wfb_json_set(d, o, "end_to_end_s", summary_json(d, &f->end_to_end));
    wfb_json_set(d, o, "jitter_s", num(f->jitter_s));
}

static json_t *messages_json(wfb_json_doc *d, const wfb_graph *g, const wfb_message_report *r)
{
    json_t *o = json_object(), *anom = json_array(), *runs = json_array();
    figures_json(d, o, &r->total);
    wfb_json_set(d, o, "runs_without_inputs",
                    json_integer((json_int_t)r->total.runs_without_inputs));
    wfb_json_set(d, o, "timeout_percentile", num(r->timeout_percentile));
    wfb_json_set(d, o, "timeout_s", num(r->timeout_s));
    wfb_json_set(d, o, "missing_events", json_integer((json_int_t)r->n_missing));
    wfb_json_set(d, o, "timed_out", json_integer((json_int_t)r->n_timed_out));
    for (size_t i = 0; i < r->n_inputs; i++) {
        wfb_lifeline line = wfb_message_lifeline(r, i);
        const wfb_lifeline *l = &line;
        if (!l->missing_events && !l->timed_out)
            continue;
        json_t *a = json_object();
        wfb_json_set(d, a, "input", json_string(wfb_vertex_id(g, l->input)));
        wfb_json_set(d, a, "latency_s", num(l->latency_s));
        wfb_json_set(d, a, "missing_events", json_boolean(l->missing_events));
        wfb_json_set(d, a, "timed_out", json_boolean(l->timed_out));
        wfb_json_append(d, anom, a);
    }
    wfb_json_set(d, o, "anomalies", anom);
    for (size_t i = 0; i < r->n_runs; i++) {
        json_t *rj = json_object();
        wfb_json_set(d, rj, "run", json_integer(r->runs[i].run));
        figures_json(d, rj, &r->runs[i]);
        wfb_json_append(d, runs, rj);
    }
    wfb_json_set(d, o, "runs", runs);
    return o;
}

static json_t *workers_json(wfb_json_doc *d, const wfb_graph *g)
{
    json_t *workers = json_array();
    for (size_t i = 0; i < wfb_worker_stats_count(g); i++) {
        const wfb_worker_stats *w = wfb_worker_stats_at(g, i);
        json_t *o = json_object();
        wfb_json_set(d, o, "run", json_integer(w->run));
        wfb_json_set(d, o, "worker", json_integer(w->worker));
        if (w->ranked) { /* a multi-rank trace: which rank's which worker */
            wfb_json_set(d, o, "rank", json_integer(w->rank));
            wfb_json_set(d, o, "rank_worker", json_integer(w->rank_worker));
        }
        wfb_json_set(d, o, "start_s", num(w->start_s));
        wfb_json_set(d, o, "end_s", num(w->end_s));
        wfb_json_set(d, o, "span_s", num(wfb_worker_span(w)));
        wfb_json_set(d, o, "busy_s", num(w->busy_s));
        wfb_json_set(d, o, "wait_s", num(w->wait_s));
        wfb_json_set(d, o, "waits", json_integer((json_int_t)w->waits));
        wfb_json_set(d, o, "unaccounted_s", num(wfb_worker_unaccounted(w)));
        wfb_json_set(d, o, "blocked_s", num(w->blocked_s));
        wfb_json_set(d, o, "ready_s", num(w->ready_s));
        wfb_json_set(d, o, "cpu_s", num(w->cpu_s));
        wfb_json_set(d, o, "preempted_s", num(w->preempted_s));
        wfb_json_set(d, o, "preempted_share", num(wfb_worker_preempted_share(w)));
        wfb_json_set(d, o, "preemptions", isnan(w->cpu_s)
                                              ? json_null()
                                              : json_integer((json_int_t)w->preemptions));
        wfb_json_set(d, o, "preempted_periods",
                        isnan(w->cpu_s) ? json_null()
                                        : json_integer((json_int_t)w->preempted_periods));
        wfb_json_set(d, o, "cpu_unknown_why",
                        isnan(w->cpu_s) ? json_string(CPU_UNKNOWN_WHY) : json_null());
        wfb_json_append(d, workers, o);
    }
    return workers;
}

static json_t *tasks_json(wfb_json_doc *d, const wfb_graph *g)
{
    json_t *tasks = json_array();
    for (size_t i = 0; i < wfb_task_stats_count(g); i++) {
        const wfb_task_stats *t = wfb_task_stats_at(g, i);
        json_t *o = json_object(), *b = json_object();
        wfb_json_set(d, o, "run", json_integer(t->run));
        wfb_json_set(d, o, "task", json_integer((json_int_t)t->task));
        wfb_json_set(d, o, "name", str_or_null(t->name));
        wfb_json_set(d, o, "worker", json_integer(t->worker));
        wfb_json_set(d, o, "exec_s", num(t->exec_s));
        wfb_json_set(d, o, "cpu_s", num(wfb_cpu_known(g) ? t->exec_s - t->preempted_s : NAN));
        wfb_json_set(d, o, "preempted_s", num(wfb_cpu_known(g) ? t->preempted_s : NAN));
        wfb_json_set(d, o, "blocked_s", num(t->blocked_s));
        wfb_json_set(d, o, "ready_s", num(t->ready_s));
        wfb_json_set(d, o, "dispatches", json_integer((json_int_t)t->dispatches));
        wfb_json_set(d, o, "executions", json_integer((json_int_t)t->executions));
        wfb_json_set(d, b, "input", json_integer((json_int_t)t->blocks[0]));
        wfb_json_set(d, b, "output", json_integer((json_int_t)t->blocks[1]));
        wfb_json_set(d, b, "any", json_integer((json_int_t)t->blocks[2]));
        wfb_json_set(d, b, "other", json_integer((json_int_t)t->blocks[3]));
        wfb_json_set(d, o, "blocks", b);
        wfb_json_append(d, tasks, o);
    }
    return tasks;
}

/* Name of a task of a run from the runtime table, NULL when unknown. */
/* Task names by (run, task id), for the waiting relations, which name both
 * their tasks: one search through the task table per name made the report
 * quadratic (0.45 s of 0.47 s for `metrics` on a 10^4-task trace). */
typedef struct task_names {
    const wfb_graph *g;
    struct named_task {
        uint32_t run;
        uint64_t task;
        const char *name;
    } *v; /* sorted by (run, task); NULL when out of memory: searched instead */
    size_t n;
} task_names;

static int by_run_task(const void *x, const void *y)
{
    const struct named_task *a = x, *b = y;
    if (a->run != b->run)
        return a->run < b->run ? -1 : 1;
    return (a->task > b->task) - (a->task < b->task);
}

static task_names task_names_of(const wfb_graph *g)
{
    task_names tn = {g, NULL, wfb_task_stats_count(g)};
    if (tn.n && (tn.v = malloc(tn.n * sizeof *tn.v))) {
        for (size_t i = 0; i < tn.n; i++) {
            const wfb_task_stats *t = wfb_task_stats_at(g, i);
            tn.v[i] = (struct named_task){t->run, t->task, t->name};
        }
        qsort(tn.v, tn.n, sizeof *tn.v, by_run_task);
    }
    return tn;
}

static const char *task_name(const task_names *tn, uint32_t run, uint64_t task)
{
    if (tn->v) {
        struct named_task key = {run, task, NULL};
        const struct named_task *hit = bsearch(&key, tn->v, tn->n, sizeof *tn->v, by_run_task);
        return hit ? hit->name : NULL;
    }
    for (size_t i = 0; i < tn->n; i++) {
        const wfb_task_stats *t = wfb_task_stats_at(tn->g, i);
        if (t->task == task && t->run == run)
            return t->name;
    }
    return NULL;
}

/* Why a waiting relation names no task waited for. */
#define WAITED_FOR_UNKNOWN_WHY                                                                 \
    "the trace has neither the wake nor the other end's stream_open (lost events, or a task "  \
    "--mon-tasks left out)"

static json_t *waits_json(wfb_json_doc *d, const wfb_graph *g)
{
    task_names tn = task_names_of(g);
    json_t *list = json_array();
    for (size_t i = 0; i < wfb_wait_relation_count(g); i++) {
        const wfb_wait_relation *w = wfb_wait_relation_at(g, i);
        json_t *o = json_object();
        wfb_json_set(d, o, "run", json_integer(w->run));
        wfb_json_set(d, o, "waiter", json_integer((json_int_t)w->waiter));
        wfb_json_set(d, o, "waiter_name", str_or_null(task_name(&tn, w->run, w->waiter)));
        wfb_json_set(d, o, "waited_for", json_integer((json_int_t)w->waited_for));
        wfb_json_set(d, o, "waited_for_name",
                        str_or_null(task_name(&tn, w->run, w->waited_for)));
        wfb_json_set(d, o, "stream", json_integer((json_int_t)w->stream));
        wfb_json_set(d, o, "on", json_string(w->on_empty ? "empty" : "full"));
        wfb_json_set(d, o, "via", json_string(w->on_channel ? "channel" : "stream"));
        wfb_json_set(d, o, "count", json_integer((json_int_t)w->count));
        wfb_json_set(d, o, "total_s", num(w->total_s));
        wfb_json_set(d, o, "ready_s", num(w->ready_s));
        wfb_json_set(d, o, "woken", json_integer((json_int_t)w->woken));
        wfb_json_set(d, o, "waited_for_unknown_why",
                        str_or_null(w->waited_for ? NULL : WAITED_FOR_UNKNOWN_WHY));
        wfb_json_append(d, list, o);
    }
    free(tn.v);
    return list;
}

/* The text of a worker's preemption warning (docs/METRICS.md section 3),
 * "" when its share is below WFB_PREEMPTED_WARN_SHARE. */
static const char *preemption_warning(const wfb_graph *g, const wfb_worker_stats *w, char *buf,
                                      size_t len)
{
    double share = wfb_worker_preempted_share(w);
    buf[0] = '\0';
    if (!(share > WFB_PREEMPTED_WARN_SHARE))
        return buf;
    char name[64], run[32] = "";
    if (wfb_run_count(g) > 1)
        snprintf(run, sizeof run, " of run %" PRIu32, w->run);
    snprintf(buf, len,
             "%s%s was off its core %.6g s, %.1f%% of its span (the OS ran something else: %llu "
             "involuntary switches, %llu of its periods hit): its busy time and its tasks' "
             "execution times count that time, and with them latency (eq. 2), jitter (eq. 3), the "
             "busy-time throughput and the as-executed path; `snetmon metrics --cpu-time` gives "
             "latency and jitter over CPU time",
             wfb_worker_name(g, w->run, w->worker, name, sizeof name), run, w->preempted_s,
             100 * share, (unsigned long long)w->preemptions,
             (unsigned long long)w->preempted_periods);
    return buf;
}

static json_t *warnings_json(wfb_json_doc *d, const wfb_graph *g)
{
    static const char *const affects[] = {"busy_s", "exec_s", "latency_s", "jitter_s",
                                          "throughput_busy_per_s", "as_executed"};
    json_t *list = json_array();
    for (size_t i = 0; i < wfb_worker_stats_count(g); i++) {
        const wfb_worker_stats *w = wfb_worker_stats_at(g, i);
        char text[1024];
        if (!*preemption_warning(g, w, text, sizeof text))
            continue;
        json_t *o = json_object(), *a = json_array();
        wfb_json_set(d, o, "kind", json_string("preempted"));
        wfb_json_set(d, o, "run", json_integer(w->run));
        wfb_json_set(d, o, "worker", json_integer(w->worker));
        wfb_json_set(d, o, "preempted_s", num(w->preempted_s));
        wfb_json_set(d, o, "share", num(wfb_worker_preempted_share(w)));
        wfb_json_set(d, o, "threshold", num(WFB_PREEMPTED_WARN_SHARE));
        for (size_t k = 0; k < sizeof affects / sizeof affects[0]; k++)
            wfb_json_append(d, a, json_string(affects[k]));
        wfb_json_set(d, o, "affects", a);
        wfb_json_set(d, o, "message", json_string(text));
        wfb_json_append(d, list, o);
    }
    return list;
}

static int metrics_json(const wfb_graph *g, const wfb_metrics_input *in, FILE *out)
{
    wfb_json_doc doc = {0}, *d = &doc;
    json_t *root = json_object(), *anom = json_array();
    wfb_json_set(d, root, "input", json_string(wfb_graph_source(g)));
    wfb_json_set(d, root, "vertices", json_integer((json_int_t)wfb_vertex_count(g)));
    wfb_json_set(d, root, "edges", json_integer((json_int_t)wfb_edge_count(g)));
    wfb_json_set(d, root, "runs", json_integer(wfb_run_count(g)));
    wfb_json_set(d, root, "input_loss", wfb_input_loss_json(d, wfb_graph_input_loss(g)));
    if (wfb_graph_clock_alignment(g)) /* multi-rank traces only */
        wfb_json_set(d, root, "clock_alignment",
                        wfb_clock_alignment_json(d, wfb_graph_clock_alignment(g)));
    wfb_json_set(d, root, "activity_metrics", in->activities && in->activities->n_activities
                                                  ? activities_json(d, g, in->activities)
                                                  : json_null());
    wfb_json_set(d, root, "message_metrics", in->messages && in->messages->n_inputs
                                                 ? messages_json(d, g, in->messages)
                                                 : json_null());
    for (size_t i = 0; i < in->n_anomalies; i++)
        wfb_json_append(d, anom, json_string(wfb_vertex_id(g, in->anomalies[i])));
    wfb_json_set(d, root, "activity_anomalies", anom);
    wfb_json_set(d, root, "warnings", warnings_json(d, g));
    wfb_json_set(d, root, "workers", workers_json(d, g));
    wfb_json_set(d, root, "tasks", tasks_json(d, g));
    wfb_json_set(d, root, "waiting_relations", waits_json(d, g));
    if (in->has_speedup) {
        json_t *s = json_object();
        wfb_json_set(d, s, "other", str_or_null(in->compare_source));
        wfb_json_set(d, s, "common_activities", json_integer((json_int_t)in->speedup_common));
        wfb_json_set(d, s, "factor", num(in->speedup));
        wfb_json_set(d, root, "speedup", s);
    } else {
        wfb_json_set(d, root, "speedup", json_null());
    }
    return wfb_json_dump(d, root, out);
}

/* ---- CSV ---- */

static void csv_num(FILE *out, double x)
{
    if (isnan(x))
        fputs(",", out);
    else
        fprintf(out, ",%.9g", x);
}

static void activities_csv(const wfb_graph *g, const wfb_activity_report *a, FILE *out)
{
    fprintf(out, "activity,response_s,waiting_s,processing_s,failed,not_started\n");
    for (size_t i = 0; i < a->n_activities; i++) {
        const wfb_activity_metrics *x = &a->activities[i];
        wfb_csv_field(out, wfb_vertex_id(g, x->vertex));
        csv_num(out, x->response_s);
        csv_num(out, x->waiting_s);
        csv_num(out, x->processing_s);
        fprintf(out, ",%d,%d\n", wfb_vertex_failed(g, x->vertex), x->not_started);
    }
    if (a->n_dependencies) {
        fprintf(out, "\nparent,child,sync_delay_s\n");
        for (size_t i = 0; i < a->n_dependencies; i++) {
            const wfb_dependency_metrics *d = &a->dependencies[i];
            wfb_csv_field(out, wfb_vertex_id(g, d->parent));
            fputc(',', out);
            wfb_csv_field(out, wfb_vertex_id(g, d->child));
            csv_num(out, d->sync_delay_s);
            fputc('\n', out);
        }
    }
    if (a->n_forks) {
        fprintf(out, "\nfork,branches,max_s,mean_s,min_s,load_imbalance_s,imbalance_pct,"
                     "slowdown_factor\n");
        for (size_t i = 0; i < a->n_forks; i++) {
            const wfb_fork_metrics *f = &a->forks[i];
            wfb_csv_field(out, wfb_vertex_id(g, f->fork));
            fprintf(out, ",%zu", f->branches);
            csv_num(out, f->max_s);
            csv_num(out, f->mean_s);
            csv_num(out, f->min_s);
            csv_num(out, f->load_imbalance_s);
            csv_num(out, f->imbalance_pct);
            csv_num(out, f->slowdown_factor);
            fputc('\n', out);
        }
    }
}

static void figures_csv(const char *run, const wfb_run_figures *f, FILE *out)
{
    fprintf(out, "%s,%zu", run, f->inputs);
    csv_num(out, f->throughput_per_s);
    csv_num(out, f->span_s);
    csv_num(out, f->throughput_busy_per_s);
    csv_num(out, f->busy_max_s);
    csv_num(out, f->exec_s);
    csv_num(out, f->latency.mean);
    csv_num(out, f->latency.max);
    csv_num(out, f->end_to_end.mean);
    csv_num(out, f->jitter_s);
    fputc('\n', out);
}

static void messages_csv(const wfb_graph *g, const wfb_message_report *m, FILE *out)
{
    fprintf(out, "run,inputs,throughput_per_s,span_s,throughput_busy_per_s,busy_max_s,exec_s,"
                 "latency_mean_s,latency_max_s,end_to_end_mean_s,jitter_s\n");
    for (size_t i = 0; i < m->n_runs; i++) {
        char run[16];
        snprintf(run, sizeof run, "%" PRIu32, m->runs[i].run);
        figures_csv(run, &m->runs[i], out);
    }
    figures_csv("all", &m->total, out);
    fprintf(out, "\ninput,run,latency_s,end_to_end_s,descendants,missing_events,timed_out\n");
    for (size_t i = 0; i < m->n_inputs; i++) {
        wfb_lifeline line = wfb_message_lifeline(m, i);
        const wfb_lifeline *l = &line;
        wfb_csv_field(out, wfb_vertex_id(g, l->input));
        fprintf(out, ",%" PRIu32, l->run);
        csv_num(out, l->latency_s);
        csv_num(out, l->end_to_end_s);
        fprintf(out, ",%zu,%d,%d\n", l->descendants, l->missing_events, l->timed_out);
    }
}

/* Tables separated by a blank line: the loss (if any), the activities,
 * the runs, the inputs. */
static int metrics_csv(const wfb_graph *g, const wfb_metrics_input *in, FILE *out)
{
    const wfb_activity_report *a = in->activities;
    const wfb_message_report *m = in->messages;
    const wfb_input_loss *loss = wfb_graph_input_loss(g);
    bool first = true;
    if (loss) {
        wfb_report_input_loss(loss, WFB_OUT_CSV, out);
        first = false;
    }
    if (a && a->n_activities) {
        if (!first)
            fputc('\n', out);
        activities_csv(g, a, out);
        first = false;
    }
    if (m && m->n_inputs) {
        if (!first)
            fputc('\n', out);
        messages_csv(g, m, out);
    }
    return ferror(out) ? -1 : 0;
}

/* ---- text ---- */

static void summary_text(FILE *out, const char *name, const wfb_summary *s, const char *why)
{
    if (!s->n) {
        fprintf(out, "  %-24s n/a%s%s\n", name, why ? ": " : "", why ? why : "");
        return;
    }
    fprintf(out, "  %-24s min %.6g  median %.6g  p95 %.6g  p99 %.6g  max %.6g  mean %.6g  (n=%zu)\n",
            name, s->min, s->median, s->p95, s->p99, s->max, s->mean, s->n);
}

static void makespan_text(const wfb_activity_report *r, FILE *out)
{
    if (r->makespan_declared)
        fprintf(out, "makespan %.6g s (stated by the input)", r->makespan_s);
    else if (isnan(r->makespan_s))
        fprintf(out, "makespan n/a (no start/end times)");
    else
        fprintf(out, "makespan %.6g s", r->makespan_s);
    if (r->makespan_declared && !isnan(r->makespan_measured_s))
        fprintf(out, ", measured %.6g s", r->makespan_measured_s);
    fputc('\n', out);
}

static void activities_text(const wfb_graph *g, const wfb_activity_report *r, FILE *out)
{
    fprintf(out, "Activities: %zu (%zu failed, %zu not started), ", r->n_activities, r->n_failed,
            r->n_not_started);
    makespan_text(r, out);
    summary_text(out, "response [s]", &r->response, NULL);
    summary_text(out, "waiting [s]", &r->waiting, NULL);
    summary_text(out, "processing [s]", &r->processing, NULL);
    summary_text(out, "sync delay [s]", &r->sync_delay,
                 r->n_dependencies ? "no submitted/completed times" : "no dependencies");
    for (size_t i = 0; i < r->n_forks; i++) {
        const wfb_fork_metrics *f = &r->forks[i];
        fprintf(out, "  fork %s: %zu branches, max %.6g s, mean %.6g s, load imbalance %.6g s "
                     "(%.1f%%), slowdown factor %.6g\n",
                wfb_vertex_id(g, f->fork), f->branches, f->max_s, f->mean_s, f->load_imbalance_s,
                f->imbalance_pct, f->slowdown_factor);
    }
    size_t shown = 0;
    for (size_t i = 0; i < r->n_activities && shown < 20; i++)
        if (r->activities[i].not_started) {
            fprintf(out, "%s%s", shown++ ? ", " : "  not started (declared, no event): ",
                    wfb_vertex_id(g, r->activities[i].vertex));
        }
    if (shown)
        fprintf(out, "%s\n", r->n_not_started > shown ? ", ..." : "");
    fputc('\n', out);
}

/* "N inputs" and, when some were only read, where they may come from. */
static void inputs_text(const wfb_graph *g, const wfb_run_figures *f, FILE *out)
{
    fprintf(out, "%zu input%s%s", f->inputs, f->inputs == 1 ? "" : "s",
            f->inputs_given ? " (given with --inputs)" : "");
    if (f->inputs_only_read && !f->inputs_given)
        fprintf(out, " (%zu of them only read, never written: %s)", f->inputs_only_read,
                wfb_graph_input_loss(g) ? "their writers' events may be among the lost"
                                        : "from outside the monitored tasks");
}

/* The throughputs, latencies and jitter of one run or of all. */
static void figures_text(const wfb_graph *g, const wfb_run_figures *f, FILE *out)
{
    char wname[64];
    bool summed = f->span_worker == WFB_NONE; /* the whole input of several runs */
    if (isnan(f->throughput_per_s))
        fprintf(out, "  %-24s n/a: %s\n", "throughput (eq. 1)",
                f->throughput_unknown_why ? f->throughput_unknown_why
                : f->span_unknown_why     ? f->span_unknown_why
                                          : "no worker span");
    else if (summed)
        fprintf(out, "  %-24s %.6g inputs/s = %zu / %.6g s, the longest worker span of each run "
                     "with inputs, added up (%zu runs without inputs left out)\n",
                "throughput (eq. 1)", f->throughput_per_s, f->inputs, f->span_s,
                f->runs_without_inputs);
    else
        fprintf(out, "  %-24s %.6g inputs/s = %zu / %.6g s, the longest worker span "
                     "(%s, worker_start to worker_end)\n",
                "throughput (eq. 1)", f->throughput_per_s, f->inputs, f->span_s,
                wfb_worker_name(g, f->run, f->span_worker, wname, sizeof wname));
    if (isnan(f->throughput_busy_per_s))
        fprintf(out, "  %-24s n/a: %s\n", "throughput (busy time)",
                f->throughput_unknown_why ? f->throughput_unknown_why : "no busy time");
    else
        fprintf(out, "  %-24s %.6g inputs/s = %zu / %.6g s, %s\n", "throughput (busy time)",
                f->throughput_busy_per_s, f->inputs, f->busy_max_s,
                summed ? "the largest busy time of each run with inputs, added up"
                       : "the largest busy time");
    summary_text(out, f->cpu_time ? "latency (eq. 2, CPU) [s]" : "latency (eq. 2) [s]",
                 &f->latency, f->latency_unknown_why);
    summary_text(out, "end-to-end latency [s]", &f->end_to_end, NULL);
    if (isnan(f->jitter_s))
        fprintf(out, "  %-24s n/a%s%s\n", "jitter (eq. 3)", f->latency_unknown_why ? ": " : "",
                f->latency_unknown_why ? f->latency_unknown_why : "");
    else
        fprintf(out, "  %-24s %.6g s (population standard deviation of the latencies%s)\n",
                "jitter (eq. 3)", f->jitter_s, f->cpu_time ? ", over CPU time" : "");
}

static const char *number_or_na(double x, char *buf, size_t len)
{
    if (isnan(x))
        return "n/a";
    snprintf(buf, len, "%.6g", x);
    return buf;
}

static void runs_table(const wfb_message_report *r, FILE *out)
{
    fprintf(out, "Runs: %zu (each runtime instance of the trace; 'all' is the whole trace)\n",
            r->n_runs);
    fprintf(out, "  %5s %7s %14s %14s %14s %12s\n", "run", "inputs", "thr. eq. 1/s",
            "thr. busy/s", "latency mean", "jitter");
    for (size_t i = 0; i <= r->n_runs; i++) {
        const wfb_run_figures *f = i < r->n_runs ? &r->runs[i] : &r->total;
        char run[16], a[32], b[32], c[32], d[32];
        snprintf(run, sizeof run, i < r->n_runs ? "%" PRIu32 : "all", f->run);
        fprintf(out, "  %5s %7zu %14s %14s %14s %12s\n", run, f->inputs,
                number_or_na(f->throughput_per_s, a, sizeof a),
                number_or_na(f->throughput_busy_per_s, b, sizeof b),
                number_or_na(f->latency.mean, c, sizeof c), number_or_na(f->jitter_s, d, sizeof d));
    }
    fputc('\n', out);
}

static void messages_text(const wfb_graph *g, const wfb_message_report *r, FILE *out)
{
    if (r->n_runs > 1)
        runs_table(r, out);
    fputs(r->n_runs > 1 ? "Messages of all runs: " : "Messages: ", out);
    inputs_text(g, &r->total, out);
    fputc('\n', out);
    figures_text(g, &r->total, out);
    fprintf(out, "  timeout (p%g) %.6g s: %zu timed out, %zu missing events\n",
            r->timeout_percentile, r->timeout_s, r->n_timed_out, r->n_missing);
    size_t shown = 0;
    for (size_t i = 0; i < r->n_inputs && shown < 20; i++) {
        wfb_lifeline line = wfb_message_lifeline(r, i);
        const wfb_lifeline *l = &line;
        if (l->missing_events || l->timed_out) {
            fprintf(out, "  anomaly: input %s%s%s\n", wfb_vertex_id(g, l->input),
                    l->missing_events ? " (missing events)" : "",
                    l->timed_out ? " (latency above timeout)" : "");
            shown++;
        }
    }
    fputc('\n', out);
}

/* "run 2 " before a row's name when the trace holds several runs. */
static void run_prefix(const wfb_graph *g, uint32_t run, char *buf, size_t len)
{
    if (wfb_run_count(g) > 1)
        snprintf(buf, len, "run %" PRIu32 " ", run);
    else
        buf[0] = '\0';
}

/* The worker's CPU time beside its busy time (flag C). */
static void cpu_text(const wfb_worker_stats *w, FILE *out)
{
    if (isnan(w->cpu_s)) {
        fputs(" (CPU time n/a: " CPU_UNKNOWN_WHY ")", out);
        return;
    }
    fprintf(out, " (CPU %.6g s; off its core %.6g s, %llu involuntary switches)", w->cpu_s,
            w->preempted_s, (unsigned long long)w->preemptions);
}

static void worker_text(const wfb_graph *g, const wfb_worker_stats *w, FILE *out)
{
    char run[32], name[64];
    run_prefix(g, w->run, run, sizeof run);
    fprintf(out, "%s%s: ", run, wfb_worker_name(g, w->run, w->worker, name, sizeof name));
    if (isnan(wfb_worker_span(w)))
        fputs("span n/a (no worker_start/worker_end), ", out);
    else
        fprintf(out, "span %.6g s, ", wfb_worker_span(w));
    fprintf(out, "busy %.6g s", w->busy_s);
    cpu_text(w, out);
    fprintf(out, ", idle %.6g s in %llu waits, ", w->wait_s, (unsigned long long)w->waits);
    double u = wfb_worker_unaccounted(w);
    if (isnan(u))
        fprintf(out, "unaccounted n/a; ");
    else
        fprintf(out, "unaccounted %.6g s; ", u);
    fprintf(out, "its tasks blocked %.6g s, ready (waiting for it) %.6g s\n", w->blocked_s,
            w->ready_s);
}

/* A task of a waiting relation: its name, or why there is none. */
static const char *relation_task(const task_names *tn, uint32_t run, uint64_t task)
{
    if (!task)
        return "an unknown task (the trace has neither the wake nor the other end's stream_open)";
    const char *name = task_name(tn, run, task);
    return name ? name : "an unnamed task (no task_map: recorded without m?)";
}

static void runtime_text(const wfb_graph *g, FILE *out)
{
    char run[32];
    for (size_t i = 0; i < wfb_worker_stats_count(g); i++)
        worker_text(g, wfb_worker_stats_at(g, i), out);
    for (size_t i = 0; i < wfb_task_stats_count(g); i++) {
        const wfb_task_stats *t = wfb_task_stats_at(g, i);
        run_prefix(g, t->run, run, sizeof run);
        char id[48];
        fprintf(out, "%stask %s %s: exec %.6g s", run, wfb_task_id_text(t->task, id, sizeof id),
                t->name ? t->name : "?", t->exec_s);
        if (wfb_cpu_known(g))
            fprintf(out, " (CPU %.6g s)", t->exec_s - t->preempted_s);
        fprintf(out, ", %llu dispatches, %llu executions, blocked %.6g s, ready %.6g s\n",
                (unsigned long long)t->dispatches, (unsigned long long)t->executions,
                t->blocked_s, t->ready_s);
    }
    task_names tn = task_names_of(g);
    for (size_t i = 0; i < wfb_wait_relation_count(g); i++) {
        const wfb_wait_relation *w = wfb_wait_relation_at(g, i);
        const char *a = relation_task(&tn, w->run, w->waiter);
        const char *b = relation_task(&tn, w->run, w->waited_for);
        run_prefix(g, w->run, run, sizeof run);
        char ia[48], ib[48], via[64];
        if (w->on_channel)
            snprintf(via, sizeof via, "channel %llu.%llu to another rank (%s)",
                     (unsigned long long)(w->stream >> 32),
                     (unsigned long long)(w->stream & 0xffffffffu),
                     w->on_empty ? "no records" : "no room");
        else
            snprintf(via, sizeof via, "stream %s (%s)", wfb_task_id_text(w->stream, ib, sizeof ib),
                     w->on_empty ? "empty" : "full");
        fprintf(out, "%s%s (task %s) waited for %s", run, a,
                wfb_task_id_text(w->waiter, ia, sizeof ia), b);
        if (w->waited_for)
            fprintf(out, " (task %s)", wfb_task_id_text(w->waited_for, ib, sizeof ib));
        fprintf(out, " on %s: %llu times, blocked %.6g s, then ready %.6g s", via,
                (unsigned long long)w->count, w->total_s, w->ready_s);
        if (w->woken < w->count)
            fprintf(out, " (%llu without a wake in the trace: counted blocked to the dispatch)",
                    (unsigned long long)(w->count - w->woken));
        fputc('\n', out);
    }
    free(tn.v);
}

static int metrics_text(const wfb_graph *g, const wfb_metrics_input *in, FILE *out)
{
    fprintf(out, "Metrics of %s (%zu vertices, %zu edges)\n", wfb_graph_source(g),
            wfb_vertex_count(g), wfb_edge_count(g));
    wfb_report_input_loss(wfb_graph_input_loss(g), WFB_OUT_TEXT, out);
    wfb_report_clock_alignment(wfb_graph_clock_alignment(g), WFB_OUT_TEXT, out);
    for (size_t i = 0; i < wfb_worker_stats_count(g); i++) {
        char text[1024];
        if (*preemption_warning(g, wfb_worker_stats_at(g, i), text, sizeof text))
            fprintf(out, "warning: %s\n", text);
    }
    fputc('\n', out);
    if (in->activities && in->activities->n_activities)
        activities_text(g, in->activities, out);
    if (in->messages && in->messages->n_inputs)
        messages_text(g, in->messages, out);
    if (in->n_anomalies) {
        fprintf(out, "Activities missing expected events: %zu\n", in->n_anomalies);
        for (size_t i = 0; i < in->n_anomalies && i < 20; i++)
            fprintf(out, "  %s\n", wfb_vertex_id(g, in->anomalies[i]));
        fputc('\n', out);
    }
    runtime_text(g, out);
    if (in->has_speedup)
        fprintf(out, "Speedup over %s: %.6g (%zu common activities)\n", in->compare_source,
                in->speedup, in->speedup_common);
    return ferror(out) ? -1 : 0;
}

int wfb_report_metrics(const wfb_graph *g, const wfb_metrics_input *in, wfb_output fmt, FILE *out)
{
    if (fmt == WFB_OUT_JSON)
        return metrics_json(g, in, out);
    if (fmt == WFB_OUT_CSV)
        return metrics_csv(g, in, out);
    return metrics_text(g, in, out);
}
