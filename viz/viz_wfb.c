/*
 * viz_wfb.c - adapter from the workflow bridge's analysis graph to viz_dag,
 * so the critical path the bridge computes is drawn in context by the same
 * code as any other DAG. Only copies: vertices (label, weight), edges and
 * the path; all drawing decisions stay in dag_graph.c. The graph must have
 * been through wfb_graph_finish (its adjacency is what is drawn).
 */
#include "viz_wfb.h"
#include "viz_internal.h"

#include <math.h>

static const char *vertex_label(const wfb_graph *g, uint32_t v)
{
    const char *label = wfb_vertex_attr(g, v, WFB_ATTR_LABEL);
    if (!label || !*label)
        label = wfb_vertex_attr(g, v, WFB_ATTR_ORIGIN);
    if (!label || !*label)
        label = wfb_vertex_id(g, v);
    return label ? label : "?";
}

static int copy_graph(viz_dag *dag, const wfb_graph *g, const wfb_path *path)
{
    size_t nv = wfb_vertex_count(g);
    for (size_t v = 0; v < nv; v++) {
        double seconds = wfb_vertex_weight(g, (uint32_t)v);
        viz_time ns = isfinite(seconds) && seconds >= 0 ? (viz_time)llround(seconds * 1e9) : -1;
        int rc = viz_dag_add_vertex(dag, v, vertex_label(g, (uint32_t)v), ns);
        if (rc != VIZ_OK)
            return rc;
    }
    /* the finished graph's adjacency: duplicates already dropped */
    for (size_t v = 0; v < nv; v++) {
        const uint32_t *edges;
        size_t n = wfb_out_edges(g, (uint32_t)v, &edges);
        for (size_t i = 0; i < n; i++) {
            int rc = viz_dag_add_edge(dag, v, wfb_edge_dst(g, edges[i]));
            if (rc != VIZ_OK)
                return rc;
        }
    }
    if (!path || !path->valid || !path->n)
        return VIZ_OK;
    uint64_t *ids = malloc(path->n * sizeof *ids);
    if (!ids)
        return VIZ_ENOMEM;
    for (size_t i = 0; i < path->n; i++)
        ids[i] = path->vertices[i];
    int rc = viz_dag_set_critical_path(dag, ids, path->n);
    free(ids);
    return rc;
}

int viz_wfb_render(const wfb_graph *g, const wfb_path *path, const char *out, const char *title,
                   bool collapse, char *err, size_t errlen)
{
    viz_dag *dag;
    int rc = viz_dag_create(&dag, err, errlen);
    if (rc != VIZ_OK)
        return rc;
    rc = copy_graph(dag, g, path);
    if (rc == VIZ_OK) {
        viz_dag_config cfg = {.collapse = collapse, .title = title};
        rc = viz_dag_render(dag, out, &cfg);
    }
    if (rc != VIZ_OK)
        viz_set_error(err, errlen, "%s", rc == VIZ_ENOMEM ? "out of memory" : viz_dag_error(dag));
    viz_dag_destroy(dag);
    return rc;
}
