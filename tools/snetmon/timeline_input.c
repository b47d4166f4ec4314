/*
 * timeline_input.c - monitor events into viz_timeline (timeline_input.h).
 */
#include "timeline_input.h"

static viz_period_end block_cause(unsigned cause)
{
    return cause == MON_BLOCK_OUTPUT ? VIZ_END_BLOCKED_OUTPUT
           : cause == MON_BLOCK_ANY  ? VIZ_END_BLOCKED_ANY
                                     : VIZ_END_BLOCKED_INPUT;
}

uint64_t timeline_run_key(const mon_event *ev, uint64_t id)
{
    return ev->run > 1 && id ? (uint64_t)ev->run << 32 | (id & 0xffffffffu) : id;
}

int timeline_feed(viz_timeline *tl, const mon_event *ev)
{
    uint64_t task = timeline_run_key(ev, ev->task);
    int w = (int)ev->worker;
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
