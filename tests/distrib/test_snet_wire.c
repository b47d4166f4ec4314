/*
 * test_snet_wire.c - records as bytes (docs/WIRE.md): every label kind and
 * the built-in field types survive a round trip, a registered codec
 * carries a field of a program's own type, sort markers keep their owner
 * unique across ranks, and every way the bytes can be wrong or a type can
 * be unknown gives one clear error instead of a record.
 */
#include <check.h>

#include "wire_internal.h"

#include <stdlib.h>
#include <string.h>

static int id_box(snet_handle *h, snet_record *in)
{
    (void)in;
    return snet_out(h, snet_record_new());
}

typedef struct fixture {
    snet_net *net;
    snet_run *run;
} fixture;

static fixture make(void)
{
    fixture f;
    f.net = snet_box("id", "{x} -> {}", id_box, NULL);
    snet_config cfg = snet_config_default();
    cfg.lpel.num_workers = 1;
    char err[256];
    ck_assert_msg(snet_run_create(&f.run, f.net, &cfg, err, sizeof err) == SNET_OK, "%s", err);
    return f;
}

static void drop(fixture *f)
{
    ck_assert_int_eq(snet_run_execute(f->run), SNET_OK); /* no input: ends at once */
    snet_run_destroy(f->run);
    snet_net_free(f->net);
}

/* Encode r and decode it again; NULL (and the message) on failure. */
static snet_record *round_trip(snet_run *run, const snet_record *r, char *err, size_t len)
{
    snet_bytes b;
    snet_bytes_init(&b);
    int rc = snet_wire_put_record(&b, r, run, err, len);
    snet_record *back = NULL;
    if (rc == SNET_OK) {
        snet_wire_in in = {b.data, b.data + b.len, false};
        snet_wire_cache cache = {0};
        if (snet_wire_get_record(&in, &back, &cache, run, err, len) == SNET_OK)
            ck_assert_msg(in.p == in.end, "bytes left after the record");
        snet_wire_cache_free(&cache);
    }
    snet_bytes_free(&b);
    return back;
}

START_TEST(test_every_label_kind)
{
    fixture f = make();
    snet_record *r = snet_record_new();
    r->id = UINT64_C(0x0003000000000042);
    snet_record_set_int(r, "i", -123456789012L);
    snet_record_set_double(r, "d", -0.125);
    snet_record_set_string(r, "s", "h\xc3\xa9llo \"world\"");
    snet_record_set_string(r, "empty", "");
    snet_record_set_tag(r, "t", -7);
    snet_record_set_btag(r, "b", 1L << 40);
    char err[256] = "";
    snet_record *back = round_trip(f.run, r, err, sizeof err);
    ck_assert_msg(back != NULL, "%s", err);
    ck_assert_uint_eq(back->id, r->id);
    ck_assert_uint_eq(snet_record_label_count(back), 6);
    ck_assert_int_eq(snet_record_int(back, "i"), -123456789012L);
    ck_assert(snet_record_double(back, "d") == -0.125);
    ck_assert_str_eq(snet_record_string(back, "s"), "h\xc3\xa9llo \"world\"");
    ck_assert_str_eq(snet_record_string(back, "empty"), "");
    ck_assert_int_eq(snet_record_tag(back, "t"), -7);
    ck_assert_int_eq(snet_record_btag(back, "b"), 1L << 40);
    ck_assert(!snet_record_has_tag(back, "b")); /* a binding tag stays one */
    snet_record_free(r);
    snet_record_free(back);
    drop(&f);
}
END_TEST

START_TEST(test_names_are_interned)
{
    fixture f = make();
    snet_record *r = snet_record_new();
    snet_record_set_int(r, "x", 1);
    char err[256];
    snet_record *back = round_trip(f.run, r, err, sizeof err);
    ck_assert_ptr_nonnull(back);
    /* The run's copy of "x": the same pointer as the network's own label. */
    ck_assert_ptr_eq(back->entries[0].name, snet_run_intern_name(f.run, "x", 1));
    snet_record_free(r);
    snet_record_free(back);
    drop(&f);
}
END_TEST

/* ---- a program's own field type ------------------------------------------------------- */

typedef struct vec3 {
    double v[3];
} vec3;

static void *vec_copy(const void *v)
{
    vec3 *c = malloc(sizeof *c);
    *c = *(const vec3 *)v;
    return c;
}
static int vec_print(FILE *o, const void *v) { return (void)o, (void)v, 0; }
static int vec_parse(const char *t, size_t n, void **v) { return (void)t, (void)n, (void)v, -1; }
static const snet_field_type VEC = {"vec3", vec_copy, free, vec_print, vec_parse};

static int vec_encode(const void *v, snet_bytes *out)
{
    return snet_bytes_put(out, v, sizeof(vec3)) == SNET_OK ? 0 : -1;
}
static int vec_decode(const void *d, size_t n, void **v)
{
    if (n != sizeof(vec3))
        return -1;
    vec3 *c = malloc(sizeof *c);
    memcpy(c, d, sizeof *c); /* the bytes need not be aligned */
    *v = c;
    return 0;
}
static const snet_codec VEC_CODEC = {&VEC, vec_encode, vec_decode};

static snet_record *vec_record(void)
{
    snet_record *r = snet_record_new();
    vec3 v = {{1.5, -2.0, 1e300}};
    snet_record_set_field(r, "pos", &VEC, vec_copy(&v));
    return r;
}

START_TEST(test_registered_codec)
{
    fixture f = make();
    ck_assert_int_eq(snet_run_register_codec(f.run, &VEC_CODEC), SNET_OK);
    snet_record *r = vec_record();
    char err[256] = "";
    snet_record *back = round_trip(f.run, r, err, sizeof err);
    ck_assert_msg(back != NULL, "%s", err);
    ck_assert_ptr_eq(snet_record_field_type(back, "pos"), &VEC);
    const vec3 *v = snet_record_field(back, "pos");
    ck_assert(v->v[0] == 1.5 && v->v[1] == -2.0 && v->v[2] == 1e300);
    snet_record_free(r);
    snet_record_free(back);
    drop(&f);
}
END_TEST

START_TEST(test_missing_codec_is_named)
{
    fixture f = make();
    snet_record *r = vec_record();
    char err[256] = "";
    ck_assert_ptr_null(round_trip(f.run, r, err, sizeof err));
    ck_assert_msg(strstr(err, "field 'pos' has type 'vec3', which has no codec"), "%s", err);
    snet_record_free(r);
    drop(&f);
}
END_TEST

START_TEST(test_type_unknown_on_receiving_rank)
{
    fixture sender = make(), receiver = make();
    snet_run_register_codec(sender.run, &VEC_CODEC);
    snet_record *r = vec_record();
    snet_bytes b;
    snet_bytes_init(&b);
    char err[256] = "";
    ck_assert_int_eq(snet_wire_put_record(&b, r, sender.run, err, sizeof err), SNET_OK);
    snet_wire_in in = {b.data, b.data + b.len, false};
    snet_wire_cache cache = {0};
    snet_record *back = NULL;
    ck_assert_int_eq(snet_wire_get_record(&in, &back, &cache, receiver.run, err, sizeof err),
                     SNET_ERUNTIME);
    ck_assert_ptr_null(back);
    ck_assert_msg(strstr(err, "'vec3', which is not registered on this rank"), "%s", err);
    snet_wire_cache_free(&cache);
    snet_bytes_free(&b);
    snet_record_free(r);
    drop(&sender);
    drop(&receiver);
}
END_TEST

/* ---- control records ------------------------------------------------------------------- */

START_TEST(test_sort_owner_across_ranks)
{
    fixture a = make(), b = make();
    a.run->rank = 0;
    b.run->rank = 1;
    snet_record *m = snet_record_sort(42, 7);
    char err[256];
    /* 0 -> 1: tagged with rank 0, so it cannot be mistaken for rank 1's task 42 */
    snet_bytes buf;
    snet_bytes_init(&buf);
    ck_assert_int_eq(snet_wire_put_record(&buf, m, a.run, err, sizeof err), SNET_OK);
    snet_wire_in in = {buf.data, buf.data + buf.len, false};
    snet_wire_cache cache = {0};
    snet_record *there = NULL;
    ck_assert_int_eq(snet_wire_get_record(&in, &there, &cache, b.run, err, sizeof err), SNET_OK);
    ck_assert_int_eq(there->kind, SNET_REC_SORT);
    ck_assert_uint_ne(there->sort_owner, 42);
    ck_assert_uint_eq(there->sort_counter, 7);
    /* 1 -> 0: home again, the owner is task 42 of rank 0 */
    snet_bytes_free(&buf);
    snet_bytes_init(&buf);
    ck_assert_int_eq(snet_wire_put_record(&buf, there, b.run, err, sizeof err), SNET_OK);
    in = (snet_wire_in){buf.data, buf.data + buf.len, false};
    snet_record *home = NULL;
    ck_assert_int_eq(snet_wire_get_record(&in, &home, &cache, a.run, err, sizeof err), SNET_OK);
    ck_assert_uint_eq(home->sort_owner, 42);
    snet_record_free(home);
    snet_record_free(there);
    snet_record_free(m);
    snet_wire_cache_free(&cache);
    snet_bytes_free(&buf);
    drop(&a);
    drop(&b);
}
END_TEST

START_TEST(test_add_record_refused)
{
    fixture f = make();
    snet_record *add = snet_record_add(NULL);
    char err[256] = "";
    ck_assert_ptr_null(round_trip(f.run, add, err, sizeof err));
    ck_assert_msg(strstr(err, "control record"), "%s", err);
    snet_record_free(add);
    drop(&f);
}
END_TEST

/* ---- damaged bytes ----------------------------------------------------------------------- */

START_TEST(test_every_truncation_is_an_error)
{
    fixture f = make();
    snet_record *r = snet_record_new();
    snet_record_set_string(r, "s", "some text");
    snet_record_set_tag(r, "t", 3);
    snet_bytes b;
    snet_bytes_init(&b);
    char err[256];
    ck_assert_int_eq(snet_wire_put_record(&b, r, f.run, err, sizeof err), SNET_OK);
    for (size_t cut = 0; cut < b.len; cut++) {
        snet_wire_in in = {b.data, b.data + cut, false};
        snet_wire_cache cache = {0};
        snet_record *back = NULL;
        err[0] = '\0';
        int rc = snet_wire_get_record(&in, &back, &cache, f.run, err, sizeof err);
        ck_assert_msg(rc != SNET_OK && !back && err[0], "cut at %zu accepted", cut);
        snet_wire_cache_free(&cache);
    }
    snet_bytes_free(&b);
    snet_record_free(r);
    drop(&f);
}
END_TEST

START_TEST(test_bad_kinds)
{
    fixture f = make();
    unsigned char bad_record[] = {9};
    unsigned char bad_label[] = {0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 7, 1, 0, 'x'};
    char err[256] = "";
    snet_wire_cache cache = {0};
    snet_record *back = NULL;
    snet_wire_in in = {bad_record, bad_record + sizeof bad_record, false};
    ck_assert_int_eq(snet_wire_get_record(&in, &back, &cache, f.run, err, sizeof err),
                     SNET_ERUNTIME);
    ck_assert_msg(strstr(err, "record kind 9"), "%s", err);
    in = (snet_wire_in){bad_label, bad_label + sizeof bad_label, false};
    ck_assert_int_eq(snet_wire_get_record(&in, &back, &cache, f.run, err, sizeof err),
                     SNET_ERUNTIME);
    ck_assert_msg(strstr(err, "kind 7"), "%s", err);
    snet_wire_cache_free(&cache);
    drop(&f);
}
END_TEST

START_TEST(test_little_endian)
{
    snet_bytes b;
    snet_bytes_init(&b);
    snet_bytes_u32(&b, 0x01020304u);
    snet_bytes_u16(&b, 0x0506u);
    ck_assert_int_eq(b.len, 6);
    const unsigned char want[] = {4, 3, 2, 1, 6, 5};
    ck_assert_int_eq(memcmp(b.data, want, 6), 0);
    snet_bytes_free(&b);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("snet_wire");
    TCase *tc = tcase_create("wire");
    tcase_add_test(tc, test_every_label_kind);
    tcase_add_test(tc, test_names_are_interned);
    tcase_add_test(tc, test_registered_codec);
    tcase_add_test(tc, test_missing_codec_is_named);
    tcase_add_test(tc, test_type_unknown_on_receiving_rank);
    tcase_add_test(tc, test_sort_owner_across_ranks);
    tcase_add_test(tc, test_add_record_refused);
    tcase_add_test(tc, test_every_truncation_is_an_error);
    tcase_add_test(tc, test_bad_kinds);
    tcase_add_test(tc, test_little_endian);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
