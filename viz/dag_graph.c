/*
 * dag_graph.c - a DAG (e.g. the program-activity graph) with its critical
 * path highlighted in context: path vertices outlined thick red, path edges
 * thick red, everything else quiet grey.
 *
 * Why collapsing: a real graph has thousands of vertices, mostly repetitions
 * (a split fanning out to N identical replicas, N parallel chains). Vertices
 * off the path are merged when they are indistinguishable: same label, same
 * depth (longest distance from a source) and the same sets of parent and
 * child groups. This is partition refinement - start from (label, depth)
 * groups and split them by their neighbours' groups until nothing changes.
 * Each group becomes one node "label ×N". Path vertices are never merged.
 * Grouping by depth keeps the collapsed graph acyclic: every edge still goes
 * from a smaller depth to a larger one.
 */
#include "viz_internal.h"

#include <graphviz/cgraph.h>
#include <stdlib.h>
#include <string.h>

#define MAX_REFINEMENTS 64

typedef struct dag_vertex {
    uint64_t id;
    char *label;
    viz_time duration;
} dag_vertex;

typedef struct dag_edge {
    size_t from, to;
} dag_edge;

struct viz_dag {
    dag_vertex *vertices;
    size_t vertices_len, vertices_cap;
    kit_id_map ids;
    dag_edge *edges;
    size_t edges_len, edges_cap;
    size_t *path; /* vertex indexes */
    size_t path_len;
    char error[VIZ_ERR_LEN];
};

/* Adjacency in compressed form plus the grouping being computed. */
typedef struct dag_work {
    size_t n;
    size_t *parent_start, *parents; /* parents of v: parents[parent_start[v] .. [v+1]) */
    size_t *child_start, *children;
    size_t *depth;
    size_t *group;      /* group of each vertex */
    size_t groups;      /* number of groups */
    bool *on_path;      /* per vertex */
    size_t *sig_start; /* refinement signatures, flattened */
    size_t *sig;
} dag_work;

int viz_dag_create(viz_dag **out, char *err, size_t errlen)
{
    *out = calloc(1, sizeof **out);
    if (!*out) {
        viz_set_error(err, errlen, "out of memory");
        return VIZ_ENOMEM;
    }
    return VIZ_OK;
}

void viz_dag_destroy(viz_dag *dag)
{
    if (!dag)
        return;
    for (size_t i = 0; i < dag->vertices_len; i++)
        free(dag->vertices[i].label);
    free(dag->vertices);
    free(dag->edges);
    free(dag->path);
    kit_id_map_free(&dag->ids);
    free(dag);
}

const char *viz_dag_error(const viz_dag *dag) { return dag ? dag->error : "no graph"; }

static int dag_fail(viz_dag *dag, int code, const char *fmt, unsigned long long id)
{
    viz_set_error(dag->error, sizeof dag->error, fmt, id);
    return code;
}

static int dag_oom(viz_dag *dag)
{
    viz_set_error(dag->error, sizeof dag->error, "out of memory");
    return VIZ_ENOMEM;
}

int viz_dag_add_vertex(viz_dag *dag, uint64_t id, const char *label, viz_time duration)
{
    size_t i;
    if (kit_id_map_get(&dag->ids, id, &i))
        return dag_fail(dag, VIZ_EINVAL, "vertex %llu added twice", id);
    char *copy = viz_strdup(label ? label : "");
    if (!copy ||
        KIT_GROW_ZEROED(dag->vertices, dag->vertices_cap, dag->vertices_len + 1) != 0 ||
        kit_id_map_put(&dag->ids, id, dag->vertices_len) != 0) {
        free(copy);
        return dag_oom(dag);
    }
    dag->vertices[dag->vertices_len++] = (dag_vertex){id, copy, duration};
    return VIZ_OK;
}

int viz_dag_add_edge(viz_dag *dag, uint64_t from, uint64_t to)
{
    size_t a, b;
    if (!kit_id_map_get(&dag->ids, from, &a))
        return dag_fail(dag, VIZ_EINVAL, "edge from unknown vertex %llu", from);
    if (!kit_id_map_get(&dag->ids, to, &b))
        return dag_fail(dag, VIZ_EINVAL, "edge to unknown vertex %llu", to);
    if (KIT_GROW_ZEROED(dag->edges, dag->edges_cap, dag->edges_len + 1) != 0)
        return dag_oom(dag);
    dag->edges[dag->edges_len++] = (dag_edge){a, b};
    return VIZ_OK;
}

int viz_dag_set_critical_path(viz_dag *dag, const uint64_t *ids, size_t count)
{
    size_t *path = malloc((count ? count : 1) * sizeof *path);
    if (!path)
        return dag_oom(dag);
    for (size_t i = 0; i < count; i++) {
        if (!kit_id_map_get(&dag->ids, ids[i], &path[i])) {
            free(path);
            return dag_fail(dag, VIZ_EINVAL, "critical path names unknown vertex %llu", ids[i]);
        }
    }
    free(dag->path);
    dag->path = path;
    dag->path_len = count;
    return VIZ_OK;
}

/* ------------------------------------------------------------------ */
/* grouping                                                            */
/* ------------------------------------------------------------------ */

static void free_work(dag_work *w)
{
    free(w->parent_start);
    free(w->parents);
    free(w->child_start);
    free(w->children);
    free(w->depth);
    free(w->group);
    free(w->on_path);
    free(w->sig_start);
    free(w->sig);
}

static bool build_adjacency(const viz_dag *dag, dag_work *w)
{
    size_t n = dag->vertices_len, m = dag->edges_len;
    w->n = n;
    w->parent_start = calloc(n + 1, sizeof *w->parent_start);
    w->child_start = calloc(n + 1, sizeof *w->child_start);
    w->parents = malloc((m ? m : 1) * sizeof *w->parents);
    w->children = malloc((m ? m : 1) * sizeof *w->children);
    size_t *fill = calloc(2 * (n + 1), sizeof *fill);
    if (!w->parent_start || !w->child_start || !w->parents || !w->children || !fill) {
        free(fill);
        return false;
    }
    for (size_t e = 0; e < m; e++) {
        w->parent_start[dag->edges[e].to + 1]++;
        w->child_start[dag->edges[e].from + 1]++;
    }
    for (size_t v = 0; v < n; v++) {
        w->parent_start[v + 1] += w->parent_start[v];
        w->child_start[v + 1] += w->child_start[v];
    }
    size_t *pfill = fill, *cfill = fill + n + 1;
    for (size_t e = 0; e < m; e++) {
        size_t a = dag->edges[e].from, b = dag->edges[e].to;
        w->parents[w->parent_start[b] + pfill[b]++] = a;
        w->children[w->child_start[a] + cfill[a]++] = b;
    }
    free(fill);
    return true;
}

/* Longest distance from a source, in topological order (Kahn). Returns
 * false if the graph has a cycle. */
static bool compute_depths(dag_work *w, bool *cyclic)
{
    size_t n = w->n, *pending = malloc((n ? n : 1) * sizeof *pending);
    size_t *queue = malloc((n ? n : 1) * sizeof *queue), head = 0, tail = 0;
    w->depth = calloc(n ? n : 1, sizeof *w->depth);
    if (!pending || !queue || !w->depth) {
        free(pending);
        free(queue);
        return false;
    }
    for (size_t v = 0; v < n; v++) {
        pending[v] = w->parent_start[v + 1] - w->parent_start[v];
        if (!pending[v])
            queue[tail++] = v;
    }
    while (head < tail) {
        size_t v = queue[head++];
        for (size_t i = w->child_start[v]; i < w->child_start[v + 1]; i++) {
            size_t c = w->children[i];
            if (w->depth[c] < w->depth[v] + 1)
                w->depth[c] = w->depth[v] + 1;
            if (--pending[c] == 0)
                queue[tail++] = c;
        }
    }
    *cyclic = tail != n;
    free(pending);
    free(queue);
    return true;
}

/* Sorting context: vertices compared by their signature. */
typedef struct sig_view {
    const size_t *start;
    const size_t *sig;
} sig_view;

static int compare_signatures(const void *a, const void *b, void *arg)
{
    const sig_view *sv = arg;
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    const size_t *p = sv->sig + sv->start[x], *q = sv->sig + sv->start[y];
    size_t lp = sv->start[x + 1] - sv->start[x], lq = sv->start[y + 1] - sv->start[y];
    for (size_t i = 0; i < lp && i < lq; i++)
        if (p[i] != q[i])
            return p[i] < q[i] ? -1 : 1;
    return lp < lq ? -1 : lp > lq ? 1 : 0;
}

static int compare_size(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return x < y ? -1 : x > y;
}

/* Appends the sorted distinct groups of list[0..len) to sig at *at. */
static void append_group_set(const dag_work *w, const size_t *list, size_t len, size_t *sig,
                             size_t *at)
{
    size_t first = *at;
    sig[(*at)++] = 0; /* count, filled below */
    size_t begin = *at;
    for (size_t i = 0; i < len; i++)
        sig[(*at)++] = w->group[list[i]];
    qsort(sig + begin, *at - begin, sizeof *sig, compare_size);
    size_t out = begin;
    for (size_t i = begin; i < *at; i++)
        if (out == begin || sig[out - 1] != sig[i])
            sig[out++] = sig[i];
    *at = out;
    sig[first] = out - begin;
}

/* Gives each vertex the number of its signature among the sorted distinct
 * signatures. Returns the number of groups. */
static size_t number_groups(dag_work *w, size_t *order)
{
    sig_view sv = {w->sig_start, w->sig};
    for (size_t v = 0; v < w->n; v++)
        order[v] = v;
    qsort_r(order, w->n, sizeof *order, compare_signatures, &sv);
    size_t groups = 0;
    for (size_t i = 0; i < w->n; i++) {
        if (i > 0 && compare_signatures(&order[i - 1], &order[i], &sv) != 0)
            groups++;
        w->group[order[i]] = groups;
    }
    return w->n ? groups + 1 : 0;
}

static int compare_labels(const void *a, const void *b, void *arg)
{
    const dag_vertex *vs = arg;
    return strcmp(vs[*(const size_t *)a].label, vs[*(const size_t *)b].label);
}

static bool refine(const viz_dag *dag, dag_work *w, bool collapse)
{
    size_t n = w->n, *order = malloc((n ? n : 1) * sizeof *order);
    size_t *label_rank = malloc((n ? n : 1) * sizeof *label_rank);
    w->group = calloc(n ? n : 1, sizeof *w->group);
    w->sig_start = calloc(n + 1, sizeof *w->sig_start);
    size_t sig_cap = 3 * n + 2 * (w->parent_start[n] + 2);
    w->sig = malloc(sig_cap * sizeof *w->sig);
    if (!order || !label_rank || !w->group || !w->sig_start || !w->sig) {
        free(order);
        free(label_rank);
        return false;
    }
    for (size_t v = 0; v < n; v++)
        order[v] = v;
    qsort_r(order, n, sizeof *order, compare_labels, dag->vertices);
    for (size_t i = 0, rank = 0; i < n; i++) {
        if (i > 0 && strcmp(dag->vertices[order[i - 1]].label, dag->vertices[order[i]].label))
            rank++;
        label_rank[order[i]] = rank;
    }
    /* round 0: (path vertex id | label rank, depth) */
    size_t at = 0;
    for (size_t v = 0; v < n; v++) {
        w->sig_start[v] = at;
        bool alone = w->on_path[v] || !collapse;
        w->sig[at++] = alone ? 1 : 0;
        w->sig[at++] = alone ? v : label_rank[v];
        w->sig[at++] = w->depth[v];
    }
    w->sig_start[n] = at;
    w->groups = number_groups(w, order);
    for (int round = 0; collapse && round < MAX_REFINEMENTS; round++) {
        at = 0;
        for (size_t v = 0; v < n; v++) {
            w->sig_start[v] = at;
            w->sig[at++] = w->group[v];
            append_group_set(w, w->parents + w->parent_start[v],
                             w->parent_start[v + 1] - w->parent_start[v], w->sig, &at);
            append_group_set(w, w->children + w->child_start[v],
                             w->child_start[v + 1] - w->child_start[v], w->sig, &at);
        }
        w->sig_start[n] = at;
        size_t before = w->groups;
        w->groups = number_groups(w, order);
        if (w->groups == before)
            break;
    }
    free(order);
    free(label_rank);
    return true;
}

static int analyse(viz_dag *dag, dag_work *w, bool collapse)
{
    memset(w, 0, sizeof *w);
    bool cyclic = false;
    w->on_path = calloc(dag->vertices_len + 1, sizeof *w->on_path);
    if (!w->on_path || !build_adjacency(dag, w) || !compute_depths(w, &cyclic))
        return dag_oom(dag);
    if (cyclic) {
        viz_set_error(dag->error, sizeof dag->error, "the graph has a cycle");
        return VIZ_EINVAL;
    }
    for (size_t i = 0; i < dag->path_len; i++)
        w->on_path[dag->path[i]] = true;
    if (!refine(dag, w, collapse))
        return dag_oom(dag);
    return VIZ_OK;
}

int viz_dag_collapsed_size(viz_dag *dag, size_t *nodes)
{
    dag_work w;
    int rc = analyse(dag, &w, true);
    if (rc == VIZ_OK)
        *nodes = w.groups;
    free_work(&w);
    return rc;
}

/* ------------------------------------------------------------------ */
/* drawing                                                             */
/* ------------------------------------------------------------------ */

typedef struct group_info {
    size_t first; /* a representative vertex */
    size_t count;
    size_t timed;   /* vertices with a known duration */
    viz_time total; /* summed known durations */
    bool on_path;
} group_info;

static void set_attr(void *obj, const char *name, const char *value)
{
    agsafeset(obj, (char *)name, (char *)value, "");
}

static void node_label(const viz_dag *dag, const group_info *g, char *buf, size_t len)
{
    const char *label = dag->vertices[g->first].label;
    char total[32], mean[32];
    viz_format_duration(g->total, total, sizeof total);
    if (g->count == 1) {
        if (dag->vertices[g->first].duration >= 0)
            snprintf(buf, len, "%s\n%s", label, total);
        else
            snprintf(buf, len, "%s", label);
    } else if (g->timed) {
        viz_format_duration(g->total / (viz_time)g->timed, mean, sizeof mean);
        snprintf(buf, len, "%s ×%zu\nmean %s", label, g->count, mean);
    } else {
        snprintf(buf, len, "%s ×%zu", label, g->count);
    }
}

/* Above this many nodes dot's crossing minimisation and network simplex
 * are capped and edges drawn straight: on long chains (message graphs) the
 * uncapped layout takes minutes for a few hundred nodes. */
#define DAG_FAST_LAYOUT_NODES 150

static void declare_dag_defaults(Agraph_t *g, const char *title, size_t nodes)
{
    if (nodes > DAG_FAST_LAYOUT_NODES) {
        agattr(g, AGRAPH, "nslimit", "2");
        agattr(g, AGRAPH, "nslimit1", "2");
        agattr(g, AGRAPH, "mclimit", "0.2");
        agattr(g, AGRAPH, "searchsize", "10");
        agattr(g, AGRAPH, "splines", "line");
    }
    agattr(g, AGRAPH, "label", (char *)(title ? title : ""));
    agattr(g, AGRAPH, "labelloc", "t");
    agattr(g, AGRAPH, "fontname", "DejaVu Sans");
    agattr(g, AGNODE, "shape", "box");
    agattr(g, AGNODE, "style", "rounded,filled");
    agattr(g, AGNODE, "fillcolor", "#f4f4f4");
    agattr(g, AGNODE, "color", "#909090");
    agattr(g, AGNODE, "penwidth", "1");
    agattr(g, AGNODE, "fontname", "DejaVu Sans");
    agattr(g, AGNODE, "fontsize", "11");
    agattr(g, AGNODE, "label", "\\N");
    agattr(g, AGEDGE, "color", "#a0a0a0");
    agattr(g, AGEDGE, "penwidth", "1");
    agattr(g, AGEDGE, "label", "");
    agattr(g, AGEDGE, "fontname", "DejaVu Sans");
    agattr(g, AGEDGE, "fontsize", "9");
}

static bool is_path_edge(const viz_dag *dag, const size_t *path_pos, size_t a, size_t b)
{
    (void)dag;
    return path_pos[a] != SIZE_MAX && path_pos[b] != SIZE_MAX && path_pos[b] == path_pos[a] + 1;
}

typedef struct group_edge {
    size_t from, to, count;
    bool on_path;
} group_edge;

static int compare_group_edges(const void *a, const void *b)
{
    const group_edge *x = a, *y = b;
    if (x->from != y->from)
        return x->from < y->from ? -1 : 1;
    return x->to < y->to ? -1 : x->to > y->to;
}

static void draw_edges(viz_dag *dag, const dag_work *w, Agraph_t *g, Agnode_t **nodes,
                       group_edge *ge, const size_t *path_pos)
{
    size_t m = dag->edges_len, out = 0;
    for (size_t e = 0; e < m; e++) {
        size_t a = dag->edges[e].from, b = dag->edges[e].to;
        ge[e] = (group_edge){w->group[a], w->group[b], 1, is_path_edge(dag, path_pos, a, b)};
    }
    qsort(ge, m, sizeof *ge, compare_group_edges);
    for (size_t e = 0; e < m; e++) {
        if (out && ge[out - 1].from == ge[e].from && ge[out - 1].to == ge[e].to) {
            ge[out - 1].count++;
            ge[out - 1].on_path |= ge[e].on_path;
        } else {
            ge[out++] = ge[e];
        }
    }
    for (size_t e = 0; e < out; e++) {
        Agedge_t *edge = agedge(g, nodes[ge[e].from], nodes[ge[e].to], NULL, 1);
        if (ge[e].on_path) {
            set_attr(edge, "color", "#d01010");
            set_attr(edge, "penwidth", "3.5");
        }
        if (ge[e].count > 1) {
            char label[32];
            snprintf(label, sizeof label, "×%zu", ge[e].count);
            set_attr(edge, "label", label);
        }
    }
}

static void draw_nodes(const viz_dag *dag, const dag_work *w, Agraph_t *g, Agnode_t **nodes,
                       group_info *info)
{
    for (size_t v = 0; v < w->n; v++) {
        group_info *gi = &info[w->group[v]];
        if (!gi->count)
            gi->first = v;
        gi->count++;
        if (dag->vertices[v].duration >= 0) {
            gi->total += dag->vertices[v].duration;
            gi->timed++;
        }
        gi->on_path |= w->on_path[v];
    }
    for (size_t k = 0; k < w->groups; k++) {
        char name[32], label[600];
        snprintf(name, sizeof name, "g%zu", k);
        nodes[k] = agnode(g, name, 1);
        node_label(dag, &info[k], label, sizeof label);
        set_attr(nodes[k], "label", label);
        if (info[k].on_path) {
            set_attr(nodes[k], "color", "#d01010");
            set_attr(nodes[k], "penwidth", "3.5");
            set_attr(nodes[k], "fillcolor", "#ffe8e8");
        } else if (info[k].count > 1) {
            set_attr(nodes[k], "style", "rounded,filled,bold");
            set_attr(nodes[k], "fillcolor", "#e4ecf7");
        }
    }
}

static int build_dag_graph(viz_dag *dag, dag_work *w, Agraph_t *g, const viz_dag_config *cfg)
{
    char title[1200], total[32], summary[200];
    viz_time path_time = 0;
    for (size_t i = 0; i < dag->path_len; i++)
        if (dag->vertices[dag->path[i]].duration > 0)
            path_time += dag->vertices[dag->path[i]].duration;
    viz_format_duration(path_time, total, sizeof total);
    snprintf(summary, sizeof summary, "critical path (red): %zu vertices, %s", dag->path_len,
             total);
    snprintf(title, sizeof title, "%s%s%s; %zu vertices shown as %zu nodes",
             cfg->title ? cfg->title : "", cfg->title ? "\n" : "",
             cfg->path_summary ? cfg->path_summary : summary, dag->vertices_len, w->groups);
    declare_dag_defaults(g, title, w->groups);
    Agnode_t **nodes = calloc(w->groups + 1, sizeof *nodes);
    group_info *info = calloc(w->groups + 1, sizeof *info);
    group_edge *ge = malloc((dag->edges_len + 1) * sizeof *ge);
    size_t *path_pos = malloc((w->n + 1) * sizeof *path_pos);
    int rc = VIZ_OK;
    if (!nodes || !info || !ge || !path_pos) {
        rc = dag_oom(dag);
    } else {
        for (size_t v = 0; v < w->n; v++)
            path_pos[v] = SIZE_MAX;
        for (size_t i = 0; i < dag->path_len; i++)
            path_pos[dag->path[i]] = i;
        draw_nodes(dag, w, g, nodes, info);
        draw_edges(dag, w, g, nodes, ge, path_pos);
    }
    free(nodes);
    free(info);
    free(ge);
    free(path_pos);
    return rc;
}

int viz_dag_render(viz_dag *dag, const char *path, const viz_dag_config *config)
{
    viz_dag_config defaults = {.collapse = true};
    const viz_dag_config *cfg = config ? config : &defaults;
    dag_work w;
    int rc = analyse(dag, &w, cfg->collapse);
    Agraph_t *g = rc == VIZ_OK ? viz_gv_open("dag") : NULL;
    if (rc == VIZ_OK && !g)
        rc = dag_oom(dag);
    if (rc == VIZ_OK)
        rc = build_dag_graph(dag, &w, g, cfg);
    if (rc == VIZ_OK)
        rc = viz_gv_write(g, path, dag->error, sizeof dag->error);
    if (g)
        agclose(g);
    free_work(&w);
    return rc;
}
