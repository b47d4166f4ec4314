/*
 * test_wfb_oracle.c - the paper's metrics against figures known exactly:
 *
 *  - the oracle: a trace written by hand through the monitor's writer
 *    (oracle_trace.c, whose comment works out every figure on paper),
 *    read back through the trace reader and lifted: every metric equals
 *    the paper value - eq. 1-3, over dispatched and over CPU time (eq. 2
 *    also with the executions' costs scaled, as whatif asks), the
 *    runtime tables with blocked, ready and CPU time, the waiting
 *    relations split at their wakes, both critical paths, and the
 *    as-executed path's steps through occupancy, data, back-pressure and
 *    creation edges (oracle_paths_write);
 *  - properties on random traces fed to the lifter: the latencies of all
 *    inputs never add up to more than the execution time there was, no
 *    latency is negative, throughput is N_input over the longest worker
 *    span (worker_start to worker_end), and runs that reuse task and
 *    message ids stay apart;
 *  - the bounded lifter (wfb_lifter_new_bounded, its records spilled to
 *    temporary files behind caches of a few hundred bytes) gives every
 *    figure and path of the graph in memory, bit for bit, on the oracle
 *    traces and the random ones.
 */
#include "mon_reader.h" /* mon_msg_id_make */
#include "oracle_trace.h"
#include "wfb_test_util.h"

#include <stdbool.h>
#include <unistd.h>

#define NS 1e-9

static void remove_tree(const char *dir)
{
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    ck_assert_int_eq(system(cmd), 0);
}

/* variant < 0: the oracle trace; else oracle_paths_write's variant. */
static wfb_graph *oracle_graph_of(int variant)
{
    char dir[] = "/tmp/wfb_oracle.XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    ck_assert_int_eq(variant < 0 ? oracle_trace_write(dir) : oracle_paths_write(dir, variant), 0);
    wfb_graph *g = wfb_graph_new();
    wfb_error err;
    ck_assert_msg(wfb_import_lpel_trace(g, dir, &err) == 0, "%s", err.msg);
    remove_tree(dir);
    return g;
}

static wfb_graph *oracle_graph(void) { return oracle_graph_of(-1); }

static wfb_lifeline lifeline(const wfb_graph *g, const wfb_message_report *r, const char *id)
{
    for (size_t i = 0; i < r->n_inputs; i++)
        if (!strcmp(wfb_vertex_id(g, wfb_message_lifeline(r, i).input), id))
            return wfb_message_lifeline(r, i);
    ck_abort_msg("no input %s", id);
    return (wfb_lifeline){0};
}

START_TEST(oracle_eq1_eq2_eq3)
{
    wfb_graph *g = oracle_graph();
    wfb_message_report r;
    wfb_error err;
    ck_assert_int_eq(wfb_message_metrics_compute(g, NULL, &r, &err), 0);
    const char *a = "m0.1", *b = "m0.2"; /* named as dump prints their ids */
    ck_assert_uint_eq(r.n_inputs, 2);
    ck_assert_uint_eq(r.total.inputs, 2);
    ck_assert_uint_eq(r.total.inputs_only_read, 0);
    /* eq. 2: the merge's 7 ns shared by both inputs */
    assert_near(lifeline(g, &r, a).latency_s, 21.5 * NS);
    assert_near(lifeline(g, &r, b).latency_s, 15.5 * NS);
    assert_near(lifeline(g, &r, a).end_to_end_s, 30 * NS);
    assert_near(lifeline(g, &r, b).end_to_end_s, 28 * NS);
    assert_near(r.total.latency.mean, 18.5 * NS);
    /* eq. 3: population standard deviation */
    assert_near(r.total.jitter_s, 3 * NS);
    /* eq. 1 over the longest span, worker 0's 72 ns; busy time beside it */
    assert_near(r.total.span_s, 72 * NS);
    ck_assert_uint_eq(r.total.span_worker, 0);
    assert_near(r.total.throughput_per_s, 2 / (72 * NS));
    assert_near(r.total.busy_max_s, 23 * NS);
    assert_near(r.total.throughput_busy_per_s, 2 / (23 * NS));
    assert_near(r.total.exec_s, 43 * NS);
    ck_assert_uint_eq(r.n_runs, 1);
    ck_assert_uint_eq(r.runs[0].run, 1);
    assert_near(r.runs[0].throughput_per_s, r.total.throughput_per_s);
    wfb_message_report_free(&r);
    /* --cpu-time: task 2's execution ran 13 of its 18 on the core */
    wfb_message_options cpu = {.cpu_time = 1};
    ck_assert_int_eq(wfb_message_metrics_compute(g, &cpu, &r, &err), 0);
    ck_assert(r.total.cpu_time);
    assert_near(lifeline(g, &r, a).latency_s, 16.5 * NS);
    assert_near(lifeline(g, &r, b).latency_s, 15.5 * NS);
    assert_near(r.total.jitter_s, 0.5 * NS);
    assert_near(r.total.latency.mean, 16 * NS);
    wfb_message_report_free(&r);
    /* exec_scale (the what-if latencies) scales each execution's cost,
     * dispatched or CPU time: every execution at half its cost halves both
     * inputs' latencies (the transfers cost nothing) */
    double *half = malloc(wfb_exec_count(g) * sizeof *half);
    ck_assert_ptr_nonnull(half);
    for (size_t i = 0; i < wfb_exec_count(g); i++)
        half[i] = 0.5;
    wfb_message_options scaled = {.exec_scale = half};
    ck_assert_int_eq(wfb_message_metrics_compute(g, &scaled, &r, &err), 0);
    assert_near(lifeline(g, &r, a).latency_s, 10.75 * NS);
    assert_near(lifeline(g, &r, b).latency_s, 7.75 * NS);
    wfb_message_report_free(&r);
    scaled.cpu_time = 1;
    ck_assert_int_eq(wfb_message_metrics_compute(g, &scaled, &r, &err), 0);
    assert_near(lifeline(g, &r, a).latency_s, 8.25 * NS);
    assert_near(lifeline(g, &r, b).latency_s, 7.75 * NS);
    wfb_message_report_free(&r);
    free(half);
    wfb_graph_free(g);
}
END_TEST

START_TEST(oracle_runtime_tables)
{
    wfb_graph *g = oracle_graph();
    ck_assert_uint_eq(wfb_run_count(g), 1);
    ck_assert_uint_eq(wfb_worker_stats_count(g), 2);
    const double span[2] = {72, 43}, busy[2] = {23, 20}, wait[2] = {24, 18},
                 unaccounted[2] = {25, 5}, blocked[2] = {9, 20}, ready[2] = {25, 4},
                 cpu[2] = {23, 25}, off[2] = {25, 0};
    const uint64_t waits[2] = {1, 2}, switches[2] = {1, 0}, charged[2] = {1, 0};
    ck_assert(wfb_cpu_known(g));
    for (size_t i = 0; i < 2; i++) {
        const wfb_worker_stats *w = wfb_worker_stats_at(g, i);
        ck_assert_uint_eq(w->worker, i);
        assert_near(wfb_worker_span(w), span[i] * NS);
        assert_near(w->busy_s, busy[i] * NS);
        assert_near(w->wait_s, wait[i] * NS);
        ck_assert_uint_eq(w->waits, waits[i]);
        assert_near(wfb_worker_unaccounted(w), unaccounted[i] * NS);
        assert_near(w->blocked_s, blocked[i] * NS);
        assert_near(w->ready_s, ready[i] * NS);
        assert_near(w->cpu_s, cpu[i] * NS);
        assert_near(w->preempted_s, off[i] * NS);
        ck_assert_uint_eq(w->preemptions, switches[i]);
        ck_assert_uint_eq(w->preempted_periods, charged[i]);
    }
    /* above the warning's 5 % on worker 0 only */
    ck_assert(wfb_worker_preempted_share(wfb_worker_stats_at(g, 0)) > WFB_PREEMPTED_WARN_SHARE);
    assert_near(wfb_worker_preempted_share(wfb_worker_stats_at(g, 0)), 25.0 / 72);
    ck_assert(!(wfb_worker_preempted_share(wfb_worker_stats_at(g, 1)) > WFB_PREEMPTED_WARN_SHARE));
    const double exec[5] = {0, 4, 19, 13, 7}, t_blocked[5] = {0, 7, 2, 13, 7},
                 t_ready[5] = {0, 20, 5, 3, 1}, t_off[5] = {0, 0, 5, 0, 0};
    ck_assert_uint_eq(wfb_task_stats_count(g), 4);
    for (size_t i = 0; i < 4; i++) {
        const wfb_task_stats *t = wfb_task_stats_at(g, i);
        assert_near(t->exec_s, exec[t->task] * NS);
        assert_near(t->blocked_s, t_blocked[t->task] * NS);
        assert_near(t->ready_s, t_ready[t->task] * NS);
        assert_near(t->preempted_s, t_off[t->task] * NS);
        ck_assert_uint_eq(t->dispatches, 2);
        ck_assert_uint_eq(t->executions, t->task == 1 ? 0 : 1);
    }
    /* W(waiter, waited for): stream, state, blocked (total_s), then ready */
    const struct {
        uint64_t waiter, waited_for, stream;
        int empty;
        double total, ready;
    } want[] = {{1, 2, 5, 0, 7, 20}, {2, 1, 5, 1, 2, 5}, {3, 1, 6, 1, 13, 3}, {4, 2, 7, 1, 7, 1}};
    ck_assert_uint_eq(wfb_wait_relation_count(g), 4);
    for (size_t k = 0; k < 4; k++) {
        bool found = false;
        for (size_t i = 0; i < wfb_wait_relation_count(g); i++) {
            const wfb_wait_relation *w = wfb_wait_relation_at(g, i);
            if (w->waiter != want[k].waiter)
                continue;
            found = true;
            ck_assert_uint_eq(w->waited_for, want[k].waited_for);
            ck_assert_uint_eq(w->stream, want[k].stream);
            ck_assert_int_eq(w->on_empty, want[k].empty);
            ck_assert_uint_eq(w->count, 1);
            ck_assert_uint_eq(w->woken, 1);
            assert_near(w->total_s, want[k].total * NS);
            assert_near(w->ready_s, want[k].ready * NS);
        }
        ck_assert_msg(found, "no waiting relation of task %llu",
                      (unsigned long long)want[k].waiter);
    }
    wfb_graph_free(g);
}
END_TEST

START_TEST(oracle_critical_paths)
{
    wfb_graph *g = oracle_graph();
    wfb_path lp, ae;
    wfb_error err;
    ck_assert_int_eq(wfb_longest_path(g, &lp, &err), 0);
    ck_assert_int_eq(wfb_as_executed_path(g, &ae, &err), 0);
    assert_path(g, &lp, "m0.1,m0.3,m0.3@w1,m1.2");
    assert_near(lp.length_s, 25 * NS);
    const step_want steps[] = {
        {WFB_STEP_RUN, WFB_VIA_NONE, 1, 0, 10, 13, "m0.2"},
        {WFB_STEP_READY, WFB_VIA_OCCUPANCY, 2, 1, 13, 20, NULL},
        {WFB_STEP_RUN, WFB_VIA_NONE, 2, 0, 20, 38, "m0.3"},
        {WFB_STEP_READY, WFB_VIA_OCCUPANCY, 1, 2, 38, 40, NULL},
        {WFB_STEP_RUN, WFB_VIA_NONE, 1, 0, 40, 41, NULL},
        {WFB_STEP_READY, WFB_VIA_OCCUPANCY, 2, 1, 41, 45, NULL},
        {WFB_STEP_RUN, WFB_VIA_NONE, 2, 0, 45, 46, NULL}};
    assert_steps(g, &ae, steps, sizeof steps / sizeof steps[0], NS);
    assert_near(ae.length_s, 36 * NS);
    assert_near(ae.span_s, 72 * NS);
    assert_near(ae.start_up_s, 10 * NS);
    assert_near(ae.tail_s, 26 * NS);
    wfb_step_totals t;
    wfb_path_step_totals(&ae, &t);
    assert_near(t.kind_s[WFB_STEP_RUN], 23 * NS);
    assert_near(t.kind_s[WFB_STEP_READY], 13 * NS);
    ck_assert_uint_eq(t.via_n[WFB_VIA_OCCUPANCY], 3);
    wfb_path_free(&lp);
    wfb_path_free(&ae);
    wfb_graph_free(g);
}
END_TEST

/* The as-executed path through back-pressure and creation (variant 0),
 * back-pressure and data (variant 1): oracle_paths_write's comment. */
START_TEST(oracle_paths_edges)
{
    const step_want v0[] = {
        {WFB_STEP_RUN, WFB_VIA_NONE, 2, 0, 6, 8, NULL},
        {WFB_STEP_READY, WFB_VIA_BACKPRESSURE, 1, 2, 8, 9, NULL},
        {WFB_STEP_RUN, WFB_VIA_NONE, 1, 0, 9, 23, NULL},
        {WFB_STEP_READY, WFB_VIA_CREATED, 3, 1, 23, 24, NULL},
        {WFB_STEP_RUN, WFB_VIA_NONE, 3, 0, 24, 33, NULL}};
    const step_want v1[] = {
        {WFB_STEP_RUN, WFB_VIA_NONE, 2, 0, 6, 8, NULL},
        {WFB_STEP_READY, WFB_VIA_BACKPRESSURE, 1, 2, 8, 9, NULL},
        {WFB_STEP_RUN, WFB_VIA_NONE, 1, 0, 9, 22, NULL},
        {WFB_STEP_READY, WFB_VIA_DATA, 2, 1, 22, 25, NULL},
        {WFB_STEP_RUN, WFB_VIA_NONE, 2, 0, 25, 30, NULL}};
    const double length[2] = {27, 24}, tail[2] = {8, 11};
    for (int v = 0; v < 2; v++) {
        wfb_graph *g = oracle_graph_of(v);
        wfb_path ae;
        wfb_error err;
        ck_assert_int_eq(wfb_as_executed_path(g, &ae, &err), 0);
        assert_steps(g, &ae, v ? v1 : v0, 5, NS);
        for (size_t i = 0; i < ae.n_steps; i++)
            if (wfb_path_step_at(&ae, i).kind == WFB_STEP_READY &&
                wfb_path_step_at(&ae, i).via != WFB_VIA_CREATED)
                ck_assert_uint_eq(wfb_path_step_at(&ae, i).stream, 1);
        assert_near(ae.length_s, length[v] * NS);
        assert_near(ae.span_s, 41 * NS);
        assert_near(ae.start_up_s, 6 * NS);
        assert_near(ae.tail_s, tail[v] * NS);
        /* the block on s1 named no peer (task 2 opened it later): the wake did */
        for (size_t i = 0; i < wfb_wait_relation_count(g); i++) {
            const wfb_wait_relation *w = wfb_wait_relation_at(g, i);
            if (w->waiter == 1)
                ck_assert_uint_eq(w->waited_for, 2);
        }
        wfb_path_free(&ae);
        wfb_graph_free(g);
    }
}
END_TEST

/* ---- properties on random traces ---- */

/* xorshift64*: reproducible without global state. */
static uint64_t next_random(uint64_t *s)
{
    *s ^= *s >> 12, *s ^= *s << 25, *s ^= *s >> 27;
    return *s * 0x2545F4914F6CDD1DULL;
}

static unsigned below(uint64_t *s, unsigned n) { return (unsigned)(next_random(s) % n); }

static void feed_event(wfb_lifter *l, mon_event_kind kind, double t, uint32_t run, uint32_t worker,
                       uint64_t task, uint64_t msg)
{
    mon_event ev = {.kind = kind, .time = WFB_NS(t), .run = run, .worker = worker, .task = task,
                         .msg = msg};
    wfb_error err;
    ck_assert_msg(wfb_lifter_feed_mon(l, &ev, &err) == 0, "%s", err.msg);
}

typedef struct generated {
    double span[4][8]; /* per run (from 1) and worker */
    double busy[4][8];
    unsigned workers;
    bool read_once; /* each message read at most once, as S-Net's streams do
                       (a message read twice on another worker than its
                       writer's is moved twice: the bounded lifter gives up) */
} generated;

/* One run: workers start and end; tasks are dispatched one period at a
 * time; executions read messages written before they began (or never
 * written: from outside), write new ones, may block inside, may be left
 * open. Ids restart with every run, as in the runtime. */
static void generate_run(wfb_lifter *l, uint64_t *rng, uint32_t run, double *t, generated *gen)
{
    unsigned tasks = 2 + below(rng, 8);
    uint64_t written[64];
    bool was_read[64] = {false};
    unsigned n_written = 0;
    uint64_t next_msg = 1, next_outside = 2000;
    bool exec_open[12] = {false};
    unsigned exec_first_msg[12];
    double start[8];
    for (unsigned w = 0; w < gen->workers; w++) {
        start[w] = *t;
        feed_event(l, MON_EV_WORKER_START, *t, run, w, 0, 0);
    }
    double busy[8] = {0};
    unsigned periods = 5 + below(rng, 40);
    for (unsigned p = 0; p < periods; p++) {
        unsigned task = 1 + below(rng, tasks), w = task % gen->workers;
        *t += 1 + below(rng, 5);
        double from = *t;
        feed_event(l, MON_EV_TASK_DISPATCH, *t, run, w, task, 0);
        unsigned steps = 1 + below(rng, 4);
        for (unsigned k = 0; k < steps; k++) {
            *t += below(rng, 3);
            if (!exec_open[task] && below(rng, 3)) {
                feed_event(l, MON_EV_COMPONENT_BEGIN, *t, run, w, task, 0);
                exec_open[task] = true;
                exec_first_msg[task] = n_written;
            }
            unsigned reads = below(rng, 3);
            for (unsigned i = 0; i < reads && exec_open[task]; i++) {
                unsigned j = exec_first_msg[task] && below(rng, 4) ? below(rng, exec_first_msg[task])
                                                                   : 64;
                uint64_t m = j < 64 ? written[j] : 1000 + below(rng, 5); /* from outside */
                if (gen->read_once && j < 64 && was_read[j])
                    continue;
                if (gen->read_once && j < 64)
                    was_read[j] = true;
                feed_event(l, MON_EV_MESSAGE_READ, *t, run, w, task,
                           gen->read_once && j == 64 ? next_outside++ : m);
            }
            unsigned writes = below(rng, 3);
            for (unsigned i = 0; i < writes && n_written < 64; i++) {
                written[n_written++] = next_msg;
                feed_event(l, MON_EV_MESSAGE_WRITTEN, *t, run, w, task, next_msg++);
            }
            if (exec_open[task] && below(rng, 2)) {
                feed_event(l, MON_EV_COMPONENT_END, *t, run, w, task, 0);
                exec_open[task] = false;
            }
        }
        *t += 1 + below(rng, 3);
        mon_event block = {.kind = MON_EV_TASK_BLOCK, .time = WFB_NS(*t), .run = run, .worker = w,
                                .task = task, .cause = below(rng, 4)};
        wfb_error err;
        ck_assert_int_eq(wfb_lifter_feed_mon(l, &block, &err), 0);
        busy[w] += *t - from;
        if (below(rng, 3) == 0) {
            feed_event(l, MON_EV_WORKER_WAIT, *t, run, w, 0, 0);
            *t += below(rng, 7);
            feed_event(l, MON_EV_WORKER_RESUME, *t, run, w, 0, 0);
        }
    }
    for (unsigned w = 0; w < gen->workers; w++) {
        *t += below(rng, 2);
        feed_event(l, MON_EV_WORKER_END, *t, run, w, 0, 0);
        gen->span[run][w] = *t - start[w];
        gen->busy[run][w] = busy[w];
    }
    *t += 1;
}

START_TEST(random_traces_keep_the_paper_properties)
{
    uint64_t rng = 0x9E3779B97F4A7C15ULL;
    for (int trial = 0; trial < 300; trial++) {
        generated gen = {.workers = 1 + below(&rng, 4)};
        uint32_t runs = 1 + below(&rng, 3);
        wfb_graph *g = wfb_graph_new();
        wfb_lifter *l = wfb_lifter_new(g);
        double t = 0;
        for (uint32_t run = 1; run <= runs; run++)
            generate_run(l, &rng, run, &t, &gen);
        wfb_error err;
        ck_assert_msg(wfb_lifter_finish(l, &err) == 0, "trial %d: %s", trial, err.msg);
        ck_assert_uint_eq(wfb_run_count(g), runs);
        wfb_message_report r;
        ck_assert_int_eq(wfb_message_metrics_compute(g, NULL, &r, &err), 0);
        double exec = 0, sum = 0;
        for (size_t i = 0; i < wfb_task_stats_count(g); i++)
            exec += wfb_task_stats_at(g, i)->exec_s;
        for (size_t i = 0; i < r.n_inputs; i++) {
            ck_assert_msg(wfb_message_lifeline(&r, i).latency_s >= 0, "trial %d: negative latency", trial);
            sum += wfb_message_lifeline(&r, i).latency_s;
        }
        ck_assert_msg(sum <= exec * (1 + 1e-12) + 1e-12, "trial %d: latencies %.17g > execution %.17g",
                      trial, sum, exec);
        /* eq. 1: N_input over each run's longest worker span, added up over
         * the runs with inputs; never below every run's throughput */
        ck_assert_uint_eq(r.n_runs, runs);
        double span = 0, busy = 0, lowest = INFINITY;
        size_t per_run = 0, without = 0;
        for (uint32_t run = 1; run <= runs; run++) {
            const wfb_run_figures *f = &r.runs[run - 1];
            double s = 0, b = 0;
            for (unsigned w = 0; w < gen.workers; w++) {
                s = fmax(s, gen.span[run][w]);
                b = fmax(b, gen.busy[run][w]);
            }
            assert_near(f->span_s, s);
            per_run += f->inputs;
            if (!f->inputs) {
                without++;
                ck_assert(isnan(f->throughput_per_s) && f->throughput_unknown_why);
                continue;
            }
            span += s;
            busy += b;
            lowest = fmin(lowest, f->throughput_per_s);
        }
        ck_assert_uint_eq(per_run, r.total.inputs);
        ck_assert_uint_eq(r.total.runs_without_inputs, without);
        if (r.n_inputs) {
            assert_near(r.total.span_s, span);
            assert_near(r.total.throughput_per_s, (double)r.n_inputs / span);
            assert_near(r.total.busy_max_s, busy);
            ck_assert(r.total.throughput_per_s >= lowest * (1 - 1e-12));
        } else {
            ck_assert(isnan(r.total.throughput_per_s) && r.total.throughput_unknown_why);
        }
        wfb_message_report_free(&r);
        wfb_graph_free(g);
    }
}
END_TEST

/* ---- the bounded analysis against the graph in memory ---- */

/* Equal doubles: the same bits' value, or both NAN. */
static void same_double(double a, double b, const char *what)
{
    ck_assert_msg(a == b || (isnan(a) && isnan(b)), "%s: %.17g in memory, %.17g bounded", what, a,
                  b);
}

static void same_why(const char *a, const char *b, const char *what)
{
    ck_assert_msg((!a && !b) || (a && b && !strcmp(a, b)), "%s: '%s' in memory, '%s' bounded",
                  what, a ? a : "(none)", b ? b : "(none)");
}

static void same_summary(const wfb_summary *a, const wfb_summary *b)
{
    ck_assert_uint_eq(a->n, b->n);
    same_double(a->min, b->min, "min");
    same_double(a->median, b->median, "median");
    same_double(a->p95, b->p95, "p95");
    same_double(a->p99, b->p99, "p99");
    same_double(a->max, b->max, "max");
    same_double(a->mean, b->mean, "mean");
    same_double(a->stddev, b->stddev, "stddev");
}

static void same_figures(const wfb_run_figures *a, const wfb_run_figures *b)
{
    ck_assert_uint_eq(a->run, b->run);
    ck_assert_uint_eq(a->inputs, b->inputs);
    ck_assert_uint_eq(a->inputs_only_read, b->inputs_only_read);
    same_double(a->span_s, b->span_s, "span_s");
    ck_assert_uint_eq(a->span_worker, b->span_worker);
    same_double(a->throughput_per_s, b->throughput_per_s, "throughput");
    same_double(a->busy_max_s, b->busy_max_s, "busy_max_s");
    same_double(a->exec_s, b->exec_s, "exec_s");
    same_summary(&a->latency, &b->latency);
    same_summary(&a->end_to_end, &b->end_to_end);
    same_double(a->jitter_s, b->jitter_s, "jitter_s");
    same_why(a->span_unknown_why, b->span_unknown_why, "span");
    same_why(a->latency_unknown_why, b->latency_unknown_why, "latency");
    same_why(a->throughput_unknown_why, b->throughput_unknown_why, "throughput");
    ck_assert_uint_eq(a->runs_without_inputs, b->runs_without_inputs);
}

static void same_messages(const wfb_graph *ga, const wfb_graph *gb)
{
    wfb_message_report a, b;
    wfb_error err;
    ck_assert_int_eq(wfb_message_metrics_compute(ga, NULL, &a, &err), 0);
    ck_assert_msg(wfb_message_metrics_compute(gb, NULL, &b, &err) == 0, "%s", err.msg);
    ck_assert_uint_eq(a.n_inputs, b.n_inputs);
    ck_assert_uint_eq(a.n_runs, b.n_runs);
    same_figures(&a.total, &b.total);
    for (size_t i = 0; i < a.n_runs; i++)
        same_figures(&a.runs[i], &b.runs[i]);
    for (size_t i = 0; i < a.n_inputs; i++) {
        wfb_lifeline la = wfb_message_lifeline(&a, i), lb = wfb_message_lifeline(&b, i);
        ck_assert_str_eq(wfb_vertex_id(ga, la.input), wfb_vertex_id(gb, lb.input));
        ck_assert_uint_eq(la.run, lb.run);
        same_double(la.latency_s, lb.latency_s, "lifeline latency");
        same_double(la.end_to_end_s, lb.end_to_end_s, "lifeline end to end");
        ck_assert_uint_eq(la.descendants, lb.descendants);
        ck_assert_int_eq(la.missing_events, lb.missing_events);
        ck_assert_int_eq(la.timed_out, lb.timed_out);
    }
    same_double(a.timeout_s, b.timeout_s, "timeout");
    ck_assert_uint_eq(a.n_missing, b.n_missing);
    ck_assert_uint_eq(a.n_timed_out, b.n_timed_out);
    ck_assert_int_eq(wfb_graph_io_error(gb), 0);
    wfb_message_report_free(&a);
    wfb_message_report_free(&b);
}

static void same_path(const wfb_graph *ga, const wfb_path *a, const wfb_graph *gb,
                      const wfb_path *b)
{
    ck_assert_int_eq(a->valid, b->valid);
    same_double(a->length_s, b->length_s, "path length");
    ck_assert_uint_eq(a->n, b->n);
    for (size_t i = 0; i < a->n; i++) {
        ck_assert_str_eq(wfb_vertex_id(ga, a->vertices[i]), wfb_vertex_id(gb, b->vertices[i]));
        if (i + 1 < a->n) {
            ck_assert_int_eq(wfb_edge_kind_of(ga, a->edges[i]), wfb_edge_kind_of(gb, b->edges[i]));
            same_double(wfb_edge_cost(ga, a->edges[i]), wfb_edge_cost(gb, b->edges[i]), "cost");
        }
    }
    ck_assert_uint_eq(a->n_steps, b->n_steps);
    for (size_t i = 0; i < a->n_steps; i++) {
        wfb_step sa = wfb_path_step_at(a, i), sb = wfb_path_step_at(b, i);
        ck_assert_int_eq(sa.kind, sb.kind);
        ck_assert_uint_eq(sa.task, sb.task);
        same_double(sa.start_s, sb.start_s, "step start");
        same_double(sa.end_s, sb.end_s, "step end");
    }
}

static void same_paths(const wfb_graph *ga, const wfb_graph *gb)
{
    wfb_path a, b;
    wfb_error err;
    ck_assert_int_eq(wfb_longest_path(ga, &a, &err), 0);
    ck_assert_msg(wfb_longest_path(gb, &b, &err) == 0, "%s", err.msg);
    same_path(ga, &a, gb, &b);
    wfb_path_free(&a);
    wfb_path_free(&b);
    ck_assert_int_eq(wfb_as_executed_path(ga, &a, &err), 0);
    ck_assert_msg(wfb_as_executed_path(gb, &b, &err) == 0, "%s", err.msg);
    same_path(ga, &a, gb, &b);
    wfb_path_free(&a);
    wfb_path_free(&b);
}

/* A graph and its bounded lifter, caches small enough that the records go
 * to temporary files at once. */
static wfb_lifter *bounded_lifter(wfb_graph **g)
{
    wfb_limits tiny = {512, NULL};
    *g = wfb_graph_new();
    ck_assert_int_eq(wfb_graph_set_limits(*g, &tiny), 0);
    wfb_lifter *l = wfb_lifter_new_bounded(*g);
    ck_assert_ptr_nonnull(l);
    return l;
}

/* A trace directory read through the trace reader into the bounded lifter. */
static wfb_graph *bounded_import(const char *dir)
{
    wfb_graph *g;
    wfb_lifter *l = bounded_lifter(&g);
    mon_trace *t;
    char msg[4608];
    ck_assert_msg(mon_trace_open(&t, dir, msg, sizeof msg) == 0, "%s", msg);
    mon_event ev;
    wfb_error err;
    int rc;
    while ((rc = mon_trace_next(t, &ev)) == 1)
        ck_assert_msg(wfb_lifter_feed_mon(l, &ev, &err) == 0, "%s", err.msg);
    ck_assert_int_eq(rc, 0);
    mon_trace_close(t);
    ck_assert_msg(wfb_lifter_finish(l, &err) == 0, "%s", err.msg);
    return g;
}

/* Factors per execution (the what-if latencies) need the graph in memory:
 * the bounded graph b says it is one and refuses them, with a message. */
static void refuses_exec_scale(const wfb_graph *a, const wfb_graph *b)
{
    ck_assert(!wfb_graph_bounded(a));
    ck_assert(wfb_graph_bounded(b));
    size_t n = wfb_exec_count(b);
    double *ones = malloc((n ? n : 1) * sizeof *ones);
    ck_assert_ptr_nonnull(ones);
    for (size_t i = 0; i < n; i++)
        ones[i] = 1;
    wfb_message_options opt = {.exec_scale = ones};
    wfb_message_report r;
    wfb_error err;
    ck_assert_int_eq(wfb_message_metrics_compute(b, &opt, &r, &err), -1);
    ck_assert_ptr_nonnull(strstr(err.msg, "in memory"));
    ck_assert_int_eq(wfb_message_metrics_compute(a, &opt, &r, &err), 0);
    wfb_message_report_free(&r);
    free(ones);
}

START_TEST(bounded_equals_in_memory_on_the_oracles)
{
    for (int variant = -1; variant < 2; variant++) {
        char dir[] = "/tmp/wfb_bounded.XXXXXX";
        ck_assert_ptr_nonnull(mkdtemp(dir));
        ck_assert_int_eq(variant < 0 ? oracle_trace_write(dir) : oracle_paths_write(dir, variant),
                         0);
        wfb_graph *a = wfb_graph_new(), *b = bounded_import(dir);
        wfb_error err;
        ck_assert_msg(wfb_import_lpel_trace(a, dir, &err) == 0, "%s", err.msg);
        remove_tree(dir);
        same_messages(a, b);
        same_paths(a, b);
        refuses_exec_scale(a, b);
        wfb_graph_free(a);
        wfb_graph_free(b);
    }
}
END_TEST

START_TEST(bounded_equals_in_memory_on_random_traces)
{
    uint64_t rng = 0x2545F4914F6CDD1DULL;
    for (int trial = 0; trial < 200; trial++) {
        generated gen = {.workers = 1 + below(&rng, 4), .read_once = true}, again = gen;
        uint32_t runs = 1 + below(&rng, 3);
        uint64_t start = rng, end = 0;
        wfb_graph *a = wfb_graph_new(), *b;
        wfb_lifter *la = wfb_lifter_new(a), *lb = bounded_lifter(&b);
        double t = 0;
        for (uint32_t run = 1; run <= runs; run++)
            generate_run(la, &rng, run, &t, &gen);
        end = rng, rng = start, t = 0; /* the same events again */
        for (uint32_t run = 1; run <= runs; run++)
            generate_run(lb, &rng, run, &t, &again);
        ck_assert_uint_eq(rng, end);
        wfb_error err;
        ck_assert_int_eq(wfb_lifter_finish(la, &err), 0);
        ck_assert_msg(wfb_lifter_finish(lb, &err) == 0, "trial %d: %s", trial, err.msg);
        same_messages(a, b);
        same_paths(a, b);
        wfb_graph_free(a);
        wfb_graph_free(b);
    }
}
END_TEST

START_TEST(inputs_option_sets_n_of_eq1)
{
    wfb_graph *g = oracle_graph();
    wfb_message_options opt = {.inputs = 1000};
    wfb_message_report r;
    wfb_error err;
    ck_assert_int_eq(wfb_message_metrics_compute(g, &opt, &r, &err), 0);
    ck_assert_uint_eq(r.total.inputs, 1000);
    ck_assert(r.total.inputs_given);
    assert_near(r.total.throughput_per_s, 1000 / (72 * NS));
    wfb_message_report_free(&r);
    wfb_graph_free(g);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("wfb_oracle");
    TCase *t = tcase_create("oracle");
    tcase_add_test(t, oracle_eq1_eq2_eq3);
    tcase_add_test(t, oracle_runtime_tables);
    tcase_add_test(t, oracle_critical_paths);
    tcase_add_test(t, oracle_paths_edges);
    tcase_add_test(t, inputs_option_sets_n_of_eq1);
    tcase_add_test(t, random_traces_keep_the_paper_properties);
    tcase_add_test(t, bounded_equals_in_memory_on_the_oracles);
    tcase_add_test(t, bounded_equals_in_memory_on_random_traces);
    suite_add_tcase(s, t);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
