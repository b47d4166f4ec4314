/*
 * mon_writer_internal.h - the per-worker log writer and its emit API.
 *
 * One writer per worker, used only by that worker's thread: every emit
 * appends to a fixed-size packet buffer with plain stores (no locks, no
 * atomic read-modify-write, no system call); what has been appended is
 * written into the packet's region of the log file, and becomes part of the
 * packet, when it is published (flushed), which any thread may do. Tests drive the writer directly through this API to
 * produce fixtures without a runtime; the hook glue (mon_hooks.c) is its
 * only other user.
 */
#ifndef MON_WRITER_INTERNAL_H
#define MON_WRITER_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mon_clock_internal.h"
#include "mon_emit_internal.h" /* the emitters: mon_emit_* */
#include "mon_format_internal.h"

/* Create DIR/worker-N and a writer for it, whose packets name run run_id
 * (run.json's "run_id"); packet_bytes 0 means the default (rounded up to
 * whole pages). Returns NULL with a message in err. A file that cannot
 * grow is not an error here: its events are counted as lost
 * (mon_writer_lost) and a warning names the cause, once. */
mon_writer *mon_writer_open_run(const char *dir, unsigned worker, uint64_t run_id,
                                size_t packet_bytes, char *err, size_t errlen);

/* The same for a trace that names no run (run id 0): the tests' fixtures,
 * whose run.json has no run_id either. */
mon_writer *mon_writer_open(const char *dir, unsigned worker, size_t packet_bytes,
                            char *err, size_t errlen);

/* A writer on an already open descriptor, opened for reading and writing
 * (taken over: closed by mon_writer_close; -1: every event is lost), for a
 * trace that names no run. Lets tests write to /dev/full. */
mon_writer *mon_writer_open_fd(int fd, const char *path, unsigned worker, size_t packet_bytes,
                               char *err, size_t errlen);

/* A flight recorder (--mon-ring): the last ring_bytes of the log (at least
 * two packets) are kept in memory, nothing is written to DIR/worker-N
 * until mon_writer_ring_write. Its packets name run run_id, as
 * mon_writer_open_run's. NULL with a message in err. */
mon_writer *mon_writer_open_ring(const char *dir, unsigned worker, uint64_t run_id,
                                 size_t packet_bytes, size_t ring_bytes, char *err, size_t errlen);

/* The run the worker's events belong to: a flight recorder starts each
 * packet with its run_start (the one of the run's start may have gone). */
void mon_writer_set_run(mon_writer *w, uint32_t run);

/* The sequence number of the packet being filled, and whether a flight
 * recorder's packet seq has been overwritten (left the window). */
uint64_t mon_writer_packet_seq(const mon_writer *w);
bool mon_writer_ring_dropped(const mon_writer *w, uint64_t seq);

/* What a window written by mon_writer_ring_write holds. */
typedef struct mon_ring_window {
    uint64_t first_packet;  /* the sequence number of its first packet in the log */
    uint64_t events_before; /* events of the packets gone before it: not recorded */
    uint64_t start_ticks;   /* its first packet's timestamp_begin */
    uint64_t events, bytes; /* what was written (the prefix's bytes, not its events) */
} mon_ring_window;

/* Write the ring's window into fd (from offset 0, the file cut there): a
 * packet holding `prefix` (whole events with one-byte headers, e.g. the
 * task_map of tasks mapped before the window) at the window's start, then
 * the ring's packets oldest first, renumbered from 1, without padding.
 * lock: take the writer's lock (a worker then waits at its next packet
 * until the copy is done); false in a crash handler: the lock is only
 * tried, for a few ms, the copy made without it if it stays taken, and
 * errno is kept. The current packet is copied up to the worker's last
 * complete event. 0, or -1 with errno. */
int mon_writer_ring_write(mon_writer *w, int fd, const uint8_t *prefix, size_t prefix_len,
                          bool lock, mon_ring_window *out);

/* A task_map event at p (room for MON_EVENT_MAX_BYTES + MON_STORE_SLACK)
 * at the time ts of the event before it: its length. For prefixes. */
size_t mon_encode_task_map(uint8_t *p, bool timed, uint64_t ts, uint64_t task, const char *name);

/* The log's times are clock readings (the t flag): events at the time of
 * the previous one take the one-byte header. */
void mon_writer_set_timed(mon_writer *w, bool timed);

/* A monitor_control event: the classes recorded from here on and the
 * --mon-tasks pattern (NULL: all tasks). */
void mon_emit_control(mon_writer *w, uint64_t ts, unsigned flags, const char *tasks);

/* Any thread: make every event the worker has completed part of the file
 * (readable by others, kept after kill -9). */
void mon_writer_publish(mon_writer *w);

/* The worker's thread (or after it ended): publish; events that could not
 * be placed in the file are counted as lost now. */
void mon_writer_flush(mon_writer *w);

/* Async-signal-safe publish without the lock, for the crash handler,
 * possibly from another thread. */
void mon_writer_crash_flush(mon_writer *w);

/* Flush, cut the last packet's padding, close the file and free w.
 * Returns 0, or -1 if events were lost. */
int mon_writer_close(mon_writer *w);

unsigned mon_writer_worker(const mon_writer *w);
uint64_t mon_writer_events(const mon_writer *w); /* recorded (incl. lost) */
uint64_t mon_writer_lost(const mon_writer *w);
uint64_t mon_writer_bytes(const mon_writer *w); /* in the file, padding included */
/* Why the log could not grow (strerror text), NULL if it always could. */
const char *mon_writer_error(const mon_writer *w);

/* ---------------------------------------------------------------------------
 * Trace-level files (mon_metadata.c)
 * ------------------------------------------------------------------------- */

/* What one worker's writer put into its log, for run.json: a reader
 * compares the log with it to find a log cut at a packet boundary. */
typedef struct mon_log_count {
    unsigned worker;
    uint64_t events;    /* events in the file (recorded, not lost) */
    uint64_t bytes;     /* bytes written to the file */
    uint64_t discarded; /* events lost: the file could not take them */
    const char *error;  /* why (strerror text), NULL when none were lost */
} mon_log_count;

/* One offset measurement against rank 0 (mon_sync_record), in ticks. */
typedef struct mon_sync_entry {
    bool end; /* measured after the run, else before it */
    uint64_t local_send, reference, local_receive;
} mon_sync_entry;

/* Where a flight recorder's window of one log starts (run.json "window"). */
typedef struct mon_window_entry {
    unsigned worker;
    uint64_t first_packet;  /* the log's packets before it are gone */
    uint64_t events_before; /* and held this many events: not recorded */
    uint64_t start_ticks;   /* the window's first time */
} mon_window_entry;

typedef struct mon_run_info {
    uint64_t run_id; /* names the run in run.json and every packet; 0: none (fixtures) */
    int argc;
    char *const *argv;
    unsigned flags;
    const char *task_regex;
    unsigned workers;
    const char *host;
    mon_clock clock; /* the trace clock: source, frequency, offset, calibration */
    uint64_t events_recorded;
    uint64_t events_discarded;
    const uint64_t *discarded_per_worker; /* events lost, by worker number */
    unsigned discarded_workers;           /* its length (0: not known yet) */
    const mon_log_count *logs; /* per worker log, when complete */
    unsigned nlogs;
    bool complete; /* false in the run.json written at open */
    /* Part of a multi-rank trace (ranks > 0): this process's rank, and its
     * clock measured against rank 0's. */
    int rank, ranks;
    const mon_sync_entry *sync;
    unsigned nsync;
    /* The clock-skew test hook in effect (skew_on): written down so that a
     * test can compare what the reader recovered with what was applied. */
    bool skew_on;
    long long skew_offset_ns;
    double skew_ppm;
    /* A flight recorder (--mon-ring): its size per worker, and for a
     * window (window_why set) where each log's window starts. */
    size_t ring_bytes;
    const char *window_why; /* "request", "signal", "deadlock", "exit"; NULL: not a window */
    unsigned snapshot;      /* its number (0 at exit) */
    const mon_window_entry *window;
    unsigned nwindow;
} mon_run_info;

/* Write DIR/metadata (TSDL). Returns 0 or -1 with err. */
int mon_metadata_write(const char *dir, const mon_run_info *info, char *err, size_t errlen);

/* Write DIR/run.json (replaced atomically). Returns 0 or -1 with err. */
int mon_run_json_write(const char *dir, const mon_run_info *info, char *err, size_t errlen);

/* run.json of a run that did not finish as the crash handler writes it:
 * *text (malloc'd, *len bytes) is the file up to its last line, which the
 * handler completes with mon_run_json_crash_end (async-signal-safe: no
 * formatting in the handler). 0, or -1 when out of memory. */
int mon_run_json_crash_text(const mon_run_info *info, char **text, size_t *len);
/* Into buf (at least 128 bytes): the end of run.json after the crash text,
 * naming signal sig ("ended_by": "SIGTERM"). Async-signal-safe. Returns
 * the bytes written. */
size_t mon_run_json_crash_end(char *buf, int sig);

/* A new run id: 64 random bits, never 0. */
uint64_t mon_run_id_new(void);

/* Write DIR/run.json of a multi-rank trace: the marker saying that DIR
 * holds one trace per rank (MON_RANKS_FORMAT), written by rank 0. */
int mon_ranks_json_write(const char *dir, const mon_run_info *info, char *err, size_t errlen);

/* Create dir (and missing parents). Returns 0 or -1 with err. */
int mon_mkdirs(const char *dir, char *err, size_t errlen);

/* Make DIR ready for a new trace by removing what an earlier run left
 * there: run.json (and its temporary), the metadata and worker logs in
 * DIR/ctf, and every DIR/rank-K with K >= keep_ranks (the traces of the
 * ranks of an earlier run across more ranks, or across ranks at all when
 * keep_ranks is 0) and every flight-recorder snapshot DIR/snapshot-K (and
 * snapshot-K.tmp), cleared the same way. Anything else in DIR is left
 * alone; but a file in a CTF directory that the monitor does not write, or
 * a run.json that is not the monitor's, is refused (-1 with a message
 * naming it), before anything is removed: a reader would take the first
 * for a log, and the second is somebody else's. 0 when DIR is missing. */
int mon_trace_dir_clear(const char *dir, unsigned keep_ranks, char *err, size_t errlen);

/* Create the trace directory DIR with its CTF subdirectory (whose path goes
 * into ctf_dir), the metadata and a first run.json, after clearing what an
 * earlier run left (mon_trace_dir_clear, every rank directory). Returns 0
 * or -1. */
int mon_trace_dir_create(const char *dir, const mon_run_info *info, char *ctf_dir, size_t len,
                         char *err, size_t errlen);

/* Set info's clock to CLOCK_MONOTONIC (ticks = ns), read now: what the
 * test fixtures use, whose event times are made-up ns. */
void mon_run_info_clock(mon_run_info *info);

#endif /* MON_WRITER_INTERNAL_H */
