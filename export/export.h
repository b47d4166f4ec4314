/*
 * export.h - a monitor trace in the formats other tools read: the whole
 * interface of the export library (export/, prefix export_).
 *
 *   export_chrome     Chrome Trace Event Format JSON (Perfetto, chrome://tracing)
 *   export_otf2       an OTF2 archive (Vampir, the Score-P tools)
 *   export_logformat  the original S-Net monitor's LOGFORMAT 2.2 text
 *
 * Every exporter draws its execution periods and waits from the trace
 * reader's period layer (mon_periods, mon_reader.h), names tasks by their
 * kind (mon_task_kind), and says in its output what it could not export.
 * docs/LOGFORMAT.md section 7 describes each output, docs/VIEWERS.md why.
 *
 * The trace comes through an export_source, so the library does not care
 * how it is read (snetmon reads it through its trace_input, which applies
 * --partial and prints a damaged trace's one-line message itself). Chrome
 * and OTF2 read it twice: first to pair each message's write with its
 * read, then to write.
 *
 * Errors: 0, or -1 with a one-line message in err ("" when the source has
 * already said what went wrong).
 */
#ifndef EXPORT_H
#define EXPORT_H

#include <stdint.h>
#include <stdio.h>

#include "mon_reader.h"
#include "wfb.h"

typedef struct export_source {
    void *ctx;
    /* The next event in time order: 1 with *ev set, 0 at the end, -1 when
     * the trace cannot be read further (the source has reported it). */
    int (*next)(void *ctx, mon_event *ev);
    /* Start over from the first event; 0, or -1 (reported). */
    int (*rewind)(void *ctx);
    /* After the end: what could not be read, NULL when nothing. */
    const wfb_input_loss *(*loss)(void *ctx);
    /* The reader: the worker logs, the clock, the ranks (a rewind may
     * replace it: asked for each time). */
    const mon_trace *(*trace)(void *ctx);
} export_source;

/* The messages a viewer draws as arrows (or send/receive pairs): the first
 * message_written and the first message_read of one message id within a
 * run. What cannot be paired is counted, never dropped silently. */
typedef struct export_message_counts {
    uint64_t paired;         /* messages written and read */
    uint64_t written_unread; /* written, never read in the trace (the network's output) */
    uint64_t read_unwritten; /* read, never written (input from outside the monitored tasks) */
    uint64_t repeated;       /* writes or reads beyond the first of an id */
} export_message_counts;

/* What an export wrote, for the line that says so. */
typedef struct export_summary {
    unsigned locations;   /* one per worker log: OTF2 locations, Chrome tracks */
    uint64_t regions;     /* OTF2: task kinds, plus "waiting" (Chrome: 0) */
    uint64_t periods;     /* task execution periods: Enter/Leave pairs, slices */
    uint64_t waits;       /* worker waiting periods */
    export_message_counts messages;
} export_summary;

/* The trace as Chrome Trace Event Format JSON on out: a track per worker,
 * a slice per execution period named by the task's kind, the workers'
 * waits, a flow arrow from each message's write to its read; the message
 * counts and what was lost in "otherData". */
int export_chrome(const export_source *src, FILE *out, export_summary *summary, char *err,
                  size_t errlen);

/* The archive dir/traces.otf2 (with traces.def and traces/); dir must
 * exist and be empty. */
int export_otf2(const export_source *src, const char *dir, export_summary *summary, char *err,
                size_t errlen);

/* The LOGFORMAT 2.2 files in directory dir (which must exist):
 * mon_n00_tasks.map, mon_n00_worker<NN>.log per worker, and partial.txt
 * saying what was lost when something was. */
int export_logformat(const export_source *src, const char *dir, char *err, size_t errlen);

#endif /* EXPORT_H */
