/*
 * oracle_trace.c - a trace built by hand, event by event, through the
 * monitor's own writer, whose every metric is worked out on paper below
 * (and checked by test_wfb_oracle.c and the CLI test `bridge_cli_oracle`).
 *
 * Times are ns on a 1 GHz clock. Two workers, four tasks, two inputs:
 *
 *   worker 0: task 1 "S1:src"      writes inputs A (t 10) and B (t 12)
 *             task 2 "S2:P0:box.a" converts A into C
 *   worker 1: task 3 "S2:P1:box.b" converts B into D
 *             task 4 "S3:sync"     merges D and C into E
 *
 * Streams: s5 task 1 -> task 2, s6 task 1 -> task 3, s7 task 2 -> task 4,
 * s8 task 3 -> task 4. Message ids: A = 0.1, B = 0.2, C = 0.3 (worker 0),
 * D = 1.1, E = 1.2 (worker 1).
 *
 * worker 0                                  worker 1
 *   0  run_start 1, worker_start               5  run_start 1, worker_start
 *   1  task 2 opens s5 (read), s7 (write)      5  wait
 *  10  dispatch 1; write A (s5)
 *  12  write B (s6)                           15  resume; dispatch 3; begin;
 *  13  block 1 on FULL s5 (output)                read B (written on w0: moved)
 *  20  dispatch 2; begin; read A              25  write D (s8)
 *  35  write C (s7)                           27  end; block 3 on empty s6
 *  38  end; block 2 on empty s5               27  dispatch 4; begin; read D
 *  40  dispatch 1; close s5, s6               28  block 4 on EMPTY s7 (inside
 *  41  destroy 1                                  its execution: waits for C)
 *  45  dispatch 2                             28  wait
 *  46  destroy 2                              36  resume; dispatch 4; read C
 *  46  wait                                       (written on w0: moved)
 *  70  resume                                 40  write E
 *  72  worker_end                             42  end; destroy 4
 *                                             43  dispatch 3
 *                                             44  destroy 3
 *                                             48  worker_end
 *
 * On paper:
 *   periods (dispatch to block/destroy): task 1 3 + 1 = 4, task 2 18 + 1 =
 *   19, task 3 12 + 1 = 13, task 4 1 + 6 = 7; busy w0 = 4 + 19 = 23,
 *   w1 = 13 + 7 = 20 (43 in all).
 *   waiting: w0 1 wait, 46..70 = 24; w1 2 waits, 5..15 + 28..36 = 18.
 *   span (worker_start to worker_end): w0 72, w1 43.
 *   unaccounted: w0 72 - 23 - 24 = 25; w1 43 - 20 - 18 = 5.
 *   executions: task 3: B@w1 -> D, 15..27 dispatched all along: 12;
 *     task 2: A -> C, 20..38: 18; task 4: {D, C@w1} -> E (MERGE), 27..42
 *     but blocked 28..36: 1 + 6 = 7 (its span, 15, is what eq. 2 must
 *     not count).
 *   inputs: A and B (written outside any execution): N = 2.
 *   eq. 2: the merge is reached from both inputs, so each is charged
 *     7 / 2 = 3.5: L(A) = 18 + 3.5 = 21.5, L(B) = 12 + 3.5 = 15.5;
 *     L(A) + L(B) = 37 = 12 + 18 + 7 <= 43 (all execution time).
 *   eq. 3: jitter = population standard deviation of {21.5, 15.5} = 3;
 *     mean 18.5.
 *   end-to-end: A: E at 40 - 10 = 30; B: 40 - 12 = 28.
 *   eq. 1: T = 2 / max(72, 43) ns = 2 / 72e-9 s = 27777777.78 inputs/s.
 *   busy-time throughput: 2 / max(23, 20) ns = 2 / 23e-9 s = 86956521.74.
 *   waiting relations, each split at its wake (blocked: block to wake;
 *   ready: wake to dispatch):
 *     task 1 for task 2 on full s5: blocked 13..20 (task 2 read at 20) 7,
 *       ready 20..40 20;
 *     task 2 for task 1 on empty s5: blocked 38..40 (task 1 closed s5) 2,
 *       ready 40..45 5;
 *     task 3 for task 1 on empty s6: blocked 27..40 13, ready 40..43 3;
 *     task 4 for task 2 on empty s7: blocked 28..35 (C written) 7, ready
 *       35..36 1.
 *     Per worker (where the task blocked): w0 blocked 7 + 2 = 9, ready
 *     20 + 5 = 25; w1 blocked 13 + 7 = 20, ready 3 + 1 = 4. The two ends
 *     of s5 were blocked 7 and 2, at different times: 9 <= the span.
 *   names: A = m0.1, B = m0.2, C = m0.3, D = m1.1, E = m1.2 (as dump
 *     prints their ids, 0.1 ...).
 *   longest path: A, C, C@w1, E: 18 + 0 + 7 = 25 (B's way: 12 + 7 = 19).
 *
 * CPU readings (flag C; cpu_time before the event that ends a period or
 * the worker, with its time):
 *   w0 at 38 (cpu 13, 1 switch) and 72 (cpu 23, 1 switch). Stretch 0..38:
 *     38 long, no idle, CPU 13: lost 25; the rest of it besides task 2's
 *     period 20..38 (18) is 20, so that period lost at least 25 - 20 = 5
 *     (CPU 13). Stretch 38..72: 34 long, idle 46..70 = 24, CPU 10: lost 0.
 *     w0: CPU 23, off its core 25 (25/72 = 34.7 % of its span: above the
 *     5 % of the warning), 1 switch, 1 period charged.
 *   w1 at 27 (cpu 12) and 48 (cpu 25): stretch 5..27: 22 long, idle 10,
 *     CPU 12: lost 0; stretch 27..48: 21, idle 8, CPU 13: lost 0. w1: CPU
 *     25, off its core 0.
 *   task 2: exec 19, preempted 5, CPU 14.
 *   eq. 2 over CPU time (--cpu-time): task 2's execution is all of its
 *     period 20..38, which ran 13 of 18 on the core: 18 * 13 / 18 = 13;
 *     task 3's 12 and task 4's 7 lost nothing. L(A) = 13 + 3.5 = 16.5,
 *     L(B) = 12 + 3.5 = 15.5; jitter 0.5.
 *
 * The as-executed path (the as-executed graph of the periods,
 * docs/METRICS.md section 5). Periods: P1 task 1 w0 10..13 (its first: no
 * cause), P2 task 3 w1 15..27, P3 task 2 w0 20..38 (after P1 on w0, no
 * idle between), P4 task 4 w1 27..28, P5 task 4 w1 36..42 (woken at 35 by
 * task 2 in P3, w1 idle 28..36), P6 task 1 w0 40..41 (woken at 20 by task
 * 2 in P3: back-pressure; after P3 on w0), P7 task 2 w0 45..46 (woken at 40
 * by task 1 in P6; after P6), P8 task 3 w1 43..44 (woken at 40 in P6;
 * after P5). The last to end is P7 (46). Back from it: task 2 was woken at
 * 40, but w0 ran P6 until 41: occupancy; task 1 in P6 was woken at 20, but
 * w0 ran P3 until 38: occupancy; P3 is task 2's first period, w0 ran P1
 * before it and did not idle: occupancy; P1 is w0's first and has no
 * cause: the path starts there. Steps: run task 1 10..13 (wrote B, m0.2),
 * ready task 2 13..20 (occupancy: task 1), run task 2 20..38 (wrote C,
 * m0.3), ready task 1 38..40 (occupancy: task 2), run task 1 40..41, ready
 * task 2 41..45 (occupancy: task 1), run task 2 45..46: length 46 - 10 =
 * 36 = 3 + 7 + 18 + 2 + 1 + 4 + 1 (run 23, ready 13). The run's span 0..72
 * = 72: start-up 10, after the path 26, 50 % covered.
 */
#include "oracle_trace.h"

#include "mon.h"
#include "mon_fixture.h"
#include "mon_reader.h"
#include "mon_writer_internal.h"

#include <stdio.h>

#define RUN_START(w, t) mon_emit_task(w, MON_ID_RUN_START, t, 1)
#define TASK(w, id, t, task) mon_emit_task(w, id, t, task)

enum { S5 = 5, S6 = 6, S7 = 7, S8 = 8 };

static void worker0(mon_writer *w)
{
    const uint64_t A = mon_msg_id_make(0, 1), B = mon_msg_id_make(0, 2),
                   C = mon_msg_id_make(0, 3);
    RUN_START(w, 0);
    mon_emit_bare(w, MON_ID_WORKER_START, 0);
    mon_emit_task_map(w, 0, 1, "S1:src");
    mon_emit_task_map(w, 0, 2, "S2:P0:box.a");
    /* task 2 binds its ends when it is created */
    mon_emit_stream_mode(w, MON_ID_STREAM_OPEN, 1, 2, S5, false);
    mon_emit_stream_mode(w, MON_ID_STREAM_OPEN, 1, 2, S7, true);
    TASK(w, MON_ID_TASK_DISPATCH, 10, 1);
    mon_emit_stream_mode(w, MON_ID_STREAM_OPEN, 10, 1, S5, true);
    mon_emit_message(w, MON_ID_MESSAGE_WRITTEN, 10, 1, A);
    mon_emit_stream_io(w, MON_ID_STREAM_WRITE, 10, 1, S5);
    mon_emit_stream_mode(w, MON_ID_STREAM_OPEN, 12, 1, S6, true);
    mon_emit_message(w, MON_ID_MESSAGE_WRITTEN, 12, 1, B);
    mon_emit_stream_io(w, MON_ID_STREAM_WRITE, 12, 1, S6);
    mon_emit_stream_block(w, 13, 1, S5, false);
    mon_emit_task_block(w, 13, 1, MON_BLOCK_OUTPUT);
    TASK(w, MON_ID_TASK_DISPATCH, 20, 2);
    mon_emit_stream_io(w, MON_ID_STREAM_READ, 20, 2, S5);
    mon_emit_stream_wake(w, 20, 2, S5, 1);
    TASK(w, MON_ID_COMPONENT_BEGIN, 20, 2);
    mon_emit_message(w, MON_ID_MESSAGE_READ, 20, 2, A);
    mon_emit_message(w, MON_ID_MESSAGE_WRITTEN, 35, 2, C);
    mon_emit_stream_io(w, MON_ID_STREAM_WRITE, 35, 2, S7);
    mon_emit_stream_wake(w, 35, 2, S7, 4);
    TASK(w, MON_ID_COMPONENT_END, 38, 2);
    mon_emit_stream_block(w, 38, 2, S5, true);
    mon_emit_cpu_time(w, 38, 13, 1);
    mon_emit_task_block(w, 38, 2, MON_BLOCK_INPUT);
    TASK(w, MON_ID_TASK_DISPATCH, 40, 1);
    mon_emit_stream_mode(w, MON_ID_STREAM_CLOSE, 40, 1, S5, true);
    mon_emit_stream_wake(w, 40, 1, S5, 2);
    mon_emit_stream_mode(w, MON_ID_STREAM_CLOSE, 40, 1, S6, true);
    mon_emit_stream_wake(w, 40, 1, S6, 3);
    TASK(w, MON_ID_TASK_DESTROY, 41, 1);
    TASK(w, MON_ID_TASK_DISPATCH, 45, 2);
    mon_emit_stream_mode(w, MON_ID_STREAM_CLOSE, 46, 2, S7, true);
    TASK(w, MON_ID_TASK_DESTROY, 46, 2);
    mon_emit_bare(w, MON_ID_WORKER_WAIT, 46);
    mon_emit_bare(w, MON_ID_WORKER_RESUME, 70);
    mon_emit_cpu_time(w, 72, 23, 1);
    mon_emit_bare(w, MON_ID_WORKER_END, 72);
}

static void worker1(mon_writer *w)
{
    const uint64_t B = mon_msg_id_make(0, 2), C = mon_msg_id_make(0, 3),
                   D = mon_msg_id_make(1, 1), E = mon_msg_id_make(1, 2);
    RUN_START(w, 5);
    mon_emit_bare(w, MON_ID_WORKER_START, 5);
    mon_emit_task_map(w, 5, 3, "S2:P1:box.b");
    mon_emit_task_map(w, 5, 4, "S3:sync");
    mon_emit_bare(w, MON_ID_WORKER_WAIT, 5);
    mon_emit_bare(w, MON_ID_WORKER_RESUME, 15);
    TASK(w, MON_ID_TASK_DISPATCH, 15, 3);
    mon_emit_stream_mode(w, MON_ID_STREAM_OPEN, 15, 3, S6, false);
    mon_emit_stream_io(w, MON_ID_STREAM_READ, 15, 3, S6);
    TASK(w, MON_ID_COMPONENT_BEGIN, 15, 3);
    mon_emit_message(w, MON_ID_MESSAGE_READ, 15, 3, B);
    mon_emit_message(w, MON_ID_MESSAGE_WRITTEN, 25, 3, D);
    mon_emit_stream_mode(w, MON_ID_STREAM_OPEN, 25, 3, S8, true);
    mon_emit_stream_io(w, MON_ID_STREAM_WRITE, 25, 3, S8);
    TASK(w, MON_ID_COMPONENT_END, 27, 3);
    mon_emit_stream_block(w, 27, 3, S6, true);
    mon_emit_cpu_time(w, 27, 12, 0);
    mon_emit_task_block(w, 27, 3, MON_BLOCK_INPUT);
    TASK(w, MON_ID_TASK_DISPATCH, 27, 4);
    mon_emit_stream_mode(w, MON_ID_STREAM_OPEN, 27, 4, S8, false);
    mon_emit_stream_io(w, MON_ID_STREAM_READ, 27, 4, S8);
    TASK(w, MON_ID_COMPONENT_BEGIN, 27, 4);
    mon_emit_message(w, MON_ID_MESSAGE_READ, 27, 4, D);
    mon_emit_stream_mode(w, MON_ID_STREAM_OPEN, 28, 4, S7, false);
    mon_emit_stream_block(w, 28, 4, S7, true);
    mon_emit_task_block(w, 28, 4, MON_BLOCK_INPUT);
    mon_emit_bare(w, MON_ID_WORKER_WAIT, 28);
    mon_emit_bare(w, MON_ID_WORKER_RESUME, 36);
    TASK(w, MON_ID_TASK_DISPATCH, 36, 4);
    mon_emit_stream_io(w, MON_ID_STREAM_READ, 36, 4, S7);
    mon_emit_message(w, MON_ID_MESSAGE_READ, 36, 4, C);
    mon_emit_message(w, MON_ID_MESSAGE_WRITTEN, 40, 4, E);
    TASK(w, MON_ID_COMPONENT_END, 42, 4);
    TASK(w, MON_ID_TASK_DESTROY, 42, 4);
    TASK(w, MON_ID_TASK_DISPATCH, 43, 3);
    TASK(w, MON_ID_TASK_DESTROY, 44, 3);
    mon_emit_cpu_time(w, 48, 25, 0);
    mon_emit_bare(w, MON_ID_WORKER_END, 48);
}

/* Worker i's log of the oracle trace. */
static void oracle_log(mon_writer *w, unsigned i, void *arg)
{
    (void)arg;
    if (i == 0)
        worker0(w);
    else
        worker1(w);
}

int oracle_trace_write(const char *dir)
{
    return fixture_write_run(dir, 2, MON_FLAG_ALL, oracle_log, NULL);
}

/*
 * The as-executed path through data, back-pressure and creation edges
 * (oracle_paths_write), times in ns. Task 1 "S1:src" on w0 writes stream
 * s1, which task 2 "S2:box" on w1 reads; the stream is full after one item.
 *
 * worker 0                                  worker 1
 *   0  run_start 1, worker_start              0  run_start 1, worker_start,
 *      task 1 mapped and created                 task 2 mapped and created
 *   1  dispatch 1; write s1                    0  wait
 *   4  block 1 on FULL s1                      6  resume; dispatch 2
 *   4  wait                                    8  read s1: wakes task 1
 *   9  resume; dispatch 1; write s1           20  block 2 on EMPTY s1
 *  22  write s1: wakes task 2                 20  wait
 *  23  task 3 "S3:sink" mapped and created;   25  resume; dispatch 2; read s1
 *      destroy 1                              30  destroy 2
 *  24  dispatch 3                             31  worker_end
 *  END destroy 3; wait; 40 resume; 41 worker_end
 *
 * Periods: Pa task 1 w0 1..4 (created with no task running on w0: no
 * cause), Pb task 2 w1 6..20 (likewise; w1 idle before), Pc task 1 w0
 * 9..23 (woken at 8 by task 2 in Pb: back-pressure; w0 idle 4..9), Pd task
 * 3 w0 24..END (created at 23 in Pc, which ended then: w0 was free), Pe
 * task 2 w1 25..30 (woken at 22 by task 1 in Pc: data; w1 idle 20..25).
 *
 * Variant 0, END = 33: Pd ends last. Back from it: created in Pc at 23 ->
 * ready 23..24; Pc entered at its start: woken at 8, its worker idle ->
 * ready 8..9, back-pressure, task 2's Pb up to the wake (6..8); Pb is w1's
 * first period, without a cause: the start. Steps: run task 2 6..8, ready
 * task 1 8..9 (back-pressure, task 2, s1), run task 1 9..23, ready task 3
 * 23..24 (created, task 1), run task 3 24..33: 2 + 1 + 14 + 1 + 9 = 27 =
 * 33 - 6. Span 0..41: start-up 6, after it 8.
 *
 * Variant 1, END = 28: Pe ends last (30). Back from it: its worker idled,
 * woken at 22 by task 1 in Pc -> ready 22..25 (data, s1), run task 1 9..22
 * (up to the wake), then as above. Steps: run task 2 6..8, ready task 1
 * 8..9 (back-pressure), run task 1 9..22, ready task 2 22..25 (data, task
 * 1, s1), run task 2 25..30: 2 + 1 + 13 + 3 + 5 = 24 = 30 - 6. After it
 * 41 - 30 = 11.
 */
enum { S1 = 1 };

static void paths_worker0(mon_writer *w, uint64_t end)
{
    RUN_START(w, 0);
    mon_emit_bare(w, MON_ID_WORKER_START, 0);
    mon_emit_task_map(w, 0, 1, "S1:src");
    TASK(w, MON_ID_TASK_CREATE, 0, 1);
    TASK(w, MON_ID_TASK_DISPATCH, 1, 1);
    mon_emit_stream_mode(w, MON_ID_STREAM_OPEN, 1, 1, S1, true);
    mon_emit_stream_io(w, MON_ID_STREAM_WRITE, 1, 1, S1);
    mon_emit_stream_block(w, 4, 1, S1, false);
    mon_emit_task_block(w, 4, 1, MON_BLOCK_OUTPUT);
    mon_emit_bare(w, MON_ID_WORKER_WAIT, 4);
    mon_emit_bare(w, MON_ID_WORKER_RESUME, 9);
    TASK(w, MON_ID_TASK_DISPATCH, 9, 1);
    mon_emit_stream_io(w, MON_ID_STREAM_WRITE, 9, 1, S1);
    mon_emit_stream_io(w, MON_ID_STREAM_WRITE, 22, 1, S1);
    mon_emit_stream_wake(w, 22, 1, S1, 2);
    mon_emit_task_map(w, 23, 3, "S3:sink");
    TASK(w, MON_ID_TASK_CREATE, 23, 3);
    TASK(w, MON_ID_TASK_DESTROY, 23, 1);
    TASK(w, MON_ID_TASK_DISPATCH, 24, 3);
    TASK(w, MON_ID_TASK_DESTROY, end, 3);
    mon_emit_bare(w, MON_ID_WORKER_WAIT, end);
    mon_emit_bare(w, MON_ID_WORKER_RESUME, 40);
    mon_emit_bare(w, MON_ID_WORKER_END, 41);
}

static void paths_worker1(mon_writer *w)
{
    RUN_START(w, 0);
    mon_emit_bare(w, MON_ID_WORKER_START, 0);
    mon_emit_task_map(w, 0, 2, "S2:box");
    TASK(w, MON_ID_TASK_CREATE, 0, 2);
    mon_emit_bare(w, MON_ID_WORKER_WAIT, 0);
    mon_emit_bare(w, MON_ID_WORKER_RESUME, 6);
    TASK(w, MON_ID_TASK_DISPATCH, 6, 2);
    mon_emit_stream_mode(w, MON_ID_STREAM_OPEN, 6, 2, S1, false);
    mon_emit_stream_io(w, MON_ID_STREAM_READ, 8, 2, S1);
    mon_emit_stream_wake(w, 8, 2, S1, 1);
    mon_emit_stream_io(w, MON_ID_STREAM_READ, 15, 2, S1);
    mon_emit_stream_block(w, 20, 2, S1, true);
    mon_emit_task_block(w, 20, 2, MON_BLOCK_INPUT);
    mon_emit_bare(w, MON_ID_WORKER_WAIT, 20);
    mon_emit_bare(w, MON_ID_WORKER_RESUME, 25);
    TASK(w, MON_ID_TASK_DISPATCH, 25, 2);
    mon_emit_stream_io(w, MON_ID_STREAM_READ, 25, 2, S1);
    TASK(w, MON_ID_TASK_DESTROY, 30, 2);
    mon_emit_bare(w, MON_ID_WORKER_END, 31);
}

/* Worker i's log of oracle_paths_write's variant (*arg). */
static void paths_log(mon_writer *w, unsigned i, void *arg)
{
    if (i == 0)
        paths_worker0(w, *(const int *)arg ? 28 : 33);
    else
        paths_worker1(w);
}

int oracle_paths_write(const char *dir, int variant)
{
    return fixture_write_run(dir, 2, MON_FLAG_ALL, paths_log, &variant);
}
