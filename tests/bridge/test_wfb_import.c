/*
 * test_wfb_import.c - the WfCommons and NetLogger importers on the real
 * fixtures (known critical paths and times), the BP line parser, user
 * mappings, format detection and time parsing.
 */
#include "wfb_test_util.h"

#include <unistd.h>

/* ---- WfCommons ---- */

typedef struct wfc_case {
    const char *file;
    size_t tasks, edges;
    double length;
    const char *path;
} wfc_case;

/* Lengths and paths checked independently (a short Python script over the
 * JSON) when the fixtures were added. */
static const wfc_case wfc_cases[] = {
    {"wfcommons/helloworld-chain-5-chameleon.json", 5, 4, 501.24,
     "cpuhog_chain_00000001,cpuhog_chain_00000002,cpuhog_chain_00000003,cpuhog_chain_00000004,"
     "cpuhog_chain_00000005"},
    {"wfcommons/helloworld-forkjoin-10-chameleon.json", 10, 16, 307.36,
     "cpuhog_forkjoin_00000001,cpuhog_forkjoin_00000002,cpuhog_forkjoin_00000010"},
    {"wfcommons/blast-chameleon-small-001.json", 43, 120, 10.413171,
     "split_fasta_ID000001,blastall_ID000014,cat_blast_ID000042"},
    {"wfcommons/srasearch-chameleon-10a-001.json", 22, 30, 1005.858,
     "fasterq-dump_ID0000020,bowtie2_ID0000021,merge_ID0000022"},
};

START_TEST(test_wfcommons_critical_paths)
{
    const wfc_case *c = &wfc_cases[_i];
    char path[512];
    snprintf(path, sizeof path, "%s/%s", WFB_FIXTURES, c->file);
    ck_assert_int_eq(wfb_format_detect(path), WFB_FORMAT_WFCOMMONS);
    wfb_graph *g = load_fixture(path);
    ck_assert_uint_eq(wfb_vertex_count(g), c->tasks);
    ck_assert_uint_eq(wfb_edge_count(g), c->edges);
    wfb_path lp, ae;
    wfb_error err;
    ck_assert_int_eq(wfb_longest_path(g, &lp, &err), 0);
    ck_assert_int_eq(wfb_as_executed_path(g, &ae, &err), 0);
    ck_assert_double_eq_tol(lp.length_s, c->length, 1e-6);
    assert_path(g, &lp, c->path);
    ck_assert(!ae.valid); /* WfFormat 1.5 tasks have runtimes, not start times */
    wfb_path_free(&lp);
    wfb_path_free(&ae);
    wfb_graph_free(g);
}
END_TEST

START_TEST(test_wfcommons_attributes)
{
    wfb_graph *g = load_fixture(SHARED_FIXTURE("wfcommons/helloworld-chain-5-chameleon.json"));
    uint32_t v = vertex(g, "cpuhog_chain_00000001");
    ck_assert_int_eq(wfb_vertex_kind_of(g, v), WFB_VERTEX_ACTIVITY);
    assert_near(wfb_vertex_weight(g, v), 100.376);
    ck_assert_str_eq(wfb_vertex_attr(g, v, WFB_ATTR_RESOURCES), "ubuntu");
    ck_assert_str_eq(wfb_vertex_attr(g, v, WFB_ATTR_LABEL), "cpuhog_chain_00000001");
    ck_assert_uint_eq(wfb_vertex_size(g, v), 16666667); /* its output file */
    wfb_graph_free(g);
}
END_TEST

static int wfc_text(const char *text, wfb_error *err)
{
    FILE *in = fmemopen((void *)text, strlen(text), "r");
    wfb_graph *g = wfb_graph_new();
    int rc = wfb_import_wfcommons(g, in, "inline.json", err);
    fclose(in);
    wfb_graph_free(g);
    return rc;
}

START_TEST(test_wfcommons_errors)
{
    wfb_error err;
    ck_assert_int_eq(wfc_text("{\n\"workflow\": {\n  \"tasks\": [\n}", &err), -1);
    ck_assert_int_eq(err.line, 4);
    ck_assert(strstr(err.msg, "bad JSON"));
    ck_assert_int_eq(wfc_text("{\"workflow\": {\"specification\": {\"tasks\": [\n"
                              "{\"id\": \"a\", \"parents\": [], \"children\": [\"b\"]}\n"
                              "]}}}",
                              &err),
                     -1);
    ck_assert(strstr(err.msg, "undefined vertex 'b'"));
    ck_assert_int_eq(err.line, 2);
    ck_assert_int_eq(wfc_text("{\"workflow\": {\"specification\": {\"tasks\": [\n"
                              "{\"id\": \"a\", \"parents\": [\"b\"]},\n"
                              "{\"id\": \"b\", \"parents\": [\"a\"]}\n"
                              "]}}}",
                              &err),
                     -1);
    ck_assert(strstr(err.msg, "cycle"));
    ck_assert_int_ge(err.line, 2);
    ck_assert_int_eq(wfc_text("{\"name\": \"x\"}", &err), -1);
    ck_assert(strstr(err.msg, "not a WfFormat instance"));
}
END_TEST

START_TEST(test_wfcommons_start_times)
{
    /* With executedAt per task the as-executed path exists. */
    wfb_error err;
    const char *text =
        "{\"workflow\": {\"specification\": {\"tasks\": [\n"
        "{\"id\": \"a\", \"children\": [\"b\", \"c\"]}, {\"id\": \"b\"}, {\"id\": \"c\"}]},\n"
        "\"execution\": {\"tasks\": [\n"
        "{\"id\": \"a\", \"runtimeInSeconds\": 2, \"executedAt\": \"2023-01-01T00:00:00Z\"},\n"
        "{\"id\": \"b\", \"runtimeInSeconds\": 5, \"executedAt\": \"2023-01-01T00:00:10Z\"},\n"
        "{\"id\": \"c\", \"runtimeInSeconds\": 9, \"executedAt\": \"2023-01-01T00:00:02Z\"}]}}}";
    FILE *in = fmemopen((void *)text, strlen(text), "r");
    wfb_graph *g = wfb_graph_new();
    ck_assert_int_eq(wfb_import_wfcommons(g, in, "t.json", &err), 0);
    fclose(in);
    wfb_path lp, ae;
    wfb_longest_path(g, &lp, &err);
    wfb_as_executed_path(g, &ae, &err);
    assert_path(g, &lp, "a,c");
    assert_near(lp.length_s, 11);
    ck_assert(ae.valid);
    assert_path(g, &ae, "a,b"); /* b ended at 15, c at 11 */
    assert_near(ae.length_s, 15);
    wfb_path_free(&lp);
    wfb_path_free(&ae);
    wfb_graph_free(g);
}
END_TEST

/* ---- NetLogger ---- */

START_TEST(test_bp_line_parser)
{
    char line[] = "ts=2012-03-13T12:35:36.000000Z event=a.b  argv=\" -a x \\\"q\\\" \" "
                  "empty=\"\" n=3";
    wfb_bp_pair pairs[8];
    int n = wfb_bp_parse_line(line, pairs, 8);
    ck_assert_int_eq(n, 5);
    ck_assert_str_eq(pairs[0].key, "ts");
    ck_assert_str_eq(pairs[1].value, "a.b");
    ck_assert_str_eq(pairs[2].key, "argv");
    ck_assert_str_eq(pairs[2].value, " -a x \"q\" ");
    ck_assert_str_eq(pairs[3].value, "");
    ck_assert_str_eq(pairs[4].value, "3");
    char bad1[] = "ts=1 event=\"unterminated";
    ck_assert_int_eq(wfb_bp_parse_line(bad1, pairs, 8), -1);
    char bad2[] = "ts=1 lonely";
    ck_assert_int_eq(wfb_bp_parse_line(bad2, pairs, 8), -1);
}
END_TEST

START_TEST(test_parse_time)
{
    double t;
    ck_assert_int_eq(wfb_parse_time("2012-03-13T12:35:36.000000Z", &t), 0);
    assert_near(t, 1331642136.0);
    ck_assert_int_eq(wfb_parse_time("2012-03-13T13:35:36.25+01:00", &t), 0);
    assert_near(t, 1331642136.25);
    ck_assert_int_eq(wfb_parse_time("12.5", &t), 0);
    assert_near(t, 12.5);
    ck_assert_int_eq(wfb_parse_time("13/03/2012", &t), -1);
}
END_TEST

START_TEST(test_pegasus_blackdiamond)
{
    const char *path = SHARED_FIXTURE("netlogger/blackdiamond.bp");
    ck_assert_int_eq(wfb_format_detect(path), WFB_FORMAT_BP);
    wfb_graph *g = load_fixture(path);
    uint32_t j1 = vertex(g, "preprocess_j1");
    /* submit.start 12:36:32, main.start 12:43:53, main.end 12:44:58 */
    assert_near(wfb_vertex_time(g, j1, WFB_T_ACTIVE) - wfb_vertex_time(g, j1, WFB_T_SUBMITTED),
                441);
    assert_near(wfb_vertex_weight(g, j1), 65);
    ck_assert(!wfb_vertex_failed(g, j1));
    /* task.edge j1 -> j2 is job preprocess_j1 -> findrange_j2 (deduplicated with job.edge) */
    const uint32_t *edges;
    size_t n = wfb_in_edges(g, vertex(g, "findrange_j2"), &edges);
    size_t from_j1 = 0;
    for (size_t i = 0; i < n; i++)
        from_j1 += wfb_edge_src(g, edges[i]) == j1;
    ck_assert_uint_eq(from_j1, 1);
    ck_assert_uint_eq(wfb_vertex_find(g, "j1", 2), WFB_NONE);
    wfb_path lp, ae;
    wfb_error err;
    wfb_longest_path(g, &lp, &err);
    wfb_as_executed_path(g, &ae, &err);
    /* stage_out_remote_local_2_0 (0 s) after analyze_j4 ties with it; ties
     * go to the vertex seen first, and job.info declares it early. */
    assert_path(g, &lp,
                "stage_worker_local_blackdiamond_0_local,stage_in_local_local_1,preprocess_j1,"
                "findrange_j2,analyze_j4,stage_out_remote_local_2_0");
    ck_assert_uint_eq(wfb_vertex_count(g), 14); /* every job has its job.info */
    ck_assert(ae.valid);
    ck_assert_uint_eq(ae.n, 6);
    ck_assert_str_eq(wfb_vertex_id(g, ae.vertices[4]), "analyze_j4");
    wfb_path_free(&lp);
    wfb_path_free(&ae);
    wfb_graph_free(g);
}
END_TEST

START_TEST(test_pegasus_failures)
{
    wfb_graph *g = load_fixture(SHARED_FIXTURE("netlogger/output-file.bp"));
    ck_assert(wfb_vertex_failed(g, vertex(g, "Concat")));
    ck_assert(wfb_vertex_failed(g, vertex(g, "AnnotatedStringGen1")));
    wfb_activity_report r;
    wfb_error err;
    ck_assert_int_eq(wfb_activity_metrics_compute(g, &r, &err), 0);
    ck_assert_uint_eq(r.n_failed, 4);
    wfb_activity_report_free(&r);
    /* The workflow itself was submitted but never ran: an anomaly. */
    uint32_t *anomalies;
    size_t k = wfb_activity_anomalies(g, &anomalies);
    ck_assert_uint_eq(k, 1);
    ck_assert_str_eq(wfb_vertex_id(g, anomalies[0]), "helloworld.xml");
    free(anomalies);
    wfb_graph_free(g);
}
END_TEST

START_TEST(test_user_mapping)
{
    const char *log = "ts=2020-01-01T00:00:00Z event=app.queue job=\"a 1\"\n"
                      "ts=2020-01-01T00:00:01Z event=app.queue job=b\n"
                      "ts=2020-01-01T00:00:02Z event=app.run job=\"a 1\"\n"
                      "ts=2020-01-01T00:00:05Z event=app.done job=\"a 1\" rc=0\n"
                      "# a comment\n"
                      "ts=2020-01-01T00:00:05Z event=app.run job=b\n"
                      "ts=2020-01-01T00:00:06Z event=app.done job=b rc=3\n"
                      "ts=2020-01-01T00:00:06Z event=app.dep from=\"a 1\" to=b\n"
                      "ts=2020-01-01T00:00:07Z event=other.thing x=y\n";
    char map_path[] = "/tmp/wfb_mapXXXXXX";
    int fd = mkstemp(map_path);
    FILE *mf = fdopen(fd, "w");
    fputs("# pattern action id [child] [status=field]\n"
          "^app\\.queue$ submitted job\n"
          "^app\\.run$   active    job\n"
          "^app\\.done$  completed job status=rc\n"
          "^app\\.dep$   dependency from to\n",
          mf);
    fclose(mf);
    wfb_error err;
    wfb_bp_mapping *m = wfb_bp_mapping_load(map_path, &err);
    unlink(map_path);
    ck_assert_ptr_nonnull(m);
    FILE *in = fmemopen((void *)log, strlen(log), "r");
    wfb_graph *g = wfb_graph_new();
    wfb_import_options opt = {.bp_mapping = m};
    ck_assert_int_eq(wfb_import_bp(g, in, "app.log", &opt, &err), 0);
    fclose(in);
    uint32_t a = vertex(g, "a 1"), b = vertex(g, "b");
    assert_near(wfb_vertex_weight(g, a), 3);
    ck_assert(!wfb_vertex_failed(g, a));
    ck_assert(wfb_vertex_failed(g, b));
    const uint32_t *edges;
    ck_assert_uint_eq(wfb_in_edges(g, b, &edges), 1);
    ck_assert_uint_eq(wfb_edge_src(g, edges[0]), a);
    wfb_graph_free(g);
    wfb_bp_mapping_free(m);
}
END_TEST

START_TEST(test_bp_errors)
{
    static const char *const bad[] = {
        "ts=2020-01-01T00:00:00Z event=stampede.job_inst.main.start argv=\"open\n",
        "event=stampede.job_inst.main.start job.id=x\n",
        "ts=yesterday event=stampede.job_inst.main.start job.id=x\n",
        "ts=2020-01-01T00:00:00Z event=stampede.job_inst.main.start\n",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        FILE *in = fmemopen((void *)bad[i], strlen(bad[i]), "r");
        wfb_graph *g = wfb_graph_new();
        wfb_error err;
        ck_assert_int_eq(wfb_import_bp(g, in, "x.bp", NULL, &err), -1);
        ck_assert_int_eq(err.line, 1);
        fclose(in);
        wfb_graph_free(g);
    }
    wfb_error err;
    wfb_bp_mapping *m = wfb_bp_mapping_new();
    ck_assert_int_eq(wfb_bp_mapping_add(m, "([", WFB_BP_ACTIVE, "id", NULL, NULL, &err), -1);
    ck_assert(strstr(err.msg, "bad pattern"));
    wfb_bp_mapping_free(m);
}
END_TEST

START_TEST(test_format_detection)
{
    ck_assert_int_eq(wfb_format_detect(BRIDGE_FIXTURE("crux1_generic.jsonl")), WFB_FORMAT_JSONL);
    ck_assert_int_eq(wfb_format_detect(BRIDGE_FIXTURE("activities.jsonl")), WFB_FORMAT_JSONL);
    ck_assert_int_eq(wfb_format_detect(WFB_BRIDGE_FIXTURES), WFB_FORMAT_LPEL_TRACE);
    ck_assert_int_eq(wfb_format_detect("/nonexistent/file"), WFB_FORMAT_UNKNOWN);
    ck_assert_int_eq(wfb_format_parse("bp"), WFB_FORMAT_BP);
    ck_assert_int_eq(wfb_format_parse("wfcommons"), WFB_FORMAT_WFCOMMONS);
    ck_assert_int_eq(wfb_format_parse("xml"), WFB_FORMAT_UNKNOWN);
}
END_TEST

static Suite *import_suite(void)
{
    Suite *s = suite_create("wfb_import");
    TCase *wfc = tcase_create("wfcommons");
    tcase_add_loop_test(wfc, test_wfcommons_critical_paths, 0,
                        sizeof wfc_cases / sizeof wfc_cases[0]);
    tcase_add_test(wfc, test_wfcommons_attributes);
    tcase_add_test(wfc, test_wfcommons_errors);
    tcase_add_test(wfc, test_wfcommons_start_times);
    suite_add_tcase(s, wfc);
    TCase *bp = tcase_create("netlogger");
    tcase_add_test(bp, test_bp_line_parser);
    tcase_add_test(bp, test_parse_time);
    tcase_add_test(bp, test_pegasus_blackdiamond);
    tcase_add_test(bp, test_pegasus_failures);
    tcase_add_test(bp, test_user_mapping);
    tcase_add_test(bp, test_bp_errors);
    tcase_add_test(bp, test_format_detection);
    suite_add_tcase(s, bp);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(import_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
