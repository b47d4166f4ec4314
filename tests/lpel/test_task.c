/*
 * test_task.c - unit tests of LPEL's tasks (task.c): placement (round robin, hints, a placement policy), a
 * million tasks over a run and a million alive at once (tag "large"), and
 * the task and runtime a task sees of itself.
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

/* ---- what a task sees of itself ------------------------------------------ */

typedef struct self_seen {
    lpel_runtime *rt;
    char name[32]; /* a copy: the task's name lives as long as the task */
} self_seen;

static void look_at_self(void *arg)
{
    self_seen *seen = arg;
    seen->rt = lpel_runtime_self();
    snprintf(seen->name, sizeof seen->name, "%s", lpel_task_name(lpel_task_self()));
}

START_TEST(test_task_knows_itself)
{
    ck_assert_ptr_null(lpel_runtime_self()); /* not in a task */
    lpel_runtime *rt = make_runtime(1);
    self_seen seen = {NULL, ""};
    spawn(rt, "narcissus", 0, look_at_self, &seen);
    ck_assert_int_eq(lpel_run(rt), LPEL_OK);
    ck_assert_ptr_eq(seen.rt, rt);
    ck_assert_str_eq(seen.name, "narcissus");
    lpel_runtime_destroy(rt);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("lpel_task");
    TCase *tc = tcase_create("task");
    tcase_add_test(tc, test_placement_round_robin_and_hint);
    tcase_add_test(tc, test_placement_policy);
    tcase_add_test(tc, test_task_knows_itself);
    suite_add_tcase(s, tc);

    TCase *many = tcase_create("many");
    tcase_set_timeout(many, 600);
    tcase_add_test(many, test_million_tasks);
    suite_add_tcase(s, many);

    /* ~4.5 GB of memory: its own CTest test (tag "large"), run alone. */
    TCase *crowd = tcase_create("crowd");
    tcase_set_tags(crowd, "large");
    tcase_set_timeout(crowd, 600);
    tcase_add_test(crowd, test_million_live_tasks);
    suite_add_tcase(s, crowd);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
