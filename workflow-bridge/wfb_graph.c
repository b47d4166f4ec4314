/*
 * wfb_graph.c - the analysis model: vertices, edges, their columns, and
 * finishing a graph (reference check, duplicate edges, adjacency, cycles).
 *
 * Columns rather than structs, and optional columns allocated only when a
 * first vertex needs them, keep a large message graph near 60 bytes per
 * vertex and 20 per edge before the adjacency is built.
 */
#include "wfb_internal.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void wfb_set_error(wfb_error *err, const char *file, long line, const char *fmt, ...)
{
    if (!err)
        return;
    snprintf(err->file, sizeof err->file, "%s", file ? file : "");
    err->line = line;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
}

void wfb_error_print(const wfb_error *err, FILE *out)
{
    if (err->file[0])
        fprintf(out, "%s:", err->file);
    if (err->line > 0)
        fprintf(out, "%ld:", err->line);
    fprintf(out, "%s%s\n", (err->file[0] || err->line > 0) ? " " : "", err->msg);
}

long wfb_read_line(FILE *in, char **buf, size_t *cap, wfb_line_info *line)
{
    ssize_t n = getline(buf, cap, in);
    if (n < 0)
        return -1;
    if (line)
        *line = (wfb_line_info){(size_t)n, (*buf)[n - 1] == '\n'};
    while (n > 0 && ((*buf)[n - 1] == '\n' || (*buf)[n - 1] == '\r'))
        (*buf)[--n] = '\0';
    return (long)n;
}

static const char *const edge_kind_names[WFB_EDGE_KIND_COUNT] = {
    "DEPEND", "TRANSFER", "CONVERT", "APPEND", "SPLIT", "MERGE", "DELETE"};

const char *wfb_edge_kind_name(wfb_edge_kind kind)
{
    return (unsigned)kind < WFB_EDGE_KIND_COUNT ? edge_kind_names[kind] : "?";
}

int wfb_edge_kind_parse(const char *name, wfb_edge_kind *out)
{
    for (int k = 0; k < WFB_EDGE_KIND_COUNT; k++)
        if (!strcmp(name, edge_kind_names[k])) {
            *out = (wfb_edge_kind)k;
            return 0;
        }
    return -1;
}

wfb_graph *wfb_graph_new(void)
{
    wfb_graph *g = calloc(1, sizeof(wfb_graph));
    if (g)
        g->makespan_s = NAN;
    return g;
}

static void free_adjacency(wfb_graph *g)
{
    free(g->out_off);
    free(g->out_list);
    free(g->in_off);
    free(g->in_list);
    free(g->topo);
    g->out_off = g->out_list = g->in_off = g->in_list = g->topo = NULL;
    g->finished = false;
}

void wfb_graph_free(wfb_graph *g)
{
    if (!g)
        return;
    free(g->source);
    wfb_strtab_free(&g->ids);
    wfb_strtab_free(&g->strs);
    free(g->v_flags);
    free(g->v_line);
    for (int i = 0; i < WFB_T_KIND_COUNT; i++)
        free(g->v_time[i]);
    free(g->v_duration);
    free(g->v_size);
    free(g->v_run);
    for (int i = 0; i < WFB_ATTR_COUNT; i++)
        free(g->v_attr[i]);
    free(g->e_src);
    free(g->e_dst);
    free(g->e_kind);
    free(g->e_cost);
    free(g->e_exec);
    free(g->e_label);
    free_adjacency(g);
    wfb_loss_free(g->loss);
    wfb_clock_alignment_free(g->clocks);
    free(g->workers);
    free(g->tasks);
    kit_spill_close(g->execs);
    free(g->waits);
    free(g->streams);
    kit_spill_close(g->periods);
    wfb_online_free(g->online);
    free(g->tmp_dir);
    free(g);
}

void wfb_graph_set_source(wfb_graph *g, const char *file)
{
    char *copy = file ? strdup(file) : NULL;
    if (file && !copy)
        return; /* keep the old name: only used in messages */
    free(g->source);
    g->source = copy;
}

void wfb_graph_set_makespan(wfb_graph *g, double seconds) { g->makespan_s = seconds; }

const char *wfb_graph_source(const wfb_graph *g)
{
    return g->source ? g->source : "";
}

size_t wfb_vertex_count(const wfb_graph *g)
{
    return g->online ? wfb_online_vertex_count(g->online) : g->ids.count;
}

size_t wfb_edge_count(const wfb_graph *g)
{
    return g->online ? (size_t)wfb_online_edge_count(g->online) : g->ne;
}

/* ---- the vertices of a graph lifted bounded (wfb_online.c) ----
 *
 * Its message graph is not in the columns: each vertex is read from the
 * online analysis' records, and its id and location are made up in a ring
 * of buffers (the last 8 stay valid: enough for any one expression). */

static wfb_mv_info online_vertex(const wfb_graph *g, uint32_t v)
{
    wfb_mv_info info;
    if (wfb_online_vertex(g->online, v, &info) != 0) {
        if (!g->io_err)
            ((wfb_graph *)g)->io_err = EIO;
        return (wfb_mv_info){.time = NAN, .worker = WFB_NONE, .origin = WFB_NONE};
    }
    return info;
}

static char *name_buffer(const wfb_graph *g)
{
    wfb_graph *m = (wfb_graph *)g; /* the ring is scratch space, not the graph */
    m->name_at = (m->name_at + 1) % 8;
    return m->name_ring[m->name_at];
}

static const char *online_id(const wfb_graph *g, uint32_t v)
{
    wfb_mv_info i = online_vertex(g, v);
    char *buf = name_buffer(g);
    wfb_mv_name(buf, sizeof g->name_ring[0], i.kind, i.run, i.msg, i.aux);
    return buf;
}

static const char *online_attr(const wfb_graph *g, uint32_t v, wfb_attr attr)
{
    wfb_mv_info i = online_vertex(g, v);
    if (attr == WFB_ATTR_ORIGIN)
        return wfb_strtab_get(&g->strs, i.origin);
    if (attr == WFB_ATTR_LABEL)
        return wfb_mv_label_text(i.label);
    if (attr != WFB_ATTR_LOCATION || i.worker == WFB_NONE)
        return NULL;
    char *buf = name_buffer(g);
    for (size_t w = 0; w < g->n_workers; w++) /* as the lifter named it (set_location) */
        if (g->workers[w].worker == i.worker && g->workers[w].ranked) {
            snprintf(buf, sizeof g->name_ring[0], "r%" PRIu32 ".w%" PRIu32, g->workers[w].rank,
                     g->workers[w].rank_worker);
            return buf;
        }
    snprintf(buf, sizeof g->name_ring[0], "w%" PRIu32, i.worker);
    return buf;
}

const char *wfb_mv_label_text(wfb_mv_label label)
{
    return label == WFB_MV_EXTERNAL ? "external input" : label == WFB_MV_DELETED_LABEL ? "deleted" : NULL;
}

/* ---- columns ---- */

static void fill_nan(double *col, size_t from, size_t to)
{
    for (size_t i = from; i < to; i++)
        col[i] = NAN;
}

/* Grows one column from old_cap to new_cap elements with its default. */
static int grow_column(void **col, size_t old_cap, size_t new_cap, size_t size, int fill)
{
    void *p = realloc(*col, new_cap * size);
    if (!p)
        return -1;
    *col = p;
    if (fill == 'n')
        fill_nan(p, old_cap, new_cap);
    else
        memset((char *)p + old_cap * size, fill, (new_cap - old_cap) * size);
    return 0;
}

static int grow_vertex_columns(wfb_graph *g, size_t need)
{
    if (need <= g->cap_v)
        return 0;
    size_t n = kit_grow_capacity(g->cap_v, need, sizeof(double)); /* the widest column */
    if (n == 0)
        return -1;
    size_t old = g->cap_v;
    if (grow_column((void **)&g->v_flags, old, n, 1, 0) ||
        grow_column((void **)&g->v_line, old, n, 4, 0))
        return -1;
    for (int i = 0; i < WFB_T_KIND_COUNT; i++)
        if (g->v_time[i] && grow_column((void **)&g->v_time[i], old, n, 8, 'n'))
            return -1;
    if (g->v_duration && grow_column((void **)&g->v_duration, old, n, 8, 'n'))
        return -1;
    if (g->v_size && grow_column((void **)&g->v_size, old, n, 8, 0))
        return -1;
    if (g->v_run && grow_column((void **)&g->v_run, old, n, 4, 0))
        return -1;
    for (int i = 0; i < WFB_ATTR_COUNT; i++)
        if (g->v_attr[i] && grow_column((void **)&g->v_attr[i], old, n, 4, 0xff))
            return -1;
    g->cap_v = n;
    return 0;
}

/* Allocates an optional column on first use. */
static int need_column(void **col, size_t cap, size_t size, int fill)
{
    if (*col)
        return 0;
    return grow_column(col, 0, cap, size, fill);
}

/* ---- vertices ---- */

uint32_t wfb_vertex_ref(wfb_graph *g, const char *id, size_t len, long line)
{
    bool added;
    uint32_t v = wfb_strtab_intern(&g->ids, id, len, &added);
    if (v == WFB_NONE || !added)
        return v;
    if (grow_vertex_columns(g, (size_t)v + 1))
        return WFB_NONE; /* the id stays interned but unusable: caller fails */
    g->v_flags[v] = 0;
    g->v_line[v] = line > 0 && line < (long)UINT32_MAX ? (uint32_t)line : 0;
    free_adjacency(g);
    return v;
}

uint32_t wfb_vertex_find(const wfb_graph *g, const char *id, size_t len)
{
    return wfb_strtab_find(&g->ids, id, len);
}

void wfb_vertex_define(wfb_graph *g, uint32_t v, wfb_vertex_kind kind, long line)
{
    if (!(g->v_flags[v] & WFB_VF_DEFINED) && line > 0 && line < (long)UINT32_MAX)
        g->v_line[v] = (uint32_t)line;
    g->v_flags[v] |= WFB_VF_DEFINED;
    if (kind == WFB_VERTEX_ACTIVITY)
        g->v_flags[v] |= WFB_VF_ACTIVITY;
    else
        g->v_flags[v] &= (uint8_t)~WFB_VF_ACTIVITY;
}

int wfb_vertex_set_time(wfb_graph *g, uint32_t v, wfb_time_kind which, double t)
{
    if (!(g->v_flags[v] & WFB_VF_ACTIVITY))
        which = WFB_T_END; /* a data state has one time */
    if (need_column((void **)&g->v_time[which], g->cap_v, 8, 'n'))
        return -1;
    g->v_time[which][v] = t;
    return 0;
}

int wfb_activity_event(wfb_graph *g, uint32_t v, wfb_time_kind kind, double t, char *why,
                       size_t whylen)
{
    const char *const names[] = {"submitted", "active", "end"};
    double sub = wfb_vertex_time(g, v, WFB_T_SUBMITTED), act = wfb_vertex_time(g, v, WFB_T_ACTIVE),
           end = wfb_vertex_time(g, v, WFB_T_END);
    if (kind == WFB_T_ACTIVE && !isnan(end) && t >= end) {
        g->v_time[WFB_T_END][v] = NAN; /* a new attempt */
        end = NAN;
    }
    const double other[3][2] = {{act, end}, {sub, end}, {sub, act}};
    const wfb_time_kind other_kind[3][2] = {{WFB_T_ACTIVE, WFB_T_END},
                                            {WFB_T_SUBMITTED, WFB_T_END},
                                            {WFB_T_SUBMITTED, WFB_T_ACTIVE}};
    for (int i = 0; i < 2; i++) {
        double o = other[kind][i];
        wfb_time_kind ok = other_kind[kind][i];
        if (!isnan(o) && (ok < kind ? t < o : t > o)) {
            snprintf(why, whylen, "activity '%s': %s at %.9g is %s its %s at %.9g",
                     wfb_vertex_id(g, v), names[kind], t, ok < kind ? "before" : "after",
                     names[ok], o);
            return -2;
        }
    }
    return wfb_vertex_set_time(g, v, kind, t);
}

int wfb_vertex_set_failed(wfb_graph *g, uint32_t v, int failed)
{
    if (failed)
        g->v_flags[v] |= WFB_VF_FAILED;
    else
        g->v_flags[v] &= (uint8_t)~WFB_VF_FAILED;
    return 0;
}

int wfb_vertex_set_duration(wfb_graph *g, uint32_t v, double seconds)
{
    if (need_column((void **)&g->v_duration, g->cap_v, 8, 'n'))
        return -1;
    g->v_duration[v] = seconds;
    return 0;
}

int wfb_vertex_set_size(wfb_graph *g, uint32_t v, uint64_t bytes)
{
    if (need_column((void **)&g->v_size, g->cap_v, 8, 0))
        return -1;
    g->v_size[v] = bytes;
    return 0;
}

uint32_t wfb_graph_string(wfb_graph *g, const char *s)
{
    return wfb_strtab_intern(&g->strs, s, strlen(s), NULL);
}

int wfb_vertex_set_attr(wfb_graph *g, uint32_t v, wfb_attr attr, const char *value)
{
    if (need_column((void **)&g->v_attr[attr], g->cap_v, 4, 0xff))
        return -1;
    uint32_t s = value ? wfb_graph_string(g, value) : WFB_NONE;
    if (value && s == WFB_NONE)
        return -1;
    g->v_attr[attr][v] = s;
    return 0;
}

const char *wfb_vertex_id(const wfb_graph *g, uint32_t v)
{
    return g->online ? online_id(g, v) : wfb_strtab_get(&g->ids, v);
}

wfb_vertex_kind wfb_vertex_kind_of(const wfb_graph *g, uint32_t v)
{
    if (g->online)
        return WFB_VERTEX_DATA;
    return (g->v_flags[v] & WFB_VF_ACTIVITY) ? WFB_VERTEX_ACTIVITY : WFB_VERTEX_DATA;
}

int wfb_vertex_defined(const wfb_graph *g, uint32_t v)
{
    return g->online ? 1 : !!(g->v_flags[v] & WFB_VF_DEFINED);
}

int wfb_vertex_failed(const wfb_graph *g, uint32_t v)
{
    return g->online ? 0 : !!(g->v_flags[v] & WFB_VF_FAILED);
}

double wfb_vertex_time(const wfb_graph *g, uint32_t v, wfb_time_kind which)
{
    if (g->online)
        return online_vertex(g, v).time;
    if (!(g->v_flags[v] & WFB_VF_ACTIVITY))
        which = WFB_T_END;
    return g->v_time[which] ? g->v_time[which][v] : NAN;
}

double wfb_vertex_start(const wfb_graph *g, uint32_t v) { return wfb_vertex_time(g, v, WFB_T_ACTIVE); }
double wfb_vertex_end(const wfb_graph *g, uint32_t v) { return wfb_vertex_time(g, v, WFB_T_END); }

double wfb_vertex_weight(const wfb_graph *g, uint32_t v)
{
    if (g->online)
        return 0.0; /* data states only */
    if (g->v_duration && !isnan(g->v_duration[v]))
        return g->v_duration[v];
    if (!(g->v_flags[v] & WFB_VF_ACTIVITY))
        return 0.0;
    double w = wfb_vertex_end(g, v) - wfb_vertex_start(g, v);
    return isnan(w) ? 0.0 : w;
}

uint64_t wfb_vertex_size(const wfb_graph *g, uint32_t v)
{
    return !g->online && g->v_size ? g->v_size[v] : 0;
}

int wfb_vertex_set_run(wfb_graph *g, uint32_t v, uint32_t run)
{
    if (need_column((void **)&g->v_run, g->cap_v, 4, 0))
        return -1;
    g->v_run[v] = run;
    if (run > g->n_runs)
        g->n_runs = run;
    return 0;
}

uint32_t wfb_vertex_run(const wfb_graph *g, uint32_t v)
{
    if (g->online)
        return online_vertex(g, v).run;
    return g->v_run ? g->v_run[v] : 0;
}
uint32_t wfb_run_count(const wfb_graph *g) { return g->n_runs; }
int wfb_vertex_only_read(const wfb_graph *g, uint32_t v)
{
    if (g->online)
        return online_vertex(g, v).only_read;
    return (g->v_flags[v] & WFB_VF_ONLY_READ) != 0;
}
int wfb_exec_costs_known(const wfb_graph *g) { return !g->exec_costs_unknown; }

int wfb_cpu_known(const wfb_graph *g) { return g->cpu_known; }

size_t wfb_period_count(const wfb_graph *g) { return g->n_periods; }
const wfb_period *wfb_period_at(const wfb_graph *g, size_t i)
{
    return wfb_graph_spill_get(g, g->periods, i);
}

double wfb_worker_preempted_share(const wfb_worker_stats *w)
{
    double span = wfb_worker_span(w);
    return span > 0 ? w->preempted_s / span : NAN; /* NAN preempted: NAN */
}

double wfb_worker_span(const wfb_worker_stats *w)
{
    return w->end_s - w->start_s; /* NAN when either is */
}

double wfb_worker_unaccounted(const wfb_worker_stats *w)
{
    return wfb_worker_span(w) - w->busy_s - w->wait_s;
}

const char *wfb_vertex_attr(const wfb_graph *g, uint32_t v, wfb_attr attr)
{
    if (g->online)
        return online_attr(g, v, attr);
    return g->v_attr[attr] ? wfb_strtab_get(&g->strs, g->v_attr[attr][v]) : NULL;
}

/* ---- edges ---- */

static int grow_edge_columns(wfb_graph *g, size_t need)
{
    if (need <= g->cap_e)
        return 0;
    size_t n = kit_grow_capacity(g->cap_e, need, sizeof(double)); /* the widest column */
    if (n == 0)
        return -1;
    size_t old = g->cap_e;
    if (grow_column((void **)&g->e_src, old, n, 4, 0) ||
        grow_column((void **)&g->e_dst, old, n, 4, 0) ||
        grow_column((void **)&g->e_kind, old, n, 1, 0) ||
        grow_column((void **)&g->e_cost, old, n, 8, 0))
        return -1;
    if (g->e_exec && grow_column((void **)&g->e_exec, old, n, 4, 0xff))
        return -1;
    if (g->e_label && grow_column((void **)&g->e_label, old, n, 4, 0xff))
        return -1;
    g->cap_e = n;
    return 0;
}

uint32_t wfb_edge_add(wfb_graph *g, uint32_t src, uint32_t dst, wfb_edge_kind kind,
                      double cost, long line)
{
    (void)line; /* edges are reported through their vertices' lines */
    if (g->ne >= WFB_NONE - 1 || grow_edge_columns(g, g->ne + 1))
        return WFB_NONE;
    uint32_t e = (uint32_t)g->ne++;
    g->e_src[e] = src;
    g->e_dst[e] = dst;
    g->e_kind[e] = (uint8_t)kind;
    g->e_cost[e] = cost;
    if (g->e_exec)
        g->e_exec[e] = WFB_NONE;
    if (g->e_label)
        g->e_label[e] = WFB_NONE;
    free_adjacency(g);
    return e;
}

uint32_t wfb_graph_path_edge(const wfb_graph *cg, const wfb_mv_back *b, uint32_t src, uint32_t dst)
{
    wfb_graph *g = (wfb_graph *)cg; /* a cache of the edges paths name */
    if (g->ne >= WFB_NONE - 1 || grow_edge_columns(g, g->ne + 1) ||
        need_column((void **)&g->e_exec, g->cap_e, 4, 0xff) ||
        need_column((void **)&g->e_label, g->cap_e, 4, 0xff))
        return WFB_NONE;
    uint32_t e = (uint32_t)g->ne++;
    g->e_src[e] = src;
    g->e_dst[e] = dst;
    g->e_kind[e] = (uint8_t)b->kind;
    g->e_cost[e] = b->cost;
    g->e_exec[e] = b->exec;
    g->e_label[e] = b->label;
    return e;
}

int wfb_edge_set_exec(wfb_graph *g, uint32_t e, uint32_t exec)
{
    if (need_column((void **)&g->e_exec, g->cap_e, 4, 0xff))
        return -1;
    g->e_exec[e] = exec;
    return 0;
}

int wfb_edge_set_label(wfb_graph *g, uint32_t e, const char *label)
{
    if (need_column((void **)&g->e_label, g->cap_e, 4, 0xff))
        return -1;
    uint32_t s = label ? wfb_graph_string(g, label) : WFB_NONE;
    if (label && s == WFB_NONE)
        return -1;
    g->e_label[e] = s;
    return 0;
}

uint32_t wfb_edge_src(const wfb_graph *g, uint32_t e) { return g->e_src[e]; }
uint32_t wfb_edge_dst(const wfb_graph *g, uint32_t e) { return g->e_dst[e]; }
wfb_edge_kind wfb_edge_kind_of(const wfb_graph *g, uint32_t e) { return (wfb_edge_kind)g->e_kind[e]; }
double wfb_edge_cost(const wfb_graph *g, uint32_t e) { return g->e_cost[e]; }
uint32_t wfb_edge_exec(const wfb_graph *g, uint32_t e) { return g->e_exec ? g->e_exec[e] : WFB_NONE; }

const char *wfb_edge_label(const wfb_graph *g, uint32_t e)
{
    return g->e_label ? wfb_strtab_get(&g->strs, g->e_label[e]) : NULL;
}

/* ---- runtime side tables ---- */

/* ---- spilled tables ---- */

int wfb_graph_set_limits(wfb_graph *g, const wfb_limits *limits)
{
    char *dir = limits->tmp_dir ? strdup(limits->tmp_dir) : NULL;
    if (limits->tmp_dir && !dir)
        return -1;
    free(g->tmp_dir);
    g->tmp_dir = dir;
    g->limits = (wfb_limits){limits->memory, dir};
    return 0;
}

int wfb_graph_io_error(const wfb_graph *g) { return g->io_err; }

bool wfb_graph_bounded(const wfb_graph *g) { return g->online != NULL; }

kit_spill *wfb_graph_spill(const wfb_graph *g, size_t rec_size, double share)
{
    size_t cache = g->limits.memory ? (size_t)((double)g->limits.memory * share) : SIZE_MAX;
    kit_spill *s;
    return kit_spill_open(&s, rec_size, cache, g->limits.tmp_dir) == 0 ? s : NULL;
}

void *wfb_graph_spill_at(const wfb_graph *g, kit_spill *s, uint64_t i)
{
    void *p = kit_spill_at(s, i);
    if (!p && !g->io_err)
        ((wfb_graph *)g)->io_err = kit_spill_error(s) ? kit_spill_error(s) : EIO;
    return p;
}

const void *wfb_graph_spill_get(const wfb_graph *g, kit_spill *s, uint64_t i)
{
    static const union {
        wfb_period period;
        wfb_exec exec;
        char bytes[256];
    } zero;
    const void *p = s ? wfb_graph_spill_at(g, s, i) : NULL;
    return p ? p : &zero;
}

uint32_t wfb_graph_add_exec(wfb_graph *g, const wfb_exec *x)
{
    if (g->n_execs >= WFB_NONE - 1 || (!g->execs && !(g->execs = wfb_graph_spill(g, sizeof *x, 0.125))))
        return WFB_NONE;
    wfb_exec *row = wfb_graph_spill_at(g, g->execs, g->n_execs);
    if (!row)
        return WFB_NONE;
    *row = *x;
    return (uint32_t)g->n_execs++;
}

wfb_exec *wfb_graph_exec_mut(wfb_graph *g, uint32_t x)
{
    /* after a failure (io_err is set), written to in vain: the graph's own
     * row, so that graphs in other threads do not share it */
    wfb_exec *row = x < g->n_execs ? wfb_graph_spill_at(g, g->execs, x) : NULL;
    return row ? row : &g->exec_lost;
}

size_t wfb_worker_stats_count(const wfb_graph *g) { return g->n_workers; }
const wfb_worker_stats *wfb_worker_stats_at(const wfb_graph *g, size_t i) { return &g->workers[i]; }
size_t wfb_task_stats_count(const wfb_graph *g) { return g->n_tasks; }
const wfb_task_stats *wfb_task_stats_at(const wfb_graph *g, size_t i) { return &g->tasks[i]; }
size_t wfb_exec_count(const wfb_graph *g) { return g->n_execs; }
size_t wfb_wait_relation_count(const wfb_graph *g) { return g->n_waits; }
const wfb_wait_relation *wfb_wait_relation_at(const wfb_graph *g, size_t i) { return &g->waits[i]; }
const wfb_exec *wfb_exec_at(const wfb_graph *g, size_t i)
{
    return wfb_graph_spill_get(g, g->execs, i);
}
size_t wfb_stream_stats_count(const wfb_graph *g) { return g->n_streams; }
const wfb_stream_stats *wfb_stream_stats_at(const wfb_graph *g, size_t i)
{
    return &g->streams[i];
}

/* ---- finishing ---- */

static int check_references(wfb_graph *g, bool lenient, wfb_error *err)
{
    size_t nv = g->ids.count;
    for (size_t v = 0; v < nv; v++) {
        if (g->v_flags[v] & WFB_VF_DEFINED)
            continue;
        if (!lenient) {
            wfb_set_error(err, g->source, g->v_line[v],
                          "reference to undefined vertex '%s'", wfb_vertex_id(g, (uint32_t)v));
            return -1;
        }
        g->v_flags[v] |= WFB_VF_DEFINED | WFB_VF_ACTIVITY;
    }
    return 0;
}

/* Moves edge `from` to slot `to` in every edge column. */
static void move_edge(wfb_graph *g, size_t to, size_t from)
{
    g->e_src[to] = g->e_src[from];
    g->e_dst[to] = g->e_dst[from];
    g->e_kind[to] = g->e_kind[from];
    g->e_cost[to] = g->e_cost[from];
    if (g->e_exec)
        g->e_exec[to] = g->e_exec[from];
    if (g->e_label)
        g->e_label[to] = g->e_label[from];
}

/* Counting sort of edge indices by a key column into off/list. */
static int bucket_edges(size_t nv, size_t ne, const uint32_t *key, uint32_t **off_out,
                        uint32_t **list_out)
{
    uint32_t *off = calloc(nv + 1, sizeof *off);
    uint32_t *list = malloc((ne ? ne : 1) * sizeof *list);
    if (!off || !list) {
        free(off);
        free(list);
        return -1;
    }
    for (size_t e = 0; e < ne; e++)
        off[key[e] + 1]++;
    for (size_t v = 0; v < nv; v++)
        off[v + 1] += off[v];
    /* Fill using off[v] as cursor, then shift back. */
    for (size_t e = 0; e < ne; e++)
        list[off[key[e]]++] = (uint32_t)e;
    for (size_t v = nv; v > 0; v--)
        off[v] = off[v - 1];
    off[0] = 0;
    *off_out = off;
    *list_out = list;
    return 0;
}

/* Drops repeated (src, dst) pairs, keeping the first. Uses the out buckets
 * and a per-vertex stamp, so it is linear. Returns edges dropped or -1. */
static long drop_duplicate_edges(wfb_graph *g)
{
    size_t nv = g->ids.count, ne = g->ne;
    uint32_t *off, *list;
    if (bucket_edges(nv, ne, g->e_src, &off, &list))
        return -1;
    uint32_t *stamp = malloc((nv ? nv : 1) * sizeof *stamp);
    uint8_t *drop = calloc(ne ? ne : 1, 1);
    if (!stamp || !drop) {
        free(off), free(list), free(stamp), free(drop);
        return -1;
    }
    memset(stamp, 0xff, nv * sizeof *stamp);
    long dropped = 0;
    for (size_t v = 0; v < nv; v++)
        for (uint32_t i = off[v]; i < off[v + 1]; i++) {
            uint32_t e = list[i];
            if (stamp[g->e_dst[e]] == v) {
                drop[e] = 1;
                dropped++;
            } else {
                stamp[g->e_dst[e]] = (uint32_t)v;
            }
        }
    /* Within one source the first edge in bucket order is the first added,
     * because bucketing is stable. Compact the columns. */
    if (dropped) {
        size_t to = 0;
        for (size_t e = 0; e < ne; e++)
            if (!drop[e])
                move_edge(g, to++, e);
        g->ne = to;
    }
    free(off), free(list), free(stamp), free(drop);
    return dropped;
}

/* An unfinished predecessor of v (every vertex left over by Kahn's algorithm
 * has one). */
static uint32_t unfinished_predecessor(const wfb_graph *g, const uint32_t *indeg, uint32_t v)
{
    for (uint32_t i = g->in_off[v]; i < g->in_off[v + 1]; i++) {
        uint32_t u = g->e_src[g->in_list[i]];
        if (indeg[u])
            return u;
    }
    return WFB_NONE;
}

static const char *id_or_unknown(const wfb_graph *g, uint32_t v)
{
    const char *id = v == WFB_NONE ? NULL : wfb_vertex_id(g, v);
    return id ? id : "?";
}

/* Walks back through unfinished predecessors until a vertex repeats; the
 * walk between its two visits is a cycle. Writes "a -> b -> a" (shortened
 * when long) and returns the vertex that repeated. */
static uint32_t find_cycle(const wfb_graph *g, const uint32_t *indeg, char *buf, size_t cap)
{
    size_t nv = g->ids.count;
    uint32_t v = WFB_NONE;
    for (size_t i = 0; i < nv && v == WFB_NONE; i++)
        if (indeg[i])
            v = (uint32_t)i;
    uint32_t *pos = calloc(nv, sizeof *pos);   /* position in the walk + 1 */
    uint32_t *walk = malloc(nv * sizeof *walk);
    snprintf(buf, cap, "%s", id_or_unknown(g, v));
    if (!pos || !walk || v == WFB_NONE) {
        free(pos), free(walk);
        return v;
    }
    size_t len = 0;
    bool closed = true;
    while (!pos[v]) {
        pos[v] = (uint32_t)++len;
        walk[len - 1] = v;
        uint32_t u = unfinished_predecessor(g, indeg, v);
        if (u == WFB_NONE) {
            closed = false; /* cannot happen after Kahn's algorithm */
            break;
        }
        v = u;
    }
    if (!closed) {
        free(pos), free(walk);
        return v;
    }
    /* walk[pos[v]-1 .. len-1] runs backwards along the cycle. */
    snprintf(buf, cap, "%s", id_or_unknown(g, v));
    size_t first = pos[v] - 1, used = strlen(buf), shown = 0;
    for (size_t i = len; i > first && used < cap; i--, shown++) {
        if (shown == 8) {
            snprintf(buf + used, cap - used, " -> ...");
            break;
        }
        const char *id = id_or_unknown(g, walk[i - 1]);
        used += (size_t)snprintf(buf + used, cap - used, " -> %s", id);
    }
    free(pos), free(walk);
    return v;
}

static int topological_sort(wfb_graph *g, wfb_error *err)
{
    size_t nv = g->ids.count;
    uint32_t *indeg = malloc((nv ? nv : 1) * sizeof *indeg);
    g->topo = malloc((nv ? nv : 1) * sizeof *g->topo);
    if (!indeg || !g->topo) {
        free(indeg);
        wfb_set_error(err, g->source, 0, "out of memory sorting the graph");
        return -1;
    }
    size_t head = 0, tail = 0;
    for (size_t v = 0; v < nv; v++) {
        indeg[v] = g->in_off[v + 1] - g->in_off[v];
        if (!indeg[v])
            g->topo[tail++] = (uint32_t)v;
    }
    while (head < tail) {
        uint32_t v = g->topo[head++];
        for (uint32_t i = g->out_off[v]; i < g->out_off[v + 1]; i++) {
            uint32_t w = g->e_dst[g->out_list[i]];
            if (--indeg[w] == 0)
                g->topo[tail++] = w;
        }
    }
    if (tail < nv) {
        char cycle[300];
        uint32_t v = find_cycle(g, indeg, cycle, sizeof cycle);
        wfb_set_error(err, g->source, v == WFB_NONE ? 0 : g->v_line[v],
                      "cycle in the graph through vertex '%s' (%s)", id_or_unknown(g, v), cycle);
        free(indeg);
        return -1;
    }
    free(indeg);
    return 0;
}

static int finish(wfb_graph *g, bool lenient, wfb_error *err)
{
    free_adjacency(g);
    if (check_references(g, lenient, err))
        return -1;
    if (drop_duplicate_edges(g) < 0 ||
        bucket_edges(g->ids.count, g->ne, g->e_src, &g->out_off, &g->out_list) ||
        bucket_edges(g->ids.count, g->ne, g->e_dst, &g->in_off, &g->in_list)) {
        wfb_set_error(err, g->source, 0, "out of memory building the adjacency");
        free_adjacency(g);
        return -1;
    }
    if (topological_sort(g, err)) {
        free_adjacency(g);
        return -1;
    }
    g->finished = true;
    return 0;
}

int wfb_graph_finish(wfb_graph *g, wfb_error *err) { return finish(g, false, err); }
int wfb_graph_finish_lenient(wfb_graph *g, wfb_error *err) { return finish(g, true, err); }

size_t wfb_out_edges(const wfb_graph *g, uint32_t v, const uint32_t **edges)
{
    if (g->online) { /* no adjacency (wfb_lifter_new_bounded) */
        *edges = NULL;
        return 0;
    }
    *edges = g->out_list + g->out_off[v];
    return g->out_off[v + 1] - g->out_off[v];
}

size_t wfb_in_edges(const wfb_graph *g, uint32_t v, const uint32_t **edges)
{
    if (g->online) {
        *edges = NULL;
        return 0;
    }
    *edges = g->in_list + g->in_off[v];
    return g->in_off[v + 1] - g->in_off[v];
}


size_t wfb_graph_bytes(const wfb_graph *g)
{
    size_t b = sizeof *g + wfb_strtab_bytes(&g->ids) + wfb_strtab_bytes(&g->strs);
    size_t per_v = 1 + 4;
    for (int i = 0; i < WFB_T_KIND_COUNT; i++)
        per_v += g->v_time[i] ? 8 : 0;
    per_v += (g->v_duration ? 8 : 0) + (g->v_size ? 8 : 0);
    for (int i = 0; i < WFB_ATTR_COUNT; i++)
        per_v += g->v_attr[i] ? 4 : 0;
    b += g->cap_v * per_v;
    b += g->cap_e * (4 + 4 + 1 + 8 + (g->e_exec ? 4 : 0) + (g->e_label ? 4 : 0));
    if (g->finished)
        b += (g->ids.count + 1) * 4 * 2 + g->ne * 4 * 2 + g->ids.count * 4;
    b += g->n_workers * sizeof *g->workers + g->n_tasks * sizeof *g->tasks +
         g->n_execs * sizeof(wfb_exec) + g->n_periods * sizeof(wfb_period);
    return b;
}
