/*
 * mon_writer_internal.h - the per-worker log writer and its emit API.
 *
 * One writer per worker, used only by that worker's thread: every emit
 * appends to a packet buffer with plain stores (no locks, no atomic
 * read-modify-write); a full packet goes out with one write(2). Tests drive
 * the writer directly through this API to produce fixtures without a
 * runtime; the hook glue (mon_hooks.c) is its only other user.
 */
#ifndef MON_WRITER_INTERNAL_H
#define MON_WRITER_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mon_clock_internal.h"
#include "mon_format_internal.h"

typedef struct mon_writer mon_writer;

/* Create DIR/worker-N and a writer for it; packet_bytes 0 means the
 * default. Returns NULL with a message in err. */
mon_writer *mon_writer_open(const char *dir, unsigned worker, size_t packet_bytes,
                            char *err, size_t errlen);

/* A writer on an already open descriptor (taken over: closed by
 * mon_writer_close). Lets tests write to /dev/full. */
mon_writer *mon_writer_open_fd(int fd, const char *path, unsigned worker, size_t packet_bytes,
                               char *err, size_t errlen);

/* Write the current packet out (if it holds events). */
void mon_writer_flush(mon_writer *w);

/* Async-signal-safe: write the events committed so far as a final packet.
 * Used by the crash handler, possibly from another thread. */
void mon_writer_crash_flush(mon_writer *w);

/* Flush, close the file and free w. Returns 0, or -1 if events were lost. */
int mon_writer_close(mon_writer *w);

unsigned mon_writer_worker(const mon_writer *w);
uint64_t mon_writer_events(const mon_writer *w); /* recorded (incl. lost) */
uint64_t mon_writer_lost(const mon_writer *w);
uint64_t mon_writer_bytes(const mon_writer *w); /* written to the file */

/* Emitters, one per payload shape; id is a mon_event_id of that shape and
 * ts the event time in ticks of the trace clock (made monotonic per
 * writer). Load durations (exec_ns, wait_ns, busy_ns) are in ns. */
void mon_emit_bare(mon_writer *w, mon_event_id id, uint64_t ts);
void mon_emit_task(mon_writer *w, mon_event_id id, uint64_t ts, uint64_t task);
void mon_emit_task_block(mon_writer *w, uint64_t ts, uint64_t task, unsigned cause);
void mon_emit_task_map(mon_writer *w, uint64_t ts, uint64_t task, unsigned worker,
                       const char *name);
void mon_emit_stream_mode(mon_writer *w, mon_event_id id, uint64_t ts, uint64_t task,
                          uint64_t stream, bool write_end);
void mon_emit_stream_io(mon_writer *w, mon_event_id id, uint64_t ts, uint64_t task,
                        uint64_t stream);
void mon_emit_stream_block(mon_writer *w, uint64_t ts, uint64_t task, uint64_t stream,
                           bool empty);
void mon_emit_stream_wake(mon_writer *w, uint64_t ts, uint64_t waker, uint64_t stream,
                          uint64_t woken);
void mon_emit_message(mon_writer *w, mon_event_id id, uint64_t ts, uint64_t task,
                      uint64_t msg);
void mon_emit_task_load(mon_writer *w, uint64_t ts, uint64_t task, uint32_t dispatches,
                        uint64_t exec_ns);
void mon_emit_worker_load(mon_writer *w, uint64_t ts, uint32_t waits, uint64_t wait_ns,
                          uint64_t busy_ns);

/* ---------------------------------------------------------------------------
 * Trace-level files (mon_metadata.c)
 * ------------------------------------------------------------------------- */

/* What one worker's writer put into its log, for run.json: a reader
 * compares the log with it to find a log cut at a packet boundary. */
typedef struct mon_log_count {
    unsigned worker;
    uint64_t events; /* events in the file (recorded, not lost) */
    uint64_t bytes;  /* bytes written to the file */
} mon_log_count;

typedef struct mon_run_info {
    int argc;
    char *const *argv;
    unsigned flags;
    const char *task_regex;
    unsigned workers;
    const char *host;
    mon_clock clock; /* the trace clock: source, frequency, offset, calibration */
    uint64_t events_recorded;
    uint64_t events_discarded;
    const mon_log_count *logs; /* per worker log, when complete */
    unsigned nlogs;
    bool complete; /* false in the run.json written at open */
} mon_run_info;

/* Write DIR/metadata (TSDL). Returns 0 or -1 with err. */
int mon_metadata_write(const char *dir, const mon_run_info *info, char *err, size_t errlen);

/* Write DIR/run.json (replaced atomically). Returns 0 or -1 with err. */
int mon_run_json_write(const char *dir, const mon_run_info *info, char *err, size_t errlen);

/* Create dir (and missing parents). Returns 0 or -1 with err. */
int mon_mkdirs(const char *dir, char *err, size_t errlen);

/* Create the trace directory DIR with its CTF subdirectory (whose path goes
 * into ctf_dir), the metadata and a first run.json. Returns 0 or -1. */
int mon_trace_dir_create(const char *dir, const mon_run_info *info, char *ctf_dir, size_t len,
                         char *err, size_t errlen);

/* Set info's clock to CLOCK_MONOTONIC (ticks = ns), read now: what the
 * test fixtures use, whose event times are made-up ns. */
void mon_run_info_clock(mon_run_info *info);

#endif /* MON_WRITER_INTERNAL_H */
