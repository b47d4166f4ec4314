/*
 * wfb_mon_adapter.c - the thin adapter between the monitor's trace reader
 * (monitor/mon_reader.h) and the bridge's own LPEL event interface.
 *
 * It is the only bridge file that knows the trace format's reader. Events arrive in time order
 * from mon_trace_next and are translated one by one into wfb_lpel_event.
 */
#include "wfb_internal.h"
#include "wfb_lifter_internal.h"

#include "mon_reader.h"

#include <string.h>

/* Returns 1 and fills *out when the event matters to the lifter. */
static int translate(const mon_event *ev, wfb_lpel_event *out)
{
    memset(out, 0, sizeof *out);
    out->time = (double)ev->time * 1e-9;
    out->run = ev->run;
    out->worker = ev->worker;
    out->task = ev->task;
    out->msg = ev->msg;
    out->ranked = ev->ranked;
    out->rank = ev->rank;
    out->rank_worker = ev->rank_worker;
    out->peer_rank = ev->peer_rank;
    switch (ev->kind) {
    case MON_EV_TASK_MAP:
        out->kind = WFB_LPEL_TASK_MAP;
        out->worker = ev->worker_mapped;
        out->name = ev->name;
        return 1;
    case MON_EV_TASK_DISPATCH:
        out->kind = WFB_LPEL_DISPATCH;
        return 1;
    case MON_EV_TASK_BLOCK:
        out->kind = WFB_LPEL_BLOCK;
        out->cause = ev->cause == MON_BLOCK_INPUT    ? WFB_BLOCK_INPUT
                     : ev->cause == MON_BLOCK_OUTPUT ? WFB_BLOCK_OUTPUT
                     : ev->cause == MON_BLOCK_ANY    ? WFB_BLOCK_ANY
                                                     : WFB_BLOCK_OTHER;
        return 1;
    case MON_EV_TASK_YIELD:
    case MON_EV_TASK_DESTROY:
        out->kind = WFB_LPEL_BLOCK;
        out->cause = WFB_BLOCK_OTHER;
        return 1;
    case MON_EV_WORKER_START:
        out->kind = WFB_LPEL_WORKER_START;
        return 1;
    case MON_EV_WORKER_END:
        out->kind = WFB_LPEL_WORKER_END;
        return 1;
    case MON_EV_WORKER_WAIT:
        out->kind = WFB_LPEL_WORKER_WAIT;
        return 1;
    case MON_EV_WORKER_RESUME:
        out->kind = WFB_LPEL_WORKER_RESUME;
        return 1;
    case MON_EV_COMPONENT_BEGIN:
        out->kind = WFB_LPEL_COMP_BEGIN;
        return 1;
    case MON_EV_COMPONENT_END:
        out->kind = WFB_LPEL_COMP_END;
        return 1;
    case MON_EV_MESSAGE_READ:
        out->kind = WFB_LPEL_MSG_READ;
        return 1;
    case MON_EV_MESSAGE_WRITTEN:
        out->kind = WFB_LPEL_MSG_WRITTEN;
        return 1;
    case MON_EV_STREAM_BLOCK:
        out->kind = WFB_LPEL_STREAM_BLOCK;
        out->stream = ev->stream;
        out->peer = ev->peer;
        out->empty = ev->empty;
        return 1;
    case MON_EV_STREAM_OPEN:
        out->kind = WFB_LPEL_STREAM_OPEN;
        out->stream = ev->stream;
        out->write_end = ev->write_end;
        return 1;
    case MON_EV_STREAM_WRITE:
        out->kind = WFB_LPEL_STREAM_WRITE;
        out->stream = ev->stream;
        return 1;
    case MON_EV_MESSAGE_SENT:
        out->kind = WFB_LPEL_MSG_SENT;
        return 1;
    case MON_EV_MESSAGE_RECEIVED:
        out->kind = WFB_LPEL_MSG_RECEIVED;
        return 1;
    case MON_EV_CHANNEL_BLOCK:
        out->kind = WFB_LPEL_CHANNEL_BLOCK;
        out->stream = ev->channel;
        out->peer = ev->peer;
        out->empty = ev->empty;
        return 1;
    case MON_EV_TASK_LOAD:
        out->kind = WFB_LPEL_TASK_LOAD;
        out->load_count = ev->dispatches;
        out->load_busy_s = (double)ev->exec_ns * 1e-9;
        return 1;
    case MON_EV_WORKER_LOAD:
        out->kind = WFB_LPEL_WORKER_LOAD;
        out->load_count = ev->waits;
        out->load_wait_s = (double)ev->wait_ns * 1e-9;
        out->load_busy_s = (double)ev->busy_ns * 1e-9;
        return 1;
    default:
        return 0; /* other stream events are not lifted */
    }
}

int wfb_lifter_feed_mon(wfb_lifter *l, const struct mon_event *ev, wfb_error *err)
{
    wfb_lpel_event out;
    return translate(ev, &out) ? wfb_lifter_feed(l, &out, err) : 0;
}

/* The library's own reading of a trace directory: strict, any loss is an
 * error (snetmon reads traces through its loader, which offers --partial). */
int wfb_import_lpel_trace_opt(wfb_graph *g, const char *dir, const wfb_import_options *opt,
                              wfb_error *err)
{
    char msg[512];
    mon_trace *t;
    wfb_graph_set_source(g, dir);
    if (mon_trace_open(&t, dir, msg, sizeof msg)) {
        wfb_set_error(err, dir, 0, "%s", msg);
        return -1;
    }
    wfb_lifter *l = wfb_lifter_new(g);
    if (!l) {
        mon_trace_close(t);
        wfb_set_error(err, dir, 0, "out of memory");
        return -1;
    }
    mon_event ev;
    int rc;
    uint64_t events = 0;
    while ((rc = mon_trace_next(t, &ev)) == MON_TRACE_EVENT) {
        if (opt && opt->progress && (++events & 0xfffff) == 0)
            opt->progress(opt->progress_ctx, events, 0);
        if (wfb_lifter_feed_mon(l, &ev, err)) {
            rc = -100;
            break;
        }
    }
    if (rc == MON_TRACE_ERROR || rc == MON_TRACE_TRUNCATED)
        wfb_set_error(err, NULL, 0, "%s", mon_trace_error(t));
    mon_trace_close(t);
    if (rc != MON_TRACE_END) {
        wfb_lifter_free(l);
        return -1;
    }
    return wfb_lifter_finish(l, err);
}
