/*
 * test_live.c - the figures of `snetmon top` (live/live.c)
 * on events made up by hand, where every figure can be worked out on
 * paper: totals so far with periods still open, the window of the last
 * interval (whole bins of a tenth of it), inputs, and several runs.
 */
#include <check.h>
#include <string.h>

#include "live.h"

#define S 1000000000ull /* ns */
#define MS 1000000ull

static live_acc *acc;

static void feed(mon_event_kind kind, unsigned worker, uint64_t time, uint64_t task)
{
    mon_event ev;
    memset(&ev, 0, sizeof ev);
    ev.kind = kind;
    ev.worker = worker;
    ev.run = 1;
    ev.time = time;
    ev.task = task;
    ck_assert_int_eq(live_acc_feed(acc, &ev), 0);
}

static void feed_msg(mon_event_kind kind, uint64_t time, uint64_t task, uint64_t msg)
{
    mon_event ev;
    memset(&ev, 0, sizeof ev);
    ev.kind = kind;
    ev.run = 1;
    ev.time = time;
    ev.task = task;
    ev.msg = msg;
    ck_assert_int_eq(live_acc_feed(acc, &ev), 0);
}

static const live_task *task_named(const live_snapshot *s, uint64_t id)
{
    for (size_t i = 0; i < s->n_tasks; i++)
        if (s->tasks[i].task == id)
            return &s->tasks[i];
    return NULL;
}

/* Worker 0 runs task 1 from 10.0 to 11.5 s, waits to 12.5, runs it again
 * (still running at T); worker 1 waits from 10.2 on. T = 13.05 s, the
 * interval 1 s: the window is [12.0, 13.05] (bins of 0.1 s). */
START_TEST(test_window_and_totals)
{
    acc = live_acc_new(1 * S);
    ck_assert_ptr_nonnull(acc);
    feed(MON_EV_WORKER_START, 0, 10 * S, 0);
    feed(MON_EV_WORKER_START, 1, 10 * S, 0);
    feed(MON_EV_TASK_DISPATCH, 0, 10 * S, 1);
    feed(MON_EV_WORKER_WAIT, 1, 10 * S + 200 * MS, 0);
    feed(MON_EV_TASK_BLOCK, 0, 11 * S + 500 * MS, 1);
    feed(MON_EV_WORKER_WAIT, 0, 11 * S + 500 * MS, 0);
    feed(MON_EV_WORKER_RESUME, 0, 12 * S + 500 * MS, 0);
    feed(MON_EV_TASK_DISPATCH, 0, 12 * S + 500 * MS, 1);
    feed(MON_EV_STREAM_READ, 0, 13 * S + 50 * MS, 1);
    live_snapshot s;
    ck_assert_int_eq(live_acc_snapshot(acc, &s), 0);
    ck_assert_uint_eq(s.time_ns, 13 * S + 50 * MS);
    ck_assert_uint_eq(s.window_start_ns, 12 * S);
    ck_assert_uint_eq(s.first_ns, 10 * S);
    ck_assert_uint_eq(s.events, 9);
    ck_assert_uint_eq(s.n_workers, 2);
    const live_worker *w0 = &s.workers[0], *w1 = &s.workers[1];
    ck_assert_str_eq(w0->state, "running");
    ck_assert_str_eq(w1->state, "waiting");
    /* Totals so far, open periods to T. */
    ck_assert_uint_eq(w0->busy_ns, 2 * S + 50 * MS);
    ck_assert_uint_eq(w0->wait_ns, 1 * S);
    ck_assert_uint_eq(w0->waits, 1);
    ck_assert_uint_eq(w0->span_ns, 3 * S + 50 * MS);
    ck_assert_int_eq(w0->unaccounted_ns, 0);
    ck_assert_uint_eq(w1->wait_ns, 2 * S + 850 * MS);
    ck_assert_int_eq(w1->unaccounted_ns, (int64_t)(200 * MS));
    /* The window [12.0, 13.05]. */
    ck_assert_uint_eq(w0->win_alive_ns, 1 * S + 50 * MS);
    ck_assert_uint_eq(w0->win_wait_ns, 500 * MS);
    ck_assert_uint_eq(w0->win_busy_ns, 550 * MS);
    ck_assert_uint_eq(w0->win_waits, 0);
    ck_assert_int_eq(w0->win_unaccounted_ns, 0);
    ck_assert_uint_eq(w1->win_wait_ns, 1 * S + 50 * MS);
    ck_assert_uint_eq(w1->win_busy_ns, 0);
    /* The task, running. */
    const live_task *t = task_named(&s, 1);
    ck_assert_ptr_nonnull(t);
    ck_assert(t->running);
    ck_assert_uint_eq(t->exec_ns, 2 * S + 50 * MS);
    ck_assert_uint_eq(t->win_exec_ns, 550 * MS);
    ck_assert_uint_eq(t->dispatches, 2);
    /* Later: the long wait of worker 1 ends after many bins; only the
     * window's part of it is in the window. */
    feed(MON_EV_TASK_BLOCK, 0, 14 * S, 1);
    feed(MON_EV_WORKER_RESUME, 1, 20 * S, 0);
    feed(MON_EV_WORKER_END, 1, 20 * S + 500 * MS, 0);
    feed(MON_EV_WORKER_END, 0, 20 * S + 500 * MS, 0);
    ck_assert_int_eq(live_acc_snapshot(acc, &s), 0);
    ck_assert_uint_eq(s.window_start_ns, 19 * S + 500 * MS);
    w0 = &s.workers[0];
    w1 = &s.workers[1];
    ck_assert_str_eq(w1->state, "ended");
    ck_assert_uint_eq(w1->win_wait_ns, 500 * MS);
    ck_assert_uint_eq(w1->win_alive_ns, 1 * S);
    ck_assert_uint_eq(w1->wait_ns, 9 * S + 800 * MS);
    ck_assert_uint_eq(w0->busy_ns, 3 * S);
    ck_assert_uint_eq(w0->win_busy_ns, 0);
    ck_assert_int_eq(w0->win_unaccounted_ns, (int64_t)(1 * S));
    ck_assert(s.has_span);
    ck_assert_uint_eq(s.span_max_ns, 10 * S + 500 * MS);
    live_acc_free(acc);
}
END_TEST

/* Inputs: messages without a parent (docs/METRICS.md). */
/* A long execution with no event since its dispatch: counted up to the
 * moment of the snapshot (the refresh), not to the latest event, so the
 * worker shows busy while its box runs. Worker 0 dispatches task 1 at
 * 10 s; the latest event is that dispatch; the refresh is at 14 s. */
START_TEST(test_open_execution_counts_to_refresh)
{
    acc = live_acc_new(1 * S);
    ck_assert_ptr_nonnull(acc);
    feed(MON_EV_WORKER_START, 0, 9 * S, 0);
    feed(MON_EV_TASK_DISPATCH, 0, 10 * S, 1);
    live_snapshot s;
    ck_assert_int_eq(live_acc_snapshot_at(acc, 14 * S, &s), 0);
    ck_assert_uint_eq(s.time_ns, 14 * S);
    ck_assert_uint_eq(s.latest_ns, 10 * S);
    ck_assert_str_eq(s.workers[0].state, "running");
    ck_assert_uint_eq(s.workers[0].busy_ns, 4 * S);
    ck_assert_uint_eq(s.workers[0].span_ns, 5 * S);
    /* The last interval is [13, 14]: all of it busy. */
    ck_assert_uint_eq(s.window_start_ns, 13 * S);
    ck_assert_uint_eq(s.workers[0].win_busy_ns, 1 * S);
    ck_assert_uint_eq(s.workers[0].win_alive_ns, 1 * S);
    const live_task *t = task_named(&s, 1);
    ck_assert_ptr_nonnull(t);
    ck_assert(t->running);
    ck_assert_uint_eq(t->exec_ns, 4 * S);
    ck_assert_uint_eq(t->win_exec_ns, 1 * S);
    /* At the latest event the same execution had just begun. */
    ck_assert_int_eq(live_acc_snapshot(acc, &s), 0);
    ck_assert_uint_eq(s.workers[0].busy_ns, 0);
    /* A moment before the latest event changes nothing. */
    ck_assert_int_eq(live_acc_snapshot_at(acc, 5 * S, &s), 0);
    ck_assert_uint_eq(s.time_ns, 10 * S);
    live_acc_free(acc);
}
END_TEST

START_TEST(test_inputs)
{
    acc = live_acc_new(1 * S);
    /* A source execution: no read, one write: an input. */
    feed(MON_EV_COMPONENT_BEGIN, 0, 1, 2);
    feed_msg(MON_EV_MESSAGE_WRITTEN, 2, 2, 101);
    feed(MON_EV_COMPONENT_END, 0, 3, 2);
    /* Read and written on (implicit execution): not an input. */
    feed_msg(MON_EV_MESSAGE_READ, 4, 3, 101);
    feed_msg(MON_EV_MESSAGE_WRITTEN, 5, 3, 102);
    feed(MON_EV_TASK_BLOCK, 0, 6, 3);
    /* Read, never written by a monitored task: an input from outside. */
    feed_msg(MON_EV_MESSAGE_READ, 7, 3, 999);
    /* A write, then a read in the same execution: the read is its parent. */
    feed(MON_EV_COMPONENT_BEGIN, 0, 8, 4);
    feed_msg(MON_EV_MESSAGE_WRITTEN, 9, 4, 103);
    feed_msg(MON_EV_MESSAGE_READ, 10, 4, 102);
    feed(MON_EV_COMPONENT_END, 0, 11, 4);
    /* Written outside any execution: an input. */
    feed_msg(MON_EV_MESSAGE_WRITTEN, 12, 5, 104);
    live_snapshot s;
    ck_assert_int_eq(live_acc_snapshot(acc, &s), 0);
    ck_assert_uint_eq(s.inputs, 3);
    ck_assert(!s.has_span); /* no worker_start: throughput n/a */
    live_acc_free(acc);
}
END_TEST

/* Two runs on one worker: the execution time of eq. 1 is the sum of the
 * spans; task ids restart. */
START_TEST(test_runs)
{
    acc = live_acc_new(1 * S);
    mon_event ev;
    memset(&ev, 0, sizeof ev);
    struct { mon_event_kind k; uint32_t run; uint64_t t, task; } evs[] = {
        {MON_EV_WORKER_START, 1, 0, 0},     {MON_EV_TASK_DISPATCH, 1, 0, 1},
        {MON_EV_TASK_BLOCK, 1, 1 * S, 1},   {MON_EV_WORKER_END, 1, 1 * S, 0},
        {MON_EV_RUN_START, 2, 2 * S, 0},    {MON_EV_WORKER_START, 2, 2 * S, 0},
        {MON_EV_TASK_DISPATCH, 2, 2 * S, 1}, {MON_EV_TASK_BLOCK, 2, 3 * S, 1},
        {MON_EV_WORKER_END, 2, 4 * S, 0},
    };
    for (size_t i = 0; i < sizeof evs / sizeof evs[0]; i++) {
        ev.kind = evs[i].k;
        ev.run = evs[i].run;
        ev.time = evs[i].t;
        ev.task = evs[i].task;
        ck_assert_int_eq(live_acc_feed(acc, &ev), 0);
    }
    live_snapshot s;
    ck_assert_int_eq(live_acc_snapshot(acc, &s), 0);
    ck_assert_uint_eq(s.runs, 2);
    ck_assert_uint_eq(s.workers[0].span_ns, 3 * S);
    ck_assert_uint_eq(s.workers[0].busy_ns, 2 * S);
    ck_assert_uint_eq(s.n_tasks, 2);
    ck_assert_uint_eq(s.workers[0].run, 2);
    live_acc_free(acc);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("live");
    TCase *tc = tcase_create("live_acc");
    tcase_add_test(tc, test_window_and_totals);
    tcase_add_test(tc, test_open_execution_counts_to_refresh);
    tcase_add_test(tc, test_inputs);
    tcase_add_test(tc, test_runs);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
