/*
 * whatif_lpel.c - the replay model of one run of an LPEL trace, from its
 * events (whatif_model_from_trace, whatif.h; docs/METRICS.md section 11).
 *
 * Each task is one unit; its steps are the stream operations it did, in
 * order, each after the work the task did since the one before (the time
 * in its execution periods, from the reader's period layer): a read, a
 * write, the close of a write end or of a read end, the creation of a task
 * on its own worker, a yield, its end. Between the steps:
 *
 *   - the k-th read of a stream waits for its k-th write (the item);
 *   - the k-th write waits for the read k - C (the slot it fills, C the
 *     stream's capacity: back-pressure);
 *   - closing the read end waits for the close of the write end when the
 *     reader saw it (the end of the stream);
 *   - a task created inside a period of its worker starts after that.
 *
 * Only the order the trace shows is kept: a dependency whose source came
 * later in the trace than its target is dropped (a capacity guessed too
 * small, a lost event), so the replay of the run as recorded can always
 * finish.
 *
 * The capacity of a stream: how many items it held when its writer
 * blocked on it full; LPEL's default, which S-Net gives every stream, when
 * it never was. A task's scalable work is its time inside component
 * executions when it has any (the box function, what the apps' --scale
 * changes), else all its time (a dispatcher, a collector, a filter).
 */
#include "whatif_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* LPEL's default stream capacity (LPEL_DEFAULT_STREAM_CAPACITY), the one
 * S-Net gives every stream; the trace does not record it. */
#define WHATIF_STREAM_CAPACITY 16

typedef struct lp_task {
    uint32_t task, unit;   /* in the model */
    double t_last;         /* its last event in its open period */
    double acc_out, acc_in;/* work since its last step: outside, inside components */
    uint32_t start;        /* its START step, UINT32_MAX not yet */
    bool running, in_comp, has_comp;
} lp_task;

typedef struct step_list {
    uint32_t *v;
    size_t n, cap;
} step_list;

typedef struct lp_stream {
    step_list writes, reads;
    uint32_t close_w, close_r;  /* steps, UINT32_MAX none */
    int64_t held;               /* items written and not yet read */
    int64_t held_max, full_at;  /* the most it held; what it held when found full (-1) */
} lp_stream;

typedef struct lp_worker {
    double start, end, busy, idle;
    uint64_t dispatches;
} lp_worker;

typedef struct builder {
    whatif_model *m;
    kit_id_map task_ids, stream_ids;
    lp_task *tasks;
    size_t n_tasks, cap_tasks;
    lp_stream *streams;
    size_t n_streams, cap_streams;
    lp_worker *workers;
    size_t n_workers;
    mon_periods *periods;
    bool oom, many_runs, ranked;
    uint64_t last_ns;      /* the latest event time read */
    wfb_error *err;
} builder;

static double secs(uint64_t ns) { return (double)ns * 1e-9; }

/* ---- tasks, streams, workers ---------------------------------------------- */

/* Where id is in map: its index, or n when it is new (then *is_new, and
 * the map has it at n from now on); SIZE_MAX when out of memory. */
static size_t index_of(builder *b, kit_id_map *map, uint64_t id, size_t n, bool *is_new)
{
    kit_id_entry *e = kit_id_map_find_or_add(map, id);
    if (!e) {
        b->oom = true;
        return SIZE_MAX;
    }
    *is_new = !e->value; /* values are index + 1 */
    if (*is_new)
        e->value = n + 1;
    return e->value - 1;
}

/* The task of id, made at first sight (its START comes later: started). */
static lp_task *task_get(builder *b, uint64_t id)
{
    bool is_new;
    if (KIT_GROW(b->tasks, b->cap_tasks, b->n_tasks + 1))
        return b->oom = true, NULL;
    size_t i = index_of(b, &b->task_ids, id, b->n_tasks, &is_new);
    if (i == SIZE_MAX || !is_new)
        return i == SIZE_MAX ? NULL : &b->tasks[i];
    uint32_t task = wi_add_task(b->m, NULL, id, 0);
    uint32_t unit = task == UINT32_MAX ? UINT32_MAX : wi_add_unit(b->m, task);
    if (unit == UINT32_MAX)
        return b->oom = true, NULL;
    b->tasks[b->n_tasks] = (lp_task){.task = task, .unit = unit, .start = UINT32_MAX};
    return &b->tasks[b->n_tasks++];
}

/* Its START, at its creation or else at the first thing it does. */
static uint32_t started(builder *b, lp_task *t, double now)
{
    if (t->start == UINT32_MAX &&
        (t->start = wi_add_step(b->m, t->unit, WI_START, 0, 0, 0, now)) == UINT32_MAX)
        b->oom = true;
    return t->start;
}

/* The task of id, started. */
static lp_task *task_at(builder *b, uint64_t id, double now)
{
    lp_task *t = task_get(b, id);
    if (t)
        started(b, t, now);
    return b->oom ? NULL : t;
}

static lp_stream *stream_get(builder *b, uint64_t id)
{
    bool is_new;
    if (KIT_GROW(b->streams, b->cap_streams, b->n_streams + 1))
        return b->oom = true, NULL;
    size_t i = index_of(b, &b->stream_ids, id, b->n_streams, &is_new);
    if (i == SIZE_MAX || !is_new)
        return i == SIZE_MAX ? NULL : &b->streams[i];
    b->streams[b->n_streams] = (lp_stream){.close_w = UINT32_MAX, .close_r = UINT32_MAX,
                                           .full_at = -1};
    return &b->streams[b->n_streams++];
}

static lp_worker *worker_get(builder *b, unsigned w)
{
    if (w >= b->n_workers) {
        if (w > 1u << 16) {
            b->oom = true; /* worker numbers are small */
            return NULL;
        }
        lp_worker *grown = realloc(b->workers, (w + 1) * sizeof *grown);
        if (!grown) {
            b->oom = true;
            return NULL;
        }
        for (size_t i = b->n_workers; i <= w; i++)
            grown[i] = (lp_worker){.start = NAN, .end = NAN};
        b->workers = grown;
        b->n_workers = w + 1;
    }
    return &b->workers[w];
}

/* ---- work and steps -------------------------------------------------------- */

/* The task's time since its last event, up to now, goes to its work. */
static void accrue(lp_task *t, double now)
{
    if (!t->running)
        return;
    double d = now - t->t_last;
    if (d > 0) {
        if (t->in_comp)
            t->acc_in += d;
        else
            t->acc_out += d;
    }
    t->t_last = now;
}

static uint32_t add_step(builder *b, lp_task *t, wi_step_kind kind, uint32_t stream, double now)
{
    accrue(t, now);
    uint32_t s = wi_add_step(b->m, t->unit, kind, stream, t->acc_out, t->acc_in, now);
    if (s == UINT32_MAX)
        b->oom = true;
    t->acc_out = t->acc_in = 0;
    return s;
}

static uint32_t stream_index(builder *b, const lp_stream *s)
{
    return (uint32_t)(s - b->streams);
}

/* ---- the period layer's intervals ----------------------------------------- */

static int period_open(void *ctx, const mon_interval *iv)
{
    builder *b = ctx;
    if (iv->kind != MON_INTERVAL_EXEC || iv->run != 1)
        return 0;
    lp_task *t = task_at(b, iv->task, secs(iv->start));
    lp_worker *w = worker_get(b, iv->worker);
    if (!t || !w)
        return 0;
    t->running = true;
    t->t_last = secs(iv->start);
    w->dispatches++;
    return 0;
}

static int period_close(void *ctx, const mon_interval *iv)
{
    builder *b = ctx;
    if (iv->run != 1)
        return 0;
    lp_worker *w = worker_get(b, iv->worker);
    if (!w)
        return 0;
    double len = secs(iv->end) - secs(iv->start);
    if (iv->kind == MON_INTERVAL_IDLE) {
        w->idle += len;
        return 0;
    }
    if (iv->kind != MON_INTERVAL_EXEC)
        return 0;
    w->busy += len;
    lp_task *t = task_at(b, iv->task, secs(iv->start));
    if (!t)
        return 0;
    if (iv->how == MON_END_YIELD)
        add_step(b, t, WI_YIELD, 0, secs(iv->end));
    else if (iv->how == MON_END_DESTROY)
        add_step(b, t, WI_END, 0, secs(iv->end));
    else
        accrue(t, secs(iv->end));
    t->running = false;
    return 0;
}

/* ---- events ------------------------------------------------------------- */

/* A task created while another ran on its worker was created by that one
 * (a task created for another worker is adopted there later, between
 * periods: its creator is not in the trace). */
static void created(builder *b, const mon_event *ev, double now)
{
    const mon_interval *running = mon_periods_worker_state(b->periods, ev->worker);
    uint64_t creator = running && running->kind == MON_INTERVAL_EXEC ? running->task : 0;
    lp_task *c = creator && creator != ev->task ? task_at(b, creator, now) : NULL;
    uint32_t spawn = c ? add_step(b, c, WI_SPAWN, 0, now) : UINT32_MAX;
    lp_task *t = task_get(b, ev->task);
    if (!t || t->start != UINT32_MAX)
        return; /* it did something before: nothing to wait for */
    uint32_t start = started(b, t, now);
    if (spawn != UINT32_MAX && start != UINT32_MAX && wi_add_dep(b->m, spawn, start))
        b->oom = true;
}

static void stream_io(builder *b, const mon_event *ev, double now)
{
    lp_task *t = task_at(b, ev->task, now);
    lp_stream *s = stream_get(b, ev->stream);
    if (!t || !s)
        return;
    bool write = ev->kind == MON_EV_STREAM_WRITE;
    uint32_t step = add_step(b, t, write ? WI_WRITE : WI_READ, stream_index(b, s), now);
    step_list *l = write ? &s->writes : &s->reads;
    if (step == UINT32_MAX || KIT_PUSH(l->v, l->n, l->cap, step)) {
        b->oom = true;
        return;
    }
    s->held += write ? 1 : -1;
    if (s->held > s->held_max)
        s->held_max = s->held;
}

static void stream_close(builder *b, const mon_event *ev, double now)
{
    lp_task *t = task_at(b, ev->task, now);
    lp_stream *s = stream_get(b, ev->stream);
    if (!t || !s)
        return;
    uint32_t step = add_step(b, t, ev->write_end ? WI_CLOSE : WI_EOS, stream_index(b, s), now);
    if (ev->write_end)
        s->close_w = step;
    else
        s->close_r = step;
}

static void task_named(builder *b, const mon_event *ev)
{
    lp_task *t = task_get(b, ev->task);
    if (!t)
        return;
    wi_task *mt = &b->m->tasks[t->task];
    mt->worker = ev->worker_mapped;
    if (ev->name && ev->name[0]) {
        free(mt->name);
        if (!(mt->name = strdup(ev->name)))
            b->oom = true;
    }
}

static void component(builder *b, const mon_event *ev, double now)
{
    lp_task *t = task_at(b, ev->task, now);
    if (!t)
        return;
    accrue(t, now);
    t->in_comp = ev->kind == MON_EV_COMPONENT_BEGIN;
    t->has_comp |= t->in_comp;
}

static void worker_event(builder *b, const mon_event *ev, double now)
{
    lp_worker *w = worker_get(b, ev->worker);
    if (w && ev->kind == MON_EV_WORKER_START)
        w->start = now;
    else if (w)
        w->end = now;
}

static void event(builder *b, const mon_event *ev)
{
    double now = secs(ev->time);
    switch (ev->kind) {
    case MON_EV_TASK_MAP: task_named(b, ev); break;
    case MON_EV_TASK_CREATE: created(b, ev, now); break;
    case MON_EV_STREAM_READ:
    case MON_EV_STREAM_WRITE: stream_io(b, ev, now); break;
    case MON_EV_STREAM_CLOSE: stream_close(b, ev, now); break;
    case MON_EV_STREAM_BLOCK:
        if (!ev->empty) {
            lp_stream *s = stream_get(b, ev->stream);
            if (s && s->held > s->full_at)
                s->full_at = s->held;
        }
        break;
    case MON_EV_COMPONENT_BEGIN:
    case MON_EV_COMPONENT_END: component(b, ev, now); break;
    case MON_EV_WORKER_START:
    case MON_EV_WORKER_END: worker_event(b, ev, now); break;
    default: break;
    }
}

/* ---- finishing ------------------------------------------------------------ */

static int dep_forward(builder *b, uint32_t from, uint32_t to)
{
    return from < to ? wi_add_dep(b->m, from, to) : 0; /* only what the trace's order shows */
}

/* Items, slots and the end of each stream. */
static int stream_deps(builder *b)
{
    for (size_t i = 0; i < b->n_streams; i++) {
        lp_stream *s = &b->streams[i];
        int64_t cap = s->full_at > 0 ? s->full_at : WHATIF_STREAM_CAPACITY;
        if (s->held_max > cap && s->full_at <= 0)
            cap = s->held_max;
        if (wi_add_stream(b->m, (uint32_t)cap) == UINT32_MAX)
            return -1;
        for (size_t k = 0; k < s->reads.n && k < s->writes.n; k++)
            if (dep_forward(b, s->writes.v[k], s->reads.v[k]))
                return -1;
        for (size_t k = (size_t)cap; k < s->writes.n && k - (size_t)cap < s->reads.n; k++)
            if (dep_forward(b, s->reads.v[k - (size_t)cap], s->writes.v[k]))
                return -1;
        if (s->close_w != UINT32_MAX && s->close_r != UINT32_MAX &&
            dep_forward(b, s->close_w, s->close_r))
            return -1;
    }
    return 0;
}

/* A task without component executions: all its work scales. */
static void scalable_work(builder *b)
{
    whatif_model *m = b->m;
    for (size_t s = 0; s < m->n_steps; s++) {
        wi_step *st = &m->steps[s];
        uint32_t task = m->units[st->unit].task;
        if (!b->tasks[task].has_comp) { /* lp tasks and model tasks share indices */
            st->scaled_s += st->fixed_s;
            st->fixed_s = 0;
        }
    }
}

/* The measured span (eq. 1's) and each worker's cost of a dispatch: the
 * time it was neither running a task nor waiting, per dispatch. */
static int worker_figures(builder *b)
{
    whatif_model *m = b->m;
    m->switch_s = calloc(b->n_workers ? b->n_workers : 1, sizeof *m->switch_s);
    if (!m->switch_s)
        return -1;
    for (size_t w = 0; w < b->n_workers; w++) {
        const lp_worker *k = &b->workers[w];
        double span = k->end - k->start;
        if (isnan(span)) {
            m->span_unknown_why = "no worker_start or worker_end: the span needs the W flag";
            continue;
        }
        if (!(span <= m->measured_span_s))
            m->measured_span_s = span;
        double other = span - k->busy - k->idle;
        if (k->dispatches && other > 0)
            m->switch_s[w] = other / (double)k->dispatches;
    }
    if (m->span_unknown_why || !b->n_workers) {
        m->measured_span_s = NAN;
        if (!m->span_unknown_why)
            m->span_unknown_why = "no worker events: the span needs the W flag";
    }
    return 0;
}

static void builder_free(builder *b)
{
    kit_id_map_free(&b->task_ids);
    kit_id_map_free(&b->stream_ids);
    free(b->tasks);
    for (size_t i = 0; i < b->n_streams; i++) {
        free(b->streams[i].writes.v);
        free(b->streams[i].reads.v);
    }
    free(b->streams);
    free(b->workers);
    mon_periods_free(b->periods);
}

/* What the trace lacks for a model, in err; 0 when nothing. */
static int check_trace(const builder *b, size_t streams_io)
{
    if (b->ranked) {
        wi_error(b->err, "the trace is of a run across MPI ranks; whatif "
                                       "replays the tasks of one process");
        return -1;
    }
    if (b->many_runs) {
        wi_error(b->err, "the trace holds several runs; whatif replays one "
                                       "(record one run per trace directory)");
        return -1;
    }
    if (!b->n_tasks || !streams_io) {
        wi_error(b->err, "the trace has no %s: whatif needs the flags tTS "
                                       "(-m A records all)",
                      b->n_tasks ? "stream reads or writes" : "task periods");
        return -1;
    }
    return 0;
}

static int finish(builder *b)
{
    size_t io = 0;
    for (size_t i = 0; i < b->n_streams; i++)
        io += b->streams[i].reads.n + b->streams[i].writes.n;
    if (check_trace(b, io))
        return -1;
    scalable_work(b);
    if (stream_deps(b) || worker_figures(b) ||
        wi_model_finish(b->m, (unsigned)b->n_workers)) {
        wi_error(b->err, "out of memory building the replay model");
        return -1;
    }
    return 0;
}

static int read_events(builder *b, whatif_next_fn next, void *ctx)
{
    mon_event ev;
    int rc;
    while ((rc = next(ctx, &ev)) == 1) {
        if (ev.ranked)
            b->ranked = true;
        if (ev.time > b->last_ns)
            b->last_ns = ev.time;
        if (ev.run != 1) {
            b->many_runs = true;
            continue;
        }
        if (mon_periods_feed(b->periods, &ev) != 0) {
            b->oom = true;
            break;
        }
        event(b, &ev);
        if (b->oom)
            break;
    }
    if (rc < 0) {
        b->err->file[0] = b->err->msg[0] = '\0'; /* the source said it */
        b->err->line = 0;
        return -1;
    }
    return 0;
}

int whatif_model_from_trace(whatif_next_fn next, void *ctx, whatif_model **out, wfb_error *err)
{
    builder b = {.err = err};
    mon_period_sink sink = {&b, period_open, period_close};
    *out = NULL;
    b.m = wi_model_new(WHATIF_SOURCE_STREAMS);
    b.periods = b.m ? mon_periods_new(&sink) : NULL;
    int rc = b.periods ? read_events(&b, next, ctx) : (b.oom = true, 0);
    if (rc == 0 && !b.oom && mon_periods_finish(b.periods, b.last_ns) != 0)
        b.oom = true;
    if (rc == 0 && b.oom)
        wi_error(err, "out of memory building the replay model");
    if (rc == 0 && !b.oom)
        rc = finish(&b);
    else
        rc = -1;
    builder_free(&b);
    if (rc) {
        whatif_model_free(b.m);
        return -1;
    }
    b.m->run = 1;
    *out = b.m;
    return 0;
}
