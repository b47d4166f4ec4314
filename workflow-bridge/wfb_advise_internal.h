/*
 * wfb_advise_internal.h - what the mapping advice's files share: the replay
 * of a run's recorded component executions under another placement
 * (wfb_advise_replay.c), used by the prediction model (wfb_advise.c).
 */
#ifndef WFB_ADVISE_INTERNAL_H
#define WFB_ADVISE_INTERNAL_H

#include "wfb_internal.h"

/* The executions of a run with their execution times and dependencies
 * (an execution depends on those that wrote the messages it read). */
typedef struct advise_replay advise_replay;

/* From a finished graph of one run. task_of[i] maps the graph's task i
 * (wfb_task_stats_at) to the caller's task index. NULL when out of memory. */
advise_replay *advise_replay_new(const wfb_graph *g, const uint32_t *task_of);
void advise_replay_free(advise_replay *r);
/* Executions and dependencies (what one replay costs). */
size_t advise_replay_size(const advise_replay *r);
/* The makespan of the executions replayed on the placement where[task]
 * (worker per caller task index), worker w running on core w mod cores:
 * each core runs one execution at a time, the ready one that began first
 * in the run; an execution is ready when every execution it depends on has
 * finished, plus c seconds for each that ran on another worker. -1 when out
 * of memory. */
double advise_replay_run(advise_replay *r, const uint32_t *where, unsigned cores, double c);

#endif
