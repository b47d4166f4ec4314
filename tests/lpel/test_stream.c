/*
 * test_stream.c - unit tests of LPEL's streams (stream.c): FIFO order on one worker and across workers, blocking in both
 * directions and the wake-ups it needs, ping-pong, poll over many streams,
 * the stream API, and a second reader as a fatal misuse.
 *
 * Split from the one test file LPEL had, so that tests mirror the source
 * (docs/ARCHITECTURE.md): nothing here measures time; every test checks an
 * outcome a broken runtime would get wrong (wrong order, lost items, a hang
 * caught by the Check timeout, a missing report).
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

#include "lpel_test_util.h"

/* ---- FIFO order and blocking in both directions ------------------------- */

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
    atomic_long input, output, any, wakes, remote_wakes;
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

static void count_wake(void *wctx, void **slot, uint64_t waker, uint64_t stream, uint64_t woken,
                       bool local)
{
    block_counts *c = wctx;
    (void)slot, (void)waker, (void)stream, (void)woken;
    atomic_fetch_add(&c->wakes, 1);
    if (!local)
        atomic_fetch_add(&c->remote_wakes, 1);
}

/* A runtime of `workers` unpinned workers with the counting hooks. */
static lpel_runtime *hooked_runtime(unsigned workers, const lpel_hooks *hooks)
{
    lpel_config cfg = lpel_config_default();
    cfg.num_workers = workers;
    cfg.pin_workers = false;
    cfg.hooks = hooks;
    lpel_runtime *rt;
    ck_assert_int_eq(lpel_runtime_create(&rt, &cfg, NULL, 0), LPEL_OK);
    return rt;
}
#endif

START_TEST(test_blocking_both_directions)
{
#if LPEL_HOOKS_ENABLED
    block_counts counts = {0};
    lpel_hooks hooks = {.ctx = &counts, .worker_start = count_worker_start,
                        .task_block = count_block, .stream_wake = count_wake};
    lpel_runtime *rt = hooked_runtime(1, &hooks);
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
    ck_assert_int_eq(atomic_load(&counts.remote_wakes), 0); /* one worker */
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

/* stream_wake says whether the woken task lives on the waker's worker:
 * ping and pong on two workers wake each other across them, never
 * locally. */
START_TEST(test_wakes_across_workers_are_not_local)
{
#if LPEL_HOOKS_ENABLED
    block_counts counts = {0};
    lpel_hooks hooks = {.ctx = &counts, .worker_start = count_worker_start,
                        .stream_wake = count_wake};
    lpel_runtime *rt = hooked_runtime(2, &hooks);
    pingpong p = {.to_pong = lpel_stream_create(rt, 1), .to_ping = lpel_stream_create(rt, 1),
                  .rounds = 2000};
    spawn(rt, "ping", 0, ping, &p);
    spawn(rt, "pong", 1, pong, &p);
    ck_assert_int_eq(lpel_run(rt), LPEL_OK);
    ck_assert_int_eq(p.pong_got, p.rounds);
    ck_assert_int_gt(atomic_load(&counts.wakes), 0);
    ck_assert_int_eq(atomic_load(&counts.remote_wakes), atomic_load(&counts.wakes));
    lpel_runtime_destroy(rt);
#endif
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

int main(void)
{
    Suite *s = suite_create("lpel_stream");
    TCase *tc = tcase_create("stream");
    tcase_add_test(tc, test_prefetch_next_changes_nothing);
    tcase_add_test(tc, test_fifo_same_worker);
    tcase_add_test(tc, test_fifo_cross_worker);
    tcase_add_test(tc, test_fifo_capacity_one);
    tcase_add_test(tc, test_blocking_both_directions);
    tcase_add_test(tc, test_ping_pong_cross_worker);
    tcase_add_test(tc, test_wakes_across_workers_are_not_local);
    tcase_add_test(tc, test_poll_many_streams);
    tcase_add_test(tc, test_second_reader_is_fatal);
    tcase_add_test(tc, test_stream_api);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
