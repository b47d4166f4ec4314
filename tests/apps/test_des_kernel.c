/*
 * test_des_kernel.c - unit tests of the DES kernel (apps/des): published
 * known-answer vectors, S-box/permutation sanity through the vectors,
 * the split steps (IP, 16 rounds, FP) agreeing with the whole-block call,
 * and decrypt(encrypt(x)) == x over a buffer.
 */
#include <check.h>
#include <des.h>

#include <stdlib.h>
#include <string.h>

START_TEST(test_known_vectors)
{
    char err[256] = "";
    ck_assert_msg(des_self_test(err, sizeof err) == 0, "%s", err);
}
END_TEST

START_TEST(test_grabbe_example)
{
    des_key_schedule ks;
    des_make_schedule(0x133457799BBCDFF1u, &ks);
    /* K1 of the worked example: 000110 110000 001011 101111 111111 000111 000001 110010 */
    ck_assert_uint_eq(ks.k[0], 0x1B02EFFC7072u);
    ck_assert_uint_eq(des_encrypt_block(&ks, 0x0123456789ABCDEFu), 0x85E813540F0AB405u);
}
END_TEST

START_TEST(test_steps_equal_whole_block)
{
    des_key_schedule ks;
    des_make_schedule(0x0123456789ABCDEFu, &ks);
    for (uint64_t x = 1; x < 200; x++) {
        uint64_t block = x * 0x9e3779b97f4a7c15u;
        des_halves h = des_initial_permutation(block);
        for (unsigned r = 0; r < DES_ROUNDS; r++)
            h = des_round(h, ks.k[r]);
        ck_assert_uint_eq(des_final_permutation(h), des_encrypt_block(&ks, block));
    }
}
END_TEST

START_TEST(test_buffer_round_trip)
{
    enum { LEN = 4096 };
    unsigned char *plain = malloc(LEN), *cipher = malloc(LEN), *back = malloc(LEN);
    for (size_t i = 0; i < LEN; i++)
        plain[i] = (unsigned char)(i * 31 + 7);
    des_key_schedule ks;
    des_make_schedule(0x0E329232EA6D0D73u, &ks);
    des_ecb(&ks, 0, plain, cipher, LEN);
    ck_assert(memcmp(plain, cipher, LEN) != 0);
    des_ecb(&ks, 1, cipher, back, LEN);
    ck_assert(memcmp(plain, back, LEN) == 0);
    free(plain);
    free(cipher);
    free(back);
}
END_TEST

START_TEST(test_block_bytes_big_endian)
{
    unsigned char b[8] = {0x01, 0x23, 0x45, 0x67, 0x89, 0xAB, 0xCD, 0xEF}, out[8];
    ck_assert_uint_eq(des_load_block(b), 0x0123456789ABCDEFu);
    des_store_block(0x0123456789ABCDEFu, out);
    ck_assert(memcmp(b, out, 8) == 0);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("des_kernel");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_known_vectors);
    tcase_add_test(tc, test_grabbe_example);
    tcase_add_test(tc, test_steps_equal_whole_block);
    tcase_add_test(tc, test_buffer_round_trip);
    tcase_add_test(tc, test_block_bytes_big_endian);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
