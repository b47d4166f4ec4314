/*
 * wfb_streams.c - the stream table of an LPEL trace: for each stream of a
 * run, the task that writes it, the task that reads it and how many items
 * were written to it.
 *
 * Why: the message graph links only component executions (boxes), while
 * every task - dispatchers, collectors, filters, synchro-cells included -
 * moves records over streams. Mapping advice (advice/advice.c) weighs the
 * communication between all tasks, so it needs the streams themselves:
 * stream_open says which task holds which end, stream_write counts items.
 */
#include "wfb_internal.h"

#include "mon_reader.h"

#include <stdlib.h>
#include <string.h>

static uint64_t key_hash(uint32_t run, uint64_t stream) { return stream ^ (uint64_t)run << 40; }

typedef struct row_key {
    const wfb_stream_table *t;
    uint32_t run;
    uint64_t stream;
} row_key;

static bool same_row(const void *ctx, uint32_t index)
{
    const row_key *k = ctx;
    const wfb_stream_stats *r = &k->t->rows[index];
    return r->run == k->run && r->stream == k->stream;
}

static uint64_t stored_row_hash(const void *ctx, uint32_t index)
{
    const wfb_stream_stats *r = &((const wfb_stream_table *)ctx)->rows[index];
    return key_hash(r->run, r->stream);
}

/* The row of (run, stream), created when first seen; NULL when out of memory. */
static wfb_stream_stats *row_of(wfb_stream_table *t, uint32_t run, uint64_t stream)
{
    row_key key = {t, run, stream};
    uint64_t hash = key_hash(run, stream);
    uint32_t found = kit_index_map_find(&t->index, hash, same_row, &key);
    if (found != UINT32_MAX)
        return &t->rows[found];
    if (KIT_GROW(t->rows, t->cap, t->n + 1))
        return NULL;
    wfb_stream_stats *r = &t->rows[t->n];
    memset(r, 0, sizeof *r);
    r->run = run;
    r->stream = stream;
    if (kit_index_map_insert(&t->index, hash, (uint32_t)t->n, stored_row_hash, t))
        return NULL;
    t->n++;
    return r;
}

int wfb_stream_table_feed(wfb_stream_table *t, uint32_t run, const mon_event *ev)
{
    wfb_stream_stats *r = row_of(t, run, ev->stream);
    if (!r)
        return -1;
    if (ev->kind == MON_EV_STREAM_WRITE) {
        r->writes++;
        if (!r->writer)
            r->writer = ev->task; /* the writer's stream_open was not recorded */
    } else if (ev->write_end) {
        r->writer = ev->task;
    } else {
        r->reader = ev->task;
    }
    return 0;
}

int wfb_stream_table_store(wfb_stream_table *t, wfb_graph *g)
{
    free(g->streams);
    g->streams = t->rows;
    g->n_streams = t->n;
    t->rows = NULL;
    t->n = t->cap = 0;
    kit_index_map_free(&t->index);
    return 0;
}

void wfb_stream_table_free(wfb_stream_table *t)
{
    free(t->rows);
    kit_index_map_free(&t->index);
    memset(t, 0, sizeof *t);
}
