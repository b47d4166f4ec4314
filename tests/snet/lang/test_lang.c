/*
 * test_lang.c - the S-Net language below snetrun: the grammar's fragments
 * (what the builder API parses) with their error columns, printing trees
 * back as text that parses to the same text, loading programs with their
 * diagnostics, the record types inferred along a network, and the new
 * combinators and features driven from C under load: feedback loops
 * (terminating, and keeping order in the deterministic form), guarded
 * filter branches and exit patterns, keyed synchro-cells, !!@.
 */
#include "../snet_test_util.h"

#include <check.h>
#include <snet_lang.h>
#include <snet_syntax.h>

#include <stdio.h>
#include <string.h>

/* ---- the grammar ---------------------------------------------------------------- */

static char *print_filter(const char *text)
{
    snet_fragment f;
    snet_diag d;
    ck_assert_msg(snet_syntax_parse_fragment(SNET_FRAG_FILTER, text, strlen(text), &f, &d) == 0,
                  "%s: %d:%d %s", text, d.at.line, d.at.column, d.message);
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    snet_ast_print_filter(out, &f.filter);
    fclose(out);
    snet_fragment_free(&f);
    return buf;
}

START_TEST(test_filter_round_trip)
{
    const char *filters[] = {
        "[]",
        "[{a} -> ]",
        "[{a, <t>, <#b>} -> {c=a, <t=t+1>, <#b>}; {a}]",
        "[{<t>} -> if <t == 1> then {<one>} else if <t > 2 && t < 9> then {<mid=t*2>} else {}]",
        "[{<t>} if <t < 34> -> {} if <t > (0 - 1)> -> {<t>} else -> {<u=abs(t)>}]",
        "[(A, B) -> (K = A, B)]",
        "[{<x>} -> {<y=x > 3 ? min(x, 7) : max(x, -2) % 5>}]",
    };
    for (size_t i = 0; i < sizeof filters / sizeof filters[0]; i++) {
        char *once = print_filter(filters[i]);
        char *twice = print_filter(once);
        ck_assert_msg(!strcmp(once, twice), "%s -> %s -> %s", filters[i], once, twice);
        free(once);
        free(twice);
    }
}
END_TEST

START_TEST(test_fragment_errors)
{
    struct { snet_fragment_kind kind; const char *text; int column; const char *msg; } bad[] = {
        {SNET_FRAG_FILTER, "[{a} -> {b]", 11, "unexpected ']'"},
        {SNET_FRAG_FILTER, "[{<t>} -> {<u=t $ 1>}]", 17, "unexpected character '$'"},
        {SNET_FRAG_BOXSIG, "{a} {b}", 5, "expecting"},
        {SNET_FRAG_PATTERNS, "{a} if <t > -> {b}", 13, "unexpected"},
        {SNET_FRAG_TAG, "<>", 2, "unexpected '>'"},
        {SNET_FRAG_FILTER, "[{<t>} -> {<u=sqrt(t)>}]", 15, "unknown function 'sqrt'"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        snet_fragment f;
        snet_diag d;
        int rc = snet_syntax_parse_fragment(bad[i].kind, bad[i].text, strlen(bad[i].text), &f, &d);
        ck_assert_int_eq(rc, SNET_SYNTAX_ERROR);
        ck_assert_msg(d.at.column == bad[i].column && strstr(d.message, bad[i].msg),
                      "%s: got %d:%d %s", bad[i].text, d.at.line, d.at.column, d.message);
    }
}
END_TEST

/* The text need not end with a NUL: the parser stops at len. */
START_TEST(test_parse_length)
{
    const char text[] = "net a connect [] .. [];garbage that is never read";
    snet_ast_program *p;
    snet_diag d;
    ck_assert_int_eq(snet_syntax_parse_program(text, 23, "len.snet", &p, &d), SNET_SYNTAX_OK);
    ck_assert_uint_eq(p->ndefs, 1);
    snet_ast_program_free(p);
    ck_assert_int_eq(snet_syntax_parse_program(text, 17, "len.snet", &p, &d), SNET_SYNTAX_ERROR);
    ck_assert_int_eq(d.at.column, 18); /* the end: ';' expected */
}
END_TEST

/* ---- loading and checking -------------------------------------------------------------- */

/* Load text; the diagnostics in *diag (malloc'ed). */
static int load(const char *text, snet_lang_program **p, char **diag)
{
    size_t len = 0;
    FILE *out = open_memstream(diag, &len);
    int rc = snet_lang_load(text, strlen(text), "t.snet", NULL, out, p);
    fclose(out);
    return rc;
}

static char *tree(const snet_lang_program *p)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    snet_lang_print_tree(p, out);
    fclose(out);
    return buf;
}

START_TEST(test_inferred_types)
{
    /* The main net's input is what its first box takes plus what later
     * entities need and nobody makes (flow-inherited to them). */
    const char *text =
        "net pipe {\n"
        "  box a ((x) -> (y) | (z, <t>));\n"
        "  box b ((y, k) -> (w));\n"
        "} connect a .. (b | [{z, <t>} -> {w=z}]);\n";
    snet_lang_program *p;
    char *diag;
    ck_assert_msg(load(text, &p, &diag) == SNET_LANG_OK, "%s", diag);
    char *t = tree(p);
    ck_assert_msg(strstr(t, "net pipe") && strstr(t, "  in  {x, k}\n"), "%s", t);
    ck_assert_msg(strstr(t, "  out {w} | {k, w}\n"), "%s", t);
    ck_assert_msg(strstr(t, "box pipe.b ({y, k} -> {w})"), "%s", t);
    free(t);
    free(diag);
    snet_lang_free(p);
}
END_TEST

START_TEST(test_diagnostics)
{
    const char *text =
        "net bad ({x} -> {y}) {\n"
        "  box f ((x) -> (z));\n"
        "} connect f .. [{q} -> {y=q}] .. nothing;\n";
    snet_lang_program *p;
    char *diag;
    /* A name defined nowhere is an external net, noted where it is used. */
    ck_assert_int_eq(load(text, &p, &diag), SNET_LANG_ERROR);
    ck_assert_ptr_null(p);
    ck_assert_msg(strstr(diag, "t.snet:3:34: note: 'nothing' is defined nowhere in this file: an "
                               "external net"), "%s", diag);
    ck_assert_msg(strstr(diag, "t.snet:3:16: error: records {z} reach a filter"), "%s", diag);
    free(diag);

    text = "net bad ({x} -> {y}) {\n"
           "  box f ((x) -> (z));\n"
           "} connect f .. [{q} -> {y=q}];\n";
    ck_assert_int_eq(load(text, &p, &diag), SNET_LANG_ERROR);
    ck_assert_msg(strstr(diag, "t.snet:3:16: error: records {z} reach a filter whose pattern is {q}"),
                  "%s", diag);
    free(diag);
}
END_TEST

START_TEST(test_metadata)
{
    const char *text =
        "<metadata>\n"
        "  <boxdefault><interface value=\"C4SNet\"/><library value=\"mine\"/></boxdefault>\n"
        "  <box name=\"f\"><library value=\"other\"/><observer/></box>\n"
        "</metadata>\n"
        "net m { box f ((x) -> (x)); } connect f;\n";
    snet_lang_program *p;
    char *diag;
    ck_assert_msg(load(text, &p, &diag) == SNET_LANG_OK, "%s", diag);
    ck_assert_msg(strstr(diag, "t.snet:3:1: note: metadata <observer> means nothing"), "%s", diag);
    ck_assert_uint_eq(snet_lang_library_count(p), 2);
    ck_assert_str_eq(snet_lang_library(p, 0), "mine");
    ck_assert_str_eq(snet_lang_library(p, 1), "other");
    free(diag);
    snet_lang_free(p);
}
END_TEST

/* ---- the language of the original compiler ------------------------------------------------ */

/* text loads (SNET_LANG_OK), its diagnostics and tree contain every string
 * of want (NULL-terminated) and none of avoid. */
static void expect_loads(const char *text, const char *const *want, const char *const *avoid)
{
    snet_lang_program *p;
    char *diag;
    ck_assert_msg(load(text, &p, &diag) == SNET_LANG_OK, "%s", diag);
    char *t = tree(p), *all = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&all, &len);
    fprintf(f, "%s%s", diag, t);
    fclose(f);
    for (; want && *want; want++)
        ck_assert_msg(strstr(all, *want), "no '%s' in:\n%s", *want, all);
    for (; avoid && *avoid; avoid++)
        ck_assert_msg(!strstr(all, *avoid), "'%s' in:\n%s", *avoid, all);
    free(all);
    free(t);
    free(diag);
    snet_lang_free(p);
}

/* text is refused with the error want. */
static void expect_error(const char *text, const char *want)
{
    snet_lang_program *p;
    char *diag;
    ck_assert_int_eq(load(text, &p, &diag), SNET_LANG_ERROR);
    ck_assert_msg(strstr(diag, want), "no '%s' in:\n%s", want, diag);
    free(diag);
}

/* A synchro-cell joins records of different input variants of its net:
 * they arrive together, so it fires; no note says otherwise. A cell that
 * no arriving record can fill does get the note. */
START_TEST(test_sync_joins_variants)
{
    const char *quiet[] = {"never fires", NULL};
    expect_loads("net s2 ({a} | {b} -> {a, b}) connect [| {a}, {b} |] * {a, b};\n",
                 (const char *[]){"  out {a, b}\n", NULL}, quiet);
    expect_loads("net s ({a} -> {a}) connect [| {a}, {b} |];\n",
                 (const char *[]){"t.snet:1:36: note: no record reaching this synchro-cell "
                                  "matches its pattern {b} ({a} reach it): it never fires",
                                  NULL},
                 NULL);
    /* what only the variants together make must be declared too */
    expect_error("net j ({a} | {b} -> {c}) connect [| {a}, {b} |] * {a, b};\n",
                 "t.snet:1:5: error: net 'j' declares {a} | {b} -> {c}, but its network can "
                 "turn records of its input types together into {a, b}");
}
END_TEST

/* A branch is chosen by what all of it needs: both start with delay
 * ({D}); the one whose later box needs B takes {B, D}. */
START_TEST(test_routing_types)
{
    expect_loads("net r ({A, B, D} | {A, C, D} -> {A, B, D} | {A, C, D}) {\n"
                 "  box delay ((D) -> (D)); box sb ((B) -> (B)); box sc ((C) -> (C));\n"
                 "} connect (delay .. sb) | (delay .. sc);\n",
                 (const char *[]){"route {B, D}", "route {D, C}", NULL},
                 (const char *[]){"error", NULL});
    /* equally close alternatives are each a routing type of the branch */
    expect_loads("net r2 {\n"
                 "  box a ((A) -> (A)); box sb ((B) -> (B)); box sc ((C) -> (C));\n"
                 "} connect [] || (a .. (sb | sc));\n",
                 (const char *[]){"route {A, B} | {A, C}", "route {}", NULL}, NULL);
}
END_TEST

/* A box without an input type is an initialiser: never chosen in a
 * parallel composition, its outputs appear anyway; a record reaching one
 * is an error. */
START_TEST(test_initialisers)
{
    expect_loads("net i { box seed (-> (x)); box inc ((x) -> (x)); } connect (seed | inc) .. inc;\n",
                 (const char *[]){"box i.seed (-> {x})", "route (none: it is never chosen)",
                                  "  in  {x}\n  out {x}\n", NULL},
                 NULL);
    expect_loads("net any { box b (() -> (x)); } connect b;\n",
                 (const char *[]){"box any.b ({} -> {x})", "  in  {}\n", NULL}, NULL);
    /* Elsewhere than at the head of a branch no record reaches, such a box
     * takes records whole, as the original's generated wrapper did: called
     * without arguments, every label inherited. */
    expect_loads("net j { box seed (-> (x)); } connect [{y} -> {y}] .. seed;\n",
                 (const char *[]){"  out {y, x}\n", NULL}, (const char *[]){"error", NULL});
}
END_TEST

/* Open outputs ("-> ...") and external nets: typed by their signature, or
 * of any record type (then nothing after them is a type error). */
START_TEST(test_open_and_external)
{
    expect_loads("net e ({a} -> ...) connect [{a} -> {b=a}] .. ext .. [{q} -> {c=q}];\n",
                 (const char *[]){"net e ({a} -> ...)", "t.snet:1:46: note: 'ext' is defined "
                                  "nowhere in this file: an external net",
                                  "net ext", "out {...}", NULL},
                 (const char *[]){"error", NULL});
    expect_loads("net d ({a} -> {b});\nnet m connect d .. [{b} -> {c=b}];\n",
                 (const char *[]){"net m", "  out {c}\n", NULL}, NULL);
    expect_error("net d ({a} -> {b});\nnet m ({a} -> {c}) connect d .. [{x} -> {c=x}];\n",
                 "t.snet:2:33: error: records {b} reach a filter whose pattern is {x}");
    /* a net only declared is not the one that runs when another has a network */
    expect_loads("net m connect d;\nnet d ({a} -> {b});\n",
                 (const char *[]){"net m   [", NULL}, NULL);
}
END_TEST

/* ---- building: a program's boxes from C ------------------------------------------------- */

static int resolve(void *ctx, const snet_lang_box_query *box, snet_box_fn *fn, void **user,
                   char *err, size_t errlen)
{
    (void)ctx;
    if (!strcmp(box->symbol, "inc")) {
        *fn = box_inc;
        *user = NULL;
        return 0;
    }
    snprintf(err, errlen, "no box %s", box->symbol);
    return -1;
}

START_TEST(test_build_and_run)
{
    const char *text =
        "net loop { box inc ((x) -> (x)); }\n"
        "connect [{x} -> {x, <n>}] .. ([{x, <n>} -> {x, <n=n+1>}] .. inc) \\ {x, <n>} if <n < 5>\n"
        "        .. [{x, <n>} -> {x}];\n";
    snet_lang_program *p;
    char *diag, err[256];
    ck_assert_msg(load(text, &p, &diag) == SNET_LANG_OK, "%s", diag);
    free(diag);
    snet_net *net = snet_lang_build(p, resolve, NULL, err, sizeof err);
    ck_assert_msg(net != NULL, "%s", err);
    long n = test_records(20000);
    gen_input g = {0, n, 0, "x", NULL};
    run_result r = run_net(net, test_workers(), gen_next, &g);
    ck_assert_msg(r.rc == SNET_OK, "%s", r.error);
    ck_assert_uint_eq(r.nout, (size_t)n);
    long sum = 0;
    for (size_t i = 0; i < r.nout; i++)
        sum += snet_record_int(r.out[i], "x");
    ck_assert_int_eq(sum, n * (n - 1) / 2 + 5 * n); /* each went round 5 times */
    run_result_free(&r);
    snet_net_free(net);
    snet_lang_free(p);
}
END_TEST

/* ---- the new combinators from C, under load ------------------------------------------------- */

/* {x} -> {x, <n>}: n = x % 7 rounds to go */
static int box_rounds(snet_handle *h, snet_record *in)
{
    long x = snet_record_int(in, "x");
    snet_record *out = snet_record_new();
    snet_record_set_int(out, "x", x);
    snet_record_set_tag(out, "n", x % 7);
    return snet_out(h, out);
}

/* {x, <n>} -> {x, <n>}: one round (n - 1), after a few yields */
static int box_round(snet_handle *h, snet_record *in)
{
    for (long i = 0; i < snet_record_int(in, "x") % 3; i++)
        lpel_task_yield();
    snet_record *out = snet_record_new();
    snet_record_set_int(out, "x", snet_record_int(in, "x"));
    snet_record_set_tag(out, "n", snet_record_tag(in, "n") - 1);
    return snet_out(h, out);
}

static snet_net *rounds_loop(bool det)
{
    snet_net *body = snet_box("round", "{x, <n>} -> {x, <n>}", box_round, NULL);
    return snet_serial(snet_box("rounds", "{x} -> {x, <n>}", box_rounds, NULL),
                       det ? snet_feedback_det(body, "{x, <n>} if <n > 0>")
                           : snet_feedback(body, "{x, <n>} if <n > 0>"));
}

static void check_rounds(bool det, long n)
{
    snet_net *net = rounds_loop(det);
    ck_assert_ptr_null(snet_net_check(net));
    gen_input g = {0, n, 0, "x", NULL};
    run_result r = run_net(net, test_workers(), gen_next, &g);
    ck_assert_msg(r.rc == SNET_OK, "%s", r.error);
    ck_assert_uint_eq(r.nout, (size_t)n);
    char *seen = calloc((size_t)n, 1);
    for (size_t i = 0; i < r.nout; i++) {
        long x = snet_record_int(r.out[i], "x");
        ck_assert(x >= 0 && x < n && !seen[x]);
        seen[x] = 1;
        /* a record with n = 0 from the start still goes through once */
        ck_assert_int_eq(snet_record_tag(r.out[i], "n"), x % 7 ? 0 : -1);
        if (det)
            ck_assert_msg(x == (long)i, "out of order: position %zu has x=%ld", i, x);
    }
    free(seen);
    run_result_free(&r);
    snet_net_free(net);
}

START_TEST(test_feedback_terminates) { check_rounds(false, test_records(100000)); }
END_TEST

START_TEST(test_feedback_det_keeps_order) { check_rounds(true, test_records(20000)); }
END_TEST

/* A feedback loop inside a deterministic parallel composition: the outer
 * sort markers wait for the loop to drain, so order holds. */
START_TEST(test_feedback_in_det_parallel)
{
    snet_net *net = snet_parallel_det(rounds_loop(false),
                                      snet_filter("[{x, <skip>} -> {x, <n=0>}]"));
    long n = test_records(20000);
    gen_input g = {0, n, 0, "x", NULL};
    run_result r = run_net(net, test_workers(), gen_next, &g);
    ck_assert_msg(r.rc == SNET_OK, "%s", r.error);
    ck_assert_uint_eq(r.nout, (size_t)n);
    for (size_t i = 0; i < r.nout; i++)
        ck_assert_int_eq(snet_record_int(r.out[i], "x"), (long)i);
    run_result_free(&r);
    snet_net_free(net);
}
END_TEST

/* Jobs of two records each, interleaved: a keyed synchro-cell pairs them. */
static snet_record *gen_pairs(void *user)
{
    gen_input *g = user;
    if (g->next >= 2 * g->n)
        return NULL;
    long i = g->next++, job = (i % 2 == 0) ? i / 2 : (g->n - 1 - i / 2);
    snet_record *r = snet_record_new();
    snet_record_set_int(r, i % 2 == 0 ? "a" : "b", job);
    snet_record_set_tag(r, i % 2 == 0 ? "va" : "vb", job);
    snet_record_set_btag(r, "job", job);
    return r;
}

START_TEST(test_keyed_sync)
{
    snet_net *net = snet_serial(snet_sync("[| {a, <#job>}, {b, <vb>, <#job>} |]"),
                                snet_filter("[{<va>, <vb>, <#job>} -> {<ok=(va == job) && (vb == job)>}]"));
    long n = test_records(50000);
    gen_input g = {0, n, 0, NULL, NULL};
    run_result r = run_net(net, test_workers(), gen_pairs, &g);
    ck_assert_msg(r.rc == SNET_OK, "%s", r.error);
    ck_assert_uint_eq(r.nout, (size_t)n);
    for (size_t i = 0; i < r.nout; i++)
        ck_assert_int_eq(snet_record_tag(r.out[i], "ok"), 1);
    run_result_free(&r);
    snet_net_free(net);
}
END_TEST

START_TEST(test_guards)
{
    /* guarded branches: the first that holds; none: no output */
    snet_net *net = snet_filter("[{x, <t>} if <t % 3 == 0> -> {x, <three>} "
                                "if <t % 2 == 0> -> {x, <two>}; {x, <two_too>}]");
    long n = 600;
    gen_input g = {0, n, n, "x", "t"};
    run_result r = run_net(net, test_workers(), gen_next, &g);
    ck_assert_msg(r.rc == SNET_OK, "%s", r.error);
    long three = 0, two = 0;
    for (size_t i = 0; i < r.nout; i++) {
        long x = snet_record_int(r.out[i], "x");
        if (snet_record_has_tag(r.out[i], "three")) {
            ck_assert_int_eq(x % 3, 0);
            three++;
        } else {
            ck_assert_msg(x % 2 == 0 && x % 3 != 0, "x=%ld", x);
            two++;
        }
    }
    ck_assert_int_eq(three, 200);
    ck_assert_int_eq(two, 2 * 200);
    run_result_free(&r);
    snet_net_free(net);
    /* a guarded exit pattern */
    net = snet_star(snet_filter("[{x, <t>} -> {x, <t=t+1>}]"), "{x, <t>} if <t >= 10>");
    g = (gen_input){0, 100, 10, "x", "t"};
    r = run_net(net, test_workers(), gen_next, &g);
    ck_assert_msg(r.rc == SNET_OK, "%s", r.error);
    ck_assert_uint_eq(r.nout, 100);
    for (size_t i = 0; i < r.nout; i++)
        ck_assert_int_eq(snet_record_tag(r.out[i], "t"), 10);
    run_result_free(&r);
    snet_net_free(net);
}
END_TEST

START_TEST(test_split_det_at)
{
    snet_net *net = snet_split_det_at(snet_box("slow", "{x} -> {x}", box_slow, NULL), "<t>");
    long n = test_records(20000);
    gen_input g = {0, n, 5, "x", "t"};
    run_result r = run_net(net, test_workers(), gen_next, &g);
    ck_assert_msg(r.rc == SNET_OK, "%s", r.error);
    ck_assert_uint_eq(r.nout, (size_t)n);
    for (size_t i = 0; i < r.nout; i++)
        ck_assert_int_eq(snet_record_int(r.out[i], "x"), (long)i);
    run_result_free(&r);
    snet_net_free(net);
}
END_TEST

START_TEST(test_builder_errors)
{
    snet_net *net = snet_feedback(snet_filter("[]"), "{x} if <y > 1>");
    ck_assert_msg(snet_net_check(net) && strstr(snet_net_check(net), "tag 'y' is not in the pattern"),
                  "%s", snet_net_check(net));
    snet_net_free(net);
    net = snet_box("b", "t_in -> {x}", box_inc, NULL);
    ck_assert_msg(snet_net_check(net) && strstr(snet_net_check(net), "type name 't_in'"), "%s",
                  snet_net_check(net));
    snet_net_free(net);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("lang");
    TCase *tc = tcase_create("lang");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, test_filter_round_trip);
    tcase_add_test(tc, test_fragment_errors);
    tcase_add_test(tc, test_parse_length);
    tcase_add_test(tc, test_inferred_types);
    tcase_add_test(tc, test_diagnostics);
    tcase_add_test(tc, test_metadata);
    tcase_add_test(tc, test_sync_joins_variants);
    tcase_add_test(tc, test_routing_types);
    tcase_add_test(tc, test_initialisers);
    tcase_add_test(tc, test_open_and_external);
    tcase_add_test(tc, test_build_and_run);
    tcase_add_test(tc, test_feedback_terminates);
    tcase_add_test(tc, test_feedback_det_keeps_order);
    tcase_add_test(tc, test_feedback_in_det_parallel);
    tcase_add_test(tc, test_keyed_sync);
    tcase_add_test(tc, test_guards);
    tcase_add_test(tc, test_split_det_at);
    tcase_add_test(tc, test_builder_errors);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
