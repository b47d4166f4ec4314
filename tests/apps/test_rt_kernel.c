/*
 * test_rt_kernel.c - unit tests of the ray-tracing kernel (apps/rt): scenes
 * are a pure function of (index, seed), rendering is deterministic (same
 * checksum twice), different scenes give different images, scene costs
 * differ (so load balancing matters), and PPM output has the right size.
 */
#include <check.h>
#include <raytrace.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static uint64_t render_checksum(unsigned index, uint64_t seed)
{
    rt_scene s;
    rt_scene_generate(&s, index, seed);
    rt_image img;
    ck_assert_int_eq(rt_image_init(&img, 64, 48), 0);
    rt_render(&s, &img);
    uint64_t h = rt_image_checksum(&img);
    rt_image_free(&img);
    return h;
}

START_TEST(test_scene_pure)
{
    rt_scene a, b;
    rt_scene_generate(&a, 5, 42);
    rt_scene_generate(&b, 5, 42);
    ck_assert(memcmp(&a, &b, sizeof a) == 0);
    ck_assert_uint_ge(a.num_spheres, 4);
    ck_assert_uint_le(a.num_spheres, RT_MAX_SPHERES);
}
END_TEST

START_TEST(test_render_deterministic)
{
    ck_assert_uint_eq(render_checksum(3, 42), render_checksum(3, 42));
    ck_assert_uint_ne(render_checksum(3, 42), render_checksum(4, 42));
}
END_TEST

START_TEST(test_costs_vary)
{
    uint64_t lo = UINT64_MAX, hi = 0;
    for (unsigned i = 0; i < 20; i++) {
        rt_scene s;
        rt_scene_generate(&s, i, 42);
        uint64_t c = rt_scene_cost(&s, 64, 48);
        lo = c < lo ? c : lo;
        hi = c > hi ? c : hi;
    }
    ck_assert_uint_gt(hi, 2 * lo);
}
END_TEST

START_TEST(test_image_not_blank)
{
    rt_scene s;
    rt_scene_generate(&s, 0, 42);
    rt_image img;
    ck_assert_int_eq(rt_image_init(&img, 32, 24), 0);
    rt_render(&s, &img);
    size_t distinct = 0;
    for (size_t i = 3; i < 32 * 24 * 3; i += 3)
        distinct += memcmp(img.rgb + i, img.rgb + i - 3, 3) != 0;
    ck_assert_uint_gt(distinct, 50);
    rt_image_free(&img);
}
END_TEST

START_TEST(test_ppm_size)
{
    rt_image img;
    ck_assert_int_eq(rt_image_init(&img, 10, 7), 0);
    char path[] = "/tmp/rt_kernel_test_XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    close(fd);
    ck_assert_int_eq(rt_image_write_ppm(&img, path), 0);
    struct stat st;
    ck_assert_int_eq(stat(path, &st), 0);
    ck_assert_int_eq(st.st_size, (off_t)strlen("P6\n10 7\n255\n") + 10 * 7 * 3);
    unlink(path);
    rt_image_free(&img);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("rt_kernel");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_scene_pure);
    tcase_add_test(tc, test_render_deterministic);
    tcase_add_test(tc, test_costs_vary);
    tcase_add_test(tc, test_image_not_blank);
    tcase_add_test(tc, test_ppm_size);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
