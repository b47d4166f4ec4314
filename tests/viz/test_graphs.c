/*
 * test_graphs.c - the network graph and the critical-path graph: the DOT
 * output names every task and stream with the right message counts, SVG and
 * PNG render, repeated structure collapses into "×N" nodes while the
 * critical path stays whole and red, and bad input is refused.
 */
#include "viz.h"
#include "viz_test_util.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

/* The line of doc that declares edge "key=NAME" (cgraph writes named edges
 * with a key attribute), copied into buf. */
static bool edge_line(const char *doc, const char *key, char *buf, size_t len)
{
    char needle[64];
    snprintf(needle, sizeof needle, "key=%s", key);
    const char *p = strstr(doc, needle);
    if (!p)
        return false;
    const char *start = p, *end = strchr(p, ';');
    while (start > doc && start[-1] != '\n')
        start--;
    size_t n = (size_t)((end ? end : p + strlen(p)) - start);
    snprintf(buf, len, "%.*s", (int)(n < len ? n : len - 1), start);
    return true;
}

static bool has_label(const char *line, const char *value)
{
    char quoted[64], bare[64];
    snprintf(quoted, sizeof quoted, "label=\"%s\"", value);
    snprintf(bare, sizeof bare, "label=%s", value);
    const char *p = strstr(line, bare);
    return strstr(line, quoted) || (p && (p[strlen(bare)] == ',' || p[strlen(bare)] == ']'));
}

static const char *net_text = "task 1 0 S1:mc.gen\n"
                              "task 2 1 S2:P0:mc.sim\n"
                              "task 3 - S2:P1:mc.sim\n"
                              "task 4 0 S3:mc.acc\n"
                              "run 1 3 0 10 input\n" /* gives task 3 its worker */
                              "stream 10 - 1 7\n"
                              "stream 11 1 2 4\n"
                              "stream 12 1 3 3\n"
                              "stream 13 2 4 4\n"
                              "stream 14 3 4 3\n"
                              "stream 15 4 - 1\n"
                              "stream 13 2 4 2\n"; /* adds up: 6 */

static viz_net *read_net(void)
{
    char path[256], err[256];
    vt_temp_path(path, sizeof path, "net.tl");
    ck_assert(vt_write_file(path, net_text));
    viz_net *net;
    ck_assert_int_eq(viz_net_create(&net, err, sizeof err), VIZ_OK);
    FILE *in = fopen(path, "r");
    ck_assert_msg(viz_read_timeline_text(in, path, NULL, net, NULL, err, sizeof err) == VIZ_OK, "%s", err);
    fclose(in);
    remove(path);
    return net;
}

START_TEST(net_dot_has_every_task_and_stream)
{
    viz_net *net = read_net();
    char dot[256];
    vt_temp_path(dot, sizeof dot, "net.dot");
    ck_assert_msg(viz_net_render(net, dot) == VIZ_OK, "%s", viz_net_error(net));
    char *doc = vt_read_file(dot, NULL);
    ck_assert_ptr_nonnull(doc);
    const char *tasks[] = {"S1:mc.gen", "S2:P0:mc.sim", "S2:P1:mc.sim", "S3:mc.acc"};
    for (size_t i = 0; i < 4; i++) {
        char label[64];
        snprintf(label, sizeof label, "label=\"%s\"", tasks[i]);
        ck_assert_msg(strstr(doc, label), "task %s missing:\n%s", tasks[i], doc);
    }
    const struct {
        const char *key, *count;
    } streams[] = {{"s10", "7"}, {"s11", "4"}, {"s12", "3"}, {"s13", "6"}, {"s14", "3"}, {"s15", "1"}};
    for (size_t i = 0; i < 6; i++) {
        char line[512];
        ck_assert_msg(edge_line(doc, streams[i].key, line, sizeof line), "stream %s missing:\n%s",
                      streams[i].key, doc);
        ck_assert_msg(has_label(line, streams[i].count), "stream %s: want %s messages in '%s'",
                      streams[i].key, streams[i].count, line);
    }
    /* one box per worker; task 3 is on worker 1 from its first run */
    ck_assert_ptr_nonnull(strstr(doc, "cluster_w0"));
    ck_assert_ptr_nonnull(strstr(doc, "cluster_w1"));
    const char *w1 = strstr(doc, "cluster_w1"), *t3 = strstr(doc, "S2:P1:mc.sim");
    ck_assert_msg(w1 && t3 && t3 > w1, "task 3 should sit in worker 1's box");
    ck_assert_ptr_nonnull(strstr(doc, "label=input"));
    ck_assert_ptr_nonnull(strstr(doc, "label=output"));
    free(doc);
    remove(dot);
    viz_net_destroy(net);
}
END_TEST

START_TEST(net_svg_and_png_render)
{
    viz_net *net = read_net();
    char svg[256], png[256];
    vt_temp_path(svg, sizeof svg, "net.svg");
    vt_temp_path(png, sizeof png, "net.png");
    ck_assert_msg(viz_net_render(net, svg) == VIZ_OK, "%s", viz_net_error(net));
    ck_assert_msg(viz_net_render(net, png) == VIZ_OK, "%s", viz_net_error(net));
    char *doc = vt_read_file(svg, NULL);
    ck_assert_ptr_nonnull(doc);
    const char *problem = vt_xml_check(doc);
    ck_assert_msg(problem == NULL, "graph SVG: %s", problem);
    ck_assert_ptr_nonnull(strstr(doc, "S2:P0:mc.sim"));
    ck_assert_ptr_nonnull(strstr(doc, "worker 1"));
    free(doc);
    vt_image img;
    ck_assert(vt_image_load(&img, png));
    ck_assert(img.width > 50 && img.height > 50);
    vt_image_free(&img);
    ck_assert_int_eq(viz_net_render(net, "net.jpg"), VIZ_EINVAL);
    remove(svg);
    remove(png);
    viz_net_destroy(net);
}
END_TEST

START_TEST(net_traffic_counts_reads_or_writes)
{
    char err[256];
    viz_net *net;
    ck_assert_int_eq(viz_net_create(&net, err, sizeof err), VIZ_OK);
    ck_assert_int_eq(viz_net_add_task(net, 1, "S1:a", 0), VIZ_OK);
    ck_assert_int_eq(viz_net_add_task(net, 2, "S2:b", 0), VIZ_OK);
    /* ends learnt separately, as a trace reports them */
    ck_assert_int_eq(viz_net_add_stream(net, 5, 1, VIZ_NO_TASK, 0), VIZ_OK);
    ck_assert_int_eq(viz_net_add_stream(net, 5, VIZ_NO_TASK, 2, 0), VIZ_OK);
    ck_assert_int_eq(viz_net_add_stream(net, 6, VIZ_NO_TASK, 1, 0), VIZ_OK);
    for (int i = 0; i < 9; i++)
        ck_assert_int_eq(viz_net_count_traffic(net, 5, 1, 1), VIZ_OK);
    for (int i = 0; i < 4; i++)
        ck_assert_int_eq(viz_net_count_traffic(net, 6, 0, 1), VIZ_OK); /* from outside: reads */
    char dot[256];
    vt_temp_path(dot, sizeof dot, "traffic.dot");
    ck_assert_int_eq(viz_net_render(net, dot), VIZ_OK);
    char *doc = vt_read_file(dot, NULL), line[512];
    ck_assert(edge_line(doc, "s5", line, sizeof line));
    ck_assert_msg(has_label(line, "9") && strstr(line, "t1 -> t2"), "%s", line);
    ck_assert(edge_line(doc, "s6", line, sizeof line));
    ck_assert_msg(has_label(line, "4") && strstr(line, "outside_input -> t1"), "%s", line);
    free(doc);
    remove(dot);
    viz_net_destroy(net);
}
END_TEST

/* The network of one task per worker, first seen on worker 3, then 1, 2,
 * 0, drawn to DOT; with `shuffle`, small blocks of the heap are freed just
 * before, in the order that makes malloc hand them out again at falling
 * addresses (as a longer program's heap may). */
static char *clusters_drawn(bool shuffle)
{
    char err[256], dot[256];
    viz_net *net;
    ck_assert_int_eq(viz_net_create(&net, err, sizeof err), VIZ_OK);
    int order[4] = {3, 1, 2, 0};
    for (int i = 0; i < 4; i++) {
        char name[16];
        snprintf(name, sizeof name, "S%d:box", i + 1);
        ck_assert_int_eq(viz_net_add_task(net, (uint64_t)i + 1, name, order[i]), VIZ_OK);
    }
    if (shuffle) {
        enum { SIZES = 8, EACH = 24 }; /* past the thread cache: calloc takes from the LIFO fast bins */
        void *held[SIZES][EACH];
        for (int s = 0; s < SIZES; s++)
            for (int k = 0; k < EACH; k++)
                held[s][k] = malloc((size_t)(s + 1) * 16);
        for (int s = 0; s < SIZES; s++)
            for (int k = 0; k < EACH; k++)
                free(held[s][k]);
    }
    vt_temp_path(dot, sizeof dot, "clusters.dot");
    ck_assert_int_eq(viz_net_render(net, dot), VIZ_OK);
    char *doc = vt_read_file(dot, NULL);
    remove(dot);
    viz_net_destroy(net);
    return doc;
}

/* The clusters come out in the order their workers were first met, on any
 * heap: cgraph's own IDs would order them by the addresses of their names. */
START_TEST(net_clusters_in_order_met)
{
    char *a = clusters_drawn(false), *b = clusters_drawn(true);
    ck_assert_str_eq(a, b);
    const char *w3 = strstr(a, "cluster_w3"), *w1 = strstr(a, "cluster_w1");
    const char *w2 = strstr(a, "cluster_w2"), *w0 = strstr(a, "cluster_w0");
    ck_assert(w3 && w1 && w2 && w0);
    ck_assert(w3 < w1 && w1 < w2 && w2 < w0);
    free(a);
    free(b);
}
END_TEST

/* source -> 100 identical replicas -> sink; the path runs through replica
 * 42. */
static viz_dag *fan_dag(void)
{
    char err[256];
    viz_dag *dag;
    ck_assert_int_eq(viz_dag_create(&dag, err, sizeof err), VIZ_OK);
    ck_assert_int_eq(viz_dag_add_vertex(dag, 1, "split", 1000), VIZ_OK);
    ck_assert_int_eq(viz_dag_add_vertex(dag, 2, "merge", 2000), VIZ_OK);
    for (uint64_t r = 0; r < 100; r++) {
        ck_assert_int_eq(viz_dag_add_vertex(dag, 100 + r, "mc.sim", 5000 + (viz_time)r), VIZ_OK);
        ck_assert_int_eq(viz_dag_add_edge(dag, 1, 100 + r), VIZ_OK);
        ck_assert_int_eq(viz_dag_add_edge(dag, 100 + r, 2), VIZ_OK);
    }
    uint64_t path[] = {1, 142, 2};
    ck_assert_int_eq(viz_dag_set_critical_path(dag, path, 3), VIZ_OK);
    return dag;
}

START_TEST(dag_collapses_repeats_and_keeps_the_path)
{
    viz_dag *dag = fan_dag();
    size_t nodes = 0;
    ck_assert_int_eq(viz_dag_collapsed_size(dag, &nodes), VIZ_OK);
    ck_assert_int_eq(nodes, 4); /* split, merge, replica 42, "mc.sim ×99" */
    char dot[256];
    vt_temp_path(dot, sizeof dot, "dag.dot");
    ck_assert_msg(viz_dag_render(dag, dot, NULL) == VIZ_OK, "%s", viz_dag_error(dag));
    char *doc = vt_read_file(dot, NULL);
    ck_assert_ptr_nonnull(doc);
    ck_assert_msg(strstr(doc, "mc.sim ×99"), "no collapsed node:\n%s", doc);
    /* two red path edges and three outlined path nodes */
    size_t red = 0;
    for (const char *p = doc; (p = strstr(p, "#d01010")); p++)
        red++;
    ck_assert_msg(red == 5, "want 3 red nodes + 2 red edges, got %zu:\n%s", red, doc);
    free(doc);
    viz_dag_config flat = {.collapse = false};
    ck_assert_int_eq(viz_dag_render(dag, dot, &flat), VIZ_OK);
    doc = vt_read_file(dot, NULL);
    ck_assert_ptr_null(strstr(doc, "×99"));
    free(doc);
    char svg[256];
    vt_temp_path(svg, sizeof svg, "dag.svg");
    ck_assert_msg(viz_dag_render(dag, svg, NULL) == VIZ_OK, "%s", viz_dag_error(dag));
    doc = vt_read_file(svg, NULL);
    ck_assert_ptr_null(vt_xml_check(doc));
    ck_assert_ptr_nonnull(strstr(doc, "critical path"));
    free(doc);
    remove(dot);
    remove(svg);
    viz_dag_destroy(dag);
}
END_TEST

START_TEST(dag_collapses_parallel_chains)
{
    /* split -> 50 chains a -> b -> c -> merge, path through chain 7: the
     * other chains become a×49 -> b×49 -> c×49 */
    char err[256];
    viz_dag *dag;
    ck_assert_int_eq(viz_dag_create(&dag, err, sizeof err), VIZ_OK);
    ck_assert_int_eq(viz_dag_add_vertex(dag, 1, "split", 10), VIZ_OK);
    ck_assert_int_eq(viz_dag_add_vertex(dag, 2, "merge", 10), VIZ_OK);
    for (uint64_t c = 0; c < 50; c++) {
        uint64_t a = 100 + 3 * c;
        ck_assert_int_eq(viz_dag_add_vertex(dag, a, "a", 10), VIZ_OK);
        ck_assert_int_eq(viz_dag_add_vertex(dag, a + 1, "b", 10), VIZ_OK);
        ck_assert_int_eq(viz_dag_add_vertex(dag, a + 2, "c", 10), VIZ_OK);
        ck_assert_int_eq(viz_dag_add_edge(dag, 1, a), VIZ_OK);
        ck_assert_int_eq(viz_dag_add_edge(dag, a, a + 1), VIZ_OK);
        ck_assert_int_eq(viz_dag_add_edge(dag, a + 1, a + 2), VIZ_OK);
        ck_assert_int_eq(viz_dag_add_edge(dag, a + 2, 2), VIZ_OK);
    }
    uint64_t path[] = {1, 121, 122, 123, 2};
    ck_assert_int_eq(viz_dag_set_critical_path(dag, path, 5), VIZ_OK);
    size_t nodes = 0;
    ck_assert_int_eq(viz_dag_collapsed_size(dag, &nodes), VIZ_OK);
    ck_assert_int_eq(nodes, 8);
    viz_dag_destroy(dag);
}
END_TEST

START_TEST(dag_refuses_bad_input)
{
    char err[256];
    viz_dag *dag;
    ck_assert_int_eq(viz_dag_create(&dag, err, sizeof err), VIZ_OK);
    ck_assert_int_eq(viz_dag_add_vertex(dag, 1, "a", 1), VIZ_OK);
    ck_assert_int_eq(viz_dag_add_vertex(dag, 2, "b", 1), VIZ_OK);
    ck_assert_int_eq(viz_dag_add_vertex(dag, 1, "again", 1), VIZ_EINVAL);
    ck_assert_int_eq(viz_dag_add_edge(dag, 1, 9), VIZ_EINVAL);
    ck_assert_ptr_nonnull(strstr(viz_dag_error(dag), "9"));
    uint64_t bad_path[] = {1, 7};
    ck_assert_int_eq(viz_dag_set_critical_path(dag, bad_path, 2), VIZ_EINVAL);
    ck_assert_int_eq(viz_dag_add_edge(dag, 1, 2), VIZ_OK);
    ck_assert_int_eq(viz_dag_add_edge(dag, 2, 1), VIZ_OK);
    size_t nodes;
    ck_assert_int_eq(viz_dag_collapsed_size(dag, &nodes), VIZ_EINVAL);
    ck_assert_ptr_nonnull(strstr(viz_dag_error(dag), "cycle"));
    viz_dag_destroy(dag);

    ck_assert_int_eq(viz_dag_create(&dag, err, sizeof err), VIZ_OK);
    char path[256];
    vt_temp_path(path, sizeof path, "bad.dag");
    ck_assert(vt_write_file(path, "vertex 1 10 a\nvertex 2 - b c\nedge 1 2\npath 1 2\nedge 1 x\n"));
    FILE *in = fopen(path, "r");
    ck_assert_int_eq(viz_read_dag_text(in, "bad.dag", dag, err, sizeof err), VIZ_EFORMAT);
    fclose(in);
    ck_assert_msg(strncmp(err, "bad.dag:5:", 10) == 0, "got '%s'", err);
    remove(path);
    viz_dag_destroy(dag);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("viz_graphs");
    TCase *tc = tcase_create("graphs");
    tcase_set_timeout(tc, 240);
    tcase_add_test(tc, net_dot_has_every_task_and_stream);
    tcase_add_test(tc, net_svg_and_png_render);
    tcase_add_test(tc, net_traffic_counts_reads_or_writes);
    tcase_add_test(tc, net_clusters_in_order_met);
    tcase_add_test(tc, dag_collapses_repeats_and_keeps_the_path);
    tcase_add_test(tc, dag_collapses_parallel_chains);
    tcase_add_test(tc, dag_refuses_bad_input);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
