/*
 * mon.h - the public interface of the monitoring framework.
 *
 * The monitor attaches to LPEL's hook table (lpel_hooks) and writes one
 * binary log per worker into a trace directory in Common Trace Format 1.8
 * (see docs/LOGFORMAT.md). What is recorded is chosen at run time with the
 * original runtime's flag letters:
 *
 *   m  mapping        task id, name and worker at each placement (MMO)
 *   t  timestamps     on every event (else all are 0): raw TSC ticks where
 *                     the TSC is invariant, else CLOCK_MONOTONIC ns; the
 *                     metadata's clock says which (MON_CLOCK=monotonic
 *                     forces the latter; docs/LOGFORMAT.md section 3.1)
 *   W  worker events  start, wait, resume, end (WMO)
 *   T  task events    create, dispatch, block(input|output|any), yield,
 *                     destroy (SCMO)
 *   S  stream traces  open, close, read, write, block(empty|full), wake (SMO)
 *   M  message traces component begin/end, message read/written (TMO)
 *   L  load summary   per task: dispatches and execution time; per worker:
 *                     waits, waiting and busy time
 *   C  CPU time       the worker thread's CPU time and involuntary context
 *                     switches, read at task switches at most once per
 *                     MON_CPU_STEP_NS (mon_cpu.c): how much of a period
 *                     the worker actually ran
 *   A  all of the above
 *
 * Three modes are comparable: the runtime built with LPEL_HOOKS=OFF (no hook
 * calls at all), monitoring built in but off (no -m: mon_open installs no
 * hooks, "mon0"), and on ("mon1").
 *
 * Typical use in a program compiled against the runtime:
 *
 *     mon_options mo;
 *     char err[256];
 *     if (mon_parse_args(&argc, argv, &mo, err, sizeof err) != 0) { puts(err); exit(2); }
 *     mon *m; lpel_hooks hooks;
 *     if (mon_open(&m, &mo, argc, argv, &hooks, err, sizeof err) != 0) ...
 *     lpel_config cfg = lpel_config_default();
 *     cfg.hooks = mon_lpel_hooks(m);          (NULL when monitoring is off)
 *     ... lpel_runtime_create, lpel_run ...
 *     lpel_runtime_destroy(rt);
 *     mon_close(m);
 *
 * One monitor may serve several runtimes one after another (each worker's
 * log then holds the runs in order, each starting with worker_start; task
 * ids restart with each runtime), but not two runtimes at the same time.
 */
#ifndef MON_H
#define MON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lpel.h"
#include "mon_msg_id.h"

/* MON_API marks the functions liblpel-mon exports: the libraries are built with
 * hidden visibility (cmake/Library.cmake), so what this header marks is the
 * library's whole binary interface. */
#ifndef MON_API
#define MON_API __attribute__((visibility("default")))
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------------
 * Flags and options
 * ------------------------------------------------------------------------- */

enum mon_flag {
    MON_FLAG_MAP = 1u << 0,        /* m */
    MON_FLAG_TIMESTAMPS = 1u << 1, /* t */
    MON_FLAG_WORKER = 1u << 2,     /* W */
    MON_FLAG_TASK = 1u << 3,       /* T */
    MON_FLAG_STREAM = 1u << 4,     /* S */
    MON_FLAG_MESSAGE = 1u << 5,    /* M */
    MON_FLAG_LOAD = 1u << 6,       /* L */
    MON_FLAG_CPU = 1u << 7,        /* C */
    MON_FLAG_ALL = 0xffu           /* A */
};

/* The flag letters in bit order, "mtWTSMLC". */
#define MON_FLAG_LETTERS "mtWTSMLC"

/* The default trace directory. */
#define MON_DEFAULT_DIR "./trace"

/* The default size of one packet (and of each worker's buffer). */
#define MON_DEFAULT_PACKET_BYTES ((size_t)1 << 20)

/* How often what the workers recorded is made part of the trace files
 * (--mon-flush): a run killed at any moment keeps everything recorded up
 * to this long before, and `snetmon top` sees the run this far behind. */
#define MON_DEFAULT_FLUSH_MS 200u
#define MON_FLUSH_MS_MAX 3600000u

typedef struct mon_options {
    unsigned flags;         /* MON_FLAG_*; 0 = monitoring off (mon0) */
    const char *task_regex; /* pcre2 pattern on task names, NULL = all tasks */
    const char *dir;        /* trace directory, MON_DEFAULT_DIR if NULL */
    size_t packet_bytes;    /* 0 = MON_DEFAULT_PACKET_BYTES */
    unsigned flush_ms;      /* flush period; 0 = only when a packet is full and at the end */
    /* A process of a job of `ranks` processes (MPI ranks; 0 = not part of
     * one): the process writes its trace into DIR/rank-<rank>/ and rank 0
     * marks DIR as a multi-rank trace (docs/LOGFORMAT.md section 8).
     * mon_options_set_rank sets both. */
    int rank, ranks;
    /* The flight recorder (--mon-ring): keep only the last ring_bytes of
     * each worker's log, in memory, and write that window as a trace on
     * request (snetmon snap, SIGUSR1), on a deadlock, on a crash and at
     * the end. 0: write the whole log as it goes. */
    size_t ring_bytes;
} mon_options;

/* --mon-ring's range per worker: two pages at least. */
#define MON_RING_MIN ((size_t)8 << 10)
#define MON_RING_MAX ((unsigned long long)64 << 30)

/* This process is rank `rank` of a job of `ranks` processes: its trace goes
 * into DIR/rank-<rank>/. Returns 0, or -1 if rank is not in [0, ranks). */
MON_API int mon_options_set_rank(mon_options *o, int rank, int ranks);

/* Options with every field at its default (monitoring off). */
MON_API mon_options mon_options_default(void);

/* Parse flag letters ("mtW", "A") into MON_FLAG_* bits. Returns 0, or -1
 * with a one-line message in err naming the bad letter. */
MON_API int mon_flags_parse(const char *letters, unsigned *flags, char *err, size_t errlen);

/* Write the letters of flags into buf (always NUL-terminated). */
MON_API void mon_flags_format(unsigned flags, char *buf, size_t len);

/*
 * Find and remove the monitoring options from argv so that every program
 * compiled against the runtime understands them without code of its own:
 *     -m FLAGS | -mFLAGS         what to record (see above)
 *     --mon-dir DIR | --mon-dir=DIR           the trace directory (default
 *                                             ./trace); -o DIR, its old
 *                                             spelling, warns (deprecated)
 *     --mon-tasks REGEX | --mon-tasks=REGEX   monitor only matching tasks
 *     --mon-flush MS | --mon-flush=MS         flush period (0: only full
 *                                             packets and the end)
 *     --mon-ring SIZE | --mon-ring=SIZE       flight recorder: keep the last
 *                                             SIZE bytes per worker (K, M, G)
 * Parsing stops at "--" (which is kept). The strings stored in *out point
 * into argv. Returns 0 (after printing mon_options_warning's warning, if
 * any), or -1 with a one-line message in err (an unknown flag letter, a
 * missing value, a pattern pcre2 rejects, a flush period that is not a
 * number of milliseconds up to MON_FLUSH_MS_MAX).
 */
MON_API int mon_parse_args(int *argc, char **argv, mon_options *out, char *err, size_t errlen);

/* A one-line warning (into buf, returned) when options select a trace that
 * will be empty or timeless: -m t alone, events without t, --mon-dir or
 * --mon-tasks without -m; NULL when the options make sense. mon_parse_args
 * prints it to stderr as "mon: warning: ...". */
MON_API const char *mon_options_warning(const mon_options *o, char *buf, size_t len);

/* The --help lines for the options mon_parse_args takes, for every program
 * that offers them (aligned to a 19-column option field). */
#define MON_OPTIONS_HELP                                                       \
    "  -m FLAGS         monitor the run (letters mtWTSMLC, A = all)\n"          \
    "  --mon-dir DIR    trace directory (default ./trace)\n"                    \
    "  --mon-tasks RE   monitor only tasks whose name matches RE\n"          \
    "  --mon-flush MS   make the trace readable every MS ms (default 200)\n"         \
    "  --mon-ring SIZE  keep only the last SIZE bytes per worker (K, M, G) and\n"    \
    "                   write them on snetmon snap, SIGUSR1, a crash, the end\n"

/* ---------------------------------------------------------------------------
 * Attaching to the runtime
 * ------------------------------------------------------------------------- */

typedef struct mon mon;

/*
 * Start monitoring: create the trace directory, write its metadata and a
 * first run.json, and fill *hooks with the hook table for lpel_config.hooks.
 * What an earlier run left in the directory (its run.json, metadata and
 * worker logs, its rank directories) is removed first; a file there that no
 * trace holds is refused (-1) rather than removed or mixed in
 * (docs/LOGFORMAT.md section 1.1). When opt->flags is 0 (monitoring off)
 * nothing is created, *out is NULL and *hooks is all NULL. run.json records
 * the process's command line as given (/proc/self/cmdline); argc/argv, with
 * the monitoring options appended again, only where that cannot be read.
 * Returns 0, or -1 with a one-line message in err.
 */
MON_API int mon_open(mon **out, const mon_options *opt, int argc, char *const *argv,
                     lpel_hooks *hooks, char *err, size_t errlen);

/* The hook table to install (NULL when m is NULL: monitoring off). */
MON_API const lpel_hooks *mon_lpel_hooks(const mon *m);

/* Flush every worker log, write the final run.json and free m. Call after
 * lpel_run has returned. Events lost on the way (disk full, a write error)
 * are reported on stderr, per worker, and in the trace; they do not make
 * this fail. Returns 0, or -1 if the trace could not be completed (run.json
 * not written; a warning says why). m may be NULL. */
MON_API int mon_close(mon *m);

/* Events recorded / lost so far (0 for m NULL). */
MON_API uint64_t mon_events_recorded(const mon *m);
MON_API uint64_t mon_events_lost(const mon *m);

/* ---------------------------------------------------------------------------
 * Message traces (TMO), called by the S-Net layer from inside the task
 * ------------------------------------------------------------------------- */

/* Message ids: mon_msg_id_make and its layout are in mon_msg_id.h. */

/* One component execution (e.g. one box call) starts / ends in task t.
 * The parents of a message written are the messages read since the last
 * component_begin in the same task; the reader derives that. Each call is
 * a no-op when t is not monitored (monitoring off, no M flag, filtered). */
MON_API void mon_component_begin(lpel_task *t);
MON_API void mon_message_read(lpel_task *t, uint64_t msg_id);
MON_API void mon_message_written(lpel_task *t, uint64_t msg_id);
MON_API void mon_component_end(lpel_task *t);

/* ---------------------------------------------------------------------------
 * Across MPI ranks (called by the S-Net layer's transport, runtime/snet/
 * distrib): both ends of every record that crosses ranks, the channels, and
 * the offset of this process's clock against rank 0's
 * ------------------------------------------------------------------------- */

/* Task t hands message msg to rank `rank` (the sending end of a channel)
 * / took msg, sent by rank `rank`, off a channel. With the M flag, like
 * the calls above. */
MON_API void mon_message_sent(lpel_task *t, uint64_t msg, unsigned rank);
MON_API void mon_message_received(lpel_task *t, uint64_t msg, unsigned rank);

/* Task t is the sending (sends) or receiving end of channel `channel`
 * (unique in the job: creator rank << 32 | index), whose other end is on
 * rank `rank`; and t is about to wait at it: for room (credits from the
 * other end, !empty) or for records (empty). With the S flag, like the
 * stream events, so a reader knows who waits for whom across ranks. */
MON_API void mon_channel_open(lpel_task *t, uint64_t channel, unsigned rank, bool sends);
MON_API void mon_channel_block(lpel_task *t, uint64_t channel, bool empty);

/* One measurement of this process's clock against the reference process's
 * (rank 0), Cristian-style: the local trace clock when the request left,
 * the reference's trace clock when it answered, the local clock when the
 * answer arrived. All in ticks of each side's trace clock, as mon_sync_now
 * reads it. */
typedef struct mon_sync_sample {
    uint64_t local_send, reference, local_receive;
} mon_sync_sample;

/* The monitor open in this process (at most one records samples), its
 * trace clock now in ticks (with MON_CLOCK_SKEW applied, as events get it):
 * false when no monitor is open or it records no times. */
MON_API bool mon_sync_now(uint64_t *ticks);

/* Record samples of one phase ("start": before the run, "end": after it)
 * in the trace (run.json, rewritten at once so that a killed run keeps
 * them). No-op when no monitor is open. */
MON_API void mon_sync_record(const char *phase, const mon_sync_sample *s, size_t n);

/* The environment variable of the clock-skew test hook: "RANK:OFFSET_NS" or
 * "RANK:OFFSET_NS:DRIFT_PPM" adds OFFSET_NS + DRIFT_PPM * 10^-6 * (t - t0)
 * to every time the process of that rank records (events and samples), as
 * if its clock were off, so tests can check the reader's alignment. */
#define MON_CLOCK_SKEW_ENV "MON_CLOCK_SKEW"

#ifdef __cplusplus
}
#endif

#endif /* MON_H */
