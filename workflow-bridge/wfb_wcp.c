/*
 * wfb_wcp.c - the workflow critical path, both definitions, exactly and in
 * O(V+E) over the topological order built by wfb_graph_finish().
 *
 * Longest path: dynamic programming over the topological order (the what-if
 * path without contention). As-executed path: a walk back from the sink that
 * finished last through the predecessor that finished last. Neither uses a
 * shortest path over inverse costs, which picks wrong paths (see tests).
 *
 * An LPEL trace's as-executed path walks its as-executed graph instead
 * (wfb_execgraph.c): from the period that ended last, back through what
 * each period waited for before it began - the period holding its worker
 * while it was ready (occupancy), else the period that woke it (data,
 * back-pressure) or created it - so the path is contiguous in time and
 * covers the run from its first period on; what it cannot explain it names
 * (idle, start-up). The message graph alone could not: a write that waited
 * for a slot, or a task that waited for its core, depends on tasks that
 * often have no data state (docs/METRICS.md section 5). Where the trace
 * does not say what made a task ready after its worker idled (an LPEL
 * event raised by another thread, the MPI transport's), the walk goes on
 * from the period that ended last before the task's dispatch, on any
 * worker: the latest thing that happened, as the message graph's walk takes
 * the predecessor that finished last, and not the worker's own period
 * before the idle, which certainly did not wake it.
 */
#include "wfb_internal.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void wfb_path_free(wfb_path *p)
{
    free(p->vertices);
    free(p->edges);
    kit_spill_close(p->step_rows);
    memset(p, 0, sizeof *p);
}

/* The steps are stored as the walk finds them, from the last back. */
wfb_step wfb_path_step_at(const wfb_path *p, size_t i)
{
    const wfb_step *s = i < p->n_steps ? kit_spill_at(p->step_rows, p->n_steps - 1 - i) : NULL;
    if (s)
        return *s;
    if (p->io_err && !*p->io_err)
        *p->io_err = kit_spill_error(p->step_rows) ? kit_spill_error(p->step_rows) : EIO;
    return (wfb_step){.start_s = NAN, .end_s = NAN, .vertex = WFB_NONE};
}

/* Floating sums of the same durations in another order differ in the last
 * bits; such values count as a tie so that ties resolve by input order. */
static bool clearly_greater(double a, double b)
{
    return a > b + 1e-9 * fmax(1.0, fabs(b));
}

/* Reverses a path collected from its end backwards. */
static void reverse_path(wfb_path *p)
{
    for (size_t i = 0, j = p->n - 1; i < j; i++, j--) {
        uint32_t t = p->vertices[i];
        p->vertices[i] = p->vertices[j];
        p->vertices[j] = t;
    }
    if (p->n < 3)
        return;
    for (size_t i = 0, j = p->n - 2; i < j; i++, j--) {
        uint32_t t = p->edges[i];
        p->edges[i] = p->edges[j];
        p->edges[j] = t;
    }
}

/* Follows chosen in-edges back from `last` and stores the path in order. */
static int collect_path(const wfb_graph *g, const uint32_t *chosen_in, uint32_t last,
                        wfb_path *out)
{
    size_t n = 1;
    for (uint32_t v = last; chosen_in[v] != WFB_NONE; v = g->e_src[chosen_in[v]])
        n++;
    out->vertices = malloc(n * sizeof *out->vertices);
    out->edges = malloc((n > 1 ? n - 1 : 1) * sizeof *out->edges);
    if (!out->vertices || !out->edges)
        return -1;
    out->n = 0;
    uint32_t v = last;
    for (;;) {
        out->vertices[out->n] = v;
        uint32_t e = chosen_in[v];
        if (e == WFB_NONE)
            break;
        out->edges[out->n++] = e;
        v = g->e_src[e];
    }
    out->n++;
    reverse_path(out);
    return 0;
}

static int not_finished(const wfb_graph *g, wfb_error *err)
{
    wfb_set_error(err, g->source, 0, "graph not finished (call wfb_graph_finish first)");
    return -1;
}

/* The vertex the longest path ends at: the first (by index) of those whose
 * distance is not clearly below the largest. A rule that does not depend on
 * the order the vertices are met in, as "the largest so far" with a
 * tolerance would, so that the bounded analysis, which meets them as the
 * trace is read, ends at the same vertex (wfb_path_end_*). */
uint32_t wfb_path_last(const double *dist, size_t n)
{
    double max = 0;
    for (size_t v = 0; v < n; v++)
        if (v == 0 || dist[v] > max)
            max = dist[v];
    for (size_t v = 0; v < n; v++)
        if (!clearly_greater(max, dist[v]))
            return (uint32_t)v;
    return WFB_NONE;
}

static double path_start(const wfb_graph *g, uint32_t first);

/* ---- the paths of a graph lifted bounded (wfb_online.c) ----
 *
 * The analysis kept, for each vertex, the in-edge the longest path comes
 * through and the source that ended last: the walks back from the end are
 * those of the functions below, without the graph. */

/* The path from back-pointers: `pick` chooses dp_src or ae_src. */
static int online_collect(const wfb_graph *g, uint32_t last, bool longest, wfb_path *out,
                          bool *untimed, uint32_t *first)
{
    size_t n = 1;
    wfb_mv_back b;
    *untimed = false;
    for (uint32_t v = last;; n++) {
        if (wfb_online_back(g->online, v, &b))
            return -1;
        *untimed = *untimed || b.untimed;
        uint32_t src = longest ? b.dp_src : b.ae_src;
        if (src == WFB_NONE) {
            *first = v;
            break;
        }
        v = src;
    }
    out->vertices = malloc(n * sizeof *out->vertices);
    out->edges = malloc((n > 1 ? n - 1 : 1) * sizeof *out->edges);
    if (!out->vertices || !out->edges)
        return -1;
    out->n = n;
    uint32_t v = last;
    for (size_t i = n; i-- > 0;) {
        out->vertices[i] = v;
        if (!i)
            break;
        if (wfb_online_back(g->online, v, &b))
            return -1;
        uint32_t src = longest ? b.dp_src : b.ae_src;
        if ((out->edges[i - 1] = wfb_graph_path_edge(g, &b, src, v)) == WFB_NONE)
            return -1;
        v = src;
    }
    return 0;
}

static int online_longest_path(const wfb_graph *g, wfb_path *out, wfb_error *err)
{
    uint32_t last = wfb_online_path_end(g->online), first;
    bool untimed;
    wfb_mv_info info;
    if (last == WFB_NONE)
        return 0;
    if (online_collect(g, last, true, out, &untimed, &first) ||
        wfb_online_vertex(g->online, last, &info)) {
        wfb_path_free(out);
        wfb_set_error(err, g->source, 0, "out of memory computing the longest path");
        return -1;
    }
    out->valid = 1;
    out->kind = WFB_PATH_LONGEST;
    out->length_s = info.dist;
    return 0;
}

/* The message graph's as-executed path: from the sink that finished last
 * (a scan of every vertex), back through the sources that ended last. */
static int online_as_executed(const wfb_graph *g, wfb_path *out, wfb_error *err)
{
    uint32_t last = WFB_NONE, n = wfb_online_vertex_count(g->online), first;
    double last_end = 0;
    for (uint32_t v = 0; v < n; v++) {
        wfb_mv_info info;
        if (wfb_online_vertex(g->online, v, &info))
            goto fail;
        if (info.has_out || isnan(info.time))
            continue;
        if (last == WFB_NONE || info.time > last_end) {
            last = v;
            last_end = info.time;
        }
    }
    if (last == WFB_NONE)
        return 0;
    bool untimed;
    if (online_collect(g, last, false, out, &untimed, &first))
        goto fail;
    wfb_mv_back b;
    if (wfb_online_back(g->online, first, &b))
        goto fail;
    if (untimed && b.dp_src != WFB_NONE) { /* the walk stopped at missing times */
        wfb_path_free(out);
        return 0;
    }
    out->valid = 1;
    out->kind = WFB_PATH_AS_EXECUTED;
    out->length_s = wfb_vertex_end(g, last) - path_start(g, first);
    return 0;
fail:
    wfb_path_free(out);
    wfb_set_error(err, g->source, 0, "out of memory computing the as-executed path");
    return -1;
}

int wfb_longest_path(const wfb_graph *g, wfb_path *out, wfb_error *err)
{
    memset(out, 0, sizeof *out);
    if (!g->finished)
        return not_finished(g, err);
    if (g->online)
        return online_longest_path(g, out, err);
    size_t nv = g->ids.count;
    if (!nv)
        return 0;
    double *dist = malloc(nv * sizeof *dist);
    uint32_t *chosen_in = malloc(nv * sizeof *chosen_in);
    if (!dist || !chosen_in)
        goto oom;
    uint32_t last = WFB_NONE;
    for (size_t k = 0; k < nv; k++) {
        uint32_t v = g->topo[k];
        double best = 0.0;
        uint32_t best_e = WFB_NONE;
        for (uint32_t i = g->in_off[v]; i < g->in_off[v + 1]; i++) {
            uint32_t e = g->in_list[i];
            double cand = dist[g->e_src[e]] + g->e_cost[e];
            if (best_e == WFB_NONE || clearly_greater(cand, best)) {
                best = cand;
                best_e = e;
            }
        }
        dist[v] = best + wfb_vertex_weight(g, v);
        chosen_in[v] = best_e;
    }
    last = wfb_path_last(dist, nv);
    if (collect_path(g, chosen_in, last, out))
        goto oom;
    out->valid = 1;
    out->kind = WFB_PATH_LONGEST;
    out->length_s = dist[last];
    free(dist);
    free(chosen_in);
    return 0;
oom:
    free(dist);
    free(chosen_in);
    wfb_path_free(out);
    wfb_set_error(err, g->source, 0, "out of memory computing the longest path");
    return -1;
}

/* The sink with the latest known end; ties go to the first in input order. */
static uint32_t last_finishing_sink(const wfb_graph *g)
{
    uint32_t last = WFB_NONE;
    double last_end = 0.0;
    for (size_t v = 0; v < g->ids.count; v++) {
        if (g->out_off[v + 1] != g->out_off[v])
            continue;
        double end = wfb_vertex_end(g, (uint32_t)v);
        if (isnan(end))
            continue;
        if (last == WFB_NONE || end > last_end) {
            last = (uint32_t)v;
            last_end = end;
        }
    }
    return last;
}

/* The in-edge whose source finished last, WFB_NONE if v has no timed
 * predecessor. *untimed is set when some predecessor lacks an end time. */
static uint32_t latest_predecessor_edge(const wfb_graph *g, uint32_t v, bool *untimed)
{
    uint32_t best_e = WFB_NONE;
    double best_end = 0.0;
    for (uint32_t i = g->in_off[v]; i < g->in_off[v + 1]; i++) {
        uint32_t e = g->in_list[i];
        double end = wfb_vertex_end(g, g->e_src[e]);
        if (isnan(end)) {
            *untimed = true;
            continue;
        }
        if (best_e == WFB_NONE || end > best_end) {
            best_e = e;
            best_end = end;
        }
    }
    return best_e;
}

/* Where an as-executed path starts: the first vertex's active time (a
 * data state's time), else its submitted time, else its end minus its
 * weight. */
static double path_start(const wfb_graph *g, uint32_t first)
{
    double start = wfb_vertex_start(g, first);
    if (isnan(start))
        start = wfb_vertex_time(g, first, WFB_T_SUBMITTED);
    if (isnan(start))
        start = wfb_vertex_end(g, first) - wfb_vertex_weight(g, first);
    return start;
}

double wfb_path_step(const wfb_graph *g, const wfb_path *p, size_t i)
{
    if (p->valid && p->n_steps) {
        wfb_step s = wfb_path_step_at(p, i);
        return i < p->n_steps ? s.end_s - s.start_s : NAN;
    }
    if (!p->valid || i >= p->n)
        return NAN;
    uint32_t v = p->vertices[i];
    if (p->kind == WFB_PATH_LONGEST)
        return wfb_vertex_weight(g, v) + (i ? wfb_edge_cost(g, p->edges[i - 1]) : 0.0);
    double before = i ? wfb_vertex_end(g, p->vertices[i - 1]) : path_start(g, v);
    return wfb_vertex_end(g, v) - before;
}

const char *wfb_path_kind_name(wfb_path_kind kind)
{
    return kind == WFB_PATH_AS_EXECUTED ? "as-executed path" : "longest path";
}

const char *wfb_step_kind_name(wfb_step_kind kind)
{
    static const char *const names[] = {"run", "ready", "idle"};
    return (unsigned)kind < sizeof names / sizeof names[0] ? names[kind] : "?";
}

const char *wfb_via_name(wfb_via via)
{
    static const char *const names[] = {"", "data", "back-pressure", "created", "occupancy"};
    return (unsigned)via < sizeof names / sizeof names[0] ? names[via] : "?";
}

/* ---- the as-executed path of an LPEL trace ---- */

/* A period's row, copied: the rows are a spill array whose pointers last
 * only until the next read. */
static wfb_period period(const wfb_graph *g, uint32_t i) { return *wfb_period_at(g, i); }

/* The period that ended last (ties: the first), WFB_NONE if none ended. */
static uint32_t last_period(const wfb_graph *g, double *end_s)
{
    uint32_t last = WFB_NONE;
    for (size_t i = 0; i < g->n_periods; i++) {
        double end = wfb_period_at(g, i)->end_s;
        if (!isnan(end) && (last == WFB_NONE || end > *end_s)) {
            last = (uint32_t)i;
            *end_s = end;
        }
    }
    return last;
}

/* The walk's steps, last first (wfb_path_step_at turns them round). */
typedef struct step_list {
    const wfb_graph *g;
    kit_spill *rows;
    size_t n;
} step_list;

static int push_step(step_list *s, wfb_step step)
{
    if (step.end_s < step.start_s)
        step.end_s = step.start_s;
    wfb_step *at = wfb_graph_spill_at(s->g, s->rows, s->n);
    if (!at)
        return -1;
    *at = step;
    s->n++;
    return 0;
}

/* The last data state the period wrote up to `until`, WFB_NONE. */
static uint32_t step_vertex(const wfb_graph *g, const wfb_period *p, double until)
{
    if (p->vertex == WFB_NONE || wfb_vertex_end(g, p->vertex) > until)
        return WFB_NONE;
    return p->vertex;
}

/* Where the walk goes from period p (row `at`, its run step already taken):
 * the step(s) between p's start and the period before it on the path; that
 * period in *next (WFB_NONE: the walk ends) and the time its run step ends
 * at in *until. */
static int step_back(const wfb_graph *g, uint32_t at, const wfb_period *p, step_list *s,
                     uint32_t *next, double *until)
{
    wfb_period q = {0}, c = {0};
    bool has_q = p->worker_prev != WFB_NONE, has_c = p->cause_period != WFB_NONE;
    if (has_q)
        q = period(g, p->worker_prev);
    if (has_c)
        c = period(g, p->cause_period);
    wfb_step ready = {.kind = WFB_STEP_READY, .task = p->task, .worker = p->worker,
                      .vertex = WFB_NONE, .end_s = p->start_s};
    *next = WFB_NONE;
    if (has_q && !p->idle_before && !isnan(q.end_s) && (isnan(p->ready_s) || q.end_s > p->ready_s)) {
        /* ready while its worker ran q (or, with no cause known, right after q) */
        ready.via = WFB_VIA_OCCUPANCY;
        ready.other = q.task;
        ready.start_s = q.end_s;
        *next = p->worker_prev;
        *until = q.end_s;
    } else if (has_c) {
        /* woken or created by c, its worker free: the wake to its dispatch */
        double t = fmin(fmax(p->ready_s, c.start_s), fmin(c.end_s, p->start_s));
        ready.via = p->cause == WFB_CAUSE_DATA           ? WFB_VIA_DATA
                    : p->cause == WFB_CAUSE_BACKPRESSURE ? WFB_VIA_BACKPRESSURE
                                                         : WFB_VIA_CREATED;
        ready.other = c.task;
        ready.stream = p->stream;
        ready.start_s = t;
        *next = p->cause_period;
        *until = t;
    } else if (has_q && !isnan(q.end_s)) {
        /* the worker idled, and the trace does not say what made p ready:
         * on from the latest period that ended before it (top of file) */
        uint32_t last = p->latest_ended != at ? p->latest_ended : WFB_NONE;
        wfb_period l = last != WFB_NONE ? period(g, last) : q;
        ready.kind = WFB_STEP_IDLE;
        ready.other = l.task;
        ready.start_s = l.end_s;
        *next = last != WFB_NONE ? last : p->worker_prev;
        *until = l.end_s;
    } else {
        return 0; /* its worker's first period, without a cause: the start */
    }
    return push_step(s, ready);
}

/* The run's span: its earliest worker_start to its latest worker_end. */
static void run_span(const wfb_graph *g, uint32_t run, double *start, double *end)
{
    *start = *end = NAN;
    for (size_t i = 0; i < g->n_workers; i++) {
        const wfb_worker_stats *w = &g->workers[i];
        if (w->run != run)
            continue;
        *start = isnan(*start) ? w->start_s : fmin(*start, w->start_s);
        *end = isnan(*end) ? w->end_s : fmax(*end, w->end_s);
    }
}

/* Has the walk been at period i (*was)? It goes back in time, to rows
 * begun earlier; a mark per row (a spill array too) stops it should a
 * trace make it go round. -1 when the mark cannot be kept. */
static int seen_before(const wfb_graph *g, kit_spill *seen, uint32_t i, bool *was)
{
    uint8_t *mark = wfb_graph_spill_at(g, seen, i);
    if (!mark)
        return -1;
    *was = *mark;
    *mark = 1;
    return 0;
}

static int periods_path(const wfb_graph *g, wfb_path *out, wfb_error *err)
{
    double until = NAN;
    uint32_t at = last_period(g, &until), first = at;
    if (at == WFB_NONE)
        return 0; /* no period ended: not available */
    step_list s = {g, wfb_graph_spill(g, sizeof(wfb_step), 0.125), 0};
    kit_spill *seen = wfb_graph_spill(g, 1, 0.03);
    int rc = s.rows && seen ? 0 : -1;
    bool was = false;
    while (rc == 0 && at != WFB_NONE && !(rc = seen_before(g, seen, at, &was)) && !was) {
        wfb_period p = period(g, at);
        rc = push_step(&s, (wfb_step){.kind = WFB_STEP_RUN, .task = p.task, .worker = p.worker,
                                      .vertex = step_vertex(g, &p, until),
                                      .start_s = p.start_s, .end_s = until});
        if (rc == 0)
            rc = step_back(g, at, &p, &s, &at, &until);
    }
    kit_spill_close(seen);
    if (rc) {
        kit_spill_close(s.rows);
        wfb_set_error(err, g->source, 0, "%s computing the as-executed path",
                      g->io_err ? strerror(g->io_err) : "out of memory");
        return -1;
    }
    const wfb_period last = period(g, first);
    out->valid = 1;
    out->kind = WFB_PATH_AS_EXECUTED;
    out->step_rows = s.rows;
    out->n_steps = s.n;
    out->io_err = &((wfb_graph *)g)->io_err;
    out->run = last.run;
    double first_start = wfb_path_step_at(out, 0).start_s;
    out->length_s = last.end_s - first_start;
    double start, end;
    run_span(g, last.run, &start, &end);
    out->span_s = end - start;
    out->start_up_s = first_start - start;
    out->tail_s = end - last.end_s;
    return 0;
}

int wfb_as_executed_path(const wfb_graph *g, wfb_path *out, wfb_error *err)
{
    memset(out, 0, sizeof *out);
    if (!g->finished)
        return not_finished(g, err);
    if (g->n_periods)
        return periods_path(g, out, err);
    if (g->online)
        return online_as_executed(g, out, err);
    uint32_t last = last_finishing_sink(g);
    if (last == WFB_NONE)
        return 0; /* no times: not available */
    size_t nv = g->ids.count;
    uint32_t *chosen_in = malloc(nv * sizeof *chosen_in);
    if (!chosen_in)
        goto oom;
    bool untimed = false;
    uint32_t first = last;
    /* Mark only the vertices on the walk; the rest of chosen_in is unused. */
    for (uint32_t v = last;;) {
        uint32_t e = latest_predecessor_edge(g, v, &untimed);
        chosen_in[v] = e;
        if (e == WFB_NONE)
            break;
        v = first = g->e_src[e];
    }
    if (untimed && g->in_off[first + 1] != g->in_off[first]) {
        free(chosen_in);
        return 0; /* the walk stopped at missing times: not available */
    }
    if (collect_path(g, chosen_in, last, out))
        goto oom;
    out->valid = 1;
    out->kind = WFB_PATH_AS_EXECUTED;
    out->length_s = wfb_vertex_end(g, last) - path_start(g, first);
    free(chosen_in);
    return 0;
oom:
    free(chosen_in);
    wfb_path_free(out);
    wfb_set_error(err, g->source, 0, "out of memory computing the as-executed path");
    return -1;
}
