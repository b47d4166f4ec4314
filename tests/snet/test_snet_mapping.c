/*
 * test_snet_mapping.c - mapping files (runtime/snet/mapping.c): the format
 * of docs/MAPPING.md, first-match placement, the check against a network
 * (patterns no task can have, workers out of range) with line numbers, and
 * that a run places its tasks where the mapping says.
 */
#include <check.h>
#include <snet.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

static snet_mapping *parse_ok(const char *text)
{
    snet_mapping *m = NULL;
    char err[512] = "";
    int rc = snet_mapping_parse(text, strlen(text), "t.map", &m, err, sizeof err);
    ck_assert_msg(rc == SNET_OK, "parse failed: %s", err);
    return m;
}

static void parse_fails(const char *text, size_t len, const char *expect)
{
    snet_mapping *m = NULL;
    char err[512] = "";
    ck_assert_int_eq(snet_mapping_parse(text, len, "t.map", &m, err, sizeof err), SNET_EINVAL);
    ck_assert_ptr_null(m);
    ck_assert_msg(strstr(err, expect), "error '%s' lacks '%s'", err, expect);
}

START_TEST(first_match_wins)
{
    snet_mapping *m = parse_ok("# comment\n"
                               "\n"
                               "S2:I3:**          1   # job 3\n"
                               "S2:I*:R0:**       0\n"
                               "S1:mc.png\t1\n"
                               "**:mc.vcall       1\n"
                               "S2:I3:R0:S1:P0:mc.vcall 0\n");
    ck_assert_uint_eq(snet_mapping_count(m), 5);
    ck_assert_int_eq(snet_mapping_lookup(m, "S2:I3:R0:S1:P0:mc.vcall"), 1); /* line 3 first */
    ck_assert_int_eq(snet_mapping_lookup(m, "S2:I4:R0:S1:P0:mc.vcall"), 0);
    ck_assert_int_eq(snet_mapping_lookup(m, "S2:I4:R1:S1:P0:mc.vcall"), 1);
    ck_assert_int_eq(snet_mapping_lookup(m, "S1:mc.png"), 1);
    ck_assert_int_eq(snet_mapping_lookup(m, "S2:I"), -1);   /* ** after I3 needs I3 */
    ck_assert_int_eq(snet_mapping_lookup(m, "S2:I3"), 1);   /* ** matches nothing */
    ck_assert_int_eq(snet_mapping_lookup(m, "S1:mc.pn"), -1);
    snet_mapping_free(m);
}
END_TEST

START_TEST(exact_line_before_wildcards)
{
    /* An exact line earlier in the file wins over a later wildcard line. */
    snet_mapping *m = parse_ok("S2:I0:R0 1\nS2:I?:R* 0\nS2:I1?:R1 1\n");
    ck_assert_int_eq(snet_mapping_lookup(m, "S2:I0:R0"), 1);
    ck_assert_int_eq(snet_mapping_lookup(m, "S2:I0:R1"), 0);
    ck_assert_int_eq(snet_mapping_lookup(m, "S2:I12:R1"), 1);
    ck_assert_int_eq(snet_mapping_lookup(m, "S2:I12:R2"), -1);
    snet_mapping_free(m);
}
END_TEST

START_TEST(syntax_errors_name_the_line)
{
    parse_fails("S1:a 0\nS1:b\n", 12, "t.map:2: expected 'PATTERN WORKER'");
    parse_fails("S1:a 0 extra\n", 13, "t.map:1: expected 'PATTERN WORKER'");
    parse_fails("\n\nS1:a -1\n", 10, "t.map:3: worker must be a whole number");
    parse_fails("S1:a x\n", 7, "t.map:1: worker must be a whole number");
    parse_fails("S1::a 0\n", 8, "t.map:1: bad pattern 'S1::a': empty path component");
    parse_fails("S1:a** 0\n", 9, "'**' must be a whole path component");
    parse_fails("S[12]:a 0\n", 10, "only '*', '?' and '**' are wildcards");
    parse_fails("S1:a 0\nS1:a 1\n", 14, "t.map:2: pattern 'S1:a' repeats line 1");
    parse_fails("S1:a 0\nS1\0:b 1\n", 14, "t.map:2: unexpected NUL byte");
    parse_fails("S1:a 99999999999\n", 17, "worker must be a whole number");
}
END_TEST

/* "workers N": the workers the mapping is for, not a placement. */
START_TEST(workers_line)
{
    snet_mapping *m = parse_ok("# advised\nworkers 2   # for -w 2\nS1:a 1\n**  0\n");
    long line = 0;
    ck_assert_uint_eq(snet_mapping_workers(m, &line), 2);
    ck_assert_int_eq(line, 2);
    ck_assert_uint_eq(snet_mapping_count(m), 2);
    ck_assert_int_eq(snet_mapping_lookup(m, "workers"), 0); /* matched by **, not line 2 */
    snet_mapping_free(m);
    m = parse_ok("S1:a 0\n");
    ck_assert_uint_eq(snet_mapping_workers(m, NULL), 0);
    snet_mapping_free(m);
    parse_fails("workers 0\n", 10, "t.map:1: 'workers' needs a number of workers >= 1");
    parse_fails("workers two\n", 12, "t.map:1: 'workers' needs a number");
    parse_fails("workers 2\nworkers 3\n", 20, "t.map:2: a second 'workers' line (the first is line 1)");
}
END_TEST

START_TEST(empty_mapping_places_nothing)
{
    snet_mapping *m = parse_ok("# nothing\n   \n");
    ck_assert_uint_eq(snet_mapping_count(m), 0);
    ck_assert_int_eq(snet_mapping_lookup(m, "S1:x"), -1);
    snet_mapping_free(m);
}
END_TEST

/* Where a box expects to run; it counts executions elsewhere. */
typedef struct expect {
    int worker;
    atomic_int wrong, runs;
} expect;

static int pass(snet_handle *h, snet_record *in)
{
    expect *e = snet_handle_user(h);
    if (e) {
        atomic_fetch_add(&e->runs, 1);
        if ((int)lpel_task_worker(lpel_task_self()) != e->worker)
            atomic_fetch_add(&e->wrong, 1);
    }
    snet_record *out = snet_record_new();
    snet_record_set_int(out, "x", snet_record_int(in, "x"));
    return snet_out(h, out);
}

/* b: {x} -> {x} | {y, <done>}, which the synchro-cell joins again. */
static int halves(snet_handle *h, snet_record *in)
{
    if (pass(h, in) != SNET_OK)
        return -1;
    snet_record *y = snet_record_new();
    snet_record_set_int(y, "y", 1);
    snet_record_set_tag(y, "done", 1);
    return snet_out(h, y);
}

/* box a .. ((box b .. [| {x}, {y, <done>} |]) * {<done>}) ! <k>  @1 (the merge
 * keeps only the labels the later pattern names of its record) */
static snet_net *example_net_at(expect *a, expect *b)
{
    return snet_serial(snet_box("ex.a", "{x} -> {x}", pass, a),
                       snet_at(snet_split(snet_star(snet_serial(snet_box("ex.b", "{x} -> {x} | {y, <done>}",
                                                                          halves, b),
                                                                 snet_sync("[| {x}, {y, <done>} |]")),
                                                     "{<done>}"),
                                          "<k>"),
                               1));
}

static snet_net *example_net(void) { return example_net_at(NULL, NULL); }

static void check_fails(const char *text, unsigned workers, const char *expect)
{
    snet_net *net = example_net();
    snet_mapping *m = parse_ok(text);
    char err[1024] = "";
    ck_assert_int_eq(snet_mapping_check(m, net, workers, err, sizeof err), SNET_EINVAL);
    ck_assert_msg(strstr(err, expect), "error '%s' lacks '%s'", err, expect);
    snet_mapping_free(m);
    snet_net_free(net);
}

static void check_ok(const char *text, unsigned workers)
{
    snet_net *net = example_net();
    snet_mapping *m = parse_ok(text);
    char err[1024] = "";
    ck_assert_msg(snet_mapping_check(m, net, workers, err, sizeof err) == SNET_OK, "%s", err);
    snet_mapping_free(m);
    snet_net_free(net);
}

START_TEST(check_against_network)
{
    check_ok("S1:ex.a 0\n"
             "S2:I 1\n"
             "S2:I-3:R 1\n"        /* split values may be negative */
             "S2:I7:R12 1\n"
             "S2:I*:R?:S1:ex.b 0\n"
             "S2:I*:R1*:S2:sync 0\n"
             "**:ex.b 1\n"
             "snet.in 0\nsnet.out 1\n"
             "** 0\n", 2);
    check_fails("S1:ex.a 0\nS2:R0 1\n", 2,
                "t.map:2: pattern 'S2:R0' matches no task of this network");
    check_fails("S2:I1:R0:S1:ex.c 1\n", 2, "t.map:1: pattern");
    check_fails("S2:I1:Rx 1\n", 2, "t.map:1: pattern 'S2:I1:Rx'");
    check_fails("S2:I1:R-1 1\n", 2, "matches no task"); /* star indices are >= 0 */
    check_fails("S3 0\n", 2, "its boxes are named like S1:ex.a, S2:I<v>:R<i>:S1:ex.b");
    check_fails("S1:ex.a 0\n**:ex.b 2\n", 2,
                "t.map:2: worker 2 is out of range: the run has 2 workers (0-1)");
}
END_TEST

/* A run puts every task where the mapping says, over @N placements. */
static void count_output(void *user, snet_record *rec)
{
    (*(long *)user)++;
    snet_record_free(rec);
}

START_TEST(run_places_tasks)
{
    /* ex.b sits under @1: the mapping moves it to worker 0. */
    expect a = {.worker = 1}, b = {.worker = 0};
    snet_net *net = example_net_at(&a, &b);
    snet_mapping *m = parse_ok("S2:I*:** 0\n** 1\n");
    snet_config cfg = snet_config_default();
    cfg.lpel.num_workers = 2;
    cfg.mapping = m;
    snet_run *run;
    char err[512];
    ck_assert_int_eq(snet_run_create(&run, net, &cfg, err, sizeof err), SNET_OK);
    ck_assert_int_eq(snet_run_rank(run), 0); /* not distributed */
    for (long k = 0; k < 3; k++) {
        snet_record *r = snet_record_new();
        snet_record_set_int(r, "x", k);
        snet_record_set_tag(r, "k", k);
        snet_run_put(run, r);
    }
    long outputs = 0;
    snet_run_set_output_fn(run, count_output, &outputs);
    ck_assert_int_eq(snet_run_execute(run), SNET_OK);
    ck_assert_int_eq(outputs, 3);
    snet_run_destroy(run);
    ck_assert_int_eq(atomic_load(&a.runs), 3);
    ck_assert_int_eq(atomic_load(&b.runs), 3);
    ck_assert_int_eq(atomic_load(&a.wrong), 0);
    ck_assert_int_eq(atomic_load(&b.wrong), 0);

    /* Out of range for this run: refused by snet_run_create. */
    cfg.lpel.num_workers = 1;
    ck_assert_int_eq(snet_run_create(&run, net, &cfg, err, sizeof err), SNET_EINVAL);
    ck_assert_msg(strstr(err, "t.map:2: worker 1 is out of range"), "%s", err);
    snet_mapping_free(m);
    snet_net_free(net);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("snet_mapping");
    TCase *tc = tcase_create("mapping");
    tcase_add_test(tc, first_match_wins);
    tcase_add_test(tc, exact_line_before_wildcards);
    tcase_add_test(tc, syntax_errors_name_the_line);
    tcase_add_test(tc, workers_line);
    tcase_add_test(tc, empty_mapping_places_nothing);
    tcase_add_test(tc, check_against_network);
    tcase_add_test(tc, run_places_tasks);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
