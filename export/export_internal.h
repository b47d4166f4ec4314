/*
 * export_internal.h - what the exporters share inside the export library:
 * the pairing of each message's write with its read (export_pairs.c) and
 * the one-line error of a failed export.
 */
#ifndef EXPORT_INTERNAL_H
#define EXPORT_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "export.h"
#include "kit.h" /* growing arrays */

typedef struct export_pair {
    uint32_t run;
    uint64_t msg;
    uint32_t writes, reads;    /* message_written / message_read events seen */
    unsigned writer, reader;   /* workers of the first write and the first read */
    uint64_t write_time, read_time;
    uint64_t flow;             /* 1, 2, ... for paired messages (written and read), else 0 */
    bool write_done, read_done;/* pass 2: its first write / read has been exported */
} export_pair;

typedef struct export_pairs export_pairs;

/* Reads the whole trace (first pass), pairs its messages and rewinds src
 * for the second pass. NULL on failure (err: why, "" when the source said
 * it). */
export_pairs *export_pairs_scan(const export_source *src, char *err, size_t errlen);
void export_pairs_free(export_pairs *p);

/* In the second pass, for ev a message_written or message_read: its pair
 * when ev is the first write or the first read of a paired message (and
 * marks that end done), else NULL (unpaired, or a repeated event). */
export_pair *export_pairs_first(export_pairs *p, const mon_event *ev);

const export_message_counts *export_pairs_counts(const export_pairs *p);

#endif /* EXPORT_INTERNAL_H */
