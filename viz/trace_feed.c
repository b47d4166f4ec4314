/*
 * trace_feed.c - a monitor trace into the pictures: the one adapter from
 * the trace reader's events (mon_reader.h) to viz_timeline, which `snetmon
 * render` (the image), `snetmon report` (the report's timeline) and the
 * text format's event-style records share, so that all draw the same
 * periods and name the same columns (one per worker; "r1.w0" per (rank,
 * worker) of a multi-rank trace); and to viz_net, the network as run
 * (`snetmon render --graph`).
 *
 * Why through the reader's period layer (mon_periods): a period is a
 * dispatch paired with the block, yield or destroy that ends it, and that
 * pairing, with its rule for ends the trace lacks, is made once for every
 * consumer; here the periods and waits only become boxes and bins.
 */
#include "viz_internal.h"

#include "mon_reader.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct viz_trace_feeder {
    viz_timeline *tl;
    mon_periods *periods;
    bool *labelled; /* [n_labelled], by mon_event.worker: column named */
    size_t n_labelled;
    bool any;
    uint64_t last; /* the latest event's time */
    int status;    /* the timeline's complaint that stopped the periods */
};

uint64_t viz_trace_id(uint32_t run, uint64_t id)
{
    return run > 1 && id ? mon_run_id_key(run, id) : id;
}

static viz_period_end period_end(mon_interval_end how)
{
    switch (how) {
    case MON_END_BLOCK_INPUT:
        return VIZ_END_BLOCKED_INPUT;
    case MON_END_BLOCK_OUTPUT:
        return VIZ_END_BLOCKED_OUTPUT;
    case MON_END_BLOCK_ANY:
        return VIZ_END_BLOCKED_ANY;
    case MON_END_YIELD:
        return VIZ_END_YIELDED;
    case MON_END_DESTROY:
        return VIZ_END_DESTROYED;
    default:
        return VIZ_END_OPEN; /* lost, or still open when the trace ended */
    }
}

/* A period or a wait has ended: a box (and bins) in its worker's column.
 * A refusal of the timeline stops the period layer (return 1) and is kept
 * in status, apart from the layer's own -1 (out of memory). */
static int on_interval(void *ctx, const mon_interval *iv)
{
    viz_trace_feeder *f = ctx;
    viz_time start = (viz_time)iv->start, end = (viz_time)iv->end;
    if (iv->kind == MON_INTERVAL_EXEC)
        f->status = viz_timeline_add_period(f->tl, (int)iv->worker,
                                            viz_trace_id(iv->run, iv->task), start, end,
                                            period_end(iv->how));
    else if (iv->kind == MON_INTERVAL_IDLE)
        f->status = viz_timeline_add_wait(f->tl, (int)iv->worker, start, end);
    return f->status != VIZ_OK;
}

/* The period layer's result as a viz status. */
static int periods_status(const viz_trace_feeder *f, int rc)
{
    return rc == 0 ? VIZ_OK : rc == -1 ? VIZ_ENOMEM : f->status;
}

viz_trace_feeder *viz_trace_feeder_new(viz_timeline *tl)
{
    viz_trace_feeder *f = calloc(1, sizeof *f);
    if (!f)
        return NULL;
    f->tl = tl;
    mon_period_sink sink = {.ctx = f, .close = on_interval};
    if (!(f->periods = mon_periods_new(&sink))) {
        free(f);
        return NULL;
    }
    return f;
}

void viz_trace_feeder_free(viz_trace_feeder *f)
{
    if (!f)
        return;
    mon_periods_free(f->periods);
    free(f->labelled);
    free(f);
}

/* The column of a worker of a multi-rank trace says which rank and which
 * worker there ("r1.w0"); named once, by the worker's first event. */
static int label_ranked_worker(viz_trace_feeder *f, const mon_event *ev)
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

/* What the event itself adds: a task's name, a worker's column, a
 * message's mark. */
static int draw_event(viz_trace_feeder *f, const mon_event *ev)
{
    int w = (int)ev->worker;
    switch (ev->kind) {
    case MON_EV_TASK_MAP:
        return viz_timeline_add_task(f->tl, viz_trace_id(ev->run, ev->task),
                                     ev->name && *ev->name ? ev->name : "?", NULL);
    case MON_EV_WORKER_START:
        return viz_timeline_add_worker(f->tl, w, NULL);
    case MON_EV_MESSAGE_READ:
        return viz_timeline_add_message(f->tl, w, (viz_time)ev->time, VIZ_MSG_READ);
    case MON_EV_MESSAGE_WRITTEN:
        return viz_timeline_add_message(f->tl, w, (viz_time)ev->time, VIZ_MSG_WRITTEN);
    default:
        return VIZ_OK;
    }
}

int viz_trace_feed(viz_trace_feeder *f, const mon_event *ev)
{
    int rc = label_ranked_worker(f, ev);
    if (rc == VIZ_OK)
        rc = draw_event(f, ev);
    if (rc != VIZ_OK)
        return rc;
    if (!f->any || ev->time > f->last)
        f->last = ev->time;
    f->any = true;
    return periods_status(f, mon_periods_feed(f->periods, ev));
}

int viz_trace_feed_net(viz_net *net, const mon_event *ev)
{
    uint64_t task = viz_trace_id(ev->run, ev->task), stream = viz_trace_id(ev->run, ev->stream);
    switch (ev->kind) {
    case MON_EV_TASK_MAP:
        return viz_net_add_task(net, task, ev->name && *ev->name ? ev->name : "?",
                                (int)ev->worker_mapped);
    case MON_EV_TASK_DISPATCH:
        return viz_net_task_ran_on(net, task, (int)ev->worker);
    case MON_EV_STREAM_OPEN:
        return viz_net_add_stream(net, stream, ev->write_end ? task : VIZ_NO_TASK,
                                  ev->write_end ? VIZ_NO_TASK : task, 0);
    case MON_EV_STREAM_WRITE: /* the writing task is the writer end, opened or not */
        return viz_net_add_stream(net, stream, task, VIZ_NO_TASK, 0) != VIZ_OK
                   ? VIZ_ENOMEM
                   : viz_net_count_traffic(net, stream, 1, 0);
    case MON_EV_STREAM_READ:
        return viz_net_add_stream(net, stream, VIZ_NO_TASK, task, 0) != VIZ_OK
                   ? VIZ_ENOMEM
                   : viz_net_count_traffic(net, stream, 0, 1);
    case MON_EV_CHANNEL_OPEN: { /* a stream between ranks: its two ends' tasks */
        uint64_t channel = UINT64_C(1) << 63 | mon_run_key(ev, ev->channel);
        return viz_net_add_stream(net, channel, ev->write_end ? task : VIZ_NO_TASK,
                                  ev->write_end ? VIZ_NO_TASK : task, 0);
    }
    default:
        return VIZ_OK;
    }
}

int viz_trace_finish(viz_trace_feeder *f)
{
    /* What is still open ends at the latest time seen, drawn open. */
    viz_time last = f->tl->any_time && f->tl->last > (viz_time)f->last ? f->tl->last
                                                                        : (viz_time)f->last;
    return periods_status(f, mon_periods_finish(f->periods, last > 0 ? (uint64_t)last : 0));
}
