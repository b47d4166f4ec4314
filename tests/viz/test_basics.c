/*
 * test_basics.c - the visualiser's small pieces: durations parsed and
 * printed, axis steps and labels, task kinds from net paths, period-end
 * tokens, and distinct stable colours for kinds.
 */
#include "viz.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

START_TEST(durations_parse)
{
    viz_time t;
    ck_assert(viz_parse_duration("12", &t) && t == 12);
    ck_assert(viz_parse_duration("1.5ms", &t) && t == 1500000);
    ck_assert(viz_parse_duration("250us", &t) && t == 250000);
    ck_assert(viz_parse_duration("3s", &t) && t == 3000000000LL);
    ck_assert(viz_parse_duration("40ns", &t) && t == 40);
    ck_assert(!viz_parse_duration("12 parsecs", &t));
    ck_assert(!viz_parse_duration("", &t));
    ck_assert(!viz_parse_duration("ms", &t));
}
END_TEST

START_TEST(period_end_tokens_round_trip)
{
    for (int i = 0; i < VIZ_END_COUNT; i++) {
        viz_period_end how;
        ck_assert(viz_period_end_parse(viz_period_end_token((viz_period_end)i), &how));
        ck_assert_int_eq(how, i);
        ck_assert(strlen(viz_period_end_label((viz_period_end)i)) > 0);
    }
    viz_period_end how;
    ck_assert(!viz_period_end_parse("sideways", &how));
}
END_TEST

START_TEST(kind_colours_distinct_and_stable)
{
    /* 12 kinds get 12 distinct colours, none grey or white, and a kind keeps
     * its colour when another kind joins */
    char err[256];
    viz_timeline *a, *b;
    ck_assert_int_eq(viz_timeline_create(&a, NULL, err, sizeof err), VIZ_OK);
    ck_assert_int_eq(viz_timeline_create(&b, NULL, err, sizeof err), VIZ_OK);
    unsigned char colours[12][3];
    for (int i = 0; i < 12; i++) {
        char name[32];
        snprintf(name, sizeof name, "S%d:kind%d", i, i);
        ck_assert_int_eq(viz_timeline_add_task(a, (uint64_t)i, name, NULL), VIZ_OK);
        ck_assert_int_eq(viz_timeline_add_task(b, (uint64_t)i, name, NULL), VIZ_OK);
    }
    ck_assert_int_eq(viz_timeline_add_task(b, 99, "S9:newcomer", NULL), VIZ_OK);
    for (int i = 0; i < 12; i++) {
        char kind[32];
        unsigned char other[3];
        snprintf(kind, sizeof kind, "kind%d", i);
        ck_assert_int_eq(viz_timeline_colour(a, kind, colours[i]), VIZ_OK);
        ck_assert_int_eq(viz_timeline_colour(b, kind, other), VIZ_OK);
        ck_assert_msg(!memcmp(colours[i], other, 3), "%s changed colour", kind);
        bool greyish = abs(colours[i][0] - colours[i][1]) < 12 && abs(colours[i][1] - colours[i][2]) < 12;
        ck_assert_msg(!greyish, "%s is grey", kind);
        for (int j = 0; j < i; j++)
            ck_assert_msg(memcmp(colours[i], colours[j], 3), "kind%d and kind%d share a colour", i, j);
    }
    viz_timeline_destroy(a);
    viz_timeline_destroy(b);
}
END_TEST

START_TEST(many_kinds_share_one_colour_beyond_the_cap)
{
    char err[256];
    viz_timeline *tl;
    ck_assert_int_eq(viz_timeline_create(&tl, NULL, err, sizeof err), VIZ_OK);
    for (int i = 0; i < 40; i++) {
        char name[32];
        snprintf(name, sizeof name, "S%d:k%02d", i, i);
        ck_assert_int_eq(viz_timeline_add_task(tl, (uint64_t)i, name, NULL), VIZ_OK);
    }
    unsigned char rgb[3];
    ck_assert_int_eq(viz_timeline_colour(tl, "k00", rgb), VIZ_OK);
    ck_assert_int_eq(viz_timeline_colour(tl, "k31", rgb), VIZ_OK);
    ck_assert_int_ne(viz_timeline_colour(tl, "k32", rgb), VIZ_OK); /* folded */
    ck_assert_int_eq(viz_timeline_colour(tl, "(other kinds)", rgb), VIZ_OK);
    viz_timeline_stats s;
    viz_timeline_get_stats(tl, &s);
    ck_assert_int_eq(s.kinds, 33);
    viz_timeline_destroy(tl);
}
END_TEST

START_TEST(config_is_checked)
{
    char err[256];
    viz_timeline *tl;
    viz_timeline_config window = {.has_window = true, .from = 10, .to = 10};
    ck_assert_int_eq(viz_timeline_create(&tl, &window, err, sizeof err), VIZ_EINVAL);
    ck_assert_ptr_nonnull(strstr(err, "window"));
    viz_timeline_config huge = {.width = 100000};
    ck_assert_int_eq(viz_timeline_create(&tl, &huge, err, sizeof err), VIZ_EINVAL);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("viz_basics");
    TCase *tc = tcase_create("basics");
    tcase_add_test(tc, durations_parse);
    tcase_add_test(tc, period_end_tokens_round_trip);
    tcase_add_test(tc, kind_colours_distinct_and_stable);
    tcase_add_test(tc, many_kinds_share_one_colour_beyond_the_cap);
    tcase_add_test(tc, config_is_checked);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
