/*
 * test_wfb_json.c - the reports' JSON documents (wfb_report.c): each
 * wfb_json_doc keeps its own state, so a member that could not be added
 * refuses its document only, and deferred arrays (written item by item as
 * the document is dumped) land in their own document, in the bytes the
 * array built in memory would have.
 */
#include "wfb_internal.h"

#include <check.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Item i of a deferred array: {"i": i, "of": *n}. */
static json_t *counted_item(wfb_json_doc *d, const void *a, const void *b, size_t i)
{
    (void)b;
    const size_t *n = a;
    json_t *o = json_object();
    wfb_json_set(d, o, "i", json_integer((json_int_t)i));
    wfb_json_set(d, o, "of", json_integer((json_int_t)*n));
    return o;
}

/* A document of a name and n items, the items deferred or built. */
static json_t *doc_of(wfb_json_doc *d, const char *name, const size_t *n, bool deferred)
{
    json_t *root = json_object();
    wfb_json_set(d, root, "name", json_string(name));
    if (deferred) {
        wfb_json_set(d, root, "items", wfb_json_deferred_array(d, counted_item, n, NULL, *n));
    } else {
        json_t *items = json_array();
        for (size_t i = 0; i < *n; i++)
            wfb_json_append(d, items, counted_item(d, n, NULL, i));
        wfb_json_set(d, root, "items", items);
    }
    wfb_json_set(d, root, "after", json_real(1.5));
    return root;
}

/* What wfb_json_dump writes for root; *rc its status. */
static char *dumped(wfb_json_doc *d, json_t *root, int *rc)
{
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    ck_assert_ptr_nonnull(out);
    *rc = wfb_json_dump(d, root, out);
    fclose(out);
    return text;
}

START_TEST(deferred_same_bytes_as_built)
{
    for (size_t n = 0; n < 4; n++) {
        wfb_json_doc built = {0}, deferred = {0};
        int rc_built, rc_deferred;
        char *a = dumped(&built, doc_of(&built, "x", &n, false), &rc_built);
        char *b = dumped(&deferred, doc_of(&deferred, "x", &n, true), &rc_deferred);
        ck_assert_int_eq(rc_built, 0);
        ck_assert_int_eq(rc_deferred, 0);
        ck_assert_str_eq(a, b);
        free(a), free(b);
    }
}
END_TEST

START_TEST(documents_keep_their_own_deferred_arrays)
{
    size_t two = 2, three = 3;
    wfb_json_doc d1 = {0}, d2 = {0}, ref = {0};
    json_t *r1 = doc_of(&d1, "one", &two, true);
    json_t *r2 = doc_of(&d2, "two", &three, true); /* built before r1 is dumped */
    int rc;
    char *t2 = dumped(&d2, r2, &rc);
    ck_assert_int_eq(rc, 0);
    char *t1 = dumped(&d1, r1, &rc);
    ck_assert_int_eq(rc, 0);
    char *want = dumped(&ref, doc_of(&ref, "two", &three, false), &rc);
    ck_assert_str_eq(t2, want);
    free(want);
    want = dumped(&ref, doc_of(&ref, "one", &two, false), &rc);
    ck_assert_str_eq(t1, want);
    free(t1), free(t2), free(want);
}
END_TEST

START_TEST(failed_member_refuses_its_document_only)
{
    size_t one = 1;
    wfb_json_doc bad = {0}, good = {0};
    json_t *rb = doc_of(&bad, "bad", &one, true);
    json_t *rg = doc_of(&good, "good", &one, true);
    ck_assert_int_eq(wfb_json_set(&bad, rb, "lost", NULL), -1); /* a constructor that failed */
    ck_assert(bad.failed);
    ck_assert(!good.failed);
    int rc;
    char *t = dumped(&bad, rb, &rc);
    ck_assert_int_eq(rc, -1);
    ck_assert_str_eq(t, ""); /* nothing written */
    free(t);
    t = dumped(&good, rg, &rc);
    ck_assert_int_eq(rc, 0);
    ck_assert_ptr_nonnull(strstr(t, "\"good\""));
    free(t);
    /* an append into an array that could not be made */
    wfb_json_doc d = {0};
    ck_assert_int_eq(wfb_json_append(&d, NULL, json_integer(1)), -1);
    ck_assert(d.failed);
    ck_assert_int_eq(wfb_json_dump(&d, json_object(), stdout), -1);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("wfb_json");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, deferred_same_bytes_as_built);
    tcase_add_test(tc, documents_keep_their_own_deferred_arrays);
    tcase_add_test(tc, failed_member_refuses_its_document_only);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
