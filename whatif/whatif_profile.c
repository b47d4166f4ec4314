/*
 * whatif_profile.c - the causal profile (whatif_profile_compute, whatif.h;
 * docs/METRICS.md section 11): for each group of tasks (a kind, a net path,
 * or the tasks a pattern selects) and each X, the run replayed with the
 * group's scalable work X % smaller, and what that predicts for eq. 1 and
 * eq. 2.
 *
 * Eq. 1 comes from the replay: the predicted span is the replay's plus the
 * time the replay does not see in the recorded run (start-up, the
 * operating system's scheduling, waking workers), taken to be the same in
 * every scenario; eq. 2 is a sum of execution times, so it needs no
 * replay: each input's latency less X % of the part of it the group's
 * executions make, which the bridge's lifelines give with the group's
 * executions weighted 1 and the others 0.
 *
 * Why the net paths are bounded and not all replayed: a trace has
 * thousands of them (one per replica), and making a group's work X %
 * smaller can shorten the run by at most about X % of that work; once the
 * work left is too small to enter the ranking, the rest is not replayed.
 */
#include "whatif_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct group {
    whatif_group_kind kind;
    const char *label;    /* points into labels[] or the pattern */
    uint32_t *tasks;
    size_t n;
    double exec_s, work_s;
} group;

typedef struct prof_ctx {
    whatif_model *m;
    const wfb_graph *g;
    whatif_profile *p;
    double *factor;       /* per task */
    char **labels;        /* per task: its net path, "task N" when unnamed */
    /* eq. 2 */
    size_t n_lat;         /* inputs with a latency */
    double *lat;          /* their latencies as recorded */
    double *scratch;
    double *exec_scale;   /* per component execution of g */
    uint32_t *exec_task;  /* per component execution: its model task, UINT32_MAX */
    uint8_t *in_group;    /* per task */
    wfb_error *err;
} prof_ctx;

static void ctx_free(prof_ctx *c)
{
    if (c->labels)
        for (size_t t = 0; t < whatif_model_task_count(c->m); t++)
            free(c->labels[t]);
    free(c->labels);
    free(c->factor);
    free(c->lat);
    free(c->scratch);
    free(c->exec_scale);
    free(c->exec_task);
    free(c->in_group);
}

/* ---- the run as recorded ---------------------------------------------------- */

static int make_labels(prof_ctx *c)
{
    size_t n = whatif_model_task_count(c->m);
    c->labels = calloc(n ? n : 1, sizeof *c->labels);
    if (!c->labels)
        return -1;
    for (size_t t = 0; t < n; t++) {
        const char *name = whatif_model_task_name(c->m, t);
        char buf[64];
        if (c->m->source == WHATIF_SOURCE_ACTIVITIES && c->g)
            name = wfb_vertex_id(c->g, (uint32_t)whatif_model_task_id(c->m, t));
        else if (!name)
            snprintf(buf, sizeof buf, "task %llu",
                     (unsigned long long)whatif_model_task_id(c->m, t));
        if (!(c->labels[t] = strdup(name ? name : buf)))
            return -1;
    }
    return 0;
}

/* Which model task each component execution of g belongs to (by the task's
 * id in the one run). */
static int map_executions(prof_ctx *c)
{
    size_t nx = wfb_exec_count(c->g), nt = whatif_model_task_count(c->m);
    kit_id_map ids = {0};
    c->exec_task = malloc((nx ? nx : 1) * sizeof *c->exec_task);
    c->exec_scale = malloc((nx ? nx : 1) * sizeof *c->exec_scale);
    c->in_group = calloc(nt ? nt : 1, 1);
    if (!c->exec_task || !c->exec_scale || !c->in_group)
        return -1;
    for (size_t t = 0; t < nt; t++)
        if (kit_id_map_put(&ids, whatif_model_task_id(c->m, t), t + 1)) {
            kit_id_map_free(&ids);
            return -1;
        }
    for (size_t i = 0; i < nx; i++) {
        const wfb_exec *x = wfb_exec_at(c->g, i);
        const wfb_task_stats *ts =
            x->task_index == WFB_NONE ? NULL : wfb_task_stats_at(c->g, x->task_index);
        size_t t = 0;
        c->exec_task[i] = ts && ts->run == c->m->run && kit_id_map_get(&ids, ts->task, &t) && t
                              ? (uint32_t)(t - 1)
                              : UINT32_MAX;
    }
    kit_id_map_free(&ids);
    return 0;
}

/* The inputs, eq. 1 and eq. 2 as recorded, from the bridge's metrics. */
static int recorded_figures(prof_ctx *c)
{
    whatif_profile *p = c->p;
    p->latency_mean_s = p->latency_p95_s = p->throughput_per_s = NAN;
    if (c->m->source == WHATIF_SOURCE_ACTIVITIES) {
        p->throughput_unknown_why = "an activity DAG has no inputs: the speedup is its makespan's";
        p->latency_unknown_why = "an activity DAG has no inputs";
        return 0;
    }
    if (!c->g) {
        p->throughput_unknown_why = p->latency_unknown_why = "no message graph to count inputs";
        return 0;
    }
    if (c->m->source != WHATIF_SOURCE_STREAMS && c->m->source != WHATIF_SOURCE_EXECUTIONS)
        return 0;
    wfb_message_report r;
    if (wfb_message_metrics_compute(c->g, NULL, &r, c->err))
        return -1;
    p->inputs = r.total.inputs;
    p->latency_unknown_why = r.total.latency_unknown_why;
    c->lat = malloc((r.n_inputs ? r.n_inputs : 1) * sizeof *c->lat);
    c->scratch = malloc((r.n_inputs ? r.n_inputs : 1) * sizeof *c->scratch);
    if (!c->lat || !c->scratch) {
        wfb_message_report_free(&r);
        return -1;
    }
    for (size_t i = 0; i < r.n_inputs; i++)
        c->lat[i] = wfb_message_lifeline(&r, i).latency_s;
    c->n_lat = r.n_inputs;
    if (!p->latency_unknown_why && r.total.latency.n) {
        p->latency_mean_s = r.total.latency.mean;
        p->latency_p95_s = r.total.latency.p95;
    } else if (!p->latency_unknown_why) {
        p->latency_unknown_why = p->inputs ? "no input reaches a component execution"
                                           : "no inputs (messages without a parent: flag M)";
    }
    wfb_message_report_free(&r);
    if (!p->inputs)
        p->throughput_unknown_why = "no inputs (messages without a parent: flag M)";
    return map_executions(c);
}

/* The replay as recorded against the measured span: what it leaves out. */
static int calibrate(prof_ctx *c)
{
    whatif_profile *p = c->p;
    double replay = whatif_replay(c->m, NULL);
    if (replay < 0) {
        wi_error(c->err, replay == -1 ? "out of memory replaying the run"
                                      : "the replay of the run as recorded does not finish: "
                                        "the trace contradicts itself");
        return -1;
    }
    const char *why;
    p->replay_s = replay;
    p->span_s = whatif_model_measured_span(c->m, &why);
    p->stretch = 1;
    if (isnan(p->span_s)) {
        p->span_s = replay; /* predictions relative to the replay */
        p->span_unknown_why = why;
        if (!p->throughput_unknown_why)
            p->throughput_unknown_why = why;
    } else if (replay > p->span_s && p->span_s > 0) {
        p->stretch = p->span_s / replay;
    } else {
        p->unexplained_s = p->span_s - replay;
    }
    if (!p->throughput_unknown_why && p->inputs && p->span_s > 0)
        p->throughput_per_s = (double)p->inputs / p->span_s;
    p->replays = 1;
    return 0;
}

/* ---- groups --------------------------------------------------------------- */

typedef struct labelled {
    const char *label;
    uint32_t task;
} labelled;

static int by_label(const void *x, const void *y)
{
    const labelled *a = x, *b = y;
    int d = strcmp(a->label, b->label);
    return d ? d : (a->task > b->task) - (a->task < b->task);
}

static void groups_free(group *gs, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(gs[i].tasks);
    free(gs);
}

/* The tasks grouped by a label each: kinds or net paths. */
static int group_by(prof_ctx *c, whatif_group_kind kind, group **out, size_t *nout)
{
    size_t n = whatif_model_task_count(c->m), ng = 0;
    labelled *order = malloc((n ? n : 1) * sizeof *order);
    group *gs = calloc(n ? n : 1, sizeof *gs);
    if (!order || !gs) {
        free(order), free(gs);
        return -1;
    }
    for (size_t t = 0; t < n; t++) {
        const char *l = c->labels[t];
        if (kind == WHATIF_GROUP_KIND)
            l = c->m->source == WHATIF_SOURCE_ACTIVITIES
                    ? (whatif_model_task_name(c->m, t) ? whatif_model_task_name(c->m, t) : l)
                    : mon_task_kind(whatif_model_task_name(c->m, t));
        order[t] = (labelled){l, (uint32_t)t};
    }
    qsort(order, n, sizeof *order, by_label);
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && !strcmp(order[j].label, order[i].label))
            j++;
        group *g = &gs[ng++];
        *g = (group){.kind = kind, .label = order[i].label, .n = j - i};
        if (!(g->tasks = malloc(g->n * sizeof *g->tasks))) {
            free(order);
            groups_free(gs, ng);
            return -1;
        }
        for (size_t k = i; k < j; k++) {
            uint32_t t = order[k].task;
            g->tasks[k - i] = t;
            g->exec_s += whatif_model_task_exec(c->m, t);
            g->work_s += whatif_model_task_work(c->m, t);
        }
        i = j;
    }
    free(order);
    *out = gs;
    *nout = ng;
    return 0;
}

/* The tasks the pattern matches, as one group. */
static int group_matching(prof_ctx *c, const char *pattern, group *out)
{
    wfb_pattern *re;
    if (wfb_pattern_compile(pattern, "tasks", &re, c->err))
        return -1;
    size_t n = whatif_model_task_count(c->m);
    *out = (group){.kind = WHATIF_GROUP_PATTERN, .label = pattern};
    out->tasks = malloc((n ? n : 1) * sizeof *out->tasks);
    if (!out->tasks) {
        wfb_pattern_free(re);
        return wi_error(c->err, "out of memory"), -1;
    }
    for (size_t t = 0; t < n; t++)
        if (wfb_pattern_match(re, c->labels[t])) {
            out->tasks[out->n++] = (uint32_t)t;
            out->exec_s += whatif_model_task_exec(c->m, t);
            out->work_s += whatif_model_task_work(c->m, t);
        }
    wfb_pattern_free(re);
    if (!out->n) {
        free(out->tasks);
        out->tasks = NULL;
        wi_error(c->err, "no task's name matches '%s'", pattern);
        return -1;
    }
    return 0;
}

/* ---- predictions ------------------------------------------------------------ */

/* Eq. 2 with the group's executions X % shorter: each input's latency less
 * X % of the group's part of it. */
static int predict_latency(prof_ctx *c, const group *g, whatif_row *row)
{
    size_t nx = wfb_exec_count(c->g);
    bool any = false;
    for (size_t t = 0; t < whatif_model_task_count(c->m); t++)
        c->in_group[t] = 0;
    for (size_t k = 0; k < g->n; k++)
        c->in_group[g->tasks[k]] = 1;
    for (size_t i = 0; i < nx; i++) {
        uint32_t t = c->exec_task[i];
        c->exec_scale[i] = t != UINT32_MAX && c->in_group[t] ? 1.0 : 0.0;
        any |= c->exec_scale[i] > 0;
    }
    double *part = calloc(c->n_lat ? c->n_lat : 1, sizeof *part);
    if (!part)
        return wi_error(c->err, "out of memory"), -1;
    if (any) { /* the group's part of each latency */
        wfb_message_options mo = {.exec_scale = c->exec_scale};
        wfb_message_report r;
        if (wfb_message_metrics_compute(c->g, &mo, &r, c->err)) {
            free(part);
            return -1;
        }
        for (size_t i = 0; i < r.n_inputs && i < c->n_lat; i++)
            part[i] = wfb_message_lifeline(&r, i).latency_s;
        wfb_message_report_free(&r);
    }
    for (size_t f = 0; f < c->p->n_faster; f++) {
        double x = row->at[f].faster_pct / 100.0;
        size_t n = 0;
        for (size_t i = 0; i < c->n_lat; i++)
            if (!isnan(c->lat[i]))
                c->scratch[n++] = c->lat[i] - x * part[i];
        wfb_summary s;
        wfb_summarise(c->scratch, n, &s);
        row->at[f].latency_mean_s = n ? s.mean : NAN;
        row->at[f].latency_p95_s = n ? s.p95 : NAN;
    }
    free(part);
    return 0;
}

/* The run replayed with the group's work X % smaller. */
static int predict(prof_ctx *c, const group *g, double x_pct, whatif_prediction *out)
{
    whatif_profile *p = c->p;
    size_t nt = whatif_model_task_count(c->m);
    double f = 1.0 - x_pct / 100.0;
    for (size_t t = 0; t < nt; t++)
        c->factor[t] = 1.0;
    for (size_t k = 0; k < g->n; k++)
        c->factor[g->tasks[k]] = f > 0 ? f : 0;
    whatif_scenario s = {.factor = c->factor};
    double r = whatif_replay(c->m, &s);
    p->replays++;
    if (r < 0) {
        wi_error(c->err, r == -1 ? "out of memory replaying the run"
                                 : "the replay did not finish: the trace contradicts itself");
        return -1;
    }
    double span = p->stretch < 1 ? r * p->stretch : r + p->unexplained_s;
    *out = (whatif_prediction){.faster_pct = x_pct,
                               .replay_s = r,
                               .span_s = span,
                               .throughput_per_s = NAN,
                               .speedup = span > 0 ? p->span_s / span : NAN,
                               .latency_mean_s = NAN,
                               .latency_p95_s = NAN};
    if (!p->throughput_unknown_why && span > 0)
        out->throughput_per_s = (double)p->inputs / span;
    return 0;
}

/* The factor the ranking goes by: the largest X in size. */
static size_t rank_factor(const whatif_profile *p)
{
    size_t best = 0;
    for (size_t f = 1; f < p->n_faster; f++)
        if (fabs(p->faster_pct[f]) > fabs(p->faster_pct[best]))
            best = f;
    return best;
}

/* A row for the group: every X replayed, eq. 2 predicted. `known` holds the
 * prediction at rank factor rf already (NULL: none). */
static int make_row(prof_ctx *c, const group *g, const whatif_prediction *known, size_t rf,
                    whatif_row *row)
{
    *row = (whatif_row){.kind = g->kind, .tasks = g->n, .exec_s = g->exec_s,
                        .work_s = g->work_s, .replayed = 1};
    row->label = strdup(g->label);
    row->at = calloc(c->p->n_faster, sizeof *row->at);
    if (!row->label || !row->at)
        return wi_error(c->err, "out of memory"), -1;
    for (size_t f = 0; f < c->p->n_faster; f++) {
        if (known && f == rf)
            row->at[f] = *known;
        else if (predict(c, g, c->p->faster_pct[f], &row->at[f]))
            return -1;
    }
    if (c->n_lat && !c->p->latency_unknown_why)
        return predict_latency(c, g, row);
    return 0;
}

static int by_work_desc(const void *x, const void *y)
{
    const group *a = x, *b = y;
    if (a->work_s != b->work_s)
        return (a->work_s < b->work_s) - (a->work_s > b->work_s);
    return strcmp(a->label, b->label);
}

/* A candidate net path: its prediction at the rank factor. */
typedef struct candidate {
    size_t group;
    whatif_prediction at;
} candidate;

static int by_candidate(const void *x, const void *y)
{
    const candidate *a = x, *b = y;
    double ea = fabs(a->at.speedup - 1.0), eb = fabs(b->at.speedup - 1.0);
    if (ea != eb)
        return (ea < eb) - (ea > eb);
    return (a->group > b->group) - (a->group < b->group);
}

/* A section of the profile: the groups, heaviest work first, replayed at
 * the rank factor; when there are more than `limit`, only until the work
 * left could not enter the first `limit`. Those listed get every X, in
 * the order of their effect. *skipped: the groups not listed. */
static int section_rows(prof_ctx *c, group *gs, size_t ng, size_t limit, size_t *skipped)
{
    whatif_profile *p = c->p;
    size_t rf = rank_factor(p), top = ng < limit ? ng : limit;
    double x = fabs(p->faster_pct[rf]) / 100.0;
    qsort(gs, ng, sizeof *gs, by_work_desc);
    candidate *cand = calloc(top + 1, sizeof *cand);
    if (!cand)
        return wi_error(c->err, "out of memory"), -1;
    size_t nc = 0;
    for (size_t i = 0; i < ng; i++) {
        double bound = x * gs[i].work_s; /* about the most it can move the span */
        double floor_s = nc == top ? fabs(p->span_s - cand[top - 1].at.span_s) : 0;
        if (ng > limit && (bound <= floor_s || bound <= 1e-6 * p->span_s))
            break;
        candidate k = {.group = i};
        if (predict(c, &gs[i], p->faster_pct[rf], &k.at)) {
            free(cand);
            return -1;
        }
        size_t at = nc < top ? nc++ : top; /* the last slot: the one that drops out */
        cand[at] = k;
        qsort(cand, at + 1, sizeof *cand, by_candidate);
    }
    for (size_t i = 0; i < nc; i++)
        if (make_row(c, &gs[cand[i].group], &cand[i].at, rf, &p->rows[p->n_rows++])) {
            free(cand);
            return -1;
        }
    *skipped = ng - nc;
    free(cand);
    return 0;
}

/* Kinds (names of activities) and net paths (activities); a DAG whose
 * activities all have names of their own has the one section. */
static int profile_rows(prof_ctx *c, const whatif_options *opt)
{
    whatif_profile *p = c->p;
    group *kinds = NULL, *paths = NULL;
    size_t nk = 0, np = 0, top = opt && opt->top ? opt->top : WHATIF_TOP;
    size_t klimit = top > WHATIF_KINDS ? top : WHATIF_KINDS;
    int rc = -1;
    if (group_by(c, WHATIF_GROUP_KIND, &kinds, &nk) || group_by(c, WHATIF_GROUP_PATH, &paths, &np) ||
        !(p->rows = calloc(nk + np + 1, sizeof *p->rows))) {
        wi_error(c->err, "out of memory");
        goto out;
    }
    if (section_rows(c, kinds, nk, klimit, &p->kinds_skipped))
        goto out;
    p->n_kinds = p->n_rows;
    rc = c->m->source == WHATIF_SOURCE_ACTIVITIES && nk == np
             ? 0
             : section_rows(c, paths, np, top, &p->paths_skipped);
out:
    groups_free(kinds, nk);
    groups_free(paths, np);
    return rc;
}

static int question_row(prof_ctx *c, const char *pattern)
{
    group g;
    if (group_matching(c, pattern, &g))
        return -1;
    int rc = -1;
    if ((c->p->rows = calloc(1, sizeof *c->p->rows)))
        rc = make_row(c, &g, NULL, 0, &c->p->rows[c->p->n_rows++]);
    else
        wi_error(c->err, "out of memory");
    free(g.tasks);
    return rc;
}

static void set_factors(whatif_profile *p, const whatif_options *opt)
{
    static const double defaults[] = {10, 25, 50, 100};
    if (opt && opt->n_faster) {
        p->n_faster = opt->n_faster < WHATIF_MAX_FACTORS ? opt->n_faster : WHATIF_MAX_FACTORS;
        memcpy(p->faster_pct, opt->faster_pct, p->n_faster * sizeof *p->faster_pct);
    } else {
        p->n_faster = sizeof defaults / sizeof defaults[0];
        memcpy(p->faster_pct, defaults, sizeof defaults);
    }
}

int whatif_profile_compute(whatif_model *m, const wfb_graph *g, const whatif_options *opt,
                           whatif_profile *out, wfb_error *err)
{
    memset(out, 0, sizeof *out);
    err->msg[0] = '\0';
    out->source = m->source;
    set_factors(out, opt);
    prof_ctx c = {.m = m, .g = g, .p = out, .err = err};
    out->tasks = whatif_model_task_count(m);
    for (size_t t = 0; t < out->tasks; t++)
        out->exec_s += whatif_model_task_exec(m, t);
    c.factor = malloc((out->tasks ? out->tasks : 1) * sizeof *c.factor);
    int rc = -1;
    if (!c.factor || make_labels(&c) || recorded_figures(&c)) {
        if (!err->msg[0])
            wi_error(err, "out of memory");
    } else if (!calibrate(&c)) {
        rc = opt && opt->tasks_pattern ? question_row(&c, opt->tasks_pattern)
                                       : profile_rows(&c, opt);
    }
    ctx_free(&c);
    if (rc)
        whatif_profile_free(out);
    return rc;
}

void whatif_profile_free(whatif_profile *p)
{
    for (size_t i = 0; i < p->n_rows; i++) {
        free(p->rows[i].label);
        free(p->rows[i].at);
    }
    free(p->rows);
    p->rows = NULL;
    p->n_rows = p->n_kinds = 0;
}
