/*
 * parallel.c - parallel composition A | B (| C ...): a dispatcher task
 * routes each record to the branch whose input type matches it best (most
 * labels; ties broken by a per-dispatcher random choice), and a collector
 * task merges the branches' outputs (merger.c).
 *
 * A || B keeps input order: after each record the dispatcher sends a sort
 * marker into every branch; the collector releases a marker only when all
 * branches have delivered it, so outputs leave in the order of the inputs
 * that caused them. Markers of outer combinators are broadcast likewise.
 */
#include "snet_internal.h"

#include <stdlib.h>
#include <string.h>

typedef struct dispatcher {
    snet_run *run;
    const snet_net *net;
    char *path;
    lpel_stream *in;
    lpel_stream **branches;
    uint64_t rng;     /* tie breaking */
    uint64_t counter; /* sort markers sent (deterministic variant) */
    snet_match_cache *branch_match; /* per branch: its input type's last match */
} dispatcher;

static uint64_t next_random(uint64_t *state)
{
    uint64_t x = *state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *state = x;
}

/* The best branch for r, or -1 when none matches. */
static long choose_branch(dispatcher *d, const snet_record *r)
{
    long best = -1, best_score = -1;
    unsigned ties = 0;
    for (size_t i = 0; i < d->net->nchildren; i++) {
        long score;
        snet_match_cache_best(&d->branch_match[i], r, &score);
        if (score < 0 || score < best_score)
            continue;
        if (score > best_score) {
            best = (long)i;
            best_score = score;
            ties = 1;
        } else if (next_random(&d->rng) % ++ties == 0) {
            best = (long)i; /* reservoir choice: each tie equally likely */
        }
    }
    return best;
}

static void dispatch(dispatcher *d, snet_record *r)
{
    long b = choose_branch(d, r);
    if (b < 0) {
        snet_report_no_match(d->run, d->path, "parallel", r, &d->net->in_type);
        snet_record_free(r);
        return;
    }
    lpel_stream_write(d->branches[b], r);
    if (d->net->det) {
        snet_record *marker = snet_record_sort(lpel_task_id(lpel_task_self()), ++d->counter);
        if (!marker)
            snet_fatal_oom("the parallel dispatcher");
        snet_broadcast(d->branches, d->net->nchildren, marker);
        snet_record_free(marker);
    }
}

static void dispatcher_task(void *arg)
{
    dispatcher *d = arg;
    size_t n = d->net->nchildren;
    d->rng = lpel_task_id(lpel_task_self()) * 0x9e3779b97f4a7c15ULL | 1;
    d->branch_match = malloc(n * sizeof *d->branch_match);
    if (!d->branch_match)
        snet_fatal_oom("the parallel dispatcher");
    for (size_t i = 0; i < n; i++)
        snet_match_cache_init(&d->branch_match[i], &d->net->children[i]->in_type);
    for (size_t i = 0; i < n; i++)
        lpel_stream_open(d->branches[i], LPEL_STREAM_WRITE);
    for (snet_record *r; (r = lpel_stream_read(d->in)) != NULL;) {
        if (r->kind == SNET_REC_DATA) {
            dispatch(d, r);
        } else {
            snet_broadcast(d->branches, n, r);
            snet_record_free(r);
        }
    }
    lpel_stream_close(d->in, LPEL_STREAM_READ);
    for (size_t i = 0; i < n; i++)
        lpel_stream_close(d->branches[i], LPEL_STREAM_WRITE);
    free(d->branch_match);
    free(d->branches);
    free(d->path);
    free(d);
}

/* Instantiate every branch on its own input; fills outs[]. */
static int instantiate_branches(const snet_net *n, dispatcher *d, lpel_stream **outs,
                                const snet_place *at)
{
    for (size_t i = 0; i < n->nchildren; i++) {
        char part[32];
        snprintf(part, sizeof part, "P%zu:", i);
        char *prefix = snet_path_join(at->prefix, part);
        d->branches[i] = snet_new_stream(at->run);
        if (!prefix || !d->branches[i]) {
            free(prefix);
            return -1;
        }
        snet_place child = {at->run, prefix, at->worker};
        outs[i] = snet_instantiate(n->children[i], d->branches[i], &child);
        free(prefix);
        if (!outs[i])
            return -1;
    }
    return 0;
}

lpel_stream *snet_parallel_instantiate(const snet_net *n, lpel_stream *in, const snet_place *at)
{
    dispatcher *d = calloc(1, sizeof *d);
    snet_collector *c = calloc(1, sizeof *c);
    lpel_stream **outs = calloc(n->nchildren, sizeof *outs);
    lpel_stream *out = snet_new_stream(at->run);
    if (d)
        d->branches = calloc(n->nchildren, sizeof *d->branches);
    if (!d || !c || !outs || !out || !d->branches ||
        instantiate_branches(n, d, outs, at) != 0)
        goto fail;
    *d = (dispatcher){at->run, n, snet_path_join(at->prefix, "P"), in, d->branches, 0, 0, NULL};
    c->run = at->run;
    c->path = snet_path_join(at->prefix, "P");
    c->out = out;
    if (!d->path || !c->path)
        goto fail;
    uint64_t id = snet_spawn(at, d->path, dispatcher_task, d);
    if (!id) {
        d = NULL; /* its parts may be shared with a task that never runs: leak, not crash */
        goto fail;
    }
    snet_merger_init(&c->merger, n->det ? id : 0);
    for (size_t i = 0; i < n->nchildren; i++)
        if (snet_merger_add(&c->merger, outs[i]) != SNET_OK)
            goto fail_late;
    if (!snet_spawn(at, c->path, snet_collector_task, c))
        goto fail_late;
    free(outs);
    return out;
fail:
    snet_run_fail(at->run, "cannot instantiate parallel composition at '%sP'", at->prefix);
    if (d) {
        free(d->branches);
        free(d->path);
    }
    free(d);
fail_late:
    if (c) {
        snet_merger_free(&c->merger);
        free(c->path);
    }
    free(c);
    free(outs);
    return NULL;
}
