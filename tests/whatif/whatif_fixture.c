/*
 * whatif_fixture.c - runs with known answers for the what-if tests
 * (whatif_fixture.h). Each is written event by event as LPEL would record
 * it: every task's execution periods with their stream reads and writes
 * (box work inside component executions, with the messages it read and
 * wrote), every gap of a worker a wait, so no time is unaccounted for and
 * the replay of the run as recorded ends 1 us before the workers do (their
 * last wait). Times below are in microseconds.
 *
 * pipeline (workers 0, 1; 4 items; the workers end at 402)
 *   src  w0  [0,1]: writes i0..i3 into s1 at 0, closes s1, ends at 1
 *   A    w0  [1,401]: item k: reads s1 at 1+100k and, in one component
 *            execution, passes it on into s2 at once and works 100 more (a
 *            box that emits early); closes s2 at 401
 *   B    w1  blocks on s2 at 0; item k: woken at 1+100k, works 40,
 *            writes s3 at 41+100k, blocks; at 401 sees the end of s2
 *   sink w1  reads s3 after each write of B; ends at 401
 *   Replay as recorded: 401. B, the faster stage, 50 % faster or free:
 *   its last item is done at 341 or earlier, and it still waits for the
 *   end of s2 at 401: speedup 402/402 = 1, nothing gained. A 50 %: A
 *   passes items on at 1, 51, 101, 151 and ends at 201: speedup 402/202.
 *   A free: A's items all at 1, B works 4 x 40 to 161: speedup 402/162.
 *   Eq. 2: every input 100 + 40 = 140 us; A 50 %: 90; B 50 %: 120.
 *
 * forkjoin (workers 0-3; the workers end at 302)
 *   src  w0  [0,1]: one item into each of s1, s2, s3
 *   X1..X3 on w1..w3: read at 0, work 100, 200, 300, write s4..s6, end
 *   join w0  reads s4 at 101, s5 at 201, s6 at 301; ends at 301
 *   Replay: 300 (the replay's join reads as soon as a branch writes, the
 *   recorded one 1 us later). X3 50 % faster (150): the join waits for X2
 *   at 200: speedup 302/202; X3 free: the same; X1 or X2 faster: 1.
 *
 * shared (workers 0, 1; the workers end at 802)
 *   src  w0  [0,1]: 4 items into s1 (for A) and 4 into s2 (for B)
 *   A    w0  [1,401]: 4 x 100, writes s3 at 101+100k
 *   B    w0  [401,801]: 4 x 100, writes s4 at 501+100k
 *   sink w1  reads s3 and s4 as they come; ends at 801
 *   Replay: 801. A 50 %: A to 201, B 201..601: speedup 802/602; B 50 %:
 *   the same; A free: B 1..401: speedup 802/402.
 *
 * backpressure (workers 0, 1; stream s1 of 2 slots; the workers end at 712)
 *   P    w0  item k: works 10 (component), writes s1: items 0-2 at 10, 20,
 *            30; item 3 after 30..40 finds s1 full (blocks at 40); C's read
 *            of item 1 at 110 wakes it: writes at 111, works 111..121,
 *            blocks; item 4 at 211, item 5 at 311, then one item into s2,
 *            closes both, ends at 311
 *   D    w0  blocks on s2 at 40; at 311 reads it, works 400, ends at 711
 *   C    w1  blocks at 0; reads item k at 10+100k, works 100; ends at 610
 *   Replay: P's writes wait for C's reads (k - 2): P ends at 310, D at
 *   710 (the replay dispatches P at the read, not 1 us later). C 50 %
 *   faster: C reads at 10, 60, 110, ..., P ends at 160, D at 560:
 *   speedup 712/562. P free: C starts at 0, P ends at 300, D at 700:
 *   712/702. D 50 %: D ends at 510, C at 610: 712/612.
 */
#include "whatif_fixture.h"

#include "mon.h"
#include "mon_fixture.h"
#include "mon_msg_id.h"
#include "mon_writer_internal.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_WORKERS = 4 };

typedef struct fx {
    mon_event *ev;
    size_t n, cap;
    bool oom;
    uint64_t idle_from[MAX_WORKERS]; /* the end of its last period */
    uint32_t run;
} fx;

static const uint64_t US = 1000; /* ns */

static void add(fx *f, unsigned w, uint64_t t_us, mon_event e)
{
    if (f->n == f->cap) {
        size_t cap = f->cap ? 2 * f->cap : 256;
        mon_event *grown = realloc(f->ev, cap * sizeof *grown);
        if (!grown) {
            f->oom = true;
            return;
        }
        f->ev = grown;
        f->cap = cap;
    }
    e.worker = w;
    e.rank_worker = w;
    e.run = f->run;
    e.time = t_us * US + (uint64_t)(f->run - 1) * 10000 * US; /* a run after the other */
    f->ev[f->n++] = e;
}

static void task_ev(fx *f, unsigned w, uint64_t t, mon_event_kind k, uint64_t task)
{
    add(f, w, t, (mon_event){.kind = k, .task = task});
}

static void start(fx *f, unsigned w)
{
    add(f, w, 0, (mon_event){.kind = MON_EV_RUN_START});
    add(f, w, 0, (mon_event){.kind = MON_EV_WORKER_START});
    f->idle_from[w] = 0;
}

static void name(fx *f, unsigned w, uint64_t task, const char *n)
{
    add(f, w, 0, (mon_event){.kind = MON_EV_TASK_MAP, .task = task, .worker_mapped = w, .name = n});
}

/* A period begins: the worker's wait since its last one first. */
static void dispatch(fx *f, unsigned w, uint64_t t, uint64_t task)
{
    if (t > f->idle_from[w]) {
        add(f, w, f->idle_from[w], (mon_event){.kind = MON_EV_WORKER_WAIT});
        add(f, w, t, (mon_event){.kind = MON_EV_WORKER_RESUME});
    }
    task_ev(f, w, t, MON_EV_TASK_DISPATCH, task);
}

static void block(fx *f, unsigned w, uint64_t t, uint64_t task, uint64_t stream, bool empty)
{
    add(f, w, t, (mon_event){.kind = MON_EV_STREAM_BLOCK, .task = task, .stream = stream,
                             .empty = empty});
    add(f, w, t, (mon_event){.kind = MON_EV_TASK_BLOCK, .task = task,
                             .cause = empty ? MON_BLOCK_INPUT : MON_BLOCK_OUTPUT});
    f->idle_from[w] = t;
}

static void destroy(fx *f, unsigned w, uint64_t t, uint64_t task)
{
    task_ev(f, w, t, MON_EV_TASK_DESTROY, task);
    f->idle_from[w] = t;
}

static void finish(fx *f, unsigned w, uint64_t t)
{
    dispatch(f, w, t, 0);
    f->n--; /* the resume, not a dispatch */
    add(f, w, t, (mon_event){.kind = MON_EV_WORKER_END});
}

static void io(fx *f, unsigned w, uint64_t t, uint64_t task, uint64_t stream, bool write)
{
    add(f, w, t, (mon_event){.kind = write ? MON_EV_STREAM_WRITE : MON_EV_STREAM_READ,
                             .task = task, .stream = stream});
}

static void closes(fx *f, unsigned w, uint64_t t, uint64_t task, uint64_t stream, bool write_end)
{
    add(f, w, t, (mon_event){.kind = MON_EV_STREAM_CLOSE, .task = task, .stream = stream,
                             .write_end = write_end});
}

static void msg(fx *f, unsigned w, uint64_t t, uint64_t task, uint64_t id, bool written)
{
    add(f, w, t, (mon_event){.kind = written ? MON_EV_MESSAGE_WRITTEN : MON_EV_MESSAGE_READ,
                             .task = task, .msg = id});
}

/* An input record: written outside any component execution. */
static void put_input(fx *f, unsigned w, uint64_t t, uint64_t task, uint64_t stream, uint64_t id)
{
    msg(f, w, t, task, id, true);
    io(f, w, t, task, stream, true);
}

/* One box execution: reads in_msg from `in` at t, works `work`, writes
 * out_msg to `out` (0: no stream) at t + work. */
static void box(fx *f, unsigned w, uint64_t t, uint64_t work, uint64_t task, uint64_t in,
                uint64_t in_msg, uint64_t out, uint64_t out_msg)
{
    io(f, w, t, task, in, false);
    task_ev(f, w, t, MON_EV_COMPONENT_BEGIN, task);
    msg(f, w, t, task, in_msg, false);
    msg(f, w, t + work, task, out_msg, true);
    if (out)
        io(f, w, t + work, task, out, true);
    task_ev(f, w, t + work, MON_EV_COMPONENT_END, task);
}

static uint64_t m(unsigned node, uint64_t seq) { return mon_msg_id_make(node, seq); }

/* ---- the runs ------------------------------------------------------------- */

static void pipeline(fx *f)
{
    start(f, 0), start(f, 1);
    name(f, 0, 1, "S1:src"), name(f, 0, 2, "S2:A"), name(f, 1, 3, "S3:B"), name(f, 1, 4, "S4:sink");
    dispatch(f, 0, 0, 1);
    for (unsigned k = 0; k < 4; k++)
        put_input(f, 0, 0, 1, 1, m(0, 1 + k));
    closes(f, 0, 0, 1, 1, true);
    destroy(f, 0, 1, 1);
    dispatch(f, 0, 1, 2);
    for (unsigned k = 0; k < 4; k++) { /* emits at once, then works */
        uint64_t t = 1 + 100 * k;
        io(f, 0, t, 2, 1, false);
        task_ev(f, 0, t, MON_EV_COMPONENT_BEGIN, 2);
        msg(f, 0, t, 2, m(0, 1 + k), false);
        msg(f, 0, t, 2, m(0, 11 + k), true);
        io(f, 0, t, 2, 2, true);
        task_ev(f, 0, t + 100, MON_EV_COMPONENT_END, 2);
    }
    closes(f, 0, 401, 2, 1, false);
    closes(f, 0, 401, 2, 2, true);
    destroy(f, 0, 401, 2);
    finish(f, 0, 402);

    dispatch(f, 1, 0, 3);
    block(f, 1, 0, 3, 2, true);
    dispatch(f, 1, 0, 4);
    block(f, 1, 0, 4, 3, true);
    for (unsigned k = 0; k < 4; k++) {
        uint64_t t = 1 + 100 * k;
        dispatch(f, 1, t, 3);
        box(f, 1, t, 40, 3, 2, m(0, 11 + k), 3, m(1, 21 + k));
        block(f, 1, t + 40, 3, 2, true);
        dispatch(f, 1, t + 40, 4);
        io(f, 1, t + 40, 4, 3, false);
        block(f, 1, t + 40, 4, 3, true);
    }
    dispatch(f, 1, 401, 3);
    closes(f, 1, 401, 3, 2, false);
    closes(f, 1, 401, 3, 3, true);
    destroy(f, 1, 401, 3);
    dispatch(f, 1, 401, 4);
    closes(f, 1, 401, 4, 3, false);
    destroy(f, 1, 401, 4);
    finish(f, 1, 402);
}

static void forkjoin(fx *f)
{
    for (unsigned w = 0; w < 4; w++)
        start(f, w);
    static const char *const branch[] = {"S2:X1", "S3:X2", "S4:X3"};
    name(f, 0, 1, "S1:src"), name(f, 0, 5, "S5:join");
    dispatch(f, 0, 0, 1);
    for (unsigned b = 0; b < 3; b++)
        put_input(f, 0, 0, 1, 1 + b, m(0, 1 + b));
    for (unsigned b = 0; b < 3; b++)
        closes(f, 0, 0, 1, 1 + b, true);
    destroy(f, 0, 1, 1);
    dispatch(f, 0, 1, 5);
    block(f, 0, 1, 5, 4, true);
    for (unsigned b = 0; b < 3; b++) {
        uint64_t t = 101 + 100 * b;
        dispatch(f, 0, t, 5);
        io(f, 0, t, 5, 4 + b, false);
        if (b < 2)
            block(f, 0, t, 5, 5 + b, true);
    }
    for (unsigned b = 0; b < 3; b++)
        closes(f, 0, 301, 5, 4 + b, false);
    destroy(f, 0, 301, 5);
    finish(f, 0, 302);
    for (unsigned b = 0; b < 3; b++) {
        unsigned w = 1 + b;
        uint64_t work = 100 * (b + 1);
        name(f, w, 2 + b, branch[b]);
        dispatch(f, w, 0, 2 + b);
        box(f, w, 0, work, 2 + b, 1 + b, m(0, 1 + b), 4 + b, m(w, 1));
        closes(f, w, work, 2 + b, 1 + b, false);
        closes(f, w, work, 2 + b, 4 + b, true);
        destroy(f, w, work, 2 + b);
        finish(f, w, 302);
    }
}

static void shared(fx *f)
{
    start(f, 0), start(f, 1);
    name(f, 0, 1, "S1:src"), name(f, 0, 2, "S2:A"), name(f, 0, 3, "S3:B");
    name(f, 1, 4, "S4:sink");
    dispatch(f, 0, 0, 1);
    for (unsigned k = 0; k < 8; k++)
        put_input(f, 0, 0, 1, 1 + k / 4, m(0, 1 + k));
    closes(f, 0, 0, 1, 1, true);
    closes(f, 0, 0, 1, 2, true);
    destroy(f, 0, 1, 1);
    for (unsigned s = 0; s < 2; s++) { /* A, then B */
        uint64_t t0 = 1 + 400 * s;
        dispatch(f, 0, t0, 2 + s);
        for (unsigned k = 0; k < 4; k++)
            box(f, 0, t0 + 100 * k, 100, 2 + s, 1 + s, m(0, 1 + 4 * s + k), 3 + s,
                m(0, 11 + 4 * s + k));
        closes(f, 0, t0 + 400, 2 + s, 1 + s, false);
        closes(f, 0, t0 + 400, 2 + s, 3 + s, true);
        destroy(f, 0, t0 + 400, 2 + s);
    }
    finish(f, 0, 802);
    dispatch(f, 1, 0, 4);
    block(f, 1, 0, 4, 3, true);
    for (unsigned k = 0; k < 8; k++) {
        uint64_t t = 101 + 100 * k;
        dispatch(f, 1, t, 4);
        io(f, 1, t, 4, 3 + k / 4, false);
        if (k < 7)
            block(f, 1, t, 4, 3 + (k + 1) / 4, true);
    }
    closes(f, 1, 801, 4, 3, false);
    closes(f, 1, 801, 4, 4, false);
    destroy(f, 1, 801, 4);
    finish(f, 1, 802);
}

/* P's item k: made in a component of 10 us from t (an input record). */
static void make_item(fx *f, uint64_t t, unsigned k)
{
    task_ev(f, 0, t, MON_EV_COMPONENT_BEGIN, 1);
    msg(f, 0, t + 10, 1, m(0, 1 + k), true);
    task_ev(f, 0, t + 10, MON_EV_COMPONENT_END, 1);
}

static void backpressure(fx *f)
{
    start(f, 0), start(f, 1);
    name(f, 0, 1, "S1:P"), name(f, 0, 3, "S3:D"), name(f, 1, 2, "S2:C");
    dispatch(f, 0, 0, 1); /* items 0-2 go in; item 3 finds s1 full */
    for (unsigned k = 0; k < 4; k++) {
        make_item(f, 10 * k, k);
        if (k < 3)
            io(f, 0, 10 * k + 10, 1, 1, true);
    }
    block(f, 0, 40, 1, 1, false);
    dispatch(f, 0, 40, 3); /* D's first look: nothing in s2 yet */
    block(f, 0, 40, 3, 2, true);
    for (unsigned k = 3; k < 5; k++) { /* woken by C's reads of items 1, 2 */
        uint64_t t = 111 + 100 * (k - 3);
        dispatch(f, 0, t, 1);
        io(f, 0, t, 1, 1, true);
        make_item(f, t, k + 1);
        block(f, 0, t + 10, 1, 1, false);
    }
    dispatch(f, 0, 311, 1); /* woken by C's read of item 3 */
    io(f, 0, 311, 1, 1, true);
    put_input(f, 0, 311, 1, 2, m(0, 7)); /* the "done" record for D */
    closes(f, 0, 311, 1, 1, true);
    closes(f, 0, 311, 1, 2, true);
    destroy(f, 0, 311, 1);
    dispatch(f, 0, 311, 3);
    box(f, 0, 311, 400, 3, 2, m(0, 7), 0, m(0, 20));
    closes(f, 0, 711, 3, 2, false);
    destroy(f, 0, 711, 3);
    finish(f, 0, 712);

    dispatch(f, 1, 0, 2);
    block(f, 1, 0, 2, 1, true);
    dispatch(f, 1, 10, 2);
    for (unsigned k = 0; k < 6; k++)
        box(f, 1, 10 + 100 * k, 100, 2, 1, m(0, 1 + k), 0, m(1, 1 + k));
    closes(f, 1, 610, 2, 1, false);
    destroy(f, 1, 610, 2);
    finish(f, 1, 712);
}

/* ---- in the reader's order ------------------------------------------------- */

static int by_time_worker(const void *x, const void *y)
{
    const mon_event *a = x, *b = y;
    if (a->time != b->time)
        return (a->time > b->time) - (a->time < b->time);
    if (a->worker != b->worker)
        return (a->worker > b->worker) - (a->worker < b->worker);
    return (a->offset > b->offset) - (a->offset < b->offset); /* the log's order */
}

int whatif_fixture_make(const char *name_, whatif_fixture *out)
{
    fx f = {.run = 1};
    memset(out, 0, sizeof *out);
    unsigned runs = 1, workers = 2;
    void (*make)(fx *) = NULL;
    if (!strcmp(name_, "pipeline") || !strcmp(name_, "tworuns"))
        make = pipeline, runs = strcmp(name_, "tworuns") ? 1 : 2;
    else if (!strcmp(name_, "forkjoin"))
        make = forkjoin, workers = 4;
    else if (!strcmp(name_, "shared"))
        make = shared;
    else if (!strcmp(name_, "backpressure"))
        make = backpressure;
    else
        return -1;
    for (f.run = 1; f.run <= runs; f.run++)
        make(&f);
    if (f.oom) {
        free(f.ev);
        return -1;
    }
    for (size_t i = 0; i < f.n; i++)
        f.ev[i].offset = i; /* each worker's events in the order made */
    qsort(f.ev, f.n, sizeof *f.ev, by_time_worker);
    out->ev = f.ev;
    out->n = f.n;
    out->workers = workers;
    return 0;
}

void whatif_fixture_free(whatif_fixture *f)
{
    free(f->ev);
    f->ev = NULL;
    f->n = 0;
}

/* ---- as a trace directory -------------------------------------------------- */

static void emit(mon_writer *w, const mon_event *e)
{
    static const mon_event_id task_ids[] = {
        [MON_EV_TASK_CREATE] = MON_ID_TASK_CREATE, [MON_EV_TASK_DISPATCH] = MON_ID_TASK_DISPATCH,
        [MON_EV_TASK_YIELD] = MON_ID_TASK_YIELD, [MON_EV_TASK_DESTROY] = MON_ID_TASK_DESTROY,
        [MON_EV_COMPONENT_BEGIN] = MON_ID_COMPONENT_BEGIN,
        [MON_EV_COMPONENT_END] = MON_ID_COMPONENT_END};
    uint64_t t = e->time;
    switch (e->kind) {
    case MON_EV_RUN_START: mon_emit_task(w, MON_ID_RUN_START, t, e->run); break;
    case MON_EV_WORKER_START: mon_emit_bare(w, MON_ID_WORKER_START, t); break;
    case MON_EV_WORKER_WAIT: mon_emit_bare(w, MON_ID_WORKER_WAIT, t); break;
    case MON_EV_WORKER_RESUME: mon_emit_bare(w, MON_ID_WORKER_RESUME, t); break;
    case MON_EV_WORKER_END: mon_emit_bare(w, MON_ID_WORKER_END, t); break;
    case MON_EV_TASK_MAP: mon_emit_task_map(w, t, e->task, e->name); break;
    case MON_EV_TASK_BLOCK: mon_emit_task_block(w, t, e->task, e->cause); break;
    case MON_EV_STREAM_READ: mon_emit_stream_io(w, MON_ID_STREAM_READ, t, e->task, e->stream); break;
    case MON_EV_STREAM_WRITE: mon_emit_stream_io(w, MON_ID_STREAM_WRITE, t, e->task, e->stream); break;
    case MON_EV_STREAM_CLOSE:
        mon_emit_stream_mode(w, MON_ID_STREAM_CLOSE, t, e->task, e->stream, e->write_end);
        break;
    case MON_EV_STREAM_BLOCK: mon_emit_stream_block(w, t, e->task, e->stream, e->empty); break;
    case MON_EV_MESSAGE_READ: mon_emit_message(w, MON_ID_MESSAGE_READ, t, e->task, e->msg); break;
    case MON_EV_MESSAGE_WRITTEN:
        mon_emit_message(w, MON_ID_MESSAGE_WRITTEN, t, e->task, e->msg);
        break;
    default: mon_emit_task(w, task_ids[e->kind], t, e->task); break;
    }
}

/* Worker wk's events of the fixture *arg. */
static void write_log(mon_writer *w, unsigned wk, void *arg)
{
    const whatif_fixture *f = arg;
    for (size_t i = 0; i < f->n; i++)
        if (f->ev[i].worker == wk)
            emit(w, &f->ev[i]);
}

int whatif_fixture_write(const char *name_, const char *dir)
{
    whatif_fixture f;
    if (whatif_fixture_make(name_, &f))
        return -1;
    int rc = fixture_write_run(dir, f.workers, MON_FLAG_ALL, write_log, &f);
    whatif_fixture_free(&f);
    return rc;
}
