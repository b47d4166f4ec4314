/*
 * sync.c - the synchro-cell [| {a}, {b, <t>} |]: one task that stores the
 * first record matching each pattern; when every pattern holds one it
 * emits their merge and from then on passes every record through.
 *
 * The merge is one component execution that reads all stored records, so
 * the merged record's parents are all of them (an n->1 execution in the
 * trace). Storing a record emits nothing. Records that match no free
 * pattern pass through unchanged (same id). Records still stored when the
 * input ends are discarded and counted (the cell never fired).
 */
#include "snet_internal.h"

#include <stdlib.h>

typedef struct sync_entity {
    snet_run *run;
    const snet_net *net;
    char *path;
    lpel_stream *in, *out;
    snet_record **stored; /* one slot per pattern */
    size_t nstored;
    bool fired;
} sync_entity;

/* The free pattern r matches best, or -1. */
static long free_pattern(const sync_entity *s, const snet_record *r)
{
    const snet_type *p = &s->net->patterns;
    long best = -1, best_score = -1;
    for (size_t i = 0; i < p->count; i++) {
        if (s->stored[i])
            continue;
        long score = snet_variant_match(&p->variants[i], r);
        if (score > best_score) {
            best = (long)i;
            best_score = score;
        }
    }
    return best;
}

/* Merge the stored records (earlier patterns win) and emit the result. */
static void fire(sync_entity *s)
{
    size_t n = s->net->patterns.count;
    snet_record *merged = s->stored[0];
    s->stored[0] = NULL;
    snet_trace_begin(s->run);
    snet_trace_read(s->run, merged->id);
    for (size_t i = 1; i < n; i++) {
        snet_trace_read(s->run, s->stored[i]->id);
        if (snet_inherit(merged, s->stored[i], NULL) != SNET_OK)
            snet_run_fail(s->run, "synchro-cell '%s': out of memory merging", s->path);
        snet_record_free(s->stored[i]);
        s->stored[i] = NULL;
    }
    merged->id = snet_mig_next(s->run);
    snet_trace_written(s->run, merged->id);
    snet_trace_end(s->run);
    s->nstored = 0;
    s->fired = true;
    lpel_stream_write(s->out, merged);
}

static void sync_record(sync_entity *s, snet_record *r)
{
    long slot = s->fired ? -1 : free_pattern(s, r);
    if (slot < 0) {
        lpel_stream_write(s->out, r);
        return;
    }
    s->stored[slot] = r;
    if (++s->nstored == s->net->patterns.count)
        fire(s);
}

static void sync_task(void *arg)
{
    sync_entity *s = arg;
    lpel_stream_open(s->out, LPEL_STREAM_WRITE);
    for (snet_record *r; (r = lpel_stream_read(s->in)) != NULL;) {
        if (r->kind == SNET_REC_DATA)
            sync_record(s, r);
        else
            lpel_stream_write(s->out, r);
    }
    if (s->nstored)
        snet_run_note_discard(s->run, s->nstored);
    for (size_t i = 0; i < s->net->patterns.count; i++)
        snet_record_free(s->stored[i]);
    lpel_stream_close(s->in, LPEL_STREAM_READ);
    lpel_stream_close(s->out, LPEL_STREAM_WRITE);
    free(s->stored);
    free(s->path);
    free(s);
}

lpel_stream *snet_sync_instantiate(const snet_net *n, lpel_stream *in, const snet_place *at)
{
    sync_entity *s = calloc(1, sizeof *s);
    lpel_stream *out = snet_new_stream(at->run);
    if (s) {
        s->stored = calloc(n->patterns.count, sizeof *s->stored);
        s->path = snet_path_join(at->prefix, "sync");
    }
    if (!s || !out || !s->stored || !s->path) {
        if (s) {
            free(s->stored);
            free(s->path);
        }
        free(s);
        snet_run_fail(at->run, "out of memory instantiating a synchro-cell");
        return NULL;
    }
    s->run = at->run;
    s->net = n;
    s->in = in;
    s->out = out;
    if (!snet_spawn(at, s->path, sync_task, s)) {
        free(s->stored);
        free(s->path);
        free(s);
        return NULL;
    }
    return out;
}
