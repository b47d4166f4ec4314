/*
 * test_wfb.c - the workflow-bridge adapter: a bridge graph (a job fanning
 * out to ten identical jobs and back) drawn with the bridge's own longest
 * path: the path is red, the nine other jobs collapse into one node, and
 * the title gives the path as `snetmon wcp` does.
 */
#include "viz_wfb.h"
#include "viz_test_util.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

static uint32_t activity(wfb_graph *g, const char *id, const char *label, double seconds)
{
    uint32_t v = wfb_vertex_ref(g, id, strlen(id), 1);
    ck_assert_uint_ne(v, WFB_NONE);
    wfb_vertex_define(g, v, WFB_VERTEX_ACTIVITY, 1);
    ck_assert_int_eq(wfb_vertex_set_duration(g, v, seconds), 0);
    ck_assert_int_eq(wfb_vertex_set_attr(g, v, WFB_ATTR_LABEL, label), 0);
    return v;
}

START_TEST(bridge_path_drawn_in_context)
{
    wfb_graph *g = wfb_graph_new();
    uint32_t split = activity(g, "split", "split", 1.0), join = activity(g, "join", "join", 1.0);
    for (int i = 0; i < 10; i++) {
        char id[16];
        snprintf(id, sizeof id, "sim%d", i);
        uint32_t v = activity(g, id, "sim", i == 6 ? 3.0 : 2.0); /* sim6 is the longest */
        ck_assert_uint_ne(wfb_edge_add(g, split, v, WFB_EDGE_DEPEND, 0, 1), WFB_NONE);
        ck_assert_uint_ne(wfb_edge_add(g, v, join, WFB_EDGE_DEPEND, 0, 1), WFB_NONE);
    }
    wfb_error err;
    ck_assert_msg(wfb_graph_finish(g, &err) == 0, "%s", err.msg);
    wfb_path path;
    ck_assert_msg(wfb_longest_path(g, &path, &err) == 0, "%s", err.msg);
    ck_assert_uint_eq(path.n, 3);
    char out[256], msg[256];
    vt_temp_path(out, sizeof out, "wfb.dot");
    ck_assert_msg(viz_wfb_render(g, &path, out, "test", true, msg, sizeof msg) == VIZ_OK, "%s", msg);
    char *doc = vt_read_file(out, NULL);
    ck_assert_ptr_nonnull(doc);
    ck_assert_msg(strstr(doc, "sim ×9"), "no collapsed node:\n%s", doc);
    ck_assert_msg(strstr(doc, "3.00 s"), "the path's sim should show its duration:\n%s", doc);
    /* the title: the path as wcp prints it, its kind, vertices and length */
    ck_assert_msg(strstr(doc, "longest path (red): 3 vertices, 5.00 s (5 s)"), "title:\n%s", doc);
    size_t red = 0;
    for (const char *p = doc; (p = strstr(p, "#d01010")); p++)
        red++;
    ck_assert_msg(red == 5, "want 3 red nodes + 2 red edges, got %zu", red);
    free(doc);
    remove(out);
    wfb_path_free(&path);
    wfb_graph_free(g);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("viz_wfb");
    TCase *tc = tcase_create("wfb");
    tcase_add_test(tc, bridge_path_drawn_in_context);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
