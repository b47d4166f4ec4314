/*
 * mon_periods.c - events into intervals: execution periods, worker waits,
 * tasks blocked on streams and the stretches between CPU-time readings
 * (mon_reader.h, "periods"), the one place that pairs a dispatch with its
 * block, a wait with its resume, a block on a stream with the wake and the
 * dispatch that end it, and a CPU reading with the one before it.
 *
 * State: per worker, the task running there and its open wait; per task
 * with something open, its execution period and its stream wait, in a
 * mon_key_table keyed by (run, task) from which a task leaves as soon as
 * nothing of it is open. So memory follows the tasks running or blocked at one
 * moment, never the length of the trace, which lets `snetmon top` follow a
 * run for hours and a trace larger than memory be read in one pass.
 *
 * Why a lost end closes at "the first event that shows it over" rather
 * than being dropped (the bridge used to overwrite such a period, the
 * exporters too, `top` closed it, the image closed it at any other state of
 * the worker): a worker runs one task at a time and a task runs on one
 * worker, so a dispatch, wait, start or end on that worker, or the task's
 * next dispatch, bounds the period from above; the time up to there is
 * counted, and the interval says MON_END_LOST so that nobody mistakes it
 * for a measured end.
 *
 * Why the time a worker was off its core is charged to the period a
 * reading ends, and only as much as the rest of the stretch cannot hold:
 * the monitor reads a worker's CPU time at the end of a period only once
 * the reading step has passed since the previous reading (mon_cpu.c), so
 * a stretch between readings is the period that ends it plus less than a
 * step of other periods and scheduling. The time lost in the stretch (its
 * length less its idle time less its CPU time) happened somewhere in it;
 * the period was certainly robbed of what is left after the rest of the
 * stretch took all it could. That lower bound never blames a period for
 * another's loss, and misses at most a step of it.
 */
#include "mon_reader.h"

#include "kit.h"

#include <stdlib.h>
#include <string.h>

/* A task with something open: its execution period, its stream wait. */
typedef struct task_slot {
    uint64_t key; /* mon_run_id_key(run, task) */
    bool running, blocked;
    mon_interval exec, wait;
    /* A stream_wake met while the task still ran: its next block's. */
    bool early_wake;
    uint64_t early_at, early_waker, early_stream;
} task_slot;

/* A worker: the task running there (by key), its open wait, and where its
 * current CPU stretch began. */
typedef struct worker_slot {
    bool running, idle;
    uint64_t task_key;
    mon_interval idle_iv;
    bool cpu_base;          /* a reading (or its start) to measure from, of run cpu_run */
    uint32_t cpu_run;
    uint64_t cpu_at;        /* its time */
    uint64_t cpu_ns, cpu_switches; /* the worker's counts then */
    uint64_t idle_ns;       /* idle time since then */
} worker_slot;

struct mon_periods {
    mon_period_sink sink;
    mon_key_table tasks; /* task_slot by key */
    worker_slot *workers;
    size_t n_workers, cap_workers;
};

/* Worker numbers are small (the reader checks them); this bounds the
 * per-worker array against a damaged number all the same. */
#define MON_PERIODS_MAX_WORKER (1u << 20)

static const char *const end_names[MON_END_COUNT] = {
    "open",   "block input", "block output", "block any",    "yield",      "destroy",
    "resume", "dispatch",    "reading",      "lost",         "end of trace", "unmonitored"};

const char *mon_interval_end_name(mon_interval_end how)
{
    return (unsigned)how < MON_END_COUNT ? end_names[how] : "?";
}

mon_periods *mon_periods_new(const mon_period_sink *sink)
{
    mon_periods *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    if (sink)
        p->sink = *sink;
    mon_key_table_init(&p->tasks, sizeof(task_slot));
    return p;
}

void mon_periods_free(mon_periods *p)
{
    if (!p)
        return;
    mon_key_table_free(&p->tasks, NULL);
    free(p->workers);
    free(p);
}

/* ---- the task map ---- */

static task_slot *find_task(const mon_periods *p, uint64_t key)
{
    return mon_key_table_find(&p->tasks, key);
}

/* The task's slot, made empty when new; NULL when out of memory. Moves
 * other slots: pointers from before are stale. */
static task_slot *task_slot_of(mon_periods *p, uint64_t key)
{
    task_slot *s = mon_key_table_get(&p->tasks, key);
    if (s)
        s->key = key;
    return s;
}

/* Forget the task once nothing of it is open (moves other slots). */
static void release_task(mon_periods *p, uint64_t key)
{
    task_slot *s = find_task(p, key);
    if (s && !s->running && !s->blocked)
        mon_key_table_remove(&p->tasks, key);
}

static worker_slot *worker_slot_of(mon_periods *p, unsigned w)
{
    if (w >= p->n_workers) {
        if (w >= MON_PERIODS_MAX_WORKER)
            return NULL;
        if (KIT_GROW_ZEROED(p->workers, p->cap_workers, (size_t)w + 1))
            return NULL;
        p->n_workers = w + 1;
    }
    return &p->workers[w];
}

/* ---- opening and closing ---- */

static int emit(const mon_periods *p, bool opening, const mon_interval *iv)
{
    int (*cb)(void *, const mon_interval *) = opening ? p->sink.open : p->sink.close;
    return cb ? cb(p->sink.ctx, iv) : 0;
}

static int close_interval(const mon_periods *p, mon_interval *iv, uint64_t at,
                          mon_interval_end how)
{
    iv->end = at > iv->start ? at : iv->start;
    iv->how = how;
    return emit(p, false, iv);
}

/* The task's execution period ends at `at`. */
static int close_exec(mon_periods *p, task_slot *s, uint64_t at, mon_interval_end how)
{
    if (!s->running)
        return 0;
    s->running = false;
    s->early_wake = false;
    if (s->exec.worker < p->n_workers) {
        worker_slot *w = &p->workers[s->exec.worker];
        if (w->running && w->task_key == s->key)
            w->running = false;
    }
    mon_interval iv = s->exec;
    return close_interval(p, &iv, at, how);
}

/* The worker's wait ends at `at`; its time counts as idle in the CPU
 * stretch. */
static int close_idle(mon_periods *p, worker_slot *w, uint64_t at, mon_interval_end how)
{
    w->idle = false;
    int rc = close_interval(p, &w->idle_iv, at, how);
    w->idle_ns += w->idle_iv.end - w->idle_iv.start;
    return rc;
}

/* Whatever worker w is in (a task's period, a wait) ends at `at`. */
static int close_worker(mon_periods *p, unsigned worker, uint64_t at, mon_interval_end how)
{
    if (worker >= p->n_workers)
        return 0;
    worker_slot *w = &p->workers[worker];
    int rc = 0;
    if (w->running) {
        uint64_t key = w->task_key;
        task_slot *s = find_task(p, key);
        w->running = false;
        if (s)
            rc = close_exec(p, s, at, how);
        release_task(p, key);
    }
    if (rc == 0 && w->idle)
        rc = close_idle(p, w, at, how);
    return rc;
}

static mon_interval_end stop_reason(const mon_event *ev)
{
    if (ev->kind == MON_EV_TASK_YIELD)
        return MON_END_YIELD;
    if (ev->kind == MON_EV_TASK_DESTROY)
        return MON_END_DESTROY;
    return ev->cause == MON_BLOCK_INPUT    ? MON_END_BLOCK_INPUT
           : ev->cause == MON_BLOCK_OUTPUT ? MON_END_BLOCK_OUTPUT
                                           : MON_END_BLOCK_ANY;
}

/* ---- events ---- */

static int on_dispatch(mon_periods *p, const mon_event *ev)
{
    uint64_t key = mon_run_key(ev, ev->task);
    task_slot *s = find_task(p, key);
    int rc = s ? close_exec(p, s, ev->time, MON_END_LOST) : 0;
    if (rc == 0)
        rc = close_worker(p, ev->worker, ev->time, MON_END_LOST);
    if (rc)
        return rc;
    if (!(s = task_slot_of(p, key)) || !worker_slot_of(p, ev->worker))
        return -1;
    if (s->blocked) {
        s->blocked = false;
        mon_interval iv = s->wait;
        if ((rc = close_interval(p, &iv, ev->time, MON_END_DISPATCH)) != 0)
            return rc;
    }
    s->running = true;
    s->exec = (mon_interval){.kind = MON_INTERVAL_EXEC, .run = ev->run, .worker = ev->worker,
                             .task = ev->task, .start = ev->time};
    worker_slot *w = &p->workers[ev->worker];
    w->running = true; /* close_worker ended its wait */
    w->task_key = key;
    return emit(p, true, &s->exec);
}

static int on_stop(mon_periods *p, const mon_event *ev)
{
    uint64_t key = mon_run_key(ev, ev->task);
    task_slot *s = find_task(p, key);
    if (!s) /* not running: the trace began within its period */
        return 0;
    int rc = close_exec(p, s, ev->time, stop_reason(ev));
    release_task(p, key);
    return rc;
}

/* The wait's wake: the waker moved data through its end of the stream, so
 * it is the task waited for (the block may have named none: the other end
 * was not open yet), and of a poll's streams the one it came through. */
static void take_wake(task_slot *s, uint64_t at, uint64_t waker, uint64_t stream)
{
    s->wait.woken = true;
    s->wait.wake = at;
    s->wait.waker = waker;
    if (!s->wait.channel) {
        s->wait.peer = waker;
        s->wait.stream = stream;
    }
}

/* stream_block, channel_block: the task waits until its next dispatch. The
 * blocks of one poll share a time and extend one wait (the last names the
 * stream, unless a wake already named it); a later block means the
 * dispatch between was lost. */
static int on_block(mon_periods *p, const mon_event *ev)
{
    uint64_t key = mon_run_key(ev, ev->task);
    task_slot *s = task_slot_of(p, key);
    if (!s)
        return -1;
    bool same_poll = s->blocked && s->wait.start == ev->time;
    if (s->blocked && !same_poll) {
        s->blocked = false;
        mon_interval iv = s->wait;
        int rc = close_interval(p, &iv, ev->time, MON_END_LOST);
        if (rc)
            return rc;
    }
    bool channel = ev->kind == MON_EV_CHANNEL_BLOCK;
    uint64_t on = channel ? ev->channel : ev->stream;
    if (same_poll) {
        if (!s->wait.woken) {
            s->wait.stream = on;
            s->wait.peer = ev->peer;
            s->wait.empty = ev->empty;
            s->wait.channel = channel;
        }
        return 0;
    }
    s->blocked = true;
    s->wait = (mon_interval){.kind = MON_INTERVAL_BLOCKED, .run = ev->run, .worker = ev->worker,
                             .task = ev->task, .start = ev->time, .stream = on,
                             .peer = ev->peer, .empty = ev->empty, .channel = channel};
    if (s->early_wake) {
        s->early_wake = false;
        take_wake(s, s->early_at, s->early_waker, s->early_stream);
    }
    return emit(p, true, &s->wait);
}

/* stream_wake: `peer` (the woken task) is ready from now on. A poll
 * registers its task with every stream before the task's block events are
 * stamped, so a writer on another worker can wake it first (seen under
 * load, the blocks stamped milliseconds after the wake): a wake met while
 * the task runs belongs to its next block in that period, which is then
 * ready from its start. */
static void on_wake(mon_periods *p, const mon_event *ev)
{
    task_slot *s = find_task(p, mon_run_key(ev, ev->peer));
    if (!s)
        return;
    if (!s->blocked) {
        if (s->running && !s->early_wake) {
            s->early_wake = true;
            s->early_at = ev->time;
            s->early_waker = ev->task;
            s->early_stream = ev->stream;
        }
        return;
    }
    if (!s->wait.woken)
        take_wake(s, ev->time, ev->task, ev->stream);
}

/* The worker's counts start from 0 at its worker_start (cpu_time values
 * are since then). */
static void cpu_base(worker_slot *w, const mon_event *ev, uint64_t cpu_ns, uint64_t switches)
{
    w->cpu_base = true;
    w->cpu_run = ev->run;
    w->cpu_at = ev->time;
    w->cpu_ns = cpu_ns;
    w->cpu_switches = switches;
    w->idle_ns = 0;
}

/* The time the running period must have lost of a stretch's `lost` ns:
 * what the rest of the stretch (its non-idle time outside the period)
 * cannot hold (see the top of this file). */
static uint64_t period_loss(const task_slot *s, uint64_t at, uint64_t busy, uint64_t lost)
{
    uint64_t elapsed = at > s->exec.start ? at - s->exec.start : 0;
    uint64_t rest = busy > elapsed ? busy - elapsed : 0;
    if (lost <= rest)
        return 0;
    return lost - rest < elapsed ? lost - rest : elapsed;
}

/* cpu_time: the stretch since the worker's previous reading (or start)
 * ends; the running period, which this reading ends, gets its share. */
static int on_cpu(mon_periods *p, const mon_event *ev)
{
    worker_slot *w = worker_slot_of(p, ev->worker);
    if (!w)
        return -1;
    bool measured = w->cpu_base && w->cpu_run == ev->run && ev->time >= w->cpu_at &&
                    ev->cpu_ns >= w->cpu_ns && ev->preemptions >= w->cpu_switches;
    int rc = 0;
    if (measured) {
        uint64_t wall = ev->time - w->cpu_at;
        uint64_t idle = w->idle_ns < wall ? w->idle_ns : wall;
        uint64_t busy = wall - idle, cpu = ev->cpu_ns - w->cpu_ns;
        uint64_t lost = busy > cpu ? busy - cpu : 0;
        task_slot *s = w->running ? find_task(p, w->task_key) : NULL;
        if (s && s->running) {
            s->exec.cpu_known = true;
            s->exec.preempted += period_loss(s, ev->time, busy, lost);
        }
        mon_interval iv = {.kind = MON_INTERVAL_CPU, .run = ev->run, .worker = ev->worker,
                           .start = w->cpu_at, .cpu = cpu, .preempted = lost, .idle = idle,
                           .preemptions = ev->preemptions - (uint32_t)w->cpu_switches};
        rc = close_interval(p, &iv, ev->time, MON_END_READING);
    }
    cpu_base(w, ev, ev->cpu_ns, ev->preemptions);
    return rc;
}

/* worker_start: the worker's CPU counts start. */
static int on_worker_start(mon_periods *p, const mon_event *ev)
{
    int rc = close_worker(p, ev->worker, ev->time, MON_END_LOST);
    worker_slot *w = worker_slot_of(p, ev->worker);
    if (!w)
        return -1;
    cpu_base(w, ev, 0, 0);
    return rc;
}

static int on_worker_wait(mon_periods *p, const mon_event *ev)
{
    int rc = close_worker(p, ev->worker, ev->time, MON_END_LOST);
    if (rc)
        return rc;
    worker_slot *w = worker_slot_of(p, ev->worker);
    if (!w)
        return -1;
    w->idle = true;
    w->idle_iv = (mon_interval){.kind = MON_INTERVAL_IDLE, .run = ev->run, .worker = ev->worker,
                                .start = ev->time};
    return emit(p, true, &w->idle_iv);
}

static int on_worker_resume(mon_periods *p, const mon_event *ev)
{
    if (ev->worker >= p->n_workers || !p->workers[ev->worker].idle)
        return 0;
    return close_idle(p, &p->workers[ev->worker], ev->time, MON_END_RESUME);
}

/* snetmon ctl changed what this worker records: with the task events off,
 * the period running there ends at the mark (its block will not be in the
 * trace), and the next dispatch after they are on again opens the next.
 * With C off, the CPU stretch ends (the monitor took a reading just before
 * the mark): the next reading, taken just after C is on again, starts the
 * next, so that no stretch spans time without readings. */
static int on_control(mon_periods *p, const mon_event *ev)
{
    if (ev->worker >= p->n_workers)
        return 0;
    worker_slot *w = &p->workers[ev->worker];
    if (!(ev->classes & MON_CLASS_CPU))
        w->cpu_base = false;
    if (ev->classes & MON_CLASS_TASK || !w->running)
        return 0;
    uint64_t key = w->task_key;
    task_slot *s = find_task(p, key);
    w->running = false;
    int rc = s ? close_exec(p, s, ev->time, MON_END_UNMONITORED) : 0;
    release_task(p, key);
    return rc;
}

int mon_periods_feed(mon_periods *p, const mon_event *ev)
{
    switch (ev->kind) {
    case MON_EV_TASK_DISPATCH:
        return on_dispatch(p, ev);
    case MON_EV_TASK_BLOCK:
    case MON_EV_TASK_YIELD:
    case MON_EV_TASK_DESTROY:
        return on_stop(p, ev);
    case MON_EV_STREAM_BLOCK:
    case MON_EV_CHANNEL_BLOCK:
        return on_block(p, ev);
    case MON_EV_STREAM_WAKE:
        on_wake(p, ev);
        return 0;
    case MON_EV_WORKER_WAIT:
        return on_worker_wait(p, ev);
    case MON_EV_WORKER_RESUME:
        return on_worker_resume(p, ev);
    case MON_EV_WORKER_START:
        return on_worker_start(p, ev);
    case MON_EV_WORKER_END:
        return close_worker(p, ev->worker, ev->time, MON_END_LOST);
    case MON_EV_CPU_TIME:
        return on_cpu(p, ev);
    case MON_EV_MONITOR_CONTROL:
        return on_control(p, ev);
    default:
        return 0;
    }
}

static int by_key(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

typedef struct key_list {
    uint64_t *keys;
    size_t n;
} key_list;

static void add_blocked(void *ctx, uint64_t key, void *value)
{
    key_list *l = ctx;
    if (((task_slot *)value)->blocked)
        l->keys[l->n++] = key;
}

/* The blocked tasks' waits end with the trace, in (run, task) order. */
static int finish_blocked(mon_periods *p, uint64_t at)
{
    key_list l = {malloc((p->tasks.used ? p->tasks.used : 1) * sizeof *l.keys), 0};
    if (!l.keys)
        return -1;
    mon_key_table_each(&p->tasks, add_blocked, &l);
    uint64_t *keys = l.keys;
    size_t n = l.n;
    qsort(keys, n, sizeof *keys, by_key);
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        task_slot *s = find_task(p, keys[i]);
        s->blocked = false;
        rc = close_interval(p, &s->wait, at, MON_END_TRACE);
        release_task(p, keys[i]);
    }
    free(keys);
    return rc;
}

int mon_periods_finish(mon_periods *p, uint64_t at)
{
    for (size_t w = 0; w < p->n_workers; w++) {
        int rc = close_worker(p, (unsigned)w, at, MON_END_TRACE);
        if (rc)
            return rc;
    }
    return finish_blocked(p, at);
}

/* Where a BLOCKED interval's wake falls, within the interval (the wake is
 * stamped on the waker's worker: clocks of two workers may disagree by a
 * few ticks). */
static uint64_t wake_point(const mon_interval *iv)
{
    if (!iv->woken)
        return iv->end;
    uint64_t w = iv->wake < iv->start ? iv->start : iv->wake;
    return w > iv->end ? iv->end : w;
}

uint64_t mon_interval_blocked_ns(const mon_interval *iv) { return wake_point(iv) - iv->start; }

uint64_t mon_interval_ready_ns(const mon_interval *iv) { return iv->end - wake_point(iv); }

const mon_interval *mon_periods_running(const mon_periods *p, uint32_t run, uint64_t task)
{
    const task_slot *s = find_task(p, mon_run_id_key(run, task));
    return s && s->running ? &s->exec : NULL;
}

const mon_interval *mon_periods_worker_state(const mon_periods *p, unsigned worker)
{
    if (worker >= p->n_workers)
        return NULL;
    const worker_slot *w = &p->workers[worker];
    if (w->idle)
        return &w->idle_iv;
    const task_slot *s = w->running ? find_task(p, w->task_key) : NULL;
    return s && s->running ? &s->exec : NULL;
}
