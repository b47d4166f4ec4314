/*
 * wfb_messages.c - the message-graph metrics of the monitoring paper, per
 * run and for the whole input (docs/METRICS.md is their definition):
 *
 *   eq. 1  throughput T = N_input / max over workers of the worker's
 *          execution time, worker_start to worker_end;
 *   eq. 2  latency L(I) = execution time of the component executions that
 *          handle input I and its descendants (dispatched time only);
 *   eq. 3  jitter J = standard deviation of L over the inputs.
 *
 * Beside them, under their own names: throughput over the busiest
 * worker's busy time, and end-to-end latency (last descendant - input).
 *
 * Why shared executions are split: an execution reached from k inputs (a
 * merge of their descendants) did the work of all k; counting it whole in
 * each would make the latencies of all inputs add up to more than the
 * execution time there was. Each input is charged 1/k of it.
 *
 * Why the whole input's eq. 1 adds up the runs' own spans, of the runs
 * with inputs only: a trace of repetitions is one experiment run several
 * times, so its throughput is all inputs over all the time their runs
 * took - a weighted mean of the runs' throughputs, never below the slowest
 * run's; a run without inputs (LPEL tasks without S-Net records) took time
 * for none, and adding its span put the whole below every run.
 */
#include "wfb_internal.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Depth-first walks from each input, with per-walk stamps instead of
 * clearing the marks between walks. */
typedef struct walk {
    uint32_t *stack;
    uint32_t *seen_v;   /* stamp per vertex */
    uint32_t *seen_x;   /* stamp per execution key */
    uint32_t *share;    /* per execution key: inputs whose walks reach it */
    size_t n_exec_ids;  /* keys below: execution groups; above: single edges */
    bool shared;        /* some execution is reached from two inputs or more */
    bool cpu;           /* costs are the executions' CPU times (--cpu-time) */
    const double *scale;/* per execution: a factor on its cost (NULL: 1) */
} walk;

static bool is_input(const wfb_graph *g, uint32_t v)
{
    return !(g->v_flags[v] & WFB_VF_ACTIVITY) && g->in_off[v] == g->in_off[v + 1];
}

static uint32_t max_exec_id(const wfb_graph *g)
{
    uint32_t mx = 0;
    for (size_t e = 0; g->e_exec && e < g->ne; e++)
        if (g->e_exec[e] != WFB_NONE && g->e_exec[e] + 1 > mx)
            mx = g->e_exec[e] + 1;
    return mx;
}

/* The execution an edge belongs to; an edge without one is its own. */
static size_t exec_key(const wfb_graph *g, const walk *w, uint32_t e)
{
    uint32_t x = g->e_exec ? g->e_exec[e] : WFB_NONE;
    return x != WFB_NONE ? x : w->n_exec_ids + e;
}

/* The cost of edge e in eq. 2: its execution's CPU time with --cpu-time,
 * else its cost (edges without an execution, transfers, cost nothing either
 * way), scaled per execution as asked (the what-if latencies). */
static double edge_cost(const wfb_graph *g, const walk *w, uint32_t e)
{
    uint32_t x = g->e_exec ? g->e_exec[e] : WFB_NONE;
    if (x == WFB_NONE || x >= g->n_execs)
        return g->e_cost[e];
    double c = w->cpu ? wfb_exec_at(g, x)->cpu_s : g->e_cost[e];
    return w->scale ? c * w->scale[x] : c;
}

/* One walk from l->input. The first (counting) notes for each execution
 * that this input reaches it, and measures the lifeline with every
 * execution charged whole; the second, needed only where executions are
 * shared, charges each its share. */
static void walk_lifeline(const wfb_graph *g, walk *w, uint32_t stamp, bool counting,
                          wfb_lifeline *l)
{
    uint32_t in = l->input;
    size_t top = 0;
    double t0 = wfb_vertex_end(g, in), last = t0;
    wfb_xsum lat = {0};
    w->stack[top++] = in;
    w->seen_v[in] = stamp;
    while (top) {
        uint32_t v = w->stack[--top];
        double t = wfb_vertex_end(g, v);
        if (isnan(t))
            l->missing_events = 1;
        else if (t > last || isnan(last))
            last = t;
        for (uint32_t i = g->out_off[v]; i < g->out_off[v + 1]; i++) {
            uint32_t e = g->out_list[i], d = g->e_dst[e];
            size_t k = exec_key(g, w, e);
            if (w->seen_x[k] != stamp) {
                w->seen_x[k] = stamp;
                if (counting && w->share[k]++)
                    w->shared = true;
                double c = edge_cost(g, w, e);
                wfb_xsum_add(&lat, counting ? c : c / (double)w->share[k]);
            }
            if (w->seen_v[d] != stamp) {
                w->seen_v[d] = stamp;
                w->stack[top++] = d;
                if (counting)
                    l->descendants++;
            }
        }
    }
    l->latency_s = g->exec_costs_unknown || (w->cpu && !g->cpu_known) ? NAN : wfb_xsum_value(&lat);
    if (counting)
        l->end_to_end_s = last - t0;
}

/* ---- per run ---- */

/* Busy time per location of the produced states: the workers of an event
 * file, which has no worker table. The largest into *max (location index
 * in *at), the sum into *total. */
static int busy_by_location(const wfb_graph *g, const walk *w, double *max, double *total)
{
    size_t nloc = g->strs.count + 1; /* last slot: no location */
    size_t nkeys = w->n_exec_ids + g->ne;
    double *per = calloc(nloc, sizeof *per);
    uint8_t *counted = calloc(nkeys ? nkeys : 1, 1);
    if (!per || !counted) {
        free(per), free(counted);
        return -1;
    }
    const uint32_t *loc = g->v_attr[WFB_ATTR_LOCATION];
    *max = 0;
    *total = 0;
    for (uint32_t e = 0; e < g->ne; e++) {
        size_t k = exec_key(g, w, e);
        if (counted[k]++)
            continue;
        uint32_t l = loc ? loc[g->e_dst[e]] : WFB_NONE;
        per[l == WFB_NONE ? nloc - 1 : l] += g->e_cost[e];
        *total += g->e_cost[e];
    }
    for (size_t i = 0; i < nloc; i++)
        *max = fmax(*max, per[i]);
    free(per), free(counted);
    return 0;
}

/* The workers of run (0: all runs, each worker's runs added up): the
 * longest span (eq. 1), the largest busy time, the busy times summed. */
static void worker_figures(const wfb_graph *g, uint32_t run, wfb_run_figures *f)
{
    size_t max_worker = 0;
    for (size_t i = 0; i < g->n_workers; i++)
        if (g->workers[i].worker + (size_t)1 > max_worker)
            max_worker = g->workers[i].worker + (size_t)1;
    f->span_s = f->busy_max_s = NAN;
    f->exec_s = 0;
    bool any = false, spans_known = true;
    for (uint32_t w = 0; w < max_worker; w++) {
        double span = 0, busy = 0;
        bool seen = false;
        for (size_t i = 0; i < g->n_workers; i++) {
            const wfb_worker_stats *s = &g->workers[i];
            if (s->worker != w || (run && s->run != run))
                continue;
            seen = true;
            span += wfb_worker_span(s);
            busy += s->busy_s;
            if (isnan(wfb_worker_span(s)))
                spans_known = false;
        }
        if (!seen)
            continue;
        f->exec_s += busy;
        if (!any || span > f->span_s) {
            f->span_s = span;
            f->span_worker = w;
        }
        if (!any || busy > f->busy_max_s) {
            f->busy_max_s = busy;
            f->busy_worker = w;
        }
        any = true;
    }
    if (!any)
        f->span_unknown_why = "no worker spans: eq. 1 needs an LPEL trace's worker_start "
                              "and worker_end events";
    else if (!spans_known)
        f->span_unknown_why = "some worker lacks worker_start or worker_end (record with -m W; "
                              "a partial trace may have lost them)";
    if (f->span_unknown_why)
        f->span_s = NAN;
}

/* ---- summaries of the lifelines, per run ----
 *
 * wfb_summarise's figures, by run and over all runs, from one sort of
 * the values (kit_sorter: in memory when they fit, else through a
 * temporary file): a run's values are the sorted sequence's with its run,
 * in the same order, so each summary is the one a sort of its own values
 * gives, mean and standard deviation summed in sorted order included. */

typedef struct valued {
    double value;
    uint32_t run;
} valued;

static int by_value(const void *a, const void *b)
{
    const valued *x = a, *y = b;
    if (x->value != y->value)
        return x->value < y->value ? -1 : 1;
    return (x->run > y->run) - (x->run < y->run);
}

typedef struct summing {
    wfb_summary *s;
    size_t seen;
    double sum, sq;
} summing;

static size_t nearest_rank_of(size_t n, double p)
{
    size_t rank = (size_t)ceil(p / 100.0 * (double)n);
    return rank < 1 ? 1 : rank;
}

static void summing_value(summing *m, double v)
{
    wfb_summary *s = m->s;
    size_t i = ++m->seen;
    if (i == 1)
        s->min = v;
    if (i == s->n)
        s->max = v;
    if (i == nearest_rank_of(s->n, 50))
        s->median = v;
    if (i == nearest_rank_of(s->n, 95))
        s->p95 = v;
    if (i == nearest_rank_of(s->n, 99))
        s->p99 = v;
    m->sum += v;
}

/* sums[0]: all runs; sums[run]: run. Two passes over the sorted values. */
static int summarise_sorted(kit_sorter *sorter, summing *sums, size_t n_runs)
{
    if (kit_sorter_finish(sorter))
        return -1;
    for (size_t r = 0; r <= n_runs; r++)
        if (!sums[r].s->n) /* as wfb_summarise has it */
            *sums[r].s = (wfb_summary){0, NAN, NAN, NAN, NAN, NAN, NAN, NAN};
    for (int pass = 0; pass < 2; pass++) {
        for (size_t r = 0; pass == 1 && r <= n_runs; r++)
            if (sums[r].s->n)
                sums[r].s->mean = sums[r].sum / (double)sums[r].s->n;
        if (pass == 1 && kit_sorter_rewind(sorter))
            return -1;
        for (const valued *v; (v = kit_sorter_next(sorter));) {
            summing *ms[2] = {&sums[0], v->run <= n_runs ? &sums[v->run] : NULL};
            for (int k = 0; k < 2; k++) {
                if (!ms[k] || (k == 1 && ms[k] == ms[0]))
                    continue;
                if (pass == 0)
                    summing_value(ms[k], v->value);
                else
                    ms[k]->sq += (v->value - ms[k]->s->mean) * (v->value - ms[k]->s->mean);
            }
        }
        if (kit_sorter_error(sorter))
            return -1;
    }
    for (size_t r = 0; r <= n_runs; r++)
        if (sums[r].s->n)
            sums[r].s->stddev = sqrt(sums[r].sq / (double)sums[r].s->n);
    return 0;
}

/* The latency (or end-to-end) summaries: out[0] of all runs, out[run] of
 * each run 1..n_runs. */
static int summarise_lifelines(const wfb_graph *g, const wfb_message_report *r, bool end_to_end,
                               wfb_summary *out, size_t n_runs)
{
    kit_sorter *sorter;
    size_t mem = g->limits.memory ? g->limits.memory / 8 : SIZE_MAX / 2;
    if (kit_sorter_open(&sorter, sizeof(valued), by_value, mem, g->limits.tmp_dir))
        return -1;
    summing *sums = calloc(n_runs + 1, sizeof *sums);
    int rc = sums ? 0 : -1;
    for (size_t k = 0; sums && k <= n_runs; k++) {
        out[k] = (wfb_summary){0};
        sums[k].s = &out[k];
    }
    for (size_t i = 0; i < r->n_inputs && rc == 0; i++) {
        wfb_lifeline l = wfb_message_lifeline(r, i);
        double v = end_to_end ? l.end_to_end_s : l.latency_s;
        if (isnan(v))
            continue;
        out[0].n++;
        if (l.run && l.run <= n_runs)
            out[l.run].n++;
        rc = kit_sorter_add(sorter, &(valued){v, l.run});
    }
    if (rc == 0)
        rc = summarise_sorted(sorter, sums, n_runs);
    if (rc && kit_sorter_error(sorter) && !g->io_err)
        ((wfb_graph *)g)->io_err = kit_sorter_error(sorter);
    free(sums);
    kit_sorter_close(sorter);
    return rc;
}

static void run_figures(const wfb_graph *g, const wfb_message_report *r, const walk *w,
                        uint32_t run, const wfb_message_options *opt, const wfb_summary *latency,
                        const wfb_summary *end_to_end, wfb_run_figures *f)
{
    memset(f, 0, sizeof *f);
    f->run = run;
    for (size_t i = 0; i < r->n_inputs; i++) {
        wfb_lifeline l = wfb_message_lifeline(r, i);
        if (run && l.run != run)
            continue;
        f->inputs++;
        f->inputs_only_read += wfb_vertex_only_read(g, l.input) != 0;
    }
    if (opt && opt->inputs) {
        f->inputs = run || !g->n_runs ? opt->inputs : opt->inputs * g->n_runs;
        f->inputs_given = 1;
    }
    worker_figures(g, run, f);
    if (!g->n_workers && !g->online) {
        double total;
        if (busy_by_location(g, w, &f->busy_max_s, &total) == 0)
            f->exec_s = total;
    }
    f->cpu_time = w->cpu;
    if (g->exec_costs_unknown)
        f->latency_unknown_why = "the trace has component executions but no task periods to "
                                 "time them (record with -m T)";
    else if (w->cpu && !g->cpu_known)
        f->latency_unknown_why = "latency over CPU time needs the workers' CPU readings "
                                 "(record with -m C, trace format 3.2)";
    f->latency = *latency;
    f->jitter_s = f->latency.stddev;
    f->end_to_end = *end_to_end;
}

/* Eq. 1 and its busy-time variant of figures whose span and busy time are
 * set: n/a with the reason for a run without inputs. */
static void throughputs(wfb_run_figures *f)
{
    if (!f->inputs) {
        f->throughput_unknown_why = "no inputs: the run has no message traces (record with -m M) "
                                    "or passed no S-Net records (LPEL tasks only)";
        f->throughput_per_s = f->throughput_busy_per_s = NAN;
        return;
    }
    f->throughput_per_s = f->span_s > 0 ? (double)f->inputs / f->span_s : NAN;
    f->throughput_busy_per_s = f->busy_max_s > 0 ? (double)f->inputs / f->busy_max_s : NAN;
}

/* The whole input of several runs: its span and busy time are those of
 * the runs with inputs, added up (see the top of the file). */
static void sum_runs(const wfb_message_report *r, wfb_run_figures *total)
{
    double span = 0, busy = 0;
    total->runs_without_inputs = 0;
    total->span_unknown_why = NULL;
    for (size_t i = 0; i < r->n_runs; i++) {
        const wfb_run_figures *f = &r->runs[i];
        if (!f->inputs) {
            total->runs_without_inputs++;
            continue;
        }
        span += f->span_s;
        busy += f->busy_max_s;
        if (f->span_unknown_why)
            total->span_unknown_why = f->span_unknown_why;
    }
    total->span_s = total->span_unknown_why ? NAN : span;
    total->busy_max_s = busy;
    total->span_worker = total->busy_worker = WFB_NONE; /* no one worker's */
}

/* The timeout (a percentile of the latencies, from the histogram) and the
 * lifelines above it. */
static void flag_timeouts(wfb_message_report *r)
{
    wfb_histogram *h = malloc(sizeof *h);
    if (!h)
        return;
    wfb_histogram_init(h, 1e-9);
    for (size_t i = 0; i < r->n_inputs; i++) {
        wfb_lifeline l = wfb_message_lifeline(r, i);
        if (!isnan(l.latency_s))
            wfb_histogram_add(h, l.latency_s);
    }
    r->timeout_s = wfb_histogram_percentile(h, r->timeout_percentile);
    for (size_t i = 0; i < r->n_inputs; i++) {
        wfb_lifeline *l = kit_spill_at(r->lifeline_rows, i);
        if (!l)
            break;
        l->timed_out = l->latency_s > r->timeout_s;
        r->n_timed_out += (size_t)l->timed_out;
        r->n_missing += (size_t)l->missing_events;
    }
    free(h);
}

wfb_lifeline wfb_message_lifeline(const wfb_message_report *r, size_t i)
{
    const wfb_lifeline *l = i < r->n_inputs ? kit_spill_at(r->lifeline_rows, i) : NULL;
    if (l)
        return *l;
    if (r->io_err && !*r->io_err)
        *r->io_err = kit_spill_error(r->lifeline_rows) ? kit_spill_error(r->lifeline_rows) : EIO;
    return (wfb_lifeline){.input = WFB_NONE, .latency_s = NAN, .end_to_end_s = NAN};
}

static int walk_alloc(const wfb_graph *g, walk *w)
{
    size_t nv = g->ids.count;
    w->n_exec_ids = max_exec_id(g);
    size_t nkeys = w->n_exec_ids + g->ne;
    w->stack = malloc((nv ? nv : 1) * sizeof *w->stack);
    w->seen_v = calloc(nv ? nv : 1, sizeof *w->seen_v);
    w->seen_x = calloc(nkeys ? nkeys : 1, sizeof *w->seen_x);
    w->share = calloc(nkeys ? nkeys : 1, sizeof *w->share);
    return w->stack && w->seen_v && w->seen_x && w->share ? 0 : -1;
}

static void walk_free(walk *w)
{
    free(w->stack), free(w->seen_v), free(w->seen_x), free(w->share);
}

/* The lifelines of a graph in memory: every input walked once, counting
 * who reaches each execution; a second time, to charge the shares, when
 * some execution is shared. */
static int walk_lifelines(const wfb_graph *g, walk *w, wfb_message_report *r)
{
    size_t nv = g->ids.count, n = 0;
    for (uint32_t v = 0; v < nv; v++)
        n += is_input(g, v);
    wfb_lifeline *lines = calloc(n ? n : 1, sizeof *lines);
    if (!lines || walk_alloc(g, w)) {
        free(lines);
        return -1;
    }
    for (uint32_t v = 0; v < nv; v++)
        if (is_input(g, v))
            lines[r->n_inputs++] = (wfb_lifeline){.input = v, .run = wfb_vertex_run(g, v)};
    for (size_t i = 0; i < r->n_inputs; i++)
        walk_lifeline(g, w, (uint32_t)i + 1, true, &lines[i]);
    for (size_t i = 0; w->shared && i < r->n_inputs; i++)
        walk_lifeline(g, w, (uint32_t)(r->n_inputs + i) + 1, false, &lines[i]);
    int rc = 0;
    for (size_t i = 0; i < r->n_inputs && rc == 0; i++)
        rc = kit_spill_write(r->lifeline_rows, i, &lines[i]);
    free(lines);
    return rc;
}

typedef struct input_at {
    uint32_t vertex, k;
} input_at;

static int by_vertex(const void *a, const void *b)
{
    const input_at *x = a, *y = b;
    return (x->vertex > y->vertex) - (x->vertex < y->vertex);
}

/* The lifelines of a graph lifted bounded: the online analysis' inputs,
 * in the order of their vertices (the order the walks above take). */
static int online_lifelines(const wfb_graph *g, bool cpu, wfb_message_report *r)
{
    uint32_t n = wfb_online_input_count(g->online);
    kit_sorter *sorter;
    size_t mem = g->limits.memory ? g->limits.memory / 8 : SIZE_MAX / 2;
    if (kit_sorter_open(&sorter, sizeof(input_at), by_vertex, mem, g->limits.tmp_dir))
        return -1;
    int rc = 0;
    for (uint32_t k = 0; k < n && rc == 0; k++) {
        wfb_mv_input in;
        rc = wfb_online_input(g->online, k, &in) || kit_sorter_add(sorter, &(input_at){in.vertex, k});
    }
    if (rc == 0)
        rc = kit_sorter_finish(sorter);
    bool unknown = g->exec_costs_unknown || (cpu && !g->cpu_known);
    for (const input_at *a; rc == 0 && (a = kit_sorter_next(sorter));) {
        wfb_mv_input in;
        if ((rc = wfb_online_input(g->online, a->k, &in)) != 0)
            break;
        wfb_lifeline l = {.input = in.vertex, .run = in.run, .end_to_end_s = in.end_to_end_s,
                          .descendants = in.descendants, .missing_events = in.missing};
        l.latency_s = unknown ? NAN : cpu ? in.latency_cpu_s : in.latency_s;
        rc = kit_spill_write(r->lifeline_rows, r->n_inputs++, &l);
    }
    if (rc == 0 && kit_sorter_error(sorter))
        rc = -1;
    kit_sorter_close(sorter);
    return rc;
}

int wfb_message_metrics_compute(const wfb_graph *g, const wfb_message_options *opt,
                                wfb_message_report *r, wfb_error *err)
{
    memset(r, 0, sizeof *r);
    double pct = opt ? opt->timeout_percentile : 0;
    r->timeout_percentile = pct > 0 && pct <= 100 ? pct : 99;
    if (!g->finished) {
        wfb_set_error(err, g->source, 0, "graph not finished");
        return -1;
    }
    walk w = {.cpu = opt && opt->cpu_time, .scale = opt ? opt->exec_scale : NULL};
    if (g->online && w.scale) { /* its latencies were summed as the trace was read */
        wfb_set_error(err, g->source, 0,
                      "factors per execution need the graph in memory, not lifted bounded");
        return -1;
    }
    size_t n_runs = g->n_runs;
    wfb_summary *lat = calloc(n_runs + 1, sizeof *lat), *e2e = calloc(n_runs + 1, sizeof *e2e);
    r->runs = calloc(n_runs ? n_runs : 1, sizeof *r->runs);
    r->lifeline_rows = wfb_graph_spill(g, sizeof(wfb_lifeline), 0.1);
    r->io_err = &((wfb_graph *)g)->io_err;
    int rc = lat && e2e && r->runs && r->lifeline_rows ? 0 : -1;
    if (rc == 0)
        rc = g->online ? online_lifelines(g, w.cpu, r) : walk_lifelines(g, &w, r);
    if (rc == 0)
        rc = summarise_lifelines(g, r, false, lat, n_runs) ||
             summarise_lifelines(g, r, true, e2e, n_runs);
    if (rc) {
        wfb_set_error(err, g->source, 0, "%s computing message metrics",
                      g->io_err ? strerror(g->io_err) : "out of memory");
        goto out;
    }
    run_figures(g, r, &w, 0, opt, &lat[0], &e2e[0], &r->total);
    for (uint32_t run = 1; g->n_runs > 1 && run <= g->n_runs; run++) {
        wfb_run_figures *f = &r->runs[r->n_runs++];
        run_figures(g, r, &w, run, opt, &lat[run], &e2e[run], f);
        throughputs(f);
    }
    if (g->n_runs > 1)
        sum_runs(r, &r->total);
    throughputs(&r->total);
    if (g->n_runs == 1) { /* the one run is the whole input */
        r->runs[r->n_runs] = r->total;
        r->runs[r->n_runs++].run = 1;
    }
    flag_timeouts(r);
out:
    walk_free(&w);
    free(lat);
    free(e2e);
    if (rc)
        wfb_message_report_free(r);
    return rc;
}

void wfb_message_report_free(wfb_message_report *r)
{
    kit_spill_close(r->lifeline_rows);
    free(r->runs);
    r->lifeline_rows = NULL;
    r->runs = NULL;
    r->n_inputs = r->n_runs = 0;
}
