/*
 * test_snet_reuse.c - a box that updates its input record into an output
 * (snet_record_reuse, snet_out(h, in)) emits exactly what the same box
 * building new records emits: each box below is written both ways and
 * both nets get the same records (with unconsumed fields, tags and
 * binding tags, labels named like the output's, labels the box removes)
 * and must give the same outputs, label for label. Also: the input is
 * given once (later calls return NULL, later outputs are new records and
 * inherit), every output gets a new id, the check rejects what a new
 * record's check rejects, and a reused record the box frees or fails with
 * is freed once (the ASan build checks that).
 */
#include "snet_test_util.h"

#include <check.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the two ways of writing each box ------------------------------------------------ */

/* {a, <k>} -> {b, <k>} | {a}: b = 2a and <k> + 1; for odd k, a second
 * output {a} (a new record in both versions). */
static int second_output(snet_handle *h, int rc, long a, long k)
{
    if (rc != SNET_OK || k % 2 == 0)
        return rc;
    snet_record *out = snet_record_new();
    snet_record_set_int(out, "a", a);
    return snet_out(h, out);
}

static int twice_new(snet_handle *h, snet_record *in)
{
    long a = snet_record_int(in, "a"), k = snet_record_tag(in, "k");
    snet_record *out = snet_record_new();
    snet_record_set_int(out, "b", 2 * a);
    snet_record_set_tag(out, "k", k + 1);
    return second_output(h, snet_out(h, out), a, k);
}

static int twice_reuse(snet_handle *h, snet_record *in)
{
    long a = snet_record_int(in, "a"), k = snet_record_tag(in, "k");
    snet_record *out = snet_record_reuse(h);
    ck_assert_ptr_eq(out, in);
    ck_assert_ptr_null(snet_record_reuse(h)); /* once */
    ck_assert(snet_record_remove(out, SNET_FIELD, "a")); /* consumed, not in {b, <k>} */
    snet_record_set_int(out, "b", 2 * a);
    snet_record_set_tag(out, "k", k + 1);
    return second_output(h, snet_out(h, out), a, k);
}

/* {a} -> {a}: passes its input on; the reusing version also removes the
 * inherited string s from the record after taking it, which must come
 * back (inheritance takes the input's labels as they are when the box
 * takes the record, as a new record gets them as they are at snet_out). */
static int pass_new(snet_handle *h, snet_record *in)
{
    snet_record *out = snet_record_new();
    const snet_field_type *type = snet_record_field_type(in, "a");
    snet_record_set_field(out, "a", type, snet_record_take_field(in, "a"));
    return snet_out(h, out);
}

static int pass_reuse(snet_handle *h, snet_record *in)
{
    (void)in;
    snet_record *out = snet_record_reuse(h);
    snet_record_remove(out, SNET_FIELD, "s"); /* inherited: comes back */
    return snet_out(h, out);
}

/* {a} -> {a}: reuses its input, frees it, and builds a new record (which
 * the record pool is likely to place where the input was). */
static int refree_reuse(snet_handle *h, snet_record *in)
{
    long a = snet_record_int(in, "a");
    snet_record_free(snet_record_reuse(h));
    snet_record *out = snet_record_new();
    snet_record_set_int(out, "a", a);
    return snet_out(h, out);
}

static int a_new(snet_handle *h, snet_record *in)
{
    snet_record *out = snet_record_new();
    snet_record_set_int(out, "a", snet_record_int(in, "a"));
    return snet_out(h, out);
}

/* ---- running and comparing ------------------------------------------------------------- */

/* Record i: {a=i, <k>=i} and, by i, unconsumed labels: a string s, a tag
 * <t>, a field b (named like an output label), a binding tag <#g> (which
 * the boxes' types name when it is there). */
static snet_record *input_record(long i)
{
    snet_record *r = snet_record_new();
    snet_record_set_int(r, "a", i);
    snet_record_set_tag(r, "k", i);
    if (i % 2 == 0) {
        char s[32];
        snprintf(s, sizeof s, "s%ld", i);
        snet_record_set_string(r, "s", s);
    }
    if (i % 3 == 0)
        snet_record_set_tag(r, "t", 100 + i);
    if (i % 4 == 1)
        snet_record_set_int(r, "b", -i);
    return r;
}

typedef struct gen {
    long next, n;
} gen;

static snet_record *next_input(void *user)
{
    gen *g = user;
    return g->next < g->n ? input_record(g->next++) : NULL;
}

/* One record as sorted "label=value" lines, whatever its label order. */
static char *canonical(const snet_record *r)
{
    size_t n = snet_record_label_count(r);
    char **parts = calloc(n ? n : 1, sizeof *parts);
    size_t total = 1;
    for (size_t i = 0; i < n; i++) {
        snet_label_kind kind;
        const char *name = snet_record_label(r, i, &kind);
        char buf[128];
        if (kind != SNET_FIELD)
            snprintf(buf, sizeof buf, "<%s%s>=%ld", kind == SNET_BTAG ? "#" : "", name,
                     kind == SNET_BTAG ? snet_record_btag(r, name) : snet_record_tag(r, name));
        else if (snet_record_field_type(r, name) == &snet_field_string)
            snprintf(buf, sizeof buf, "%s=\"%s\"", name, snet_record_string(r, name));
        else
            snprintf(buf, sizeof buf, "%s=%ld", name, snet_record_int(r, name));
        parts[i] = strdup(buf);
        total += strlen(buf) + 1;
    }
    for (size_t i = 1; i < n; i++) /* insertion sort: a handful of labels */
        for (size_t j = i; j > 0 && strcmp(parts[j - 1], parts[j]) > 0; j--) {
            char *t = parts[j];
            parts[j] = parts[j - 1];
            parts[j - 1] = t;
        }
    char *text = calloc(total, 1);
    for (size_t i = 0; i < n; i++) {
        strcat(text, parts[i]);
        strcat(text, " ");
        free(parts[i]);
    }
    free(parts);
    return text;
}

static int cmp_text(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The outputs of net over n input records, canonical and sorted. */
static char **outputs_of(snet_net *net, long n, size_t *count, unsigned workers)
{
    gen g = {0, n};
    run_result r = run_net(net, workers, next_input, &g);
    ck_assert_msg(r.rc == SNET_OK, "%s", r.error);
    char **texts = calloc(r.nout ? r.nout : 1, sizeof *texts);
    for (size_t i = 0; i < r.nout; i++) {
        ck_assert_uint_ne(snet_record_id(r.out[i]), 0);
        texts[i] = canonical(r.out[i]);
    }
    qsort(texts, r.nout, sizeof *texts, cmp_text);
    *count = r.nout;
    run_result_free(&r);
    return texts;
}

static void free_texts(char **texts, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(texts[i]);
    free(texts);
}

/* The box written both ways gives the same outputs, on 1 and 2 workers. */
static void same_outputs(const char *sig, snet_box_fn copying, snet_box_fn reusing, long n,
                         size_t expected)
{
    for (unsigned workers = 1; workers <= 2; workers++) {
        snet_net *a = snet_box("box", sig, copying, NULL);
        snet_net *b = snet_box("box", sig, reusing, NULL);
        size_t na, nb;
        char **ta = outputs_of(a, n, &na, workers), **tb = outputs_of(b, n, &nb, workers);
        ck_assert_uint_eq(na, expected);
        ck_assert_uint_eq(nb, na);
        for (size_t i = 0; i < na; i++)
            ck_assert_str_eq(tb[i], ta[i]);
        free_texts(ta, na);
        free_texts(tb, nb);
        snet_net_free(a);
        snet_net_free(b);
    }
}

/* ---- tests --------------------------------------------------------------------------------- */

START_TEST(test_updated_input_is_what_a_new_record_is)
{
    /* 60 inputs: 60 first outputs, 30 second ones (odd k) */
    same_outputs("{a, <k>} -> {b, <k>} | {a}", twice_new, twice_reuse, 60, 90);
}
END_TEST

START_TEST(test_removed_inherited_labels_come_back)
{
    same_outputs("{a} -> {a}", pass_new, pass_reuse, 40, 40);
}
END_TEST

START_TEST(test_freed_reused_record_then_a_new_one)
{
    same_outputs("{a} -> {a}", a_new, refree_reuse, 40, 40);
}
END_TEST

/* With binding tags: a record only matches a type naming them, so they
 * are consumed and never inherited, either way. */
static int btag_new(snet_handle *h, snet_record *in)
{
    snet_record *out = snet_record_new();
    snet_record_set_int(out, "a", snet_record_int(in, "a") + 1);
    snet_record_set_btag(out, "g", snet_record_btag(in, "g"));
    return snet_out(h, out);
}

static int btag_reuse(snet_handle *h, snet_record *in)
{
    snet_record_set_int(in, "a", snet_record_int(in, "a") + 1);
    return snet_out(h, in);
}

static snet_record *btag_input(void *user)
{
    gen *g = user;
    if (g->next >= g->n)
        return NULL;
    snet_record *r = input_record(g->next);
    snet_record_set_btag(r, "g", g->next++ % 3);
    return r;
}

START_TEST(test_binding_tags_either_way)
{
    const char *sig = "{a, <#g>} -> {a, <#g>}";
    snet_net *a = snet_box("box", sig, btag_new, NULL), *b = snet_box("box", sig, btag_reuse, NULL);
    gen ga = {0, 30}, gb = {0, 30};
    run_result ra = run_net(a, 1, btag_input, &ga), rb = run_net(b, 1, btag_input, &gb);
    ck_assert_msg(ra.rc == SNET_OK && rb.rc == SNET_OK, "%s %s", ra.error, rb.error);
    ck_assert_uint_eq(ra.nout, 30);
    ck_assert_uint_eq(rb.nout, 30);
    for (size_t i = 0; i < ra.nout; i++) { /* one box on one worker: in order */
        char *x = canonical(ra.out[i]), *y = canonical(rb.out[i]);
        ck_assert_str_eq(y, x);
        ck_assert_int_eq(snet_record_btag(rb.out[i], "g"), (long)i % 3);
        free(x);
        free(y);
    }
    run_result_free(&ra);
    run_result_free(&rb);
    snet_net_free(a);
    snet_net_free(b);
}
END_TEST

/* Every output, reused or new, gets an id of its own. */
static int fan_reuse(snet_handle *h, snet_record *in)
{
    long a = snet_record_int(in, "a");
    if (snet_out(h, in) != SNET_OK) /* the input itself, first */
        return -1;
    for (int i = 0; i < 2; i++) {
        ck_assert_ptr_null(snet_record_reuse(h));
        snet_record *out = snet_record_new();
        snet_record_set_int(out, "a", a);
        if (snet_out(h, out) != SNET_OK)
            return -1;
    }
    return 0;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

START_TEST(test_every_output_has_its_own_id)
{
    snet_net *net = snet_serial(snet_box("fan", "{a} -> {a}", fan_reuse, NULL),
                                snet_box("pass", "{a} -> {a}", pass_reuse, NULL));
    gen g = {0, 200};
    run_result r = run_net(net, test_workers(), next_input, &g);
    ck_assert_msg(r.rc == SNET_OK, "%s", r.error);
    ck_assert_uint_eq(r.nout, 600);
    uint64_t *ids = malloc(r.nout * sizeof *ids);
    for (size_t i = 0; i < r.nout; i++)
        ids[i] = snet_record_id(r.out[i]);
    qsort(ids, r.nout, sizeof *ids, cmp_u64);
    for (size_t i = 1; i < r.nout; i++)
        ck_assert_msg(ids[i] != ids[i - 1], "id %llx twice", (unsigned long long)ids[i]);
    free(ids);
    run_result_free(&r);
    snet_net_free(net);
}
END_TEST

/* The check of a reused record: a consumed label left in it that its
 * output does not declare is rejected, as in a new record; so is a label
 * it neither inherits nor declares. Both are reported and freed. */
static int forgets_to_remove(snet_handle *h, snet_record *in)
{
    snet_record_set_int(in, "b", 1); /* a stays: {a, b} is not {b} */
    return snet_out(h, in) == SNET_ERUNTIME ? 0 : -1;
}

static int adds_undeclared(snet_handle *h, snet_record *in)
{
    (void)in;
    snet_record *out = snet_record_reuse(h);
    snet_record_set_tag(out, "zz", 1);
    return snet_out(h, out) == SNET_ERUNTIME ? 0 : -1;
}

/* reused, then the box fails: the runtime frees nothing twice */
static int fails_after_reuse(snet_handle *h, snet_record *in)
{
    (void)in;
    snet_record_free(snet_record_reuse(h));
    return 1;
}

static void expect_error(const char *sig, snet_box_fn fn, const char *message)
{
    snet_net *net = snet_box("box", sig, fn, NULL);
    gen g = {0, 8};
    run_result r = run_net(net, 1, next_input, &g);
    ck_assert_int_eq(r.rc, SNET_ERUNTIME);
    ck_assert_msg(strstr(r.error, message) != NULL, "error: %s", r.error);
    ck_assert_uint_eq(r.nout, 0);
    run_result_free(&r);
    snet_net_free(net);
}

START_TEST(test_reused_record_checked)
{
    expect_error("{a} -> {b}", forgets_to_remove, "none of its output variants {b}");
    expect_error("{a} -> {a}", adds_undeclared, "none of its output variants {a}");
    expect_error("{a} -> {a}", fails_after_reuse, "box 'box' failed (it returned 1)");
}
END_TEST

int main(void)
{
    Suite *s = suite_create("snet_reuse");
    TCase *tc = tcase_create("reuse");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_updated_input_is_what_a_new_record_is);
    tcase_add_test(tc, test_removed_inherited_labels_come_back);
    tcase_add_test(tc, test_freed_reused_record_then_a_new_one);
    tcase_add_test(tc, test_binding_tags_either_way);
    tcase_add_test(tc, test_every_output_has_its_own_id);
    tcase_add_test(tc, test_reused_record_checked);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
