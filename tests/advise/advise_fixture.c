/*
 * advise_fixture.c - traces with a known mapping problem, for the advice
 * tests. Times are ns on a 1 GHz clock; two workers; one run each.
 *
 * The network: "S1:src" writes one item to each of four work tasks
 * "S2:I<k>:work" (k = 0..3), each reads it, works, and writes one item to
 * "S3:sink", which reads all four. src runs on worker 0, sink on worker 1.
 *
 *   bad    work 0..3 each 100 us, all on worker 0, one after the other
 *          (0.4 ms), while worker 1 waits. On paper: the current mapping's
 *          model time is 400 us plus items crossing; two work tasks per
 *          worker give 200 us plus crossings: the advice moves two of them
 *          (predicted about 2x faster).
 *   good   the same tasks, 0 and 2 on worker 0, 1 and 3 on worker 1: both
 *          workers 200 us; no mapping is predicted 5 % faster.
 *   heavy  work 0 takes 400 us on worker 0, work 1..3 20 us each on worker
 *          1: the largest load is that one task wherever it goes, so the
 *          mapping is already as good as any.
 *   turns  two chains of four dependent 100-us steps, step k of both on
 *          worker (k-1) mod 2: 400 us of work on each worker, but the
 *          chains reach each worker at the same time, so it takes 500 us;
 *          each chain on a worker of its own takes 400 us. Only the replay
 *          of the dependencies sees it (the loads are equal).
 *   tworuns  "bad" twice in one trace (run_start 1 and 2).
 */
#include "advise_fixture.h"

#include "mon.h"
#include "mon_fixture.h"
#include "mon_reader.h"
#include "mon_writer_internal.h"

#include <stdio.h>
#include <string.h>

enum { MAX_RUNS = 12, WORK = 4 };

typedef struct run_spec {
    uint64_t task;
    const char *name;
    unsigned worker;
    uint64_t start, exec;
    uint64_t in_stream[WORK], in_msg[WORK];
    size_t n_in;
    uint64_t out_stream[WORK], out_msg[WORK];
    size_t n_out;
} run_spec;

typedef struct scenario {
    run_spec runs[MAX_RUNS];
    size_t n;
    uint64_t end;
} scenario;

static const char *const WORK_NAMES[WORK] = {"S2:I0:work", "S2:I1:work", "S2:I2:work",
                                             "S2:I3:work"};

/* Builds the scenario: where each work task runs and how long. */
static void build(scenario *s, const unsigned worker[WORK], const uint64_t exec[WORK])
{
    memset(s, 0, sizeof *s);
    run_spec *src = &s->runs[0];
    *src = (run_spec){.task = 1, .name = "S1:src", .worker = 0, .start = 10, .exec = 40};
    uint64_t next[2] = {100, 100}, done = 0;
    for (size_t k = 0; k < WORK; k++) {
        src->out_stream[src->n_out] = 11 + k;
        src->out_msg[src->n_out++] = mon_msg_id_make(0, 1 + k);
        run_spec *r = &s->runs[1 + k];
        *r = (run_spec){.task = 2 + k, .name = WORK_NAMES[k], .worker = worker[k],
                        .start = next[worker[k]], .exec = exec[k]};
        next[worker[k]] += exec[k];
        r->in_stream[0] = 11 + k;
        r->in_msg[0] = mon_msg_id_make(0, 1 + k);
        r->n_in = 1;
        r->out_stream[0] = 21 + k;
        r->out_msg[0] = mon_msg_id_make(1 + worker[k], 100 + k);
        r->n_out = 1;
        if (next[worker[k]] > done)
            done = next[worker[k]];
    }
    run_spec *sink = &s->runs[5];
    *sink = (run_spec){.task = 6, .name = "S3:sink", .worker = 1, .start = done + 100, .exec = 20};
    for (size_t k = 0; k < WORK; k++) {
        sink->in_stream[sink->n_in] = 21 + k;
        sink->in_msg[sink->n_in++] = s->runs[1 + k].out_msg[0];
    }
    s->n = 6;
    s->end = done + 200;
}

/* Two chains of four 100-us steps, S2:I0:S<k>:step and S2:I1:S<k>:step;
 * step k of both on worker (k-1) mod 2, so the chains arrive at a worker
 * together and one waits: 500 us where 400 us of work per worker would
 * do, with each chain on a worker of its own. */
static void build_turns(scenario *s)
{
    static char names[2][4][24];
    memset(s, 0, sizeof *s);
    run_spec *src = &s->runs[0];
    *src = (run_spec){.task = 1, .name = "S1:src", .worker = 0, .start = 10, .exec = 40};
    run_spec *sink = &s->runs[9];
    *sink = (run_spec){.task = 10, .name = "S3:sink", .worker = 1, .start = 500200, .exec = 20};
    for (unsigned c = 0; c < 2; c++) {
        src->out_stream[src->n_out] = 11 + c;
        src->out_msg[src->n_out++] = mon_msg_id_make(0, 1 + c);
        for (unsigned k = 1; k <= 4; k++) {
            run_spec *r = &s->runs[1 + c * 4 + (k - 1)];
            snprintf(names[c][k - 1], sizeof names[c][k - 1], "S2:I%u:S%u:step", c, k);
            unsigned w = (k - 1) % 2;
            *r = (run_spec){.task = 2 + c * 4 + (k - 1), .name = names[c][k - 1], .worker = w,
                            .start = 100 + (uint64_t)((k - 1) + c) * 100000, .exec = 100000};
            r->in_stream[0] = k == 1 ? 11 + c : 100 + c * 10 + (k - 1);
            r->in_msg[0] = k == 1 ? mon_msg_id_make(0, 1 + c) : s->runs[r - s->runs - 1].out_msg[0];
            r->n_in = 1;
            r->out_stream[0] = k == 4 ? 200 + c : 100 + c * 10 + k;
            r->out_msg[0] = mon_msg_id_make(1 + w, 10 + c * 10 + k);
            r->n_out = 1;
        }
        sink->in_stream[sink->n_in] = 200 + c;
        sink->in_msg[sink->n_in++] = s->runs[1 + c * 4 + 3].out_msg[0];
    }
    s->n = 10;
    s->end = 500300;
}

static void emit_run(mon_writer *w, const run_spec *r)
{
    uint64_t t = r->start, e = r->exec;
    mon_emit_task(w, MON_ID_TASK_DISPATCH, t, r->task);
    for (size_t i = 0; i < r->n_in; i++) {
        mon_emit_stream_mode(w, MON_ID_STREAM_OPEN, t, r->task, r->in_stream[i], false);
        mon_emit_stream_io(w, MON_ID_STREAM_READ, t, r->task, r->in_stream[i]);
    }
    if (r->n_in) {
        mon_emit_task(w, MON_ID_COMPONENT_BEGIN, t, r->task);
        for (size_t i = 0; i < r->n_in; i++)
            mon_emit_message(w, MON_ID_MESSAGE_READ, t, r->task, r->in_msg[i]);
    }
    for (size_t i = 0; i < r->n_out; i++) {
        mon_emit_stream_mode(w, MON_ID_STREAM_OPEN, t + 1, r->task, r->out_stream[i], true);
        mon_emit_message(w, MON_ID_MESSAGE_WRITTEN, t + e / 2, r->task, r->out_msg[i]);
        mon_emit_stream_io(w, MON_ID_STREAM_WRITE, t + e / 2, r->task, r->out_stream[i]);
    }
    if (r->n_in)
        mon_emit_task(w, MON_ID_COMPONENT_END, t + e - 1, r->task);
    mon_emit_task(w, MON_ID_TASK_DESTROY, t + e, r->task);
}

/* One worker's part of one run, offset by t0: its runs in time order, a
 * wait over every gap. */
static void emit_worker(mon_writer *w, const scenario *s, unsigned worker, uint32_t run,
                        uint64_t t0)
{
    mon_emit_task(w, MON_ID_RUN_START, t0, run);
    mon_emit_bare(w, MON_ID_WORKER_START, t0);
    for (size_t i = 0; i < s->n; i++)
        if (s->runs[i].worker == worker)
            mon_emit_task_map(w, t0 + 1, s->runs[i].task, s->runs[i].name);
    uint64_t free_at = t0 + 2;
    for (;;) {
        const run_spec *next = NULL;
        for (size_t i = 0; i < s->n; i++) {
            const run_spec *r = &s->runs[i];
            if (r->worker == worker && t0 + r->start >= free_at &&
                (!next || r->start < next->start))
                next = r;
        }
        if (!next)
            break;
        run_spec r = *next;
        r.start += t0;
        if (r.start > free_at) {
            mon_emit_bare(w, MON_ID_WORKER_WAIT, free_at);
            mon_emit_bare(w, MON_ID_WORKER_RESUME, r.start);
        }
        emit_run(w, &r);
        free_at = r.start + r.exec;
    }
    mon_emit_bare(w, MON_ID_WORKER_WAIT, free_at);
    mon_emit_bare(w, MON_ID_WORKER_RESUME, t0 + s->end - 1);
    mon_emit_bare(w, MON_ID_WORKER_END, t0 + s->end);
}

/* What write_trace's logs hold: the scenario and its number of runs. */
typedef struct trace_args {
    const scenario *s;
    unsigned runs;
} trace_args;

static void write_log(mon_writer *w, unsigned wk, void *arg)
{
    const trace_args *a = arg;
    for (unsigned r = 0; r < a->runs; r++)
        emit_worker(w, a->s, wk, r + 1, (uint64_t)r * 10000000u);
}

static int write_trace(const char *dir, const scenario *s, unsigned runs)
{
    trace_args a = {s, runs};
    return fixture_write_run(dir, 2, MON_FLAG_ALL, write_log, &a);
}

int advise_fixture_write(const char *name, const char *dir)
{
    static const unsigned all_on_0[WORK] = {0, 0, 0, 0}, two_and_two[WORK] = {0, 1, 0, 1},
                          heavy_apart[WORK] = {0, 1, 1, 1};
    static const uint64_t equal[WORK] = {100000, 100000, 100000, 100000},
                          one_heavy[WORK] = {400000, 20000, 20000, 20000};
    scenario s;
    if (!strcmp(name, "bad") || !strcmp(name, "tworuns"))
        build(&s, all_on_0, equal);
    else if (!strcmp(name, "good"))
        build(&s, two_and_two, equal);
    else if (!strcmp(name, "heavy"))
        build(&s, heavy_apart, one_heavy);
    else if (!strcmp(name, "turns"))
        build_turns(&s);
    else
        return -1;
    return write_trace(dir, &s, strcmp(name, "tworuns") ? 1 : 2);
}
