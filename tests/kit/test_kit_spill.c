/*
 * test_kit_spill.c - data larger than memory (kit/kit_spill.c): spill
 * arrays many times their cache keep every record (written in order, out
 * of order, far apart, never written), a fitting one makes no file, one
 * without a limit grows its cache instead of spilling, a
 * sorter sorts in memory and through merged runs, rewinds, and keeps
 * equal keys; a directory that cannot be written is an error, not a loss.
 */
#include <check.h>
#include <kit.h>

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct rec {
    uint64_t key;
    uint32_t check;
    uint32_t pad;
} rec;

static uint32_t check_of(uint64_t i) { return (uint32_t)(i * 2654435761u) ^ 0x5a5a5a5au; }

START_TEST(test_spill_many_times_its_cache)
{
    kit_spill *s;
    ck_assert_int_eq(kit_spill_open(&s, sizeof(rec), 64 * 1024, NULL), 0);
    const uint64_t n = 200000; /* 3.2 MB of records behind at most ~64 KB */
    for (uint64_t i = 0; i < n; i++) {
        rec r = {i, check_of(i), 0};
        ck_assert_int_eq(kit_spill_push(s, &r), 0);
    }
    ck_assert_uint_eq(kit_spill_count(s), n);
    ck_assert_uint_le(kit_spill_cache_bytes(s), 64 * 1024);
    ck_assert_uint_gt(kit_spill_disk_bytes(s), 0);
    for (uint64_t k = 0; k < n; k++) { /* every record, in a scattered order */
        uint64_t i = (k * 7919) % n;
        rec r;
        ck_assert_int_eq(kit_spill_read(s, i, &r), 0);
        ck_assert_uint_eq(r.key, i);
        ck_assert_uint_eq(r.check, check_of(i));
    }
    rec *p = kit_spill_at(s, 17); /* changed in place, evicted, read back */
    ck_assert_ptr_nonnull(p);
    p->check = 99;
    for (uint64_t i = n / 2; i < n; i++)
        ck_assert_ptr_nonnull(kit_spill_at(s, i));
    rec r;
    ck_assert_int_eq(kit_spill_read(s, 17, &r), 0);
    ck_assert_uint_eq(r.check, 99);
    ck_assert_int_eq(kit_spill_error(s), 0);
    kit_spill_close(s);
}
END_TEST

START_TEST(test_spill_unwritten_reads_zero_and_far_indices)
{
    kit_spill *s;
    ck_assert_int_eq(kit_spill_open(&s, sizeof(rec), 32 * 1024, NULL), 0);
    rec r = {5, 6, 7};
    ck_assert_int_eq(kit_spill_write(s, UINT64_C(1) << 30, &r), 0); /* a hole before it */
    ck_assert_uint_eq(kit_spill_count(s), (UINT64_C(1) << 30) + 1);
    for (uint64_t i = 0; i < 50000; i++) /* push the far block out */
        ck_assert_int_eq(kit_spill_write(s, i * 3, &(rec){i, 1, 0}), 0);
    rec got;
    ck_assert_int_eq(kit_spill_read(s, UINT64_C(1) << 30, &got), 0);
    ck_assert_uint_eq(got.key, 5);
    ck_assert_int_eq(kit_spill_read(s, 1, &got), 0); /* never written */
    ck_assert_uint_eq(got.key, 0);
    ck_assert_uint_eq(got.check, 0);
    ck_assert_int_eq(kit_spill_read(s, 6, &got), 0);
    ck_assert_uint_eq(got.key, 2);
    kit_spill_close(s);
}
END_TEST

START_TEST(test_spill_that_fits_makes_no_file)
{
    kit_spill *s;
    /* A directory that does not exist: fine as long as nothing spills. */
    ck_assert_int_eq(kit_spill_open(&s, 8, 1 << 20, "/nonexistent/dir"), 0);
    for (uint64_t i = 0; i < 1000; i++)
        ck_assert_int_eq(kit_spill_write(s, i, &i), 0);
    ck_assert_uint_eq(kit_spill_disk_bytes(s), 0);
    /* ... and an error, never a silent loss, once it must. */
    uint64_t i = 1000;
    for (; i < 10000000 && kit_spill_write(s, i, &i) == 0; i++)
        ;
    ck_assert_uint_lt(i, 10000000);
    ck_assert_int_eq(kit_spill_error(s), ENOENT);
    ck_assert_ptr_null(kit_spill_at(s, 0)); /* it stays failed */
    kit_spill_close(s);
}
END_TEST

START_TEST(test_spill_cache_grows_with_the_array)
{
    kit_spill *s; /* no limit: an array in memory that grows */
    ck_assert_int_eq(kit_spill_open(&s, sizeof(rec), SIZE_MAX, "/nonexistent/dir"), 0);
    for (uint64_t i = 0; i < 1000000; i++)
        ck_assert_int_eq(kit_spill_push(s, &(rec){i, check_of(i), 0}), 0);
    for (uint64_t i = 0; i < 1000000; i += 999) {
        rec r;
        ck_assert_int_eq(kit_spill_read(s, i, &r), 0);
        ck_assert_uint_eq(r.check, check_of(i));
    }
    ck_assert_uint_eq(kit_spill_disk_bytes(s), 0);
    kit_spill_close(s);
}
END_TEST

static int by_key(const void *a, const void *b)
{
    const rec *x = a, *y = b;
    return (x->key > y->key) - (x->key < y->key);
}

/* Adds n records with pseudo-random keys; sorts; checks order and that
 * every record came out once (the sum of checks). */
static void sort_and_check(size_t mem, uint64_t n)
{
    kit_sorter *s;
    ck_assert_int_eq(kit_sorter_open(&s, sizeof(rec), by_key, mem, NULL), 0);
    uint64_t x = 88172645463325252ull, sum_in = 0;
    for (uint64_t i = 0; i < n; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        rec r = {x % 1000, (uint32_t)i, 0}; /* many equal keys */
        sum_in += i;
        ck_assert_int_eq(kit_sorter_add(s, &r), 0);
    }
    ck_assert_int_eq(kit_sorter_finish(s), 0);
    ck_assert_uint_eq(kit_sorter_count(s), n);
    for (int pass = 0; pass < 2; pass++) {
        uint64_t seen = 0, sum = 0, prev = 0;
        for (const rec *r; (r = kit_sorter_next(s));) {
            ck_assert_uint_ge(r->key, prev);
            prev = r->key;
            sum += r->check;
            seen++;
        }
        ck_assert_int_eq(kit_sorter_error(s), 0);
        ck_assert_uint_eq(seen, n);
        ck_assert_uint_eq(sum, sum_in);
        ck_assert_ptr_null(kit_sorter_next(s)); /* stays at the end */
        ck_assert_int_eq(kit_sorter_rewind(s), 0);
    }
    kit_sorter_close(s);
}

START_TEST(test_sort_in_memory) { sort_and_check(1 << 20, 10000); }
END_TEST

START_TEST(test_sort_through_runs) { sort_and_check(16 * 1024, 300000); }
END_TEST

START_TEST(test_sort_nothing)
{
    kit_sorter *s;
    ck_assert_int_eq(kit_sorter_open(&s, sizeof(rec), by_key, 4096, NULL), 0);
    ck_assert_int_eq(kit_sorter_finish(s), 0);
    ck_assert_ptr_null(kit_sorter_next(s));
    kit_sorter_close(s);
}
END_TEST

int main(void)
{
    Suite *su = suite_create("kit_spill");
    TCase *tc = tcase_create("spill");
    tcase_add_test(tc, test_spill_many_times_its_cache);
    tcase_add_test(tc, test_spill_unwritten_reads_zero_and_far_indices);
    tcase_add_test(tc, test_spill_that_fits_makes_no_file);
    tcase_add_test(tc, test_spill_cache_grows_with_the_array);
    tcase_add_test(tc, test_sort_in_memory);
    tcase_add_test(tc, test_sort_through_runs);
    tcase_add_test(tc, test_sort_nothing);
    suite_add_tcase(su, tc);
    SRunner *sr = srunner_create(su);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
