/*
 * trace_input.h - the one way every snetmon subcommand reads its input.
 *
 * An LPEL trace directory is opened, iterated and reported here, so that
 * dump, convert, export, metrics, wcp and render behave alike: a damaged or
 * truncated trace is one line naming the file and byte offset and exit
 * status 1; with --partial the readable events are used and the loss (how
 * many events and bytes, from which workers) goes into the output, in its
 * format. Event files (JSONL, WfCommons, NetLogger) come through the same
 * door for the commands that analyse graphs (input_load_graph).
 *
 * A multi-rank trace (DIR/rank-R/, one per MPI rank) comes through the same
 * calls as one trace (the reader merges and aligns the ranks); its events
 * are `ranked`, mon_trace_worker_label names their columns, and
 * trace_input_report_alignment says how the clocks were aligned.
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

/* The next event in time order: 1 with *ev set; 0 at the end of what can
 * be used (with --partial the loss is then known: trace_input_loss); -1
 * when the trace is damaged or incomplete and --partial was not given (the
 * one-line message has been printed: exit status 1). */
int trace_input_next(trace_input *in, mon_event *ev);

/* After the end: what was lost, NULL when nothing. Valid until close. */
const wfb_input_loss *trace_input_loss(const trace_input *in);

/* The reader, for the worker numbers and the clock. */
const mon_trace *trace_input_trace(const trace_input *in);

void trace_input_close(trace_input *in);

/* A multi-rank trace (one trace per MPI rank, merged on rank 0's clock):
 * how the clocks were aligned, as text lines each starting with prefix;
 * nothing for the trace of one process. 0, or -1 when out of memory. */
int trace_input_report_alignment(const trace_input *in, FILE *out, const char *prefix);

/* The option every trace-reading subcommand takes, for its --help. */
#define TRACE_INPUT_HELP                                                                      \
    "  --partial        analyse a damaged or truncated trace as far as it can be read,\n"      \
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

#endif
