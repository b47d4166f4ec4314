/*
 * mon_ends_internal.h - the trace reader's table of the tasks at the
 * two ends of a stream, learnt from stream_open (mon_reader.c), or of a
 * channel between MPI ranks, learnt from channel_open (mon_ranks.c), found
 * by (run, id), so that a block event can name the task it waits for (the
 * writer never records it: see mon_hooks.c). Internal to mon_reader.
 *
 * The entries in an array in the order first asked for, found through the
 * kit's index map (kit.h); a pointer is valid until the next mon_ends_of,
 * which may grow the array.
 */
#ifndef MON_ENDS_INTERNAL_H
#define MON_ENDS_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kit.h"

typedef struct mon_ends {
    uint64_t id;   /* stream id, or channel id (creator rank << 32 | index) */
    uint32_t run;  /* ids restart with each run */
    uint64_t writer, reader; /* of a channel: the sending and the receiving task */
} mon_ends;

typedef struct mon_ends_table {
    mon_ends *entries;
    size_t count, cap;
    kit_index_map index; /* (run, id) -> entry */
} mon_ends_table;

/* The ends of (run, id), both 0 when first asked for; NULL when out of
 * memory. */
mon_ends *mon_ends_of(mon_ends_table *t, uint32_t run, uint64_t id);

void mon_ends_table_free(mon_ends_table *t);

#endif /* MON_ENDS_INTERNAL_H */
