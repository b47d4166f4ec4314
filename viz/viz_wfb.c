/*
 * viz_wfb.c - adapter from the workflow bridge's analysis graph to viz_dag,
 * so the critical path the bridge computes is drawn in context by the same
 * code as any other DAG. Only copies: vertices (label, weight), edges and
 * the path; all drawing decisions stay in dag_graph.c. The graph must have
 * been through wfb_graph_finish (its adjacency is what is drawn).
 *
 * Graphviz's layout grows faster than linearly, so a graph that is still
 * large after collapsing (an LPEL message graph has a vertex per message)
 * is drawn as the critical path with its direct neighbours only, and the
 * title says how much was left out: a picture in bounded time, with the
 * path still in its immediate context.
 */
#include "viz_wfb.h"
#include "viz_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Collapsed nodes above which only the path's neighbourhood is drawn. */
#define VIZ_WFB_MAX_NODES 600
/* Vertices above which collapsing is not even tried: go to the path. */
#define VIZ_WFB_MAX_FULL_VERTICES 20000
/* Path vertices drawn at each end of a longer path; the middle is elided. */
#define VIZ_WFB_PATH_END 60

static const char *vertex_label(const wfb_graph *g, uint32_t v)
{
    const char *label = wfb_vertex_attr(g, v, WFB_ATTR_LABEL);
    if (!label || !*label)
        label = wfb_vertex_attr(g, v, WFB_ATTR_ORIGIN);
    if (!label || !*label)
        label = wfb_vertex_id(g, v);
    return label ? label : "?";
}

/* Copy g into dag; with keep, only the vertices it marks (and the edges
 * between them). */
static int copy_graph(viz_dag *dag, const wfb_graph *g, const wfb_path *path, const bool *keep)
{
    size_t nv = wfb_vertex_count(g);
    for (size_t v = 0; v < nv; v++) {
        if (keep && !keep[v])
            continue;
        double seconds = wfb_vertex_weight(g, (uint32_t)v);
        viz_time ns = isfinite(seconds) && seconds >= 0 ? (viz_time)llround(seconds * 1e9) : -1;
        int rc = viz_dag_add_vertex(dag, v, vertex_label(g, (uint32_t)v), ns);
        if (rc != VIZ_OK)
            return rc;
    }
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
    if (!path || !path->valid || !path->n || keep)
        return VIZ_OK; /* with keep, set_drawn_path does it after the elision */
    uint64_t *ids = malloc(path->n * sizeof *ids);
    if (!ids)
        return VIZ_ENOMEM;
    for (size_t i = 0; i < path->n; i++)
        ids[i] = path->vertices[i];
    int rc = viz_dag_set_critical_path(dag, ids, path->n);
    free(ids);
    return rc;
}

/* Whether path vertex i is drawn: all of a short path, the two ends of a
 * long one (the middle becomes one "... N more ..." vertex). */
static bool path_index_drawn(const wfb_path *path, size_t i)
{
    return path->n <= 2 * VIZ_WFB_PATH_END || i < VIZ_WFB_PATH_END ||
           i >= path->n - VIZ_WFB_PATH_END;
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

/* The drawn part of the path and, while that stays small enough to lay
 * out, their direct predecessors and successors. */
static bool *path_neighbourhood(const wfb_graph *g, const wfb_path *path, size_t *kept)
{
    size_t nv = wfb_vertex_count(g);
    bool *keep = calloc(nv ? nv : 1, sizeof *keep);
    if (!keep)
        return NULL;
    for (size_t i = 0; path && path->valid && i < path->n; i++)
        if (path_index_drawn(path, i))
            keep[path->vertices[i]] = true;
    size_t path_only = count_kept(keep, nv);
    for (size_t i = 0; path && path->valid && i < path->n; i++)
        if (path_index_drawn(path, i))
            mark_neighbours(g, path->vertices[i], keep);
    *kept = count_kept(keep, nv);
    if (*kept > 2 * VIZ_WFB_MAX_NODES) { /* too many neighbours: the path alone */
        memset(keep, 0, nv * sizeof *keep);
        for (size_t i = 0; path && path->valid && i < path->n; i++)
            if (path_index_drawn(path, i))
                keep[path->vertices[i]] = true;
        *kept = path_only;
    }
    return keep;
}

/* The elided middle of a long path: one vertex between the two ends. */
static int add_elision(viz_dag *dag, const wfb_graph *g, const wfb_path *path)
{
    if (!path || !path->valid || path->n <= 2 * VIZ_WFB_PATH_END)
        return VIZ_OK;
    uint64_t id = wfb_vertex_count(g);
    char label[80];
    snprintf(label, sizeof label, "... %zu more vertices of the path ...",
             path->n - 2 * VIZ_WFB_PATH_END);
    int rc = viz_dag_add_vertex(dag, id, label, -1);
    if (rc == VIZ_OK)
        rc = viz_dag_add_edge(dag, path->vertices[VIZ_WFB_PATH_END - 1], id);
    if (rc == VIZ_OK)
        rc = viz_dag_add_edge(dag, id, path->vertices[path->n - VIZ_WFB_PATH_END]);
    return rc;
}

/* The critical path as drawn: its two ends, with the elision vertex
 * (id = vertex count) between them when the middle is left out. */
static int set_drawn_path(viz_dag *dag, const wfb_graph *g, const wfb_path *path)
{
    if (!path || !path->valid || !path->n)
        return VIZ_OK;
    uint64_t *ids = malloc((path->n + 1) * sizeof *ids);
    if (!ids)
        return VIZ_ENOMEM;
    size_t n = 0;
    for (size_t i = 0; i < path->n; i++) {
        if (path_index_drawn(path, i))
            ids[n++] = path->vertices[i];
        else if (i == VIZ_WFB_PATH_END)
            ids[n++] = wfb_vertex_count(g);
    }
    int rc = viz_dag_set_critical_path(dag, ids, n);
    free(ids);
    return rc;
}

/* Render dag; returns VIZ_OK or an error with err set. */
static int render_dag(viz_dag *dag, const char *out, const char *title, bool collapse, char *err,
                      size_t errlen)
{
    viz_dag_config cfg = {.collapse = collapse, .title = title};
    int rc = viz_dag_render(dag, out, &cfg);
    if (rc != VIZ_OK)
        viz_set_error(err, errlen, "%s", rc == VIZ_ENOMEM ? "out of memory" : viz_dag_error(dag));
    return rc;
}

/* Too large even collapsed: draw the path's neighbourhood instead. */
static int render_neighbourhood(const wfb_graph *g, const wfb_path *path, const char *out,
                                const char *title, bool collapse, char *err, size_t errlen)
{
    size_t kept;
    bool *keep = path_neighbourhood(g, path, &kept);
    if (!keep) {
        viz_set_error(err, errlen, "out of memory");
        return VIZ_ENOMEM;
    }
    size_t len = (title ? strlen(title) : 0) + 160;
    char *long_title = malloc(len);
    viz_dag *dag = NULL;
    int rc = long_title ? viz_dag_create(&dag, err, errlen) : VIZ_ENOMEM;
    if (rc == VIZ_OK) {
        snprintf(long_title, len, "%s%sthe critical path and its direct neighbours: %zu of %zu "
                 "vertices", title ? title : "", title ? "\n" : "", kept, wfb_vertex_count(g));
        rc = copy_graph(dag, g, path, keep);
        if (rc == VIZ_OK)
            rc = add_elision(dag, g, path);
        if (rc == VIZ_OK)
            rc = set_drawn_path(dag, g, path);
        if (rc == VIZ_OK)
            rc = render_dag(dag, out, long_title, collapse, err, errlen);
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

int viz_wfb_render(const wfb_graph *g, const wfb_path *path, const char *out, const char *title,
                   bool collapse, char *err, size_t errlen)
{
    bool has_path = path && path->valid && path->n > 0;
    if (has_path && (wfb_vertex_count(g) > VIZ_WFB_MAX_FULL_VERTICES ||
                     path->n > 2 * VIZ_WFB_PATH_END))
        return render_neighbourhood(g, path, out, title, collapse, err, errlen);
    viz_dag *dag;
    int rc = viz_dag_create(&dag, err, errlen);
    if (rc != VIZ_OK)
        return rc;
    rc = copy_graph(dag, g, path, NULL);
    size_t nodes = 0;
    if (rc == VIZ_OK)
        rc = collapse ? viz_dag_collapsed_size(dag, &nodes) : VIZ_OK;
    if (rc == VIZ_OK && !collapse)
        nodes = wfb_vertex_count(g);
    if (rc == VIZ_OK && nodes > VIZ_WFB_MAX_NODES && path && path->valid) {
        viz_dag_destroy(dag);
        return render_neighbourhood(g, path, out, title, collapse, err, errlen);
    }
    if (rc == VIZ_OK)
        rc = render_dag(dag, out, title, collapse, err, errlen);
    else
        viz_set_error(err, errlen, "%s", rc == VIZ_ENOMEM ? "out of memory" : viz_dag_error(dag));
    viz_dag_destroy(dag);
    return rc;
}
