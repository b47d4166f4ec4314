/*
 * viz_wfb.c - adapter from the workflow bridge's analysis graph to viz_dag,
 * so the critical path the bridge computes is drawn in context by the same
 * code as any other DAG. Only copies: vertices (label, weight), edges and
 * the path; all drawing decisions stay in dag_graph.c. The graph must have
 * been through wfb_graph_finish (its adjacency is what is drawn).
 *
 * The picture is the path `snetmon wcp` prints: the same vertices, each
 * labelled with its step (wfb_path_step: the time the path spends there,
 * in readable units), and the same length in the title. Nothing of the
 * path is left out; what is left out is context. An LPEL trace's
 * as-executed path is steps, not vertices: the picture draws the data
 * states its run steps wrote, each with that step's time (path_view).
 *
 * Graphviz's layout grows faster than linearly, so a graph that is still
 * large after collapsing (an LPEL message graph has a vertex per message)
 * is drawn as the critical path with its direct neighbours only (the path
 * alone when even those are too many), and the title says how much was
 * left out: a picture in bounded time.
 */
#include "viz_wfb.h"
#include "viz_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Collapsed nodes above which only the path's neighbourhood is drawn (and
 * twice that: the path alone). Graphviz lays out a few hundred nodes in
 * about a second; the main job draws one such picture. */
#define VIZ_WFB_MAX_NODES 150
/* Vertices above which collapsing is not even tried: go to the path. */
#define VIZ_WFB_MAX_FULL_VERTICES 20000

static viz_time to_ns(double seconds)
{
    return isfinite(seconds) && seconds >= 0 ? (viz_time)llround(seconds * 1e9) : -1;
}

static const char *vertex_label(const wfb_graph *g, uint32_t v)
{
    const char *label = wfb_vertex_attr(g, v, WFB_ATTR_LABEL);
    if (!label || !*label)
        label = wfb_vertex_attr(g, v, WFB_ATTR_ORIGIN);
    if (!label || !*label)
        label = wfb_vertex_id(g, v);
    return label ? label : "?";
}

/* The path as the picture draws it: its vertices in order, and the time
 * the path spends at each. */
typedef struct path_view {
    size_t n;
    uint32_t *v;
    viz_time *ns;
} path_view;

static void path_view_free(path_view *pv)
{
    free(pv->v);
    free(pv->ns);
}

/* The view of path (nothing when it is invalid or NULL); -1 out of memory. */
static int path_view_of(const wfb_graph *g, const wfb_path *path, path_view *pv)
{
    memset(pv, 0, sizeof *pv);
    if (!path || !path->valid)
        return 0;
    size_t cap = path->n_steps ? path->n_steps : path->n;
    pv->v = malloc((cap ? cap : 1) * sizeof *pv->v);
    pv->ns = malloc((cap ? cap : 1) * sizeof *pv->ns);
    if (!pv->v || !pv->ns) {
        path_view_free(pv);
        return -1;
    }
    for (size_t i = 0; i < path->n; i++) {
        pv->v[pv->n] = path->vertices[i];
        pv->ns[pv->n++] = to_ns(wfb_path_step(g, path, i));
    }
    for (size_t i = 0; i < path->n_steps; i++) {
        wfb_step s = wfb_path_step_at(path, i);
        if (s.kind != WFB_STEP_RUN || s.vertex == WFB_NONE ||
            (pv->n && pv->v[pv->n - 1] == s.vertex))
            continue;
        pv->v[pv->n] = s.vertex;
        pv->ns[pv->n++] = to_ns(s.end_s - s.start_s);
    }
    return 0;
}

/* The duration drawn on each vertex: a path vertex's step, another's
 * weight when it has one (-1: none). */
static viz_time *vertex_durations(const wfb_graph *g, const path_view *pv)
{
    size_t nv = wfb_vertex_count(g);
    viz_time *ns = malloc((nv ? nv : 1) * sizeof *ns);
    if (!ns)
        return NULL;
    for (size_t v = 0; v < nv; v++) {
        double w = wfb_vertex_weight(g, (uint32_t)v);
        ns[v] = w > 0 ? to_ns(w) : -1;
    }
    for (size_t i = 0; i < pv->n; i++)
        ns[pv->v[i]] = pv->ns[i];
    return ns;
}

/* Copy g into dag; with keep, only the vertices it marks (and the edges
 * between them). */
static int copy_graph(viz_dag *dag, const wfb_graph *g, const path_view *path, const bool *keep)
{
    size_t nv = wfb_vertex_count(g);
    viz_time *ns = vertex_durations(g, path);
    if (!ns)
        return VIZ_ENOMEM;
    for (size_t v = 0; v < nv; v++) {
        if (keep && !keep[v])
            continue;
        int rc = viz_dag_add_vertex(dag, v, vertex_label(g, (uint32_t)v), ns[v]);
        if (rc != VIZ_OK) {
            free(ns);
            return rc;
        }
    }
    free(ns);
    /* the finished graph's adjacency: duplicates already dropped */
    for (size_t v = 0; v < nv; v++) {
        if (keep && !keep[v])
            continue;
        const uint32_t *edges;
        size_t n = wfb_out_edges(g, (uint32_t)v, &edges);
        for (size_t i = 0; i < n; i++) {
            if (keep && !keep[wfb_edge_dst(g, edges[i])])
                continue;
            int rc = viz_dag_add_edge(dag, v, wfb_edge_dst(g, edges[i]));
            if (rc != VIZ_OK)
                return rc;
        }
    }
    if (!path->n)
        return VIZ_OK;
    uint64_t *ids = malloc(path->n * sizeof *ids);
    if (!ids)
        return VIZ_ENOMEM;
    for (size_t i = 0; i < path->n; i++)
        ids[i] = path->v[i];
    int rc = viz_dag_set_critical_path(dag, ids, path->n);
    free(ids);
    return rc;
}

static void mark_neighbours(const wfb_graph *g, uint32_t v, bool *keep)
{
    const uint32_t *edges;
    size_t n = wfb_out_edges(g, v, &edges);
    for (size_t k = 0; k < n; k++)
        keep[wfb_edge_dst(g, edges[k])] = true;
    n = wfb_in_edges(g, v, &edges);
    for (size_t k = 0; k < n; k++)
        keep[wfb_edge_src(g, edges[k])] = true;
}

static size_t count_kept(const bool *keep, size_t nv)
{
    size_t kept = 0;
    for (size_t v = 0; v < nv; v++)
        kept += keep[v];
    return kept;
}

/* The whole path and, while that stays small enough to lay out, its
 * vertices' direct predecessors and successors. */
static bool *path_neighbourhood(const wfb_graph *g, const path_view *path, size_t *kept)
{
    size_t nv = wfb_vertex_count(g);
    bool *keep = calloc(nv ? nv : 1, sizeof *keep);
    if (!keep)
        return NULL;
    for (size_t i = 0; i < path->n; i++)
        keep[path->v[i]] = true;
    size_t path_only = count_kept(keep, nv);
    for (size_t i = 0; i < path->n; i++)
        mark_neighbours(g, path->v[i], keep);
    *kept = count_kept(keep, nv);
    if (*kept > 2 * VIZ_WFB_MAX_NODES) { /* too many neighbours: the path alone */
        memset(keep, 0, nv * sizeof *keep);
        for (size_t i = 0; i < path->n; i++)
            keep[path->v[i]] = true;
        *kept = path_only;
    }
    return keep;
}

/* "as-executed path (red): 303 vertices, 275 ms", as wcp prints it. */
static void path_summary(const wfb_path *path, char *buf, size_t len)
{
    if (!path || !path->valid) {
        snprintf(buf, len, "no critical path (the input has no times or durations)");
        return;
    }
    char length[32];
    viz_format_duration(to_ns(path->length_s), length, sizeof length);
    if (path->n_steps)
        snprintf(buf, len, "%s (red: the data states its run steps wrote): %zu steps, %s (%.9g s)",
                 wfb_path_kind_name(path->kind), path->n_steps, length, path->length_s);
    else
        snprintf(buf, len, "%s (red): %zu vertices, %s (%.9g s)", wfb_path_kind_name(path->kind),
                 path->n, length, path->length_s);
}

/* Render dag; returns VIZ_OK or an error with err set. */
static int render_dag(viz_dag *dag, const wfb_path *path, const char *out, const char *title,
                      bool collapse, char *err, size_t errlen)
{
    char summary[200];
    path_summary(path, summary, sizeof summary);
    viz_dag_config cfg = {.collapse = collapse, .title = title, .path_summary = summary};
    int rc = viz_dag_render(dag, out, &cfg);
    if (rc != VIZ_OK)
        viz_set_error(err, errlen, "%s", rc == VIZ_ENOMEM ? "out of memory" : viz_dag_error(dag));
    return rc;
}

/* Too large even collapsed: draw the path's neighbourhood instead. */
static int render_neighbourhood(const wfb_graph *g, const wfb_path *path, const path_view *pv,
                                const char *out, const char *title, bool collapse, char *err,
                                size_t errlen)
{
    size_t kept;
    bool *keep = path_neighbourhood(g, pv, &kept);
    if (!keep) {
        viz_set_error(err, errlen, "out of memory");
        return VIZ_ENOMEM;
    }
    size_t len = (title ? strlen(title) : 0) + 160;
    char *long_title = malloc(len);
    viz_dag *dag = NULL;
    int rc = long_title ? viz_dag_create(&dag, err, errlen) : VIZ_ENOMEM;
    if (rc == VIZ_OK) {
        bool alone = pv->n && kept == pv->n;
        snprintf(long_title, len, "%s%sthe critical path %s: %zu of %zu vertices",
                 title ? title : "", title ? "\n" : "",
                 alone ? "alone (its neighbours are too many to lay out)"
                       : "and its direct neighbours",
                 kept, wfb_vertex_count(g));
        rc = copy_graph(dag, g, pv, keep);
        if (rc == VIZ_OK)
            rc = render_dag(dag, path, out, long_title, collapse, err, errlen);
        else
            viz_set_error(err, errlen, "out of memory");
    } else if (!long_title) {
        viz_set_error(err, errlen, "out of memory");
    }
    viz_dag_destroy(dag);
    free(long_title);
    free(keep);
    return rc;
}

static int render_view(const wfb_graph *g, const wfb_path *path, const path_view *pv,
                       const char *out, const char *title, bool collapse, char *err,
                       size_t errlen)
{
    if (pv->n && wfb_vertex_count(g) > VIZ_WFB_MAX_FULL_VERTICES)
        return render_neighbourhood(g, path, pv, out, title, collapse, err, errlen);
    viz_dag *dag;
    int rc = viz_dag_create(&dag, err, errlen);
    if (rc != VIZ_OK)
        return rc;
    rc = copy_graph(dag, g, pv, NULL);
    size_t nodes = 0;
    if (rc == VIZ_OK)
        rc = collapse ? viz_dag_collapsed_size(dag, &nodes) : VIZ_OK;
    if (rc == VIZ_OK && !collapse)
        nodes = wfb_vertex_count(g);
    if (rc == VIZ_OK && nodes > VIZ_WFB_MAX_NODES && path && path->valid) {
        viz_dag_destroy(dag);
        return render_neighbourhood(g, path, pv, out, title, collapse, err, errlen);
    }
    if (rc == VIZ_OK)
        rc = render_dag(dag, path, out, title, collapse, err, errlen);
    else
        viz_set_error(err, errlen, "%s", rc == VIZ_ENOMEM ? "out of memory" : viz_dag_error(dag));
    viz_dag_destroy(dag);
    return rc;
}

int viz_wfb_render(const wfb_graph *g, const wfb_path *path, const char *out, const char *title,
                   bool collapse, char *err, size_t errlen)
{
    path_view pv;
    if (path_view_of(g, path, &pv)) {
        viz_set_error(err, errlen, "out of memory");
        return VIZ_ENOMEM;
    }
    int rc = render_view(g, path, &pv, out, title, collapse, err, errlen);
    path_view_free(&pv);
    return rc;
}
