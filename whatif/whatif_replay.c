/*
 * whatif_replay.c - the replay of a recorded run (whatif_replay, whatif.h):
 * the one replay of the project, for the causal profile (`snetmon whatif`)
 * and the mapping advice's model (docs/METRICS.md sections 9 and 11).
 *
 * Why a replay and not arithmetic on the critical path: shortening one
 * step often moves the path elsewhere, a pipeline goes as fast as its
 * slowest stage, and two tasks sharing a worker take turns. The replay
 * keeps every ordering the run had to respect - an item is read after it
 * was written, written once a slot is free (back-pressure), a task starts
 * once it was created, a worker runs one task at a time - and lets the
 * times change, so what follows from a change is whatever these orderings
 * make of it.
 *
 * A discrete-event simulation: an event heap (a unit's work done, a unit
 * ready again) and one ready heap per core. A unit on a core does its
 * step's work; then its event happens if every event it depends on has
 * (the unit keeps its core and goes on with its next step), else it gives
 * the core up and waits; the event that completes its wait makes it ready,
 * and it happens when the unit is dispatched again. Not preempted, as LPEL
 * tasks are not.
 */
#include "whatif_internal.h"

#include <math.h>
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

enum unit_state { U_QUEUED, U_RUNNING, U_BLOCKED, U_WAITING, U_DONE };

typedef struct unit_run {
    uint32_t pc;      /* the step whose event is next */
    uint32_t pending; /* U_BLOCKED: dependencies not yet happened */
    uint32_t core;
    uint8_t state;
    bool work_done;   /* pc's work is done: only its event is left */
} unit_run;

typedef struct wi_replay_state {
    unit_run *u;
    size_t n_units;
    double *done; /* per step: when its event happened; NAN not yet */
    size_t n_steps;
    heap events;
    heap *ready;  /* per core */
    uint32_t *running, *slots;
    unsigned n_cores;
    uint64_t seq;
    double makespan;
    /* the scenario */
    const whatif_scenario *s;
} wi_replay_state;

/* Event ids: unit * 2 + kind. */
enum { EV_READY = 0, EV_WORK_DONE = 1 };

void wi_replay_free(whatif_model *m)
{
    wi_replay_state *r = m->replay;
    if (!r)
        return;
    free(r->u);
    free(r->done);
    free(r->events.v);
    for (unsigned c = 0; c < r->n_cores; c++)
        free(r->ready[c].v);
    free(r->ready);
    free(r->running);
    free(r->slots);
    free(r);
    m->replay = NULL;
}

static int ensure_state(whatif_model *m, unsigned cores)
{
    wi_replay_state *r = m->replay;
    if (!r && !(r = m->replay = calloc(1, sizeof *r)))
        return -1;
    if (r->n_units < m->n_units) {
        free(r->u);
        if (!(r->u = malloc(m->n_units * sizeof *r->u)))
            return r->n_units = 0, -1;
        r->n_units = m->n_units;
    }
    if (r->n_steps < m->n_steps) {
        free(r->done);
        if (!(r->done = malloc(m->n_steps * sizeof *r->done)))
            return r->n_steps = 0, -1;
        r->n_steps = m->n_steps;
    }
    if (r->n_cores < cores) {
        heap *h = realloc(r->ready, cores * sizeof *h);
        if (!h)
            return -1;
        memset(h + r->n_cores, 0, (cores - r->n_cores) * sizeof *h);
        r->ready = h;
        uint32_t *running = realloc(r->running, cores * sizeof *running);
        if (running)
            r->running = running;
        uint32_t *slots = realloc(r->slots, cores * sizeof *slots);
        if (slots)
            r->slots = slots;
        if (!running || !slots)
            return -1;
        r->n_cores = cores;
    }
    return 0;
}

/* ---- where things run, what they cost ------------------------------------- */

static uint32_t task_worker(const whatif_model *m, const wi_replay_state *r, uint32_t task)
{
    if (r->s && r->s->where && !m->tasks[task].pinned)
        return r->s->where[task];
    return m->tasks[task].worker;
}

static uint32_t unit_worker(const whatif_model *m, const wi_replay_state *r, uint32_t unit)
{
    return task_worker(m, r, m->units[unit].task);
}

static double step_work(const whatif_model *m, const wi_replay_state *r, uint32_t step)
{
    const wi_step *s = &m->steps[step];
    uint32_t task = m->units[s->unit].task;
    double f = r->s && r->s->factor && !m->tasks[task].pinned ? r->s->factor[task] : 1.0;
    return s->fixed_s + f * s->scaled_s;
}

/* When the events `step` waits for let it happen: the latest of them, plus
 * the message cost for one on another worker; *missing counts those that
 * have not happened yet. */
static double available(const whatif_model *m, const wi_replay_state *r, uint32_t step,
                        uint32_t *missing)
{
    double at = 0;
    uint32_t w = unit_worker(m, r, m->steps[step].unit);
    double c = r->s ? r->s->message_cost_s : 0;
    *missing = 0;
    for (uint32_t k = m->dep_off[step]; k < m->dep_off[step + 1]; k++) {
        uint32_t d = m->dep[k];
        if (isnan(r->done[d])) {
            (*missing)++;
            continue;
        }
        double t = r->done[d] + (c > 0 && unit_worker(m, r, m->steps[d].unit) != w ? c : 0);
        if (t > at)
            at = t;
    }
    return at;
}

/* ---- the simulation ----------------------------------------------------- */

static int push_event(wi_replay_state *r, double at, uint32_t unit, int kind)
{
    return heap_push(&r->events, (heap_item){at, r->seq++, unit * 2 + (uint32_t)kind});
}

/* Into its core's ready queue, ordered as the model says. */
static int enqueue(const whatif_model *m, wi_replay_state *r, uint32_t unit, double now)
{
    unit_run *u = &r->u[unit];
    u->state = U_QUEUED;
    double key = m->order == WHATIF_ORDER_FIFO ? now : m->steps[u->pc].t_rec;
    return heap_push(&r->ready[u->core], (heap_item){key, r->seq++, unit});
}

static int step_event(whatif_model *m, wi_replay_state *r, uint32_t unit, double now);

/* The unit takes its core at `now`: its event if only that was left, else
 * the work of its step. */
static int dispatch(whatif_model *m, wi_replay_state *r, uint32_t unit, double now)
{
    unit_run *u = &r->u[unit];
    u->state = U_RUNNING;
    if (m->switch_s)
        now += m->switch_s[unit_worker(m, r, unit)];
    if (u->work_done)
        return step_event(m, r, unit, now);
    return push_event(r, now + step_work(m, r, u->pc), unit, EV_WORK_DONE);
}

/* Free slots of a core take its ready units. */
static int fill_core(whatif_model *m, wi_replay_state *r, uint32_t core, double now)
{
    while (r->running[core] < r->slots[core] && r->ready[core].n) {
        heap_item x = heap_pop(&r->ready[core]);
        r->running[core]++;
        if (dispatch(m, r, x.id, now))
            return -1;
    }
    return 0;
}

static int release(whatif_model *m, wi_replay_state *r, uint32_t unit, double now)
{
    uint32_t core = r->u[unit].core;
    r->running[core]--;
    return fill_core(m, r, core, now);
}

/* Event `step` happened at `now`: the units blocked on it may go on. */
static int notify(whatif_model *m, wi_replay_state *r, uint32_t step, double now)
{
    for (uint32_t k = m->succ_off[step]; k < m->succ_off[step + 1]; k++) {
        uint32_t q = m->succ[k], v = m->steps[q].unit;
        unit_run *u = &r->u[v];
        if (u->state != U_BLOCKED || u->pc != q || --u->pending)
            continue;
        uint32_t missing;
        double at = available(m, r, q, &missing);
        at = at > now ? at : now;
        u->state = U_WAITING;
        if (push_event(r, at, v, EV_READY))
            return -1;
    }
    return 0;
}

/* The unit's event of step pc happens at `now`; it goes on. */
static int happen(whatif_model *m, wi_replay_state *r, uint32_t unit, double now)
{
    unit_run *u = &r->u[unit];
    uint32_t step = u->pc;
    r->done[step] = now;
    if (now > r->makespan)
        r->makespan = now;
    if (notify(m, r, step, now))
        return -1;
    u->work_done = false;
    u->pc++;
    uint8_t kind = m->steps[step].kind;
    if (kind == WI_END || u->pc == m->units[unit].end) {
        u->state = U_DONE;
        return release(m, r, unit, now);
    }
    if (kind == WI_YIELD) {
        if (enqueue(m, r, unit, now))
            return -1;
        r->running[u->core]--;
        return fill_core(m, r, u->core, now);
    }
    return push_event(r, now + step_work(m, r, u->pc), unit, EV_WORK_DONE);
}

/* The unit has done its step's work: its event, or a wait for it. */
static int step_event(whatif_model *m, wi_replay_state *r, uint32_t unit, double now)
{
    unit_run *u = &r->u[unit];
    u->work_done = true;
    uint32_t missing;
    double at = available(m, r, u->pc, &missing);
    if (missing) {
        u->state = U_BLOCKED;
        u->pending = missing;
        return release(m, r, unit, now);
    }
    if (at > now) { /* its items arrive later (the message cost) */
        u->state = U_WAITING;
        if (push_event(r, at, unit, EV_READY))
            return -1;
        return release(m, r, unit, now);
    }
    return happen(m, r, unit, now);
}

/* Every unit at its START: ready, or blocked on what it waits for. */
static int begin(whatif_model *m, wi_replay_state *r, unsigned cores)
{
    for (size_t i = 0; i < m->n_steps; i++)
        r->done[i] = NAN;
    for (unsigned c = 0; c < cores; c++) {
        r->ready[c].n = 0;
        r->running[c] = 0;
        r->slots[c] = m->slots && c < m->workers ? m->slots[c] : 1;
    }
    r->events.n = 0;
    r->seq = 0;
    r->makespan = 0;
    for (uint32_t i = 0; i < m->n_units; i++) {
        unit_run *u = &r->u[i];
        *u = (unit_run){.pc = m->units[i].first, .core = unit_worker(m, r, i) % cores};
        if (u->pc == m->units[i].end) {
            u->state = U_DONE;
            continue;
        }
        uint32_t ndeps = m->dep_off[u->pc + 1] - m->dep_off[u->pc];
        if (ndeps && m->steps[u->pc].kind == WI_START) {
            u->state = U_BLOCKED; /* its START has no work: only its event is left */
            u->work_done = true;
            u->pending = ndeps;
        } else if (enqueue(m, r, i, 0.0)) {
            return -1;
        }
    }
    for (unsigned c = 0; c < cores; c++)
        if (fill_core(m, r, c, 0.0))
            return -1;
    return 0;
}

double whatif_replay(whatif_model *m, const whatif_scenario *s)
{
    unsigned cores = s && s->cores && s->cores < m->workers ? s->cores : m->workers;
    if (!m->finished || ensure_state(m, cores))
        return -1;
    wi_replay_state *r = m->replay;
    r->s = s;
    if (begin(m, r, cores))
        return -1;
    while (r->events.n) {
        heap_item ev = heap_pop(&r->events);
        uint32_t unit = ev.id / 2;
        int rc;
        if (ev.id % 2 == EV_WORK_DONE) {
            rc = step_event(m, r, unit, ev.key);
        } else {
            rc = enqueue(m, r, unit, ev.key);
            if (!rc)
                rc = fill_core(m, r, r->u[unit].core, ev.key);
        }
        if (rc)
            return -1;
    }
    r->s = NULL;
    for (uint32_t i = 0; i < m->n_units; i++)
        if (r->u[i].state != U_DONE)
            return -2; /* it waits for an event that never happens */
    return r->makespan;
}
