/*
 * test_c4snet_data.c - C4SNet data (runtime/c4snet): every function of
 * C4SNet.h and memfun.h, every CTYPE (creation, element size, the textual
 * form written exactly as the original runtime wrote it and read back,
 * arrays), reference counting with shallow and deep copies freed in every
 * order (AddressSanitizer reports a double free or a leak), the field
 * type in records and in the text format, native values converted, the
 * MPI codec's bytes, and the reader's errors.
 */
#include <check.h>

#include "c4snet_runtime.h"
#include "memfun.h"
#include "wire_internal.h"

#include <float.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The text c4snet_text_write makes of d (malloc'ed). */
static char *text_of(const c4snet_data_t *d)
{
    char *text = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);
    ck_assert_ptr_nonnull(m);
    ck_assert_int_eq(c4snet_text_write(m, d), 0);
    ck_assert_int_eq(fclose(m), 0);
    return text;
}

/* text must read back into data that writes as text again. */
static c4snet_data_t *read_ok(const char *text)
{
    c4snet_data_t *d = NULL;
    char err[256] = "";
    ck_assert_msg(c4snet_text_read(text, strlen(text), &d, err, sizeof err) == 0, "%s: %s", text,
                  err);
    return d;
}

static void round_trip(const char *text)
{
    c4snet_data_t *d = read_ok(text);
    char *again = text_of(d);
    ck_assert_str_eq(again, text);
    free(again);
    C4SNetFree(d);
}

/* One value of each type: its element size, and the text the original's
 * printf formats give it. */
typedef struct sample {
    c4snet_type_t type;
    size_t size;
    const char *text;
} sample;

START_TEST(test_every_ctype)
{
    unsigned char uc = 'x';
    signed char c = '<';
    unsigned short us = USHRT_MAX;
    short s = SHRT_MIN;
    unsigned ui = UINT_MAX;
    int i = -5;
    unsigned long ul = ULONG_MAX;
    long l = LONG_MIN;
    float f = 0.5f;
    double d = 5.0;
    long double ld = -0.25L;
    void *p = NULL;
    const void *values[] = {&uc, &c, &us, &s, &ui, &i, &ul, &l, &f, &d, &ld, &p};
    const sample samples[] = {
        {CTYPE_uchar, sizeof uc, "(unsigned char)x"},
        {CTYPE_char, sizeof c, "(char)<"},
        {CTYPE_ushort, sizeof us, "(unsigned short)65535"},
        {CTYPE_short, sizeof s, "(short)-32768"},
        {CTYPE_uint, sizeof ui, "(unsigned int)4294967295"},
        {CTYPE_int, sizeof i, "(int)-5"},
        {CTYPE_ulong, sizeof ul, "(unsigned long)18446744073709551615"},
        {CTYPE_long, sizeof l, "(long)-9223372036854775808"},
        {CTYPE_float, sizeof f, "(float)0.50000000000000000000000000000000"},
        {CTYPE_double, sizeof d, "(double)5.00000000000000000000000000000000e+00"},
        {CTYPE_ldouble, sizeof ld, "(long double)-2.50000000000000000000000000000000e-01"},
        {CTYPE_pointer, sizeof p, "(pointer)(nil)"}};
    for (size_t k = 0; k < sizeof samples / sizeof samples[0]; k++) {
        c4snet_data_t *x = C4SNetCreate(samples[k].type, 1, values[k]);
        ck_assert_int_eq(C4SNetGetType(x), samples[k].type);
        ck_assert_int_eq(C4SNetSizeof(x), (int)samples[k].size);
        ck_assert_uint_eq(C4SNetArraySize(x), 1);
        ck_assert_mem_eq(C4SNetGetData(x), values[k], samples[k].size);
        char *t = text_of(x);
        ck_assert_str_eq(t, samples[k].text);
        round_trip(t);
        free(t);
        C4SNetFree(x);
    }
}
END_TEST

START_TEST(test_type_names)
{
    const char *names[] = {"unsigned char", "char", "unsigned short", "short", "unsigned int",
                           "int", "unsigned long", "long", "float", "double", "long double",
                           "pointer"};
    for (int t = 0; t <= CTYPE_pointer; t++) {
        ck_assert_str_eq(c4snet_type_name((c4snet_type_t)t), names[t]);
        ck_assert_int_eq(c4snet_type_from_name(names[t], strlen(names[t])), t);
    }
    ck_assert_int_eq(c4snet_type_from_name("unsigned", 8), CTYPE_uint);
    ck_assert_int_eq(c4snet_type_from_name("long long", 9), CTYPE_long);
    ck_assert_int_eq(c4snet_type_from_name("signed char", 11), CTYPE_char);
    ck_assert_int_eq(c4snet_type_from_name("string", 6), -1);
    ck_assert_int_eq(c4snet_type_from_name("in", 2), -1); /* no prefix matching */
}
END_TEST

START_TEST(test_arrays)
{
    int v[3] = {1, -2, 3};
    c4snet_data_t *a = C4SNetCreate(CTYPE_int, 3, v);
    ck_assert_uint_eq(C4SNetArraySize(a), 3);
    char *t = text_of(a);
    ck_assert_str_eq(t, "(int[3])1,-2,3");
    free(t);
    C4SNetFree(a);
    /* Characters are written raw, commas and all, and read back one each. */
    round_trip("(char[5])a,,,<,&,b");
    round_trip("(char[6])h,e,l,l,o,!");
    round_trip("(double[2])1.00000000000000000000000000000000e+00,-2.50000000000000000000000000000000e-01");
    round_trip("(unsigned short[1])7"); /* an array of one stays an array */
    round_trip("(int[0])");
    c4snet_data_t *e = read_ok("(int[0])");
    ck_assert_uint_eq(C4SNetArraySize(e), 0);
    C4SNetFree(e);
    /* Hexadecimal and blanks around numbers are read; written as decimal. */
    c4snet_data_t *h = read_ok("(long[2]) 0x10 , -0x1");
    long *hv = C4SNetGetData(h);
    ck_assert(hv[0] == 16 && hv[1] == -1);
    C4SNetFree(h);
}
END_TEST

START_TEST(test_read_errors)
{
    const struct {
        const char *text, *message;
    } bad[] = {{"42", "expected (TYPE)VALUE"},
               {"(int", "expected (TYPE)VALUE"},
               {"(integer)4", "unknown C4SNet type 'integer'"},
               {"(int)", "bad (int) value ''"},
               {"(int)4x", "bad (int) value '4x'"},
               {"(int)2147483648", "bad (int) value"},
               {"(unsigned int)-1", "bad (unsigned int) value"},
               {"(short)40000", "bad (short) value"},
               {"(unsigned char)ab", "unexpected 'b' after the unsigned char value"},
               {"(char)", "needs a character"},
               {"(int[3])1,2", "needs 3 values separated by ','"},
               {"(int[2])1,2,3", "unexpected ',3'"},
               {"(int[x])1", "expected (TYPE[N]) with a count N"},
               {"(int[99999999])1", "but only 1 bytes of values"},
               {"(double)1e999", "bad (double) value"},
               {"(pointer)12", "bad (pointer) value"}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        c4snet_data_t *d = (c4snet_data_t *)&d; /* must become NULL */
        char err[256] = "";
        ck_assert_msg(c4snet_text_read(bad[i].text, strlen(bad[i].text), &d, err, sizeof err) != 0,
                      "%s was read", bad[i].text);
        ck_assert_ptr_null(d);
        ck_assert_msg(strstr(err, bad[i].message), "%s: '%s', expected '%s'", bad[i].text, err,
                      bad[i].message);
    }
}
END_TEST

START_TEST(test_alloc_and_getters)
{
    void *p;
    c4snet_data_t *one = C4SNetAlloc(CTYPE_double, 1, &p);
    *(double *)p = 2.5;
    ck_assert_ptr_eq(C4SNetGetData(one), p);
    char *t = text_of(one);
    ck_assert_str_eq(t, "(double)2.50000000000000000000000000000000e+00");
    free(t);
    c4snet_data_t *many = C4SNetAlloc(CTYPE_ldouble, 4, &p);
    ck_assert_uint_eq((uintptr_t)p % _Alignof(long double), 0);
    for (int i = 0; i < 4; i++)
        ((long double *)p)[i] = i;
    ck_assert(((long double *)C4SNetGetData(many))[3] == 3.0L);
    C4SNetFree(one);
    C4SNetFree(many);
    C4SNetFree(NULL);
    C4SNetInit(0, nodist); /* nothing to do, and callable */
    char word[] = {'h', 'i', '!'};
    c4snet_data_t *w = C4SNetCreate(CTYPE_char, 3, word);
    char *s = C4SNetGetString(w);
    ck_assert_str_eq(s, "hi!");
    SNetMemFree(s);
    C4SNetFree(w);
}
END_TEST

/* Copies freed in every order: the data lives until its last reference. */
START_TEST(test_copies_any_order)
{
    int v[2] = {7, 8};
    for (int order = 0; order < 6; order++) {
        c4snet_data_t *a = C4SNetCreate(CTYPE_int, 2, v);
        c4snet_data_t *b = C4SNetShallowCopy(a);
        c4snet_data_t *c = C4SNetDeepCopy(b);
        ck_assert_ptr_eq(a, b);
        ck_assert_ptr_ne(c, a);
        ck_assert_mem_eq(C4SNetGetData(c), v, sizeof v);
        c4snet_data_t *all[3] = {a, b, c};
        static const int perms[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2},
                                        {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
        for (int k = 0; k < 3; k++) {
            /* what is not freed yet is still readable */
            for (int j = k; j < 3; j++)
                ck_assert_int_eq(((int *)C4SNetGetData(all[perms[order][j]]))[1], 8);
            C4SNetFree(all[perms[order][k]]);
        }
    }
}
END_TEST

/* Many threads share one value and drop their references at once. */
typedef struct share {
    c4snet_data_t *d;
    int copies;
} share;

static void *share_thread(void *arg)
{
    share *s = arg;
    c4snet_data_t *mine[64];
    for (int i = 0; i < s->copies; i++)
        mine[i] = C4SNetShallowCopy(s->d);
    for (int i = 0; i < s->copies; i++)
        C4SNetFree(mine[i]);
    return NULL;
}

START_TEST(test_shared_across_threads)
{
    int v = 1;
    share s = {C4SNetCreate(CTYPE_int, 1, &v), 64};
    pthread_t t[4];
    for (int i = 0; i < 4; i++)
        ck_assert_int_eq(pthread_create(&t[i], NULL, share_thread, &s), 0);
    for (int i = 0; i < 4; i++)
        pthread_join(t[i], NULL);
    ck_assert_int_eq(*(int *)C4SNetGetData(s.d), 1);
    C4SNetFree(s.d);
}
END_TEST

START_TEST(test_field_type_in_records)
{
    int v[2] = {1, 2};
    snet_record *r = snet_record_new();
    snet_record_set_field(r, "x", &c4snet_field, C4SNetCreate(CTYPE_int, 2, v));
    snet_record *c = snet_record_copy(r); /* a shallow copy: the same data */
    ck_assert_ptr_eq(snet_record_field(c, "x"), snet_record_field(r, "x"));
    char *text = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);
    snet_record_format(r, m);
    fclose(m);
    ck_assert_str_eq(text, "{x:c4snet=\"(int[2])1,2\"}");
    const snet_field_type *types[] = {&c4snet_field};
    snet_record *back;
    char err[256];
    ck_assert_msg(snet_record_parse(text, NULL, &back, types, 1, err, sizeof err) == SNET_OK, "%s",
                  err);
    ck_assert_ptr_eq(snet_record_field_type(back, "x"), &c4snet_field);
    ck_assert_mem_eq(C4SNetGetData(snet_record_field(back, "x")), v, sizeof v);
    free(text);
    snet_record_free(r);
    snet_record_free(back);
    snet_record_free(c);
}
END_TEST

START_TEST(test_from_native)
{
    c4snet_data_t *i = c4snet_from_native(&snet_field_int, (void *)(intptr_t)-3);
    ck_assert_int_eq(C4SNetGetType(i), CTYPE_int);
    ck_assert_int_eq(*(int *)C4SNetGetData(i), -3);
    c4snet_data_t *l = c4snet_from_native(&snet_field_int, (void *)(intptr_t)LONG_MAX);
    ck_assert_int_eq(C4SNetGetType(l), CTYPE_long);
    ck_assert(*(long *)C4SNetGetData(l) == LONG_MAX);
    double x = 0.125;
    void *bits;
    memcpy(&bits, &x, sizeof x);
    c4snet_data_t *d = c4snet_from_native(&snet_field_double, bits);
    ck_assert_int_eq(C4SNetGetType(d), CTYPE_double);
    ck_assert(*(double *)C4SNetGetData(d) == 0.125);
    c4snet_data_t *s = c4snet_from_native(&snet_field_string, "a,b");
    char *t = text_of(s);
    ck_assert_str_eq(t, "(char[3])a,,,b");
    free(t);
    ck_assert_ptr_null(c4snet_from_native(&c4snet_field, s));
    C4SNetFree(i);
    C4SNetFree(l);
    C4SNetFree(d);
    C4SNetFree(s);
}
END_TEST

/* The codec: what encode writes, decode makes again; bad bytes refused. */
START_TEST(test_codec)
{
    short v[3] = {1, -1, 300};
    c4snet_data_t *a = C4SNetCreate(CTYPE_short, 3, v);
    snet_bytes b;
    snet_bytes_init(&b);
    ck_assert_int_eq(c4snet_codec.encode(a, &b), 0);
    ck_assert_uint_eq(b.len, 10 + sizeof v);
    void *back;
    ck_assert_int_eq(c4snet_codec.decode(b.data, b.len, &back), 0);
    char *t1 = text_of(a), *t2 = text_of(back);
    ck_assert_str_eq(t1, t2);
    free(t1);
    free(t2);
    C4SNetFree(back);
    ck_assert_int_ne(c4snet_codec.decode(b.data, b.len - 1, &back), 0); /* short */
    b.data[0] = 99;                                                      /* no such type */
    ck_assert_int_ne(c4snet_codec.decode(b.data, b.len, &back), 0);
    snet_bytes_free(&b);
    C4SNetFree(a);
}
END_TEST

START_TEST(test_memfun)
{
    int *p = SNetNewN(4, int);
    p[3] = 4;
    p = SNetMemResize(p, 8 * sizeof *p);
    ck_assert_int_eq(p[3], 4);
    ck_assert_uint_ge(SNetMemSize(p), 8 * sizeof *p);
    SNetDelete(p);
    ck_assert_ptr_null(SNetMemAlloc(0));
    ck_assert_ptr_null(SNetMemResize(SNetMemAlloc(16), 0));
    long *z = SNetMemCalloc(3, sizeof *z);
    ck_assert(z[0] == 0 && z[2] == 0);
    SNetMemSizeFree(z, 3 * sizeof *z);
    void *aligned = SNetNewAlign(double);
    ck_assert_uint_eq((uintptr_t)aligned % LINE_SIZE, 0);
    SNetMemFree(aligned);
    char *s = SNetStrDup("box");
    ck_assert_str_eq(s, "box");
    SNetMemFree(s);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("c4snet_data");
    TCase *tc = tcase_create("data");
    tcase_add_test(tc, test_every_ctype);
    tcase_add_test(tc, test_type_names);
    tcase_add_test(tc, test_arrays);
    tcase_add_test(tc, test_read_errors);
    tcase_add_test(tc, test_alloc_and_getters);
    tcase_add_test(tc, test_copies_any_order);
    tcase_add_test(tc, test_shared_across_threads);
    tcase_add_test(tc, test_field_type_in_records);
    tcase_add_test(tc, test_from_native);
    tcase_add_test(tc, test_codec);
    tcase_add_test(tc, test_memfun);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
