/*
 * advice.c - mapping advice (advice.h): from one run of an LPEL trace, how the
 * mapping performed, what the prediction model says of it, and a better
 * mapping when the model predicts one.
 *
 * The communication graph has one vertex per task name (a mapping file
 * places names, so tasks sharing a name move together) weighted by its
 * execution time, and one edge per pair of names that exchanged stream
 * items, weighted by the items. METIS partitions it over the workers; the
 * prediction model (docs/METRICS.md, "Mapping advice") scores the current
 * mapping and every partition METIS returns, and the advice changes the
 * mapping only when the best one is predicted faster by more than min_gain.
 * Why METIS and not a hand-written heuristic: it is a well-kept library
 * whose multilevel partitioning balances vertex weight while cutting few
 * edges, which is exactly the trade-off of a mapping, and the model still
 * has the last word, so a partition that balances badly is never advised.
 *
 * The text report is in advice_report.c, the mapping file writer in
 * advice_map.c; the replay of a run on another placement is the whatif
 * library's (whatif_replay, whatif.h), the one replay of the project.
 */
#include "advice_internal.h"

#include <math.h>
#include <stdbool.h>
#include <metis.h>
#include <stdlib.h>
#include <string.h>

/* Task id -> index among the run's tasks, by binary search. */
typedef struct id_index {
    uint64_t id;
    uint32_t index;
} id_index;

typedef struct advise_ctx {
    const wfb_graph *g;
    advice_result *a;
    size_t nt;                 /* tasks of the run */
    const wfb_task_stats **task;
    uint32_t *group_of;        /* per task: group index, WFB_NONE when unnamed */
    uint32_t *now;             /* per task: the worker it ran on */
    id_index *ids;             /* sorted by id */
    uint32_t *task_of;         /* graph task index -> index here (WFB_NONE: other run) */
    whatif_model *replay;      /* the run's executions, NULL when it has none */
    size_t ns;                 /* streams with both ends known */
    uint32_t *s_writer, *s_reader; /* task indices */
    uint64_t *s_items;
} advise_ctx;

static int by_id(const void *x, const void *y)
{
    const id_index *a = x, *b = y;
    return (a->id > b->id) - (a->id < b->id);
}

static uint32_t task_index(const advise_ctx *c, uint64_t id)
{
    id_index key = {id, 0};
    const id_index *hit = bsearch(&key, c->ids, c->nt, sizeof *c->ids, by_id);
    return hit ? hit->index : WFB_NONE;
}

static void ctx_free(advise_ctx *c)
{
    free(c->task);
    free(c->group_of);
    free(c->now);
    free(c->ids);
    free(c->task_of);
    whatif_model_free(c->replay);
    free(c->s_writer);
    free(c->s_reader);
    free(c->s_items);
}

/* ---- the run's tasks, names and streams ---------------------------------- */

static int collect_tasks(advise_ctx *c, uint32_t run)
{
    const wfb_graph *g = c->g;
    size_t n = 0;
    for (size_t i = 0; i < wfb_task_stats_count(g); i++)
        n += wfb_task_stats_at(g, i)->run == run;
    c->task = calloc(n ? n : 1, sizeof *c->task);
    c->group_of = calloc(n ? n : 1, sizeof *c->group_of);
    c->now = calloc(n ? n : 1, sizeof *c->now);
    c->ids = calloc(n ? n : 1, sizeof *c->ids);
    c->task_of = malloc((wfb_task_stats_count(g) + 1) * sizeof *c->task_of);
    if (!c->task || !c->group_of || !c->now || !c->ids || !c->task_of)
        return -1;
    for (size_t i = 0; i < wfb_task_stats_count(g); i++) {
        const wfb_task_stats *t = wfb_task_stats_at(g, i);
        c->task_of[i] = t->run == run ? (uint32_t)c->nt : WFB_NONE;
        if (t->run != run)
            continue;
        c->ids[c->nt] = (id_index){t->task, (uint32_t)c->nt};
        c->now[c->nt] = t->worker;
        c->task[c->nt++] = t;
    }
    qsort(c->ids, c->nt, sizeof *c->ids, by_id);
    return 0;
}

/* A task to sort by name (unnamed ones last). */
typedef struct named_task {
    const char *name;
    uint32_t index;
} named_task;

static int by_name(const void *x, const void *y)
{
    const named_task *a = x, *b = y;
    if (!a->name || !b->name)
        return (a->name == NULL) - (b->name == NULL);
    int d = strcmp(a->name, b->name);
    return d ? d : (a->index > b->index) - (a->index < b->index);
}

/* Groups the named tasks by name; a group's current worker is the one
 * with most of its execution time. */
static int make_groups(advise_ctx *c)
{
    advice_result *a = c->a;
    named_task *order = malloc((c->nt ? c->nt : 1) * sizeof *order);
    double *per_worker = calloc(a->workers, sizeof *per_worker);
    a->groups = calloc(c->nt ? c->nt : 1, sizeof *a->groups);
    if (!order || !per_worker || !a->groups) {
        free(order);
        free(per_worker);
        return -1;
    }
    for (size_t i = 0; i < c->nt; i++)
        order[i] = (named_task){c->task[i]->name, (uint32_t)i};
    qsort(order, c->nt, sizeof *order, by_name);
    for (size_t i = 0; i < c->nt;) {
        const wfb_task_stats *t = c->task[order[i].index];
        if (!t->name) {
            for (; i < c->nt; i++) {
                c->group_of[order[i].index] = WFB_NONE;
                a->n_unnamed++;
                a->unnamed_exec_s += c->task[order[i].index]->exec_s;
            }
            break;
        }
        advice_group *gr = &a->groups[a->n_groups];
        gr->name = t->name;
        gr->worker_now = t->worker;
        memset(per_worker, 0, a->workers * sizeof *per_worker);
        size_t j = i;
        for (; j < c->nt && c->task[order[j].index]->name &&
               !strcmp(c->task[order[j].index]->name, t->name); j++) {
            const wfb_task_stats *u = c->task[order[j].index];
            c->group_of[order[j].index] = (uint32_t)a->n_groups;
            gr->tasks++;
            gr->exec_s += u->exec_s;
            per_worker[u->worker] += u->exec_s;
            if (u->worker != t->worker)
                gr->split_now = 1;
        }
        for (unsigned w = 0; w < a->workers; w++)
            if (per_worker[w] > per_worker[gr->worker_now])
                gr->worker_now = w;
        gr->worker_advised = gr->worker_now;
        a->n_groups++;
        i = j;
    }
    free(order);
    free(per_worker);
    return 0;
}

static int collect_streams(advise_ctx *c, uint32_t run)
{
    const wfb_graph *g = c->g;
    size_t n = wfb_stream_stats_count(g);
    c->s_writer = malloc((n ? n : 1) * sizeof *c->s_writer);
    c->s_reader = malloc((n ? n : 1) * sizeof *c->s_reader);
    c->s_items = malloc((n ? n : 1) * sizeof *c->s_items);
    if (!c->s_writer || !c->s_reader || !c->s_items)
        return -1;
    for (size_t i = 0; i < n; i++) {
        const wfb_stream_stats *s = wfb_stream_stats_at(g, i);
        if (s->run != run)
            continue;
        c->a->n_streams++;
        c->a->items += s->writes;
        uint32_t w = task_index(c, s->writer), r = task_index(c, s->reader);
        if (w == WFB_NONE || r == WFB_NONE)
            continue;
        c->s_writer[c->ns] = w;
        c->s_reader[c->ns] = r;
        c->s_items[c->ns++] = s->writes;
    }
    c->a->streams_known = c->a->n_streams > 0;
    return 0;
}

/* ---- measured figures ------------------------------------------------------ */

static void measured_workers(advise_ctx *c, uint32_t run)
{
    advice_result *a = c->a;
    a->measured_span_s = NAN;
    for (unsigned w = 0; w < a->workers; w++)
        a->per_worker[w] = (advice_worker){.span_s = NAN, .busy_s = NAN, .wait_s = NAN,
                                           .cpu_s = NAN, .preempted_s = NAN};
    for (size_t i = 0; i < wfb_worker_stats_count(c->g); i++) {
        const wfb_worker_stats *s = wfb_worker_stats_at(c->g, i);
        if (s->run != run || s->worker >= a->workers)
            continue;
        advice_worker *w = &a->per_worker[s->worker];
        w->span_s = wfb_worker_span(s);
        w->busy_s = s->busy_s;
        w->wait_s = s->wait_s;
        w->waits = s->waits;
        w->blocked_s = s->blocked_s;
        w->ready_s = s->ready_s;
        w->cpu_s = s->cpu_s;
        w->preempted_s = s->preempted_s;
        if (!isnan(w->span_s) && !(w->span_s <= a->measured_span_s))
            a->measured_span_s = w->span_s;
    }
}

static int by_total_desc(const void *x, const void *y)
{
    const advice_wait *a = x, *b = y;
    return (a->total_s < b->total_s) - (a->total_s > b->total_s);
}

/* The waiting relations of the run: seconds per pair of workers, and the
 * largest relations. */
static void measured_waits(advise_ctx *c, uint32_t run)
{
    advice_result *a = c->a;
    for (size_t i = 0; i < wfb_wait_relation_count(c->g); i++) {
        const wfb_wait_relation *r = wfb_wait_relation_at(c->g, i);
        if (r->run != run)
            continue;
        uint32_t x = task_index(c, r->waiter), y = task_index(c, r->waited_for);
        if (x == WFB_NONE)
            continue;
        advice_wait w = {c->task[x]->name, y == WFB_NONE ? NULL : c->task[y]->name,
                         c->now[x], y == WFB_NONE ? WFB_NONE : c->now[y], r->on_empty,
                         r->count, r->total_s, r->ready_s};
        if (y == WFB_NONE)
            continue;
        a->waited_s[(size_t)c->now[x] * a->workers + c->now[y]] += r->total_s;
        if (c->now[x] == c->now[y])
            continue;
        /* the largest few across workers: insert into the sorted short list */
        if (a->n_top_waits < ADVICE_TOP_WAITS) {
            a->top_waits[a->n_top_waits++] = w;
        } else if (w.total_s > a->top_waits[ADVICE_TOP_WAITS - 1].total_s) {
            a->top_waits[ADVICE_TOP_WAITS - 1] = w;
        } else {
            continue;
        }
        qsort(a->top_waits, a->n_top_waits, sizeof *a->top_waits, by_total_desc);
    }
}

/* The heaviest names, by execution time, largest first. */
static void heaviest_groups(advice_result *a)
{
    for (size_t i = 0; i < a->n_groups; i++) {
        size_t k = a->n_top_groups;
        if (k == ADVICE_TOP_GROUPS) {
            if (a->groups[i].exec_s <= a->groups[a->top_groups[k - 1]].exec_s)
                continue;
            k--;
        } else {
            a->n_top_groups++;
        }
        for (; k > 0 && a->groups[a->top_groups[k - 1]].exec_s < a->groups[i].exec_s; k--)
            a->top_groups[k] = a->top_groups[k - 1];
        a->top_groups[k] = i;
    }
}

/* ---- the prediction model -------------------------------------------------- */

/* T(p) = max(max over cores of the load + c * cross of its workers, the
 * replay S(p), L) for the placement `where` (a worker per task); fills the
 * per-worker loads and crossings, and the replay when asked. */
static double predict(const advise_ctx *c, const uint32_t *where, double *load, uint64_t *cross,
                      uint64_t *cross_items, double *replay)
{
    const advice_result *a = c->a;
    memset(load, 0, a->workers * sizeof *load);
    memset(cross, 0, a->workers * sizeof *cross);
    uint64_t total = 0;
    for (size_t t = 0; t < c->nt; t++)
        load[where[t]] += c->task[t]->exec_s;
    for (size_t s = 0; s < c->ns; s++) {
        uint32_t w = where[c->s_writer[s]], r = where[c->s_reader[s]];
        if (w != r) {
            cross[w] += c->s_items[s];
            cross[r] += c->s_items[s];
            total += c->s_items[s];
        }
    }
    /* the cores' time: the workers that share a core share its time */
    double worst = isnan(a->critical_path_s) ? 0.0 : a->critical_path_s;
    for (unsigned k = 0; k < a->cores; k++) {
        double core = 0;
        for (unsigned w = k; w < a->workers; w += a->cores)
            core += load[w] + a->message_cost_s * (double)cross[w];
        worst = fmax(worst, core);
    }
    if (cross_items)
        *cross_items = total;
    whatif_scenario sc = {.where = where, .cores = a->cores, .message_cost_s = a->message_cost_s};
    double s = c->replay ? whatif_replay(c->replay, &sc) : NAN;
    if (replay)
        *replay = s >= 0 ? s : NAN;
    return s > worst ? s : worst;
}

/* The task placement of a placement of names (unnamed tasks stay). */
static void expand(const advise_ctx *c, const uint32_t *group_worker, uint32_t *where)
{
    for (size_t t = 0; t < c->nt; t++)
        where[t] = c->group_of[t] == WFB_NONE ? c->now[t] : group_worker[c->group_of[t]];
}

/* ---- partitioning -------------------------------------------------------------- */

typedef struct csr {
    idx_t n;
    idx_t *xadj, *adjncy, *vwgt, *adjwgt;
} csr;

static void csr_free(csr *m)
{
    free(m->xadj);
    free(m->adjncy);
    free(m->vwgt);
    free(m->adjwgt);
}

typedef struct pair_items {
    uint32_t a, b; /* a < b */
    uint64_t items;
} pair_items;

static int by_pair(const void *x, const void *y)
{
    const pair_items *p = x, *q = y;
    if (p->a != q->a)
        return (p->a > q->a) - (p->a < q->a);
    return (p->b > q->b) - (p->b < q->b);
}

/* The communication graph of the names, with integer weights: execution
 * time in units that keep the total below 10^8, items scaled the same way. */
static int build_csr(const advise_ctx *c, csr *m)
{
    const advice_result *a = c->a;
    size_t n = a->n_groups, np = 0;
    pair_items *pairs = malloc((c->ns ? c->ns : 1) * sizeof *pairs);
    m->n = (idx_t)n;
    m->xadj = calloc(n + 1, sizeof *m->xadj);
    m->vwgt = malloc((n ? n : 1) * sizeof *m->vwgt);
    if (!pairs || !m->xadj || !m->vwgt) {
        free(pairs);
        return -1;
    }
    double unit = fmax(1e-6, a->exec_s / 1e8);
    for (size_t i = 0; i < n; i++)
        m->vwgt[i] = (idx_t)fmax(1.0, llround(a->groups[i].exec_s / unit));
    for (size_t s = 0; s < c->ns; s++) {
        uint32_t x = c->group_of[c->s_writer[s]], y = c->group_of[c->s_reader[s]];
        if (x == WFB_NONE || y == WFB_NONE || x == y)
            continue;
        /* An unused stream still ties its ends together (one entity's
         * tasks), so every stream weighs its items plus one. */
        pairs[np++] = (pair_items){x < y ? x : y, x < y ? y : x, c->s_items[s] + 1};
    }
    qsort(pairs, np, sizeof *pairs, by_pair);
    size_t merged = 0;
    uint64_t total = 0;
    for (size_t i = 0; i < np; i++) {
        if (merged && pairs[merged - 1].a == pairs[i].a && pairs[merged - 1].b == pairs[i].b)
            pairs[merged - 1].items += pairs[i].items;
        else
            pairs[merged++] = pairs[i];
        total += pairs[i].items;
    }
    double eunit = fmax(1.0, (double)total / 1e8);
    m->adjncy = malloc((merged ? 2 * merged : 1) * sizeof *m->adjncy);
    m->adjwgt = malloc((merged ? 2 * merged : 1) * sizeof *m->adjwgt);
    idx_t *fill = calloc(n + 1, sizeof *fill);
    if (!m->adjncy || !m->adjwgt || !fill) {
        free(pairs);
        free(fill);
        return -1;
    }
    for (size_t i = 0; i < merged; i++) {
        m->xadj[pairs[i].a + 1]++;
        m->xadj[pairs[i].b + 1]++;
    }
    for (size_t i = 0; i < n; i++)
        m->xadj[i + 1] += m->xadj[i];
    for (size_t i = 0; i < merged; i++) {
        idx_t w = (idx_t)fmax(1.0, llround((double)pairs[i].items / eunit));
        idx_t pa = m->xadj[pairs[i].a] + fill[pairs[i].a]++;
        idx_t pb = m->xadj[pairs[i].b] + fill[pairs[i].b]++;
        m->adjncy[pa] = (idx_t)pairs[i].b;
        m->adjwgt[pa] = w;
        m->adjncy[pb] = (idx_t)pairs[i].a;
        m->adjwgt[pb] = w;
    }
    free(pairs);
    free(fill);
    return 0;
}

/* Whether the graph is connected (METIS refuses contiguous parts of a
 * graph that is not). */
static bool connected(const csr *m)
{
    if (m->n == 0)
        return true;
    idx_t *stack = malloc((size_t)m->n * sizeof *stack);
    char *seen = calloc((size_t)m->n, 1);
    idx_t top = 0, reached = 1;
    if (!stack || !seen) {
        free(stack);
        free(seen);
        return false;
    }
    stack[top++] = 0;
    seen[0] = 1;
    while (top) {
        idx_t v = stack[--top];
        for (idx_t e = m->xadj[v]; e < m->xadj[v + 1]; e++)
            if (!seen[m->adjncy[e]]) {
                seen[m->adjncy[e]] = 1;
                stack[top++] = m->adjncy[e];
                reached++;
            }
    }
    free(stack);
    free(seen);
    return reached == m->n;
}

/* Renames the parts so that as much execution time as possible stays on
 * its current worker (the model does not care which part is which worker;
 * a user does: fewer tasks move). Greedy over the largest overlaps. */
static void relabel(const advice_result *a, const idx_t *part, uint32_t *group_worker)
{
    unsigned k = a->workers;
    double *overlap = calloc((size_t)k * k, sizeof *overlap);
    int *part_to = malloc(k * sizeof *part_to);
    char *worker_used = calloc(k, 1);
    if (!overlap || !part_to || !worker_used) {
        for (size_t i = 0; i < a->n_groups; i++)
            group_worker[i] = (uint32_t)part[i];
        free(overlap);
        free(part_to);
        free(worker_used);
        return;
    }
    for (size_t i = 0; i < a->n_groups; i++)
        overlap[(size_t)part[i] * k + a->groups[i].worker_now] +=
            a->groups[i].exec_s + 1e-9; /* names without time still count a little */
    for (unsigned p = 0; p < k; p++)
        part_to[p] = -1;
    for (unsigned round = 0; round < k; round++) {
        double best = -1;
        unsigned bp = 0, bw = 0;
        for (unsigned p = 0; p < k; p++)
            for (unsigned w = 0; w < k; w++)
                if (part_to[p] < 0 && !worker_used[w] && overlap[(size_t)p * k + w] > best) {
                    best = overlap[(size_t)p * k + w];
                    bp = p;
                    bw = w;
                }
        part_to[bp] = (int)bw;
        worker_used[bw] = 1;
    }
    for (size_t i = 0; i < a->n_groups; i++)
        group_worker[i] = (uint32_t)part_to[part[i]];
    free(overlap);
    free(part_to);
    free(worker_used);
}

/* The partitions found, each scored by the model. */
typedef struct candidate {
    uint32_t *group_worker;
    double predicted;
    uint64_t cross;    /* items crossing workers */
    double moved_exec; /* execution time of the names that move */
    char what[96];
} candidate;

typedef struct candidates {
    candidate *c;
    size_t n, cap;
} candidates;

static void candidates_free(candidates *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->c[i].group_worker);
    free(l->c);
}

static double moved_exec(const advice_result *a, const uint32_t *group_worker)
{
    double m = 0;
    for (size_t i = 0; i < a->n_groups; i++)
        if (group_worker[i] != a->groups[i].worker_now || a->groups[i].split_now)
            m += a->groups[i].exec_s;
    return m;
}

/* Scores a placement of the names and adds it to the list. */
static int consider(const advise_ctx *c, const uint32_t *group_worker, const char *what,
                    uint32_t *where, double *load, uint64_t *cross, candidates *l)
{
    size_t n = c->a->n_groups ? c->a->n_groups : 1;
    if (KIT_GROW(l->c, l->cap, l->n + 1))
        return -1;
    candidate *k = &l->c[l->n];
    if (!(k->group_worker = malloc(n * sizeof *k->group_worker)))
        return -1;
    l->n++;
    memcpy(k->group_worker, group_worker, c->a->n_groups * sizeof *group_worker);
    expand(c, group_worker, where);
    k->predicted = predict(c, where, load, cross, &k->cross, NULL);
    k->moved_exec = moved_exec(c->a, group_worker);
    snprintf(k->what, sizeof k->what, "%s", what);
    return 0;
}

/* The best candidate: the smallest predicted time; among those within
 * ADVICE_NEAR_TIE of it, the fewest items crossing workers, then the
 * least execution time moved (docs/METRICS.md). NULL when none. */
#define ADVICE_NEAR_TIE 0.01
static const candidate *choose(const candidates *l)
{
    const candidate *best = NULL, *pick = NULL;
    for (size_t i = 0; i < l->n; i++)
        if (!best || l->c[i].predicted < best->predicted)
            best = &l->c[i];
    for (size_t i = 0; best && i < l->n; i++) {
        const candidate *k = &l->c[i];
        if (k->predicted > best->predicted * (1 + ADVICE_NEAR_TIE))
            continue;
        if (!pick || k->cross < pick->cross ||
            (k->cross == pick->cross && k->moved_exec < pick->moved_exec))
            pick = k;
    }
    return pick;
}

/* One METIS call; 1 when it produced a partition into part. */
static int metis(const csr *m, unsigned workers, int method, int ufactor, int contig, idx_t *part)
{
    idx_t options[METIS_NOPTIONS], ncon = 1, nparts = (idx_t)workers, cut, nv = m->n;
    METIS_SetDefaultOptions(options);
    options[METIS_OPTION_SEED] = 1;
    options[METIS_OPTION_NUMBERING] = 0;
    options[METIS_OPTION_UFACTOR] = ufactor;
    if (method == 1)
        options[METIS_OPTION_CONTIG] = contig;
    int rc = method == 0 ? METIS_PartGraphRecursive(&nv, &ncon, m->xadj, m->adjncy, m->vwgt, NULL,
                                                    m->adjwgt, &nparts, NULL, NULL, options, &cut,
                                                    part)
                         : METIS_PartGraphKway(&nv, &ncon, m->xadj, m->adjncy, m->vwgt, NULL,
                                               m->adjwgt, &nparts, NULL, NULL, options, &cut, part);
    return rc == METIS_OK;
}

/* The number of placements of the names when scoring every one of them is
 * cheap (at most 2^16 placements, 5 * 10^7 task and stream visits in all);
 * 0 otherwise. */
static double exhaustive_size(const advise_ctx *c)
{
    double placements = pow((double)c->a->workers, (double)c->a->n_groups);
    double visits = (double)(c->nt + c->ns) + (c->replay ? 3.0 * (double)whatif_model_size(c->replay) : 0);
    if (placements > 65536 || placements * visits > 5e7)
        return 0;
    return placements;
}

/* The next placement in counting order (base `workers`); false after the last. */
static bool next_placement(uint32_t *gw, size_t n, unsigned workers)
{
    for (size_t i = 0; i < n; i++) {
        if (++gw[i] < workers)
            return true;
        gw[i] = 0;
    }
    return false;
}

/* Few names: every placement is scored, and the best by the rule of
 * choose() becomes the one candidate (an exact optimum of the model, where
 * METIS, made for large graphs, can miss it). */
static int exhaustive(const advise_ctx *c, uint32_t *gw, uint32_t *where, double *load,
                      uint64_t *cross, candidates *l)
{
    const advice_result *a = c->a;
    size_t n = a->n_groups;
    double best = -1, pick_moved = 0;
    uint64_t pick_cross = 0;
    bool have = false;
    uint32_t *pick = malloc((n ? n : 1) * sizeof *pick);
    if (!pick)
        return -1;
    for (int pass = 0; pass < 2; pass++) {
        memset(gw, 0, n * sizeof *gw);
        do {
            uint64_t x;
            expand(c, gw, where);
            double t = predict(c, where, load, cross, &x, NULL);
            if (pass == 0) {
                if (best < 0 || t < best)
                    best = t;
                continue;
            }
            if (t > best * (1 + ADVICE_NEAR_TIE))
                continue;
            double moved = moved_exec(a, gw);
            if (have && (x > pick_cross || (x == pick_cross && moved >= pick_moved)))
                continue;
            have = true;
            pick_cross = x;
            pick_moved = moved;
            memcpy(pick, gw, n * sizeof *gw);
        } while (next_placement(gw, n, a->workers));
    }
    char what[96];
    snprintf(what, sizeof what, "every placement of the %zu names scored", n);
    int rc = consider(c, pick, what, where, load, cross, l);
    free(pick);
    return rc;
}

/* The length of a name's family prefix: up to and including its first
 * replica component (I<v> of a split, R<i> of a star: "S2:I17" of
 * "S2:I17:R0:S1:P0:mc.vcall"), the whole name when it has none. A family
 * is one record's own copy of a sub-network; its tasks pass records to
 * each other all the time, so they move together. */
static size_t family_len(const char *name)
{
    for (const char *p = name; *p;) {
        const char *end = strchr(p, ':');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len >= 2 && (p[0] == 'I' || p[0] == 'R') &&
            (p[1] == '-' || (p[1] >= '0' && p[1] <= '9')))
            return (size_t)(p - name) + len;
        if (!end)
            break;
        p = end + 1;
    }
    return strlen(name);
}

typedef struct family_ref {
    const char *name;
    size_t len, group;
} family_ref;

static int by_family(const void *x, const void *y)
{
    const family_ref *a = x, *b = y;
    size_t n = a->len < b->len ? a->len : b->len;
    int c = memcmp(a->name, b->name, n);
    if (c)
        return c;
    return (a->len > b->len) - (a->len < b->len);
}

/* A partition balanced further by moving whole families (family_len).
 * METIS keeps to its tolerance on the graph's weights, but the parts it
 * can cut may leave one worker well above the mean. Each step moves, from
 * the most to the least loaded worker, the family that leaves the larger
 * of the two loads smallest, as long as that load goes down; a family
 * split over workers is not moved. The model then judges the result like
 * any other candidate. Returns the number of families moved. */
static size_t balance_moves(const advice_result *a, uint32_t *gw)
{
    size_t n = a->n_groups, nf = 0, moved = 0;
    unsigned k = a->workers;
    family_ref *ref = malloc((n ? n : 1) * sizeof *ref);
    size_t *fam = malloc((n ? n : 1) * sizeof *fam);        /* group -> family */
    double *fexec = calloc(n ? n : 1, sizeof *fexec);       /* family -> exec */
    uint32_t *fworker = malloc((n ? n : 1) * sizeof *fworker); /* UINT32_MAX: split */
    double *load = calloc(k ? k : 1, sizeof *load);
    if (!ref || !fam || !fexec || !fworker || !load || k < 2)
        goto out;
    for (size_t i = 0; i < n; i++)
        ref[i] = (family_ref){a->groups[i].name, family_len(a->groups[i].name), i};
    qsort(ref, n, sizeof *ref, by_family);
    for (size_t i = 0; i < n; i++) {
        if (i == 0 || by_family(&ref[i - 1], &ref[i]) != 0)
            fworker[nf++] = gw[ref[i].group];
        size_t f = nf - 1, g = ref[i].group;
        fam[g] = f;
        fexec[f] += a->groups[g].exec_s;
        if (fworker[f] != gw[g])
            fworker[f] = UINT32_MAX;
    }
    for (size_t i = 0; i < n; i++)
        load[gw[i]] += a->groups[i].exec_s;
    while (moved < nf) {
        unsigned hi = 0, lo = 0;
        for (unsigned w = 1; w < k; w++) {
            if (load[w] > load[hi])
                hi = w;
            if (load[w] < load[lo])
                lo = w;
        }
        size_t pick = SIZE_MAX;
        double best = load[hi];
        for (size_t f = 0; f < nf; f++) {
            if (fworker[f] != hi || !(fexec[f] > 0))
                continue;
            double after = fmax(load[hi] - fexec[f], load[lo] + fexec[f]);
            if (after < best) {
                best = after;
                pick = f;
            }
        }
        if (pick == SIZE_MAX)
            break;
        load[hi] -= fexec[pick];
        load[lo] += fexec[pick];
        fworker[pick] = lo;
        moved++;
    }
    for (size_t i = 0; moved && i < n; i++)
        if (fworker[fam[i]] != UINT32_MAX)
            gw[i] = fworker[fam[i]];
out:
    free(ref);
    free(fam);
    free(fexec);
    free(fworker);
    free(load);
    return moved;
}

/* METIS, recursive bisection and k-way (also with contiguous parts), at
 * several imbalance tolerances; every partition is scored by the model. */
static int partition(const advise_ctx *c, candidates *l, uint32_t *where, double *load,
                     uint64_t *cross)
{
    const advice_result *a = c->a;
    size_t n = a->n_groups;
    uint32_t *gw = malloc((n ? n : 1) * sizeof *gw);
    idx_t *part = malloc((n ? n : 1) * sizeof *part);
    csr m = {0};
    int rc = 0;
    if (!gw || !part || build_csr(c, &m)) {
        rc = -1;
    } else if (exhaustive_size(c) > 0) {
        rc = exhaustive(c, gw, where, load, cross, l);
    } else if (n <= a->workers) {
        /* Fewer names than workers: each its own worker is optimal for the
         * load, and METIS cannot split such a graph. */
        for (size_t i = 0; i < n; i++)
            part[i] = (idx_t)i;
        relabel(a, part, gw);
        rc = consider(c, gw, "one name per worker", where, load, cross, l);
    } else {
        static const int ufactors[] = {1, 10, 30, 100, 300};
        static const char *const names[] = {"recursive bisection", "k-way",
                                            "k-way, contiguous parts"};
        int variants = connected(&m) ? 3 : 2;
        for (int v = 0; v < variants && rc == 0; v++) {
            for (size_t u = 0; u < sizeof ufactors / sizeof *ufactors && rc == 0; u++) {
                if (!metis(&m, a->workers, v == 0 ? 0 : 1, ufactors[u], v == 2, part))
                    continue;
                char what[96];
                snprintf(what, sizeof what, "METIS %s, imbalance tolerance %.1f %%", names[v],
                         ufactors[u] / 10.0);
                relabel(a, part, gw);
                rc = consider(c, gw, what, where, load, cross, l);
                if (rc == 0 && balance_moves(a, gw)) {
                    snprintf(what, sizeof what, "METIS %s, tolerance %.1f %%, families moved to balance",
                             names[v], ufactors[u] / 10.0);
                    rc = consider(c, gw, what, where, load, cross, l);
                }
            }
        }
    }
    free(gw);
    free(part);
    csr_free(&m);
    return rc;
}

/* ---- the advice -------------------------------------------------------------------- */

static unsigned count_workers(const advise_ctx *c, uint32_t run)
{
    unsigned k = 0;
    for (size_t i = 0; i < wfb_worker_stats_count(c->g); i++) {
        const wfb_worker_stats *s = wfb_worker_stats_at(c->g, i);
        if (s->run == run && s->worker + 1 > k)
            k = s->worker + 1;
    }
    for (size_t t = 0; t < c->nt; t++)
        if (c->now[t] + 1 > k)
            k = c->now[t] + 1;
    return k;
}

static int check_input(const wfb_graph *g, const advise_ctx *c, wfb_error *err)
{
    const advice_result *a = c->a;
    if (c->nt == 0) {
        wfb_set_error(err, g->source, 0, "the trace has no tasks to map (record with -m A)");
        return -1;
    }
    if (a->n_groups == 0) {
        wfb_set_error(err, g->source, 0,
                      "the trace has no task names, so no mapping can name its tasks "
                      "(record the mapping events: -m A, or a flag set with m)");
        return -1;
    }
    if (!(a->exec_s > 0)) {
        wfb_set_error(err, g->source, 0,
                      "the trace has no execution times, so there is nothing to balance "
                      "(record timestamps and task events: -m A, or a flag set with t and T)");
        return -1;
    }
    return 0;
}

static int pick_run(const wfb_graph *g, uint32_t *run, wfb_error *err)
{
    uint32_t runs = wfb_run_count(g);
    if (runs == 0 || wfb_task_stats_count(g) == 0) {
        wfb_set_error(err, g->source, 0,
                      "not an LPEL trace with task events: advise needs a trace of a run "
                      "(recorded with -m A)");
        return -1;
    }
    if (runs > 1) {
        wfb_set_error(err, g->source, 0,
                      "the trace holds %u runs; a mapping is advised from one run (trace one "
                      "run of the program)",
                      (unsigned)runs);
        return -1;
    }
    for (size_t i = 0; i < wfb_worker_stats_count(g); i++)
        if (wfb_worker_stats_at(g, i)->ranked) {
            /* The model places tasks on the workers of one process; where a
             * network's parts go across ranks (@, !@) is not in it. */
            wfb_set_error(err, g->source, 0,
                          "a trace of a run across MPI ranks: advise maps the tasks of one "
                          "process onto its workers, not onto ranks (a rank's own trace, "
                          "DIR/rank-R, can be advised alone)");
            return -1;
        }
    *run = wfb_worker_stats_count(g) ? wfb_worker_stats_at(g, 0)->run : 1;
    return 0;
}

static int evidence(advise_ctx *c, uint32_t run, wfb_error *err)
{
    advice_result *a = c->a;
    if (collect_tasks(c, run))
        return -1;
    a->workers = count_workers(c, run);
    if (!a->cores || a->cores > a->workers)
        a->cores = a->workers ? a->workers : 1;
    a->n_tasks = c->nt;
    a->per_worker = calloc(a->workers ? a->workers : 1, sizeof *a->per_worker);
    a->waited_s = calloc((size_t)a->workers * a->workers + 1, sizeof *a->waited_s);
    if (!a->per_worker || !a->waited_s || make_groups(c) || collect_streams(c, run))
        return -1;
    for (size_t t = 0; t < c->nt; t++)
        a->exec_s += c->task[t]->exec_s;
    if (check_input(c->g, c, err))
        return -2;
    measured_workers(c, run);
    measured_waits(c, run);
    heaviest_groups(a);
    a->replay_now_s = a->replay_advised_s = NAN;
    if (wfb_exec_count(c->g) && wfb_exec_costs_known(c->g) &&
        !(c->replay = whatif_model_from_executions(c->g, c->task_of, c->nt)))
        return -1;
    wfb_path p;
    a->critical_path_s = NAN;
    if (wfb_exec_costs_known(c->g) && wfb_longest_path(c->g, &p, err) == 0) {
        if (p.valid && p.length_s > 0)
            a->critical_path_s = p.length_s;
        wfb_path_free(&p);
    }
    return 0;
}

/* Fills the advised side of the report from the chosen placement. */
static void adopt(advise_ctx *c, const candidate *best, uint32_t *where, double *load,
                  uint64_t *cross)
{
    advice_result *a = c->a;
    a->predicted_advised_s = best->predicted;
    snprintf(a->partitioner, sizeof a->partitioner, "%s", best->what);
    a->unexplained_s = isnan(a->measured_span_s)
                           ? 0.0
                           : fmax(0.0, a->measured_span_s - a->predicted_now_s);
    a->change = advice_span_advised(a) < advice_span_now(a) * (1 - a->min_gain);
    const uint32_t *gw = best->group_worker;
    for (size_t i = 0; i < a->n_groups; i++) {
        advice_group *gr = &a->groups[i];
        gr->worker_advised = a->change ? gw[i] : gr->worker_now;
        if (a->change && (gr->worker_advised != gr->worker_now || gr->split_now)) {
            a->moved_groups++;
            a->moved_exec_s += gr->exec_s;
        }
    }
    if (a->change) {
        expand(c, gw, where);
        predict(c, where, load, cross, &a->cross_advised, &a->replay_advised_s);
    } else {
        a->replay_advised_s = a->replay_now_s;
        if (gw) { /* the best found, for the report, though not adopted */
            expand(c, gw, where);
            predict(c, where, load, cross, NULL, &a->replay_advised_s);
        }
        predict(c, c->now, load, cross, &a->cross_advised, NULL);
    }
    for (unsigned w = 0; w < a->workers; w++) {
        a->per_worker[w].load_advised_s = load[w];
        a->per_worker[w].cross_advised = cross[w];
    }
}

/* The evidence bounds c: a core's items crossing cannot have cost more
 * than its measured span leaves beside its execution time, so c is at most
 * min over cores of (span - load) / crossing items (docs/METRICS.md). */
static void calibrate_message_cost(advise_ctx *c, double *load, uint64_t *cross)
{
    advice_result *a = c->a;
    a->message_cost_given_s = a->message_cost_s;
    if (isnan(a->measured_span_s))
        return;
    predict(c, c->now, load, cross, NULL, NULL);
    for (unsigned k = 0; k < a->cores; k++) {
        double core_load = 0, core_cross = 0;
        for (unsigned w = k; w < a->workers; w += a->cores) {
            core_load += load[w];
            core_cross += (double)cross[w];
        }
        if (core_cross > 0 && fmax(0.0, a->measured_span_s - core_load) / core_cross <
                                  a->message_cost_s)
            a->message_cost_s = fmax(0.0, a->measured_span_s - core_load) / core_cross;
    }
}

static int advise(advise_ctx *c, wfb_error *err)
{
    advice_result *a = c->a;
    uint32_t *where = malloc((c->nt ? c->nt : 1) * sizeof *where);
    double *load = calloc(a->workers, sizeof *load);
    uint64_t *cross = calloc(a->workers, sizeof *cross);
    candidates l = {0};
    int rc = -1;
    if (!where || !load || !cross)
        goto out;
    calibrate_message_cost(c, load, cross);
    a->predicted_now_s = predict(c, c->now, load, cross, &a->cross_now, &a->replay_now_s);
    for (unsigned w = 0; w < a->workers; w++) {
        a->per_worker[w].load_now_s = load[w];
        a->per_worker[w].cross_now = cross[w];
    }
    if (a->workers > 1 && partition(c, &l, where, load, cross))
        goto out;
    const candidate *best = choose(&l);
    candidate keep = {NULL, a->predicted_now_s, a->cross_now, 0, ""};
    if (!best) { /* one worker, or METIS found nothing */
        snprintf(keep.what, sizeof keep.what, "%s",
                 a->workers > 1 ? "none (the partitioner failed)" : "none (one worker)");
        best = &keep;
    }
    adopt(c, best, where, load, cross);
    rc = 0;
out:
    if (rc)
        wfb_set_error(err, c->g->source, 0, "out of memory computing the mapping advice");
    free(where);
    free(load);
    free(cross);
    candidates_free(&l);
    return rc;
}

int advice_compute(const wfb_graph *g, const advice_options *opt, advice_result *out,
               wfb_error *err)
{
    memset(out, 0, sizeof *out);
    out->message_cost_s = opt && opt->message_cost_s >= 0 ? opt->message_cost_s
                                                           : ADVICE_MESSAGE_COST_S;
    out->min_gain = opt && opt->min_gain >= 0 ? opt->min_gain : ADVICE_MIN_GAIN;
    out->cores = opt ? opt->cores : 0;
    if (!g->finished) {
        wfb_set_error(err, g->source, 0, "graph not finished (call wfb_graph_finish first)");
        return -1;
    }
    uint32_t run;
    if (pick_run(g, &run, err))
        return -1;
    out->run = run;
    advise_ctx c = {.g = g, .a = out};
    int rc = evidence(&c, run, err);
    if (rc == -1)
        wfb_set_error(err, g->source, 0, "out of memory reading the evidence for advice");
    if (rc == 0)
        rc = advise(&c, err);
    ctx_free(&c);
    if (rc)
        advice_free(out);
    return rc ? -1 : 0;
}

/* Where the model's time of the current mapping exceeds the measured span
 * (execution times stretched by another thread on the same core), the
 * model's times are scaled down to the span; otherwise the unexplained
 * time is added (docs/METRICS.md). */
static bool model_too_long(const advice_result *a)
{
    return !isnan(a->measured_span_s) && a->predicted_now_s > a->measured_span_s;
}

double advice_span_now(const advice_result *a)
{
    return model_too_long(a) ? a->measured_span_s : a->predicted_now_s + a->unexplained_s;
}

double advice_span_advised(const advice_result *a)
{
    if (model_too_long(a))
        return a->predicted_advised_s * a->measured_span_s / a->predicted_now_s;
    return a->predicted_advised_s + a->unexplained_s;
}

void advice_free(advice_result *a)
{
    free(a->groups);
    free(a->per_worker);
    free(a->waited_s);
    memset(a, 0, sizeof *a);
}
