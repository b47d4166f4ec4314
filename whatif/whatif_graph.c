/*
 * whatif_graph.c - replay models from an analysis graph (whatif.h): the
 * component executions of an LPEL trace and the messages between them (the
 * mapping advice's model, docs/METRICS.md section 9), and an activity DAG
 * (section 11).
 *
 * Both make one unit per execution or activity, of two steps: its START,
 * which waits for the END of every unit it depends on, and its END, after
 * its execution time or duration. Workers (hosts) pick among the ready
 * ones the one that began first in the recorded run.
 */
#include "whatif_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- component executions ------------------------------------------------ */

/* The execution that wrote data state v (through a TRANSFER to a copy on
 * another worker, the original's writer); WFB_NONE for inputs. */
static uint32_t producer(const wfb_graph *g, uint32_t v)
{
    const uint32_t *in;
    size_t n = wfb_in_edges(g, v, &in);
    for (size_t i = 0; i < n; i++)
        if (wfb_edge_kind_of(g, in[i]) == WFB_EDGE_TRANSFER) {
            v = wfb_edge_src(g, in[i]);
            n = wfb_in_edges(g, v, &in);
            break;
        }
    for (size_t i = 0; i < n; i++)
        if (wfb_edge_exec(g, in[i]) != WFB_NONE)
            return wfb_edge_exec(g, in[i]);
    return WFB_NONE;
}

typedef struct dep {
    uint32_t from, to;
} dep;

static int by_dep(const void *x, const void *y)
{
    const dep *a = x, *b = y;
    if (a->from != b->from)
        return (a->from > b->from) - (a->from < b->from);
    return (a->to > b->to) - (a->to < b->to);
}

/* Durations from the costs on the mutation edges (an execution's longest),
 * and the dependencies between executions, sorted and unique. */
static int collect(const wfb_graph *g, double *dur, size_t n, dep **deps, size_t *nd)
{
    size_t cap = 0;
    *deps = NULL;
    *nd = 0;
    for (size_t e = 0; e < wfb_edge_count(g); e++) {
        uint32_t x = wfb_edge_exec(g, (uint32_t)e);
        if (x == WFB_NONE || x >= n)
            continue;
        double cost = wfb_edge_cost(g, (uint32_t)e);
        if (cost > dur[x])
            dur[x] = cost;
        uint32_t p = producer(g, wfb_edge_src(g, (uint32_t)e));
        if (p == WFB_NONE || p == x || p >= n)
            continue;
        if (*nd && (*deps)[*nd - 1].from == p && (*deps)[*nd - 1].to == x)
            continue; /* the other writes of the same execution */
        if (KIT_GROW(*deps, cap, *nd + 1))
            return -1;
        (*deps)[(*nd)++] = (dep){p, x};
    }
    if (*nd)
        qsort(*deps, *nd, sizeof **deps, by_dep);
    size_t u = 0;
    for (size_t i = 0; i < *nd; i++)
        if (!u || (*deps)[u - 1].from != (*deps)[i].from || (*deps)[u - 1].to != (*deps)[i].to)
            (*deps)[u++] = (*deps)[i];
    *nd = u;
    return 0;
}

/* The caller's tasks, each on the worker of one of its executions, and a
 * last, pinned one on worker 0 for executions of no known task. */
static int exec_tasks(whatif_model *m, const wfb_graph *g, const uint32_t *task_of,
                      size_t n_tasks)
{
    for (size_t t = 0; t < n_tasks; t++)
        if (wi_add_task(m, NULL, t, 0) == UINT32_MAX)
            return -1;
    uint32_t pinned = wi_add_task(m, NULL, UINT64_MAX, 0);
    if (pinned == UINT32_MAX)
        return -1;
    m->tasks[pinned].pinned = true;
    for (size_t i = 0; i < wfb_exec_count(g); i++) {
        const wfb_exec *x = wfb_exec_at(g, i);
        uint32_t t = x->task_index == WFB_NONE ? WFB_NONE : task_of[x->task_index];
        if (t != WFB_NONE && t < n_tasks)
            m->tasks[t].worker = x->worker;
    }
    return 0;
}

whatif_model *whatif_model_from_executions(const wfb_graph *g, const uint32_t *task_of,
                                           size_t n_tasks)
{
    size_t n = wfb_exec_count(g), nd = 0;
    whatif_model *m = wi_model_new(WHATIF_SOURCE_EXECUTIONS);
    double *dur = calloc(n ? n : 1, sizeof *dur);
    uint32_t *end = malloc((n ? n : 1) * sizeof *end);
    uint32_t *start = malloc((n ? n : 1) * sizeof *start);
    dep *deps = NULL;
    bool ok = m && dur && end && start && !collect(g, dur, n, &deps, &nd) &&
              !exec_tasks(m, g, task_of, n_tasks);
    for (size_t i = 0; ok && i < n; i++) {
        const wfb_exec *x = wfb_exec_at(g, i);
        uint32_t t = x->task_index == WFB_NONE ? WFB_NONE : task_of[x->task_index];
        uint32_t u = wi_add_unit(m, t == WFB_NONE || t >= n_tasks ? (uint32_t)n_tasks : t);
        ok = u != UINT32_MAX &&
             (start[i] = wi_add_step(m, u, WI_START, 0, 0, 0, x->begin_s)) != UINT32_MAX &&
             (end[i] = wi_add_step(m, u, WI_END, 0, 0, dur[i], x->end_s)) != UINT32_MAX;
    }
    for (size_t i = 0; ok && i < nd; i++)
        ok = wi_add_dep(m, end[deps[i].from], start[deps[i].to]) == 0;
    ok = ok && wi_model_finish(m, 0) == 0;
    free(dur);
    free(end);
    free(start);
    free(deps);
    if (!ok) {
        whatif_model_free(m);
        return NULL;
    }
    m->order = WHATIF_ORDER_RECORDED;
    return m;
}

/* ---- activity DAGs ------------------------------------------------------- */

/* An activity's host: the first of its resources (a WfCommons task's
 * machines), else its location; NULL when it has none. Into buf. */
static const char *host_of(const wfb_graph *g, uint32_t v, char *buf, size_t len)
{
    const char *r = wfb_vertex_attr(g, v, WFB_ATTR_RESOURCES);
    if (!r || !*r)
        r = wfb_vertex_attr(g, v, WFB_ATTR_LOCATION);
    if (!r || !*r)
        return NULL;
    size_t n = strcspn(r, ",");
    if (n >= len)
        n = len - 1;
    memcpy(buf, r, n);
    buf[n] = '\0';
    return buf;
}

typedef struct host_span {
    uint32_t host;
    double at;
    int delta; /* +1 starts, -1 ends */
} host_span;

static int by_host_time(const void *x, const void *y)
{
    const host_span *a = x, *b = y;
    if (a->host != b->host)
        return (a->host > b->host) - (a->host < b->host);
    if (a->at != b->at)
        return (a->at > b->at) - (a->at < b->at);
    return a->delta - b->delta; /* an end before a start at the same time */
}

/* Slots of each host: the most activities it ran at once (all of them when
 * the input has no times). */
static int host_slots(whatif_model *m, const wfb_graph *g, const uint32_t *act, size_t n)
{
    m->slots = calloc(m->workers, sizeof *m->slots);
    host_span *ev = malloc((2 * n + 1) * sizeof *ev);
    if (!m->slots || !ev) {
        free(ev);
        return -1;
    }
    size_t ne = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t h = m->tasks[i].worker;
        double a = wfb_vertex_time(g, act[i], WFB_T_ACTIVE), e = wfb_vertex_time(g, act[i], WFB_T_END);
        if (isnan(a) || isnan(e)) {
            m->slots[h]++; /* no times: it may run beside every other */
            continue;
        }
        ev[ne++] = (host_span){h, a, +1};
        ev[ne++] = (host_span){h, e, -1};
    }
    qsort(ev, ne, sizeof *ev, by_host_time);
    uint32_t running = 0, most = 0;
    for (size_t i = 0; i < ne; i++) {
        if (i && ev[i].host != ev[i - 1].host)
            running = most = 0;
        running = (uint32_t)((int)running + ev[i].delta);
        if (running > most) {
            most = running;
            if (m->slots[ev[i].host] < most)
                m->slots[ev[i].host] = most;
        }
    }
    for (unsigned h = 0; h < m->workers; h++)
        if (!m->slots[h])
            m->slots[h] = 1;
    free(ev);
    return 0;
}

/* The activities, each a task on its host; hosts numbered in order of
 * appearance (one host of all activities when none is recorded). */
static int activity_tasks(whatif_model *m, const wfb_graph *g, uint32_t **act_out, size_t *n_out)
{
    size_t nv = wfb_vertex_count(g), n = 0;
    uint32_t *act = malloc((nv ? nv : 1) * sizeof *act);
    char **hosts = NULL;
    size_t nh = 0, cap = 0;
    if (!act)
        return -1;
    int rc = 0;
    for (uint32_t v = 0; v < nv && !rc; v++) {
        if (wfb_vertex_kind_of(g, v) != WFB_VERTEX_ACTIVITY)
            continue;
        char buf[256];
        const char *h = host_of(g, v, buf, sizeof buf);
        size_t k = 0;
        while (h && k < nh && strcmp(hosts[k], h))
            k++;
        if (h && k == nh && (KIT_GROW(hosts, cap, nh + 1) || !(hosts[nh++] = strdup(h))))
            rc = -1;
        uint32_t t = rc ? UINT32_MAX : wi_add_task(m, wfb_vertex_attr(g, v, WFB_ATTR_LABEL), v,
                                                   h ? (uint32_t)k : 0);
        if (t == UINT32_MAX)
            rc = -1;
        else
            act[n++] = v;
    }
    for (size_t k = 0; k < nh; k++)
        free(hosts[k]);
    free(hosts);
    *act_out = act;
    *n_out = n;
    return rc;
}

/* The makespan as recorded: the latest end less the earliest start. */
static void measured_makespan(whatif_model *m, const wfb_graph *g, const uint32_t *act, size_t n)
{
    double first = INFINITY, last = -INFINITY;
    for (size_t i = 0; i < n; i++) {
        double a = wfb_vertex_time(g, act[i], WFB_T_ACTIVE), e = wfb_vertex_time(g, act[i], WFB_T_END);
        if (isnan(a) || isnan(e)) {
            m->span_unknown_why = "some activity has no start or end time";
            return;
        }
        first = fmin(first, a);
        last = fmax(last, e);
    }
    if (n)
        m->measured_span_s = last - first;
}

static int activity_steps(whatif_model *m, const wfb_graph *g, const uint32_t *act, size_t n)
{
    size_t nv = wfb_vertex_count(g);
    uint32_t *start = malloc((nv ? nv : 1) * sizeof *start);
    uint32_t *end = malloc((nv ? nv : 1) * sizeof *end);
    int rc = start && end ? 0 : -1;
    for (size_t i = 0; !rc && i < n; i++) {
        uint32_t v = act[i], u = wi_add_unit(m, (uint32_t)i);
        double t0 = wfb_vertex_start(g, v);
        if (u == UINT32_MAX ||
            (start[v] = wi_add_step(m, u, WI_START, 0, 0, 0, isnan(t0) ? (double)i : t0)) ==
                UINT32_MAX ||
            (end[v] = wi_add_step(m, u, WI_END, 0, 0, wfb_vertex_weight(g, v),
                                  isnan(t0) ? (double)i : t0)) == UINT32_MAX)
            rc = -1;
    }
    for (size_t e = 0; !rc && e < wfb_edge_count(g); e++) {
        uint32_t a = wfb_edge_src(g, (uint32_t)e), b = wfb_edge_dst(g, (uint32_t)e);
        if (wfb_edge_kind_of(g, (uint32_t)e) == WFB_EDGE_DEPEND &&
            wfb_vertex_kind_of(g, a) == WFB_VERTEX_ACTIVITY &&
            wfb_vertex_kind_of(g, b) == WFB_VERTEX_ACTIVITY)
            rc = wi_add_dep(m, end[a], start[b]);
    }
    free(start);
    free(end);
    return rc;
}

int whatif_model_from_activities(const wfb_graph *g, whatif_model **out, wfb_error *err)
{
    whatif_model *m = wi_model_new(WHATIF_SOURCE_ACTIVITIES);
    uint32_t *act = NULL;
    size_t n = 0;
    *out = NULL;
    int rc = m ? activity_tasks(m, g, &act, &n) : -1;
    if (!rc && !n) {
        wi_error(err, "the input has no activities: whatif needs an LPEL trace or an "
                      "activity DAG (WfCommons, NetLogger, JSONL activities)");
        whatif_model_free(m);
        free(act);
        return -1;
    }
    rc = rc || activity_steps(m, g, act, n) || wi_model_finish(m, 0) || host_slots(m, g, act, n);
    if (!rc)
        measured_makespan(m, g, act, n);
    free(act);
    if (rc) {
        wi_error(err, "out of memory building the replay model");
        whatif_model_free(m);
        return -1;
    }
    m->order = WHATIF_ORDER_RECORDED;
    *out = m;
    return 0;
}
