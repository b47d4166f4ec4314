/*
 * test_mon_run_json.c - the one reader of run.json (monitor/mon_run_json.c):
 * every field the tools take from it, in any layout (not only the
 * writer's line per entry), the file absent, damaged (one message naming
 * file and line, also from mon_trace_open), a trace's ctf directory, and
 * the top of a multi-rank trace standing for its ranks.
 */
#include <check.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mon_fixture.h"
#include "mon.h"
#include "mon_reader.h"
#include "mon_writer_internal.h"

static char dir[4096];

static void setup(void) { fixture_tmpdir(dir, sizeof dir); }
static void teardown(void) { fixture_rmdir(dir); }

static void write_json(const char *sub, const char *text)
{
    char path[4300];
    snprintf(path, sizeof path, "%s%s%s", dir, *sub ? "/" : "", sub);
    mkdir(path, 0777);
    snprintf(path, sizeof path, "%s%s%s/run.json", dir, *sub ? "/" : "", sub);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
}

/* Every field, laid out as the writer never does (one line, other order). */
START_TEST(fields_in_any_layout)
{
    write_json("", "{\"complete\": true, \"logs\": [{\"bytes\": 7, \"events\": 3, \"worker\": 1},"
                   " {\"worker\": 0, \"events\": 5, \"bytes\": 9}, {\"worker\": \"x\"}],"
                   " \"command_line\": [\"/bin/app\", \"-w\", \"2\", \"--mon-flush\", \"50\"],"
                   " \"flags\": \"mtWT\", \"task_filter\": null, \"workers\": 2, \"host\": \"h\","
                   " \"wall_clock_start_ns\": 1700000000000000000,"
                   " \"clock\": {\"source\": \"tsc\", \"frequency_hz\": 2500000000},"
                   " \"format\": \"snet-lpel-ctf\", \"format_version\": \"3.1\"}");
    mon_run_json *r;
    char err[512];
    ck_assert_int_eq(mon_run_json_read(dir, &r, err, sizeof err), 0);
    ck_assert(r->has_complete && r->complete);
    ck_assert_uint_eq(r->n_logs, 2); /* the entry without counts is left out */
    ck_assert_uint_eq(r->logs[0].worker, 1);
    ck_assert_uint_eq(r->logs[0].events, 3);
    ck_assert_uint_eq(r->logs[1].bytes, 9);
    ck_assert_int_eq(r->argc, 5);
    ck_assert_str_eq(r->argv[0], "/bin/app");
    ck_assert_int_eq(r->flush_ms, 50);
    ck_assert_str_eq(r->flags, "mtWT");
    ck_assert_ptr_null(r->task_filter);
    ck_assert_int_eq(r->workers, 2);
    ck_assert_str_eq(r->host, "h");
    ck_assert_uint_eq(r->wall_clock_start_ns, 1700000000000000000u);
    ck_assert_str_eq(r->clock_source, "tsc");
    ck_assert_uint_eq(r->clock_frequency_hz, 2500000000u);
    ck_assert_str_eq(r->format, "snet-lpel-ctf");
    ck_assert_int_eq(r->rank, -1);
    ck_assert_int_eq(r->ranks, 0);
    mon_run_json_free(r);
}
END_TEST

/* A run still going on: no counts, not complete; --mon-flush=MS counts too. */
START_TEST(unfinished_run)
{
    write_json("", "{\"command_line\": [\"app\", \"--mon-flush=70\"], \"complete\": false}");
    mon_run_json *r;
    char err[512];
    ck_assert_int_eq(mon_run_json_read(dir, &r, err, sizeof err), 0);
    ck_assert(r->has_complete && !r->complete);
    ck_assert_uint_eq(r->n_logs, 0);
    ck_assert_int_eq(r->flush_ms, 70);
    ck_assert_int_eq(r->workers, -1);
    mon_run_json_free(r);
}
END_TEST

/* Issue 24: the run id, how an unfinished run ended, what each log lost
 * and why; a run id that is not 16 hex digits; a run.json that is not a
 * regular file (read without blocking). */
START_TEST(run_id_end_and_losses)
{
    write_json("", "{\"run_id\": \"00ff00ff00ff00ff\", \"complete\": false, \"ended_by\": "
                   "\"SIGINT\", \"logs\": [{\"worker\": 0, \"events\": 5, \"bytes\": 9, "
                   "\"discarded\": 7, \"error\": \"No space left on device\"}]}");
    mon_run_json *r;
    char err[4400];
    ck_assert_int_eq(mon_run_json_read(dir, &r, err, sizeof err), 0);
    ck_assert_uint_eq(r->run_id, UINT64_C(0x00ff00ff00ff00ff));
    ck_assert_str_eq(r->ended_by, "SIGINT");
    ck_assert_uint_eq(r->n_logs, 1);
    ck_assert_uint_eq(r->logs[0].discarded, 7);
    ck_assert_str_eq(r->logs[0].error, "No space left on device");
    mon_run_json_free(r);
    write_json("", "{\"run_id\": 42}");
    ck_assert_int_eq(mon_run_json_read(dir, &r, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "\"run_id\" is not 16 hexadecimal digits"), "%s", err);
    char path[4300];
    snprintf(path, sizeof path, "%s/run.json", dir);
    unlink(path);
    ck_assert_int_eq(mkfifo(path, 0600), 0);
    ck_assert_int_eq(mon_run_json_read(dir, &r, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "run.json: a FIFO, not a regular file"), "%s", err);
}
END_TEST

/* The crash handler's run.json: the text prepared beforehand and its end
 * written in the handler make JSON that names the signal. */
START_TEST(crash_text_names_the_signal)
{
    static char *argv[] = {"app", NULL};
    mon_run_info info = {.run_id = 77, .argc = 1, .argv = argv, .flags = MON_FLAG_ALL,
                         .host = "h"};
    mon_run_info_clock(&info);
    static const struct {
        int sig;
        const char *name;
    } sigs[] = {{SIGTERM, "SIGTERM"}, {SIGSEGV, "SIGSEGV"}, {99, "signal 99"}};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
        ck_assert_int_eq(fixture_run_json_ended(dir, &info, sigs[i].sig), 0);
        mon_run_json *r;
        char err[4400];
        ck_assert_msg(mon_run_json_read(dir, &r, err, sizeof err) == 0, "%s", err);
        ck_assert(r->has_complete && !r->complete);
        ck_assert_str_eq(r->ended_by, sigs[i].name);
        ck_assert_uint_eq(r->run_id, 77);
        mon_run_json_free(r);
    }
}
END_TEST

START_TEST(absent_and_damaged)
{
    mon_run_json *r = (mon_run_json *)1;
    char err[512] = "";
    ck_assert_int_eq(mon_run_json_read(dir, &r, err, sizeof err), 1);
    ck_assert_ptr_null(r);
    write_json("", "{\n  \"complete\": true,\n  \"logs\": [\n");
    ck_assert_int_eq(mon_run_json_read(dir, &r, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "/run.json:4: ") != NULL, "file and line: %s", err);
    write_json("", "[1, 2]\n");
    ck_assert_int_eq(mon_run_json_read(dir, &r, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "expected a JSON object") != NULL, "%s", err);
}
END_TEST

/* The trace reader refuses a trace whose run.json is damaged, naming it;
 * with keep_going it reads the logs and reports the damage. */
START_TEST(trace_with_damaged_run_json)
{
    ck_assert_int_eq(fixture_write_all_kinds(dir, 4096), 0);
    write_json("", "{\"complete\": tru");
    mon_trace *t;
    char err[512];
    ck_assert_int_eq(mon_trace_open(&t, dir, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "run.json:1:") != NULL, "%s", err);
    mon_trace_options opt = {.keep_going = true};
    ck_assert_int_eq(mon_trace_open_with(&t, dir, &opt, err, sizeof err), 0);
    mon_event ev;
    unsigned n = 0;
    int rc;
    while ((rc = mon_trace_next(t, &ev)) == MON_TRACE_EVENT)
        n++;
    ck_assert_uint_eq(n, FIXTURE_ALL_KINDS_EVENTS);
    ck_assert_int_eq(rc, MON_TRACE_TRUNCATED);
    ck_assert_msg(strstr(mon_trace_error(t), "run.json:1:") != NULL, "%s", mon_trace_error(t));
    mon_trace_close(t);
}
END_TEST

/* The run as a whole: given the ctf directory, its parent's run.json; the
 * top of a multi-rank trace: rank 0's facts, the workers of all ranks,
 * complete when every rank is. */
START_TEST(the_run_as_a_whole)
{
    char sub[4200];
    write_json("", "{\"format\": \"snet-lpel-ctf-ranks\", \"ranks\": 2}");
    write_json("rank-0", "{\"host\": \"a\", \"workers\": 2, \"rank\": 0, \"ranks\": 2, "
                         "\"complete\": true}");
    write_json("rank-1", "{\"host\": \"b\", \"workers\": 3, \"rank\": 1, \"ranks\": 2, "
                         "\"complete\": true, \"clock_sync\": {\"samples\": ["
                         "{\"phase\": \"start\", \"local_send\": 10, \"reference\": 25, "
                         "\"local_receive\": 30}, {\"phase\": \"end\", \"local_send\": 1, "
                         "\"reference\": 2, \"local_receive\": 3}]}}");
    mon_run_json *r;
    char err[512];
    ck_assert_int_eq(mon_run_json_read_trace(dir, &r, err, sizeof err), 0);
    ck_assert_str_eq(r->host, "a");
    ck_assert_int_eq(r->workers, 5);
    ck_assert_int_eq(r->ranks, 2);
    ck_assert(r->complete);
    mon_run_json_free(r);
    snprintf(sub, sizeof sub, "%s/rank-1", dir);
    ck_assert_int_eq(mon_run_json_read(sub, &r, err, sizeof err), 0);
    ck_assert_uint_eq(r->n_samples, 2);
    ck_assert(!r->samples[0].end && r->samples[1].end);
    ck_assert_uint_eq(r->samples[0].reference, 25);
    mon_run_json_free(r);
    write_json("rank-1", "{\"workers\": 3, \"rank\": 1, \"complete\": false}");
    ck_assert_int_eq(mon_run_json_read_trace(dir, &r, err, sizeof err), 0);
    ck_assert(!r->complete);
    mon_run_json_free(r);

    snprintf(sub, sizeof sub, "%s/ctf", dir);
    mkdir(sub, 0777);
    write_json("", "{\"host\": \"c\"}");
    ck_assert_int_eq(mon_run_json_read_trace(sub, &r, err, sizeof err), 0);
    ck_assert_str_eq(r->host, "c");
    ck_assert(!r->has_complete);
    mon_run_json_free(r);
}
END_TEST

/* What the writer writes is JSON whatever the command line holds: bytes
 * that are not UTF-8 become '?', as control characters do. */
START_TEST(writer_output_is_json_for_any_argv)
{
    static char *argv[] = {"app", "caf\xe9", "tab\tx", "\xc3\xa9t\xc3\xa9", NULL};
    mon_run_info info = {.argc = 4, .argv = argv, .flags = MON_FLAG_ALL, .host = "h\xff"};
    mon_run_info_clock(&info);
    char err[512];
    ck_assert_msg(mon_run_json_write(dir, &info, err, sizeof err) == 0, "%s", err);
    mon_run_json *r;
    ck_assert_msg(mon_run_json_read(dir, &r, err, sizeof err) == 0, "%s", err);
    ck_assert_int_eq(r->argc, 4);
    ck_assert_str_eq(r->argv[1], "caf?");
    ck_assert_str_eq(r->argv[2], "tab?x");
    ck_assert_str_eq(r->argv[3], "\xc3\xa9t\xc3\xa9"); /* UTF-8 stays */
    ck_assert_str_eq(r->host, "h?");
    mon_run_json_free(r);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("mon_run_json");
    TCase *tc = tcase_create("run_json");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, fields_in_any_layout);
    tcase_add_test(tc, unfinished_run);
    tcase_add_test(tc, run_id_end_and_losses);
    tcase_add_test(tc, crash_text_names_the_signal);
    tcase_add_test(tc, absent_and_damaged);
    tcase_add_test(tc, trace_with_damaged_run_json);
    tcase_add_test(tc, the_run_as_a_whole);
    tcase_add_test(tc, writer_output_is_json_for_any_argv);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
