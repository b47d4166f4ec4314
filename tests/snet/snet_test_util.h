/*
 * snet_test_util.h - helpers shared by the S-Net tests: running a network
 * over generated records with a given worker count and collecting what
 * comes out, and a few boxes used by several tests.
 */
#ifndef SNET_TEST_UTIL_H
#define SNET_TEST_UTIL_H

#include <snet.h>

#include <stdint.h>
#include <stdlib.h>

/* Generated input: records {x=i, <t>=i % mod} for i in [0, n). */
typedef struct gen_input {
    long next, n, mod;
    const char *field, *tag; /* labels used (tag NULL: no tag) */
} gen_input;

snet_record *gen_next(void *user);

/* The result of one run. */
typedef struct run_result {
    int rc;
    char error[1024];
    snet_record **out;
    size_t nout, cap_out;
    uint64_t in_count, out_count;
} run_result;

/* Run net (not freed) with workers and the given input generator (and
 * records put first); collect every output. */
run_result run_net(const snet_net *net, unsigned workers, snet_input_fn next, void *user);
void run_result_free(run_result *r);

/* The number of workers the tests use for "under load": at least 2. */
unsigned test_workers(void);
/* Record count for big tests: from env SNET_TEST_RECORDS, else dflt. */
long test_records(long dflt);

/* Boxes. identity: {x} -> {x} (takes the field over). */
int box_identity(snet_handle *h, snet_record *in);
/* {x} -> {x}: x+1 */
int box_inc(snet_handle *h, snet_record *in);
/* {x} -> {x}, yielding a few times first (to disturb timing) */
int box_slow(snet_handle *h, snet_record *in);

#endif
