/*
 * test_kit_vec.c - the kit's growing arrays (kit/kit_vec.c): doubling,
 * zeroed growth, KIT_PUSH, and the refusals that must leave the array as
 * it was (an element count whose byte size overflows).
 */
#include <check.h>
#include <kit.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

START_TEST(test_grow_doubles_from_sixteen)
{
    long *a = NULL;
    size_t cap = 0;
    ck_assert_int_eq(KIT_GROW(a, cap, 1), 0);
    ck_assert_uint_eq(cap, 16);
    ck_assert_int_eq(KIT_GROW(a, cap, 16), 0); /* enough already */
    ck_assert_uint_eq(cap, 16);
    ck_assert_int_eq(KIT_GROW(a, cap, 17), 0);
    ck_assert_uint_eq(cap, 32);
    ck_assert_int_eq(KIT_GROW(a, cap, 1000), 0);
    ck_assert_uint_eq(cap, 1024);
    a[999] = 7; /* the room is there (ASan would say otherwise) */
    ck_assert_int_eq(KIT_GROW(a, cap, 0), 0);
    ck_assert_uint_eq(cap, 1024);
    free(a);
}
END_TEST

START_TEST(test_grow_zeroed_clears_only_new_room)
{
    int *a = NULL;
    size_t cap = 0;
    ck_assert_int_eq(KIT_GROW_ZEROED(a, cap, 3), 0);
    for (size_t i = 0; i < cap; i++)
        ck_assert_int_eq(a[i], 0);
    for (size_t i = 0; i < cap; i++)
        a[i] = (int)i + 1;
    size_t old = cap;
    ck_assert_int_eq(KIT_GROW_ZEROED(a, cap, old + 1), 0);
    for (size_t i = 0; i < old; i++)
        ck_assert_int_eq(a[i], (int)i + 1);
    for (size_t i = old; i < cap; i++)
        ck_assert_int_eq(a[i], 0);
    free(a);
}
END_TEST

START_TEST(test_push_appends_in_order)
{
    unsigned *a = NULL;
    size_t n = 0, cap = 0;
    for (unsigned i = 0; i < 10000; i++)
        ck_assert_int_eq(KIT_PUSH(a, n, cap, i * 3), 0);
    ck_assert_uint_eq(n, 10000);
    ck_assert_uint_ge(cap, n);
    for (unsigned i = 0; i < 10000; i++)
        ck_assert_uint_eq(a[i], i * 3);
    free(a);
}
END_TEST

START_TEST(test_overflow_is_refused_unchanged)
{
    double *a = NULL;
    size_t cap = 0;
    ck_assert_int_eq(KIT_GROW(a, cap, 5), 0);
    double *before = a;
    ck_assert_int_eq(KIT_GROW(a, cap, SIZE_MAX / 4), -1); /* bytes overflow */
    ck_assert_ptr_eq(a, before);
    ck_assert_uint_eq(cap, 16);
    ck_assert_int_eq(KIT_GROW(a, cap, SIZE_MAX), -1); /* count overflows */
    ck_assert_uint_eq(cap, 16);
    ck_assert_int_eq(kit_grow(&a, &cap, 17, 0), -1); /* no element size */
    free(a);
}
END_TEST

START_TEST(test_capacity_shared_by_columns)
{
    ck_assert_uint_eq(kit_grow_capacity(0, 1, 8), 16);
    ck_assert_uint_eq(kit_grow_capacity(64, 64, 8), 64);
    ck_assert_uint_eq(kit_grow_capacity(64, 65, 8), 128);
    ck_assert_uint_eq(kit_grow_capacity(0, 1000, 1), 1024);
    ck_assert_uint_eq(kit_grow_capacity(16, SIZE_MAX / 4, 8), 0);
}
END_TEST

START_TEST(test_read_all_whole_stream)
{
    FILE *f = tmpfile();
    ck_assert_ptr_nonnull(f);
    for (int i = 0; i < 200000; i++) /* past several reads */
        fputc('a' + i % 26, f);
    rewind(f);
    char *buf;
    size_t len;
    ck_assert_int_eq(kit_read_all(f, &buf, &len), 0);
    ck_assert_uint_eq(len, 200000);
    ck_assert_int_eq(buf[199999], 'a' + 199999 % 26);
    ck_assert_int_eq(buf[len], '\0');
    free(buf);
    fclose(f);
    f = tmpfile();
    ck_assert_int_eq(kit_read_all(f, &buf, &len), 0); /* empty: an empty string */
    ck_assert_uint_eq(len, 0);
    ck_assert_str_eq(buf, "");
    free(buf);
    fclose(f);
    f = fopen("/dev/null", "w"); /* not readable: an error, no buffer */
    ck_assert_int_eq(kit_read_all(f, &buf, &len), -1);
    ck_assert_ptr_null(buf);
    ck_assert(ferror(f));
    fclose(f);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("kit_vec");
    TCase *tc = tcase_create("grow");
    tcase_add_test(tc, test_grow_doubles_from_sixteen);
    tcase_add_test(tc, test_grow_zeroed_clears_only_new_room);
    tcase_add_test(tc, test_push_appends_in_order);
    tcase_add_test(tc, test_overflow_is_refused_unchanged);
    tcase_add_test(tc, test_capacity_shared_by_columns);
    tcase_add_test(tc, test_read_all_whole_stream);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
