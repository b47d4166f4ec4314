/*
 * wfb_lpel.c - lifting LPEL runtime events into the analysis model.
 *
 * The lifter consumes the trace reader's events (mon_event) in the order
 * mon_trace_next delivers them; the time spans among them (execution
 * periods, worker waits, tasks blocked on streams) come from the reader's
 * period layer (mon_periods, mon_reader.h), the one derivation every
 * consumer of a trace shares. Each written
 * message becomes a data state (time = written, location = worker); a
 * component execution reading parents P and writing children C becomes
 * CONVERT (1->1), SPLIT (1->n) or MERGE (n->1, and n->m); a message read on
 * another worker than it was written on first gets a TRANSFER to a state at
 * the reader's worker; a message consumed with no output gets DELETE into a
 * "deleted" state. A message read but never written is an input from outside
 * the monitored tasks, timed at its first read. Tasks and workers are kept
 * for the runtime metrics.
 *
 * Execution cost (docs/METRICS.md, eq. 2): the time the task was
 * dispatched during the component execution, never the time it sat
 * blocked inside it. Its CPU time (flag C): each period's time on a core
 * (the period layer's preempted time taken off) spread over the
 * executions in it in proportion to their part, known only once the period
 * ends, so an execution that ends inside a period is corrected then.
 *
 * Besides the message graph, the lifter records the as-executed graph of
 * the periods and their causes (wfb_execgraph.c), the blocked and ready
 * time of every wait (the period layer's split at the wake), and the
 * workers' CPU time, all from the period layer's intervals. A trace may hold several runs (runtime instances):
 * task, stream and message ids restart with each, so tasks are keyed by
 * (run, id), messages of run r > 1 are named r<r>.m<id>, and each worker
 * gets one row per run.
 *
 * A multi-rank trace (MPI ranks, one merged trace) adds both ends of every
 * record that crosses ranks: message_sent gives the message a departure
 * state m<id>>rank<q> (leaving for rank q, at the sender task's worker),
 * message_received an arrival state m<id>@rank<r>, joined by a TRANSFER
 * (cost 0 like every transfer: costs are execution time, eq. 2; the time
 * between the ends is in the two states' times); a read on rank r then
 * starts from the arrival, so the graph, and the critical path, cross
 * ranks through these transfers. A channel wait is a waiting relation
 * like a stream block, its peer the task at the channel's other end.
 */
#include "wfb_internal.h"

#include "mon_reader.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* One open component execution of a task. */
typedef struct open_exec {
    bool open, implicit, wrote;
    double begin;
    double exec_at_begin; /* the task's execution time when it began */
    double cpu_acc;       /* its CPU time in periods that have ended */
    uint32_t *reads, *writes; /* vertices */
    size_t n_reads, n_writes, cap_reads, cap_writes;
} open_exec;

/* An execution that ended inside the task's running period: `part`
 * seconds of it are in that period, whose CPU share is known at its end. */
typedef struct exec_part {
    uint32_t exec;
    double part;
} exec_part;

typedef struct task_state {
    wfb_task_stats stats;
    uint64_t key;     /* task_key(run, task id) */
    uint32_t trace_run; /* mon_event.run (stats.run is dense, from 1) */
    uint32_t name;    /* in g->strs */
    open_exec exec;
    exec_part *parts; /* executions ended in the running period */
    size_t n_parts, cap_parts;
    bool has_load; /* a load summary, used when there are no dispatches */
    uint64_t load_dispatches;
    double load_exec_s;
} task_state;

/* A worker in its current run; a row per (run, worker) when it moves on. */
typedef struct worker_state {
    wfb_worker_stats stats;
    bool seen;
    bool cpu_seen; /* a CPU stretch (flag C) */
    bool has_load; /* a load summary, used when there are no detailed events */
    wfb_worker_stats load;
} worker_state;

struct wfb_lifter {
    wfb_graph *g;
    mon_periods *periods; /* execution periods, waits, blocks (mon_reader.h) */
    task_state *tasks;
    size_t n_tasks, cap_tasks;
    kit_index_map task_map; /* (run, task) -> index into tasks */
    worker_state *workers;
    size_t n_workers;
    wfb_worker_stats *rows; /* finished (run, worker) rows */
    size_t n_rows, cap_rows;
    bool periods_seen;  /* any dispatch: execution costs can be measured */
    bool execs_seen;
    uint32_t *v_worker; /* writer worker per vertex (WFB_NONE unknown) */
    size_t cap_v_worker;
    double last_time; /* of the latest event lifted */
    double now;       /* the time of the event being lifted */
    uint64_t last_ns; /* last_time as the trace has it */
    wfb_wait_relation *waits; /* distinct (waiter, waited_for, stream, empty) */
    size_t n_waits, cap_waits;
    kit_index_map wait_map; /* relation -> index into waits */
    wfb_stream_table streams; /* traffic per stream (wfb_streams.c) */
    uint32_t *run_seen;   /* the trace's run numbers, in the order they appeared */
    size_t n_runs_seen, cap_runs_seen;
    wfb_execgraph aeg;    /* the as-executed graph (wfb_execgraph.c) */
    bool cpu_seen;        /* CPU readings in the trace */
    wfb_online *online;   /* bounded: the message graph analysed as it is read */
};

static int on_interval(void *ctx, const mon_interval *iv);
static int on_interval_open(void *ctx, const mon_interval *iv);

wfb_lifter *wfb_lifter_new_bounded(wfb_graph *g)
{
    wfb_lifter *l = wfb_lifter_new(g);
    if (l && !(l->online = wfb_online_new(g))) {
        wfb_lifter_free(l);
        return NULL;
    }
    return l;
}

wfb_lifter *wfb_lifter_new(wfb_graph *g)
{
    wfb_lifter *l = calloc(1, sizeof *l);
    if (!l)
        return NULL;
    l->g = g;
    l->aeg.g = g;
    mon_period_sink sink = {.ctx = l, .open = on_interval_open, .close = on_interval};
    if (!(l->periods = mon_periods_new(&sink))) {
        free(l);
        return NULL;
    }
    return l;
}

void wfb_lifter_free(wfb_lifter *l)
{
    if (!l)
        return;
    for (size_t i = 0; i < l->n_tasks; i++) {
        free(l->tasks[i].exec.reads);
        free(l->tasks[i].exec.writes);
        free(l->tasks[i].parts);
    }
    wfb_execgraph_free(&l->aeg);
    wfb_online_free(l->online);
    free(l->tasks);
    kit_index_map_free(&l->task_map);
    free(l->workers);
    free(l->rows);
    free(l->v_worker);
    free(l->waits);
    kit_index_map_free(&l->wait_map);
    wfb_stream_table_free(&l->streams);
    free(l->run_seen);
    mon_periods_free(l->periods);
    free(l);
}

/* A failure: out of memory, or a temporary file (bounded), or the bounded
 * analysis cannot go on (WFB_LIFT_IN_MEMORY). */
static int oom(const wfb_lifter *l, wfb_error *err)
{
    const char *why = l->online ? wfb_online_irregular(l->online) : NULL;
    if (why) {
        wfb_set_error(err, l->g->source, 0, "%s: the message graph must be built in memory", why);
        return WFB_LIFT_IN_MEMORY;
    }
    if (l->g->io_err && l->g->io_err != ENOMEM)
        wfb_set_error(err, l->g->source, 0, "temporary file: %s", strerror(l->g->io_err));
    else
        wfb_set_error(err, l->g->source, 0, "out of memory lifting the trace");
    return -1;
}

/* ---- tables ---- */

static uint64_t task_key(uint32_t run, uint64_t task)
{
    /* Task ids of a multi-rank trace use bits 0-47 (mon_run_key in
     * mon_reader.h: the same layout). */
    return (uint64_t)(run & 0xffffu) << 48 | (task & ((UINT64_C(1) << 48) - 1));
}

typedef struct task_probe {
    const wfb_lifter *l;
    uint64_t key;
} task_probe;

static bool same_task(const void *ctx, uint32_t i)
{
    const task_probe *p = ctx;
    return p->l->tasks[i].key == p->key;
}

static uint64_t task_hash(const void *ctx, uint32_t i)
{
    const wfb_lifter *l = ctx;
    return l->tasks[i].key;
}

/* Finds the task, creating it when first seen. NULL when out of memory. */
static task_state *task_of(wfb_lifter *l, uint32_t run, uint32_t trace_run, uint64_t task,
                           uint32_t worker)
{
    task_probe probe = {l, task_key(run, task)};
    uint32_t found = kit_index_map_find(&l->task_map, probe.key, same_task, &probe);
    if (found != UINT32_MAX)
        return &l->tasks[found];
    if (KIT_GROW(l->tasks, l->cap_tasks, l->n_tasks + 1))
        return NULL;
    task_state *t = &l->tasks[l->n_tasks];
    memset(t, 0, sizeof *t);
    t->key = probe.key;
    t->trace_run = trace_run;
    t->stats.run = run;
    t->stats.task = task;
    t->stats.worker = worker;
    t->name = WFB_NONE;
    if (kit_index_map_insert(&l->task_map, probe.key, (uint32_t)l->n_tasks, task_hash, l) != 0)
        return NULL;
    l->n_tasks++;
    return t;
}

/* Keeps the row of w's finished run (its load summaries applied). */
static int keep_row(wfb_lifter *l, worker_state *w)
{
    if (!w->seen)
        return 0;
    if (w->has_load && w->stats.busy_s == 0)
        w->stats.busy_s = w->load.busy_s;
    if (w->has_load && w->stats.waits == 0) {
        w->stats.waits = w->load.waits;
        w->stats.wait_s = w->load.wait_s;
    }
    if (!w->cpu_seen)
        w->stats.cpu_s = w->stats.preempted_s = NAN;
    if (KIT_GROW(l->rows, l->cap_rows, l->n_rows + 1))
        return -1;
    l->rows[l->n_rows++] = w->stats;
    memset(w, 0, sizeof *w);
    return 0;
}

/* The worker in the run of the event: a worker's log holds its runs one
 * after the other, so a later run closes the row of the earlier one. */
static worker_state *worker_of(wfb_lifter *l, uint32_t run, uint32_t worker, double time)
{
    if (worker >= l->n_workers) {
        if (worker > 1u << 20)
            return NULL; /* worker ids are small core numbers */
        worker_state *w = realloc(l->workers, (worker + 1) * sizeof *w);
        if (!w)
            return NULL;
        memset(w + l->n_workers, 0, (worker + 1 - l->n_workers) * sizeof *w);
        l->workers = w;
        l->n_workers = worker + 1;
    }
    worker_state *w = &l->workers[worker];
    if (w->seen && w->stats.run != run && keep_row(l, w))
        return NULL;
    if (!w->seen) {
        w->seen = true;
        w->stats.run = run;
        w->stats.worker = worker;
        w->stats.first_s = time;
        w->stats.start_s = w->stats.end_s = NAN;
    }
    w->stats.last_s = time;
    return w;
}

/* The worker's state while it is in run `run`, without side effects; NULL
 * when it is not (not seen yet, or its log has moved on to another run). */
static worker_state *worker_in_run(wfb_lifter *l, uint32_t run, uint32_t worker)
{
    worker_state *w = worker < l->n_workers ? &l->workers[worker] : NULL;
    return w && w->seen && w->stats.run == run ? w : NULL;
}

static int push_vertex(uint32_t **list, size_t *n, size_t *cap, uint32_t v)
{
    if (KIT_GROW(*list, *cap, *n + 1))
        return -1;
    (*list)[(*n)++] = v;
    return 0;
}

/* ---- the message graph ----
 *
 * Built in the graph (the reference, and event files' way), or analysed as
 * it is read (wfb_online.c, the bounded lifter): the same vertices in the
 * same order, the same edges; the functions below are the one place that
 * tells the two apart. */

static int remember_worker(wfb_lifter *l, uint32_t v, uint32_t worker)
{
    size_t cap = l->cap_v_worker;
    if (KIT_GROW(l->v_worker, cap, (size_t)v + 1))
        return -1;
    if (cap > l->cap_v_worker)
        memset(l->v_worker + l->cap_v_worker, 0xff,
               (cap - l->cap_v_worker) * sizeof *l->v_worker);
    l->cap_v_worker = cap;
    l->v_worker[v] = worker;
    return 0;
}

/* Where data state v is: the worker it was written (or arrived, or moved)
 * on; WFB_NONE unknown. */
static uint32_t writer_worker(const wfb_lifter *l, uint32_t v)
{
    if (l->online)
        return wfb_online_worker(l->online, v);
    return v < l->cap_v_worker ? l->v_worker[v] : WFB_NONE;
}

/* The data state of a message (docs/METRICS.md section 2 names them,
 * wfb_mv_name), created when new; WFB_NONE when out of memory. */
static uint32_t mg_ref(wfb_lifter *l, wfb_mv_kind kind, uint32_t run, uint64_t msg, uint32_t aux)
{
    if (l->online)
        return wfb_online_ref(l->online, kind, run, msg, aux);
    char id[112];
    wfb_mv_name(id, sizeof id, kind, run, msg, aux);
    uint32_t v = wfb_vertex_ref(l->g, id, strlen(id), 0);
    return v == WFB_NONE || wfb_vertex_set_run(l->g, v, run) ? WFB_NONE : v;
}

/* The data state if it exists and is defined, else WFB_NONE. */
static uint32_t mg_find_defined(wfb_lifter *l, wfb_mv_kind kind, uint32_t run, uint64_t msg,
                                uint32_t aux)
{
    uint32_t v;
    if (l->online) {
        v = wfb_online_find(l->online, kind, run, msg, aux);
        return v != WFB_NONE && wfb_online_defined(l->online, v) ? v : WFB_NONE;
    }
    char id[112];
    wfb_mv_name(id, sizeof id, kind, run, msg, aux);
    v = wfb_vertex_find(l->g, id, strlen(id));
    return v != WFB_NONE && wfb_vertex_defined(l->g, v) ? v : WFB_NONE;
}

static bool mg_defined(wfb_lifter *l, uint32_t v)
{
    return l->online ? wfb_online_defined(l->online, v) : wfb_vertex_defined(l->g, v);
}

/* "w3", or "r1.w0" for a worker of a multi-rank trace. */
static int set_location(const wfb_lifter *l, uint32_t v, uint32_t worker)
{
    char loc[40];
    const worker_state *w = worker < l->n_workers ? &l->workers[worker] : NULL;
    if (w && w->stats.ranked)
        snprintf(loc, sizeof loc, "r%" PRIu32 ".w%" PRIu32, w->stats.rank, w->stats.rank_worker);
    else
        snprintf(loc, sizeof loc, "w%" PRIu32, worker);
    return wfb_vertex_set_attr(l->g, v, WFB_ATTR_LOCATION, loc);
}

/* Defines data state v: its time, where it is, who wrote it, what it is. */
static int mg_define(wfb_lifter *l, uint32_t v, const wfb_mv_define *d)
{
    if (l->online)
        return wfb_online_define(l->online, v, d);
    wfb_graph *g = l->g;
    wfb_vertex_define(g, v, WFB_VERTEX_DATA, 0);
    if (d->only_read)
        g->v_flags[v] |= WFB_VF_ONLY_READ;
    else
        g->v_flags[v] &= (uint8_t)~WFB_VF_ONLY_READ;
    const char *origin = wfb_strtab_get(&g->strs, d->origin), *label = wfb_mv_label_text(d->label);
    char copy[256]; /* interning may move the arena under `origin` */
    snprintf(copy, sizeof copy, "%s", origin ? origin : "");
    /* (the strings interned in the order the graph has always had them) */
    bool label_first = d->label == WFB_MV_DELETED_LABEL;
    return wfb_vertex_set_time(g, v, WFB_T_END, d->time) ||
                   (label_first && wfb_vertex_set_attr(g, v, WFB_ATTR_LABEL, label)) ||
                   set_location(l, v, d->worker) ||
                   (origin && wfb_vertex_set_attr(g, v, WFB_ATTR_ORIGIN, copy)) ||
                   (label && !label_first && wfb_vertex_set_attr(g, v, WFB_ATTR_LABEL, label)) ||
                   remember_worker(l, v, d->worker)
               ? -1
               : 0;
}

static int add_mutation(wfb_lifter *l, uint32_t label, uint32_t src, uint32_t dst,
                        wfb_edge_kind kind, double cost, uint32_t exec)
{
    uint32_t e = wfb_edge_add(l->g, src, dst, kind, cost, 0);
    if (e == WFB_NONE || wfb_edge_set_exec(l->g, e, exec))
        return -1;
    const char *name = wfb_strtab_get(&l->g->strs, label);
    if (name) {
        char copy[256]; /* interning may move the arena under `name` */
        snprintf(copy, sizeof copy, "%s", name);
        return wfb_edge_set_label(l->g, e, copy);
    }
    return 0;
}

/* The edges of an execution (every read to every write) or a transfer. */
static int mg_edges(wfb_lifter *l, const wfb_mv_batch *b)
{
    if (l->online)
        return wfb_online_batch(l->online, b);
    for (uint32_t i = 0; i < b->n_reads; i++)
        for (uint32_t j = 0; j < b->n_writes; j++)
            if (add_mutation(l, b->label, b->reads[i], b->writes[j], b->kind, b->cost, b->exec))
                return -1;
    return 0;
}

/* A TRANSFER of the message from state src to state dst (cost 0, like
 * every transfer: costs are execution time, eq. 2), by task t. */
static int mg_transfer(wfb_lifter *l, const task_state *t, uint32_t src, uint32_t dst)
{
    wfb_mv_batch b = {WFB_NONE, t->name, WFB_EDGE_TRANSFER, 0.0, &src, &dst, 1, 1};
    return mg_edges(l, &b);
}

/* ---- component executions ---- */

static double exec_cost(double begin, double end)
{
    double d = end - begin;
    return d > 0 ? d : 0.0;
}

/* A consumed-without-output execution ends in one "deleted" state. */
static int lift_delete(wfb_lifter *l, task_state *t, uint32_t exec, double end, double cost)
{
    uint32_t sink;
    if (l->online) {
        sink = wfb_online_deleted(l->online, t->stats.run, exec);
    } else {
        char id[48];
        wfb_mv_name(id, sizeof id, WFB_MV_DELETED, t->stats.run, exec, 0);
        sink = wfb_vertex_ref(l->g, id, strlen(id), 0);
        if (sink != WFB_NONE && wfb_vertex_set_run(l->g, sink, t->stats.run))
            sink = WFB_NONE;
    }
    wfb_mv_define d = {end, t->stats.worker, WFB_NONE, WFB_MV_DELETED_LABEL, false, true};
    if (sink == WFB_NONE || mg_define(l, sink, &d))
        return -1;
    wfb_mv_batch b = {exec, t->name, WFB_EDGE_DELETE, cost, t->exec.reads, &sink,
                      (uint32_t)t->exec.n_reads, 1};
    return mg_edges(l, &b);
}

static wfb_edge_kind execution_kind(size_t parents, size_t children)
{
    if (parents == 1 && children == 1)
        return WFB_EDGE_CONVERT;
    if (parents == 1)
        return WFB_EDGE_SPLIT;
    return WFB_EDGE_MERGE;
}

static double seconds(uint64_t ns) { return (double)ns * 1e-9; }

/* The task's execution time up to `time`: its finished periods and the
 * running one. */
static double exec_time_at(const wfb_lifter *l, const task_state *t, double time)
{
    const mon_interval *running = mon_periods_running(l->periods, t->trace_run, t->stats.task);
    return t->stats.exec_s + (running ? exec_cost(seconds(running->start), time) : 0.0);
}

/* The execution's CPU time: what ended periods gave it, and its part of
 * the running one, counted whole until that period ends (exec_parts_end). */
static int exec_cpu(wfb_lifter *l, task_state *t, uint32_t exec, double end)
{
    const mon_interval *running = mon_periods_running(l->periods, t->trace_run, t->stats.task);
    double part = 0;
    if (running)
        part = exec_cost(fmax(t->exec.begin, seconds(running->start)), end);
    wfb_graph_exec_mut(l->g, exec)->cpu_s = t->exec.cpu_acc + part;
    if (part <= 0)
        return 0;
    if (l->online)
        wfb_online_exec_cpu_pending(l->online, exec);
    if (KIT_GROW(t->parts, t->cap_parts, t->n_parts + 1))
        return -1;
    t->parts[t->n_parts++] = (exec_part){exec, part};
    return 0;
}

/* The task's period [start, end] ended, `preempted` of it off the core
 * (0 without a reading): the executions in it get their CPU share. */
static void exec_parts_end(wfb_lifter *l, task_state *t, double start, double end,
                           double preempted)
{
    double len = end - start, ratio = len > 0 ? preempted / len : 0;
    for (size_t i = 0; i < t->n_parts; i++) {
        double *cpu = &wfb_graph_exec_mut(l->g, t->parts[i].exec)->cpu_s;
        *cpu = fmax(0, *cpu - t->parts[i].part * ratio);
        if (l->online)
            wfb_online_exec_cpu_final(l->online, t->parts[i].exec);
    }
    t->n_parts = 0;
    if (t->exec.open)
        t->exec.cpu_acc += exec_cost(fmax(start, t->exec.begin), end) * (1 - ratio);
}

static int close_exec(wfb_lifter *l, task_state *t, double end)
{
    open_exec *x = &t->exec;
    if (!x->open)
        return 0;
    x->open = false;
    /* Dispatched time only: blocked inside the execution (a full output
     * stream) the task does not execute. */
    double cost = exec_cost(x->exec_at_begin, exec_time_at(l, t, end));
    wfb_exec row = {(uint32_t)(t - l->tasks), t->stats.worker, x->begin, end, cost, cost};
    uint32_t exec = wfb_graph_add_exec(l->g, &row);
    if (exec == WFB_NONE || exec_cpu(l, t, exec, end))
        return -1;
    t->stats.executions++;
    l->execs_seen = true;
    int rc = 0;
    if (x->n_reads && !x->n_writes) {
        rc = lift_delete(l, t, exec, end, cost);
    } else if (x->n_reads || (l->online && x->n_writes)) {
        /* (without reads there are no edges: the writes are inputs, which
         * the online graph learns from an empty batch) */
        wfb_mv_batch b = {exec, t->name, execution_kind(x->n_reads, x->n_writes), cost,
                          x->reads, x->writes, (uint32_t)x->n_reads, (uint32_t)x->n_writes};
        rc = mg_edges(l, &b);
    }
    x->n_reads = x->n_writes = 0;
    x->wrote = false;
    return rc;
}

static int open_exec_at(wfb_lifter *l, task_state *t, double time, bool implicit)
{
    if (t->exec.open && close_exec(l, t, time))
        return -1;
    t->exec.open = true;
    t->exec.implicit = implicit;
    t->exec.begin = time;
    t->exec.exec_at_begin = exec_time_at(l, t, time);
    t->exec.cpu_acc = 0;
    return 0;
}

/* ---- waiting relations ---- */

static uint64_t relation_hash(const wfb_wait_relation *w)
{
    return w->waiter * 0x9e3779b97f4a7c15ull ^ w->waited_for * 0xc2b2ae3d27d4eb4full ^
           w->stream * 0x165667b19e3779f9ull ^ (uint64_t)w->on_empty ^ (uint64_t)w->run << 40;
}

typedef struct wait_probe {
    const wfb_lifter *l;
    const wfb_wait_relation *key;
} wait_probe;

static bool same_relation(const void *ctx, uint32_t i)
{
    const wait_probe *p = ctx;
    const wfb_wait_relation *a = &p->l->waits[i], *b = p->key;
    return a->run == b->run && a->waiter == b->waiter && a->waited_for == b->waited_for &&
           a->stream == b->stream && a->on_empty == b->on_empty &&
           a->on_channel == b->on_channel;
}

static uint64_t stored_relation_hash(const void *ctx, uint32_t i)
{
    const wfb_lifter *l = ctx;
    return relation_hash(&l->waits[i]);
}

/* Adds one wait (key's total_s blocked, ready_s ready, woken) to its
 * relation, creating it when new. */
static int add_wait(wfb_lifter *l, const wfb_wait_relation *key)
{
    wait_probe probe = {l, key};
    uint64_t hash = relation_hash(key);
    uint32_t found = kit_index_map_find(&l->wait_map, hash, same_relation, &probe);
    if (found != UINT32_MAX) {
        wfb_wait_relation *w = &l->waits[found];
        w->count++;
        w->total_s += key->total_s;
        w->ready_s += key->ready_s;
        w->woken += key->woken;
        return 0;
    }
    if (KIT_GROW(l->waits, l->cap_waits, l->n_waits + 1))
        return -1;
    wfb_wait_relation *w = &l->waits[l->n_waits];
    *w = *key;
    w->count = 1;
    if (kit_index_map_insert(&l->wait_map, hash, (uint32_t)l->n_waits, stored_relation_hash, l) !=
        0)
        return -1;
    l->n_waits++;
    return 0;
}

static uint32_t dense_run(wfb_lifter *l, uint32_t trace_run);

/* A wait that ended with the task's dispatch: blocked (to the wake) and
 * ready (the wake to the dispatch) apart, for the task, its worker and its
 * waiting relation (docs/METRICS.md section 3). */
static int lift_wait(wfb_lifter *l, task_state *t, worker_state *w, const mon_interval *iv)
{
    double blocked = seconds(mon_interval_blocked_ns(iv)), ready = seconds(mon_interval_ready_ns(iv));
    t->stats.blocked_s += blocked;
    t->stats.ready_s += ready;
    if (w) {
        w->stats.blocked_s += blocked;
        w->stats.ready_s += ready;
    }
    wfb_wait_relation key = {.run = t->stats.run,
                             .waiter = t->stats.task,
                             .waited_for = iv->peer,
                             .stream = iv->stream,
                             .on_empty = iv->empty ? 1 : 0,
                             .total_s = blocked,
                             .on_channel = iv->channel,
                             .ready_s = ready,
                             .woken = iv->woken};
    return add_wait(l, &key);
}

/* A stretch between two CPU readings of a worker (flag C). */
static void lift_cpu(wfb_lifter *l, worker_state *w, const mon_interval *iv)
{
    l->cpu_seen = true;
    if (!w)
        return;
    w->cpu_seen = true;
    w->stats.cpu_s += seconds(iv->cpu);
    w->stats.preempted_s += seconds(iv->preempted);
    w->stats.preemptions += iv->preemptions;
}

/* An execution period: the task's execution time, its worker's busy time,
 * the CPU share of the executions in it, the as-executed graph. */
static void lift_period(wfb_lifter *l, task_state *t, worker_state *w, const mon_interval *iv)
{
    double start = seconds(iv->start), end = seconds(iv->end);
    double d = exec_cost(start, end), preempted = iv->cpu_known ? seconds(iv->preempted) : 0;
    t->stats.exec_s += d;
    t->stats.preempted_s += preempted;
    if (w) {
        w->stats.busy_s += d;
        w->stats.preempted_periods += preempted > 0;
    }
    exec_parts_end(l, t, start, end, preempted);
    wfb_execgraph_close(&l->aeg, (uint32_t)(t - l->tasks), iv);
}

/* The intervals of the period layer (mon_reader.h) as they close: an
 * execution period adds to its task's execution time and its worker's busy
 * time, a worker's wait to its waiting time, a stream block ended by the
 * task's dispatch to its waiting relation (docs/METRICS.md section 3; a
 * block whose dispatch the trace lacks is not counted), a CPU stretch to
 * its worker's CPU time. */
static int on_interval(void *ctx, const mon_interval *iv)
{
    wfb_lifter *l = ctx;
    uint32_t trace_run = iv->run, run = dense_run(l, trace_run ? trace_run : 1);
    if (!run)
        return -1;
    worker_state *w = worker_in_run(l, run, iv->worker);
    if (iv->kind == MON_INTERVAL_IDLE) {
        if (w)
            w->stats.wait_s += exec_cost(seconds(iv->start), seconds(iv->end));
        wfb_execgraph_idle(&l->aeg, run, iv);
        return 0;
    }
    if (iv->kind == MON_INTERVAL_CPU) {
        lift_cpu(l, w, iv);
        return 0;
    }
    if (iv->kind == MON_INTERVAL_BLOCKED && iv->how != MON_END_DISPATCH)
        return 0;
    task_state *t = task_of(l, run, trace_run, iv->task, iv->worker);
    if (!t)
        return -1;
    if (iv->kind == MON_INTERVAL_BLOCKED) {
        wfb_execgraph_blocked(&l->aeg, (uint32_t)(t - l->tasks), iv);
        return lift_wait(l, t, w, iv);
    }
    lift_period(l, t, w, iv);
    return 0;
}

/* An execution period begins: a row of the as-executed graph. */
static int on_interval_open(void *ctx, const mon_interval *iv)
{
    wfb_lifter *l = ctx;
    if (iv->kind != MON_INTERVAL_EXEC)
        return 0;
    uint32_t trace_run = iv->run, run = dense_run(l, trace_run ? trace_run : 1);
    task_state *t = run ? task_of(l, run, trace_run, iv->task, iv->worker) : NULL;
    if (!t)
        return -1;
    return wfb_execgraph_open(&l->aeg, run, (uint32_t)(t - l->tasks), iv);
}

/* ---- events ---- */

/* The message's state as written, or, never written by a monitored task,
 * as an input from outside that exists from its first use on, where it
 * was used. WFB_NONE when out of memory. */
static uint32_t written_state(wfb_lifter *l, uint32_t run, const mon_event *ev)
{
    uint32_t v = mg_ref(l, WFB_MV_PLAIN, run, ev->msg, 0);
    if (v == WFB_NONE || mg_defined(l, v))
        return v;
    wfb_mv_define d = {l->now, ev->worker, WFB_NONE, WFB_MV_EXTERNAL, true, false};
    return mg_define(l, v, &d) ? WFB_NONE : v;
}

/* A state of a message crossing ranks: m<id>>rank<q> leaving for rank q
 * (arrival false) or m<id>@rank<q> arrived on it; WFB_NONE when out of
 * memory, *found whether it was defined already. */
static uint32_t crossing_state(wfb_lifter *l, uint32_t run, uint64_t msg, bool arrival,
                               uint32_t rank, bool create, bool *found)
{
    wfb_mv_kind kind = arrival ? WFB_MV_ARRIVAL : WFB_MV_DEPARTURE;
    uint32_t v = mg_find_defined(l, kind, run, msg, rank);
    *found = v != WFB_NONE;
    if (*found || !create)
        return v;
    return mg_ref(l, kind, run, msg, rank);
}

/* Define a state v the message reached at the event's time and worker:
 * from src by a TRANSFER (a move to another worker, or a crossing). */
static int reached(wfb_lifter *l, task_state *t, uint32_t src, uint32_t v, const mon_event *ev)
{
    wfb_mv_define d = {l->now, ev->worker, WFB_NONE, WFB_MV_NO_LABEL, false, true};
    return mg_define(l, v, &d) || mg_transfer(l, t, src, v) ? -1 : 0;
}

/* message_sent: the message leaves for rank peer_rank from where it is on
 * this rank (arrived here earlier, or written here). */
static int on_sent(wfb_lifter *l, task_state *t, const mon_event *ev)
{
    uint32_t run = t->stats.run;
    if (wfb_execgraph_sent(&l->aeg, run, (uint32_t)(t - l->tasks), ev->msg, l->now))
        return -1;
    bool found;
    uint32_t src = crossing_state(l, run, ev->msg, true, ev->rank, false, &found);
    if (!found && (src = written_state(l, run, ev)) == WFB_NONE)
        return -1;
    uint32_t v = crossing_state(l, run, ev->msg, false, ev->peer_rank, true, &found);
    if (v == WFB_NONE)
        return -1;
    return found ? 0 : reached(l, t, src, v, ev); /* sent twice: the first one stands */
}

/* message_received: the message arrives from rank peer_rank. */
static int on_received(wfb_lifter *l, task_state *t, const mon_event *ev)
{
    uint32_t run = t->stats.run;
    wfb_execgraph_received(&l->aeg, run, (uint32_t)(t - l->tasks), ev->msg);
    bool found;
    uint32_t src = crossing_state(l, run, ev->msg, false, ev->rank, false, &found);
    if (!found && (src = written_state(l, run, ev)) == WFB_NONE)
        return -1;
    uint32_t v = crossing_state(l, run, ev->msg, true, ev->rank, true, &found);
    if (v == WFB_NONE)
        return -1;
    return found ? 0 : reached(l, t, src, v, ev);
}

static int on_read(wfb_lifter *l, task_state *t, const mon_event *ev)
{
    /* Without component events a read after a write starts a new iteration. */
    if (!t->exec.open || (t->exec.implicit && t->exec.wrote))
        if (open_exec_at(l, t, l->now, true))
            return -1;
    bool arrived = false;
    uint32_t v = ev->ranked ? crossing_state(l, t->stats.run, ev->msg, true, ev->rank, false,
                                             &arrived)
                            : WFB_NONE;
    if (!arrived && (v = written_state(l, t->stats.run, ev)) == WFB_NONE)
        return -1;
    uint32_t from = writer_worker(l, v);
    if (from != WFB_NONE && from != ev->worker) {
        uint32_t moved = mg_ref(l, WFB_MV_MOVED, t->stats.run, ev->msg, ev->worker);
        if (moved == WFB_NONE || reached(l, t, v, moved, ev))
            return -1;
        v = moved;
    }
    return push_vertex(&t->exec.reads, &t->exec.n_reads, &t->exec.cap_reads, v);
}

static int on_written(wfb_lifter *l, task_state *t, const mon_event *ev)
{
    uint32_t v = mg_ref(l, WFB_MV_PLAIN, t->stats.run, ev->msg, 0);
    if (v == WFB_NONE)
        return -1;
    /* written in an execution, its in-edges come when the execution ends;
     * outside one, it is an input of the network */
    wfb_mv_define d = {l->now, ev->worker, t->name, WFB_MV_NO_LABEL, false, t->exec.open};
    if (mg_define(l, v, &d))
        return -1;
    wfb_execgraph_wrote(&l->aeg, (uint32_t)(t - l->tasks), v);
    if (!t->exec.open)
        return 0;
    t->exec.wrote = true;
    return push_vertex(&t->exec.writes, &t->exec.n_writes, &t->exec.cap_writes, v);
}

/* task_block's cause, and yield or destroy as "other" (docs/METRICS.md
 * section 3: blocks by cause). */
static unsigned block_cause(const mon_event *ev)
{
    if (ev->kind != MON_EV_TASK_BLOCK || ev->cause > MON_BLOCK_ANY)
        return WFB_BLOCK_OTHER;
    return ev->cause;
}

static int on_task_event(wfb_lifter *l, task_state *t, const mon_event *ev)
{
    switch (ev->kind) {
    case MON_EV_TASK_MAP:
        t->stats.worker = ev->worker_mapped;
        if (ev->name && (t->name = wfb_graph_string(l->g, ev->name)) == WFB_NONE)
            return -1;
        return 0;
    case MON_EV_TASK_DISPATCH:
        t->stats.dispatches++;
        l->periods_seen = true;
        return 0;
    case MON_EV_MESSAGE_SENT:
        return on_sent(l, t, ev);
    case MON_EV_MESSAGE_RECEIVED:
        return on_received(l, t, ev);
    case MON_EV_TASK_LOAD:
        t->has_load = true;
        t->load_dispatches = ev->dispatches;
        t->load_exec_s = seconds(ev->exec_ns);
        return 0;
    case MON_EV_TASK_BLOCK:
    case MON_EV_TASK_YIELD:
    case MON_EV_TASK_DESTROY:
        t->stats.blocks[block_cause(ev)]++;
        return t->exec.implicit ? close_exec(l, t, l->now) : 0;
    case MON_EV_MESSAGE_READ:
        return on_read(l, t, ev);
    case MON_EV_MESSAGE_WRITTEN:
        return on_written(l, t, ev);
    case MON_EV_COMPONENT_BEGIN:
        return open_exec_at(l, t, l->now, false);
    case MON_EV_COMPONENT_END:
        return close_exec(l, t, l->now);
    default:
        return 0;
    }
}

/* Runs are numbered 1, 2, ... in the order they appear, which is the
 * trace's own numbering for every trace the monitor writes (its runs count
 * up from 1, one after another). Tables per run are then sized by the runs
 * there are, never by a number a damaged log makes up (a fuzzed run_start of
 * 2^32 asked for gigabytes). The last run looked up is nearly always the
 * next one asked for; a trace has few runs. 0 when out of memory. */
static uint32_t dense_run(wfb_lifter *l, uint32_t trace_run)
{
    if (l->n_runs_seen && l->run_seen[l->n_runs_seen - 1] == trace_run)
        return (uint32_t)l->n_runs_seen;
    for (size_t i = 0; i < l->n_runs_seen; i++)
        if (l->run_seen[i] == trace_run)
            return (uint32_t)i + 1;
    if (KIT_GROW(l->run_seen, l->cap_runs_seen, l->n_runs_seen + 1))
        return 0;
    l->run_seen[l->n_runs_seen++] = trace_run;
    return (uint32_t)l->n_runs_seen;
}

/* The events the lifter reads; the others (task_create, stream reads,
 * closes and wakes, run_start, channel_open, cpu_time: the period layer's
 * and the as-executed graph's) say nothing it keeps, and must not make a
 * worker's row begin or end later. */
static bool lifted(mon_event_kind kind)
{
    switch (kind) {
    case MON_EV_TASK_CREATE:
    case MON_EV_STREAM_CLOSE:
    case MON_EV_STREAM_READ:
    case MON_EV_STREAM_WAKE:
    case MON_EV_RUN_START:
    case MON_EV_CHANNEL_OPEN:
    case MON_EV_CPU_TIME: /* the period layer's (mon_periods) */
        return false;
    default:
        return (unsigned)kind < MON_EV_KIND_COUNT;
    }
}

/* A worker's own events: its span, its waits, its load summary. */
static void on_worker_event(worker_state *w, const mon_event *ev, double now)
{
    switch (ev->kind) {
    case MON_EV_WORKER_START:
        w->stats.start_s = now;
        break;
    case MON_EV_WORKER_END:
        w->stats.end_s = now;
        break;
    case MON_EV_WORKER_WAIT:
        w->stats.waits++;
        break;
    case MON_EV_WORKER_LOAD:
        w->has_load = true;
        w->load.waits = ev->waits;
        w->load.wait_s = seconds(ev->wait_ns);
        w->load.busy_s = seconds(ev->busy_ns);
        break;
    default:
        break;
    }
}

static bool is_worker_event(mon_event_kind kind)
{
    return kind == MON_EV_WORKER_START || kind == MON_EV_WORKER_END ||
           kind == MON_EV_WORKER_WAIT || kind == MON_EV_WORKER_RESUME ||
           kind == MON_EV_WORKER_LOAD;
}

/* The task of the event's run, NULL when the trace has not named it. */
static task_state *task_find(wfb_lifter *l, uint32_t run, uint64_t task)
{
    task_probe probe = {l, task_key(run, task)};
    uint32_t found = kit_index_map_find(&l->task_map, probe.key, same_task, &probe);
    return found != UINT32_MAX ? &l->tasks[found] : NULL;
}

/* What the as-executed graph takes from events the lifter does not lift:
 * who woke a task (in which period), when a task was created (ready). */
static int feed_execgraph(wfb_lifter *l, const mon_event *ev)
{
    uint32_t trace_run = ev->run ? ev->run : 1, run = dense_run(l, trace_run);
    if (!run)
        return -1;
    double now = seconds(ev->time);
    if (ev->kind == MON_EV_TASK_CREATE) {
        task_state *t = task_of(l, run, trace_run, ev->task, ev->worker);
        if (!t)
            return -1;
        wfb_execgraph_created(&l->aeg, run, (uint32_t)(t - l->tasks), ev->worker, now);
        return 0;
    }
    task_state *waker = task_of(l, run, trace_run, ev->task, ev->worker);
    if (!waker)
        return -1;
    task_state *woken = task_find(l, run, ev->peer); /* after task_of, which may move tasks */
    if (woken)
        wfb_execgraph_wake(&l->aeg, (uint32_t)(waker - l->tasks), (uint32_t)(woken - l->tasks),
                           now);
    return 0;
}

static int lifter_feed(wfb_lifter *l, const mon_event *ev, wfb_error *err);

int wfb_lifter_feed_mon(wfb_lifter *l, const mon_event *ev, wfb_error *err)
{
    int rc = lifter_feed(l, ev, err);
    if (rc == 0 && l->online && wfb_online_irregular(l->online))
        return oom(l, err);
    return rc;
}

static int lifter_feed(wfb_lifter *l, const mon_event *ev, wfb_error *err)
{
    /* The periods first: one closed by this event belongs to the run its
     * worker was in before this event moves the worker on to another. */
    int rc = mon_periods_feed(l->periods, ev);
    if (rc)
        return oom(l, err);
    if ((ev->kind == MON_EV_TASK_CREATE || ev->kind == MON_EV_STREAM_WAKE) &&
        feed_execgraph(l, ev))
        return oom(l, err);
    if (!lifted(ev->kind))
        return 0;
    uint32_t trace_run = ev->run, run = dense_run(l, trace_run ? trace_run : 1);
    if (!run)
        return oom(l, err);
    l->now = seconds(ev->time);
    if (ev->kind == MON_EV_STREAM_OPEN || ev->kind == MON_EV_STREAM_WRITE)
        return wfb_stream_table_feed(&l->streams, run, ev) ? oom(l, err) : 0;
    if (ev->kind == MON_EV_TASK_MAP) {
        /* Its worker is the one the task is placed on, not necessarily the
         * log it is in: it says nothing about that worker's run. */
        task_state *t = task_of(l, run, trace_run, ev->task, ev->worker_mapped);
        if (!t || on_task_event(l, t, ev))
            return oom(l, err);
        return 0;
    }
    worker_state *w = worker_of(l, run, ev->worker, l->now);
    if (!w) {
        wfb_set_error(err, l->g->source, 0, "bad worker id %u (or out of memory)", ev->worker);
        return -1;
    }
    if (ev->ranked) {
        w->stats.ranked = true;
        w->stats.rank = ev->rank;
        w->stats.rank_worker = ev->rank_worker;
    }
    l->last_time = fmax(l->last_time, l->now);
    if (ev->time > l->last_ns)
        l->last_ns = ev->time;
    if (is_worker_event(ev->kind)) {
        on_worker_event(w, ev, l->now);
        return 0;
    }
    task_state *t = task_of(l, run, trace_run, ev->task, ev->worker);
    if (!t || on_task_event(l, t, ev))
        return oom(l, err);
    return 0;
}

/* Traces recorded with load summaries only (no dispatch or wait events)
 * still get execution and waiting times, from the summaries (the workers'
 * in keep_row). */
static void apply_load_summaries(wfb_lifter *l)
{
    for (size_t i = 0; i < l->n_tasks; i++) {
        task_state *t = &l->tasks[i];
        if (t->has_load && t->stats.dispatches == 0) {
            t->stats.dispatches = t->load_dispatches;
            t->stats.exec_s = t->load_exec_s;
        }
    }
}

static int by_run_and_worker(const void *a, const void *b)
{
    const wfb_worker_stats *x = a, *y = b;
    if (x->run != y->run)
        return x->run < y->run ? -1 : 1;
    return (x->worker > y->worker) - (x->worker < y->worker);
}

/* Copies the task and worker tables into the graph. */
static int store_tables(wfb_lifter *l)
{
    wfb_graph *g = l->g;
    for (size_t i = 0; i < l->n_workers; i++)
        if (keep_row(l, &l->workers[i]))
            return -1;
    if (l->n_rows) /* rows is NULL when no worker kept a row */
        qsort(l->rows, l->n_rows, sizeof *l->rows, by_run_and_worker);
    g->tasks = calloc(l->n_tasks ? l->n_tasks : 1, sizeof *g->tasks);
    g->workers = calloc(l->n_rows ? l->n_rows : 1, sizeof *g->workers);
    if (!g->tasks || !g->workers)
        return -1;
    for (size_t i = 0; i < l->n_tasks; i++) {
        g->tasks[i] = l->tasks[i].stats;
        g->tasks[i].name = wfb_strtab_get(&g->strs, l->tasks[i].name);
    }
    g->n_tasks = l->n_tasks;
    if (l->n_waits) {
        g->waits = malloc(l->n_waits * sizeof *g->waits);
        if (!g->waits)
            return -1;
        memcpy(g->waits, l->waits, l->n_waits * sizeof *g->waits);
        g->n_waits = l->n_waits;
    }
    if (wfb_stream_table_store(&l->streams, g) || wfb_execgraph_store(&l->aeg, g))
        return -1;
    g->cpu_known = l->cpu_seen;
    if (l->n_rows)
        memcpy(g->workers, l->rows, l->n_rows * sizeof *g->workers);
    g->n_workers = l->n_rows;
    for (size_t i = 0; i < l->n_rows; i++)
        if (l->rows[i].run > g->n_runs)
            g->n_runs = l->rows[i].run;
    g->exec_costs_unknown = l->execs_seen && !l->periods_seen;
    return 0;
}

int wfb_lifter_finish(wfb_lifter *l, wfb_error *err)
{
    /* Open dispatches and waits count up to the trace's last event; then
     * open executions end there. */
    int rc = mon_periods_finish(l->periods, l->last_ns);
    for (size_t i = 0; i < l->n_tasks && !rc; i++)
        if (l->tasks[i].exec.open)
            rc = close_exec(l, &l->tasks[i], l->last_time);
    apply_load_summaries(l);
    if (rc == 0 && l->online && wfb_online_finish(l->online))
        rc = -1;
    if (rc || store_tables(l) || (l->online && wfb_online_irregular(l->online))) {
        rc = oom(l, err);
    } else if (l->online) {
        l->g->online = l->online; /* the graph's message graph from now on */
        l->online = NULL;
        l->g->finished = true;
    } else {
        rc = wfb_graph_finish(l->g, err);
    }
    wfb_lifter_free(l);
    return rc;
}

const char *wfb_worker_name(const wfb_graph *g, uint32_t run, uint32_t worker, char *buf,
                            size_t len)
{
    for (size_t i = 0; i < g->n_workers; i++) {
        const wfb_worker_stats *w = &g->workers[i];
        if (w->worker == worker && (w->run == run || run == 0) && w->ranked) {
            snprintf(buf, len, "worker %" PRIu32 " (r%" PRIu32 ".w%" PRIu32 ")", worker, w->rank,
                     w->rank_worker);
            return buf;
        }
    }
    snprintf(buf, len, "worker %" PRIu32, worker);
    return buf;
}

const char *wfb_task_id_text(uint64_t task, char *buf, size_t len)
{
    if (task >> 32)
        snprintf(buf, len, "%" PRIu64 ":%" PRIu64, task >> 32, task & 0xffffffffu);
    else
        snprintf(buf, len, "%" PRIu64, task);
    return buf;
}

int wfb_import_lpel_trace(wfb_graph *g, const char *dir, wfb_error *err)
{
    return wfb_import_lpel_trace_opt(g, dir, NULL, err);
}
