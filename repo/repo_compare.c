/*
 * repo_compare.c - two runs side by side, and series of runs (repo.h,
 * part 3). The figures are gathered into small tables first
 * (repo_internal.h), whose one writer prints them as text, JSON or
 * CSV. Definitions: docs/METRICS.md section 7.
 */
#include "repo.h"
#include "repo_internal.h"

#include "mon_reader.h"

#include <ctype.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------- grouping tasks by a key */

/* One task of one side, under one key (a net-path prefix, a kind, a name). */
typedef struct agg_in {
    char *key;
    int side; /* 0: A, 1: B */
    uint32_t instance;
    double first, last, exec, wait;
} agg_in;

typedef struct agg_out {
    const char *key;
    size_t tasks[2];
    double exec[2], wait[2], span[2];
} agg_out;

typedef struct agg {
    agg_in *in;
    size_t n, cap;
    agg_out *out;
    size_t n_out;
} agg;

static int agg_add(agg *g, const char *key, size_t key_len, int side, const repo_task *t)
{
    if (KIT_GROW(g->in, g->cap, g->n + 1))
        return -1;
    char *k = strndup(key, key_len);
    if (!k)
        return -1;
    double first = t->executions ? t->first_s : NAN, last = t->executions ? t->last_s : NAN;
    g->in[g->n++] = (agg_in){k, side, t->instance, first, last, t->exec_s, t->wait_s};
    return 0;
}

/* Names in natural order: runs of digits compare as numbers, so S2:I2
 * comes before S2:I10. */
static int natural_cmp(const char *a, const char *b)
{
    while (*a && *b) {
        if (isdigit((unsigned char)*a) && isdigit((unsigned char)*b)) {
            const char *ea = a, *eb = b;
            while (*a == '0' && isdigit((unsigned char)a[1]))
                a++;
            while (*b == '0' && isdigit((unsigned char)b[1]))
                b++;
            for (ea = a; isdigit((unsigned char)*ea); ea++)
                ;
            for (eb = b; isdigit((unsigned char)*eb); eb++)
                ;
            if (ea - a != eb - b)
                return ea - a < eb - b ? -1 : 1;
            int c = strncmp(a, b, (size_t)(ea - a));
            if (c)
                return c;
            a = ea, b = eb;
            continue;
        }
        if (*a != *b)
            return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
        a++, b++;
    }
    return *a ? 1 : *b ? -1 : 0;
}

/* A total order: names equal but for leading zeros differ still. */
static int key_cmp(const char *a, const char *b)
{
    int c = natural_cmp(a, b);
    return c ? c : strcmp(a, b);
}

static int cmp_agg_in(const void *x, const void *y)
{
    const agg_in *a = x, *b = y;
    int c = key_cmp(a->key, b->key);
    if (c)
        return c;
    if (a->side != b->side)
        return a->side - b->side;
    return a->instance < b->instance ? -1 : a->instance > b->instance;
}

/* Sorts the entries and sums each key: tasks, execution and waiting time,
 * and the span, latest end - earliest begin of the executions, per
 * instance, added over the instances (as eq. 1 adds a worker's runs). */
static int agg_finish(agg *g)
{
    if (g->n)
        qsort(g->in, g->n, sizeof *g->in, cmp_agg_in);
    g->out = calloc(g->n ? g->n : 1, sizeof *g->out);
    if (!g->out)
        return -1;
    for (size_t i = 0; i < g->n;) {
        agg_out *o = &g->out[g->n_out++];
        o->key = g->in[i].key;
        o->span[0] = o->span[1] = NAN;
        size_t j = i;
        while (j < g->n && !key_cmp(g->in[j].key, o->key)) {
            const agg_in *e = &g->in[j];
            double first = INFINITY, last = -INFINITY;
            size_t k = j;
            for (; k < g->n && !key_cmp(g->in[k].key, o->key) && g->in[k].side == e->side &&
                   g->in[k].instance == e->instance;
                 k++) {
                const agg_in *x = &g->in[k];
                o->tasks[x->side]++;
                o->exec[x->side] += x->exec;
                o->wait[x->side] += x->wait;
                if (!isnan(x->first))
                    first = fmin(first, x->first);
                if (!isnan(x->last))
                    last = fmax(last, x->last);
            }
            if (last >= first)
                o->span[e->side] = (isnan(o->span[e->side]) ? 0 : o->span[e->side]) + last - first;
            j = k;
        }
        i = j;
    }
    return 0;
}

static const agg_out *agg_find(const agg *g, const char *key)
{
    size_t lo = 0, hi = g->n_out;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        int c = key_cmp(g->out[mid].key, key);
        if (c == 0)
            return &g->out[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

static void agg_free(agg *g)
{
    for (size_t i = 0; i < g->n; i++)
        free(g->in[i].key);
    free(g->in);
    free(g->out);
}

typedef enum group_by { BY_NAME, BY_KIND, BY_PREFIX } group_by;

static const char *task_name(const repo_task *t, char *buf, size_t len)
{
    if (t->name)
        return t->name;
    snprintf(buf, len, "task %llu", (unsigned long long)t->task);
    return buf;
}

/* Groups the tasks of both runs; prefixes up to depth components. */
static int group_tasks(agg *g, const repo_run *const runs[2], group_by by, int depth)
{
    memset(g, 0, sizeof *g);
    for (int side = 0; side < 2; side++) {
        for (size_t i = 0; i < runs[side]->n_tasks; i++) {
            const repo_task *t = &runs[side]->tasks[i];
            char buf[64];
            const char *name = task_name(t, buf, sizeof buf);
            int rc = 0;
            if (by == BY_NAME) {
                rc = agg_add(g, name, strlen(name), side, t);
            } else if (by == BY_KIND) {
                const char *kind = mon_task_kind(t->name);
                rc = agg_add(g, kind, strlen(kind), side, t);
            } else {
                const char *p = name;
                for (int d = 1; d <= depth && rc == 0; d++) {
                    const char *colon = strchr(p, ':');
                    size_t len = colon ? (size_t)(colon - name) : strlen(name);
                    rc = agg_add(g, name, len, side, t);
                    if (!colon)
                        break;
                    p = colon + 1;
                }
            }
            if (rc)
                return -1;
        }
    }
    return agg_finish(g);
}

/* Activities grouped by name (their label, else their id), as tasks: exec
 * = processing time, span = latest end - earliest active, wait = waiting
 * time (active - submitted), docs/METRICS.md sections 4 and 7. */
static int group_activities(agg *g, const repo_run *const runs[2])
{
    memset(g, 0, sizeof *g);
    for (int side = 0; side < 2; side++)
        for (size_t i = 0; i < runs[side]->n_activities; i++) {
            const repo_activity *a = &runs[side]->activities[i];
            const char *name = a->label ? a->label : a->id;
            bool timed = !isnan(a->active_s) && !isnan(a->end_s);
            repo_task t = {.exec_s = isnan(a->processing_s) ? 0 : a->processing_s,
                         .executions = timed,
                         .first_s = a->active_s,
                         .last_s = a->end_s,
                         .wait_s = isnan(a->waiting_s) ? 0 : a->waiting_s};
            if (agg_add(g, name, strlen(name), side, &t))
                return -1;
        }
    return agg_finish(g);
}

/* ------------------------------------------------------- whole runs */

/* Worker figures summed over the instances of a run. */
typedef struct worker_sum {
    uint32_t worker;
    double span_s, busy_s, wait_s;
    uint64_t waits;
    double blocked_s, ready_s, cpu_s; /* its tasks' blocked and ready time; its CPU time */
    bool has[2];
} worker_sum;

static double add_known(double acc, double v)
{
    if (isnan(v))
        return acc;
    return isnan(acc) ? v : acc + v;
}

static worker_sum *find_worker(worker_sum *w, size_t *n, uint32_t id)
{
    for (size_t i = 0; i < *n; i++)
        if (w[i].worker == id)
            return &w[i];
    w[*n] = (worker_sum){.worker = id, .span_s = NAN, .busy_s = NAN, .wait_s = NAN,
                         .blocked_s = NAN, .ready_s = NAN, .cpu_s = NAN};
    return &w[(*n)++];
}

/* Per worker, for both runs: [worker][side]. */
static worker_sum *sum_workers(const repo_run *const runs[2], size_t *n)
{
    size_t cap = runs[0]->n_workers + runs[1]->n_workers;
    worker_sum *w = calloc(2 * (cap ? cap : 1), sizeof *w);
    if (!w)
        return NULL;
    *n = 0;
    /* w[2*i] side A, w[2*i+1] side B; find_worker on the even slots */
    worker_sum *ids = calloc(cap ? cap : 1, sizeof *ids);
    if (!ids) {
        free(w);
        return NULL;
    }
    for (int side = 0; side < 2; side++)
        for (size_t i = 0; i < runs[side]->n_workers; i++) {
            const wfb_worker_stats *s = &runs[side]->workers[i];
            worker_sum *id = find_worker(ids, n, s->worker);
            worker_sum *o = &w[2 * (size_t)(id - ids) + (size_t)side];
            if (!o->has[side]) {
                *o = (worker_sum){.worker = s->worker, .span_s = NAN, .busy_s = NAN,
                                  .wait_s = NAN, .blocked_s = NAN, .ready_s = NAN,
                                  .cpu_s = NAN};
                o->has[side] = true;
            }
            o->span_s = add_known(o->span_s, wfb_worker_span(s));
            o->busy_s = add_known(o->busy_s, s->busy_s);
            o->wait_s = add_known(o->wait_s, s->wait_s);
            o->waits += s->waits;
            o->blocked_s = add_known(o->blocked_s, s->blocked_s);
            o->ready_s = add_known(o->ready_s, s->ready_s);
            o->cpu_s = add_known(o->cpu_s, s->cpu_s);
        }
    for (size_t i = 0; i < *n; i++)
        w[2 * i].worker = w[2 * i + 1].worker = ids[i].worker;
    free(ids);
    return w;
}

/* [GRID]'s slowdown factor of a fork-join region, with the workers as its
 * branches: n * max busy / sum busy (1 balanced, n all on one worker). */
static double worker_slowdown(const worker_sum *w, size_t n, int side)
{
    double max = 0, sum = 0;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        const worker_sum *s = &w[2 * i + (size_t)side];
        if (!s->has[side] || isnan(s->busy_s))
            continue;
        max = fmax(max, s->busy_s);
        sum += s->busy_s;
        k++;
    }
    return k && sum > 0 ? (double)k * max / sum : NAN;
}

static double total_wait(const repo_run *r)
{
    double s = NAN;
    for (size_t i = 0; i < r->n_workers; i++)
        s = add_known(s, r->workers[i].wait_s);
    return s;
}

static const char *const whole_cols[] = {"figure", "A", "B", "B/A"};
static const char *const speedup_cols[] = {"figure", "speedup", "slowdown"};

static void whole_row(repo_report *r, repo_table *t, const char *figure, double a, double b)
{
    repo_cell *row = repo_table_row(r, t);
    if (!row)
        return;
    repo_cell_set_text(r, row, 0, figure);
    row[1].num = a;
    row[2].num = b;
    row[3].num = repo_ratio(b, a);
}

/* Rebuilds the activity DAG of a record, for wfb_speedup. */
static wfb_graph *activity_graph(const repo_run *rec, wfb_error *err)
{
    wfb_graph *g = wfb_graph_new();
    if (!g)
        return NULL;
    for (size_t i = 0; i < rec->n_activities; i++) {
        const repo_activity *a = &rec->activities[i];
        uint32_t v = wfb_vertex_ref(g, a->id, strlen(a->id), 0);
        if (v == WFB_NONE)
            goto fail;
        wfb_vertex_define(g, v, WFB_VERTEX_ACTIVITY, 0);
        if ((!isnan(a->submitted_s) && wfb_vertex_set_time(g, v, WFB_T_SUBMITTED, a->submitted_s)) ||
            (!isnan(a->active_s) && wfb_vertex_set_time(g, v, WFB_T_ACTIVE, a->active_s)) ||
            (!isnan(a->end_s) && wfb_vertex_set_time(g, v, WFB_T_END, a->end_s)) ||
            (!isnan(a->duration_s) && wfb_vertex_set_duration(g, v, a->duration_s)))
            goto fail;
    }
    for (size_t i = 0; i < rec->n_dependencies; i++) {
        const repo_dependency *d = &rec->dependencies[i];
        uint32_t p = wfb_vertex_ref(g, d->parent, strlen(d->parent), 0);
        uint32_t c = wfb_vertex_ref(g, d->child, strlen(d->child), 0);
        if (p == WFB_NONE || c == WFB_NONE || wfb_edge_add(g, p, c, WFB_EDGE_DEPEND, 0, 0) == WFB_NONE)
            goto fail;
    }
    if (wfb_graph_finish_lenient(g, err) == 0)
        return g;
fail:
    wfb_graph_free(g);
    return NULL;
}

/* [GRID] speedup of B over A on their common activities (whose id matches
 * pattern, NULL: all): span(A)/span(B). */
static int activity_speedup(const repo_run *a, const repo_run *b, const char *pattern,
                            double *s, size_t *common, char *err, size_t errlen)
{
    *s = NAN;
    *common = 0;
    if (!a->n_activities || !b->n_activities)
        return 0;
    wfb_error e = {.msg = "out of memory"};
    wfb_graph *ga = activity_graph(a, &e), *gb = ga ? activity_graph(b, &e) : NULL;
    int rc = ga && gb ? wfb_speedup_subgraph(ga, gb, pattern, s, common, &e) : -1;
    if (rc)
        snprintf(err, errlen, "%s", e.msg);
    wfb_graph_free(ga);
    wfb_graph_free(gb);
    return rc;
}

static void whole_table(repo_report *r, const repo_run *const runs[2], const worker_sum *w,
                        size_t nw, double act_speedup, size_t common)
{
    repo_table *t = repo_table_add(r, "whole_run", repo_xprintf("Whole run"), whole_cols, 4);
    const repo_figures *fa = repo_figures_of(runs[0], 0), *fb = repo_figures_of(runs[1], 0);
    static const repo_figures none = {.f = {.span_s = NAN, .throughput_per_s = NAN,
                                          .busy_max_s = NAN, .throughput_busy_per_s = NAN,
                                          .exec_s = NAN, .jitter_s = NAN,
                                          .latency = {0, NAN, NAN, NAN, NAN, NAN, NAN, NAN},
                                          .end_to_end = {0, NAN, NAN, NAN, NAN, NAN, NAN, NAN}}};
    if (!fa)
        fa = &none;
    if (!fb)
        fb = &none;
    whole_row(r, t, "inputs", (double)fa->f.inputs, (double)fb->f.inputs);
    whole_row(r, t, "span_s", fa->f.span_s, fb->f.span_s);
    whole_row(r, t, "throughput_per_s", fa->f.throughput_per_s, fb->f.throughput_per_s);
    whole_row(r, t, "busy_max_s", fa->f.busy_max_s, fb->f.busy_max_s);
    whole_row(r, t, "throughput_busy_per_s", fa->f.throughput_busy_per_s,
              fb->f.throughput_busy_per_s);
    whole_row(r, t, "exec_s", fa->f.exec_s, fb->f.exec_s);
    whole_row(r, t, "latency_median_s", fa->f.latency.median, fb->f.latency.median);
    whole_row(r, t, "latency_p95_s", fa->f.latency.p95, fb->f.latency.p95);
    whole_row(r, t, "latency_p99_s", fa->f.latency.p99, fb->f.latency.p99);
    whole_row(r, t, "end_to_end_median_s", fa->f.end_to_end.median, fb->f.end_to_end.median);
    whole_row(r, t, "jitter_s", fa->f.jitter_s, fb->f.jitter_s);
    whole_row(r, t, "wait_s", total_wait(runs[0]), total_wait(runs[1]));
    whole_row(r, t, "worker_slowdown_factor", worker_slowdown(w, nw, 0), worker_slowdown(w, nw, 1));
    if (runs[0]->n_activities || runs[1]->n_activities) {
        const repo_activity_figures *xa = &runs[0]->activity, *xb = &runs[1]->activity;
        whole_row(r, t, "activities", (double)xa->activities, (double)xb->activities);
        whole_row(r, t, "makespan_s", xa->makespan_s, xb->makespan_s);
        whole_row(r, t, "response_median_s", xa->response.median, xb->response.median);
        whole_row(r, t, "processing_median_s", xa->processing.median, xb->processing.median);
        whole_row(r, t, "sync_delay_median_s", xa->sync_delay.median, xb->sync_delay.median);
        whole_row(r, t, "slowdown_factor_mean", xa->slowdown_factor.mean,
                  xb->slowdown_factor.mean);
    }
    /* the speedup rows: A's time over B's */
    repo_table *s = repo_table_add(r, "speedup", repo_xprintf("Speedup of B over A (> 1: B is faster)"),
                          speedup_cols, 3);
    repo_cell *row = repo_table_row(r, s);
    repo_cell_set_text(r, row, 0, "run (span A / span B)");
    if (row) {
        row[1].num = repo_ratio(fa->f.span_s, fb->f.span_s);
        row[2].num = repo_ratio(1.0, row[1].num);
    }
    row = repo_table_row(r, s);
    repo_cell_set_text(r, row, 0, "busy time (busy_max A / busy_max B)");
    if (row) {
        row[1].num = repo_ratio(fa->f.busy_max_s, fb->f.busy_max_s);
        row[2].num = repo_ratio(1.0, row[1].num);
    }
    if (runs[0]->n_activities || runs[1]->n_activities) {
        row = repo_table_row(r, s);
        char *name = repo_xprintf("common activities (%zu, [GRID])", common);
        repo_cell_set_text(r, row, 0, name ? name : "common activities");
        free(name);
        if (row) {
            row[1].num = act_speedup;
            row[2].num = repo_ratio(1.0, act_speedup);
        }
    }
}

/* The speedup over the common activities matching --subgraph RE. */
static void subgraph_speedup_row(repo_report *r, const char *pattern, double s, size_t common)
{
    repo_table *t = NULL;
    for (size_t i = 0; i < r->n; i++)
        if (!strcmp(r->tables[i].key, "speedup"))
            t = &r->tables[i];
    repo_cell *row = repo_table_row(r, t);
    char *name = repo_xprintf("common activities matching '%s' (%zu, [GRID])", pattern, common);
    repo_cell_set_text(r, row, 0, name ? name : pattern);
    free(name);
    if (row) {
        row[1].num = s;
        row[2].num = repo_ratio(1.0, s);
    }
}

/* span, busy, wait, waits as section 3 of docs/METRICS.md names them: the
 * paper's WT is wait and its WE (waiting events) waits, so no column is
 * called WE, which once meant the span here and a count in top. */
static const char *const worker_cols[] = {
    "worker",  "span A",    "span B",    "busy A",  "busy B",  "wait A", "wait B", "waits A",
    "waits B", "blocked A", "blocked B", "ready A", "ready B", "CPU A",  "CPU B"};

static void workers_table(repo_report *r, const worker_sum *w, size_t n)
{
    repo_table *t = repo_table_add(
        r, "workers",
        repo_xprintf("Workers (span: execution time, worker_start to worker_end; wait: waiting "
                     "time for work, the paper's WT; waits: their number, its WE; blocked and "
                     "ready: its tasks' time blocked on streams and then ready, waiting for it; "
                     "CPU: its thread's CPU time, n/a without -m C; seconds, summed over the "
                     "runs of a trace)"),
        worker_cols, 15);
    for (size_t i = 0; i < n; i++) {
        repo_cell *row = repo_table_row(r, t);
        if (!row)
            return;
        char id[24];
        snprintf(id, sizeof id, "%u", w[2 * i].worker);
        repo_cell_set_text(r, row, 0, id);
        for (int side = 0; side < 2; side++) {
            const worker_sum *s = &w[2 * i + (size_t)side];
            if (!s->has[side])
                continue;
            row[1 + side].num = s->span_s;
            row[3 + side].num = s->busy_s;
            row[5 + side].num = s->wait_s;
            row[7 + side].num = (double)s->waits;
            row[9 + side].num = s->blocked_s;
            row[11 + side].num = s->ready_s;
            row[13 + side].num = s->cpu_s;
        }
    }
}

static const char *const group_cols[] = {"name",   "tasks A", "tasks B", "exec A",  "exec B",
                                         "span A", "span B",  "speedup", "wait A", "wait B"};

static void group_row(repo_report *r, repo_table *t, const agg_out *o)
{
    repo_cell *row = repo_table_row(r, t);
    if (!row)
        return;
    repo_cell_set_text(r, row, 0, o->key);
    row[1].num = (double)o->tasks[0];
    row[2].num = (double)o->tasks[1];
    row[3].num = o->exec[0];
    row[4].num = o->exec[1];
    row[5].num = o->span[0];
    row[6].num = o->span[1];
    row[7].num = repo_ratio(o->span[0], o->span[1]);
    row[8].num = o->wait[0];
    row[9].num = o->wait[1];
}

/* The parent prefix of key ("S2:I3" -> "S2"), into buf; NULL at depth 1. */
static const char *parent_prefix(const char *key, char *buf, size_t len)
{
    const char *colon = strrchr(key, ':');
    if (!colon)
        return NULL;
    snprintf(buf, len, "%.*s", (int)(colon - key), key);
    return buf;
}

static int subgraph_tables(repo_report *r, const repo_run *const runs[2], int depth)
{
    agg g;
    if (group_tasks(&g, runs, BY_PREFIX, depth)) {
        agg_free(&g);
        return -1;
    }
    repo_table *t = repo_table_add(r, "subgraphs",
                          repo_xprintf("Sub-graphs by net path (prefixes of up to %d components, in "
                                  "both runs; seconds; speedup = span A / span B)",
                                  depth),
                          group_cols, 10);
    for (size_t i = 0; i < g.n_out; i++) {
        const agg_out *o = &g.out[i];
        if (!o->tasks[0] || !o->tasks[1])
            continue;
        char buf[1024];
        const char *parent = parent_prefix(o->key, buf, sizeof buf);
        const agg_out *p = parent ? agg_find(&g, parent) : NULL;
        if (p && p->tasks[0] == o->tasks[0] && p->tasks[1] == o->tasks[1])
            continue; /* the same tasks as its parent: said already */
        group_row(r, t, o);
    }
    agg_free(&g);
    if (group_tasks(&g, runs, BY_KIND, 0)) {
        agg_free(&g);
        return -1;
    }
    t = repo_table_add(r, "kinds", repo_xprintf("Entity kinds (the last net-path component)"), group_cols,
                  10);
    for (size_t i = 0; i < g.n_out; i++)
        group_row(r, t, &g.out[i]);
    agg_free(&g);
    if (!runs[0]->n_activities && !runs[1]->n_activities)
        return 0;
    if (group_activities(&g, runs)) {
        agg_free(&g);
        return -1;
    }
    t = repo_table_add(r, "activity_names",
                  repo_xprintf("Activities by name (exec: processing time; wait: waiting time; "
                          "seconds)"),
                  group_cols, 10);
    for (size_t i = 0; i < g.n_out; i++)
        group_row(r, t, &g.out[i]);
    agg_free(&g);
    return 0;
}

/* ---------------------------------------- tasks gaining, losing most */

typedef struct delta {
    const agg_out *o;
    double d;
} delta;

static int cmp_delta_desc(const void *x, const void *y)
{
    const delta *a = x, *b = y;
    return a->d < b->d ? 1 : a->d > b->d ? -1 : strcmp(a->o->key, b->o->key);
}

static const char *const task_cols[] = {"task", "A", "B", "B-A"};

static void delta_table(repo_report *r, const agg *g, delta *d, bool wait, bool gained, size_t top)
{
    const char *what = wait ? "waiting" : "execution time";
    repo_table *t = repo_table_add(r, wait ? (gained ? "tasks_gained_wait" : "tasks_lost_wait")
                                  : (gained ? "tasks_gained_exec" : "tasks_lost_exec"),
                          repo_xprintf("Tasks that %s the most %s (matched by net path; seconds)",
                                  gained ? "gained" : "lost", what),
                          task_cols, 4);
    for (size_t i = 0; i < g->n_out; i++) {
        const agg_out *o = &g->out[i];
        d[i] = (delta){o, wait ? o->wait[1] - o->wait[0] : o->exec[1] - o->exec[0]};
        if (!gained)
            d[i].d = -d[i].d;
    }
    qsort(d, g->n_out, sizeof *d, cmp_delta_desc);
    for (size_t i = 0; i < g->n_out && i < top && d[i].d > 0; i++) {
        const agg_out *o = d[i].o;
        repo_cell *row = repo_table_row(r, t);
        if (!row)
            return;
        char *name = repo_xprintf("%s%s", o->key,
                             !o->tasks[0] ? " (only in B)" : !o->tasks[1] ? " (only in A)" : "");
        repo_cell_set_text(r, row, 0, name ? name : o->key);
        free(name);
        row[1].num = wait ? o->wait[0] : o->exec[0];
        row[2].num = wait ? o->wait[1] : o->exec[1];
        row[3].num = row[2].num - row[1].num;
    }
}

static int task_tables(repo_report *r, const repo_run *const runs[2], size_t top)
{
    agg g;
    if (group_tasks(&g, runs, BY_NAME, 0)) {
        agg_free(&g);
        return -1;
    }
    delta *d = calloc(g.n_out ? g.n_out : 1, sizeof *d);
    if (!d) {
        agg_free(&g);
        return -1;
    }
    delta_table(r, &g, d, false, true, top);
    delta_table(r, &g, d, false, false, top);
    delta_table(r, &g, d, true, true, top);
    delta_table(r, &g, d, true, false, top);
    free(d);
    agg_free(&g);
    return 0;
}

/* ---------------------------------------------------- critical path */

typedef struct step_sum {
    char *key;
    double s[2];
} step_sum;

static int add_step(step_sum **sums, size_t *n, size_t *cap, const char *key, int side, double s)
{
    for (size_t i = 0; i < *n; i++)
        if (!strcmp((*sums)[i].key, key)) {
            (*sums)[i].s[side] += s;
            return 0;
        }
    if (kit_grow(sums, cap, *n + 1, sizeof **sums))
        return -1;
    char *k = strdup(key);
    if (!k)
        return -1;
    (*sums)[(*n)++] = (step_sum){k, {side ? 0 : s, side ? s : 0}};
    return 0;
}

static int cmp_step_change(const void *x, const void *y)
{
    const step_sum *a = x, *b = y;
    double da = fabs(a->s[1] - a->s[0]), db = fabs(b->s[1] - b->s[0]);
    return da < db ? 1 : da > db ? -1 : strcmp(a->key, b->key);
}

static const char *const path_cols[] = {"path", "length A", "length B", "B/A", "vertices A",
                                        "vertices B"};
static const char *const share_cols[] = {"kind", "A", "B", "B-A"};

/* The critical paths' lengths, and the time each entity kind spends on
 * them (the steps of the vertices it produced), largest change first. */
static int path_tables(repo_report *r, const repo_run *const runs[2])
{
    repo_table *t = repo_table_add(r, "critical_path", repo_xprintf("Critical paths (seconds)"), path_cols, 6);
    for (int k = 0; k < 2; k++) {
        repo_cell *row = repo_table_row(r, t);
        if (!row)
            return -1;
        repo_cell_set_text(r, row, 0, wfb_path_kind_name((wfb_path_kind)k));
        const repo_path *pa = &runs[0]->paths[k], *pb = &runs[1]->paths[k];
        row[1].num = pa->valid ? pa->length_s : NAN;
        row[2].num = pb->valid ? pb->length_s : NAN;
        row[3].num = repo_ratio(row[2].num, row[1].num);
        row[4].num = pa->valid ? (double)pa->n : NAN;
        row[5].num = pb->valid ? (double)pb->n : NAN;
    }
    /* the as-executed path when both have one, else the longest */
    int k = runs[0]->paths[WFB_PATH_AS_EXECUTED].valid && runs[1]->paths[WFB_PATH_AS_EXECUTED].valid
                ? WFB_PATH_AS_EXECUTED
                : WFB_PATH_LONGEST;
    step_sum *sums = NULL;
    size_t n = 0, cap = 0;
    int rc = 0;
    for (int side = 0; side < 2 && rc == 0; side++) {
        const repo_path *p = &runs[side]->paths[k];
        for (size_t i = 0; p->valid && i < p->n && rc == 0; i++) {
            const char *owner = p->steps[i].task;
            const char *kind = mon_task_kind(owner);
            if (!isnan(p->steps[i].step_s))
                rc = add_step(&sums, &n, &cap, owner ? kind : "(unknown)", side, p->steps[i].step_s);
        }
    }
    if (rc == 0) {
        if (n)
            qsort(sums, n, sizeof *sums, cmp_step_change);
        t = repo_table_add(r, "critical_path_kinds",
                      repo_xprintf("Time on the %s by entity kind (the steps of the vertices each "
                              "kind produced; seconds), largest change first",
                              wfb_path_kind_name((wfb_path_kind)k)),
                      share_cols, 4);
        for (size_t i = 0; i < n; i++) {
            repo_cell *row = repo_table_row(r, t);
            if (!row)
                break;
            repo_cell_set_text(r, row, 0, sums[i].key);
            row[1].num = sums[i].s[0];
            row[2].num = sums[i].s[1];
            row[3].num = sums[i].s[1] - sums[i].s[0];
        }
    }
    for (size_t i = 0; i < n; i++)
        free(sums[i].key);
    free(sums);
    return rc;
}

/* ------------------------------------------------------------ heads */

static char *describe(const repo_run *rec)
{
    const repo_meta *m = &rec->meta;
    char id[32] = "", workers[32] = "", git[80] = "", labels[512] = "";
    if (m->id > 0)
        snprintf(id, sizeof id, "run %lld, ", (long long)m->id);
    if (m->workers >= 0)
        snprintf(workers, sizeof workers, ", %lld workers", (long long)m->workers);
    if (m->git_revision)
        snprintf(git, sizeof git, ", git %s", m->git_revision);
    size_t used = 0;
    for (size_t i = 0; i < m->n_labels && used < sizeof labels; i++)
        used += (size_t)snprintf(labels + used, sizeof labels - used, ", %s=%s",
                                 m->labels[i].key, m->labels[i].value);
    return repo_xprintf("%s%s%s%s%s (%s)", id, m->program ? m->program : m->format ? m->format : "?",
                   workers, git, labels, m->source ? m->source : "?");
}

static json_t *meta_json(const repo_run *rec)
{
    const repo_meta *m = &rec->meta;
    json_t *o = json_object();
    json_object_set_new(o, "id", m->id > 0 ? json_integer(m->id) : json_null());
    json_object_set_new(o, "source", m->source ? json_string(m->source) : json_null());
    json_object_set_new(o, "program", m->program ? json_string(m->program) : json_null());
    json_object_set_new(o, "workers", m->workers >= 0 ? json_integer(m->workers) : json_null());
    json_object_set_new(o, "git_revision",
                        m->git_revision ? json_string(m->git_revision) : json_null());
    return o;
}

int repo_compare_write(const repo_run *a, const repo_run *b, const repo_compare_options *opt,
                      wfb_output fmt, FILE *out, char *err, size_t errlen)
{
    const repo_run *const runs[2] = {a, b};
    repo_compare_options o = opt ? *opt : (repo_compare_options){0};
    if (o.depth <= 0)
        o.depth = 2;
    if (o.top == 0)
        o.top = 5;
    repo_report r = {0};
    size_t nw = 0;
    worker_sum *w = sum_workers(runs, &nw);
    double act = NAN;
    size_t common = 0;
    int rc = w ? activity_speedup(a, b, NULL, &act, &common, err, errlen) : -1;
    double sub = NAN;
    size_t sub_common = 0;
    if (rc == 0 && o.subgraph)
        rc = activity_speedup(a, b, o.subgraph, &sub, &sub_common, err, errlen);
    if (rc == 0) {
        whole_table(&r, runs, w, nw, act, common);
        if (o.subgraph)
            subgraph_speedup_row(&r, o.subgraph, sub, sub_common);
        workers_table(&r, w, nw);
        rc = subgraph_tables(&r, runs, o.depth);
    }
    if (rc == 0)
        rc = task_tables(&r, runs, o.top);
    if (rc == 0)
        rc = path_tables(&r, runs);
    if (rc == 0 && r.oom)
        rc = -1;
    if (rc == 0) {
        json_t *head = NULL;
        if (fmt == WFB_OUT_JSON) {
            head = json_object();
            json_object_set_new(head, "a", meta_json(a));
            json_object_set_new(head, "b", meta_json(b));
        } else if (fmt == WFB_OUT_TEXT) {
            char *da = describe(a), *db = describe(b);
            fprintf(out, "A: %s\nB: %s\n\n", da ? da : "?", db ? db : "?");
            free(da);
            free(db);
        }
        if (repo_report_write(&r, head, fmt, out) != 0 || ferror(out)) {
            snprintf(err, errlen, "error writing the comparison");
            rc = -1;
        }
    } else if (!err[0]) {
        snprintf(err, errlen, "out of memory");
    }
    free(w);
    repo_report_free(&r);
    return rc;
}

/* ------------------------------------------------------------ series */

static double median(double *v, size_t n)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (!isnan(v[i]))
            v[k++] = v[i];
    if (k == 0)
        return NAN;
    wfb_summary s;
    wfb_summarise(v, k, &s);
    return s.median;
}

static bool is_number(const char *s, double *v)
{
    char *end;
    *v = strtod(s, &end);
    return end != s && *end == '\0';
}

static int cmp_points_numeric(const void *x, const void *y)
{
    const repo_series_point *a = x, *b = y;
    double va = strtod(a->value, NULL), vb = strtod(b->value, NULL);
    return va < vb ? -1 : va > vb;
}

/* The median of one figure over the runs of a point. */
static double point_median(const repo_run *recs, const size_t *members, size_t n, double *tmp,
                           double (*get)(const repo_run *))
{
    for (size_t i = 0; i < n; i++)
        tmp[i] = get(&recs[members[i]]);
    return median(tmp, n);
}

static double get_throughput(const repo_run *r)
{
    const repo_figures *f = repo_figures_of(r, 0);
    return f ? f->f.throughput_per_s : NAN;
}
static double get_lat50(const repo_run *r)
{
    const repo_figures *f = repo_figures_of(r, 0);
    return f ? f->f.latency.median : NAN;
}
static double get_lat95(const repo_run *r)
{
    const repo_figures *f = repo_figures_of(r, 0);
    return f ? f->f.latency.p95 : NAN;
}
static double get_lat99(const repo_run *r)
{
    const repo_figures *f = repo_figures_of(r, 0);
    return f ? f->f.latency.p99 : NAN;
}
static double get_span(const repo_run *r)
{
    const repo_figures *f = repo_figures_of(r, 0);
    return f ? f->f.span_s : NAN;
}

int repo_series(const repo_run *recs, size_t n, const char *key, repo_series_point **points,
               size_t *n_points, char *err, size_t errlen)
{
    *points = calloc(n ? n : 1, sizeof **points);
    size_t *members = calloc(n ? n : 1, sizeof *members);
    double *tmp = calloc(n ? n : 1, sizeof *tmp);
    const char **values = calloc(n ? n : 1, sizeof *values);
    char (*bufs)[256] = calloc(n ? n : 1, sizeof *bufs);
    *n_points = 0;
    if (!*points || !members || !tmp || !values || !bufs) {
        snprintf(err, errlen, "out of memory");
        free(*points), free(members), free(tmp), free(values), free(bufs);
        *points = NULL;
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        values[i] = repo_field(&recs[i], key, bufs[i], sizeof bufs[i]);
    bool numeric = true;
    for (size_t i = 0; i < n; i++) {
        double v;
        if (!values[i])
            continue;
        numeric &= is_number(values[i], &v);
        bool seen = false;
        for (size_t j = 0; j < i && !seen; j++)
            seen = values[j] && !strcmp(values[j], values[i]);
        if (seen)
            continue;
        size_t m = 0;
        for (size_t j = i; j < n; j++)
            if (values[j] && !strcmp(values[j], values[i]))
                members[m++] = j;
        repo_series_point *p = &(*points)[(*n_points)++];
        snprintf(p->value, sizeof p->value, "%s", values[i]);
        p->runs = m;
        p->first_id = recs[members[0]].meta.id;
        p->last_id = recs[members[m - 1]].meta.id;
        p->throughput_per_s = point_median(recs, members, m, tmp, get_throughput);
        p->latency_median_s = point_median(recs, members, m, tmp, get_lat50);
        p->latency_p95_s = point_median(recs, members, m, tmp, get_lat95);
        p->latency_p99_s = point_median(recs, members, m, tmp, get_lat99);
        p->wait_s = point_median(recs, members, m, tmp, total_wait);
        p->span_s = point_median(recs, members, m, tmp, get_span);
    }
    if (numeric)
        qsort(*points, *n_points, sizeof **points, cmp_points_numeric);
    free(members), free(tmp), free(values), free(bufs);
    return 0;
}

static const char *const series_cols[] = {"value",     "runs",          "ids",
                                          "throughput_per_s", "latency_median_s",
                                          "latency_p95_s",    "latency_p99_s",
                                          "wait_s",           "span_s"};

int repo_series_write(const repo_series_point *p, size_t n, const char *key, wfb_output fmt, FILE *out)
{
    repo_report r = {0};
    repo_table *t = repo_table_add(&r, "series",
                          repo_xprintf("Series along '%s' (each figure: the median over the runs "
                                  "with that value)",
                                  key),
                          series_cols, 9);
    for (size_t i = 0; i < n; i++) {
        repo_cell *row = repo_table_row(&r, t);
        if (!row)
            break;
        repo_cell_set_text(&r, row, 0, p[i].value);
        row[1].num = (double)p[i].runs;
        char ids[64];
        if (p[i].first_id == p[i].last_id)
            snprintf(ids, sizeof ids, "%lld", p[i].first_id);
        else
            snprintf(ids, sizeof ids, "%lld..%lld", p[i].first_id, p[i].last_id);
        repo_cell_set_text(&r, row, 2, ids);
        row[3].num = p[i].throughput_per_s;
        row[4].num = p[i].latency_median_s;
        row[5].num = p[i].latency_p95_s;
        row[6].num = p[i].latency_p99_s;
        row[7].num = p[i].wait_s;
        row[8].num = p[i].span_s;
    }
    int rc = r.oom ? -1 : repo_report_write(&r, NULL, fmt, out);
    repo_report_free(&r);
    return rc || ferror(out) ? -1 : 0;
}
