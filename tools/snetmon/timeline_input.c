/*
 * timeline_input.c - monitor events into viz_timeline (timeline_input.h).
 */
#include "timeline_input.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static viz_period_end block_cause(unsigned cause)
{
    return cause == MON_BLOCK_OUTPUT ? VIZ_END_BLOCKED_OUTPUT
           : cause == MON_BLOCK_ANY  ? VIZ_END_BLOCKED_ANY
                                     : VIZ_END_BLOCKED_INPUT;
}

uint64_t timeline_run_key(const mon_event *ev, uint64_t id)
{
    return ev->run > 1 && id ? mon_run_key(ev, id) : id;
}

/* The column of a worker of a multi-rank trace says which rank and which
 * worker there ("r1.w0"); named once, by the worker's first event. */
static int label_ranked_worker(timeline_feeder *f, const mon_event *ev)
{
    if (!ev->ranked || (ev->worker < f->n_labelled && f->labelled[ev->worker]))
        return VIZ_OK;
    if (ev->worker >= f->n_labelled) {
        size_t n = (size_t)ev->worker + 1;
        bool *grown = realloc(f->labelled, n * sizeof *grown);
        if (!grown)
            return VIZ_ENOMEM;
        memset(grown + f->n_labelled, 0, (n - f->n_labelled) * sizeof *grown);
        f->labelled = grown;
        f->n_labelled = n;
    }
    f->labelled[ev->worker] = true;
    char label[40];
    snprintf(label, sizeof label, "r%u.w%u", ev->rank, ev->rank_worker);
    return viz_timeline_add_worker(f->tl, (int)ev->worker, label);
}

int timeline_feed(timeline_feeder *f, const mon_event *ev)
{
    viz_timeline *tl = f->tl;
    uint64_t task = timeline_run_key(ev, ev->task);
    int w = (int)ev->worker;
    int rc = label_ranked_worker(f, ev);
    if (rc != VIZ_OK)
        return rc;
    viz_time t = (viz_time)ev->time;
    switch (ev->kind) {
    case MON_EV_TASK_MAP:
        return viz_timeline_add_task(tl, task, ev->name && *ev->name ? ev->name : "?", NULL);
    case MON_EV_WORKER_START:
        return viz_timeline_add_worker(tl, w, NULL);
    case MON_EV_TASK_DISPATCH:
        return viz_timeline_dispatch(tl, w, task, t);
    case MON_EV_TASK_BLOCK:
        return viz_timeline_stop(tl, w, task, t, block_cause(ev->cause));
    case MON_EV_TASK_YIELD:
        return viz_timeline_stop(tl, w, task, t, VIZ_END_YIELDED);
    case MON_EV_TASK_DESTROY:
        return viz_timeline_stop(tl, w, task, t, VIZ_END_DESTROYED);
    case MON_EV_WORKER_WAIT:
        return viz_timeline_waited(tl, w, t);
    case MON_EV_WORKER_RESUME:
        return viz_timeline_resumed(tl, w, t);
    case MON_EV_MESSAGE_READ:
        return viz_timeline_add_message(tl, w, t, VIZ_MSG_READ);
    case MON_EV_MESSAGE_WRITTEN:
        return viz_timeline_add_message(tl, w, t, VIZ_MSG_WRITTEN);
    default:
        return VIZ_OK;
    }
}

void timeline_feeder_free(timeline_feeder *f)
{
    free(f->labelled);
    f->labelled = NULL;
    f->n_labelled = 0;
}
