/*
 * repo_record.c - a run's record from the workflow bridge's analyses and the
 * trace's run.json (repo.h, part 1). Only copies: every figure comes from a
 * wfb_* analysis, so stored figures are those `snetmon metrics` prints.
 */
#include "repo.h"

#include "mon_reader.h"

#include <ctype.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

/* ---- memory: one arena per record, freed at once ---- */

typedef struct repo_chunk {
    struct repo_chunk *next;
    size_t used, size;
    _Alignas(max_align_t) unsigned char data[];
} repo_chunk;

struct repo_arena {
    repo_chunk *head;
};

void *repo_alloc(repo_run *rec, size_t bytes)
{
    if (!rec->arena && !(rec->arena = calloc(1, sizeof *rec->arena)))
        return NULL;
    size_t need = (bytes + 15) & ~(size_t)15;
    repo_chunk *c = rec->arena->head;
    if (!c || c->size - c->used < need) {
        size_t size = need > 65536 ? need : 65536;
        repo_chunk *n = malloc(sizeof *n + size);
        if (!n)
            return NULL;
        n->next = c;
        n->used = 0;
        n->size = size;
        rec->arena->head = c = n;
    }
    void *p = c->data + c->used;
    c->used += need;
    memset(p, 0, bytes);
    return p;
}

char *repo_strdup(repo_run *rec, const char *s)
{
    if (!s)
        return NULL;
    size_t n = strlen(s) + 1;
    char *d = repo_alloc(rec, n);
    if (d)
        memcpy(d, s, n);
    return d;
}

void repo_run_init(repo_run *rec)
{
    memset(rec, 0, sizeof *rec);
    rec->meta.workers = -1;
    rec->meta.complete = -1;
    rec->paths[WFB_PATH_LONGEST].kind = WFB_PATH_LONGEST;
    rec->paths[WFB_PATH_AS_EXECUTED].kind = WFB_PATH_AS_EXECUTED;
}

void repo_run_free(repo_run *rec)
{
    if (rec->arena) {
        for (repo_chunk *c = rec->arena->head, *next; c; c = next) {
            next = c->next;
            free(c);
        }
        free(rec->arena);
    }
    repo_run_init(rec);
}

/* ---- small helpers ---- */

const repo_figures *repo_figures_of(const repo_run *rec, uint32_t instance)
{
    for (size_t i = 0; i < rec->n_figures; i++)
        if (rec->figures[i].f.run == instance)
            return &rec->figures[i];
    return NULL;
}

static const char *const run_fields[] = {"workers", "git", "program", "host", "format", "flags",
                                         NULL};

bool repo_is_field(const char *key)
{
    for (size_t i = 0; run_fields[i]; i++)
        if (!strcmp(key, run_fields[i]))
            return true;
    return false;
}

const char *repo_field(const repo_run *rec, const char *key, char *buf, size_t len)
{
    const repo_meta *m = &rec->meta;
    if (!strcmp(key, "workers")) {
        if (m->workers < 0)
            return NULL;
        snprintf(buf, len, "%lld", (long long)m->workers);
        return buf;
    }
    const char *v = !strcmp(key, "git")       ? m->git_revision
                    : !strcmp(key, "program") ? m->program
                    : !strcmp(key, "host")    ? m->host
                    : !strcmp(key, "format")  ? m->format
                    : !strcmp(key, "flags")   ? m->flags
                                              : NULL;
    if (!repo_is_field(key))
        for (size_t i = 0; i < m->n_labels && !v; i++)
            if (!strcmp(m->labels[i].key, key))
                v = m->labels[i].value;
    if (!v)
        return NULL;
    snprintf(buf, len, "%s", v);
    return buf;
}

#define RR_ARRAY(rec, ptr, n) ((ptr) = repo_alloc((rec), ((n) ? (n) : 1) * sizeof *(ptr)))

/* ---- metadata ---- */

static void iso_time(time_t t, char *buf, size_t len)
{
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* A command line as its JSON array's text (how a record keeps it). */
static char *command_line_text(repo_run *rec, const mon_run_json *run)
{
    json_t *cl = json_array();
    for (int i = 0; cl && i < run->argc; i++)
        json_array_append_new(cl, json_string(run->argv[i]));
    char *text = cl ? json_dumps(cl, JSON_COMPACT) : NULL;
    char *copy = repo_strdup(rec, text);
    free(text);
    json_decref(cl);
    return copy;
}

/* run.json of a trace directory (mon_run_json_read_trace); absent for
 * event files and old traces: nothing. */
static int read_run_json(repo_run *rec, const char *dir, char *err, size_t errlen)
{
    mon_run_json *run;
    int rc = mon_run_json_read_trace(dir, &run, err, errlen);
    if (rc != 0)
        return rc < 0 ? -1 : 0;
    repo_meta *m = &rec->meta;
    if (run->argv) {
        m->command_line = command_line_text(rec, run);
        const char *argv0 = run->argc ? run->argv[0] : NULL;
        if (argv0) {
            const char *base = strrchr(argv0, '/');
            m->program = repo_strdup(rec, base ? base + 1 : argv0);
        }
    }
    if (run->workers >= 0)
        m->workers = run->workers;
    m->flags = repo_strdup(rec, run->flags);
    m->task_filter = repo_strdup(rec, run->task_filter);
    m->host = repo_strdup(rec, run->host);
    if (!m->git_revision)
        m->git_revision = repo_strdup(rec, run->git_revision);
    if (run->wall_clock_start_ns > 0 && run->wall_clock_start_ns <= INT64_MAX) {
        char iso[40];
        m->start_ns = (int64_t)run->wall_clock_start_ns;
        iso_time((time_t)(m->start_ns / 1000000000), iso, sizeof iso);
        m->start_time = repo_strdup(rec, iso);
    }
    if (run->has_complete)
        m->complete = run->complete;
    mon_run_json_free(run);
    return 0;
}

static int fill_meta(repo_run *rec, const wfb_graph *g, const repo_options *opt, char *err,
                     size_t errlen)
{
    repo_meta *m = &rec->meta;
    char abs[PATH_MAX], stamp[40];
    const char *src = realpath(opt->source, abs) ? abs : opt->source;
    m->source = repo_strdup(rec, src);
    iso_time(time(NULL), stamp, sizeof stamp);
    m->stored_at = repo_strdup(rec, stamp);
    m->git_revision = repo_strdup(rec, opt->git_revision);
    struct stat st;
    bool is_dir = stat(opt->source, &st) == 0 && S_ISDIR(st.st_mode);
    wfb_format format = opt->format != WFB_FORMAT_UNKNOWN ? opt->format
                        : is_dir                           ? WFB_FORMAT_LPEL_TRACE
                                                           : wfb_format_detect(opt->source);
    m->format = repo_strdup(rec, wfb_format_name(format));
    m->instances = wfb_run_count(g);
    m->vertices = (int64_t)wfb_vertex_count(g);
    m->edges = (int64_t)wfb_edge_count(g);
    const wfb_input_loss *loss = wfb_graph_input_loss(g);
    if (loss) {
        char summary[200];
        wfb_input_loss_summary(loss, summary, sizeof summary);
        m->loss = repo_strdup(rec, summary);
    }
    m->n_labels = opt->n_labels;
    RR_ARRAY(rec, m->labels, opt->n_labels);
    for (size_t i = 0; i < opt->n_labels; i++) {
        m->labels[i].key = repo_strdup(rec, opt->labels[i].key);
        m->labels[i].value = repo_strdup(rec, opt->labels[i].value);
    }
    return is_dir ? read_run_json(rec, opt->source, err, errlen) : 0;
}

/* ---- message figures and per-input latencies ---- */

static void copy_figures(repo_run *rec, repo_figures *dst, const wfb_run_figures *src)
{
    dst->f = *src;
    dst->f.span_unknown_why = repo_strdup(rec, src->span_unknown_why);
    dst->f.latency_unknown_why = repo_strdup(rec, src->latency_unknown_why);
    dst->f.throughput_unknown_why = repo_strdup(rec, src->throughput_unknown_why);
    dst->timeout_s = NAN;
    dst->timed_out = dst->missing_events = -1;
}

static int fill_messages(repo_run *rec, const wfb_graph *g, wfb_error *err)
{
    wfb_message_report r;
    if (wfb_message_metrics_compute(g, NULL, &r, err))
        return -1;
    int rc = -1;
    rec->n_figures = 1 + r.n_runs;
    rec->n_inputs = r.n_inputs;
    if (!RR_ARRAY(rec, rec->figures, rec->n_figures) || !RR_ARRAY(rec, rec->inputs, r.n_inputs))
        goto out;
    copy_figures(rec, &rec->figures[0], &r.total);
    rec->figures[0].timeout_s = r.timeout_s;
    rec->figures[0].timed_out = (int64_t)r.n_timed_out;
    rec->figures[0].missing_events = (int64_t)r.n_missing;
    for (size_t i = 0; i < r.n_runs; i++)
        copy_figures(rec, &rec->figures[1 + i], &r.runs[i]);
    for (size_t i = 0; i < r.n_inputs; i++) {
        wfb_lifeline line = wfb_message_lifeline(&r, i);
        const wfb_lifeline *l = &line;
        repo_input *in = &rec->inputs[i];
        in->instance = l->run;
        in->input = repo_strdup(rec, wfb_vertex_id(g, l->input));
        in->latency_s = l->latency_s;
        in->end_to_end_s = l->end_to_end_s;
        in->descendants = l->descendants;
        in->missing_events = l->missing_events;
        in->timed_out = l->timed_out;
    }
    rc = 0;
out:
    wfb_message_report_free(&r);
    if (rc)
        *err = (wfb_error){.msg = "out of memory"};
    return rc;
}

/* ---- runtime tables ---- */

typedef struct task_key {
    uint32_t run;
    uint64_t task;
    size_t index;
} task_key;

static int cmp_task_key(const void *a, const void *b)
{
    const task_key *x = a, *y = b;
    if (x->run != y->run)
        return x->run < y->run ? -1 : 1;
    return x->task < y->task ? -1 : x->task > y->task;
}

static const task_key *find_task(const task_key *keys, size_t n, uint32_t run, uint64_t task)
{
    task_key k = {run, task, 0};
    return bsearch(&k, keys, n, sizeof *keys, cmp_task_key);
}

static void fill_task_times(repo_run *rec, const wfb_graph *g)
{
    for (size_t i = 0; i < wfb_exec_count(g); i++) {
        const wfb_exec *x = wfb_exec_at(g, i);
        if (x->task_index == WFB_NONE || x->task_index >= rec->n_tasks)
            continue;
        repo_task *t = &rec->tasks[x->task_index];
        if (!isnan(x->begin_s) && (isnan(t->first_s) || x->begin_s < t->first_s))
            t->first_s = x->begin_s;
        if (!isnan(x->end_s) && (isnan(t->last_s) || x->end_s > t->last_s))
            t->last_s = x->end_s;
    }
}

static int fill_runtime(repo_run *rec, const wfb_graph *g)
{
    rec->n_workers = wfb_worker_stats_count(g);
    rec->n_tasks = wfb_task_stats_count(g);
    rec->n_waits = wfb_wait_relation_count(g);
    task_key *keys = malloc((rec->n_tasks ? rec->n_tasks : 1) * sizeof *keys);
    if (!keys || !RR_ARRAY(rec, rec->workers, rec->n_workers) ||
        !RR_ARRAY(rec, rec->tasks, rec->n_tasks) || !RR_ARRAY(rec, rec->waits, rec->n_waits)) {
        free(keys);
        return -1;
    }
    for (size_t i = 0; i < rec->n_workers; i++)
        rec->workers[i] = *wfb_worker_stats_at(g, i);
    for (size_t i = 0; i < rec->n_tasks; i++) {
        const wfb_task_stats *s = wfb_task_stats_at(g, i);
        repo_task *t = &rec->tasks[i];
        *t = (repo_task){.instance = s->run, .task = s->task, .name = repo_strdup(rec, s->name),
                       .worker = s->worker, .exec_s = s->exec_s, .dispatches = s->dispatches,
                       .executions = s->executions, .first_s = NAN, .last_s = NAN,
                       .preempted_s = wfb_cpu_known(g) ? s->preempted_s : NAN};
        memcpy(t->blocks, s->blocks, sizeof t->blocks);
        keys[i] = (task_key){s->run, s->task, i};
    }
    qsort(keys, rec->n_tasks, sizeof *keys, cmp_task_key);
    fill_task_times(rec, g);
    for (size_t i = 0; i < rec->n_waits; i++) {
        const wfb_wait_relation *w = wfb_wait_relation_at(g, i);
        repo_wait *r = &rec->waits[i];
        r->w = *w;
        const task_key *a = find_task(keys, rec->n_tasks, w->run, w->waiter);
        const task_key *b = find_task(keys, rec->n_tasks, w->run, w->waited_for);
        if (a) {
            rec->tasks[a->index].wait_s += w->total_s;
            rec->tasks[a->index].ready_s += w->ready_s;
            rec->tasks[a->index].waits += w->count;
            r->waiter_name = rec->tasks[a->index].name;
        }
        if (b)
            r->waited_for_name = rec->tasks[b->index].name;
    }
    free(keys);
    return 0;
}

/* ---- critical paths ---- */

/* Who a path step belongs to: an activity's label (else its id), a data
 * state's producing task, else its label (a sink "deleted", an "external
 * input"). */
static const char *step_owner(const wfb_graph *g, uint32_t v)
{
    if (wfb_vertex_kind_of(g, v) == WFB_VERTEX_ACTIVITY) {
        const char *label = wfb_vertex_attr(g, v, WFB_ATTR_LABEL);
        return label ? label : wfb_vertex_id(g, v);
    }
    const char *origin = wfb_vertex_attr(g, v, WFB_ATTR_ORIGIN);
    return origin ? origin : wfb_vertex_attr(g, v, WFB_ATTR_LABEL); /* "deleted", ... */
}

/* A path of steps (an LPEL trace's as-executed path) is kept as one row
 * per task and kind of step ("run", "ready after occupancy", "idle"), in
 * the order they first appear, with their seconds added up: what the
 * comparison of runs reads (the time per entity kind), without a row per
 * step (docs/REPOSITORY.md). */
static int copy_steps(repo_run *rec, const wfb_graph *g, const wfb_path *p)
{
    enum { KINDS = 3 + 5 }; /* run, idle, ready after each via */
    size_t nt = wfb_task_stats_count(g) + 1, cells = nt * KINDS; /* the last task: none */
    size_t *row_of = malloc(cells * sizeof *row_of);
    repo_path *d = &rec->paths[p->kind];
    /* a row per task and kind of step: as many as there are, not steps */
    if (!row_of || !RR_ARRAY(rec, d->steps, p->n_steps < cells ? p->n_steps : cells)) {
        free(row_of);
        return -1;
    }
    memset(row_of, 0xff, cells * sizeof *row_of);
    d->n = 0;
    for (size_t i = 0; i < p->n_steps; i++) {
        wfb_step step_i = wfb_path_step_at(p, i);
        const wfb_step *s = &step_i;
        size_t task = s->task < nt - 1 ? s->task : nt - 1;
        size_t kind = s->kind == WFB_STEP_READY ? 3 + (size_t)s->via : (size_t)s->kind;
        size_t *at = &row_of[task * KINDS + kind];
        if (*at == SIZE_MAX) {
            char label[64];
            snprintf(label, sizeof label, "%s%s%s", wfb_step_kind_name(s->kind),
                     s->kind == WFB_STEP_READY ? " after " : "",
                     s->kind == WFB_STEP_READY ? wfb_via_name(s->via) : "");
            const char *name = task < nt - 1 ? wfb_task_stats_at(g, task)->name : NULL;
            *at = d->n++;
            d->steps[*at] = (repo_step){repo_strdup(rec, label), repo_strdup(rec, name), 0};
        }
        d->steps[*at].step_s += s->end_s - s->start_s;
    }
    free(row_of);
    return 0;
}

static int copy_path(repo_run *rec, const wfb_graph *g, const wfb_path *p)
{
    repo_path *d = &rec->paths[p->kind];
    d->valid = p->valid;
    d->length_s = p->valid ? p->length_s : NAN;
    if (p->valid && p->n_steps)
        return copy_steps(rec, g, p);
    d->valid = p->valid;
    d->length_s = p->valid ? p->length_s : NAN;
    d->n = p->valid ? p->n : 0;
    if (!RR_ARRAY(rec, d->steps, d->n))
        return -1;
    for (size_t i = 0; i < d->n; i++) {
        uint32_t v = p->vertices[i];
        d->steps[i] = (repo_step){repo_strdup(rec, wfb_vertex_id(g, v)),
                                repo_strdup(rec, step_owner(g, v)), wfb_path_step(g, p, i)};
    }
    return 0;
}

static int fill_paths(repo_run *rec, const wfb_graph *g, wfb_error *err)
{
    wfb_path longest = {0}, executed = {0};
    int rc = wfb_longest_path(g, &longest, err);
    if (rc == 0)
        rc = wfb_as_executed_path(g, &executed, err);
    longest.kind = WFB_PATH_LONGEST;
    executed.kind = WFB_PATH_AS_EXECUTED;
    if (rc == 0 && (copy_path(rec, g, &longest) || copy_path(rec, g, &executed))) {
        *err = (wfb_error){.msg = "out of memory"};
        rc = -1;
    }
    wfb_path_free(&longest);
    wfb_path_free(&executed);
    return rc;
}

/* ---- activity DAGs ---- */

static void copy_activities(repo_run *rec, const wfb_graph *g, const wfb_activity_report *r)
{
    for (size_t i = 0; i < r->n_activities; i++) {
        const wfb_activity_metrics *a = &r->activities[i];
        uint32_t v = a->vertex;
        rec->activities[i] = (repo_activity){
            .id = repo_strdup(rec, wfb_vertex_id(g, v)),
            .label = repo_strdup(rec, wfb_vertex_attr(g, v, WFB_ATTR_LABEL)),
            .resources = repo_strdup(rec, wfb_vertex_attr(g, v, WFB_ATTR_RESOURCES)),
            .submitted_s = wfb_vertex_time(g, v, WFB_T_SUBMITTED),
            .active_s = wfb_vertex_time(g, v, WFB_T_ACTIVE),
            .end_s = wfb_vertex_time(g, v, WFB_T_END),
            .duration_s = wfb_vertex_weight(g, v),
            .response_s = a->response_s,
            .waiting_s = a->waiting_s,
            .processing_s = a->processing_s,
            .failed = wfb_vertex_failed(g, v),
            .not_started = a->not_started};
    }
    for (size_t i = 0; i < r->n_dependencies; i++) {
        const wfb_dependency_metrics *d = &r->dependencies[i];
        rec->dependencies[i] = (repo_dependency){repo_strdup(rec, wfb_vertex_id(g, d->parent)),
                                               repo_strdup(rec, wfb_vertex_id(g, d->child)),
                                               d->sync_delay_s};
    }
    for (size_t i = 0; i < r->n_forks; i++) {
        const wfb_fork_metrics *f = &r->forks[i];
        rec->forks[i] = (repo_fork){repo_strdup(rec, wfb_vertex_id(g, f->fork)),
                                  f->branches,
                                  f->max_s,
                                  f->mean_s,
                                  f->min_s,
                                  f->load_imbalance_s,
                                  f->imbalance_pct,
                                  f->slowdown_factor};
    }
}

static int fill_activities(repo_run *rec, const wfb_graph *g, wfb_error *err)
{
    wfb_activity_report r;
    if (wfb_activity_metrics_compute(g, &r, err))
        return -1;
    rec->n_activities = r.n_activities;
    rec->n_dependencies = r.n_dependencies;
    rec->n_forks = r.n_forks;
    int rc = -1;
    if (RR_ARRAY(rec, rec->activities, r.n_activities) &&
        RR_ARRAY(rec, rec->dependencies, r.n_dependencies) && RR_ARRAY(rec, rec->forks, r.n_forks)) {
        copy_activities(rec, g, &r);
        rec->activity = (repo_activity_figures){
            .activities = r.n_activities,
            .failed = r.n_failed,
            .not_started = r.n_not_started,
            .makespan_s = r.makespan_s,
            .makespan_measured_s = r.makespan_measured_s,
            .makespan_declared = r.makespan_declared,
            .response = r.response,
            .waiting = r.waiting,
            .processing = r.processing,
            .sync_delay = r.sync_delay,
            .load_imbalance = r.load_imbalance,
            .slowdown_factor = r.slowdown_factor};
        rc = 0;
    } else {
        *err = (wfb_error){.msg = "out of memory"};
    }
    wfb_activity_report_free(&r);
    return rc;
}

int repo_run_from_graph(repo_run *rec, const wfb_graph *g, const repo_options *opt, char *err,
                          size_t errlen)
{
    repo_run_init(rec);
    wfb_error e = {0};
    if (fill_meta(rec, g, opt, err, errlen) != 0)
        goto fail_quiet;
    if (fill_messages(rec, g, &e) || fill_paths(rec, g, &e) || fill_activities(rec, g, &e))
        goto fail;
    if (fill_runtime(rec, g) != 0) {
        e = (wfb_error){.msg = "out of memory"};
        goto fail;
    }
    return 0;
fail:
    if (e.file[0] && e.line > 0)
        snprintf(err, errlen, "%s:%ld: %s", e.file, e.line, e.msg);
    else if (e.file[0])
        snprintf(err, errlen, "%s: %s", e.file, e.msg);
    else
        snprintf(err, errlen, "%s", e.msg);
fail_quiet:
    repo_run_free(rec);
    return -1;
}
