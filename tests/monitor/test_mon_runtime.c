/*
 * test_mon_runtime.c - the monitor attached to a running LPEL runtime: a
 * three-stage pipeline (producer -> relay -> consumer, small streams so
 * tasks block) whose trace must hold exactly the events the program
 * caused; the --mon-tasks filter; monitoring off (mon0); warnings for
 * options that leave the trace empty; a task that crashes, whose trace
 * must still read cleanly.
 *
 * With the runtime's hooks compiled out (LPEL_HOOKS=OFF) the same program
 * must leave an empty but valid trace.
 */
#include <check.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lpel.h"
#include "mon.h"
#include "mon_fixture.h"
#include "mon_reader.h"

#ifndef LPEL_HOOKS_ENABLED
#define LPEL_HOOKS_ENABLED 1
#endif

#define ITEMS 200

typedef struct stage {
    lpel_stream *in, *out;
    int crash_after; /* relay: fault after this many items (0: never) */
} stage;

static void producer(void *arg)
{
    stage *s = arg;
    for (uintptr_t i = 1; i <= ITEMS; i++)
        lpel_stream_write(s->out, (void *)i);
    lpel_stream_close(s->out, LPEL_STREAM_WRITE);
}

/* A real SIGSEGV: a store to a page with no access. (A NULL store would be
 * caught by UBSan before it faults, and raise() is not a fault.) */
static void crash_now(void)
{
    volatile char *page = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if ((void *)page == MAP_FAILED)
        abort();
    page[0] = 1;
}

static void relay(void *arg)
{
    stage *s = arg;
    lpel_task *self = lpel_task_self();
    void *item;
    int n = 0;
    while ((item = lpel_stream_read(s->in)) != NULL) {
        uint64_t seq = (uint64_t)(uintptr_t)item;
        mon_component_begin(self);
        mon_message_read(self, mon_msg_id_make(0, seq));
        mon_message_written(self, mon_msg_id_make(1, seq));
        mon_component_end(self);
        if (s->crash_after && ++n == s->crash_after)
            crash_now();
        lpel_stream_write(s->out, item);
    }
    lpel_stream_close(s->in, LPEL_STREAM_READ);
    lpel_stream_close(s->out, LPEL_STREAM_WRITE);
}

static void consumer(void *arg)
{
    stage *s = arg;
    while (lpel_stream_read(s->in) != NULL)
        ;
    lpel_stream_close(s->in, LPEL_STREAM_READ);
}

typedef struct run_ids {
    uint64_t producer, relay, consumer;
} run_ids;

static run_ids run_with(mon *m, int crash_after);

/* Run the pipeline on two workers with the given monitoring arguments
 * (as a program would get them on its command line). */
static run_ids run_pipeline(const char *dir, const char *flags, const char *regex, int crash_after)
{
    char *argv[8];
    int argc = 0;
    argv[argc++] = "pipeline";
    argv[argc++] = "-m";
    argv[argc++] = (char *)flags;
    argv[argc++] = "--mon-dir";
    argv[argc++] = (char *)dir;
    if (regex) {
        argv[argc++] = "--mon-tasks";
        argv[argc++] = (char *)regex;
    }
    argv[argc] = NULL;
    mon_options mo;
    char err[512];
    ck_assert_msg(mon_parse_args(&argc, argv, &mo, err, sizeof err) == 0, "%s", err);
    ck_assert_int_eq(argc, 1);
    mon *m;
    lpel_hooks hooks;
    ck_assert_msg(mon_open(&m, &mo, argc, argv, &hooks, err, sizeof err) == 0, "%s", err);
    run_ids ids = run_with(m, crash_after);
    ck_assert_int_eq(mon_close(m), 0);
    return ids;
}

/* One run of the pipeline on a fresh runtime using m's hooks. */
static run_ids run_with(mon *m, int crash_after)
{
    char err[512];
    lpel_config cfg = lpel_config_default();
    cfg.num_workers = 2;
    cfg.default_stream_capacity = 2;
    cfg.hooks = mon_lpel_hooks(m);
    lpel_runtime *rt;
    ck_assert_int_eq(lpel_runtime_create(&rt, &cfg, err, sizeof err), LPEL_OK);
    lpel_stream *s1 = lpel_stream_create(rt, 0), *s2 = lpel_stream_create(rt, 0);
    stage a = {NULL, s1, 0}, b = {s1, s2, crash_after}, c = {s2, NULL, 0};
    lpel_task_attr pa = {"prod", 0, 0}, ra = {"relay", 0, 1}, ca = {"cons", 0, 0};
    run_ids ids;
    ids.producer = (uint64_t)lpel_task_create(rt, &pa, producer, &a);
    ids.relay = (uint64_t)lpel_task_create(rt, &ra, relay, &b);
    ids.consumer = (uint64_t)lpel_task_create(rt, &ca, consumer, &c);
    ck_assert_int_eq(lpel_run(rt), LPEL_OK);
    lpel_runtime_destroy(rt);
    return ids;
}

typedef struct counts {
    unsigned kind[MON_EV_KIND_COUNT];
    unsigned per_task[4][MON_EV_KIND_COUNT]; /* [0] other, 1 prod, 2 relay, 3 cons */
    unsigned total;
    unsigned known_peers;
    unsigned max_run;
    int status;
} counts;

static int task_slot(const run_ids *ids, uint64_t task)
{
    return task == ids->producer ? 1 : task == ids->relay ? 2 : task == ids->consumer ? 3 : 0;
}

/* Count the events; check the fields that must hold for every event. */
static counts read_counts(const char *dir, const run_ids *ids)
{
    counts c;
    memset(&c, 0, sizeof c);
    char err[4608];
    mon_trace *t;
    ck_assert_msg(mon_trace_open(&t, dir, err, sizeof err) == 0, "%s", err);
    mon_event ev;
    uint64_t last = 0;
    while ((c.status = mon_trace_next(t, &ev)) == MON_TRACE_EVENT) {
        ck_assert_uint_ge(ev.time, last);
        last = ev.time;
        c.kind[ev.kind]++;
        c.per_task[task_slot(ids, ev.task)][ev.kind]++;
        c.total++;
        if (ev.run > c.max_run)
            c.max_run = ev.run;
        if (ev.kind == MON_EV_STREAM_BLOCK) {
            /* The waiting relation: who the blocked task waits for (0 while
             * the other end is not bound yet). */
            uint64_t want = 0;
            if (ev.task == ids->relay)
                want = ev.empty ? ids->producer : ids->consumer;
            if (ev.task == ids->producer) {
                ck_assert(!ev.empty);
                want = ids->relay;
            }
            if (ev.task == ids->consumer) {
                ck_assert(ev.empty);
                want = ids->relay;
            }
            ck_assert_msg(ev.peer == want || ev.peer == 0, "task %llu blocked on %s stream %llu "
                          "waits for %llu", (unsigned long long)ev.task,
                          ev.empty ? "empty" : "full", (unsigned long long)ev.stream,
                          (unsigned long long)ev.peer);
            c.known_peers += ev.peer != 0;
        }
        if (ev.kind == MON_EV_TASK_MAP) {
            const char *want = ev.task == ids->producer ? "prod"
                               : ev.task == ids->relay  ? "relay"
                                                        : "cons";
            ck_assert_str_eq(ev.name, want);
            ck_assert_uint_eq(ev.worker_mapped, ev.task == ids->relay ? 1 : 0);
        }
    }
    ck_assert_msg(c.status == MON_TRACE_END, "%s", mon_trace_error(t));
    mon_trace_close(t);
    return c;
}

#if LPEL_HOOKS_ENABLED /* what these check is not recorded without hooks */
/* The load summaries are ns even when the events carry TSC ticks: each
 * worker's busy + waiting time fits between its worker_start and
 * worker_end (to the ns of rounding per conversion), and each task's
 * execution time within its worker's busy time. */
static void check_load_in_ns(const char *dir)
{
    char err[4608];
    mon_trace *t;
    ck_assert_msg(mon_trace_open(&t, dir, err, sizeof err) == 0, "%s", err);
    uint64_t start[2] = {0, 0}, end[2] = {0, 0}, exec[2] = {0, 0};
    mon_event ev;
    int loads = 0;
    while (mon_trace_next(t, &ev) == MON_TRACE_EVENT) {
        ck_assert_uint_lt(ev.worker, 2);
        if (ev.kind == MON_EV_WORKER_START)
            start[ev.worker] = ev.time;
        if (ev.kind == MON_EV_TASK_LOAD)
            exec[ev.worker] += ev.exec_ns;
        if (ev.kind == MON_EV_WORKER_END)
            end[ev.worker] = ev.time;
        if (ev.kind == MON_EV_WORKER_LOAD) {
            uint64_t span = ev.time - start[ev.worker];
            ck_assert_msg(ev.busy_ns + ev.wait_ns <= span + 2, "worker %u: busy %llu + wait %llu ns "
                          "in %llu ns", ev.worker, (unsigned long long)ev.busy_ns,
                          (unsigned long long)ev.wait_ns, (unsigned long long)span);
            ck_assert_uint_gt(ev.busy_ns, 0);
            ck_assert_uint_le(exec[ev.worker], ev.busy_ns + 3);
            loads++;
        }
    }
    ck_assert_int_eq(loads, 2);
    ck_assert_uint_ge(end[0], start[0]);
    mon_trace_close(t);
}

/* A block shares its stream_block's clock reading (mon_hooks.c) when both
 * are recorded; without task_block in the trace every stream_block keeps a
 * reading of its own, so a task's blocks never repeat a time. */
static void check_block_times(const char *dir, const run_ids *ids, bool with_task_block)
{
    char err[4608];
    mon_trace *t;
    ck_assert_msg(mon_trace_open(&t, dir, err, sizeof err) == 0, "%s", err);
    uint64_t last_sb[4] = {0, 0, 0, 0};
    bool pending[4] = {false, false, false, false};
    unsigned blocks = 0;
    mon_event ev;
    while (mon_trace_next(t, &ev) == MON_TRACE_EVENT) {
        int k = task_slot(ids, ev.task);
        if (ev.kind == MON_EV_STREAM_BLOCK) {
            ck_assert_msg(!pending[k] || with_task_block, "stream_block without task_block");
            if (!with_task_block && last_sb[k])
                ck_assert_uint_gt(ev.time, last_sb[k]);
            last_sb[k] = ev.time;
            pending[k] = with_task_block;
            blocks++;
        }
        if (ev.kind == MON_EV_TASK_BLOCK) {
            ck_assert(pending[k]);
            ck_assert_uint_eq(ev.time, last_sb[k]);
            pending[k] = false;
        }
    }
    ck_assert_uint_gt(blocks, 0);
    mon_trace_close(t);
}

#endif

START_TEST(pipeline_trace_matches_the_program)
{
    char dir[4096];
    fixture_tmpdir(dir, sizeof dir);
    run_ids ids = run_pipeline(dir, "A", NULL, 0);
    counts c = read_counts(dir, &ids);
#if LPEL_HOOKS_ENABLED
    ck_assert_uint_eq(c.kind[MON_EV_WORKER_START], 2);
    ck_assert_uint_eq(c.kind[MON_EV_WORKER_END], 2);
    ck_assert_uint_eq(c.kind[MON_EV_WORKER_LOAD], 2);
    ck_assert_uint_ge(c.kind[MON_EV_WORKER_WAIT], c.kind[MON_EV_WORKER_RESUME]);
    ck_assert_uint_eq(c.kind[MON_EV_TASK_MAP], 3);
    ck_assert_uint_eq(c.kind[MON_EV_TASK_CREATE], 3);
    ck_assert_uint_eq(c.kind[MON_EV_TASK_DESTROY], 3);
    ck_assert_uint_eq(c.kind[MON_EV_TASK_LOAD], 3);
    /* Every execution period ends in exactly one block, yield or destroy. */
    ck_assert_uint_eq(c.kind[MON_EV_TASK_DISPATCH],
                      c.kind[MON_EV_TASK_BLOCK] + c.kind[MON_EV_TASK_YIELD] +
                          c.kind[MON_EV_TASK_DESTROY]);
    ck_assert_uint_eq(c.kind[MON_EV_STREAM_OPEN], 4);
    ck_assert_uint_eq(c.kind[MON_EV_STREAM_CLOSE], 4);
    ck_assert_uint_eq(c.per_task[1][MON_EV_STREAM_WRITE], ITEMS);
    ck_assert_uint_eq(c.per_task[2][MON_EV_STREAM_WRITE], ITEMS);
    ck_assert_uint_eq(c.per_task[2][MON_EV_STREAM_READ], ITEMS);
    ck_assert_uint_eq(c.per_task[3][MON_EV_STREAM_READ], ITEMS);
    ck_assert_uint_eq(c.kind[MON_EV_STREAM_READ], 2 * ITEMS);
    /* No polls: one stream_block before each task_block, one wake each. */
    ck_assert_uint_eq(c.kind[MON_EV_STREAM_BLOCK], c.kind[MON_EV_TASK_BLOCK]);
    ck_assert_uint_eq(c.kind[MON_EV_STREAM_WAKE], c.kind[MON_EV_TASK_BLOCK]);
    ck_assert_uint_gt(c.kind[MON_EV_TASK_BLOCK], 0);
    ck_assert_uint_gt(c.known_peers, 0);
    ck_assert_uint_eq(c.per_task[2][MON_EV_COMPONENT_BEGIN], ITEMS);
    ck_assert_uint_eq(c.per_task[2][MON_EV_COMPONENT_END], ITEMS);
    ck_assert_uint_eq(c.per_task[2][MON_EV_MESSAGE_READ], ITEMS);
    ck_assert_uint_eq(c.per_task[2][MON_EV_MESSAGE_WRITTEN], ITEMS);
    ck_assert_uint_eq(c.per_task[0][MON_EV_TASK_DISPATCH], 0);
    check_load_in_ns(dir);
    check_block_times(dir, &ids, true);
#else
    ck_assert_uint_eq(c.total, 0); /* hooks compiled out: nothing is called */
#endif
    fixture_rmdir(dir);
}
END_TEST

/* One monitor, two runtimes one after the other: each worker log holds
 * both runs in order. */
START_TEST(two_runs_share_one_trace)
{
    char dir[4096], err[512];
    fixture_tmpdir(dir, sizeof dir);
    char *argv[] = {"twice", "-m", "A", "--mon-dir", dir, NULL};
    int argc = 5;
    mon_options mo;
    ck_assert_int_eq(mon_parse_args(&argc, argv, &mo, err, sizeof err), 0);
    mon *m;
    lpel_hooks hooks;
    ck_assert_msg(mon_open(&m, &mo, argc, argv, &hooks, err, sizeof err) == 0, "%s", err);
    run_ids ids = run_with(m, 0);
    run_with(m, 0);
#if LPEL_HOOKS_ENABLED
    ck_assert_uint_gt(mon_events_recorded(m), 0);
#endif
    ck_assert_uint_eq(mon_events_lost(m), 0); /* the buffers kept up */
    ck_assert_int_eq(mon_close(m), 0);
    counts c = read_counts(dir, &ids);
#if LPEL_HOOKS_ENABLED
    ck_assert_uint_eq(c.kind[MON_EV_WORKER_START], 4);
    ck_assert_uint_eq(c.kind[MON_EV_WORKER_END], 4);
    /* Each runtime is a run of its own: task ids repeat, runs do not. */
    ck_assert_uint_eq(c.kind[MON_EV_RUN_START], 4);
    ck_assert_uint_eq(c.max_run, 2);
    ck_assert_uint_eq(c.kind[MON_EV_TASK_CREATE], 6);
    ck_assert_uint_eq(c.kind[MON_EV_STREAM_READ], 4 * ITEMS);
#endif
    (void)c;
    fixture_rmdir(dir);
}
END_TEST

START_TEST(flags_select_what_is_recorded)
{
    char dir[4096];
    fixture_tmpdir(dir, sizeof dir);
    run_ids ids = run_pipeline(dir, "W", NULL, 0);
    counts c = read_counts(dir, &ids);
#if LPEL_HOOKS_ENABLED
    ck_assert_uint_eq(c.kind[MON_EV_WORKER_START], 2);
    /* run_start opens each worker's part of every run, whatever the flags. */
    ck_assert_uint_eq(c.kind[MON_EV_RUN_START], 2);
    ck_assert_uint_eq(c.total, c.kind[MON_EV_RUN_START] + c.kind[MON_EV_WORKER_START] +
                                   c.kind[MON_EV_WORKER_END] + c.kind[MON_EV_WORKER_WAIT] +
                                   c.kind[MON_EV_WORKER_RESUME]);
#endif
    ck_assert_uint_eq(c.kind[MON_EV_TASK_DISPATCH], 0);
    fixture_rmdir(dir);
}
END_TEST

START_TEST(mon_tasks_filters_by_name)
{
    char dir[4096];
    fixture_tmpdir(dir, sizeof dir);
    run_ids ids = run_pipeline(dir, "A", "^rel", 0);
    counts c = read_counts(dir, &ids);
    (void)c;
#if LPEL_HOOKS_ENABLED
    /* Mapping names every task; everything else is the relay's only. */
    ck_assert_uint_eq(c.kind[MON_EV_TASK_MAP], 3);
    for (int k = 0; k < MON_EV_KIND_COUNT; k++) {
        if (k == MON_EV_TASK_MAP)
            continue;
        ck_assert_msg(c.per_task[1][k] == 0 && c.per_task[3][k] == 0, "%s of a filtered task",
                      mon_event_kind_name((mon_event_kind)k));
    }
    ck_assert_uint_eq(c.per_task[2][MON_EV_TASK_CREATE], 1);
    ck_assert_uint_eq(c.per_task[2][MON_EV_STREAM_READ], ITEMS);
    ck_assert_uint_eq(c.per_task[2][MON_EV_MESSAGE_WRITTEN], ITEMS);
#endif
    fixture_rmdir(dir);
}
END_TEST

/* stderr of run_pipeline(dir, flags, regex), captured into buf. */
static void pipeline_stderr(const char *dir, const char *flags, const char *regex, char *buf,
                            size_t len)
{
    fflush(stderr);
    FILE *capture = tmpfile();
    ck_assert_ptr_nonnull(capture);
    int saved = dup(STDERR_FILENO);
    dup2(fileno(capture), STDERR_FILENO);
    run_pipeline(dir, flags, regex, 0);
    fflush(stderr);
    dup2(saved, STDERR_FILENO);
    close(saved);
    rewind(capture);
    size_t n = fread(buf, 1, len - 1, capture);
    buf[n] = '\0';
    fclose(capture);
}

/* Options that leave the trace empty, or without any task, say so. */
START_TEST(empty_traces_warn)
{
    char dir[4096], text[2048];
    fixture_tmpdir(dir, sizeof dir);
    pipeline_stderr(dir, "tT", "^nobody$", text, sizeof text);
#if LPEL_HOOKS_ENABLED
    ck_assert_msg(strstr(text, "mon: warning: the trace in ") &&
                      strstr(text, "holds no events: -m tT --mon-tasks ^nobody$"),
                  "%s", text);
#endif
    pipeline_stderr(dir, "A", "^nobody$", text, sizeof text);
#if LPEL_HOOKS_ENABLED
    ck_assert_msg(strstr(text, "--mon-tasks '^nobody$' matched none of the 3 tasks"), "%s", text);
#endif
    pipeline_stderr(dir, "A", "^rel", text, sizeof text);
    const char *warning = strstr(text, "warning");
#if !LPEL_HOOKS_ENABLED
    /* The one warning a build without hooks always gives, and no other. */
    ck_assert_msg(warning && strstr(warning, "built with LPEL_HOOKS=OFF"), "%s", text);
    warning = strstr(warning + 1, "warning");
#endif
    ck_assert_msg(!warning, "%s", text);
    fixture_rmdir(dir);
}
END_TEST

START_TEST(monitoring_off_installs_nothing)
{
    char dir[4096], sub[4200];
    fixture_tmpdir(dir, sizeof dir);
    snprintf(sub, sizeof sub, "%s/off", dir);
    char *argv[] = {"prog", "--mon-dir", sub, NULL};
    int argc = 3;
    mon_options mo;
    char err[256];
    ck_assert_int_eq(mon_parse_args(&argc, argv, &mo, err, sizeof err), 0);
    mon *m = (mon *)1;
    lpel_hooks hooks;
    memset(&hooks, 0xff, sizeof hooks);
    ck_assert_int_eq(mon_open(&m, &mo, argc, argv, &hooks, err, sizeof err), 0);
    ck_assert_ptr_null(m);
    ck_assert_ptr_null(mon_lpel_hooks(m));
    ck_assert_uint_eq(mon_events_recorded(m), 0);
    ck_assert_uint_eq(mon_events_lost(m), 0);
    ck_assert_ptr_null(hooks.worker_start);
    ck_assert_ptr_null(hooks.task_dispatch);
    struct stat st;
    ck_assert_int_ne(stat(sub, &st), 0); /* no trace directory made */
    ck_assert_int_eq(mon_close(m), 0);
    /* The TMO calls are no-ops outside monitoring. */
    mon_component_begin(NULL);
    mon_message_read(NULL, 1);
    fixture_rmdir(dir);
}
END_TEST

/* A trace of a run that crashed reads cleanly up to the crash, and the
 * reader says that the run did not finish: no log has its worker_end. */
static void assert_unfinished(const mon_trace *t, int rc)
{
#if LPEL_HOOKS_ENABLED
    ck_assert_msg(rc == MON_TRACE_TRUNCATED, "rc %d: %s", rc, mon_trace_error(t));
    ck_assert_uint_gt(mon_trace_num_workers(t), 0);
    for (unsigned i = 0; i < mon_trace_num_workers(t); i++) {
        mon_log_status st;
        mon_trace_log_status(t, i, &st);
        ck_assert_msg(st.state == MON_LOG_UNFINISHED, "%s: %s", st.path,
                      mon_log_state_name(st.state));
        ck_assert_uint_eq(st.bytes_lost, 0); /* nothing in the files is lost */
        ck_assert_int_eq(st.events_lost, -1); /* what the crash kept from being written: unknown */
        ck_assert_ptr_nonnull(strstr(st.message, "without worker_end"));
    }
#else
    ck_assert_msg(rc == MON_TRACE_END, "%s", mon_trace_error(t));
#endif
}

START_TEST(crash_in_a_task_leaves_a_readable_trace)
{
    char dir[4096];
    fixture_tmpdir(dir, sizeof dir);
    fflush(NULL);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        /* Silence the sanitizer's report of the intended fault. */
        if (!freopen("/dev/null", "w", stderr))
            _exit(3);
        run_pipeline(dir, "A", NULL, 50);
        _exit(0); /* not reached: the relay faults */
    }
    int status;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    /* Killed by SIGSEGV, or (sanitizers) exited with an error. */
    ck_assert(WIFSIGNALED(status) || (WIFEXITED(status) && WEXITSTATUS(status) != 0));
    if (WIFSIGNALED(status))
        ck_assert_int_eq(WTERMSIG(status), SIGSEGV);
    run_ids ids = {2, 3, 4}; /* not needed for counting; ids start at 1 */
    (void)ids;
    char err[4608];
    mon_trace *t;
    ck_assert_msg(mon_trace_open(&t, dir, err, sizeof err) == 0, "%s", err);
    mon_event ev;
    int rc;
    unsigned begins = 0, total = 0;
    while ((rc = mon_trace_next(t, &ev)) == MON_TRACE_EVENT) {
        total++;
        if (ev.kind == MON_EV_COMPONENT_BEGIN)
            begins++;
    }
    assert_unfinished(t, rc);
    mon_trace_close(t);
#if LPEL_HOOKS_ENABLED
    /* Everything up to the fault was flushed: the 50th component began. */
    ck_assert_uint_eq(begins, 50);
    ck_assert_uint_gt(total, 50);
#else
    ck_assert_uint_eq(total, 0);
#endif
    fixture_rmdir(dir);
}
END_TEST

/* Deep enough to overflow any small stack; the array keeps frames large. */
static unsigned recurse(unsigned n)
{
    volatile unsigned char frame[512];
    frame[0] = (unsigned char)n;
    return n == 0 ? frame[0] : recurse(n - 1) + frame[0];
}

static void overflowing_task(void *arg)
{
    lpel_task *self = lpel_task_self();
    mon_component_begin(self);
    *(volatile unsigned *)arg = recurse(1u << 20);
}

/* The runtime's stack-overflow report and our crash flush both work: ours
 * runs first and passes the fault on to the runtime's handler. */
START_TEST(stack_overflow_is_reported_and_the_trace_kept)
{
    char dir[4096], errfile[4200];
    fixture_tmpdir(dir, sizeof dir);
    snprintf(errfile, sizeof errfile, "%s.err", dir);
    fflush(NULL);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        if (!freopen(errfile, "w", stderr))
            _exit(3);
        char *argv[] = {"overflow", "-m", "A", "--mon-dir", dir, NULL};
        int argc = 5;
        mon_options mo;
        char err[512];
        if (mon_parse_args(&argc, argv, &mo, err, sizeof err) != 0)
            _exit(4);
        mon *m;
        lpel_hooks hooks;
        if (mon_open(&m, &mo, argc, argv, &hooks, err, sizeof err) != 0)
            _exit(5);
        lpel_config cfg = lpel_config_default();
        cfg.num_workers = 1;
        cfg.hooks = mon_lpel_hooks(m);
        lpel_runtime *rt;
        if (lpel_runtime_create(&rt, &cfg, err, sizeof err) != LPEL_OK)
            _exit(6);
        volatile unsigned sink = 0;
        lpel_task_attr attr = {"deep", 64 * 1024, LPEL_ANY_WORKER};
        lpel_task_create(rt, &attr, overflowing_task, (void *)&sink);
        lpel_run(rt);
        _exit(0); /* not reached */
    }
    int status;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    ck_assert(WIFSIGNALED(status) || (WIFEXITED(status) && WEXITSTATUS(status) != 0));
    FILE *f = fopen(errfile, "r");
    ck_assert_ptr_nonnull(f);
    char text[4096];
    size_t n = fread(text, 1, sizeof text - 1, f);
    text[n] = '\0';
    fclose(f);
    unlink(errfile);
    /* Check packs at most a few KiB of message: show the start. */
    ck_assert_msg(strstr(text, "stack overflow in task 'deep'"), "stderr: %.1500s", text);
    char err[4608];
    mon_trace *t;
    ck_assert_msg(mon_trace_open(&t, dir, err, sizeof err) == 0, "%s", err);
    mon_event ev;
    int rc;
    unsigned begins = 0;
    while ((rc = mon_trace_next(t, &ev)) == MON_TRACE_EVENT)
        begins += ev.kind == MON_EV_COMPONENT_BEGIN;
    assert_unfinished(t, rc);
    mon_trace_close(t);
#if LPEL_HOOKS_ENABLED
    ck_assert_uint_eq(begins, 1);
#endif
    fixture_rmdir(dir);
}
END_TEST

START_TEST(stream_blocks_alone_keep_their_own_times)
{
    char dir[4096];
    fixture_tmpdir(dir, sizeof dir);
    run_ids ids = run_pipeline(dir, "tS", NULL, 0);
#if LPEL_HOOKS_ENABLED
    check_block_times(dir, &ids, false);
#endif
    (void)ids;
    fixture_rmdir(dir);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("mon_runtime");
    TCase *tc = tcase_create("runtime");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, pipeline_trace_matches_the_program);
    tcase_add_test(tc, flags_select_what_is_recorded);
    tcase_add_test(tc, stream_blocks_alone_keep_their_own_times);
    tcase_add_test(tc, two_runs_share_one_trace);
    tcase_add_test(tc, mon_tasks_filters_by_name);
    tcase_add_test(tc, monitoring_off_installs_nothing);
    tcase_add_test(tc, empty_traces_warn);
    tcase_add_test(tc, crash_in_a_task_leaves_a_readable_trace);
    tcase_add_test(tc, stack_overflow_is_reported_and_the_trace_kept);
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
