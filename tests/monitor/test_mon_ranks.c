/*
 * test_mon_ranks.c - reading a multi-rank trace (one trace per MPI rank,
 * docs/LOGFORMAT.md section 8) as one: the traces are written here by hand
 * with the writer's API, rank 1's clock off by a known offset and drift,
 * so that the reader's alignment can be checked against the truth:
 *   - numbering: workers per (rank, worker), task ids with the rank, the
 *     channel's peer resolved across ranks, labels;
 *   - the linear correction recovers offset and drift from the samples and
 *     leaves no message received before it was sent;
 *   - without samples the fix-up (controlled logical clock) moves the
 *     receives, and the merged order then has every receive after its send;
 *   - a rank the trace lacks is reported as missing, the others are read;
 *   - followed while "running" (run.json not complete): the merge waits for
 *     a rank that is not there yet, then merges it on its start offset
 *     alone, numbers a worker that starts late without renumbering, and
 *     reads in full once every run is complete.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "mon.h"
#include "kit.h"
#include "mon_fixture.h"
#include "mon_reader.h"
#include "mon_writer_internal.h"

#define MESSAGES 200
#define SEND_EVERY 10000 /* ns between sends on rank 0 */
#define LATENCY 2000     /* ns from a send to its receive, on rank 0's clock */
#define T0 1000000000ull /* rank 0's time of the first event */

/* Rank 1's clock: rank 0's time t reads as t + OFFSET + DRIFT * (t - T0). */
#define OFFSET (-3000000.0)
#define DRIFT 250e-6

static uint64_t rank1_clock(double t) { return (uint64_t)llround(t + OFFSET + DRIFT * (t - T0)); }

static void write_info(mon_run_info *info, int rank, int ranks, unsigned workers)
{
    static char *const argv[] = {"fixture", NULL};
    memset(info, 0, sizeof *info);
    info->argc = 1;
    info->argv = argv;
    info->flags = MON_FLAG_ALL;
    info->host = "fixture-host";
    info->workers = workers;
    info->rank = rank;
    info->ranks = ranks;
    mon_run_info_clock(info);
}

static mon_writer *open_log(const char *ctf, unsigned w)
{
    char err[512];
    mon_writer *wr = mon_writer_open(ctf, w, 0, err, sizeof err);
    ck_assert_msg(wr != NULL, "%s", err);
    return wr;
}

/* Rank 0: one worker whose task 1 sends MESSAGES messages to rank 1. */
static void write_rank0(const char *top)
{
    char dir[4200], ctf[4300], err[512];
    snprintf(dir, sizeof dir, "%s/rank-0", top);
    mon_run_info info;
    write_info(&info, 0, 2, 1);
    ck_assert_int_eq(mon_mkdirs(top, err, sizeof err), 0);
    ck_assert_int_eq(mon_ranks_json_write(top, &info, err, sizeof err), 0);
    ck_assert_int_eq(mon_trace_dir_create(dir, &info, ctf, sizeof ctf, err, sizeof err), 0);
    mon_writer *wr = open_log(ctf, 0);
    uint64_t t = T0;
    mon_emit_task(wr, MON_ID_RUN_START, t, 1);
    mon_emit_bare(wr, MON_ID_WORKER_START, t);
    mon_emit_task_map(wr, t + 1, 1, "S2:to.r1");
    mon_emit_channel_open(wr, t + 2, 1, 0x5, 1, true);
    for (unsigned k = 0; k < MESSAGES; k++)
        mon_emit_transfer(wr, MON_ID_MESSAGE_SENT, T0 + 1000 + (uint64_t)k * SEND_EVERY, 1,
                          mon_msg_id_make_at(0, 0, k + 1), 1);
    mon_emit_channel_block(wr, T0 + 1000 + MESSAGES * SEND_EVERY, 1, 0x5, false);
    mon_emit_bare(wr, MON_ID_WORKER_END, T0 + 2000 + MESSAGES * SEND_EVERY);
    ck_assert_int_eq(mon_writer_close(wr), 0);
}

/* Rank 1: two workers; task 1 on worker 1 receives the messages, its times
 * on rank 1's skewed clock. With samples: 8 before and 8 after the run. */
static void write_rank1(const char *top, bool samples)
{
    char dir[4200], ctf[4300], err[512];
    snprintf(dir, sizeof dir, "%s/rank-1", top);
    mon_run_info info;
    write_info(&info, 1, 2, 2);
    mon_sync_entry sync[16];
    for (unsigned i = 0; samples && i < 16; i++) {
        bool end = i >= 8;
        /* A request leaves 400 + 10 i ns before rank 0 reads its clock and
         * the answer takes as long back: round trips 800 ns and up. */
        double q = end ? T0 + 3.0 * MESSAGES * SEND_EVERY + 1000.0 * i : T0 - 100000.0 + 1000.0 * i;
        double half = 400 + 10 * i;
        sync[i] = (mon_sync_entry){end, rank1_clock(q - half), (uint64_t)q, rank1_clock(q + half)};
    }
    info.sync = sync;
    info.nsync = samples ? 16 : 0;
    ck_assert_int_eq(mon_trace_dir_create(dir, &info, ctf, sizeof ctf, err, sizeof err), 0);
    for (unsigned w = 0; w < 2; w++) {
        mon_writer *wr = open_log(ctf, w);
        uint64_t t = rank1_clock(T0 - 50);
        mon_emit_task(wr, MON_ID_RUN_START, t, 1);
        mon_emit_bare(wr, MON_ID_WORKER_START, t);
        if (w == 1) {
            mon_emit_task_map(wr, t + 1, 1, "S2:from.r0");
            mon_emit_channel_open(wr, t + 2, 1, 0x5, 0, false);
            mon_emit_channel_block(wr, rank1_clock(T0 + 500.0), 1, 0x5, true);
            for (unsigned k = 0; k < MESSAGES; k++)
                mon_emit_transfer(wr, MON_ID_MESSAGE_RECEIVED,
                                  rank1_clock(T0 + 1000.0 + k * (double)SEND_EVERY + LATENCY), 1,
                                  mon_msg_id_make_at(0, 0, k + 1), 0);
        }
        mon_emit_bare(wr, MON_ID_WORKER_END, rank1_clock(T0 + 3000.0 + MESSAGES * SEND_EVERY));
        ck_assert_int_eq(mon_writer_close(wr), 0);
    }
}

/* Every event of the merged trace; checks times never go back. */
static mon_event *read_all(mon_trace *t, size_t *n, int *end)
{
    size_t cap = 0;
    mon_event *all = NULL;
    *n = 0;
    mon_event ev;
    while ((*end = mon_trace_next(t, &ev)) == MON_TRACE_EVENT) {
        if (*n)
            ck_assert_uint_ge(ev.time, all[*n - 1].time);
        ev.name = NULL;
        ck_assert_int_eq(KIT_PUSH(all, *n, cap, ev), 0);
    }
    return all;
}

/* Every receive comes after its send in the merged order, by at least
 * min_gap ns; returns how many pairs were seen. */
static unsigned check_causal(const mon_event *all, size_t n, uint64_t min_gap)
{
    uint64_t sent[MESSAGES + 1] = {0};
    unsigned pairs = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t seq = mon_msg_id_seq(all[i].msg);
        if (all[i].kind == MON_EV_MESSAGE_SENT) {
            ck_assert_uint_le(seq, MESSAGES);
            sent[seq] = all[i].time;
        } else if (all[i].kind == MON_EV_MESSAGE_RECEIVED) {
            ck_assert_msg(sent[seq] != 0, "message %llu received before it was sent",
                          (unsigned long long)seq);
            ck_assert_uint_ge(all[i].time, sent[seq] + min_gap);
            pairs++;
        }
    }
    return pairs;
}

START_TEST(numbering_and_labels)
{
    char top[4096];
    fixture_tmpdir(top, sizeof top);
    write_rank0(top);
    write_rank1(top, true);
    mon_trace *t;
    char err[512];
    ck_assert_int_eq(mon_trace_open(&t, top, err, sizeof err), 0);
    ck_assert_uint_eq(mon_trace_num_ranks(t), 2);
    ck_assert_uint_eq(mon_trace_num_workers(t), 3);
    unsigned rank, local;
    mon_trace_worker_place(t, 2, &rank, &local);
    ck_assert_uint_eq(rank, 1);
    ck_assert_uint_eq(local, 1);
    ck_assert_uint_eq(mon_trace_worker_id(t, 2), 2);
    char label[32];
    ck_assert_str_eq(mon_trace_worker_label(t, 0, label, sizeof label), "r0.w0");
    ck_assert_str_eq(mon_trace_worker_label(t, 2, label, sizeof label), "r1.w1");
    size_t n;
    int end;
    mon_event *all = read_all(t, &n, &end);
    ck_assert_int_eq(end, MON_TRACE_END);
    /* rank 0: 6 + sends; rank 1: 3 on worker 0, 6 + receives on worker 1 */
    ck_assert_uint_eq(n, 15 + 2 * MESSAGES);
    bool saw_block = false;
    for (size_t i = 0; i < n; i++) {
        ck_assert(all[i].ranked);
        if (all[i].kind == MON_EV_TASK_MAP && all[i].rank == 1) {
            ck_assert_uint_eq(all[i].task, (UINT64_C(1) << 32) | 1);
            ck_assert_uint_eq(all[i].worker_mapped, 2);
            ck_assert_uint_eq(all[i].worker, 2);
            ck_assert_uint_eq(all[i].rank_worker, 1);
        }
        if (all[i].kind == MON_EV_CHANNEL_BLOCK && all[i].rank == 1) {
            /* rank 1's receiver waits for rank 0's sender, task 1 there */
            ck_assert(all[i].empty);
            ck_assert_uint_eq(all[i].peer, 1);
            saw_block = true;
        }
        if (all[i].kind == MON_EV_CHANNEL_BLOCK && all[i].rank == 0)
            ck_assert_uint_eq(all[i].peer, (UINT64_C(1) << 32) | 1); /* waits for room */
    }
    ck_assert(saw_block);
    free(all);
    mon_trace_close(t);
    fixture_rmdir(top);
}
END_TEST

START_TEST(linear_correction)
{
    char top[4096];
    fixture_tmpdir(top, sizeof top);
    write_rank0(top);
    write_rank1(top, true);
    mon_trace *t;
    char err[512];
    ck_assert_int_eq(mon_trace_open(&t, top, err, sizeof err), 0);
    const mon_clock_alignment *a = mon_trace_clock_alignment(t);
    ck_assert(a != NULL);
    ck_assert_uint_eq(a->ranks, 2);
    const mon_rank_clock *r1 = &a->rank[1];
    ck_assert_uint_eq(r1->samples, 16);
    ck_assert(r1->has_start && r1->has_end);
    /* The samples have symmetric paths: offset and drift exactly. At the
     * start sample (rank 0 time T0 - 100000) rank 1 reads OFFSET +
     * DRIFT * -100000 more; the reader gives rank 0's minus rank 1's. */
    ck_assert_double_eq_tol(r1->offset_ns, -(OFFSET + DRIFT * -100000.0), 2.0);
    ck_assert_double_eq_tol(r1->drift_ppm, -DRIFT * 1e6 / (1 + DRIFT), 0.01);
    ck_assert_double_eq_tol(r1->rtt_ns, 800 * (1 + DRIFT), 1.0);
    ck_assert_uint_eq(a->messages, MESSAGES);
    ck_assert_uint_eq(a->unmatched, 0);
    ck_assert_uint_eq(a->raw_violations, MESSAGES); /* 3 ms behind: all received "before" */
    ck_assert_uint_eq(a->violations, 0);
    ck_assert_uint_eq(a->fixed, 0);
    ck_assert_uint_eq(a->after, 0);
    size_t n;
    int end;
    mon_event *all = read_all(t, &n, &end);
    ck_assert_uint_eq(check_causal(all, n, LATENCY - 5), MESSAGES);
    free(all);
    mon_trace_close(t);
    fixture_rmdir(top);
}
END_TEST

START_TEST(fix_up_without_samples)
{
    char top[4096];
    fixture_tmpdir(top, sizeof top);
    write_rank0(top);
    write_rank1(top, false);
    mon_trace *t;
    char err[512];
    ck_assert_int_eq(mon_trace_open(&t, top, err, sizeof err), 0);
    const mon_clock_alignment *a = mon_trace_clock_alignment(t);
    ck_assert(!a->rank[1].has_start);
    ck_assert_uint_eq(a->messages, MESSAGES);
    ck_assert_uint_eq(a->violations, MESSAGES);
    ck_assert_double_gt(a->worst_ns, 2.9e6);
    ck_assert_uint_ge(a->fixed, 1);
    ck_assert_uint_eq(a->after, 0);
    ck_assert_double_gt(a->rank[1].shift_max_ns, 2.9e6);
    size_t n;
    int end;
    mon_event *all = read_all(t, &n, &end);
    ck_assert_int_eq(end, MON_TRACE_END);
    ck_assert_uint_eq(check_causal(all, n, 0), MESSAGES);
    free(all);
    mon_trace_close(t);
    fixture_rmdir(top);
}
END_TEST

START_TEST(missing_rank)
{
    char top[4096], path[4300], err[512];
    fixture_tmpdir(top, sizeof top);
    write_rank0(top);
    write_rank1(top, true);
    /* The marker says three ranks; rank 2 wrote nothing. */
    mon_run_info info;
    write_info(&info, 0, 3, 1);
    ck_assert_int_eq(mon_ranks_json_write(top, &info, err, sizeof err), 0);
    mon_trace *t;
    ck_assert_int_eq(mon_trace_open(&t, top, err, sizeof err), 0);
    ck_assert_uint_eq(mon_trace_num_ranks(t), 3);
    size_t n;
    int end;
    mon_event *all = read_all(t, &n, &end);
    ck_assert_int_eq(end, MON_TRACE_TRUNCATED);
    ck_assert_ptr_nonnull(strstr(mon_trace_error(t), "rank-2"));
    mon_log_status st;
    mon_trace_log_status(t, mon_trace_num_workers(t) - 1, &st);
    ck_assert_int_eq(st.state, MON_LOG_MISSING);
    snprintf(path, sizeof path, "%s/rank-2", top);
    ck_assert_str_eq(st.path, path);
    ck_assert_uint_gt(n, 2 * MESSAGES);
    free(all);
    mon_trace_close(t);
    fixture_rmdir(top);
}
END_TEST

START_TEST(one_rank_directory_alone)
{
    /* A rank's own directory is an ordinary trace of one process. */
    char top[4096], dir[4200], err[512];
    fixture_tmpdir(top, sizeof top);
    write_rank0(top);
    write_rank1(top, true);
    snprintf(dir, sizeof dir, "%s/rank-1", top);
    mon_trace *t;
    ck_assert_int_eq(mon_trace_open(&t, dir, err, sizeof err), 0);
    ck_assert_uint_eq(mon_trace_num_ranks(t), 1);
    ck_assert(mon_trace_clock_alignment(t) == NULL);
    mon_event ev;
    ck_assert_int_eq(mon_trace_next(t, &ev), MON_TRACE_EVENT);
    ck_assert(!ev.ranked);
    mon_trace_close(t);
    fixture_rmdir(top);
}
END_TEST

/* The "logs" of a finished run's run.json for the logs in the rank
 * directory dir, as mon_close lists them: each log's events and bytes. */
static void logs_entry(const char *dir, char *buf, size_t len)
{
    mon_trace *t;
    char err[4608];
    ck_assert_msg(mon_trace_open(&t, dir, err, sizeof err) == 0, "open: %s", err);
    mon_event ev;
    while (mon_trace_next(t, &ev) == MON_TRACE_EVENT)
        ;
    size_t at = (size_t)snprintf(buf, len, "\"logs\": [");
    for (unsigned i = 0; i < mon_trace_num_workers(t); i++) {
        mon_log_status st;
        mon_trace_log_status(t, i, &st);
        at += (size_t)snprintf(buf + at, len - at, "%s{\"worker\": %u, \"events\": %llu, \"bytes\": %ld}",
                               i ? ", " : "", st.worker, (unsigned long long)st.events_read,
                               fixture_file_size(st.path));
        ck_assert_uint_lt(at, len);
    }
    snprintf(buf + at, len - at, "],\n  ");
    mon_trace_close(t);
}

/* Rewrite DIR/run.json as a finished run's ("complete": true, with the
 * logs the final run.json lists). */
static void mark_complete(const char *dir)
{
    char path[4300], text[65536], logs[4096];
    logs_entry(dir, logs, sizeof logs);
    snprintf(path, sizeof path, "%s/run.json", dir);
    FILE *f = fopen(path, "r");
    ck_assert_ptr_nonnull(f);
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    char *at = strstr(text, "\"complete\": false");
    ck_assert_ptr_nonnull(at);
    f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fprintf(f, "%.*s%s\"complete\": true%s", (int)(at - text), text, logs,
            at + strlen("\"complete\": false"));
    ck_assert_int_eq(fclose(f), 0);
}

START_TEST(follow_live_alignment)
{
    char top[4096], dir[4200], err[512];
    fixture_tmpdir(top, sizeof top);
    write_rank0(top);
    mon_trace *t;
    mon_trace_options opt = {.follow = true};
    ck_assert_int_eq(mon_trace_open_with(&t, top, &opt, err, sizeof err), 0);
    const mon_clock_alignment *a = mon_trace_clock_alignment(t);
    ck_assert(a->provisional);
    ck_assert_uint_eq(a->joined, 1);
    ck_assert(mon_trace_live(t));
    /* Rank 1 is not there yet: rank 0's events wait for it. */
    mon_event ev;
    ck_assert_int_eq(mon_trace_next(t, &ev), MON_TRACE_AGAIN);
    mon_log_status st;
    mon_trace_log_status(t, mon_trace_num_workers(t) - 1, &st);
    ck_assert_int_eq(st.state, MON_LOG_IN_PROGRESS);
    ck_assert_ptr_nonnull(strstr(st.message, "rank-1: in progress: not merged yet"));

    write_rank1(top, true);
    size_t n;
    int end;
    mon_event *all = read_all(t, &n, &end);
    ck_assert_int_eq(end, MON_TRACE_AGAIN);
    ck_assert_uint_eq(n, 15 + 2 * MESSAGES);
    ck_assert_uint_eq(a->joined, 2);
    /* The offset of the start sample as the full alignment has it, no
     * drift: rank 1's times are off by at most DRIFT times their distance
     * from the sample (2.1 ms: 525 ns), well within the latency. */
    const mon_rank_clock *r1 = &a->rank[1];
    ck_assert(r1->has_start && !r1->has_end);
    ck_assert_double_eq_tol(r1->offset_ns, -(OFFSET + DRIFT * -100000.0), 2.0);
    ck_assert_double_eq(r1->drift_ppm, 0);
    ck_assert_double_eq_tol(a->latency_ns, 400 * (1 + DRIFT), 1.0);
    ck_assert_uint_eq(a->messages, 0); /* no check while following */
    ck_assert_uint_eq(check_causal(all, n, LATENCY - 600), MESSAGES);
    for (size_t i = 0; i < n; i++)
        if (all[i].rank == 1)
            ck_assert_uint_eq(all[i].worker, 1 + all[i].rank_worker);
    char label[32];
    ck_assert_str_eq(mon_trace_worker_label(t, 2, label, sizeof label), "r1.w1");
    free(all);

    /* A worker of rank 0 that starts after rank 1 joined keeps the numbers
     * given out: it gets one of its own, after rank 1's. */
    char ctf0[4300];
    snprintf(ctf0, sizeof ctf0, "%s/rank-0/ctf", top);
    mon_writer *wr = open_log(ctf0, 1);
    mon_emit_task(wr, MON_ID_RUN_START, T0 + 3000000, 1);
    mon_emit_bare(wr, MON_ID_WORKER_START, T0 + 3000000);
    mon_emit_bare(wr, MON_ID_WORKER_END, T0 + 3000010);
    ck_assert_int_eq(mon_writer_close(wr), 0);
    all = read_all(t, &n, &end);
    ck_assert_int_eq(end, MON_TRACE_AGAIN);
    ck_assert_uint_eq(n, 3);
    for (size_t i = 0; i < n; i++) {
        ck_assert_uint_eq(all[i].worker, 3);
        ck_assert_uint_eq(all[i].rank, 0);
        ck_assert_uint_eq(all[i].rank_worker, 1);
    }
    ck_assert_str_eq(mon_trace_worker_label(t, 3, label, sizeof label), "r0.w1");
    ck_assert_str_eq(mon_trace_worker_label(t, 2, label, sizeof label), "r1.w1");
    free(all);

    /* Both runs end: the merge ends, still on the provisional alignment. */
    snprintf(dir, sizeof dir, "%s/rank-0", top);
    mark_complete(dir);
    snprintf(dir, sizeof dir, "%s/rank-1", top);
    mark_complete(dir);
    ck_assert_int_eq(mon_trace_next(t, &ev), MON_TRACE_END);
    ck_assert(!mon_trace_live(t));
    ck_assert(a->provisional);
    mon_trace_close(t);

    /* Opened again, the finished trace is aligned in full. */
    ck_assert_int_eq(mon_trace_open_with(&t, top, &opt, err, sizeof err), 0);
    a = mon_trace_clock_alignment(t);
    ck_assert(!a->provisional);
    ck_assert_uint_eq(a->joined, 2);
    ck_assert(a->rank[1].has_end);
    ck_assert_uint_eq(a->messages, MESSAGES);
    all = read_all(t, &n, &end);
    ck_assert_int_eq(end, MON_TRACE_END);
    ck_assert_uint_eq(n, 18 + 2 * MESSAGES);
    ck_assert_str_eq(mon_trace_worker_label(t, 1, label, sizeof label), "r0.w1");
    free(all);
    mon_trace_close(t);
    fixture_rmdir(top);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("mon_ranks");
    TCase *tc = tcase_create("ranks");
    tcase_add_test(tc, numbering_and_labels);
    tcase_add_test(tc, linear_correction);
    tcase_add_test(tc, fix_up_without_samples);
    tcase_add_test(tc, missing_rank);
    tcase_add_test(tc, one_rank_directory_alone);
    tcase_add_test(tc, follow_live_alignment);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
