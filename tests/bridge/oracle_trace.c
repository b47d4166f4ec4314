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
 *   waiting relations: task 1 for task 2 on full s5 (13..40: 27), task 2
 *     for task 1 on empty s5 (38..45: 7), task 3 for task 1 on empty s6
 *     (27..43: 16), task 4 for task 2 on empty s7 (28..36: 8).
 *   longest path: A, C, C@w1, E: 18 + 0 + 7 = 25 (B's way: 12 + 7 = 19).
 *   as-executed path: from E (the last sink, 40) back through the latest
 *     predecessor: C@w1 (36, not D at 25), C, A: length 40 - 10 = 30.
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
    mon_emit_bare(w, MON_ID_WORKER_END, 48);
}

int oracle_trace_write(const char *dir)
{
    char ctf[4200], err[512];
    if (fixture_trace_dir(dir, 2, MON_FLAG_ALL, ctf, sizeof ctf) != 0)
        return -1;
    void (*const writers[2])(mon_writer *) = {worker0, worker1};
    fixture_run run = {0};
    for (unsigned i = 0; i < 2; i++) {
        mon_writer *w = mon_writer_open(ctf, i, 0, err, sizeof err);
        if (!w) {
            fprintf(stderr, "oracle: %s\n", err);
            return -1;
        }
        writers[i](w);
        if (fixture_close_log(&run, w) != 0)
            return -1;
    }
    return fixture_finish(dir, MON_FLAG_ALL, &run);
}
