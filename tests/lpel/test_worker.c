/*
 * test_worker.c - unit tests of LPEL's workers (worker.c): a pluggable scheduling policy (LIFO) against the
 * default FIFO queue, an idle worker that sleeps instead of spinning, and
 * the idle poll (lpel_runtime_set_idle_poll) that lets an outside party
 * wake tasks from an idle worker's own thread, and reports them to the
 * hooks (worker_mail).
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

/* ---- the idle poll --------------------------------------------------------- */

/* What the poll saw. One worker calls it, so plain fields do. */
typedef struct poll_log {
    lpel_event *event;
    long raise_at;     /* raise the event on this call (0: never) */
    long calls, lasts; /* calls with last false, and with last true */
    /* A call with last false came after the last true one. */
    atomic_bool polling;
    bool polling_after_sleep; /* polling, seen by a task on another worker */
} poll_log;

/* Raises p->event on call raise_at, or on the last call before that (a
 * worker that lost its core while polling stops early, and then sleeps
 * until mail, which the event's task would never get). */
static bool logging_poll(void *arg, bool last)
{
    poll_log *p = arg;
    bool raise = p->raise_at && p->calls < p->raise_at && (last || p->calls + 1 == p->raise_at);
    if (last) {
        p->lasts++;
        atomic_store(&p->polling, false);
    } else {
        p->calls++;
        atomic_store(&p->polling, true);
    }
    if (raise) {
        p->calls = p->raise_at; /* raised once */
        lpel_event_raise(p->event);
    }
    return raise;
}

static void event_waiter(void *arg)
{
    poll_log *p = arg;
    lpel_event_wait(p->event, LPEL_BLOCK_INPUT);
}

/* The only task waits for an event that only the poll raises: the run ends
 * only if the idle worker polls, and the woken task runs on it. */
START_TEST(test_idle_poll_wakes_a_task)
{
    lpel_runtime *rt = make_runtime(1);
    poll_log p = {.event = lpel_event_create("the poll"), .raise_at = 5};
    ck_assert_int_eq(lpel_runtime_set_idle_poll(rt, logging_poll, &p, 1000L * 1000 * 1000),
                     LPEL_OK);
    spawn(rt, "waiter", 0, event_waiter, &p);
    ck_assert_int_eq(lpel_run(rt), LPEL_OK);
    ck_assert_int_eq(p.calls, 5);
    ck_assert_int_ge(p.lasts, 1);
    ck_assert_msg(!atomic_load(&p.polling), "a polling phase was not ended by a call with last set");
    ck_assert_int_eq(lpel_runtime_set_idle_poll(rt, logging_poll, &p, 1), LPEL_ESTATE);
    lpel_runtime_destroy(rt);
    lpel_event_destroy(p.event);
}
END_TEST

#if LPEL_HOOKS_ENABLED
/* The switch hooks of a one-worker run, in order: d dispatch, b block, m
 * mail (one thread: a plain buffer does). */
typedef struct switch_log {
    char seq[64];
    size_t n;
} switch_log;

static void note(void *wctx, char c)
{
    switch_log *l = wctx;
    if (l->n + 1 < sizeof l->seq)
        l->seq[l->n++] = c;
}
static void *note_start(void *ctx, unsigned id, unsigned workers)
{
    (void)id, (void)workers;
    return ctx;
}
static void note_mail(void *wctx) { note(wctx, 'm'); }
static void note_dispatch(void *wctx, void **slot, uint64_t task)
{
    (void)slot, (void)task;
    note(wctx, 'd');
}
static void note_block(void *wctx, void **slot, uint64_t task, lpel_block_cause cause)
{
    (void)slot, (void)task, (void)cause;
    note(wctx, 'b');
}
#endif

/* A task the poll woke became ready after the period before it ended, so
 * the worker says so (worker_mail) before it dispatches the task: a
 * monitor dates that dispatch anew instead of with the block's moment. */
START_TEST(test_idle_poll_reports_the_tasks_it_woke)
{
#if LPEL_HOOKS_ENABLED
    switch_log log = {0};
    lpel_hooks hooks = {.ctx = &log, .worker_start = note_start, .worker_mail = note_mail,
                        .task_dispatch = note_dispatch, .task_block = note_block};
    lpel_config cfg = lpel_config_default();
    cfg.num_workers = 1;
    cfg.pin_workers = false;
    cfg.hooks = &hooks;
    lpel_runtime *rt;
    ck_assert_int_eq(lpel_runtime_create(&rt, &cfg, NULL, 0), LPEL_OK);
    poll_log p = {.event = lpel_event_create("the poll"), .raise_at = 3};
    ck_assert_int_eq(lpel_runtime_set_idle_poll(rt, logging_poll, &p, 1000L * 1000 * 1000),
                     LPEL_OK);
    spawn(rt, "waiter", 0, event_waiter, &p);
    ck_assert_int_eq(lpel_run(rt), LPEL_OK);
    lpel_runtime_destroy(rt);
    lpel_event_destroy(p.event);
    ck_assert_uint_ge(log.n, 3);
    ck_assert_msg(memcmp(log.seq + log.n - 3, "bmd", 3) == 0, "hooks %.*s, expected ...bmd",
                  (int)log.n, log.seq);
#endif
}
END_TEST

static void sleepy_noting(void *arg)
{
    poll_log *p = arg;
    sleepy_task(NULL);
    p->polling_after_sleep = atomic_load(&p->polling);
}

/* With a window of 1 ms, idle worker 1 has stopped polling (and said so)
 * long before the 300 ms sleep of the task on worker 0 ends. */
START_TEST(test_idle_poll_ends_with_its_window)
{
    lpel_runtime *rt = make_runtime(2);
    ck_assert_int_eq(lpel_runtime_set_idle_poll(rt, logging_poll, NULL, 0), LPEL_EINVAL);
    poll_log p = {.raise_at = 0};
    ck_assert_int_eq(lpel_runtime_set_idle_poll(rt, logging_poll, &p, 1000L * 1000), LPEL_OK);
    spawn(rt, "sleepy", 0, sleepy_noting, &p);
    ck_assert_int_eq(lpel_run(rt), LPEL_OK);
    ck_assert_int_ge(p.lasts, 1);
    ck_assert_msg(!p.polling_after_sleep, "worker 1 still polled 300 ms into a 1 ms window");
    lpel_runtime_destroy(rt);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("lpel_worker");
    TCase *tc = tcase_create("worker");
    tcase_add_test(tc, test_sched_policy_lifo);
    tcase_add_test(tc, test_sched_default_fifo);
    tcase_add_test(tc, test_idle_worker_sleeps);
    tcase_add_test(tc, test_idle_poll_wakes_a_task);
    tcase_add_test(tc, test_idle_poll_reports_the_tasks_it_woke);
    tcase_add_test(tc, test_idle_poll_ends_with_its_window);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
