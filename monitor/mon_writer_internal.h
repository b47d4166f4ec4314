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
 * keep_ranks is 0), cleared the same way. Anything else in DIR is left
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
