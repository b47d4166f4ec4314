/*
 * test_kit_map.c - the kit's index map and id map (kit/kit_map.c, the
 * inline lookups of kit.h): what was inserted is found after any number of
 * grows, absent keys are not, colliding hashes are told apart by the
 * caller's comparison, clear forgets, and the FNV-1a the applications
 * print as checksums keeps its published values.
 */
#include <check.h>
#include <kit.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The caller's array: strings, found by their text. */
typedef struct words {
    const char **text;
    size_t n, cap;
    kit_index_map map;
} words;

typedef struct probe {
    const words *w;
    const char *text;
} probe;

static uint64_t text_hash(const char *s) { return kit_fnv1a(KIT_FNV1A_INIT, s, strlen(s)); }
/* Every key the same hash: the map must still tell them apart. */
static uint64_t bad_hash(const char *s)
{
    (void)s;
    return 42;
}
static uint64_t (*hash_fn)(const char *) = text_hash;

static bool same_text(const void *ctx, uint32_t i)
{
    const probe *p = ctx;
    return strcmp(p->w->text[i], p->text) == 0;
}

static uint64_t stored_hash(const void *ctx, uint32_t i)
{
    const words *w = ctx;
    return hash_fn(w->text[i]);
}

static uint32_t find(const words *w, const char *text)
{
    probe p = {w, text};
    return kit_index_map_find(&w->map, hash_fn(text), same_text, &p);
}

static void add(words *w, const char *text)
{
    ck_assert_uint_eq(find(w, text), KIT_INDEX_NONE);
    ck_assert_int_eq(KIT_PUSH(w->text, w->n, w->cap, text), 0);
    ck_assert_int_eq(
        kit_index_map_insert(&w->map, hash_fn(text), (uint32_t)(w->n - 1), stored_hash, w), 0);
}

static void check_many(uint64_t (*h)(const char *), unsigned count)
{
    hash_fn = h;
    words w = {0};
    char (*names)[16] = calloc(count, sizeof *names);
    for (unsigned i = 0; i < count; i++) {
        snprintf(names[i], sizeof names[i], "w%u", i);
        add(&w, names[i]);
    }
    ck_assert_uint_eq(w.map.count, count);
    ck_assert_uint_ge(w.map.nslots, 2 * (size_t)count); /* at most half full */
    for (unsigned i = 0; i < count; i++)
        ck_assert_uint_eq(find(&w, names[i]), i);
    ck_assert_uint_eq(find(&w, "absent"), KIT_INDEX_NONE);
    ck_assert_uint_eq(kit_index_map_bytes(&w.map), w.map.nslots * sizeof(uint32_t));
    kit_index_map_clear(&w.map);
    ck_assert_uint_eq(find(&w, names[0]), KIT_INDEX_NONE);
    kit_index_map_free(&w.map);
    ck_assert_uint_eq(w.map.nslots, 0);
    ck_assert_uint_eq(find(&w, names[0]), KIT_INDEX_NONE); /* an empty map is fine */
    free(w.text);
    free(names);
}

START_TEST(test_index_map_finds_after_grows) { check_many(text_hash, 100000); }
END_TEST

START_TEST(test_index_map_colliding_hashes) { check_many(bad_hash, 300); }
END_TEST

START_TEST(test_index_map_refuses_the_none_index)
{
    kit_index_map m = {0};
    ck_assert_int_eq(kit_index_map_insert(&m, 1, KIT_INDEX_NONE, NULL, NULL), -1);
    ck_assert_uint_eq(m.count, 0);
    kit_index_map_free(&m);
}
END_TEST

START_TEST(test_id_map_put_get)
{
    kit_id_map m = {0};
    size_t v = 99;
    ck_assert(!kit_id_map_get(&m, 5, &v));
    ck_assert_uint_eq(v, 99);
    for (uint64_t id = 0; id < 50000; id++)
        ck_assert_int_eq(kit_id_map_put(&m, id * 0x10001, (size_t)id + 1), 0);
    ck_assert_int_eq(kit_id_map_put(&m, 7 * 0x10001, 1234), 0); /* replaces */
    ck_assert_uint_eq(m.count, 50000);
    for (uint64_t id = 0; id < 50000; id++) {
        ck_assert(kit_id_map_get(&m, id * 0x10001, &v));
        ck_assert_uint_eq(v, id == 7 ? 1234 : (size_t)id + 1);
    }
    ck_assert(!kit_id_map_get(&m, 3, &v));
    kit_id_entry *e = kit_id_map_find_or_add(&m, UINT64_MAX);
    ck_assert_ptr_nonnull(e);
    ck_assert_uint_eq(e->value, 0);
    ck_assert_uint_eq(e->id, UINT64_MAX);
    ck_assert_ptr_eq(kit_id_map_find(&m, UINT64_MAX), e);
    ck_assert_ptr_eq(m.entries[50000].id == UINT64_MAX ? &m.entries[50000] : NULL, e);
    kit_id_map_free(&m);
    ck_assert_ptr_null(kit_id_map_find(&m, 0));
}
END_TEST

START_TEST(test_fnv1a_known_values)
{
    /* The published FNV-1a 64 test vectors. */
    ck_assert_uint_eq(kit_fnv1a(KIT_FNV1A_INIT, "", 0), UINT64_C(0xcbf29ce484222325));
    ck_assert_uint_eq(kit_fnv1a(KIT_FNV1A_INIT, "a", 1), UINT64_C(0xaf63dc4c8601ec8c));
    ck_assert_uint_eq(kit_fnv1a(KIT_FNV1A_INIT, "foobar", 6), UINT64_C(0x85944171f73967e8));
    /* Incremental: pieces hash as the whole. */
    ck_assert_uint_eq(kit_fnv1a(kit_fnv1a(KIT_FNV1A_INIT, "foo", 3), "bar", 3),
                      UINT64_C(0x85944171f73967e8));
}
END_TEST

int main(void)
{
    Suite *s = suite_create("kit_map");
    TCase *tc = tcase_create("maps");
    tcase_add_test(tc, test_index_map_finds_after_grows);
    tcase_add_test(tc, test_index_map_colliding_hashes);
    tcase_add_test(tc, test_index_map_refuses_the_none_index);
    tcase_add_test(tc, test_id_map_put_get);
    tcase_add_test(tc, test_fnv1a_known_values);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
