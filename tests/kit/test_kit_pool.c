/*
 * test_kit_pool.c - the kit's block pools (kit/kit_pool.c): blocks fill
 * cache lines of their own, a closed pool keeps nothing, an open one hands back what it was given, a full one
 * passes a batch to its depot and an empty one takes a batch back, a
 * depot never keeps more than its max, blocks freed on one thread serve
 * another through the depot, and a thread's pools are emptied when it
 * ends (the ASan build's leak check fails the test otherwise).
 */
#include <check.h>
#include <kit.h>

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define BLOCK 48

static _Thread_local kit_pool pool = KIT_POOL_INIT(BLOCK);

static size_t depot_count(kit_depot *d) { return atomic_load(&d->count); }

START_TEST(test_closed_pool_keeps_nothing)
{
    void *b = kit_pool_get(&pool);
    ck_assert_ptr_nonnull(b);
    ck_assert_uint_eq((uintptr_t)b % KIT_POOL_ALIGN, 0); /* lines of its own */
    memset(b, 0xab, KIT_POOL_ALIGN); /* the whole line (ASan would say otherwise) */
    kit_pool_put(&pool, b); /* freed */
    ck_assert_uint_eq(pool.count, 0);
}
END_TEST

START_TEST(test_open_pool_hands_back_its_blocks)
{
    kit_depot d;
    kit_depot_init(&d, BLOCK, 1000);
    ck_assert(kit_pool_open(&pool, &d));
    void *b[3];
    for (int i = 0; i < 3; i++)
        b[i] = kit_pool_get(&pool); /* malloc: nothing kept yet */
    for (int i = 0; i < 3; i++)
        kit_pool_put(&pool, b[i]);
    ck_assert_uint_eq(pool.count, 3);
    for (int i = 2; i >= 0; i--) /* last in, first out */
        ck_assert_ptr_eq(kit_pool_get(&pool), b[i]);
    for (int i = 0; i < 3; i++)
        kit_pool_put(&pool, b[i]);
    kit_pool_close(&pool);
    ck_assert_uint_eq(pool.count, 0);
    ck_assert_uint_eq(depot_count(&d), 0);
    kit_depot_destroy(&d);
}
END_TEST

START_TEST(test_full_pool_spills_and_empty_pool_refills)
{
    kit_depot d;
    kit_depot_init(&d, BLOCK, 1000);
    ck_assert(kit_pool_open(&pool, &d));
    void *b[KIT_POOL_BLOCKS + 1];
    for (int i = 0; i <= KIT_POOL_BLOCKS; i++)
        b[i] = kit_pool_get(&pool);
    for (int i = 0; i <= KIT_POOL_BLOCKS; i++)
        kit_pool_put(&pool, b[i]);
    /* the 65th put found the pool full: a batch went to the depot */
    ck_assert_uint_eq(depot_count(&d), KIT_POOL_BATCH);
    ck_assert_uint_eq(pool.count, KIT_POOL_BLOCKS - KIT_POOL_BATCH + 1);
    while (pool.count > 0)
        (void)kit_pool_get(&pool); /* still in b[]: given back below */
    /* empty now: the next get takes a batch from the depot */
    void *from_depot = kit_pool_get(&pool);
    ck_assert_uint_eq(depot_count(&d), 0);
    ck_assert_uint_eq(pool.count, KIT_POOL_BATCH - 1);
    bool known = false;
    for (int i = 0; i <= KIT_POOL_BLOCKS; i++)
        known |= from_depot == b[i];
    ck_assert(known);
    /* give every block back, then close: all freed */
    for (int i = 0; i <= KIT_POOL_BLOCKS; i++) {
        bool pooled = false;
        for (unsigned j = 0; j < pool.count; j++)
            pooled |= pool.blocks[j] == b[i];
        if (!pooled)
            kit_pool_put(&pool, b[i]);
    }
    kit_pool_close(&pool);
    kit_depot_destroy(&d);
}
END_TEST

START_TEST(test_depot_keeps_at_most_its_max)
{
    kit_depot d;
    kit_depot_init(&d, BLOCK, KIT_POOL_BATCH + 5);
    ck_assert(kit_pool_open(&pool, &d));
    for (int round = 0; round < 4; round++) {
        void *b[KIT_POOL_BLOCKS + 1];
        for (int i = 0; i <= KIT_POOL_BLOCKS; i++)
            b[i] = malloc(BLOCK);
        for (int i = 0; i <= KIT_POOL_BLOCKS; i++)
            kit_pool_put(&pool, b[i]);
        ck_assert_uint_le(depot_count(&d), KIT_POOL_BATCH + 5);
        kit_pool_close(&pool); /* the pool's blocks freed */
        ck_assert(kit_pool_open(&pool, &d));
    }
    ck_assert_uint_eq(depot_count(&d), KIT_POOL_BATCH + 5);
    kit_pool_close(&pool);
    kit_depot_destroy(&d);
}
END_TEST

/* ---- between threads --------------------------------------------------------------- */

#define HANDED 1000

typedef struct handover {
    kit_depot *depot;
    void *blocks[HANDED];
} handover;

/* Frees every block it is handed: its pool fills, and spills to the depot. */
static void *consumer(void *arg)
{
    handover *h = arg;
    ck_assert(kit_pool_open(&pool, h->depot));
    for (int i = 0; i < HANDED; i++)
        kit_pool_put(&pool, h->blocks[i]);
    ck_assert_uint_gt(pool.count, 0);
    return NULL; /* the pool's blocks are freed when the thread ends */
}

START_TEST(test_blocks_freed_on_one_thread_serve_another)
{
    kit_depot d;
    kit_depot_init(&d, BLOCK, 4096);
    static handover h;
    h.depot = &d;
    ck_assert(kit_pool_open(&pool, &d));
    for (int i = 0; i < HANDED; i++)
        h.blocks[i] = kit_pool_get(&pool);
    pthread_t t;
    ck_assert_int_eq(pthread_create(&t, NULL, consumer, &h), 0);
    ck_assert_int_eq(pthread_join(t, NULL), 0);
    ck_assert_uint_gt(depot_count(&d), HANDED - KIT_POOL_BLOCKS - 1);
    /* this thread's next blocks are the consumer's, from the depot */
    void *got[100];
    for (int k = 0; k < 100; k++) {
        got[k] = kit_pool_get(&pool);
        bool known = false;
        for (int i = 0; i < HANDED; i++)
            known |= got[k] == h.blocks[i];
        ck_assert_msg(known, "block %d came from malloc, not the depot", k);
    }
    for (int k = 0; k < 100; k++)
        kit_pool_put(&pool, got[k]);
    kit_pool_close(&pool);
    kit_depot_destroy(&d);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("kit_pool");
    TCase *tc = tcase_create("pool");
    tcase_add_test(tc, test_closed_pool_keeps_nothing);
    tcase_add_test(tc, test_open_pool_hands_back_its_blocks);
    tcase_add_test(tc, test_full_pool_spills_and_empty_pool_refills);
    tcase_add_test(tc, test_depot_keeps_at_most_its_max);
    tcase_add_test(tc, test_blocks_freed_on_one_thread_serve_another);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
