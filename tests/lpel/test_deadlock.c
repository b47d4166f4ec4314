/*
 * test_deadlock.c - unit tests of LPEL's deadlock detection (deadlock.c): a cycle on one and on two workers, a
 * full stream, and the run unwinding after the report.
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

int main(void)
{
    Suite *s = suite_create("lpel_deadlock");
    TCase *tc = tcase_create("deadlock");
    tcase_add_test(tc, test_deadlock_one_worker);
    tcase_add_test(tc, test_deadlock_two_workers);
    tcase_add_test(tc, test_deadlock_full_stream);
    tcase_add_test(tc, test_deadlock_unwinds);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
