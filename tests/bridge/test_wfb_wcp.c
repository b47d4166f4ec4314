/*
 * test_wfb_wcp.c - the model, the JSONL importer and emitter, and both
 * critical-path definitions on hand-computed graphs, the five Crux workflow
 * patterns, the inverse-cost counterexample and malformed inputs.
 */
#include "wfb_test_util.h"

/* ---- model ---- */

START_TEST(test_interning_and_columns)
{
    wfb_graph *g = wfb_graph_new();
    uint32_t a = wfb_vertex_ref(g, "a", 1, 1), b = wfb_vertex_ref(g, "b", 1, 2);
    ck_assert_uint_eq(wfb_vertex_ref(g, "a", 1, 3), a);
    ck_assert_uint_ne(a, b);
    ck_assert_uint_eq(wfb_vertex_find(g, "zz", 2), WFB_NONE);
    wfb_vertex_define(g, a, WFB_VERTEX_ACTIVITY, 1);
    ck_assert(isnan(wfb_vertex_time(g, a, WFB_T_ACTIVE)));
    wfb_vertex_set_time(g, a, WFB_T_ACTIVE, 5);
    wfb_vertex_set_time(g, a, WFB_T_END, 7.5);
    assert_near(wfb_vertex_weight(g, a), 2.5);
    wfb_vertex_set_duration(g, a, 4);
    assert_near(wfb_vertex_weight(g, a), 4);
    wfb_vertex_set_attr(g, a, WFB_ATTR_LOCATION, "host1");
    ck_assert_str_eq(wfb_vertex_attr(g, a, WFB_ATTR_LOCATION), "host1");
    ck_assert_ptr_null(wfb_vertex_attr(g, b, WFB_ATTR_LOCATION));
    /* Many vertices: the columns grow and keep their defaults. */
    char id[32];
    for (int i = 0; i < 100000; i++) {
        snprintf(id, sizeof id, "v%d", i);
        uint32_t v = wfb_vertex_ref(g, id, strlen(id), 0);
        wfb_vertex_define(g, v, WFB_VERTEX_DATA, 0);
    }
    ck_assert_uint_eq(wfb_vertex_count(g), 100002);
    ck_assert_str_eq(wfb_vertex_attr(g, a, WFB_ATTR_LOCATION), "host1");
    ck_assert_ptr_null(wfb_vertex_attr(g, vertex(g, "v99999"), WFB_ATTR_LOCATION));
    ck_assert(isnan(wfb_vertex_end(g, vertex(g, "v5"))));
    wfb_vertex_define(g, b, WFB_VERTEX_DATA, 2);
    wfb_error err;
    ck_assert_int_eq(wfb_graph_finish(g, &err), 0);
    wfb_graph_free(g);
}
END_TEST

START_TEST(test_duplicate_edges_dropped)
{
    wfb_graph *g = jsonl_graph("{\"type\":\"activity\",\"id\":\"a\",\"duration\":1}\n"
                               "{\"type\":\"activity\",\"id\":\"b\",\"duration\":2,\"depends\":[\"a\"]}\n"
                               "{\"type\":\"dependency\",\"parent\":\"a\",\"child\":\"b\"}\n");
    ck_assert_uint_eq(wfb_edge_count(g), 1);
    wfb_graph_free(g);
}
END_TEST

/* ---- critical paths, hand-computed ---- */

static void paths(const wfb_graph *g, wfb_path *lp, wfb_path *ae)
{
    wfb_error err;
    ck_assert_int_eq(wfb_longest_path(g, lp, &err), 0);
    ck_assert_int_eq(wfb_as_executed_path(g, ae, &err), 0);
}

START_TEST(test_chain_by_durations)
{
    wfb_graph *g = jsonl_graph(
        "{\"type\":\"activity\",\"id\":\"x\",\"duration\":3}\n"
        "{\"type\":\"activity\",\"id\":\"y\",\"duration\":4,\"depends\":[\"x\"]}\n"
        "{\"type\":\"activity\",\"id\":\"z\",\"duration\":5,\"depends\":[\"y\"]}\n");
    wfb_path lp, ae;
    paths(g, &lp, &ae);
    ck_assert(lp.valid);
    assert_near(lp.length_s, 12);
    assert_path(g, &lp, "x,y,z");
    ck_assert(!ae.valid); /* no start/end times */
    wfb_path_free(&lp);
    wfb_path_free(&ae);
    wfb_graph_free(g);
}
END_TEST

/* Weights on vertices and costs on edges both count. */
START_TEST(test_vertex_weights_and_edge_costs)
{
    wfb_graph *g = jsonl_graph(
        "{\"type\":\"data\",\"id\":\"s\",\"time\":0}\n"
        "{\"type\":\"data\",\"id\":\"p\",\"time\":1}\n"
        "{\"type\":\"data\",\"id\":\"q\",\"time\":7}\n"
        "{\"type\":\"data\",\"id\":\"t\",\"time\":9}\n"
        "{\"type\":\"mutation\",\"kind\":\"CONVERT\",\"from\":\"s\",\"to\":\"p\",\"cost\":1}\n"
        "{\"type\":\"mutation\",\"kind\":\"CONVERT\",\"from\":\"s\",\"to\":\"q\",\"cost\":7}\n"
        "{\"type\":\"mutation\",\"kind\":\"CONVERT\",\"from\":\"p\",\"to\":\"t\",\"cost\":8}\n"
        "{\"type\":\"mutation\",\"kind\":\"CONVERT\",\"from\":\"q\",\"to\":\"t\",\"cost\":1}\n");
    wfb_path lp, ae;
    paths(g, &lp, &ae);
    assert_near(lp.length_s, 9);
    assert_path(g, &lp, "s,p,t"); /* 1 + 8 beats 7 + 1 */
    ck_assert_int_eq(wfb_edge_kind_of(g, lp.edges[0]), WFB_EDGE_CONVERT);
    assert_near(wfb_edge_cost(g, lp.edges[1]), 8);
    ck_assert(ae.valid);
    assert_path(g, &ae, "s,q,t"); /* q (t=7) finished after p (t=1) */
    assert_near(ae.length_s, 9);
    wfb_path_free(&lp);
    wfb_path_free(&ae);
    wfb_graph_free(g);
}
END_TEST

START_TEST(test_ties_go_to_input_order)
{
    wfb_graph *g = jsonl_graph(
        "{\"type\":\"activity\",\"id\":\"s\",\"event\":\"active\",\"time\":0}\n"
        "{\"type\":\"activity\",\"id\":\"s\",\"event\":\"completed\",\"time\":1}\n"
        "{\"type\":\"activity\",\"id\":\"b\",\"event\":\"active\",\"time\":1,\"depends\":[\"s\"]}\n"
        "{\"type\":\"activity\",\"id\":\"a\",\"event\":\"active\",\"time\":1,\"depends\":[\"s\"]}\n"
        "{\"type\":\"activity\",\"id\":\"a\",\"event\":\"completed\",\"time\":3}\n"
        "{\"type\":\"activity\",\"id\":\"b\",\"event\":\"completed\",\"time\":3}\n"
        "{\"type\":\"activity\",\"id\":\"t\",\"event\":\"active\",\"time\":3,\"depends\":[\"a\",\"b\"]}\n"
        "{\"type\":\"activity\",\"id\":\"t\",\"event\":\"completed\",\"time\":4}\n");
    wfb_path lp, ae;
    paths(g, &lp, &ae);
    /* b and a tie (2 s each, both end at 3): the first dependency of t wins. */
    assert_near(lp.length_s, 4);
    assert_path(g, &lp, "s,a,t");
    assert_path(g, &ae, "s,a,t");
    assert_near(ae.length_s, 4);
    wfb_path_free(&lp);
    wfb_path_free(&ae);
    wfb_graph_free(g);
}
END_TEST

START_TEST(test_two_sinks_pick_the_longer)
{
    wfb_graph *g = jsonl_graph(
        "{\"type\":\"activity\",\"id\":\"r\",\"duration\":1}\n"
        "{\"type\":\"activity\",\"id\":\"short\",\"duration\":2,\"depends\":[\"r\"]}\n"
        "{\"type\":\"activity\",\"id\":\"long\",\"duration\":5,\"depends\":[\"r\"]}\n"
        "{\"type\":\"activity\",\"id\":\"alone\",\"duration\":5.5}\n");
    wfb_path lp, ae;
    paths(g, &lp, &ae);
    assert_near(lp.length_s, 6);
    assert_path(g, &lp, "r,long");
    wfb_path_free(&lp);
    wfb_path_free(&ae);
    wfb_graph_free(g);
}
END_TEST

START_TEST(test_activity_dag_paths)
{
    wfb_graph *g = load_fixture(BRIDGE_FIXTURE("activities.jsonl"));
    wfb_path lp, ae;
    paths(g, &lp, &ae);
    assert_path(g, &lp, "A,B,D");
    assert_near(lp.length_s, 20); /* 8 + 8 + 4 */
    assert_path(g, &ae, "A,B,D");
    assert_near(ae.length_s, 23); /* D ends 25, A active at 2 */
    wfb_path_free(&lp);
    wfb_path_free(&ae);
    wfb_graph_free(g);
}
END_TEST

/* ---- the five Crux patterns ---- */

typedef struct crux_case {
    const char *file;
    double longest;
    const char *longest_path;
    double executed;
    const char *executed_path;
} crux_case;

static const crux_case crux_cases[] = {
    {"crux1_generic.jsonl", 108, "raw,raw@cluster,pre,p1,r1,result,post,image", 108,
     "raw,raw@cluster,pre,p1,r1,result,post,image"},
    {"crux2_splits.jsonl", 34, "d0,b6,c97,o97,final", 34, "d0,b6,c97,o97,final"},
    {"crux3_checkpoint.jsonl", 192, "in,state1,ckpt,state1@node2,out", 230,
     "in,state1,ckpt,state1@node2,out"},
    {"crux4_merge.jsonl", 45, "srcA,A@site,merged,result", 60, "srcB,B@site,merged,result"},
    {"crux5_tempfile.jsonl", 20, "in,tmp,tmp2,out", 21, "in,tmp,tmp2,tmp.deleted"},
};

START_TEST(test_crux_patterns)
{
    const crux_case *c = &crux_cases[_i];
    char path[512];
    snprintf(path, sizeof path, "%s/%s", WFB_BRIDGE_FIXTURES, c->file);
    wfb_graph *g = load_fixture(path);
    wfb_path lp, ae;
    paths(g, &lp, &ae);
    assert_near(lp.length_s, c->longest);
    assert_path(g, &lp, c->longest_path);
    ck_assert(ae.valid);
    assert_near(ae.length_s, c->executed);
    assert_path(g, &ae, c->executed_path);
    wfb_path_free(&lp);
    wfb_path_free(&ae);
    wfb_graph_free(g);
}
END_TEST

START_TEST(test_crux_splits_has_150_ranks)
{
    wfb_graph *g = load_fixture(BRIDGE_FIXTURE("crux2_splits.jsonl"));
    const uint32_t *edges;
    size_t splits = 0;
    for (uint32_t b = 0; b < 10; b++) {
        char id[8];
        snprintf(id, sizeof id, "b%u", b);
        splits += wfb_out_edges(g, vertex(g, id), &edges);
    }
    ck_assert_uint_eq(splits, 150);
    ck_assert_uint_eq(wfb_in_edges(g, vertex(g, "final"), &edges), 150);
    wfb_graph_free(g);
}
END_TEST

/* ---- shortest path over inverse costs gets it wrong ---- */

/* The Crux prototype's method: Dijkstra with weight 1/cost, O(V^2) here. */
static void inverse_cost_path(const wfb_graph *g, uint32_t s, uint32_t t, char *out, size_t cap)
{
    size_t n = wfb_vertex_count(g);
    double *dist = malloc(n * sizeof *dist);
    uint32_t *prev = malloc(n * sizeof *prev);
    char *done = calloc(n, 1);
    for (size_t v = 0; v < n; v++)
        dist[v] = INFINITY, prev[v] = WFB_NONE;
    dist[s] = 0;
    for (;;) {
        uint32_t u = WFB_NONE;
        for (uint32_t v = 0; v < n; v++)
            if (!done[v] && !isinf(dist[v]) && (u == WFB_NONE || dist[v] < dist[u]))
                u = v;
        if (u == WFB_NONE)
            break;
        done[u] = 1;
        const uint32_t *edges;
        size_t k = wfb_out_edges(g, u, &edges);
        for (size_t i = 0; i < k; i++) {
            uint32_t w = wfb_edge_dst(g, edges[i]);
            double d = dist[u] + 1.0 / wfb_edge_cost(g, edges[i]);
            if (d < dist[w])
                dist[w] = d, prev[w] = u;
        }
    }
    uint32_t chain[64];
    size_t m = 0;
    for (uint32_t v = t; v != WFB_NONE && m < 64; v = prev[v])
        chain[m++] = v;
    size_t used = 0;
    out[0] = '\0';
    while (m--)
        used += (size_t)snprintf(out + used, cap - used, "%s%s", used ? "," : "",
                                 wfb_vertex_id(g, chain[m]));
    free(dist), free(prev), free(done);
}

START_TEST(test_inverse_cost_counterexample)
{
    wfb_graph *g = load_fixture(BRIDGE_FIXTURE("inverse_cost.jsonl"));
    char wrong[256];
    inverse_cost_path(g, vertex(g, "s"), vertex(g, "t"), wrong, sizeof wrong);
    ck_assert_str_eq(wrong, "s,a,t"); /* 20 s: not the critical path */
    wfb_path lp, ae;
    paths(g, &lp, &ae);
    assert_path(g, &lp, "s,b,c,t");
    assert_near(lp.length_s, 27);
    assert_path(g, &ae, "s,b,c,t");
    wfb_path_free(&lp);
    wfb_path_free(&ae);
    wfb_graph_free(g);
}
END_TEST

static size_t count_text(const char *text, const char *needle)
{
    size_t n = 0;
    for (const char *p = strstr(text, needle); p; p = strstr(p + 1, needle))
        n++;
    return n;
}

START_TEST(test_dot_marks_both_paths)
{
    wfb_graph *g = load_fixture(BRIDGE_FIXTURE("crux4_merge.jsonl"));
    wfb_path lp, ae;
    paths(g, &lp, &ae);
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    ck_assert_int_eq(wfb_write_dot(g, &lp, &ae, out), 0);
    fclose(out);
    ck_assert(strstr(buf, "digraph wcp {"));
    /* srcA, A@site only longest (red); srcB, B@site only as-executed (blue);
     * merged and result on both (purple), with their edge. */
    ck_assert_uint_eq(count_text(buf, "shape=ellipse, color=red"), 2);
    ck_assert_uint_eq(count_text(buf, "shape=ellipse, color=blue"), 2);
    ck_assert_uint_eq(count_text(buf, "shape=ellipse, color=purple"), 2);
    ck_assert_uint_eq(count_text(buf, "[color=purple, penwidth=2, label=\"CONVERT\"]"), 1);
    ck_assert_uint_eq(count_text(buf, " -> "), 5);
    free(buf);
    wfb_path_free(&lp);
    wfb_path_free(&ae);
    wfb_graph_free(g);
}
END_TEST

/* ---- malformed input ---- */

typedef struct bad_case {
    const char *file;
    long line;
    const char *message;
} bad_case;

static const bad_case bad_cases[] = {
    {"bad_json.jsonl", 3, "bad JSON"},
    {"bad_kind.jsonl", 3, "unknown mutation kind \"TELEPORT\""},
    {"bad_cycle.jsonl", 2, "cycle in the graph through vertex 'b' (b -> c -> b)"},
    {"bad_dangling.jsonl", 4, "reference to undefined vertex 'ghost'"},
};

START_TEST(test_malformed_inputs)
{
    const bad_case *c = &bad_cases[_i];
    char path[512];
    snprintf(path, sizeof path, "%s/%s", WFB_BRIDGE_FIXTURES, c->file);
    wfb_graph *g;
    wfb_error err;
    ck_assert_int_eq(wfb_load_input(path, WFB_FORMAT_UNKNOWN, NULL, false, NULL, NULL, &g, &err), -1);
    ck_assert_ptr_null(g);
    ck_assert_str_eq(err.file, path);
    ck_assert_int_eq(err.line, c->line);
    ck_assert_msg(strstr(err.msg, c->message), "message '%s' lacks '%s'", err.msg, c->message);
}
END_TEST

START_TEST(test_more_malformed_lines)
{
    static const char *const bad[] = {
        "{\"type\":\"activity\"}\n",
        "{\"type\":\"activity\",\"id\":\"a\",\"event\":\"started\",\"time\":1}\n",
        "{\"type\":\"activity\",\"id\":\"a\",\"event\":\"active\"}\n",
        "{\"type\":\"spaceship\"}\n",
        "[1,2]\n",
        "{\"type\":\"data\",\"id\":\"d\",\"time\":\"yesterday\"}\n",
        "{\"type\":\"data\",\"id\":\"d\"}\n{\"type\":\"activity\",\"id\":\"d\",\"duration\":1}\n",
        ("{\"type\":\"data\",\"id\":\"a\"}\n{\"type\":\"data\",\"id\":\"b\"}\n"
         "{\"type\":\"mutation\",\"kind\":\"CONVERT\",\"from\":\"a\",\"to\":\"b\",\"cost\":-1}\n"),
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        wfb_graph *g;
        wfb_error err;
        ck_assert_msg(load_jsonl_text(bad[i], &g, &err) == -1, "accepted: %s", bad[i]);
        ck_assert_int_ge(err.line, 1);
        wfb_graph_free(g);
    }
}
END_TEST

START_TEST(test_comments_blank_lines_iso_times)
{
    wfb_graph *g = jsonl_graph("# comment\n\n"
                               "{\"type\":\"activity\",\"id\":\"a\",\"event\":\"active\","
                               "\"time\":\"2020-01-01T00:00:00Z\"}\n"
                               "{\"type\":\"activity\",\"id\":\"a\",\"event\":\"completed\","
                               "\"time\":\"2020-01-01T01:00:00.5+01:00\"}\n");
    assert_near(wfb_vertex_weight(g, vertex(g, "a")), 0.5);
    assert_near(wfb_vertex_start(g, vertex(g, "a")), 1577836800.0);
    wfb_graph_free(g);
}
END_TEST

/* Lines the in-place parser handles and lines it hands to jansson must mean
 * the same. */
START_TEST(test_record_parser_paths)
{
    wfb_graph *g = jsonl_graph(
        "  { \"type\" : \"data\" , \"id\":\"plain\", \"time\": -1.5e1 , \"size\":0 }  \n"
        "{\"type\":\"data\",\"id\":\"caf\\u00e9\",\"time\":1,\"extra\":{\"nested\":[1,2]}}\n"
        "{\"type\":\"data\",\"id\":\"\xc3\xbc" "ber\",\"time\":2,\"flag\":true,\"none\":null}\n"
        "{\"type\":\"data\",\"id\":\"tab\\there \\\"q\\\" \\/\",\"time\":3}\n"
        "{\"type\":\"activity\",\"id\":\"a\",\"duration\":1,\"depends\":[]}\n"
        "{\"type\":\"activity\",\"id\":\"b\",\"duration\":2,\"depends\":[ \"a\" , \"c\\u0021\" ]}\n"
        "{\"type\":\"activity\",\"id\":\"c!\",\"duration\":3}\n");
    assert_near(wfb_vertex_end(g, vertex(g, "plain")), -15);
    assert_near(wfb_vertex_end(g, vertex(g, "caf\xc3\xa9")), 1);
    assert_near(wfb_vertex_end(g, vertex(g, "\xc3\xbc" "ber")), 2);
    assert_near(wfb_vertex_end(g, vertex(g, "tab\there \"q\" /")), 3);
    const uint32_t *edges;
    ck_assert_uint_eq(wfb_in_edges(g, vertex(g, "b"), &edges), 2);
    ck_assert_uint_eq(wfb_edge_src(g, edges[1]), vertex(g, "c!"));
    wfb_graph_free(g);
    static const char *const bad[] = {
        "{\"type\":\"data\",\"id\":\"x\",\"id\":\"y\"}\n",       /* duplicate key */
        "{\"type\":\"activity\",\"id\":\"x\",\"depends\":[1]}\n",  /* not ids */
        "{\"type\":\"data\",\"id\":\"x\",\"time\":01}\n",          /* bad number */
        "{\"type\":\"data\",\"id\":\"x\"} trailing\n",
        "{\"type\":\"data\",\"id\":\"x\",}\n",
        "{}\n",
        "\"just a string\"\n",
        "{\"type\":\"data\",\"id\":\"bad\\q\"}\n",                 /* bad escape */
        "{\"type\":\"data\",\"id\":\"\xff\"}\n",                    /* not UTF-8 */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        wfb_error err;
        ck_assert_msg(load_jsonl_text(bad[i], &g, &err) == -1, "accepted: %s", bad[i]);
        ck_assert_int_eq(err.line, 1);
        wfb_graph_free(g);
    }
}
END_TEST

/* ---- emitter ---- */

START_TEST(test_emitter_round_trip)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    wfb_emitter *em = wfb_emit_open(out);
    wfb_emit_activity(em, "job \"1\"", "submitted", 1.25, "pre\\process", "host\n1");
    wfb_emit_activity(em, "job \"1\"", "active", 2, NULL, NULL);
    wfb_emit_activity(em, "job \"1\"", "completed", 1e9 + 0.123456789, NULL, NULL);
    wfb_emit_activity_duration(em, "job2", "post", 7, NULL);
    wfb_emit_dependency(em, "job \"1\"", "job2");
    wfb_emit_data(em, "d1", 3, 1024, "job \"1\"", "host1", "out");
    wfb_emit_data(em, "d2", NAN, 0, NULL, NULL, NULL);
    wfb_emit_mutation(em, WFB_EDGE_SPLIT, "d1", "d2", 0.5, "splitter");
    ck_assert_int_eq(wfb_emit_close(em), 0);
    fclose(out);
    wfb_graph *g = jsonl_graph(buf);
    uint32_t j = vertex(g, "job \"1\"");
    ck_assert_str_eq(wfb_vertex_attr(g, j, WFB_ATTR_LABEL), "pre\\process");
    ck_assert_str_eq(wfb_vertex_attr(g, j, WFB_ATTR_RESOURCES), "host\n1");
    ck_assert(wfb_vertex_end(g, j) == 1e9 + 0.123456789); /* exact round trip */
    assert_near(wfb_vertex_weight(g, vertex(g, "job2")), 7);
    ck_assert_uint_eq(wfb_vertex_size(g, vertex(g, "d1")), 1024);
    ck_assert(isnan(wfb_vertex_end(g, vertex(g, "d2"))));
    ck_assert_uint_eq(wfb_edge_count(g), 2);
    /* Writing the graph and reading it back gives the same paths. */
    char *buf2 = NULL;
    size_t len2 = 0;
    FILE *out2 = open_memstream(&buf2, &len2);
    ck_assert_int_eq(wfb_write_jsonl(g, out2), 0);
    fclose(out2);
    wfb_graph *g2 = jsonl_graph(buf2);
    ck_assert_uint_eq(wfb_vertex_count(g2), wfb_vertex_count(g));
    ck_assert_uint_eq(wfb_edge_count(g2), wfb_edge_count(g));
    ck_assert_int_eq(wfb_edge_kind_of(g2, 1), WFB_EDGE_SPLIT);
    ck_assert_str_eq(wfb_edge_label(g2, 1), "splitter");
    wfb_graph_free(g2);
    wfb_graph_free(g);
    free(buf);
    free(buf2);
}
END_TEST

static Suite *wcp_suite(void)
{
    Suite *s = suite_create("wfb_wcp");
    TCase *model = tcase_create("model");
    tcase_add_test(model, test_interning_and_columns);
    tcase_add_test(model, test_duplicate_edges_dropped);
    suite_add_tcase(s, model);
    TCase *wcp = tcase_create("wcp");
    tcase_add_test(wcp, test_chain_by_durations);
    tcase_add_test(wcp, test_vertex_weights_and_edge_costs);
    tcase_add_test(wcp, test_ties_go_to_input_order);
    tcase_add_test(wcp, test_two_sinks_pick_the_longer);
    tcase_add_test(wcp, test_activity_dag_paths);
    tcase_add_loop_test(wcp, test_crux_patterns, 0, sizeof crux_cases / sizeof crux_cases[0]);
    tcase_add_test(wcp, test_crux_splits_has_150_ranks);
    tcase_add_test(wcp, test_inverse_cost_counterexample);
    tcase_add_test(wcp, test_dot_marks_both_paths);
    suite_add_tcase(s, wcp);
    TCase *input = tcase_create("input");
    tcase_add_loop_test(input, test_malformed_inputs, 0, sizeof bad_cases / sizeof bad_cases[0]);
    tcase_add_test(input, test_more_malformed_lines);
    tcase_add_test(input, test_comments_blank_lines_iso_times);
    tcase_add_test(input, test_record_parser_paths);
    tcase_add_test(input, test_emitter_round_trip);
    suite_add_tcase(s, input);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(wcp_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
