/*
 * test_report.c - the HTML report writer (viz_report) on its own: facts,
 * tables with their sort values, escaping, the embedded timeline with one
 * lane per worker and the path over it, the advice section only when set,
 * and nothing that would make a browser fetch a file.
 */
#include "viz.h"

#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The report as a string (malloc'ed). */
static char *write_to_string(viz_report *r)
{
    char *doc = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&doc, &len);
    ck_assert_ptr_nonnull(mem);
    ck_assert_int_eq(viz_report_write(r, mem), VIZ_OK);
    fclose(mem);
    return doc;
}

static size_t count(const char *hay, const char *needle)
{
    size_t n = 0;
    for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
        n++;
    return n;
}

/* Three workers (0, 1 and 3), two kinds, a wait. */
static viz_timeline *small_timeline(void)
{
    char err[256];
    viz_timeline *tl;
    ck_assert_int_eq(viz_timeline_create(&tl, NULL, err, sizeof err), VIZ_OK);
    ck_assert_int_eq(viz_timeline_add_task(tl, 1, "S1:stage", NULL), VIZ_OK);
    ck_assert_int_eq(viz_timeline_add_task(tl, 2, "S2:sink", NULL), VIZ_OK);
    ck_assert_int_eq(viz_timeline_add_period(tl, 0, 1, 0, 4000, VIZ_END_BLOCKED_OUTPUT), VIZ_OK);
    ck_assert_int_eq(viz_timeline_add_period(tl, 1, 2, 1000, 9000, VIZ_END_DESTROYED), VIZ_OK);
    ck_assert_int_eq(viz_timeline_add_period(tl, 3, 1, 5000, 8000, VIZ_END_YIELDED), VIZ_OK);
    ck_assert_int_eq(viz_timeline_add_wait(tl, 0, 4000, 10000), VIZ_OK);
    return tl;
}

START_TEST(tables_facts_and_escaping)
{
    char err[256];
    viz_report *r;
    ck_assert_int_eq(viz_report_create(&r, "Run <1> & co", err, sizeof err), VIZ_OK);
    ck_assert_int_eq(viz_report_add_meta(r, "host", "vm\"1\""), VIZ_OK);
    ck_assert_int_eq(viz_report_add_heading(r, "tasks", "Tasks"), VIZ_OK);
    viz_report_cell early[] = {{"x", 1}};
    ck_assert_int_eq(viz_report_add_row(r, early, false), VIZ_EINVAL); /* no table yet */
    viz_report_column cols[] = {{"name", false}, {"time", true}};
    ck_assert_int_eq(viz_report_add_table(r, "t", cols, 2, true), VIZ_OK);
    viz_report_cell row1[] = {{"a<b", NAN}, {"1.5 ms", 0.0015}};
    viz_report_cell row2[] = {{"c", NAN}, {"n/a", NAN}};
    ck_assert_int_eq(viz_report_add_row(r, row1, true), VIZ_OK);
    ck_assert_int_eq(viz_report_add_row(r, row2, false), VIZ_OK);
    char *doc = write_to_string(r);
    ck_assert_ptr_nonnull(strstr(doc, "<title>Run &lt;1&gt; &amp; co</title>"));
    ck_assert_ptr_nonnull(strstr(doc, "<td>vm&quot;1&quot;</td>"));
    ck_assert_ptr_nonnull(strstr(doc, "<a href=\"#tasks\">Tasks</a>"));
    ck_assert_ptr_nonnull(strstr(doc, "<table id=\"t\" class=\"data sortable\">"));
    ck_assert_ptr_nonnull(strstr(doc, "<tr class=\"hl\"><td>a&lt;b</td><td class=\"num\" data-v=\"0.0015"));
    /* An unknown value has no sort value: it sorts last. */
    ck_assert_ptr_nonnull(strstr(doc, "<td>c</td><td class=\"num\">n/a</td>"));
    ck_assert_ptr_null(strstr(doc, "id=\"advice\""));
    ck_assert_ptr_nonnull(strstr(doc, "Content-Security-Policy"));
    ck_assert_ptr_nonnull(strstr(doc, "<pre id=\"selftest\""));
    free(doc);
    viz_report_destroy(r);
}
END_TEST

START_TEST(timeline_lanes_and_path)
{
    char err[256];
    viz_report *r;
    viz_timeline *tl = small_timeline();
    ck_assert_int_eq(viz_report_create(&r, NULL, err, sizeof err), VIZ_OK);
    ck_assert_int_eq(viz_report_add_timeline(r, tl), VIZ_OK);
    ck_assert_int_eq(viz_report_add_path_point(r, 0, 2000, "first"), VIZ_OK);
    ck_assert_int_eq(viz_report_add_path_point(r, 3, 7000, "second"), VIZ_OK);
    ck_assert_int_eq(viz_report_add_path_point(r, 7, 7000, "not drawn: no worker 7"), VIZ_OK);
    ck_assert_int_eq(viz_report_set_advice(r, "run <more> workers"), VIZ_OK);
    char *doc = write_to_string(r);
    /* One lane per worker drawn, in worker order, and the count the page
     * checks itself against. */
    ck_assert_uint_eq(count(doc, "<rect class=\"lane\""), 3);
    ck_assert_ptr_nonnull(strstr(doc, "data-lanes=\"3\""));
    const char *w0 = strstr(doc, "data-worker=\"0\""), *w1 = strstr(doc, "data-worker=\"1\""),
               *w3 = strstr(doc, "data-worker=\"3\"");
    ck_assert(w0 && w1 && w3 && w0 < w1 && w1 < w3);
    /* The cairo drawing is inside, without its XML prolog. */
    ck_assert_ptr_null(strstr(doc, "<?xml"));
    ck_assert_ptr_nonnull(strstr(doc, "<svg id=\"timeline\""));
    ck_assert_uint_ge(count(doc, "<path"), 1);
    /* Path: two points on drawn workers. */
    ck_assert_uint_eq(count(doc, "<circle"), 2);
    ck_assert_ptr_nonnull(strstr(doc, "<title>second</title>"));
    ck_assert_ptr_nonnull(strstr(doc, "id=\"advice\""));
    ck_assert_ptr_nonnull(strstr(doc, "run &lt;more&gt; workers"));
    /* Nothing to fetch: every href is a fragment. */
    for (const char *p = strstr(doc, "href=\""); p; p = strstr(p + 1, "href=\""))
        ck_assert_int_eq(p[6], '#');
    ck_assert_ptr_null(strstr(doc, " src=\""));
    free(doc);
    viz_report_destroy(r);
    viz_timeline_destroy(tl);
    viz_release_font_caches();
}
END_TEST

START_TEST(timeline_colours_are_the_images)
{
    /* The report embeds the timeline's own SVG, so a kind's colour in it
     * is the one viz_timeline_colour gives (and the PNG uses). */
    char err[256], hex[32];
    unsigned char rgb[3];
    viz_report *r;
    viz_timeline *tl = small_timeline();
    ck_assert_int_eq(viz_report_create(&r, "colours", err, sizeof err), VIZ_OK);
    ck_assert_int_eq(viz_report_add_timeline(r, tl), VIZ_OK);
    char *doc = write_to_string(r);
    ck_assert_int_eq(viz_timeline_colour(tl, "stage", rgb), VIZ_OK);
    /* cairo writes colours as rgb(R%,G%,B%), up to 6 decimals, no
     * trailing zeros. */
    char want[64] = "rgb(";
    for (int c = 0; c < 3; c++) {
        snprintf(hex, sizeof hex, "%.6f", rgb[c] * 100.0 / 255.0);
        char *end = hex + strlen(hex) - 1;
        while (*end == '0')
            *end-- = '\0';
        if (*end == '.')
            *end = '\0';
        strcat(want, hex);
        strcat(want, c < 2 ? "%," : "%)");
    }
    ck_assert_msg(strstr(doc, want) != NULL, "%s not in the report", want);
    free(doc);
    viz_report_destroy(r);
    viz_timeline_destroy(tl);
    viz_release_font_caches();
}
END_TEST

int main(void)
{
    Suite *s = suite_create("viz_report");
    TCase *tc = tcase_create("report");
    tcase_add_test(tc, tables_facts_and_escaping);
    tcase_add_test(tc, timeline_lanes_and_path);
    tcase_add_test(tc, timeline_colours_are_the_images);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
