/*
 * mon_fixture.h - small traces made by the tests themselves, through the
 * writer's internal emit API (no runtime needed), and temporary
 * directories to put them in.
 */
#ifndef MON_FIXTURE_H
#define MON_FIXTURE_H

#include <stddef.h>
#include <stdint.h>

#include "mon_writer_internal.h"

/* A fresh empty directory under $TMPDIR (or /tmp); path into buf. */
void fixture_tmpdir(char *buf, size_t len);

/* rm -r dir (only what the tests create: files and directories). */
void fixture_rmdir(const char *dir);

/* The number of events fixture_write_all_kinds writes. */
#define FIXTURE_ALL_KINDS_EVENTS 60u

/* Write a trace into dir: two workers, every event kind on each with
 * distinct field values (see the .c for the exact events), times spaced
 * so that both compact and extended headers occur, packets of
 * packet_bytes (small values force many packets). Returns 0 or -1. */
int fixture_write_all_kinds(const char *dir, size_t packet_bytes);

/* Write a trace of n events per worker (dispatch/block pairs) on workers
 * workers, recorded with flags tT (no worker events). Returns 0 or -1. */
int fixture_write_many(const char *dir, unsigned workers, unsigned n, size_t packet_bytes);

/* Create the trace directory dir (metadata and a first run.json, recorded
 * with flags on a CLOCK_MONOTONIC clock: ticks are ns) for workers worker
 * logs; the CTF directory's path goes into ctf. Returns 0 or -1. */
int fixture_trace_dir(const char *dir, unsigned workers, unsigned flags, char *ctf, size_t len);

/* A fixture's run, ended as mon_close ends one: each log's counts, taken
 * when its writer is closed, go into the final run.json ("complete": true
 * with the logs), without which snetmon takes the run for unfinished. */
#define FIXTURE_MAX_LOGS 64
typedef struct fixture_run {
    mon_log_count logs[FIXTURE_MAX_LOGS];
    unsigned n;
} fixture_run;

/* Flush w, note its counts in run and close it; mon_writer_close's result. */
int fixture_close_log(fixture_run *run, mon_writer *w);

/* The final run.json of the trace in dir, recorded with flags. 0 or -1. */
int fixture_finish(const char *dir, unsigned flags, const fixture_run *run);

/* A finished run in dir of `workers` logs recorded with flags: worker k's
 * log written by write_log(writer, k, arg), run.json completed with the
 * logs' counts (fixture_close_log, fixture_finish). 0 or -1. */
int fixture_write_run(const char *dir, unsigned workers, unsigned flags,
                      void (*write_log)(mon_writer *, unsigned, void *), void *arg);

/* dir/run.json as the crash handler writes it when signal sig ends the run
 * (mon_run_json_crash_text and _end): unfinished, "ended_by" naming sig.
 * 0 or -1. */
int fixture_run_json_ended(const char *dir, const mon_run_info *info, int sig);

/* Path of worker w's log inside trace dir. */
void fixture_log_path(const char *dir, unsigned w, char *buf, size_t len);

/* Size of a file, -1 if missing. */
long fixture_file_size(const char *path);

#endif
