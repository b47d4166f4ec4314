/*
 * comm.c - MPI during a run: the communication thread, and the two ways
 * tasks and idle workers use MPI without it.
 *
 * MPI_THREAD_SERIALIZED lets any thread call MPI, one at a time: every MPI
 * call of a run is made under the MPI lock (d->mpi_lock). Three kinds of
 * thread take it:
 *   - a task sending a frame or credits (snet_comm_post) takes it only if
 *     it is free and sends at once; otherwise it queues the message for
 *     whoever holds the lock next, so a worker never waits for MPI;
 *   - a worker with nothing to run polls (lpel_runtime_set_idle_poll; one
 *     worker of the rank at a time): if the lock is free, it sends what is
 *     queued and takes in frames, credits and spawn requests, and a
 *     receiver task of its own it wakes runs next (no second thread is
 *     woken for a record);
 *   - the communication thread does all of that and what only it may do:
 *     the detection of the end of the run (detect.c), whose verdict may
 *     wait for the workers to be idle.
 * Messages from one rank are received in the order they were sent (MPI's
 * non-overtaking rule, which holds because every probe matches any tag),
 * which the protocol relies on: a SPAWN arrives before the first frame of
 * its channels. A worker that meets a message for the communication thread
 * leaves it, and everything after it, in MPI's queue and wakes the thread.
 *
 * The communication thread does not poll: idle workers do that, and busy
 * workers should not lose their cores to it. It sleeps on its doorbell, a
 * futex word in memory shared by the ranks of the host, which whoever
 * gives it work rings: a task that queues a message, and a rank of the
 * same host right after sending it one when no worker of this rank polls.
 * So no message between ranks of one host waits for a sleep to end. The
 * sleep still ends after doubling intervals up to SNET_COMM_MAX_SLEEP_NS:
 * messages from other hosts are only found by polling, and the end-of-run
 * detection and unfinished sends need the thread now and then.
 */
#include "distrib_internal.h"

#include <linux/futex.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define SNET_COMM_MIN_SLEEP_NS 2000L
/* The shortest sleep when every message to this rank rings its bell: the
 * thread wakes for them anyway. Starting at 2 us, a thread that had
 * something to do every ~100 us (a stream's frames while its workers are
 * busy) never slept longer than a few microseconds and spent a third of a
 * core in futex calls (2 workers a rank: a stream ran at 1e5 records/s,
 * 3.5e5 with this). */
#define SNET_COMM_MIN_QUIET_SLEEP_NS 100000L
/* The longest sleep while a message may come unannounced: a rank on
 * another host has none of our bells, and a send not finished yet needs
 * MPI's progress. */
#define SNET_COMM_MAX_SLEEP_NS 200000L
/* The longest sleep otherwise, when every message to this rank rings its
 * bell: it only bounds how late rank 0 notices that its own tasks are all
 * blocked (the end of a run; detect.c). 200 us here cost a rank that
 * receives nothing 8 % of a core in wake-ups. */
#define SNET_COMM_MAX_QUIET_SLEEP_NS 2000000L
/* A bell's share of the host's window: a cache line, so that ringing one
 * rank does not disturb another. */
#define SNET_BELL_BYTES 64
_Static_assert(sizeof(snet_bell) <= SNET_BELL_BYTES, "a bell fits its share of the window");
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

/* ---- doorbells -------------------------------------------------------------------------- */

/* The thread's `sleeping` word is 1 while it sleeps or is about to, else 0.
 * The sleeper sets it and then looks for work once more before it waits; a
 * ringer publishes its work (queues a message, or sends one into the
 * sleeper's shared memory) and then looks at the word. With a full barrier
 * on both sides either the sleeper sees the work or the ringer sees the
 * word: no wake-up is lost, and a bell nobody sleeps on costs a fence.
 * `watchers` follows the same pattern: a worker that stops polling MPI
 * lowers it and then takes a last look (snet_comm_idle_poll), so a ringer
 * that saw it raised may leave the thread asleep. */
static void bell_wake(snet_bell *b)
{
    if (atomic_load(&b->sleeping) == 1 && atomic_exchange(&b->sleeping, 0) == 1)
        syscall(SYS_futex, &b->sleeping, FUTEX_WAKE, 1, NULL, NULL, 0);
}

/* Work for whoever watches MPI on b's rank: the communication thread, if
 * no worker polls there now. The read of `watchers` is a read-modify-write:
 * the full barrier after the work was published (ThreadSanitizer does not
 * take a lone atomic_thread_fence). */
static void bell_ring(snet_bell *b)
{
    if (atomic_fetch_add(&b->watchers, 0) == 0)
        bell_wake(b);
}

/* Work only the communication thread can do: wake it whoever polls (the
 * exchange is the barrier). */
static void bell_summon(snet_bell *b)
{
    if (atomic_exchange(&b->sleeping, 0) == 1)
        syscall(SYS_futex, &b->sleeping, FUTEX_WAKE, 1, NULL, NULL, 0);
}

/* Shared (not FUTEX_PRIVATE): the ringer may be another process. */
static void bell_wait(snet_bell *b, long ns)
{
    struct timespec ts = {ns / 1000000000L, ns % 1000000000L};
    syscall(SYS_futex, &b->sleeping, FUTEX_WAIT, 1, &ts, NULL, 0);
}

void snet_bells_create(snet_distrib *job)
{
    job->bells = calloc((size_t)job->size, sizeof *job->bells);
    if (!job->bells)
        return; /* no bells: every sleep ends by its timeout */
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, job->rank, MPI_INFO_NULL,
                        &job->host);
    snet_bell *mine;
    MPI_Win_allocate_shared(SNET_BELL_BYTES, 1, MPI_INFO_NULL, job->host, &mine,
                            &job->bell_win);
    atomic_init(&mine->sleeping, 0);
    atomic_init(&mine->watchers, 0);
    MPI_Group world, host;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Comm_group(job->host, &host);
    for (int r = 0; r < job->size; r++) {
        int h;
        MPI_Group_translate_ranks(world, 1, &r, host, &h);
        if (h == MPI_UNDEFINED)
            continue;
        MPI_Aint size;
        int unit;
        MPI_Win_shared_query(job->bell_win, h, &size, &unit, &job->bells[r]);
    }
    MPI_Group_free(&world);
    MPI_Group_free(&host);
    MPI_Barrier(job->host); /* every bell is 0 before anyone rings */
}

void snet_bells_free(snet_distrib *job)
{
    if (!job->bells)
        return;
    MPI_Win_free(&job->bell_win);
    MPI_Comm_free(&job->host);
    free(job->bells);
    job->bells = NULL;
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
    pthread_mutex_unlock(&d->lock);
    bell_ring(d->bell);
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
        int *done = cap ? realloc(d->req_done, cap * sizeof *done) : NULL;
        if (done)
            d->req_done = done;
        if (!r || !ms || !done)
            snet_fatal_oom("the communication thread");
        d->capreqs = cap;
    }
    d->reqs[d->nreqs] = req;
    d->req_msgs[d->nreqs++] = m;
}

/* Ring rank dest's bell, if it is on this host. */
static void ring_peer(snet_dist *d, int dest)
{
    snet_bell **bells = d->job->bells;
    if (bells && bells[dest] && dest != d->rank)
        bell_ring(bells[dest]);
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
    ring_peer(d, m->dest);
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
    int done = 0, *idx = d->req_done;
    MPI_Testsome((int)d->nreqs, d->reqs, &done, idx, MPI_STATUSES_IGNORE);
    if (done == MPI_UNDEFINED)
        done = 0;
    for (int i = 0; i < done; i++) {
        /* A send MPI could not make at once (its queue to that rank was
         * full) has reached the peer only now: ring again. */
        ring_peer(d, d->req_msgs[idx[i]]->dest);
        snet_msg_free(d->req_msgs[idx[i]]);
        d->req_msgs[idx[i]] = NULL;
    }
    size_t kept = 0;
    for (size_t i = 0; i < d->nreqs; i++)
        if (d->req_msgs[i]) {
            d->reqs[kept] = d->reqs[i];
            d->req_msgs[kept++] = d->req_msgs[i];
        }
    d->nreqs = kept;
    return done > 0;
}

/* A task's message goes out from the task itself when that costs it no
 * wait: no other thread is in MPI (the lock is free), nothing is queued
 * before the message (MPI keeps the order of one rank's sends to a peer,
 * and the queue's order must hold: a channel's registration and its SPAWN
 * before its frames) and the run is not over. Otherwise the communication
 * thread sends it. Sending here spares a record the hop to that thread,
 * which on a machine without a spare core waited ~8 us for one
 * (docs/BENCHMARKS.md, issue 28). A send MPI has not finished at once is
 * left to the communication thread, woken for it. */
void snet_comm_post(snet_dist *d, snet_msg *m)
{
    if (m->body.failed)
        snet_fatal_oom("a message to another rank");
    if (pthread_mutex_trylock(&d->mpi_lock) == 0) {
        bool direct = !d->done && snet_comm_queue_empty(d);
        bool unfinished = false;
        if (direct) {
            send_msg(d, m);
            complete_sends(d);
            unfinished = d->nreqs > 0;
        }
        pthread_mutex_unlock(&d->mpi_lock);
        if (unfinished)
            bell_summon(d->bell);
        if (direct)
            return;
    }
    enqueue(d, m);
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

/* May a worker's idle poll take in a message of this tag? Not the
 * detection's: its verdict may wait for this rank's workers to be idle
 * (stop_deadlocked in detect.c), which a polling worker is not. */
static bool worker_takes(int tag)
{
    return counted(tag);
}

/* Take in what arrived (up to a batch). On a worker (by_worker), stop at
 * the first message the communication thread must take, leaving it and
 * everything after it in MPI's queue (in order), and ring that thread. */
static bool receive(snet_dist *d, bool by_worker)
{
    int taken = 0;
    for (; taken < SNET_COMM_RECV_BATCH; taken++) {
        int flag = 0, count = 0;
        MPI_Status st;
        MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, d->comm, &flag, &st);
        if (!flag)
            break;
        if (by_worker && !worker_takes(st.MPI_TAG)) {
            bell_summon(d->bell);
            break;
        }
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

/* Anything for the thread to do? (Its last look before it sleeps.) */
static bool has_work(snet_dist *d)
{
    int flag = 0;
    MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, d->comm, &flag, MPI_STATUS_IGNORE);
    return flag || !snet_comm_queue_empty(d) || atomic_load(&d->local_over);
}

/* Does every other rank ring this rank's bell when it sends (all ranks
 * on this host)? */
static bool all_peers_ring(const snet_dist *d)
{
    snet_bell **bells = d->job->bells;
    for (int r = 0; bells && r < d->size; r++)
        if (!bells[r])
            return false;
    return bells != NULL;
}

/* The thread found nothing to do `sleeps` times in a row: sleep on the
 * bell, for doubling intervals (short at first: a message often follows
 * another, e.g. the next detection wave). */
static void idle_sleep(snet_dist *d, unsigned sleeps)
{
    pthread_mutex_lock(&d->mpi_lock);
    bool sends_unfinished = d->nreqs > 0;
    pthread_mutex_unlock(&d->mpi_lock);
    bool quiet = !sends_unfinished && all_peers_ring(d);
    long max = quiet ? SNET_COMM_MAX_QUIET_SLEEP_NS : SNET_COMM_MAX_SLEEP_NS;
    long ns = quiet ? SNET_COMM_MIN_QUIET_SLEEP_NS : SNET_COMM_MIN_SLEEP_NS;
    while (sleeps-- && ns < max)
        ns *= 2;
    if (ns > max)
        ns = max;
    atomic_store(&d->bell->sleeping, 1); /* seq_cst: before the look below */
    pthread_mutex_lock(&d->mpi_lock);
    bool work = has_work(d);
    pthread_mutex_unlock(&d->mpi_lock);
    if (!work)
        bell_wait(d->bell, ns);
    atomic_store(&d->bell->sleeping, 0);
}

/* Whether this worker thread counts itself among its rank's watchers. */
static _Thread_local bool watching;

bool snet_comm_idle_poll(void *arg, bool last)
{
    snet_dist *d = arg;
    if (!last && !watching) {
        atomic_fetch_add(&d->bell->watchers, 1);
        watching = true;
    } else if (last && watching) {
        atomic_fetch_sub(&d->bell->watchers, 1); /* seq_cst: before the look below */
        watching = false;
    }
    if (pthread_mutex_trylock(&d->mpi_lock) != 0) {
        /* Whoever holds it is looking, but may have looked before a
         * message whose sender saw us watching: on our last look, leave
         * it to the communication thread. */
        if (last)
            bell_summon(d->bell);
        return false;
    }
    bool progress = false;
    if (!d->done) {
        progress = send_queued(d);
        progress |= complete_sends(d);
        progress |= receive(d, true);
    }
    pthread_mutex_unlock(&d->mpi_lock);
    return progress;
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
    unsigned sleeps = 0;
    for (;;) {
        pthread_mutex_lock(&d->mpi_lock);
        bool progress = send_queued(d);
        progress |= complete_sends(d);
        progress |= receive(d, false);
        if (!d->done)
            snet_detect_step(d);
        bool over = d->done && d->nreqs == 0 && snet_comm_queue_empty(d);
        pthread_mutex_unlock(&d->mpi_lock);
        if (over)
            break;
        if (progress)
            sleeps = 0;
        else
            idle_sleep(d, sleeps++);
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

void snet_comm_wake(snet_dist *d) { bell_summon(d->bell); }
