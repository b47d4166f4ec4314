/*
 * dist_run.c - the life of a run across ranks, seen from snet_run_create
 * and snet_run_execute: the collective checks that every rank builds the
 * same network and created its run, the communication thread around
 * lpel_run, and the agreement on the outcome afterwards (every rank's run
 * returns the same code and error; rank 0 prints a deadlock's report, rank
 * by rank).
 *
 * Collective calls happen in the same order on every rank whatever fails
 * locally, so a failure on one rank becomes an error on all of them rather
 * than a hang.
 */
#include "distrib_internal.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

double snet_dist_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ---- the network, the same on every rank ------------------------------------------------ */

static void hash_bytes(uint64_t *h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++) {
        *h ^= b[i];
        *h *= UINT64_C(0x100000001b3); /* FNV-1a */
    }
}

static void hash_text(uint64_t *h, const char *s)
{
    size_t n = s ? strlen(s) : 0;
    hash_bytes(h, &n, sizeof n);
    hash_bytes(h, s, n);
}

static void hash_type(uint64_t *h, const snet_type *t)
{
    char buf[1024];
    snet_type_text(t, buf, sizeof buf);
    hash_text(h, buf);
}

/* Collect the nodes in preorder and hash what makes the network itself. */
static int walk(snet_dist *d, const snet_net *n, uint64_t *h, size_t *cap)
{
    if (KIT_GROW(d->nodes, *cap, d->nnodes + 1) != 0)
        return -1;
    d->nodes[d->nnodes++] = n;
    int shape[6] = {(int)n->kind, n->det, n->placed, n->at_rank, n->worker, (int)n->nchildren};
    hash_bytes(h, shape, sizeof shape);
    hash_text(h, n->name);
    hash_text(h, n->tag);
    hash_type(h, &n->in_type);
    hash_type(h, &n->box_out);
    hash_type(h, &n->exit);
    hash_type(h, &n->patterns);
    for (size_t i = 0; i < n->nchildren; i++)
        if (walk(d, n->children[i], h, cap) != 0)
            return -1;
    return 0;
}

static snet_dist *dist_new(snet_distrib *job)
{
    snet_dist *d = calloc(1, sizeof *d);
    if (!d)
        return NULL;
    d->job = job;
    d->rank = job->rank;
    d->size = job->size;
    d->window = job->window;
    d->comm = MPI_COMM_NULL;
    atomic_init(&d->next_index, 0);
    atomic_init(&d->local_over, 0);
    pthread_mutex_init(&d->mpi_lock, NULL);
    pthread_mutex_init(&d->lock, NULL);
    pthread_mutex_init(&d->ends_lock, NULL);
    atomic_init(&d->own_bell.sleeping, 0);
    atomic_init(&d->own_bell.watchers, 0);
    d->bell = job->bells && job->bells[d->rank] ? job->bells[d->rank] : &d->own_bell;
    d->workers = calloc((size_t)d->size, sizeof *d->workers);
    d->table = calloc((size_t)d->size, sizeof *d->table);
    d->table_len = calloc((size_t)d->size, sizeof *d->table_len);
    d->cur = calloc((size_t)d->size, sizeof *d->cur);
    d->prev = calloc((size_t)d->size, sizeof *d->prev);
    if (!d->workers || !d->table || !d->table_len || !d->cur || !d->prev) {
        snet_dist_free(d);
        return NULL;
    }
    return d;
}

int snet_dist_begin(snet_dist **out, snet_distrib *job, const snet_net *net, const char *problem,
                    unsigned workers, char *err, size_t errlen)
{
    *out = NULL;
    snet_dist *d = dist_new(job);
    uint64_t hash = UINT64_C(0xcbf29ce484222325);
    size_t cap = 0;
    bool ok = d && !problem && walk(d, net, &hash, &cap) == 0;
    /* Every rank takes part, whatever happened here. */
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    uint64_t mine[3] = {ok, workers, hash};
    uint64_t *all = malloc((size_t)job->size * sizeof mine);
    if (!all)
        snet_fatal_oom("snet_run_create");
    MPI_Allgather(mine, 3, MPI_UINT64_T, all, 3, MPI_UINT64_T, comm);
    int rc = SNET_OK;
    if (problem)
        snet_set_error(err, errlen, "bad network: %s", problem);
    else if (!ok)
        snet_set_error(err, errlen, "rank %d: out of memory", job->rank);
    for (int r = 0; r < job->size && rc == SNET_OK; r++) {
        if (!all[3 * r]) {
            rc = problem ? SNET_EINVAL : SNET_ESYSTEM;
            if (ok)
                snet_set_error(err, errlen, "rank %d could not take the network (it says why)",
                               r);
        } else if (all[3 * r + 2] != all[2]) {
            rc = SNET_EINVAL;
            snet_set_error(err, errlen, "rank %d built a different network than rank 0 (every "
                                        "rank must build the same network description)",
                           r);
        }
    }
    if (rc == SNET_OK && !ok)
        rc = SNET_ESYSTEM;
    if (rc != SNET_OK) {
        free(all);
        MPI_Comm_free(&comm);
        snet_dist_free(d);
        return rc;
    }
    d->comm = comm;
    for (int r = 0; r < job->size; r++)
        d->workers[r] = all[3 * r + 1] ? (unsigned)all[3 * r + 1] : 1;
    free(all);
    *out = d;
    return SNET_OK;
}

int snet_dist_attach(snet_run *run, snet_dist *d, char *err, size_t errlen)
{
    d->run = run;
    run->dist = d;
    run->rank = d->rank;
    lpel_runtime_set_idle_poll(run->lpel, snet_comm_idle_poll, d, SNET_COMM_SPIN_NS);
    return snet_dist_start_spawner(d, err, errlen);
}

int snet_dist_agree(snet_dist *d, bool ok, char *err, size_t errlen)
{
    int mine = ok ? d->size : d->rank, first = d->size;
    MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, d->comm);
    if (first == d->size)
        return SNET_OK;
    if (ok)
        snet_set_error(err, errlen, "rank %d could not create its run (it says why)", first);
    return SNET_ESYSTEM;
}

/* ---- the clocks, measured against rank 0 ------------------------------------------------------ */

/* Monitored runs only (every rank monitored with times): each rank in turn
 * asks rank 0 for its clock SNET_SYNC_ROUNDS times and records (its clock
 * before, rank 0's, its clock after) into its trace, so that the trace
 * reader can put every rank's events on rank 0's clock (Cristian's method;
 * docs/LOGFORMAT.md section 8, docs/WIRE.md). Collective; on the main
 * thread, while the communication thread is not running. */
static void sync_clocks(snet_dist *d, const char *phase)
{
    uint64_t now;
    int mine = d->run->traced && snet_mon_clock(&now) ? 1 : 0, all = 0;
    MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, d->comm);
    if (!all || d->size < 2)
        return;
    unsigned char ticks[8]; /* u64, little-endian (docs/WIRE.md) */
    if (d->rank == 0) {
        for (int r = 1; r < d->size; r++)
            for (int i = 0; i < SNET_SYNC_ROUNDS; i++) {
                MPI_Recv(NULL, 0, MPI_BYTE, r, SNET_TAG_SYNC, d->comm, MPI_STATUS_IGNORE);
                snet_mon_clock(&now);
                for (int b = 0; b < 8; b++)
                    ticks[b] = (unsigned char)(now >> (8 * b));
                MPI_Send(ticks, 8, MPI_BYTE, r, SNET_TAG_SYNC, d->comm);
            }
        return;
    }
    uint64_t samples[SNET_SYNC_ROUNDS][3];
    for (int i = 0; i < SNET_SYNC_ROUNDS; i++) {
        snet_mon_clock(&samples[i][0]);
        MPI_Send(NULL, 0, MPI_BYTE, 0, SNET_TAG_SYNC, d->comm);
        MPI_Recv(ticks, 8, MPI_BYTE, 0, SNET_TAG_SYNC, d->comm, MPI_STATUS_IGNORE);
        snet_mon_clock(&samples[i][2]);
        samples[i][1] = 0;
        for (int b = 0; b < 8; b++)
            samples[i][1] |= (uint64_t)ticks[b] << (8 * b);
    }
    snet_mon_clock_samples(phase, (const uint64_t(*)[3])samples, SNET_SYNC_ROUNDS);
}

/* ---- executing -------------------------------------------------------------------------------- */

/* The report lines of one rank, without LPEL's heading line. */
static const char *report_body(const char *report)
{
    const char *nl = report ? strchr(report, '\n') : NULL;
    return nl ? nl + 1 : "";
}

/* Rank 0: the outcome of the whole run from every rank's status and text. */
static int compose(snet_dist *d, const int *status, char *const *text, char **message)
{
    size_t len = 0;
    FILE *f = open_memstream(message, &len);
    if (!f)
        snet_fatal_oom("the outcome of a run");
    int final = SNET_OK;
    for (int r = 0; r < d->size; r++)
        if (status[r] == SNET_EDEADLOCK)
            final = SNET_EDEADLOCK;
    if (final == SNET_EDEADLOCK) {
        fprintf(f, "deadlock across %d ranks: every task on every rank is blocked and no "
                   "message is in flight. Who waits for whom:\n",
                d->size);
        for (int r = 0; r < d->size; r++) {
            if (status[r] == SNET_EDEADLOCK)
                fprintf(f, "rank %d:\n%s", r, report_body(text[r]));
            else
                fprintf(f, "rank %d: its run had already ended: %s\n", r,
                        text[r][0] ? text[r] : "(no error)");
        }
    } else {
        for (int r = 0; r < d->size && final == SNET_OK; r++) {
            if (status[r] == SNET_OK)
                continue;
            final = status[r];
            if (!strncmp(text[r], "rank ", 5))
                fputs(text[r], f);
            else
                fprintf(f, "rank %d: %s", r, text[r]);
        }
    }
    fclose(f);
    return final;
}

/* Every rank: gather each rank's status and text on rank 0, which decides;
 * then every rank learns the verdict. */
static int agree_outcome(snet_dist *d, int status, const char *text, char **message)
{
    int len = (int)strlen(text);
    int *statuses = NULL, *lens = NULL, *displs = NULL;
    char *texts = NULL;
    if (d->rank == 0) {
        statuses = calloc((size_t)d->size, sizeof *statuses);
        lens = calloc((size_t)d->size, sizeof *lens);
        displs = calloc((size_t)d->size, sizeof *displs);
        if (!statuses || !lens || !displs)
            snet_fatal_oom("the outcome of a run");
    }
    MPI_Gather(&status, 1, MPI_INT, statuses, 1, MPI_INT, 0, d->comm);
    MPI_Gather(&len, 1, MPI_INT, lens, 1, MPI_INT, 0, d->comm);
    int total = 0;
    if (d->rank == 0) {
        for (int r = 0; r < d->size; r++) {
            displs[r] = total;
            total += lens[r] + 1;
        }
        texts = calloc((size_t)total + 1, 1);
        if (!texts)
            snet_fatal_oom("the outcome of a run");
    }
    MPI_Gatherv(text, len, MPI_CHAR, texts, lens, displs, MPI_CHAR, 0, d->comm);
    int final = SNET_OK, mlen = 0;
    *message = NULL;
    if (d->rank == 0) {
        char **each = calloc((size_t)d->size, sizeof *each);
        if (!each)
            snet_fatal_oom("the outcome of a run");
        for (int r = 0; r < d->size; r++)
            each[r] = texts + displs[r]; /* NUL-terminated by calloc's extra byte */
        final = compose(d, statuses, each, message);
        mlen = (int)strlen(*message);
        free(each);
    }
    MPI_Bcast(&final, 1, MPI_INT, 0, d->comm);
    MPI_Bcast(&mlen, 1, MPI_INT, 0, d->comm);
    if (d->rank != 0) {
        *message = calloc((size_t)mlen + 1, 1);
        if (!*message)
            snet_fatal_oom("the outcome of a run");
    }
    MPI_Bcast(*message, mlen, MPI_CHAR, 0, d->comm);
    free(statuses);
    free(lens);
    free(displs);
    free(texts);
    return final;
}

/* The run's error becomes the agreed message; rank 0 prints it (the other
 * ranks printed their own errors as they happened). */
static void record_outcome(snet_run *run, int final, const char *message)
{
    if (final == SNET_OK)
        return;
    pthread_mutex_lock(&run->error_lock);
    if (final == SNET_EDEADLOCK) /* the headline; the report goes to rank 0's errors */
        snprintf(run->error, sizeof run->error, "%.*s (rank 0 printed who waits for whom)",
                 (int)strcspn(message, ".\n"), message);
    else
        snprintf(run->error, sizeof run->error, "%s", message);
    atomic_store(&run->failed, 1);
    pthread_mutex_unlock(&run->error_lock);
    if (run->rank == 0 && final == SNET_EDEADLOCK) {
        FILE *out = run->errors ? run->errors : stderr;
        fprintf(out, "snet: error: %s", message);
        fflush(out);
    }
}

int snet_dist_execute(snet_run *run)
{
    snet_dist *d = run->dist;
    char err[256];
    sync_clocks(d, "start");
    if (snet_comm_start(d, err, sizeof err) != SNET_OK) {
        fprintf(stderr, "snet: fatal: %s\n", err);
        MPI_Abort(MPI_COMM_WORLD, 1); /* the other ranks would wait for us for ever */
    }
    int lrc = lpel_run(run->lpel);
    atomic_store(&d->local_over, 1);
    snet_comm_wake(d);
    snet_comm_join(d);
    sync_clocks(d, "end");
    int status;
    char local[sizeof run->error + 64];
    if (lrc == LPEL_EDEADLOCK) {
        status = SNET_EDEADLOCK;
        snprintf(local, sizeof local, "%s", "");
    } else if (lrc != LPEL_OK) {
        status = SNET_ESYSTEM;
        snprintf(local, sizeof local, "the LPEL run failed: %s", lpel_runtime_error(run->lpel));
    } else {
        status = atomic_load(&run->failed) ? SNET_ERUNTIME : SNET_OK;
        snprintf(local, sizeof local, "%s", status == SNET_OK ? "" : run->error);
    }
    char *message;
    int final = agree_outcome(d, status, status == SNET_EDEADLOCK && d->report ? d->report : local,
                              &message);
    record_outcome(run, final, message);
    free(message);
    return final;
}

void snet_dist_free(snet_dist *d)
{
    if (!d)
        return;
    snet_comm_join(d);
    for (size_t i = 0; i < d->nends; i++)
        snet_endpoint_free(d->ends[i]);
    free(d->ends);
    for (snet_msg *m = d->head, *next; m; m = next) {
        next = m->next;
        snet_msg_free(m);
    }
    for (size_t i = 0; i < d->nreqs; i++) {
        MPI_Cancel(&d->reqs[i]);
        MPI_Request_free(&d->reqs[i]);
        snet_msg_free(d->req_msgs[i]);
    }
    free(d->reqs);
    free(d->req_msgs);
    free(d->req_done);
    for (snet_spawn_req *r = d->spawns, *next; r; r = next) {
        next = r->next;
        free(r->prefix);
        free(r);
    }
    for (int r = 0; d->table && r < d->size; r++)
        free(d->table[r]);
    free(d->table);
    free(d->table_len);
    free(d->workers);
    free(d->nodes);
    free(d->cur);
    free(d->prev);
    free(d->report);
    lpel_event_destroy(d->spawn_event);
    if (d->comm != MPI_COMM_NULL)
        MPI_Comm_free(&d->comm);
    pthread_mutex_destroy(&d->mpi_lock);
    pthread_mutex_destroy(&d->lock);
    pthread_mutex_destroy(&d->ends_lock);
    free(d);
}

void snet_dist_destroy(snet_run *run)
{
    snet_dist_free(run->dist);
    run->dist = NULL;
}
