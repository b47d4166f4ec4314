/*
 * test_c4snet_box.c - C4SNet boxes on the runtime (runtime/c4snet/box.c):
 * boxes written as for the original runtime, built into nets with
 * c4snet_box_new + snet_box, called by their declared signature (no
 * labels, tags, a dozen and twenty labels), emitting several output
 * variants; flow inheritance that shares field data instead of copying
 * it, also when the first output is the input record itself (boxes that
 * free their fields, keep them, output them twice, or output a label the
 * input also inherits); native fields converted; every error a box can
 * make named with the box; fields shared across workers under load.
 */
#include <check.h>

#include "C4SNet.h"
#include "c4snet_runtime.h"
#include "snet_test_util.h"

#include <stdint.h>
#include <string.h>

/* ---- helpers ------------------------------------------------------------------------ */

static c4snet_box *made[64];
static size_t nmade;

/* A C4SNet box net: fn's parameters are sig's input labels in order. */
#define C4BOX(name, fn, sig) c4box(name, (void (*)(void))(fn), sig)

static snet_net *c4box(const char *name, void (*fn)(void), const char *sig)
{
    char err[256];
    ck_assert_uint_lt(nmade, 64);
    ck_assert_msg(c4snet_box_new(&made[nmade], name, fn, sig, err, sizeof err) == SNET_OK, "%s",
                  err);
    return snet_box(name, sig, c4snet_box_call, made[nmade++]);
}

static void free_boxes(void)
{
    while (nmade > 0)
        c4snet_box_free(made[--nmade]);
}

/* Input: the records of an array, in order. */
typedef struct input {
    snet_record **recs;
    size_t n, next;
} input;

static snet_record *next_record(void *user)
{
    input *in = user;
    return in->next < in->n ? in->recs[in->next++] : NULL;
}

static run_result run_records(snet_net *net, unsigned workers, snet_record **recs, size_t n)
{
    input in = {recs, n, 0};
    return run_net(net, workers, next_record, &in);
}

static c4snet_data_t *make_int(int v) { return C4SNetCreate(CTYPE_int, 1, &v); }

static int int_of(const snet_record *r, const char *label)
{
    c4snet_data_t *d = snet_record_field(r, label);
    ck_assert_msg(d != NULL, "no field %s", label);
    ck_assert_ptr_eq(snet_record_field_type(r, label), &c4snet_field);
    return *(int *)C4SNetGetData(d);
}

static snet_record *int_record(const char *label, int v)
{
    snet_record *r = snet_record_new();
    snet_record_set_field(r, label, &c4snet_field, make_int(v));
    return r;
}

/* ---- boxes, as an original box library writes them ------------------------------------ */

/* (x, <n>) -> (x, <n>) | (y): counts x down, then says how many steps. */
static void *step(void *hnd, c4snet_data_t *x, int n)
{
    int v = *(int *)C4SNetGetData(x);
    if (v > 0) {
        v--;
        C4SNetOut(hnd, 1, C4SNetCreate(CTYPE_int, 1, &v), n + 1);
    } else {
        C4SNetOut(hnd, 2, C4SNetCreate(CTYPE_int, 1, &n));
    }
    C4SNetFree(x);
    return hnd;
}

/* (x) -> (x): x + 1 */
static void *inc(void *hnd, c4snet_data_t *x)
{
    int v = *(int *)C4SNetGetData(x) + 1;
    C4SNetFree(x);
    C4SNetOut(hnd, 1, C4SNetCreate(CTYPE_int, 1, &v));
    return hnd;
}

/* (x) -> (x): the input field goes on as it is */
static void *pass(void *hnd, c4snet_data_t *x)
{
    C4SNetOut(hnd, 1, x);
    return hnd;
}

/* {} -> (z): called with the handle only */
static void *init(void *hnd)
{
    C4SNetOut(hnd, 1, make_int(42));
    return hnd;
}

/* ---- tests ------------------------------------------------------------------------------- */

START_TEST(test_variants_in_a_star)
{
    snet_net *net = snet_serial(snet_filter("[{x} -> {x, <n=0>}]"),
                                snet_star(C4BOX("step", step, "(x, <n>) -> (x, <n>) | (y)"),
                                          "{y}"));
    snet_record *in[4];
    for (int i = 0; i < 4; i++)
        in[i] = int_record("x", i * 3);
    run_result r = run_records(net, test_workers(), in, 4);
    ck_assert_msg(r.rc == SNET_OK, "%s", r.error);
    ck_assert_uint_eq(r.nout, 4);
    int seen = 0;
    for (size_t i = 0; i < r.nout; i++) {
        ck_assert_uint_eq(snet_record_label_count(r.out[i]), 1);
        seen |= 1 << int_of(r.out[i], "y");
    }
    ck_assert_int_eq(seen, 1 << 0 | 1 << 3 | 1 << 6 | 1 << 9);
    run_result_free(&r);
    snet_net_free(net);
    free_boxes();
}
END_TEST

/* The labels a box does not take pass into its outputs, their data shared
 * (a reference, not a copy), through boxes that make new fields and
 * boxes that pass their input on. */
START_TEST(test_flow_inheritance_shares_data)
{
    snet_net *net = snet_serial(C4BOX("inc", inc, "(x) -> (x)"),
                                snet_serial(C4BOX("pass", pass, "(x) -> (x)"),
                                            C4BOX("inc", inc, "(x) -> (x)")));
    double big[1000] = {0};
    big[999] = 9.5;
    c4snet_data_t *y = C4SNetCreate(CTYPE_double, 1000, big);
    snet_record *in = int_record("x", 1);
    snet_record_set_field(in, "y", &c4snet_field, C4SNetShallowCopy(y));
    snet_record_set_tag(in, "t", 7);
    run_result r = run_records(net, test_workers(), &in, 1);
    ck_assert_msg(r.rc == SNET_OK, "%s", r.error);
    ck_assert_uint_eq(r.nout, 1);
    ck_assert_int_eq(int_of(r.out[0], "x"), 3);
    ck_assert_ptr_eq(snet_record_field(r.out[0], "y"), y);
    ck_assert_int_eq(snet_record_tag(r.out[0], "t"), 7);
    ck_assert_uint_eq(snet_record_label_count(r.out[0]), 3);
    run_result_free(&r);
    ck_assert(((double *)C4SNetGetData(y))[999] == 9.5); /* ours is still alive */
    C4SNetFree(y);
    snet_net_free(net);
    free_boxes();
}
END_TEST

/* (x) -> (x): x out twice (the first output is the input record, the
 * second a new one; both inherit). */
static void *twice(void *hnd, c4snet_data_t *x)
{
    C4SNetOut(hnd, 1, C4SNetShallowCopy(x));
    C4SNetOut(hnd, 1, x);
    return hnd;
}

/* (x) -> (x, y): an own y where the input inherits one. */
static void *own_y(void *hnd, c4snet_data_t *x)
{
    C4SNetOut(hnd, 1, x, make_int(99));
    return hnd;
}

/* (x) -> (x): frees its field and emits nothing */
static void *drops(void *hnd, c4snet_data_t *x)
{
    C4SNetFree(x);
    return hnd;
}

/* n records {x=i, y=shared, <t>=i} through net: its outputs */
static run_result run_with_inherited(snet_net *net, c4snet_data_t *shared, int n)
{
    snet_record *in[16];
    ck_assert_int_le(n, 16);
    for (int i = 0; i < n; i++) {
        in[i] = int_record("x", i);
        snet_record_set_field(in[i], "y", &c4snet_field, C4SNetShallowCopy(shared));
        snet_record_set_tag(in[i], "t", i);
    }
    run_result r = run_records(net, test_workers(), in, (size_t)n);
    ck_assert_msg(r.rc == SNET_OK, "%s", r.error);
    return r;
}

START_TEST(test_first_output_is_the_input_record)
{
    int big[100] = {7};
    c4snet_data_t *shared = C4SNetCreate(CTYPE_int, 100, big);
    /* out twice: both outputs carry x (one value, two references) and
     * the inherited y and <t> */
    snet_net *net = C4BOX("twice", twice, "(x) -> (x)");
    run_result r = run_with_inherited(net, shared, 12);
    ck_assert_uint_eq(r.nout, 24);
    int count[12] = {0};
    for (size_t i = 0; i < r.nout; i++) {
        int x = int_of(r.out[i], "x");
        ck_assert_int_eq(snet_record_tag(r.out[i], "t"), x);
        ck_assert_ptr_eq(snet_record_field(r.out[i], "y"), shared);
        ck_assert_uint_eq(snet_record_label_count(r.out[i]), 3);
        count[x]++;
    }
    for (int x = 0; x < 12; x++)
        ck_assert_int_eq(count[x], 2);
    run_result_free(&r);
    snet_net_free(net);
    /* an output label the input inherits too: the box's own value wins */
    net = C4BOX("own_y", own_y, "(x) -> (x, y)");
    r = run_with_inherited(net, shared, 12);
    ck_assert_uint_eq(r.nout, 12);
    for (size_t i = 0; i < r.nout; i++) {
        ck_assert_int_eq(int_of(r.out[i], "y"), 99);
        ck_assert_int_eq(snet_record_tag(r.out[i], "t"), int_of(r.out[i], "x"));
        ck_assert_uint_eq(snet_record_label_count(r.out[i]), 3);
    }
    run_result_free(&r);
    snet_net_free(net);
    /* no output: the input (and its references to shared) freed once */
    net = C4BOX("drops", drops, "(x) -> (x)");
    r = run_with_inherited(net, shared, 12);
    ck_assert_uint_eq(r.nout, 0);
    run_result_free(&r);
    snet_net_free(net);
    ck_assert_int_eq(((int *)C4SNetGetData(shared))[0], 7); /* ours is alive */
    C4SNetFree(shared);
    free_boxes();
}
END_TEST

/* (i, d, s, <t>) -> (<ok>): native fields arrive as C4SNet data. */
static void *native_in(void *hnd, c4snet_data_t *i, c4snet_data_t *d, c4snet_data_t *s, int t)
{
    char *str = C4SNetGetString(s);
    int ok = C4SNetGetType(i) == CTYPE_int && *(int *)C4SNetGetData(i) == -4 &&
             C4SNetGetType(d) == CTYPE_double && *(double *)C4SNetGetData(d) == 0.5 &&
             !strcmp(str, "hi!") && t == 12;
    free(str);
    C4SNetFree(i);
    C4SNetFree(d);
    C4SNetFree(s);
    C4SNetOut(hnd, 1, ok);
    return hnd;
}

START_TEST(test_native_fields_converted)
{
    snet_net *net = C4BOX("native_in", native_in, "(i, d, s, <t>) -> (<ok>)");
    snet_record *in = snet_record_new();
    snet_record_set_int(in, "i", -4);
    snet_record_set_double(in, "d", 0.5);
    snet_record_set_string(in, "s", "hi!");
    snet_record_set_tag(in, "t", 12);
    run_result r = run_records(net, 1, &in, 1);
    ck_assert_msg(r.rc == SNET_OK, "%s", r.error);
    ck_assert_uint_eq(r.nout, 1);
    ck_assert_int_eq(snet_record_tag(r.out[0], "ok"), 1);
    run_result_free(&r);
    snet_net_free(net);
    free_boxes();
}
END_TEST

START_TEST(test_no_arguments)
{
    snet_net *net = C4BOX("init", init, "{} -> (z)");
    snet_record *in[2] = {int_record("a", 1), snet_record_new()};
    run_result r = run_records(net, 1, in, 2);
    ck_assert_msg(r.rc == SNET_OK, "%s", r.error);
    ck_assert_uint_eq(r.nout, 2);
    ck_assert_int_eq(int_of(r.out[0], "z"), 42);
    ck_assert_int_eq(int_of(r.out[0], "a"), 1); /* inherited */
    ck_assert_int_eq(int_of(r.out[1], "z"), 42);
    run_result_free(&r);
    snet_net_free(net);
    free_boxes();
}
END_TEST

/* "-> (z)": an initialiser, called init(hnd) once when it starts and never
 * chosen by the parallel composition, so every record goes to []. */
START_TEST(test_initialiser)
{
    snet_net *net = snet_parallel(C4BOX("init", init, "-> (z)"), snet_filter("[]"));
    snet_record *in[2] = {int_record("a", 1), int_record("a", 2)};
    run_result r = run_records(net, 1, in, 2);
    ck_assert_msg(r.rc == SNET_OK, "%s", r.error);
    ck_assert_uint_eq(r.nout, 3);
    int z = 0, a = 0;
    for (size_t i = 0; i < r.nout; i++) {
        if (snet_record_has_field(r.out[i], "z")) {
            z++;
            ck_assert_int_eq(int_of(r.out[i], "z"), 42);
            ck_assert_uint_eq(snet_record_label_count(r.out[i]), 1); /* nothing inherited */
        } else {
            a += int_of(r.out[i], "a");
        }
    }
    ck_assert_int_eq(z, 1);
    ck_assert_int_eq(a, 3);
    run_result_free(&r);
    snet_net_free(net);
    free_boxes();
}
END_TEST

/* Twelve labels, fields and tags alternating; and twenty (past the
 * arguments kept on the stack). Each label's value is its position. */
static int twelve_ok(c4snet_data_t *const *f, const int *t)
{
    int ok = 1;
    for (int i = 0; i < 6; i++) {
        ok &= *(int *)C4SNetGetData(f[i]) == 2 * i + 1 && t[i] == 2 * i + 2;
        C4SNetFree(f[i]);
    }
    return ok;
}

static void *twelve(void *hnd, c4snet_data_t *f1, int t2, c4snet_data_t *f3, int t4,
                    c4snet_data_t *f5, int t6, c4snet_data_t *f7, int t8, c4snet_data_t *f9,
                    int t10, c4snet_data_t *f11, int t12)
{
    c4snet_data_t *f[6] = {f1, f3, f5, f7, f9, f11};
    int t[6] = {t2, t4, t6, t8, t10, t12};
    C4SNetOut(hnd, 1, twelve_ok(f, t));
    return hnd;
}

static void *twenty(void *hnd, int a1, int a2, int a3, int a4, int a5, int a6, int a7, int a8,
                    int a9, int a10, int a11, int a12, int a13, int a14, int a15, int a16,
                    int a17, int a18, int a19, c4snet_data_t *f20)
{
    int a[19] = {a1, a2, a3, a4, a5, a6, a7, a8, a9, a10,
                 a11, a12, a13, a14, a15, a16, a17, a18, a19};
    int ok = *(int *)C4SNetGetData(f20) == 20;
    for (int i = 0; i < 19; i++)
        ok &= a[i] == i + 1;
    C4SNetOut(hnd, 1, ok, f20);
    return hnd;
}

START_TEST(test_many_arguments)
{
    snet_net *net = snet_serial(
        C4BOX("twelve", twelve,
              "(f1, <t2>, f3, <t4>, f5, <t6>, f7, <t8>, f9, <t10>, f11, <t12>) -> (<ok12>)"),
        C4BOX("twenty", twenty,
              "(<a1>, <a2>, <a3>, <a4>, <a5>, <a6>, <a7>, <a8>, <a9>, <a10>, <a11>, <a12>, "
              "<a13>, <a14>, <a15>, <a16>, <a17>, <a18>, <a19>, f20) -> (<ok20>, f20)"));
    snet_record *in = snet_record_new();
    char names[32][8];
    for (int i = 1; i <= 12; i++) {
        snprintf(names[i], sizeof names[i], "%c%d", i % 2 ? 'f' : 't', i);
        if (i % 2)
            snet_record_set_field(in, names[i], &c4snet_field, make_int(i));
        else
            snet_record_set_tag(in, names[i], i);
    }
    for (int i = 1; i <= 19; i++) {
        snprintf(names[12 + i], sizeof names[12 + i], "a%d", i);
        snet_record_set_tag(in, names[12 + i], i);
    }
    snet_record_set_field(in, "f20", &c4snet_field, make_int(20));
    run_result r = run_records(net, 1, &in, 1);
    ck_assert_msg(r.rc == SNET_OK, "%s", r.error);
    ck_assert_uint_eq(r.nout, 1);
    ck_assert_int_eq(snet_record_tag(r.out[0], "ok12"), 1);
    ck_assert_int_eq(snet_record_tag(r.out[0], "ok20"), 1);
    ck_assert_int_eq(int_of(r.out[0], "f20"), 20);
    ck_assert_uint_eq(snet_record_label_count(r.out[0]), 3);
    run_result_free(&r);
    snet_net_free(net);
    free_boxes();
}
END_TEST

/* ---- errors ------------------------------------------------------------------------------ */

static void *bad_variant(void *hnd, c4snet_data_t *x)
{
    C4SNetOut(hnd, 3, x);
    C4SNetFree(x); /* C4SNetOut did not take it */
    return hnd;
}

static void *null_field(void *hnd, c4snet_data_t *x)
{
    C4SNetFree(x);
    C4SNetOut(hnd, 1, (c4snet_data_t *)NULL, 5);
    return hnd;
}

static void *takes_x(void *hnd, c4snet_data_t *x)
{
    C4SNetFree(x);
    return hnd;
}

/* A field type no C4SNet box can take. */
static const snet_field_type BLOB = {"blob", NULL, NULL, NULL, NULL};

/* Runs box on one record; returns the run's error (static). */
static const char *fails_with(snet_net *net, snet_record *in)
{
    static char error[1024];
    run_result r = run_records(net, 1, &in, 1);
    ck_assert_int_eq(r.rc, SNET_ERUNTIME);
    ck_assert_uint_eq(r.nout, 0);
    snprintf(error, sizeof error, "%s", r.error);
    run_result_free(&r);
    snet_net_free(net);
    free_boxes();
    return error;
}

START_TEST(test_errors_name_the_box)
{
    const char *e = fails_with(C4BOX("bad", bad_variant, "(x) -> (x) | (y)"), int_record("x", 1));
    ck_assert_msg(strstr(e, "box 'bad': C4SNetOut: output variant 3 does not exist (the box "
                            "has 2, numbered from 1)"), "%s", e);
    e = fails_with(C4BOX("nul", null_field, "(x) -> (y, <t>)"), int_record("x", 1));
    ck_assert_msg(strstr(e, "box 'nul': C4SNetOut: field 'y' (argument 1 of output variant 1) "
                            "is NULL"), "%s", e);
    snet_record *blob = snet_record_new();
    snet_record_set_field(blob, "x", &BLOB, (void *)1);
    e = fails_with(C4BOX("takes", takes_x, "(x) -> (x)"), blob);
    ck_assert_msg(strstr(e, "box 'takes': field 'x' is of type 'blob', which a C4SNet box "
                            "cannot take"), "%s", e);
}
END_TEST

START_TEST(test_bad_signatures)
{
    c4snet_box *b = NULL;
    char err[256];
    ck_assert_int_eq(c4snet_box_new(&b, "two", (void (*)(void))takes_x, "(x) | (y) -> (x)", err,
                                    sizeof err), SNET_EINVAL);
    ck_assert_ptr_null(b);
    ck_assert_msg(strstr(err, "box 'two': a C4SNet box has one input variant, not 2"), "%s", err);
    ck_assert_int_eq(c4snet_box_new(&b, "syn", (void (*)(void))takes_x, "(x -> (x)", err,
                                    sizeof err), SNET_EINVAL);
    ck_assert_msg(strstr(err, "box 'syn': bad signature"), "%s", err);
    ck_assert_int_eq(c4snet_box_new(&b, "none", NULL, "(x) -> (x)", err, sizeof err),
                     SNET_EINVAL);
    c4snet_box_free(NULL);
}
END_TEST

/* Records fan out over parallel branches and star replicas on several
 * workers, each carrying a shared array flow-inherited through every box:
 * the references are taken and dropped concurrently. */
START_TEST(test_shared_fields_under_load)
{
    snet_net *net = snet_serial(
        snet_parallel(C4BOX("a", inc, "(x) -> (x)"), C4BOX("b", pass, "(x) -> (x)")),
        snet_serial(snet_filter("[{x} -> {x, <n=0>}]"),
                    snet_star(C4BOX("step", step, "(x, <n>) -> (x, <n>) | (y)"), "{y}")));
    long n = test_records(2000);
    int arr[64];
    for (int i = 0; i < 64; i++)
        arr[i] = i;
    c4snet_data_t *shared = C4SNetCreate(CTYPE_int, 64, arr);
    snet_record **in = malloc((size_t)n * sizeof *in);
    for (long i = 0; i < n; i++) {
        in[i] = int_record("x", (int)(i % 5));
        snet_record_set_field(in[i], "arr", &c4snet_field, C4SNetShallowCopy(shared));
    }
    run_result r = run_records(net, test_workers(), in, (size_t)n);
    ck_assert_msg(r.rc == SNET_OK, "%s", r.error);
    ck_assert_uint_eq(r.nout, (size_t)n);
    for (size_t i = 0; i < r.nout; i++) {
        ck_assert_ptr_eq(snet_record_field(r.out[i], "arr"), shared);
        ck_assert_int_le(int_of(r.out[i], "y"), 5);
    }
    run_result_free(&r);
    ck_assert_int_eq(((int *)C4SNetGetData(shared))[63], 63);
    C4SNetFree(shared);
    free(in);
    snet_net_free(net);
    free_boxes();
}
END_TEST

int main(void)
{
    Suite *s = suite_create("c4snet_box");
    TCase *tc = tcase_create("box");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_variants_in_a_star);
    tcase_add_test(tc, test_flow_inheritance_shares_data);
    tcase_add_test(tc, test_first_output_is_the_input_record);
    tcase_add_test(tc, test_native_fields_converted);
    tcase_add_test(tc, test_no_arguments);
    tcase_add_test(tc, test_initialiser);
    tcase_add_test(tc, test_many_arguments);
    tcase_add_test(tc, test_errors_name_the_box);
    tcase_add_test(tc, test_bad_signatures);
    tcase_add_test(tc, test_shared_fields_under_load);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
