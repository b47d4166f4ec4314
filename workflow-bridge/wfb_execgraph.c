/*
 * wfb_execgraph.c - the as-executed graph of an LPEL trace, recorded while
 * the lifter reads it: every execution period (the period layer's EXEC
 * intervals, mon_periods) and why it began when it did (docs/METRICS.md
 * section 5):
 *
 *   - the task was woken: the period of the task that woke it, which wrote
 *     to the empty stream it blocked on (data) or read from the full one
 *     (back-pressure: the write waited for the read that freed a slot);
 *   - the task was created, in a period running on its worker;
 *   - across MPI ranks, where no stream_wake crosses: the task waited at a
 *     channel (channel_block) and the record it then took off it
 *     (message_received) was sent (message_sent) in a period on the other
 *     rank, which is the data edge;
 *   - and, whatever made it ready, the period that held its worker before
 *     it (occupancy: a ready task waits for the execution on its core), and
 *     whether the worker was idle in between.
 *
 * Why here and not in the message graph: most tasks of an S-Net network
 * (dispatchers, collectors, filters) move records without component
 * executions, so a back-pressure or occupancy dependency often runs
 * through tasks that have no data state at all; the periods have every
 * task. The critical path walks these rows (wfb_wcp.c); each row also keeps
 * the last data state its task wrote, to name the messages on the path,
 * and the period of its run that ended last before it began, where the
 * walk goes after an idle whose cause the trace does not say.
 *
 * The rows are a spill array (kit.h): one per period, so as many as the
 * trace makes, read back mostly from the end. Each row is final once its
 * period has ended, except its latest_ended, which a period ending at the
 * very time it began may still change: the rows opened at the latest
 * dispatch time are kept "asking" until a dispatch at a later time.
 */
#include "wfb_internal.h"

#include "mon_reader.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static double seconds(uint64_t ns) { return (double)ns * 1e-9; }

/* What is known of a task between its periods. */
typedef struct aeg_task {
    uint32_t open;        /* its running period, WFB_NONE */
    bool after_channel;   /* its last wait was at a channel (no wake there) */
    bool pending;         /* a cause for its next period: */
    wfb_cause cause;
    double ready_s;
    uint32_t cause_period;
    uint64_t stream;
    double wake_s;        /* its last stream_wake, and the waker's period then */
    uint32_t wake_period;
} aeg_task;

/* The period of a run that has ended last so far (ties: the later row). */
typedef struct aeg_latest {
    double end_s;
    uint32_t period;
} aeg_latest;

typedef struct aeg_worker {
    uint32_t run;
    uint32_t open;        /* the period running there, WFB_NONE */
    uint32_t last;        /* the last that ended there in this run, WFB_NONE */
    bool idle;            /* it waited since `last` ended */
} aeg_worker;

static aeg_task *task_at(wfb_execgraph *a, uint32_t task)
{
    if (task >= a->cap_tasks) {
        size_t cap = a->cap_tasks;
        if (KIT_GROW(a->tasks, cap, (size_t)task + 1))
            return NULL;
        for (size_t i = a->cap_tasks; i < cap; i++)
            a->tasks[i] = (aeg_task){.open = WFB_NONE, .wake_s = NAN, .wake_period = WFB_NONE};
        a->cap_tasks = cap;
    }
    return &a->tasks[task];
}

static aeg_worker *worker_at(wfb_execgraph *a, uint32_t worker, uint32_t run)
{
    if (worker >= a->cap_workers) {
        if (worker > 1u << 20)
            return NULL; /* worker numbers are small */
        size_t cap = a->cap_workers;
        if (KIT_GROW(a->workers, cap, (size_t)worker + 1))
            return NULL;
        for (size_t i = a->cap_workers; i < cap; i++)
            a->workers[i] = (aeg_worker){.open = WFB_NONE, .last = WFB_NONE};
        a->cap_workers = cap;
    }
    aeg_worker *w = &a->workers[worker];
    if (w->run != run) /* a worker's log holds its runs one after another */
        *w = (aeg_worker){.run = run, .open = WFB_NONE, .last = WFB_NONE};
    return w;
}

/* A record on its way to another rank: where it was sent. */
typedef struct aeg_sent {
    uint32_t run;
    uint32_t period;
    double at;
} aeg_sent;

void wfb_execgraph_free(wfb_execgraph *a)
{
    mon_key_table_free(&a->sent, NULL);
    kit_spill_close(a->rows);
    free(a->tasks);
    free(a->workers);
    free(a->latest);
    free(a->asking);
    memset(a, 0, sizeof *a);
}

/* Row i, NULL when its temporary file failed (the graph's io_err says so). */
static wfb_period *row(const wfb_execgraph *a, uint32_t i)
{
    return i < a->n ? wfb_graph_spill_at(a->g, a->rows, i) : NULL;
}

static aeg_latest *latest_of(wfb_execgraph *a, uint32_t run)
{
    if (run >= a->cap_latest) {
        size_t cap = a->cap_latest;
        if (KIT_GROW(a->latest, cap, (size_t)run + 1))
            return NULL;
        for (size_t i = a->cap_latest; i < cap; i++)
            a->latest[i] = (aeg_latest){NAN, WFB_NONE};
        a->cap_latest = cap;
    }
    return &a->latest[run];
}

/* Period `at` of run `run` begins at `start`: the period that ended last so
 * far is its latest_ended, unless one ends at `start` too before a later
 * dispatch (wfb_execgraph_close). */
static int ask_latest(wfb_execgraph *a, uint32_t run, uint32_t at, double start, wfb_period *p)
{
    aeg_latest *l = latest_of(a, run);
    if (!l)
        return -1;
    p->latest_ended = l->period;
    if (start != a->asking_s)
        a->n_asking = 0; /* no period can end at their start any more */
    a->asking_s = start;
    return KIT_PUSH(a->asking, a->n_asking, a->cap_asking, at);
}

/* Period `at` of run `run` ended at end_s: the latest of its run, and the
 * latest for the periods asking that began at that same time. */
static void tell_latest(wfb_execgraph *a, uint32_t run, uint32_t at, double end_s)
{
    aeg_latest *l = latest_of(a, run);
    if (!l)
        return;
    if (l->period == WFB_NONE || end_s > l->end_s || (end_s == l->end_s && at > l->period))
        *l = (aeg_latest){end_s, at};
    if (end_s != a->asking_s)
        return;
    for (size_t i = 0; i < a->n_asking; i++) {
        uint32_t q = a->asking[i];
        wfb_period *p = q != at ? row(a, q) : NULL;
        if (!p || p->run != run)
            continue;
        uint32_t was = p->latest_ended;
        const wfb_period *w = was != WFB_NONE ? row(a, was) : NULL;
        /* w ended at or before end_s, the time q began */
        if (!w || w->end_s < end_s || at > was)
            if ((p = row(a, q)))
                p->latest_ended = at;
    }
}

int wfb_execgraph_open(wfb_execgraph *a, uint32_t run, uint32_t task, const mon_interval *iv)
{
    aeg_task *t = task_at(a, task);
    aeg_worker *w = worker_at(a, iv->worker, run);
    if (!t || !w || a->n >= WFB_NONE - 1)
        return -1;
    if (!a->rows && !(a->rows = wfb_graph_spill(a->g, sizeof(wfb_period), 0.125)))
        return -1;
    wfb_period *p = wfb_graph_spill_at(a->g, a->rows, a->n);
    if (!p)
        return -1;
    *p = (wfb_period){.run = run,
                      .worker = iv->worker,
                      .task = task,
                      .start_s = seconds(iv->start),
                      .end_s = NAN,
                      .preempted_s = NAN,
                      .ready_s = NAN,
                      .cause_period = WFB_NONE,
                      .worker_prev = w->last,
                      .idle_before = w->idle,
                      .vertex = WFB_NONE,
                      .latest_ended = WFB_NONE};
    if (t->pending) {
        p->cause = t->cause;
        p->ready_s = t->ready_s;
        p->cause_period = t->cause_period;
        p->stream = t->stream;
        t->pending = false;
    }
    t->open = w->open = (uint32_t)a->n++;
    return ask_latest(a, run, t->open, p->start_s, p);
}

void wfb_execgraph_close(wfb_execgraph *a, uint32_t task, const mon_interval *iv)
{
    aeg_task *t = task < a->cap_tasks ? &a->tasks[task] : NULL;
    wfb_period *p = t ? row(a, t->open) : NULL;
    if (!p)
        return;
    p->end_s = seconds(iv->end);
    p->preempted_s = iv->cpu_known ? seconds(iv->preempted) : NAN;
    uint32_t run = p->run, worker = p->worker;
    double end_s = p->end_s;
    if (worker < a->cap_workers) {
        aeg_worker *w = &a->workers[worker];
        if (w->run == run) {
            w->last = t->open;
            w->idle = false;
            if (w->open == t->open)
                w->open = WFB_NONE;
        }
    }
    tell_latest(a, run, t->open, end_s);
    t->open = WFB_NONE;
}

void wfb_execgraph_idle(wfb_execgraph *a, uint32_t run, const mon_interval *iv)
{
    aeg_worker *w = worker_at(a, iv->worker, run);
    if (w)
        w->idle = true;
}

void wfb_execgraph_blocked(wfb_execgraph *a, uint32_t task, const mon_interval *iv)
{
    aeg_task *t = task_at(a, task);
    if (!t || iv->how != MON_END_DISPATCH)
        return;
    t->after_channel = iv->channel;
    t->pending = true;
    t->cause = WFB_CAUSE_NONE;
    t->ready_s = NAN;
    t->cause_period = WFB_NONE;
    t->stream = iv->stream;
    if (!iv->woken)
        return;
    t->cause = iv->empty ? WFB_CAUSE_DATA : WFB_CAUSE_BACKPRESSURE;
    t->ready_s = seconds(iv->wake);
    if (t->wake_s == t->ready_s)
        t->cause_period = t->wake_period;
}

void wfb_execgraph_wake(wfb_execgraph *a, uint32_t waker, uint32_t woken, double at)
{
    /* Both rows made first: task_at may move the table, so a pointer is
     * taken only once neither call can grow it. */
    if (!task_at(a, waker) || !task_at(a, woken))
        return;
    aeg_task *from = task_at(a, waker), *to = task_at(a, woken);
    to->wake_s = at;
    to->wake_period = from->open;
}

void wfb_execgraph_created(wfb_execgraph *a, uint32_t run, uint32_t task, unsigned worker,
                           double at)
{
    aeg_task *t = task_at(a, task);
    aeg_worker *w = worker_at(a, worker, run);
    if (!t || !w)
        return;
    t->pending = true;
    t->cause = w->open != WFB_NONE ? WFB_CAUSE_CREATED : WFB_CAUSE_NONE;
    t->ready_s = at;
    t->cause_period = w->open;
    t->stream = 0;
}

int wfb_execgraph_sent(wfb_execgraph *a, uint32_t run, uint32_t task, uint64_t msg, double at)
{
    aeg_task *t = task < a->cap_tasks ? &a->tasks[task] : NULL;
    if (!t || t->open == WFB_NONE)
        return 0;
    if (!a->sent.value_size)
        mon_key_table_init(&a->sent, sizeof(aeg_sent));
    aeg_sent *s = mon_key_table_get(&a->sent, msg);
    if (!s)
        return -1;
    *s = (aeg_sent){run, t->open, at};
    return 0;
}

void wfb_execgraph_received(wfb_execgraph *a, uint32_t run, uint32_t task, uint64_t msg)
{
    aeg_task *t = task < a->cap_tasks ? &a->tasks[task] : NULL;
    aeg_sent *s = a->sent.value_size ? mon_key_table_find(&a->sent, msg) : NULL;
    if (!s || s->run != run) /* a record keeps its id across ranks: the latest send */
        return;
    wfb_period *p = t ? row(a, t->open) : NULL;
    if (p && t->after_channel && p->cause == WFB_CAUSE_NONE && isnan(p->ready_s)) {
        p->cause = WFB_CAUSE_DATA;
        p->cause_period = s->period;
        p->ready_s = s->at; /* p->stream is the channel it waited at */
        t->after_channel = false;
    }
    mon_key_table_remove(&a->sent, msg);
}

void wfb_execgraph_wrote(wfb_execgraph *a, uint32_t task, uint32_t vertex)
{
    aeg_task *t = task < a->cap_tasks ? &a->tasks[task] : NULL;
    wfb_period *p = t ? row(a, t->open) : NULL;
    if (p)
        p->vertex = vertex;
}

int wfb_execgraph_store(wfb_execgraph *a, wfb_graph *g)
{
    kit_spill_close(g->periods);
    g->periods = a->rows;
    g->n_periods = a->n;
    a->rows = NULL;
    a->n = 0;
    return 0;
}
