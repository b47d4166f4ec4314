/*
 * test_lpel.c - unit tests of the LPEL runtime: streams (order, blocking,
 * end-of-stream, poll), workers and placement, scheduling policies, hooks,
 * task stacks, many tasks (a million alive at once), the oversubscription
 * warning, and the fatal reports (deadlock, unwinding after it, stack
 * overflow with and without guard pages, misuse).
 *
 * Nothing here measures time: every test checks an outcome that a broken
 * runtime would get wrong (wrong order, lost items, a hang caught by the
 * Check timeout, a missing report).
 */
#include <check.h>
#include <lpel.h>

#include <signal.h>
#include <sys/resource.h>
#include <time.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---- helpers ------------------------------------------------------------ */

/* A runtime whose deadlock report goes to report (NULL: stderr). */
static lpel_runtime *make_runtime_reporting(unsigned workers, FILE *report)
{
    lpel_config cfg = lpel_config_default();
    cfg.num_workers = workers;
    cfg.pin_workers = false; /* tests share the machine with other tests */
    cfg.report = report;
    lpel_runtime *rt = NULL;
    char err[256];
    int rc = lpel_runtime_create(&rt, &cfg, err, sizeof err);
    ck_assert_msg(rc == LPEL_OK, "runtime_create: %s", err);
    return rt;
}

static lpel_runtime *make_runtime(unsigned workers)
{
    return make_runtime_reporting(workers, NULL);
}

/* Run fn in a child process with its stderr captured into buf; returns
 * the child's wait status. For the reports that end the process. */
static int run_in_child(void (*fn)(void), char *buf, size_t len)
{
    int fds[2];
    ck_assert_int_eq(pipe(fds), 0);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        dup2(fds[1], STDERR_FILENO);
        close(fds[0]);
        fn();
        _exit(0); /* not reached when fn ends the process as expected */
    }
    close(fds[1]);
    size_t got = 0;
    ssize_t k;
    while (got < len - 1 && (k = read(fds[0], buf + got, len - 1 - got)) > 0)
        got += (size_t)k;
    buf[got] = '\0';
    close(fds[0]);
    int status;
    waitpid(pid, &status, 0);
    return status;
}

static int64_t spawn(lpel_runtime *rt, const char *name, int worker, lpel_task_fn fn, void *arg)
{
    lpel_task_attr attr = {.name = name, .stack_size = 0, .worker = worker};
    int64_t id = lpel_task_create(rt, &attr, fn, arg);
    ck_assert_int_gt(id, 0);
    return id;
}

#define ITEM(i) ((void *)(uintptr_t)((i) + 1))
#define VALUE(p) ((long)(uintptr_t)(p) - 1)

/* ---- FIFO order and blocking in both directions ------------------------- */

typedef struct pipe_args {
    lpel_stream *s;
    long count;
    long received;
    long out_of_order;
    bool saw_end;
} pipe_args;

static void producer(void *arg)
{
    pipe_args *a = arg;
    for (long i = 0; i < a->count; i++)
        lpel_stream_write(a->s, ITEM(i));
    lpel_stream_close(a->s, LPEL_STREAM_WRITE);
}

static void consumer(void *arg)
{
    pipe_args *a = arg;
    void *item;
    while ((item = lpel_stream_read(a->s)) != NULL) {
        if (VALUE(item) != a->received)
            a->out_of_order++;
        a->received++;
    }
    a->saw_end = lpel_stream_at_end(a->s) && lpel_stream_read(a->s) == NULL;
    lpel_stream_close(a->s, LPEL_STREAM_READ);
}

/* The consumer, asking for the next item to be prefetched before its
 * first read, after every read and after the end: a hint that must change
 * nothing (same order, nothing lost or consumed, the end still seen). */
static void prefetching_consumer(void *arg)
{
    pipe_args *a = arg;
    void *item;
    lpel_stream_prefetch_next(a->s);
    while ((item = lpel_stream_read(a->s)) != NULL) {
        lpel_stream_prefetch_next(a->s);
        if (VALUE(item) != a->received)
            a->out_of_order++;
        a->received++;
    }
    lpel_stream_prefetch_next(a->s);
    a->saw_end = lpel_stream_at_end(a->s) && lpel_stream_read(a->s) == NULL;
    lpel_stream_close(a->s, LPEL_STREAM_READ);
}

static void run_pipe_with(lpel_task_fn consumer_fn, unsigned workers, int wp, int wc,
                          size_t capacity, long count)
{
    lpel_runtime *rt = make_runtime(workers);
    pipe_args a = {.s = lpel_stream_create(rt, capacity), .count = count};
    /* The consumer is created first so it blocks on the empty stream; with
     * a small capacity the producer then blocks on a full one. */
    spawn(rt, "consumer", wc, consumer_fn, &a);
    spawn(rt, "producer", wp, producer, &a);
    ck_assert_int_eq(lpel_run(rt), LPEL_OK);
    ck_assert_int_eq(a.received, count);
    ck_assert_int_eq(a.out_of_order, 0);
    ck_assert(a.saw_end);
    lpel_runtime_destroy(rt);
}

static void run_pipe(unsigned workers, int wp, int wc, size_t capacity, long count)
{
    run_pipe_with(consumer, workers, wp, wc, capacity, count);
}

START_TEST(test_prefetch_next_changes_nothing)
{
    run_pipe_with(prefetching_consumer, 2, 0, 1, 16, 100000); /* across workers */
    run_pipe_with(prefetching_consumer, 2, 1, 1, 4, 10000);   /* on one worker */
}
END_TEST

START_TEST(test_fifo_same_worker)
{
    run_pipe(1, 0, 0, 4, 10000);
}
END_TEST

START_TEST(test_fifo_cross_worker)
{
    run_pipe(2, 0, 1, 4, 200000);
}
END_TEST

START_TEST(test_fifo_capacity_one)
{
    run_pipe(2, 1, 0, 1, 50000);
}
END_TEST

#if LPEL_HOOKS_ENABLED
/* Counts blocks through hooks to prove both directions actually blocked. */
typedef struct block_counts {
    atomic_long input, output, any, wakes;
} block_counts;

static void *count_worker_start(void *ctx, unsigned id, unsigned workers)
{
    (void)id, (void)workers;
    return ctx;
}

static void count_block(void *wctx, void **slot, uint64_t task, lpel_block_cause cause)
{
    block_counts *c = wctx;
    (void)slot, (void)task;
    if (cause == LPEL_BLOCK_INPUT)
        atomic_fetch_add(&c->input, 1);
    else if (cause == LPEL_BLOCK_OUTPUT)
        atomic_fetch_add(&c->output, 1);
    else
        atomic_fetch_add(&c->any, 1);
}

static void count_wake(void *wctx, void **slot, uint64_t waker, uint64_t stream, uint64_t woken)
{
    block_counts *c = wctx;
    (void)slot, (void)waker, (void)stream, (void)woken;
    atomic_fetch_add(&c->wakes, 1);
}
#endif

START_TEST(test_blocking_both_directions)
{
#if LPEL_HOOKS_ENABLED
    block_counts counts = {0};
    lpel_hooks hooks = {.ctx = &counts, .worker_start = count_worker_start,
                        .task_block = count_block, .stream_wake = count_wake};
    lpel_config cfg = lpel_config_default();
    cfg.num_workers = 1;
    cfg.pin_workers = false;
    cfg.hooks = &hooks;
    lpel_runtime *rt;
    ck_assert_int_eq(lpel_runtime_create(&rt, &cfg, NULL, 0), LPEL_OK);
    pipe_args a = {.s = lpel_stream_create(rt, 2), .count = 100};
    spawn(rt, "consumer", 0, consumer, &a);
    spawn(rt, "producer", 0, producer, &a);
    ck_assert_int_eq(lpel_run(rt), LPEL_OK);
    ck_assert_int_eq(a.received, 100);
    /* The consumer runs first and finds the stream empty; the producer
     * then fills 2 slots and finds it full. */
    ck_assert_int_gt(atomic_load(&counts.input), 0);
    ck_assert_int_gt(atomic_load(&counts.output), 0);
    ck_assert_int_eq(atomic_load(&counts.wakes),
                     atomic_load(&counts.input) + atomic_load(&counts.output));
    lpel_runtime_destroy(rt);
#endif
}
END_TEST

/* ---- cross-worker ping-pong --------------------------------------------- */

typedef struct pingpong {
    lpel_stream *to_pong, *to_ping;
    long rounds;
    long ping_got, pong_got;
} pingpong;

static void ping(void *arg)
{
    pingpong *p = arg;
    for (long i = 0; i < p->rounds; i++) {
        lpel_stream_write(p->to_pong, ITEM(i));
        void *back = lpel_stream_read(p->to_ping);
        if (VALUE(back) == i)
            p->ping_got++;
    }
    lpel_stream_close(p->to_pong, LPEL_STREAM_WRITE);
    ck_assert_ptr_null(lpel_stream_read(p->to_ping));
    lpel_stream_close(p->to_ping, LPEL_STREAM_READ);
}

static void pong(void *arg)
{
    pingpong *p = arg;
    void *item;
    while ((item = lpel_stream_read(p->to_pong)) != NULL) {
        p->pong_got++;
        lpel_stream_write(p->to_ping, item);
    }
    lpel_stream_close(p->to_pong, LPEL_STREAM_READ);
    lpel_stream_close(p->to_ping, LPEL_STREAM_WRITE);
}

START_TEST(test_ping_pong_cross_worker)
{
    lpel_runtime *rt = make_runtime(2);
    pingpong p = {.to_pong = lpel_stream_create(rt, 1), .to_ping = lpel_stream_create(rt, 1),
                  .rounds = 20000};
    spawn(rt, "ping", 0, ping, &p);
    spawn(rt, "pong", 1, pong, &p);
    ck_assert_int_eq(lpel_run(rt), LPEL_OK);
    ck_assert_int_eq(p.ping_got, p.rounds);
    ck_assert_int_eq(p.pong_got, p.rounds);
    lpel_runtime_destroy(rt);
}
END_TEST

/* ---- poll over many streams --------------------------------------------- */

#define POLL_STREAMS 64
#define POLL_PER_STREAM 200

typedef struct poll_test {
    lpel_stream *streams[POLL_STREAMS];
    long per_stream_next[POLL_STREAMS];
    long total, out_of_order;
} poll_test;

typedef struct poll_writer {
    poll_test *p;
    int index;
} poll_writer;

static void poll_writer_task(void *arg)
{
    poll_writer *w = arg;
    for (long i = 0; i < POLL_PER_STREAM; i++) {
        lpel_stream_write(w->p->streams[w->index], ITEM(i));
        if (i % 7 == 0)
            lpel_task_yield();
    }
    lpel_stream_close(w->p->streams[w->index], LPEL_STREAM_WRITE);
}

static void poll_reader_task(void *arg)
{
    poll_test *p = arg;
    lpel_stream *live[POLL_STREAMS];
    int index_of[POLL_STREAMS];
    size_t n = POLL_STREAMS, start = 0;
    for (int i = 0; i < POLL_STREAMS; i++) {
        live[i] = p->streams[i];
        index_of[i] = i;
    }
    while (n > 0) {
        size_t k = lpel_stream_poll(live, n, start);
        void *item = lpel_stream_read(live[k]);
        if (item == NULL) { /* this writer is done: drop the stream */
            lpel_stream_close(live[k], LPEL_STREAM_READ);
            live[k] = live[n - 1];
            index_of[k] = index_of[n - 1];
            n--;
            start = n ? k % n : 0;
            continue;
        }
        int idx = index_of[k];
        if (VALUE(item) != p->per_stream_next[idx])
            p->out_of_order++;
        p->per_stream_next[idx]++;
        p->total++;
        start = k + 1;
    }
}

START_TEST(test_poll_many_streams)
{
    lpel_runtime *rt = make_runtime(2);
    poll_test p = {0};
    poll_writer writers[POLL_STREAMS];
    for (int i = 0; i < POLL_STREAMS; i++)
        p.streams[i] = lpel_stream_create(rt, 4);
    spawn(rt, "poller", 0, poll_reader_task, &p);
    for (int i = 0; i < POLL_STREAMS; i++) {
        writers[i] = (poll_writer){.p = &p, .index = i};
        spawn(rt, "pollwriter", i % 2, poll_writer_task, &writers[i]);
    }
    ck_assert_int_eq(lpel_run(rt), LPEL_OK);
    ck_assert_int_eq(p.total, (long)POLL_STREAMS * POLL_PER_STREAM);
    ck_assert_int_eq(p.out_of_order, 0);
    lpel_runtime_destroy(rt);
}
END_TEST

/* ---- placement ---------------------------------------------------------- */

typedef struct placement_record {
    atomic_int worker_of[16];
} placement_record;

typedef struct placed_task {
    placement_record *rec;
    int index;
} placed_task;

static void note_worker(void *arg)
{
    placed_task *pt = arg;
    atomic_store(&pt->rec->worker_of[pt->index], (int)lpel_task_worker(lpel_task_self()));
}

START_TEST(test_placement_round_robin_and_hint)
{
    lpel_runtime *rt = make_runtime(3);
    placement_record rec;
    placed_task pts[12];
    for (int i = 0; i < 12; i++) {
        atomic_init(&rec.worker_of[i], -1);
        pts[i] = (placed_task){&rec, i};
        /* Tasks 0..5 go to the mapper, 6..11 are pinned by hint. */
        spawn(rt, "placed", i < 6 ? LPEL_ANY_WORKER : (i % 2 ? 2 : 1), note_worker, &pts[i]);
    }
    ck_assert_int_eq(lpel_run(rt), LPEL_OK);
    for (int i = 0; i < 6; i++)
        ck_assert_int_eq(atomic_load(&rec.worker_of[i]), i % 3);
    for (int i = 6; i < 12; i++)
        ck_assert_int_eq(atomic_load(&rec.worker_of[i]), i % 2 ? 2 : 1);
    lpel_runtime_destroy(rt);
}
END_TEST

static int place_by_name_length(void *state, const lpel_task_info *task, unsigned n)
{
    atomic_int *calls = state;
    atomic_fetch_add(calls, 1);
    return (int)(strlen(task->name) % n);
}

START_TEST(test_placement_policy)
{
    atomic_int calls = 0;
    lpel_placement_policy policy = {.place = place_by_name_length, .state = &calls};
    lpel_config cfg = lpel_config_default();
    cfg.num_workers = 2;
    cfg.pin_workers = false;
    cfg.placement = &policy;
    lpel_runtime *rt;
    ck_assert_int_eq(lpel_runtime_create(&rt, &cfg, NULL, 0), LPEL_OK);
    placement_record rec;
    placed_task pts[4];
    const char *names[4] = {"a", "bb", "ccc", "dddd"};
    for (int i = 0; i < 4; i++) {
        atomic_init(&rec.worker_of[i], -1);
        pts[i] = (placed_task){&rec, i};
        spawn(rt, names[i], LPEL_ANY_WORKER, note_worker, &pts[i]);
    }
    ck_assert_int_eq(lpel_run(rt), LPEL_OK);
    ck_assert_int_eq(atomic_load(&calls), 4);
    for (int i = 0; i < 4; i++)
        ck_assert_int_eq(atomic_load(&rec.worker_of[i]), (int)(strlen(names[i]) % 2));
    lpel_runtime_destroy(rt);
}
END_TEST

/* ---- a pluggable scheduling policy (LIFO) ------------------------------- */

typedef struct lifo {
    lpel_task *top;
} lifo;

static void *lifo_create(void *config, unsigned id)
{
    (void)config, (void)id;
    return calloc(1, sizeof(lifo));
}
static void lifo_destroy(void *q) { free(q); }
static void lifo_push(void *q, lpel_task *t)
{
    lifo *l = q;
    *lpel_task_queue_link(t) = l->top;
    l->top = t;
}
static lpel_task *lifo_pop(void *q)
{
    lifo *l = q;
    lpel_task *t = l->top;
    if (t)
        l->top = *lpel_task_queue_link(t);
    return t;
}

typedef struct order_log {
    int order[8];
    int n;
} order_log;

typedef struct order_task {
    order_log *log;
    int index;
} order_task;

static void log_order(void *arg)
{
    order_task *ot = arg;
    ot->log->order[ot->log->n++] = ot->index;
}

START_TEST(test_sched_policy_lifo)
{
    lpel_sched_policy policy = {.create = lifo_create, .destroy = lifo_destroy,
                                .push = lifo_push, .pop = lifo_pop};
    lpel_config cfg = lpel_config_default();
    cfg.num_workers = 1;
    cfg.pin_workers = false;
    cfg.scheduling = &policy;
    lpel_runtime *rt;
    ck_assert_int_eq(lpel_runtime_create(&rt, &cfg, NULL, 0), LPEL_OK);
    order_log log = {.n = 0};
    order_task ots[5];
    for (int i = 0; i < 5; i++) {
        ots[i] = (order_task){&log, i};
        spawn(rt, "ordered", 0, log_order, &ots[i]);
    }
    ck_assert_int_eq(lpel_run(rt), LPEL_OK);
    ck_assert_int_eq(log.n, 5);
    for (int i = 0; i < 5; i++)
        ck_assert_int_eq(log.order[i], 4 - i);
    lpel_runtime_destroy(rt);
}
END_TEST

START_TEST(test_sched_default_fifo)
{
    lpel_runtime *rt = make_runtime(1);
    order_log log = {.n = 0};
    order_task ots[5];
    for (int i = 0; i < 5; i++) {
        ots[i] = (order_task){&log, i};
        spawn(rt, "ordered", 0, log_order, &ots[i]);
    }
    ck_assert_int_eq(lpel_run(rt), LPEL_OK);
    for (int i = 0; i < 5; i++)
        ck_assert_int_eq(log.order[i], i);
    lpel_runtime_destroy(rt);
}
END_TEST

/* ---- deep recursion on task stacks -------------------------------------- */

static long recurse(long depth, volatile char *prev)
{
    volatile char frame[256];
    frame[0] = (char)depth;
    frame[255] = prev ? prev[0] : 0;
    if (depth == 0)
        return frame[0] + frame[255];
    return recurse(depth - 1, frame) + 1;
}

typedef struct recursion {
    long depth;
    atomic_long ok;
} recursion;

static void deep_task(void *arg)
{
    recursion *r = arg;
    if (recurse(r->depth, NULL) >= r->depth)
        atomic_fetch_add(&r->ok, 1);
    lpel_task_yield(); /* switch away with a deep stack once used */
    if (recurse(r->depth / 2, NULL) >= r->depth / 2)
        atomic_fetch_add(&r->ok, 1);
}

START_TEST(test_deep_recursion_many_tasks)
{
    lpel_runtime *rt = make_runtime(2);
    /* ~300 bytes per level: 600 levels use ~180 KiB of the 1 MiB stack. */
    recursion r = {.depth = 600};
    lpel_task_attr attr = {.name = "deep", .stack_size = 1 << 20, .worker = LPEL_ANY_WORKER};
    for (int i = 0; i < 200; i++)
        ck_assert_int_gt(lpel_task_create(rt, &attr, deep_task, &r), 0);
    ck_assert_int_eq(lpel_run(rt), LPEL_OK);
    ck_assert_int_eq(atomic_load(&r.ok), 400);
    lpel_runtime_destroy(rt);
}
END_TEST

/* ---- a million tasks over a run ------------------------------------------ */

typedef struct spawner {
    long to_spawn;
    atomic_long finished;
} spawner;

static void tiny_task(void *arg)
{
    spawner *s = arg;
    atomic_fetch_add_explicit(&s->finished, 1, memory_order_relaxed);
}

/* Spawns its share in batches, yielding so the children can finish and
 * their stacks get reused rather than all being alive at once. */
static void spawner_task(void *arg)
{
    spawner *s = arg;
    lpel_task_attr attr = {.name = "tiny", .stack_size = 0, .worker = LPEL_ANY_WORKER};
    for (long i = 0; i < s->to_spawn; i++) {
        if (lpel_task_create(NULL, &attr, tiny_task, s) <= 0)
            abort();
        if (i % 256 == 255)
            lpel_task_yield();
    }
}

START_TEST(test_million_tasks)
{
    long total = 1000000;
    const char *env = getenv("LPEL_TEST_TASKS");
    if (env)
        total = atol(env);
    lpel_runtime *rt = make_runtime(2);
    spawner s = {.to_spawn = total / 2};
    spawn(rt, "spawner0", 0, spawner_task, &s);
    spawn(rt, "spawner1", 1, spawner_task, &s);
    ck_assert_int_eq(lpel_run(rt), LPEL_OK);
    ck_assert_int_eq(atomic_load(&s.finished), (total / 2) * 2);
    lpel_runtime_destroy(rt);
}
END_TEST

/* ---- a million tasks alive at once ---------------------------------------- */

typedef struct crowd {
    long size;
    atomic_long started, finished;
    atomic_int all_started; /* set once the mappings have been counted */
    long mappings;          /* the process's memory mappings at that moment */
} crowd;

static long count_mappings(void)
{
    FILE *f = fopen("/proc/self/maps", "r");
    if (!f)
        return -1;
    long lines = 0;
    int c;
    while ((c = getc(f)) != EOF)
        lines += c == '\n';
    fclose(f);
    return lines;
}

/* Every member starts, then waits (yielding) until all have started: at
 * that moment `size` tasks are alive, each with a stack in use. On one
 * worker that takes two rounds of the ready queue: one to start them all,
 * one to end them. */
static void crowd_member(void *arg)
{
    crowd *c = arg;
    if (atomic_fetch_add(&c->started, 1) + 1 == c->size) {
        c->mappings = count_mappings();
        atomic_store(&c->all_started, 1);
    }
    while (!atomic_load(&c->all_started))
        lpel_task_yield();
    atomic_fetch_add(&c->finished, 1);
}

START_TEST(test_million_live_tasks)
{
    crowd c = {.size = 1000000};
    const char *env = getenv("LPEL_TEST_LIVE_TASKS");
    if (env)
        c.size = atol(env);
    lpel_runtime *rt = make_runtime(1);
    lpel_task_attr attr = {.name = "crowd", .stack_size = 16 * 1024, .worker = 0};
    for (long i = 0; i < c.size; i++)
        ck_assert_int_gt(lpel_task_create(rt, &attr, crowd_member, &c), 0);
    ck_assert_int_eq(lpel_run(rt), LPEL_OK);
    ck_assert_int_eq(atomic_load(&c.started), c.size);
    ck_assert_int_eq(atomic_load(&c.finished), c.size);
    /* Far below the default vm.max_map_count (65,530), with room left for
     * the rest of the process. */
    ck_assert_msg(c.mappings > 0 && c.mappings < 32768,
                  "%ld mappings with %ld tasks alive", c.mappings, c.size);
    lpel_runtime_destroy(rt);
}
END_TEST

/* ---- deadlock detection ------------------------------------------------- */

typedef struct cycle {
    lpel_stream *a_to_b, *b_to_a;
} cycle;

static void cycle_a(void *arg)
{
    cycle *c = arg;
    lpel_stream_open(c->a_to_b, LPEL_STREAM_WRITE);
    lpel_stream_read(c->b_to_a); /* waits for B, which waits for A */
}

static void cycle_b(void *arg)
{
    cycle *c = arg;
    lpel_stream_open(c->b_to_a, LPEL_STREAM_WRITE);
    lpel_stream_read(c->a_to_b);
}

static void check_deadlock_report(unsigned workers)
{
    char *text = NULL;
    size_t len = 0;
    FILE *report = open_memstream(&text, &len);
    lpel_runtime *rt = make_runtime_reporting(workers, report);
    cycle c = {.a_to_b = lpel_stream_create(rt, 4), .b_to_a = lpel_stream_create(rt, 4)};
    spawn(rt, "alpha", 0, cycle_a, &c);
    spawn(rt, "beta", workers - 1, cycle_b, &c);
    ck_assert_int_eq(lpel_run(rt), LPEL_EDEADLOCK);
    fclose(report);
    ck_assert_ptr_nonnull(strstr(text, "deadlock"));
    ck_assert_msg(strstr(text, "task 1 'alpha'") && strstr(text, "task 2 'beta'"),
                  "report names both tasks: %s", text);
    ck_assert_msg(strstr(text, "waits to read stream 2 (empty") &&
                      strstr(text, "its writer is task 2 'beta'"),
                  "alpha waits for beta over stream 2: %s", text);
    ck_assert_msg(strstr(text, "waits to read stream 1 (empty") &&
                      strstr(text, "its writer is task 1 'alpha'"),
                  "beta waits for alpha over stream 1: %s", text);
    ck_assert_ptr_nonnull(strstr(lpel_runtime_error(rt), "deadlock"));
    lpel_runtime_destroy(rt);
    lpel_stream_destroy(c.a_to_b);
    lpel_stream_destroy(c.b_to_a);
    free(text);
}

START_TEST(test_deadlock_one_worker)
{
    check_deadlock_report(1);
}
END_TEST

START_TEST(test_deadlock_two_workers)
{
    check_deadlock_report(2);
}
END_TEST

/* Writer blocked on a full stream whose reader waits elsewhere. */
typedef struct full_wait {
    lpel_stream *data, *never;
} full_wait;

static void full_writer(void *arg)
{
    full_wait *f = arg;
    for (int i = 0; i < 10; i++)
        lpel_stream_write(f->data, ITEM(i));
}

static void stuck_reader(void *arg)
{
    full_wait *f = arg;
    lpel_stream_open(f->data, LPEL_STREAM_READ);
    lpel_stream_read(f->never);
}

START_TEST(test_deadlock_full_stream)
{
    char *text = NULL;
    size_t len = 0;
    FILE *report = open_memstream(&text, &len);
    lpel_runtime *rt = make_runtime_reporting(2, report);
    full_wait f = {.data = lpel_stream_create(rt, 2), .never = lpel_stream_create(rt, 2)};
    spawn(rt, "stuckreader", 0, stuck_reader, &f);
    spawn(rt, "fullwriter", 1, full_writer, &f);
    ck_assert_int_eq(lpel_run(rt), LPEL_EDEADLOCK);
    fclose(report);
    ck_assert_msg(strstr(text, "'fullwriter' (worker 1) waits to write stream 1 (full, 2/2"),
                  "writer blocked on full: %s", text);
    ck_assert_msg(strstr(text, "its reader is task 1 'stuckreader'"), "%s", text);
    ck_assert_msg(strstr(text, "'stuckreader' (worker 0) waits to read stream 2 (empty, 0/2 "
                               "items); no writer has opened it"),
                  "%s", text);
    lpel_runtime_destroy(rt);
    lpel_stream_destroy(f.data);
    lpel_stream_destroy(f.never);
    free(text);
}
END_TEST

/* ---- unwinding after a deadlock ------------------------------------------- */

typedef struct unwind_case {
    lpel_stream *data, *never;
    atomic_int ended;
} unwind_case;

/* discard_item has no context argument: the test counts in statics. */
static atomic_long discarded_count, discarded_sum;

static void count_discard(void *item)
{
    atomic_fetch_add(&discarded_count, 1);
    atomic_fetch_add(&discarded_sum, VALUE(item));
}

static void unwind_writer(void *arg)
{
    unwind_case *u = arg;
    lpel_stream_write(u->data, ITEM(10)); /* fills the one slot */
    lpel_stream_write(u->data, ITEM(20)); /* blocks; dropped by the unwinding */
    lpel_stream_close(u->data, LPEL_STREAM_WRITE);
    atomic_fetch_add(&u->ended, 1);
}

static void unwind_reader(void *arg)
{
    unwind_case *u = arg;
    lpel_stream_open(u->data, LPEL_STREAM_READ);
    void *first = lpel_stream_read(u->never);  /* blocks; end-of-stream after the report */
    void *second = lpel_stream_read(u->data);  /* has an item, but the run is unwinding */
    if (!first && !second && lpel_unwinding())
        atomic_fetch_add(&u->ended, 1);
    lpel_stream_close(u->data, LPEL_STREAM_READ); /* frees it, and the item left in it */
    lpel_stream_close(u->never, LPEL_STREAM_READ);
}

/* With unwind_on_deadlock the blocked tasks run to their ends after the
 * report, and every item dropped or left behind goes to discard_item. */
START_TEST(test_deadlock_unwinds)
{
    char *text = NULL;
    size_t len = 0;
    lpel_config cfg = lpel_config_default();
    cfg.num_workers = 2;
    cfg.pin_workers = false;
    cfg.report = open_memstream(&text, &len);
    cfg.unwind_on_deadlock = true;
    cfg.discard_item = count_discard;
    lpel_runtime *rt;
    ck_assert_int_eq(lpel_runtime_create(&rt, &cfg, NULL, 0), LPEL_OK);
    unwind_case u = {.data = lpel_stream_create(rt, 1), .never = lpel_stream_create(rt, 1)};
    spawn(rt, "reader", 0, unwind_reader, &u);
    spawn(rt, "writer", 1, unwind_writer, &u);
    ck_assert_int_eq(lpel_run(rt), LPEL_EDEADLOCK);
    fclose(cfg.report);
    ck_assert_msg(strstr(text, "'writer' (worker 1) waits to write stream 1 (full, 1/1"), "%s", text);
    const char *first = strstr(text, "lpel: deadlock:");
    ck_assert_msg(first && !strstr(first + 1, "lpel: deadlock:"), "reported once: %s", text);
    ck_assert_msg(strstr(lpel_runtime_error(rt), "2 live tasks"), "%s", lpel_runtime_error(rt));
    ck_assert_int_eq(atomic_load(&u.ended), 2);
    ck_assert_int_eq(atomic_load(&discarded_count), 2);
    ck_assert_int_eq(atomic_load(&discarded_sum), 10 + 20);
    lpel_runtime_destroy(rt);
    lpel_stream_destroy(u.never);
    free(text);
}
END_TEST

/* ---- more workers than cores ---------------------------------------------- */

static void create_with_workers(unsigned workers)
{
    lpel_config cfg = lpel_config_default();
    cfg.num_workers = workers;
    cfg.pin_workers = false;
    lpel_runtime *rt;
    if (lpel_runtime_create(&rt, &cfg, NULL, 0) == LPEL_OK)
        lpel_runtime_destroy(rt);
}

/* (CTest runs this program with LPEL_OVERSUBSCRIBE=1, for the tests that
 * use more workers than a small machine has cores.) */
static void create_one_per_core(void)
{
    unsetenv("LPEL_OVERSUBSCRIBE");
    create_with_workers(0);
}

static void create_oversubscribed(void)
{
    unsetenv("LPEL_OVERSUBSCRIBE");
    create_with_workers(lpel_core_count() + 1);
}
static void create_oversubscribed_quietly(void)
{
    setenv("LPEL_OVERSUBSCRIBE", "1", 1);
    create_with_workers(lpel_core_count() + 1);
}

/* Allowed, with one line on stderr that says how to silence it. */
START_TEST(test_oversubscription_warns)
{
    char buf[1024];
    ck_assert_int_eq(run_in_child(create_oversubscribed, buf, sizeof buf), 0);
    ck_assert_msg(strncmp(buf, "lpel: warning: ", 15) == 0 && strstr(buf, "LPEL_OVERSUBSCRIBE=1") &&
                      strchr(buf, '\n') == buf + strlen(buf) - 1,
                  "one warning line: '%s'", buf);
    ck_assert_int_eq(run_in_child(create_oversubscribed_quietly, buf, sizeof buf), 0);
    ck_assert_str_eq(buf, "");
    ck_assert_int_eq(run_in_child(create_one_per_core, buf, sizeof buf), 0);
    ck_assert_str_eq(buf, "");
}
END_TEST

/* ---- stack overflow ------------------------------------------------------ */

/* Recurses until the stack runs out; the limit only hides that from the
 * compiler's infinite-recursion warning. */
static long overflow(long n, long limit)
{
    volatile char pad[1024];
    pad[0] = (char)n;
    if (n >= limit)
        return pad[0];
    return overflow(n + 1, limit) + pad[0];
}

static void overflowing_task(void *arg)
{
    (void)arg;
    overflow(0, (long)1 << 40);
}

static void overflow_in_a_task_with(bool guard_pages)
{
    lpel_config cfg = lpel_config_default();
    cfg.num_workers = 1;
    cfg.pin_workers = false;
    cfg.stack_guard_pages = guard_pages;
    lpel_runtime *rt;
    if (lpel_runtime_create(&rt, &cfg, NULL, 0) != LPEL_OK)
        return;
    lpel_task_attr attr = {.name = "glutton", .stack_size = 64 * 1024, .worker = 0};
    lpel_task_create(rt, &attr, overflowing_task, NULL);
    lpel_run(rt);
}

static void overflow_in_a_task(void) { overflow_in_a_task_with(true); }
static void overflow_without_guard_page(void) { overflow_in_a_task_with(false); }

START_TEST(test_stack_overflow_reported)
{
    char buf[4096];
    int status = run_in_child(overflow_in_a_task, buf, sizeof buf);
    ck_assert_msg(WIFSIGNALED(status), "child must die of a signal (status %d)", status);
    ck_assert_msg(strstr(buf, "stack overflow in task 'glutton'") != NULL,
                  "message names the task: %s", buf);
}
END_TEST

/* Without a guard page of its own, an unbounded recursion runs into the
 * guard below the worker's stacks and is still attributed to the task. */
START_TEST(test_stack_overflow_without_guard_page)
{
    char buf[4096];
    int status = run_in_child(overflow_without_guard_page, buf, sizeof buf);
    ck_assert_msg(WIFSIGNALED(status), "child must die of a signal (status %d)", status);
    ck_assert_msg(strstr(buf, "stack overflow in task 'glutton'") != NULL,
                  "message names the task: %s", buf);
}
END_TEST

/* Writes every byte from below its own frame down to `to`, then returns
 * as if nothing happened. Not instrumented: the bytes below the stack
 * pointer are nobody's frame. */
static __attribute__((noinline, no_sanitize_address)) void scribble_down_to(char *to)
{
    for (volatile char *p = (char *)__builtin_frame_address(0) - 512; p >= to; p--)
        *p = 0x5a;
}

/* A bounded overflow of the task's 16 KiB stack: down to the cache line
 * just past the page below the stack (a guard page, or slack), where the
 * stack below would begin to be harmed. The stack's top is page-aligned
 * and the task's first frames lie in its top page, which locates the
 * bottom. */
static void scribbling_task(void *arg)
{
    (void)arg;
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    uintptr_t top = ((uintptr_t)__builtin_frame_address(0) + page - 1) & ~(uintptr_t)(page - 1);
    char *bottom = (char *)(top - 16 * 1024);
    scribble_down_to(bottom - page - 64);
    lpel_task_yield(); /* the check on switching away must notice */
}

static void scribble_in_a_task(bool guard_pages)
{
    lpel_config cfg = lpel_config_default();
    cfg.num_workers = 1;
    cfg.pin_workers = false;
    cfg.stack_guard_pages = guard_pages;
    lpel_runtime *rt;
    if (lpel_runtime_create(&rt, &cfg, NULL, 0) != LPEL_OK)
        return;
    lpel_task_attr attr = {.name = "scribbler", .stack_size = 16 * 1024, .worker = 0};
    lpel_task_create(rt, &attr, scribbling_task, NULL);
    lpel_run(rt);
}

static void scribble_with_guard_page(void) { scribble_in_a_task(true); }
static void scribble_without_guard_page(void) { scribble_in_a_task(false); }

/* A bounded overflow that returns before the task switches: the guard page
 * catches it at once (SIGSEGV); without one, the fence check at the next switch
 * (abort). Both name the task. */
START_TEST(test_stack_overflow_bounded)
{
    char buf[4096];
    int status = run_in_child(scribble_with_guard_page, buf, sizeof buf);
    ck_assert_msg(WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV,
                  "guard page: SIGSEGV expected (status %d)", status);
    ck_assert_msg(strstr(buf, "stack overflow in task 'scribbler'") != NULL, "%s", buf);

    status = run_in_child(scribble_without_guard_page, buf, sizeof buf);
    ck_assert_msg(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT,
                  "fence: SIGABRT expected (status %d)", status);
    ck_assert_msg(strstr(buf, "stack overflow in task 'scribbler'") != NULL, "%s", buf);
}
END_TEST

/* ---- misuse is fatal, with a message ------------------------------------ */

typedef struct two_readers {
    lpel_stream *s;
} two_readers;

static void reader_a(void *arg)
{
    lpel_stream_open(((two_readers *)arg)->s, LPEL_STREAM_READ);
}

static void two_readers_of_one_stream(void)
{
    lpel_runtime *rt = make_runtime(1);
    two_readers tr = {.s = lpel_stream_create(rt, 2)};
    spawn(rt, "first", 0, reader_a, &tr);
    spawn(rt, "second", 0, reader_a, &tr);
    lpel_run(rt);
}

START_TEST(test_second_reader_is_fatal)
{
    char buf[2048];
    int status = run_in_child(two_readers_of_one_stream, buf, sizeof buf);
    ck_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT);
    ck_assert_msg(strstr(buf, "task 'second'") && strstr(buf, "one reader and one writer"),
                  "%s", buf);
}
END_TEST

/* ---- the API around streams --------------------------------------------- */

static void api_task(void *arg)
{
    lpel_stream *s = arg;
    ck_assert_ptr_null(lpel_stream_peek(s));
    ck_assert(!lpel_stream_at_end(s));
    ck_assert(lpel_stream_try_write(s, ITEM(1)));
    ck_assert(lpel_stream_try_write(s, ITEM(2)));
    ck_assert(!lpel_stream_try_write(s, ITEM(3))); /* capacity 2 */
    ck_assert_uint_eq(lpel_stream_count(s), 2);
    ck_assert_ptr_eq(lpel_stream_peek(s), ITEM(1));
    ck_assert_ptr_eq(lpel_stream_reader(s), lpel_task_self());
    ck_assert_ptr_eq(lpel_stream_writer(s), lpel_task_self());
    ck_assert_ptr_eq(lpel_stream_read(s), ITEM(1));
    ck_assert_ptr_eq(lpel_stream_read(s), ITEM(2));
    lpel_stream_close(s, LPEL_STREAM_WRITE);
    ck_assert(lpel_stream_at_end(s));
    ck_assert_ptr_null(lpel_stream_read(s));
    ck_assert_ptr_null(lpel_stream_read(s));
    lpel_stream_close(s, LPEL_STREAM_READ);
}

START_TEST(test_stream_api)
{
    lpel_runtime *rt = make_runtime(1);
    lpel_stream *s = lpel_stream_create(rt, 2);
    ck_assert_uint_eq(lpel_stream_capacity(s), 2);
    ck_assert_uint_ge(lpel_stream_id(s), 1);
    spawn(rt, "api", 0, api_task, s);
    ck_assert_int_eq(lpel_run(rt), LPEL_OK);
    ck_assert_int_eq(lpel_run(rt), LPEL_ESTATE);
    lpel_runtime_destroy(rt);
}
END_TEST

START_TEST(test_bad_config)
{
    lpel_sched_policy broken = {.create = lifo_create};
    lpel_config cfg = lpel_config_default();
    cfg.scheduling = &broken;
    lpel_runtime *rt = (lpel_runtime *)&cfg;
    char err[128];
    ck_assert_int_eq(lpel_runtime_create(&rt, &cfg, err, sizeof err), LPEL_EINVAL);
    ck_assert_ptr_null(rt);
    ck_assert_ptr_nonnull(strstr(err, "scheduling policy"));
}
END_TEST

START_TEST(test_empty_run)
{
    lpel_runtime *rt = make_runtime(2);
    ck_assert_int_eq(lpel_run(rt), LPEL_OK);
    lpel_runtime_destroy(rt);
}
END_TEST

/* ---- hooks see every event ----------------------------------------------- */

#if LPEL_HOOKS_ENABLED
typedef struct hook_counts {
    atomic_long started, ended, mapped, created, dispatched, yielded, destroyed, opened,
        closed, reads, writes;
    atomic_long bad_args; /* a hook got no slot, id 0 or no name */
} hook_counts;

/* The arguments every task hook must get: the task's slot and its id. */
static void check_task_args(void *c, void **slot, uint64_t task)
{
    if (!slot || task == 0)
        atomic_fetch_add(&((hook_counts *)c)->bad_args, 1);
}

static void *h_start(void *ctx, unsigned id, unsigned workers) { (void)id, (void)workers; atomic_fetch_add(&((hook_counts *)ctx)->started, 1); return ctx; }
static void h_end(void *c) { atomic_fetch_add(&((hook_counts *)c)->ended, 1); }
static void h_map(void *c, void **slot, uint64_t t, const char *name, unsigned w) { (void)w; check_task_args(c, slot, t); if (!name || !*name) atomic_fetch_add(&((hook_counts *)c)->bad_args, 1); atomic_fetch_add(&((hook_counts *)c)->mapped, 1); }
static void h_create(void *c, void **slot, uint64_t t) { (void)slot, (void)t; atomic_fetch_add(&((hook_counts *)c)->created, 1); }
static void h_dispatch(void *c, void **slot, uint64_t t) { check_task_args(c, slot, t); atomic_fetch_add(&((hook_counts *)c)->dispatched, 1); }
static void h_yield(void *c, void **slot, uint64_t t) { (void)slot, (void)t; atomic_fetch_add(&((hook_counts *)c)->yielded, 1); }
static void h_destroy(void *c, void **slot, uint64_t t) { (void)slot, (void)t; atomic_fetch_add(&((hook_counts *)c)->destroyed, 1); }
static void h_open(void *c, void **slot, uint64_t t, uint64_t s, lpel_stream_mode m) { (void)slot, (void)t, (void)s, (void)m; atomic_fetch_add(&((hook_counts *)c)->opened, 1); }
static void h_close(void *c, void **slot, uint64_t t, uint64_t s, lpel_stream_mode m) { (void)slot, (void)t, (void)s, (void)m; atomic_fetch_add(&((hook_counts *)c)->closed, 1); }
static void h_read(void *c, void **slot, uint64_t t, uint64_t s) { check_task_args(c, slot, t); if (s == 0) atomic_fetch_add(&((hook_counts *)c)->bad_args, 1); atomic_fetch_add(&((hook_counts *)c)->reads, 1); }
static void h_write(void *c, void **slot, uint64_t t, uint64_t s) { check_task_args(c, slot, t); if (s == 0) atomic_fetch_add(&((hook_counts *)c)->bad_args, 1); atomic_fetch_add(&((hook_counts *)c)->writes, 1); }

static void yield_twice(void *arg)
{
    (void)arg;
    lpel_task_yield();
    lpel_task_yield();
}
#endif

START_TEST(test_hooks_count_events)
{
#if LPEL_HOOKS_ENABLED
    hook_counts hc = {0};
    lpel_hooks hooks = {.ctx = &hc, .worker_start = h_start, .worker_end = h_end,
                        .task_map = h_map, .task_create = h_create, .task_dispatch = h_dispatch,
                        .task_yield = h_yield, .task_destroy = h_destroy, .stream_open = h_open,
                        .stream_close = h_close, .stream_read = h_read, .stream_write = h_write};
    lpel_config cfg = lpel_config_default();
    cfg.num_workers = 2;
    cfg.pin_workers = false;
    cfg.hooks = &hooks;
    lpel_runtime *rt;
    ck_assert_int_eq(lpel_runtime_create(&rt, &cfg, NULL, 0), LPEL_OK);
    pipe_args a = {.s = lpel_stream_create(rt, 8), .count = 1000};
    spawn(rt, "consumer", 0, consumer, &a);
    spawn(rt, "producer", 1, producer, &a);
    spawn(rt, "yielder", 0, yield_twice, NULL);
    ck_assert_int_eq(lpel_run(rt), LPEL_OK);
    ck_assert_int_eq(atomic_load(&hc.started), 2);
    ck_assert_int_eq(atomic_load(&hc.ended), 2);
    ck_assert_int_eq(atomic_load(&hc.mapped), 3);
    ck_assert_int_eq(atomic_load(&hc.created), 3);
    ck_assert_int_eq(atomic_load(&hc.destroyed), 3);
    ck_assert_int_eq(atomic_load(&hc.yielded), 2);
    ck_assert_int_ge(atomic_load(&hc.dispatched), 3 + 2);
    ck_assert_int_eq(atomic_load(&hc.opened), 2);
    ck_assert_int_eq(atomic_load(&hc.closed), 2);
    ck_assert_int_eq(atomic_load(&hc.reads), 1000);
    ck_assert_int_eq(atomic_load(&hc.writes), 1000);
    ck_assert_int_eq(atomic_load(&hc.bad_args), 0);
    lpel_runtime_destroy(rt);
#endif
}
END_TEST

START_TEST(test_core_count)
{
    ck_assert_uint_ge(lpel_core_count(), 1);
    lpel_config cfg = lpel_config_default();
    cfg.pin_workers = true;
    lpel_runtime *rt;
    ck_assert_int_eq(lpel_runtime_create(&rt, &cfg, NULL, 0), LPEL_OK);
    ck_assert_uint_eq(lpel_runtime_num_workers(rt), lpel_core_count());
    order_log log = {.n = 0};
    order_task ot = {&log, 0};
    spawn(rt, "pinned", LPEL_ANY_WORKER, log_order, &ot);
    ck_assert_int_eq(lpel_run(rt), LPEL_OK);
    ck_assert_int_eq(log.n, 1);
    lpel_runtime_destroy(rt);
}
END_TEST

/* ---- idle workers sleep -------------------------------------------------- */

static void sleepy_task(void *arg)
{
    (void)arg;
    /* Blocks this worker's thread in the kernel for 300 ms, so the other
     * worker has nothing to do for that long. */
    struct timespec pause = {.tv_sec = 0, .tv_nsec = 300 * 1000 * 1000};
    nanosleep(&pause, NULL);
}

static double process_cpu_seconds(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
           ru.ru_stime.tv_usec / 1e6;
}

/* Not a timing test: it checks how much CPU an idle worker consumes. A
 * worker that spun instead of sleeping would burn ~300 ms of CPU here. */
START_TEST(test_idle_worker_sleeps)
{
    lpel_runtime *rt = make_runtime(2);
    spawn(rt, "sleepy", 0, sleepy_task, NULL);
    double before = process_cpu_seconds();
    ck_assert_int_eq(lpel_run(rt), LPEL_OK);
    double used = process_cpu_seconds() - before;
    lpel_runtime_destroy(rt);
    ck_assert_msg(used < 0.15, "idle worker consumed %.3f s of CPU in a 0.3 s wait", used);
}
END_TEST

static Suite *lpel_suite(void)
{
    Suite *s = suite_create("lpel");
    TCase *streams = tcase_create("streams");
    tcase_add_test(streams, test_fifo_same_worker);
    tcase_add_test(streams, test_fifo_cross_worker);
    tcase_add_test(streams, test_fifo_capacity_one);
    tcase_add_test(streams, test_blocking_both_directions);
    tcase_add_test(streams, test_ping_pong_cross_worker);
    tcase_add_test(streams, test_poll_many_streams);
    tcase_add_test(streams, test_stream_api);
    tcase_add_test(streams, test_prefetch_next_changes_nothing);
    suite_add_tcase(s, streams);

    TCase *sched = tcase_create("scheduling");
    tcase_add_test(sched, test_placement_round_robin_and_hint);
    tcase_add_test(sched, test_placement_policy);
    tcase_add_test(sched, test_sched_policy_lifo);
    tcase_add_test(sched, test_sched_default_fifo);
    tcase_add_test(sched, test_bad_config);
    tcase_add_test(sched, test_empty_run);
    tcase_add_test(sched, test_hooks_count_events);
    tcase_add_test(sched, test_core_count);
    tcase_add_test(sched, test_idle_worker_sleeps);
    tcase_add_test(sched, test_oversubscription_warns);
    suite_add_tcase(s, sched);

    TCase *tasks = tcase_create("tasks");
    tcase_set_timeout(tasks, 600);
    tcase_add_test(tasks, test_deep_recursion_many_tasks);
    tcase_add_test(tasks, test_million_tasks);
    suite_add_tcase(s, tasks);

    /* ~4.5 GB of memory: its own CTest test (tag "large"), run alone. */
    TCase *crowd = tcase_create("crowd");
    tcase_set_tags(crowd, "large");
    tcase_set_timeout(crowd, 600);
    tcase_add_test(crowd, test_million_live_tasks);
    suite_add_tcase(s, crowd);

    TCase *fatal = tcase_create("fatal");
    tcase_add_test(fatal, test_deadlock_one_worker);
    tcase_add_test(fatal, test_deadlock_two_workers);
    tcase_add_test(fatal, test_deadlock_full_stream);
    tcase_add_test(fatal, test_deadlock_unwinds);
    tcase_add_test(fatal, test_stack_overflow_reported);
    tcase_add_test(fatal, test_stack_overflow_without_guard_page);
    tcase_add_test(fatal, test_stack_overflow_bounded);
    tcase_add_test(fatal, test_second_reader_is_fatal);
    suite_add_tcase(s, fatal);
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
