/*
 * test_mon_format.c - the trace format without a runtime: writer/reader
 * round trip of every event kind, packet boundaries, extended timestamps,
 * truncated and corrupted logs, a full disk, and the option parsing.
 */
#include <check.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mon.h"
#include "kit.h"
#include "mon_fixture.h"
#include "mon_reader.h"
#include "mon_writer_internal.h"

/* Read the whole trace into a malloc'ed array; *rc gets the final status. */
static mon_event *read_all(const char *dir, size_t *n, int *rc, char *msg, size_t msglen)
{
    mon_trace *t;
    char err[4608];
    ck_assert_msg(mon_trace_open(&t, dir, err, sizeof err) == 0, "open: %s", err);
    size_t cap = 0;
    mon_event *evs = NULL;
    *n = 0;
    mon_event ev;
    while ((*rc = mon_trace_next(t, &ev)) == MON_TRACE_EVENT) {
        ev.name = NULL; /* only valid until the next call */
        ck_assert_int_eq(KIT_PUSH(evs, *n, cap, ev), 0);
    }
    if (msg)
        snprintf(msg, msglen, "%s", mon_trace_error(t));
    mon_trace_close(t);
    return evs;
}

static const mon_event_kind expected_kinds[] = {
    MON_EV_RUN_START,      MON_EV_WORKER_START,   MON_EV_TASK_MAP,        MON_EV_TASK_CREATE,     MON_EV_TASK_DISPATCH,
    MON_EV_STREAM_OPEN,    MON_EV_STREAM_OPEN,     MON_EV_STREAM_READ,     MON_EV_COMPONENT_BEGIN, MON_EV_MESSAGE_READ,
    MON_EV_MESSAGE_WRITTEN, MON_EV_COMPONENT_END,  MON_EV_STREAM_WRITE,    MON_EV_STREAM_WAKE,
    MON_EV_CHANNEL_OPEN,   MON_EV_MESSAGE_SENT,    MON_EV_MESSAGE_RECEIVED, MON_EV_CHANNEL_BLOCK,
    MON_EV_STREAM_BLOCK,   MON_EV_CPU_TIME,        MON_EV_TASK_BLOCK,      MON_EV_WORKER_WAIT,
    MON_EV_WORKER_RESUME,
    MON_EV_TASK_DISPATCH,  MON_EV_TASK_YIELD,      MON_EV_STREAM_CLOSE,    MON_EV_TASK_LOAD,
    MON_EV_TASK_DESTROY,   MON_EV_WORKER_LOAD,     MON_EV_WORKER_END,
};

/* Check the fields of worker w's events (its sub-sequence of the merge). */
static void check_worker_events(const mon_event *all, size_t n, unsigned w)
{
    uint64_t o = 100u * w;
    size_t k = 0;
    const mon_event *prev = NULL;
    for (size_t i = 0; i < n; i++) {
        const mon_event *e = &all[i];
        if (e->worker != w)
            continue;
        ck_assert_uint_lt(k, sizeof expected_kinds / sizeof expected_kinds[0]);
        ck_assert_int_eq(e->kind, expected_kinds[k]);
        switch (e->kind) {
        case MON_EV_TASK_MAP:
            ck_assert_uint_eq(e->task, 1 + o);
            ck_assert_uint_eq(e->worker_mapped, w);
            break;
        case MON_EV_STREAM_OPEN:
            ck_assert_uint_eq(e->stream, 7 + o);
            ck_assert_uint_eq(e->task, e->write_end ? 3 + o : 1 + o);
            break;
        case MON_EV_STREAM_CLOSE:
            ck_assert_uint_eq(e->stream, 8 + o);
            ck_assert(e->write_end);
            break;
        case MON_EV_STREAM_WRITE:
            ck_assert_uint_eq(e->task, 1 + o);
            ck_assert_uint_eq(e->stream, 8 + o);
            break;
        case MON_EV_MESSAGE_READ:
            ck_assert_uint_eq(e->msg, mon_msg_id_make(w, 41));
            ck_assert_uint_eq(mon_msg_id_worker(e->msg), w);
            ck_assert_uint_eq(mon_msg_id_seq(e->msg), 41);
            break;
        case MON_EV_MESSAGE_WRITTEN:
            ck_assert_uint_eq(e->msg, mon_msg_id_make(w, 42));
            break;
        case MON_EV_CHANNEL_OPEN:
            ck_assert_uint_eq(e->task, 1 + o);
            ck_assert_uint_eq(e->channel, (uint64_t)w << 32 | 5);
            ck_assert_uint_eq(e->peer_rank, 1 - w);
            ck_assert(e->write_end == (w == 0));
            break;
        case MON_EV_CHANNEL_BLOCK:
            ck_assert_uint_eq(e->channel, (uint64_t)w << 32 | 5);
            ck_assert(e->empty == (w == 1));
            ck_assert_uint_eq(e->peer, 0); /* resolved only across the ranks of a merged trace */
            break;
        case MON_EV_MESSAGE_SENT:
            ck_assert_uint_eq(e->msg, mon_msg_id_make_at(3, w, 43));
            ck_assert_uint_eq(mon_msg_id_rank(e->msg), 3);
            ck_assert_uint_eq(mon_msg_id_worker(e->msg), w);
            ck_assert_uint_eq(mon_msg_id_seq(e->msg), 43);
            ck_assert_uint_eq(e->peer_rank, 1);
            break;
        case MON_EV_MESSAGE_RECEIVED:
            ck_assert_uint_eq(e->msg, mon_msg_id_make_at(2, w, 44));
            ck_assert_uint_eq(e->peer_rank, 2);
            break;
        case MON_EV_STREAM_WAKE:
            ck_assert_uint_eq(e->task, 1 + o);
            ck_assert_uint_eq(e->stream, 8 + o);
            ck_assert_uint_eq(e->peer, 2 + o);
            break;
        case MON_EV_STREAM_BLOCK:
            ck_assert_uint_eq(e->stream, 7 + o);
            ck_assert_uint_eq(e->peer, 3 + o);
            ck_assert(e->empty);
            ck_assert_uint_eq(e->time - prev->time, UINT64_C(1) << 27);
            break;
        case MON_EV_TASK_BLOCK:
            ck_assert_uint_eq(e->cause, MON_BLOCK_INPUT);
            break;
        case MON_EV_CPU_TIME:
            ck_assert_uint_eq(e->cpu_ns, 5000 + o);
            ck_assert_uint_eq(e->preemptions, 2 + w);
            ck_assert_uint_eq(e->time, prev->time); /* the block's time, as the monitor writes it */
            ck_assert_uint_eq(e->task, 0);
            break;
        case MON_EV_WORKER_RESUME:
            ck_assert_uint_eq(e->time - prev->time, 5000000000u);
            break;
        case MON_EV_TASK_LOAD:
            ck_assert_uint_eq(e->dispatches, 2);
            ck_assert_uint_eq(e->exec_ns, 1234 + o);
            break;
        case MON_EV_WORKER_LOAD:
            ck_assert_uint_eq(e->waits, 1);
            ck_assert_uint_eq(e->wait_ns, 5000000000u);
            ck_assert_uint_eq(e->busy_ns, 999 + o);
            break;
        case MON_EV_WORKER_END:
            ck_assert_uint_eq(e->time, UINT64_C(1) << 40);
            break;
        case MON_EV_WORKER_START:
            ck_assert_uint_eq(e->time, 1000001 + w * 10);
            break;
        case MON_EV_RUN_START:
            ck_assert_uint_eq(e->run, 1);
            ck_assert_uint_eq(e->task, 0);
            break;
        case MON_EV_WORKER_WAIT:
            ck_assert_uint_eq(e->task, 0);
            break;
        default:
            ck_assert_uint_eq(e->task, 1 + o);
            break;
        }
        prev = e;
        k++;
    }
    ck_assert_uint_eq(k, sizeof expected_kinds / sizeof expected_kinds[0]);
}

static void check_all_kinds(size_t packet_bytes)
{
    char dir[4096];
    fixture_tmpdir(dir, sizeof dir);
    ck_assert_int_eq(fixture_write_all_kinds(dir, packet_bytes), 0);
    size_t n;
    int rc;
    mon_event *evs = read_all(dir, &n, &rc, NULL, 0);
    ck_assert_int_eq(rc, MON_TRACE_END);
    ck_assert_uint_eq(n, FIXTURE_ALL_KINDS_EVENTS);
    for (size_t i = 1; i < n; i++)
        ck_assert_uint_le(evs[i - 1].time, evs[i].time);
    check_worker_events(evs, n, 0);
    check_worker_events(evs, n, 1);
    free(evs);
    fixture_rmdir(dir);
}

START_TEST(round_trip_every_kind) { check_all_kinds(0); }
END_TEST

/* mon_event_bytes (the writer's count of events it could not write) walks
 * every event of every kind to its end. */
START_TEST(event_lengths_walk_every_kind)
{
    char dir[4096], p[4300];
    fixture_tmpdir(dir, sizeof dir);
    ck_assert_int_eq(fixture_write_all_kinds(dir, 0), 0);
    for (unsigned w = 0; w < 2; w++) {
        fixture_log_path(dir, w, p, sizeof p);
        FILE *f = fopen(p, "rb");
        ck_assert_ptr_nonnull(f);
        static uint8_t buf[1 << 16];
        size_t len = fread(buf, 1, sizeof buf, f);
        fclose(f);
        size_t end = (size_t)(mon_get_u64(buf + MON_OFF_CONTENT_SIZE) / 8);
        ck_assert_uint_eq(end, len); /* one packet, padding cut at the end */
        size_t events = 0;
        for (size_t at = MON_PACKET_PREAMBLE_BYTES; at < end; events++) {
            size_t n = mon_event_bytes(buf + at, end - at);
            ck_assert_uint_gt(n, 0);
            ck_assert_uint_eq(mon_event_bytes(buf + at, n - 1), 0); /* one byte short */
            at += n;
        }
        ck_assert_uint_eq(events, FIXTURE_ALL_KINDS_EVENTS / 2);
    }
    fixture_rmdir(dir);
}
END_TEST

START_TEST(round_trip_tiny_packets) { check_all_kinds(64); /* clamped to the minimum */ }
END_TEST

START_TEST(task_map_name_survives_the_merge)
{
    char dir[4096], err[4608];
    fixture_tmpdir(dir, sizeof dir);
    ck_assert_int_eq(fixture_write_all_kinds(dir, 0), 0);
    mon_trace *t;
    ck_assert_int_eq(mon_trace_open(&t, dir, err, sizeof err), 0);
    mon_event ev;
    int names = 0;
    while (mon_trace_next(t, &ev) == MON_TRACE_EVENT) {
        if (ev.kind == MON_EV_TASK_MAP) {
            ck_assert_str_eq(ev.name, ev.worker ? "S1:P1:box.b" : "S1:P0:box.a");
            names++;
        }
    }
    ck_assert_int_eq(names, 2);
    ck_assert_uint_eq(mon_trace_num_workers(t), 2);
    ck_assert_uint_eq(mon_trace_events_discarded(t), 0);
    ck_assert_uint_gt(mon_trace_clock_offset_ns(t), 0);
    mon_trace_close(t);
    fixture_rmdir(dir);
}
END_TEST

START_TEST(many_events_merge_in_order_and_stay_small)
{
    char dir[4096];
    fixture_tmpdir(dir, sizeof dir);
    const unsigned workers = 3, per = 20001;
    ck_assert_int_eq(fixture_write_many(dir, workers, per, 4096), 0);
    size_t n;
    int rc;
    mon_event *evs = read_all(dir, &n, &rc, NULL, 0);
    ck_assert_int_eq(rc, MON_TRACE_END);
    ck_assert_uint_eq(n, (size_t)workers * per);
    size_t per_worker[3] = {0, 0, 0};
    for (size_t i = 0; i < n; i++) {
        if (i)
            ck_assert_uint_le(evs[i - 1].time, evs[i].time);
        per_worker[evs[i].worker]++;
    }
    long bytes = 0;
    for (unsigned w = 0; w < workers; w++) {
        ck_assert_uint_eq(per_worker[w], per);
        char p[4300];
        fixture_log_path(dir, w, p, sizeof p);
        bytes += fixture_file_size(p);
    }
    /* The format's promise (issue 12): at most 8 bytes per event on
     * average, packet headers included (here: 2-byte headers, task ids up
     * to 20001 in 2 or 4 bytes). */
    ck_assert_msg((double)bytes / (double)n <= 8.0, "%.2f bytes per event",
                  (double)bytes / (double)n);
    free(evs);
    fixture_rmdir(dir);
}
END_TEST

START_TEST(truncated_log_is_reported_with_what_was_read)
{
    char dir[4096], p[4300], msg[4608];
    fixture_tmpdir(dir, sizeof dir);
    ck_assert_int_eq(fixture_write_many(dir, 2, 5000, 4096), 0);
    fixture_log_path(dir, 1, p, sizeof p);
    long size = fixture_file_size(p);
    ck_assert_int_eq(truncate(p, size - 10), 0);
    size_t n;
    int rc;
    mon_event *evs = read_all(dir, &n, &rc, msg, sizeof msg);
    ck_assert_int_eq(rc, MON_TRACE_TRUNCATED);
    ck_assert_msg(strstr(msg, "worker-1") && strstr(msg, "truncated") &&
                      strstr(msg, "events of it read"),
                  "message: %s", msg);
    char at[64];
    snprintf(at, sizeof at, "ends at byte %ld", size - 10);
    ck_assert_msg(strstr(msg, at), "message: %s", msg);
    /* Everything before the cut is delivered: worker 0 whole, worker 1
     * all but its last event or two. */
    ck_assert_uint_lt(n, 10000);
    ck_assert_uint_ge(n, 10000 - 2);
    free(evs);
    fixture_rmdir(dir);
}
END_TEST

START_TEST(truncated_inside_packet_header)
{
    char dir[4096], p[4300], msg[4608];
    fixture_tmpdir(dir, sizeof dir);
    ck_assert_int_eq(fixture_write_many(dir, 1, 2000, 1024), 0);
    fixture_log_path(dir, 0, p, sizeof p);
    /* Cut in the middle of the second packet's preamble. */
    int fd = open(p, O_RDONLY);
    uint8_t pre[MON_PACKET_PREAMBLE_BYTES];
    ck_assert_int_eq(read(fd, pre, sizeof pre), (ssize_t)sizeof pre);
    close(fd);
    uint64_t first = mon_get_u64(pre + MON_OFF_PACKET_SIZE) / 8;
    ck_assert_int_eq(truncate(p, (off_t)first + 20), 0);
    size_t n;
    int rc;
    mon_event *evs = read_all(dir, &n, &rc, msg, sizeof msg);
    ck_assert_int_eq(rc, MON_TRACE_TRUNCATED);
    ck_assert_msg(strstr(msg, "0 events of it read"), "message: %s", msg);
    ck_assert_uint_gt(n, 0);
    free(evs);
    fixture_rmdir(dir);
}
END_TEST

/* Overwrite one byte of worker w's log. */
static void poke(const char *dir, unsigned w, long off, uint8_t value)
{
    char p[4300];
    fixture_log_path(dir, w, p, sizeof p);
    int fd = open(p, O_WRONLY);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(pwrite(fd, &value, 1, off), 1);
    close(fd);
}

START_TEST(corrupt_event_id_names_file_and_offset)
{
    char dir[4096], err[4608];
    fixture_tmpdir(dir, sizeof dir);
    ck_assert_int_eq(fixture_write_many(dir, 2, 100, 0), 0);
    /* First event header: id in the low 5 bits of the byte after the
     * preamble; 30 is unused. */
    poke(dir, 0, MON_PACKET_PREAMBLE_BYTES, 30);
    mon_trace *t;
    ck_assert_int_eq(mon_trace_open(&t, dir, err, sizeof err), -1);
    char want[64];
    snprintf(want, sizeof want, "worker-0: byte %d: unknown event id 30", MON_PACKET_PREAMBLE_BYTES);
    ck_assert_msg(strstr(err, want), "message: %s", err);
    fixture_rmdir(dir);
}
END_TEST

START_TEST(corrupt_second_packet_magic_is_an_error_after_the_good_events)
{
    char dir[4096], p[4300], msg[4608];
    fixture_tmpdir(dir, sizeof dir);
    ck_assert_int_eq(fixture_write_many(dir, 1, 2000, 1024), 0);
    fixture_log_path(dir, 0, p, sizeof p);
    int fd = open(p, O_RDONLY);
    uint8_t pre[MON_PACKET_PREAMBLE_BYTES];
    ck_assert_int_eq(read(fd, pre, sizeof pre), (ssize_t)sizeof pre);
    close(fd);
    long second = (long)(mon_get_u64(pre + MON_OFF_PACKET_SIZE) / 8);
    poke(dir, 0, second + 1, 0x00);
    size_t n;
    int rc;
    mon_event *evs = read_all(dir, &n, &rc, msg, sizeof msg);
    ck_assert_int_eq(rc, MON_TRACE_ERROR);
    char want[64];
    snprintf(want, sizeof want, "worker-0: byte %ld: bad packet magic", second);
    ck_assert_msg(strstr(msg, want), "message: %s", msg);
    ck_assert_uint_gt(n, 0);
    free(evs);
    fixture_rmdir(dir);
}
END_TEST

START_TEST(corrupt_content_size_is_an_error)
{
    char dir[4096], err[4608];
    fixture_tmpdir(dir, sizeof dir);
    ck_assert_int_eq(fixture_write_many(dir, 1, 100, 0), 0);
    poke(dir, 0, MON_OFF_CONTENT_SIZE + 7, 0x7f);
    mon_trace *t;
    ck_assert_int_eq(mon_trace_open(&t, dir, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "worker-0: byte 24: impossible content_size"), "message: %s", err);
    fixture_rmdir(dir);
}
END_TEST

START_TEST(not_a_trace_directory)
{
    char dir[4096], err[4608];
    fixture_tmpdir(dir, sizeof dir);
    mon_trace *t;
    ck_assert_int_eq(mon_trace_open(&t, dir, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "metadata"), "message: %s", err);
    fixture_rmdir(dir);
}
END_TEST

START_TEST(full_disk_counts_lost_events)
{
    int fd = open("/dev/full", O_WRONLY);
    ck_assert_int_ge(fd, 0);
    char err[512];
    mon_writer *w = mon_writer_open_fd(fd, "/dev/full", 0, 0, err, sizeof err);
    ck_assert_ptr_nonnull(w);
    for (unsigned i = 0; i < 10; i++)
        mon_emit_task(w, MON_ID_TASK_DISPATCH, i, i);
    mon_writer_flush(w);
    ck_assert_uint_eq(mon_writer_lost(w), 10);
    mon_emit_task(w, MON_ID_TASK_DISPATCH, 11, 11);
    ck_assert_uint_eq(mon_writer_events(w), 11);
    ck_assert_int_eq(mon_writer_close(w), -1);
}
END_TEST

START_TEST(crash_flush_writes_a_readable_packet)
{
    char dir[4096], ctf[4200], err[4608];
    fixture_tmpdir(dir, sizeof dir);
    ck_assert_int_eq(fixture_trace_dir(dir, 1, MON_FLAG_TIMESTAMPS | MON_FLAG_TASK, ctf, sizeof ctf),
                     0);
    mon_writer *w = mon_writer_open(ctf, 0, 0, err, sizeof err);
    for (unsigned i = 0; i < 7; i++)
        mon_emit_task(w, MON_ID_TASK_YIELD, 100 + i, i);
    mon_writer_crash_flush(w);
    mon_writer_close(w); /* nothing left: the crash flush took it */
    size_t n;
    int rc;
    mon_event *evs = read_all(dir, &n, &rc, NULL, 0);
    ck_assert_int_eq(rc, MON_TRACE_END);
    ck_assert_uint_eq(n, 7);
    free(evs);
    fixture_rmdir(dir);
}
END_TEST

START_TEST(flags_parse_and_format)
{
    char err[256], buf[16];
    unsigned f = 0;
    ck_assert_int_eq(mon_flags_parse("A", &f, err, sizeof err), 0);
    ck_assert_uint_eq(f, MON_FLAG_ALL);
    mon_flags_format(f, buf, sizeof buf);
    ck_assert_str_eq(buf, "mtWTSMLC");
    ck_assert_int_eq(mon_flags_parse("tT", &f, err, sizeof err), 0);
    ck_assert_uint_eq(f, MON_FLAG_TIMESTAMPS | MON_FLAG_TASK);
    ck_assert_int_eq(mon_flags_parse("tX", &f, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "unknown monitoring flag 'X'") && !strchr(err, '\n'), "%s", err);
    ck_assert_int_eq(mon_flags_parse("", &f, err, sizeof err), -1);
}
END_TEST

START_TEST(parse_args_removes_our_options)
{
    char *argv[] = {"prog", "-m", "TS", "--mon-tasks", "^box", "keep", "--mon-dir=/tmp/x",
                    "--mon-tasks=a|b", "--", "-m", "z", NULL};
    int argc = 11;
    mon_options o;
    char err[256];
    ck_assert_int_eq(mon_parse_args(&argc, argv, &o, err, sizeof err), 0);
    ck_assert_int_eq(argc, 5);
    ck_assert_str_eq(argv[0], "prog");
    ck_assert_str_eq(argv[1], "keep");
    ck_assert_str_eq(argv[2], "--");
    ck_assert_str_eq(argv[3], "-m");
    ck_assert_str_eq(argv[4], "z");
    ck_assert_ptr_null(argv[5]);
    ck_assert_uint_eq(o.flags, MON_FLAG_TASK | MON_FLAG_STREAM);
    ck_assert_str_eq(o.dir, "/tmp/x");
    ck_assert_str_eq(o.task_regex, "a|b");
}
END_TEST

/* Options whose trace would be empty or timeless get a warning. */
START_TEST(options_that_give_empty_traces_warn)
{
    char buf[256];
    mon_options o = mon_options_default();
    ck_assert_ptr_null(mon_options_warning(&o, buf, sizeof buf));
    unsigned fine[] = {MON_FLAG_ALL, MON_FLAG_MAP, MON_FLAG_LOAD,
                       MON_FLAG_TIMESTAMPS | MON_FLAG_WORKER};
    for (size_t i = 0; i < sizeof fine / sizeof fine[0]; i++) {
        o.flags = fine[i];
        ck_assert_ptr_null(mon_options_warning(&o, buf, sizeof buf));
    }
    o.flags = MON_FLAG_TIMESTAMPS;
    ck_assert_ptr_nonnull(mon_options_warning(&o, buf, sizeof buf));
    ck_assert_msg(strstr(buf, "-m t records nothing"), "%s", buf);
    o.flags = MON_FLAG_WORKER | MON_FLAG_TASK;
    ck_assert_ptr_nonnull(mon_options_warning(&o, buf, sizeof buf));
    ck_assert_msg(strstr(buf, "without times") && strstr(buf, "-m tWT"), "%s", buf);
    o.flags = 0;
    o.dir = "trace";
    ck_assert_ptr_nonnull(mon_options_warning(&o, buf, sizeof buf));
    ck_assert_msg(strstr(buf, "--mon-dir has no effect without -m"), "%s", buf);
    o.dir = NULL;
    o.task_regex = "box";
    ck_assert_ptr_nonnull(mon_options_warning(&o, buf, sizeof buf));
    ck_assert_msg(strstr(buf, "--mon-tasks has no effect without -m") && !strchr(buf, '\n'),
                  "%s", buf);
}
END_TEST

START_TEST(parse_args_errors_are_one_line)
{
    char err[256];
    mon_options o;
    char *a1[] = {"prog", "-mTQ", NULL};
    int c1 = 2;
    ck_assert_int_eq(mon_parse_args(&c1, a1, &o, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "'Q'") && !strchr(err, '\n'), "%s", err);
    char *a2[] = {"prog", "-m", NULL};
    int c2 = 2;
    ck_assert_int_eq(mon_parse_args(&c2, a2, &o, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "-m needs a value"), "%s", err);
    char *a3[] = {"prog", "--mon-tasks", "box(", NULL};
    int c3 = 3;
    ck_assert_int_eq(mon_parse_args(&c3, a3, &o, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "--mon-tasks: bad pattern 'box(' at offset 4"), "%s", err);
    char *a4[] = {"prog", "--mon-dir", NULL};
    int c4 = 2;
    ck_assert_int_eq(mon_parse_args(&c4, a4, &o, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "--mon-dir needs a value"), "%s", err);
    /* the old spelling -o DIR still works (with a warning), for one release */
    char *a5[] = {"prog", "-m", "A", "-o", "old", "x", NULL};
    int c5 = 6;
    ck_assert_int_eq(mon_parse_args(&c5, a5, &o, err, sizeof err), 0);
    ck_assert_str_eq(o.dir, "old");
    ck_assert_int_eq(c5, 2);
    ck_assert_str_eq(a5[1], "x");
}
END_TEST

START_TEST(event_format_is_one_line)
{
    mon_event e;
    memset(&e, 0, sizeof e);
    e.kind = MON_EV_STREAM_BLOCK;
    e.time = 42;
    e.worker = 3;
    e.task = 5;
    e.stream = 6;
    e.peer = 7;
    e.empty = true;
    char buf[256];
    mon_event_format(&e, buf, sizeof buf);
    ck_assert_str_eq(buf, "42 w3 stream_block task=5 stream=6 peer=7 state=empty");
    e.kind = MON_EV_MESSAGE_WRITTEN;
    e.msg = mon_msg_id_make(2, 9);
    mon_event_format(&e, buf, sizeof buf);
    ck_assert_str_eq(buf, "42 w3 message_written task=5 msg=2.9");
}
END_TEST

/* What mon_event_format printed with snprintf before it was written by
 * hand (for speed): the text must not change. */
static int ref_format(const mon_event *e, char *buf, size_t len)
{
    static const char *const causes[] = {"input", "output", "any"};
    char head[96], id[48], chan[48], where[32];
    if (e->ranked)
        snprintf(where, sizeof where, "r%u.w%u", e->rank, e->rank_worker);
    else
        snprintf(where, sizeof where, "w%u", e->worker);
    snprintf(head, sizeof head, "%" PRIu64 " %s %s", e->time, where, mon_event_kind_name(e->kind));
    snprintf(chan, sizeof chan, "%" PRIu64 ".%" PRIu64, e->channel >> 32, e->channel & 0xffffffffu);
    switch (e->kind) {
    case MON_EV_TASK_MAP:
        return snprintf(buf, len, "%s task=%" PRIu64 " worker=%u name=%s", head, e->task,
                        e->worker_mapped, e->name ? e->name : "");
    case MON_EV_TASK_BLOCK:
        return snprintf(buf, len, "%s task=%" PRIu64 " cause=%s", head, e->task,
                        e->cause <= 2 ? causes[e->cause] : "?");
    case MON_EV_TASK_CREATE:
    case MON_EV_TASK_DISPATCH:
    case MON_EV_TASK_YIELD:
    case MON_EV_TASK_DESTROY:
    case MON_EV_COMPONENT_BEGIN:
    case MON_EV_COMPONENT_END:
        return snprintf(buf, len, "%s task=%" PRIu64, head, e->task);
    case MON_EV_STREAM_OPEN:
    case MON_EV_STREAM_CLOSE:
        return snprintf(buf, len, "%s task=%" PRIu64 " stream=%" PRIu64 " mode=%s", head, e->task,
                        e->stream, e->write_end ? "write" : "read");
    case MON_EV_STREAM_READ:
    case MON_EV_STREAM_WRITE:
        return snprintf(buf, len, "%s task=%" PRIu64 " stream=%" PRIu64, head, e->task, e->stream);
    case MON_EV_STREAM_BLOCK:
        return snprintf(buf, len, "%s task=%" PRIu64 " stream=%" PRIu64 " peer=%" PRIu64 " state=%s",
                        head, e->task, e->stream, e->peer, e->empty ? "empty" : "full");
    case MON_EV_STREAM_WAKE:
        return snprintf(buf, len, "%s waker=%" PRIu64 " stream=%" PRIu64 " woken=%" PRIu64, head,
                        e->task, e->stream, e->peer);
    case MON_EV_MESSAGE_READ:
    case MON_EV_MESSAGE_WRITTEN:
        return snprintf(buf, len, "%s task=%" PRIu64 " msg=%s", head, e->task,
                        mon_msg_id_format(e->msg, id, sizeof id));
    case MON_EV_MESSAGE_SENT:
    case MON_EV_MESSAGE_RECEIVED:
        return snprintf(buf, len, "%s task=%" PRIu64 " msg=%s %s=%" PRIu32, head, e->task,
                        mon_msg_id_format(e->msg, id, sizeof id),
                        e->kind == MON_EV_MESSAGE_SENT ? "to" : "from", e->peer_rank);
    case MON_EV_CHANNEL_OPEN:
        return snprintf(buf, len, "%s task=%" PRIu64 " channel=%s end=%s rank=%" PRIu32, head,
                        e->task, chan, e->write_end ? "sending" : "receiving", e->peer_rank);
    case MON_EV_CHANNEL_BLOCK:
        return snprintf(buf, len, "%s task=%" PRIu64 " channel=%s peer=%" PRIu64 " state=%s",
                        head, e->task, chan, e->peer, e->empty ? "empty" : "full");
    case MON_EV_TASK_LOAD:
        return snprintf(buf, len, "%s task=%" PRIu64 " dispatches=%" PRIu32 " exec_ns=%" PRIu64,
                        head, e->task, e->dispatches, e->exec_ns);
    case MON_EV_WORKER_LOAD:
        return snprintf(buf, len, "%s waits=%" PRIu32 " wait_ns=%" PRIu64 " busy_ns=%" PRIu64, head,
                        e->waits, e->wait_ns, e->busy_ns);
    case MON_EV_RUN_START:
        return snprintf(buf, len, "%s run=%" PRIu32, head, e->run);
    case MON_EV_CPU_TIME:
        return snprintf(buf, len, "%s cpu_ns=%" PRIu64 " preemptions=%" PRIu32, head, e->cpu_ns,
                        e->preemptions);
    case MON_EV_MONITOR_CONTROL: {
        char letters[9];
        size_t n = 0;
        for (unsigned i = 0; i < 8; i++)
            if (e->classes & 1u << i)
                letters[n++] = "mtWTSMLC"[i];
        if (!n)
            letters[n++] = '-';
        letters[n] = '\0';
        if (!e->filtered)
            return snprintf(buf, len, "%s classes=%s", head, letters);
        return snprintf(buf, len, "%s classes=%s tasks=%s", head, letters, e->name ? e->name : "");
    }
    default:
        return snprintf(buf, len, "%s", head);
    }
}

/* Random events of every kind (and one beyond), numbers of every length:
 * the same text as with snprintf, also when cut short. */
START_TEST(event_format_matches_printf)
{
    uint64_t x = UINT64_C(0x9e3779b97f4a7c15);
    char name[MON_NAME_MAX + 1];
    for (int i = 0; i < 20000; i++) {
        uint64_t v[12];
        for (int k = 0; k < 12; k++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            v[k] = x >> (x % 64); /* any magnitude */
        }
        size_t nlen = (size_t)(v[11] % (MON_NAME_MAX + 1));
        for (size_t k = 0; k < nlen; k++)
            name[k] = (char)('a' + (k + v[10]) % 26);
        name[nlen] = '\0';
        mon_event e = {.kind = (mon_event_kind)(i % (MON_EV_KIND_COUNT + 1)),
                       .worker = (unsigned)v[0],
                       .run = (uint32_t)v[1],
                       .time = v[2],
                       .task = v[3],
                       .stream = v[4],
                       .peer = v[5],
                       .msg = v[6],
                       .worker_mapped = (unsigned)v[7],
                       .cause = (unsigned)(v[8] % 4),
                       .write_end = v[9] & 1,
                       .empty = v[9] & 2,
                       .dispatches = (uint32_t)v[7],
                       .waits = (uint32_t)v[8],
                       .exec_ns = v[9],
                       .wait_ns = v[10],
                       .busy_ns = v[11],
                       .cpu_ns = v[10] ^ v[3],
                       .preemptions = (uint32_t)v[2],
                       .name = i % 7 ? name : NULL,
                       .channel = v[4] ^ v[6],
                       .peer_rank = (uint32_t)v[5],
                       .ranked = i % 3 == 0,
                       .rank = (unsigned)v[1] % 4096,
                       .rank_worker = (unsigned)v[8],
                       .classes = (unsigned)v[3] & 0x7fu,
                       .filtered = v[9] & 4};
        char got[512], want[512];
        size_t len = i % 5 ? sizeof got : (size_t)(v[5] % 40);
        int n = mon_event_format(&e, got, len);
        int m = ref_format(&e, want, len);
        ck_assert_int_eq(n, m);
        if (len)
            ck_assert_str_eq(got, want);
    }
}
END_TEST

/* ---------------------------------------------------------------------------
 * The trace clock: TSC ticks in the logs, ns from the reader
 * ------------------------------------------------------------------------- */

/* floor(ticks * 10^9 / freq) the slow, obviously right way. */
static uint64_t ref_ticks_to_ns(uint64_t ticks, uint64_t freq)
{
    unsigned __int128 v = (unsigned __int128)ticks * MON_NS_PER_S / freq;
    return v > UINT64_MAX ? UINT64_MAX : (uint64_t)v;
}

START_TEST(ticks_to_ns_is_exact_for_long_runs)
{
    const uint64_t freqs[] = {MON_NS_PER_S, UINT64_C(2596138757), UINT64_C(3000000000),
                              UINT64_C(999999937), MON_CLOCK_FREQ_MIN, MON_CLOCK_FREQ_MAX};
    uint64_t x = UINT64_C(0x9e3779b97f4a7c15);
    for (size_t f = 0; f < sizeof freqs / sizeof freqs[0]; f++) {
        /* ... and where the result just fits in 64 bits or just does not. */
        uint64_t top = UINT64_MAX / MON_NS_PER_S;
        const uint64_t edge[] = {0, 1, freqs[f] - 1, freqs[f], freqs[f] + 1, UINT64_C(1) << 27,
                                 UINT64_C(1) << 63, UINT64_MAX - 1, UINT64_MAX,
                                 top * 1000,
                                 top * 1000 + 709, top * 1000 + 710, top * 1000 + 999};
        for (size_t i = 0; i < sizeof edge / sizeof edge[0]; i++)
            ck_assert_uint_eq(mon_ticks_to_ns(edge[i], freqs[f]), ref_ticks_to_ns(edge[i], freqs[f]));
        uint64_t prev = 0, prev_ns = 0;
        for (int i = 0; i < 100000; i++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17; /* xorshift: spread over all magnitudes */
            uint64_t t = x >> (i % 64);
            ck_assert_uint_eq(mon_ticks_to_ns(t, freqs[f]), ref_ticks_to_ns(t, freqs[f]));
            /* Monotone: the merge and the "times never decrease" rule rely on it. */
            uint64_t ns = mon_ticks_to_ns(prev + (uint64_t)i, freqs[f]);
            ck_assert_uint_ge(ns, prev_ns);
            prev_ns = ns;
            prev = prev + (uint64_t)i;
        }
    }
    /* Ten years of a 3 GHz TSC. */
    uint64_t ten_years = UINT64_C(3000000000) * 86400 * 3653;
    ck_assert_uint_eq(mon_ticks_to_ns(ten_years, UINT64_C(3000000000)),
                      UINT64_C(86400) * 3653 * MON_NS_PER_S);
}
END_TEST

/* A trace on a made-up 2.596 GHz TSC clock. */
static void tsc_trace_dir(const char *dir, mon_run_info *info, char *ctf, size_t len)
{
    static char *const argv[] = {"tsc-fixture", NULL};
    memset(info, 0, sizeof *info);
    info->argc = 1;
    info->argv = argv;
    info->flags = MON_FLAG_TIMESTAMPS | MON_FLAG_TASK; /* dispatches only, no worker_end */
    info->host = "fixture-host";
    info->workers = 2;
    info->clock.tsc = true;
    info->clock.freq = UINT64_C(2596138757);
    info->clock.resolution_ns = 1;
    info->clock.precision_ticks = 30;
    mon_clock_set_offset(&info->clock, UINT64_C(1795242214611833011), UINT64_C(8274731832874));
    snprintf(info->clock.why, sizeof info->clock.why, "test");
    char err[512];
    ck_assert_msg(mon_trace_dir_create(dir, info, ctf, len, err, sizeof err) == 0, "%s", err);
}

START_TEST(tsc_ticks_read_back_as_exact_ns)
{
    char dir[4096], ctf[4200], err[512];
    fixture_tmpdir(dir, sizeof dir);
    mon_run_info info;
    tsc_trace_dir(dir, &info, ctf, sizeof ctf);
    const uint64_t f = info.clock.freq, start = info.clock.start_ticks;
    /* Two ticks after start + x that fall into the same ns, to see that the
     * merge follows ticks, not the rounded ns. */
    uint64_t x = 1000;
    while (ref_ticks_to_ns(start + x + 1, f) != ref_ticks_to_ns(start + x + 2, f))
        x++;
    /* Steps at each header form's limits: the largest step of the 2-, 3-
     * and 4-byte headers and the smallest that needs the next one. */
    const uint64_t b = start + x + 2, s9 = UINT64_C(1) << 9, s17 = UINT64_C(1) << 17,
                   s25 = UINT64_C(1) << 25;
    const uint64_t w0[] = {start,
                           b,
                           b + (s9 - 1),
                           b + (s9 - 1) + s9,
                           b + (s9 - 1) + s9 + (s17 - 1),
                           b + (s9 - 1) + s9 + (s17 - 1) + s17,
                           b + (s9 - 1) + s9 + (s17 - 1) + s17 + (s25 - 1),
                           b + (s9 - 1) + s9 + (s17 - 1) + s17 + (s25 - 1) + s25, /* full */
                           start + f * 3600 * 24,                    /* a day later */
                           (UINT64_C(1) << 62) + 12345};             /* ~56 years of ticks */
    const uint64_t w1[] = {start + 1, start + x + 1, start + f * 3600 * 24 + 1};
    const uint64_t *ticks[2] = {w0, w1};
    const size_t counts[2] = {sizeof w0 / sizeof w0[0], sizeof w1 / sizeof w1[0]};
    for (unsigned w = 0; w < 2; w++) {
        mon_writer *wr = mon_writer_open(ctf, w, 0, err, sizeof err);
        ck_assert_msg(wr != NULL, "%s", err);
        for (size_t i = 0; i < counts[w]; i++)
            mon_emit_task(wr, MON_ID_TASK_DISPATCH, ticks[w][i], 100 * w + i);
        ck_assert_int_eq(mon_writer_close(wr), 0);
    }
    size_t n;
    int rc;
    mon_event *evs = read_all(dir, &n, &rc, NULL, 0);
    ck_assert_int_eq(rc, MON_TRACE_END);
    ck_assert_uint_eq(n, counts[0] + counts[1]);
    /* The merged order, by ticks: (worker, index). */
    const unsigned order[][2] = {{0, 0}, {1, 0}, {1, 1}, {0, 1}, {0, 2}, {0, 3}, {0, 4},
                                 {0, 5}, {0, 6}, {0, 7}, {0, 8}, {1, 2}, {0, 9}};
    ck_assert_uint_eq(sizeof order / sizeof order[0], n);
    for (size_t i = 0; i < n; i++) {
        unsigned w = order[i][0], k = order[i][1];
        ck_assert_uint_eq(evs[i].worker, w);
        ck_assert_uint_eq(evs[i].task, 100 * w + k);
        ck_assert_uint_eq(evs[i].time, ref_ticks_to_ns(ticks[w][k], f));
    }
    /* Same ns, different ticks: worker 1's earlier tick comes first. */
    ck_assert_uint_eq(evs[2].time, evs[3].time);
    free(evs);

    mon_trace *t;
    ck_assert_int_eq(mon_trace_open(&t, dir, err, sizeof err), 0);
    ck_assert_uint_eq(mon_trace_clock_freq(t), f);
    ck_assert_uint_eq(mon_trace_clock_offset_ns(t), info.clock.offset_ns);
    mon_trace_close(t);
    /* The start tick is the wall-clock start (to the ns of rounding). */
    uint64_t wall = ref_ticks_to_ns(start, f) + info.clock.offset_ns;
    uint64_t want = info.clock.wall_start_ns;
    ck_assert_msg(wall + 2 >= want && wall <= want + 2, "wall %llu, start %llu",
                  (unsigned long long)wall, (unsigned long long)want);
    fixture_rmdir(dir);
}
END_TEST

/* The text of a small file (a static buffer: until the next call). */
static const char *read_text(const char *path)
{
    static char text[65536];
    FILE *f = fopen(path, "r");
    ck_assert_ptr_nonnull(f);
    size_t len = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[len] = '\0';
    return text;
}

/* Write path anew: text up to at, then middle, then rest (the part of
 * text that follows what middle replaces). */
static void write_around(const char *path, const char *text, const char *at, const char *middle,
                         const char *rest)
{
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fprintf(f, "%.*s%s%s", (int)(at - text), text, middle, rest);
    ck_assert_int_eq(fclose(f), 0);
}

START_TEST(unsupported_clock_frequency_is_rejected)
{
    char dir[4096], ctf[4200], err[4608], path[4300];
    fixture_tmpdir(dir, sizeof dir);
    mon_run_info info;
    tsc_trace_dir(dir, &info, ctf, sizeof ctf);
    snprintf(path, sizeof path, "%s/metadata", ctf);
    const char *text = read_text(path);
    const char *at = strstr(text, "\tfreq = ");
    ck_assert_ptr_nonnull(at);
    write_around(path, text, at, "\tfreq = 0;", strchr(at, '\n'));
    mon_trace *t;
    ck_assert_int_eq(mon_trace_open(&t, dir, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "unsupported clock frequency 0 Hz"), "message: %s", err);
    fixture_rmdir(dir);
}
END_TEST

/* Replace the first line of DIR/ctf/metadata containing `key` with `line`. */
static void metadata_set_line(const char *dir, const char *key, const char *line)
{
    char path[4300];
    snprintf(path, sizeof path, "%s/ctf/metadata", dir);
    const char *text = read_text(path);
    const char *at = strstr(text, key);
    ck_assert_ptr_nonnull(at);
    while (at > text && at[-1] != '\n')
        at--;
    write_around(path, text, at, line, strchr(at, '\n'));
}

/* The reader reads formats 3.1 and 3.2 (3.2 only adds to 3.1): an older
 * trace is refused by name, with what to do about it. */
START_TEST(older_format_is_refused_by_name)
{
    char dir[4096], err[4608];
    fixture_tmpdir(dir, sizeof dir);
    ck_assert_int_eq(fixture_write_all_kinds(dir, 0), 0);
    mon_trace *t;
    metadata_set_line(dir, "format_version", "\tformat_version = \"3.1\";");
    ck_assert_int_eq(mon_trace_open(&t, dir, err, sizeof err), 0);
    mon_trace_close(t);
    metadata_set_line(dir, "format_version", "\tformat_version = \"3.0\";");
    ck_assert_int_eq(mon_trace_open(&t, dir, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "metadata: trace format 3.0, but this reader reads formats 3.1 and "
                              "3.2 only") &&
                      strstr(err, "babeltrace2"),
                  "message: %s", err);
    /* Format 1.0 metadata had no format_version. */
    metadata_set_line(dir, "format_version", "");
    ck_assert_int_eq(mon_trace_open(&t, dir, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "trace format before 2.0"), "message: %s", err);
    fixture_rmdir(dir);
}
END_TEST

/* Worker w's "bytes" in DIR/run.json made `bytes` (the log's new size),
 * when run.json lists the logs. */
static void run_json_set_bytes(const char *dir, unsigned w, long bytes)
{
    char path[4300], key[64], number[32];
    snprintf(path, sizeof path, "%s/run.json", dir);
    const char *text = read_text(path);
    snprintf(key, sizeof key, "{\"worker\": %u, ", w);
    const char *at = strstr(text, key);
    if (!at)
        return; /* an unfinished run's run.json lists no logs */
    at = strstr(at, "\"bytes\": ");
    ck_assert_ptr_nonnull(at);
    at += strlen("\"bytes\": ");
    snprintf(number, sizeof number, "%ld", bytes);
    write_around(path, text, at, number, at + strspn(at, "0123456789"));
}

/* The trace in dir as format 3.1 wrote it: each packet without its run id
 * (the last field of the 3.2 packet context), metadata and run.json
 * naming 3.1 and the logs' sizes. */
static void as_format_3_1(const char *dir)
{
    char path[4300];
    for (unsigned w = 0;; w++) {
        fixture_log_path(dir, w, path, sizeof path);
        long size = fixture_file_size(path);
        if (size < 0)
            break;
        uint8_t *in = malloc((size_t)size + 1), *out = malloc((size_t)size + 1);
        ck_assert(in && out);
        FILE *f = fopen(path, "rb");
        ck_assert_uint_eq(fread(in, 1, (size_t)size, f), (size_t)size);
        fclose(f);
        size_t to = 0;
        for (size_t at = 0; at + MON_PACKET_PREAMBLE_BYTES <= (size_t)size;) {
            uint64_t content = mon_get_u64(in + at + MON_OFF_CONTENT_SIZE) / 8;
            uint64_t packet = mon_get_u64(in + at + MON_OFF_PACKET_SIZE) / 8;
            size_t have = (size_t)size - at < packet ? (size_t)size - at : (size_t)packet;
            memcpy(out + to, in + at, MON_OFF_RUN_ID);
            memcpy(out + to + MON_OFF_RUN_ID, in + at + MON_PACKET_PREAMBLE_BYTES,
                   have - MON_PACKET_PREAMBLE_BYTES);
            mon_put_u64(out + to + MON_OFF_CONTENT_SIZE, (content - 8) * 8);
            mon_put_u64(out + to + MON_OFF_PACKET_SIZE, (packet - 8) * 8);
            to += have - 8;
            at += have;
        }
        f = fopen(path, "wb");
        ck_assert_uint_eq(fwrite(out, 1, to, f), to);
        fclose(f);
        run_json_set_bytes(dir, w, (long)to);
        free(in);
        free(out);
    }
    metadata_set_line(dir, "format_version", "\tformat_version = \"3.1\";");
}

/* A one-worker trace of a run_start and then what `add` writes: times
 * from 1001, odd as the monitor's readings are. */
static void write_one_log(char dir[4096], void (*add)(mon_writer *))
{
    char ctf[4200], err[512];
    fixture_tmpdir(dir, 4096);
    /* Without W: a log need not end with worker_end. */
    ck_assert_int_eq(fixture_trace_dir(dir, 1, MON_FLAG_ALL & ~MON_FLAG_WORKER, ctf, sizeof ctf), 0);
    mon_writer *wr = mon_writer_open(ctf, 0, 0, err, sizeof err);
    ck_assert_msg(wr != NULL, "%s", err);
    mon_writer_set_timed(wr, true);
    mon_emit_task(wr, MON_ID_RUN_START, 1001, 1);
    add(wr);
    ck_assert_int_eq(mon_writer_close(wr), 0);
}

static void add_control(mon_writer *wr)
{
    mon_emit_control(wr, 1003, MON_FLAG_ALL & ~MON_FLAG_TASK, "box\\.a");
    mon_emit_control(wr, 1005, MON_FLAG_MAP | MON_FLAG_CPU, NULL);
}

static void add_same_time(mon_writer *wr) { mon_emit_task(wr, MON_ID_TASK_DISPATCH, 1001, 7); }

/* The one error a 3.1 log of the trace in dir gives. */
static void expect_3_1_error(const char *dir, const char *what)
{
    char msg[4608];
    size_t n;
    int rc;
    as_format_3_1(dir);
    mon_event *evs = read_all(dir, &n, &rc, msg, sizeof msg);
    ck_assert_int_eq(rc, MON_TRACE_ERROR);
    ck_assert_msg(strstr(msg, "worker-0: byte ") && strstr(msg, what), "message: %s", msg);
    free(evs);
    fixture_rmdir(dir);
}

/* Format 3.1 is 3.2 without cpu_time (27), monitor_control (28), the
 * one-byte header and the packets' run id: such a trace reads, and each of
 * those events in it is damage, as it was for a 3.1 reader. */
START_TEST(format_3_1_reads_without_3_2_events)
{
    char dir[4096], msg[4608];
    fixture_tmpdir(dir, sizeof dir);
    ck_assert_int_eq(fixture_write_many(dir, 2, 10, 0), 0);
    as_format_3_1(dir);
    size_t n;
    int rc;
    mon_event *evs = read_all(dir, &n, &rc, msg, sizeof msg);
    ck_assert_msg(rc == MON_TRACE_END, "%s", msg);
    ck_assert_uint_eq(n, 20);
    free(evs);
    fixture_rmdir(dir);
    ck_assert_int_eq(fixture_write_all_kinds(dir, 0), 0);
    expect_3_1_error(dir, "unknown event id 27");
    write_one_log(dir, add_control);
    expect_3_1_error(dir, "unknown event id 28");
    write_one_log(dir, add_same_time);
    expect_3_1_error(dir, "a one-byte event header in a format 3.1 log");
}
END_TEST

/* monitor_control (3.2) reads back: the classes with C, the pattern and
 * whether one is in effect. */
START_TEST(monitor_control_round_trip)
{
    char dir[4096];
    write_one_log(dir, add_control);
    mon_trace *t;
    char err[4608];
    ck_assert_msg(mon_trace_open(&t, dir, err, sizeof err) == 0, "open: %s", err);
    mon_event ev;
    ck_assert_int_eq(mon_trace_next(t, &ev), MON_TRACE_EVENT);
    ck_assert_int_eq(ev.kind, MON_EV_RUN_START);
    ck_assert_int_eq(mon_trace_next(t, &ev), MON_TRACE_EVENT);
    ck_assert_int_eq(ev.kind, MON_EV_MONITOR_CONTROL);
    ck_assert_uint_eq(ev.classes, MON_FLAG_ALL & ~MON_FLAG_TASK);
    ck_assert(ev.filtered);
    ck_assert_str_eq(ev.name, "box\\.a");
    char line[256];
    ck_assert_int_gt(mon_event_format(&ev, line, sizeof line), 0);
    ck_assert_msg(strstr(line, " classes=mtWSMLC tasks=box\\.a"), "%s", line);
    ck_assert_int_eq(mon_trace_next(t, &ev), MON_TRACE_EVENT);
    ck_assert_uint_eq(ev.classes, MON_CLASS_MAP | MON_CLASS_CPU);
    ck_assert(!ev.filtered);
    ck_assert_int_gt(mon_event_format(&ev, line, sizeof line), 0);
    ck_assert_msg(strstr(line, " classes=mC") && !strstr(line, "tasks="), "%s", line);
    ck_assert_int_eq(mon_trace_next(t, &ev), MON_TRACE_END);
    mon_trace_close(t);
    fixture_rmdir(dir);
}
END_TEST

/* A message id of every part's width: rank, worker and sequence number
 * from the bits of v. */
static uint64_t msg_of(uint64_t v)
{
    return mon_msg_id_make_at((unsigned)(v >> 52), (unsigned)(v >> 40), v & MON_MSG_SEQ_MASK);
}

/* The flight recorder's window (mon_writer_ring_write): empty before the
 * first event; later the last packets oldest first, the current one up to
 * its last event, starting at the oldest kept event's time, with the
 * events of the packets overwritten counted as before it. */
START_TEST(ring_window_holds_the_last_packets)
{
    enum { EVENTS = 5000 };
    char dir[4096], ctf[4200], log[4300], err[512];
    fixture_tmpdir(dir, sizeof dir);
    ck_assert_int_eq(fixture_trace_dir(dir, 1, MON_FLAG_TASK, ctf, sizeof ctf), 0);
    fixture_log_path(dir, 0, log, sizeof log);
    mon_writer *wr = mon_writer_open_ring(ctf, 0, 0, 4096, 4 * 4096, err, sizeof err);
    ck_assert_msg(wr != NULL, "%s", err);
    int fd = open(log, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    ck_assert_int_ge(fd, 0);
    mon_ring_window rw;
    ck_assert_int_eq(mon_writer_ring_write(wr, fd, NULL, 0, true, &rw), 0);
    ck_assert_uint_eq(rw.events, 0);
    ck_assert_uint_eq(rw.bytes, MON_PACKET_PREAMBLE_BYTES);
    for (uint64_t i = 0; i < EVENTS; i++)
        mon_emit_task(wr, MON_ID_TASK_DISPATCH, 1000 * (i + 1), i);
    ck_assert_int_eq(mon_writer_ring_write(wr, fd, NULL, 0, true, &rw), 0);
    ck_assert_int_eq(close(fd), 0);
    ck_assert_uint_gt(rw.first_packet, 0); /* the window has moved on */
    ck_assert_uint_eq(rw.events_before + rw.events, EVENTS);
    size_t n;
    int rc;
    mon_event *evs = read_all(dir, &n, &rc, NULL, 0);
    ck_assert_int_eq(rc, MON_TRACE_END);
    ck_assert_uint_eq(n, rw.events);
    ck_assert_uint_eq(evs[0].time, rw.start_ticks);
    for (size_t k = 0; k < n; k++) {
        uint64_t i = rw.events_before + k;
        ck_assert_int_eq(evs[k].kind, MON_EV_TASK_DISPATCH);
        ck_assert_uint_eq(evs[k].task, i);
        ck_assert_uint_eq(evs[k].time, 1000 * (i + 1));
    }
    free(evs);
    ck_assert_int_eq(mon_writer_close(wr), 0);
    fixture_rmdir(dir);
}
END_TEST

/* Format 3.2's one-byte header and the writer's one-store path: events at
 * the time of the one before them (the clock read once per switch), at
 * small and large steps, with fields of one, two and more bytes, read back
 * exactly; the one-byte header saves a byte an event. */
START_TEST(same_time_events_round_trip)
{
    static const uint64_t values[] = {0, 5, 63, 64, 4095, 16383, 16384, UINT64_C(1) << 33};
    static const uint64_t steps[] = {0, 0, 2, 510, 512, UINT64_C(1) << 20, UINT64_C(1) << 40};
    const size_t nv = sizeof values / sizeof values[0], ns = sizeof steps / sizeof steps[0];
    char dir[4096], ctf[4200], err[512];
    fixture_tmpdir(dir, sizeof dir);
    ck_assert_int_eq(fixture_trace_dir(dir, 1, MON_FLAG_TIMESTAMPS | MON_FLAG_TASK | MON_FLAG_STREAM, ctf, sizeof ctf), 0);
    mon_writer *wr = mon_writer_open(ctf, 0, 4096, err, sizeof err);
    ck_assert_msg(wr != NULL, "%s", err);
    mon_writer_set_timed(wr, true);
    uint64_t t = 1001, times[8 * 7 * 6];
    size_t n_in = 0;
    for (size_t i = 0; i < nv; i++)
        for (size_t k = 0; k < ns; k++) {
            uint64_t v = values[i];
            t += steps[k]; /* odd, as the monitor's readings are */
            mon_writer_hot_of(wr)->reading = t;
            mon_emit_task(wr, MON_ID_TASK_DISPATCH, t, v);
            mon_emit_stream_io(wr, MON_ID_STREAM_READ, t, v, v + 1);
            mon_emit_stream_mode(wr, MON_ID_STREAM_OPEN, t, v, v, k % 2);
            mon_emit_stream_wake(wr, t, v, v + 2, v + 3);
            mon_emit_stream_block(wr, t, v, v, k % 2);
            mon_emit_task_block(wr, t, v, (unsigned)(k % 3));
            for (int j = 0; j < 6; j++)
                times[n_in++] = t;
        }
    ck_assert_int_eq(mon_writer_close(wr), 0);
    size_t n;
    int rc;
    mon_event *evs = read_all(dir, &n, &rc, NULL, 0);
    ck_assert_int_eq(rc, MON_TRACE_END);
    ck_assert_uint_eq(n, n_in);
    for (size_t i = 0, at = 0; i < nv; i++)
        for (size_t k = 0; k < ns; k++, at += 6) {
            const mon_event *e = &evs[at];
            uint64_t v = values[i];
            for (int j = 0; j < 6; j++)
                ck_assert_uint_eq(e[j].time, times[at + (size_t)j]);
            ck_assert_int_eq(e[0].kind, MON_EV_TASK_DISPATCH);
            ck_assert_uint_eq(e[0].task, v);
            ck_assert_int_eq(e[1].kind, MON_EV_STREAM_READ);
            ck_assert_uint_eq(e[1].stream, v + 1);
            ck_assert_int_eq(e[2].write_end, k % 2);
            ck_assert_uint_eq(e[3].peer, v + 3);
            ck_assert_uint_eq(e[3].stream, v + 2);
            ck_assert_int_eq(e[4].empty, k % 2);
            ck_assert_uint_eq(e[5].cause, k % 3);
            ck_assert_uint_eq(e[5].task, v);
        }
    free(evs);
    /* Small values at one time: a dispatch of task 5 is 1 + 1 bytes. */
    fixture_rmdir(dir);
    fixture_tmpdir(dir, sizeof dir);
    ck_assert_int_eq(fixture_trace_dir(dir, 1, MON_FLAG_TIMESTAMPS | MON_FLAG_TASK | MON_FLAG_STREAM, ctf, sizeof ctf), 0);
    wr = mon_writer_open(ctf, 0, 0, err, sizeof err);
    mon_writer_set_timed(wr, true);
    mon_writer_hot_of(wr)->reading = 1001;
    for (int i = 0; i < 100; i++)
        mon_emit_task(wr, MON_ID_TASK_DISPATCH, 1001, 5);
    ck_assert_int_eq(mon_writer_close(wr), 0);
    char p[4300];
    fixture_log_path(dir, 0, p, sizeof p);
    ck_assert_int_eq(fixture_file_size(p), MON_PACKET_PREAMBLE_BYTES + 3 + 99 * 2);
    fixture_rmdir(dir);
}
END_TEST

/* Every length of a small integer, at both ends, with and without flag
 * bits, read back exactly; values beyond the largest saturate. The event
 * bytes: 2-byte headers (one tick apart) plus the integers' lengths. */
START_TEST(small_integers_round_trip_at_every_length)
{
    static const uint64_t values[] = {0,
                                      1,
                                      (1u << 4) - 1,
                                      1u << 4,
                                      (1u << 5) - 1,
                                      1u << 5,
                                      (1u << 6) - 1,
                                      1u << 6,
                                      (1u << 12) - 1,
                                      1u << 12,
                                      (1u << 13) - 1,
                                      1u << 13,
                                      (1u << 14) - 1,
                                      1u << 14,
                                      (UINT64_C(1) << 28) - 1,
                                      UINT64_C(1) << 28,
                                      (UINT64_C(1) << 30) - 1,
                                      UINT64_C(1) << 30,
                                      UINT64_C(1) << 40,
                                      MON_UINT_MAX(2),
                                      MON_UINT_MAX(0),
                                      UINT64_MAX};
    const size_t nv = sizeof values / sizeof values[0];
    char dir[4096], ctf[4200], err[512];
    fixture_tmpdir(dir, sizeof dir);
    ck_assert_int_eq(fixture_trace_dir(dir, 1, MON_FLAG_TIMESTAMPS | MON_FLAG_TASK, ctf, sizeof ctf), 0);
    mon_writer *wr = mon_writer_open(ctf, 0, 0, err, sizeof err);
    ck_assert_msg(wr != NULL, "%s", err);
    uint64_t t = 1000;
    for (size_t i = 0; i < nv; i++) {
        uint64_t v = values[i];
        mon_emit_task(wr, MON_ID_TASK_DISPATCH, t++, v);
        mon_emit_stream_mode(wr, MON_ID_STREAM_OPEN, t++, v, v, i % 2);
        mon_emit_stream_block(wr, t++, v, v, i % 2);
        mon_emit_task_block(wr, t++, v, (unsigned)(i % 3));
        mon_emit_stream_wake(wr, t++, v, v, v);
        mon_emit_task_load(wr, t++, v, (uint32_t)v, v);
        mon_emit_message(wr, MON_ID_MESSAGE_WRITTEN, t++, v,
                         mon_msg_id_make((unsigned)(v & 0xffff), v & MON_MSG_SEQ_MASK));
        /* The cross-rank events: every rank, worker and sequence width;
         * channel ids of both halves' widths. */
        mon_emit_transfer(wr, MON_ID_MESSAGE_SENT, t++, v, msg_of(v), (uint32_t)v);
        mon_emit_channel_open(wr, t++, v, v, (uint32_t)(v >> 7), i % 2);
        mon_emit_channel_block(wr, t++, v, v, i % 2);
    }
    ck_assert_int_eq(mon_writer_close(wr), 0);
    size_t n;
    int rc;
    mon_event *evs = read_all(dir, &n, &rc, NULL, 0);
    ck_assert_int_eq(rc, MON_TRACE_END);
    ck_assert_uint_eq(n, 10 * nv);
    for (size_t i = 0; i < nv; i++) {
        const mon_event *e = &evs[10 * i];
        uint64_t v = values[i], v0 = v > MON_UINT_MAX(0) ? MON_UINT_MAX(0) : v,
                 v1 = v > MON_UINT_MAX(1) ? MON_UINT_MAX(1) : v,
                 v2 = v > MON_UINT_MAX(2) ? MON_UINT_MAX(2) : v;
        ck_assert_uint_eq(e[0].task, v0);
        ck_assert_uint_eq(e[1].task, v0);
        ck_assert_uint_eq(e[1].stream, v1);
        ck_assert_int_eq(e[1].write_end, i % 2);
        ck_assert_uint_eq(e[2].stream, v1);
        ck_assert_int_eq(e[2].empty, i % 2);
        ck_assert_uint_eq(e[3].task, v2);
        ck_assert_uint_eq(e[3].cause, i % 3);
        ck_assert_uint_eq(e[4].task, v0);
        ck_assert_uint_eq(e[4].stream, v0);
        ck_assert_uint_eq(e[4].peer, v0);
        ck_assert_uint_eq(e[5].dispatches, (uint32_t)v);
        ck_assert_uint_eq(e[5].exec_ns, v0);
        ck_assert_uint_eq(e[6].msg, mon_msg_id_make((unsigned)(v & 0xffff), v & MON_MSG_SEQ_MASK));
        ck_assert_int_eq(e[7].kind, MON_EV_MESSAGE_SENT);
        ck_assert_uint_eq(e[7].task, v0);
        ck_assert_uint_eq(e[7].msg, msg_of(v));
        ck_assert_uint_eq(e[7].peer_rank, (uint32_t)v);
        ck_assert_int_eq(e[8].kind, MON_EV_CHANNEL_OPEN);
        ck_assert_uint_eq(e[8].channel, v);
        ck_assert_uint_eq(e[8].peer_rank, (uint32_t)(v >> 7));
        ck_assert_int_eq(e[8].write_end, i % 2);
        ck_assert_int_eq(e[9].kind, MON_EV_CHANNEL_BLOCK);
        ck_assert_uint_eq(e[9].channel, v);
        ck_assert_int_eq(e[9].empty, i % 2);
        for (int k = 0; k < 10; k++)
            ck_assert_uint_eq(e[k].time, 1000 + 10 * i + (size_t)k);
    }
    free(evs);
    /* Small values take one byte each: a dispatch of task 5 is 2 + 1. */
    char p[4300];
    fixture_log_path(dir, 0, p, sizeof p);
    long before = fixture_file_size(p);
    fixture_rmdir(dir);
    fixture_tmpdir(dir, sizeof dir);
    ck_assert_int_eq(fixture_trace_dir(dir, 1, MON_FLAG_TIMESTAMPS | MON_FLAG_TASK, ctf, sizeof ctf), 0);
    wr = mon_writer_open(ctf, 0, 0, err, sizeof err);
    for (int i = 0; i < 100; i++)
        mon_emit_task(wr, MON_ID_TASK_DISPATCH, 1000 + (uint64_t)i, 5);
    ck_assert_int_eq(mon_writer_close(wr), 0);
    fixture_log_path(dir, 0, p, sizeof p);
    ck_assert_int_eq(fixture_file_size(p), MON_PACKET_PREAMBLE_BYTES + 100 * 3);
    ck_assert_int_gt(before, 0);
    fixture_rmdir(dir);
}
END_TEST

/* Values a field cannot hold are damage, named with the offset. */
START_TEST(out_of_range_values_are_corruption)
{
    char dir[4096], ctf[4200], err[4608];
    fixture_tmpdir(dir, sizeof dir);
    ck_assert_int_eq(fixture_trace_dir(dir, 1, MON_FLAG_TIMESTAMPS | MON_FLAG_TASK, ctf, sizeof ctf), 0);
    mon_writer *wr = mon_writer_open(ctf, 0, 0, err, sizeof err);
    /* task_block of task 1 with cause 3 (none such): a 2-byte header after
     * the preamble, then the small integer with the cause in its 2 flag
     * bits. */
    mon_emit_task_block(wr, 1000, 1, 3);
    ck_assert_int_eq(mon_writer_close(wr), 0);
    mon_trace *t;
    ck_assert_int_eq(mon_trace_open(&t, dir, err, sizeof err), -1);
    char want[128];
    snprintf(want, sizeof want, "worker-0: byte %d: task_block cause value 3 out of range",
             MON_PACKET_PREAMBLE_BYTES + 2);
    ck_assert_msg(strstr(err, want), "message: %s", err);
    fixture_rmdir(dir);
    /* The parts of the cross-rank events: a message node of 2^24 (rank
     * 4096), a channel index of 2^32, a peer rank of 2^32. Each event: a
     * 2-byte header after the preamble, task 1 in one byte, then the
     * fields; `at` is the bad field's offset after the preamble. */
    static const struct {
        mon_event_id id;
        uint64_t node_or_rank, seq_or_index, peer;
        int at;
        const char *want;
    } bad[] = {
        {MON_ID_MESSAGE_SENT, UINT64_C(1) << 24, 1, 0, 3, "message node value 16777216"},
        {MON_ID_MESSAGE_RECEIVED, 1, UINT64_C(1) << 40, 0, 4,
         "message sequence number value 1099511627776"},
        {MON_ID_MESSAGE_SENT, 1, 1, UINT64_C(1) << 32, 5, "rank value 4294967296"},
        {MON_ID_CHANNEL_OPEN, UINT64_C(1) << 32, 1, 0, 3, "channel rank value 4294967296"},
        {MON_ID_CHANNEL_BLOCK, 1, UINT64_C(1) << 32, 0, 4, "channel index value 4294967296"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        fixture_tmpdir(dir, sizeof dir);
        ck_assert_int_eq(fixture_trace_dir(dir, 1, MON_FLAG_TIMESTAMPS | MON_FLAG_TASK, ctf, sizeof ctf),
                         0);
        wr = mon_writer_open(ctf, 0, 0, err, sizeof err);
        mon_ev e = mon_ev_begin(wr, bad[i].id, 1000, 4 * MON_UINT_MAX_BYTES);
        bool chan = bad[i].id == MON_ID_CHANNEL_OPEN || bad[i].id == MON_ID_CHANNEL_BLOCK;
        e.p = mon_put_uint(e.p, 1, 0, 0);
        e.p = mon_put_uint(e.p, bad[i].node_or_rank, 0, 0);
        e.p = mon_put_uint(e.p, bad[i].seq_or_index, chan ? 1 : 0, 0);
        if (bad[i].id != MON_ID_CHANNEL_BLOCK)
            e.p = mon_put_uint(e.p, bad[i].peer, 0, 0);
        mon_ev_end(wr, e);
        ck_assert_int_eq(mon_writer_close(wr), 0);
        ck_assert_int_eq(mon_trace_open(&t, dir, err, sizeof err), -1);
        snprintf(want, sizeof want, "byte %d: %s", MON_PACKET_PREAMBLE_BYTES + bad[i].at,
                 bad[i].want);
        ck_assert_msg(strstr(err, want) && strstr(err, "out of range"), "%s: message: %s", want,
                      err);
        fixture_rmdir(dir);
    }
}
END_TEST

START_TEST(clock_choice_and_calibration)
{
    mon_clock c;
    mon_clock_init(&c, "monotonic");
    ck_assert(!c.tsc);
    ck_assert_uint_eq(c.freq, MON_NS_PER_S);
    ck_assert_msg(strstr(c.why, "MON_CLOCK=monotonic"), "why: %s", c.why);
    uint64_t now = mon_clock_ns(CLOCK_MONOTONIC), wall = mon_clock_ns(CLOCK_REALTIME);
    ck_assert_uint_le(now + c.offset_ns - wall + 5000000, 10000000); /* within 5 ms */

    mon_clock_init(&c, NULL);
    if (!mon_cpu_has_invariant_tsc()) {
        ck_assert(!c.tsc);
        return;
    }
    if (!c.tsc) /* the kernel distrusts the TSC here: a valid fallback */
        return;
    ck_assert_uint_ge(c.freq, MON_TSC_FREQ_MIN);
    ck_assert_uint_le(c.freq, MON_TSC_FREQ_MAX);
    ck_assert_uint_ge(c.cal_interval_ns, MON_CLOCK_CALIBRATION_NS);
    ck_assert_uint_gt(c.cal_ticks, 0);
    ck_assert_uint_lt(c.offset_ticks, c.freq);
    /* The TSC, converted with the calibrated frequency and offset, is the
     * wall clock now (the calibration is ~ppm, the run so far milliseconds). */
    uint64_t tsc_wall = mon_ticks_to_ns(mon_tsc_read(), c.freq) + c.offset_ns;
    wall = mon_clock_ns(CLOCK_REALTIME);
    ck_assert_msg(tsc_wall + 1000000 >= wall && tsc_wall <= wall + 1000000,
                  "TSC says %llu, CLOCK_REALTIME %llu", (unsigned long long)tsc_wall,
                  (unsigned long long)wall);

    /* At close, the frequency is measured again over the whole run. */
    mon_clock open = c;
    ck_assert(!c.refined);
    struct timespec nap = {0, 100000000};
    nanosleep(&nap, NULL);
    ck_assert(mon_clock_refine(&c));
    ck_assert(c.refined);
    ck_assert_uint_ge(c.cal_interval_ns, MON_CLOCK_REFINE_NS);
    ck_assert_uint_le(c.freq, open.freq + open.freq / 10000); /* 100 ppm */
    ck_assert_uint_ge(c.freq, open.freq - open.freq / 10000);
    ck_assert_uint_eq(c.start_ticks, open.start_ticks);
    ck_assert_uint_eq(c.wall_start_ns, open.wall_start_ns);
    tsc_wall = mon_ticks_to_ns(mon_tsc_read(), c.freq) + c.offset_ns;
    wall = mon_clock_ns(CLOCK_REALTIME);
    ck_assert_msg(tsc_wall + 1000000 >= wall && tsc_wall <= wall + 1000000,
                  "refined: TSC says %llu, CLOCK_REALTIME %llu", (unsigned long long)tsc_wall,
                  (unsigned long long)wall);
}
END_TEST

/* Rewrites worker 1's log of a fresh two-worker trace with task_map events
 * of tasks 1..n named names[0..n), and returns the trace directory in dir. */
static void write_task_maps(char *dir, size_t len, const char *const *names, unsigned n)
{
    char ctf[4200], err[512];
    fixture_tmpdir(dir, len);
    ck_assert_int_eq(fixture_write_many(dir, 2, 2, 0), 0);
    snprintf(ctf, sizeof ctf, "%s/ctf", dir);
    mon_writer *wr = mon_writer_open(ctf, 1, 0, err, sizeof err);
    ck_assert_msg(wr != NULL, "%s", err);
    for (unsigned i = 0; i < n; i++)
        mon_emit_task_map(wr, 2000 + i, i + 1, names[i]);
    ck_assert_int_eq(mon_writer_close(wr), 0);
}

/* CTF strings are UTF-8: bytes that are not become '?', and a long name is
 * cut before a character the length limit would split (a fuzz finding:
 * such names made `snetmon import` write JSON it could not read back). */
START_TEST(task_names_are_written_as_utf8)
{
    char long_name[300];
    memset(long_name, 'a', 254);
    strcpy(long_name + 254, "\xc3\xa9tail"); /* U+00E9 in bytes 254-255 */
    const char *names[] = {"S1:caf\xc3\xa9", "bad\xff\xfe:name\xc3", long_name};
    const char *expected[] = {"S1:caf\xc3\xa9", "bad??:name?", NULL};
    char dir[4096], err[4608];
    write_task_maps(dir, sizeof dir, names, 3);
    mon_trace *t;
    ck_assert_int_eq(mon_trace_open(&t, dir, err, sizeof err), 0);
    mon_event ev;
    unsigned seen = 0;
    while (mon_trace_next(t, &ev) == MON_TRACE_EVENT) {
        if (ev.kind != MON_EV_TASK_MAP)
            continue;
        ck_assert_uint_lt(seen, 3);
        if (expected[seen]) {
            ck_assert_str_eq(ev.name, expected[seen]);
        } else {
            ck_assert_uint_eq(strlen(ev.name), 254);
            ck_assert_int_eq(strspn(ev.name, "a"), 254);
        }
        seen++;
    }
    ck_assert_uint_eq(seen, 3);
    mon_trace_close(t);
    fixture_rmdir(dir);
}
END_TEST

START_TEST(task_name_not_utf8_is_corruption)
{
    const char *names[] = {"S1:box.a"};
    char dir[4096], err[4608];
    write_task_maps(dir, sizeof dir, names, 1);
    /* Damage the third byte of the name. */
    char log[4300], buf[512];
    fixture_log_path(dir, 1, log, sizeof log);
    FILE *f = fopen(log, "rb");
    ck_assert_ptr_nonnull(f);
    size_t got = fread(buf, 1, sizeof buf, f);
    fclose(f);
    const char *name = memmem(buf, got, "S1:box.a", 8);
    ck_assert_ptr_nonnull(name);
    size_t at = (size_t)(name - buf) + 2;
    poke(dir, 1, (long)at, 0xff);
    mon_trace *t;
    ck_assert_int_eq(mon_trace_open(&t, dir, err, sizeof err), -1);
    char want[128];
    snprintf(want, sizeof want, "worker-1: byte %zu: task name is not valid UTF-8 (byte 0xff)", at);
    ck_assert_msg(strstr(err, want), "message: %s", err);
    fixture_rmdir(dir);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("mon_format");
    TCase *tc = tcase_create("format");
    tcase_add_test(tc, round_trip_every_kind);
    tcase_add_test(tc, ticks_to_ns_is_exact_for_long_runs);
    tcase_add_test(tc, tsc_ticks_read_back_as_exact_ns);
    tcase_add_test(tc, unsupported_clock_frequency_is_rejected);
    tcase_add_test(tc, older_format_is_refused_by_name);
    tcase_add_test(tc, format_3_1_reads_without_3_2_events);
    tcase_add_test(tc, monitor_control_round_trip);
    tcase_add_test(tc, small_integers_round_trip_at_every_length);
    tcase_add_test(tc, same_time_events_round_trip);
    tcase_add_test(tc, ring_window_holds_the_last_packets);
    tcase_add_test(tc, out_of_range_values_are_corruption);
    tcase_add_test(tc, clock_choice_and_calibration);
    tcase_add_test(tc, round_trip_tiny_packets);
    tcase_add_test(tc, event_lengths_walk_every_kind);
    tcase_add_test(tc, task_map_name_survives_the_merge);
    tcase_add_test(tc, many_events_merge_in_order_and_stay_small);
    tcase_add_test(tc, truncated_log_is_reported_with_what_was_read);
    tcase_add_test(tc, truncated_inside_packet_header);
    tcase_add_test(tc, corrupt_event_id_names_file_and_offset);
    tcase_add_test(tc, corrupt_second_packet_magic_is_an_error_after_the_good_events);
    tcase_add_test(tc, corrupt_content_size_is_an_error);
    tcase_add_test(tc, not_a_trace_directory);
    tcase_add_test(tc, full_disk_counts_lost_events);
    tcase_add_test(tc, crash_flush_writes_a_readable_packet);
    tcase_add_test(tc, flags_parse_and_format);
    tcase_add_test(tc, parse_args_removes_our_options);
    tcase_add_test(tc, parse_args_errors_are_one_line);
    tcase_add_test(tc, options_that_give_empty_traces_warn);
    tcase_add_test(tc, event_format_is_one_line);
    tcase_add_test(tc, event_format_matches_printf);
    tcase_add_test(tc, task_names_are_written_as_utf8);
    tcase_add_test(tc, task_name_not_utf8_is_corruption);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
