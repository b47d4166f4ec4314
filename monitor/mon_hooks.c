/*
 * mon_hooks.c - the monitoring objects (MMO, SCMO, WMO, SMO, TMO) attached
 * to LPEL's hook table, the flight recorder's windows, and mon_open /
 * mon_close.
 *
 * Every hook of a worker runs on that worker's thread with the context its
 * worker_start returned, so each worker gets its own writer and its own
 * per-task records and the hooks need no locks. Per-task state (the classes
 * recorded for it, dispatch time, load counters) hangs off the task's hook
 * slot, which the runtime passes to every task hook together with the
 * ids, so no hook calls back into the runtime. Records are kept on a
 * per-worker list too so that tasks the runtime discards without a destroy
 * (after a deadlock) are freed by mon_close, and so that a change of
 * --mon-tasks (snetmon ctl) can choose every task again.
 *
 * Clock readings are the main cost of an event, so the clock is read once
 * per task switch (docs/LOGFORMAT.md section 5): where a period ends and,
 * unless it follows such an end at once, where one begins, and at worker
 * events; every other event takes the last reading, and then the writer's
 * one-byte header. The worker's CPU time (C) is read at the ends of
 * periods with their clock reading, at most once per MON_CPU_STEP_NS.
 * Every hook is installed whatever the flags, because the classes can be
 * switched while the program runs: each worker compares a generation
 * number at its dispatches and applies a change there itself.
 *
 * The service thread (mon_control.c) publishes every worker's packet each
 * --mon-flush period, so a run killed at any moment leaves a readable
 * trace up to the last period and `snetmon top` can follow a run in
 * progress; it answers snetmon ctl and snap, and writes a flight
 * recorder's windows (--mon-ring) through ring_snapshot below.
 */
#include "mon.h"

#include "kit.h"
#include "mon_control_internal.h"
#include "mon_cpu_internal.h"
#include "mon_crash_internal.h"
#include "mon_writer_internal.h"
#if MON_LTTNG
#include "mon_lttng_internal.h" /* the benchmark peer: events to LTTng-UST */
#endif

#define PCRE2_CODE_UNIT_WIDTH 8
#include <errno.h>
#include <fcntl.h>
#include <pcre2.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef struct mon_worker mon_worker;

/* run.json of an unfinished run up to its last member, for the crash
 * handler. */
typedef struct crash_text {
    char *text;
    size_t len;
} crash_text;

/* The classes recorded per task (the rest are per worker or the map). */
#define MON_TASK_CLASSES (MON_FLAG_TASK | MON_FLAG_STREAM | MON_FLAG_MESSAGE | MON_FLAG_LOAD)

/* What the monitor keeps per task. The first two fields are all an event
 * of a running task reads: whether its class is recorded for this task,
 * and where it goes. */
typedef struct mon_task_rec {
    unsigned on;          /* MON_TASK_CLASSES recorded for it now: its worker's
                             classes, or 0 when --mon-tasks leaves it out */
    mon_writer *w;        /* its worker's writer */
    mon_worker *mw;
    uint64_t id;
    bool selected;        /* name matches --mon-tasks (or no pattern) */
    uint32_t dispatches;
    uint64_t exec_ticks;  /* trace clock ticks; converted to ns in task_load */
    uint64_t dispatch_ts;
    uint64_t dead_seq;    /* a flight recorder's ended task: the packet of its end */
    struct mon_task_rec *prev, *next; /* the worker's list */
    char name[];          /* for choosing again when --mon-tasks changes */
} mon_task_rec;

/* The per-worker context (what worker_start returns). */
struct mon_worker {
    mon *m;
    mon_writer *w;
    unsigned id;
    unsigned flags;
    bool tsc;       /* the trace clock is the TSC (copied from the mon) */
    uint64_t freq;  /* its ticks per second */
    const mon_skew *skew; /* the clock-skew test hook, NULL when off */
    bool in_block;    /* stream_block(s) recorded, their task_block to come */
    bool switched;    /* a period just ended with a reading: the next dispatch is the
                         same moment (one reading per task switch), unless the
                         worker takes tasks from its mailbox first (worker_mail) */
    mon_task_rec *current; /* the task running on this worker (for TMO) */
    /* What is recorded (snetmon ctl): the monitor's choice of generation
     * ctl_gen, applied by the worker itself at its next dispatch or resume
     * (mon_control.c), so that the hooks read it without a lock. */
    unsigned ctl_gen;
    const pcre2_code *regex;   /* --mon-tasks in effect, NULL for all tasks */
    pcre2_match_data *match; /* per worker: pcre2 match data is not shareable */
    mon_task_rec *tasks;
    uint64_t wait_ts;
    uint32_t waits;
    uint64_t wait_ticks; /* durations in ticks; ns only in worker_load */
    uint64_t busy_ticks;
    mon_cpu cpu;          /* the thread's CPU time (flag C) */
    uint64_t tasks_seen, tasks_selected; /* for the --mon-tasks warning */
    uint64_t run_starts;                 /* run_start markers written */
    /* A flight recorder: the task list is read by snapshots (for the names
     * of tasks mapped before the window), so changing it takes this lock;
     * the crash handler writes the window to ring_path. */
    pthread_mutex_t tasks_lock;
    char ring_path[4300];
    /* Ended tasks whose last events may still be in the window, oldest
     * first (next links), so that a window names them too; each goes when
     * its last packet has left the ring. Under tasks_lock. */
    mon_task_rec *dead, *dead_last;
    mon_worker *next; /* the monitor's list; set before publishing */
};

/* Whether the runtime calls hooks at all (LPEL_HOOKS=OFF compiles the
 * calls out). */
#if defined(LPEL_HOOKS_ENABLED) && !LPEL_HOOKS_ENABLED
#define MON_HOOKS_CALLED 0
#else
#define MON_HOOKS_CALLED 1
#endif

struct mon {
    lpel_hooks hooks;
    mon_options opt;
    char dir[4096];     /* the trace directory: run.json */
    char ctf_dir[4200]; /* DIR/ctf: metadata and worker logs */
    pcre2_code *regex;
    char *regex_src;
    mon_run_info info;
    int argc;
    char **argv; /* copies, for the final run.json */
    char host[256];
    _Atomic(mon_worker *) workers; /* read by the crash flush and the flusher */
    pthread_mutex_t lock;          /* worker_start registration only */
    /* Runtime instances, numbered from 1 (run_start events); under lock. */
    uint32_t run;
    unsigned run_workers, run_started; /* its workers, and how many have started */
    mon_crash_entry crash;
    bool crash_registered;
    /* The service thread and control channel (mon_control.c): flushes,
     * snetmon ctl, snapshots. ctl_gen is its generation counter. */
    mon_control *ctl;
    const _Atomic unsigned *ctl_gen;
    unsigned snapshots; /* flight-recorder snapshots written (under lock) */
    /* A rank of a multi-rank trace: DIR (dir is DIR/rank-R) and the offset
     * samples so far (under lock). */
    char top_dir[4096];
    mon_sync_entry *sync;
    unsigned nsync;
    size_t cap_sync;
    bool skewed;
    mon_skew skew;
    /* run.json as the crash handler writes it (mon_run_json_crash_text),
     * rendered whenever run.json is written unfinished; the handler only
     * writes bytes. The one before is kept until the next rendering (the
     * handler may still be reading it). Paths made at open. */
    _Atomic(crash_text *) crash_json;
    crash_text *crash_json_old;
    char run_json_path[4200], run_json_tmp[4200];
};

/* The monitor open in this process, for the calls that come without a task
 * (mon_sync_*): the transport's clock measurements. */
static _Atomic(mon *) mon_current;

/* ---------------------------------------------------------------------------
 * Helpers
 * ------------------------------------------------------------------------- */

/* The trace clock now, in its ticks: the raw TSC where it is the trace
 * clock (the metadata declares its frequency, so nothing is converted
 * here), else CLOCK_MONOTONIC ns. */
static inline uint64_t raw_ticks(bool tsc)
{
    if (tsc)
        return mon_tsc_read();
    return mon_clock_ns(CLOCK_MONOTONIC);
}

/* Readings are made odd (a tick less resolution): an event at the time of
 * the one before it then takes a one-byte header whose one bit CTF readers
 * take for the time's low bit, which is 1 (docs/LOGFORMAT.md section 4.3). */
static inline uint64_t now_ticks(const mon_worker *mw)
{
#if MON_LTTNG
    (void)mw;
    return 1; /* LTTng-UST reads its own clock for every event */
#endif
    uint64_t t = raw_ticks(mw->tsc);
    if (__builtin_expect(mw->skew != NULL, 0))
        t = mon_skew_apply(mw->skew, t);
    return t | 1u;
}

/* A new clock reading, the time of this event and of every event after it
 * until the next reading (docs/LOGFORMAT.md section 5): taken at each task
 * switch and each worker event, so that the events in between cost no
 * clock read. 0 without the t flag. */
static inline uint64_t take_reading(mon_worker *mw)
{
    if (!(mw->flags & MON_FLAG_TIMESTAMPS))
        return 0;
    uint64_t t = now_ticks(mw);
    mon_writer_hot_of(mw->w)->reading = t;
    return t;
}

/* The time of an event between two readings: the last one. */
static inline uint64_t shared_time(const mon_worker *mw) { return mon_writer_reading(mw->w); }

/* The reading itself: two system calls and an event, out of line. */
static __attribute__((noinline)) void cpu_read_now(mon_worker *mw, uint64_t ts, uint64_t now)
{
    uint64_t cpu_ns, switches;
    if (mon_cpu_read(&mw->cpu, now, &cpu_ns, &switches))
        mon_emit_cpu_time(mw->w, ts, cpu_ns, switches);
}

/* The trace clock for the CPU readings' step: the reading ts the task
 * switch has taken anyway, or the clock itself where there is none (no t
 * flag; the LTTng peer, whose events carry LTTng's times, not ours). */
static inline uint64_t cpu_clock(const mon_worker *mw, uint64_t ts)
{
#if MON_LTTNG
    (void)ts;
    return raw_ticks(mw->tsc);
#else
    return ts ? ts : now_ticks(mw);
#endif
}

/* A cpu_time event (flag C) before the event at ts that ends a task's
 * period or the worker: when the step has passed since the last one
 * (mon_cpu_internal.h), or always (`force`: worker_end, so that the
 * worker's total is in the trace, and where snetmon ctl switches C).
 * Inline: every task switch asks, and the answer is a subtraction and a
 * comparison against the switch's own clock reading. */
static inline __attribute__((always_inline)) void cpu_reading(mon_worker *mw, uint64_t ts,
                                                              bool force)
{
    if (!(mw->flags & MON_FLAG_CPU))
        return;
    uint64_t now = cpu_clock(mw, ts);
    if (force || mon_cpu_due(&mw->cpu, now))
        cpu_read_now(mw, ts, now);
}

/* Load accounting needs a clock even when events carry no time. */
static inline uint64_t load_time(const mon_worker *mw, uint64_t ev_ts)
{
    if (!(mw->flags & MON_FLAG_LOAD))
        return 0;
    return ev_ts ? ev_ts : now_ticks(mw);
}

/* A duration in ticks as the ns the load events promise. */
static inline uint64_t ticks_ns(const mon_worker *mw, uint64_t ticks)
{
    return mon_ticks_to_ns(ticks, mw->freq);
}

static void task_rec_choose(mon_worker *mw, struct mon_task_rec *r);

/* A new choice of what to record (snetmon ctl): take it over, choose every
 * task of this worker again, and say so in the log (monitor_control), at
 * the moment it applies here. Off the hot path: once per change. */
static void control_take(mon_worker *mw, char *pattern, size_t len)
{
    unsigned flags;
    const pcre2_code *regex;
    mon_control_get(mw->m->ctl, &mw->ctl_gen, &flags, &regex, pattern, len);
    if (regex != mw->regex) {
        pcre2_match_data *md = regex ? pcre2_match_data_create_from_pattern(regex, NULL) : NULL;
        if (regex && !md) {
            fprintf(stderr, "mon: warning: out of memory: worker %u keeps its --mon-tasks\n",
                    mw->id);
        } else {
            pcre2_match_data_free(mw->match);
            mw->match = md;
            mw->regex = regex;
        }
    }
    /* t stays as it was at the start (mon_control refuses to change it). */
    mw->flags = (flags & ~MON_FLAG_TIMESTAMPS) | (mw->flags & MON_FLAG_TIMESTAMPS);
}

static __attribute__((noinline)) void control_apply(mon_worker *mw)
{
    char pattern[MON_NAME_MAX + 1];
    unsigned had_cpu = mw->flags & MON_FLAG_CPU;
    control_take(mw, pattern, sizeof pattern);
    for (mon_task_rec *r = mw->tasks; r; r = r->next)
        task_rec_choose(mw, r);
    unsigned has_cpu = mw->flags & MON_FLAG_CPU;
    uint64_t ts = take_reading(mw);
    /* Where C goes off, a CPU reading ends its last stretch just before the
     * mark; where it comes on, one just after starts the next: no stretch
     * spans time without readings (mon_periods.c). */
    if (had_cpu && !has_cpu)
        cpu_read_now(mw, ts, cpu_clock(mw, ts));
    mon_emit_control(mw->w, ts, mw->flags, mw->regex ? pattern : NULL);
    if (has_cpu && !had_cpu)
        cpu_read_now(mw, ts, cpu_clock(mw, ts));
}

/* Whether what to record changed since this worker last looked. */
static inline void control_check(mon_worker *mw)
{
    if (__builtin_expect(atomic_load_explicit(mw->m->ctl_gen, memory_order_acquire) != mw->ctl_gen,
                         0))
        control_apply(mw);
}

static bool name_selected(mon_worker *mw, const char *name)
{
    if (!mw->regex)
        return true;
    return pcre2_match(mw->regex, (PCRE2_SPTR)name, PCRE2_ZERO_TERMINATED, 0, 0, mw->match,
                       NULL) >= 0;
}

/* Whether the task's events are recorded now, and which: the worker's
 * task classes if --mon-tasks selects it. */
static void task_rec_choose(mon_worker *mw, mon_task_rec *r)
{
    r->selected = name_selected(mw, r->name);
    r->on = r->selected ? mw->flags & MON_TASK_CLASSES : 0;
}

/* A record for task `id`, stored in its hook slot: made by task_map, the
 * first hook of every task. NULL when out of memory (the task's events are
 * then not recorded). */
static mon_task_rec *task_rec_new(mon_worker *mw, void **slot, uint64_t id, const char *name)
{
    size_t len = name ? strnlen(name, MON_NAME_MAX) : 0;
    mon_task_rec *r = calloc(1, sizeof *r + len + 1);
    if (!r)
        return NULL;
    r->mw = mw;
    r->w = mw->w;
    r->id = id;
    if (len)
        memcpy(r->name, name, len);
    task_rec_choose(mw, r);
    mw->tasks_seen++;
    mw->tasks_selected += r->selected;
    bool ring = mw->m->opt.ring_bytes != 0;
    if (ring)
        pthread_mutex_lock(&mw->tasks_lock);
    r->next = mw->tasks;
    if (mw->tasks)
        mw->tasks->prev = r;
    mw->tasks = r;
    if (ring)
        pthread_mutex_unlock(&mw->tasks_lock);
    *slot = r;
    return r;
}

/* Takes r out of the worker's list of live records (under tasks_lock
 * where a flight recorder's snapshot may walk the list). */
static void task_rec_unlink(mon_worker *mw, mon_task_rec *r)
{
    if (r->prev)
        r->prev->next = r->next;
    else
        mw->tasks = r->next;
    if (r->next)
        r->next->prev = r->prev;
}

static void task_rec_free(mon_worker *mw, mon_task_rec *r)
{
    bool ring = mw->m->opt.ring_bytes != 0;
    if (ring)
        pthread_mutex_lock(&mw->tasks_lock);
    task_rec_unlink(mw, r);
    if (ring)
        pthread_mutex_unlock(&mw->tasks_lock);
    free(r);
}

/* A flight recorder keeps an ended task's record while its last events may
 * be in the window (a window names the tasks in it), and frees those whose
 * last packet has left the ring. */
static void task_rec_bury(mon_worker *mw, mon_task_rec *r)
{
    pthread_mutex_lock(&mw->tasks_lock);
    task_rec_unlink(mw, r);
    r->dead_seq = mon_writer_packet_seq(mw->w);
    r->next = NULL;
    if (mw->dead_last)
        mw->dead_last->next = r;
    else
        mw->dead = r;
    mw->dead_last = r;
    while (mw->dead && mon_writer_ring_dropped(mw->w, mw->dead->dead_seq)) {
        mon_task_rec *gone = mw->dead;
        mw->dead = gone->next;
        if (!mw->dead)
            mw->dead_last = NULL;
        free(gone);
    }
    pthread_mutex_unlock(&mw->tasks_lock);
}

/* The record if the task's events of class `cls` are recorded, else NULL. */
static inline mon_task_rec *rec_on(void **slot, unsigned cls)
{
    mon_task_rec *r = *slot;
    return r && (r->on & cls) ? r : NULL;
}

/* ---------------------------------------------------------------------------
 * Worker events (WMO)
 * ------------------------------------------------------------------------- */

/* The context of the worker running on this thread, for the crash flush
 * (thread-local: one per worker thread, set by worker_start). */
static _Thread_local mon_worker *this_thread_worker;

/* write(2) all of it; false on failure. Async-signal-safe. */
static bool write_all(int fd, const char *p, size_t len)
{
    while (len) {
        ssize_t n = write(fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return false;
        p += n;
        len -= (size_t)n;
    }
    return true;
}

/* run.json saying why the run ends: the signal. Only open, write, close
 * and rename: async-signal-safe. Left as it was when anything fails. */
static void crash_write_run_json(mon *m, int sig)
{
    crash_text *c = atomic_load(&m->crash_json);
    if (!c)
        return;
    int saved = errno;
    char end[128];
    size_t n = mon_run_json_crash_end(end, sig);
    unlink(m->run_json_tmp); /* made anew: a FIFO of that name must not block the handler */
    int fd = open(m->run_json_tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd >= 0) {
        bool ok = write_all(fd, c->text, c->len) && write_all(fd, end, n);
        if (close(fd) == 0 && ok)
            rename(m->run_json_tmp, m->run_json_path);
        else
            unlink(m->run_json_tmp);
    }
    errno = saved;
}

/* Flush the crashing thread's own log first: it is the one that matters
 * most and the only one not written concurrently, so it is out before the
 * flush of the others (best effort, they are still running) can go wrong.
 * A flight recorder writes its window instead. Then run.json names the
 * signal. */
static void crash_ring_window(mon_worker *mw);

static void crash_flush_all(void *arg, int sig)
{
    mon *m = arg;
    mon_worker *self = this_thread_worker;
    if (m->opt.ring_bytes) {
        /* A flight recorder writes its window: its own log first. */
        if (self && self->m == m)
            crash_ring_window(self);
        for (mon_worker *mw = atomic_load(&m->workers); mw; mw = mw->next)
            if (mw != self)
                crash_ring_window(mw);
        crash_write_run_json(m, sig);
        return;
    }
    if (self && self->m == m)
        mon_writer_crash_flush(self->w);
    for (mon_worker *mw = atomic_load(&m->workers); mw; mw = mw->next)
        if (mw != self)
            mon_writer_crash_flush(mw->w);
    crash_write_run_json(m, sig);
}

/* Render run.json for the crash handler from m->info (unfinished). Called
 * when run.json is written unfinished, under m->lock or before the workers
 * start. Out of memory: the handler keeps the previous text. */
static void crash_text_update(mon *m)
{
    crash_text *c = calloc(1, sizeof *c);
    if (!c || mon_run_json_crash_text(&m->info, &c->text, &c->len) != 0) {
        free(c);
        return;
    }
    crash_text *old = atomic_exchange(&m->crash_json, c);
    if (m->crash_json_old) {
        free(m->crash_json_old->text);
        free(m->crash_json_old);
    }
    m->crash_json_old = old;
}

static void crash_text_free(mon *m)
{
    crash_text *cs[2] = {atomic_exchange(&m->crash_json, NULL), m->crash_json_old};
    m->crash_json_old = NULL;
    for (int i = 0; i < 2; i++)
        if (cs[i]) {
            free(cs[i]->text);
            free(cs[i]);
        }
}

/* The context of worker_id from an earlier run of a runtime with the same
 * monitor, or NULL. Called under m->lock. */
static mon_worker *earlier_worker(mon *m, unsigned worker_id)
{
    for (mon_worker *mw = atomic_load(&m->workers); mw; mw = mw->next)
        if (mw->id == worker_id)
            return mw;
    return NULL;
}

/* The runtime instance a starting worker belongs to. Runtimes run one
 * after another, never at the same time, and each starts each of its
 * num_workers workers once: a worker start after all workers of the
 * current run have started begins the next run. Called under m->lock. */
static uint32_t run_of_starting_worker(mon *m, unsigned num_workers)
{
    if (m->run == 0 || m->run_started >= m->run_workers) {
        m->run++;
        m->run_workers = num_workers;
        m->run_started = 0;
    }
    m->run_started++;
    return m->run;
}

/* Every run begins each worker's part of the log with run_start, whatever
 * the flags: task, stream and message ids restart with each runtime, so
 * readers need it to tell the runs apart. */
static void begin_run(mon_worker *mw, uint32_t run)
{
    mon_writer_set_run(mw->w, run);
    mon_writer_set_timed(mw->w, mw->flags & MON_FLAG_TIMESTAMPS);
    uint64_t ts = take_reading(mw);
    mon_emit_task(mw->w, MON_ID_RUN_START, ts, run);
    mw->run_starts++;
    if (mw->flags & MON_FLAG_WORKER)
        mon_emit_bare(mw->w, MON_ID_WORKER_START, ts);
    /* Whatever the flags: snetmon ctl may switch C on later, and the
     * readings count from here (two system calls per worker and run). */
    mon_cpu_start(&mw->cpu, mw->freq, cpu_clock(mw, ts));
}

static void *hook_worker_start(void *ctx, unsigned worker_id, unsigned num_workers)
{
    mon *m = ctx;
    /* A program may run several runtimes one after another with the same
     * hooks (a benchmark's repetitions): worker N then continues its log,
     * so the trace holds the runs in order. The earlier run's worker thread
     * has been joined, so handing its writer to this thread is safe. */
    pthread_mutex_lock(&m->lock);
    mon_worker *old = earlier_worker(m, worker_id);
    uint32_t run = run_of_starting_worker(m, num_workers);
    pthread_mutex_unlock(&m->lock);
    if (old) {
        this_thread_worker = old;
        old->waits = 0;
        old->wait_ticks = old->busy_ticks = 0;
        begin_run(old, run);
        return old;
    }
    mon_worker *mw = calloc(1, sizeof *mw);
    if (!mw) {
        fprintf(stderr, "mon: warning: out of memory: worker %u is not monitored\n", worker_id);
        return NULL;
    }
    char err[512];
    mw->m = m;
    mw->id = worker_id;
    pthread_mutex_init(&mw->tasks_lock, NULL);
    snprintf(mw->ring_path, sizeof mw->ring_path, "%s/%s%u", m->ctf_dir, MON_WORKER_FILE_PREFIX,
             worker_id);
    mw->flags = m->opt.flags;
    mw->tsc = m->info.clock.tsc;
    mw->freq = m->info.clock.freq;
    mw->skew = m->skewed ? &m->skew : NULL;
    mw->w = m->opt.ring_bytes
                ? mon_writer_open_ring(m->ctf_dir, worker_id, m->info.run_id, m->opt.packet_bytes,
                                       m->opt.ring_bytes, err, sizeof err)
                : mon_writer_open_run(m->ctf_dir, worker_id, m->info.run_id, m->opt.packet_bytes,
                                      err, sizeof err);
    if (!mw->w) {
        /* Keep going: every event of this worker is then counted as lost. */
        fprintf(stderr, "mon: warning: %s\n", err);
        char path[4300];
        if (snprintf(path, sizeof path, "%s/%s%u", m->ctf_dir, MON_WORKER_FILE_PREFIX, worker_id) < 0)
            path[0] = '\0';
        mw->w = mon_writer_open_fd(-1, path, worker_id, m->opt.packet_bytes, err, sizeof err);
    }
    /* What to record now: as started, or as snetmon ctl has changed it. */
    char pattern[MON_NAME_MAX + 1];
    control_take(mw, pattern, sizeof pattern);
    if (!mw->w || (mw->regex && !mw->match)) {
        fprintf(stderr, "mon: warning: out of memory: worker %u is not monitored\n", worker_id);
        mon_writer_close(mw->w);
        pcre2_match_data_free(mw->match);
        pthread_mutex_destroy(&mw->tasks_lock);
        free(mw);
        return NULL;
    }
    pthread_mutex_lock(&m->lock);
    mw->next = atomic_load(&m->workers);
    atomic_store(&m->workers, mw);
    if (!m->crash_registered) {
        /* Here, not in mon_open: LPEL installs its own SIGSEGV handler when
         * its workers start, and ours must sit on top of it to chain. */
        m->crash_registered = mon_crash_register(&m->crash) == 0;
    }
    pthread_mutex_unlock(&m->lock);
    this_thread_worker = mw;
    begin_run(mw, run);
    if (mw->ctl_gen != 0) /* changed before this worker started: the log says so */
        mon_emit_control(mw->w, shared_time(mw), mw->flags, mw->regex ? pattern : NULL);
    return mw;
}

static void hook_worker_wait(void *wctx)
{
    mon_worker *mw = wctx;
    if (!mw)
        return;
    uint64_t ts = take_reading(mw);
    mw->switched = false;
    cpu_reading(mw, ts, false);
    mw->wait_ts = load_time(mw, ts);
    if (mw->flags & MON_FLAG_WORKER)
        mon_emit_bare(mw->w, MON_ID_WORKER_WAIT, ts);
}

static void hook_worker_resume(void *wctx)
{
    mon_worker *mw = wctx;
    if (!mw)
        return;
    control_check(mw);
    uint64_t ts = take_reading(mw);
    if (mw->flags & MON_FLAG_LOAD) {
        mw->waits++;
        mw->wait_ticks += load_time(mw, ts) - mw->wait_ts;
    }
    if (mw->flags & MON_FLAG_WORKER)
        mon_emit_bare(mw->w, MON_ID_WORKER_RESUME, ts);
}

/* The worker takes tasks other threads posted (another worker's wake-up,
 * a new task): they became ready after the period that just ended, maybe
 * while the worker polled its mailbox, so the dispatch that follows reads
 * the clock anew; sharing the end's reading would date it before the wake
 * that made its task ready (a reader would pair neither). Also after
 * worker_resume, which the mail that woke the worker always follows. */
static void hook_worker_mail(void *wctx)
{
    mon_worker *mw = wctx;
    if (mw)
        mw->switched = false;
}

static void hook_worker_end(void *wctx)
{
    mon_worker *mw = wctx;
    if (!mw)
        return;
    uint64_t ts = take_reading(mw);
    cpu_reading(mw, ts, true);
    if (mw->flags & MON_FLAG_LOAD)
        mon_emit_worker_load(mw->w, ts, mw->waits, ticks_ns(mw, mw->wait_ticks),
                             ticks_ns(mw, mw->busy_ticks));
    if (mw->flags & MON_FLAG_WORKER)
        mon_emit_bare(mw->w, MON_ID_WORKER_END, ts);
    mon_writer_flush(mw->w);
    this_thread_worker = NULL;
}

/* ---------------------------------------------------------------------------
 * Mapping and scheduling events (MMO, SCMO)
 *
 * Readings: the end of a period (the task's first stream_block, or its
 * task_block, yield or destroy) reads the clock, and the dispatch right
 * after it shares that reading; a dispatch after anything else reads it
 * anew. Every other task-level event takes the last reading. The CPU
 * readings (C) are taken at the ends of periods with their reading, once
 * the step has passed (mon_cpu_internal.h), and at worker_wait and end.
 * ------------------------------------------------------------------------- */

static void hook_task_map(void *wctx, void **slot, uint64_t task, const char *name,
                          unsigned worker_id)
{
    mon_worker *mw = wctx;
    if (!mw)
        return;
    (void)worker_id; /* this worker: the log's own, which task_map does not repeat */
    mon_task_rec *r = task_rec_new(mw, slot, task, name);
    /* Mapping is recorded for every task, filtered or not, so that the ids
     * in other tasks' stream events can always be named. */
    if (r && (mw->flags & MON_FLAG_MAP))
        mon_emit_task_map(mw->w, shared_time(mw), task, name);
}

static void hook_task_create(void *wctx, void **slot, uint64_t task)
{
    (void)task;
    mon_task_rec *r = wctx ? rec_on(slot, MON_FLAG_TASK) : NULL;
    if (r)
        mon_emit_task(r->w, MON_ID_TASK_CREATE, mon_writer_reading(r->w), r->id);
}

static void hook_task_dispatch(void *wctx, void **slot, uint64_t task)
{
    (void)task;
    mon_worker *mw = wctx;
    if (!mw)
        return;
    control_check(mw);
    mon_task_rec *r = *slot;
    mw->current = r; /* for the message traces of this period */
    bool shared = mw->switched;
    mw->switched = false;
    if (!r || !r->on)
        return;
    uint64_t ts = shared ? shared_time(mw) : take_reading(mw);
    if (r->on & MON_FLAG_LOAD) {
        r->dispatch_ts = load_time(mw, ts);
        r->dispatches++;
    }
    if (r->on & MON_FLAG_TASK)
        mon_emit_task(r->w, MON_ID_TASK_DISPATCH, ts, r->id);
}

/* The task stops running (block, yield, destroy): account its period. */
static void period_end(mon_worker *mw, mon_task_rec *r, uint64_t ts)
{
    if (!(r->on & MON_FLAG_LOAD) || !r->dispatch_ts)
        return;
    uint64_t d = load_time(mw, ts) - r->dispatch_ts;
    r->exec_ticks += d;
    mw->busy_ticks += d;
    r->dispatch_ts = 0;
}

/* The reading that ends a period: the stream_block's just before, or a new
 * one; the next dispatch shares it. */
static inline uint64_t period_end_reading(mon_worker *mw)
{
    bool after_stream_block = mw->in_block;
    mw->in_block = false;
    mw->switched = true;
    return after_stream_block ? shared_time(mw) : take_reading(mw);
}

/* A period ends (block, yield, destroy): its reading when the task's T or
 * L events are recorded (`timed`), and the worker's CPU reading when C is on
 * and the step has passed, which shares it. false: neither is wanted, and
 * no reading is taken. */
static inline __attribute__((always_inline)) bool period_stop(mon_worker *mw, bool timed,
                                                              uint64_t *ts)
{
    if (!timed && !(mw->flags & MON_FLAG_CPU))
        return false;
    *ts = period_end_reading(mw);
    cpu_reading(mw, *ts, false);
    return true;
}

static void hook_task_block(void *wctx, void **slot, uint64_t task, lpel_block_cause cause)
{
    (void)task;
    mon_worker *mw = wctx;
    if (!mw)
        return;
    mon_task_rec *r = rec_on(slot, MON_FLAG_TASK | MON_FLAG_LOAD);
    uint64_t ts;
    if (!period_stop(mw, r != NULL, &ts)) {
        /* Nothing of this period to time; a stream_block's reading still
         * serves the next dispatch. */
        mw->switched = mw->in_block;
        mw->in_block = false;
        return;
    }
    if (!r)
        return;
    period_end(mw, r, ts);
    if (r->on & MON_FLAG_TASK)
        mon_emit_task_block(r->w, ts, r->id, (unsigned)cause);
}

static void hook_task_yield(void *wctx, void **slot, uint64_t task)
{
    (void)task;
    mon_worker *mw = wctx;
    if (!mw)
        return;
    mon_task_rec *r = rec_on(slot, MON_FLAG_TASK | MON_FLAG_LOAD);
    uint64_t ts;
    if (!period_stop(mw, r != NULL, &ts) || !r)
        return;
    period_end(mw, r, ts);
    if (r->on & MON_FLAG_TASK)
        mon_emit_task(r->w, MON_ID_TASK_YIELD, ts, r->id);
}

static void hook_task_destroy(void *wctx, void **slot, uint64_t task)
{
    (void)task;
    mon_worker *mw = wctx;
    mon_task_rec *r = *slot;
    if (!mw || !r)
        return;
    unsigned timed = r->on & (MON_FLAG_TASK | MON_FLAG_LOAD);
    uint64_t ts;
    if (period_stop(mw, timed, &ts) && timed) {
        period_end(mw, r, ts);
        if (r->on & MON_FLAG_LOAD)
            mon_emit_task_load(r->w, ts, r->id, r->dispatches, ticks_ns(mw, r->exec_ticks));
        if (r->on & MON_FLAG_TASK)
            mon_emit_task(r->w, MON_ID_TASK_DESTROY, ts, r->id);
    }
    if (mw->current == r)
        mw->current = NULL;
    *slot = NULL;
    if (mw->m->opt.ring_bytes)
        task_rec_bury(mw, r);
    else
        task_rec_free(mw, r);
}

/* ---------------------------------------------------------------------------
 * Stream events (SMO): the reading of the period they are in, except the
 * stream_block(s) that end it
 * ------------------------------------------------------------------------- */

static void hook_stream_open(void *wctx, void **slot, uint64_t task, uint64_t stream,
                             lpel_stream_mode mode)
{
    (void)wctx;
    mon_task_rec *r = rec_on(slot, MON_FLAG_STREAM);
    if (r)
        mon_emit_stream_mode(r->w, MON_ID_STREAM_OPEN, mon_writer_reading(r->w), task, stream,
                             mode == LPEL_STREAM_WRITE);
}

static void hook_stream_close(void *wctx, void **slot, uint64_t task, uint64_t stream,
                              lpel_stream_mode mode)
{
    (void)wctx;
    mon_task_rec *r = rec_on(slot, MON_FLAG_STREAM);
    if (r)
        mon_emit_stream_mode(r->w, MON_ID_STREAM_CLOSE, mon_writer_reading(r->w), task, stream,
                             mode == LPEL_STREAM_WRITE);
}

static void hook_stream_read(void *wctx, void **slot, uint64_t task, uint64_t stream)
{
    (void)wctx;
    mon_task_rec *r = rec_on(slot, MON_FLAG_STREAM);
    if (r)
        mon_emit_stream_io(r->w, MON_ID_STREAM_READ, mon_writer_reading(r->w), task, stream);
}

static void hook_stream_write(void *wctx, void **slot, uint64_t task, uint64_t stream)
{
    (void)wctx;
    mon_task_rec *r = rec_on(slot, MON_FLAG_STREAM);
    if (r)
        mon_emit_stream_io(r->w, MON_ID_STREAM_WRITE, mon_writer_reading(r->w), task, stream);
}

static void hook_stream_block(void *wctx, void **slot, uint64_t task, uint64_t stream,
                              bool empty)
{
    (void)wctx;
    mon_task_rec *r = rec_on(slot, MON_FLAG_STREAM);
    if (!r)
        return;
    /* The task waited for is not recorded here: the other end's task may
     * be closing and freeing itself on another worker right now, so it
     * must not be touched. Readers know it from that task's stream_open.
     * The block ends the period, so it reads the clock; a poll reports
     * several streams in a row: one moment, one reading. */
    mon_worker *mw = r->mw;
    uint64_t ts = mw->in_block ? shared_time(mw) : take_reading(mw);
    mw->in_block = true;
    mon_emit_stream_block(r->w, ts, task, stream, empty);
}

/* A wake of a task on another worker reads the clock: that worker may run
 * it at once, and with the period's reading the wake could be dated before
 * the woken task's block (or dispatch) there, which a reader could not pair
 * it with, and the split of its wait into blocked and ready time would be
 * off by the waker's period. A task on this worker runs after the waker's
 * period only: the period's reading keeps the order. */
static void hook_stream_wake(void *wctx, void **slot, uint64_t task, uint64_t stream,
                             uint64_t woken, bool local)
{
    (void)wctx;
    mon_task_rec *r = rec_on(slot, MON_FLAG_STREAM);
    if (r)
        mon_emit_stream_wake(r->w, local ? mon_writer_reading(r->w) : take_reading(r->mw), task,
                             stream, woken);
}

/* ---------------------------------------------------------------------------
 * Message traces (TMO): called from inside the task, so on its worker
 * ------------------------------------------------------------------------- */

/* The record of the task running on the calling worker thread, if its
 * events of class cls are recorded. t is that task (what lpel_task_self
 * returns); only whether it is NULL matters: the record comes from the
 * dispatch hook, so no call into the runtime is needed. */
static inline mon_task_rec *running_rec(const lpel_task *t, unsigned cls)
{
    mon_worker *mw = this_thread_worker;
    mon_task_rec *r = mw && t ? mw->current : NULL;
    return r && (r->on & cls) ? r : NULL;
}

void mon_component_begin(lpel_task *t)
{
    mon_task_rec *r = running_rec(t, MON_FLAG_MESSAGE);
    if (r)
        mon_emit_task(r->w, MON_ID_COMPONENT_BEGIN, mon_writer_reading(r->w), r->id);
}

/* The events that end user code (a box's output, its return) read the
 * clock: a box call lies between them and the reading before, which is
 * what the message latencies measure. component_begin follows runtime
 * code only. message_read reads the clock too: a task can read a message
 * written on another worker after its own period began (the stream was
 * not empty), and stamped with the period's reading the read would come
 * before its write in the merged trace, which no analysis can pair. */
void mon_component_end(lpel_task *t)
{
    mon_task_rec *r = running_rec(t, MON_FLAG_MESSAGE);
    if (r)
        mon_emit_task(r->w, MON_ID_COMPONENT_END, take_reading(r->mw), r->id);
}

void mon_message_read(lpel_task *t, uint64_t msg_id)
{
    mon_task_rec *r = running_rec(t, MON_FLAG_MESSAGE);
    if (r)
        mon_emit_message(r->w, MON_ID_MESSAGE_READ, take_reading(r->mw), r->id, msg_id);
}

void mon_message_written(lpel_task *t, uint64_t msg_id)
{
    mon_task_rec *r = running_rec(t, MON_FLAG_MESSAGE);
    if (r)
        mon_emit_message(r->w, MON_ID_MESSAGE_WRITTEN, take_reading(r->mw), r->id, msg_id);
}

/* ---------------------------------------------------------------------------
 * Across MPI ranks: message ends, channels, clock samples
 * ------------------------------------------------------------------------- */

void mon_message_sent(lpel_task *t, uint64_t msg, unsigned rank)
{
    mon_task_rec *r = running_rec(t, MON_FLAG_MESSAGE);
    if (r)
        mon_emit_transfer(r->w, MON_ID_MESSAGE_SENT, take_reading(r->mw), r->id, msg, rank);
}

void mon_message_received(lpel_task *t, uint64_t msg, unsigned rank)
{
    mon_task_rec *r = running_rec(t, MON_FLAG_MESSAGE);
    if (r)
        mon_emit_transfer(r->w, MON_ID_MESSAGE_RECEIVED, take_reading(r->mw), r->id, msg, rank);
}

void mon_channel_open(lpel_task *t, uint64_t channel, unsigned rank, bool sends)
{
    mon_task_rec *r = running_rec(t, MON_FLAG_STREAM);
    if (r)
        mon_emit_channel_open(r->w, mon_writer_reading(r->w), r->id, channel, rank, sends);
}

/* A channel wait: the moment the task starts waiting matters, so it reads
 * the clock. */
void mon_channel_block(lpel_task *t, uint64_t channel, bool empty)
{
    mon_task_rec *r = running_rec(t, MON_FLAG_STREAM);
    if (r)
        mon_emit_channel_block(r->w, take_reading(r->mw), r->id, channel, empty);
}

bool mon_sync_now(uint64_t *ticks)
{
    mon *m = atomic_load(&mon_current);
    if (!m || !(m->opt.flags & MON_FLAG_TIMESTAMPS))
        return false;
    uint64_t t = raw_ticks(m->info.clock.tsc);
    *ticks = m->skewed ? mon_skew_apply(&m->skew, t) : t;
    return true;
}

void mon_sync_record(const char *phase, const mon_sync_sample *s, size_t n)
{
    mon *m = atomic_load(&mon_current);
    if (!m || n == 0)
        return;
    bool end = phase && !strcmp(phase, "end");
    pthread_mutex_lock(&m->lock);
    if (KIT_GROW(m->sync, m->cap_sync, m->nsync + n) != 0) {
        pthread_mutex_unlock(&m->lock);
        fprintf(stderr, "mon: warning: out of memory: %zu clock samples not recorded\n", n);
        return;
    }
    for (size_t i = 0; i < n; i++)
        m->sync[m->nsync++] =
            (mon_sync_entry){end, s[i].local_send, s[i].reference, s[i].local_receive};
    m->info.sync = m->sync;
    m->info.nsync = m->nsync;
    /* Now, not only at the end: a rank killed during the run keeps the
     * samples taken before it. */
    char err[512];
    if (!m->info.complete && mon_run_json_write(m->dir, &m->info, err, sizeof err) != 0)
        fprintf(stderr, "mon: warning: %s (clock samples not written yet)\n", err);
    if (!m->info.complete)
        crash_text_update(m);
    pthread_mutex_unlock(&m->lock);
}

/* ---------------------------------------------------------------------------
 * Opening and closing
 * ------------------------------------------------------------------------- */

/* A deadlock: the flight recorder's window shows what led to it (written
 * by the service thread; this runs under the runtime's lock). */
static void hook_deadlock(void *ctx)
{
    mon *m = ctx;
    mon_control_request_snapshot(m->ctl, "deadlock");
}

/* Every hook is installed, whatever the flags: snetmon ctl may switch any
 * class on while the program runs. A class that is off costs its hook
 * point a call and a test of the task record's classes. */
static void fill_hooks(mon *m)
{
    lpel_hooks *h = &m->hooks;
    *h = (lpel_hooks){
        .ctx = m,
        .worker_start = hook_worker_start,
        .worker_wait = hook_worker_wait,
        .worker_resume = hook_worker_resume,
        .worker_end = hook_worker_end,
        .worker_mail = hook_worker_mail,
        .task_map = hook_task_map,
        .task_create = hook_task_create,
        .task_dispatch = hook_task_dispatch,
        .task_block = hook_task_block,
        .task_yield = hook_task_yield,
        .task_destroy = hook_task_destroy,
        .stream_open = hook_stream_open,
        .stream_close = hook_stream_close,
        .stream_read = hook_stream_read,
        .stream_write = hook_stream_write,
        .stream_block = hook_stream_block,
        .stream_wake = hook_stream_wake,
        .deadlock = m->opt.ring_bytes ? hook_deadlock : NULL,
    };
}

static int compile_regex(mon *m, char *err, size_t errlen)
{
    if (!m->opt.task_regex)
        return 0;
    int code;
    PCRE2_SIZE off;
    m->regex = pcre2_compile((PCRE2_SPTR)m->opt.task_regex, PCRE2_ZERO_TERMINATED, 0, &code, &off,
                             NULL);
    if (m->regex)
        return 0;
    PCRE2_UCHAR msg[256];
    pcre2_get_error_message(code, msg, sizeof msg);
    snprintf(err, errlen, "--mon-tasks: bad pattern '%s' at offset %zu: %s", m->opt.task_regex,
             (size_t)off, (const char *)msg);
    return -1;
}

static int append_arg(mon *m, const char *arg)
{
    m->argv[m->argc] = strdup(arg);
    if (!m->argv[m->argc])
        return -1;
    m->argc++;
    return 0;
}

/* The command line for run.json as the process was given it: the kernel's
 * copy, since by now mon_parse_args has cut the monitoring options out of
 * argv and the program's getopt has reordered what is left ("-m A" came
 * back as "-m mtWTSMLC" at the end). 0, 1 when it cannot be read (then
 * copy_args rebuilds it), -1 when memory runs out. */
static int read_cmdline(mon *m)
{
    FILE *f = fopen("/proc/self/cmdline", "rb");
    if (!f)
        return 1;
    char *buf = NULL;
    size_t len = 0, cap = 0;
    for (;;) {
        if (len == cap) {
            char *more = realloc(buf, cap = cap ? 2 * cap : 4096);
            if (!more) {
                free(buf);
                fclose(f);
                return -1;
            }
            buf = more;
        }
        size_t got = fread(buf + len, 1, cap - len, f);
        len += got;
        if (got == 0)
            break;
    }
    bool bad = ferror(f) || len == 0 || buf[len - 1] != '\0';
    fclose(f);
    size_t n = 0;
    for (size_t i = 0; !bad && i < len; i++)
        n += buf[i] == '\0';
    int rc = bad ? 1 : (m->argv = calloc(n + 1, sizeof *m->argv)) ? 0 : -1;
    for (size_t i = 0; rc == 0 && i < len; i += strlen(buf + i) + 1)
        if (append_arg(m, buf + i) != 0)
            rc = -1;
    free(buf);
    return rc;
}

/* The command line rebuilt from argv where the kernel's copy cannot be
 * read: mon_parse_args has cut the monitoring options out of argv, so they
 * are appended again from the options and the recorded line reproduces
 * the run. */
static int copy_args(mon *m, const mon_options *opt, int argc, char *const *argv)
{
    int given = read_cmdline(m);
    if (given <= 0)
        return given;
    m->argv = calloc((size_t)argc + 11, sizeof *m->argv);
    if (!m->argv)
        return -1;
    for (int i = 0; i < argc; i++)
        if (append_arg(m, argv[i] ? argv[i] : "") != 0)
            return -1;
    char letters[16];
    mon_flags_format(opt->flags, letters, sizeof letters);
    if (append_arg(m, "-m") || append_arg(m, letters) || append_arg(m, "--mon-dir") ||
        append_arg(m, opt->dir ? opt->dir : MON_DEFAULT_DIR))
        return -1;
    if (opt->task_regex && (append_arg(m, "--mon-tasks") || append_arg(m, opt->task_regex)))
        return -1;
    char ms[32];
    snprintf(ms, sizeof ms, "%u", opt->flush_ms);
    if (opt->flush_ms != MON_DEFAULT_FLUSH_MS &&
        (append_arg(m, "--mon-flush") || append_arg(m, ms)))
        return -1;
    char ring[32];
    snprintf(ring, sizeof ring, "%zu", opt->ring_bytes);
    if (opt->ring_bytes && (append_arg(m, "--mon-ring") || append_arg(m, ring)))
        return -1;
    return 0;
}

static void mon_free(mon *m)
{
    mon_worker *mw = atomic_load(&m->workers);
    while (mw) {
        mon_worker *next = mw->next;
        while (mw->tasks)
            task_rec_free(mw, mw->tasks);
        while (mw->dead) {
            mon_task_rec *gone = mw->dead;
            mw->dead = gone->next;
            free(gone);
        }
        pcre2_match_data_free(mw->match);
        pthread_mutex_destroy(&mw->tasks_lock);
        free(mw);
        mw = next;
    }
    for (int i = 0; i < m->argc; i++)
        free(m->argv[i]);
    free(m->argv);
    pcre2_code_free(m->regex); /* NULL once the control channel has it */
    free(m->regex_src);
    free(m->sync);
    crash_text_free(m);
    pthread_mutex_destroy(&m->lock);
    free(m);
}

/* ---------------------------------------------------------------------------
 * The flight recorder (--mon-ring): windows of the rings as traces
 * ------------------------------------------------------------------------- */

/* The task_map of every task the worker has now, with one-byte headers: the
 * window's prefix, so that tasks mapped before the window keep their
 * names. NULL (no names, a warning) when out of memory. */
static uint8_t *task_map_prefix(mon_worker *mw, size_t *len, uint64_t *events)
{
    pthread_mutex_lock(&mw->tasks_lock);
    size_t n = 0, cap = 0;
    mon_task_rec *lists[] = {mw->dead, mw->tasks};
    for (unsigned l = 0; l < 2; l++)
        for (mon_task_rec *r = lists[l]; r; r = r->next)
            cap += MON_EVENT_MAX_BYTES;
    uint8_t *buf = malloc(cap + MON_STORE_SLACK);
    *events = 0;
    for (unsigned l = 0; l < 2; l++)
        for (mon_task_rec *r = lists[l]; buf && r; r = r->next, ++*events)
            n += mon_encode_task_map(buf + n, mw->m->opt.flags & MON_FLAG_TIMESTAMPS, 0, r->id,
                                     r->name);
    pthread_mutex_unlock(&mw->tasks_lock);
    if (!buf)
        fprintf(stderr, "mon: warning: out of memory: the window of worker %u names no task "
                        "mapped before it\n", mw->id);
    *len = n;
    return buf;
}

/* Worker mw's window into DIR/worker-N; its run.json entries into *win
 * and *log. 0, or -1 with err. */
static int window_log(mon_worker *mw, const char *dir, mon_window_entry *win, mon_log_count *log,
                      char *err, size_t errlen)
{
    char path[4300];
    snprintf(path, sizeof path, "%s/%s%u", dir, MON_WORKER_FILE_PREFIX, mw->id);
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    size_t plen = 0;
    uint64_t prefix_events = 0;
    /* Names whatever the m flag: a window without them would leave its
     * tasks anonymous. (mw->flags is the worker's to change: not read.) */
    uint8_t *prefix = task_map_prefix(mw, &plen, &prefix_events);
    mon_ring_window rw;
    int rc = mon_writer_ring_write(mw->w, fd, prefix, plen, true, &rw);
    free(prefix);
    if (rc != 0 || close(fd) != 0) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        if (rc != 0)
            close(fd);
        return -1;
    }
    *win = (mon_window_entry){mw->id, rw.first_packet, rw.events_before, rw.start_ticks};
    *log = (mon_log_count){.worker = mw->id, .events = rw.events + prefix_events, .bytes = rw.bytes};
    return 0;
}

/* Every worker's window into ctf_dir, and the run.json of the window into
 * dir (why: what asked for it; k: the snapshot's number, 0 at exit). */
static int window_write(mon *m, const char *dir, const char *ctf_dir, const char *why, unsigned k,
                        char *err, size_t errlen)
{
    unsigned n = 0;
    for (mon_worker *mw = atomic_load(&m->workers); mw; mw = mw->next)
        n++;
    mon_window_entry *win = calloc(n ? n : 1, sizeof *win);
    mon_log_count *logs = calloc(n ? n : 1, sizeof *logs);
    int rc = win && logs ? 0 : -1;
    if (rc)
        snprintf(err, errlen, "out of memory");
    unsigned i = 0;
    uint64_t events = 0;
    for (mon_worker *mw = atomic_load(&m->workers); rc == 0 && mw; mw = mw->next, i++) {
        rc = window_log(mw, ctf_dir, &win[i], &logs[i], err, errlen);
        events += logs[i].events;
    }
    if (rc == 0) {
        pthread_mutex_lock(&m->lock);
        mon_run_info info = m->info;
        pthread_mutex_unlock(&m->lock);
        info.workers = n;
        info.events_recorded = events;
        info.logs = logs;
        info.nlogs = n;
        info.complete = true;
        info.window_why = why;
        info.snapshot = k;
        info.window = win;
        info.nwindow = n;
        rc = mon_metadata_write(ctf_dir, &info, err, errlen) == 0 &&
                     mon_run_json_write(dir, &info, err, errlen) == 0
                 ? 0
                 : -1;
    }
    free(win);
    free(logs);
    return rc;
}

/* A snapshot (snetmon snap, SIGUSR1, a deadlock): DIR/snapshot-K, a whole
 * trace of the window, made under a temporary name and renamed, so that a
 * reader never meets half of one. */
static int ring_snapshot(void *arg, const char *why, char *path, size_t len, char *err,
                         size_t errlen)
{
    mon *m = arg;
    pthread_mutex_lock(&m->lock);
    unsigned k = ++m->snapshots;
    pthread_mutex_unlock(&m->lock);
    char tmp[4200], ctf[4300];
    snprintf(path, len, "%s/" MON_SNAPSHOT_DIR_PREFIX "%u", m->dir, k);
    snprintf(tmp, sizeof tmp, "%s/" MON_SNAPSHOT_DIR_PREFIX "%u" MON_SNAPSHOT_TMP_SUFFIX, m->dir, k);
    snprintf(ctf, sizeof ctf, "%s/%s", tmp, MON_CTF_SUBDIR);
    if (mon_mkdirs(ctf, err, errlen) != 0 || window_write(m, tmp, ctf, why, k, err, errlen) != 0)
        return -1;
    if (rename(tmp, path) != 0) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    return 0;
}

/* The crash handler's window of one worker, into DIR/ctf/worker-N: no
 * names prefix and no run.json (only async-signal-safe calls); the first
 * run.json says it is a flight recorder's, and the reader takes the log's
 * packets before the window as not recorded. */
static void crash_ring_window(mon_worker *mw)
{
    int fd = open(mw->ring_path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        return;
    (void)mon_writer_ring_write(mw->w, fd, NULL, 0, false, NULL);
    close(fd);
}

/* ---------------------------------------------------------------------------
 * The service thread's work (mon_control.c calls these)
 * ------------------------------------------------------------------------- */

/* Every flush period, publish what each worker has recorded: a killed run
 * then keeps everything up to the last period, and a live view sees the
 * run as it goes. Publishing writes each worker's new events and header
 * fields into its log (a few pwrite calls on the service thread); a worker
 * waits for it only if it fills its packet at that very moment. */
static void flush_tick(void *arg)
{
    mon *m = arg;
    for (mon_worker *mw = atomic_load(&m->workers); mw; mw = mw->next)
        mon_writer_publish(mw->w);
}

/* The generation of a run without a control channel: never moves. */
static const _Atomic unsigned no_control_gen;

static int control_start(mon *m, char *err, size_t errlen)
{
    mon_control_handlers h = {.arg = m, .tick = flush_tick,
                              .snapshot = m->opt.ring_bytes ? ring_snapshot : NULL,
                              .flush_ms = m->opt.ring_bytes ? 0 : m->opt.flush_ms};
    m->ctl_gen = &no_control_gen;
    if (mon_control_open(&m->ctl, m->dir, m->opt.flags, m->regex_src, m->regex, &h, err,
                         errlen) != 0)
        return -1;
    m->ctl_gen = mon_control_generation(m->ctl);
    m->regex = NULL; /* the control channel's now */
    return 0;
}

/* Copy what the monitor keeps of the options and the command line: the
 * caller's strings need not outlive the run. */
static int copy_options(mon *m, const mon_options *opt, int argc, char *const *argv, char *err,
                        size_t errlen)
{
    m->opt = *opt;
    const char *dir = opt->dir ? opt->dir : MON_DEFAULT_DIR;
    snprintf(m->top_dir, sizeof m->top_dir, "%s", dir);
    int n = opt->ranks > 0 ? snprintf(m->dir, sizeof m->dir, "%s/%s%d", dir, MON_RANK_DIR_PREFIX,
                                      opt->rank)
                           : snprintf(m->dir, sizeof m->dir, "%s", dir);
    if (n < 0 || (size_t)n >= sizeof m->dir || strlen(dir) >= sizeof m->top_dir) {
        snprintf(err, errlen, "mon: trace directory name too long: %s", dir);
        return -1;
    }
    m->opt.dir = m->top_dir; /* what the recorded command line says */
    m->opt.task_regex = opt->task_regex ? (m->regex_src = strdup(opt->task_regex)) : NULL;
    if (copy_args(m, opt, argc, argv) != 0 || (opt->task_regex && !m->regex_src)) {
        snprintf(err, errlen, "mon: out of memory");
        return -1;
    }
    return compile_regex(m, err, errlen);
}

/* The clock-skew test hook, when MON_CLOCK_SKEW names this process's rank. */
static int start_skew(mon *m, char *err, size_t errlen)
{
    const mon_clock *c = &m->info.clock;
    int rc = mon_skew_parse(getenv(MON_CLOCK_SKEW_ENV), m->info.rank, c, raw_ticks(c->tsc),
                            &m->skew, err, errlen);
    if (rc < 0)
        return -1;
    m->skewed = rc > 0;
    if (m->skewed) {
        m->info.skew_on = true;
        m->info.skew_offset_ns = (long long)((double)m->skew.offset_ticks * 1e9 / (double)c->freq);
        m->info.skew_ppm = m->skew.drift * 1e6;
        fprintf(stderr, "mon: warning: %s: rank %d records its times %lld ns off, drifting "
                        "%.3f ppm (a test hook)\n",
                MON_CLOCK_SKEW_ENV, m->info.rank, m->info.skew_offset_ns, m->info.skew_ppm);
    }
    return 0;
}

/* The trace directory with its metadata and first run.json. */
static int start_trace(mon *m, char *err, size_t errlen)
{
    if (gethostname(m->host, sizeof m->host - 1) != 0)
        snprintf(m->host, sizeof m->host, "unknown");
    mon_run_info *info = &m->info;
    info->argc = m->argc;
    info->argv = m->argv;
    info->flags = m->opt.flags;
    info->task_regex = m->regex_src;
    info->host = m->host;
    info->rank = m->opt.ranks > 0 ? m->opt.rank : 0;
    info->ring_bytes = m->opt.ring_bytes;
    info->ranks = m->opt.ranks;
    info->run_id = mon_run_id_new();
    mon_clock_init(&info->clock, getenv(MON_CLOCK_ENV));
    if (start_skew(m, err, errlen) != 0)
        return -1;
    /* Rank 0 marks DIR as a trace of several ranks before any rank's own
     * trace appears in it, having removed what an earlier run left at the
     * top (a trace of one process, ranks this run does not have). */
    if (info->ranks > 0 && info->rank == 0 &&
        (mon_trace_dir_clear(m->top_dir, (unsigned)info->ranks, err, errlen) != 0 ||
         mon_mkdirs(m->top_dir, err, errlen) != 0 ||
         mon_ranks_json_write(m->top_dir, info, err, errlen) != 0))
        return -1;
    if (snprintf(m->run_json_path, sizeof m->run_json_path, "%s/%s", m->dir, MON_RUN_JSON_FILE) < 0 ||
        snprintf(m->run_json_tmp, sizeof m->run_json_tmp, "%s/%s", m->dir, MON_RUN_JSON_TMP_FILE) < 0)
        return -1;
    if (mon_trace_dir_create(m->dir, info, m->ctf_dir, sizeof m->ctf_dir, err, errlen) != 0)
        return -1;
    crash_text_update(m);
    return 0;
}

int mon_open(mon **out, const mon_options *opt, int argc, char *const *argv, lpel_hooks *hooks,
             char *err, size_t errlen)
{
    *out = NULL;
    if (hooks)
        memset(hooks, 0, sizeof *hooks);
    if (!opt || opt->flags == 0)
        return 0; /* mon0: nothing installed */
#if !MON_HOOKS_CALLED
    fprintf(stderr, "mon: warning: the runtime was built with LPEL_HOOKS=OFF; "
                    "the trace will hold no events\n");
#endif
    mon *m = calloc(1, sizeof *m);
    if (!m) {
        snprintf(err, errlen, "mon: out of memory");
        return -1;
    }
    pthread_mutex_init(&m->lock, NULL);
    m->ctl_gen = &no_control_gen;
    if (copy_options(m, opt, argc, argv, err, errlen) != 0 || start_trace(m, err, errlen) != 0 ||
        control_start(m, err, errlen) != 0) {
        mon_free(m);
        return -1;
    }
    m->crash.flush = crash_flush_all;
    m->crash.arg = m;
    fill_hooks(m);
    if (hooks)
        *hooks = m->hooks;
    *out = m;
    mon *none = NULL;
    atomic_compare_exchange_strong(&mon_current, &none, m);
    return 0;
}

const lpel_hooks *mon_lpel_hooks(const mon *m) { return m ? &m->hooks : NULL; }

uint64_t mon_events_recorded(const mon *m)
{
    uint64_t n = 0;
    for (mon_worker *mw = m ? atomic_load(&m->workers) : NULL; mw; mw = mw->next)
        n += mon_writer_events(mw->w) - mon_writer_lost(mw->w);
    return n;
}

uint64_t mon_events_lost(const mon *m)
{
    uint64_t n = 0;
    for (mon_worker *mw = m ? atomic_load(&m->workers) : NULL; mw; mw = mw->next)
        n += mon_writer_lost(mw->w);
    return n;
}

/* One line per worker that lost events, naming the cause. */
static void report_losses(const mon *m)
{
    for (mon_worker *mw = atomic_load(&m->workers); mw; mw = mw->next) {
        uint64_t lost = mon_writer_lost(mw->w);
        if (!lost)
            continue;
        const char *why = mon_writer_error(mw->w);
        fprintf(stderr,
                "mon: warning: worker %u lost %llu of its %llu events (%s/%s%u: %s); the "
                "trace says so in events_discarded\n",
                mw->id, (unsigned long long)lost, (unsigned long long)mon_writer_events(mw->w),
                m->ctf_dir, MON_WORKER_FILE_PREFIX, mw->id, why ? why : "write failed");
    }
}

/* Events lost per worker number, for run.json; NULL if out of memory. */
static uint64_t *losses_by_worker(const mon *m, unsigned *count)
{
    unsigned n = 0;
    for (mon_worker *mw = atomic_load(&m->workers); mw; mw = mw->next)
        if (mw->id + 1 > n)
            n = mw->id + 1;
    uint64_t *v = calloc(n ? n : 1, sizeof *v);
    if (v)
        for (mon_worker *mw = atomic_load(&m->workers); mw; mw = mw->next)
            v[mw->id] = mon_writer_lost(mw->w);
    *count = n;
    return v;
}

/* Options that left the trace empty (of everything but the run_start
 * markers every run writes) are worth a line: the user expected a picture.
 * (With the hook calls compiled out, mon_open has said so.) */
static void warn_if_empty(const mon *m, uint64_t events, uint64_t tasks_seen,
                          uint64_t tasks_selected)
{
    if (!MON_HOOKS_CALLED)
        return;
    char letters[16];
    mon_flags_format(m->opt.flags, letters, sizeof letters);
    if (events == 0)
        fprintf(stderr, "mon: warning: the trace in %s holds no events: -m %s%s%s recorded "
                        "nothing in this run\n",
                m->dir, letters, m->regex_src ? " --mon-tasks " : "",
                m->regex_src ? m->regex_src : "");
    else if (m->regex_src && tasks_seen > 0 && tasks_selected == 0)
        fprintf(stderr, "mon: warning: --mon-tasks '%s' matched none of the %llu tasks: the "
                        "trace in %s has no task events\n",
                m->regex_src, (unsigned long long)tasks_seen, m->dir);
}

/* A flight recorder ends with its last window as the trace in DIR (its
 * snapshots stay beside it). */
static int close_ring(mon *m)
{
    char err[512];
    int rc = 0;
    pthread_mutex_lock(&m->lock);
    (void)mon_clock_refine(&m->info.clock);
    pthread_mutex_unlock(&m->lock);
    if (window_write(m, m->dir, m->ctf_dir, "exit", 0, err, sizeof err) != 0) {
        fprintf(stderr, "mon: warning: the flight recorder's last window: %s\n", err);
        rc = -1;
    }
    for (mon_worker *mw = atomic_load(&m->workers); mw; mw = mw->next) {
        (void)mon_writer_close(mw->w);
        mw->w = NULL;
    }
    mon_free(m);
    return rc;
}

int mon_close(mon *m)
{
    if (!m)
        return 0;
    mon *self = m;
    atomic_compare_exchange_strong(&mon_current, &self, NULL);
    mon_control_close(m->ctl); /* no flushes, requests or snapshots from here on */
    if (m->crash_registered)
        mon_crash_unregister(&m->crash);
    if (m->opt.ring_bytes)
        return close_ring(m);
    unsigned workers = 0;
    uint64_t recorded = 0, lost = 0, tasks_seen = 0, tasks_selected = 0, markers = 0;
    int rc = 0;
    for (mon_worker *mw = atomic_load(&m->workers); mw; mw = mw->next)
        workers++;
    mon_log_count *logs = calloc(workers ? workers : 1, sizeof *logs);
    unsigned nlogs = 0;
    for (mon_worker *mw = atomic_load(&m->workers); mw; mw = mw->next) {
        mon_writer_flush(mw->w);
        uint64_t in_file = mon_writer_events(mw->w) - mon_writer_lost(mw->w);
        recorded += in_file;
        lost += mon_writer_lost(mw->w);
        tasks_seen += mw->tasks_seen;
        tasks_selected += mw->tasks_selected;
        markers += mw->run_starts;
        if (logs)
            logs[nlogs++] = (mon_log_count){mon_writer_worker(mw->w), in_file,
                                            mon_writer_bytes(mw->w), mon_writer_lost(mw->w),
                                            mon_writer_error(mw->w)};
    }
    report_losses(m);
    unsigned nlost = 0;
    uint64_t *per_worker = losses_by_worker(m, &nlost);
    /* Lost events are the trace's loss, not the run's failure: they are
     * reported, and the program's result stands. */
    for (mon_worker *mw = atomic_load(&m->workers); mw; mw = mw->next) {
        (void)mon_writer_close(mw->w);
        mw->w = NULL;
    }
    char err[512];
    /* With the whole run behind us the TSC frequency can be measured over
     * it instead of the 5 ms at open. The metadata is replaced atomically;
     * if that fails the open-time calibration stays, in both files. */
    mon_clock before = m->info.clock;
    if (mon_clock_refine(&m->info.clock) &&
        mon_metadata_write(m->ctf_dir, &m->info, err, sizeof err) != 0) {
        fprintf(stderr, "mon: warning: %s (keeping the clock calibrated at start)\n", err);
        m->info.clock = before;
    }
    m->info.workers = workers;
    m->info.events_recorded = recorded;
    m->info.events_discarded = lost;
    m->info.discarded_per_worker = per_worker;
    m->info.discarded_workers = per_worker ? nlost : 0;
    m->info.logs = logs;
    m->info.nlogs = nlogs;
    pthread_mutex_lock(&m->lock);
    m->info.complete = true; /* no more run.json rewrites by mon_sync_record */
    pthread_mutex_unlock(&m->lock);
    if (mon_run_json_write(m->dir, &m->info, err, sizeof err) != 0) {
        fprintf(stderr, "mon: warning: %s\n", err);
        rc = -1;
    }
    free(logs);
    if (lost)
        fprintf(stderr, "mon: warning: %llu events were lost writing the trace in %s\n",
                (unsigned long long)lost, m->dir);
    free(per_worker);
    warn_if_empty(m, recorded + lost - markers, tasks_seen, tasks_selected);
    mon_free(m);
    return rc;
}
