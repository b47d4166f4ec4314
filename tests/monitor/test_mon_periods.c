/*
 * test_mon_periods.c - the trace reader's period layer (monitor/mon_periods.c)
 * on events made by hand, every interval worked out on paper: execution
 * periods, worker waits, stream blocks with their wake (blocked and ready
 * apart), the stretches between CPU readings and the loss charged to a
 * period, each end the trace lacks (MON_END_LOST), what is open at the
 * end (MON_END_TRACE) and at a monitor_control mark that switches task
 * events or CPU readings off; and the helpers consumers share with it
 * (mon_key_table, mon_task_kind).
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "mon_reader.h"

/* What the sink saw, in order. */
typedef struct seen {
    mon_interval iv[64];
    bool opened[64];
    size_t n;
    int stop_after; /* return 1 from the close of this many intervals; 0 never */
} seen;

static int record(seen *s, const mon_interval *iv, bool opened)
{
    ck_assert_uint_lt(s->n, 64);
    s->opened[s->n] = opened;
    s->iv[s->n++] = *iv;
    return 0;
}

static int on_open(void *ctx, const mon_interval *iv) { return record(ctx, iv, true); }

static int on_close(void *ctx, const mon_interval *iv)
{
    seen *s = ctx;
    record(s, iv, false);
    size_t closed = 0;
    for (size_t i = 0; i < s->n; i++)
        closed += !s->opened[i];
    return s->stop_after && closed == (size_t)s->stop_after;
}

static seen got;
static mon_periods *p;

static void setup(void)
{
    memset(&got, 0, sizeof got);
    mon_period_sink sink = {.ctx = &got, .open = on_open, .close = on_close};
    p = mon_periods_new(&sink);
    ck_assert_ptr_nonnull(p);
}

static void teardown(void) { mon_periods_free(p); }

static void feed(mon_event_kind kind, unsigned worker, uint64_t time, uint64_t task)
{
    mon_event ev = {.kind = kind, .run = 1, .worker = worker, .time = time, .task = task};
    ck_assert_int_eq(mon_periods_feed(p, &ev), 0);
}

static void feed_block(uint64_t time, uint64_t task, uint64_t stream, uint64_t peer)
{
    mon_event ev = {.kind = MON_EV_STREAM_BLOCK, .run = 1, .time = time, .task = task,
                    .stream = stream, .peer = peer, .empty = true};
    ck_assert_int_eq(mon_periods_feed(p, &ev), 0);
}

static void feed_stop(unsigned worker, uint64_t time, uint64_t task, unsigned cause)
{
    mon_event ev = {.kind = MON_EV_TASK_BLOCK, .run = 1, .worker = worker, .time = time,
                    .task = task, .cause = cause};
    ck_assert_int_eq(mon_periods_feed(p, &ev), 0);
}

/* The i-th callback: opened or closed, its kind, task, span and end. */
static void expect(size_t i, bool opened, mon_interval_kind kind, uint64_t task, uint64_t start,
                   uint64_t end, mon_interval_end how)
{
    ck_assert_uint_lt(i, got.n);
    const mon_interval *iv = &got.iv[i];
    ck_assert_msg(got.opened[i] == opened && iv->kind == kind && iv->task == task &&
                      iv->start == start && iv->end == end && iv->how == how,
                  "callback %zu: %s kind %d task %llu [%llu, %llu] %s", i,
                  got.opened[i] ? "open" : "close", iv->kind, (unsigned long long)iv->task,
                  (unsigned long long)iv->start, (unsigned long long)iv->end,
                  mon_interval_end_name(iv->how));
}

/* Worker 0 runs task 1 from 10 to 15 (blocked on input), waits from 15
 * to 20, runs task 2 from 20 to 22 (yield) and 23 to 30 (destroy). */
START_TEST(periods_and_waits_of_a_whole_trace)
{
    feed(MON_EV_TASK_DISPATCH, 0, 10, 1);
    ck_assert_ptr_nonnull(mon_periods_running(p, 1, 1));
    ck_assert_int_eq(mon_periods_worker_state(p, 0)->kind, MON_INTERVAL_EXEC);
    feed_stop(0, 15, 1, MON_BLOCK_INPUT);
    ck_assert_ptr_null(mon_periods_running(p, 1, 1));
    ck_assert_ptr_null(mon_periods_worker_state(p, 0));
    feed(MON_EV_WORKER_WAIT, 0, 15, 0);
    ck_assert_int_eq(mon_periods_worker_state(p, 0)->kind, MON_INTERVAL_IDLE);
    feed(MON_EV_WORKER_RESUME, 0, 20, 0);
    feed(MON_EV_TASK_DISPATCH, 0, 20, 2);
    feed(MON_EV_TASK_YIELD, 0, 22, 2);
    feed(MON_EV_TASK_DISPATCH, 0, 23, 2);
    feed(MON_EV_TASK_DESTROY, 0, 30, 2);
    ck_assert_int_eq(mon_periods_finish(p, 31), 0);
    ck_assert_uint_eq(got.n, 8);
    expect(0, true, MON_INTERVAL_EXEC, 1, 10, 0, MON_END_NONE);
    expect(1, false, MON_INTERVAL_EXEC, 1, 10, 15, MON_END_BLOCK_INPUT);
    expect(2, true, MON_INTERVAL_IDLE, 0, 15, 0, MON_END_NONE);
    expect(3, false, MON_INTERVAL_IDLE, 0, 15, 20, MON_END_RESUME);
    expect(5, false, MON_INTERVAL_EXEC, 2, 20, 22, MON_END_YIELD);
    expect(7, false, MON_INTERVAL_EXEC, 2, 23, 30, MON_END_DESTROY);
}
END_TEST

/* Task 1 blocks on stream 7 (writer task 2) at 5; task 2 wakes it at 8;
 * it is dispatched at 12: blocked 5..8, ready 8..12. A poll blocks on
 * streams 3 and 4 at one time: one wait, naming the last. */
START_TEST(stream_blocks_keep_their_wake)
{
    feed(MON_EV_TASK_DISPATCH, 0, 1, 1);
    feed_block(5, 1, 7, 2);
    feed_stop(0, 5, 1, MON_BLOCK_INPUT);
    mon_event wake = {.kind = MON_EV_STREAM_WAKE, .run = 1, .worker = 1, .time = 8, .task = 2,
                      .stream = 7, .peer = 1};
    ck_assert_int_eq(mon_periods_feed(p, &wake), 0);
    feed(MON_EV_TASK_DISPATCH, 0, 12, 1);
    /* open exec, open blocked, close exec, close blocked, open exec */
    expect(1, true, MON_INTERVAL_BLOCKED, 1, 5, 0, MON_END_NONE);
    expect(3, false, MON_INTERVAL_BLOCKED, 1, 5, 12, MON_END_DISPATCH);
    const mon_interval *w = &got.iv[3];
    ck_assert(w->woken);
    ck_assert_uint_eq(w->wake, 8);
    ck_assert_uint_eq(w->waker, 2);
    ck_assert_uint_eq(w->stream, 7);
    ck_assert_uint_eq(w->peer, 2);
    ck_assert(w->empty && !w->channel);
    ck_assert_uint_eq(mon_interval_blocked_ns(w), 3);
    ck_assert_uint_eq(mon_interval_ready_ns(w), 4);

    feed_block(20, 1, 3, 5);
    feed_block(20, 1, 4, 6);
    feed_stop(0, 20, 1, MON_BLOCK_ANY);
    feed(MON_EV_TASK_DISPATCH, 0, 25, 1);
    size_t blocked = 0;
    for (size_t i = 0; i < got.n; i++)
        if (!got.opened[i] && got.iv[i].kind == MON_INTERVAL_BLOCKED && got.iv[i].start == 20) {
            blocked++;
            ck_assert_uint_eq(got.iv[i].stream, 4);
            ck_assert_uint_eq(got.iv[i].end, 25);
            ck_assert(!got.iv[i].woken);
            /* no wake in the trace: all of it blocked */
            ck_assert_uint_eq(mon_interval_blocked_ns(&got.iv[i]), 5);
            ck_assert_uint_eq(mon_interval_ready_ns(&got.iv[i]), 0);
        }
    ck_assert_uint_eq(blocked, 1);
}
END_TEST

/* The other end's task named by the wake when the block could not name it
 * (the end was not open yet), and of a poll's streams the one the wake came
 * through; a wake stamped (on another worker) before the block counts from
 * the block. */
START_TEST(the_wake_names_the_task_waited_for)
{
    feed_block(5, 1, 3, 0);
    feed_block(5, 1, 4, 0);
    feed_stop(0, 5, 1, MON_BLOCK_ANY);
    mon_event wake = {.kind = MON_EV_STREAM_WAKE, .run = 1, .worker = 1, .time = 4, .task = 9,
                      .stream = 3, .peer = 1};
    ck_assert_int_eq(mon_periods_feed(p, &wake), 0);
    feed(MON_EV_TASK_DISPATCH, 0, 11, 1);
    const mon_interval *w = NULL;
    for (size_t i = 0; i < got.n; i++)
        if (!got.opened[i] && got.iv[i].kind == MON_INTERVAL_BLOCKED)
            w = &got.iv[i];
    ck_assert_ptr_nonnull(w);
    ck_assert_uint_eq(w->peer, 9);
    ck_assert_uint_eq(w->stream, 3);
    ck_assert_uint_eq(mon_interval_blocked_ns(w), 0);
    ck_assert_uint_eq(mon_interval_ready_ns(w), 6);
}
END_TEST

/* A poll registers its task with its streams before the task's block
 * events are stamped, so in time order the wake can come first, while the
 * task still runs (seen on loaded machines, milliseconds apart): it is the
 * next block's wake, and the task was ready from the block on. A wake
 * while running that no block follows in the period is forgotten. */
START_TEST(a_wake_before_the_block_is_the_blocks)
{
    feed(MON_EV_TASK_DISPATCH, 0, 1, 1);
    mon_event wake = {.kind = MON_EV_STREAM_WAKE, .run = 1, .worker = 1, .time = 4, .task = 9,
                      .stream = 3, .peer = 1};
    ck_assert_int_eq(mon_periods_feed(p, &wake), 0);
    feed_block(5, 1, 3, 0);
    feed_block(5, 1, 4, 0);
    feed_stop(0, 5, 1, MON_BLOCK_ANY);
    feed(MON_EV_TASK_DISPATCH, 0, 11, 1);
    /* the second period: a stray wake, a yield, then a block of its own */
    wake.time = 12;
    ck_assert_int_eq(mon_periods_feed(p, &wake), 0);
    feed(MON_EV_TASK_YIELD, 0, 13, 1);
    feed(MON_EV_TASK_DISPATCH, 0, 14, 1);
    feed_block(15, 1, 4, 7);
    feed_stop(0, 15, 1, MON_BLOCK_INPUT);
    feed(MON_EV_TASK_DISPATCH, 0, 20, 1);
    const mon_interval *w[2] = {NULL, NULL};
    size_t n = 0;
    for (size_t i = 0; i < got.n; i++)
        if (!got.opened[i] && got.iv[i].kind == MON_INTERVAL_BLOCKED && n < 2)
            w[n++] = &got.iv[i];
    ck_assert_uint_eq(n, 2);
    ck_assert(w[0]->woken);
    ck_assert_uint_eq(w[0]->peer, 9);
    ck_assert_uint_eq(w[0]->stream, 3);
    ck_assert_uint_eq(mon_interval_blocked_ns(w[0]), 0);
    ck_assert_uint_eq(mon_interval_ready_ns(w[0]), 6);
    ck_assert(!w[1]->woken);
    ck_assert_uint_eq(w[1]->peer, 7);
    ck_assert_uint_eq(w[1]->stream, 4);
    ck_assert_uint_eq(mon_interval_blocked_ns(w[1]), 5);
}
END_TEST

static void feed_cpu(unsigned worker, uint64_t time, uint64_t cpu_ns, uint32_t preemptions)
{
    mon_event ev = {.kind = MON_EV_CPU_TIME, .run = 1, .worker = worker, .time = time,
                    .cpu_ns = cpu_ns, .preemptions = preemptions};
    ck_assert_int_eq(mon_periods_feed(p, &ev), 0);
}

static const mon_interval *closed_exec(uint64_t task)
{
    for (size_t i = 0; i < got.n; i++)
        if (!got.opened[i] && got.iv[i].kind == MON_INTERVAL_EXEC && got.iv[i].task == task)
            return &got.iv[i];
    ck_abort_msg("no period of task %llu", (unsigned long long)task);
    return NULL;
}

/* CPU readings (flag C), worked out on paper. Worker 0 starts at 0.
 *   task 1 runs 10..3010, a reading at 3010 (cpu 1000, 1 switch):
 *     stretch 0..3010: 3010 long, idle 0, CPU 1000: lost 2010; the rest of
 *     the stretch (0..10) holds at most 10 of it, so task 1's period lost
 *     at least 2000;
 *   wait 3010..5010;
 *   task 2 runs 5010..5100 (no reading: shorter than the step);
 *   task 3 runs 5100..6100, a reading at 6100 (cpu 1900, 1 switch):
 *     stretch 3010..6100: 3090 long, idle 2000, CPU 900: lost 190; the
 *     rest (90 of task 2) holds 90, task 3 lost at least 100;
 *   a reading at 7000 (cpu 2800) before worker_end: stretch 6100..7000,
 *     900 of CPU, nothing lost, no period running.
 * Totals: CPU 2800, lost 2300 = 7000 - 2000 idle - 2800, 1 switch. */
START_TEST(cpu_readings_charge_the_periods_they_end)
{
    feed(MON_EV_WORKER_START, 0, 0, 0);
    feed(MON_EV_TASK_DISPATCH, 0, 10, 1);
    feed_cpu(0, 3010, 1000, 1);
    feed_stop(0, 3010, 1, MON_BLOCK_INPUT);
    feed(MON_EV_WORKER_WAIT, 0, 3010, 0);
    feed(MON_EV_WORKER_RESUME, 0, 5010, 0);
    feed(MON_EV_TASK_DISPATCH, 0, 5010, 2);
    feed_stop(0, 5100, 2, MON_BLOCK_INPUT);
    feed(MON_EV_TASK_DISPATCH, 0, 5100, 3);
    feed_cpu(0, 6100, 1900, 1);
    feed_stop(0, 6100, 3, MON_BLOCK_INPUT);
    feed_cpu(0, 7000, 2800, 1);
    feed(MON_EV_WORKER_END, 0, 7000, 0);
    const mon_interval *t1 = closed_exec(1), *t2 = closed_exec(2), *t3 = closed_exec(3);
    ck_assert(t1->cpu_known && !t2->cpu_known && t3->cpu_known);
    ck_assert_uint_eq(t1->preempted, 2000);
    ck_assert_uint_eq(t2->preempted, 0);
    ck_assert_uint_eq(t3->preempted, 100);
    const uint64_t want[3][6] = {/* start, end, cpu, lost, idle, switches */
                                 {0, 3010, 1000, 2010, 0, 1},
                                 {3010, 6100, 900, 190, 2000, 0},
                                 {6100, 7000, 900, 0, 0, 0}};
    size_t k = 0;
    uint64_t cpu = 0, lost = 0;
    for (size_t i = 0; i < got.n; i++) {
        const mon_interval *iv = &got.iv[i];
        if (iv->kind != MON_INTERVAL_CPU)
            continue;
        ck_assert(!got.opened[i]);
        ck_assert_uint_lt(k, 3);
        ck_assert_int_eq(iv->how, MON_END_READING);
        ck_assert_uint_eq(iv->start, want[k][0]);
        ck_assert_uint_eq(iv->end, want[k][1]);
        ck_assert_uint_eq(iv->cpu, want[k][2]);
        ck_assert_uint_eq(iv->preempted, want[k][3]);
        ck_assert_uint_eq(iv->idle, want[k][4]);
        ck_assert_uint_eq(iv->preemptions, want[k][5]);
        cpu += iv->cpu, lost += iv->preempted;
        k++;
    }
    ck_assert_uint_eq(k, 3);
    ck_assert_uint_eq(cpu, 2800);
    ck_assert_uint_eq(lost, 7000 - 2000 - 2800);
}
END_TEST

/* A reading without a start to measure from (no W flag, or the first of a
 * new run) is only where the next stretch begins. */
START_TEST(first_reading_without_a_start_is_a_base)
{
    feed_cpu(0, 100, 50, 0);
    feed_cpu(0, 300, 150, 2);
    mon_event next_run = {.kind = MON_EV_CPU_TIME, .run = 2, .worker = 0, .time = 400, .cpu_ns = 10};
    ck_assert_int_eq(mon_periods_feed(p, &next_run), 0);
    ck_assert_uint_eq(got.n, 1);
    ck_assert_int_eq(got.iv[0].kind, MON_INTERVAL_CPU);
    ck_assert_uint_eq(got.iv[0].start, 100);
    ck_assert_uint_eq(got.iv[0].cpu, 100);
    ck_assert_uint_eq(got.iv[0].preempted, 100);
    ck_assert_uint_eq(got.iv[0].preemptions, 2);
}
END_TEST

static void feed_control(unsigned worker, uint64_t time, unsigned classes)
{
    mon_event ev = {.kind = MON_EV_MONITOR_CONTROL, .run = 1, .worker = worker, .time = time,
                    .classes = classes};
    ck_assert_int_eq(mon_periods_feed(p, &ev), 0);
}

/* snetmon ctl's marks (monitor_control). Task events off: the period
 * running there ends at the mark (MON_END_UNMONITORED). C off: the CPU
 * stretch ends with the reading just before the mark, and the one after C
 * is on again starts the next, so no stretch spans 2000..5000; a mark that
 * keeps C on keeps the stretch going (1000..2000 across the mark at 1500).
 *   worker start 0; task 1 runs 10..; readings at 1000 (cpu 500) and 2000
 *   (cpu 900); mark at 1500 with C, mark at 2000 without T and C (task 1
 *   ends there); mark at 5000 with both, reading at 5000 (cpu 1500) and
 *   7000 (cpu 2500). */
START_TEST(control_marks_end_periods_and_cpu_stretches)
{
    const unsigned all = MON_CLASS_MAP | MON_CLASS_TIMES | MON_CLASS_WORKER | MON_CLASS_TASK |
                         MON_CLASS_STREAM | MON_CLASS_MESSAGE | MON_CLASS_LOAD | MON_CLASS_CPU;
    feed(MON_EV_WORKER_START, 0, 0, 0);
    feed(MON_EV_TASK_DISPATCH, 0, 10, 1);
    feed_cpu(0, 1000, 500, 0);
    feed_control(0, 1500, all & ~MON_CLASS_STREAM);
    feed_cpu(0, 2000, 900, 0);
    feed_control(0, 2000, all & ~(MON_CLASS_TASK | MON_CLASS_CPU));
    feed_control(0, 5000, all);
    feed_cpu(0, 5000, 1500, 1);
    feed_cpu(0, 7000, 2500, 1);
    const mon_interval *t1 = closed_exec(1);
    ck_assert_uint_eq(t1->start, 10);
    ck_assert_uint_eq(t1->end, 2000);
    ck_assert_int_eq(t1->how, MON_END_UNMONITORED);
    const uint64_t want[3][3] = {{0, 1000, 500}, {1000, 2000, 400}, {5000, 7000, 1000}};
    size_t k = 0;
    for (size_t i = 0; i < got.n; i++) {
        const mon_interval *iv = &got.iv[i];
        if (iv->kind != MON_INTERVAL_CPU)
            continue;
        ck_assert_uint_lt(k, 3);
        ck_assert_uint_eq(iv->start, want[k][0]);
        ck_assert_uint_eq(iv->end, want[k][1]);
        ck_assert_uint_eq(iv->cpu, want[k][2]);
        k++;
    }
    ck_assert_uint_eq(k, 3);
}
END_TEST

/* Ends the trace lacks close at the first event that shows them over. */
START_TEST(lost_ends_close_at_the_next_sign)
{
    feed(MON_EV_TASK_DISPATCH, 0, 10, 1);
    feed(MON_EV_TASK_DISPATCH, 0, 12, 1);   /* its block was lost */
    feed(MON_EV_TASK_DISPATCH, 0, 14, 2);   /* task 1's block lost again */
    feed(MON_EV_WORKER_WAIT, 0, 16, 0);     /* task 2's block lost */
    feed(MON_EV_WORKER_WAIT, 0, 18, 0);     /* the resume lost */
    feed(MON_EV_WORKER_END, 0, 19, 0);      /* and again */
    feed_block(20, 3, 9, 0);
    feed_block(24, 3, 9, 0);                /* its dispatch was lost */
    size_t k = 0;
    uint64_t ends[][3] = {{10, 12, 1}, {12, 14, 1}, {14, 16, 2}};
    for (size_t i = 0; i < got.n; i++) {
        const mon_interval *iv = &got.iv[i];
        if (got.opened[i])
            continue;
        ck_assert_int_eq(iv->how, MON_END_LOST);
        if (iv->kind == MON_INTERVAL_EXEC) {
            ck_assert_uint_lt(k, 3);
            ck_assert_uint_eq(iv->start, ends[k][0]);
            ck_assert_uint_eq(iv->end, ends[k][1]);
            ck_assert_uint_eq(iv->task, ends[k][2]);
            k++;
        } else if (iv->kind == MON_INTERVAL_IDLE) {
            ck_assert(iv->start == 16 ? iv->end == 18 : iv->start == 18 && iv->end == 19);
        } else {
            ck_assert_uint_eq(iv->start, 20);
            ck_assert_uint_eq(iv->end, 24);
        }
    }
    ck_assert_uint_eq(k, 3);
    ck_assert_ptr_null(mon_periods_worker_state(p, 0));
}
END_TEST

/* What is open at the end ends with the trace: periods and waits by
 * worker, then blocked tasks by (run, task). */
START_TEST(finish_closes_what_is_open)
{
    feed(MON_EV_WORKER_WAIT, 1, 5, 0);
    feed(MON_EV_TASK_DISPATCH, 0, 6, 4);
    feed_block(7, 9, 1, 0);
    feed_block(7, 8, 1, 0);
    size_t opened = got.n;
    ck_assert_int_eq(mon_periods_finish(p, 50), 0);
    ck_assert_uint_eq(got.n, opened + 4);
    expect(opened, false, MON_INTERVAL_EXEC, 4, 6, 50, MON_END_TRACE);
    expect(opened + 1, false, MON_INTERVAL_IDLE, 0, 5, 50, MON_END_TRACE);
    expect(opened + 2, false, MON_INTERVAL_BLOCKED, 8, 7, 50, MON_END_TRACE);
    expect(opened + 3, false, MON_INTERVAL_BLOCKED, 9, 7, 50, MON_END_TRACE);
    ck_assert_ptr_null(mon_periods_running(p, 1, 4));
}
END_TEST

/* Ids restart with each run: task 1 of run 2 is another task. */
START_TEST(runs_keep_their_tasks_apart)
{
    feed(MON_EV_TASK_DISPATCH, 0, 1, 1);
    mon_event ev = {.kind = MON_EV_TASK_DISPATCH, .run = 2, .worker = 1, .time = 2, .task = 1};
    ck_assert_int_eq(mon_periods_feed(p, &ev), 0);
    ck_assert_ptr_nonnull(mon_periods_running(p, 1, 1));
    ck_assert_ptr_nonnull(mon_periods_running(p, 2, 1));
    ck_assert_uint_eq(got.n, 2); /* two opens, nothing closed */
}
END_TEST

/* A sink's non-zero return stops the feed and is returned. */
START_TEST(sink_can_stop_the_feed)
{
    got.stop_after = 1;
    feed(MON_EV_TASK_DISPATCH, 0, 1, 1);
    mon_event ev = {.kind = MON_EV_TASK_BLOCK, .run = 1, .time = 2, .task = 1};
    ck_assert_int_eq(mon_periods_feed(p, &ev), 1);
}
END_TEST

/* The layer keeps only what is open: 10^5 tasks, each found while it runs
 * and gone once its period ended (destroyed, or, for every 1000th, closed
 * by the next dispatch on its worker). */
START_TEST(finished_tasks_are_forgotten)
{
    mon_periods_free(p);
    p = mon_periods_new(NULL);
    for (uint64_t t = 1; t <= 100000; t++) {
        feed(MON_EV_TASK_DISPATCH, (unsigned)(t % 4), 10 * t, t);
        ck_assert_ptr_nonnull(mon_periods_running(p, 1, t));
        if (t % 1000)
            feed(MON_EV_TASK_DESTROY, (unsigned)(t % 4), 10 * t + 5, t);
    }
    for (uint64_t t = 1000; t < 100000; t += 1000)
        ck_assert_ptr_null(mon_periods_running(p, 1, t));
    ck_assert_ptr_nonnull(mon_periods_running(p, 1, 100000));
}
END_TEST

START_TEST(key_table_gets_finds_and_removes)
{
    mon_key_table t;
    mon_key_table_init(&t, sizeof(uint64_t));
    ck_assert_ptr_null(mon_key_table_find(&t, 5));
    for (uint64_t k = 0; k < 20000; k++)
        *(uint64_t *)mon_key_table_get(&t, k << 20) = k; /* keys sharing low bits */
    for (uint64_t k = 0; k < 20000; k += 2)
        mon_key_table_remove(&t, k << 20);
    mon_key_table_remove(&t, 12345); /* absent: nothing */
    ck_assert_uint_eq(t.used, 10000);
    for (uint64_t k = 0; k < 20000; k++) {
        uint64_t *v = mon_key_table_find(&t, k << 20);
        if (k % 2)
            ck_assert(v && *v == k);
        else
            ck_assert_ptr_null(v);
    }
    ck_assert_uint_eq(*(uint64_t *)mon_key_table_get(&t, 0), 0); /* zeroed when new */
    mon_key_table_free(&t, NULL);
}
END_TEST

START_TEST(task_kinds_from_net_paths)
{
    ck_assert_str_eq(mon_task_kind("S2:I3:R0:S1:P0:mc.vcall"), "mc.vcall");
    ck_assert_str_eq(mon_task_kind("S1:P0:mc.acc"), "mc.acc");
    ck_assert_str_eq(mon_task_kind("box"), "box");
    ck_assert_str_eq(mon_task_kind("snet.in"), "snet.in");
    ck_assert_str_eq(mon_task_kind("S2:Sieve"), "Sieve");
    /* a combinator's part loses its index: one kind per combinator */
    ck_assert_str_eq(mon_task_kind("S2:P"), "P");
    ck_assert_str_eq(mon_task_kind("S2:P0"), "P");
    ck_assert_str_eq(mon_task_kind("S2:I3:R0"), "R");
    ck_assert_str_eq(mon_task_kind("S2:I-3"), "I");
    ck_assert_str_eq(mon_task_kind("S1"), "S");
    ck_assert_str_eq(mon_task_kind("S2:"), "S2:");
    ck_assert_str_eq(mon_task_kind(NULL), "(unnamed)");
    ck_assert_str_eq(mon_task_kind(""), "(unnamed)");
}
END_TEST

static Suite *periods_suite(void)
{
    Suite *s = suite_create("mon_periods");
    TCase *tc = tcase_create("periods");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, periods_and_waits_of_a_whole_trace);
    tcase_add_test(tc, stream_blocks_keep_their_wake);
    tcase_add_test(tc, the_wake_names_the_task_waited_for);
    tcase_add_test(tc, a_wake_before_the_block_is_the_blocks);
    tcase_add_test(tc, cpu_readings_charge_the_periods_they_end);
    tcase_add_test(tc, first_reading_without_a_start_is_a_base);
    tcase_add_test(tc, control_marks_end_periods_and_cpu_stretches);
    tcase_add_test(tc, lost_ends_close_at_the_next_sign);
    tcase_add_test(tc, finish_closes_what_is_open);
    tcase_add_test(tc, runs_keep_their_tasks_apart);
    tcase_add_test(tc, sink_can_stop_the_feed);
    tcase_add_test(tc, finished_tasks_are_forgotten);
    suite_add_tcase(s, tc);
    TCase *shared = tcase_create("shared");
    tcase_add_test(shared, key_table_gets_finds_and_removes);
    tcase_add_test(shared, task_kinds_from_net_paths);
    suite_add_tcase(s, shared);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(periods_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
