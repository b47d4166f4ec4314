/*
 * wfb_streams.c - the stream table of an LPEL trace: for each stream of a
 * run, the task that writes it, the task that reads it and how many items
 * were written to it.
 *
 * Why: the message graph links only component executions (boxes), while
 * every task - dispatchers, collectors, filters, synchro-cells included -
 * moves records over streams. Mapping advice (wfb_advise.c) weighs the
 * communication between all tasks, so it needs the streams themselves:
 * stream_open says which task holds which end, stream_write counts items.
 */
#include "wfb_internal.h"

#include <stdlib.h>
#include <string.h>

static size_t stream_slot(uint32_t run, uint64_t stream, size_t n_slots)
{
    uint64_t h = (stream ^ (uint64_t)run << 40) * 0x9e3779b97f4a7c15ull;
    return (size_t)(h >> 24) & (n_slots - 1);
}

static int rehash(wfb_stream_table *t)
{
    size_t n = t->n_slots ? t->n_slots * 2 : 256;
    uint32_t *slots = calloc(n, sizeof *slots);
    if (!slots)
        return -1;
    for (size_t i = 0; i < t->n; i++) {
        size_t k = stream_slot(t->rows[i].run, t->rows[i].stream, n);
        while (slots[k])
            k = (k + 1) & (n - 1);
        slots[k] = (uint32_t)i + 1;
    }
    free(t->slots);
    t->slots = slots;
    t->n_slots = n;
    return 0;
}

/* The row of (run, stream), created when first seen; NULL when out of memory. */
static wfb_stream_stats *row_of(wfb_stream_table *t, uint32_t run, uint64_t stream)
{
    if (t->n_slots) {
        for (size_t k = stream_slot(run, stream, t->n_slots);; k = (k + 1) & (t->n_slots - 1)) {
            uint32_t s = t->slots[k];
            if (!s)
                break;
            if (t->rows[s - 1].run == run && t->rows[s - 1].stream == stream)
                return &t->rows[s - 1];
        }
    }
    if ((t->n + 1) * 2 > t->n_slots && rehash(t))
        return NULL;
    if (wfb_grow((void **)&t->rows, &t->cap, t->n + 1, sizeof *t->rows))
        return NULL;
    wfb_stream_stats *r = &t->rows[t->n];
    memset(r, 0, sizeof *r);
    r->run = run;
    r->stream = stream;
    size_t k = stream_slot(run, stream, t->n_slots);
    while (t->slots[k])
        k = (k + 1) & (t->n_slots - 1);
    t->slots[k] = (uint32_t)++t->n;
    return r;
}

int wfb_stream_table_feed(wfb_stream_table *t, uint32_t run, const wfb_lpel_event *ev)
{
    wfb_stream_stats *r = row_of(t, run, ev->stream);
    if (!r)
        return -1;
    if (ev->kind == WFB_LPEL_STREAM_WRITE) {
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
    return 0;
}

void wfb_stream_table_free(wfb_stream_table *t)
{
    free(t->rows);
    free(t->slots);
    memset(t, 0, sizeof *t);
}
