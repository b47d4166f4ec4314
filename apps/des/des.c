/*
 * des.c - DES (FIPS 46-3) written from the tables of the standard.
 *
 * Why it is split into steps: the des application runs the initial
 * permutation, each of the 16 rounds and the final permutation as separate
 * S-Net boxes, so each step is its own function here. Bit positions follow
 * the standard (bit 1 = most significant); permute() maps them generically,
 * which is slow compared with table-driven implementations but keeps the
 * code a literal transcription of the standard, which is what matters for
 * a checked benchmark kernel.
 */
#include "des.h"

#include <stdio.h>

/* Initial permutation IP. */
static const unsigned char IP[64] = {
    58, 50, 42, 34, 26, 18, 10, 2, 60, 52, 44, 36, 28, 20, 12, 4,
    62, 54, 46, 38, 30, 22, 14, 6, 64, 56, 48, 40, 32, 24, 16, 8,
    57, 49, 41, 33, 25, 17, 9,  1, 59, 51, 43, 35, 27, 19, 11, 3,
    61, 53, 45, 37, 29, 21, 13, 5, 63, 55, 47, 39, 31, 23, 15, 7};

/* Final permutation IP^-1. */
static const unsigned char FP[64] = {
    40, 8, 48, 16, 56, 24, 64, 32, 39, 7, 47, 15, 55, 23, 63, 31,
    38, 6, 46, 14, 54, 22, 62, 30, 37, 5, 45, 13, 53, 21, 61, 29,
    36, 4, 44, 12, 52, 20, 60, 28, 35, 3, 43, 11, 51, 19, 59, 27,
    34, 2, 42, 10, 50, 18, 58, 26, 33, 1, 41, 9,  49, 17, 57, 25};

/* Expansion E: 32 -> 48 bits. */
static const unsigned char E[48] = {
    32, 1,  2,  3,  4,  5,  4,  5,  6,  7,  8,  9,  8,  9,  10, 11,
    12, 13, 12, 13, 14, 15, 16, 17, 16, 17, 18, 19, 20, 21, 20, 21,
    22, 23, 24, 25, 24, 25, 26, 27, 28, 29, 28, 29, 30, 31, 32, 1};

/* Permutation P after the S-boxes. */
static const unsigned char P[32] = {
    16, 7, 20, 21, 29, 12, 28, 17, 1,  15, 23, 26, 5,  18, 31, 10,
    2,  8, 24, 14, 32, 27, 3,  9,  19, 13, 30, 6,  22, 11, 4,  25};

/* Permuted choice 1: 64 -> 56 bits (drops the parity bits). */
static const unsigned char PC1[56] = {
    57, 49, 41, 33, 25, 17, 9,  1,  58, 50, 42, 34, 26, 18,
    10, 2,  59, 51, 43, 35, 27, 19, 11, 3,  60, 52, 44, 36,
    63, 55, 47, 39, 31, 23, 15, 7,  62, 54, 46, 38, 30, 22,
    14, 6,  61, 53, 45, 37, 29, 21, 13, 5,  28, 20, 12, 4};

/* Permuted choice 2: 56 -> 48 bits. */
static const unsigned char PC2[48] = {
    14, 17, 11, 24, 1,  5,  3,  28, 15, 6,  21, 10,
    23, 19, 12, 4,  26, 8,  16, 7,  27, 20, 13, 2,
    41, 52, 31, 37, 47, 55, 30, 40, 51, 45, 33, 48,
    44, 49, 39, 56, 34, 53, 46, 42, 50, 36, 29, 32};

/* Left rotations of C and D before each round. */
static const unsigned char SHIFTS[DES_ROUNDS] = {1, 1, 2, 2, 2, 2, 2, 2, 1, 2, 2, 2, 2, 2, 2, 1};

/* The eight S-boxes, row-major: row = outer bits, column = inner four. */
static const unsigned char SBOX[8][64] = {
    {14, 4,  13, 1, 2,  15, 11, 8,  3,  10, 6,  12, 5,  9,  0, 7,
     0,  15, 7,  4, 14, 2,  13, 1,  10, 6,  12, 11, 9,  5,  3, 8,
     4,  1,  14, 8, 13, 6,  2,  11, 15, 12, 9,  7,  3,  10, 5, 0,
     15, 12, 8,  2, 4,  9,  1,  7,  5,  11, 3,  14, 10, 0,  6, 13},
    {15, 1,  8,  14, 6,  11, 3,  4,  9,  7, 2,  13, 12, 0, 5,  10,
     3,  13, 4,  7,  15, 2,  8,  14, 12, 0, 1,  10, 6,  9, 11, 5,
     0,  14, 7,  11, 10, 4,  13, 1,  5,  8, 12, 6,  9,  3, 2,  15,
     13, 8,  10, 1,  3,  15, 4,  2,  11, 6, 7,  12, 0,  5, 14, 9},
    {10, 0,  9,  14, 6, 3,  15, 5,  1,  13, 12, 7,  11, 4,  2,  8,
     13, 7,  0,  9,  3, 4,  6,  10, 2,  8,  5,  14, 12, 11, 15, 1,
     13, 6,  4,  9,  8, 15, 3,  0,  11, 1,  2,  12, 5,  10, 14, 7,
     1,  10, 13, 0,  6, 9,  8,  7,  4,  15, 14, 3,  11, 5,  2,  12},
    {7,  13, 14, 3, 0,  6,  9,  10, 1,  2, 8, 5,  11, 12, 4,  15,
     13, 8,  11, 5, 6,  15, 0,  3,  4,  7, 2, 12, 1,  10, 14, 9,
     10, 6,  9,  0, 12, 11, 7,  13, 15, 1, 3, 14, 5,  2,  8,  4,
     3,  15, 0,  6, 10, 1,  13, 8,  9,  4, 5, 11, 12, 7,  2,  14},
    {2,  12, 4,  1,  7,  10, 11, 6,  8,  5,  3,  15, 13, 0, 14, 9,
     14, 11, 2,  12, 4,  7,  13, 1,  5,  0,  15, 10, 3,  9, 8,  6,
     4,  2,  1,  11, 10, 13, 7,  8,  15, 9,  12, 5,  6,  3, 0,  14,
     11, 8,  12, 7,  1,  14, 2,  13, 6,  15, 0,  9,  10, 4, 5,  3},
    {12, 1,  10, 15, 9, 2,  6,  8,  0,  13, 3,  4,  14, 7,  5,  11,
     10, 15, 4,  2,  7, 12, 9,  5,  6,  1,  13, 14, 0,  11, 3,  8,
     9,  14, 15, 5,  2, 8,  12, 3,  7,  0,  4,  10, 1,  13, 11, 6,
     4,  3,  2,  12, 9, 5,  15, 10, 11, 14, 1,  7,  6,  0,  8,  13},
    {4,  11, 2,  14, 15, 0, 8,  13, 3,  12, 9, 7,  5,  10, 6, 1,
     13, 0,  11, 7,  4,  9, 1,  10, 14, 3,  5, 12, 2,  15, 8, 6,
     1,  4,  11, 13, 12, 3, 7,  14, 10, 15, 6, 8,  0,  5,  9, 2,
     6,  11, 13, 8,  1,  4, 10, 7,  9,  5,  0, 15, 14, 2,  3, 12},
    {13, 2,  8,  4, 6,  15, 11, 1,  10, 9,  3,  14, 5,  0,  12, 7,
     1,  15, 13, 8, 10, 3,  7,  4,  12, 5,  6,  11, 0,  14, 9,  2,
     7,  11, 4,  1, 9,  12, 14, 2,  0,  6,  10, 13, 15, 3,  5,  8,
     2,  1,  14, 7, 4,  10, 8,  13, 15, 12, 9,  0,  3,  5,  6,  11}};

/* Output bit i (1-based, MSB first of an n-bit result) is input bit
 * table[i-1] of an in_bits-wide input. */
static uint64_t permute(uint64_t in, unsigned in_bits, const unsigned char *table, unsigned n)
{
    uint64_t out = 0;
    for (unsigned i = 0; i < n; i++)
        out = (out << 1) | ((in >> (in_bits - table[i])) & 1u);
    return out;
}

static uint32_t rotate28(uint32_t v, unsigned by)
{
    return ((v << by) | (v >> (28 - by))) & 0x0fffffffu;
}

void des_make_schedule(uint64_t key, des_key_schedule *ks)
{
    uint64_t cd = permute(key, 64, PC1, 56);
    uint32_t c = (uint32_t)(cd >> 28) & 0x0fffffffu, d = (uint32_t)cd & 0x0fffffffu;
    for (unsigned i = 0; i < DES_ROUNDS; i++) {
        c = rotate28(c, SHIFTS[i]);
        d = rotate28(d, SHIFTS[i]);
        ks->k[i] = permute(((uint64_t)c << 28) | d, 56, PC2, 48);
    }
}

void des_reverse_schedule(const des_key_schedule *in, des_key_schedule *out)
{
    des_key_schedule tmp;
    for (unsigned i = 0; i < DES_ROUNDS; i++)
        tmp.k[i] = in->k[DES_ROUNDS - 1 - i];
    *out = tmp;
}

des_halves des_initial_permutation(uint64_t block)
{
    uint64_t p = permute(block, 64, IP, 64);
    return (des_halves){(uint32_t)(p >> 32), (uint32_t)p};
}

uint32_t des_f(uint32_t r, uint64_t round_key)
{
    uint64_t x = permute(r, 32, E, 48) ^ round_key;
    uint32_t s = 0;
    for (unsigned box = 0; box < 8; box++) {
        unsigned six = (unsigned)(x >> (42 - 6 * box)) & 0x3fu;
        unsigned row = ((six >> 4) & 2u) | (six & 1u);
        unsigned col = (six >> 1) & 0xfu;
        s = (s << 4) | SBOX[box][row * 16 + col];
    }
    return (uint32_t)permute(s, 32, P, 32);
}

des_halves des_round(des_halves h, uint64_t round_key)
{
    return (des_halves){h.r, h.l ^ des_f(h.r, round_key)};
}

uint64_t des_final_permutation(des_halves h)
{
    uint64_t preoutput = ((uint64_t)h.r << 32) | h.l;
    return permute(preoutput, 64, FP, 64);
}

uint64_t des_encrypt_block(const des_key_schedule *ks, uint64_t block)
{
    des_halves h = des_initial_permutation(block);
    for (unsigned i = 0; i < DES_ROUNDS; i++)
        h = des_round(h, ks->k[i]);
    return des_final_permutation(h);
}

uint64_t des_decrypt_block(const des_key_schedule *ks, uint64_t block)
{
    des_key_schedule rev;
    des_reverse_schedule(ks, &rev);
    return des_encrypt_block(&rev, block);
}

uint64_t des_load_block(const unsigned char bytes[8])
{
    uint64_t b = 0;
    for (unsigned i = 0; i < 8; i++)
        b = (b << 8) | bytes[i];
    return b;
}

void des_store_block(uint64_t block, unsigned char bytes[8])
{
    for (unsigned i = 0; i < 8; i++)
        bytes[i] = (unsigned char)(block >> (56 - 8 * i));
}

void des_ecb(const des_key_schedule *ks, int decrypt, const unsigned char *in,
             unsigned char *out, size_t len)
{
    des_key_schedule use = *ks;
    if (decrypt)
        des_reverse_schedule(ks, &use);
    for (size_t off = 0; off + 8 <= len; off += 8)
        des_store_block(des_encrypt_block(&use, des_load_block(in + off)), out + off);
}

/* Published known-answer vectors: the worked example of J. O. Grabbe's
 * "The DES Algorithm Illustrated", the "Now is t" vector of FIPS 81's
 * examples, and NBS (SP 500-20) known-answer tests. */
static const struct {
    uint64_t key, plain, cipher;
} VECTORS[] = {
    {0x133457799BBCDFF1u, 0x0123456789ABCDEFu, 0x85E813540F0AB405u},
    {0x0123456789ABCDEFu, 0x4E6F772069732074u, 0x3FA40E8A984D4815u},
    {0x0101010101010101u, 0x8000000000000000u, 0x95F8A5E5DD31D900u},
    {0x0101010101010101u, 0x0000000000000000u, 0x8CA64DE9C1B123A7u},
    {0x0E329232EA6D0D73u, 0x8787878787878787u, 0x0000000000000000u},
};

int des_self_test(char *err, size_t errlen)
{
    for (size_t i = 0; i < sizeof VECTORS / sizeof VECTORS[0]; i++) {
        des_key_schedule ks;
        des_make_schedule(VECTORS[i].key, &ks);
        uint64_t c = des_encrypt_block(&ks, VECTORS[i].plain);
        uint64_t p = des_decrypt_block(&ks, VECTORS[i].cipher);
        if (c != VECTORS[i].cipher || p != VECTORS[i].plain) {
            snprintf(err, errlen,
                     "DES vector %zu: key %016llX plaintext %016llX gave %016llX "
                     "(expected %016llX), decrypt gave %016llX",
                     i, (unsigned long long)VECTORS[i].key, (unsigned long long)VECTORS[i].plain,
                     (unsigned long long)c, (unsigned long long)VECTORS[i].cipher,
                     (unsigned long long)p);
            return -1;
        }
    }
    return 0;
}
