/*
 * wfb_lifter_internal.h - the event interface the LPEL lifter (wfb_lpel.c)
 * is built on: the monitor adapter (wfb_mon_adapter.c) turns the trace
 * reader's events into these, in time order. Internal to the bridge; the
 * tests and the bridge benchmark feed hand-made events through it. Users
 * feed the reader's events with wfb_lifter_feed_mon (wfb.h).
 */
#ifndef WFB_LIFTER_INTERNAL_H
#define WFB_LIFTER_INTERNAL_H

#include "wfb.h"

typedef enum wfb_lpel_kind {
    WFB_LPEL_TASK_MAP = 0, /* task created on worker, with name */
    WFB_LPEL_DISPATCH,     /* task starts running on worker */
    WFB_LPEL_BLOCK,        /* task stops running; cause in `cause` */
    WFB_LPEL_MSG_READ,     /* task read message `msg` */
    WFB_LPEL_MSG_WRITTEN,  /* task wrote message `msg` */
    WFB_LPEL_COMP_BEGIN,   /* component execution begins in task */
    WFB_LPEL_COMP_END,     /* component execution ends in task */
    WFB_LPEL_WORKER_WAIT,  /* worker found nothing to run */
    WFB_LPEL_WORKER_RESUME,/* worker has work again */
    WFB_LPEL_STREAM_BLOCK, /* task blocks on `stream`, other end `peer`; `empty`
                              1 = blocked on an empty stream, 0 = on a full one */
    WFB_LPEL_TASK_LOAD,    /* load summary of a task: load_count dispatches,
                              load_busy_s execution time */
    WFB_LPEL_WORKER_LOAD,  /* load summary of a worker: load_count waits,
                              load_wait_s waiting, load_busy_s busy time */
    WFB_LPEL_WORKER_START, /* the worker started (its run's part of the log begins) */
    WFB_LPEL_WORKER_END,   /* the worker ended */
    WFB_LPEL_STREAM_OPEN,  /* task opened `stream`; write_end 1: as its writer */
    WFB_LPEL_STREAM_WRITE, /* task wrote an item to `stream` */
    /* Across MPI ranks (multi-rank traces): */
    WFB_LPEL_MSG_SENT,     /* task handed `msg` to rank `peer_rank` */
    WFB_LPEL_MSG_RECEIVED, /* task took `msg`, sent by rank `peer_rank`, off a channel */
    WFB_LPEL_CHANNEL_BLOCK /* task waits at channel `stream` for the task `peer` on
                              another rank: `empty` 1 = for records, 0 = for room */
} wfb_lpel_kind;

typedef enum wfb_block_cause {
    WFB_BLOCK_INPUT = 0,
    WFB_BLOCK_OUTPUT,
    WFB_BLOCK_ANY,
    WFB_BLOCK_OTHER /* exit, yield */
} wfb_block_cause;

typedef struct wfb_lpel_event {
    wfb_lpel_kind kind;
    double time;      /* seconds */
    uint32_t run;     /* runtime instance, from 1 (0 is taken as 1) */
    uint32_t worker;
    uint64_t task;
    uint64_t msg;     /* MSG_READ / MSG_WRITTEN */
    const char *name; /* TASK_MAP: task name (copied) */
    wfb_block_cause cause;
    uint64_t stream;  /* STREAM_BLOCK */
    uint64_t peer;    /* STREAM_BLOCK: the task at the other end, 0 unknown */
    int empty;        /* STREAM_BLOCK */
    uint64_t load_count;             /* TASK_LOAD, WORKER_LOAD */
    double load_busy_s, load_wait_s; /* TASK_LOAD, WORKER_LOAD */
    int write_end;    /* STREAM_OPEN */
    /* From a multi-rank trace (ranked): the rank of the event's log and the
     * worker's number in it (`worker` numbers the (rank, worker) pairs);
     * MSG_SENT/RECEIVED: the other rank. */
    bool ranked;
    uint32_t rank, rank_worker, peer_rank;
} wfb_lpel_event;

int wfb_lifter_feed(wfb_lifter *l, const wfb_lpel_event *ev, wfb_error *err);

#endif
