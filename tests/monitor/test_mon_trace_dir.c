/*
 * test_mon_trace_dir.c - a trace directory is one run's complete,
 * self-describing set of files (docs/LOGFORMAT.md section 1, issue 24): the
 * writer clears what an earlier run left (mon_trace_dir_clear) and names
 * its run in every packet; it takes smaller packets when a whole one does
 * not fit; the reader opens only regular files with names the writer
 * makes, once each, of this run, with the metadata's clock agreeing with
 * run.json, and says whether the run finished.
 */
#include <check.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mon.h"
#include "mon_fixture.h"
#include "mon_reader.h"
#include "mon_writer_internal.h"

static char dir[4096];

static void setup(void) { fixture_tmpdir(dir, sizeof dir); }
static void teardown(void) { fixture_rmdir(dir); }

static void put_file(const char *name, const char *text)
{
    char path[4300];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    ck_assert_msg(f != NULL, "%s", path);
    fputs(text, f);
    fclose(f);
}

static bool exists(const char *name)
{
    char path[4300];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return lstat(path, &st) == 0;
}

/* The events of the trace in dir read with opt; rc: how the reading ended. */
static unsigned count_events(const mon_trace_options *opt, int *rc)
{
    mon_trace *t;
    char err[4608];
    ck_assert_msg(mon_trace_open_with(&t, dir, opt, err, sizeof err) == 0, "open: %s", err);
    mon_event ev;
    unsigned n = 0;
    while ((*rc = mon_trace_next(t, &ev)) == MON_TRACE_EVENT)
        n++;
    mon_trace_close(t);
    return n;
}

/* mon_trace_open's message for the trace in dir (it must fail). */
static const char *open_fails(void)
{
    static char err[4608];
    mon_trace *t;
    ck_assert_int_eq(mon_trace_open(&t, dir, err, sizeof err), -1);
    return err;
}

/* ---- the writer clears what an earlier run left ---- */

START_TEST(clear_removes_an_earlier_run_and_nothing_else)
{
    ck_assert_int_eq(fixture_write_all_kinds(dir, 0), 0);
    put_file("ctf/worker-7", "an earlier run's");
    put_file("ctf/metadata.tmp", "a rewrite cut short");
    put_file("run.json.tmp", "{}");
    put_file("notes.txt", "the user's");
    char rank[4300];
    snprintf(rank, sizeof rank, "%s/rank-3", dir);
    ck_assert_int_eq(fixture_write_all_kinds(rank, 0), 0);
    char err[512];
    ck_assert_msg(mon_trace_dir_clear(dir, 0, err, sizeof err) == 0, "%s", err);
    static const char *const gone[] = {"run.json", "run.json.tmp", "ctf/metadata",
                                       "ctf/metadata.tmp", "ctf/worker-0", "ctf/worker-1",
                                       "ctf/worker-7", "rank-3"};
    for (size_t i = 0; i < sizeof gone / sizeof gone[0]; i++)
        ck_assert_msg(!exists(gone[i]), "%s is still there", gone[i]);
    ck_assert(exists("notes.txt"));
    /* A directory of no trace is left as it is. */
    ck_assert_int_eq(mon_trace_dir_clear(dir, 0, err, sizeof err), 0);
    ck_assert(exists("notes.txt"));
}
END_TEST

/* Rank directories of a run across as many ranks stay for it. */
START_TEST(clear_keeps_the_ranks_of_this_run)
{
    char rank[4300];
    for (unsigned r = 0; r < 3; r++) {
        snprintf(rank, sizeof rank, "%s/rank-%u", dir, r);
        ck_assert_int_eq(fixture_write_all_kinds(rank, 0), 0);
    }
    char err[512];
    ck_assert_msg(mon_trace_dir_clear(dir, 2, err, sizeof err) == 0, "%s", err);
    ck_assert(exists("rank-0/ctf/worker-0") && exists("rank-1/run.json"));
    ck_assert(!exists("rank-2"));
}
END_TEST

/* A flight recorder's snapshots of an earlier run (whole, or cut short as
 * snapshot-K.tmp, in DIR or in a rank's directory) go with it: this run
 * numbers its own from 1 again. A snapshot holding a file no trace holds
 * is refused like DIR/ctf. */
START_TEST(clear_removes_an_earlier_run_s_snapshots)
{
    ck_assert_int_eq(fixture_write_all_kinds(dir, 0), 0);
    static const char *const snaps[] = {"snapshot-1", "snapshot-2.tmp", "rank-0/snapshot-1"};
    char path[4300];
    for (size_t i = 0; i < sizeof snaps / sizeof snaps[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, snaps[i]);
        ck_assert_int_eq(fixture_write_all_kinds(path, 0), 0);
    }
    char err[512];
    /* As a run across one rank clears: DIR keeping rank-0, then rank-0
     * (mon_trace_dir_create). */
    ck_assert_msg(mon_trace_dir_clear(dir, 1, err, sizeof err) == 0, "%s", err);
    ck_assert(exists("rank-0/snapshot-1/ctf/worker-0"));
    snprintf(path, sizeof path, "%s/rank-0", dir);
    ck_assert_msg(mon_trace_dir_clear(path, 0, err, sizeof err) == 0, "%s", err);
    for (size_t i = 0; i < sizeof snaps / sizeof snaps[0]; i++)
        ck_assert_msg(!exists(snaps[i]), "%s is still there", snaps[i]);
    ck_assert(exists("rank-0"));
    snprintf(path, sizeof path, "%s/snapshot-3", dir);
    ck_assert_int_eq(fixture_write_all_kinds(path, 0), 0);
    put_file("snapshot-3/ctf/notes.txt", "the user's");
    ck_assert_int_eq(mon_trace_dir_clear(dir, 0, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "snapshot-3/ctf/notes.txt: not a file of a trace"), "%s", err);
    ck_assert(exists("snapshot-3/ctf/worker-0"));
}
END_TEST

/* A file no trace of ours holds is refused, and then nothing is removed. */
START_TEST(clear_refuses_what_is_not_a_trace)
{
    ck_assert_int_eq(fixture_write_all_kinds(dir, 0), 0);
    put_file("ctf/worker-00", "a copy");
    char err[512];
    ck_assert_int_eq(mon_trace_dir_clear(dir, 0, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "ctf/worker-00: not a file of a trace"), "%s", err);
    ck_assert(exists("ctf/worker-0") && exists("run.json"));
    unlink(strcat(strcpy(err, dir), "/ctf/worker-00"));
    put_file("run.json", "{\"what\": \"somebody else's\"}");
    ck_assert_int_eq(mon_trace_dir_clear(dir, 0, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "run.json: not the run.json of a trace"), "%s", err);
    ck_assert(exists("ctf/worker-0"));
}
END_TEST

/* ---- the writer takes what fits ---- */

/* The file may grow by less than a packet (a file size limit, a nearly
 * full disk): the writer makes smaller packets, so the log holds all that
 * fits; the rest is counted. Before, each packet was all or nothing. */
START_TEST(smaller_packets_when_a_whole_one_does_not_fit)
{
    char ctf[4300], err[512];
    ck_assert_int_eq(fixture_trace_dir(dir, 1, MON_FLAG_TIMESTAMPS | MON_FLAG_TASK, ctf, sizeof ctf),
                     0);
    signal(SIGXFSZ, SIG_IGN); /* Check runs each test in its own process */
    struct rlimit lim = {40 * 1024, 40 * 1024};
    ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &lim), 0);
    mon_writer *w = mon_writer_open(ctf, 0, 64 * 1024, err, sizeof err);
    ck_assert_msg(w != NULL, "%s", err);
    const unsigned n = 30000;
    for (unsigned i = 0; i < n; i++)
        mon_emit_task(w, MON_ID_TASK_DISPATCH, 1000 + i, i % 50 + 1);
    mon_writer_flush(w);
    uint64_t lost = mon_writer_lost(w), bytes = mon_writer_bytes(w);
    ck_assert_uint_gt(lost, 0);
    ck_assert_uint_lt(lost, n);
    ck_assert_uint_gt(bytes, 32 * 1024); /* a 64 KiB packet would not have fitted */
    ck_assert_uint_le(bytes, 40 * 1024);
    ck_assert_int_eq(mon_writer_close(w), -1); /* events were lost */
    int rc;
    mon_trace_options opt = {.keep_going = true};
    ck_assert_uint_eq(count_events(&opt, &rc), n - lost);
}
END_TEST

/* ---- the reader's files ---- */

START_TEST(names_the_writer_does_not_make_are_refused)
{
    ck_assert_int_eq(fixture_write_all_kinds(dir, 0), 0);
    char from[4300], to[4300];
    snprintf(from, sizeof from, "%s/ctf/worker-1", dir);
    snprintf(to, sizeof to, "%s/ctf/worker-01", dir);
    ck_assert_int_eq(link(from, to), 0);
    ck_assert_msg(strstr(open_fails(), "ctf/worker-01: not a log the monitor writes"), "%s",
                  open_fails());
    unlink(to);
    put_file("ctf/worker-1.bak", "a copy");
    ck_assert_msg(strstr(open_fails(), "ctf/worker-1.bak: not a log the monitor writes"), "%s",
                  open_fails());
    put_file("ctf/notes", "the user's");
    ck_assert_msg(strstr(open_fails(), "ctf/notes: not a file of a trace"), "%s", open_fails());
    snprintf(to, sizeof to, "%s/ctf/notes", dir);
    unlink(to);
    /* keep_going passes over it, reads each log once and counts the file. */
    mon_trace *t;
    char err[4608];
    mon_trace_options opt = {.keep_going = true};
    ck_assert_int_eq(mon_trace_open_with(&t, dir, &opt, err, sizeof err), 0);
    const char *first;
    ck_assert_uint_eq(mon_trace_dir_problems(t, &first), 1);
    ck_assert_msg(strstr(first, "worker-1.bak"), "%s", first);
    mon_trace_close(t);
    int rc;
    ck_assert_uint_eq(count_events(&opt, &rc), FIXTURE_ALL_KINDS_EVENTS);
    ck_assert_int_eq(rc, MON_TRACE_TRUNCATED);
}
END_TEST

START_TEST(a_second_name_of_a_log_is_a_duplicate)
{
    ck_assert_int_eq(fixture_write_all_kinds(dir, 0), 0);
    char to[4300];
    snprintf(to, sizeof to, "%s/ctf/worker-2", dir);
    ck_assert_int_eq(symlink("worker-0", to), 0);
    ck_assert_msg(strstr(open_fails(), "worker-2: the same file as"), "%s", open_fails());
}
END_TEST

START_TEST(special_files_are_refused_without_blocking)
{
    ck_assert_int_eq(fixture_write_all_kinds(dir, 0), 0);
    static const char *const names[] = {"ctf/worker-1", "ctf/metadata", "run.json"};
    char path[4300];
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        char saved[4400]; /* beside ctf/: the directory holds only the trace's files */
        snprintf(saved, sizeof saved, "%s/saved", dir);
        ck_assert_int_eq(rename(path, saved), 0);
        ck_assert_int_eq(mkfifo(path, 0600), 0);
        const char *err = open_fails(); /* a test timeout if it blocks */
        ck_assert_msg(strstr(err, names[i]) && strstr(err, "a FIFO, not a regular file"), "%s",
                      err);
        unlink(path);
        ck_assert_int_eq(mkdir(path, 0700), 0);
        err = open_fails();
        ck_assert_msg(strstr(err, "a directory, not a regular file"), "%s", err);
        rmdir(path);
        ck_assert_int_eq(rename(saved, path), 0);
    }
}
END_TEST

/* Logs that name another run: the first packet makes the log foreign (not
 * read; the trace does not open without keep_going), a later one is
 * damage. */
START_TEST(logs_of_another_run_are_refused)
{
    char ctf[4300], err[4608];
    const unsigned flags = MON_FLAG_TIMESTAMPS | MON_FLAG_TASK;
    ck_assert_int_eq(fixture_trace_dir(dir, 2, flags, ctf, sizeof ctf), 0);
    fixture_run run = {0};
    for (unsigned w = 0; w < 2; w++) {
        mon_writer *wr = mon_writer_open_run(ctf, w, w == 0 ? 0x1234 : 0x9999, 0, err, sizeof err);
        ck_assert_msg(wr != NULL, "%s", err);
        mon_emit_task(wr, MON_ID_TASK_DISPATCH, 100 + w, 1);
        ck_assert_int_eq(fixture_close_log(&run, wr), 0);
    }
    static char *const argv[] = {"fixture", NULL};
    mon_run_info info = {.run_id = 0x1234, .argc = 1, .argv = argv, .flags = flags,
                         .host = "fixture-host", .workers = 2, .logs = run.logs,
                         .nlogs = run.n, .complete = true};
    mon_run_info_clock(&info);
    ck_assert_int_eq(mon_run_json_write(dir, &info, err, sizeof err), 0);
    const char *msg = open_fails();
    ck_assert_msg(strstr(msg, "worker-1: not a log of this run: its packets name run "
                              "0000000000009999, run.json names 0000000000001234"),
                  "%s", msg);
    mon_trace *t;
    mon_trace_options opt = {.keep_going = true};
    ck_assert_int_eq(mon_trace_open_with(&t, dir, &opt, err, sizeof err), 0);
    mon_event ev;
    ck_assert_int_eq(mon_trace_next(t, &ev), MON_TRACE_EVENT);
    ck_assert_uint_eq(ev.worker, 0);
    ck_assert_int_eq(mon_trace_next(t, &ev), MON_TRACE_TRUNCATED);
    mon_log_status st;
    mon_trace_log_status(t, 1, &st);
    ck_assert_int_eq(st.state, MON_LOG_FOREIGN);
    ck_assert_str_eq(mon_log_state_name(st.state), "foreign");
    /* Lost: what run.json says this run's log held; the file's bytes are
     * the other run's. */
    ck_assert_int_eq(st.events_lost, 1);
    ck_assert_uint_eq(st.bytes_lost, (uint64_t)st.bytes_expected);
    mon_trace_close(t);
}
END_TEST

/* The frequency of the metadata's clock block is the run's: run.json
 * records it, and without the block there is no frequency at all. */
START_TEST(the_clock_is_the_metadata_s_and_run_json_s)
{
    ck_assert_int_eq(fixture_write_all_kinds(dir, 0), 0);
    char path[4300], line[512];
    snprintf(path, sizeof path, "%s/ctf/metadata", dir);
    FILE *f = fopen(path, "r");
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    bool in_clock = false;
    while (fgets(line, sizeof line, f)) {
        if (!strncmp(line, "clock {", 7))
            in_clock = true;
        if (!in_clock)
            fputs(line, out);
        else if (!strncmp(line, "};", 2))
            in_clock = false;
    }
    fclose(f);
    fclose(out);
    put_file("ctf/metadata", text);
    ck_assert_msg(strstr(open_fails(), "metadata: no clock block"), "%s", open_fails());
    free(text);
    ck_assert_int_eq(fixture_write_all_kinds(dir, 0), 0);
    put_file("run.json", "{\"format\": \"snet-lpel-ctf\", \"complete\": true, \"clock\": "
                         "{\"source\": \"tsc\", \"frequency_hz\": 2600000000}}");
    ck_assert_msg(strstr(open_fails(), "metadata: clock monotonic at 1000000000 Hz, but run.json "
                                       "says tsc at 2600000000 Hz"),
                  "%s", open_fails());
}
END_TEST

/* Whether the run finished, and why not. */
START_TEST(the_run_s_state)
{
    ck_assert_int_eq(fixture_write_all_kinds(dir, 0), 0);
    mon_trace *t;
    char err[4608];
    const char *why;
    ck_assert_int_eq(mon_trace_open(&t, dir, err, sizeof err), 0);
    ck_assert_int_eq(mon_trace_run_state(t, &why), MON_RUN_COMPLETE);
    ck_assert_ptr_null(why);
    mon_trace_close(t);

    static char *const argv[] = {"fixture", NULL};
    mon_run_info info = {.argc = 1, .argv = argv, .flags = MON_FLAG_ALL, .host = "h"};
    mon_run_info_clock(&info);
    ck_assert_int_eq(fixture_run_json_ended(dir, &info, SIGTERM), 0);
    ck_assert_int_eq(mon_trace_open(&t, dir, err, sizeof err), 0);
    ck_assert_int_eq(mon_trace_run_state(t, &why), MON_RUN_UNFINISHED);
    ck_assert_msg(strstr(why, "run.json: the run did not finish: it ended on SIGTERM"), "%s", why);
    mon_trace_close(t);

    char path[4300];
    snprintf(path, sizeof path, "%s/run.json", dir);
    unlink(path);
    ck_assert_int_eq(mon_trace_open(&t, dir, err, sizeof err), 0);
    ck_assert_int_eq(mon_trace_run_state(t, &why), MON_RUN_UNKNOWN);
    ck_assert_msg(strstr(why, "no run.json"), "%s", why);
    mon_trace_close(t);
}
END_TEST

/* What the writer lost and why, from run.json: also when nothing of the
 * log reached the file (no packet to carry events_discarded). */
START_TEST(losses_run_json_counts)
{
    char ctf[4300], err[4608];
    const unsigned flags = MON_FLAG_TIMESTAMPS | MON_FLAG_TASK;
    ck_assert_int_eq(fixture_trace_dir(dir, 1, flags, ctf, sizeof ctf), 0);
    put_file("ctf/worker-0", "");
    mon_log_count log = {.worker = 0, .discarded = 43520, .error = "No space left on device"};
    static char *const argv[] = {"fixture", NULL};
    mon_run_info info = {.argc = 1, .argv = argv, .flags = flags, .host = "h", .workers = 1,
                         .logs = &log, .nlogs = 1, .complete = true};
    mon_run_info_clock(&info);
    ck_assert_int_eq(mon_run_json_write(dir, &info, err, sizeof err), 0);
    mon_trace *t;
    ck_assert_int_eq(mon_trace_open(&t, dir, err, sizeof err), 0);
    mon_event ev;
    ck_assert_int_eq(mon_trace_next(t, &ev), MON_TRACE_TRUNCATED);
    ck_assert_msg(strstr(mon_trace_error(t), "worker-0: the writer lost 43520 events (No space "
                                              "left on device; run.json)"),
                  "%s", mon_trace_error(t));
    mon_log_status st;
    mon_trace_log_status(t, 0, &st);
    ck_assert_int_eq(st.state, MON_LOG_DISCARDED);
    ck_assert_uint_eq(st.events_discarded, 43520);
    ck_assert_uint_eq(mon_trace_events_discarded(t), 43520);
    mon_trace_close(t);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("mon_trace_dir");
    TCase *tc = tcase_create("trace_dir");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, clear_removes_an_earlier_run_and_nothing_else);
    tcase_add_test(tc, clear_keeps_the_ranks_of_this_run);
    tcase_add_test(tc, clear_removes_an_earlier_run_s_snapshots);
    tcase_add_test(tc, clear_refuses_what_is_not_a_trace);
    tcase_add_test(tc, smaller_packets_when_a_whole_one_does_not_fit);
    tcase_add_test(tc, names_the_writer_does_not_make_are_refused);
    tcase_add_test(tc, a_second_name_of_a_log_is_a_duplicate);
    tcase_add_test(tc, special_files_are_refused_without_blocking);
    tcase_add_test(tc, logs_of_another_run_are_refused);
    tcase_add_test(tc, the_clock_is_the_metadata_s_and_run_json_s);
    tcase_add_test(tc, the_run_s_state);
    tcase_add_test(tc, losses_run_json_counts);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
