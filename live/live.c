/*
 * live.c - the incremental accumulator of `snetmon top` (see live.h).
 *
 * Every figure is a sum of closed periods plus the open one cut at T, so it
 * can be read at any moment. The periods and waits, closed and open, are
 * the trace reader's (mon_periods, mon_reader.h): this file only adds them
 * up. For "the last interval", each closed period is also spread over time
 * bins of a tenth of the interval, of which a worker or task keeps the
 * newest LIVE_BINS: the window is a whole number of bins reaching back at
 * least one interval from T, so the bins cover it exactly.
 * The definitions follow docs/METRICS.md.
 */
#include "live.h"

#include "kit.h"

#include <stdlib.h>
#include <string.h>

/* Bins kept: the window spans at most 11 bins of interval / 10 (10 whole
 * ones and the part of the bin T is in), plus one to spare. */
#define LIVE_BINS 12
#define LIVE_BINS_PER_INTERVAL 10

/* The newest LIVE_BINS bins of one quantity: v[k % LIVE_BINS] is bin k, for
 * k in (newest - LIVE_BINS, newest]; older bins have been reused. */
typedef struct bins {
    uint64_t newest;
    uint64_t v[LIVE_BINS];
} bins;

typedef struct worker_acc {
    bool seen;
    uint32_t run;
    bool started, ended;      /* worker_start / worker_end of the current run */
    uint64_t start, end;
    uint64_t spans_before;    /* the finished spans of earlier runs */
    bool had_span;            /* a worker_start in some run */
    uint64_t busy, wait, waits; /* closed periods and waits; worker_wait events */
    uint64_t blocked, ready;  /* its tasks' closed waits, split at the wake */
    bool cpu_known;
    uint64_t cpu, preempted, preemptions; /* closed CPU stretches */
    bins b_busy, b_wait, b_alive, b_waits;
} worker_acc;

typedef struct task_acc {
    uint64_t key;             /* mon_run_id_key(run, task id) */
    uint32_t run;
    uint64_t id;
    char *name;
    unsigned worker;
    uint64_t exec, dispatches; /* closed periods; task_dispatch events */
    uint64_t blocked, ready;   /* closed waits, split at the wake */
    /* The component execution, for counting inputs (docs/METRICS.md
     * "Inputs"): explicit (component events) or implicit (a read after a
     * write, or the first read, up to the next block). Its writes are
     * inputs while it has read nothing (exec_inputs of them so far). */
    bool exec_open, implicit, wrote;
    uint64_t exec_reads, exec_inputs;
    bins b_exec;
} task_acc;

/* A run, for eq. 1 of the whole trace: its inputs so far and its
 * workers' longest finished span. */
typedef struct run_acc {
    uint64_t inputs;
    uint64_t span_max;
} run_acc;

/* A message written and not read yet, keyed by (run, id). */
typedef struct msg_slot {
    uint64_t msg;
    uint32_t run;
    bool used;
} msg_slot;

struct live_acc {
    mon_periods *periods;     /* the periods and waits, open and closed */
    uint64_t bin_ns;
    uint64_t interval_ns;
    uint64_t events, inputs;
    uint64_t last, first;     /* times: the latest event, the earliest start */
    bool have_first, first_is_start;
    uint32_t runs;
    run_acc *run_tab;         /* by run - 1, for the runs seen (run numbers count up from 1) */
    size_t cap_runs;
    bool has_periods;
    worker_acc *workers;
    size_t n_workers, cap_workers;
    task_acc *tasks;
    size_t n_tasks, cap_tasks;
    mon_key_table task_index;     /* mon_run_id_key -> task index + 1 */
    /* Messages are keyed by (run, 64-bit id), wider than mon_key_table's keys,
     * and are removed when read: a small table of their own. */
    msg_slot *msgs;           /* open addressing, linear probing */
    size_t n_msgs, cap_msgs;
    /* The snapshot's arrays. */
    live_worker *out_workers;
    live_task *out_tasks;
};

/* ---- bins ---- */

/* Make bin k current (resetting those it reuses); false if k is older than
 * the bins kept. */
static bool bins_reach(bins *b, uint64_t k)
{
    if (k + LIVE_BINS <= b->newest)
        return false;
    if (k > b->newest) {
        uint64_t from = k - b->newest >= LIVE_BINS ? k - LIVE_BINS + 1 : b->newest + 1;
        for (uint64_t j = from; j <= k; j++)
            b->v[j % LIVE_BINS] = 0;
        b->newest = k;
    }
    return true;
}

/* Spread the period [from, to) over the bins it overlaps. */
static void bins_add_period(bins *b, uint64_t width, uint64_t from, uint64_t to)
{
    if (to <= from)
        return;
    uint64_t k0 = from / width, k1 = (to - 1) / width;
    if (k1 - k0 >= LIVE_BINS)
        k0 = k1 - LIVE_BINS + 1;
    for (uint64_t k = k0; k <= k1; k++) {
        if (!bins_reach(b, k))
            continue;
        uint64_t lo = k * width > from ? k * width : from;
        uint64_t hi = (k + 1) * width < to ? (k + 1) * width : to;
        b->v[k % LIVE_BINS] += hi - lo;
    }
}

static void bins_add_count(bins *b, uint64_t width, uint64_t at)
{
    if (bins_reach(b, at / width))
        b->v[at / width % LIVE_BINS]++;
}

/* The sum of bins k0..k1. */
static uint64_t bins_sum(const bins *b, uint64_t k0, uint64_t k1)
{
    uint64_t sum = 0;
    for (uint64_t k = k0; k <= k1; k++)
        if (k <= b->newest && k + LIVE_BINS > b->newest)
            sum += b->v[k % LIVE_BINS];
    return sum;
}

/* The length of [from, to) within [lo, hi). */
static uint64_t overlap(uint64_t from, uint64_t to, uint64_t lo, uint64_t hi)
{
    uint64_t a = from > lo ? from : lo, b = to < hi ? to : hi;
    return b > a ? b - a : 0;
}

/* ---- tables ---- */

static int on_interval(void *ctx, const mon_interval *iv);

live_acc *live_acc_new(uint64_t interval_ns)
{
    live_acc *a = calloc(1, sizeof *a);
    mon_period_sink sink = {.ctx = a, .close = on_interval};
    if (!a || !(a->periods = mon_periods_new(&sink))) {
        free(a);
        return NULL;
    }
    a->interval_ns = interval_ns ? interval_ns : 1;
    a->bin_ns = a->interval_ns / LIVE_BINS_PER_INTERVAL;
    if (a->bin_ns == 0)
        a->bin_ns = 1;
    mon_key_table_init(&a->task_index, sizeof(uint32_t));
    return a;
}

void live_acc_free(live_acc *a)
{
    if (!a)
        return;
    for (size_t i = 0; i < a->n_tasks; i++)
        free(a->tasks[i].name);
    free(a->tasks);
    mon_key_table_free(&a->task_index, NULL);
    free(a->workers);
    free(a->run_tab);
    free(a->msgs);
    free(a->out_workers);
    free(a->out_tasks);
    mon_periods_free(a->periods);
    free(a);
}

static size_t hash64(uint64_t key, size_t n) { return (size_t)((key * 0x9e3779b97f4a7c15ull) >> 17) & (n - 1); }

static worker_acc *worker_of(live_acc *a, unsigned w)
{
    if (w >= a->n_workers) {
        if (w > 1u << 20)
            return NULL; /* worker numbers are small: the reader checks them */
        if (KIT_GROW_ZEROED(a->workers, a->cap_workers, (size_t)w + 1))
            return NULL;
        a->n_workers = w + 1;
    }
    return &a->workers[w];
}

/* The task (run, id), created when first seen on worker w. */
static task_acc *task_of(live_acc *a, uint32_t run, uint64_t id, unsigned w)
{
    uint64_t key = mon_run_id_key(run, id);
    uint32_t *index = mon_key_table_get(&a->task_index, key);
    if (!index)
        return NULL;
    if (*index)
        return &a->tasks[*index - 1];
    if (KIT_GROW(a->tasks, a->cap_tasks, a->n_tasks + 1))
        return NULL;
    task_acc *t = &a->tasks[a->n_tasks];
    memset(t, 0, sizeof *t);
    t->key = key;
    t->run = run;
    t->id = id;
    t->worker = w;
    *index = (uint32_t)++a->n_tasks;
    return t;
}

/* ---- messages written and not read yet ---- */

static size_t msg_hash(uint32_t run, uint64_t msg, size_t n)
{
    return hash64(msg ^ (uint64_t)run * 0xc2b2ae3d27d4eb4full, n);
}

static int msgs_grow(live_acc *a)
{
    size_t n = a->cap_msgs ? a->cap_msgs * 2 : 1024;
    msg_slot *slots = calloc(n, sizeof *slots);
    if (!slots)
        return -1;
    for (size_t i = 0; i < a->cap_msgs; i++) {
        if (!a->msgs[i].used)
            continue;
        size_t k = msg_hash(a->msgs[i].run, a->msgs[i].msg, n);
        while (slots[k].used)
            k = (k + 1) & (n - 1);
        slots[k] = a->msgs[i];
    }
    free(a->msgs);
    a->msgs = slots;
    a->cap_msgs = n;
    return 0;
}

static int msgs_add(live_acc *a, uint32_t run, uint64_t msg)
{
    if ((a->n_msgs + 1) * 2 > a->cap_msgs && msgs_grow(a))
        return -1;
    size_t k = msg_hash(run, msg, a->cap_msgs);
    for (; a->msgs[k].used; k = (k + 1) & (a->cap_msgs - 1))
        if (a->msgs[k].msg == msg && a->msgs[k].run == run)
            return 0;
    a->msgs[k] = (msg_slot){msg, run, true};
    a->n_msgs++;
    return 0;
}

/* Remove (run, msg); false if it was not there. Deletion by shifting back
 * the entries of the probe run that follows, so lookups need no markers. */
static bool msgs_take(live_acc *a, uint32_t run, uint64_t msg)
{
    if (!a->cap_msgs)
        return false;
    size_t mask = a->cap_msgs - 1, k = msg_hash(run, msg, a->cap_msgs);
    for (; a->msgs[k].used; k = (k + 1) & mask)
        if (a->msgs[k].msg == msg && a->msgs[k].run == run)
            break;
    if (!a->msgs[k].used)
        return false;
    size_t hole = k;
    for (size_t j = (k + 1) & mask; a->msgs[j].used; j = (j + 1) & mask) {
        size_t home = msg_hash(a->msgs[j].run, a->msgs[j].msg, a->cap_msgs);
        /* j's entry may fill the hole if its home is not in (hole, j]. */
        bool between = hole <= j ? (home > hole && home <= j) : (home > hole || home <= j);
        if (!between) {
            a->msgs[hole] = a->msgs[j];
            hole = j;
        }
    }
    a->msgs[hole].used = false;
    a->n_msgs--;
    return true;
}

/* ---- events ---- */

/* A period or a wait has ended (mon_periods): add it to the totals and
 * the bins of its task and worker. */
static int on_interval(void *ctx, const mon_interval *iv)
{
    live_acc *a = ctx;
    worker_acc *w = worker_of(a, iv->worker);
    if (!w)
        return -1;
    uint64_t d = iv->end - iv->start;
    if (iv->kind == MON_INTERVAL_IDLE) {
        w->wait += d;
        bins_add_period(&w->b_wait, a->bin_ns, iv->start, iv->end);
    } else if (iv->kind == MON_INTERVAL_CPU) {
        w->cpu_known = true;
        w->cpu += iv->cpu;
        w->preempted += iv->preempted;
        w->preemptions += iv->preemptions;
    } else if (iv->kind == MON_INTERVAL_BLOCKED) {
        if (iv->how != MON_END_DISPATCH) /* as the waiting relations count them */
            return 0;
        task_acc *t = task_of(a, iv->run, iv->task, iv->worker);
        if (!t)
            return -1;
        uint64_t blocked = mon_interval_blocked_ns(iv), ready = mon_interval_ready_ns(iv);
        t->blocked += blocked;
        t->ready += ready;
        w->blocked += blocked;
        w->ready += ready;
    } else if (iv->kind == MON_INTERVAL_EXEC) {
        task_acc *t = task_of(a, iv->run, iv->task, iv->worker);
        if (!t)
            return -1;
        t->exec += d;
        bins_add_period(&t->b_exec, a->bin_ns, iv->start, iv->end);
        w->busy += d;
        bins_add_period(&w->b_busy, a->bin_ns, iv->start, iv->end);
    }
    return 0;
}

/* The run's record; NULL when out of memory or the number is implausible
 * (run numbers count up from 1, one after another). */
static run_acc *run_of(live_acc *a, uint32_t run)
{
    if (!run || run > 1u << 20)
        return NULL;
    if (KIT_GROW_ZEROED(a->run_tab, a->cap_runs, (size_t)run))
        return NULL;
    return &a->run_tab[run - 1];
}

/* A worker's log moved on to another run: its span there is over. */
static void new_run(worker_acc *w, uint32_t run)
{
    w->run = run;
    w->started = w->ended = false;
}

static void on_worker_event(live_acc *a, worker_acc *w, const mon_event *ev)
{
    uint64_t t = ev->time;
    switch (ev->kind) {
    case MON_EV_WORKER_START:
        w->started = true;
        w->ended = false;
        w->start = t;
        w->had_span = true;
        if (!a->first_is_start || t < a->first) {
            a->first = t;
            a->first_is_start = a->have_first = true;
        }
        break;
    case MON_EV_WORKER_END:
        if (w->started && !w->ended) {
            w->spans_before += t - w->start;
            bins_add_period(&w->b_alive, a->bin_ns, w->start, t);
            run_acc *r = run_of(a, ev->run);
            if (r && t - w->start > r->span_max)
                r->span_max = t - w->start;
        }
        w->ended = true;
        w->end = t;
        break;
    case MON_EV_WORKER_WAIT:
        w->waits++;
        bins_add_count(&w->b_waits, a->bin_ns, t);
        break;
    default:
        break;
    }
}

static void open_execution(task_acc *t, bool implicit)
{
    t->exec_open = true;
    t->implicit = implicit;
    t->wrote = false;
    t->exec_reads = t->exec_inputs = 0;
}

/* Add n (may be negative) to the inputs of the trace and of the run. */
static void count_inputs(live_acc *a, uint32_t run, int64_t n)
{
    a->inputs += (uint64_t)n;
    run_acc *r = run_of(a, run);
    if (r)
        r->inputs += (uint64_t)n;
}

/* Inputs (docs/METRICS.md): the messages without a parent. A message
 * written outside any component execution, or by one that read nothing
 * (a source box): counted at the write, and taken back should its
 * execution still read something (its reads are every write's parents).
 * A message read that no monitored task wrote: not among those written
 * and not read yet (each message is read once). */
static int on_message(live_acc *a, task_acc *t, const mon_event *ev)
{
    if (ev->kind == MON_EV_MESSAGE_READ) {
        if (!t->exec_open || (t->implicit && t->wrote))
            open_execution(t, true);
        t->exec_reads++;
        count_inputs(a, ev->run, -(int64_t)t->exec_inputs);
        t->exec_inputs = 0;
        if (!msgs_take(a, ev->run, ev->msg))
            count_inputs(a, ev->run, 1);
        return 0;
    }
    if (!t->exec_open || t->exec_reads == 0) {
        count_inputs(a, ev->run, 1);
        t->exec_inputs += t->exec_open;
    }
    t->wrote |= t->exec_open;
    return msgs_add(a, ev->run, ev->msg);
}

static int on_task_event(live_acc *a, task_acc *t, const mon_event *ev)
{
    switch (ev->kind) {
    case MON_EV_TASK_MAP:
        t->worker = ev->worker_mapped;
        free(t->name);
        t->name = strdup(ev->name ? ev->name : "");
        return t->name ? 0 : -1;
    case MON_EV_TASK_DISPATCH:
        t->dispatches++;
        a->has_periods = true;
        return 0;
    case MON_EV_TASK_BLOCK:
    case MON_EV_TASK_YIELD:
    case MON_EV_TASK_DESTROY:
        if (t->implicit)
            t->exec_open = false;
        return 0;
    case MON_EV_COMPONENT_BEGIN:
        open_execution(t, false);
        return 0;
    case MON_EV_COMPONENT_END:
        t->exec_open = false;
        return 0;
    case MON_EV_MESSAGE_READ:
    case MON_EV_MESSAGE_WRITTEN:
        return on_message(a, t, ev);
    default:
        return 0;
    }
}

static bool is_task_event(mon_event_kind k)
{
    switch (k) {
    case MON_EV_TASK_MAP:
    case MON_EV_TASK_DISPATCH:
    case MON_EV_TASK_BLOCK:
    case MON_EV_TASK_YIELD:
    case MON_EV_TASK_DESTROY:
    case MON_EV_COMPONENT_BEGIN:
    case MON_EV_COMPONENT_END:
    case MON_EV_MESSAGE_READ:
    case MON_EV_MESSAGE_WRITTEN:
        return true;
    default:
        return false;
    }
}

int live_acc_feed(live_acc *a, const mon_event *ev)
{
    if (!ev->run) { /* events made by hand: run 1, as the reader numbers runs */
        mon_event copy = *ev;
        copy.run = 1;
        return live_acc_feed(a, &copy);
    }
    a->events++;
    uint32_t run = ev->run;
    int rc = mon_periods_feed(a->periods, ev);
    if (rc)
        return rc;
    if (run > a->runs)
        a->runs = run;
    if (ev->time > a->last)
        a->last = ev->time;
    if (!a->have_first) {
        a->first = ev->time;
        a->have_first = true;
    }
    worker_acc *w = worker_of(a, ev->worker);
    if (!w)
        return -1;
    if (!w->seen || w->run != run) {
        w->seen = true;
        new_run(w, run);
    }
    if (!is_task_event(ev->kind)) {
        on_worker_event(a, w, ev);
        return 0;
    }
    unsigned home = ev->kind == MON_EV_TASK_MAP ? ev->worker_mapped : ev->worker;
    task_acc *t = task_of(a, run, ev->task, home);
    return t ? on_task_event(a, t, ev) : -1;
}

/* ---- snapshot ---- */

static void worker_figures(const live_acc *a, size_t i, uint64_t T, uint64_t lo, uint64_t k0,
                           uint64_t k1, live_worker *o)
{
    const worker_acc *w = &a->workers[i];
    uint64_t hi = T + 1; /* the window [lo, T] as [lo, T + 1) */
    memset(o, 0, sizeof *o);
    o->worker = (unsigned)i;
    o->run = w->run;
    o->has_span = w->had_span;
    bool alive = w->started && !w->ended;
    /* The period or wait it is in now, counted up to T. */
    const mon_interval *now = mon_periods_worker_state(a->periods, (unsigned)i);
    const mon_interval *cur = now && now->kind == MON_INTERVAL_EXEC ? now : NULL;
    const mon_interval *waiting = now && now->kind == MON_INTERVAL_IDLE ? now : NULL;
    o->state = !w->seen                ? "not started"
               : w->ended              ? "ended"
               : cur                   ? "running"
               : waiting               ? "waiting"
               : w->started            ? "scheduling"
                                       : "not started";
    o->span_ns = w->spans_before + (alive ? T - w->start : 0);
    o->busy_ns = w->busy + (cur ? T - cur->start : 0);
    o->wait_ns = w->wait + (waiting ? T - waiting->start : 0);
    o->waits = w->waits;
    o->unaccounted_ns = (int64_t)o->span_ns - (int64_t)o->busy_ns - (int64_t)o->wait_ns;
    o->blocked_ns = w->blocked;
    o->ready_ns = w->ready;
    o->cpu_known = w->cpu_known;
    o->cpu_ns = w->cpu;
    o->preempted_ns = w->preempted;
    o->preemptions = w->preemptions;
    o->win_busy_ns = bins_sum(&w->b_busy, k0, k1) + (cur ? overlap(cur->start, T, lo, hi) : 0);
    o->win_wait_ns =
        bins_sum(&w->b_wait, k0, k1) + (waiting ? overlap(waiting->start, T, lo, hi) : 0);
    o->win_waits = bins_sum(&w->b_waits, k0, k1);
    o->win_alive_ns = w->had_span ? bins_sum(&w->b_alive, k0, k1) +
                                        (alive ? overlap(w->start, T, lo, hi) : 0)
                                  : T - lo;
    o->win_unaccounted_ns =
        (int64_t)o->win_alive_ns - (int64_t)o->win_busy_ns - (int64_t)o->win_wait_ns;
}

/* Eq. 1's denominator so far: one run: the longest worker span; several:
 * each run with inputs its longest worker span (the current run's counted
 * to T), added up (docs/METRICS.md section 2). */
static void throughput_span(const live_acc *a, live_snapshot *out)
{
    if (a->runs <= 1) {
        out->throughput_span_ns = out->span_max_ns;
        return;
    }
    for (uint32_t r = 1; r <= a->runs && r <= a->cap_runs; r++) {
        uint64_t span = a->run_tab[r - 1].span_max;
        for (size_t i = 0; i < a->n_workers; i++) {
            const worker_acc *w = &a->workers[i];
            if (w->run == r && w->started && !w->ended && a->last - w->start > span)
                span = a->last - w->start;
        }
        if (a->run_tab[r - 1].inputs)
            out->throughput_span_ns += span;
        else
            out->runs_without_inputs++;
    }
}

static int by_window_then_total(const void *x, const void *y)
{
    const live_task *a = x, *b = y;
    if (a->win_exec_ns != b->win_exec_ns)
        return a->win_exec_ns > b->win_exec_ns ? -1 : 1;
    if (a->exec_ns != b->exec_ns)
        return a->exec_ns > b->exec_ns ? -1 : 1;
    if (a->run != b->run)
        return a->run < b->run ? -1 : 1;
    return (a->task > b->task) - (a->task < b->task);
}

int live_acc_snapshot(live_acc *a, live_snapshot *out) { return live_acc_snapshot_at(a, 0, out); }

int live_acc_snapshot_at(live_acc *a, uint64_t at, live_snapshot *out)
{
    memset(out, 0, sizeof *out);
    uint64_t T = at > a->last ? at : a->last;
    /* The window: whole bins from the one holding T - interval to T's. */
    uint64_t k1 = T / a->bin_ns;
    uint64_t k0 = T >= a->interval_ns ? (T - a->interval_ns) / a->bin_ns : 0;
    uint64_t lo = k0 * a->bin_ns;
    live_worker *ws = realloc(a->out_workers, (a->n_workers ? a->n_workers : 1) * sizeof *ws);
    if (!ws)
        return -1;
    a->out_workers = ws;
    live_task *ts = realloc(a->out_tasks, (a->n_tasks ? a->n_tasks : 1) * sizeof *ts);
    if (!ts)
        return -1;
    a->out_tasks = ts;
    out->time_ns = T;
    out->latest_ns = a->last;
    out->first_ns = a->first;
    out->window_start_ns = lo;
    out->events = a->events;
    out->inputs = a->inputs;
    out->runs = a->runs;
    out->has_periods = a->has_periods;
    for (size_t i = 0; i < a->n_workers; i++) {
        worker_figures(a, i, T, lo, k0, k1, &ws[i]);
        if (ws[i].has_span && (!out->has_span || ws[i].span_ns > out->span_max_ns)) {
            out->span_max_ns = ws[i].span_ns;
            out->span_worker = ws[i].worker;
        }
        out->has_span |= ws[i].has_span;
    }
    for (size_t i = 0; i < a->n_tasks; i++) {
        const task_acc *t = &a->tasks[i];
        const mon_interval *running = mon_periods_running(a->periods, t->run, t->id);
        ts[i] = (live_task){t->run, t->id, t->name ? t->name : "", t->worker, t->exec,
                            bins_sum(&t->b_exec, k0, k1), t->dispatches, running != NULL,
                            t->blocked, t->ready};
        if (running) {
            ts[i].exec_ns += T - running->start;
            ts[i].win_exec_ns += overlap(running->start, T, lo, T + 1);
        }
    }
    throughput_span(a, out);
    qsort(ts, a->n_tasks, sizeof *ts, by_window_then_total);
    out->n_workers = a->n_workers;
    out->workers = ws;
    out->n_tasks = a->n_tasks;
    out->tasks = ts;
    return 0;
}
