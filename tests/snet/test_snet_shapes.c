/*
 * test_snet_shapes.c - the per-record shortcuts of the S-Net runtime give
 * the answers full matching gives: entities remember the last record shape
 * they matched (box input, parallel routing, star and feedback exits,
 * filter patterns), a box remembers the shape of its last output, the
 * input task remembers the names it interned, and freed records are kept
 * per worker for reuse. Each test feeds records whose shapes change from
 * one record to the next (or whose label names sit in one reused buffer)
 * and checks every output, so a stale cached answer fails the test.
 */
#include "snet_test_util.h"

#include <check.h>

#include <stdio.h>
#include <string.h>

/* Collect every output of net over the records put in order. */
static run_result run_records(const snet_net *net, snet_record **in, size_t n)
{
    run_result res = {0};
    snet_run *run;
    snet_config cfg = snet_config_default();
    cfg.lpel.num_workers = test_workers();
    ck_assert_ptr_null(snet_net_check(net));
    ck_assert_int_eq(snet_run_create(&run, net, &cfg, res.error, sizeof res.error), SNET_OK);
    for (size_t i = 0; i < n; i++)
        ck_assert_int_eq(snet_run_put(run, in[i]), SNET_OK);
    res.rc = snet_run_execute(run);
    if (res.rc != SNET_OK)
        snprintf(res.error, sizeof res.error, "%s", snet_run_error(run));
    res.out = calloc(n * 4 + 1, sizeof *res.out);
    for (snet_record *o; (o = snet_run_take_output(run)) != NULL;)
        res.out[res.nout++] = o;
    snet_run_destroy(run);
    return res;
}

/* ---- box input: the variant chosen per record ------------------------------------------- */

/* Emits {v} = the input variant the runtime chose, keeps <i>. */
static int box_variant(snet_handle *h, snet_record *in)
{
    snet_record *out = snet_record_new();
    snet_record_set_int(out, "v", (long)snet_handle_variant(h));
    snet_record_set_tag(out, "i", snet_record_tag(in, "i"));
    return snet_out(h, out);
}

/* Record i of a cycle of shapes, and the variant of "{a} | {b} | {a, b} |
 * {a, <#k>}" it must match: extra labels (c) are allowed, a binding tag
 * must be named, the most specific variant wins. */
static snet_record *shaped(long i, long *variant)
{
    snet_record *r = snet_record_new();
    snet_record_set_tag(r, "i", i);
    switch (i % 6) {
    case 0: snet_record_set_int(r, "a", 1); *variant = 0; break;
    case 1: snet_record_set_int(r, "b", 1); *variant = 1; break;
    case 2: snet_record_set_int(r, "a", 1); snet_record_set_int(r, "b", 1); *variant = 2; break;
    case 3: snet_record_set_int(r, "a", 1); snet_record_set_int(r, "c", 1); *variant = 0; break;
    case 4: snet_record_set_int(r, "a", 1); snet_record_set_btag(r, "k", 7); *variant = 3; break;
    default: /* the same labels as case 2, set in the other order */
        snet_record_set_int(r, "b", 1); snet_record_set_int(r, "a", 1); *variant = 2; break;
    }
    return r;
}

START_TEST(test_box_variant_per_record)
{
    enum { N = 600 };
    snet_net *net = snet_box("v", "{a, <i>} | {b, <i>} | {a, b, <i>} | {a, <#k>, <i>} -> {v, <i>}",
                             box_variant, NULL);
    snet_record *in[N];
    long expected[N];
    for (long i = 0; i < N; i++)
        in[i] = shaped(i, &expected[i]);
    run_result r = run_records(net, in, N);
    ck_assert_msg(r.rc == SNET_OK, "run failed: %s", r.error);
    ck_assert_uint_eq(r.nout, N);
    for (size_t k = 0; k < r.nout; k++) {
        long i = snet_record_tag(r.out[k], "i");
        ck_assert_int_eq(snet_record_int(r.out[k], "v"), expected[i]);
    }
    run_result_free(&r);
    snet_net_free(net);
}
END_TEST

/* ---- box output: names checked by content, not by address ------------------------------- */

/* {x} -> {p, <i>} | {q, <i>}: the output's field name is written into one
 * buffer for every record, "p" for even x, "q" for odd x: the same address
 * holds a different name each time. */
static int box_reused_name(snet_handle *h, snet_record *in)
{
    static _Thread_local char name[8];
    long x = snet_record_int(in, "x");
    snprintf(name, sizeof name, "%s", x % 2 ? "q" : "p");
    snet_record *out = snet_record_new();
    snet_record_set_int(out, name, x);
    snet_record_set_tag(out, "i", x);
    return snet_out(h, out);
}

/* Emits {w} for a bad output name every third record: must be refused
 * even right after an accepted output of the same shape and address. */
static int box_sometimes_bad(snet_handle *h, snet_record *in)
{
    static _Thread_local char name[8];
    long x = snet_record_int(in, "x");
    snprintf(name, sizeof name, "%s", x % 3 == 2 ? "w" : "p");
    snet_record *out = snet_record_new();
    snet_record_set_int(out, name, x);
    int rc = snet_out(h, out);
    return x % 3 == 2 ? (rc == SNET_ERUNTIME ? 0 : 1) : rc;
}

START_TEST(test_box_output_names_by_content)
{
    snet_net *net = snet_box("r", "{x} -> {p, <i>} | {q, <i>}", box_reused_name, NULL);
    gen_input g = {0, 400, 0, "x", NULL};
    run_result r = run_net(net, test_workers(), gen_next, &g);
    ck_assert_msg(r.rc == SNET_OK, "run failed: %s", r.error);
    ck_assert_uint_eq(r.nout, 400);
    for (size_t k = 0; k < r.nout; k++) {
        long x = snet_record_tag(r.out[k], "i");
        const char *want = x % 2 ? "q" : "p", *other = x % 2 ? "p" : "q";
        ck_assert_msg(snet_record_has_field(r.out[k], want), "record %ld lacks %s", x, want);
        ck_assert(!snet_record_has_field(r.out[k], other));
        ck_assert_int_eq(snet_record_int(r.out[k], want), x);
    }
    run_result_free(&r);
    snet_net_free(net);

    net = snet_box("s", "{x} -> {p}", box_sometimes_bad, NULL);
    g = (gen_input){0, 30, 0, "x", NULL};
    r = run_net(net, test_workers(), gen_next, &g);
    ck_assert_int_eq(r.rc, SNET_ERUNTIME); /* the refused outputs are reported */
    ck_assert_msg(strstr(r.error, "{w}"), "message: %s", r.error);
    ck_assert_uint_eq(r.nout, 20);
    for (size_t k = 0; k < r.nout; k++)
        ck_assert_int_ne(snet_record_int(r.out[k], "p") % 3, 2);
    run_result_free(&r);
    snet_net_free(net);
}
END_TEST

/* ---- parallel routing, filter pattern ------------------------------------------------------ */

static int box_tag_a(snet_handle *h, snet_record *in)
{
    (void)in;
    snet_record *out = snet_record_new();
    snet_record_set_tag(out, "went", 1);
    return snet_out(h, out);
}

static int box_tag_b(snet_handle *h, snet_record *in)
{
    (void)in;
    snet_record *out = snet_record_new();
    snet_record_set_tag(out, "went", 2);
    return snet_out(h, out);
}

static int box_tag_ab(snet_handle *h, snet_record *in)
{
    (void)in;
    snet_record *out = snet_record_new();
    snet_record_set_tag(out, "went", 3);
    return snet_out(h, out);
}

START_TEST(test_parallel_routes_per_record)
{
    enum { N = 600 };
    snet_net *net = snet_parallel(
        snet_box("A", "{a} -> {<went>}", box_tag_a, NULL),
        snet_parallel(snet_box("B", "{b} -> {<went>}", box_tag_b, NULL),
                      snet_box("AB", "{a, b} -> {<went>}", box_tag_ab, NULL)));
    snet_record *in[N];
    long want[N];
    for (long i = 0; i < N; i++) {
        long variant;
        in[i] = shaped(i, &variant);
        if (i % 6 == 4) /* {a, <#k>}: no branch names <#k>; use c instead */
            snet_record_remove(in[i], SNET_BTAG, "k"), snet_record_set_int(in[i], "c", 2);
        want[i] = (i % 6 == 1) ? 2 : (i % 6 == 2 || i % 6 == 5) ? 3 : 1;
    }
    run_result r = run_records(net, in, N);
    ck_assert_msg(r.rc == SNET_OK, "run failed: %s", r.error);
    ck_assert_uint_eq(r.nout, N);
    for (size_t k = 0; k < r.nout; k++) {
        long i = snet_record_tag(r.out[k], "i"); /* inherited */
        ck_assert_int_eq(snet_record_tag(r.out[k], "went"), want[i]);
    }
    run_result_free(&r);
    snet_net_free(net);
}
END_TEST

START_TEST(test_filter_pattern_per_record)
{
    enum { N = 300 };
    /* Records with a pass; records without a are refused (reported). */
    snet_net *net = snet_filter("[{a} -> {z = a}]");
    snet_record *in[N];
    long passed = 0;
    for (long i = 0; i < N; i++) {
        long variant;
        in[i] = shaped(i, &variant);
        if (i % 6 == 4)
            snet_record_remove(in[i], SNET_BTAG, "k");
        passed += i % 6 != 1;
    }
    run_result r = run_records(net, in, N);
    ck_assert_int_eq(r.rc, SNET_ERUNTIME); /* the {b} records match nothing */
    ck_assert_uint_eq(r.nout, (size_t)passed);
    for (size_t k = 0; k < r.nout; k++) {
        ck_assert(snet_record_has_field(r.out[k], "z"));
        ck_assert_int_ne(snet_record_tag(r.out[k], "i") % 6, 1);
    }
    run_result_free(&r);
    snet_net_free(net);
}
END_TEST

/* ---- guarded exits are tested per record ------------------------------------------------------ */

/* {<n>} -> {<n>}: n - 1 */
static int box_dec(snet_handle *h, snet_record *in)
{
    snet_record *out = snet_record_new();
    snet_record_set_tag(out, "n", snet_record_tag(in, "n") - 1);
    return snet_out(h, out);
}

/* Every record has the shape {<n>, <i>}; only the guard decides when it
 * leaves, so a match remembered by shape would let all leave at once. */
START_TEST(test_star_guarded_exit_per_record)
{
    enum { N = 40 };
    snet_net *net = snet_star(snet_box("dec", "{<n>} -> {<n>}", box_dec, NULL),
                              "{<n>} if <n == 0>");
    snet_record *in[N];
    for (long i = 0; i < N; i++) {
        in[i] = snet_record_new();
        snet_record_set_tag(in[i], "n", i % 7);
        snet_record_set_tag(in[i], "i", i);
    }
    run_result r = run_records(net, in, N);
    ck_assert_msg(r.rc == SNET_OK, "run failed: %s", r.error);
    ck_assert_uint_eq(r.nout, N);
    for (size_t k = 0; k < r.nout; k++)
        ck_assert_int_eq(snet_record_tag(r.out[k], "n"), 0);
    run_result_free(&r);
    snet_net_free(net);
}
END_TEST

/* ---- names interned on input; pooled records ------------------------------------------------ */

/* Input records whose names live in buffers that change between records
 * (parsed text records own their names): each output must carry its own
 * record's names. More distinct names than the input task remembers. */
START_TEST(test_input_names_interned_per_record)
{
    enum { N = 200, NAMES = 23 };
    snet_net *net = snet_filter("[]");
    snet_record *in[N];
    char text[64];
    for (long i = 0; i < N; i++) {
        snprintf(text, sizeof text, "{f%ld=%ld, <i>=%ld}", i % NAMES, i, i);
        const char *end;
        char err[128];
        ck_assert_int_eq(snet_record_parse(text, &end, &in[i], NULL, 0, err, sizeof err), SNET_OK);
    }
    run_result r = run_records(net, in, N);
    ck_assert_msg(r.rc == SNET_OK, "run failed: %s", r.error);
    ck_assert_uint_eq(r.nout, N);
    for (size_t k = 0; k < r.nout; k++) {
        long i = snet_record_tag(r.out[k], "i");
        snprintf(text, sizeof text, "f%ld", i % NAMES);
        ck_assert_msg(snet_record_has_field(r.out[k], text), "record %ld lacks %s", i, text);
        ck_assert_uint_eq(snet_record_label_count(r.out[k]), 2);
    }
    run_result_free(&r);
    snet_net_free(net);
}
END_TEST

/* Many records through a pipeline whose stages free and allocate on every
 * worker: reused records start empty (no label of a previous life). */
static int box_fresh(snet_handle *h, snet_record *in)
{
    snet_record *out = snet_record_new();
    if (snet_record_label_count(out) != 0 || snet_record_id(out) != 0)
        return 1; /* a reused record that was not reset */
    snet_record_set_field(out, "x", &snet_field_int, snet_record_take_field(in, "x"));
    return snet_out(h, out);
}

START_TEST(test_pooled_records_start_empty)
{
    snet_net *net = snet_box("f1", "{x} -> {x}", box_fresh, NULL);
    for (int i = 2; i <= 6; i++) {
        char name[8];
        snprintf(name, sizeof name, "f%d", i);
        net = snet_serial(net, snet_box(name, "{x} -> {x}", box_fresh, NULL));
    }
    gen_input g = {0, 20000, 5, "x", "t"};
    run_result r = run_net(net, test_workers(), gen_next, &g);
    ck_assert_msg(r.rc == SNET_OK, "run failed: %s", r.error);
    ck_assert_uint_eq(r.nout, 20000);
    for (size_t k = 0; k < r.nout; k++)
        ck_assert_uint_eq(snet_record_label_count(r.out[k]), 2); /* x and the inherited <t> */
    run_result_free(&r);
    snet_net_free(net);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("snet_shapes");
    TCase *tc = tcase_create("shapes");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_box_variant_per_record);
    tcase_add_test(tc, test_box_output_names_by_content);
    tcase_add_test(tc, test_parallel_routes_per_record);
    tcase_add_test(tc, test_filter_pattern_per_record);
    tcase_add_test(tc, test_star_guarded_exit_per_record);
    tcase_add_test(tc, test_input_names_interned_per_record);
    tcase_add_test(tc, test_pooled_records_start_empty);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
