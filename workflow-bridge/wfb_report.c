/*
 * wfb_report.c - the bridge's reports: critical paths and metrics as
 * readable text, stable JSON (documented in docs/EVENTS.md) or CSV, and the
 * graph with its critical paths in Graphviz dot.
 *
 * JSON is built with jansson and dumped with preserved key order so that the
 * output is byte-stable for a given input.
 */
#include "wfb_internal.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static json_t *num(double x)
{
    return isnan(x) || isinf(x) ? json_null() : json_real(x);
}

static json_t *str_or_null(const char *s)
{
    return s ? json_string(s) : json_null();
}

static int dump(json_t *root, FILE *out)
{
    int rc = json_dumpf(root, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(12));
    fputc('\n', out);
    json_decref(root);
    return rc;
}

/* ---- critical path ---- */

/* Label of an edge for the per-task shares: its task, else its kind. */
static const char *edge_owner(const wfb_graph *g, uint32_t e)
{
    const char *label = wfb_edge_label(g, e);
    return label ? label : wfb_edge_kind_name(wfb_edge_kind_of(g, e));
}

static json_t *path_shares(const wfb_graph *g, const wfb_path *p)
{
    json_t *shares = json_array();
    for (size_t i = 0; i < p->n; i++) {
        double w = wfb_vertex_weight(g, p->vertices[i]);
        if (w <= 0)
            continue;
        json_t *s = json_object();
        json_object_set_new(s, "id", json_string(wfb_vertex_id(g, p->vertices[i])));
        json_object_set_new(s, "seconds", num(w));
        json_object_set_new(s, "fraction", num(p->length_s > 0 ? w / p->length_s : NAN));
        json_array_append_new(shares, s);
    }
    return shares;
}

/* Edge costs grouped by task (first-seen order). */
static json_t *task_shares(const wfb_graph *g, const wfb_path *p)
{
    json_t *by_task = json_object();
    for (size_t i = 0; i + 1 < p->n; i++) {
        uint32_t e = p->edges[i];
        double c = wfb_edge_cost(g, e);
        if (c <= 0)
            continue;
        const char *owner = edge_owner(g, e);
        json_t *acc = json_object_get(by_task, owner);
        double prev = acc ? json_real_value(acc) : 0.0;
        json_object_set_new(by_task, owner, json_real(prev + c));
    }
    json_t *list = json_array();
    const char *key;
    json_t *val;
    json_object_foreach(by_task, key, val) {
        json_t *s = json_object();
        json_object_set_new(s, "task", json_string(key));
        json_object_set_new(s, "seconds", num(json_real_value(val)));
        json_object_set_new(s, "fraction",
                            num(p->length_s > 0 ? json_real_value(val) / p->length_s : NAN));
        json_array_append_new(list, s);
    }
    json_decref(by_task);
    return list;
}

static json_t *path_json(const wfb_graph *g, const wfb_path *p)
{
    if (!p || !p->valid)
        return json_null();
    json_t *o = json_object(), *vs = json_array(), *es = json_array();
    json_object_set_new(o, "length_s", num(p->length_s));
    for (size_t i = 0; i < p->n; i++)
        json_array_append_new(vs, json_string(wfb_vertex_id(g, p->vertices[i])));
    for (size_t i = 0; i + 1 < p->n; i++) {
        uint32_t e = p->edges[i];
        json_t *ej = json_object();
        json_object_set_new(ej, "from", json_string(wfb_vertex_id(g, wfb_edge_src(g, e))));
        json_object_set_new(ej, "to", json_string(wfb_vertex_id(g, wfb_edge_dst(g, e))));
        json_object_set_new(ej, "kind", json_string(wfb_edge_kind_name(wfb_edge_kind_of(g, e))));
        json_object_set_new(ej, "cost_s", num(wfb_edge_cost(g, e)));
        json_array_append_new(es, ej);
    }
    json_object_set_new(o, "vertices", vs);
    json_object_set_new(o, "edges", es);
    json_object_set_new(o, "shares", path_shares(g, p));
    json_object_set_new(o, "task_shares", task_shares(g, p));
    return o;
}

static void path_text(const wfb_graph *g, const char *title, const wfb_path *p, FILE *out)
{
    fprintf(out, "%s:\n", title);
    if (!p || !p->valid) {
        fprintf(out, "  not available (the input has no start/end times)\n\n");
        return;
    }
    fprintf(out, "  length %.9g s, %zu vertices\n", p->length_s, p->n);
    for (size_t i = 0; i < p->n; i++) {
        uint32_t v = p->vertices[i];
        double w = wfb_vertex_weight(g, v);
        if (i > 0) {
            uint32_t e = p->edges[i - 1];
            fprintf(out, "      | %s", wfb_edge_kind_name(wfb_edge_kind_of(g, e)));
            if (wfb_edge_cost(g, e) > 0)
                fprintf(out, " %.9g s", wfb_edge_cost(g, e));
            if (wfb_edge_label(g, e))
                fprintf(out, " (%s)", wfb_edge_label(g, e));
            fputc('\n', out);
        }
        fprintf(out, "  %3zu %-40s", i + 1, wfb_vertex_id(g, v));
        if (w > 0)
            fprintf(out, " %12.6f s  %5.1f%%", w, p->length_s > 0 ? 100.0 * w / p->length_s : 0);
        fputc('\n', out);
    }
    fputc('\n', out);
}

static json_t *wcp_json(const wfb_graph *g, const wfb_path *longest, const wfb_path *as_executed)
{
    json_t *root = json_object();
    json_object_set_new(root, "input", json_string(wfb_graph_source(g)));
    json_object_set_new(root, "vertices", json_integer((json_int_t)wfb_vertex_count(g)));
    json_object_set_new(root, "edges", json_integer((json_int_t)wfb_edge_count(g)));
    json_object_set_new(root, "input_loss", wfb_input_loss_json(wfb_graph_input_loss(g)));
    json_object_set_new(root, "longest_path", path_json(g, longest));
    json_object_set_new(root, "as_executed", path_json(g, as_executed));
    return root;
}

static json_t *nested_json(const wfb_nested_wcp *n)
{
    json_t *o = n->graph ? wcp_json(n->graph, n->longest, n->as_executed) : json_object();
    json_object_set_new(o, "activity", json_string(n->activity));
    json_object_set_new(o, "trace", json_string(n->trace));
    json_object_set_new(o, "error", str_or_null(n->error));
    return o;
}

static void wcp_text(const wfb_graph *g, const wfb_path *longest, const wfb_path *as_executed,
                     FILE *out)
{
    fprintf(out, "Workflow critical path of %s (%zu vertices, %zu edges)\n", wfb_graph_source(g),
            wfb_vertex_count(g), wfb_edge_count(g));
    wfb_report_input_loss(wfb_graph_input_loss(g), WFB_OUT_TEXT, out);
    fputc('\n', out);
    path_text(g, "Longest path by durations (what-if, no contention)", longest, out);
    path_text(g, "As-executed critical path (last-finishing predecessors)", as_executed, out);
}

int wfb_report_wcp_nested(const wfb_graph *g, const wfb_path *longest,
                          const wfb_path *as_executed, const wfb_nested_wcp *nested,
                          size_t n_nested, wfb_output fmt, FILE *out)
{
    if (fmt == WFB_OUT_JSON) {
        json_t *root = wcp_json(g, longest, as_executed);
        if (n_nested) {
            json_t *list = json_array();
            for (size_t i = 0; i < n_nested; i++)
                json_array_append_new(list, nested_json(&nested[i]));
            json_object_set_new(root, "nested", list);
        }
        return dump(root, out);
    }
    wcp_text(g, longest, as_executed, out);
    for (size_t i = 0; i < n_nested; i++) {
        const wfb_nested_wcp *n = &nested[i];
        fprintf(out, "=== activity %s runs the LPEL trace %s ===\n", n->activity, n->trace);
        if (n->graph)
            wcp_text(n->graph, n->longest, n->as_executed, out);
        else
            fprintf(out, "  not analysed: %s\n\n", n->error ? n->error : "unknown error");
    }
    return ferror(out) ? -1 : 0;
}

int wfb_report_wcp(const wfb_graph *g, const wfb_path *longest, const wfb_path *as_executed,
                   wfb_output fmt, FILE *out)
{
    return wfb_report_wcp_nested(g, longest, as_executed, NULL, 0, fmt, out);
}

/* ---- dot ---- */

static void dot_string(FILE *out, const char *s)
{
    fputc('"', out);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            fputc('\\', out);
        fputc(*s, out);
    }
    fputc('"', out);
}

/* Bit 1: on the longest path, bit 2: on the as-executed path. */
static void mark_path(const wfb_path *p, uint8_t bit, uint8_t *vmark, uint8_t *emark)
{
    if (!p || !p->valid)
        return;
    for (size_t i = 0; i < p->n; i++)
        vmark[p->vertices[i]] |= bit;
    for (size_t i = 0; i + 1 < p->n; i++)
        emark[p->edges[i]] |= bit;
}

int wfb_write_dot(const wfb_graph *g, const wfb_path *longest, const wfb_path *as_executed,
                  FILE *out)
{
    static const char *const colour[] = {"black", "red", "blue", "purple"};
    size_t nv = wfb_vertex_count(g), ne = wfb_edge_count(g);
    uint8_t *vmark = calloc(nv ? nv : 1, 1), *emark = calloc(ne ? ne : 1, 1);
    if (!vmark || !emark) {
        free(vmark), free(emark);
        return -1;
    }
    mark_path(longest, 1, vmark, emark);
    mark_path(as_executed, 2, vmark, emark);
    fprintf(out, "digraph wcp {\n  rankdir=LR;\n  node [shape=box];\n");
    for (uint32_t v = 0; v < nv; v++) {
        fprintf(out, "  v%u [label=", v);
        dot_string(out, wfb_vertex_id(g, v));
        fprintf(out, ", shape=%s, color=%s%s];\n",
                wfb_vertex_kind_of(g, v) == WFB_VERTEX_ACTIVITY ? "box" : "ellipse",
                colour[vmark[v]], vmark[v] ? ", penwidth=2" : "");
    }
    for (uint32_t e = 0; e < ne; e++) {
        fprintf(out, "  v%u -> v%u [color=%s%s", wfb_edge_src(g, e), wfb_edge_dst(g, e),
                colour[emark[e]], emark[e] ? ", penwidth=2" : "");
        if (wfb_edge_kind_of(g, e) != WFB_EDGE_DEPEND)
            fprintf(out, ", label=\"%s\"", wfb_edge_kind_name(wfb_edge_kind_of(g, e)));
        fprintf(out, "];\n");
    }
    fprintf(out, "}\n");
    free(vmark), free(emark);
    return ferror(out) ? -1 : 0;
}

/* ---- metrics ---- */

static json_t *summary_json(const wfb_summary *s)
{
    json_t *o = json_object();
    json_object_set_new(o, "n", json_integer((json_int_t)s->n));
    json_object_set_new(o, "min", num(s->min));
    json_object_set_new(o, "median", num(s->median));
    json_object_set_new(o, "p95", num(s->p95));
    json_object_set_new(o, "p99", num(s->p99));
    json_object_set_new(o, "max", num(s->max));
    json_object_set_new(o, "mean", num(s->mean));
    json_object_set_new(o, "stddev", num(s->stddev));
    return o;
}

static json_t *activities_json(const wfb_graph *g, const wfb_activity_report *r)
{
    json_t *o = json_object(), *forks = json_array(), *per = json_array();
    json_object_set_new(o, "count", json_integer((json_int_t)r->n_activities));
    json_object_set_new(o, "failed", json_integer((json_int_t)r->n_failed));
    json_object_set_new(o, "makespan_s", num(r->makespan_s));
    json_object_set_new(o, "response_s", summary_json(&r->response));
    json_object_set_new(o, "waiting_s", summary_json(&r->waiting));
    json_object_set_new(o, "processing_s", summary_json(&r->processing));
    json_object_set_new(o, "sync_delay_s", summary_json(&r->sync_delay));
    json_object_set_new(o, "slowdown", summary_json(&r->slowdown));
    for (size_t i = 0; i < r->n_forks; i++) {
        const wfb_fork_metrics *f = &r->forks[i];
        json_t *fj = json_object();
        json_object_set_new(fj, "fork", json_string(wfb_vertex_id(g, f->fork)));
        json_object_set_new(fj, "siblings", json_integer((json_int_t)f->siblings));
        json_object_set_new(fj, "max_s", num(f->max_s));
        json_object_set_new(fj, "mean_s", num(f->mean_s));
        json_object_set_new(fj, "min_s", num(f->min_s));
        json_object_set_new(fj, "imbalance_pct", num(f->imbalance_pct));
        json_array_append_new(forks, fj);
    }
    for (size_t i = 0; i < r->n_activities; i++) {
        const wfb_activity_metrics *m = &r->activities[i];
        json_t *aj = json_object();
        json_object_set_new(aj, "id", json_string(wfb_vertex_id(g, m->vertex)));
        json_object_set_new(aj, "response_s", num(m->response_s));
        json_object_set_new(aj, "waiting_s", num(m->waiting_s));
        json_object_set_new(aj, "processing_s", num(m->processing_s));
        json_object_set_new(aj, "sync_delay_s", num(m->sync_delay_s));
        json_object_set_new(aj, "slowdown", num(m->slowdown));
        json_object_set_new(aj, "failed", json_boolean(wfb_vertex_failed(g, m->vertex)));
        json_array_append_new(per, aj);
    }
    json_object_set_new(o, "forks", forks);
    json_object_set_new(o, "per_activity", per);
    return o;
}

static json_t *messages_json(const wfb_graph *g, const wfb_message_report *r)
{
    json_t *o = json_object(), *anom = json_array();
    json_object_set_new(o, "inputs", json_integer((json_int_t)r->n_inputs));
    json_object_set_new(o, "max_worker_exec_s", num(r->max_worker_exec_s));
    json_object_set_new(o, "throughput_per_s", num(r->throughput_per_s));
    json_object_set_new(o, "latency_s", summary_json(&r->latency));
    json_object_set_new(o, "end_to_end_s", summary_json(&r->end_to_end));
    json_object_set_new(o, "jitter_s", num(r->jitter_s));
    json_object_set_new(o, "timeout_percentile", num(r->timeout_percentile));
    json_object_set_new(o, "timeout_s", num(r->timeout_s));
    json_object_set_new(o, "missing_events", json_integer((json_int_t)r->n_missing));
    json_object_set_new(o, "timed_out", json_integer((json_int_t)r->n_timed_out));
    for (size_t i = 0; i < r->n_inputs; i++) {
        const wfb_lifeline *l = &r->lifelines[i];
        if (!l->missing_events && !l->timed_out)
            continue;
        json_t *a = json_object();
        json_object_set_new(a, "input", json_string(wfb_vertex_id(g, l->input)));
        json_object_set_new(a, "latency_s", num(l->latency_s));
        json_object_set_new(a, "missing_events", json_boolean(l->missing_events));
        json_object_set_new(a, "timed_out", json_boolean(l->timed_out));
        json_array_append_new(anom, a);
    }
    json_object_set_new(o, "anomalies", anom);
    return o;
}

/* Unknown (NAN) when the trace has no timestamps to span the worker's life,
 * e.g. a run recorded with load summaries only. */
static double unaccounted(const wfb_worker_stats *w)
{
    double span = w->last_s - w->first_s;
    return span > 0 ? span - w->busy_s - w->wait_s : NAN;
}

static json_t *runtime_json(const wfb_graph *g, json_t **tasks_out)
{
    json_t *workers = json_array(), *tasks = json_array();
    for (size_t i = 0; i < wfb_worker_stats_count(g); i++) {
        const wfb_worker_stats *w = wfb_worker_stats_at(g, i);
        json_t *o = json_object();
        json_object_set_new(o, "worker", json_integer(w->worker));
        json_object_set_new(o, "busy_s", num(w->busy_s));
        json_object_set_new(o, "wait_s", num(w->wait_s));
        json_object_set_new(o, "waits", json_integer((json_int_t)w->waits));
        json_object_set_new(o, "unaccounted_s", num(unaccounted(w)));
        json_array_append_new(workers, o);
    }
    for (size_t i = 0; i < wfb_task_stats_count(g); i++) {
        const wfb_task_stats *t = wfb_task_stats_at(g, i);
        json_t *o = json_object(), *b = json_object();
        json_object_set_new(o, "task", json_integer((json_int_t)t->task));
        json_object_set_new(o, "name", str_or_null(t->name));
        json_object_set_new(o, "worker", json_integer(t->worker));
        json_object_set_new(o, "exec_s", num(t->exec_s));
        json_object_set_new(o, "dispatches", json_integer((json_int_t)t->dispatches));
        json_object_set_new(o, "executions", json_integer((json_int_t)t->executions));
        json_object_set_new(b, "input", json_integer((json_int_t)t->blocks[0]));
        json_object_set_new(b, "output", json_integer((json_int_t)t->blocks[1]));
        json_object_set_new(b, "any", json_integer((json_int_t)t->blocks[2]));
        json_object_set_new(b, "other", json_integer((json_int_t)t->blocks[3]));
        json_object_set_new(o, "blocks", b);
        json_array_append_new(tasks, o);
    }
    *tasks_out = tasks;
    return workers;
}

/* Name of a task from the runtime table, NULL when unknown. */
static const char *task_name(const wfb_graph *g, uint64_t task)
{
    for (size_t i = 0; i < wfb_task_stats_count(g); i++)
        if (wfb_task_stats_at(g, i)->task == task)
            return wfb_task_stats_at(g, i)->name;
    return NULL;
}

static json_t *waits_json(const wfb_graph *g)
{
    json_t *list = json_array();
    for (size_t i = 0; i < wfb_wait_relation_count(g); i++) {
        const wfb_wait_relation *w = wfb_wait_relation_at(g, i);
        json_t *o = json_object();
        json_object_set_new(o, "waiter", json_integer((json_int_t)w->waiter));
        json_object_set_new(o, "waiter_name", str_or_null(task_name(g, w->waiter)));
        json_object_set_new(o, "waited_for", json_integer((json_int_t)w->waited_for));
        json_object_set_new(o, "waited_for_name", str_or_null(task_name(g, w->waited_for)));
        json_object_set_new(o, "stream", json_integer((json_int_t)w->stream));
        json_object_set_new(o, "on", json_string(w->on_empty ? "empty" : "full"));
        json_object_set_new(o, "count", json_integer((json_int_t)w->count));
        json_object_set_new(o, "total_s", num(w->total_s));
        json_array_append_new(list, o);
    }
    return list;
}

static int metrics_json(const wfb_graph *g, const wfb_metrics_input *in, FILE *out)
{
    json_t *root = json_object(), *anom = json_array(), *tasks;
    json_object_set_new(root, "input", json_string(wfb_graph_source(g)));
    json_object_set_new(root, "vertices", json_integer((json_int_t)wfb_vertex_count(g)));
    json_object_set_new(root, "edges", json_integer((json_int_t)wfb_edge_count(g)));
    json_object_set_new(root, "input_loss", wfb_input_loss_json(wfb_graph_input_loss(g)));
    json_object_set_new(root, "activity_metrics", in->activities && in->activities->n_activities
                                                      ? activities_json(g, in->activities)
                                                      : json_null());
    json_object_set_new(root, "message_metrics", in->messages && in->messages->n_inputs
                                                     ? messages_json(g, in->messages)
                                                     : json_null());
    for (size_t i = 0; i < in->n_anomalies; i++)
        json_array_append_new(anom, json_string(wfb_vertex_id(g, in->anomalies[i])));
    json_object_set_new(root, "activity_anomalies", anom);
    json_object_set_new(root, "workers", runtime_json(g, &tasks));
    json_object_set_new(root, "tasks", tasks);
    json_object_set_new(root, "waiting_relations", waits_json(g));
    if (in->has_speedup) {
        json_t *s = json_object();
        json_object_set_new(s, "other", str_or_null(in->compare_source));
        json_object_set_new(s, "common_activities", json_integer((json_int_t)in->speedup_common));
        json_object_set_new(s, "factor", num(in->speedup));
        json_object_set_new(root, "speedup", s);
    } else {
        json_object_set_new(root, "speedup", json_null());
    }
    return dump(root, out);
}

/* RFC 4180: quote fields holding commas, quotes or line breaks. */
static void csv_field(FILE *out, const char *s)
{
    if (!strpbrk(s, ",\"\r\n")) {
        fputs(s, out);
        return;
    }
    fputc('"', out);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', out);
        fputc(*s, out);
    }
    fputc('"', out);
}

static void csv_num(FILE *out, double x)
{
    if (isnan(x))
        fputs(",", out);
    else
        fprintf(out, ",%.9g", x);
}

static int metrics_csv(const wfb_graph *g, const wfb_metrics_input *in, FILE *out)
{
    const wfb_activity_report *a = in->activities;
    const wfb_message_report *m = in->messages;
    const wfb_input_loss *loss = wfb_graph_input_loss(g);
    if (loss) {
        wfb_report_input_loss(loss, WFB_OUT_CSV, out);
        fputc('\n', out);
    }
    if (a && a->n_activities) {
        fprintf(out, "activity,response_s,waiting_s,processing_s,sync_delay_s,slowdown,failed\n");
        for (size_t i = 0; i < a->n_activities; i++) {
            const wfb_activity_metrics *x = &a->activities[i];
            csv_field(out, wfb_vertex_id(g, x->vertex));
            csv_num(out, x->response_s);
            csv_num(out, x->waiting_s);
            csv_num(out, x->processing_s);
            csv_num(out, x->sync_delay_s);
            csv_num(out, x->slowdown);
            fprintf(out, ",%d\n", wfb_vertex_failed(g, x->vertex));
        }
    }
    if (m && m->n_inputs) {
        if (a && a->n_activities)
            fputc('\n', out);
        fprintf(out, "input,latency_s,end_to_end_s,descendants,missing_events,timed_out\n");
        for (size_t i = 0; i < m->n_inputs; i++) {
            const wfb_lifeline *l = &m->lifelines[i];
            csv_field(out, wfb_vertex_id(g, l->input));
            csv_num(out, l->latency_s);
            csv_num(out, l->end_to_end_s);
            fprintf(out, ",%zu,%d,%d\n", l->descendants, l->missing_events, l->timed_out);
        }
    }
    return ferror(out) ? -1 : 0;
}

static void summary_text(FILE *out, const char *name, const wfb_summary *s)
{
    if (!s->n) {
        fprintf(out, "  %-18s n/a\n", name);
        return;
    }
    fprintf(out, "  %-18s min %.6g  median %.6g  p95 %.6g  p99 %.6g  max %.6g  (n=%zu)\n", name,
            s->min, s->median, s->p95, s->p99, s->max, s->n);
}

static void activities_text(const wfb_graph *g, const wfb_activity_report *r, FILE *out)
{
    fprintf(out, "Activities: %zu (%zu failed), ", r->n_activities, r->n_failed);
    if (isnan(r->makespan_s))
        fprintf(out, "makespan n/a (no start/end times)\n");
    else
        fprintf(out, "makespan %.6g s\n", r->makespan_s);
    summary_text(out, "response [s]", &r->response);
    summary_text(out, "waiting [s]", &r->waiting);
    summary_text(out, "processing [s]", &r->processing);
    summary_text(out, "sync delay [s]", &r->sync_delay);
    summary_text(out, "slowdown", &r->slowdown);
    for (size_t i = 0; i < r->n_forks; i++)
        fprintf(out, "  fork %-30s %zu siblings, max %.6g s, mean %.6g s, imbalance %.1f%%\n",
                wfb_vertex_id(g, r->forks[i].fork), r->forks[i].siblings, r->forks[i].max_s,
                r->forks[i].mean_s, r->forks[i].imbalance_pct);
    fputc('\n', out);
}

static void messages_text(const wfb_graph *g, const wfb_message_report *r, FILE *out)
{
    fprintf(out, "Messages: %zu inputs, throughput %.6g inputs/s (max worker execution %.6g s)\n",
            r->n_inputs, r->throughput_per_s, r->max_worker_exec_s);
    summary_text(out, "latency [s]", &r->latency);
    summary_text(out, "end-to-end [s]", &r->end_to_end);
    fprintf(out, "  jitter %.6g s; timeout (p%g) %.6g s: %zu timed out, %zu missing events\n",
            r->jitter_s, r->timeout_percentile, r->timeout_s, r->n_timed_out, r->n_missing);
    size_t shown = 0;
    for (size_t i = 0; i < r->n_inputs && shown < 20; i++) {
        const wfb_lifeline *l = &r->lifelines[i];
        if (l->missing_events || l->timed_out) {
            fprintf(out, "  anomaly: input %s%s%s\n", wfb_vertex_id(g, l->input),
                    l->missing_events ? " (missing events)" : "",
                    l->timed_out ? " (latency above timeout)" : "");
            shown++;
        }
    }
    fputc('\n', out);
}

static int metrics_text(const wfb_graph *g, const wfb_metrics_input *in, FILE *out)
{
    fprintf(out, "Metrics of %s (%zu vertices, %zu edges)\n", wfb_graph_source(g),
            wfb_vertex_count(g), wfb_edge_count(g));
    wfb_report_input_loss(wfb_graph_input_loss(g), WFB_OUT_TEXT, out);
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
    for (size_t i = 0; i < wfb_worker_stats_count(g); i++) {
        const wfb_worker_stats *w = wfb_worker_stats_at(g, i);
        fprintf(out, "worker %u: busy %.6g s, waiting %.6g s in %llu waits, ", w->worker,
                w->busy_s, w->wait_s, (unsigned long long)w->waits);
        double u = unaccounted(w);
        if (isnan(u))
            fprintf(out, "unaccounted n/a (no timestamps)\n");
        else
            fprintf(out, "unaccounted %.6g s\n", u);
    }
    for (size_t i = 0; i < wfb_task_stats_count(g); i++) {
        const wfb_task_stats *t = wfb_task_stats_at(g, i);
        fprintf(out, "task %llu %s: exec %.6g s, %llu dispatches, %llu executions\n",
                (unsigned long long)t->task, t->name ? t->name : "?", t->exec_s,
                (unsigned long long)t->dispatches, (unsigned long long)t->executions);
    }
    for (size_t i = 0; i < wfb_wait_relation_count(g); i++) {
        const wfb_wait_relation *w = wfb_wait_relation_at(g, i);
        const char *a = task_name(g, w->waiter), *b = task_name(g, w->waited_for);
        fprintf(out, "%s (task %llu) waited for %s (task %llu) on stream %llu (%s): %llu times, "
                     "%.6g s\n",
                a ? a : "?", (unsigned long long)w->waiter, b ? b : "?",
                (unsigned long long)w->waited_for, (unsigned long long)w->stream,
                w->on_empty ? "empty" : "full", (unsigned long long)w->count, w->total_s);
    }
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
