/*
 * des.h - the DES block cipher (FIPS 46-3) split into the steps the des
 * application runs as separate S-Net boxes: key schedule, initial
 * permutation, one Feistel round, final permutation; plus whole-block and
 * whole-buffer helpers that form the sequential reference.
 *
 * A 64-bit block or key is a uint64_t whose most significant bit is bit 1
 * of the standard, i.e. the first byte of the 8-byte big-endian encoding.
 */
#ifndef APPS_DES_H
#define APPS_DES_H

#include <stddef.h>
#include <stdint.h>

#define DES_ROUNDS 16

/* The 16 48-bit round keys (right-aligned in each word). */
typedef struct des_key_schedule {
    uint64_t k[DES_ROUNDS];
} des_key_schedule;

/* A block between the permutations: the two 32-bit halves L and R. */
typedef struct des_halves {
    uint32_t l, r;
} des_halves;

void des_make_schedule(uint64_t key, des_key_schedule *ks);
/* The same keys in reverse order: running the rounds with them decrypts. */
void des_reverse_schedule(const des_key_schedule *in, des_key_schedule *out);

des_halves des_initial_permutation(uint64_t block);
/* One round: L' = R, R' = L xor f(R, K). */
des_halves des_round(des_halves h, uint64_t round_key);
/* Undo the last swap (R16 L16) and apply IP^-1. */
uint64_t des_final_permutation(des_halves h);

/* The cipher function f(R, K) of the standard (exposed for tests). */
uint32_t des_f(uint32_t r, uint64_t round_key);

uint64_t des_encrypt_block(const des_key_schedule *ks, uint64_t block);
uint64_t des_decrypt_block(const des_key_schedule *ks, uint64_t block);

/* Big-endian conversion between 8 bytes and a block. */
uint64_t des_load_block(const unsigned char bytes[8]);
void des_store_block(uint64_t block, unsigned char bytes[8]);

/* ECB over a buffer whose length is a multiple of 8 (in place allowed). */
void des_ecb(const des_key_schedule *ks, int decrypt, const unsigned char *in,
             unsigned char *out, size_t len);

/* Check the cipher against published test vectors. Returns 0, or -1 with
 * a one-line description of the first mismatch in err. */
int des_self_test(char *err, size_t errlen);

#endif /* APPS_DES_H */
