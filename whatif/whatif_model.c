/*
 * whatif_model.c - the replay model's storage (whatif_internal.h): tasks,
 * units, steps, streams and the dependencies between events, as the
 * builders add them, put in order once at the end.
 *
 * Why the builders may add steps of many units in any interleaving: a trace
 * delivers the events of all tasks merged in time, and copying them into
 * per-task lists first would hold every step twice. The steps stay in the
 * order they came; finishing sorts them by unit (stably, so each unit's
 * steps keep their order) and renames the dependencies once.
 */
#include "whatif_internal.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void wi_error(wfb_error *err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    err->file[0] = '\0';
    err->line = 0;
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
}

whatif_model *wi_model_new(whatif_source source)
{
    whatif_model *m = calloc(1, sizeof *m);
    if (m) {
        m->source = source;
        m->measured_span_s = NAN;
        m->order = source == WHATIF_SOURCE_STREAMS ? WHATIF_ORDER_FIFO : WHATIF_ORDER_RECORDED;
    }
    return m;
}

uint32_t wi_add_task(whatif_model *m, const char *name, uint64_t id, uint32_t worker)
{
    if (m->n_tasks >= UINT32_MAX - 1 || KIT_GROW(m->tasks, m->cap_tasks, m->n_tasks + 1))
        return UINT32_MAX;
    char *copy = name ? strdup(name) : NULL;
    if (name && !copy)
        return UINT32_MAX;
    m->tasks[m->n_tasks] = (wi_task){.name = copy, .id = id, .worker = worker};
    return (uint32_t)m->n_tasks++;
}

uint32_t wi_add_unit(whatif_model *m, uint32_t task)
{
    if (m->n_units >= UINT32_MAX - 1 || KIT_GROW(m->units, m->cap_units, m->n_units + 1))
        return UINT32_MAX;
    m->units[m->n_units] = (wi_unit){.task = task};
    return (uint32_t)m->n_units++;
}

uint32_t wi_add_step(whatif_model *m, uint32_t unit, wi_step_kind kind, uint32_t stream,
                     double fixed_s, double scaled_s, double t_rec)
{
    if (m->n_steps >= UINT32_MAX - 1 || KIT_GROW(m->steps, m->cap_steps, m->n_steps + 1))
        return UINT32_MAX;
    m->steps[m->n_steps] = (wi_step){.fixed_s = fixed_s, .scaled_s = scaled_s, .t_rec = t_rec,
                                     .unit = unit, .stream = stream, .kind = (uint8_t)kind};
    m->units[unit].end++; /* counts its steps until finish */
    return (uint32_t)m->n_steps++;
}

uint32_t wi_add_stream(whatif_model *m, uint32_t capacity)
{
    if (m->n_streams >= UINT32_MAX - 1 || KIT_GROW(m->streams, m->cap_streams, m->n_streams + 1))
        return UINT32_MAX;
    m->streams[m->n_streams] = (wi_stream){capacity};
    return (uint32_t)m->n_streams++;
}

int wi_add_dep(whatif_model *m, uint32_t from, uint32_t to)
{
    size_t cap = m->cap_pairs;
    if (KIT_GROW(m->pair_from, cap, m->n_pairs + 1))
        return -1;
    if (KIT_GROW(m->pair_to, m->cap_pairs, m->n_pairs + 1)) {
        m->cap_pairs = cap < m->cap_pairs ? cap : m->cap_pairs;
        return -1;
    }
    m->cap_pairs = cap;
    m->pair_from[m->n_pairs] = from;
    m->pair_to[m->n_pairs++] = to;
    return 0;
}

/* The steps sorted by unit, each unit's in the order added; *rename[old] =
 * new index. */
static int sort_steps(whatif_model *m, uint32_t **rename)
{
    size_t n = m->n_steps;
    uint32_t *at = malloc((m->n_units + 1) * sizeof *at);
    uint32_t *to = malloc((n ? n : 1) * sizeof *to);
    wi_step *sorted = malloc((n ? n : 1) * sizeof *sorted);
    if (!at || !to || !sorted) {
        free(at), free(to), free(sorted);
        return -1;
    }
    uint32_t next = 0;
    for (size_t u = 0; u < m->n_units; u++) {
        uint32_t count = m->units[u].end;
        m->units[u].first = at[u] = next;
        next += count;
        m->units[u].end = next;
    }
    for (size_t s = 0; s < n; s++) {
        uint32_t u = m->steps[s].unit;
        to[s] = at[u]++;
        sorted[to[s]] = m->steps[s];
    }
    free(m->steps);
    m->steps = sorted;
    m->cap_steps = n;
    free(at);
    *rename = to;
    return 0;
}

/* Counting sort of the pairs into lists: off[k] .. off[k+1] of list hold
 * other[] for key[] == k. */
static int make_lists(size_t n, size_t npairs, const uint32_t *key, const uint32_t *other,
                      uint32_t **off_out, uint32_t **list_out)
{
    uint32_t *off = calloc(n + 2, sizeof *off);
    uint32_t *list = malloc((npairs ? npairs : 1) * sizeof *list);
    if (!off || !list) {
        free(off), free(list);
        return -1;
    }
    for (size_t i = 0; i < npairs; i++)
        off[key[i] + 2]++;
    for (size_t k = 0; k < n; k++)
        off[k + 2] += off[k + 1];
    for (size_t i = 0; i < npairs; i++)
        list[off[key[i] + 1]++] = other[i];
    *off_out = off;
    *list_out = list;
    return 0;
}

/* The scalable and the whole work of each task. */
static void task_work(whatif_model *m)
{
    for (size_t t = 0; t < m->n_tasks; t++)
        m->tasks[t].work_s = m->tasks[t].exec_s = 0;
    for (size_t s = 0; s < m->n_steps; s++) {
        wi_task *t = &m->tasks[m->units[m->steps[s].unit].task];
        t->work_s += m->steps[s].scaled_s;
        t->exec_s += m->steps[s].scaled_s + m->steps[s].fixed_s;
    }
}

int wi_model_finish(whatif_model *m, unsigned workers)
{
    uint32_t *rename;
    if (sort_steps(m, &rename))
        return -1;
    size_t kept = 0;
    for (size_t i = 0; i < m->n_pairs; i++) {
        uint32_t from = rename[m->pair_from[i]], to = rename[m->pair_to[i]];
        if (m->steps[from].unit == m->steps[to].unit)
            continue; /* a unit's own order says it already */
        m->pair_from[kept] = from;
        m->pair_to[kept++] = to;
    }
    m->n_pairs = kept;
    free(rename);
    for (size_t t = 0; t < m->n_tasks; t++)
        if (m->tasks[t].worker >= workers)
            workers = m->tasks[t].worker + 1;
    m->workers = workers ? workers : 1;
    /* off has n + 2 entries during the sort; the lists use off[0 .. n] */
    if (make_lists(m->n_steps, m->n_pairs, m->pair_to, m->pair_from, &m->dep_off, &m->dep) ||
        make_lists(m->n_steps, m->n_pairs, m->pair_from, m->pair_to, &m->succ_off, &m->succ))
        return -1;
    task_work(m);
    m->finished = true;
    return 0;
}

void whatif_model_free(whatif_model *m)
{
    if (!m)
        return;
    for (size_t t = 0; t < m->n_tasks; t++)
        free(m->tasks[t].name);
    free(m->tasks);
    free(m->units);
    free(m->steps);
    free(m->streams);
    free(m->pair_from);
    free(m->pair_to);
    free(m->dep_off);
    free(m->dep);
    free(m->succ_off);
    free(m->succ);
    free(m->slots);
    free(m->switch_s);
    wi_replay_free(m);
    free(m);
}

size_t whatif_model_task_count(const whatif_model *m)
{
    return m->n_tasks - (m->n_tasks && m->tasks[m->n_tasks - 1].pinned);
}
const char *whatif_model_task_name(const whatif_model *m, size_t t) { return m->tasks[t].name; }
uint64_t whatif_model_task_id(const whatif_model *m, size_t t) { return m->tasks[t].id; }
uint32_t whatif_model_task_worker(const whatif_model *m, size_t t) { return m->tasks[t].worker; }
double whatif_model_task_exec(const whatif_model *m, size_t t) { return m->tasks[t].exec_s; }
double whatif_model_task_work(const whatif_model *m, size_t t) { return m->tasks[t].work_s; }
unsigned whatif_model_workers(const whatif_model *m) { return m->workers; }
whatif_source whatif_model_source(const whatif_model *m) { return m->source; }

double whatif_model_measured_span(const whatif_model *m, const char **why)
{
    if (why)
        *why = m->span_unknown_why;
    return m->measured_span_s;
}

size_t whatif_model_size(const whatif_model *m) { return m->n_steps + m->n_pairs; }
