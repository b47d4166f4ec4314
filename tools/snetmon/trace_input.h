/*
 * trace_input.h - the one way every snetmon subcommand reads its input.
 *
 * An LPEL trace directory is opened, iterated and reported here, so that
 * every subcommand behaves alike: a damaged or truncated trace is one line
 * naming the file and byte offset and exit status 1, and so is a trace
 * directory holding files the run did not write and a run that did not
 * finish or of which nothing says it did (refused before anything is
 * printed: docs/LOGFORMAT.md section 1.1); with --partial the readable
 * events are used and the loss (how many events and bytes, from which
 * workers, the run's end, the files passed over) goes into the output, in
 * its format. Event files (JSONL, WfCommons, NetLogger) come through the
 * same door for the commands that analyse graphs (input_load_graph), with
 * --partial for a last line cut short.
 *
 * A trace still being written (packets flushed during a run) is read in
 * follow mode (trace_input_open_follow): the same calls, and
 * TRACE_INPUT_AGAIN where what has been published so far ends.
 * A multi-rank trace (DIR/rank-R/, one per MPI rank) comes through the same
 * calls as one trace (the reader merges and aligns the ranks); its events
 * are `ranked`, mon_trace_worker_label names their columns, and
 * trace_input_report_alignment says how the clocks were aligned. (Follow
 * mode merges a multi-rank run still going on on the ranks' start offsets
 * alone, mon_clock_alignment.provisional; trace_input_rewind reads it
 * again without follow, aligned in full once it has finished.)
 */
#ifndef SNETMON_TRACE_INPUT_H
#define SNETMON_TRACE_INPUT_H

#include <stdbool.h>
#include <stdio.h>

#include "mon_reader.h"
#include "wfb.h"

typedef struct trace_input trace_input;

/* Open the trace directory dir for subcommand cmd (named in messages).
 * partial: keep going past damage (--partial). On failure prints one line
 * "snetmon CMD: ..." on stderr and returns NULL (exit status 1). */
trace_input *trace_input_open(const char *cmd, const char *dir, bool partial);

/* The same for a trace whose run may still be going on (snetmon top):
 * trace_input_next returns TRACE_INPUT_AGAIN at the end of what the run has
 * published so far, and more events when called again after it published
 * more (mon_trace_options.follow). Logs the run is still writing are "in
 * progress" (mon_trace_log_status), not a loss. Once the run is complete,
 * or for a finished trace, it reads as trace_input_open does. */
trace_input *trace_input_open_follow(const char *cmd, const char *dir, bool partial);

/* trace_input_next in follow mode: nothing more has been published yet. */
#define TRACE_INPUT_AGAIN 2

/* The next event in time order: 1 with *ev set; 0 at the end of what can
 * be used (with --partial the loss is then known: trace_input_loss); -1
 * when the trace is damaged or incomplete and --partial was not given (the
 * one-line message has been printed: exit status 1); in follow mode
 * TRACE_INPUT_AGAIN (call again later). */
int trace_input_next(trace_input *in, mon_event *ev);

/* After the end: what was lost, NULL when nothing. Valid until close. */
const wfb_input_loss *trace_input_loss(const trace_input *in);

/* The reader, for the worker numbers and the clock. */
const mon_trace *trace_input_trace(const trace_input *in);

void trace_input_close(trace_input *in);

/* Start over from the first event, for commands that read the trace twice
 * (the exporters pair each message's write with its read first; top, a
 * followed multi-rank run once it has finished), without follow. The
 * --partial warning is printed only once. 0, or -1 with the one-line
 * message printed (the trace changed under us); close it either way. */
int trace_input_rewind(trace_input *in);

/* in as the export library's source of events (export/export.h): its
 * next, rewind and loss, with this file's policy and messages. */
struct export_source;
void trace_input_source(trace_input *in, struct export_source *src);

/* For a second reading of a trace another trace_input (or input_load_graph)
 * has read already: its --partial warning has been printed; not again. */
void trace_input_no_warning(trace_input *in);

/* A multi-rank trace (one trace per MPI rank, merged on rank 0's clock):
 * how the clocks were aligned, as text lines each starting with prefix;
 * nothing for the trace of one process. 0, or -1 when out of memory. */
int trace_input_report_alignment(const trace_input *in, FILE *out, const char *prefix);

/* The option every trace-reading subcommand takes, for its --help. */
#define TRACE_INPUT_HELP                                                                      \
    "  --partial        analyse a damaged, truncated or unfinished trace (or an event\n"       \
    "                   file whose last line is cut short) as far as it can be read,\n"       \
    "                   and report what was lost (events, bytes, workers) in the output\n"

/* A finished analysis graph of path: a trace directory read through
 * trace_input (same errors, same --partial; the loss is attached to the
 * graph, so its reports carry it), or an event file of the given format
 * (WFB_FORMAT_UNKNOWN: detected). bp_map: NetLogger mapping file or NULL.
 * Returns NULL on failure after printing one line, or, when errbuf is not
 * NULL, after putting the line there (for inputs reported inside another
 * report, like wcp --nested). */
wfb_graph *input_load_graph(const char *cmd, const char *path, wfb_format format,
                            const char *bp_map, bool partial, char *errbuf, size_t errlen);
/* The same graph for commands that need its figures and paths but not its
 * edges: a trace directory is lifted bounded (wfb_lifter_new_bounded:
 * memory bounded by the run's live state plus caches of memory bytes, what
 * grows with the trace beyond them in temporary files), or in memory when
 * memory is 0 or its message graph cannot be analysed as it is read (a
 * second reading). wfb_in_edges, wfb_write_dot and the like do not work on
 * a bounded graph. */
wfb_graph *input_load_graph_bounded(const char *cmd, const char *path, wfb_format format,
                                    const char *bp_map, bool partial, size_t memory,
                                    char *errbuf, size_t errlen);

/* After an analysis of g and its report: 0, or -1 after one line saying
 * that a temporary file of g could not be written or read back, or memory
 * for its cache ran out (wfb_graph_io_error), so what was computed is
 * wrong; the output must not be kept. */
int input_graph_check(const char *cmd, const wfb_graph *g);

/* The what-if replay model (whatif.h) of trace directory dir, read once
 * more (the loader of its graph has said what --partial lost: not again).
 * NULL on failure after one line "snetmon CMD: DIR: ..." on stderr, or,
 * when errbuf is not NULL, with the line there (the report shows it). */
struct whatif_model;
struct whatif_model *input_load_whatif(const char *cmd, const char *dir, bool partial,
                                       char *errbuf, size_t errlen);

#endif
