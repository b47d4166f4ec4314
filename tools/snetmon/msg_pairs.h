/*
 * msg_pairs.h - which message_written goes with which message_read, for
 * the exporters (Chrome flows, OTF2 send/receive).
 *
 * Why a first pass: a viewer wants a message as a pair (an arrow, or an
 * MPI-style send and receive that name each other's location), and the
 * write comes long before anyone knows whether, and on which worker, the
 * message will be read. So the exporters read the trace once to pair the
 * events here, rewind it (trace_input_rewind), and write while reading it
 * again. Memory: one small record per message id, not per event.
 *
 * A pair is the first message_written and the first message_read of one
 * message id within one run (ids restart with each run). What cannot be
 * paired is counted, never dropped silently: messages written but never
 * read (the network's output leaving the monitored tasks), read but never
 * written (input from outside them), and further writes or reads of an id
 * already paired.
 */
#ifndef SNETMON_MSG_PAIRS_H
#define SNETMON_MSG_PAIRS_H

#include <stdbool.h>
#include <stdint.h>

#include "trace_input.h"

typedef struct msg_pair {
    uint32_t run;
    uint64_t msg;
    uint32_t writes, reads;    /* message_written / message_read events seen */
    unsigned writer, reader;   /* workers of the first write and the first read */
    uint64_t write_time, read_time;
    uint64_t flow;             /* 1, 2, ... for paired messages (written and read), else 0 */
    bool write_done, read_done;/* pass 2: its first write / read has been exported */
} msg_pair;

typedef struct msg_pair_counts {
    uint64_t paired;           /* messages written and read */
    uint64_t written_unread;   /* written, never read in the trace */
    uint64_t read_unwritten;   /* read, never written in the trace */
    uint64_t repeated;         /* writes or reads beyond the first of an id */
} msg_pair_counts;

typedef struct msg_pairs msg_pairs;

/* Reads the whole trace (first pass) and pairs its messages. Returns NULL
 * after the one-line message (damaged trace without --partial, out of
 * memory). The caller rewinds in for the second pass. */
msg_pairs *msg_pairs_scan(trace_input *in, const char *cmd);
void msg_pairs_free(msg_pairs *p);

/* In the second pass, for ev a message_written or message_read: its pair
 * when ev is the first write or the first read of a paired message (and
 * marks that end done), else NULL (unpaired, or a repeated event). */
msg_pair *msg_pairs_first(msg_pairs *p, const mon_event *ev);

const msg_pair_counts *msg_pairs_counts(const msg_pairs *p);

#endif
