/*
 * advice_internal.h - what the advice library's files share: the replay
 * of a run's recorded component executions under another placement
 * (advice_replay.c), used by the prediction model (advice.c). The advice
 * reads the bridge's graphs closely, and with them the bridge's internals
 * (wfb_internal.h: the graph's fields, its error messages and array
 * growth); it is the one module outside the bridge that does.
 */
#ifndef ADVICE_INTERNAL_H
#define ADVICE_INTERNAL_H

#include "advice.h"
#include "wfb_internal.h"

/* The executions of a run with their execution times and dependencies
 * (an execution depends on those that wrote the messages it read). */
typedef struct advice_replay advice_replay;

/* From a finished graph of one run. task_of[i] maps the graph's task i
 * (wfb_task_stats_at) to the caller's task index. NULL when out of memory. */
advice_replay *advice_replay_new(const wfb_graph *g, const uint32_t *task_of);
void advice_replay_free(advice_replay *r);
/* Executions and dependencies (what one replay costs). */
size_t advice_replay_size(const advice_replay *r);
/* The makespan of the executions replayed on the placement where[task]
 * (worker per caller task index), worker w running on core w mod cores:
 * each core runs one execution at a time, the ready one that began first
 * in the run; an execution is ready when every execution it depends on has
 * finished, plus c seconds for each that ran on another worker. -1 when out
 * of memory. */
double advice_replay_run(advice_replay *r, const uint32_t *where, unsigned cores, double c);

#endif
