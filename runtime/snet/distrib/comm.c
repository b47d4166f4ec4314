/*
 * comm.c - the communication thread: the one thread of a rank that calls
 * MPI while a run executes (so MPI_THREAD_SERIALIZED suffices, and no
 * worker ever waits inside MPI).
 *
 * Its loop: send what tasks queued (non-blocking sends, buffers freed when
 * MPI is done with them), take in what arrived (probe, receive, hand it to
 * the channel end, the spawner or the detection), and on rank 0 run the
 * detection of the end of the run. Messages from one rank are received in
 * the order they were sent (MPI's non-overtaking rule, which holds because
 * every probe matches any tag), which the protocol relies on: a SPAWN
 * arrives before the first frame of its channels.
 *
 * Idle, the thread must not eat a core the workers need: it polls a little
 * (a message often follows another), then sleeps for doubling intervals up
 * to SNET_COMM_MAX_SLEEP_NS. Tasks that queue a message wake it at once,
 * so only incoming messages wait for the end of a sleep.
 */
#include "distrib_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>

/* Polls without sleeping after the last thing done. */
#define SNET_COMM_SPIN 200
#define SNET_COMM_MIN_SLEEP_NS 2000L
#define SNET_COMM_MAX_SLEEP_NS 200000L
/* Messages taken in per loop, so that sends are not starved. */
#define SNET_COMM_RECV_BATCH 64

snet_msg *snet_msg_new(int dest, int tag)
{
    snet_msg *m = calloc(1, sizeof *m);
    if (m) {
        m->dest = dest;
        m->tag = tag;
    }
    return m;
}

void snet_msg_free(snet_msg *m)
{
    if (m) {
        snet_bytes_free(&m->body);
        free(m);
    }
}

static void enqueue(snet_dist *d, snet_msg *m)
{
    m->next = NULL;
    pthread_mutex_lock(&d->lock);
    if (d->tail)
        d->tail->next = m;
    else
        d->head = m;
    d->tail = m;
    if (d->sleeping)
        pthread_cond_signal(&d->wake);
    pthread_mutex_unlock(&d->lock);
}

void snet_comm_post(snet_dist *d, snet_msg *m)
{
    if (m->body.failed)
        snet_fatal_oom("a message to another rank");
    enqueue(d, m);
}

void snet_comm_register(snet_dist *d, snet_endpoint *e)
{
    snet_msg *m = snet_msg_new(-1, 0);
    if (!m)
        snet_fatal_oom("a channel registration");
    m->reg = e;
    enqueue(d, m);
}

/* ---- the table of channel ends ----------------------------------------------------- */

static void table_put(snet_dist *d, snet_endpoint *e)
{
    if (KIT_GROW_ZEROED(d->table[e->creator], d->table_len[e->creator], (size_t)e->index + 1) != 0)
        snet_fatal_oom("the channel table");
    d->table[e->creator][e->index] = e;
}

static snet_endpoint *table_get(snet_dist *d, uint32_t creator, uint32_t index)
{
    if (creator >= (uint32_t)d->size || index >= d->table_len[creator])
        return NULL;
    return d->table[creator][index];
}

/* ---- sending ------------------------------------------------------------------------- */

static bool counted(int tag)
{
    return tag == SNET_TAG_DATA || tag == SNET_TAG_CREDIT || tag == SNET_TAG_SPAWN;
}

static void track(snet_dist *d, MPI_Request req, snet_msg *m)
{
    if (d->nreqs == d->capreqs) {
        size_t cap = kit_grow_capacity(d->capreqs, d->nreqs + 1, sizeof(MPI_Request));
        MPI_Request *r = cap ? realloc(d->reqs, cap * sizeof *r) : NULL;
        if (r)
            d->reqs = r;
        snet_msg **ms = cap ? realloc(d->req_msgs, cap * sizeof *ms) : NULL;
        if (ms)
            d->req_msgs = ms;
        if (!r || !ms)
            snet_fatal_oom("the communication thread");
        d->capreqs = cap;
    }
    d->reqs[d->nreqs] = req;
    d->req_msgs[d->nreqs++] = m;
}

static void send_msg(snet_dist *d, snet_msg *m)
{
    if (m->body.len > (size_t)INT32_MAX) {
        snet_run_fail(d->run, "a message of %zu bytes to rank %d is larger than MPI allows; "
                      "dropped", m->body.len, m->dest);
        snet_msg_free(m);
        return;
    }
    MPI_Request req;
    MPI_Isend(m->body.data, (int)m->body.len, MPI_BYTE, m->dest, m->tag, d->comm, &req);
    if (counted(m->tag))
        d->sent++;
    track(d, req, m);
}

void snet_comm_send_now(snet_dist *d, int dest, int tag, const void *data, size_t len)
{
    snet_msg *m = snet_msg_new(dest, tag);
    if (!m || snet_bytes_put(&m->body, data, len) != SNET_OK)
        snet_fatal_oom("the communication thread");
    send_msg(d, m);
}

static bool send_queued(snet_dist *d)
{
    pthread_mutex_lock(&d->lock);
    snet_msg *m = d->head;
    d->head = d->tail = NULL;
    pthread_mutex_unlock(&d->lock);
    bool any = m != NULL;
    while (m) {
        snet_msg *next = m->next;
        if (m->reg) {
            table_put(d, m->reg);
            snet_msg_free(m);
        } else {
            send_msg(d, m);
        }
        m = next;
    }
    return any;
}

static bool complete_sends(snet_dist *d)
{
    if (d->nreqs == 0)
        return false;
    int done = 0;
    int *idx = malloc(d->nreqs * sizeof *idx);
    if (!idx)
        snet_fatal_oom("the communication thread");
    MPI_Testsome((int)d->nreqs, d->reqs, &done, idx, MPI_STATUSES_IGNORE);
    if (done == MPI_UNDEFINED)
        done = 0;
    for (int i = 0; i < done; i++) {
        snet_msg_free(d->req_msgs[idx[i]]);
        d->req_msgs[idx[i]] = NULL;
    }
    free(idx);
    size_t kept = 0;
    for (size_t i = 0; i < d->nreqs; i++)
        if (d->req_msgs[i]) {
            d->reqs[kept] = d->reqs[i];
            d->req_msgs[kept++] = d->req_msgs[i];
        }
    d->nreqs = kept;
    return done > 0;
}

/* ---- receiving ----------------------------------------------------------------------- */

static void protocol_error(snet_dist *d, int src, const char *what)
{
    snet_run_fail(d->run, "a message from rank %d: %s (ignored)", src, what);
}

static void on_data(snet_dist *d, int src, unsigned char *buf, size_t len)
{
    snet_wire_in in = {buf, buf + len, false};
    uint32_t creator = snet_wire_u32(&in), index = snet_wire_u32(&in);
    snet_endpoint *e = table_get(d, creator, index);
    if (len < snet_frame_header_bytes() || !e || e->sends || e->peer != src) {
        protocol_error(d, src, "a frame for a channel this rank does not receive");
        free(buf);
        return;
    }
    snet_frame *f = malloc(sizeof *f);
    if (!f)
        snet_fatal_oom("the communication thread");
    *f = (snet_frame){NULL, buf, len};
    snet_endpoint_frame(e, f);
}

static void on_credit(snet_dist *d, int src, const unsigned char *buf, size_t len)
{
    snet_wire_in in = {buf, buf + len, false};
    uint32_t creator = snet_wire_u32(&in), index = snet_wire_u32(&in), n = snet_wire_u32(&in);
    uint32_t bytes = snet_wire_u32(&in);
    snet_endpoint *e = table_get(d, creator, index);
    if (in.bad || !e || !e->sends || e->peer != src) {
        protocol_error(d, src, "credit for a channel this rank does not send on");
        return;
    }
    snet_endpoint_credit(e, n, bytes);
}

static void on_spawn(snet_dist *d, int src, const unsigned char *buf, size_t len)
{
    snet_wire_in in = {buf, buf + len, false};
    uint32_t node = snet_wire_u32(&in);
    int32_t worker = (int32_t)snet_wire_u32(&in);
    uint32_t in_index = snet_wire_u32(&in), out_index = snet_wire_u32(&in);
    uint32_t plen = snet_wire_u32(&in);
    const unsigned char *prefix = snet_wire_take(&in, plen);
    if (in.bad || node >= d->nnodes) {
        protocol_error(d, src, "a malformed request to run a sub-network");
        return;
    }
    snet_spawn_req *req = calloc(1, sizeof *req);
    char *p = strndup((const char *)prefix, plen);
    if (!req || !p)
        snet_fatal_oom("the communication thread");
    req->net = d->nodes[node];
    req->worker = worker;
    req->prefix = p;
    req->in = snet_endpoint_new(d, (uint32_t)src, in_index, src, false, p);
    req->out = snet_endpoint_new(d, (uint32_t)src, out_index, src, true, p);
    if (!req->in || !req->out)
        snet_fatal_oom("the communication thread");
    table_put(d, req->in);
    table_put(d, req->out);
    snet_dist_spawn_request(d, req);
}

static void dispatch(snet_dist *d, int src, int tag, unsigned char *buf, size_t len)
{
    if (counted(tag))
        d->received++;
    switch (tag) {
    case SNET_TAG_DATA:
        on_data(d, src, buf, len);
        return; /* the frame owns buf now */
    case SNET_TAG_CREDIT:
        on_credit(d, src, buf, len);
        break;
    case SNET_TAG_SPAWN:
        on_spawn(d, src, buf, len);
        break;
    default:
        snet_detect_message(d, src, tag, buf, len);
        break;
    }
    free(buf);
}

static bool receive(snet_dist *d)
{
    int taken = 0;
    for (; taken < SNET_COMM_RECV_BATCH; taken++) {
        int flag = 0, count = 0;
        MPI_Status st;
        MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, d->comm, &flag, &st);
        if (!flag)
            break;
        MPI_Get_count(&st, MPI_BYTE, &count);
        unsigned char *buf = malloc(count > 0 ? (size_t)count : 1);
        if (!buf)
            snet_fatal_oom("the communication thread");
        MPI_Recv(buf, count, MPI_BYTE, st.MPI_SOURCE, st.MPI_TAG, d->comm, MPI_STATUS_IGNORE);
        dispatch(d, st.MPI_SOURCE, st.MPI_TAG, buf, (size_t)count);
    }
    return taken > 0;
}

/* ---- the loop ---------------------------------------------------------------------- */

static void idle_wait(snet_dist *d, unsigned idle)
{
    if (idle < SNET_COMM_SPIN)
        return;
    unsigned steps = (idle - SNET_COMM_SPIN) / 4;
    long ns = SNET_COMM_MIN_SLEEP_NS;
    while (steps-- && ns < SNET_COMM_MAX_SLEEP_NS)
        ns *= 2;
    if (ns > SNET_COMM_MAX_SLEEP_NS)
        ns = SNET_COMM_MAX_SLEEP_NS;
    struct timespec until;
    clock_gettime(CLOCK_MONOTONIC, &until);
    until.tv_nsec += ns;
    if (until.tv_nsec >= 1000000000L) {
        until.tv_sec++;
        until.tv_nsec -= 1000000000L;
    }
    pthread_mutex_lock(&d->lock);
    d->sleeping = true;
    while (!d->head && !atomic_load(&d->local_over)) {
        if (pthread_cond_timedwait(&d->wake, &d->lock, &until) == ETIMEDOUT)
            break;
    }
    d->sleeping = false;
    pthread_mutex_unlock(&d->lock);
}

bool snet_comm_queue_empty(snet_dist *d)
{
    pthread_mutex_lock(&d->lock);
    bool empty = d->head == NULL;
    pthread_mutex_unlock(&d->lock);
    return empty;
}

static void *comm_main(void *arg)
{
    snet_dist *d = arg;
    /* Short sleeps should be short: the default 50 us slack would add a
     * quarter of the longest sleep to every incoming message's wait. */
    prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
    unsigned idle = 0;
    for (;;) {
        bool progress = send_queued(d);
        progress |= complete_sends(d);
        progress |= receive(d);
        if (!d->done)
            snet_detect_step(d);
        if (d->done && d->nreqs == 0 && snet_comm_queue_empty(d))
            break;
        idle = progress ? 0 : idle + 1;
        idle_wait(d, idle);
    }
    return NULL;
}

int snet_comm_start(snet_dist *d, char *err, size_t errlen)
{
    if (pthread_create(&d->thread, NULL, comm_main, d) != 0) {
        snet_set_error(err, errlen, "rank %d: cannot start the communication thread", d->rank);
        return SNET_ESYSTEM;
    }
    pthread_setname_np(d->thread, "snet-comm");
    d->thread_started = true;
    return SNET_OK;
}

void snet_comm_join(snet_dist *d)
{
    if (d->thread_started)
        pthread_join(d->thread, NULL);
    d->thread_started = false;
}

void snet_comm_wake(snet_dist *d)
{
    pthread_mutex_lock(&d->lock);
    pthread_cond_signal(&d->wake);
    pthread_mutex_unlock(&d->lock);
}
