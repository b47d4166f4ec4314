/*
 * advice_replay.c - replays a run's recorded component executions on
 * another placement of its tasks, for the prediction model of the mapping
 * advice (docs/METRICS.md section 9).
 *
 * Why: the sum of execution time per worker says how much work a worker
 * has, not when it can do it. Where results travel in a chain - an
 * iteration waits for the last one, a stage for the stage before - two
 * workers can hold equal work and still take turns. The replay keeps the
 * dependencies of the message graph (an execution reads what earlier ones
 * wrote) and lets each worker run one execution at a time, so a placement
 * that makes workers wait for each other shows in its makespan.
 *
 * A discrete-event simulation: an event heap (finishes and arrivals of
 * results) and one ready heap per worker, ordered by when the execution
 * began in the recorded run (the order the runtime's FIFO scheduler saw).
 */
#include "advice_internal.h"

#include <stdlib.h>
#include <string.h>

typedef struct heap_item {
    double key;
    uint64_t seq; /* insertion order: ties resolve the same way every time */
    uint32_t id;
} heap_item;

typedef struct heap {
    heap_item *v;
    size_t n, cap;
} heap;

static bool before(const heap_item *a, const heap_item *b)
{
    return a->key < b->key || (a->key == b->key && a->seq < b->seq);
}

static int heap_push(heap *h, heap_item x)
{
    if (KIT_GROW(h->v, h->cap, h->n + 1))
        return -1;
    size_t i = h->n++;
    while (i > 0 && before(&x, &h->v[(i - 1) / 2])) {
        h->v[i] = h->v[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    h->v[i] = x;
    return 0;
}

static heap_item heap_pop(heap *h)
{
    heap_item top = h->v[0], last = h->v[--h->n];
    size_t i = 0;
    for (;;) {
        size_t k = 2 * i + 1;
        if (k >= h->n)
            break;
        if (k + 1 < h->n && before(&h->v[k + 1], &h->v[k]))
            k++;
        if (!before(&h->v[k], &last))
            break;
        h->v[i] = h->v[k];
        i = k;
    }
    if (h->n)
        h->v[i] = last;
    return top;
}

struct advice_replay {
    size_t n;              /* executions */
    uint32_t *task;        /* the caller's task index of each, WFB_NONE unknown */
    double *dur, *begin;
    uint32_t *succ_off;    /* n + 1: successors of x are succ[succ_off[x] .. succ_off[x+1]) */
    uint32_t *succ;
    uint32_t *indeg0;
    /* scratch of one replay */
    uint32_t *indeg;
    heap events;
    heap *ready;
    unsigned n_ready;
    char *busy;
};

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

/* Durations from the execution costs on the mutation edges, and the
 * dependencies, sorted and unique. */
static int collect(advice_replay *r, const wfb_graph *g, dep **deps, size_t *nd)
{
    size_t cap = 0;
    *deps = NULL;
    *nd = 0;
    for (size_t e = 0; e < wfb_edge_count(g); e++) {
        uint32_t x = wfb_edge_exec(g, (uint32_t)e);
        if (x == WFB_NONE || x >= r->n)
            continue;
        double cost = wfb_edge_cost(g, (uint32_t)e);
        if (cost > r->dur[x])
            r->dur[x] = cost;
        uint32_t p = producer(g, wfb_edge_src(g, (uint32_t)e));
        if (p == WFB_NONE || p == x || p >= r->n)
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

advice_replay *advice_replay_new(const wfb_graph *g, const uint32_t *task_of)
{
    advice_replay *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    size_t n = r->n = wfb_exec_count(g);
    r->task = malloc((n ? n : 1) * sizeof *r->task);
    r->dur = calloc(n ? n : 1, sizeof *r->dur);
    r->begin = malloc((n ? n : 1) * sizeof *r->begin);
    r->succ_off = calloc(n + 1, sizeof *r->succ_off);
    r->indeg0 = calloc(n ? n : 1, sizeof *r->indeg0);
    r->indeg = malloc((n ? n : 1) * sizeof *r->indeg);
    dep *deps = NULL;
    size_t nd = 0;
    if (!r->task || !r->dur || !r->begin || !r->succ_off || !r->indeg0 || !r->indeg ||
        collect(r, g, &deps, &nd)) {
        free(deps);
        advice_replay_free(r);
        return NULL;
    }
    for (size_t i = 0; i < n; i++) {
        const wfb_exec *x = wfb_exec_at(g, i);
        r->task[i] = x->task_index == WFB_NONE ? WFB_NONE : task_of[x->task_index];
        r->begin[i] = x->begin_s;
    }
    r->succ = malloc((nd ? nd : 1) * sizeof *r->succ);
    if (!r->succ) {
        free(deps);
        advice_replay_free(r);
        return NULL;
    }
    for (size_t i = 0; i < nd; i++) {
        r->succ_off[deps[i].from + 1]++;
        r->indeg0[deps[i].to]++;
    }
    for (size_t i = 0; i < n; i++)
        r->succ_off[i + 1] += r->succ_off[i];
    for (size_t i = 0; i < nd; i++) /* deps are sorted by `from`: in place */
        r->succ[i] = deps[i].to;
    free(deps);
    return r;
}

size_t advice_replay_size(const advice_replay *r)
{
    return r->n + r->succ_off[r->n];
}

void advice_replay_free(advice_replay *r)
{
    if (!r)
        return;
    free(r->task);
    free(r->dur);
    free(r->begin);
    free(r->succ_off);
    free(r->succ);
    free(r->indeg0);
    free(r->indeg);
    free(r->events.v);
    for (unsigned w = 0; w < r->n_ready; w++)
        free(r->ready[w].v);
    free(r->ready);
    free(r->busy);
    free(r);
}

static int ensure_workers(advice_replay *r, unsigned workers)
{
    if (workers <= r->n_ready)
        return 0;
    heap *h = realloc(r->ready, workers * sizeof *h);
    if (!h)
        return -1;
    memset(h + r->n_ready, 0, (workers - r->n_ready) * sizeof *h);
    r->ready = h;
    r->n_ready = workers;
    free(r->busy);
    return (r->busy = calloc(workers, 1)) ? 0 : -1;
}

/* Event ids: execution * 2, + 1 for its finish (else the arrival of a result). */
enum { ARRIVE = 0, FINISH = 1 };

static uint32_t worker_of(const advice_replay *r, const uint32_t *where, uint32_t x)
{
    return r->task[x] == WFB_NONE ? 0 : where[r->task[x]];
}

/* The resource an execution occupies: its worker's core. */
static uint32_t core_of(const advice_replay *r, const uint32_t *where, uint32_t x, unsigned cores)
{
    return worker_of(r, where, x) % cores;
}

/* Core w takes its ready execution that began first, if idle. */
static int start(advice_replay *r, uint32_t w, double now, uint64_t *seq)
{
    if (r->busy[w] || !r->ready[w].n)
        return 0;
    heap_item x = heap_pop(&r->ready[w]);
    r->busy[w] = 1;
    return heap_push(&r->events, (heap_item){now + r->dur[x.id], (*seq)++, x.id * 2 + FINISH});
}

static int make_ready(advice_replay *r, const uint32_t *where, unsigned cores, uint32_t x,
                      double now, uint64_t *seq)
{
    uint32_t w = core_of(r, where, x, cores);
    if (heap_push(&r->ready[w], (heap_item){r->begin[x], (*seq)++, x}))
        return -1;
    return start(r, w, now, seq);
}

double advice_replay_run(advice_replay *r, const uint32_t *where, unsigned cores, double c)
{
    if (ensure_workers(r, cores))
        return -1;
    memcpy(r->indeg, r->indeg0, r->n * sizeof *r->indeg);
    memset(r->busy, 0, cores);
    r->events.n = 0;
    for (unsigned w = 0; w < cores; w++)
        r->ready[w].n = 0;
    uint64_t seq = 0;
    double makespan = 0;
    for (uint32_t x = 0; x < r->n; x++)
        if (!r->indeg[x] && make_ready(r, where, cores, x, 0.0, &seq))
            return -1;
    while (r->events.n) {
        heap_item ev = heap_pop(&r->events);
        uint32_t x = ev.id / 2;
        if (ev.id % 2 == ARRIVE) {
            if (--r->indeg[x] == 0 && make_ready(r, where, cores, x, ev.key, &seq))
                return -1;
            continue;
        }
        uint32_t w = worker_of(r, where, x), core = w % cores;
        r->busy[core] = 0;
        if (ev.key > makespan)
            makespan = ev.key;
        for (uint32_t k = r->succ_off[x]; k < r->succ_off[x + 1]; k++) {
            uint32_t y = r->succ[k];
            double at = ev.key + (worker_of(r, where, y) != w ? c : 0.0);
            if (heap_push(&r->events, (heap_item){at, seq++, y * 2 + ARRIVE}))
                return -1;
        }
        if (start(r, core, ev.key, &seq))
            return -1;
    }
    return makespan;
}
