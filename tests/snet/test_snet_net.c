/*
 * test_snet_net.c - running networks: every combinator's routing and
 * ordering (the deterministic ones under load on several workers), flow
 * inheritance, filter expressions, the synchro-cell, star unfolding and
 * exit, split replicas per tag, static and dynamic placement, termination
 * with counts in = counts out, the no-match error, and a deadlock that
 * frees every entity.
 */
#include "snet_test_util.h"

#include <check.h>
#include <lpel.h>

#include <limits.h>
#include <stdio.h>
#include <string.h>

/* ---- helpers ------------------------------------------------------------------- */

static run_result run_gen(const snet_net *net, long n, long mod, const char *tag)
{
    gen_input g = {0, n, mod, "x", tag};
    ck_assert_ptr_null(snet_net_check(net));
    return run_net(net, test_workers(), gen_next, &g);
}

/* The outputs' x values are exactly 0..n-1, in order if ordered. */
static void expect_xs(const run_result *r, long n, bool ordered)
{
    ck_assert_msg(r->rc == SNET_OK, "run failed: %d %s", r->rc, r->error);
    ck_assert_uint_eq(r->nout, (size_t)n);
    char *seen = calloc((size_t)n, 1);
    for (size_t i = 0; i < r->nout; i++) {
        long x = snet_record_int(r->out[i], "x");
        if (!(x >= 0 && x < n && !seen[x])) {
            snet_record_format(r->out[i], stderr);
            fputc('\n', stderr);
        }
        ck_assert_msg(x >= 0 && x < n && !seen[x], "bad or duplicate x=%ld", x);
        seen[x] = 1;
        if (ordered)
            ck_assert_msg(x == (long)i, "out of order: position %zu has x=%ld", i, x);
    }
    free(seen);
}

/* ---- box, serial, flow inheritance ------------------------------------------------- */

START_TEST(test_box_identity_counts)
{
    snet_net *net = snet_box("id", "{x} -> {x}", box_identity, NULL);
    run_result r = run_gen(net, 1000, 0, NULL);
    expect_xs(&r, 1000, true);
    ck_assert_uint_eq(r.in_count, 1000);
    ck_assert_uint_eq(r.out_count, 1000);
    run_result_free(&r);
    snet_net_free(net);
}
END_TEST

START_TEST(test_serial_pipeline)
{
    snet_net *net = snet_serial(snet_box("a", "{x} -> {x}", box_inc, NULL),
                                snet_serial(snet_box("b", "{x} -> {x}", box_inc, NULL),
                                            snet_box("c", "{x} -> {x}", box_inc, NULL)));
    run_result r = run_gen(net, 500, 0, NULL);
    ck_assert_int_eq(r.rc, SNET_OK);
    ck_assert_uint_eq(r.nout, 500);
    for (size_t i = 0; i < r.nout; i++)
        ck_assert_int_eq(snet_record_int(r.out[i], "x"), (long)i + 3);
    run_result_free(&r);
    snet_net_free(net);
}
END_TEST

/* {x} -> {y}: consumes x, emits y; everything else must be inherited. */
static int box_x_to_y(snet_handle *h, snet_record *in)
{
    snet_record *out = snet_record_new();
    snet_record_set_int(out, "y", snet_record_int(in, "x") * 10);
    return snet_out(h, out);
}

/* {n} -> {v}: n outputs */
static int box_fan(snet_handle *h, snet_record *in)
{
    for (long i = 0; i < snet_record_int(in, "n"); i++) {
        snet_record *out = snet_record_new();
        snet_record_set_int(out, "v", i);
        if (snet_out(h, out) != SNET_OK)
            return -1;
    }
    return 0;
}

START_TEST(test_flow_inheritance)
{
    snet_net *net = snet_serial(snet_box("f", "{x} -> {y}", box_x_to_y, NULL),
                                snet_box("fan", "{n} -> {v}", box_fan, NULL));
    snet_run *run;
    char err[256];
    ck_assert_int_eq(snet_run_create(&run, net, NULL, err, sizeof err), SNET_OK);
    snet_record *in = snet_record_new();
    snet_record_set_int(in, "x", 4);
    snet_record_set_int(in, "n", 3);
    snet_record_set_string(in, "keep", "me");
    snet_record_set_tag(in, "t", 9);
    snet_run_put(run, in);
    ck_assert_int_eq(snet_run_execute(run), SNET_OK);
    for (long i = 0; i < 3; i++) {
        snet_record *o = snet_run_take_output(run);
        ck_assert_ptr_nonnull(o);
        ck_assert_int_eq(snet_record_int(o, "v"), i);
        ck_assert_int_eq(snet_record_int(o, "y"), 40);  /* inherited through fan */
        ck_assert_str_eq(snet_record_string(o, "keep"), "me");
        ck_assert_int_eq(snet_record_tag(o, "t"), 9);
        ck_assert(!snet_record_has_field(o, "x")); /* consumed by f */
        ck_assert(!snet_record_has_field(o, "n")); /* consumed by fan */
        ck_assert_uint_eq(snet_record_label_count(o), 4);
        snet_record_free(o);
    }
    ck_assert_ptr_null(snet_run_take_output(run));
    snet_run_destroy(run);
    snet_net_free(net);
}
END_TEST

/* ---- filters ------------------------------------------------------------------------- */

START_TEST(test_filter_expressions)
{
    snet_net *net = snet_filter("[{a, <t>} -> {b=a, <t=t+1>, <u=(t*3)%4>, <c=(t>1) ? -t : t>}; "
                                "{a}; {<t>, <#k=t-1>}]");
    ck_assert_ptr_null(snet_net_check(net));
    snet_run *run;
    char err[256];
    ck_assert_int_eq(snet_run_create(&run, net, NULL, err, sizeof err), SNET_OK);
    snet_record *in = snet_record_new();
    snet_record_set_int(in, "a", 5);
    snet_record_set_tag(in, "t", 2);
    snet_record_set_int(in, "z", 1); /* not in the pattern: inherited by all */
    snet_run_put(run, in);
    ck_assert_int_eq(snet_run_execute(run), SNET_OK);
    snet_record *o1 = snet_run_take_output(run), *o2 = snet_run_take_output(run),
                *o3 = snet_run_take_output(run);
    ck_assert_ptr_null(snet_run_take_output(run));
    ck_assert_int_eq(snet_record_int(o1, "b"), 5);
    ck_assert(!snet_record_has_field(o1, "a"));
    ck_assert_int_eq(snet_record_tag(o1, "t"), 3);
    ck_assert_int_eq(snet_record_tag(o1, "u"), 2);
    ck_assert_int_eq(snet_record_tag(o1, "c"), -2);
    ck_assert_int_eq(snet_record_int(o1, "z"), 1);
    ck_assert_int_eq(snet_record_int(o2, "a"), 5);
    ck_assert(!snet_record_has_tag(o2, "t")); /* consumed, not re-emitted */
    ck_assert_int_eq(snet_record_int(o2, "z"), 1);
    ck_assert_int_eq(snet_record_tag(o3, "t"), 2);
    ck_assert_int_eq(snet_record_btag(o3, "k"), 1);
    ck_assert_int_eq(snet_record_int(o3, "z"), 1);
    ck_assert(snet_record_id(o1) != snet_record_id(o2));
    snet_record_free(o1);
    snet_record_free(o2);
    snet_record_free(o3);
    snet_run_destroy(run);
    snet_net_free(net);
}
END_TEST

START_TEST(test_filter_drop_and_identity)
{
    snet_net *net = snet_serial(snet_filter("[]"), snet_filter("[{x} -> {x}]"));
    run_result r = run_gen(net, 100, 0, NULL);
    expect_xs(&r, 100, true);
    run_result_free(&r);
    snet_net_free(net);
    net = snet_filter("[{x} -> ]");
    r = run_gen(net, 100, 0, NULL);
    ck_assert_int_eq(r.rc, SNET_OK);
    ck_assert_uint_eq(r.nout, 0);
    run_result_free(&r);
    snet_net_free(net);
}
END_TEST

/* ---- parallel ------------------------------------------------------------------------- */

static int box_mark(snet_handle *h, snet_record *in)
{
    snet_record *out = snet_record_new();
    snet_record_set_int(out, "x", snet_record_int(in, "x"));
    snet_record_set_string(out, "via", snet_handle_user(h));
    return snet_out(h, out);
}

START_TEST(test_parallel_best_match)
{
    /* {x} vs {x, <t>}: records with <t> must take the more specific branch. */
    snet_net *net = snet_parallel(snet_box("plain", "{x} -> {x, via}", box_mark, "plain"),
                                  snet_box("tagged", "{x, <t>} -> {x, via}", box_mark, "tagged"));
    snet_run *run;
    char err[256];
    ck_assert_int_eq(snet_run_create(&run, net, NULL, err, sizeof err), SNET_OK);
    for (long i = 0; i < 200; i++) {
        snet_record *in = snet_record_new();
        snet_record_set_int(in, "x", i);
        if (i % 2)
            snet_record_set_tag(in, "t", i);
        snet_run_put(run, in);
    }
    ck_assert_int_eq(snet_run_execute(run), SNET_OK);
    size_t n = 0;
    for (snet_record *o; (o = snet_run_take_output(run)) != NULL; snet_record_free(o), n++) {
        long x = snet_record_int(o, "x");
        ck_assert_str_eq(snet_record_string(o, "via"), x % 2 ? "tagged" : "plain");
    }
    ck_assert_uint_eq(n, 200);
    snet_run_destroy(run);
    snet_net_free(net);
}
END_TEST

START_TEST(test_parallel_ties_use_both)
{
    snet_net *net = snet_parallel(snet_box("a", "{x} -> {x, via}", box_mark, "a"),
                                  snet_box("b", "{x} -> {x, via}", box_mark, "b"));
    run_result r = run_gen(net, 2000, 0, NULL);
    expect_xs(&r, 2000, false);
    size_t a = 0;
    for (size_t i = 0; i < r.nout; i++)
        a += strcmp(snet_record_string(r.out[i], "via"), "a") == 0;
    ck_assert_msg(a > 0 && a < 2000, "ties always went to one branch (%zu of 2000)", a);
    run_result_free(&r);
    snet_net_free(net);
}
END_TEST

/* Records x%3==0 get a tag that sends them to a slow branch; order must hold. */
static snet_record *gen_mixed(void *user)
{
    gen_input *g = user;
    if (g->next >= g->n)
        return NULL;
    snet_record *r = snet_record_new();
    snet_record_set_int(r, "x", g->next);
    if (g->next % 3 == 0)
        snet_record_set_tag(r, "slow", 1);
    else if (g->next % 3 == 1)
        snet_record_set_tag(r, "u", 1);
    g->next++;
    return r;
}

START_TEST(test_parallel_det_keeps_order)
{
    /* slow | (fast | filter..slow), nested: outer markers cross the inner one */
    long n = test_records(100000) / 2;
    snet_net *net = snet_parallel_det(
        snet_box("slow", "{x, <slow>} -> {x}", box_slow, NULL),
        snet_parallel_det(snet_box("fast", "{x} -> {x}", box_identity, NULL),
                          snet_serial(snet_filter("[{x, <u>} -> {x}]"),
                                      snet_box("s2", "{x} -> {x}", box_slow, NULL))));
    gen_input g = {0, n, 0, "x", NULL};
    run_result r = run_net(net, test_workers(), gen_mixed, &g);
    expect_xs(&r, n, true);
    run_result_free(&r);
    snet_net_free(net);
}
END_TEST

START_TEST(test_parallel_det_mixed_branches)
{
    long n = test_records(100000) / 4;
    snet_net *net = snet_parallel_det(snet_box("slow", "{x, <slow>} -> {x}", box_slow, NULL),
                                      snet_box("fast", "{x} -> {x}", box_identity, NULL));
    gen_input g = {0, n, 0, "x", NULL};
    run_result r = run_net(net, test_workers(), gen_mixed, &g);
    expect_xs(&r, n, true);
    run_result_free(&r);
    snet_net_free(net);
}
END_TEST

/* ---- star ---------------------------------------------------------------------------- */

/* {x, <n>} -> {x, <n>} | {x, <done>}: counts n down, then leaves. */
static int box_countdown(snet_handle *h, snet_record *in)
{
    long n = snet_record_tag(in, "n");
    snet_record *out = snet_record_new();
    snet_record_set_int(out, "x", snet_record_int(in, "x"));
    if (n <= 1)
        snet_record_set_tag(out, "done", 1);
    else
        snet_record_set_tag(out, "n", n - 1);
    return snet_out(h, out);
}

/* The depth a record reached is in the path of the box that handled it. */
static int box_countdown_path(snet_handle *h, snet_record *in)
{
    long n = snet_record_tag(in, "n");
    snet_record *out = snet_record_new();
    snet_record_set_int(out, "x", snet_record_int(in, "x"));
    if (n <= 1) {
        snet_record_set_tag(out, "done", 1);
        snet_record_set_string(out, "path", snet_handle_path(h));
    } else {
        snet_record_set_tag(out, "n", n - 1);
    }
    return snet_out(h, out);
}

static snet_record *gen_depth(void *user)
{
    gen_input *g = user;
    if (g->next >= g->n)
        return NULL;
    snet_record *r = snet_record_new();
    snet_record_set_int(r, "x", g->next);
    if (g->next % g->mod) /* x % mod == 0 leaves at once (exit pattern) */
        snet_record_set_tag(r, "n", g->next % g->mod);
    else
        snet_record_set_tag(r, "done", 0);
    g->next++;
    return r;
}

START_TEST(test_star_unfolds_and_exits)
{
    snet_net *net = snet_star(snet_box("cd", "{x, <n>} -> {x, <n>} | {x, <done>, path}",
                                       box_countdown_path, NULL),
                              "{<done>}");
    gen_input g = {0, 500, 7, "x", NULL};
    run_result r = run_net(net, test_workers(), gen_depth, &g);
    expect_xs(&r, 500, false);
    for (size_t i = 0; i < r.nout; i++) {
        long x = snet_record_int(r.out[i], "x");
        ck_assert(snet_record_has_tag(r.out[i], "done"));
        if (x % 7 == 0) {
            ck_assert(!snet_record_has_field(r.out[i], "path")); /* left at once */
        } else {
            char expect[32];
            snprintf(expect, sizeof expect, "R%ld:cd", x % 7 - 1); /* replica n-1 */
            ck_assert_str_eq(snet_record_string(r.out[i], "path"), expect);
        }
    }
    run_result_free(&r);
    snet_net_free(net);
}
END_TEST

START_TEST(test_star_det_keeps_order)
{
    long n = test_records(100000) / 10;
    snet_net *net = snet_star_det(snet_box("cd", "{x, <n>} -> {x, <n>} | {x, <done>}",
                                           box_countdown, NULL),
                                  "{<done>}");
    gen_input g = {0, n, 5, "x", NULL};
    run_result r = run_net(net, test_workers(), gen_depth, &g);
    expect_xs(&r, n, true);
    run_result_free(&r);
    snet_net_free(net);
}
END_TEST


START_TEST(test_star_deep_unfolding)
{
    /* one record through 10,000 replicas created on demand; the chain winds
     * down behind it (every replica's tasks end, the run returns) */
    long depth = test_records(1000000) / 100;
    snet_net *net = snet_star(snet_box("cd", "{x, <n>} -> {x, <n>} | {x, <done>}",
                                       box_countdown, NULL),
                              "{<done>}");
    snet_run *run;
    char err[256];
    ck_assert_int_eq(snet_run_create(&run, net, NULL, err, sizeof err), SNET_OK);
    snet_record *in = snet_record_new();
    snet_record_set_int(in, "x", 7);
    snet_record_set_tag(in, "n", depth);
    snet_run_put(run, in);
    ck_assert_int_eq(snet_run_execute(run), SNET_OK);
    snet_record *o = snet_run_take_output(run);
    ck_assert_ptr_nonnull(o);
    ck_assert_int_eq(snet_record_int(o, "x"), 7);
    ck_assert(snet_record_has_tag(o, "done"));
    snet_record_free(o);
    ck_assert_ptr_null(snet_run_take_output(run));
    snet_run_destroy(run);
    snet_net_free(net);
}
END_TEST

/* ---- split ------------------------------------------------------------------------------ */

static int box_where(snet_handle *h, snet_record *in)
{
    snet_record *out = snet_record_new();
    snet_record_set_int(out, "x", snet_record_int(in, "x"));
    snet_record_set_string(out, "path", snet_handle_path(h));
    snet_record_set_int(out, "worker", (long)lpel_task_worker(lpel_task_self()));
    return snet_out(h, out);
}

START_TEST(test_split_replica_per_tag)
{
    snet_net *net = snet_split(snet_box("w", "{x} -> {x, path, worker}", box_where, NULL), "<t>");
    run_result r = run_gen(net, 1000, 5, "t");
    expect_xs(&r, 1000, false);
    for (size_t i = 0; i < r.nout; i++) {
        char expect[32];
        long x = snet_record_int(r.out[i], "x");
        snprintf(expect, sizeof expect, "I%ld:w", x % 5);
        ck_assert_str_eq(snet_record_string(r.out[i], "path"), expect);
        ck_assert_int_eq(snet_record_tag(r.out[i], "t"), x % 5); /* inherited */
    }
    run_result_free(&r);
    snet_net_free(net);
}
END_TEST

START_TEST(test_split_det_keeps_order)
{
    long n = test_records(100000) / 4;
    snet_net *net = snet_split_det(snet_box("s", "{x} -> {x}", box_slow, NULL), "t");
    run_result r = run_gen(net, n, 13, "t");
    expect_xs(&r, n, true);
    run_result_free(&r);
    snet_net_free(net);
}
END_TEST

START_TEST(test_dynamic_placement)
{
    unsigned workers = test_workers();
    snet_net *net = snet_split_at(snet_box("w", "{x} -> {x, path, worker}", box_where, NULL),
                                  "<t>");
    run_result r = run_gen(net, 300, 7, "t");
    expect_xs(&r, 300, false);
    for (size_t i = 0; i < r.nout; i++) {
        long t = snet_record_tag(r.out[i], "t");
        ck_assert_int_eq(snet_record_int(r.out[i], "worker"), t % (long)workers);
    }
    run_result_free(&r);
    snet_net_free(net);
}
END_TEST

START_TEST(test_static_placement)
{
    snet_net *net = snet_serial(snet_at(snet_box("w1", "{x} -> {x, path, worker}", box_where,
                                                 NULL), 1),
                                snet_filter("[{worker, path} -> {w1=worker}]"));
    run_result r = run_gen(net, 100, 0, NULL);
    expect_xs(&r, 100, true);
    for (size_t i = 0; i < r.nout; i++)
        ck_assert_int_eq(snet_record_int(r.out[i], "w1"), 1 % (long)test_workers());
    run_result_free(&r);
    snet_net_free(net);
}
END_TEST

/* ---- synchro-cell ---------------------------------------------------------------------- */

START_TEST(test_sync_merge_then_pass)
{
    snet_net *net = snet_sync("[| {a}, {b, <t>} |]");
    snet_run *run;
    char err[256];
    ck_assert_int_eq(snet_run_create(&run, net, NULL, err, sizeof err), SNET_OK);
    const char *inputs[] = {"{b=2, <t>=5, z=1}", "{b=3, <t>=6}", "{a=1, y=7}", "{a=9}",
                            "{b=4, <t>=8}", "{c=0}"};
    for (size_t i = 0; i < 6; i++) {
        snet_record *rec;
        ck_assert_int_eq(snet_record_parse(inputs[i], NULL, &rec, NULL, 0, err, sizeof err),
                         SNET_OK);
        snet_run_put(run, rec);
    }
    ck_assert_int_eq(snet_run_execute(run), SNET_OK);
    /* {b=3} passes (pattern 2 taken), then the merge, then everything else */
    snet_record *o = snet_run_take_output(run);
    ck_assert_int_eq(snet_record_int(o, "b"), 3);
    snet_record_free(o);
    o = snet_run_take_output(run);
    ck_assert_int_eq(snet_record_int(o, "a"), 1);
    ck_assert_int_eq(snet_record_int(o, "b"), 2);
    ck_assert_int_eq(snet_record_tag(o, "t"), 5);
    ck_assert_int_eq(snet_record_int(o, "y"), 7);
    /* only the first pattern's record flow-inherits (as in the original
     * runtime): z of the second one is dropped */
    ck_assert(!snet_record_has_field(o, "z"));
    snet_record_free(o);
    long expect_after[] = {9, 4, 0};
    const char *field[] = {"a", "b", "c"};
    for (int i = 0; i < 3; i++) {
        o = snet_run_take_output(run);
        ck_assert_ptr_nonnull(o);
        ck_assert_int_eq(snet_record_int(o, field[i]), expect_after[i]);
        snet_record_free(o);
    }
    ck_assert_ptr_null(snet_run_take_output(run));
    snet_run_destroy(run);
    snet_net_free(net);
}
END_TEST

/* ---- termination: counts in = counts out, every combinator ------------------------------- */

/* Records parsed from text, handed to the run one by one. */
typedef struct text_input {
    snet_record *recs[8];
    size_t n, next;
} text_input;

static snet_record *next_text(void *user)
{
    text_input *in = user;
    return in->next < in->n ? in->recs[in->next++] : NULL;
}

/* Run net on the records written as text (one worker: outputs in order). */
static run_result run_texts(const snet_net *net, const char *const *texts, size_t n)
{
    text_input in = {.n = n};
    ck_assert_uint_le(n, sizeof in.recs / sizeof in.recs[0]);
    char err[256];
    for (size_t i = 0; i < n; i++)
        ck_assert_msg(snet_record_parse(texts[i], NULL, &in.recs[i], NULL, 0, err, sizeof err)
                          == SNET_OK, "%s", err);
    return run_net(net, 1, next_text, &in);
}

/* The outputs as text, "{a=1} {b=2} ". */
static char *outputs_text(const run_result *r)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    for (size_t i = 0; i < r->nout; i++) {
        snet_record_format(r->out[i], f);
        fputc(' ', f);
    }
    fclose(f);
    return buf;
}

/* As in the original runtime: a record matching every free pattern fills
 * them all and fires the cell at once; the later pattern's labels come
 * from its record (overriding), its other labels are dropped. */
START_TEST(test_sync_original_semantics)
{
    snet_net *net = snet_sync("[| {a}, {b} |]");
    const char *at_once[] = {"{a=1, b=2, c=3}", "{a=4}", "{b=5}"};
    run_result r = run_texts(net, at_once, 3);
    char *got = outputs_text(&r);
    ck_assert_msg(r.rc == SNET_OK && !strcmp(got, "{a=1, b=2, c=3} {a=4} {b=5} "), "%s", got);
    free(got);
    run_result_free(&r);
    snet_net_free(net);

    net = snet_sync("[| {a, <#k>}, {a, b, <#k>} |]");
    const char *override[] = {"{a=1, x=5, <#k>=1}", "{a=2, b=3, y=6, <#k>=1}"};
    r = run_texts(net, override, 2);
    got = outputs_text(&r);
    ck_assert_msg(r.rc == SNET_OK && !strcmp(got, "{a=2, x=5, <#k>=1, b=3} "), "%s", got);
    free(got);
    run_result_free(&r);
    snet_net_free(net);
}
END_TEST

/* {} -> {x}: three records x = 0, 1, 2 (as an initialiser: once, at start). */
static int box_three(snet_handle *h, snet_record *in)
{
    ck_assert_uint_eq(snet_record_label_count(in), 0); /* the trigger is empty */
    for (long i = 0; i < 3; i++) {
        snet_record *out = snet_record_new();
        snet_record_set_int(out, "x", 100 + i);
        if (snet_out(h, out) != SNET_OK)
            return -1;
    }
    return 0;
}

/* A box without an input type fires once when it starts and is never a
 * routing candidate; a record that reaches one is an error. */
START_TEST(test_initialiser_box)
{
    snet_net *net = snet_parallel(snet_box("init", "-> {x}", box_three, NULL),
                                  snet_filter("[]"));
    run_result r = run_gen(net, 50, 0, NULL);
    ck_assert_msg(r.rc == SNET_OK, "%s", r.error);
    ck_assert_uint_eq(r.nout, 53);
    long from_init = 0;
    for (size_t i = 0; i < r.nout; i++)
        from_init += snet_record_int(r.out[i], "x") >= 100;
    ck_assert_int_eq(from_init, 3);
    run_result_free(&r);
    snet_net_free(net);

    net = snet_box("init", "-> {x}", box_three, NULL);
    const char *in[] = {"{y=1}"};
    r = run_texts(net, in, 1);
    ck_assert_int_eq(r.rc, SNET_ERUNTIME);
    ck_assert_msg(strstr(r.error, "an initialiser box takes no records"), "%s", r.error);
    ck_assert_uint_eq(r.nout, 3);
    run_result_free(&r);
    snet_net_free(net);
}
END_TEST

/* Branches whose first entity takes {D} alike, routed by what the whole
 * branch needs: {B, D} left, {C, D} right (determ's shape). */
START_TEST(test_routed_branches)
{
    snet_net *left = snet_serial(snet_filter("[{D} -> {D}]"), snet_filter("[{B} -> {B, <side=0>}]"));
    snet_net *right = snet_serial(snet_filter("[{D} -> {D}]"), snet_filter("[{C} -> {C, <side=1>}]"));
    snet_net *net = snet_parallel(snet_routed(left, "{B, D}"), snet_routed(right, "{C, D}"));
    ck_assert_ptr_null(snet_net_check(net));
    char type[128];
    snet_net_input_type(net, type, sizeof type);
    ck_assert_str_eq(type, "{B, D} | {C, D}");
    const char *in[] = {"{B=1, D=1}", "{C=2, D=2}", "{B=3, D=3}", "{C=4, D=4}", "{B=5, D=5}"};
    run_result r = run_texts(net, in, 5);
    ck_assert_msg(r.rc == SNET_OK, "%s", r.error);
    ck_assert_uint_eq(r.nout, 5);
    for (size_t i = 0; i < r.nout; i++)
        ck_assert_int_eq(snet_record_tag(r.out[i], "side"),
                         snet_record_has_field(r.out[i], "C") ? 1 : 0);
    run_result_free(&r);
    snet_net_free(net);
    /* a routed parallel stays one branch of an outer one (not flattened) */
    net = snet_parallel(snet_routed(snet_parallel(snet_filter("[{a} -> {a, <in=1>}]"),
                                                  snet_filter("[{b} -> {b, <in=1>}]")),
                                    "{a} | {b}"),
                        snet_routed(snet_filter("[]"), ""));
    ck_assert_ptr_null(snet_net_check(net));
    snet_net_input_type(net, type, sizeof type);
    ck_assert_str_eq(type, "{a} | {b}");
    snet_net_free(net);
    ck_assert_ptr_nonnull(snet_net_check(net = snet_routed(snet_filter("[]"), "{a} if <t>")));
    snet_net_free(net);
}
END_TEST

START_TEST(test_identity_networks_terminate)
{
    long n = test_records(1000000) / 20;
    snet_net *nets[] = {
        snet_box("id", "{x} -> {x}", box_identity, NULL),
        snet_filter("[{x} -> {x}]"),
        snet_serial(snet_filter("[]"), snet_box("id", "{x} -> {x}", box_identity, NULL)),
        snet_parallel(snet_box("a", "{x} -> {x}", box_identity, NULL), snet_filter("[{x} -> {x}]")),
        snet_parallel_det(snet_box("a", "{x} -> {x}", box_identity, NULL),
                          snet_filter("[{x} -> {x}]")),
        snet_star(snet_filter("[{x} -> {x, <out=1>}]"), "{<out>}"),
        snet_star_det(snet_filter("[{x} -> {x, <out=1>}]"), "{<out>}"),
        snet_split(snet_box("id", "{x} -> {x}", box_identity, NULL), "<t>"),
        snet_split_det(snet_box("id", "{x} -> {x}", box_identity, NULL), "<t>"),
        snet_split_at(snet_box("id", "{x} -> {x}", box_identity, NULL), "<t>"),
        snet_at(snet_box("id", "{x} -> {x}", box_identity, NULL), 1),
        snet_sync("{x, <t>}"),
    };
    for (size_t i = 0; i < sizeof nets / sizeof nets[0]; i++) {
        run_result r = run_gen(nets[i], n, 17, "t");
        ck_assert_msg(r.rc == SNET_OK, "net %zu: %s", i, r.error);
        ck_assert_msg(r.in_count == (uint64_t)n && r.out_count == (uint64_t)n,
                      "net %zu: %llu in, %llu out, expected %ld", i,
                      (unsigned long long)r.in_count, (unsigned long long)r.out_count, n);
        expect_xs(&r, n, false);
        run_result_free(&r);
        snet_net_free(nets[i]);
    }
}
END_TEST

START_TEST(test_million_records)
{
    long n = test_records(1000000);
    snet_net *net = snet_serial(snet_box("a", "{x} -> {x}", box_identity, NULL),
                                snet_parallel_det(snet_filter("[{x, <t>} -> {x}]"),
                                                  snet_box("b", "{x} -> {x}", box_identity, NULL)));
    run_result r = run_gen(net, n, 2, "t");
    expect_xs(&r, n, true);
    run_result_free(&r);
    snet_net_free(net);
}
END_TEST


/* ---- text input and output, binding tags, nesting ------------------------------------------ */

START_TEST(test_text_input_output)
{
    snet_net *net = snet_serial(snet_filter("[{x, <t>} -> {x, <t=t*10>}]"),
                                snet_split_det(snet_box("id", "{x} -> {x}", box_identity, NULL),
                                               "<t>"));
    const char *text = "# input\n{x=1, <t>=1}\n{x=2, <t>=2, s:string=\"a b\"}\n{x=3, <t>=1}\n";
    FILE *in = fmemopen((void *)text, strlen(text), "r");
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    snet_run *run;
    char err[256];
    ck_assert_int_eq(snet_run_create(&run, net, NULL, err, sizeof err), SNET_OK);
    snet_run_set_input_file(run, in);
    snet_run_set_output_file(run, out);
    ck_assert_int_eq(snet_run_execute(run), SNET_OK);
    snet_run_destroy(run);
    fclose(in);
    fclose(out);
    ck_assert_str_eq(buf, "{x=1, <t>=10}\n{x=2, s:string=\"a b\", <t>=20}\n{x=3, <t>=10}\n");
    free(buf);

    /* a bad record: the ones before it are processed, the run fails */
    text = "{x=1, <t>=1}\n{x=}\n{x=3, <t>=1}\n";
    in = fmemopen((void *)text, strlen(text), "r");
    out = open_memstream(&buf, &len);
    FILE *quiet = fopen("/dev/null", "w");
    snet_config cfg = snet_config_default();
    cfg.errors = quiet;
    ck_assert_int_eq(snet_run_create(&run, net, &cfg, err, sizeof err), SNET_OK);
    snet_run_set_input_file(run, in);
    snet_run_set_output_file(run, out);
    ck_assert_int_eq(snet_run_execute(run), SNET_ERUNTIME);
    ck_assert_msg(strstr(snet_run_error(run), "input record 2"), "%s", snet_run_error(run));
    snet_run_destroy(run);
    fclose(in);
    fclose(out);
    fclose(quiet);
    ck_assert_str_eq(buf, "{x=1, <t>=10}\n");
    free(buf);
    snet_net_free(net);
}
END_TEST

START_TEST(test_binding_tags_route_exactly)
{
    /* a record with <#k> only matches types that name <#k>, however specific
     * the other branch is */
    snet_net *net = snet_parallel(snet_box("plain", "{x, <t>} -> {x, via}", box_mark, "plain"),
                                  snet_box("bound", "{x, <#k>} -> {x, via}", box_mark, "bound"));
    snet_run *run;
    char err[256];
    ck_assert_int_eq(snet_run_create(&run, net, NULL, err, sizeof err), SNET_OK);
    for (long i = 0; i < 20; i++) {
        snet_record *in = snet_record_new();
        snet_record_set_int(in, "x", i);
        snet_record_set_tag(in, "t", i);
        if (i % 2)
            snet_record_set_btag(in, "k", i);
        snet_run_put(run, in);
    }
    ck_assert_int_eq(snet_run_execute(run), SNET_OK);
    size_t n = 0;
    for (snet_record *o; (o = snet_run_take_output(run)) != NULL; snet_record_free(o), n++) {
        long x = snet_record_int(o, "x");
        ck_assert_str_eq(snet_record_string(o, "via"), x % 2 ? "bound" : "plain");
        ck_assert(!snet_record_has_btag(o, "k")); /* consumed, never inherited */
        if (x % 2)
            ck_assert_int_eq(snet_record_tag(o, "t"), x); /* inherited past "bound" */
        else
            ck_assert(!snet_record_has_tag(o, "t")); /* consumed by "plain" */
    }
    ck_assert_uint_eq(n, 20);
    snet_run_destroy(run);
    snet_net_free(net);
}
END_TEST

START_TEST(test_nested_deterministic_order)
{
    /* (star ** inside ||) .. split !!: order kept through every level */
    long n = test_records(100000) / 10;
    snet_net *net = snet_serial(
        snet_parallel_det(snet_star_det(snet_box("cd", "{x, <n>} -> {x, <n>} | {x, <done>}",
                                                 box_countdown, NULL),
                                        "{<done>}"),
                          snet_box("fast", "{x} -> {x}", box_identity, NULL)),
        snet_split_det(snet_box("s", "{x} -> {x}", box_slow, NULL), "<done>"));
    gen_input g = {0, n, 4, "x", NULL};
    run_result r = run_net(net, test_workers(), gen_depth, &g);
    expect_xs(&r, n, true);
    run_result_free(&r);
    snet_net_free(net);
}
END_TEST

/* ---- errors --------------------------------------------------------------------------------- */

START_TEST(test_no_match_is_an_error)
{
    snet_net *net = snet_serial(snet_filter("[]"),
                                snet_parallel(snet_box("a", "{x, <t>} -> {x}", box_identity, NULL),
                                              snet_box("b", "{y} -> {y}", box_identity, NULL)));
    run_result r = run_gen(net, 10, 0, NULL); /* {x} alone matches neither branch */
    ck_assert_int_eq(r.rc, SNET_ERUNTIME);
    ck_assert_msg(strstr(r.error, "S2:P") && strstr(r.error, "{x}") &&
                      strstr(r.error, "{x, <t>} | {y}"),
                  "message: %s", r.error);
    ck_assert_uint_eq(r.nout, 0);
    run_result_free(&r);
    snet_net_free(net);

    net = snet_serial(snet_box("a", "{x} -> {x}", box_identity, NULL),
                      snet_box("needs_z", "{z} -> {z}", box_identity, NULL));
    r = run_gen(net, 5, 0, NULL);
    ck_assert_int_eq(r.rc, SNET_ERUNTIME);
    ck_assert_msg(strstr(r.error, "box 'S2:needs_z'") && strstr(r.error, "expected {z}"),
                  "message: %s", r.error);
    run_result_free(&r);
    snet_net_free(net);
}
END_TEST

static int box_bad_output(snet_handle *h, snet_record *in)
{
    (void)in;
    snet_record *out = snet_record_new();
    snet_record_set_int(out, "wrong", 1);
    return snet_out(h, out) == SNET_ERUNTIME ? 0 : 1;
}

START_TEST(test_bad_box_output_is_an_error)
{
    snet_net *net = snet_box("bad", "{x} -> {y}", box_bad_output, NULL);
    run_result r = run_gen(net, 3, 0, NULL);
    ck_assert_int_eq(r.rc, SNET_ERUNTIME);
    ck_assert_msg(strstr(r.error, "'bad'") && strstr(r.error, "{wrong}"), "message: %s", r.error);
    run_result_free(&r);
    snet_net_free(net);
}
END_TEST

/* ---- a deadlock ------------------------------------------------------------------------ */

/* {x} -> {x}: waits for ever on a stream nobody writes, so the network
 * behind it fills up and every task ends up blocked. */
static int box_stuck(snet_handle *h, snet_record *in)
{
    (void)in;
    lpel_stream **never = snet_handle_user(h);
    if (!*never)
        *never = lpel_stream_create(NULL, 1);
    lpel_stream_read(*never);
    return 0;
}

/* The deadlock is reported with who waits for whom, and then every entity
 * (star stages and replicas, dispatcher, collectors, boxes) frees what it
 * holds: under AddressSanitizer, LeakSanitizer fails this test otherwise.
 * The input never ends, so the input task must also stop feeding. */
START_TEST(test_deadlock_frees_entities)
{
    lpel_stream *never = NULL;
    snet_net *net = snet_serial(
        snet_star(snet_box("cd", "{x, <n>} -> {x, <n>} | {x, <done>, path}", box_countdown_path,
                           NULL),
                  "{<done>}"),
        snet_parallel(snet_box("stuck", "{x} -> {x}", box_stuck, &never),
                      snet_box("other", "{y} -> {y}", box_identity, NULL)));
    char *report = NULL;
    size_t len = 0;
    snet_config cfg = snet_config_default();
    cfg.lpel.num_workers = test_workers();
    cfg.lpel.pin_workers = false;
    cfg.lpel.report = open_memstream(&report, &len);
    snet_run *run;
    char err[256];
    ck_assert_msg(snet_run_create(&run, net, &cfg, err, sizeof err) == SNET_OK, "%s", err);
    gen_input g = {0, LONG_MAX, 7, "x", NULL};
    ck_assert_int_eq(snet_run_set_input_fn(run, gen_depth, &g), SNET_OK);
    ck_assert_int_eq(snet_run_execute(run), SNET_EDEADLOCK);
    fclose(cfg.lpel.report);
    ck_assert_msg(strstr(report, "deadlock") && strstr(report, "S2:P0:stuck"), "%s", report);
    ck_assert_msg(strstr(snet_run_error(run), "deadlock"), "%s", snet_run_error(run));
    ck_assert_uint_eq(snet_run_records_out(run), 0);
    snet_run_destroy(run);
    lpel_stream_destroy(never);
    snet_net_free(net);
    free(report);
}
END_TEST

/* The build says whether it has MPI; snet_distrib_available says the same. */
START_TEST(test_distrib_available_as_built)
{
#ifdef SNET_WITH_MPI
    ck_assert(snet_distrib_available());
#else
    ck_assert(!snet_distrib_available());
#endif
}
END_TEST

int main(void)
{
    Suite *s = suite_create("snet_net");
    TCase *tc = tcase_create("net");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, test_box_identity_counts);
    tcase_add_test(tc, test_distrib_available_as_built);
    tcase_add_test(tc, test_serial_pipeline);
    tcase_add_test(tc, test_flow_inheritance);
    tcase_add_test(tc, test_filter_expressions);
    tcase_add_test(tc, test_filter_drop_and_identity);
    tcase_add_test(tc, test_parallel_best_match);
    tcase_add_test(tc, test_parallel_ties_use_both);
    tcase_add_test(tc, test_parallel_det_keeps_order);
    tcase_add_test(tc, test_parallel_det_mixed_branches);
    tcase_add_test(tc, test_star_unfolds_and_exits);
    tcase_add_test(tc, test_star_det_keeps_order);
    tcase_add_test(tc, test_star_deep_unfolding);
    tcase_add_test(tc, test_split_replica_per_tag);
    tcase_add_test(tc, test_split_det_keeps_order);
    tcase_add_test(tc, test_dynamic_placement);
    tcase_add_test(tc, test_static_placement);
    tcase_add_test(tc, test_sync_merge_then_pass);
    tcase_add_test(tc, test_sync_original_semantics);
    tcase_add_test(tc, test_initialiser_box);
    tcase_add_test(tc, test_routed_branches);
    tcase_add_test(tc, test_identity_networks_terminate);
    tcase_add_test(tc, test_million_records);
    tcase_add_test(tc, test_text_input_output);
    tcase_add_test(tc, test_binding_tags_route_exactly);
    tcase_add_test(tc, test_nested_deterministic_order);
    tcase_add_test(tc, test_no_match_is_an_error);
    tcase_add_test(tc, test_deadlock_frees_entities);
    tcase_add_test(tc, test_bad_box_output_is_an_error);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
