/*
 * mon_reader.h - the trace reader library used by every analysis tool.
 *
 * Opens a trace directory written by the monitor (docs/LOGFORMAT.md),
 * merges the per-worker logs in time order and hands out one event at a
 * time; only one packet per worker is in memory. A log that ends inside a
 * packet (a crash without flush, a copy cut short) is reported as truncated
 * with how much of it was read; anything that cannot be a valid log is
 * rejected with a one-line message naming the file and byte offset.
 *
 * Follow mode (mon_trace_options.follow) reads a trace while its run is
 * still writing it: each log as far as the writer has published it, and
 * more on the next call once more is published, without reading anything
 * twice; the unpublished end of a log is "in progress", not a truncation.
 */
#ifndef MON_READER_H
#define MON_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mon_msg_id.h"

/* MON_READER_API marks the functions libsnetmon-reader exports: the libraries are built with
 * hidden visibility (cmake/Library.cmake), so what this header marks is the
 * library's whole binary interface. */
#ifndef MON_READER_API
#define MON_READER_API __attribute__((visibility("default")))
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Event kinds; the values are the event ids of the format. */
typedef enum mon_event_kind {
    MON_EV_TASK_MAP = 0,
    MON_EV_TASK_CREATE = 1,
    MON_EV_TASK_DISPATCH = 2,
    MON_EV_TASK_BLOCK = 3,
    MON_EV_TASK_YIELD = 4,
    MON_EV_TASK_DESTROY = 5,
    MON_EV_WORKER_START = 6,
    MON_EV_WORKER_WAIT = 7,
    MON_EV_WORKER_RESUME = 8,
    MON_EV_WORKER_END = 9,
    MON_EV_STREAM_OPEN = 10,
    MON_EV_STREAM_CLOSE = 11,
    MON_EV_STREAM_READ = 12,
    MON_EV_STREAM_WRITE = 13,
    MON_EV_STREAM_BLOCK = 14,
    MON_EV_STREAM_WAKE = 15,
    MON_EV_COMPONENT_BEGIN = 16,
    MON_EV_COMPONENT_END = 17,
    MON_EV_MESSAGE_READ = 18,
    MON_EV_MESSAGE_WRITTEN = 19,
    MON_EV_TASK_LOAD = 20,
    MON_EV_WORKER_LOAD = 21,
    MON_EV_RUN_START = 22,
    MON_EV_MESSAGE_SENT = 23,
    MON_EV_MESSAGE_RECEIVED = 24,
    MON_EV_CHANNEL_OPEN = 25,
    MON_EV_CHANNEL_BLOCK = 26,
    MON_EV_CPU_TIME = 27,        /* format 3.2: the worker's CPU time (flag C) */
    MON_EV_MONITOR_CONTROL = 28, /* format 3.2: what is recorded changed (snetmon ctl) */
    MON_EV_KIND_COUNT = 29
} mon_event_kind;

/* Why a task blocked (task_block.cause). */
enum { MON_BLOCK_INPUT = 0, MON_BLOCK_OUTPUT = 1, MON_BLOCK_ANY = 2 };

/*
 * One event. Only the fields its kind has are set, the others are 0:
 *   task_map           task, worker_mapped, name
 *   task_*             task; task_block also cause
 *   worker_*           (worker only)
 *   stream_open/close  task, stream, write_end
 *   stream_read/write  task, stream
 *   stream_block       task, stream, empty (true: blocked on empty, false:
 *                      on full), peer: the task at the other end, from
 *                      the stream_open events merged so far (0 unknown)
 *   stream_wake        task (the waker), stream, peer (the woken task)
 *   component_*        task
 *   message_*          task, msg
 *   task_load          task, dispatches, exec_ns
 *   worker_load        waits, wait_ns, busy_ns
 *   run_start          (run only: the run the log's next events belong to)
 *   message_sent       task, msg, peer_rank (where it goes)
 *   message_received   task, msg, peer_rank (where it came from)
 *   channel_open       task, channel, peer_rank, write_end (true: the sending end)
 *   channel_block      task, channel, empty (true: waits for records, false:
 *                      for room), peer: the task at the other end, on another
 *                      rank (multi-rank traces only, from the channel_open
 *                      events merged so far; 0 unknown)
 *   cpu_time           cpu_ns, preemptions: the worker thread's CPU time and
 *                      involuntary context switches since its worker_start
 *                      (format 3.2, flag C)
 * Every event has `run`: the runtime instance it belongs to, numbered from
 * 1 in the order the program created them (from the log's last run_start;
 * 1 in traces without run_start events). Task, stream and message ids are
 * unique only within a run (mon_run_key makes a key of a task or stream id
 * and its run).
 *
 * A multi-rank trace (a directory of rank-R subdirectories, one per MPI
 * process, docs/LOGFORMAT.md section 8) reads as one: `ranked` is set,
 * `worker` numbers the (rank, worker) pairs from 0 in rank order (a column
 * per pair), `rank` and `rank_worker` say which; task and stream ids of
 * rank R > 0 carry R in bits 32-47 (on disk they are their rank's own
 * numbers, counting from 1 in each run, below 2^32), so they are unique
 * across ranks; `time` is on rank 0's
 * trace clock, each rank's times corrected by the clock alignment
 * (mon_trace_clock_alignment).
 */
typedef struct mon_event {
    mon_event_kind kind;
    unsigned worker;   /* whose log it is in */
    uint32_t run;      /* the runtime instance, from 1 */
    unsigned classes;  /* monitor_control: the event classes recorded from here on, as
                          mon.h's MON_FLAG_* bits (m t W T S M L C) */
    uint64_t time;     /* ns on the trace clock (0 without the t flag): CLOCK_MONOTONIC,
                          or TSC ticks converted exactly with the clock's frequency;
                          + mon_trace_clock_offset_ns = wall-clock time */
    uint64_t task;
    uint64_t stream;
    uint64_t peer;
    uint64_t msg;
    unsigned worker_mapped;
    unsigned cause;
    bool write_end;
    bool empty;
    bool filtered;     /* monitor_control: task events only of tasks whose name matches
                          `name`, the --mon-tasks pattern in effect from here on */
    uint32_t dispatches;
    uint32_t waits;
    uint32_t preemptions; /* cpu_time */
    uint64_t exec_ns;
    uint64_t wait_ns;
    uint64_t busy_ns;
    const char *name;  /* task_map: the task's name; monitor_control: the --mon-tasks pattern
                          ("" without one); valid until the next mon_trace_next */
    uint64_t offset;   /* byte offset of the event in its worker log */
    uint64_t channel;  /* channel_*: creator rank << 32 | index, unique in the job */
    uint32_t peer_rank; /* message_sent/received, channel_open */
    bool ranked;       /* from a multi-rank trace: rank and rank_worker say where */
    unsigned rank;     /* the MPI rank whose log it is in (0 in a trace of one process) */
    unsigned rank_worker; /* the worker's number in its rank (= worker unless ranked) */
    uint64_t cpu_ns;   /* cpu_time */
} mon_event;

/* Send one request line to the monitor of the program running now with
 * trace directory dir (its control channel, docs/LOGFORMAT.md section 10:
 * "snap", "classes LETTERS|+LETTERS|-LETTERS", "tasks [PATTERN]",
 * "status") and put its answer line into reply ("ok ..." or "error ...").
 * 0, or -1 with err when no program answers there. */
MON_READER_API int mon_control_request(const char *dir, const char *request, char *reply,
                                       size_t len, char *err, size_t errlen);

/* A key unique in the trace for a task or stream id of run `run`: ids
 * restart with each run; the run goes into the high 16 bits (ids of a
 * multi-rank trace use bits 0-47). mon_run_key: the same for ev's run. */
static inline uint64_t mon_run_id_key(uint32_t run, uint64_t id)
{
    return (uint64_t)(run & 0xffffu) << 48 | (id & ((UINT64_C(1) << 48) - 1));
}
static inline uint64_t mon_run_key(const mon_event *ev, uint64_t id)
{
    return mon_run_id_key(ev->run, id);
}

typedef struct mon_trace mon_trace;

/* Results of mon_trace_next. */
enum {
    MON_TRACE_EVENT = 1,     /* *ev holds the next event */
    MON_TRACE_END = 0,       /* every log read completely */
    MON_TRACE_ERROR = -1,    /* corruption or I/O error: mon_trace_error */
    MON_TRACE_TRUNCATED = -2, /* every readable event was delivered, but some
                                log is incomplete (truncated, damaged with
                                keep_going, unfinished, missing, or the
                                writer lost events): mon_trace_error has the
                                first problem, mon_trace_log_status each */
    MON_TRACE_AGAIN = -3     /* follow mode only: every event published so far
                                that can be put in time order was delivered;
                                the run goes on: call again later for more */
};

typedef struct mon_trace_options {
    /* Damage in one log stops only that log (its status says where and
     * what); the other logs are read to their end. Default (false): the
     * trace stops with MON_TRACE_ERROR at the first damage. */
    bool keep_going;
    /* Follow a run in progress (its run.json says "complete": false): a
     * log's end is where its writer has published so far, and
     * mon_trace_next returns MON_TRACE_AGAIN there instead of ending;
     * calling it again later picks up what was published since (new
     * packets, the current packet's growth, new worker logs), reading
     * only that. Events are still delivered in time order: an event is
     * held back until every log in progress has published past its time,
     * or until it is older than the trace's settle time (two flush periods
     * plus 100 ms before now, the flush period from run.json's command
     * line: the writer publishes every event within a flush period, so a
     * sleeping worker does not hold the others up). Once the run is
     * complete, or when it never started a follow (no run.json, or a
     * finished run), the trace reads as without follow. A multi-rank
     * trace is followed likewise, merged on the ranks' start offsets
     * alone (mon_clock_alignment.provisional): a rank not there yet holds
     * the merge back until it is. */
    bool follow;
} mon_trace_options;

/* Open a trace directory. Returns 0, or -1 with a one-line message. */
MON_READER_API int mon_trace_open(mon_trace **out, const char *dir, char *err, size_t errlen);
/* The same with options (NULL = defaults). */
MON_READER_API int mon_trace_open_with(mon_trace **out, const char *dir, const mon_trace_options *opt, char *err,
                                       size_t errlen);

/* The next event in time order (ties: lower worker first, then log order). */
MON_READER_API int mon_trace_next(mon_trace *t, mon_event *ev);

/* The message for the last MON_TRACE_ERROR / MON_TRACE_TRUNCATED. */
MON_READER_API const char *mon_trace_error(const mon_trace *t);

/* The worker logs: those present, and those run.json lists but which are
 * missing (state MON_LOG_MISSING), sorted by worker number. */
MON_READER_API unsigned mon_trace_num_workers(const mon_trace *t);
/* The worker number of log i (0 <= i < mon_trace_num_workers). */
MON_READER_API unsigned mon_trace_worker_id(const mon_trace *t, unsigned i);

/* How far a worker log has been read, and what of it could not be. */
typedef enum mon_log_state {
    MON_LOG_READING = 0,  /* not at its end yet */
    MON_LOG_COMPLETE,     /* read to the end: every event the writer wrote */
    MON_LOG_TRUNCATED,    /* the file ends inside a packet, or is shorter than the
                             run.json of a finished run says */
    MON_LOG_DAMAGED,      /* something that cannot be a valid log (offset: where) */
    MON_LOG_UNFINISHED,   /* ends cleanly but without worker_end although the run
                             recorded worker events: the run did not finish
                             (crash, kill) or the file was cut at a packet end */
    MON_LOG_MISSING,      /* run.json lists this worker's log; the file is not there */
    MON_LOG_DISCARDED,    /* read completely, but the writer lost events
                             (events_discarded: disk full, I/O error) */
    MON_LOG_IN_PROGRESS,  /* follow mode: read to what the writer has published
                             so far; the run goes on (offset: where reading
                             stands) */
    MON_LOG_FOREIGN       /* not a log of this run (another run's id, a worker
                             run.json does not list): not read; only with
                             keep_going, else the trace does not open */
} mon_log_state;

/* "reading", "complete", "truncated", "damaged", "unfinished", "missing",
 * "discarded", "in progress", "foreign". */
MON_READER_API const char *mon_log_state_name(mon_log_state s);

typedef struct mon_log_status {
    unsigned worker;
    const char *path;          /* the log file */
    mon_log_state state;
    uint64_t offset;           /* truncated/damaged: the byte offset of the problem */
    uint64_t events_read;      /* events delivered from this log */
    uint64_t bytes_read;       /* bytes of the log read without fault */
    uint64_t file_bytes;       /* the file's size */
    int64_t events_expected;   /* what run.json says the writer wrote, -1 unknown */
    int64_t bytes_expected;    /* likewise in bytes, -1 unknown */
    int64_t events_lost;       /* events written but not read: expected - read;
                                  -1 when unknown (no counts in run.json) */
    uint64_t bytes_lost;       /* bytes the writer wrote (run.json, else what
                                  the file and its last packet declare) minus
                                  bytes_read */
    uint64_t events_discarded; /* events the writer itself lost (events_discarded) */
    bool window;               /* the log is a flight recorder's window: it starts
                                  and ends within the run (not a loss) */
    uint64_t events_before;    /* a window: events before it, not recorded (run.json) */
    uint64_t window_start_ns;  /* a window: its first time (trace clock, ns) */
    const char *message;       /* one line naming file, offset and problem; NULL
                                  while reading or complete */
} mon_log_status;

/* Status of log i (0 <= i < mon_trace_num_workers); valid until the next
 * mon_trace_next or mon_trace_close. */
MON_READER_API void mon_trace_log_status(const mon_trace *t, unsigned i, mon_log_status *out);

/* Whether the run that wrote the trace finished, as its run.json says
 * (docs/LOGFORMAT.md section 6). A trace of a run that did not finish may
 * look whole and still lack everything after its last flush. */
typedef enum mon_run_state {
    MON_RUN_COMPLETE = 0, /* run.json says "complete": true (every rank's) */
    MON_RUN_UNFINISHED,   /* "complete": false: killed, crashed (run.json names the
                             signal), or still running */
    MON_RUN_UNKNOWN       /* no readable run.json: nothing says */
} mon_run_state;

/* The run's state; *why (when not NULL) gets one line naming the file and
 * the cause, NULL for a complete run. Valid until mon_trace_close. In
 * follow mode a run in progress is MON_RUN_UNFINISHED until it completes. */
MON_READER_API mon_run_state mon_trace_run_state(const mon_trace *t, const char **why);

/* Problems with the trace directory itself that keep_going let the trace
 * open with (a file the run did not write, a duplicate, a special file):
 * the number of them, and the first as one line; NULL when none. */
MON_READER_API unsigned mon_trace_dir_problems(const mon_trace *t, const char **first);

/* Events the writer reported lost (events_discarded), over all logs read. */
MON_READER_API uint64_t mon_trace_events_discarded(const mon_trace *t);
/* What to add to mon_event.time for wall-clock ns since the Unix epoch
 * (from the metadata's clock offset; for a CLOCK_MONOTONIC trace this is
 * CLOCK_REALTIME - CLOCK_MONOTONIC at the start of the run). */
MON_READER_API uint64_t mon_trace_clock_offset_ns(const mon_trace *t);
/* The trace clock's ticks per second (10^9 for CLOCK_MONOTONIC). */
MON_READER_API uint64_t mon_trace_clock_freq(const mon_trace *t);

/* Follow mode: true while the run is still writing the trace (run.json
 * exists and does not say "complete": true, as of the last call that
 * returned MON_TRACE_AGAIN; a multi-rank trace: some rank's, or some rank
 * has not joined yet); always false without follow. A killed run stays
 * "live" for ever: nothing in the trace tells a kill from a pause. */
MON_READER_API bool mon_trace_live(const mon_trace *t);
/* The flush period of the run (--mon-flush, from run.json's command line;
 * the default 200 when not given there), in ms; 0 when the run published
 * only full packets. */
MON_READER_API unsigned mon_trace_flush_ms(const mon_trace *t);
/* The present on the trace clock, in ns (as mon_event.time), read on this
 * host: CLOCK_MONOTONIC for a CLOCK_MONOTONIC trace, else the wall clock
 * less mon_trace_clock_offset_ns. Meaningful for a trace written on this
 * host since its last boot. */
MON_READER_API uint64_t mon_trace_now_ns(const mon_trace *t);

/* ---- multi-rank traces (docs/LOGFORMAT.md section 8) ---- */

/* The MPI ranks whose traces make the trace (1 for the trace of one
 * process). */
MON_READER_API unsigned mon_trace_num_ranks(const mon_trace *t);
/* Where log i is (0 <= i < mon_trace_num_workers): its rank and its worker
 * number in that rank. */
MON_READER_API void mon_trace_worker_place(const mon_trace *t, unsigned i, unsigned *rank,
                                           unsigned *rank_worker);
/* The label of worker number `worker` (mon_event.worker) for people: "r1.w0"
 * in a multi-rank trace, "w3" otherwise. Returns buf. */
MON_READER_API const char *mon_trace_worker_label(const mon_trace *t, unsigned worker, char *buf, size_t len);

/* How the ranks' clocks were aligned (docs/METRICS.md section 10): per rank
 * the linear correction taken from the offset samples (rank 0's clock is
 * the reference), and what the check of the cross-rank messages found. */
typedef struct mon_rank_clock {
    unsigned rank;
    unsigned samples;        /* offset measurements in its run.json */
    bool has_start, has_end; /* a usable measurement before / after the run */
    double offset_ns;        /* rank 0's clock - this rank's, at the start sample */
    double drift_ppm;        /* how much faster rank 0's clock ran (from start to end) */
    double rtt_ns;           /* the round trip of the best start sample */
    double shift_max_ns;     /* the largest fix-up added to this rank's times */
} mon_rank_clock;

typedef struct mon_clock_alignment {
    unsigned ranks;
    const mon_rank_clock *rank; /* [ranks] */
    uint64_t messages;          /* cross-rank messages with both ends recorded */
    uint64_t unmatched;         /* receives without their send in the trace */
    uint64_t raw_violations;    /* received before sent on the uncorrected clocks */
    uint64_t violations;        /* ... after the linear correction */
    double worst_ns;            /* the largest such (send - receive), 0 if none */
    uint64_t fixed;             /* receives moved (all violations, to send + latency) */
    double latency_ns;          /* the minimal latency a receive is moved to */
    uint64_t after;             /* violations left after the fix-up (0 unless the
                                   trace is inconsistent: a cycle) */
    /* Following a run in progress (mon_trace_options.follow): each rank's
     * times are moved by its offset at its best start sample only (no
     * drift: drift_ppm 0, has_end false; no check, no fix-up: messages ..
     * after 0). Each rank's offset is uncertain by half its round trip
     * (rtt_ns / 2); latency_ns is the smallest of those. The full
     * alignment comes with opening the finished trace again. */
    bool provisional;
    unsigned joined;            /* ranks merged so far (all, unless provisional):
                                   a rank joins once its trace and its start
                                   samples are there */
} mon_clock_alignment;

/* NULL for the trace of one process. Valid until mon_trace_close. */
MON_READER_API const mon_clock_alignment *mon_trace_clock_alignment(const mon_trace *t);

/* ---- run.json: what the monitor says about a run ----
 *
 * The file the monitor writes beside a trace (docs/LOGFORMAT.md section 2):
 * the program's command line, the flags, the clock, and once the run has
 * finished, the events and bytes of each log; a rank's part of a run
 * across MPI ranks adds its clock samples; the top of a multi-rank trace
 * says how many ranks there are. The one reader of it: the trace reader
 * and every tool take these fields from here. */
typedef struct mon_run_log {
    unsigned worker;
    uint64_t events, bytes;  /* what the writer wrote to the worker's log */
    uint64_t discarded;      /* events it lost (the file could not take them) */
    char *error;             /* why, NULL when none were lost or not said */
} mon_run_log;

/* The event classes of monitor_control (mon_event.classes): the bits of
 * mon.h's MON_FLAG_*, letters m t W T S M L C. */
enum {
    MON_CLASS_MAP = 1u << 0,
    MON_CLASS_TIMES = 1u << 1,
    MON_CLASS_WORKER = 1u << 2,
    MON_CLASS_TASK = 1u << 3,
    MON_CLASS_STREAM = 1u << 4,
    MON_CLASS_MESSAGE = 1u << 5,
    MON_CLASS_LOAD = 1u << 6,
    MON_CLASS_CPU = 1u << 7
};

/* Where a flight recorder's window of one log starts (run.json "window",
 * docs/LOGFORMAT.md section 10): the log's packets before it are gone, and
 * their events were not recorded (which is not a loss). */
typedef struct mon_run_window {
    unsigned worker;
    uint64_t first_packet;   /* the sequence number of the window's first packet */
    uint64_t events_before;  /* events of the packets gone before it */
    uint64_t start_ticks;    /* the window's first time, in ticks of the trace clock */
} mon_run_window;

typedef struct mon_clock_sample {
    bool end;                /* measured after the run (else before it) */
    uint64_t local_send, reference, local_receive; /* ticks: this rank's, rank 0's, this rank's */
} mon_clock_sample;

typedef struct mon_run_json {
    char *format;            /* "snet-lpel-ctf"; "snet-lpel-ctf-ranks" at the top of a
                                multi-rank trace */
    char *format_version;
    uint64_t run_id;         /* names the run in every log's packets; 0 none */
    int argc;                /* the program's command line; argv NULL when the */
    char **argv;             /* file has none */
    int flush_ms;            /* --mon-flush on the command line; -1 not given */
    char *flags;             /* the monitoring flags ("mtWTSMLC") */
    char *task_filter;       /* --mon-tasks, NULL when none */
    char *host;
    char *git_revision;      /* NULL when not recorded */
    int64_t workers;         /* -1 not given */
    uint64_t wall_clock_start_ns; /* 0 not given */
    char *clock_source;      /* "tsc", "CLOCK_MONOTONIC" */
    uint64_t clock_frequency_hz; /* 0 not given */
    bool has_complete, complete; /* the run has finished (the file's last version) */
    char *ended_by;          /* a run that did not finish: the signal that ended it
                                ("SIGTERM"), NULL when not known */
    mon_run_log *logs;       /* [n_logs]: only once complete */
    size_t n_logs;
    int64_t rank;            /* a rank's part of a multi-rank run; -1 otherwise */
    int64_t ranks;           /* the ranks of a multi-rank run; 0 otherwise */
    mon_clock_sample *samples; /* [n_samples]: a rank's clock against rank 0's */
    size_t n_samples;
    uint64_t ring_bytes;     /* --mon-ring: a flight recorder's run; 0 otherwise */
    char *window_why;        /* a window of a flight recorder ("request", "signal",
                                "deadlock", "exit"); NULL: the whole run */
    int64_t snapshot;        /* the window's snapshot number (0 at exit), -1 none */
    mon_run_window *window;  /* [n_window]: where each log's window starts */
    size_t n_window;
} mon_run_json;

/* Reads DIR/run.json: 0 with *out; 1 when there is none (*out NULL); -1
 * with "PATH:LINE: what is wrong" when it cannot be read, is not a regular
 * file (opened without blocking: a FIFO does not hang the reader) or is not
 * JSON. */
MON_READER_API int mon_run_json_read(const char *dir, mon_run_json **out, char *err, size_t errlen);
/* What a trace directory's run.json says about the run as a whole: DIR's,
 * or DIR/..'s when DIR is a trace's ctf directory; for the top of a
 * multi-rank trace rank 0's, with the workers of all ranks and complete
 * when every rank is (ranks set). Returns as mon_run_json_read. */
MON_READER_API int mon_run_json_read_trace(const char *dir, mon_run_json **out, char *err, size_t errlen);
MON_READER_API void mon_run_json_free(mon_run_json *r);

/* ---- per-task state of a trace's consumers ----
 *
 * A hash map from a 64-bit key such as mon_run_key(ev, task) to a value of
 * the caller's fixed-size struct, stored in the table and zeroed when first
 * looked up. A pointer it returns is valid until the next get or remove
 * (growing and removal move the values). */
typedef struct mon_key_table {
    unsigned char *slots; /* per slot: used flag, key, value */
    size_t value_size, slot_size;
    size_t cap, used;
    unsigned shift;
} mon_key_table;

/* An empty table of values of value_size bytes (nothing allocated yet). */
MON_READER_API void mon_key_table_init(mon_key_table *t, size_t value_size);
/* The value of key, created zeroed when new; NULL when out of memory. */
MON_READER_API void *mon_key_table_get(mon_key_table *t, uint64_t key);
/* The value of key, NULL when absent. */
MON_READER_API void *mon_key_table_find(const mon_key_table *t, uint64_t key);
/* Forget key (nothing when absent). */
MON_READER_API void mon_key_table_remove(mon_key_table *t, uint64_t key);
/* fn(ctx, key, value) for every entry, in no particular order; fn must not
 * add or remove entries. */
MON_READER_API void mon_key_table_each(mon_key_table *t, void (*fn)(void *ctx, uint64_t key, void *value),
                        void *ctx);
/* Calls release(value) for every value (to free what they own), then frees
 * the table. release may be NULL. */
MON_READER_API void mon_key_table_free(mon_key_table *t, void (*release)(void *value));

/* ---- periods: the one derivation of intervals from events ----
 *
 * Every figure and picture made of time spans (docs/METRICS.md sections 2,
 * 3 and 8; the exporters; the utilisation image) takes them from here, so
 * that they all mean the same thing:
 *
 *   MON_INTERVAL_EXEC     an execution period: a task runs on a worker from
 *                         its task_dispatch to its next task_block,
 *                         task_yield or task_destroy;
 *   MON_INTERVAL_IDLE     a worker waits for work: worker_wait to
 *                         worker_resume;
 *   MON_INTERVAL_BLOCKED  a task waits on a stream (or a channel between
 *                         ranks): its stream_block (channel_block) to its
 *                         next task_dispatch. The stream_wake that made it
 *                         ready is kept where the trace has it, which
 *                         splits the wait into blocked (block to wake:
 *                         the other end is the cause) and ready (wake to
 *                         dispatch: the task waited for a core), the one
 *                         split every consumer takes (mon_interval_blocked_ns,
 *                         mon_interval_ready_ns); the waker, the task at
 *                         the stream's other end, is its peer from then on;
 *   MON_INTERVAL_CPU      a worker's stretch between two cpu_time readings
 *                         (flag C, format 3.2): its CPU time, the time it
 *                         was neither idle nor on a core ("preempted": the
 *                         operating system held its core), its involuntary
 *                         context switches. The part of that stretch a
 *                         running execution period must have lost is
 *                         charged to the period the reading ends.
 *
 * An end the trace lacks (a damaged or partial trace, events the writer
 * lost) is taken to be the first event that shows the interval over
 * (MON_END_LOST): for a period, the task's next dispatch, or a dispatch of
 * another task, a worker_wait, a worker_start or a worker_end on its
 * worker; for a wait, a dispatch, another worker_wait, a worker_start or a
 * worker_end on the worker. mon_periods_finish ends what is still open at
 * a time the caller gives (MON_END_TRACE), as a trace cut short ends.
 *
 * Streaming: events go in one at a time in the reader's order, intervals
 * come out through callbacks as they open and close, and only what is
 * open is kept (memory grows with the tasks blocked or running, not with
 * the trace), so the same code serves a finished trace, one followed while
 * it is written (snetmon top) and a trace larger than memory.
 */

typedef enum mon_interval_kind {
    MON_INTERVAL_EXEC = 0,
    MON_INTERVAL_IDLE,
    MON_INTERVAL_BLOCKED,
    MON_INTERVAL_CPU
} mon_interval_kind;

typedef enum mon_interval_end {
    MON_END_NONE = 0,     /* still open */
    MON_END_BLOCK_INPUT,  /* EXEC: task_block on an empty stream */
    MON_END_BLOCK_OUTPUT, /* EXEC: task_block on a full stream */
    MON_END_BLOCK_ANY,    /* EXEC: task_block in a poll */
    MON_END_YIELD,        /* EXEC: task_yield */
    MON_END_DESTROY,      /* EXEC: task_destroy */
    MON_END_RESUME,       /* IDLE: worker_resume */
    MON_END_DISPATCH,     /* BLOCKED: the task's next task_dispatch */
    MON_END_READING,      /* CPU: the worker's next cpu_time */
    MON_END_LOST,         /* its own end is not in the trace (see above) */
    MON_END_TRACE,        /* still open when the trace ended (mon_periods_finish) */
    MON_END_UNMONITORED,  /* EXEC: the task events were switched off (monitor_control,
                             snetmon ctl): the period is known up to there */
    MON_END_COUNT
} mon_interval_end;

/* "open", "block input", "block output", "block any", "yield", "destroy",
 * "resume", "dispatch", "reading", "lost", "end of trace", "unmonitored". */
MON_READER_API const char *mon_interval_end_name(mon_interval_end how);

typedef struct mon_interval {
    mon_interval_kind kind;
    mon_interval_end how; /* MON_END_NONE while open */
    uint32_t run;
    unsigned worker;      /* EXEC: where it ran (the dispatch's log); IDLE: the worker;
                             BLOCKED: where the task blocked */
    uint64_t task;        /* EXEC, BLOCKED: the task's id in its run (mon_event.task) */
    uint64_t start, end;  /* ns on the trace clock (mon_event.time); end is 0 while open */
    /* BLOCKED only: what it waits on, from the last stream_block or
     * channel_block before its dispatch (a poll blocks on all its streams at
     * one time: the last of them). */
    uint64_t stream;      /* stream id, or channel id when `channel` */
    uint64_t peer;        /* the task at the other end, 0 unknown */
    bool empty;           /* true: waits for items; false: for room */
    bool channel;
    bool woken;           /* a stream_wake named it after it blocked: */
    uint64_t wake;        /*   its time (the task is ready from then on) */
    uint64_t waker;       /*   and the task that woke it (then also `peer`,
                                and `stream` the one it woke it through) */
    /* EXEC: cpu_known when a cpu_time reading ended the period; `preempted`
     * is then the time the operating system must have held the worker's
     * core during it (a lower bound, exact to the reading step: see
     * docs/METRICS.md section 3). A period without a reading is shorter
     * than the step. CPU: the stretch's CPU time (`cpu`), the time it was
     * neither idle nor on a core (`preempted`), its idle time (`idle`) and
     * involuntary context switches (`preemptions`). */
    bool cpu_known;
    uint32_t preemptions;
    uint64_t cpu, preempted, idle;
} mon_interval;

/* A BLOCKED interval's two parts, in ns: blocked from the block to the
 * wake (to its end when the trace has no wake), ready from the wake to
 * its end (0 without a wake). They add up to the interval's length. */
MON_READER_API uint64_t mon_interval_blocked_ns(const mon_interval *iv);
MON_READER_API uint64_t mon_interval_ready_ns(const mon_interval *iv);

/* Where intervals go. open is called when one begins (EXEC at the dispatch,
 * IDLE at worker_wait, BLOCKED at the first block), close when it ends (how
 * and end set); either may be NULL. The interval is valid for the call. A
 * non-zero return stops mon_periods_feed / mon_periods_finish, which
 * return it. */
typedef struct mon_period_sink {
    void *ctx;
    int (*open)(void *ctx, const mon_interval *iv);
    int (*close)(void *ctx, const mon_interval *iv);
} mon_period_sink;

typedef struct mon_periods mon_periods;

/* NULL when out of memory. The sink is copied. */
MON_READER_API mon_periods *mon_periods_new(const mon_period_sink *sink);
MON_READER_API void mon_periods_free(mon_periods *p);
/* One event, in the reader's order (mon_trace_next). Intervals it opens or
 * closes go to the sink before it returns. 0; -1 out of memory; or the
 * sink's non-zero return. */
MON_READER_API int mon_periods_feed(mon_periods *p, const mon_event *ev);
/* Ends every open interval at `at` (MON_END_TRACE): execution periods and
 * waits by worker, then blocked tasks by (run, task). 0 or the sink's
 * non-zero return. */
MON_READER_API int mon_periods_finish(mon_periods *p, uint64_t at);

/* The open execution period of task `task` of run `run`, NULL when it is
 * not running. Valid until the next feed or finish. */
MON_READER_API const mon_interval *mon_periods_running(const mon_periods *p, uint32_t run, uint64_t task);
/* What worker `worker` is in now: its open execution period or its open
 * wait; NULL when neither (scheduling, not started or ended). */
MON_READER_API const mon_interval *mon_periods_worker_state(const mon_periods *p, unsigned worker);

/* The kind of a task, from its name (a net path): the last ':'-separated
 * component with a combinator's index removed (docs/METRICS.md section 7,
 * "Entity kinds"): "S2:I3:R0:S1:P0:mc.vcall" -> "mc.vcall", "S2:P" and
 * "S2:P0" -> "P", "S2:I3:R0" -> "R", "S2:I-3" -> "I"; "(unnamed)" for NULL
 * or "". The one definition: the pictures, the exporters, the report and
 * the comparison of runs group tasks by it. A pointer into name or to a
 * constant string. */
MON_READER_API const char *mon_task_kind(const char *name);

/* "W.S" (rank 0) or "R:W.S": a message id as dump prints it. Returns buf. */
MON_READER_API const char *mon_msg_id_format(uint64_t id, char *buf, size_t len);

MON_READER_API void mon_trace_close(mon_trace *t);

/* "task_dispatch", ...; "unknown" out of range. */
MON_READER_API const char *mon_event_kind_name(mon_event_kind k);

/* One line describing ev, without newline, as `snetmon dump` prints it:
 *   <time> w<worker> <kind> field=value ...
 * Returns the snprintf result. */
MON_READER_API int mon_event_format(const mon_event *ev, char *buf, size_t len);

#ifdef __cplusplus
}
#endif

#endif /* MON_READER_H */
