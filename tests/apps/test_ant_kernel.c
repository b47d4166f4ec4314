/*
 * test_ant_kernel.c - unit tests of the ant-colony kernel (apps/ant): the
 * objective on a hand-computed instance, permutation checking, schedules
 * built by ants are permutations, the optimisation beats a random schedule,
 * and the result is the same whatever order the ants of an iteration are
 * merged in (what lets the network run them in parallel).
 */
#include <check.h>
#include <aco.h>

#include <stdlib.h>
#include <string.h>

START_TEST(test_objective_by_hand)
{
    unsigned p[3] = {3, 2, 4}, w[3] = {1, 2, 3}, d[3] = {2, 4, 5};
    aco_instance in = {3, p, w, d};
    unsigned order[3] = {0, 1, 2}; /* C = 3, 5, 9: tardiness 1, 1, 4 */
    ck_assert_uint_eq(aco_objective(&in, order), 1 * 1 + 2 * 1 + 3 * 4);
}
END_TEST

START_TEST(test_permutation_check)
{
    unsigned good[4] = {2, 0, 3, 1}, dup[4] = {2, 0, 2, 1}, range[4] = {0, 1, 2, 4};
    ck_assert(aco_is_permutation(good, 4));
    ck_assert(!aco_is_permutation(dup, 4));
    ck_assert(!aco_is_permutation(range, 4));
}
END_TEST

START_TEST(test_ant_builds_permutation)
{
    aco_instance in;
    ck_assert_int_eq(aco_instance_generate(&in, 40, 3), 0);
    aco_colony c;
    ck_assert_int_eq(aco_colony_init(&c, &in), 0);
    aco_params prm = aco_params_default();
    unsigned order[40];
    for (unsigned a = 0; a < 5; a++) {
        uint64_t obj = aco_construct(&in, c.tau, &prm, 0, a, order);
        ck_assert(aco_is_permutation(order, 40));
        ck_assert_uint_eq(obj, aco_objective(&in, order));
    }
    aco_colony_free(&c);
    aco_instance_free(&in);
}
END_TEST

START_TEST(test_beats_random)
{
    aco_instance in;
    ck_assert_int_eq(aco_instance_generate(&in, 50, 7), 0);
    aco_params prm = aco_params_default();
    aco_colony c;
    ck_assert_int_eq(aco_run_sequential(&in, &prm, &c), 0);
    ck_assert(aco_is_permutation(c.best, 50));
    ck_assert_uint_eq(c.best_objective, aco_objective(&in, c.best));
    ck_assert_uint_lt(c.best_objective, aco_random_objective(&in, 1));
    ck_assert_uint_eq(c.iterations_done, prm.iterations);
    aco_colony_free(&c);
    aco_instance_free(&in);
}
END_TEST

/* Merge one iteration's ants in the given order; return the chosen one. */
static aco_solution pick(aco_solution *sols, const unsigned *visit, unsigned n)
{
    aco_solution best = sols[visit[0]];
    for (unsigned i = 1; i < n; i++)
        if (aco_solution_better(&sols[visit[i]], &best))
            best = sols[visit[i]];
    return best;
}

START_TEST(test_merge_order_irrelevant)
{
    aco_instance in;
    ck_assert_int_eq(aco_instance_generate(&in, 30, 11), 0);
    aco_params prm = aco_params_default();
    aco_colony c;
    ck_assert_int_eq(aco_colony_init(&c, &in), 0);
    enum { ANTS = 6 };
    unsigned orders[ANTS][30];
    aco_solution sols[ANTS];
    for (unsigned a = 0; a < ANTS; a++) {
        sols[a] = (aco_solution){a, 0, orders[a]};
        sols[a].objective = aco_construct(&in, c.tau, &prm, 0, a, orders[a]);
    }
    unsigned forward[ANTS] = {0, 1, 2, 3, 4, 5}, backward[ANTS] = {5, 4, 3, 2, 1, 0};
    aco_solution x = pick(sols, forward, ANTS), y = pick(sols, backward, ANTS);
    ck_assert_uint_eq(x.ant, y.ant);
    ck_assert_uint_eq(x.objective, y.objective);
    aco_colony_free(&c);
    aco_instance_free(&in);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("ant_kernel");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_objective_by_hand);
    tcase_add_test(tc, test_permutation_check);
    tcase_add_test(tc, test_ant_builds_permutation);
    tcase_add_test(tc, test_beats_random);
    tcase_add_test(tc, test_merge_order_irrelevant);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
