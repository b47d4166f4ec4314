/*
 * wfb_metrics.c - the analyses besides the critical path: activity DAG
 * metrics (response = waiting + processing, synchronisation delay, fork-join
 * load imbalance, slowdown, speedup between runs), message-graph metrics
 * (throughput, latency, end-to-end latency, jitter), distribution summaries,
 * the fixed-memory histogram and lifeline anomalies.
 */
#include "wfb_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- summaries ---- */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Nearest rank: the smallest value with at least p% of values <= it. */
static double nearest_rank(const double *sorted, size_t n, double p)
{
    size_t rank = (size_t)ceil(p / 100.0 * (double)n);
    if (rank < 1)
        rank = 1;
    return sorted[rank - 1];
}

void wfb_summarise(double *values, size_t n, wfb_summary *out)
{
    memset(out, 0, sizeof *out);
    out->n = n;
    if (!n) {
        out->min = out->median = out->p95 = out->p99 = out->max = NAN;
        out->mean = out->stddev = NAN;
        return;
    }
    qsort(values, n, sizeof *values, cmp_double);
    out->min = values[0];
    out->max = values[n - 1];
    out->median = nearest_rank(values, n, 50);
    out->p95 = nearest_rank(values, n, 95);
    out->p99 = nearest_rank(values, n, 99);
    double sum = 0, sq = 0;
    for (size_t i = 0; i < n; i++)
        sum += values[i];
    out->mean = sum / (double)n;
    for (size_t i = 0; i < n; i++)
        sq += (values[i] - out->mean) * (values[i] - out->mean);
    out->stddev = sqrt(sq / (double)n); /* population: all inputs are observed */
}

/* ---- exact sums ----
 *
 * A signed 192-bit fixed-point number with its lowest bit worth 2^-128:
 * every double from 2^-128 up to 2^62 (in seconds: far below a nanosecond
 * shared a billion ways, up to a century many times over) is added
 * exactly, the bits of smaller ones below 2^-128 are dropped, and larger or
 * non-finite ones are added as doubles beside it. */

#define XSUM_LSB_EXP 128

static void xsum_add_bits(wfb_xsum *x, uint64_t m, int p, bool negative)
{
    unsigned li = (unsigned)p / 64, sh = (unsigned)p % 64;
    uint64_t part[3] = {0, 0, 0};
    part[li] = m << sh;
    if (sh && li + 1 < 3)
        part[li + 1] = m >> (64 - sh);
    unsigned carry = 0;
    for (int i = 0; i < 3; i++) {
        uint64_t a = x->limb[i], b = part[i];
        if (!negative) {
            uint64_t r = a + b + carry;
            carry = r < a || (carry && r == a);
            x->limb[i] = r;
        } else {
            uint64_t r = a - b - carry;
            carry = a < b || (carry && a == b);
            x->limb[i] = r;
        }
    }
}

void wfb_xsum_add(wfb_xsum *x, double d)
{
    if (d == 0)
        return;
    if (!isfinite(d) || fabs(d) >= 0x1p62) {
        x->odd += d;
        return;
    }
    int e;
    double m = frexp(fabs(d), &e); /* |d| = m 2^e, m in [0.5, 1) */
    uint64_t mant = (uint64_t)ldexp(m, 53);
    int p = e - 53 + XSUM_LSB_EXP; /* the bit that mant's lowest goes to */
    if (p < 0) {
        if (p <= -64)
            return;
        mant >>= -p;
        p = 0;
    }
    xsum_add_bits(x, mant, p, d < 0);
}

/* Bit i of the 192-bit magnitude v. */
static unsigned xbit(const uint64_t *v, int i) { return (unsigned)(v[i / 64] >> (i % 64)) & 1u; }

double wfb_xsum_value(const wfb_xsum *x)
{
    uint64_t v[3] = {x->limb[0], x->limb[1], x->limb[2]};
    bool negative = v[2] >> 63;
    if (negative) { /* two's complement: invert and add one */
        unsigned carry = 1;
        for (int i = 0; i < 3; i++) {
            v[i] = ~v[i] + carry;
            carry = carry && v[i] == 0;
        }
    }
    int h = 191;
    while (h >= 0 && !xbit(v, h))
        h--;
    if (h < 0)
        return x->odd;
    double r;
    if (h <= 52) {
        r = ldexp((double)v[0], -XSUM_LSB_EXP);
    } else {
        int low = h - 52; /* the mantissa's bits are [low, h] */
        uint64_t mant = 0;
        for (int i = h; i >= low; i--)
            mant = mant << 1 | xbit(v, i);
        bool half = low > 0 && xbit(v, low - 1), sticky = false;
        for (int i = low - 2; i >= 0 && !sticky; i--)
            sticky = xbit(v, i);
        if (half && (sticky || (mant & 1))) /* round to nearest, ties to even */
            mant++;
        r = ldexp((double)mant, low - XSUM_LSB_EXP);
    }
    return (negative ? -r : r) + x->odd;
}

/* ---- histogram ---- */

void wfb_histogram_init(wfb_histogram *h, double unit)
{
    memset(h, 0, sizeof *h);
    h->unit = unit > 0 ? unit : 1e-9;
}

void wfb_histogram_add(wfb_histogram *h, double value)
{
    h->count++;
    double x = value / h->unit;
    if (!(x >= 1.0)) {
        h->zero++;
        return;
    }
    int exp;
    double mant = frexp(x, &exp); /* x = mant * 2^exp, mant in [0.5, 1) */
    int octave = exp - 1;
    if (octave >= WFB_HIST_OCTAVES) {
        octave = WFB_HIST_OCTAVES - 1;
        mant = 0.999999;
    }
    int sub = (int)((mant * 2.0 - 1.0) * WFB_HIST_SUB);
    h->buckets[octave * WFB_HIST_SUB + sub]++;
}

double wfb_histogram_percentile(const wfb_histogram *h, double p)
{
    if (!h->count)
        return NAN;
    uint64_t rank = (uint64_t)ceil(p / 100.0 * (double)h->count);
    if (rank < 1)
        rank = 1;
    uint64_t seen = h->zero;
    if (seen >= rank)
        return h->unit;
    for (int b = 0; b < WFB_HIST_OCTAVES * WFB_HIST_SUB; b++) {
        seen += h->buckets[b];
        if (seen >= rank) {
            int octave = b / WFB_HIST_SUB, sub = b % WFB_HIST_SUB;
            return h->unit * ldexp(1.0 + (double)(sub + 1) / WFB_HIST_SUB, octave);
        }
    }
    return h->unit * ldexp(2.0, WFB_HIST_OCTAVES - 1);
}

/* ---- activity metrics ---- */

static bool is_activity(const wfb_graph *g, uint32_t v)
{
    return (g->v_flags[v] & WFB_VF_ACTIVITY) != 0;
}

/* Processing: end - active when both are known, else the explicit duration. */
static double processing_time(const wfb_graph *g, uint32_t v)
{
    double p = wfb_vertex_end(g, v) - wfb_vertex_start(g, v);
    if (isnan(p) && g->v_duration)
        p = g->v_duration[v];
    return p;
}

static bool untimed(const wfb_graph *g, uint32_t v)
{
    return isnan(wfb_vertex_time(g, v, WFB_T_SUBMITTED)) &&
           isnan(wfb_vertex_time(g, v, WFB_T_ACTIVE)) && isnan(wfb_vertex_time(g, v, WFB_T_END));
}

static void measure_activity(const wfb_graph *g, uint32_t v, bool timed_input,
                             wfb_activity_metrics *m)
{
    double sub = wfb_vertex_time(g, v, WFB_T_SUBMITTED);
    double act = wfb_vertex_start(g, v), end = wfb_vertex_end(g, v);
    m->vertex = v;
    m->response_s = end - sub;
    m->waiting_s = act - sub;
    m->processing_s = processing_time(g, v);
    m->not_started = timed_input && untimed(g, v);
}

/* The activity children (branches) of v: n, and their processing times'
 * max, mean, min, the load imbalance and the slowdown factor. */
static bool measure_fork(const wfb_graph *g, uint32_t v, wfb_fork_metrics *f)
{
    size_t n = 0;
    double sum = 0, mx = -INFINITY, mn = INFINITY;
    for (uint32_t i = g->out_off[v]; i < g->out_off[v + 1]; i++) {
        uint32_t c = g->e_dst[g->out_list[i]];
        if (!is_activity(g, c))
            continue;
        double w = wfb_vertex_weight(g, c);
        n++;
        sum += w;
        mx = fmax(mx, w);
        mn = fmin(mn, w);
    }
    if (n < 2)
        return false;
    f->fork = v;
    f->branches = n;
    f->max_s = mx;
    f->min_s = mn;
    f->mean_s = sum / (double)n;
    f->load_imbalance_s = mx - f->mean_s;
    f->imbalance_pct = f->mean_s > 0 ? (mx / f->mean_s - 1.0) * 100.0 : NAN;
    f->slowdown_factor = sum > 0 ? (double)n * mx / sum : NAN;
    return true;
}

/* Summary of one field of n records of `size` bytes, where it is known. */
static void summarise_field(const void *records, size_t n, size_t size, size_t offset,
                            double *scratch, wfb_summary *out)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        double x = *(const double *)((const char *)records + i * size + offset);
        if (!isnan(x))
            scratch[k++] = x;
    }
    wfb_summarise(scratch, k, out);
}

static double measured_makespan(const wfb_graph *g, const wfb_activity_report *r)
{
    double first = NAN, last = NAN;
    for (size_t i = 0; i < r->n_activities; i++) {
        uint32_t v = r->activities[i].vertex;
        double s = wfb_vertex_time(g, v, WFB_T_SUBMITTED);
        if (isnan(s))
            s = wfb_vertex_start(g, v);
        double e = wfb_vertex_end(g, v);
        if (!isnan(s) && (isnan(first) || s < first))
            first = s;
        if (!isnan(e) && (isnan(last) || e > last))
            last = e;
    }
    return last - first;
}

/* Dependencies between activities: submitted(child) - completed(parent). */
static void measure_dependencies(const wfb_graph *g, wfb_activity_report *r)
{
    for (uint32_t e = 0; e < g->ne; e++) {
        uint32_t p = g->e_src[e], c = g->e_dst[e];
        if (g->e_kind[e] != WFB_EDGE_DEPEND || !is_activity(g, p) || !is_activity(g, c))
            continue;
        wfb_dependency_metrics *d = &r->dependencies[r->n_dependencies++];
        d->parent = p;
        d->child = c;
        d->sync_delay_s = wfb_vertex_time(g, c, WFB_T_SUBMITTED) - wfb_vertex_end(g, p);
    }
}

static void summarise_activities(wfb_activity_report *r, double *scratch)
{
    const size_t a = sizeof *r->activities, f = sizeof *r->forks;
    summarise_field(r->activities, r->n_activities, a, offsetof(wfb_activity_metrics, response_s),
                    scratch, &r->response);
    summarise_field(r->activities, r->n_activities, a, offsetof(wfb_activity_metrics, waiting_s),
                    scratch, &r->waiting);
    summarise_field(r->activities, r->n_activities, a,
                    offsetof(wfb_activity_metrics, processing_s), scratch, &r->processing);
    summarise_field(r->dependencies, r->n_dependencies, sizeof *r->dependencies,
                    offsetof(wfb_dependency_metrics, sync_delay_s), scratch, &r->sync_delay);
    summarise_field(r->forks, r->n_forks, f, offsetof(wfb_fork_metrics, load_imbalance_s), scratch,
                    &r->load_imbalance);
    summarise_field(r->forks, r->n_forks, f, offsetof(wfb_fork_metrics, slowdown_factor), scratch,
                    &r->slowdown_factor);
}

int wfb_activity_metrics_compute(const wfb_graph *g, wfb_activity_report *r, wfb_error *err)
{
    memset(r, 0, sizeof *r);
    if (!g->finished) {
        wfb_set_error(err, g->source, 0, "graph not finished");
        return -1;
    }
    size_t nv = g->ids.count, n = 0;
    bool timed_input = false;
    for (uint32_t v = 0; v < nv; v++) {
        n += is_activity(g, v);
        timed_input = timed_input || (is_activity(g, v) && !untimed(g, v));
    }
    size_t deps = 0;
    for (uint32_t e = 0; e < g->ne; e++)
        deps += g->e_kind[e] == WFB_EDGE_DEPEND;
    size_t scratch_n = n > deps ? n : deps;
    r->activities = calloc(n ? n : 1, sizeof *r->activities);
    r->forks = calloc(n ? n : 1, sizeof *r->forks);
    r->dependencies = calloc(deps ? deps : 1, sizeof *r->dependencies);
    double *scratch = malloc((scratch_n ? scratch_n : 1) * sizeof *scratch);
    if (!r->activities || !r->forks || !r->dependencies || !scratch) {
        free(scratch);
        wfb_activity_report_free(r);
        wfb_set_error(err, g->source, 0, "out of memory computing activity metrics");
        return -1;
    }
    for (uint32_t v = 0; v < nv; v++) {
        if (!is_activity(g, v))
            continue;
        wfb_activity_metrics *m = &r->activities[r->n_activities++];
        measure_activity(g, v, timed_input, m);
        r->n_failed += wfb_vertex_failed(g, v);
        r->n_not_started += (size_t)m->not_started;
        if (measure_fork(g, v, &r->forks[r->n_forks]))
            r->n_forks++;
    }
    measure_dependencies(g, r);
    summarise_activities(r, scratch);
    r->makespan_measured_s = measured_makespan(g, r);
    r->makespan_declared = !isnan(g->makespan_s);
    r->makespan_s = r->makespan_declared ? g->makespan_s : r->makespan_measured_s;
    free(scratch);
    return 0;
}

void wfb_activity_report_free(wfb_activity_report *r)
{
    free(r->activities);
    free(r->forks);
    free(r->dependencies);
    memset(r, 0, sizeof *r);
}

/* ---- speedup ---- */

/* Span of the marked activities: max end - min start when all are timed,
 * else the longest weighted path through marked vertices only. */
static double marked_span(const wfb_graph *g, const uint8_t *mark, double *scratch)
{
    size_t nv = g->ids.count;
    double first = INFINITY, last = -INFINITY;
    bool timed = true;
    for (uint32_t v = 0; v < nv && timed; v++) {
        if (!mark[v])
            continue;
        double s = wfb_vertex_start(g, v), e = wfb_vertex_end(g, v);
        timed = !isnan(s) && !isnan(e);
        first = fmin(first, s);
        last = fmax(last, e);
    }
    if (timed)
        return last - first;
    double best = 0;
    for (size_t k = 0; k < nv; k++) {
        uint32_t v = g->topo[k];
        if (!mark[v])
            continue;
        double in = 0;
        for (uint32_t i = g->in_off[v]; i < g->in_off[v + 1]; i++) {
            uint32_t u = g->e_src[g->in_list[i]];
            if (mark[u])
                in = fmax(in, scratch[u] + g->e_cost[g->in_list[i]]);
        }
        scratch[v] = in + wfb_vertex_weight(g, v);
        best = fmax(best, scratch[v]);
    }
    return best;
}

/* Marks the activities both runs contain (and the filter accepts). */
static size_t mark_common(const wfb_graph *base, const wfb_graph *other, const wfb_pattern *f,
                          uint8_t *mb, uint8_t *mo)
{
    size_t n = 0;
    for (uint32_t v = 0; v < base->ids.count; v++) {
        const char *id = wfb_vertex_id(base, v);
        if (!is_activity(base, v) || !wfb_pattern_match(f, id))
            continue;
        uint32_t w = wfb_vertex_find(other, id, strlen(id));
        if (w != WFB_NONE && is_activity(other, w)) {
            mb[v] = mo[w] = 1;
            n++;
        }
    }
    return n;
}

int wfb_speedup_subgraph(const wfb_graph *base, const wfb_graph *other, const char *id_pattern,
                         double *speedup, size_t *common, wfb_error *err)
{
    if (!base->finished || !other->finished) {
        wfb_set_error(err, NULL, 0, "graph not finished");
        return -1;
    }
    wfb_pattern *f;
    if (wfb_pattern_compile(id_pattern, "subgraph", &f, err))
        return -1;
    size_t nb = base->ids.count, no = other->ids.count, nmax = nb > no ? nb : no;
    uint8_t *mb = calloc(nb ? nb : 1, 1), *mo = calloc(no ? no : 1, 1);
    double *scratch = malloc((nmax ? nmax : 1) * sizeof *scratch);
    if (!mb || !mo || !scratch) {
        free(mb), free(mo), free(scratch);
        wfb_pattern_free(f);
        wfb_set_error(err, NULL, 0, "out of memory");
        return -1;
    }
    size_t n = mark_common(base, other, f, mb, mo);
    double sb = marked_span(base, mb, scratch), so = marked_span(other, mo, scratch);
    *common = n;
    *speedup = n && so > 0 ? sb / so : NAN;
    free(mb), free(mo), free(scratch);
    wfb_pattern_free(f);
    return 0;
}

int wfb_speedup(const wfb_graph *base, const wfb_graph *other, double *speedup, size_t *common,
                wfb_error *err)
{
    return wfb_speedup_subgraph(base, other, NULL, speedup, common, err);
}

/* ---- activity anomalies ---- */

static bool activity_anomalous(const wfb_graph *g, uint32_t v)
{
    double sub = wfb_vertex_time(g, v, WFB_T_SUBMITTED);
    double act = wfb_vertex_start(g, v), end = wfb_vertex_end(g, v);
    if (isnan(sub) && isnan(act) && isnan(end))
        return false; /* untimed (e.g. runtime only): nothing expected */
    if (isnan(act) || isnan(end))
        return true;
    return end < act || (!isnan(sub) && act < sub);
}

size_t wfb_activity_anomalies(const wfb_graph *g, uint32_t **vertices)
{
    size_t nv = g->ids.count, n = 0;
    *vertices = malloc((nv ? nv : 1) * sizeof **vertices);
    if (!*vertices)
        return 0;
    for (uint32_t v = 0; v < nv; v++)
        if (is_activity(g, v) && activity_anomalous(g, v))
            (*vertices)[n++] = v;
    return n;
}
