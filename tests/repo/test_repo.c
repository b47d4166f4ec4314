/*
 * test_repo.c - the experiment repository (repo/repo.h) on SQLite
 * in a temporary directory: what is stored is what is read back, URLs and
 * schema versions it must refuse, two processes storing at once, a store
 * killed half-way, --where, and the comparison of a stored run with the
 * same run read from its files.
 */
#include "mon_reader.h"
#include "repo.h"
#include "oracle_trace.h"

#include <check.h>
#include <ftw.h>
#include <math.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static char tmp[64];
static char db[128];

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    return remove(path);
}

static void setup(void)
{
    snprintf(tmp, sizeof tmp, "/tmp/snetmon-repo-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(tmp));
    snprintf(db, sizeof db, "%s/sub/runs.sqlite", tmp);
}

static void teardown(void) { nftw(tmp, remove_entry, 16, FTW_DEPTH | FTW_PHYS); }

/* The record of a fixture (event file) or of the oracle LPEL trace. */
static void record_of(const char *path, repo_run *rec, const char *label_value)
{
    wfb_graph *g;
    wfb_error e;
    char dir[128];
    if (!strcmp(path, "oracle")) {
        snprintf(dir, sizeof dir, "%s/oracle", tmp);
        if (access(dir, F_OK) != 0)
            ck_assert_int_eq(oracle_trace_write(dir), 0);
        g = wfb_graph_new();
        ck_assert_msg(wfb_import_lpel_trace(g, dir, &e) == 0, "%s", e.msg);
        path = dir;
    } else {
        ck_assert_msg(wfb_load_input(path, WFB_FORMAT_UNKNOWN, NULL, false, NULL, NULL, &g, &e) == 0, "%s",
                      e.msg);
    }
    repo_label labels[] = {{"series", (char *)label_value}};
    repo_options opt = {path, WFB_FORMAT_UNKNOWN, "rev1", label_value ? 1 : 0, labels};
    char err[512];
    ck_assert_msg(repo_run_from_graph(rec, g, &opt, err, sizeof err) == 0, "%s", err);
    wfb_graph_free(g);
}

static int64_t store(const char *path, const char *label_value)
{
    repo_run rec;
    record_of(path, &rec, label_value);
    repo *r;
    char err[512];
    ck_assert_msg(repo_open(&r, db, true, err, sizeof err) == 0, "%s", err);
    int64_t id = 0;
    ck_assert_msg(repo_store(r, &rec, &id, err, sizeof err) == 0, "%s", err);
    repo_close(r);
    repo_run_free(&rec);
    return id;
}

static void assert_same_double(double a, double b, const char *what)
{
    ck_assert_msg((isnan(a) && isnan(b)) || a == b, "%s: %.17g stored, %.17g read", what, a, b);
}

static void assert_same_str(const char *a, const char *b, const char *what)
{
    ck_assert_msg((!a && !b) || (a && b && !strcmp(a, b)), "%s: '%s' stored, '%s' read", what,
                  a ? a : "(null)", b ? b : "(null)");
}

/* Everything stored reads back exactly (doubles bit for bit). */
static void assert_same_record(const repo_run *a, const repo_run *b)
{
    assert_same_str(a->meta.source, b->meta.source, "source");
    assert_same_str(a->meta.program, b->meta.program, "program");
    assert_same_str(a->meta.command_line, b->meta.command_line, "command_line");
    assert_same_str(a->meta.git_revision, b->meta.git_revision, "git");
    ck_assert_int_eq(a->meta.workers, b->meta.workers);
    ck_assert_int_eq(a->meta.n_labels, b->meta.n_labels);
    ck_assert_uint_eq(a->n_figures, b->n_figures);
    for (size_t i = 0; i < a->n_figures; i++) {
        const wfb_run_figures *x = &a->figures[i].f, *y = &b->figures[i].f;
        ck_assert_uint_eq(x->run, y->run);
        ck_assert_uint_eq(x->inputs, y->inputs);
        assert_same_double(x->span_s, y->span_s, "span_s");
        assert_same_double(x->throughput_per_s, y->throughput_per_s, "throughput");
        assert_same_double(x->latency.median, y->latency.median, "latency median");
        assert_same_double(x->latency.p99, y->latency.p99, "latency p99");
        assert_same_double(x->jitter_s, y->jitter_s, "jitter");
        assert_same_str(x->span_unknown_why, y->span_unknown_why, "span why");
    }
    ck_assert_uint_eq(a->n_workers, b->n_workers);
    for (size_t i = 0; i < a->n_workers; i++) {
        assert_same_double(a->workers[i].busy_s, b->workers[i].busy_s, "busy_s");
        assert_same_double(a->workers[i].wait_s, b->workers[i].wait_s, "wait_s");
    }
    ck_assert_uint_eq(a->n_tasks, b->n_tasks);
    for (size_t i = 0; i < a->n_tasks; i++) {
        assert_same_str(a->tasks[i].name, b->tasks[i].name, "task name");
        assert_same_double(a->tasks[i].exec_s, b->tasks[i].exec_s, "exec_s");
        assert_same_double(a->tasks[i].first_s, b->tasks[i].first_s, "first_s");
        ck_assert_uint_eq(a->tasks[i].blocks[1], b->tasks[i].blocks[1]);
    }
    ck_assert_uint_eq(a->n_waits, b->n_waits);
    for (size_t i = 0; i < a->n_waits; i++) {
        assert_same_double(a->waits[i].w.total_s, b->waits[i].w.total_s, "wait total");
        assert_same_str(a->waits[i].waiter_name, b->waits[i].waiter_name, "waiter");
    }
    for (int k = 0; k < 2; k++) {
        ck_assert_int_eq(a->paths[k].valid, b->paths[k].valid);
        ck_assert_uint_eq(a->paths[k].n, b->paths[k].n);
        assert_same_double(a->paths[k].length_s, b->paths[k].length_s, "path length");
        for (size_t i = 0; i < a->paths[k].n; i++) {
            assert_same_str(a->paths[k].steps[i].vertex, b->paths[k].steps[i].vertex, "vertex");
            assert_same_double(a->paths[k].steps[i].step_s, b->paths[k].steps[i].step_s, "step");
        }
    }
    ck_assert_uint_eq(a->n_activities, b->n_activities);
    for (size_t i = 0; i < a->n_activities; i++) {
        assert_same_str(a->activities[i].id, b->activities[i].id, "activity");
        assert_same_double(a->activities[i].end_s, b->activities[i].end_s, "activity end");
    }
    ck_assert_uint_eq(a->n_dependencies, b->n_dependencies);
    assert_same_double(a->activity.makespan_s, b->activity.makespan_s, "makespan");
}

static void assert_round_trip(const char *path)
{
    int64_t id = store(path, "x");
    repo_run a, b;
    record_of(path, &a, "x");
    repo *r;
    char err[512];
    ck_assert_msg(repo_open(&r, db, false, err, sizeof err) == 0, "%s", err);
    ck_assert_int_eq(repo_load(r, id, true, &b, err, sizeof err), 0);
    assert_same_record(&a, &b);
    ck_assert_uint_eq(a.n_inputs, b.n_inputs);
    repo_run_free(&b);
    ck_assert_int_eq(repo_load(r, id + 100, false, &b, err, sizeof err), 1);
    repo_close(r);
    repo_run_free(&a);
    repo_run_free(&b);
}

START_TEST(test_round_trip_lpel)
{
    assert_round_trip("oracle");
}
END_TEST

START_TEST(test_round_trip_activities)
{
    assert_round_trip(WFB_BRIDGE_FIXTURES "/activities.jsonl");
    assert_round_trip(WFB_FIXTURES "/wfcommons/helloworld-forkjoin-10-chameleon.json");
}
END_TEST

/* Every way a --db can be wrong: one line saying what was expected. */
static void assert_refused(const char *url, const char *expected)
{
    repo *r = NULL;
    char err[512] = "";
    ck_assert_int_eq(repo_open(&r, url, true, err, sizeof err), -1);
    ck_assert_ptr_null(r);
    ck_assert_msg(strstr(err, expected), "'%s': got '%s', expected '%s'", url, err, expected);
    ck_assert_ptr_null(strchr(err, '\n'));
}

START_TEST(test_bad_urls)
{
    assert_refused("", "empty repository URL");
    assert_refused("mysql://host/db", "unsupported repository URL scheme 'mysql'");
    assert_refused("postgresql:runs", "malformed PostgreSQL URL");
    assert_refused("postgresql://host:notaport/db", "malformed PostgreSQL URL");
    assert_refused("postgresql://host/db?nosuchoption=1", "malformed PostgreSQL URL");
    assert_refused("sqlite://", "malformed SQLite URL");
    assert_refused("sqlite:runs.sqlite?mode=ro", "malformed SQLite URL");
    /* a reachable URL form, but nothing listens there */
    assert_refused("postgresql://127.0.0.1:1/none?connect_timeout=2", "cannot connect");
}
END_TEST

START_TEST(test_not_a_repository)
{
    char path[160];
    snprintf(path, sizeof path, "%s/text.sqlite", tmp);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs("this is not a database, it is a text file long enough to be looked at\n", f);
    fclose(f);
    assert_refused(path, "not a repository");
    repo *r;
    char err[512];
    snprintf(path, sizeof path, "%s/missing.sqlite", tmp);
    ck_assert_int_eq(repo_open(&r, path, false, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "no repository at"));
    ck_assert_int_ne(access(path, F_OK), 0); /* reading made nothing */
}
END_TEST

START_TEST(test_newer_schema)
{
    store(WFB_BRIDGE_FIXTURES "/activities.jsonl", NULL);
    sqlite3 *s;
    ck_assert_int_eq(sqlite3_open(db, &s), SQLITE_OK);
    ck_assert_int_eq(sqlite3_exec(s, "UPDATE schema_version SET version = 99", 0, 0, 0), SQLITE_OK);
    sqlite3_close(s);
    repo *r;
    char err[512];
    ck_assert_int_eq(repo_open(&r, db, false, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "has schema version 99, newer than this snetmon knows (2)"), "%s",
                  err);
}
END_TEST

/* A repository made by an older snetmon: version 0 is a file without the
 * schema; opening it for writing migrates it to the current version. */
START_TEST(test_migrates_from_empty)
{
    sqlite3 *s;
    char path[160];
    snprintf(path, sizeof path, "%s/old.sqlite", tmp);
    ck_assert_int_eq(sqlite3_open(path, &s), SQLITE_OK);
    ck_assert_int_eq(sqlite3_exec(s, "CREATE TABLE unrelated (x)", 0, 0, 0), SQLITE_OK);
    sqlite3_close(s);
    repo *r;
    char err[512];
    ck_assert_int_eq(repo_open(&r, path, false, err, sizeof err), -1); /* reading: no runs yet */
    ck_assert_msg(repo_open(&r, path, true, err, sizeof err) == 0, "%s", err);
    ck_assert_int_eq(repo_found_version(r), 0);
    repo_close(r);
    ck_assert_msg(repo_open(&r, path, false, err, sizeof err) == 0, "%s", err);
    ck_assert_int_eq(repo_found_version(r), REPO_SCHEMA_VERSION);
    repo_close(r);
}
END_TEST

/* A repository of schema 1 (schema 2's columns dropped again) is
 * migrated when opened for writing: its run loads, the figures schema 1
 * did not have unknown (NaN), and a new run stores beside it. */
START_TEST(test_migrates_from_1)
{
    int64_t old = store("oracle", NULL);
    sqlite3 *s;
    ck_assert_int_eq(sqlite3_open(db, &s), SQLITE_OK);
    static const char *const drop[] = {
        "worker DROP COLUMN blocked_s", "worker DROP COLUMN ready_s", "worker DROP COLUMN cpu_s",
        "worker DROP COLUMN preempted_s", "worker DROP COLUMN preemptions",
        "task DROP COLUMN ready_s", "task DROP COLUMN preempted_s",
        "wait_relation DROP COLUMN ready_s", "wait_relation DROP COLUMN woken",
        "run_figures DROP COLUMN throughput_unknown_why"};
    for (size_t i = 0; i < sizeof drop / sizeof drop[0]; i++) {
        char sql[128];
        snprintf(sql, sizeof sql, "ALTER TABLE %s", drop[i]);
        ck_assert_msg(sqlite3_exec(s, sql, 0, 0, 0) == SQLITE_OK, "%s: %s", sql, sqlite3_errmsg(s));
    }
    ck_assert_int_eq(sqlite3_exec(s, "UPDATE schema_version SET version = 1", 0, 0, 0), SQLITE_OK);
    sqlite3_close(s);
    repo *r;
    char err[512];
    ck_assert_msg(repo_open(&r, db, true, err, sizeof err) == 0, "%s", err);
    ck_assert_int_eq(repo_found_version(r), 1);
    repo_run rec;
    ck_assert_msg(repo_load(r, old, false, &rec, err, sizeof err) == 0, "%s", err);
    ck_assert_uint_gt(rec.n_workers, 0);
    ck_assert(isnan(rec.workers[0].ready_s) && isnan(rec.workers[0].cpu_s));
    ck_assert(isnan(rec.tasks[0].ready_s));
    repo_run_free(&rec);
    repo_close(r);
    int64_t fresh = store("oracle", NULL);
    ck_assert_msg(repo_open(&r, db, false, err, sizeof err) == 0, "%s", err);
    ck_assert_int_eq(repo_found_version(r), REPO_SCHEMA_VERSION);
    ck_assert_msg(repo_load(r, fresh, false, &rec, err, sizeof err) == 0, "%s", err);
    ck_assert(!isnan(rec.workers[0].ready_s));
    repo_run_free(&rec);
    repo_close(r);
}
END_TEST

static void assert_integrity(size_t expected_runs)
{
    sqlite3 *s;
    ck_assert_int_eq(sqlite3_open(db, &s), SQLITE_OK);
    sqlite3_stmt *st;
    ck_assert_int_eq(sqlite3_prepare_v2(s, "PRAGMA integrity_check", -1, &st, NULL), SQLITE_OK);
    ck_assert_int_eq(sqlite3_step(st), SQLITE_ROW);
    ck_assert_str_eq((const char *)sqlite3_column_text(st, 0), "ok");
    sqlite3_finalize(st);
    /* every run is whole: as many figure rows and task rows as the first */
    ck_assert_int_eq(sqlite3_prepare_v2(s, "SELECT COUNT(*), COUNT(DISTINCT n) FROM (SELECT "
                                           "r.id, (SELECT COUNT(*) FROM task t WHERE t.run_id = "
                                           "r.id) AS n FROM run r)",
                                        -1, &st, NULL),
                     SQLITE_OK);
    ck_assert_int_eq(sqlite3_step(st), SQLITE_ROW);
    ck_assert_int_eq(sqlite3_column_int(st, 0), (int)expected_runs);
    ck_assert_int_le(sqlite3_column_int(st, 1), 1);
    sqlite3_finalize(st);
    sqlite3_close(s);
}

static void assert_ids(size_t n)
{
    repo *r;
    char err[512];
    ck_assert_msg(repo_open(&r, db, false, err, sizeof err) == 0, "%s", err);
    repo_run *recs;
    size_t got;
    ck_assert_msg(repo_list(r, NULL, 0, &recs, &got, err, sizeof err) == 0, "%s", err);
    ck_assert_uint_eq(got, n);
    for (size_t i = 0; i < got; i++)
        ck_assert_int_eq(recs[i].meta.id, (int64_t)i + 1); /* 1, 2, ... no gaps */
    repo_list_free(recs, got);
    repo_close(r);
}

/* Four processes store five runs each into one new file at once. */
START_TEST(test_concurrent_stores)
{
    char dir[128]; /* the trace, written once before forking */
    snprintf(dir, sizeof dir, "%s/oracle", tmp);
    ck_assert_int_eq(oracle_trace_write(dir), 0);
    pid_t kids[4];
    for (int k = 0; k < 4; k++) {
        kids[k] = fork();
        ck_assert_int_ge(kids[k], 0);
        if (kids[k] == 0) {
            for (int i = 0; i < 5; i++)
                store("oracle", k % 2 ? "odd" : "even");
            _exit(0);
        }
    }
    for (int k = 0; k < 4; k++) {
        int status;
        ck_assert_int_eq(waitpid(kids[k], &status, 0), kids[k]);
        ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "storing process %d failed",
                      k);
    }
    assert_integrity(20);
    assert_ids(20);
}
END_TEST

/* A store killed (SIGKILL) with half its rows written leaves no run, and
 * the next store takes the next id. */
START_TEST(test_interrupted_store)
{
    store("oracle", "before");
    pid_t kid = fork();
    ck_assert_int_ge(kid, 0);
    if (kid == 0) {
        setenv("SNETMON_REPO_KILL_AFTER_ROWS", "5", 1);
        store("oracle", "killed");
        _exit(0); /* not reached */
    }
    int status;
    ck_assert_int_eq(waitpid(kid, &status, 0), kid);
    ck_assert_msg(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL, "the store was not killed");
    assert_integrity(1);
    ck_assert_int_eq(store("oracle", "after"), 2);
    assert_integrity(2);
    assert_ids(2);
}
END_TEST

START_TEST(test_where)
{
    store(WFB_BRIDGE_FIXTURES "/activities.jsonl", "2");
    store(WFB_BRIDGE_FIXTURES "/activities_fast.jsonl", "10");
    store(WFB_BRIDGE_FIXTURES "/activities.jsonl", "2");
    repo *r;
    char err[512];
    ck_assert_int_eq(repo_open(&r, db, false, err, sizeof err), 0);
    repo_run *recs;
    size_t n;
    repo_where by_label[] = {{"series", "2"}};
    ck_assert_int_eq(repo_list(r, by_label, 1, &recs, &n, err, sizeof err), 0);
    ck_assert_uint_eq(n, 2);
    ck_assert_int_eq(recs[0].meta.id, 1);
    ck_assert_int_eq(recs[1].meta.id, 3);
    ck_assert_str_eq(recs[1].meta.labels[0].value, "2");
    repo_list_free(recs, n);
    repo_where by_field[] = {{"git", "rev1"}, {"format", "jsonl"}, {"series", "10"}};
    ck_assert_int_eq(repo_list(r, by_field, 3, &recs, &n, err, sizeof err), 0);
    ck_assert_uint_eq(n, 1);
    ck_assert_int_eq(recs[0].meta.id, 2);
    repo_list_free(recs, n);
    repo_where none[] = {{"series", "7"}};
    ck_assert_int_eq(repo_list(r, none, 1, &recs, &n, err, sizeof err), 0);
    ck_assert_uint_eq(n, 0);
    repo_list_free(recs, n);
    /* the series orders numeric values as numbers: 2 before 10 */
    ck_assert_int_eq(repo_list(r, NULL, 0, &recs, &n, err, sizeof err), 0);
    repo_series_point *p;
    size_t np;
    ck_assert_int_eq(repo_series(recs, n, "series", &p, &np, err, sizeof err), 0);
    ck_assert_uint_eq(np, 2);
    ck_assert_str_eq(p[0].value, "2");
    ck_assert_uint_eq(p[0].runs, 2);
    ck_assert_str_eq(p[1].value, "10");
    free(p);
    repo_list_free(recs, n);
    repo_close(r);
}
END_TEST

/* The comparison of a stored run is that of the same run from its file. */
START_TEST(test_compare_stored_equals_fresh)
{
    int64_t a = store(WFB_BRIDGE_FIXTURES "/activities.jsonl", NULL);
    int64_t b = store(WFB_BRIDGE_FIXTURES "/activities_fast.jsonl", NULL);
    repo *r;
    char err[512];
    ck_assert_int_eq(repo_open(&r, db, false, err, sizeof err), 0);
    repo_run sa, sb, fa, fb;
    ck_assert_int_eq(repo_load(r, a, false, &sa, err, sizeof err), 0);
    ck_assert_int_eq(repo_load(r, b, false, &sb, err, sizeof err), 0);
    repo_close(r);
    record_of(WFB_BRIDGE_FIXTURES "/activities.jsonl", &fa, NULL);
    record_of(WFB_BRIDGE_FIXTURES "/activities_fast.jsonl", &fb, NULL);
    char *text[2];
    size_t len[2];
    for (int k = 0; k < 2; k++) {
        FILE *out = open_memstream(&text[k], &len[k]);
        const repo_run *x = k ? &fa : &sa, *y = k ? &fb : &sb;
        ck_assert_int_eq(repo_compare_write(x, y, NULL, WFB_OUT_CSV, out, err, sizeof err), 0);
        fclose(out);
    }
    ck_assert_str_eq(text[0], text[1]);
    /* activities.jsonl runs twice as long as activities_fast.jsonl ([GRID]) */
    ck_assert_msg(strstr(text[0], "speedup,\"common activities (4, [GRID])\",2,0.5"), "%s", text[0]);
    free(text[0]), free(text[1]);
    repo_run_free(&sa), repo_run_free(&sb), repo_run_free(&fa), repo_run_free(&fb);
}
END_TEST

START_TEST(test_default_url)
{
    char buf[256];
    setenv("SNETMON_DB", "postgresql:///runs", 1);
    ck_assert_str_eq(repo_default_url(buf, sizeof buf), "postgresql:///runs");
    unsetenv("SNETMON_DB");
    setenv("XDG_DATA_HOME", "/data", 1);
    ck_assert_str_eq(repo_default_url(buf, sizeof buf), "/data/snetmon/runs.sqlite");
    unsetenv("XDG_DATA_HOME");
    setenv("HOME", "/home/u", 1);
    ck_assert_str_eq(repo_default_url(buf, sizeof buf), "/home/u/.local/share/snetmon/runs.sqlite");
}
END_TEST

int main(void)
{
    Suite *s = suite_create("repo");
    TCase *tc = tcase_create("sqlite");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_round_trip_lpel);
    tcase_add_test(tc, test_round_trip_activities);
    tcase_add_test(tc, test_bad_urls);
    tcase_add_test(tc, test_not_a_repository);
    tcase_add_test(tc, test_newer_schema);
    tcase_add_test(tc, test_migrates_from_empty);
    tcase_add_test(tc, test_migrates_from_1);
    tcase_add_test(tc, test_concurrent_stores);
    tcase_add_test(tc, test_interrupted_store);
    tcase_add_test(tc, test_where);
    tcase_add_test(tc, test_compare_stored_equals_fresh);
    tcase_add_test(tc, test_default_url);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
