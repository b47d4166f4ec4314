/*
 * test_event.c - events (event.c) (lpel_event_*): a thread outside LPEL feeding
 * a task, raises before waits, a run that waits for the outside is not a
 * deadlock, and the outside stopping a quiescent run as deadlocked.
 *
 * A lost wake-up or a wrong deadlock verdict shows as a wrong count, a
 * wrong return code or a hang caught by the Check timeout.
 */
#include <check.h>
#include <lpel.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static lpel_runtime *make_runtime(unsigned workers, FILE *report)
{
    lpel_config cfg = lpel_config_default();
    cfg.num_workers = workers;
    cfg.pin_workers = false;
    cfg.report = report;
    lpel_runtime *rt = NULL;
    char err[256];
    ck_assert_msg(lpel_runtime_create(&rt, &cfg, err, sizeof err) == LPEL_OK, "%s", err);
    return rt;
}

static void spawn(lpel_runtime *rt, const char *name, int worker, lpel_task_fn fn, void *arg)
{
    lpel_task_attr attr = {.name = name, .stack_size = 0, .worker = worker};
    ck_assert_int_gt(lpel_task_create(rt, &attr, fn, arg), 0);
}

static void sleep_us(long us)
{
    struct timespec ts = {us / 1000000, (us % 1000000) * 1000};
    nanosleep(&ts, NULL);
}

/* ---- an outside thread feeding a task ------------------------------------------ */

typedef struct feed {
    lpel_event *ready;
    pthread_mutex_t lock;
    long queued, taken, total;
    long pause_every; /* the feeder sleeps after this many items, so workers idle */
} feed;

static void *feeder_main(void *arg)
{
    feed *f = arg;
    for (long i = 0; i < f->total; i++) {
        pthread_mutex_lock(&f->lock);
        f->queued++;
        pthread_mutex_unlock(&f->lock);
        lpel_event_raise(f->ready);
        if (f->pause_every && i % f->pause_every == 0)
            sleep_us(200);
    }
    return NULL;
}

static void eater(void *arg)
{
    feed *f = arg;
    while (f->taken < f->total) {
        pthread_mutex_lock(&f->lock);
        long avail = f->queued - f->taken;
        pthread_mutex_unlock(&f->lock);
        if (avail == 0)
            lpel_event_wait(f->ready, LPEL_BLOCK_INPUT);
        else
            f->taken += avail;
    }
}

static void run_feed(unsigned workers, long total, long pause_every)
{
    lpel_runtime *rt = make_runtime(workers, NULL);
    feed f = {.ready = lpel_event_create("items from the feeder"), .total = total,
              .pause_every = pause_every};
    pthread_mutex_init(&f.lock, NULL);
    spawn(rt, "eater", LPEL_ANY_WORKER, eater, &f);
    pthread_t th;
    ck_assert_int_eq(pthread_create(&th, NULL, feeder_main, &f), 0);
    /* The feeder pauses while the eater waits: every worker sleeps with a
     * live task, which is not a deadlock because it waits for an event. */
    ck_assert_int_eq(lpel_run(rt), LPEL_OK);
    pthread_join(th, NULL);
    ck_assert_int_eq(f.taken, total);
    lpel_runtime_destroy(rt);
    lpel_event_destroy(f.ready);
    pthread_mutex_destroy(&f.lock);
}

START_TEST(test_outside_thread_feeds_task)
{
    run_feed(1, 200, 10);
    run_feed(2, 200, 10);
    run_feed(2, 100000, 0);
}
END_TEST

/* ---- raises before the wait count once ------------------------------------------ */

typedef struct once {
    lpel_event *e;
    int waits_done;
} once;

static void raise_then_wait(void *arg)
{
    once *o = arg;
    lpel_event_raise(o->e);
    lpel_event_raise(o->e);
    lpel_event_wait(o->e, LPEL_BLOCK_INPUT); /* returns at once */
    o->waits_done = 1;
}

START_TEST(test_raise_before_wait)
{
    lpel_runtime *rt = make_runtime(1, NULL);
    once o = {lpel_event_create("a raise"), 0};
    spawn(rt, "raiser", 0, raise_then_wait, &o);
    ck_assert_int_eq(lpel_run(rt), LPEL_OK);
    ck_assert_int_eq(o.waits_done, 1);
    lpel_runtime_destroy(rt);
    lpel_event_destroy(o.e);
}
END_TEST

/* ---- a task that waits twice for two raises by another task ---------------------- */

typedef struct pingpong {
    lpel_event *to_a, *to_b;
    long rounds, a_count, b_count;
} pingpong;

static void ping(void *arg)
{
    pingpong *p = arg;
    for (long i = 0; i < p->rounds; i++) {
        lpel_event_raise(p->to_b);
        lpel_event_wait(p->to_a, LPEL_BLOCK_INPUT);
        p->a_count++;
    }
}

static void pong(void *arg)
{
    pingpong *p = arg;
    for (long i = 0; i < p->rounds; i++) {
        lpel_event_wait(p->to_b, LPEL_BLOCK_INPUT);
        p->b_count++;
        lpel_event_raise(p->to_a);
    }
}

START_TEST(test_tasks_ping_pong_by_events)
{
    lpel_runtime *rt = make_runtime(2, NULL);
    pingpong p = {lpel_event_create("a"), lpel_event_create("b"), 20000, 0, 0};
    spawn(rt, "ping", 0, ping, &p);
    spawn(rt, "pong", 1, pong, &p);
    ck_assert_int_eq(lpel_run(rt), LPEL_OK);
    ck_assert_int_eq(p.a_count, p.rounds);
    ck_assert_int_eq(p.b_count, p.rounds);
    lpel_runtime_destroy(rt);
    lpel_event_destroy(p.to_a);
    lpel_event_destroy(p.to_b);
}
END_TEST

/* ---- quiescence, and stopping a run as deadlocked from outside -------------------- */

typedef struct stuck {
    lpel_event *never;
    lpel_stream *empty;
    lpel_runtime *rt;
    atomic_int go; /* the spinner runs until the judge has seen it busy */
    int busy_seen, stop_rc;
    long live;
} stuck;

static void waits_for_event(void *arg)
{
    stuck *s = arg;
    lpel_event_wait(s->never, LPEL_BLOCK_INPUT);
}

static void waits_for_stream(void *arg)
{
    stuck *s = arg;
    while (!atomic_load(&s->go))
        lpel_task_yield(); /* busy: the run is not quiescent yet */
    lpel_stream_read(s->empty);
}

static void *judge_main(void *arg)
{
    stuck *s = arg;
    long live = 0;
    for (int i = 0; i < 100 && !s->busy_seen; i++) {
        if (!lpel_runtime_quiescent(s->rt, &live))
            s->busy_seen = 1;
        sleep_us(1000);
    }
    atomic_store(&s->go, 1);
    while (!lpel_runtime_quiescent(s->rt, &live))
        sleep_us(1000);
    s->live = live;
    s->stop_rc = lpel_runtime_stop_deadlocked(s->rt, NULL);
    return NULL;
}

START_TEST(test_stop_quiescent_run)
{
    char *text = NULL;
    size_t len = 0;
    FILE *report = open_memstream(&text, &len);
    lpel_runtime *rt = make_runtime(2, report);
    stuck s = {.never = lpel_event_create("records from rank 7 on channel 3"),
               .empty = lpel_stream_create(rt, 4), .rt = rt};
    atomic_init(&s.go, 0);
    spawn(rt, "remote.in", 0, waits_for_event, &s);
    spawn(rt, "reader", 1, waits_for_stream, &s);
    pthread_t th;
    ck_assert_int_eq(pthread_create(&th, NULL, judge_main, &s), 0);
    ck_assert_int_eq(lpel_run(rt), LPEL_EDEADLOCK);
    pthread_join(th, NULL);
    fclose(report);
    ck_assert_int_eq(s.busy_seen, 1);
    ck_assert_int_eq(s.stop_rc, LPEL_OK);
    ck_assert_int_eq(s.live, 2);
    ck_assert_msg(strstr(text, "task 1 'remote.in' (worker 0) waits for records from rank 7 "
                               "on channel 3"),
                  "event wait in the report: %s", text);
    ck_assert_msg(strstr(text, "'reader' (worker 1) waits to read stream 1 (empty"),
                  "stream wait in the report: %s", text);
    /* Stopped runs stay stopped: a second stop is refused. */
    ck_assert_int_eq(lpel_runtime_stop_deadlocked(rt, NULL), LPEL_ESTATE);
    ck_assert(!lpel_runtime_quiescent(rt, NULL));
    lpel_runtime_destroy(rt);
    lpel_stream_destroy(s.empty);
    lpel_event_destroy(s.never);
    free(text);
}
END_TEST

/* Without event waits an all-blocked run is still found by LPEL itself. */
static void reads_forever(void *arg) { lpel_stream_read(arg); }

START_TEST(test_plain_deadlock_still_found)
{
    char *text = NULL;
    size_t len = 0;
    FILE *report = open_memstream(&text, &len);
    lpel_runtime *rt = make_runtime(1, report);
    lpel_event *unused = lpel_event_create("nothing");
    lpel_stream *s = lpel_stream_create(rt, 2);
    spawn(rt, "lonely", 0, reads_forever, s);
    ck_assert_int_eq(lpel_run(rt), LPEL_EDEADLOCK);
    fclose(report);
    ck_assert_ptr_nonnull(strstr(text, "'lonely'"));
    lpel_runtime_destroy(rt);
    lpel_stream_destroy(s);
    lpel_event_destroy(unused);
    free(text);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("lpel_event");
    TCase *tc = tcase_create("events");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_outside_thread_feeds_task);
    tcase_add_test(tc, test_raise_before_wait);
    tcase_add_test(tc, test_tasks_ping_pong_by_events);
    tcase_add_test(tc, test_stop_quiescent_run);
    tcase_add_test(tc, test_plain_deadlock_still_found);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
