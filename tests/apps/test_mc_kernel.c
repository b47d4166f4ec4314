/*
 * test_mc_kernel.c - unit tests of the Monte-Carlo kernel (apps/mc):
 * Black-Scholes against a published value, path values independent of
 * evaluation order, batches merging to the same fixed-point sums in any
 * order, normal variates with mean ~0 and variance ~1, and the price
 * within 3 standard errors of Black-Scholes.
 */
#include <check.h>
#include <pricing.h>

#include <math.h>
#include <stdlib.h>

START_TEST(test_black_scholes_reference)
{
    /* S=100, K=100, r=5%, sigma=20%, T=1: the textbook 10.4506. */
    mc_option o = mc_option_default();
    o.strike = 100;
    ck_assert_double_eq_tol(black_scholes_call(&o), 10.4506, 1e-4);
}
END_TEST

START_TEST(test_path_value_is_pure)
{
    mc_option o = mc_option_default();
    double first = mc_path_value(&o, 12345);
    for (uint64_t p = 0; p < 100; p++)
        (void)mc_path_value(&o, p);
    ck_assert(mc_path_value(&o, 12345) == first);
}
END_TEST

START_TEST(test_merge_order_irrelevant)
{
    mc_option o = mc_option_default();
    mc_sum a = mc_batch(&o, 0, 500), b = mc_batch(&o, 500, 500), c = mc_batch(&o, 1000, 500);
    mc_sum x = {0, 0, 0}, y = {0, 0, 0};
    mc_sum_merge(&x, &a); mc_sum_merge(&x, &b); mc_sum_merge(&x, &c);
    mc_sum_merge(&y, &c); mc_sum_merge(&y, &a); mc_sum_merge(&y, &b);
    mc_sum whole = mc_batch(&o, 0, 1500);
    ck_assert_uint_eq(x.sum, y.sum);
    ck_assert_uint_eq(x.sum_sq, y.sum_sq);
    ck_assert_uint_eq(x.sum, whole.sum);
    ck_assert_uint_eq(x.count, 1500);
}
END_TEST

START_TEST(test_normals_moments)
{
    double sum = 0, sq = 0;
    const int n = 200000;
    for (int i = 0; i < n; i++) {
        double z = mc_normal(mc_path_key(1, (uint64_t)i / 16), (uint64_t)i % 16);
        sum += z;
        sq += z * z;
    }
    ck_assert_double_eq_tol(sum / n, 0.0, 0.01);
    ck_assert_double_eq_tol(sq / n, 1.0, 0.02);
}
END_TEST

START_TEST(test_price_near_black_scholes)
{
    mc_option o = mc_option_default();
    mc_sum s = mc_batch(&o, 0, 20000);
    ck_assert(mc_sum_stderr(&s) > 0);
    ck_assert_msg(mc_price_plausible(&o, &s), "MC %f +- %f vs BS %f", mc_sum_mean(&s),
                  mc_sum_stderr(&s), black_scholes_call(&o));
    /* A wrong model must be caught: the same paths against a higher strike. */
    mc_option wrong = o;
    wrong.strike = 120;
    ck_assert(!mc_price_plausible(&wrong, &s));
}
END_TEST

int main(void)
{
    Suite *s = suite_create("mc_kernel");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_black_scholes_reference);
    tcase_add_test(tc, test_path_value_is_pure);
    tcase_add_test(tc, test_merge_order_irrelevant);
    tcase_add_test(tc, test_normals_moments);
    tcase_add_test(tc, test_price_near_black_scholes);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
