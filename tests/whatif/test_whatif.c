/*
 * test_whatif.c - the what-if model, replay and profile (whatif/) on runs
 * whose answers are worked out on paper (whatif_fixture.c, and the DAG
 * below): a two-stage pipeline where making the faster stage faster gains
 * nothing, a fork-join where only the slowest branch matters, two tasks
 * sharing a worker, back-pressure through a stream of two slots, and a
 * DAG on one host of two slots.
 */
#include "whatif.h"
#include "whatif_fixture.h"

#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const double US = 1e-6;

/* ---- the fixtures' events as a trace source ------------------------------- */

typedef struct source {
    const whatif_fixture *f;
    size_t at;
} source;

static int next_event(void *ctx, mon_event *ev)
{
    source *s = ctx;
    if (s->at == s->f->n)
        return 0;
    *ev = s->f->ev[s->at++];
    return 1;
}

static whatif_model *model_of(const char *name, whatif_fixture *f)
{
    ck_assert_int_eq(whatif_fixture_make(name, f), 0);
    source s = {f, 0};
    whatif_model *m = NULL;
    wfb_error err;
    ck_assert_msg(whatif_model_from_trace(next_event, &s, &m, &err) == 0, "%s", err.msg);
    return m;
}

static wfb_graph *graph_of(const whatif_fixture *f)
{
    wfb_graph *g = wfb_graph_new();
    wfb_lifter *l = wfb_lifter_new(g);
    wfb_error err;
    ck_assert_ptr_nonnull(l);
    for (size_t i = 0; i < f->n; i++)
        ck_assert_int_eq(wfb_lifter_feed_mon(l, &f->ev[i], &err), 0);
    ck_assert_msg(wfb_lifter_finish(l, &err) == 0, "%s", err.msg);
    return g;
}

static size_t task_named(const whatif_model *m, const char *name)
{
    for (size_t t = 0; t < whatif_model_task_count(m); t++)
        if (whatif_model_task_name(m, t) && !strcmp(whatif_model_task_name(m, t), name))
            return t;
    ck_abort_msg("no task %s", name);
    return 0;
}

/* The replay with the named task's work times f. */
static double replay_with(whatif_model *m, const char *name, double f)
{
    size_t n = whatif_model_task_count(m);
    double *factor = malloc(n * sizeof *factor);
    for (size_t t = 0; t < n; t++)
        factor[t] = 1;
    factor[task_named(m, name)] = f;
    whatif_scenario s = {.factor = factor};
    double r = whatif_replay(m, &s);
    free(factor);
    return r;
}

#define ck_assert_near(x, y) ck_assert_double_eq_tol((x), (y), 1e-9)

/* ---- the replay --------------------------------------------------------- */

START_TEST(pipeline_faster_stage_gains_nothing)
{
    whatif_fixture f;
    whatif_model *m = model_of("pipeline", &f);
    ck_assert_near(whatif_model_measured_span(m, NULL), 402 * US);
    ck_assert_near(whatif_replay(m, NULL), 401 * US);
    ck_assert_near(whatif_model_task_work(m, task_named(m, "S2:A")), 400 * US);
    ck_assert_near(whatif_model_task_work(m, task_named(m, "S3:B")), 160 * US);
    /* B, the faster stage, made faster or free: still A's pace and A's end */
    ck_assert_near(replay_with(m, "S3:B", 0.5), 401 * US);
    ck_assert_near(replay_with(m, "S3:B", 0.0), 401 * US);
    /* A 50 % faster: A ends at 201, B's last item at 151 + 40 */
    ck_assert_near(replay_with(m, "S2:A", 0.5), 201 * US);
    /* A free: B alone, 1 + 4 x 40 */
    ck_assert_near(replay_with(m, "S2:A", 0.0), 161 * US);
    whatif_model_free(m);
    whatif_fixture_free(&f);
}
END_TEST

START_TEST(forkjoin_only_the_slowest_branch)
{
    whatif_fixture f;
    whatif_model *m = model_of("forkjoin", &f);
    ck_assert_near(whatif_model_measured_span(m, NULL), 302 * US);
    ck_assert_near(whatif_replay(m, NULL), 300 * US);
    ck_assert_near(replay_with(m, "S2:X1", 0.0), 300 * US);
    ck_assert_near(replay_with(m, "S3:X2", 0.5), 300 * US);
    ck_assert_near(replay_with(m, "S4:X3", 0.5), 200 * US); /* X2 is the slowest then */
    ck_assert_near(replay_with(m, "S4:X3", 0.0), 200 * US);
    whatif_model_free(m);
    whatif_fixture_free(&f);
}
END_TEST

START_TEST(shared_worker_takes_turns)
{
    whatif_fixture f;
    whatif_model *m = model_of("shared", &f);
    ck_assert_near(whatif_replay(m, NULL), 801 * US);
    ck_assert_near(replay_with(m, "S2:A", 0.5), 601 * US);
    ck_assert_near(replay_with(m, "S3:B", 0.5), 601 * US);
    ck_assert_near(replay_with(m, "S2:A", 0.0), 401 * US);
    whatif_model_free(m);
    whatif_fixture_free(&f);
}
END_TEST

START_TEST(backpressure_holds_the_writer)
{
    whatif_fixture f;
    whatif_model *m = model_of("backpressure", &f);
    ck_assert_near(whatif_model_measured_span(m, NULL), 712 * US);
    ck_assert_near(whatif_replay(m, NULL), 710 * US);
    /* C faster: its reads free P's slots earlier, so P ends and D starts earlier */
    ck_assert_near(replay_with(m, "S2:C", 0.5), 560 * US);
    /* P free: still held by C's reads (k - 2) */
    ck_assert_near(replay_with(m, "S1:P", 0.0), 700 * US);
    ck_assert_near(replay_with(m, "S3:D", 0.5), 610 * US);
    whatif_model_free(m);
    whatif_fixture_free(&f);
}
END_TEST

START_TEST(several_runs_refused)
{
    whatif_fixture f;
    ck_assert_int_eq(whatif_fixture_make("tworuns", &f), 0);
    source s = {&f, 0};
    whatif_model *m = NULL;
    wfb_error err;
    ck_assert_int_eq(whatif_model_from_trace(next_event, &s, &m, &err), -1);
    ck_assert_ptr_null(m);
    ck_assert_ptr_nonnull(strstr(err.msg, "several runs"));
    whatif_fixture_free(&f);
}
END_TEST

START_TEST(placement_moves_a_task)
{
    /* the replay also places tasks elsewhere (the mapping advice's use): B
     * of "shared" on worker 1 no longer waits for A's worker */
    whatif_fixture f;
    whatif_model *m = model_of("shared", &f);
    size_t n = whatif_model_task_count(m);
    uint32_t *where = malloc(n * sizeof *where);
    for (size_t t = 0; t < n; t++)
        where[t] = whatif_model_task_worker(m, t);
    where[task_named(m, "S3:B")] = 1;
    whatif_scenario s = {.where = where};
    ck_assert_near(whatif_replay(m, &s), 401 * US);
    free(where);
    whatif_model_free(m);
    whatif_fixture_free(&f);
}
END_TEST

/* ---- the profile -------------------------------------------------------- */

static void question(const char *trace, const char *pattern, double x, whatif_profile *p,
                     wfb_graph **g, whatif_model **m)
{
    whatif_fixture f;
    *m = model_of(trace, &f);
    *g = graph_of(&f);
    whatif_fixture_free(&f);
    whatif_options o = {.n_faster = 1, .faster_pct = {x}, .tasks_pattern = pattern};
    wfb_error err;
    ck_assert_msg(whatif_profile_compute(*m, *g, &o, p, &err) == 0, "%s", err.msg);
    ck_assert_int_eq(p->n_rows, 1);
}

START_TEST(profile_eq1_and_eq2)
{
    whatif_profile p;
    wfb_graph *g;
    whatif_model *m;
    question("pipeline", ":A$", 50, &p, &g, &m);
    ck_assert_int_eq(p.inputs, 4);
    ck_assert_near(p.span_s, 402 * US);
    ck_assert_near(p.unexplained_s, 1 * US);
    ck_assert_near(p.throughput_per_s, 4 / (402 * US));
    ck_assert_near(p.latency_mean_s, 140 * US); /* A's 100 + B's 40 */
    const whatif_prediction *x = &p.rows[0].at[0];
    ck_assert_near(x->span_s, 202 * US); /* the replay's 201 + 1 */
    ck_assert_near(x->speedup, 402.0 / 202.0);
    ck_assert_near(x->throughput_per_s, 4 / (202 * US));
    ck_assert_near(x->latency_mean_s, 90 * US);
    ck_assert_near(x->latency_p95_s, 90 * US);
    whatif_profile_free(&p);
    whatif_model_free(m);
    wfb_graph_free(g);

    question("pipeline", ":B$", 50, &p, &g, &m);
    ck_assert_near(p.rows[0].at[0].speedup, 1.0);
    ck_assert_near(p.rows[0].at[0].latency_mean_s, 120 * US);
    whatif_profile_free(&p);
    whatif_model_free(m);
    wfb_graph_free(g);
}
END_TEST

START_TEST(profile_ranks_kinds)
{
    whatif_fixture f;
    whatif_model *m = model_of("forkjoin", &f);
    wfb_graph *g = graph_of(&f);
    whatif_fixture_free(&f);
    whatif_profile p;
    wfb_error err;
    ck_assert_msg(whatif_profile_compute(m, g, NULL, &p, &err) == 0, "%s", err.msg);
    ck_assert_int_eq(p.n_faster, 4); /* 10, 25, 50, 100 */
    ck_assert_near(p.faster_pct[3], 100);
    /* X3 first: at 100 % the join waits for X2 (302/202); the others gain nothing */
    ck_assert_str_eq(p.rows[0].label, "X3");
    ck_assert_near(p.rows[0].at[3].speedup, 302.0 / 202.0);
    ck_assert_near(p.rows[0].at[0].speedup, 302.0 / 272.0); /* 10 %: X3 at 270 */
    for (size_t i = 1; i < p.n_kinds; i++)
        ck_assert_near(p.rows[i].at[3].speedup, 1.0);
    ck_assert_int_eq(p.n_kinds, 5); /* src, X1, X2, X3, join */
    whatif_profile_free(&p);
    whatif_model_free(m);
    wfb_graph_free(g);
}
END_TEST

START_TEST(profile_bad_patterns)
{
    whatif_fixture f;
    whatif_model *m = model_of("pipeline", &f);
    whatif_fixture_free(&f);
    whatif_profile p;
    wfb_error err;
    whatif_options o = {.tasks_pattern = "nothing-like-this"};
    ck_assert_int_eq(whatif_profile_compute(m, NULL, &o, &p, &err), -1);
    ck_assert_ptr_nonnull(strstr(err.msg, "no task's name matches"));
    o.tasks_pattern = "(unclosed";
    ck_assert_int_eq(whatif_profile_compute(m, NULL, &o, &p, &err), -1);
    ck_assert_ptr_nonnull(strstr(err.msg, "bad tasks pattern"));
    whatif_model_free(m);
}
END_TEST

/* ---- an activity DAG: one host of two slots ------------------------------- */

/* a (10 s) before b1 (5 s), b2 (8 s), b3 (5 s), all before c (1 s), all on
 * host h, which ran two at a time: b1 and b2 at 10, b3 when b1 ended at
 * 15, c at 20; makespan 21. b2 50 % faster (4 s): b3 starts at 14, c at
 * 19: 21/20. b3 50 % (2.5 s): c waits for b2 until 18: 21/19. */
static const char DAG[] =
    "{\"type\":\"activity\",\"id\":\"a\",\"event\":\"active\",\"time\":0,\"resources\":\"h\"}\n"
    "{\"type\":\"activity\",\"id\":\"a\",\"event\":\"completed\",\"time\":10}\n"
    "{\"type\":\"activity\",\"id\":\"b1\",\"event\":\"active\",\"time\":10,\"depends\":[\"a\"],\"resources\":\"h\"}\n"
    "{\"type\":\"activity\",\"id\":\"b1\",\"event\":\"completed\",\"time\":15}\n"
    "{\"type\":\"activity\",\"id\":\"b2\",\"event\":\"active\",\"time\":10,\"depends\":[\"a\"],\"resources\":\"h\"}\n"
    "{\"type\":\"activity\",\"id\":\"b2\",\"event\":\"completed\",\"time\":18}\n"
    "{\"type\":\"activity\",\"id\":\"b3\",\"event\":\"active\",\"time\":15,\"depends\":[\"a\"],\"resources\":\"h\"}\n"
    "{\"type\":\"activity\",\"id\":\"b3\",\"event\":\"completed\",\"time\":20}\n"
    "{\"type\":\"activity\",\"id\":\"c\",\"event\":\"active\",\"time\":20,\"depends\":[\"b1\",\"b2\",\"b3\"],\"resources\":\"h\"}\n"
    "{\"type\":\"activity\",\"id\":\"c\",\"event\":\"completed\",\"time\":21}\n";

static double dag_speedup(const char *activity, double x)
{
    FILE *in = fmemopen((void *)DAG, sizeof DAG - 1, "r");
    wfb_graph *g = wfb_graph_new();
    wfb_error err;
    ck_assert_msg(wfb_import_jsonl(g, in, "dag.jsonl", NULL, &err) == 0, "%s", err.msg);
    fclose(in);
    whatif_model *m;
    ck_assert_msg(whatif_model_from_activities(g, &m, &err) == 0, "%s", err.msg);
    ck_assert_near(whatif_model_measured_span(m, NULL), 21);
    ck_assert_near(whatif_replay(m, NULL), 21);
    whatif_options o = {.n_faster = 1, .faster_pct = {x}, .tasks_pattern = activity};
    whatif_profile p;
    ck_assert_msg(whatif_profile_compute(m, g, &o, &p, &err) == 0, "%s", err.msg);
    double s = p.rows[0].at[0].speedup;
    ck_assert(isnan(p.throughput_per_s)); /* a DAG has no inputs */
    whatif_profile_free(&p);
    whatif_model_free(m);
    wfb_graph_free(g);
    return s;
}

START_TEST(dag_slots_of_a_host)
{
    ck_assert_near(dag_speedup("^b2$", 50), 21.0 / 20.0);
    ck_assert_near(dag_speedup("^b3$", 50), 21.0 / 19.0);
    ck_assert_near(dag_speedup("^b1$", 100), 21.0 / 19.0);
    ck_assert_near(dag_speedup("^a$", 50), 21.0 / 16.0);
}
END_TEST

static Suite *whatif_suite(void)
{
    Suite *s = suite_create("whatif");
    TCase *r = tcase_create("replay");
    tcase_add_test(r, pipeline_faster_stage_gains_nothing);
    tcase_add_test(r, forkjoin_only_the_slowest_branch);
    tcase_add_test(r, shared_worker_takes_turns);
    tcase_add_test(r, backpressure_holds_the_writer);
    tcase_add_test(r, several_runs_refused);
    tcase_add_test(r, placement_moves_a_task);
    suite_add_tcase(s, r);
    TCase *p = tcase_create("profile");
    tcase_add_test(p, profile_eq1_and_eq2);
    tcase_add_test(p, profile_ranks_kinds);
    tcase_add_test(p, profile_bad_patterns);
    tcase_add_test(p, dag_slots_of_a_host);
    suite_add_tcase(s, p);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(whatif_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
