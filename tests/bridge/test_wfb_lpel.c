/*
 * test_wfb_lpel.c - lifting LPEL runtime events (the trace reader's events
 * made by hand, no trace files needed) into data states and mutations,
 * and the runtime tables and message metrics that follow from them.
 */
#include "wfb_test_util.h"

static void feed(wfb_lifter *l, mon_event_kind kind, double time, uint32_t worker, uint64_t task,
                 uint64_t msg)
{
    mon_event ev = {.kind = kind, .time = WFB_NS(time), .worker = worker, .task = task, .msg = msg};
    wfb_error err;
    ck_assert_int_eq(wfb_lifter_feed_mon(l, &ev, &err), 0);
}

static void stream_block(wfb_lifter *l, double time, uint32_t worker, uint64_t task,
                         uint64_t stream, uint64_t peer, int empty)
{
    mon_event ev = {.kind = MON_EV_STREAM_BLOCK, .time = WFB_NS(time), .worker = worker,
                         .task = task, .stream = stream, .peer = peer, .empty = empty};
    wfb_error err;
    ck_assert_int_eq(wfb_lifter_feed_mon(l, &ev, &err), 0);
}

static void map_task(wfb_lifter *l, double time, uint32_t worker, uint64_t task, const char *name)
{
    mon_event ev = {.kind = MON_EV_TASK_MAP, .time = WFB_NS(time), .worker = worker,
                    .worker_mapped = worker, .task = task,
                         .name = name};
    wfb_error err;
    ck_assert_int_eq(wfb_lifter_feed_mon(l, &ev, &err), 0);
}

/* Source on worker 0 writes m1 and m5; "box" splits m1 into m2, m3 and
 * converts m5 into m6; "merge" on worker 1 merges m2 and m3 into m4;
 * "sink" on worker 1 consumes m4 without output. */
static wfb_graph *lifted_network(void)
{
    wfb_graph *g = wfb_graph_new();
    wfb_lifter *l = wfb_lifter_new(g);
    map_task(l, 0, 0, 1, "S1:src");
    map_task(l, 0, 0, 2, "S2:box");
    map_task(l, 0, 1, 3, "S3:merge");
    map_task(l, 0, 1, 4, "S4:sink");
    feed(l, MON_EV_WORKER_START, 0, 0, 0, 0);
    feed(l, MON_EV_WORKER_START, 0.25, 1, 0, 0);
    feed(l, MON_EV_WORKER_WAIT, 0.5, 1, 0, 0);
    feed(l, MON_EV_TASK_DISPATCH, 1, 0, 1, 0);
    feed(l, MON_EV_MESSAGE_WRITTEN, 1, 0, 1, 1);
    feed(l, MON_EV_TASK_BLOCK, 1.5, 0, 1, 0);
    feed(l, MON_EV_TASK_DISPATCH, 2, 0, 2, 0);
    feed(l, MON_EV_COMPONENT_BEGIN, 2, 0, 2, 0);
    feed(l, MON_EV_MESSAGE_READ, 2, 0, 2, 1);
    feed(l, MON_EV_MESSAGE_WRITTEN, 3, 0, 2, 2);
    feed(l, MON_EV_MESSAGE_WRITTEN, 3.5, 0, 2, 3);
    feed(l, MON_EV_COMPONENT_END, 4, 0, 2, 0);
    stream_block(l, 4, 0, 2, 77, 1, 1); /* box waits for src on stream 77 */
    feed(l, MON_EV_TASK_BLOCK, 4, 0, 2, 0);
    feed(l, MON_EV_WORKER_RESUME, 5, 1, 0, 0);
    feed(l, MON_EV_TASK_DISPATCH, 5, 1, 3, 0);
    feed(l, MON_EV_COMPONENT_BEGIN, 5, 1, 3, 0);
    feed(l, MON_EV_MESSAGE_READ, 5, 1, 3, 2);
    feed(l, MON_EV_MESSAGE_READ, 5.5, 1, 3, 3);
    feed(l, MON_EV_MESSAGE_WRITTEN, 6, 1, 3, 4);
    feed(l, MON_EV_COMPONENT_END, 7, 1, 3, 0);
    feed(l, MON_EV_TASK_BLOCK, 7, 1, 3, 0);
    feed(l, MON_EV_TASK_DISPATCH, 8, 1, 4, 0);
    feed(l, MON_EV_COMPONENT_BEGIN, 8, 1, 4, 0);
    feed(l, MON_EV_MESSAGE_READ, 8, 1, 4, 4);
    feed(l, MON_EV_COMPONENT_END, 9, 1, 4, 0);
    feed(l, MON_EV_TASK_BLOCK, 9, 1, 4, 0);
    feed(l, MON_EV_TASK_DISPATCH, 9.5, 0, 1, 0);
    feed(l, MON_EV_MESSAGE_WRITTEN, 9.5, 0, 1, 5);
    stream_block(l, 9.5, 0, 1, 77, 2, 0); /* src waits for box: stream full */
    feed(l, MON_EV_TASK_BLOCK, 9.5, 0, 1, 0);
    feed(l, MON_EV_TASK_DISPATCH, 10, 0, 2, 0);
    feed(l, MON_EV_COMPONENT_BEGIN, 10, 0, 2, 0);
    feed(l, MON_EV_MESSAGE_READ, 10, 0, 2, 5);
    feed(l, MON_EV_MESSAGE_WRITTEN, 10.5, 0, 2, 6);
    feed(l, MON_EV_COMPONENT_END, 11, 0, 2, 0);
    feed(l, MON_EV_TASK_BLOCK, 11, 0, 2, 0);
    feed(l, MON_EV_WORKER_END, 9.75, 1, 0, 0);
    feed(l, MON_EV_WORKER_END, 12, 0, 0, 0);
    wfb_error err;
    ck_assert_msg(wfb_lifter_finish(l, &err) == 0, "%s", err.msg);
    return g;
}

static size_t count_kind(const wfb_graph *g, wfb_edge_kind kind)
{
    size_t n = 0;
    for (uint32_t e = 0; e < wfb_edge_count(g); e++)
        n += wfb_edge_kind_of(g, e) == kind;
    return n;
}

START_TEST(test_waiting_relations)
{
    wfb_graph *g = lifted_network();
    ck_assert_uint_eq(wfb_wait_relation_count(g), 1); /* src's wait never ends */
    const wfb_wait_relation *w = wfb_wait_relation_at(g, 0);
    ck_assert_uint_eq(w->waiter, 2);
    ck_assert_uint_eq(w->waited_for, 1);
    ck_assert_uint_eq(w->stream, 77);
    ck_assert_int_eq(w->on_empty, 1);
    ck_assert_uint_eq(w->count, 1);
    /* blocked at 4, dispatched at 10; no wake in the trace: all blocked */
    assert_near(w->total_s, 6);
    assert_near(w->ready_s, 0);
    ck_assert_uint_eq(w->woken, 0);
    wfb_graph_free(g);
}
END_TEST

static const uint32_t *single_in_edge(const wfb_graph *g, const char *id)
{
    const uint32_t *edges;
    ck_assert_uint_eq(wfb_in_edges(g, vertex(g, id), &edges), 1);
    return edges;
}

START_TEST(test_lifting_mutations)
{
    wfb_graph *g = lifted_network();
    ck_assert_uint_eq(count_kind(g, WFB_EDGE_SPLIT), 2);
    ck_assert_uint_eq(count_kind(g, WFB_EDGE_TRANSFER), 2);
    ck_assert_uint_eq(count_kind(g, WFB_EDGE_MERGE), 2);
    ck_assert_uint_eq(count_kind(g, WFB_EDGE_DELETE), 1);
    ck_assert_uint_eq(count_kind(g, WFB_EDGE_CONVERT), 1);
    /* m2 written on worker 0, read on worker 1: a moved state at w1 */
    uint32_t moved = vertex(g, "m0.2@w1");
    ck_assert_str_eq(wfb_vertex_attr(g, moved, WFB_ATTR_LOCATION), "w1");
    assert_near(wfb_vertex_end(g, moved), 5);
    uint32_t e = single_in_edge(g, "m0.2@w1")[0];
    ck_assert_int_eq(wfb_edge_kind_of(g, e), WFB_EDGE_TRANSFER);
    ck_assert_uint_eq(wfb_edge_src(g, e), vertex(g, "m0.2"));
    /* data states: time = written, location = worker, origin = task */
    uint32_t m2 = vertex(g, "m0.2");
    assert_near(wfb_vertex_end(g, m2), 3);
    ck_assert_str_eq(wfb_vertex_attr(g, m2, WFB_ATTR_LOCATION), "w0");
    ck_assert_str_eq(wfb_vertex_attr(g, m2, WFB_ATTR_ORIGIN), "S2:box");
    /* the split costs the box execution, 2 s, labelled with the task */
    e = single_in_edge(g, "m0.2")[0];
    ck_assert_int_eq(wfb_edge_kind_of(g, e), WFB_EDGE_SPLIT);
    assert_near(wfb_edge_cost(g, e), 2);
    ck_assert_str_eq(wfb_edge_label(g, e), "S2:box");
    e = single_in_edge(g, "m0.6")[0];
    ck_assert_int_eq(wfb_edge_kind_of(g, e), WFB_EDGE_CONVERT);
    ck_assert_uint_eq(wfb_edge_src(g, e), vertex(g, "m0.5"));
    /* merge: both moved parents into m4 */
    const uint32_t *edges;
    ck_assert_uint_eq(wfb_in_edges(g, vertex(g, "m0.4"), &edges), 2);
    ck_assert_int_eq(wfb_edge_kind_of(g, edges[0]), WFB_EDGE_MERGE);
    ck_assert_uint_eq(wfb_exec_count(g), 4);
    wfb_graph_free(g);
}
END_TEST

START_TEST(test_lifting_runtime_tables)
{
    wfb_graph *g = lifted_network();
    ck_assert_uint_eq(wfb_task_stats_count(g), 4);
    const wfb_task_stats *box = wfb_task_stats_at(g, 1);
    ck_assert_str_eq(box->name, "S2:box");
    assert_near(box->exec_s, 3); /* 2..4 and 10..11 */
    ck_assert_uint_eq(box->dispatches, 2);
    ck_assert_uint_eq(box->blocks[WFB_BLOCK_INPUT], 2);
    ck_assert_uint_eq(box->executions, 2);
    ck_assert_uint_eq(wfb_worker_stats_count(g), 2);
    const wfb_worker_stats *w1 = wfb_worker_stats_at(g, 1);
    ck_assert_uint_eq(w1->worker, 1);
    ck_assert_uint_eq(w1->run, 1);
    ck_assert_uint_eq(w1->waits, 1);
    assert_near(w1->wait_s, 4.5);
    assert_near(w1->busy_s, 3); /* 5..7 and 8..9 */
    /* unaccounted = (end - start) - busy - waiting = (9.75 - 0.25) - 3 - 4.5 */
    assert_near(w1->start_s, 0.25);
    assert_near(w1->end_s, 9.75);
    assert_near(wfb_worker_span(w1), 9.5);
    assert_near(wfb_worker_unaccounted(w1), 2);
    const wfb_worker_stats *w0 = wfb_worker_stats_at(g, 0);
    assert_near(w0->busy_s, 0.5 + 2 + 0 + 1);
    wfb_graph_free(g);
}
END_TEST

START_TEST(test_lifted_metrics_and_path)
{
    wfb_graph *g = lifted_network();
    wfb_message_report r;
    wfb_error err;
    ck_assert_int_eq(wfb_message_metrics_compute(g, NULL, &r, &err), 0);
    ck_assert_uint_eq(r.n_inputs, 2); /* m1 and m5, written outside executions */
    wfb_lifeline line0 = wfb_message_lifeline(&r, 0);
    const wfb_lifeline *m1 = &line0;
    ck_assert_str_eq(wfb_vertex_id(g, m1->input), "m0.1");
    assert_near(m1->latency_s, 2 + 2 + 1); /* split, merge (once), delete */
    assert_near(m1->end_to_end_s, 9 - 1);
    assert_near(wfb_message_lifeline(&r, 1).latency_s, 1);
    /* eq. 1: 2 inputs / 12 s, worker 0's span (0 to 12); worker 1 spans 9.5 s */
    assert_near(r.total.span_s, 12);
    ck_assert_uint_eq(r.total.span_worker, 0);
    assert_near(r.total.throughput_per_s, 2 / 12.0);
    /* beside it: 2 inputs / 3.5 s, worker 0's busy time */
    assert_near(r.total.busy_max_s, 3.5);
    assert_near(r.total.throughput_busy_per_s, 2 / 3.5);
    ck_assert_uint_eq(r.n_runs, 1);
    wfb_message_report_free(&r);
    wfb_path lp, ae;
    ck_assert_int_eq(wfb_longest_path(g, &lp, &err), 0);
    ck_assert_int_eq(wfb_as_executed_path(g, &ae, &err), 0);
    assert_path(g, &lp, "m0.1,m0.2,m0.2@w1,m0.4,x2.deleted");
    assert_near(lp.length_s, 5);
    /* The as-executed path from the period that ended last, task 2's
     * 10..11, back through worker 0's periods: no task's wake or creation
     * is in the trace, and no worker_wait on worker 0, so each period is
     * taken to have waited for the one before it on the worker
     * (occupancy). */
    const step_want steps[] = {{WFB_STEP_RUN, WFB_VIA_NONE, 1, 0, 1, 1.5, "m0.1"},
                               {WFB_STEP_READY, WFB_VIA_OCCUPANCY, 2, 1, 1.5, 2, NULL},
                               {WFB_STEP_RUN, WFB_VIA_NONE, 2, 0, 2, 4, "m0.3"},
                               {WFB_STEP_READY, WFB_VIA_OCCUPANCY, 1, 2, 4, 9.5, NULL},
                               {WFB_STEP_RUN, WFB_VIA_NONE, 1, 0, 9.5, 9.5, "m0.5"},
                               {WFB_STEP_READY, WFB_VIA_OCCUPANCY, 2, 1, 9.5, 10, NULL},
                               {WFB_STEP_RUN, WFB_VIA_NONE, 2, 0, 10, 11, "m0.6"}};
    assert_steps(g, &ae, steps, sizeof steps / sizeof steps[0], 1);
    assert_near(ae.length_s, 10);
    assert_near(ae.span_s, 12);
    assert_near(ae.start_up_s, 1);
    assert_near(ae.tail_s, 1);
    wfb_path_free(&lp);
    wfb_path_free(&ae);
    wfb_graph_free(g);
}
END_TEST

START_TEST(test_implicit_executions_and_external_inputs)
{
    /* No component events: a read after a write starts a new iteration.
     * Message 99 is read but was never written: an external input. */
    wfb_graph *g = wfb_graph_new();
    wfb_lifter *l = wfb_lifter_new(g);
    feed(l, MON_EV_MESSAGE_WRITTEN, 0, 0, 1, 1);
    feed(l, MON_EV_MESSAGE_WRITTEN, 0, 0, 1, 3);
    feed(l, MON_EV_TASK_DISPATCH, 1, 0, 2, 0);
    feed(l, MON_EV_MESSAGE_READ, 1, 0, 2, 1);
    feed(l, MON_EV_MESSAGE_WRITTEN, 2, 0, 2, 2);
    feed(l, MON_EV_MESSAGE_READ, 3, 0, 2, 3);
    feed(l, MON_EV_MESSAGE_WRITTEN, 4, 0, 2, 4);
    feed(l, MON_EV_TASK_BLOCK, 5, 0, 2, 0);
    feed(l, MON_EV_MESSAGE_READ, 6, 0, 3, 99);
    feed(l, MON_EV_MESSAGE_WRITTEN, 7, 0, 3, 100);
    wfb_error err;
    ck_assert_int_eq(wfb_lifter_finish(l, &err), 0);
    uint32_t e = single_in_edge(g, "m0.2")[0];
    ck_assert_int_eq(wfb_edge_kind_of(g, e), WFB_EDGE_CONVERT);
    ck_assert_uint_eq(wfb_edge_src(g, e), vertex(g, "m0.1"));
    assert_near(wfb_edge_cost(g, e), 2); /* read at 1 until the next read at 3 */
    e = single_in_edge(g, "m0.4")[0];
    ck_assert_uint_eq(wfb_edge_src(g, e), vertex(g, "m0.3"));
    assert_near(wfb_edge_cost(g, e), 2); /* 3 until the block at 5 */
    /* m99 came from outside: timed at its first read, on the reader's worker */
    uint32_t m99 = vertex(g, "m0.99");
    assert_near(wfb_vertex_end(g, m99), 6);
    ck_assert_str_eq(wfb_vertex_attr(g, m99, WFB_ATTR_LABEL), "external input");
    wfb_message_report r;
    ck_assert_int_eq(wfb_message_metrics_compute(g, NULL, &r, &err), 0);
    ck_assert_uint_eq(r.n_inputs, 3); /* m1, m3, m99 */
    ck_assert_uint_eq(r.total.inputs_only_read, 1); /* m99 */
    ck_assert_uint_eq(r.n_missing, 0);
    assert_near(wfb_message_lifeline(&r, 2).end_to_end_s, 1); /* m100 written at 7 */
    wfb_message_report_free(&r);
    wfb_graph_free(g);
}
END_TEST

START_TEST(test_load_summaries_only)
{
    /* A trace recorded with load summaries only (no dispatch/wait events). */
    wfb_graph *g = wfb_graph_new();
    wfb_lifter *l = wfb_lifter_new(g);
    wfb_error err;
    map_task(l, 0, 0, 1, "S1:box");
    mon_event task = {.kind = MON_EV_TASK_LOAD, .time = WFB_NS(10), .worker = 0, .task = 1,
                      .dispatches = 42, .exec_ns = WFB_NS(3.5)};
    mon_event worker = {.kind = MON_EV_WORKER_LOAD, .time = WFB_NS(10), .worker = 0,
                        .waits = 7, .busy_ns = WFB_NS(4), .wait_ns = WFB_NS(5.5)};
    ck_assert_int_eq(wfb_lifter_feed_mon(l, &task, &err), 0);
    ck_assert_int_eq(wfb_lifter_feed_mon(l, &worker, &err), 0);
    ck_assert_int_eq(wfb_lifter_finish(l, &err), 0);
    const wfb_task_stats *t = wfb_task_stats_at(g, 0);
    ck_assert_uint_eq(t->dispatches, 42);
    assert_near(t->exec_s, 3.5);
    const wfb_worker_stats *w = wfb_worker_stats_at(g, 0);
    ck_assert_uint_eq(w->waits, 7);
    assert_near(w->wait_s, 5.5);
    assert_near(w->busy_s, 4);
    wfb_graph_free(g);
}
END_TEST

START_TEST(test_trace_import_errors)
{
    /* The reader's error for a directory that is not a trace, naming the
     * directory. */
    wfb_graph *g = wfb_graph_new();
    wfb_error err;
    ck_assert_int_eq(wfb_import_lpel_trace(g, WFB_BRIDGE_FIXTURES, &err), -1);
    ck_assert_str_eq(err.file, WFB_BRIDGE_FIXTURES);
    wfb_graph_free(g);
}
END_TEST

/* Two runtimes in one trace reuse task and message ids: run 1 converts
 * message 1 into 2, run 2 message 2 into 1. Taken as one graph that is a
 * cycle; lifted per run it is two small graphs, each with its own rows. */
START_TEST(test_runs_reusing_ids_stay_apart)
{
    wfb_graph *g = wfb_graph_new();
    wfb_lifter *l = wfb_lifter_new(g);
    wfb_error err;
    for (uint32_t run = 1; run <= 2; run++) {
        double t = 100.0 * run;
        uint64_t in = run == 1 ? 1 : 2, out = run == 1 ? 2 : 1;
        mon_event evs[] = {
            {.kind = MON_EV_WORKER_START, .time = WFB_NS(t)},
            {.kind = MON_EV_TASK_DISPATCH, .time = WFB_NS(t + 1), .task = 1},
            {.kind = MON_EV_MESSAGE_WRITTEN, .time = WFB_NS(t + 1), .task = 1, .msg = in},
            {.kind = MON_EV_TASK_BLOCK, .time = WFB_NS(t + 2), .task = 1},
            {.kind = MON_EV_TASK_DISPATCH, .time = WFB_NS(t + 2), .task = 2},
            {.kind = MON_EV_COMPONENT_BEGIN, .time = WFB_NS(t + 2), .task = 2},
            {.kind = MON_EV_MESSAGE_READ, .time = WFB_NS(t + 2), .task = 2, .msg = in},
            {.kind = MON_EV_MESSAGE_WRITTEN, .time = WFB_NS(t + 2 + run), .task = 2, .msg = out},
            {.kind = MON_EV_COMPONENT_END, .time = WFB_NS(t + 2 + run), .task = 2},
            {.kind = MON_EV_TASK_BLOCK, .time = WFB_NS(t + 2 + run), .task = 2},
            {.kind = MON_EV_WORKER_END, .time = WFB_NS(t + 10)},
        };
        for (size_t i = 0; i < sizeof evs / sizeof evs[0]; i++) {
            evs[i].run = run;
            ck_assert_int_eq(wfb_lifter_feed_mon(l, &evs[i], &err), 0);
        }
    }
    ck_assert_msg(wfb_lifter_finish(l, &err) == 0, "%s", err.msg);
    ck_assert_uint_eq(wfb_run_count(g), 2);
    ck_assert_uint_eq(wfb_vertex_run(g, vertex(g, "r2.m0.2")), 2);
    ck_assert_uint_eq(wfb_vertex_run(g, vertex(g, "m0.2")), 1);
    ck_assert_uint_eq(wfb_worker_stats_count(g), 2); /* worker 0 in runs 1 and 2 */
    ck_assert_uint_eq(wfb_worker_stats_at(g, 1)->run, 2);
    ck_assert_uint_eq(wfb_task_stats_count(g), 4);
    wfb_message_report r;
    ck_assert_int_eq(wfb_message_metrics_compute(g, NULL, &r, &err), 0);
    ck_assert_uint_eq(r.n_runs, 2);
    for (size_t i = 0; i < 2; i++) {
        ck_assert_uint_eq(r.runs[i].inputs, 1);
        assert_near(r.runs[i].span_s, 10);
        assert_near(r.runs[i].latency.mean, (double)(i + 1)); /* the conversion: 1 s, 2 s */
    }
    assert_near(r.total.span_s, 20); /* worker 0's spans added up */
    assert_near(r.total.throughput_per_s, 2 / 20.0);
    wfb_message_report_free(&r);
    wfb_graph_free(g);
}
END_TEST

/* A damaged run number (the fuzz finding: run_start with 2^31) must not
 * size the per-run tables: runs are numbered in the order they appear. */
START_TEST(test_run_numbers_are_dense)
{
    wfb_graph *g = wfb_graph_new();
    wfb_lifter *l = wfb_lifter_new(g);
    wfb_error err;
    const uint32_t runs[] = {1, UINT32_C(2147483648)};
    for (size_t k = 0; k < 2; k++) {
        double t = 10.0 * (double)k;
        mon_event evs[] = {
            {.kind = MON_EV_WORKER_START, .time = WFB_NS(t)},
            {.kind = MON_EV_TASK_DISPATCH, .time = WFB_NS(t + 1), .task = 1},
            {.kind = MON_EV_MESSAGE_WRITTEN, .time = WFB_NS(t + 1), .task = 1, .msg = 1},
            {.kind = MON_EV_TASK_BLOCK, .time = WFB_NS(t + 2), .task = 1},
            {.kind = MON_EV_WORKER_END, .time = WFB_NS(t + 3)},
        };
        for (size_t i = 0; i < sizeof evs / sizeof evs[0]; i++) {
            evs[i].run = runs[k];
            ck_assert_int_eq(wfb_lifter_feed_mon(l, &evs[i], &err), 0);
        }
    }
    ck_assert_msg(wfb_lifter_finish(l, &err) == 0, "%s", err.msg);
    ck_assert_uint_eq(wfb_run_count(g), 2);
    ck_assert_uint_eq(wfb_vertex_run(g, vertex(g, "r2.m0.1")), 2);
    wfb_message_report r;
    ck_assert_int_eq(wfb_message_metrics_compute(g, NULL, &r, &err), 0);
    ck_assert_uint_eq(r.n_runs, 2);
    wfb_message_report_free(&r);
    wfb_graph_free(g);
}
END_TEST

static Suite *lpel_suite(void)
{
    Suite *s = suite_create("wfb_lpel");
    TCase *t = tcase_create("lifting");
    tcase_add_test(t, test_lifting_mutations);
    tcase_add_test(t, test_lifting_runtime_tables);
    tcase_add_test(t, test_waiting_relations);
    tcase_add_test(t, test_lifted_metrics_and_path);
    tcase_add_test(t, test_implicit_executions_and_external_inputs);
    tcase_add_test(t, test_load_summaries_only);
    tcase_add_test(t, test_trace_import_errors);
    tcase_add_test(t, test_runs_reusing_ids_stay_apart);
    tcase_add_test(t, test_run_numbers_are_dense);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(lpel_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
