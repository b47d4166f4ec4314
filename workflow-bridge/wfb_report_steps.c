/*
 * wfb_report_steps.c - the as-executed path of an LPEL trace (steps, not
 * vertices: wfb_wcp.c) as text and JSON (docs/EVENTS.md), and its totals,
 * which the text, the HTML report and the comparison of runs share.
 *
 * Why the text does not list every step: the path of a run has a step per
 * period it passes through (16 000 for 100 mc requests), nearly all of
 * them a worker going from one period to the next. The text prints where
 * the time went (by kind, by task) and the stretches between the steps
 * that cross to another task's dependency - data, back-pressure, creation
 * - which are what a reader follows; JSON has every step.
 */
#include "wfb_internal.h"

#include "mon_reader.h" /* mon_task_kind */

#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define num wfb_json_num

void wfb_path_step_totals(const wfb_path *p, wfb_step_totals *t)
{
    memset(t, 0, sizeof *t);
    for (size_t i = 0; i < p->n_steps; i++) {
        wfb_step s = wfb_path_step_at(p, i);
        double d = s.end_s - s.start_s;
        t->kind_s[s.kind] += d;
        t->kind_n[s.kind]++;
        if (s.kind == WFB_STEP_READY) {
            t->via_s[s.via] += d;
            t->via_n[s.via]++;
        }
    }
}

/* "S1:mc.png (task 1)" for a task index. */
static const char *task_text(const wfb_graph *g, uint32_t task, char *buf, size_t len)
{
    if (task == WFB_NONE || task >= wfb_task_stats_count(g)) {
        snprintf(buf, len, "?");
        return buf;
    }
    const wfb_task_stats *t = wfb_task_stats_at(g, task);
    char id[48];
    snprintf(buf, len, "%s (task %s)", t->name ? t->name : "(unnamed)",
             wfb_task_id_text(t->task, id, sizeof id));
    return buf;
}

static double share(double x, double of) { return of > 0 ? 100.0 * x / of : 0.0; }

/* Run time on the path per task, largest first. */
typedef struct task_time {
    uint32_t task;
    double run_s;
} task_time;

static int by_time(const void *a, const void *b)
{
    double x = ((const task_time *)a)->run_s, y = ((const task_time *)b)->run_s;
    return (x < y) - (x > y);
}

/* The tasks' run time on the path, sorted; NULL when out of memory. */
static task_time *task_times(const wfb_graph *g, const wfb_path *p, size_t *n)
{
    size_t nt = wfb_task_stats_count(g);
    task_time *v = calloc(nt ? nt : 1, sizeof *v);
    if (!v)
        return NULL;
    for (size_t i = 0; i < nt; i++)
        v[i].task = (uint32_t)i;
    for (size_t i = 0; i < p->n_steps; i++) {
        wfb_step s = wfb_path_step_at(p, i);
        if (s.kind == WFB_STEP_RUN && s.task < nt)
            v[s.task].run_s += s.end_s - s.start_s;
    }
    qsort(v, nt, sizeof *v, by_time);
    *n = 0;
    while (*n < nt && v[*n].run_s > 0)
        (*n)++;
    return v;
}

static void totals_text(const wfb_path *p, FILE *out)
{
    wfb_step_totals t;
    wfb_path_step_totals(p, &t);
    double len = p->length_s;
    fprintf(out, "  run %.6g s (%.1f%%), ready %.6g s (%.1f%%), idle %.6g s (%.1f%%)\n",
            t.kind_s[WFB_STEP_RUN], share(t.kind_s[WFB_STEP_RUN], len), t.kind_s[WFB_STEP_READY],
            share(t.kind_s[WFB_STEP_READY], len), t.kind_s[WFB_STEP_IDLE],
            share(t.kind_s[WFB_STEP_IDLE], len));
    fprintf(out, "  edges into ready steps:");
    for (wfb_via v = WFB_VIA_DATA; v <= WFB_VIA_OCCUPANCY; v++)
        fprintf(out, "%s %s %zu (%.6g s)", v == WFB_VIA_DATA ? "" : ",", wfb_via_name(v),
                t.via_n[v], t.via_s[v]);
    fputc('\n', out);
}

/* Run time on the path per task kind (mon_task_kind), largest first:
 * kinds[] names (pointers into the task names), n of them. */
typedef struct kind_time {
    const char *kind;
    double run_s;
} kind_time;

static int kind_by_time(const void *a, const void *b)
{
    double x = ((const kind_time *)a)->run_s, y = ((const kind_time *)b)->run_s;
    return (x < y) - (x > y);
}

static kind_time *kind_times(const wfb_graph *g, const task_time *tasks, size_t nt, size_t *n)
{
    kind_time *v = calloc(nt ? nt : 1, sizeof *v);
    if (!v)
        return NULL;
    *n = 0;
    for (size_t i = 0; i < nt; i++) {
        const char *k = mon_task_kind(wfb_task_stats_at(g, tasks[i].task)->name);
        size_t j = 0;
        while (j < *n && strcmp(v[j].kind, k) != 0)
            j++;
        if (j == *n)
            v[(*n)++].kind = k;
        v[j].run_s += tasks[i].run_s;
    }
    qsort(v, *n, sizeof *v, kind_by_time);
    return v;
}

static void tasks_text(const wfb_graph *g, const wfb_path *p, FILE *out)
{
    size_t n;
    task_time *v = task_times(g, p, &n);
    if (!v)
        return;
    size_t nk;
    kind_time *k = kind_times(g, v, n, &nk);
    for (size_t i = 0; k && i < nk && i < 5; i++)
        fprintf(out, "%s%s %.6g s (%.1f%%)", i ? ", " : "  run time on the path by task kind: ",
                k[i].kind, k[i].run_s, share(k[i].run_s, p->length_s));
    if (k && nk)
        fprintf(out, "%s\n", nk > 5 ? ", ..." : "");
    free(k);
    fprintf(out, "  run time on the path by task (the largest %zu of %zu):\n", n < 10 ? n : 10, n);
    for (size_t i = 0; i < n && i < 10; i++) {
        char name[300];
        fprintf(out, "    %-50s %12.9f s %5.1f%%\n", task_text(g, v[i].task, name, sizeof name),
                v[i].run_s, share(v[i].run_s, p->length_s));
    }
    free(v);
}

/* One line for a ready step that crosses to another task's dependency. */
static void crossing_text(const wfb_graph *g, const wfb_step *s, FILE *out)
{
    char a[300], b[300], stream[64] = "";
    if (s->via == WFB_VIA_DATA || s->via == WFB_VIA_BACKPRESSURE)
        snprintf(stream, sizeof stream, " on stream %" PRIu64, s->stream);
    fprintf(out, "    %.9f  %-13s %s on worker %" PRIu32 " after %s%s (ready %.6g s)\n", s->start_s,
            wfb_via_name(s->via), task_text(g, s->task, a, sizeof a), s->worker,
            task_text(g, s->other, b, sizeof b), stream, s->end_s - s->start_s);
}

void wfb_steps_text(const wfb_graph *g, const wfb_path *p, FILE *out)
{
    fprintf(out, "  length %.9g s, %zu steps (the steps add up to the length)", p->length_s,
            p->n_steps);
    if (!isnan(p->span_s))
        fprintf(out, ": %.1f%% of run %" PRIu32 "'s span %.9g s; before its first step "
                     "%.6g s of start-up, after its last %.6g s",
                share(p->length_s, p->span_s), p->run, p->span_s, p->start_up_s, p->tail_s);
    fputc('\n', out);
    totals_text(p, out);
    tasks_text(g, p, out);
    size_t crossings = 0;
    for (size_t i = 0; i < p->n_steps; i++) {
        wfb_step s = wfb_path_step_at(p, i);
        crossings += s.kind == WFB_STEP_READY && s.via != WFB_VIA_OCCUPANCY;
    }
    fprintf(out, "  dependencies on other tasks along it (%zu; occupancy and idle steps are in "
                 "--json):\n",
            crossings);
    for (size_t i = 0; i < p->n_steps; i++) {
        wfb_step s = wfb_path_step_at(p, i);
        if (s.kind == WFB_STEP_READY && s.via != WFB_VIA_OCCUPANCY)
            crossing_text(g, &s, out);
    }
    fputc('\n', out);
}

static json_t *task_json(wfb_json_doc *d, const wfb_graph *g, uint32_t task)
{
    if (task == WFB_NONE || task >= wfb_task_stats_count(g))
        return json_null();
    const wfb_task_stats *t = wfb_task_stats_at(g, task);
    json_t *o = json_object();
    wfb_json_set(d, o, "task", json_integer((json_int_t)t->task));
    wfb_json_set(d, o, "name", wfb_json_str(t->name));
    return o;
}

/* A task's id, null when there is none. */
static json_t *task_id_json(const wfb_graph *g, uint32_t task)
{
    if (task == WFB_NONE || task >= wfb_task_stats_count(g))
        return json_null();
    return json_integer((json_int_t)wfb_task_stats_at(g, task)->task);
}

/* A step, flat: a path has a step per period it passes (the tasks are
 * named by id; `task_shares` and the task table name them). */
static json_t *step_json(wfb_json_doc *d, const wfb_graph *g, const wfb_step *s)
{
    json_t *o = json_object();
    wfb_json_set(d, o, "kind", json_string(wfb_step_kind_name(s->kind)));
    wfb_json_set(d, o, "via", s->kind == WFB_STEP_READY ? json_string(wfb_via_name(s->via))
                                                        : json_null());
    wfb_json_set(d, o, "task", task_id_json(g, s->task));
    wfb_json_set(d, o, "other", s->kind == WFB_STEP_RUN ? json_null() : task_id_json(g, s->other));
    wfb_json_set(d, o, "worker", json_integer(s->worker));
    wfb_json_set(d, o, "stream", s->via == WFB_VIA_DATA || s->via == WFB_VIA_BACKPRESSURE
                                     ? json_integer((json_int_t)s->stream)
                                     : json_null());
    wfb_json_set(d, o, "start_s", num(s->start_s));
    wfb_json_set(d, o, "step_s", num(s->end_s - s->start_s));
    wfb_json_set(d, o, "wrote", s->vertex != WFB_NONE ? json_string(wfb_vertex_id(g, s->vertex))
                                                      : json_null());
    return o;
}

/* Step i of path a of graph b (wfb_json_deferred_array's item). */
static json_t *step_item(wfb_json_doc *d, const void *a, const void *b, size_t i)
{
    wfb_step s = wfb_path_step_at(a, i);
    return step_json(d, b, &s);
}

json_t *wfb_steps_json(wfb_json_doc *d, const wfb_graph *g, const wfb_path *p)
{
    json_t *o = json_object(), *kinds = json_object(),
           *vias = json_object(), *tasks = json_array();
    wfb_step_totals t;
    wfb_path_step_totals(p, &t);
    wfb_json_set(d, o, "length_s", num(p->length_s));
    wfb_json_set(d, o, "run", json_integer(p->run));
    wfb_json_set(d, o, "span_s", num(p->span_s));
    wfb_json_set(d, o, "coverage", num(p->span_s > 0 ? p->length_s / p->span_s : NAN));
    wfb_json_set(d, o, "start_up_s", num(p->start_up_s));
    wfb_json_set(d, o, "tail_s", num(p->tail_s));
    for (wfb_step_kind k = WFB_STEP_RUN; k <= WFB_STEP_IDLE; k++)
        wfb_json_set(d, kinds, wfb_step_kind_name(k), num(t.kind_s[k]));
    for (wfb_via v = WFB_VIA_DATA; v <= WFB_VIA_OCCUPANCY; v++) {
        json_t *x = json_object();
        wfb_json_set(d, x, "steps", json_integer((json_int_t)t.via_n[v]));
        wfb_json_set(d, x, "seconds", num(t.via_s[v]));
        wfb_json_set(d, vias, wfb_via_name(v), x);
    }
    wfb_json_set(d, o, "seconds_by_kind", kinds);
    wfb_json_set(d, o, "ready_by_edge", vias);
    size_t n;
    task_time *v = task_times(g, p, &n);
    for (size_t i = 0; v && i < n; i++) {
        json_t *x = task_json(d, g, v[i].task);
        wfb_json_set(d, x, "run_s", num(v[i].run_s));
        wfb_json_set(d, x, "fraction", num(p->length_s > 0 ? v[i].run_s / p->length_s : NAN));
        wfb_json_append(d, tasks, x);
    }
    json_t *kinds_json = json_array();
    size_t nk;
    kind_time *k = v ? kind_times(g, v, n, &nk) : NULL;
    for (size_t i = 0; k && i < nk; i++) {
        json_t *x = json_object();
        wfb_json_set(d, x, "kind", json_string(k[i].kind));
        wfb_json_set(d, x, "run_s", num(k[i].run_s));
        wfb_json_set(d, x, "fraction", num(p->length_s > 0 ? k[i].run_s / p->length_s : NAN));
        wfb_json_append(d, kinds_json, x);
    }
    free(k);
    free(v);
    wfb_json_set(d, o, "kind_shares", kinds_json);
    wfb_json_set(d, o, "task_shares", tasks);
    /* as many as the run has periods: written one at a time */
    wfb_json_set(d, o, "steps", wfb_json_deferred_array(d, step_item, p, g, p->n_steps));
    return o;
}
