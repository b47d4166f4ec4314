/*
 * test_timeline.c - the worker-utilisation image, checked from its pixels:
 * task colours inside known execution periods, grey in known waits, white in
 * unaccounted gaps, the busy fraction per row when a million periods are
 * binned, zoom and task filtering, truncated input, and the SVG's
 * well-formedness and labels.
 */
#include "mon_reader.h"
#include "viz.h"
#include "viz_test_util.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/parser.h>

#define SAMPLE_TOL 6

/* The y pixel of time t (absolute) in the image about to be rendered. */
static int row_of(const viz_timeline_geometry *g, viz_time t)
{
    return g->plot_y + (int)((double)(t - g->start) * g->plot_h / (double)(g->end - g->start));
}

/* An x inside column c that never holds label text or message marks:
 * labels end before the right-hand mark strip, marks only where messages
 * are. */
static int clean_x(const viz_timeline_geometry *g, int column)
{
    return g->plot_x + column * (g->col_w + g->col_gap) + g->col_w - 4;
}

static int middle_x(const viz_timeline_geometry *g, int column)
{
    return g->plot_x + column * (g->col_w + g->col_gap) + g->col_w / 2;
}

static void colour_of(viz_timeline *tl, const char *kind, unsigned char rgb[3])
{
    ck_assert_msg(viz_timeline_colour(tl, kind, rgb) == VIZ_OK, "colour of %s: %s", kind,
                  viz_timeline_error(tl));
}

/* Checks rows t-ish: three rows around time t in column c have colour. */
static void expect_colour(const vt_image *img, const viz_timeline_geometry *g, int column,
                          viz_time t, const unsigned char rgb[3], const char *what)
{
    int y = row_of(g, t), x = clean_x(g, column);
    for (int dy = -2; dy <= 2; dy += 2) {
        unsigned char got[3];
        vt_pixel(img, x, y + dy, got);
        ck_assert_msg(vt_pixel_is(img, x, y + dy, rgb, SAMPLE_TOL),
                      "%s: worker column %d at t=%lld (x=%d y=%d) is %02x%02x%02x, want "
                      "%02x%02x%02x",
                      what, column, (long long)t, x, y + dy, got[0], got[1], got[2], rgb[0],
                      rgb[1], rgb[2]);
    }
}

static viz_timeline *new_timeline(int width, int height)
{
    viz_timeline_config cfg = {.width = width, .height = height};
    viz_timeline *tl;
    char err[256];
    ck_assert_msg(viz_timeline_create(&tl, &cfg, err, sizeof err) == VIZ_OK, "%s", err);
    return tl;
}

/* Two workers, times in ns:
 *   w0: mc.acc 0-4000, wait 4000-6000, gap 6000-7000, mc.out 7000-10000
 *   w1: gap 0-1000, mc.acc 1000-5000, wait 5000-9000, gen 9000-10000 */
static void feed_known(viz_timeline *tl)
{
    ck_assert_int_eq(viz_timeline_add_worker(tl, 0, "worker 0"), VIZ_OK);
    ck_assert_int_eq(viz_timeline_add_worker(tl, 1, "worker 1"), VIZ_OK);
    ck_assert_int_eq(viz_timeline_add_task(tl, 1, "S1:P0:mc.acc", NULL), VIZ_OK);
    ck_assert_int_eq(viz_timeline_add_task(tl, 2, "S2:mc.out", NULL), VIZ_OK);
    ck_assert_int_eq(viz_timeline_add_task(tl, 3, "S1:P1:mc.acc", NULL), VIZ_OK);
    ck_assert_int_eq(viz_timeline_add_task(tl, 4, "S3:gen", NULL), VIZ_OK);
    ck_assert_int_eq(viz_timeline_add_period(tl, 0, 1, 0, 4000, VIZ_END_BLOCKED_INPUT), VIZ_OK);
    ck_assert_int_eq(viz_timeline_add_message(tl, 0, 100, VIZ_MSG_READ), VIZ_OK);
    ck_assert_int_eq(viz_timeline_add_message(tl, 0, 3990, VIZ_MSG_WRITTEN), VIZ_OK);
    ck_assert_int_eq(viz_timeline_add_wait(tl, 0, 4000, 6000), VIZ_OK);
    ck_assert_int_eq(viz_timeline_add_period(tl, 0, 2, 7000, 10000, VIZ_END_DESTROYED), VIZ_OK);
    ck_assert_int_eq(viz_timeline_add_period(tl, 1, 3, 1000, 5000, VIZ_END_BLOCKED_OUTPUT), VIZ_OK);
    ck_assert_int_eq(viz_timeline_add_wait(tl, 1, 5000, 9000), VIZ_OK);
    ck_assert_int_eq(viz_timeline_add_period(tl, 1, 4, 9000, 10000, VIZ_END_YIELDED), VIZ_OK);
}

START_TEST(known_timeline_pixels)
{
    viz_timeline *tl = new_timeline(900, 600);
    feed_known(tl);
    char path[256];
    vt_temp_path(path, sizeof path, "known.png");
    ck_assert_msg(viz_timeline_render(tl, path) == VIZ_OK, "%s", viz_timeline_error(tl));
    viz_timeline_geometry g;
    ck_assert_int_eq(viz_timeline_get_geometry(tl, &g), VIZ_OK);
    ck_assert_int_eq(g.columns, 2);
    ck_assert_int_eq(g.start, 0);
    ck_assert_int_eq(g.end, 10000);
    unsigned char acc[3], out[3], gen[3], grey[3], white[3];
    colour_of(tl, "mc.acc", acc);
    colour_of(tl, "mc.out", out);
    colour_of(tl, "gen", gen);
    colour_of(tl, "(waiting)", grey);
    colour_of(tl, "(unaccounted)", white);
    ck_assert_msg(memcmp(acc, out, 3) && memcmp(acc, gen, 3) && memcmp(out, gen, 3),
                  "kinds need distinct colours");

    vt_image img;
    ck_assert(vt_image_load(&img, path));
    ck_assert_int_eq(img.width, 900);
    ck_assert_int_eq(img.height, 600);
    expect_colour(&img, &g, 0, 2000, acc, "w0 mc.acc");
    expect_colour(&img, &g, 0, 5000, grey, "w0 wait");
    expect_colour(&img, &g, 0, 6500, white, "w0 gap");
    expect_colour(&img, &g, 0, 8500, out, "w0 mc.out");
    expect_colour(&img, &g, 1, 500, white, "w1 gap");
    expect_colour(&img, &g, 1, 3000, acc, "w1 mc.acc");
    expect_colour(&img, &g, 1, 7000, grey, "w1 wait");
    expect_colour(&img, &g, 1, 9500, gen, "w1 gen");
    /* gaps are white across the whole column, not only at the edge */
    ck_assert(vt_pixel_is(&img, middle_x(&g, 0), row_of(&g, 6500), white, 0));
    ck_assert(vt_pixel_is(&img, middle_x(&g, 1), row_of(&g, 500), white, 0));
    /* the read mark sits at the left edge near t=100, not in white */
    int mark_x = g.plot_x + 2, mark_y = row_of(&g, 100);
    unsigned char mark[3];
    vt_pixel(&img, mark_x, mark_y, mark);
    ck_assert_msg(mark[0] < 80 && mark[2] < 140, "read mark missing: %02x%02x%02x", mark[0],
                  mark[1], mark[2]);
    vt_image_free(&img);
    remove(path);
    viz_timeline_destroy(tl);
}
END_TEST

START_TEST(trace_events_match_interval_style)
{
    viz_timeline *tl = new_timeline(700, 500);
    ck_assert_int_eq(viz_timeline_add_task(tl, 1, "S1:mc.acc", NULL), VIZ_OK);
    viz_trace_feeder *f = viz_trace_feeder_new(tl);
    ck_assert_ptr_nonnull(f);
    const mon_event evs[] = {
        {.kind = MON_EV_TASK_DISPATCH, .run = 1, .task = 1, .time = 0},
        {.kind = MON_EV_TASK_BLOCK, .run = 1, .task = 1, .time = 3000, .cause = MON_BLOCK_INPUT},
        {.kind = MON_EV_WORKER_WAIT, .run = 1, .time = 3000},
        {.kind = MON_EV_WORKER_RESUME, .run = 1, .time = 6000},
        {.kind = MON_EV_TASK_DISPATCH, .run = 1, .task = 1, .time = 8000},
        {.kind = MON_EV_TASK_DESTROY, .run = 1, .task = 1, .time = 10000},
    };
    for (size_t i = 0; i < sizeof evs / sizeof evs[0]; i++)
        ck_assert_int_eq(viz_trace_feed(f, &evs[i]), VIZ_OK);
    ck_assert_int_eq(viz_trace_finish(f), VIZ_OK);
    viz_trace_feeder_free(f);
    char path[256];
    vt_temp_path(path, sizeof path, "events.png");
    ck_assert_msg(viz_timeline_render(tl, path) == VIZ_OK, "%s", viz_timeline_error(tl));
    viz_timeline_geometry g;
    ck_assert_int_eq(viz_timeline_get_geometry(tl, &g), VIZ_OK);
    unsigned char acc[3], grey[3], white[3];
    colour_of(tl, "mc.acc", acc);
    colour_of(tl, "(waiting)", grey);
    colour_of(tl, "(unaccounted)", white);
    vt_image img;
    ck_assert(vt_image_load(&img, path));
    expect_colour(&img, &g, 0, 1500, acc, "first period");
    expect_colour(&img, &g, 0, 4500, grey, "wait");
    expect_colour(&img, &g, 0, 7000, white, "gap");
    expect_colour(&img, &g, 0, 9000, acc, "second period");
    vt_image_free(&img);
    remove(path);
    viz_timeline_stats s;
    viz_timeline_get_stats(tl, &s);
    ck_assert_int_eq(s.periods, 2);
    ck_assert_int_eq(s.waits, 1);
    viz_timeline_destroy(tl);
}
END_TEST

START_TEST(svg_is_xml_with_labels)
{
    viz_timeline *tl = new_timeline(900, 600);
    feed_known(tl);
    char path[256];
    vt_temp_path(path, sizeof path, "known.svg");
    ck_assert_msg(viz_timeline_render(tl, path) == VIZ_OK, "%s", viz_timeline_error(tl));
    char *doc = vt_read_file(path, NULL);
    ck_assert_ptr_nonnull(doc);
    const char *problem = vt_xml_check(doc);
    ck_assert_msg(problem == NULL, "SVG not well-formed: %s", problem);
    xmlDocPtr xml = xmlReadFile(path, NULL, XML_PARSE_NONET | XML_PARSE_NOERROR);
    ck_assert_msg(xml != NULL, "libxml2 rejects the SVG");
    ck_assert_str_eq((const char *)xmlDocGetRootElement(xml)->name, "svg");
    xmlFreeDoc(xml);
    const char *labels[] = {"S1:P0:mc.acc", "S1:P1:mc.acc", "S2:mc.out", "S3:gen",
                            "worker 0",     "worker 1",     "mc.acc",    "waiting",
                            "unaccounted",  "blocked in",   "blocked out", "destroyed",
                            "Task kinds",   "µs"};
    for (size_t i = 0; i < sizeof labels / sizeof labels[0]; i++)
        ck_assert_msg(strstr(doc, labels[i]) != NULL, "label '%s' missing from the SVG",
                      labels[i]);
    free(doc);
    remove(path);
    viz_timeline_destroy(tl);
}
END_TEST

/* Fraction of pixels in row y of column c that have colour rgb. */
static double row_share(const vt_image *img, const viz_timeline_geometry *g, int column, int y,
                        const unsigned char rgb[3])
{
    int x0 = g->plot_x + column * (g->col_w + g->col_gap), hits = 0;
    for (int x = x0; x < x0 + g->col_w; x++)
        hits += vt_pixel_is(img, x, y, rgb, 2);
    return (double)hits / g->col_w;
}

START_TEST(million_tiny_periods_bin_to_busy_fraction)
{
    /* w0: 60 ns busy in every 100 ns; w1: 30 ns busy, 50 ns waiting. */
    enum { PERIODS = 1000000 };
    viz_timeline *tl = new_timeline(800, 500);
    ck_assert_int_eq(viz_timeline_add_task(tl, 1, "S1:busy", NULL), VIZ_OK);
    ck_assert_int_eq(viz_timeline_add_task(tl, 2, "S2:half", NULL), VIZ_OK);
    for (viz_time i = 0; i < PERIODS; i++) {
        viz_time t = i * 100;
        ck_assert_int_eq(viz_timeline_add_period(tl, 0, 1, t, t + 60, VIZ_END_BLOCKED_INPUT), VIZ_OK);
        if (i % 2 == 0) {
            /* w1 in 200 ns steps so both workers give 10^6 events */
            ck_assert_int_eq(viz_timeline_add_period(tl, 1, 2, t, t + 60, VIZ_END_YIELDED), VIZ_OK);
            ck_assert_int_eq(viz_timeline_add_wait(tl, 1, t + 60, t + 160), VIZ_OK);
        }
    }
    viz_timeline_stats s;
    viz_timeline_get_stats(tl, &s);
    ck_assert_int_eq(s.periods, PERIODS + PERIODS / 2);
    ck_assert_msg(s.periods_kept == 0, "tiny periods must not be kept (%llu kept)",
                  (unsigned long long)s.periods_kept);
    char path[256];
    vt_temp_path(path, sizeof path, "million.png");
    ck_assert_msg(viz_timeline_render(tl, path) == VIZ_OK, "%s", viz_timeline_error(tl));
    viz_timeline_geometry g;
    ck_assert_int_eq(viz_timeline_get_geometry(tl, &g), VIZ_OK);
    unsigned char busy[3], half[3], grey[3];
    colour_of(tl, "busy", busy);
    colour_of(tl, "half", half);
    colour_of(tl, "(waiting)", grey);
    vt_image img;
    ck_assert(vt_image_load(&img, path));
    double tol = 0.02 + 2.0 / g.col_w;
    for (int y = g.plot_y + 2; y < g.plot_y + g.plot_h - 2; y++) {
        double b = row_share(&img, &g, 0, y, busy);
        double h = row_share(&img, &g, 1, y, half), w = row_share(&img, &g, 1, y, grey);
        ck_assert_msg(b > 0.6 - tol && b < 0.6 + tol, "row %d: w0 busy %.3f, want 0.60", y, b);
        ck_assert_msg(h > 0.3 - tol && h < 0.3 + tol, "row %d: w1 busy %.3f, want 0.30", y, h);
        ck_assert_msg(w > 0.5 - tol && w < 0.5 + tol, "row %d: w1 waiting %.3f, want 0.50", y, w);
    }
    vt_image_free(&img);
    remove(path);
    viz_timeline_destroy(tl);
}
END_TEST

START_TEST(zoom_window_shows_detail)
{
    /* 10^5 periods of 80 ns every 100 ns; the window [5000, 6000) holds ten
     * of them, each tall enough for a label. */
    viz_timeline_config cfg = {.width = 800, .height = 700, .has_window = true, .from = 5000, .to = 6000};
    viz_timeline *tl;
    char err[256];
    ck_assert_msg(viz_timeline_create(&tl, &cfg, err, sizeof err) == VIZ_OK, "%s", err);
    ck_assert_int_eq(viz_timeline_set_origin(tl, 0), VIZ_OK);
    ck_assert_int_eq(viz_timeline_add_task(tl, 1, "S1:work", NULL), VIZ_OK);
    ck_assert_int_eq(viz_timeline_add_task(tl, 55, "S2:special", NULL), VIZ_OK);
    for (viz_time i = 0; i < 100000; i++)
        ck_assert_int_eq(viz_timeline_add_period(tl, 0, i == 55 ? 55 : 1, i * 100, i * 100 + 80,
                                                 VIZ_END_BLOCKED_INPUT), VIZ_OK);
    viz_timeline_stats s;
    viz_timeline_get_stats(tl, &s);
    ck_assert_int_eq(s.periods, 10);
    ck_assert_int_eq(s.periods_kept, 10);
    char png[256], svg[256];
    vt_temp_path(png, sizeof png, "zoom.png");
    vt_temp_path(svg, sizeof svg, "zoom.svg");
    ck_assert_msg(viz_timeline_render(tl, png) == VIZ_OK, "%s", viz_timeline_error(tl));
    ck_assert_msg(viz_timeline_render(tl, svg) == VIZ_OK, "%s", viz_timeline_error(tl));
    viz_timeline_geometry g;
    ck_assert_int_eq(viz_timeline_get_geometry(tl, &g), VIZ_OK);
    ck_assert_int_eq(g.start, 5000);
    ck_assert_int_eq(g.end, 6000);
    unsigned char special[3], work[3], white[3];
    colour_of(tl, "special", special);
    colour_of(tl, "work", work);
    colour_of(tl, "(unaccounted)", white);
    vt_image img;
    ck_assert(vt_image_load(&img, png));
    expect_colour(&img, &g, 0, 5540, special, "the special period");
    expect_colour(&img, &g, 0, 5640, work, "its successor");
    expect_colour(&img, &g, 0, 5690, white, "the gap after it");
    vt_image_free(&img);
    char *doc = vt_read_file(svg, NULL);
    ck_assert_ptr_nonnull(doc);
    ck_assert_msg(strstr(doc, "S2:special") != NULL, "zoomed period has no label");
    ck_assert_msg(strstr(doc, "80 ns, blocked in") != NULL, "no execution time in the label");
    free(doc);
    remove(png);
    remove(svg);
    viz_timeline_destroy(tl);
}
END_TEST

START_TEST(task_regex_keeps_matching_tasks)
{
    viz_timeline_config cfg = {.width = 700, .height = 500, .task_regex = "acc$"};
    viz_timeline *tl;
    char err[256];
    ck_assert_msg(viz_timeline_create(&tl, &cfg, err, sizeof err) == VIZ_OK, "%s", err);
    ck_assert_int_eq(viz_timeline_add_task(tl, 1, "S1:mc.acc", NULL), VIZ_OK);
    ck_assert_int_eq(viz_timeline_add_task(tl, 2, "S2:mc.out", NULL), VIZ_OK);
    ck_assert_int_eq(viz_timeline_add_period(tl, 0, 1, 0, 5000, VIZ_END_BLOCKED_INPUT), VIZ_OK);
    ck_assert_int_eq(viz_timeline_add_period(tl, 0, 2, 5000, 10000, VIZ_END_BLOCKED_INPUT), VIZ_OK);
    char path[256];
    vt_temp_path(path, sizeof path, "regex.png");
    ck_assert_msg(viz_timeline_render(tl, path) == VIZ_OK, "%s", viz_timeline_error(tl));
    viz_timeline_geometry g;
    ck_assert_int_eq(viz_timeline_get_geometry(tl, &g), VIZ_OK);
    unsigned char acc[3], filtered[3];
    colour_of(tl, "mc.acc", acc);
    colour_of(tl, "(filtered out)", filtered);
    unsigned char none[3];
    ck_assert_int_ne(viz_timeline_colour(tl, "mc.out", none), VIZ_OK); /* never drawn */
    vt_image img;
    ck_assert(vt_image_load(&img, path));
    expect_colour(&img, &g, 0, 2500, acc, "matching task");
    expect_colour(&img, &g, 0, 7500, filtered, "filtered-out task");
    vt_image_free(&img);
    remove(path);
    viz_timeline_destroy(tl);

    /* a bad pattern is refused with a message */
    viz_timeline_config bad = {.task_regex = "(unclosed"};
    ck_assert_int_eq(viz_timeline_create(&tl, &bad, err, sizeof err), VIZ_EINVAL);
    ck_assert_msg(strstr(err, "(unclosed") != NULL, "message should name the pattern: %s", err);
}
END_TEST

START_TEST(truncated_input_renders_up_to_the_cut)
{
    const char *text = "# snetmon timeline v1\n"
                       "worker 0 first worker\n"
                       "task 1 0 S1:mc.acc\n"
                       "task 2 1 S2:mc.out\n"
                       "run 0 1 0 4000 input\n"
                       "wait 0 4000 6000\n"
                       "dispatch 1 2 3000\n"
                       "read 1 5000 2\n"
                       "run 0 1 6000 8000 output\n"
                       "run 0 1 8000 99"; /* cut mid-line */
    char path[256], png[256];
    vt_temp_path(path, sizeof path, "cut.tl");
    vt_temp_path(png, sizeof png, "cut.png");
    ck_assert(vt_write_file(path, text));
    viz_timeline *tl = new_timeline(700, 500);
    FILE *in = fopen(path, "r");
    bool truncated = false;
    char err[256] = "";
    ck_assert_int_eq(viz_read_timeline_text(in, path, tl, NULL, &truncated, err, sizeof err), VIZ_OK);
    fclose(in);
    ck_assert(truncated);
    ck_assert_msg(strstr(err, ":10:") && strstr(err, "truncated"), "warning should name line 10: %s", err);
    ck_assert_msg(viz_timeline_render(tl, png) == VIZ_OK, "%s", viz_timeline_error(tl));
    viz_timeline_geometry g;
    ck_assert_int_eq(viz_timeline_get_geometry(tl, &g), VIZ_OK);
    ck_assert_int_eq(g.end, 8000); /* the last complete record */
    unsigned char acc[3], out[3], grey[3];
    colour_of(tl, "mc.acc", acc);
    colour_of(tl, "mc.out", out);
    colour_of(tl, "(waiting)", grey);
    vt_image img;
    ck_assert(vt_image_load(&img, png));
    expect_colour(&img, &g, 0, 2000, acc, "before the cut");
    expect_colour(&img, &g, 0, 5000, grey, "wait before the cut");
    expect_colour(&img, &g, 0, 7000, acc, "last complete period");
    /* worker 1's task was still running when the trace ends: drawn open */
    expect_colour(&img, &g, 1, 6000, out, "open period");
    vt_image_free(&img);
    remove(path);
    remove(png);
    viz_timeline_destroy(tl);
}
END_TEST

START_TEST(bad_input_is_reported_with_file_and_line)
{
    const char *text = "task 1 0 S1:a\n"
                       "run 0 1 0 10 input\n"
                       "run 0 1 20 10 input\n";
    char path[256];
    vt_temp_path(path, sizeof path, "bad.tl");
    ck_assert(vt_write_file(path, text));
    viz_timeline *tl = new_timeline(0, 0);
    FILE *in = fopen(path, "r");
    char err[256] = "";
    ck_assert_int_eq(viz_read_timeline_text(in, "bad.tl", tl, NULL, NULL, err, sizeof err), VIZ_EFORMAT);
    fclose(in);
    ck_assert_msg(strncmp(err, "bad.tl:3: ", 10) == 0, "got '%s'", err);

    const char *cases[] = {"frobnicate 1 2\n", "run 0 1 0 10 sideways\n", "wait x 0 1\n",
                           "task 1 0\n", "stream 1 a b 3\n"};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ck_assert(vt_write_file(path, cases[i]));
        in = fopen(path, "r");
        ck_assert_int_eq(viz_read_timeline_text(in, "x.tl", tl, NULL, NULL, err, sizeof err), VIZ_EFORMAT);
        fclose(in);
        ck_assert_msg(strncmp(err, "x.tl:1: ", 8) == 0, "case %zu: got '%s'", i, err);
    }
    ck_assert_int_eq(viz_timeline_add_period(tl, 0, 1, 10, 5, VIZ_END_YIELDED), VIZ_EINVAL);
    ck_assert_ptr_nonnull(strstr(viz_timeline_error(tl), "before it starts"));
    ck_assert_int_eq(viz_timeline_add_wait(tl, -1, 0, 5), VIZ_EINVAL);
    remove(path);
    viz_timeline_destroy(tl);
}
END_TEST

START_TEST(earlier_events_from_another_worker)
{
    /* worker 1 starts long after worker 0's first event is delivered... and
     * worker 0's events come later than worker 1's in delivery order: the
     * bins have to grow to the left as well as to the right */
    viz_timeline *tl = new_timeline(700, 500);
    ck_assert_int_eq(viz_timeline_add_task(tl, 1, "S1:late", NULL), VIZ_OK);
    ck_assert_int_eq(viz_timeline_add_task(tl, 2, "S2:early", NULL), VIZ_OK);
    ck_assert_int_eq(viz_timeline_add_period(tl, 1, 1, 600000, 1000000, VIZ_END_YIELDED), VIZ_OK);
    ck_assert_int_eq(viz_timeline_add_period(tl, 0, 2, 0, 300000, VIZ_END_YIELDED), VIZ_OK);
    ck_assert_int_eq(viz_timeline_add_wait(tl, 0, 300000, 500000), VIZ_OK);
    char path[256];
    vt_temp_path(path, sizeof path, "left.png");
    ck_assert_msg(viz_timeline_render(tl, path) == VIZ_OK, "%s", viz_timeline_error(tl));
    viz_timeline_geometry g;
    ck_assert_int_eq(viz_timeline_get_geometry(tl, &g), VIZ_OK);
    ck_assert_int_eq(g.start, 0);
    ck_assert_int_eq(g.end, 1000000);
    unsigned char late[3], early[3], grey[3], white[3];
    colour_of(tl, "late", late);
    colour_of(tl, "early", early);
    colour_of(tl, "(waiting)", grey);
    colour_of(tl, "(unaccounted)", white);
    vt_image img;
    ck_assert(vt_image_load(&img, path));
    expect_colour(&img, &g, 0, 150000, early, "early period");
    expect_colour(&img, &g, 0, 400000, grey, "wait");
    expect_colour(&img, &g, 0, 800000, white, "after worker 0's events");
    expect_colour(&img, &g, 1, 300000, white, "before worker 1's events");
    expect_colour(&img, &g, 1, 800000, late, "late period");
    vt_image_free(&img);
    remove(path);
    viz_timeline_destroy(tl);
}
END_TEST

START_TEST(empty_timeline_still_renders)
{
    viz_timeline *tl = new_timeline(400, 300);
    char path[256];
    vt_temp_path(path, sizeof path, "empty.png");
    ck_assert_msg(viz_timeline_render(tl, path) == VIZ_OK, "%s", viz_timeline_error(tl));
    vt_image img;
    ck_assert(vt_image_load(&img, path));
    vt_image_free(&img);
    remove(path);
    ck_assert_int_eq(viz_timeline_render(tl, "x.bmp"), VIZ_EINVAL);
    viz_timeline_destroy(tl);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("viz_timeline");
    TCase *tc = tcase_create("timeline");
    tcase_set_timeout(tc, 240);
    tcase_add_test(tc, known_timeline_pixels);
    tcase_add_test(tc, trace_events_match_interval_style);
    tcase_add_test(tc, svg_is_xml_with_labels);
    tcase_add_test(tc, million_tiny_periods_bin_to_busy_fraction);
    tcase_add_test(tc, zoom_window_shows_detail);
    tcase_add_test(tc, task_regex_keeps_matching_tasks);
    tcase_add_test(tc, truncated_input_renders_up_to_the_cut);
    tcase_add_test(tc, bad_input_is_reported_with_file_and_line);
    tcase_add_test(tc, earlier_events_from_another_worker);
    tcase_add_test(tc, empty_timeline_still_renders);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
