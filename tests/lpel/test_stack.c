/*
 * test_stack.c - unit tests of LPEL's task stacks (stack.c): deep recursion on many tasks, and stack overflow
 * reported with and without guard pages, within bounds.
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

int main(void)
{
    Suite *s = suite_create("lpel_stack");
    TCase *tc = tcase_create("stack");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, test_deep_recursion_many_tasks);
    tcase_add_test(tc, test_stack_overflow_reported);
    tcase_add_test(tc, test_stack_overflow_without_guard_page);
    tcase_add_test(tc, test_stack_overflow_bounded);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
