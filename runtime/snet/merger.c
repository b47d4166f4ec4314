/*
 * merger.c - merging a growing set of streams into one: the collectors of
 * parallel composition, split and star, and the two-input stages of a star.
 *
 * Order for the deterministic combinators comes from sort markers: a
 * dispatcher sends a marker down every path after each record, so every
 * input of the collector carries the outputs of record k between markers
 * k-1 and k. A stream that delivers a marker is parked until every live
 * stream has delivered it; then the marker is dropped (it was ours) or
 * passed on once (an outer combinator's, which must see it after all our
 * output of the records before it). Between two markers only one input
 * has data, so the merge is in input order; without markers it is a plain
 * non-deterministic merge.
 *
 * ADD records (from a split dispatcher or a star stage) add a stream to the
 * set. A stream announced after a marker on some input cannot carry that
 * marker, and the announcing input is parked at the marker until it is
 * released, so the rule "every live stream" stays exact.
 */
#include "snet_internal.h"

#include <stdlib.h>

static int push(lpel_stream ***arr, size_t *n, size_t *cap, lpel_stream *s)
{
    return KIT_PUSH(*arr, *n, *cap, s) == 0 ? SNET_OK : SNET_ENOMEM;
}

int snet_merger_init(snet_merger *m, uint64_t own)
{
    *m = (snet_merger){0};
    m->own = own;
    return SNET_OK;
}

int snet_merger_add(snet_merger *m, lpel_stream *s)
{
    return push(&m->active, &m->nactive, &m->capactive, s);
}

void snet_merger_free(snet_merger *m)
{
    free(m->active);
    free(m->waiting);
    snet_record_free(m->marker);
    *m = (snet_merger){0};
}

static void remove_active(snet_merger *m, size_t i)
{
    m->active[i] = m->active[--m->nactive];
}

/* Every live stream is parked at the marker: release them all. */
static snet_record *release(snet_merger *m)
{
    for (size_t i = 0; i < m->nwaiting; i++)
        if (push(&m->active, &m->nactive, &m->capactive, m->waiting[i]) != SNET_OK)
            snet_fatal_oom("a collector");
    m->nwaiting = 0;
    snet_record *marker = m->marker;
    m->marker = NULL;
    if (marker && marker->sort_owner == m->own) {
        snet_record_free(marker);
        return NULL;
    }
    return marker;
}

static void park(snet_merger *m, size_t i, snet_record *marker)
{
    lpel_stream *s = m->active[i];
    remove_active(m, i);
    if (push(&m->waiting, &m->nwaiting, &m->capwaiting, s) != SNET_OK)
        snet_fatal_oom("a collector"); /* losing a stream would hang the run */
    if (!m->marker)
        m->marker = marker;
    else
        snet_record_free(marker);
}

snet_record *snet_merger_next(snet_merger *m)
{
    for (;;) {
        if (m->nactive == 0) {
            if (m->nwaiting == 0)
                return NULL;
            snet_record *marker = release(m);
            if (marker)
                return marker;
            continue;
        }
        size_t i = m->nactive == 1 ? 0 : lpel_stream_poll(m->active, m->nactive, m->start);
        m->start = i + 1;
        snet_record *r = lpel_stream_read(m->active[i]);
        if (!r) {
            lpel_stream_close(m->active[i], LPEL_STREAM_READ);
            remove_active(m, i);
        } else if (r->kind == SNET_REC_ADD) {
            if (snet_merger_add(m, r->add_stream) != SNET_OK)
                snet_fatal_oom("a collector");
            snet_record_free(r);
        } else if (r->kind == SNET_REC_SORT) {
            park(m, i, r);
        } else {
            return r;
        }
    }
}

void snet_broadcast(lpel_stream *const *streams, size_t n, const snet_record *ctl)
{
    for (size_t i = 0; i < n; i++) {
        snet_record *copy = snet_record_copy(ctl);
        if (!copy)
            snet_fatal_oom("a broadcast of control records");
        lpel_stream_write(streams[i], copy);
    }
}

void snet_collector_task(void *arg)
{
    snet_collector *c = arg;
    for (snet_record *r; (r = snet_merger_next(&c->merger)) != NULL;)
        lpel_stream_write(c->out, r);
    lpel_stream_close(c->out, LPEL_STREAM_WRITE);
    snet_merger_free(&c->merger);
    free(c->path);
    free(c);
}
