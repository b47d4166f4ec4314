/*
 * place.c - node-level placement: running a sub-network on another rank,
 * and the spawner task that runs the sub-networks other ranks send here.
 *
 * Instantiating sub-network N on rank r from this rank makes one channel
 * each way: this rank's stream into N goes out through a sender task, a
 * receiver task brings N's output back into a new local stream, and a
 * SPAWN message asks rank r to build N between the other two ends. Every
 * rank builds the same network, so N travels as its preorder index in the
 * network, with the net path prefix that names its tasks and the worker
 * hint of its placement. Static placements (@N) and the replicas of a
 * dynamic one (!@) go the same way, at any depth: a rank running a
 * sub-network may place parts of it elsewhere in turn.
 */
#include "distrib_internal.h"

#include <stdlib.h>
#include <string.h>

static long node_index(const snet_dist *d, const snet_net *n)
{
    for (size_t i = 0; i < d->nnodes; i++)
        if (d->nodes[i] == n)
            return (long)i;
    return -1;
}

lpel_stream *snet_dist_remote(const snet_net *n, lpel_stream *in, const snet_place *at, int rank)
{
    snet_run *run = at->run;
    snet_dist *d = run->dist;
    long node = node_index(d, n);
    lpel_stream *out = snet_new_stream(run);
    if (node < 0 || !out) {
        snet_run_fail(run, "cannot place '%s' on rank %d: %s", at->prefix, rank,
                      node < 0 ? "not part of the network (internal error)" : "out of memory");
        return NULL;
    }
    uint32_t first = atomic_fetch_add(&d->next_index, 2);
    snet_endpoint *tx = snet_endpoint_new(d, (uint32_t)d->rank, first, rank, true, at->prefix);
    snet_endpoint *rx =
        snet_endpoint_new(d, (uint32_t)d->rank, first + 1, rank, false, at->prefix);
    snet_msg *m = snet_msg_new(rank, SNET_TAG_SPAWN);
    if (!tx || !rx || !m)
        snet_fatal_oom("placing a sub-network on another rank");
    tx->stream = in;
    rx->stream = out;
    snet_comm_register(d, tx);
    snet_comm_register(d, rx);
    size_t plen = strlen(at->prefix);
    snet_bytes_u32(&m->body, (uint32_t)node);
    snet_bytes_u32(&m->body, (uint32_t)(int32_t)at->worker);
    snet_bytes_u32(&m->body, first);
    snet_bytes_u32(&m->body, first + 1);
    snet_bytes_u32(&m->body, (uint32_t)plen);
    snet_bytes_put(&m->body, at->prefix, plen);
    snet_comm_post(d, m);
    /* The ends here go where the mapper puts them: at->worker is the
     * placement on the other rank. */
    if (snet_endpoint_start(tx, LPEL_ANY_WORKER) != SNET_OK ||
        snet_endpoint_start(rx, LPEL_ANY_WORKER) != SNET_OK)
        return NULL;
    return out;
}

lpel_stream *snet_dist_at_rank(const snet_net *n, lpel_stream *in, const snet_place *at)
{
    snet_dist *d = at->run->dist;
    int rank = n->worker % d->size;
    if (rank == d->rank)
        return snet_instantiate(n->children[0], in, at);
    return snet_dist_remote(n->children[0], in, at, rank);
}

bool snet_dist_split_place(snet_run *run, long value, int *rank, int *worker)
{
    snet_dist *d = run->dist;
    long size = d->size;
    long r = ((value % size) + size) % size;
    long q = (value - r) / size; /* value div size, rounded down */
    long w = (long)d->workers[r];
    *rank = (int)r;
    *worker = (int)(((q % w) + w) % w);
    return r != d->rank;
}

/* ---- the spawner: sub-networks other ranks send here ------------------------------------ */

void snet_dist_spawn_request(snet_dist *d, snet_spawn_req *req)
{
    req->next = NULL;
    pthread_mutex_lock(&d->lock);
    if (d->spawns_tail)
        d->spawns_tail->next = req;
    else
        d->spawns = req;
    d->spawns_tail = req;
    pthread_mutex_unlock(&d->lock);
    lpel_event_raise(d->spawn_event);
}

void snet_dist_finish(snet_dist *d)
{
    pthread_mutex_lock(&d->lock);
    d->finished = true;
    pthread_mutex_unlock(&d->lock);
    lpel_event_raise(d->spawn_event);
}

/* Build the requested sub-network between the two new channel ends. If
 * it cannot be built (reported), its input flows straight back, so that
 * the run still winds down. */
static void run_request(snet_dist *d, snet_spawn_req *req)
{
    snet_run *run = d->run;
    lpel_stream *in = snet_new_stream(run);
    if (!in)
        snet_fatal_oom("the spawner");
    req->in->stream = in;
    snet_place place = {run, req->prefix, req->worker};
    lpel_stream *out = snet_instantiate(req->net, in, &place);
    req->out->stream = out ? out : in;
    if (snet_endpoint_start(req->in, req->worker) != SNET_OK ||
        snet_endpoint_start(req->out, req->worker) != SNET_OK)
        snet_run_fail(run, "cannot start the channels of '%s' from rank %d", req->prefix,
                      req->in->peer);
    free(req->prefix);
    free(req);
}

static void spawner_task(void *arg)
{
    snet_dist *d = arg;
    for (;;) {
        pthread_mutex_lock(&d->lock);
        snet_spawn_req *req = d->spawns;
        d->spawns = d->spawns_tail = NULL;
        bool finished = d->finished;
        pthread_mutex_unlock(&d->lock);
        if (!req && finished)
            break;
        if (!req)
            lpel_event_wait(d->spawn_event, LPEL_BLOCK_INPUT);
        while (req) {
            snet_spawn_req *next = req->next;
            run_request(d, req);
            req = next;
        }
    }
}

int snet_dist_start_spawner(snet_dist *d, char *err, size_t errlen)
{
    d->spawn_event = lpel_event_create("requests from other ranks to run sub-networks here");
    snet_place at = {d->run, "", LPEL_ANY_WORKER};
    if (!d->spawn_event || !snet_spawn(&at, "snet.spawn", spawner_task, d)) {
        snet_set_error(err, errlen, "rank %d: cannot start the spawner task", d->rank);
        return SNET_ESYSTEM;
    }
    return SNET_OK;
}
