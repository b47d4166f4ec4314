/*
 * viz_wfb.h - draws a workflow-bridge analysis graph with a critical path
 * (wfb_longest_path or wfb_as_executed_path) through viz_dag: the thin
 * adapter "snetmon wcp INPUT --render FILE" needs, and the analysis sections
 * of the HTML report (`snetmon report`). Part of the viz library, which
 * links the workflow bridge (CMake target wfb).
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

/* Adds an analysed trace to an HTML report (viz.h, part 4): what could not
 * be read (--partial), the figures of m (eq. 1-3 and the variants, as
 * `snetmon metrics` prints them), the timeline tl (may be NULL) with path
 * drawn over it, the waits per worker, the steps of path (NULL or invalid:
 * a note), the tasks (sortable by execution time and by waits; those on
 * the path marked) and the waiting relations. Nothing is computed again:
 * the figures are the bridge's. Returns VIZ_OK or a viz_status, err set. */
int viz_wfb_report_add(viz_report *r, const wfb_graph *g, const wfb_message_report *m,
                       const wfb_path *path, viz_timeline *tl, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif /* VIZ_WFB_H */
