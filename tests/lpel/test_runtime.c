/*
 * test_runtime.c - unit tests of LPEL's the runtime (runtime.c): configuration checks, an empty run, the core
 * count and pinning, the oversubscription warning, and the hook table
 * seeing every event.
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

static void *queue_create(void *config, unsigned id)
{
    (void)config;
    (void)id;
    return NULL;
}

START_TEST(test_bad_config)
{
    lpel_sched_policy broken = {.create = queue_create};
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

static void count_run(void *arg) { ++*(int *)arg; }

START_TEST(test_core_count)
{
    ck_assert_uint_ge(lpel_core_count(), 1);
    lpel_config cfg = lpel_config_default();
    cfg.pin_workers = true;
    lpel_runtime *rt;
    ck_assert_int_eq(lpel_runtime_create(&rt, &cfg, NULL, 0), LPEL_OK);
    ck_assert_uint_eq(lpel_runtime_num_workers(rt), lpel_core_count());
    int ran = 0;
    spawn(rt, "pinned", LPEL_ANY_WORKER, count_run, &ran);
    ck_assert_int_eq(lpel_run(rt), LPEL_OK);
    ck_assert_int_eq(ran, 1);
    lpel_runtime_destroy(rt);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("lpel_runtime");
    TCase *tc = tcase_create("runtime");
    tcase_add_test(tc, test_oversubscription_warns);
    tcase_add_test(tc, test_bad_config);
    tcase_add_test(tc, test_empty_run);
    tcase_add_test(tc, test_hooks_count_events);
    tcase_add_test(tc, test_core_count);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
