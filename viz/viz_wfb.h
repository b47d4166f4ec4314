/*
 * viz_wfb.h - draws a workflow-bridge analysis graph with a critical path
 * (wfb_longest_path or wfb_as_executed_path) through viz_dag: the thin
 * adapter "snetmon wcp INPUT --render FILE" needs. Built into the viz
 * library only when the workflow bridge (CMake target wfb) is built.
 */
#ifndef VIZ_WFB_H
#define VIZ_WFB_H

#include "viz.h"
#include "wfb.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Renders g (after wfb_graph_finish) with path highlighted to out (".svg",
 * ".png" or ".dot"): every vertex of the path, as `snetmon wcp` prints it,
 * each with its step (wfb_path_step), and the path's kind, vertex count and
 * length in the title. Vertex labels are the vertex's label attribute, else
 * its origin (producer), else its id, so that repeated structure (many
 * messages of one producer, many jobs of one kind) collapses into "label
 * ×N" nodes; vertices off the path show their weight when they have one.
 * path may be NULL or invalid (nothing highlighted). title may be NULL.
 * Returns VIZ_OK or a viz_status with err set. */
int viz_wfb_render(const wfb_graph *g, const wfb_path *path, const char *out, const char *title,
                   bool collapse, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif /* VIZ_WFB_H */
