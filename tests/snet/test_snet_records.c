/*
 * test_snet_records.c - records, types and the text format without running
 * anything: setters/getters, copies, label kinds, the textual round trip,
 * parse errors, and builder errors surfacing in snet_net_check.
 */
#include <check.h>
#include <snet.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

START_TEST(test_record_fields_and_tags)
{
    snet_record *r = snet_record_new();
    ck_assert_int_eq(snet_record_set_int(r, "x", 42), SNET_OK);
    ck_assert_int_eq(snet_record_set_double(r, "d", 0.5), SNET_OK);
    ck_assert_int_eq(snet_record_set_string(r, "s", "hi"), SNET_OK);
    ck_assert_int_eq(snet_record_set_tag(r, "t", -3), SNET_OK);
    ck_assert_int_eq(snet_record_set_btag(r, "k", 7), SNET_OK);
    ck_assert_int_eq(snet_record_int(r, "x"), 42);
    ck_assert(snet_record_double(r, "d") == 0.5);
    ck_assert_str_eq(snet_record_string(r, "s"), "hi");
    ck_assert_int_eq(snet_record_tag(r, "t"), -3);
    ck_assert_int_eq(snet_record_btag(r, "k"), 7);
    ck_assert(!snet_record_has_tag(r, "x")); /* a field is not a tag */
    ck_assert(!snet_record_has_field(r, "t"));
    ck_assert_uint_eq(snet_record_label_count(r), 5);
    snet_record_set_int(r, "x", 43); /* replaces */
    ck_assert_uint_eq(snet_record_label_count(r), 5);
    /* Each label once, with its kind. */
    unsigned seen = 0;
    for (size_t i = 0; i < snet_record_label_count(r); i++) {
        snet_label_kind kind;
        const char *label = snet_record_label(r, i, &kind);
        const char *names = "xdstk";
        const char *at = strchr(names, label[0]);
        ck_assert_ptr_nonnull(at);
        ck_assert_int_eq(label[1], '\0');
        ck_assert_int_eq(kind, at - names < 3 ? SNET_FIELD : at[0] == 't' ? SNET_TAG : SNET_BTAG);
        seen |= 1u << (at - names);
    }
    ck_assert_uint_eq(seen, 31);
    snet_record *c = snet_record_copy(r);
    snet_record_set_string(r, "s", "changed");
    ck_assert_str_eq(snet_record_string(c, "s"), "hi");
    ck_assert_int_eq(snet_record_int(c, "x"), 43);
    ck_assert(snet_record_remove(c, SNET_TAG, "t"));
    ck_assert(!snet_record_has_tag(c, "t"));
    char *taken = snet_record_take_field(c, "s");
    ck_assert_str_eq(taken, "hi");
    free(taken);
    snet_record_free(r);
    snet_record_free(c);
}
END_TEST

static char *format(const snet_record *r)
{
    char *buf;
    size_t len;
    FILE *f = open_memstream(&buf, &len);
    snet_record_format(r, f);
    fclose(f);
    return buf;
}

START_TEST(test_text_round_trip)
{
    const char *text = "  # a comment\n {x=42, s:string=\"a \\\"q\\\", b\", d:double=2.5, "
                       "<t>=3, <#k>=-1} {}";
    snet_record *r;
    const char *end;
    char err[256];
    ck_assert_int_eq(snet_record_parse(text, &end, &r, NULL, 0, err, sizeof err), SNET_OK);
    ck_assert_int_eq(snet_record_int(r, "x"), 42);
    ck_assert_str_eq(snet_record_string(r, "s"), "a \"q\", b");
    ck_assert(snet_record_double(r, "d") == 2.5);
    ck_assert_int_eq(snet_record_tag(r, "t"), 3);
    ck_assert_int_eq(snet_record_btag(r, "k"), -1);
    char *out = format(r);
    ck_assert_str_eq(out, "{x=42, s:string=\"a \\\"q\\\", b\", d:double=2.5, <t>=3, <#k>=-1}");
    snet_record *again;
    ck_assert_int_eq(snet_record_parse(out, NULL, &again, NULL, 0, err, sizeof err), SNET_OK);
    snet_record *copy = snet_record_copy(again); /* owns its names too */
    snet_record_free(again);
    char *out2 = format(copy);
    ck_assert_str_eq(out, out2);
    free(out);
    free(out2);
    snet_record_free(copy);
    snet_record_free(r);
    snet_record *empty;
    ck_assert_int_eq(snet_record_parse(end, &end, &empty, NULL, 0, err, sizeof err), SNET_OK);
    ck_assert_uint_eq(snet_record_label_count(empty), 0);
    snet_record_free(empty);
}
END_TEST

START_TEST(test_text_errors)
{
    const char *bad[] = {"{x=}", "{x:nosuch=1}", "{<t>=a}", "{x=1, x=2}", "{x=1", "x=1",
                         "{s:string=\"open}", "{<t>=99999999999999999999}", "{d:double=1e400}"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        snet_record *r = (snet_record *)1;
        char err[256] = "";
        ck_assert_int_ne(snet_record_parse(bad[i], NULL, &r, NULL, 0, err, sizeof err), SNET_OK);
        ck_assert_ptr_null(r);
        ck_assert_msg(err[0] != '\0', "no message for %s", bad[i]);
    }
}
END_TEST

static int never(snet_handle *h, snet_record *in)
{
    (void)h;
    (void)in;
    return 0;
}

START_TEST(test_builder_errors)
{
    snet_net *ok = snet_serial(snet_box("a", "{x} -> {y} | {z, <t>}", never, NULL),
                               snet_filter("[{y} -> {x=y, <t=1>}]"));
    ck_assert_ptr_null(snet_net_check(ok));
    char buf[128];
    ck_assert_int_eq(snet_net_input_type(ok, buf, sizeof buf), SNET_OK);
    ck_assert_str_eq(buf, "{x}");
    snet_net_free(ok);

    const char *why;
    snet_net *bad = snet_serial(snet_box("a", "{x} {y}", never, NULL), snet_filter("[]"));
    why = snet_net_check(bad);
    ck_assert_ptr_nonnull(why);
    ck_assert_msg(strstr(why, "->"), "message: %s", why);
    snet_net_free(bad);

    bad = snet_parallel(snet_filter("[{a} -> {b=c}]"), snet_filter("[]"));
    why = snet_net_check(bad);
    ck_assert_msg(why && strstr(why, "'c'"), "message: %s", why ? why : "(none)");
    snet_net_free(bad);

    bad = snet_star(snet_filter("[]"), "{<t>");
    ck_assert_ptr_nonnull(snet_net_check(bad));
    snet_net_free(bad);

    bad = snet_split(snet_filter("[]"), "<>");
    ck_assert_ptr_nonnull(snet_net_check(bad));
    snet_net_free(bad);

    bad = snet_serial(NULL, snet_filter("[]"));
    ck_assert_ptr_nonnull(snet_net_check(bad));
    snet_net_free(bad);

    bad = snet_filter("[{<t>} -> {<u=t+>}]");
    ck_assert_ptr_nonnull(snet_net_check(bad));
    snet_net_free(bad);

    snet_run *run = (snet_run *)1;
    char err[256];
    bad = snet_sync("[| {a}, {b |]");
    ck_assert_int_eq(snet_run_create(&run, bad, NULL, err, sizeof err), SNET_EINVAL);
    ck_assert_ptr_null(run);
    ck_assert_msg(strstr(err, "synchro-cell"), "message: %s", err);
    snet_net_free(bad);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("snet_records");
    TCase *tc = tcase_create("records");
    tcase_add_test(tc, test_record_fields_and_tags);
    tcase_add_test(tc, test_text_round_trip);
    tcase_add_test(tc, test_text_errors);
    tcase_add_test(tc, test_builder_errors);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
