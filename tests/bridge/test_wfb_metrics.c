/*
 * test_wfb_metrics.c - every metric on hand-computed cases: activity
 * response/waiting/processing, synchronisation delay, load imbalance,
 * slowdown, speedup; message throughput, latency, end-to-end latency,
 * jitter, summaries, the histogram and lifeline anomalies.
 */
#include "wfb_test_util.h"

static const wfb_activity_metrics *metrics_of(const wfb_graph *g, const wfb_activity_report *r,
                                              const char *id)
{
    uint32_t v = vertex(g, id);
    for (size_t i = 0; i < r->n_activities; i++)
        if (r->activities[i].vertex == v)
            return &r->activities[i];
    ck_abort_msg("no metrics for %s", id);
    return NULL;
}

/* The synchronisation delay of a dependency a_i -> a_j, per edge. */
static double sync_delay_of(const wfb_graph *g, const wfb_activity_report *r, const char *parent,
                            const char *child)
{
    for (size_t i = 0; i < r->n_dependencies; i++)
        if (r->dependencies[i].parent == vertex(g, parent) &&
            r->dependencies[i].child == vertex(g, child))
            return r->dependencies[i].sync_delay_s;
    ck_abort_msg("no dependency %s -> %s", parent, child);
    return NAN;
}

/* activities.jsonl: A (0 submitted, 2 active, 10 completed) forks to B
 * (11, 12, 20) and C (10, 11, 15), which join in D (20, 21, failed 25). */
START_TEST(test_activity_metrics)
{
    wfb_graph *g = load_fixture(BRIDGE_FIXTURE("activities.jsonl"));
    wfb_activity_report r;
    wfb_error err;
    ck_assert_int_eq(wfb_activity_metrics_compute(g, &r, &err), 0);
    ck_assert_uint_eq(r.n_activities, 4);
    ck_assert_uint_eq(r.n_failed, 1);
    ck_assert_uint_eq(r.n_not_started, 0);
    assert_near(r.makespan_s, 25); /* measured: no makespan stated */
    ck_assert(!r.makespan_declared);
    const wfb_activity_metrics *a = metrics_of(g, &r, "A");
    assert_near(a->response_s, 10);
    assert_near(a->waiting_s, 2);
    assert_near(a->processing_s, 8);
    const wfb_activity_metrics *b = metrics_of(g, &r, "B");
    assert_near(b->response_s, 9);
    assert_near(b->waiting_s, 1);
    assert_near(b->processing_s, 8);
    const wfb_activity_metrics *d = metrics_of(g, &r, "D");
    assert_near(d->response_s, 5);
    assert_near(d->processing_s, 4);
    /* sync delay = submitted(child) - completed(parent), per dependency */
    ck_assert_uint_eq(r.n_dependencies, 4);
    assert_near(sync_delay_of(g, &r, "A", "B"), 1);
    assert_near(sync_delay_of(g, &r, "A", "C"), 0);
    assert_near(sync_delay_of(g, &r, "B", "D"), 0);
    assert_near(sync_delay_of(g, &r, "C", "D"), 5);
    ck_assert_uint_eq(r.sync_delay.n, 4);
    assert_near(r.sync_delay.mean, 1.5);
    /* fork A: branches B 8 s and C 4 s: mean 6, load imbalance 8 - 6 = 2,
     * slowdown factor 2 * 8 / (8 + 4) */
    ck_assert_uint_eq(r.n_forks, 1);
    ck_assert_uint_eq(r.forks[0].fork, vertex(g, "A"));
    ck_assert_uint_eq(r.forks[0].branches, 2);
    assert_near(r.forks[0].mean_s, 6);
    assert_near(r.forks[0].load_imbalance_s, 2);
    assert_near(r.forks[0].imbalance_pct, 100.0 / 3);
    assert_near(r.forks[0].slowdown_factor, 4.0 / 3);
    /* summaries: responses 10, 9, 5, 5 */
    ck_assert_uint_eq(r.response.n, 4);
    assert_near(r.response.min, 5);
    assert_near(r.response.median, 5);
    assert_near(r.response.max, 10);
    assert_near(r.response.mean, 7.25);
    wfb_activity_report_free(&r);
    wfb_graph_free(g);
}
END_TEST

START_TEST(test_makespan_stated_by_wfcommons)
{
    wfb_graph *g = load_fixture(SHARED_FIXTURE("wfcommons/helloworld-chain-5-chameleon.json"));
    wfb_activity_report r;
    wfb_error err;
    ck_assert_int_eq(wfb_activity_metrics_compute(g, &r, &err), 0);
    ck_assert(r.makespan_declared);
    assert_near(r.makespan_s, 661.0);
    ck_assert(isnan(r.makespan_measured_s)); /* no start times in the instance */
    ck_assert_uint_eq(r.n_not_started, 0);   /* untimed throughout: nothing expected */
    wfb_activity_report_free(&r);
    wfb_graph_free(g);
}
END_TEST

START_TEST(test_speedup)
{
    wfb_graph *slow = load_fixture(BRIDGE_FIXTURE("activities.jsonl"));
    wfb_graph *fast = load_fixture(BRIDGE_FIXTURE("activities_fast.jsonl"));
    double s;
    size_t common;
    wfb_error err;
    ck_assert_int_eq(wfb_speedup(slow, fast, &s, &common, &err), 0);
    ck_assert_uint_eq(common, 4); /* E only in the fast run */
    assert_near(s, 2);            /* span 2..25 against 1..12.5 */
    ck_assert_int_eq(wfb_speedup(fast, slow, &s, &common, &err), 0);
    assert_near(s, 0.5);
    /* Subgraph {B, D}: slow 12..25 (13 s) against fast 6..12.5 (6.5 s). */
    ck_assert_int_eq(wfb_speedup_subgraph(slow, fast, "^[BD]$", &s, &common, &err), 0);
    ck_assert_uint_eq(common, 2);
    assert_near(s, 2);
    /* Subgraph {C}: slow 11..15 (4 s) against fast 5.5..7.5 (2 s). */
    ck_assert_int_eq(wfb_speedup_subgraph(slow, fast, "C", &s, &common, &err), 0);
    ck_assert_uint_eq(common, 1);
    assert_near(s, 2);
    ck_assert_int_eq(wfb_speedup_subgraph(slow, fast, "Z", &s, &common, &err), 0);
    ck_assert_uint_eq(common, 0);
    ck_assert(isnan(s));
    ck_assert_int_eq(wfb_speedup_subgraph(slow, fast, "([", &s, &common, &err), -1);
    ck_assert(strstr(err.msg, "bad subgraph pattern"));
    wfb_graph_free(slow);
    wfb_graph_free(fast);
    /* Untimed runs compare their longest paths over the common subgraph. */
    wfb_graph *a = jsonl_graph("{\"type\":\"activity\",\"id\":\"x\",\"duration\":6}\n"
                               "{\"type\":\"activity\",\"id\":\"y\",\"duration\":4,\"depends\":[\"x\"]}\n");
    wfb_graph *b = jsonl_graph("{\"type\":\"activity\",\"id\":\"x\",\"duration\":2}\n"
                               "{\"type\":\"activity\",\"id\":\"y\",\"duration\":3,\"depends\":[\"x\"]}\n"
                               "{\"type\":\"activity\",\"id\":\"z\",\"duration\":50}\n");
    ck_assert_int_eq(wfb_speedup(a, b, &s, &common, &err), 0);
    ck_assert_uint_eq(common, 2);
    assert_near(s, 2); /* 10 / 5 */
    wfb_graph_free(a);
    wfb_graph_free(b);
}
END_TEST

START_TEST(test_summary_nearest_rank)
{
    double v[] = {5, 1, 4, 2, 3};
    wfb_summary s;
    wfb_summarise(v, 5, &s);
    assert_near(s.min, 1);
    assert_near(s.median, 3);
    assert_near(s.p95, 5);
    assert_near(s.max, 5);
    assert_near(s.mean, 3);
    assert_near(s.stddev, sqrt(2.0));
    double w[100];
    for (int i = 0; i < 100; i++)
        w[i] = 100 - i; /* 1..100 */
    wfb_summarise(w, 100, &s);
    assert_near(s.median, 50);
    assert_near(s.p95, 95);
    assert_near(s.p99, 99);
    wfb_summarise(NULL, 0, &s);
    ck_assert(isnan(s.median));
}
END_TEST

START_TEST(test_histogram_percentile)
{
    wfb_histogram *h = malloc(sizeof *h);
    wfb_histogram_init(h, 1e-9);
    for (int i = 1; i <= 1000; i++)
        wfb_histogram_add(h, i * 1e-3); /* 1 ms .. 1 s */
    double p99 = wfb_histogram_percentile(h, 99);
    ck_assert_msg(p99 >= 0.990 && p99 <= 0.990 * (1 + 2.0 / WFB_HIST_SUB), "p99 %g", p99);
    double p50 = wfb_histogram_percentile(h, 50);
    ck_assert_msg(p50 >= 0.5 && p50 <= 0.5 * (1 + 2.0 / WFB_HIST_SUB), "p50 %g", p50);
    wfb_histogram_add(h, 0); /* below the unit */
    ck_assert_uint_eq(h->zero, 1);
    ck_assert(sizeof *h < 64 * 1024); /* fixed memory */
    free(h);
}
END_TEST

/* Two inputs: i1 -> m1 -> {m2, m3} (one split execution) -> m2 deleted;
 * i2 -> n1 on another worker. */
static const char *const message_graph =
    "{\"type\":\"data\",\"id\":\"i1\",\"time\":0,\"location\":\"w0\"}\n"
    "{\"type\":\"data\",\"id\":\"i2\",\"time\":1,\"location\":\"w1\"}\n"
    "{\"type\":\"data\",\"id\":\"m1\",\"time\":2,\"location\":\"w0\"}\n"
    "{\"type\":\"data\",\"id\":\"m2\",\"time\":5,\"location\":\"w0\"}\n"
    "{\"type\":\"data\",\"id\":\"m3\",\"time\":5,\"location\":\"w0\"}\n"
    "{\"type\":\"data\",\"id\":\"x\",\"time\":6,\"location\":\"w0\"}\n"
    "{\"type\":\"data\",\"id\":\"n1\",\"time\":5,\"location\":\"w1\"}\n"
    "{\"type\":\"mutation\",\"kind\":\"CONVERT\",\"from\":\"i1\",\"to\":\"m1\",\"cost\":2,\"exec\":0}\n"
    "{\"type\":\"mutation\",\"kind\":\"SPLIT\",\"from\":\"m1\",\"to\":\"m2\",\"cost\":3,\"exec\":1}\n"
    "{\"type\":\"mutation\",\"kind\":\"SPLIT\",\"from\":\"m1\",\"to\":\"m3\",\"cost\":3,\"exec\":1}\n"
    "{\"type\":\"mutation\",\"kind\":\"DELETE\",\"from\":\"m2\",\"to\":\"x\",\"cost\":1,\"exec\":2}\n"
    "{\"type\":\"mutation\",\"kind\":\"CONVERT\",\"from\":\"i2\",\"to\":\"n1\",\"cost\":4,\"exec\":3}\n";

START_TEST(test_message_metrics)
{
    wfb_graph *g = jsonl_graph(message_graph);
    wfb_message_report r;
    wfb_error err;
    ck_assert_int_eq(wfb_message_metrics_compute(g, NULL, &r, &err), 0);
    ck_assert_uint_eq(r.n_inputs, 2);
    wfb_lifeline line1 = wfb_message_lifeline(&r, 0), line2 = wfb_message_lifeline(&r, 1);
    const wfb_lifeline *l1 = &line1, *l2 = &line2;
    ck_assert_uint_eq(l1->input, vertex(g, "i1"));
    assert_near(l1->latency_s, 6); /* 2 + 3 (split counted once) + 1 */
    assert_near(l1->end_to_end_s, 6);
    ck_assert_uint_eq(l1->descendants, 4);
    assert_near(l2->latency_s, 4);
    assert_near(l2->end_to_end_s, 4);
    /* An event file has no worker spans: no eq. 1 throughput, and why. */
    ck_assert(isnan(r.total.throughput_per_s));
    ck_assert_ptr_nonnull(r.total.span_unknown_why);
    /* location w0 executed 2 + 3 + 1, w1 executed 4: busy-time T = 2 / 6 */
    assert_near(r.total.busy_max_s, 6);
    assert_near(r.total.throughput_busy_per_s, 2.0 / 6);
    assert_near(r.total.exec_s, 10);
    assert_near(r.total.jitter_s, 1); /* population stddev of {6, 4} */
    assert_near(r.total.latency.min, 4);
    assert_near(r.total.latency.max, 6);
    ck_assert_uint_eq(r.n_runs, 0);
    ck_assert_uint_eq(r.n_missing, 0);
    ck_assert_double_eq(r.timeout_percentile, 99);
    wfb_message_report_free(&r);
    wfb_graph_free(g);
}
END_TEST

START_TEST(test_lifeline_anomalies)
{
    /* 100 inputs of latency 1 s and one of 100 s; one input's child was
     * never written (no time). */
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    for (int i = 0; i < 101; i++) {
        fprintf(out, "{\"type\":\"data\",\"id\":\"in%d\",\"time\":%d}\n", i, i);
        if (i == 7)
            fprintf(out, "{\"type\":\"data\",\"id\":\"out%d\"}\n", i);
        else
            fprintf(out, "{\"type\":\"data\",\"id\":\"out%d\",\"time\":%d}\n", i, i + 1);
        fprintf(out, "{\"type\":\"mutation\",\"kind\":\"CONVERT\",\"from\":\"in%d\","
                     "\"to\":\"out%d\",\"cost\":%d}\n",
                i, i, i == 42 ? 100 : 1);
    }
    fclose(out);
    wfb_graph *g = jsonl_graph(buf);
    free(buf);
    wfb_message_report r;
    wfb_error err;
    wfb_message_options opt = {.timeout_percentile = 99};
    ck_assert_int_eq(wfb_message_metrics_compute(g, &opt, &r, &err), 0);
    ck_assert_uint_eq(r.n_inputs, 101);
    ck_assert_uint_eq(r.n_timed_out, 1);
    ck_assert_uint_eq(r.n_missing, 1);
    for (size_t i = 0; i < r.n_inputs; i++) {
        const char *id = wfb_vertex_id(g, wfb_message_lifeline(&r, i).input);
        ck_assert_int_eq(wfb_message_lifeline(&r, i).timed_out, !strcmp(id, "in42"));
        ck_assert_int_eq(wfb_message_lifeline(&r, i).missing_events, !strcmp(id, "in7"));
    }
    ck_assert(r.timeout_s >= 1 && r.timeout_s < 1.05);
    assert_near(r.total.latency.p99, 1);
    assert_near(r.total.latency.max, 100);
    wfb_message_report_free(&r);
    wfb_graph_free(g);
}
END_TEST

START_TEST(test_activity_anomalies)
{
    wfb_graph *g = jsonl_graph(
        "{\"type\":\"activity\",\"id\":\"ok\",\"event\":\"submitted\",\"time\":0}\n"
        "{\"type\":\"activity\",\"id\":\"ok\",\"event\":\"active\",\"time\":1}\n"
        "{\"type\":\"activity\",\"id\":\"ok\",\"event\":\"completed\",\"time\":2}\n"
        "{\"type\":\"activity\",\"id\":\"never_ran\",\"event\":\"submitted\",\"time\":0}\n"
        "{\"type\":\"activity\",\"id\":\"never_ended\",\"event\":\"active\",\"time\":0}\n"
        "{\"type\":\"activity\",\"id\":\"untimed\",\"duration\":3}\n");
    uint32_t *v;
    size_t n = wfb_activity_anomalies(g, &v);
    ck_assert_uint_eq(n, 2);
    ck_assert_str_eq(wfb_vertex_id(g, v[0]), "never_ran");
    ck_assert_str_eq(wfb_vertex_id(g, v[1]), "never_ended");
    free(v);
    wfb_graph_free(g);
    /* Times going backwards within an activity are an error of the input,
     * with its line; so is a negative duration. */
    wfb_error err;
    ck_assert_int_eq(load_jsonl_text(
                         "{\"type\":\"activity\",\"id\":\"b\",\"event\":\"active\",\"time\":5}\n"
                         "{\"type\":\"activity\",\"id\":\"b\",\"event\":\"completed\",\"time\":4}\n",
                         &g, &err),
                     -1);
    ck_assert_int_eq(err.line, 2);
    ck_assert_msg(strstr(err.msg, "end at 4 is before its active at 5"), "%s", err.msg);
    wfb_graph_free(g);
    ck_assert_int_eq(load_jsonl_text("{\"type\":\"activity\",\"id\":\"b\",\"duration\":-1}\n", &g,
                                     &err),
                     -1);
    ck_assert_int_eq(err.line, 1);
    wfb_graph_free(g);
    /* A later attempt: active again after the end starts over. */
    g = jsonl_graph("{\"type\":\"activity\",\"id\":\"r\",\"event\":\"active\",\"time\":1}\n"
                    "{\"type\":\"activity\",\"id\":\"r\",\"event\":\"failed\",\"time\":2}\n"
                    "{\"type\":\"activity\",\"id\":\"r\",\"event\":\"active\",\"time\":3}\n"
                    "{\"type\":\"activity\",\"id\":\"r\",\"event\":\"completed\",\"time\":5}\n");
    assert_near(wfb_vertex_weight(g, vertex(g, "r")), 2);
    ck_assert(!wfb_vertex_failed(g, vertex(g, "r")));
    wfb_graph_free(g);
}
END_TEST

static Suite *metrics_suite(void)
{
    Suite *s = suite_create("wfb_metrics");
    TCase *t = tcase_create("metrics");
    tcase_add_test(t, test_activity_metrics);
    tcase_add_test(t, test_makespan_stated_by_wfcommons);
    tcase_add_test(t, test_speedup);
    tcase_add_test(t, test_summary_nearest_rank);
    tcase_add_test(t, test_histogram_percentile);
    tcase_add_test(t, test_message_metrics);
    tcase_add_test(t, test_lifeline_anomalies);
    tcase_add_test(t, test_activity_anomalies);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(metrics_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
