/*
 * test_wfb_shared.c - eq. 2's rule for an execution shared by several
 * inputs, on a real run: a synchro-cell joins the records of two inputs,
 * and a box works on the joined record.
 *
 *   {a=1} --fa--> {a} --+
 *                       +--[| {a}, {b} |]--> {a, b} --join--> {c}
 *   {b=2} --fb--> {b} --+
 *
 * Inputs A and B (the two records the run is given); the synchro-cell's
 * merge (MERGE, reading a and b) and join's execution are reached from
 * both, so each is charged half of them (docs/METRICS.md section 2,
 * latency):
 *
 *   L(A) = fa + merge / 2 + join / 2
 *   L(B) = fb + merge / 2 + join / 2
 *   L(A) + L(B) = fa + fb + merge + join     (every execution once)
 *
 * where each term is that execution's dispatched time, read from the
 * lifted trace's execution rows (wfb_exec), so the test works the
 * latencies out by hand from the measured times and compares them with
 * what the metrics computed through the message graph. The boxes spin
 * for a while so that no term is 0.
 */
#include "snet_test_util.h"
#include "wfb_test_util.h"

#include <check.h>
#include <lpel.h>
#include <mon.h>

#include <time.h>
#include <unistd.h>

/* Spins for about `us` microseconds of wall time. */
static void spin(long us)
{
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    do
        clock_gettime(CLOCK_MONOTONIC, &t);
    while ((t.tv_sec - t0.tv_sec) * 1000000L + (t.tv_nsec - t0.tv_nsec) / 1000 < us);
}

static int box_pass(snet_handle *h, snet_record *in)
{
    spin(300);
    snet_record *out = snet_record_new();
    const char *f = snet_record_has_field(in, "a") ? "a" : "b";
    snet_record_set_int(out, f, snet_record_int(in, f));
    return snet_out(h, out);
}

static int box_join(snet_handle *h, snet_record *in)
{
    spin(500);
    snet_record *out = snet_record_new();
    snet_record_set_int(out, "c", snet_record_int(in, "a") + snet_record_int(in, "b"));
    return snet_out(h, out);
}

static void put_int(snet_run *run, const char *field, long v)
{
    snet_record *r = snet_record_new();
    snet_record_set_int(r, field, v);
    snet_run_put(run, r);
}

/* Runs the network with monitoring into dir. */
static void record_run(const char *dir)
{
    mon_options mo = mon_options_default();
    char err[256];
    ck_assert_int_eq(mon_flags_parse("A", &mo.flags, err, sizeof err), 0);
    mo.dir = dir;
    mon *m;
    lpel_hooks hooks;
    char *argv[] = {"test_wfb_shared", NULL};
    ck_assert_msg(mon_open(&m, &mo, 1, argv, &hooks, err, sizeof err) == 0, "%s", err);
    snet_net *net = snet_serial(
        snet_parallel(snet_box("fa", "{a} -> {a}", box_pass, NULL),
                      snet_box("fb", "{b} -> {b}", box_pass, NULL)),
        snet_serial(snet_sync("[| {a}, {b} |]"), snet_box("join", "{a, b} -> {c}", box_join, NULL)));
    snet_config cfg = snet_config_default();
    cfg.lpel.num_workers = 2;
    cfg.lpel.hooks = mon_lpel_hooks(m);
    snet_run *run;
    ck_assert_int_eq(snet_run_create(&run, net, &cfg, err, sizeof err), SNET_OK);
    put_int(run, "a", 1);
    put_int(run, "b", 2);
    ck_assert_int_eq(snet_run_execute(run), SNET_OK);
    snet_record *o = snet_run_take_output(run);
    ck_assert_ptr_nonnull(o);
    ck_assert_int_eq(snet_record_int(o, "c"), 3);
    snet_record_free(o);
    ck_assert_ptr_null(snet_run_take_output(run));
    snet_run_destroy(run);
    snet_net_free(net);
    ck_assert_int_eq(mon_close(m), 0);
}

/* The execution time of the one execution of the task whose name ends in
 * `suffix`. */
static double exec_of(const wfb_graph *g, const char *suffix)
{
    double cost = NAN;
    size_t found = 0;
    for (size_t i = 0; i < wfb_exec_count(g); i++) {
        const wfb_exec *x = wfb_exec_at(g, i);
        const char *name = wfb_task_stats_at(g, x->task_index)->name;
        size_t n = name ? strlen(name) : 0, k = strlen(suffix);
        if (n >= k && !strcmp(name + n - k, suffix)) {
            cost = x->cost_s;
            found++;
        }
    }
    ck_assert_msg(found == 1, "%zu executions of %s", found, suffix);
    ck_assert_msg(cost > 0, "%s: no execution time", suffix);
    return cost;
}

/* The input whose first execution is the task ending in `suffix`: the
 * lifeline of the input fa (fb) read. */
static wfb_lifeline input_read_by(const wfb_graph *g, const wfb_message_report *r,
                                  const char *suffix)
{
    for (size_t i = 0; i < r->n_inputs; i++) {
        const uint32_t *edges;
        size_t n = wfb_out_edges(g, wfb_message_lifeline(r, i).input, &edges);
        for (size_t k = 0; k < n; k++) {
            const char *label = wfb_edge_label(g, edges[k]);
            size_t len = label ? strlen(label) : 0, s = strlen(suffix);
            if (len >= s && !strcmp(label + len - s, suffix))
                return wfb_message_lifeline(r, i);
        }
    }
    ck_abort_msg("no input read by %s", suffix);
    return (wfb_lifeline){0};
}

START_TEST(shared_executions_are_charged_in_halves)
{
    char dir[] = "/tmp/wfb_shared.XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    record_run(dir);
    wfb_graph *g = wfb_graph_new();
    wfb_error err;
    ck_assert_msg(wfb_import_lpel_trace(g, dir, &err) == 0, "%s", err.msg);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    ck_assert_int_eq(system(cmd), 0);

    wfb_message_report r;
    ck_assert_int_eq(wfb_message_metrics_compute(g, NULL, &r, &err), 0);
    ck_assert_uint_eq(r.n_inputs, 2);
    double fa = exec_of(g, ":fa"), fb = exec_of(g, ":fb"), merge = exec_of(g, ":sync"),
           join = exec_of(g, ":join");
    wfb_lifeline la = input_read_by(g, &r, ":fa"), lb = input_read_by(g, &r, ":fb");
    const wfb_lifeline *a = &la, *b = &lb;
    ck_assert_ptr_ne(a, b);
    assert_near(a->latency_s, fa + merge / 2 + join / 2);
    assert_near(b->latency_s, fb + merge / 2 + join / 2);
    assert_near(a->latency_s + b->latency_s, fa + fb + merge + join);
    /* without the rule each would carry all of merge and join: the sum would
     * exceed the execution time there was */
    ck_assert(a->latency_s < fa + merge + join);
    wfb_message_report_free(&r);
    wfb_graph_free(g);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("wfb_shared");
    TCase *t = tcase_create("eq2");
    tcase_set_timeout(t, 120);
    tcase_add_test(t, shared_executions_are_charged_in_halves);
    suite_add_tcase(s, t);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
