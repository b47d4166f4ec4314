/*
 * test_mon_follow.c - the reader's follow mode (mon_trace_options.follow)
 * against the writer itself, without a runtime and without timing: the
 * test publishes events, reads, publishes more, and checks that every
 * event arrives once, in time order, that a log not published that far
 * holds the others back, that the unpublished end of a log is "in
 * progress" rather than a truncation, and that the trace reads as a
 * finished one once run.json says so.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mon.h"
#include "mon_fixture.h"
#include "mon_reader.h"
#include "mon_writer_internal.h"

/* A small packet (one page): a few hundred events cross packets. */
#define PACKET 4096

typedef struct live_trace {
    char dir[4096], ctf[4200];
    mon_writer *w[2];
    uint64_t t0; /* event times start here: in the future of the trace
                    clock, so that the settle time never releases them */
} live_trace;

static uint64_t monotonic_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void live_open(live_trace *lt)
{
    fixture_tmpdir(lt->dir, sizeof lt->dir);
    ck_assert_int_eq(fixture_trace_dir(lt->dir, 2, MON_FLAG_TIMESTAMPS | MON_FLAG_TASK, lt->ctf,
                                       sizeof lt->ctf),
                     0);
    char err[512];
    for (unsigned i = 0; i < 2; i++) {
        lt->w[i] = mon_writer_open(lt->ctf, i, PACKET, err, sizeof err);
        ck_assert_msg(lt->w[i] != NULL, "%s", err);
    }
    lt->t0 = monotonic_ns() + UINT64_C(3600) * 1000000000u;
}

/* End the run as mon_close does: flush, close, final run.json. */
static void live_finish(live_trace *lt)
{
    static char *const argv[] = {"fixture", NULL};
    mon_log_count logs[2];
    for (unsigned i = 0; i < 2; i++) {
        mon_writer_flush(lt->w[i]);
        logs[i] = (mon_log_count){
            .worker = i,
            .events = mon_writer_events(lt->w[i]) - mon_writer_lost(lt->w[i]),
            .bytes = mon_writer_bytes(lt->w[i])};
    }
    for (unsigned i = 0; i < 2; i++)
        ck_assert_int_eq(mon_writer_close(lt->w[i]), 0);
    mon_run_info info = {0};
    info.argc = 1;
    info.argv = argv;
    info.flags = MON_FLAG_TIMESTAMPS | MON_FLAG_TASK;
    info.host = "fixture-host";
    info.workers = 2;
    info.logs = logs;
    info.nlogs = 2;
    info.complete = true;
    mon_run_info_clock(&info);
    char err[512];
    ck_assert_msg(mon_run_json_write(lt->dir, &info, err, sizeof err) == 0, "%s", err);
}

static mon_trace *follow(const char *dir)
{
    mon_trace *t;
    char err[4608];
    mon_trace_options opt = {.follow = true};
    ck_assert_msg(mon_trace_open_with(&t, dir, &opt, err, sizeof err) == 0, "open: %s", err);
    return t;
}

/* Events until the reader stops; their tasks into got (task = the event's
 * sequence number in the test), the number read returned, *rc the stop. */
static size_t drain(mon_trace *t, uint64_t *got, size_t cap, int *rc)
{
    size_t n = 0;
    mon_event ev;
    while ((*rc = mon_trace_next(t, &ev)) == MON_TRACE_EVENT) {
        ck_assert_uint_lt(n, cap);
        got[n++] = ev.task;
    }
    return n;
}

static void dispatch(live_trace *lt, unsigned w, uint64_t seq)
{
    mon_emit_task(lt->w[w], MON_ID_TASK_DISPATCH, lt->t0 + seq, seq);
}

START_TEST(test_follow_in_order_and_once)
{
    live_trace lt;
    live_open(&lt);
    mon_trace *t = follow(lt.dir);
    ck_assert(mon_trace_live(t));
    uint64_t got[4000];
    int rc;
    ck_assert_uint_eq(drain(t, got, 4000, &rc), 0);
    ck_assert_int_eq(rc, MON_TRACE_AGAIN);

    /* Worker 0 publishes 1, 2, 4, 5; worker 1 nothing yet: it might still
     * publish something earlier, so nothing goes out. */
    for (uint64_t s = 1; s <= 5; s++)
        if (s != 3)
            dispatch(&lt, 0, s);
    mon_writer_publish(lt.w[0]);
    ck_assert_uint_eq(drain(t, got, 4000, &rc), 0);
    ck_assert_int_eq(rc, MON_TRACE_AGAIN);

    /* Worker 1 publishes 3: 1, 2, 3 go out; 4 waits for worker 1 again. */
    dispatch(&lt, 1, 3);
    mon_writer_publish(lt.w[1]);
    size_t n = drain(t, got, 4000, &rc);
    ck_assert_int_eq(rc, MON_TRACE_AGAIN);
    ck_assert_uint_eq(n, 3);
    ck_assert_uint_eq(got[0], 1);
    ck_assert_uint_eq(got[1], 2);
    ck_assert_uint_eq(got[2], 3);
    mon_log_status st;
    mon_trace_log_status(t, 1, &st);
    ck_assert_int_eq(st.state, MON_LOG_IN_PROGRESS);
    ck_assert_ptr_nonnull(st.message);
    ck_assert_ptr_nonnull(strstr(st.message, "in progress"));
    ck_assert_int_eq(st.events_lost, 0);
    ck_assert_uint_eq(st.bytes_lost, 0);

    /* Many more on both, across many packets, published bit by bit:
     * each comes out once, in time order. */
    uint64_t next = 6, seen = 3, last = 3;
    for (int round = 0; round < 100; round++) {
        for (int i = 0; i < 200; i++, next++)
            dispatch(&lt, (unsigned)(next % 2), next);
        mon_writer_publish(lt.w[0]);
        mon_writer_publish(lt.w[1]);
        n = drain(t, got, 4000, &rc);
        ck_assert_int_eq(rc, MON_TRACE_AGAIN);
        for (size_t i = 0; i < n; i++) {
            ck_assert_uint_eq(got[i], last + 1);
            last = got[i];
        }
        seen += n;
    }
    /* Everything published but the last event of the later worker (the
     * other one may still publish before it). */
    ck_assert_uint_eq(seen, next - 2);
    mon_trace_log_status(t, 0, &st);
    ck_assert_uint_gt(st.bytes_read, 4 * PACKET);

    /* The run ends: the rest comes out, and the trace is complete. */
    live_finish(&lt);
    n = drain(t, got, 4000, &rc);
    ck_assert_int_eq(rc, MON_TRACE_END);
    ck_assert_uint_eq(seen + n, next - 1);
    ck_assert_uint_eq(got[n - 1], next - 1);
    ck_assert(!mon_trace_live(t));
    for (unsigned i = 0; i < 2; i++) {
        mon_trace_log_status(t, i, &st);
        ck_assert_int_eq(st.state, MON_LOG_COMPLETE);
    }
    mon_trace_close(t);
    fixture_rmdir(lt.dir);
}
END_TEST

/* Without follow the same unfinished trace is what a killed run leaves:
 * read to its published end, and reported as not finished. */
START_TEST(test_without_follow_unfinished_is_a_loss)
{
    live_trace lt;
    live_open(&lt);
    for (uint64_t s = 1; s <= 50; s++)
        dispatch(&lt, (unsigned)(s % 2), s);
    mon_writer_publish(lt.w[0]);
    mon_writer_publish(lt.w[1]);
    mon_trace *t;
    char err[4608];
    ck_assert_int_eq(mon_trace_open(&t, lt.dir, err, sizeof err), 0);
    uint64_t got[100];
    int rc;
    /* No worker events were recorded (flags tT): the logs end cleanly. */
    ck_assert_uint_eq(drain(t, got, 100, &rc), 50);
    ck_assert_int_eq(rc, MON_TRACE_END);
    ck_assert(!mon_trace_live(t));
    mon_trace_close(t);
    for (unsigned i = 0; i < 2; i++)
        mon_writer_close(lt.w[i]);
    fixture_rmdir(lt.dir);
}
END_TEST

/* Follow and no follow read the same events from the fixture trace with
 * its run.json as a killed run leaves it (the first version). Follow ends
 * with MON_TRACE_AGAIN, the run never having said it is complete, and its
 * logs are in progress; without run.json it reads as a finished trace. */
static void compare_with_plain(const char *dir, int follow_end)
{
    mon_trace *a, *b = follow(dir);
    char err[4608];
    ck_assert_int_eq(mon_trace_open(&a, dir, err, sizeof err), 0);
    mon_event ea, eb;
    int ra, rb;
    size_t n = 0;
    for (;;) {
        ra = mon_trace_next(a, &ea);
        rb = mon_trace_next(b, &eb);
        if (ra != MON_TRACE_EVENT)
            break;
        ck_assert_int_eq(rb, MON_TRACE_EVENT);
        ck_assert_int_eq(ea.kind, eb.kind);
        ck_assert_uint_eq(ea.time, eb.time);
        ck_assert_uint_eq(ea.worker, eb.worker);
        ck_assert_uint_eq(ea.offset, eb.offset);
        n++;
    }
    ck_assert_int_eq(ra, MON_TRACE_END);
    ck_assert_int_eq(rb, follow_end);
    ck_assert_uint_eq(n, FIXTURE_ALL_KINDS_EVENTS);
    mon_log_status st;
    mon_trace_log_status(b, 0, &st);
    ck_assert_int_eq(st.state, follow_end == MON_TRACE_AGAIN ? MON_LOG_IN_PROGRESS : MON_LOG_COMPLETE);
    mon_trace_close(a);
    mon_trace_close(b);
}

/* run.json of dir as the first version: "complete": false, no logs. */
static void run_json_unfinished(const char *dir)
{
    static char *const argv[] = {"fixture", NULL};
    mon_run_info info = {.argc = 1, .argv = argv, .flags = MON_FLAG_ALL, .host = "fixture-host"};
    mon_run_info_clock(&info);
    char err[512];
    ck_assert_msg(mon_run_json_write(dir, &info, err, sizeof err) == 0, "%s", err);
}

START_TEST(test_follow_matches_plain_reading)
{
    char dir[4096], json[4200];
    fixture_tmpdir(dir, sizeof dir);
    ck_assert_int_eq(fixture_write_all_kinds(dir, PACKET), 0);
    run_json_unfinished(dir);
    compare_with_plain(dir, MON_TRACE_AGAIN);
    snprintf(json, sizeof json, "%s/run.json", dir);
    ck_assert_int_eq(remove(json), 0);
    compare_with_plain(dir, MON_TRACE_END);
    fixture_rmdir(dir);
}
END_TEST

/* The flush period comes from run.json's command line; the default 200. */
START_TEST(test_flush_period)
{
    char dir[4096];
    fixture_tmpdir(dir, sizeof dir);
    ck_assert_int_eq(fixture_write_many(dir, 1, 10, PACKET), 0);
    mon_trace *t = follow(dir);
    ck_assert_uint_eq(mon_trace_flush_ms(t), 200);
    mon_trace_close(t);
    fixture_rmdir(dir);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("mon_follow");
    TCase *tc = tcase_create("follow");
    tcase_add_test(tc, test_follow_in_order_and_once);
    tcase_add_test(tc, test_without_follow_unfinished_is_a_loss);
    tcase_add_test(tc, test_follow_matches_plain_reading);
    tcase_add_test(tc, test_flush_period);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
